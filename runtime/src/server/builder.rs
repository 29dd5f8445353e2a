//! [`ServerBuilder`]: collects the tool table, the generated dispatcher,
//! the hooks and the settings, compiles every validator once and yields a
//! [`Server`].

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;

use crate::server::surface::Surface;
use crate::server::tools::limits::RateLimit;
use crate::server::tools::tool::Dispatch;
use crate::server::tools::toolset::{ToolSet, ToolSetError};

use super::config::{AccessHook, CacheHint, CallInfo, OutputHook, ServerConfig};
use super::engine::Server;
use crate::server::access::authz::Authz;
use crate::server::answer::methods::Core;

/// Why a server could not be built.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ServerError {
    /// The tool table is unusable (a schema does not compile, ...).
    Tools(ToolSetError),
    /// A setting is invalid.
    Config(String),
}

impl std::fmt::Display for ServerError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ServerError::Tools(e) => e.fmt(f),
            ServerError::Config(m) => write!(f, "server configuration: {m}"),
        }
    }
}

impl std::error::Error for ServerError {}

/// Builds a [`Server`].
pub struct ServerBuilder {
    config: ServerConfig,
    tools: Value,
    dispatch: Arc<dyn Dispatch>,
    limits: HashMap<String, RateLimit>,
    access: Option<AccessHook>,
    output_hook: Option<OutputHook>,
    surface: Option<Arc<dyn Surface>>,
    state_key: Option<Vec<u8>>,
    tasks: Option<crate::server::tasks::TaskOptions>,
    scopes: crate::server::access::oauth_scopes::ScopeTable,
    principal: Option<crate::server::handler::context::Principal>,
    hide_unauthorized: bool,
    limit_store: Option<(
        Arc<dyn crate::server::tools::limits::RateLimitStore>,
        crate::server::tools::limits::OnStoreError,
    )>,
    #[cfg(feature = "skills")]
    skills: Option<Arc<crate::server::Skills>>,
    search: Option<crate::server::search::ToolSearch>,
}

impl std::fmt::Debug for ServerBuilder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ServerBuilder")
            .field("tools", &self.tools)
            .finish_non_exhaustive()
    }
}

impl ServerBuilder {
    /// A server for `revision`, serving `tools` (a JSON array of `Tool`
    /// objects, in the order `tools/list` returns them) through `dispatch`.
    pub fn new(revision: &str, tools: Value, dispatch: Arc<dyn Dispatch>) -> Self {
        Self {
            config: ServerConfig {
                revision: revision.to_owned(),
                supported_revisions: crate::revision::REVISIONS
                    .iter()
                    .map(|r| r.name.to_owned())
                    .collect(),
                server_info: serde_json::json!({ "name": "mcpgen-server", "version": "0.0.0" }),
                instructions: None,
                page_size: 100,
                list_changed: false,
                audit_arguments: false,
                shutdown_grace: Duration::from_secs(10),
                max_concurrent_calls: 64,
                max_queued_calls: 256,
                tools_cache: CacheHint::default(),
                discover_cache: CacheHint::default(),
                lists_cache: CacheHint::default(),
                resources: Vec::new(),
                resource_templates: Vec::new(),
                prompts: Vec::new(),
                completions: false,
                read_cache: CacheHint::new(Duration::ZERO, super::config::CacheScope::Private),
                client_request_timeout: Duration::from_secs(120),
                request_state_ttl: crate::server::handler::mrtr::DEFAULT_STATE_TTL,
            },
            tools,
            dispatch,
            limits: HashMap::new(),
            access: None,
            output_hook: None,
            surface: None,
            state_key: None,
            tasks: None,
            scopes: crate::server::access::oauth_scopes::ScopeTable::default(),
            principal: None,
            hide_unauthorized: false,
            limit_store: None,
            search: None,
            #[cfg(feature = "skills")]
            skills: None,
        }
    }

    /// Narrows the revisions the server serves (by default every revision
    /// of [`crate::revision::REVISIONS`], in both eras). Revisions unknown to
    /// the revision table are refused by [`ServerBuilder::build`].
    pub fn supported_revisions<I, S>(mut self, revisions: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let mut list: Vec<String> = revisions.into_iter().map(Into::into).collect();
        list.sort();
        list.dedup();
        self.config.supported_revisions = list;
        self
    }

