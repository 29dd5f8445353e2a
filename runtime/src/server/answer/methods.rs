//! What each MCP method means to the server, in both eras, and the
//! [`Core`] it is answered from (everything built once and shared by
//! sessions and requests): `initialize` and `server/discover` (with the capabilities they
//! declare), `ping`, `logging/setLevel`, subscriptions, the declared lists
//! (pagination, caching hints, hidden items), the notifications it listens
//! to, how a handler reaches the client, and how a result is finished for
//! its era (`resultType`, `_meta.serverInfo`; the text itself is written
//! by [`crate::server::request::reply`]).
//!
//! The topics live beside it: which era and revision a request is served
//! in ([`Core::scope`]) in [`crate::server::answer::era`], `tools/call` in
//! [`crate::server::answer::call`], reads, prompts and completions in
//! [`crate::server::answer::reads`], tasks in
//! [`crate::server::answer::task_methods`], listening in
//! [`crate::server::answer::listen`], who may use what in
//! [`crate::server::access::authz`].

use std::sync::Arc;

use serde_json::{json, Map, Value};

use crate::jsonrpc::{self, RpcError};
use crate::revision::method::Method;
use crate::revision::{self, meta, Era};
use crate::server::access::oauth_scopes::Guarded;
use crate::server::handler::context::{ClientIdentity, LogLevel};
use crate::server::handler::extras::Extras;
use crate::server::handler::mrtr::{self, Retry, Rounds};
use crate::server::handler::peer::Channel;
use crate::server::request::cursor;
use crate::server::surface::{ResourceTarget, Surface};
use crate::server::tasks::EXTENSION;
use crate::server::tools::tool::Dispatch;
use crate::server::tools::toolset::ToolSet;
use crate::uri_template::UriTemplate;

use crate::server::access::authz::Authz;
use crate::server::config::{AccessHook, CacheHint, CacheScope, OutputHook, ServerConfig};
use crate::server::request::params::Params;
use crate::server::request::reply::Reply;
use crate::server::request::route::Inline;
use crate::server::request::scope::Scope;
use crate::server::session::{IdKey, Session};

/// Everything built once and shared by sessions and requests.
pub(crate) struct Core {
    pub(crate) config: ServerConfig,
    pub(crate) tools: ToolSet,
    pub(crate) dispatch: Arc<dyn Dispatch>,
    pub(crate) access: Option<AccessHook>,
    pub(crate) output_hook: Option<OutputHook>,
    /// Reads, prompts and completions (generated), when the server has any.
    pub(crate) surface: Option<Arc<dyn Surface>>,
    /// The declared resource templates, parsed.
    pub(crate) templates: Vec<UriTemplate>,
    /// `,"resultType":"complete","_meta":{"…/serverInfo":…}`: what a modern
    /// result appends to its members, serialised once.
    pub(crate) stateless_result_tail: String,
    /// Seals and opens `requestState` (multi round-trip requests).
    pub(crate) sealer: crate::server::handler::mrtr::Sealer,
    /// Who hears run-time change notifications.
    pub(crate) listeners: Arc<crate::server::handler::notifier::Listeners>,
    /// Tasks, when a tool declares task support or tasks were configured.
    pub(crate) tasks: Option<Arc<crate::server::tasks::Tasks>>,
    /// Who may use which tool, prompt and resource.
    pub(crate) authz: Authz,
    /// Rate-limit buckets shared by replicas, and what to do when they
    /// cannot be reached; `None`: buckets in this process.
    pub(crate) limit_store: Option<(
        Arc<dyn crate::server::tools::limits::RateLimitStore>,
        crate::server::tools::limits::OnStoreError,
    )>,
    /// The search tool surface, when the catalog is served through it.
    pub(crate) search: Option<crate::server::search::SearchSurface>,
    /// The skills served (the Skills extension), if any.
    #[cfg(feature = "skills")]
    pub(crate) skills: Option<Arc<crate::server::Skills>>,
}

