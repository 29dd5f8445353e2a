//! Per-item OAuth scopes: which scopes a caller's [`Principal`] must hold
//! to call a tool, get a prompt or read a resource (a static URI or a URI
//! template), as a manifest declares them under `x-mcpgen.scopes` and the
//! generated server registers them ([`crate::ServerBuilder::tool_scopes`]
//! and its siblings). The engine checks them before a handler runs; the
//! HTTP service checks them first to answer 403 `insufficient_scope`.
//!
//! A caller holds a required scope when its token grants exactly that
//! scope (scope strings are opaque, RFC 6749 §3.3): `notes:write` is not
//! implied by `notes`. Every listed scope is needed.
//!
//! Scope hierarchies (the 2026-07-28 authorization page: servers "MUST
//! account for scope hierarchies, where a broader scope implies narrower
//! ones") are declared, never inferred from the strings: a server says
//! which broader scope implies which narrower ones
//! ([`crate::ServerBuilder::scope_implies`], [`ScopeTable::imply`]), and a
//! token holding the broader scope then satisfies a requirement of any
//! scope it implies, directly or through others (`notes:admin` ⊇
//! `notes:write` ⊇ `notes:read`). Without declarations nothing is implied.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::Arc;

use serde_json::{json, Value};

use crate::jsonrpc::RpcError;
use crate::revision::method::{Method, Target};
use crate::server::handler::context::Principal;

/// The JSON-RPC error code of a request refused for want of scope (in the
/// implementation-defined server error range).
pub const INSUFFICIENT_SCOPE: i64 = -32003;

/// What kind of item a scope requirement is attached to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Guarded {
    /// A tool, by name.
    Tool,
    /// A prompt, by name.
    Prompt,
    /// A resource, by URI, or a resource template, by its `uriTemplate`.
    Resource,
}

/// The scopes each tool, prompt and resource needs (empty: none does).
#[derive(Debug, Clone, Default)]
pub(crate) struct ScopeTable {
    items: HashMap<(Guarded, String), Arc<[String]>>,
    /// The declared implications: broader scope → the narrower ones it
    /// implies directly.
    edges: BTreeMap<String, BTreeSet<String>>,
    /// Their transitive closure: broader scope → every scope it implies.
    implied: HashMap<String, BTreeSet<String>>,
}

impl ScopeTable {
    /// Requires `scopes` for item `name` of kind `kind` (replacing what was
    /// required before; an empty list requires nothing).
    pub(crate) fn require<I, S>(&mut self, kind: Guarded, name: impl Into<String>, scopes: I)
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let list: Vec<String> = scopes.into_iter().map(Into::into).collect();
        let key = (kind, name.into());
        if list.is_empty() {
            self.items.remove(&key);
        } else {
            self.items.insert(key, list.into());
        }
    }

    /// Whether no item needs a scope.
    pub(crate) fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// The scopes item `name` of kind `kind` needs (empty when none).
    pub(crate) fn required(&self, kind: Guarded, name: &str) -> &[String] {
        // A lookup by `(kind, &str)` needs an owned key with std's HashMap;
        // the tables are small and the key short.
        self.items.get(&(kind, name.to_owned())).map_or(&[], |s| s)
    }

    /// Every item with its scopes (for checks at build time).
    pub(crate) fn iter(&self) -> impl Iterator<Item = (Guarded, &str, &[String])> {
        self.items
            .iter()
            .map(|((kind, name), scopes)| (*kind, name.as_str(), &scopes[..]))
    }

    /// Declares that a token holding `broader` also holds each of
    /// `narrower` (and whatever those imply in turn). Implications only
    /// ever add to what a declared broader scope grants; a cycle is
    /// refused by [`ScopeTable::check`].
    pub(crate) fn imply<I, S>(&mut self, broader: impl Into<String>, narrower: I)
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let broader = broader.into();
        let entry = self.edges.entry(broader.clone()).or_default();
        entry.extend(
            narrower
                .into_iter()
                .map(Into::into)
                .filter(|n| *n != broader),
        );
        self.implied = closure(&self.edges);
    }

    /// An error naming a cycle of implications (`a` implies `b` implies
    /// `a`): such scopes would be interchangeable, which is never what a
    /// hierarchy means, so a server declaring one does not start.
    pub(crate) fn check(&self) -> Result<(), String> {
        match self
            .implied
            .iter()
            .find(|(scope, below)| below.contains(scope.as_str()))
        {
            Some((scope, _)) => Err(format!(
                "the scope hierarchy has a cycle: {scope:?} implies itself through other scopes"
            )),
            None => Ok(()),
        }
    }

    /// Whether a token holding `held` satisfies a requirement of `scope`:
    /// it holds `scope` itself or a broader scope implying it.
    pub(crate) fn grants(&self, held: &[String], scope: &str) -> bool {
        held.iter().any(|h| {
            h == scope
                || self
                    .implied
                    .get(h)
                    .is_some_and(|below| below.contains(scope))
        })
    }

    /// The scopes of `required` that `principal` holds neither directly
    /// nor through a broader scope (exact matching when no hierarchy
    /// is declared).
    pub(crate) fn missing<'a>(
        &self,
        principal: &Principal,
        required: &'a [String],
    ) -> Vec<&'a str> {
        required
            .iter()
            .filter(|r| !self.grants(&principal.scopes, r))
            .map(String::as_str)
            .collect()
    }
}

