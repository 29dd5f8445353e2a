//! What a server's author configures: the settings ([`ServerConfig`]),
//! the caching hints of results and the access-control and output hooks.
//! Set once on [`super::ServerBuilder`]; read-only afterwards.

use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;

use crate::revision::{self, Era};
use crate::server::handler::context::ClientIdentity;

/// What the access-control hook is told about a call.
#[derive(Debug)]
pub struct CallInfo<'a> {
    /// Wire name of the tool.
    pub tool: &'a str,
    /// The arguments as sent (already validated).
    pub arguments: &'a Value,
    /// The caller, when known (after `initialize`, or from the request's `_meta`).
    pub client: Option<&'a ClientIdentity>,
    /// The JSON-RPC id of the request.
    pub request_id: &'a Value,
    /// Request extensions: HTTP request parts, an authenticated
    /// [`crate::server::handler::context::Principal`].
    pub extensions: &'a http::Extensions,
}

/// Decides whether a call may run; `Err(reason)` refuses it.
pub type AccessHook = Arc<dyn Fn(&CallInfo<'_>) -> Result<(), String> + Send + Sync>;
/// Rewrites a finished `CallToolResult` (e.g. to redact secrets) before it is sent.
pub type OutputHook = Arc<dyn Fn(&str, &mut Value) + Send + Sync>;

/// Who may cache a cacheable result (stateless era).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CacheScope {
    /// No user-specific data: any client or shared cache may keep it.
    Public,
    /// Only for the same authorization context.
    Private,
}

impl CacheScope {
    /// The wire value.
    pub fn as_str(self) -> &'static str {
        match self {
            CacheScope::Public => "public",
            CacheScope::Private => "private",
        }
    }
}

/// The caching hint of a cacheable result (`ttlMs`, `cacheScope`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CacheHint {
    /// How long the client may consider the result fresh.
    pub ttl: Duration,
    /// Who may cache it.
    pub scope: CacheScope,
}

impl CacheHint {
    /// A hint of `ttl` for `scope`.
    pub fn new(ttl: Duration, scope: CacheScope) -> Self {
        Self { ttl, scope }
    }
}

impl Default for CacheHint {
    /// One minute, public: a manifest's lists are the same for everybody.
    fn default() -> Self {
        Self {
            ttl: Duration::from_secs(60),
            scope: CacheScope::Public,
        }
    }
}

/// Static settings of a server.
#[derive(Debug, Clone)]
pub struct ServerConfig {
    /// The revision the server was generated for.
    pub revision: String,
    /// Every revision the server serves, in either era (by default all of
    /// [`crate::revision::REVISIONS`]).
    pub supported_revisions: Vec<String>,
    /// `serverInfo` (`name`, `version`, optional `title`, ...).
    pub server_info: Value,
    /// `instructions` sent in the `initialize` and `server/discover` results.
    pub instructions: Option<String>,
    /// Tools per `tools/list` page.
    pub page_size: usize,
    /// Whether `tools.listChanged` is declared.
    pub list_changed: bool,
    /// Whether the audit log includes argument values.
    pub audit_arguments: bool,
    /// How long in-flight calls may finish after the input closes before
    /// they are cancelled.
    pub shutdown_grace: Duration,
    /// Tool calls of one session running at once.
    pub max_concurrent_calls: usize,
    /// Tool calls of one session waiting for a slot; beyond that a call is
    /// refused at once, so control messages are never stuck behind calls
    /// and memory stays bounded.
    pub max_queued_calls: usize,
    /// Caching hint of `tools/list` results (stateless era).
    pub tools_cache: CacheHint,
    /// Caching hint of `server/discover` results.
    pub discover_cache: CacheHint,
    /// Caching hint of `resources/list`, `resources/templates/list` and
    /// `prompts/list` results.
    pub lists_cache: CacheHint,
    /// The `Resource` objects `resources/list` serves.
    pub resources: Vec<Value>,
    /// The `ResourceTemplate` objects `resources/templates/list` serves.
    pub resource_templates: Vec<Value>,
    /// The `Prompt` objects `prompts/list` serves.
    pub prompts: Vec<Value>,
    /// Caching hint of `resources/read` results in the stateless era,
    /// unless the handler's result carries its own `ttlMs`/`cacheScope`
    /// (default: not to be reused, private).
    pub read_cache: CacheHint,
    /// Whether the `completions` capability is declared
    /// (`completion/complete` is answered either way when prompts or
    /// templates are declared).
    pub completions: bool,
    /// How long a handler waits for the client's answer to a request it
    /// sent (stateful era).
    pub client_request_timeout: Duration,
    /// How long an issued `requestState` is accepted (stateless era).
    pub request_state_ttl: Duration,
}

impl ServerConfig {
    /// Whether the server serves `revision`.
    pub fn supports(&self, revision: &str) -> bool {
        self.supported_revisions.iter().any(|r| r == revision)
    }

    /// The supported revisions of `era`, newest first.
    pub fn supported_in(&self, era: Era) -> impl Iterator<Item = &str> {
        self.supported_revisions
            .iter()
            .rev()
            .map(String::as_str)
            .filter(move |r| revision::era(r) == era)
    }

    /// Every supported revision, modern ones first, newest first.
    pub fn supported_newest_first(&self) -> Vec<&str> {
        self.supported_in(Era::Stateless)
            .chain(self.supported_in(Era::Stateful))
            .collect()
    }
}
