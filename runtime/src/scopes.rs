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

use std::collections::HashMap;
use std::sync::Arc;

use serde_json::{json, Value};

use crate::context::Principal;
use crate::jsonrpc::RpcError;

/// The JSON-RPC error code of a request refused for want of scope (in the
/// implementation-defined server error range).
pub const INSUFFICIENT_SCOPE: i64 = -32003;

/// What kind of item a scope requirement is attached to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Guarded {
    /// A tool, by name.
    Tool,
    /// A prompt, by name.
    Prompt,
    /// A resource, by URI, or a resource template, by its `uriTemplate`.
    Resource,
}

/// The scopes each tool, prompt and resource needs (empty: none does).
#[derive(Debug, Clone, Default)]
pub struct ScopeTable {
    items: HashMap<(Guarded, String), Arc<[String]>>,
}

impl ScopeTable {
    /// Requires `scopes` for item `name` of kind `kind` (replacing what was
    /// required before; an empty list requires nothing).
    pub fn require<I, S>(&mut self, kind: Guarded, name: impl Into<String>, scopes: I)
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
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// The scopes item `name` of kind `kind` needs (empty when none).
    pub fn required(&self, kind: Guarded, name: &str) -> &[String] {
        // A lookup by `(kind, &str)` needs an owned key with std's HashMap;
        // the tables are small and the key short.
        self.items.get(&(kind, name.to_owned())).map_or(&[], |s| s)
    }

    /// Every item with its scopes (for checks at build time).
    pub fn iter(&self) -> impl Iterator<Item = (Guarded, &str, &[String])> {
        self.items.iter().map(|((kind, name), scopes)| (*kind, name.as_str(), &scopes[..]))
    }
}

/// The scopes of `required` that `principal` does not hold.
pub fn missing<'a>(principal: &Principal, required: &'a [String]) -> Vec<&'a str> {
    required.iter().filter(|r| !principal.scopes.iter().any(|s| s == *r)).map(String::as_str).collect()
}

/// The JSON-RPC error refusing `what` (`tool notes_add`) for want of the
/// scopes `required`, naming them in `data.requiredScopes`.
pub fn insufficient(what: &str, required: &[String], missing: &[&str]) -> RpcError {
    RpcError::new(
        INSUFFICIENT_SCOPE,
        format!("insufficient scope: {what} needs the scope(s) {}; the token lacks {}", required.join(" "), missing.join(" ")),
    )
    .with_data(json!({ "requiredScopes": required, "missingScopes": missing }))
}

/// The item a request names, as `(kind, key, description)`: the tool of a
/// `tools/call`, the prompt of a `prompts/get`, the URI of a
/// `resources/read`, the prompt or template a `completion/complete`
/// refers to. `None` for other methods and malformed params (the method
/// itself reports those).
pub(crate) fn target<'a>(method: &str, get: impl Fn(&str) -> Option<&'a Value>) -> Option<(Guarded, &'a str)> {
    let text = |v: Option<&'a Value>| v.and_then(Value::as_str);
    match method {
        "tools/call" => Some((Guarded::Tool, text(get("name"))?)),
        "prompts/get" => Some((Guarded::Prompt, text(get("name"))?)),
        "resources/read" => Some((Guarded::Resource, text(get("uri"))?)),
        "completion/complete" => {
            let reference = get("ref")?;
            match reference.get("type").and_then(Value::as_str)? {
                "ref/prompt" => Some((Guarded::Prompt, text(reference.get("name"))?)),
                "ref/resource" => Some((Guarded::Resource, text(reference.get("uri"))?)),
                _ => None,
            }
        }
        _ => None,
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
        Principal { subject: "alice".into(), scopes: scopes.iter().map(|s| s.to_string()).collect(), ..Principal::default() }
    }

    #[test]
    fn every_required_scope_must_be_held_exactly() {
        let mut table = ScopeTable::default();
        table.require(Guarded::Tool, "add_note", ["notes:write", "notes:read"]);
        let need = table.required(Guarded::Tool, "add_note");
        assert_eq!(missing(&holder(&["notes:read", "notes:write"]), need), Vec::<&str>::new());
        assert_eq!(missing(&holder(&["notes:read"]), need), vec!["notes:write"]);
        assert_eq!(missing(&holder(&["notes"]), need), vec!["notes:write", "notes:read"], "no prefix implication");
        assert!(table.required(Guarded::Prompt, "add_note").is_empty(), "kinds are apart");
        table.require(Guarded::Tool, "add_note", Vec::<String>::new());
        assert!(table.is_empty());
    }

    #[test]
    fn a_request_names_its_target() {
        let params = json!({ "name": "n", "uri": "file:///a", "ref": { "type": "ref/resource", "uri": "file:///{x}" } });
        let get = |k: &str| params.get(k);
        assert_eq!(target("tools/call", get), Some((Guarded::Tool, "n")));
        assert_eq!(target("prompts/get", get), Some((Guarded::Prompt, "n")));
        assert_eq!(target("resources/read", get), Some((Guarded::Resource, "file:///a")));
        assert_eq!(target("completion/complete", get), Some((Guarded::Resource, "file:///{x}")));
        assert_eq!(target("tools/list", get), None);
        let err = insufficient("tool n", &["a".into(), "b".into()], &["b"]);
        assert_eq!(err.code, INSUFFICIENT_SCOPE);
        assert_eq!(err.data, Some(json!({ "requiredScopes": ["a", "b"], "missingScopes": ["b"] })));
    }
}
