//! Which era, revision and caller a request is served as (see
//! `basic/versioning.mdx`): a session's era once fixed, `initialize` for
//! the stateful era, per-request `_meta` for the stateless one (checked
//! and kept for requests that repeat it), and the answer a legacy client
//! gets from a stateless-only server.

use std::sync::Arc;

use serde_json::{json, Value};

use crate::jsonrpc::{self, field, member, RpcError};
use crate::revision::method::Method;
use crate::revision::{self, codes, meta, Era};
use crate::server::handler::context::{ClientIdentity, LogLevel};
use crate::server::handler::extras::Extras;

use crate::server::request::scope::{CachedScope, Scope};
use crate::server::session::Session;

use super::methods::Core;

/// Whether `method` is one of the stateful era's handshake and liveness
/// messages, which a legacy client sends first and the stateless era
/// answers with the revisions to use instead.
fn legacy_handshake(method: &str) -> bool {
    matches!(
        Method::of(method),
        Some(Method::Initialize | Method::Ping | Method::Initialized)
    )
}

/// `-32602` for a modern request whose `_meta` lacks a required field.
fn missing_meta(detail: &str) -> RpcError {
    RpcError::invalid_params(format!(
        "{detail}; every request of protocol revision {} carries params._meta with \"{}\" and \"{}\"",
        revision::LATEST,
        meta::PROTOCOL_VERSION,
        meta::CLIENT_CAPABILITIES
    ))
}

// Inherent impl away from its type: `Core` is `methods`' (what every
// request shares); this is how a request gets its scope.
impl Core {
    /// Decides the era, revision and caller of a request (see
    /// `basic/versioning.mdx`): a request whose `params._meta` names a
    /// protocol version (and `server/discover`) is served statelessly;
    /// `initialize` selects the stateful era for the session; on a
    /// connection the first such request fixes the era.
    pub(crate) fn scope(
        &self,
        session: &Session,
        method: &str,
        request_meta: Option<Value>,
        extras: &Arc<Extras>,
    ) -> Result<Scope, RpcError> {
        let names_version = member(request_meta.as_ref(), meta::PROTOCOL_VERSION).is_some();
        let session_era = session.era();
        let modern = match (session_era, Method::of(method)) {
            (Some(Era::Stateful), _) => false,
            (Some(Era::Stateless), _) => true,
            (None, Some(Method::Initialize)) => names_version,
            (None, Some(Method::Discover)) => true,
            (None, _) => names_version || self.config.supported_in(Era::Stateful).next().is_none(),
        };
        if !modern {
            let (client, version): (_, Arc<str>) = match session.identity_and_version() {
                Some((c, version)) => (Some(c), version),
                None => (None, self.default_stateful().into()),
            };
            return Ok(Scope {
                revision: revision::nearest(&version),
                version,
                modern: false,
                client,
                meta: request_meta.map(Arc::new),
                meta_log_level: None,
                extras: Arc::clone(extras),
            });
        }
        if legacy_handshake(method) {
            // Removed in the stateless era; the message names what to use,
            // as legacy clients have no other way to learn it.
            let supported = self.config.supported_newest_first();
            return Err(RpcError::new(
                jsonrpc::METHOD_NOT_FOUND,
                format!(
                    "Method not found: {method} is not part of protocol revision {}; this server supports {} (per-request _meta from 2026-07-28)",
                    revision::LATEST,
                    supported.join(", ")
                ),
            )
            .with_data(json!({ "supported": supported })));
        }
        let Some(Value::Object(request_meta)) = request_meta else {
            return Err(missing_meta("the request has no params._meta object"));
        };
        let version = match field(&request_meta, meta::PROTOCOL_VERSION) {
            Some(Value::String(v)) => v.as_str(),
            Some(_) => {
                return Err(missing_meta(&format!(
                    "\"{}\" must be a string",
                    meta::PROTOCOL_VERSION
                )))
            }
            None => {
                return Err(missing_meta(&format!(
                    "params._meta lacks \"{}\"",
                    meta::PROTOCOL_VERSION
                )))
            }
        };
        if revision::era(version) != Era::Stateless || !self.config.supports(version) {
            let supported = self.config.supported_newest_first();
            return Err(RpcError::new(
                codes::UNSUPPORTED_PROTOCOL_VERSION,
                "Unsupported protocol version",
            )
            .with_data(json!({ "supported": supported, "requested": version })));
        }
        let capabilities = match field(&request_meta, meta::CLIENT_CAPABILITIES) {
            Some(c @ Value::Object(_)) => c.clone(),
            Some(_) => {
                return Err(missing_meta(&format!(
                    "\"{}\" must be an object",
                    meta::CLIENT_CAPABILITIES
                )))
            }
            None => {
                return Err(missing_meta(&format!(
                    "params._meta lacks \"{}\"",
                    meta::CLIENT_CAPABILITIES
                )))
            }
        };
        let meta_log_level = match field(&request_meta, meta::LOG_LEVEL) {
            None => None,
            Some(level) => match level.as_str().and_then(LogLevel::parse) {
                Some(level) => Some(level),
                None => {
                    return Err(RpcError::invalid_params(format!(
                        "\"{}\" must be one of {}",
                        meta::LOG_LEVEL,
                        LogLevel::names()
                    )))
                }
            },
        };
        session.fix_era(Era::Stateless);
        let identity = ClientIdentity {
            info: field(&request_meta, meta::CLIENT_INFO)
                .cloned()
                .unwrap_or(Value::Null),
            protocol_version: version.to_owned(),
            capabilities,
        };
        Ok(Scope {
            revision: revision::nearest(version),
            version: version.into(),
            modern: true,
            client: Some(Arc::new(identity)),
            // Moved, not copied: the request's params hold `null` in its place.
            meta: Some(Arc::new(Value::Object(request_meta))),
            meta_log_level,
            extras: Arc::clone(extras),
        })
    }

    /// The scope `cached` (a kept scope whose `_meta` text the request
    /// repeats) gives a request of `session`; `None` when the session is
    /// not stateless or `method` is not served statelessly.
    pub(crate) fn scope_of(
        &self,
        session: &Session,
        method: &str,
        cached: &CachedScope,
        extras: &Arc<Extras>,
    ) -> Option<Scope> {
        if session.era() != Some(Era::Stateless) || legacy_handshake(method) {
            return None;
        }
        Some(Scope {
            revision: cached.revision,
            version: Arc::clone(&cached.version),
            modern: true,
            client: Some(Arc::clone(&cached.client)),
            meta: Some(Arc::clone(&cached.meta)),
            meta_log_level: cached.log_level,
            extras: Arc::clone(extras),
        })
    }

    /// Keeps a modern scope for requests with the same `_meta` text.
    pub(crate) fn cache_scope(&self, session: &Session, meta_text: &str, scope: &Scope) {
        let (true, Some(client), Some(meta)) = (scope.modern, &scope.client, &scope.meta) else {
            return;
        };
        session.cache_scope(Arc::new(CachedScope {
            text: meta_text.into(),
            revision: scope.revision,
            version: Arc::clone(&scope.version),
            client: Arc::clone(client),
            meta: Arc::clone(meta),
            log_level: scope.meta_log_level,
        }));
    }

    /// The revision a stateful request is served in before `initialize`.
    pub(crate) fn default_stateful(&self) -> &str {
        self.config
            .supported_in(Era::Stateful)
            .next()
            .unwrap_or(revision::LATEST_STATEFUL)
    }
}