/// The transitive closure of `edges`.
fn closure(edges: &BTreeMap<String, BTreeSet<String>>) -> HashMap<String, BTreeSet<String>> {
    let mut out = HashMap::with_capacity(edges.len());
    for start in edges.keys() {
        let mut seen: BTreeSet<String> = BTreeSet::new();
        let mut todo: Vec<&String> = edges[start].iter().collect();
        while let Some(next) = todo.pop() {
            if seen.insert(next.clone()) {
                todo.extend(edges.get(next).into_iter().flatten());
            }
        }
        out.insert(start.clone(), seen);
    }
    out
}

/// The JSON-RPC error refusing `what` (`tool notes_add`) for want of the
/// scopes `required`, naming them in `data.requiredScopes`.
pub(crate) fn insufficient(what: &str, required: &[String], missing: &[&str]) -> RpcError {
    RpcError::new(
        INSUFFICIENT_SCOPE,
        format!(
            "insufficient scope: {what} needs the scope(s) {}; the token lacks {}",
            required.join(" "),
            missing.join(" ")
        ),
    )
    .with_data(json!({ "requiredScopes": required, "missingScopes": missing }))
}

/// The item a request names, as `(kind, key, description)`: the tool of a
/// `tools/call`, the prompt of a `prompts/get`, the URI of a
/// `resources/read`, the prompt or template a `completion/complete`
/// refers to. `None` for other methods and malformed params (the method
/// itself reports those).
pub(crate) fn target<'a>(
    method: &str,
    get: impl Fn(&str) -> Option<&'a Value>,
) -> Option<(Guarded, &'a str)> {
    let text = |v: Option<&'a Value>| v.and_then(Value::as_str);
    let target = Method::of(method)?.target()?;
    let named = get(target.member());
    match target {
        Target::Tool => Some((Guarded::Tool, text(named)?)),
        Target::Prompt => Some((Guarded::Prompt, text(named)?)),
        Target::Resource => Some((Guarded::Resource, text(named)?)),
        Target::Reference => {
            let reference = named?;
            let (kind, member) = match reference.get("type").and_then(Value::as_str)? {
                "ref/prompt" => (Guarded::Prompt, Target::Prompt.member()),
                "ref/resource" => (Guarded::Resource, Target::Resource.member()),
                _ => return None,
            };
            Some((kind, text(reference.get(member))?))
        }
        Target::Task => None,
    }
}