impl Core {
    /// Answers a request that needs no task of its own (`method` names it
    /// in errors).
    pub(crate) fn handle_inline(
        &self,
        session: &Session,
        scope: &Scope,
        inline: Inline,
        method: &str,
        params: Option<&Value>,
    ) -> Result<Value, RpcError> {
        match inline {
            Inline::Initialize => self.initialize(session, params),
            Inline::Ping => Ok(json!({})),
            Inline::SetLevel => {
                let level = params
                    .and_then(|p| p.get("level"))
                    .and_then(Value::as_str)
                    .and_then(LogLevel::parse);
                let Some(level) = level else {
                    return Err(RpcError::invalid_params(format!(
                        "\"level\" must be one of {}",
                        LogLevel::names()
                    )));
                };
                session.set_log_level(Some(level.as_str().to_owned()));
                Ok(json!({}))
            }
            Inline::Subscribe | Inline::Unsubscribe => {
                let uri = params.and_then(|p| p.get("uri")).and_then(Value::as_str);
                let uri = uri.ok_or_else(|| {
                    RpcError::invalid_params(format!("{method} needs a string \"uri\""))
                })?;
                if inline == Inline::Subscribe {
                    session.subscribe(uri);
                } else {
                    session.unsubscribe(uri);
                }
                Ok(json!({}))
            }
            Inline::Discover => Ok(self.discover()),
            Inline::ToolsList => self.tools_list(params, scope),
            Inline::ResourcesList => {
                self.declared_list("resources", &self.config.resources, params, scope)
            }
            Inline::TemplatesList => self.declared_list(
                "resourceTemplates",
                &self.config.resource_templates,
                params,
                scope,
            ),
            Inline::PromptsList => {
                self.declared_list("prompts", &self.config.prompts, params, scope)
            }
            Inline::Skills(request) => self.skills_request(request, method, params, scope),
        }
    }

    /// Whether a `resources/read` names a skill file this server serves.
    pub(crate) fn reads_skill(&self, params: Option<&Value>) -> bool {
        #[cfg(feature = "skills")]
        if let (Some(skills), Some(uri)) = (
            &self.skills,
            params.and_then(|p| p.get("uri")).and_then(Value::as_str),
        ) {
            return skills.has_file(uri);
        }
        let _ = params;
        false
    }

    /// A request of the Skills extension: "method not found" unless the
    /// server serves skills.
    fn skills_request(
        &self,
        request: crate::server::request::route::SkillsRequest,
        method: &str,
        params: Option<&Value>,
        scope: &Scope,
    ) -> Result<Value, RpcError> {
        #[cfg(feature = "skills")]
        if let Some(skills) = &self.skills {
            return skills_answer(skills, &self.config, request, params, scope.modern);
        }
        let _ = (request, params, scope);
        Err(RpcError::method_not_found(method))
    }

    /// Reacts to a notification; never answers.
    pub(crate) fn on_notification(&self, session: &Session, method: &str, params: &Params<'_>) {
        match Method::of(method) {
            Some(Method::Cancelled) => {
                let Some(key) = params.get("requestId").map(IdKey::of) else {
                    return;
                };
                if session.cancel_id(&key) {
                    tracing::debug!(request = %key, "request cancelled by the client");
                }
            }
            Some(Method::Initialized) => tracing::debug!("client initialized"),
            _ => tracing::debug!(method, "ignoring notification"),
        }
    }

    fn capabilities(&self) -> Value {
        let mut capabilities = self.base_capabilities();
        if self.config.completions {
            capabilities["completions"] = json!({});
        }
        #[cfg(feature = "skills")]
        if self.skills.is_some() {
            capabilities["extensions"][crate::skills::EXTENSION] = json!({ "directoryRead": true });
        }
        capabilities
    }

    /// `logging`, and `tools`, `prompts` and `resources` each when the
    /// server declares any (or its lists may change at run time): a server
    /// generated from a manifest without prompts does not announce them.
    fn base_capabilities(&self) -> Value {
        let changing = self.config.list_changed;
        let mut capabilities = json!({ "logging": {} });
        if changing || !self.tools.is_empty() {
            capabilities["tools"] = json!({ "listChanged": changing });
        }
        if changing || !self.config.prompts.is_empty() {
            capabilities["prompts"] = json!({ "listChanged": changing });
        }
        if changing || self.subscribable() {
            capabilities["resources"] =
                json!({ "listChanged": changing, "subscribe": self.subscribable() });
        }
        capabilities
    }

    /// Adds what the server supports of tasks to `initialize`
    /// (`capabilities.tasks`, 2025-11-25) or `server/discover`
    /// (`capabilities.extensions`, 2026-07-28) capabilities.
    fn task_capabilities(&self, capabilities: &mut Value, modern: bool, version: &str) {
        if self.tasks.is_none() {
            return;
        }
        if modern {
            capabilities["extensions"][EXTENSION] = json!({});
        } else if Method::TasksGet.exists_in(Era::Stateful, version) {
            capabilities["tasks"] =
                json!({ "list": {}, "cancel": {}, "requests": { "tools": { "call": {} } } });
        }
    }