    /// Caching hint of `tools/list` results (stateless era; default one
    /// minute, public).
    pub fn tools_cache(mut self, hint: CacheHint) -> Self {
        self.config.tools_cache = hint;
        self
    }

    /// Caching hint of `resources/list`, `resources/templates/list` and
    /// `prompts/list` results (default one minute, public).
    pub fn lists_cache(mut self, hint: CacheHint) -> Self {
        self.config.lists_cache = hint;
        self
    }

    /// Caching hint of `server/discover` results (default one minute, public).
    pub fn discover_cache(mut self, hint: CacheHint) -> Self {
        self.config.discover_cache = hint;
        self
    }

    /// Tool calls of one session that may wait for a slot when all
    /// [`ServerBuilder::max_concurrent_calls`] are busy (default 256);
    /// beyond that calls are refused at once with a "server busy" error.
    pub fn max_queued_calls(mut self, n: usize) -> Self {
        self.config.max_queued_calls = n;
        self
    }

    /// `serverInfo` of the `initialize` result.
    pub fn server_info(mut self, info: Value) -> Self {
        self.config.server_info = info;
        self
    }

    /// `instructions` of the `initialize` result.
    pub fn instructions(mut self, text: impl Into<String>) -> Self {
        self.config.instructions = Some(text.into());
        self
    }

    /// Tools per `tools/list` page (at least 1).
    pub fn page_size(mut self, size: usize) -> Self {
        self.config.page_size = size.max(1);
        self
    }

    /// Declares `tools.listChanged: true` in the capabilities.
    pub fn list_changed(mut self, yes: bool) -> Self {
        self.config.list_changed = yes;
        self
    }

    /// Includes argument values in the audit log (off by default: they may
    /// hold secrets).
    pub fn audit_arguments(mut self, yes: bool) -> Self {
        self.config.audit_arguments = yes;
        self
    }

    /// Grace period for in-flight calls once the input closes.
    pub fn shutdown_grace(mut self, grace: Duration) -> Self {
        self.config.shutdown_grace = grace;
        self
    }

    /// Tool calls of one session running at once (at least 1, default 64).
    /// When all are busy further calls wait (see
    /// [`ServerBuilder::max_queued_calls`]); other messages are still read
    /// and answered.
    pub fn max_concurrent_calls(mut self, n: usize) -> Self {
        self.config.max_concurrent_calls = n.max(1);
        self
    }

    /// Limits calls of one tool; over the limit a call is answered with a
    /// tool error saying when to retry.
    pub fn rate_limit(mut self, tool: impl Into<String>, limit: RateLimit) -> Self {
        self.limits.insert(tool.into(), limit);
        self
    }

    /// Keeps the rate-limit buckets in `store`, shared by every replica
    /// that uses it (e.g. [`RedisStore`](crate::server::http::RedisStore)), so that a limit holds
    /// across replicas; `on_error` says what a limited call meets when the
    /// store cannot answer (by default it is refused, and logged).
    pub fn rate_limit_store(
        mut self,
        store: impl crate::server::tools::limits::RateLimitStore,
        on_error: crate::server::tools::limits::OnStoreError,
    ) -> Self {
        self.limit_store = Some((Arc::new(store), on_error));
        self
    }

