//! The Streamable HTTP transport of the server (cargo feature
//! `streamable-http`): [`HttpService`], a `tower::Service` over
//! `http::Request`s built on hyper 1 with no web framework, serving one MCP
//! endpoint in both eras, and [`serve`] to run it on a TCP listener with
//! graceful shutdown.
//!
//! - Stateless era (2026-07-28): every request is its own POST carrying
//!   `_meta` and the mirrored headers (`MCP-Protocol-Version`, `Mcp-Method`,
//!   `Mcp-Name`, `Mcp-Param-*`; `-32020` on a mismatch); GET and DELETE are
//!   405; `-32601` is 404; envelope errors are 400.
//! - Stateful era (2025-03-26 … 2025-11-25): `initialize` opens a session
//!   named by `MCP-Session-Id`; POSTs are answered as JSON or SSE; GET opens
//!   the session's stream for server-initiated messages; DELETE ends it;
//!   an unknown or expired session is 404.
//! - Safe by default: `Host` and `Origin` allowlists (loopback names),
//!   a body limit (413), a cap on live sessions with idle expiry, 406/415
//!   for wrong media types, and an authentication hook whose
//!   [`crate::server::handler::context::Principal`] reaches the access-control hook and the
//!   handlers (a tower layer may insert one into the request extensions
//!   instead).
//! - OAuth 2.1 ([`auth`]): with [`HttpConfig::bearer_auth`], the
//!   protected resource metadata at its well-known URLs, a bearer gate
//!   before every request (401/403 challenges), and the manifest's scopes
//!   answered 403 `insufficient_scope` before any handler runs.
//! - The client side is the client's ([`crate::client::http`],
//!   [`crate::client::oauth`]); what both sides use (outbound connections,
//!   the `Mcp-*` headers) is [`crate::transport::http`]. Each public path
//!   is its folder.
//! - Several replicas: the stateless era needs nothing shared; stateful
//!   sessions continue on any replica given a [`SessionStore`]
//!   ([`MemoryStore`] in one process, `RedisStore` with the `redis`
//!   feature), and need sticky routing without one.

pub mod auth;
mod body;
mod endpoint;
mod guard;
mod mirror;
mod post;
#[cfg(feature = "redis")]
mod redis_store;
mod replica;
mod responses;
mod serve;
mod service;
mod sessions;
mod store;
mod timer;

use std::sync::Arc;
use std::time::Duration;

pub use body::HttpBody;
pub use guard::{Allow, LOCAL_HOSTS};
#[cfg(feature = "redis")]
pub use redis_store::RedisStore;
pub use serve::{bind_and_serve, serve, serve_with_shutdown, ToSocketAddrs};
pub use service::HttpService;
pub use store::{
    AnnouncedTask, Events, MemoryStore, SessionEvent, SessionStore, StoreError, StoreFuture,
    StoredSession,
};

use crate::server::handler::context::Principal;

/// Why the authentication hook refused a request: answered with `status`
/// (401 by default) and a `WWW-Authenticate` header when given.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuthRejection {
    /// The HTTP status (401 or 403).
    pub status: http::StatusCode,
    /// The `WWW-Authenticate` challenge, if any.
    pub www_authenticate: Option<String>,
    /// A short explanation for the body.
    pub message: String,
    /// A `DPoP-Nonce` for the client's next proof (RFC 9449 §9), if any.
    pub dpop_nonce: Option<String>,
}

impl AuthRejection {
    /// 401 with a message.
    pub fn unauthorized(message: impl Into<String>) -> Self {
        Self {
            status: http::StatusCode::UNAUTHORIZED,
            www_authenticate: None,
            message: message.into(),
            dpop_nonce: None,
        }
    }
}

/// Authenticates a request from its head: `Ok(Some(principal))`,
/// `Ok(None)` for an anonymous request that may proceed, or a rejection.
pub type AuthHook =
    Arc<dyn Fn(&http::request::Parts) -> Result<Option<Principal>, AuthRejection> + Send + Sync>;

/// Settings of the HTTP transport.
#[derive(Clone)]
pub struct HttpConfig {
    /// Hosts the server answers to (`Host` header); default the loopback names.
    pub allowed_hosts: Allow,
    /// Origins allowed when a request carries `Origin`; default the
    /// loopback names on any port and scheme.
    pub allowed_origins: Allow,
    /// Largest request body; larger ones are answered 413.
    pub max_body_bytes: usize,
    /// Request bodies being read and handled at once, in bytes at most
    /// (a body without `Content-Length` counts as `max_body_bytes`); a
    /// request past it is answered 503 with `Retry-After`, so memory
    /// stays bounded however many connections send at once.
    pub max_buffered_bytes: usize,
    /// Live stateful sessions at most; more are answered 503.
    pub max_sessions: usize,
    /// A stateful session unused this long (and with nothing in flight) ends.
    pub session_idle: Duration,
    /// Interval of keep-alive comments on idle SSE streams.
    pub keep_alive: Duration,
    /// Whether the stateful era (`initialize` sessions) is served.
    pub stateful: bool,
    /// The authentication hook (synchronous; runs after the bearer gate).
    pub auth: Option<AuthHook>,
    /// The OAuth bearer gate and the resource metadata it publishes.
    pub bearer: Option<Arc<auth::BearerAuth>>,
    /// Where stateful sessions are shared with other replicas; `None`
    /// keeps them in this service only (they then need sticky routing).
    pub session_store: Option<Arc<dyn SessionStore>>,
    /// The longest a session store operation may take; a session that
    /// cannot be loaded in time is unknown (404).
    pub store_timeout: Duration,
    /// The longest a client may take to send a request's head, and so
    /// the longest a keep-alive connection stays open idle (enforced by
    /// [`serve`] at one-second resolution).
    pub header_read_timeout: Duration,
}