    /// Whether clients may subscribe to resource updates: when the server
    /// declares resources or resource templates.
    fn subscribable(&self) -> bool {
        !self.config.resources.is_empty() || !self.config.resource_templates.is_empty()
    }

    /// The least severe level a request's handler may log at.
    pub(in crate::server) fn log_threshold(
        &self,
        session: &Session,
        scope: &Scope,
    ) -> Option<LogLevel> {
        if scope.modern {
            scope.meta_log_level
        } else {
            match session.log_level() {
                Some(level) => LogLevel::parse(&level),
                None => Some(LogLevel::Debug),
            }
        }
    }

    fn initialize(&self, session: &Session, params: Option<&Value>) -> Result<Value, RpcError> {
        let params = params.ok_or_else(|| RpcError::invalid_params("initialize needs params"))?;
        let requested = params
            .get("protocolVersion")
            .and_then(Value::as_str)
            .ok_or_else(|| RpcError::invalid_params("\"protocolVersion\" must be a string"))?;
        let version =
            if revision::era(requested) == Era::Stateful && self.config.supports(requested) {
                requested.to_owned()
            } else {
                self.default_stateful().to_owned()
            };
        session.fix_era(Era::Stateful);
        session.set_identity(ClientIdentity {
            info: params.get("clientInfo").cloned().unwrap_or(Value::Null),
            protocol_version: version.clone(),
            capabilities: params
                .get("capabilities")
                .cloned()
                .unwrap_or_else(|| json!({})),
        });

        let mut result = Map::new();
        result.insert("protocolVersion".into(), Value::from(version.as_str()));
        let mut capabilities = self.capabilities();
        self.task_capabilities(&mut capabilities, false, &version);
        result.insert("capabilities".into(), capabilities);
        result.insert("serverInfo".into(), self.config.server_info.clone());
        if let Some(text) = &self.config.instructions {
            result.insert("instructions".into(), Value::from(text.clone()));
        }
        Ok(Value::Object(result))
    }

    fn discover(&self) -> Value {
        let mut result = Map::new();
        result.insert(
            "supportedVersions".into(),
            json!(self.config.supported_newest_first()),
        );
        let mut capabilities = self.capabilities();
        self.task_capabilities(&mut capabilities, true, revision::LATEST);
        result.insert("capabilities".into(), capabilities);
        if let Some(text) = &self.config.instructions {
            result.insert("instructions".into(), Value::from(text.clone()));
        }
        add_cache_hint(&mut result, self.config.discover_cache);
        Value::Object(result)
    }

    fn tools_list(&self, params: Option<&Value>, scope: &Scope) -> Result<Value, RpcError> {
        let filter = self.authz.list_filter(&scope.extras);
        if filter.is_some() || self.search.is_some() {
            let listed: Box<dyn Iterator<Item = &Value>> = match &self.search {
                Some(search) => Box::new(search.listed().iter()),
                None => Box::new((0..self.tools.len()).map(|i| &self.tools.get(i).declared)),
            };
            let visible: Vec<&Value> = listed
                .filter(|t| filter.is_none_or(|p| self.authz.may_use(p, Guarded::Tool, "name", t)))
                .collect();
            let page = |offset: usize, size: usize| {
                visible
                    .iter()
                    .skip(offset)
                    .take(size)
                    .map(|v| (*v).clone())
                    .collect()
            };
            let hint = match filter {
                Some(_) => CacheHint {
                    scope: CacheScope::Private,
                    ..self.config.tools_cache
                },
                None => self.config.tools_cache,
            };
            return list_page(
                "tools",
                visible.len(),
                page,
                params,
                self.config.page_size,
                scope.modern.then_some(hint),
            );
        }
        let page = |offset: usize, size: usize| self.tools.page(offset, size).cloned().collect();
        list_page(
            "tools",
            self.tools.len(),
            page,
            params,
            self.config.page_size,
            scope.modern.then_some(self.config.tools_cache),
        )
    }

