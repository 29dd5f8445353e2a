//! Who and what a request is served as: its [`Scope`] (era, revision,
//! caller, `_meta`, transport extras), and the [`CachedScope`] a session or
//! the HTTP service keeps under a modern request's `_meta` text.

use std::sync::Arc;

use serde_json::Value;

use crate::revision::Revision;
use crate::server::handler::context::{ClientIdentity, LogLevel};
use crate::server::handler::extras::Extras;

/// The era, revision and caller a request is served with.
#[derive(Clone)]
pub(crate) struct Scope {
    /// The revision's row in the table.
    pub(crate) revision: &'static Revision,
    /// The revision as named by the request or session.
    pub(crate) version: Arc<str>,
    /// Served statelessly (per-request `_meta`).
    pub(crate) modern: bool,
    /// The caller.
    pub(crate) client: Option<Arc<ClientIdentity>>,
    /// The request's `params._meta`.
    pub(crate) meta: Option<Arc<Value>>,
    /// The least severe level a handler may log at, from `_meta` (modern).
    pub(crate) meta_log_level: Option<LogLevel>,
    /// Transport extensions (HTTP parts, principal).
    pub(crate) extras: Arc<Extras>,
}

/// What a modern request's `_meta` decided, kept under the `_meta` text
/// (by the session over stdio, by the HTTP service for its stateless
/// requests) so that a request with the same text (a client sends the
/// same `_meta` with every request) is served without reading it again.
pub(crate) struct CachedScope {
    pub(in crate::server) text: Box<str>,
    pub(in crate::server) revision: &'static Revision,
    pub(in crate::server) version: Arc<str>,
    pub(in crate::server) client: Arc<ClientIdentity>,
    pub(in crate::server) meta: Arc<Value>,
    pub(in crate::server) log_level: Option<LogLevel>,
}

impl CachedScope {
    /// The `_meta` text it was made from.
    pub(crate) fn text(&self) -> &str {
        &self.text
    }

    /// The `_meta` it was made from.
    pub(crate) fn meta(&self) -> &Value {
        &self.meta
    }
}