impl std::fmt::Debug for HttpConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpConfig")
            .field("allowed_hosts", &self.allowed_hosts)
            .field("allowed_origins", &self.allowed_origins)
            .field("max_body_bytes", &self.max_body_bytes)
            .field("max_buffered_bytes", &self.max_buffered_bytes)
            .field("max_sessions", &self.max_sessions)
            .field("session_idle", &self.session_idle)
            .field("keep_alive", &self.keep_alive)
            .field("stateful", &self.stateful)
            .field("auth", &self.auth.is_some())
            .field("bearer", &self.bearer)
            .field("session_store", &self.session_store.is_some())
            .field("store_timeout", &self.store_timeout)
            .field("header_read_timeout", &self.header_read_timeout)
            .finish()
    }
}

impl Default for HttpConfig {
    fn default() -> Self {
        Self {
            allowed_hosts: Allow::local(),
            allowed_origins: Allow::local(),
            max_body_bytes: 4 << 20,
            max_buffered_bytes: 64 << 20,
            max_sessions: 1024,
            session_idle: Duration::from_secs(30 * 60),
            keep_alive: Duration::from_secs(15),
            stateful: true,
            auth: None,
            bearer: None,
            session_store: None,
            store_timeout: Duration::from_secs(1),
            header_read_timeout: Duration::from_secs(30),
        }
    }
}

impl HttpConfig {
    /// Also answers to these hosts (`example.com`, `mcp.internal:8443`).
    pub fn allow_hosts<I: IntoIterator<Item = S>, S: Into<String>>(mut self, hosts: I) -> Self {
        let extra = hosts.into_iter().map(Into::into);
        self.allowed_hosts = match self.allowed_hosts {
            Allow::Any => Allow::Any,
            Allow::Only(mut list) => {
                list.extend(extra);
                Allow::Only(list)
            }
        };
        self
    }

    /// Also allows these origins (`https://app.example.com`, or a host).
    pub fn allow_origins<I: IntoIterator<Item = S>, S: Into<String>>(mut self, origins: I) -> Self {
        let extra = origins.into_iter().map(Into::into);
        self.allowed_origins = match self.allowed_origins {
            Allow::Any => Allow::Any,
            Allow::Only(mut list) => {
                list.extend(extra);
                Allow::Only(list)
            }
        };
        self
    }

    /// Answers any `Host` (behind a proxy that checks it).
    pub fn allow_any_host(mut self) -> Self {
        self.allowed_hosts = Allow::Any;
        self
    }

    /// Sets the largest request body.
    pub fn max_body_bytes(mut self, n: usize) -> Self {
        self.max_body_bytes = n;
        self
    }

    /// Sets the most request-body bytes read and handled at once.
    pub fn max_buffered_bytes(mut self, n: usize) -> Self {
        self.max_buffered_bytes = n;
        self
    }

    /// Sets the cap on live stateful sessions.
    pub fn max_sessions(mut self, n: usize) -> Self {
        self.max_sessions = n;
        self
    }

    /// Sets the idle expiry of stateful sessions.
    pub fn session_idle(mut self, idle: Duration) -> Self {
        self.session_idle = idle;
        self
    }

    /// Sets the keep-alive interval of SSE streams.
    pub fn keep_alive(mut self, every: Duration) -> Self {
        self.keep_alive = every;
        self
    }

    /// Serves the stateless era only (no `initialize`, no sessions): any
    /// replica can answer any request.
    pub fn stateless_only(mut self) -> Self {
        self.stateful = false;
        self
    }

    /// Shares stateful sessions through `store`: any replica given the same
    /// store continues a session any of them opened.
    pub fn session_store(mut self, store: impl SessionStore) -> Self {
        self.session_store = Some(Arc::new(store));
        self
    }

    /// Sets the time limit of session store operations.
    pub fn store_timeout(mut self, limit: Duration) -> Self {
        self.store_timeout = limit;
        self
    }

    /// Sets how long a client may take to send a request's head.
    pub fn header_read_timeout(mut self, limit: Duration) -> Self {
        self.header_read_timeout = limit;
        self
    }

    /// Protects the endpoint with OAuth bearer tokens: `auth` publishes
    /// the resource metadata and verifies every request's token; the
    /// verified [`Principal`] reaches the access-control hook, the
    /// handlers and the scope checks.
    pub fn bearer_auth(mut self, auth: auth::BearerAuth) -> Self {
        self.bearer = Some(Arc::new(auth));
        self
    }

    /// Authenticates every request with `hook` (synchronous: for checks
    /// that need no I/O; the OAuth gate is [`HttpConfig::bearer_auth`]).
    pub fn authenticate<F>(mut self, hook: F) -> Self
    where
        F: Fn(&http::request::Parts) -> Result<Option<Principal>, AuthRejection>
            + Send
            + Sync
            + 'static,
    {
        self.auth = Some(Arc::new(hook));
        self
    }
}