    /// Called before every tool call; `Err(reason)` refuses the call.
    pub fn access_control<F>(mut self, hook: F) -> Self
    where
        F: Fn(&CallInfo<'_>) -> Result<(), String> + Send + Sync + 'static,
    {
        self.access = Some(Arc::new(hook));
        self
    }

    /// Called on every `CallToolResult` before it is sent.
    pub fn output_hook<F>(mut self, hook: F) -> Self
    where
        F: Fn(&str, &mut Value) + Send + Sync + 'static,
    {
        self.output_hook = Some(Arc::new(hook));
        self
    }

    /// The `Resource` objects `resources/list` serves, in order; a
    /// `resources/read` of one of their URIs goes to the surface.
    pub fn resources(mut self, resources: Vec<Value>) -> Self {
        self.config.resources = resources;
        self
    }

    /// The `ResourceTemplate` objects `resources/templates/list` serves, in
    /// order; a `resources/read` of a URI one of them matches (RFC 6570)
    /// goes to the surface with the URI's variables.
    pub fn resource_templates(mut self, templates: Vec<Value>) -> Self {
        self.config.resource_templates = templates;
        self
    }

    /// The `Prompt` objects `prompts/list` serves, in order.
    pub fn prompts(mut self, prompts: Vec<Value>) -> Self {
        self.config.prompts = prompts;
        self
    }

    /// Caching hint of `resources/read` results (stateless era) when the
    /// handler does not set `ttlMs`/`cacheScope` itself (default zero,
    /// private: not reused).
    pub fn read_cache(mut self, hint: CacheHint) -> Self {
        self.config.read_cache = hint;
        self
    }

    /// Declares the `completions` capability.
    pub fn completions(mut self, yes: bool) -> Self {
        self.config.completions = yes;
        self
    }

    /// What answers `resources/read`, `prompts/get` and
    /// `completion/complete` (generated code).
    pub fn surface(mut self, surface: Arc<dyn Surface>) -> Self {
        self.surface = Some(surface);
        self
    }

    /// How long a handler waits for the client's answer to a request it
    /// sent (sampling, elicitation, roots; stateful era). Default 120 s.
    pub fn client_request_timeout(mut self, timeout: Duration) -> Self {
        self.config.client_request_timeout = timeout;
        self
    }

    /// The key that seals `requestState` (stateless era): replicas behind
    /// one endpoint share it so that any of them resumes a request. By
    /// default each server draws a random key.
    pub fn request_state_key(mut self, key: &[u8]) -> Self {
        self.state_key = Some(key.to_vec());
        self
    }

    /// How long an issued `requestState` is accepted. Default 15 minutes.
    pub fn request_state_ttl(mut self, ttl: Duration) -> Self {
        self.config.request_state_ttl = ttl;
        self
    }

    /// Task settings (store, time-to-live, polling interval, bound per
    /// caller). Tasks are on with the defaults as soon as a tool declares
    /// `execution.taskSupport`; this sets them (and turns them on anyway).
    pub fn tasks(mut self, options: crate::server::tasks::TaskOptions) -> Self {
        self.tasks = Some(options);
        self
    }

    /// Requires the OAuth scopes `scopes` to call tool `name` (all of them;
    /// see the manifest's `x-mcpgen.scopes`). Checked before the handler runs whenever the
    /// request has a [`crate::Principal`]: over HTTP the bearer gate's,
    /// elsewhere the one given to [`ServerBuilder::principal`].
    pub fn tool_scopes<I: IntoIterator<Item = S>, S: Into<String>>(
        mut self,
        name: impl Into<String>,
        scopes: I,
    ) -> Self {
        self.scopes.require(
            crate::server::access::oauth_scopes::Guarded::Tool,
            name,
            scopes,
        );
        self
    }

    /// Requires the OAuth scopes `scopes` to get prompt `name` (and to
    /// complete its arguments).
    pub fn prompt_scopes<I: IntoIterator<Item = S>, S: Into<String>>(
        mut self,
        name: impl Into<String>,
        scopes: I,
    ) -> Self {
        self.scopes.require(
            crate::server::access::oauth_scopes::Guarded::Prompt,
            name,
            scopes,
        );
        self
    }

    /// Requires the OAuth scopes `scopes` to read the resource with URI
    /// `uri`, or every resource of the template whose `uriTemplate` is `uri`.
    pub fn resource_scopes<I: IntoIterator<Item = S>, S: Into<String>>(
        mut self,
        uri: impl Into<String>,
        scopes: I,
    ) -> Self {
        self.scopes.require(
            crate::server::access::oauth_scopes::Guarded::Resource,
            uri,
            scopes,
        );
        self
    }

    /// Declares a scope hierarchy: a token holding `broader` satisfies a
    /// requirement of any of `narrower` (and of what those imply in turn),
    /// e.g. `.scope_implies("notes:admin", ["notes:write"])
    /// .scope_implies("notes:write", ["notes:read"])`. Opt-in: nothing is
    /// implied unless declared, and never by the shape of the strings (see
    /// docs/authorization.md). A cycle is a build error.
    pub fn scope_implies<I: IntoIterator<Item = S>, S: Into<String>>(
        mut self,
        broader: impl Into<String>,
        narrower: I,
    ) -> Self {
        self.scopes.imply(broader, narrower);
        self
    }

    /// The caller of every request that carries no principal of its own
    /// (the stdio transport's, e.g. from credentials in the environment):
    /// scopes are then checked against it.
    pub fn principal(mut self, principal: crate::server::handler::context::Principal) -> Self {
        self.principal = Some(principal);
        self
    }

    /// Leaves out of `tools/list`, `prompts/list`, `resources/list` and
    /// `resources/templates/list` the items the caller lacks the scopes
    /// for (their lists are then private to the caller in caching hints).
    pub fn hide_unauthorized(mut self, yes: bool) -> Self {
        self.hide_unauthorized = yes;
        self
    }

    /// Serves `skills` (the Skills extension): declares it with
    /// `directoryRead` and the `resources` capability, answers
    /// `skills/list`, `skills/get` and `resources/directory/read`, lists
    /// each `SKILL.md` in `resources/list` after the declared resources and
    /// reads every skill file itself (the surface never sees `skill://`).
    /// `skills/list` and `skills/get` carry the
    /// [`ServerBuilder::lists_cache`] hint.
    #[cfg(feature = "skills")]
    pub fn skills(mut self, skills: crate::server::Skills) -> Self {
        self.skills = Some(Arc::new(skills));
        self
    }

    /// Serves the catalog through a search surface: `tools/list` answers
    /// the pinned tools plus `search_tools` and `call_tool`; every tool
    /// stays callable by its name (see [`crate::server::search`]).
    pub fn tool_search(mut self, search: crate::server::search::ToolSearch) -> Self {
        self.search = Some(search);
        self
    }

    /// Compiles the validators and checks the settings.
    pub fn build(mut self) -> Result<Server, ServerError> {
        // Each SKILL.md is a resource too, listed after the declared ones.
        #[cfg(feature = "skills")]
        if let Some(skills) = &self.skills {
            self.config
                .resources
                .extend(skills.listed().iter().cloned());
        }
        if !self
            .config
            .server_info
            .get("name")
            .is_some_and(Value::is_string)
        {
            return Err(ServerError::Config(
                "serverInfo needs a string \"name\"".into(),
            ));
        }
        if let Some(unknown) = self
            .config
            .supported_revisions
            .iter()
            .find(|r| crate::revision::get(r).is_none())
        {
            return Err(ServerError::Config(format!(
                "unknown protocol revision {unknown:?}; known: {}",
                crate::revision::REVISIONS
                    .iter()
                    .map(|r| r.name)
                    .collect::<Vec<_>>()
                    .join(", ")
            )));
        }
        if self.config.supported_revisions.is_empty() {
            return Err(ServerError::Config("no protocol revision to serve".into()));
        }
        let tools = ToolSet::new(&self.tools, &self.config.revision, &self.limits)
            .map_err(ServerError::Tools)?;
        let search = match self.search.take() {
            Some(search) => Some(
                crate::server::search::SearchSurface::new(search, &tools)
                    .map_err(ServerError::Config)?,
            ),
            None => None,
        };
        let templates =
            crate::server::answer::reads::compile_templates(&self.config.resource_templates)
                .map_err(ServerError::Config)?;
        let stateless_result_tail =
            crate::server::request::reply::stateless_result_tail(&self.config.server_info);
        self.scopes.check().map_err(ServerError::Config)?;
        for (kind, name, _) in self.scopes.iter() {
            use crate::server::access::oauth_scopes::Guarded;
            let known = match kind {
                Guarded::Tool => self
                    .tools
                    .as_array()
                    .into_iter()
                    .flatten()
                    .any(|t| t.get("name").and_then(Value::as_str) == Some(name)),
                Guarded::Prompt => self
                    .config
                    .prompts
                    .iter()
                    .any(|p| p.get("name").and_then(Value::as_str) == Some(name)),
                Guarded::Resource => {
                    self.serves_skill(name)
                        || self
                            .config
                            .resources
                            .iter()
                            .any(|r| r.get("uri").and_then(Value::as_str) == Some(name))
                        || self
                            .config
                            .resource_templates
                            .iter()
                            .any(|r| r.get("uriTemplate").and_then(Value::as_str) == Some(name))
                }
            };
            if !known {
                return Err(ServerError::Config(format!(
                    "scopes are required for {}, which this server does not declare",
                    crate::server::access::oauth_scopes::describe(kind, name)
                )));
            }
        }
        // Fails closed: a server without unguessable keys does not start.
        let no_randomness = |e: crate::random::RandomError| ServerError::Config(e.to_string());
        let sealer = crate::server::handler::mrtr::Sealer::new(
            self.state_key.as_deref(),
            self.config.request_state_ttl,
        )
        .map_err(no_randomness)?;
        let listeners =
            Arc::new(crate::server::handler::notifier::Listeners::new().map_err(no_randomness)?);
        let mut declares_tasks = false;
        for (i, tool) in self
            .tools
            .as_array()
            .map(Vec::as_slice)
            .unwrap_or_default()
            .iter()
            .enumerate()
        {
            match crate::server::tasks::TaskSupport::check(tool) {
                Ok(support) => {
                    declares_tasks |= support != crate::server::tasks::TaskSupport::Forbidden
                }
                Err(message) => {
                    let pointer = format!("/{i}/execution");
                    return Err(ServerError::Tools(
                        crate::server::tools::toolset::ToolSetError { pointer, message },
                    ));
                }
            }
        }
        let tasks = match self.tasks {
            Some(options) => Some(options),
            None => declares_tasks.then(crate::server::tasks::TaskOptions::default),
        };
        let tasks = match tasks {
            Some(options) => Some(Arc::new(
                crate::server::tasks::Tasks::new(options).map_err(no_randomness)?,
            )),
            None => None,
        };
        Ok(Server {
            core: Arc::new(Core {
                config: self.config,
                tools,
                dispatch: self.dispatch,
                access: self.access,
                output_hook: self.output_hook,
                surface: self.surface,
                templates,
                stateless_result_tail,
                sealer,
                listeners,
                tasks,
                authz: Authz {
                    scopes: self.scopes,
                    principal: self.principal,
                    hide_unauthorized: self.hide_unauthorized,
                },
                limit_store: self.limit_store,
                search,
                #[cfg(feature = "skills")]
                skills: self.skills,
            }),
        })
    }
}

impl ServerBuilder {
    /// Whether `uri` is a skill file or directory this server serves.
    fn serves_skill(&self, uri: &str) -> bool {
        #[cfg(feature = "skills")]
        if let Some(skills) = &self.skills {
            return skills.holds(uri);
        }
        let _ = uri;
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::server::tools::tool::{BoxFuture, CallFailure, ToolOutput};

    struct NoTools;

    impl Dispatch for NoTools {
        fn call(
            &self,
            _: usize,
            _: Value,
            _: crate::RequestContext,
        ) -> BoxFuture<Result<ToolOutput, CallFailure>> {
            Box::pin(std::future::pending())
        }
    }

    fn builder() -> ServerBuilder {
        ServerBuilder::new(
            crate::revision::LATEST,
            serde_json::json!([]),
            Arc::new(NoTools),
        )
    }

    #[test]
    fn a_server_without_randomness_refuses_to_start() {
        use crate::random::fail::with_failing_source;
        let Err(e) = with_failing_source(|| builder().build()) else {
            panic!("built without randomness")
        };
        assert!(e.to_string().contains("random source failed"), "{e}");
        // A shared request-state key does not help: the replica tag is random too.
        assert!(with_failing_source(|| builder().request_state_key(b"shared").build()).is_err());
        assert!(builder().build().is_ok());
    }
}