    /// `resources/list`, `resources/templates/list` or `prompts/list` of
    /// the declared items.
    fn declared_list(
        &self,
        key: &str,
        items: &[Value],
        params: Option<&Value>,
        scope: &Scope,
    ) -> Result<Value, RpcError> {
        if let Some(principal) = self.authz.list_filter(&scope.extras) {
            let (kind, member) = match key {
                "resources" => (Guarded::Resource, "uri"),
                "resourceTemplates" => (Guarded::Resource, "uriTemplate"),
                _ => (Guarded::Prompt, "name"),
            };
            let visible: Vec<&Value> = items
                .iter()
                .filter(|t| self.authz.may_use(principal, kind, member, t))
                .collect();
            let page = |offset: usize, size: usize| {
                visible
                    .iter()
                    .skip(offset)
                    .take(size)
                    .map(|v| (*v).clone())
                    .collect()
            };
            let hint = CacheHint {
                scope: CacheScope::Private,
                ..self.config.lists_cache
            };
            return list_page(
                key,
                visible.len(),
                page,
                params,
                self.config.page_size,
                scope.modern.then_some(hint),
            );
        }
        let page =
            |offset: usize, size: usize| items.iter().skip(offset).take(size).cloned().collect();
        list_page(
            key,
            items.len(),
            page,
            params,
            self.config.page_size,
            scope.modern.then_some(self.config.lists_cache),
        )
    }

    /// The response text of a result, finished for its era: a modern
    /// result carries `resultType` and `_meta.serverInfo`.
    pub(crate) fn reply(&self, id: &Value, scope: &Scope, mut result: Value) -> Reply {
        let tool_error = result.get("isError") == Some(&Value::Bool(true));
        if let (true, Value::Object(members)) = (scope.modern, &result) {
            if !members.is_empty()
                && !members.contains_key("resultType")
                && !members.contains_key("_meta")
            {
                // Both members go last: the result's text with the tail
                // written in before its closing brace.
                let mut out = jsonrpc::response_head(id, 256);
                out.extend_from_slice(b",\"result\":");
                jsonrpc::push_json(&mut out, &result);
                out.pop();
                out.extend_from_slice(self.stateless_result_tail.as_bytes());
                out.extend_from_slice(b"}}");
                return Reply {
                    tool_error,
                    ..Reply::ok(jsonrpc::into_text(out))
                };
            }
        }
        if scope.modern {
            if let Value::Object(members) = &mut result {
                members
                    .entry("resultType")
                    .or_insert_with(|| Value::from("complete"));
                let meta_obj = members
                    .entry("_meta")
                    .or_insert_with(|| Value::Object(Map::new()));
                if let Value::Object(m) = meta_obj {
                    m.entry(meta::SERVER_INFO)
                        .or_insert_with(|| self.config.server_info.clone());
                }
            }
        }
        Reply {
            tool_error,
            ..Reply::ok(jsonrpc::response(id, &result))
        }
    }

    /// What a `resources/read` URI names, if anything: a declared
    /// resource, else the first declared template it matches.
    pub(in crate::server) fn resolve_uri(&self, uri: &str) -> Option<ResourceTarget> {
        if let Some(i) = self
            .config
            .resources
            .iter()
            .position(|r| r.get("uri").and_then(Value::as_str) == Some(uri))
        {
            return Some(ResourceTarget::Static(i));
        }
        self.templates
            .iter()
            .enumerate()
            .find_map(|(i, t)| t.matches(uri).map(|vars| ResourceTarget::Template(i, vars)))
    }

    /// The template a URI that is no declared resource is read through.
    fn template_of(&self, uri: &str) -> Option<&str> {
        match self.resolve_uri(uri) {
            Some(ResourceTarget::Template(i, _)) => Some(self.templates[i].as_str()),
            _ => None,
        }
    }

    /// What a request names and the scopes its caller lacks, if any (see
    /// [`Authz::shortfall`]; the HTTP service answers it with a 403).
    #[cfg(feature = "streamable-http")]
    pub(crate) fn scope_shortfall<'v>(
        &self,
        method: &str,
        get: impl Fn(&str) -> Option<&'v Value>,
        extras: &Extras,
    ) -> Option<(String, Vec<String>, Vec<String>)> {
        self.authz
            .shortfall(method, get, extras, |uri| self.template_of(uri))
    }

    /// The JSON-RPC error of a request whose caller lacks scopes, if so.
    pub(crate) fn check_scopes<'v>(
        &self,
        method: &str,
        get: impl Fn(&str) -> Option<&'v Value>,
        extras: &Extras,
    ) -> Result<(), RpcError> {
        self.authz
            .check(method, get, extras, |uri| self.template_of(uri))
    }

    /// How the handler of a request reaches the client: live requests on
    /// the session (stateful era), or rounds of input requests whose
    /// answers come with the retry (stateless era; none for a client that
    /// declared no capability it could be asked through and sent no
    /// answers; `-32602` for a malformed or unverifiable `inputResponses`
    /// / `requestState`).
    pub(crate) fn channel(
        &self,
        session: &Session,
        scope: &Scope,
        method: &str,
        name: &str,
        arguments: &Value,
        retry: Retry,
    ) -> Result<Channel, RpcError> {
        if !scope.modern {
            let outbound = Arc::clone(session.outbound());
            return Ok(Channel::Live {
                outbound,
                timeout: self.config.client_request_timeout,
            });
        }
        // A client that declared nothing it could be asked (and answers
        // nothing) can be sent no input request: no rounds to keep.
        let askable = scope.client.as_ref().is_some_and(|c| {
            crate::server::handler::peer::ASKED_THROUGH
                .iter()
                .any(|n| c.has_capability(n))
        });
        if !askable && retry.is_first() {
            return Ok(Channel::None);
        }
        let principal = scope.extras.principal().map(|p| p.subject.as_str());
        let binding = mrtr::Binding::new(method, name, arguments, principal);
        let rounds = Rounds::start(&self.sealer, binding, retry)?;
        Ok(Channel::Rounds(Arc::new(rounds)))
    }
}

