//! What a request's caller may use: the OAuth scopes the tool, prompt or
//! resource it names needs (see [`crate::server::access::oauth_scopes`]), checked against the
//! request's [`Principal`] before anything runs, and which declared items
//! a list shows the caller when the server hides what it may not use.
//!
//! A token's scopes satisfy a requirement directly or through the scope
//! hierarchy the server declares ([`crate::ServerBuilder::scope_implies`]).
//!
//! A request without a principal (a transport that does not authenticate,
//! and no [`crate::ServerBuilder::principal`]) is not checked: scopes mean
//! something only where callers are authenticated.

use serde_json::Value;

use crate::jsonrpc::RpcError;
use crate::server::access::oauth_scopes::{self, Guarded, ScopeTable};
use crate::server::handler::context::Principal;
use crate::server::handler::extras::Extras;

/// A server's authorization settings: the scopes each item needs, the
/// caller of requests that carry no principal, and whether lists hide
/// what the caller may not use.
pub(crate) struct Authz {
    /// The OAuth scopes each tool, prompt and resource needs.
    pub(crate) scopes: ScopeTable,
    /// The caller of requests that carry no principal (stdio).
    pub(crate) principal: Option<Principal>,
    /// Lists leave out what the caller lacks the scopes for.
    pub(crate) hide_unauthorized: bool,
}

impl Authz {
    /// Whether no item needs any scope (nothing to check).
    pub(crate) fn is_empty(&self) -> bool {
        self.scopes.is_empty()
    }

    /// The caller of a request: its own principal, or the server's.
    pub(crate) fn principal_of<'a>(&'a self, extras: &'a Extras) -> Option<&'a Principal> {
        extras.principal().or(self.principal.as_ref())
    }

    /// The scopes item `name` of kind `kind` needs; a URI read through a
    /// resource template needs the template's (`template_of` names the
    /// template a URI is read through, if any).
    pub(crate) fn required_scopes<'t>(
        &self,
        kind: Guarded,
        name: &str,
        template_of: impl FnOnce(&str) -> Option<&'t str>,
    ) -> &[String] {
        let direct = self.scopes.required(kind, name);
        if !direct.is_empty() || kind != Guarded::Resource {
            return direct;
        }
        match template_of(name) {
            Some(template) => self.scopes.required(kind, template),
            None => &[],
        }
    }

    /// What the request `method` with params member lookup `get` names and
    /// the scopes it lacks, when it lacks any: `(what, required, missing)`.
    pub(crate) fn shortfall<'v, 't>(
        &self,
        method: &str,
        get: impl Fn(&str) -> Option<&'v Value>,
        extras: &Extras,
        template_of: impl FnOnce(&str) -> Option<&'t str>,
    ) -> Option<(String, Vec<String>, Vec<String>)> {
        if self.scopes.is_empty() {
            return None;
        }
        let principal = self.principal_of(extras)?;
        let (kind, name) = oauth_scopes::target(method, get)?;
        let required = self.required_scopes(kind, name, template_of);
        let missing = self.scopes.missing(principal, required);
        if missing.is_empty() {
            return None;
        }
        let missing = missing.into_iter().map(str::to_owned).collect();
        Some((
            oauth_scopes::describe(kind, name),
            required.to_vec(),
            missing,
        ))
    }

    /// The JSON-RPC error of a request whose caller lacks scopes, if so.
    pub(crate) fn check<'v, 't>(
        &self,
        method: &str,
        get: impl Fn(&str) -> Option<&'v Value>,
        extras: &Extras,
        template_of: impl FnOnce(&str) -> Option<&'t str>,
    ) -> Result<(), RpcError> {
        match self.shortfall(method, get, extras, template_of) {
            None => Ok(()),
            Some((what, required, missing)) => {
                let missing: Vec<&str> = missing.iter().map(String::as_str).collect();
                Err(oauth_scopes::insufficient(&what, &required, &missing))
            }
        }
    }

    /// Whether search answers leave out, for this caller, the tools it
    /// lacks the scopes to call; `Some(principal)` when they do (whenever
    /// scopes are required and the caller is known, `hide_unauthorized` or
    /// not: a search answers what can be called).
    pub(crate) fn call_filter<'a>(&'a self, extras: &'a Extras) -> Option<&'a Principal> {
        if self.scopes.is_empty() {
            return None;
        }
        self.principal_of(extras)
    }

    /// Whether lists leave out, for this caller, the items it lacks the
    /// scopes for; `Some(principal)` when they do.
    pub(crate) fn list_filter<'a>(&'a self, extras: &'a Extras) -> Option<&'a Principal> {
        if !self.hide_unauthorized || self.scopes.is_empty() {
            return None;
        }
        self.principal_of(extras)
    }

    /// Whether `principal` may use the declared item `item` of a list
    /// (`key` is the member naming it: `name`, `uri` or `uriTemplate`).
    pub(crate) fn may_use(
        &self,
        principal: &Principal,
        kind: Guarded,
        key: &str,
        item: &Value,
    ) -> bool {
        let Some(name) = item.get(key).and_then(Value::as_str) else {
            return true;
        };
        self.scopes
            .missing(principal, self.scopes.required(kind, name))
            .is_empty()
    }
}