/// How an item is named in a refusal.
pub(crate) fn describe(kind: Guarded, name: &str) -> String {
    match kind {
        Guarded::Tool => format!("tool {name}"),
        Guarded::Prompt => format!("prompt {name}"),
        Guarded::Resource => format!("resource {name}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn holder(scopes: &[&str]) -> Principal {
        Principal {
            subject: "alice".into(),
            scopes: scopes.iter().map(|s| s.to_string()).collect(),
            ..Principal::default()
        }
    }

    #[test]
    fn every_required_scope_must_be_held_exactly() {
        let mut table = ScopeTable::default();
        table.require(Guarded::Tool, "add_note", ["notes:write", "notes:read"]);
        let need = table.required(Guarded::Tool, "add_note");
        assert_eq!(
            table.missing(&holder(&["notes:read", "notes:write"]), need),
            Vec::<&str>::new()
        );
        assert_eq!(
            table.missing(&holder(&["notes:read"]), need),
            vec!["notes:write"]
        );
        assert_eq!(
            table.missing(&holder(&["notes"]), need),
            vec!["notes:write", "notes:read"],
            "no prefix implication"
        );
        assert!(
            table.required(Guarded::Prompt, "add_note").is_empty(),
            "kinds are apart"
        );
        table.require(Guarded::Tool, "add_note", Vec::<String>::new());
        assert!(table.is_empty());
    }

    #[test]
    fn a_declared_hierarchy_grants_narrower_scopes_and_nothing_else() {
        let mut table = ScopeTable::default();
        table.require(Guarded::Tool, "add_note", ["notes:write"]);
        table.require(Guarded::Tool, "count", ["notes:read"]);
        let (write, read) = (
            table.required(Guarded::Tool, "add_note").to_vec(),
            table.required(Guarded::Tool, "count").to_vec(),
        );
        // Nothing declared: exact matching only.
        assert_eq!(
            table.missing(&holder(&["notes:admin"]), &write),
            vec!["notes:write"]
        );
        table.imply("notes:admin", ["notes:write"]);
        table.imply("notes:write", ["notes:read"]);
        assert!(table.check().is_ok());
        assert!(
            table.grants(&["notes:admin".into()], "notes:read"),
            "transitive"
        );
        assert!(table.missing(&holder(&["notes:admin"]), &write).is_empty());
        assert!(
            table.missing(&holder(&["notes:admin"]), &read).is_empty(),
            "through notes:write"
        );
        assert!(table.missing(&holder(&["notes:write"]), &read).is_empty());
        // Never upwards, never sideways, never by name.
        assert_eq!(
            table.missing(&holder(&["notes:read"]), &write),
            vec!["notes:write"]
        );
        assert_eq!(
            table.missing(&holder(&["notes"]), &read),
            vec!["notes:read"]
        );
        assert_eq!(
            table.missing(&holder(&["notes:admin:x"]), &read),
            vec!["notes:read"]
        );
        assert!(!table.grants(&["notes:write".into()], "notes:admin"));
        // A scope implying itself is ignored; a cycle is refused.
        table.imply("notes:read", ["notes:read"]);
        assert!(table.check().is_ok());
        table.imply("notes:read", ["notes:admin"]);
        assert!(table.check().unwrap_err().contains("cycle"));
    }

    #[test]
    fn a_request_names_its_target() {
        let params = json!({ "name": "n", "uri": "file:///a", "ref": { "type": "ref/resource", "uri": "file:///{x}" } });
        let get = |k: &str| params.get(k);
        assert_eq!(target("tools/call", get), Some((Guarded::Tool, "n")));
        assert_eq!(target("prompts/get", get), Some((Guarded::Prompt, "n")));
        assert_eq!(
            target("resources/read", get),
            Some((Guarded::Resource, "file:///a"))
        );
        assert_eq!(
            target("completion/complete", get),
            Some((Guarded::Resource, "file:///{x}"))
        );
        assert_eq!(target("tools/list", get), None);
        let err = insufficient("tool n", &["a".into(), "b".into()], &["b"]);
        assert_eq!(err.code, INSUFFICIENT_SCOPE);
        assert_eq!(
            err.data,
            Some(json!({ "requiredScopes": ["a", "b"], "missingScopes": ["b"] }))
        );
    }
}