/// One page of a paginated list result: `{key: [...], nextCursor?}` from
/// the `cursor` in `params`, with the caching hint when given.
fn list_page(
    key: &str,
    len: usize,
    page: impl Fn(usize, usize) -> Vec<Value>,
    params: Option<&Value>,
    size: usize,
    hint: Option<CacheHint>,
) -> Result<Value, RpcError> {
    let offset = match params.and_then(|p| p.get("cursor")) {
        None | Some(Value::Null) => 0,
        Some(Value::String(c)) => cursor::decode(c, len).ok_or_else(|| {
            RpcError::invalid_params(format!(
                "invalid cursor {c:?}; pass a nextCursor this server returned"
            ))
        })?,
        Some(other) => {
            return Err(RpcError::invalid_params(format!(
                "\"cursor\" must be a string, got {}",
                jsonrpc::kind(other)
            )))
        }
    };
    let mut result = Map::new();
    result.insert(key.into(), Value::Array(page(offset, size)));
    if offset + size < len {
        result.insert(
            "nextCursor".into(),
            Value::from(cursor::encode(offset + size)),
        );
    }
    if let Some(hint) = hint {
        add_cache_hint(&mut result, hint);
    }
    Ok(Value::Object(result))
}

#[cfg(feature = "skills")]
/// Answers a request of the Skills extension from `skills`; `modern`
/// results (stateless era) carry caching hints: the lists' for
/// `skills/list` and `skills/get`, the reads' for a file.
fn skills_answer(
    skills: &crate::server::Skills,
    config: &ServerConfig,
    request: crate::server::request::route::SkillsRequest,
    params: Option<&Value>,
    modern: bool,
) -> Result<Value, RpcError> {
    let uri = || {
        params
            .and_then(|p| p.get("uri"))
            .and_then(Value::as_str)
            .ok_or_else(|| RpcError::invalid_params("the request needs a string \"uri\""))
    };
    let (mut result, hint) = match request {
        crate::server::request::route::SkillsRequest::List => {
            let entries = skills.entries();
            let page = |offset: usize, size: usize| {
                entries.iter().skip(offset).take(size).cloned().collect()
            };
            let hint = modern.then_some(config.lists_cache);
            let list = list_page(
                "skills",
                entries.len(),
                page,
                params,
                config.page_size,
                hint,
            )?;
            return Ok(list);
        }
        crate::server::request::route::SkillsRequest::Get => {
            (skills.get(uri()?)?, config.lists_cache)
        }
        crate::server::request::route::SkillsRequest::Directory => {
            let children = skills.directory(uri()?)?;
            let page = |offset: usize, size: usize| {
                children.iter().skip(offset).take(size).cloned().collect()
            };
            return list_page(
                "resources",
                children.len(),
                page,
                params,
                config.page_size,
                None,
            );
        }
        crate::server::request::route::SkillsRequest::Read => {
            let uri = uri()?;
            let read = skills
                .read(uri)
                .ok_or_else(|| RpcError::invalid_params(format!("Resource not found: {uri}")))?;
            (read, config.read_cache)
        }
    };
    if let (true, Value::Object(members)) = (modern, &mut result) {
        add_cache_hint(members, hint);
    }
    Ok(result)
}

/// Adds `ttlMs` and `cacheScope` to a cacheable result.
pub(crate) fn add_cache_hint(result: &mut Map<String, Value>, hint: CacheHint) {
    let ms = u64::try_from(hint.ttl.as_millis()).unwrap_or(u64::MAX);
    result.insert("ttlMs".into(), Value::from(ms));
    result.insert("cacheScope".into(), Value::from(hint.scope.as_str()));
}
