//! What each MCP method means to the server, in both eras: which era and
//! revision a request is served in ([`Core::scope`]: `initialize` sessions,
//! per-request `_meta`), `initialize`, `server/discover`, `ping`,
//! `tools/list` (pagination, caching hints), `tools/call` (the call
//! pipeline), the notifications it listens to, and how a result is
//! finished for its era (`resultType`, `_meta.serverInfo`; the text itself
//! is written by [`super::reply`]).
//!
//! The `tools/call` pipeline, in order: check the params against
//! `CallToolRequest` (`-32602`), find the tool (`-32602`), access control,
//! rate limit, validate the arguments against `inputSchema`, run the
//! handler (cancellable, panics caught), validate a typed output against
//! `outputSchema`, apply the output hook, audit.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::Poll;
use std::time::Instant;

use serde_json::{json, Map, Value};

use crate::audit::{self, Outcome};
use crate::cancel::CancellationToken;
use crate::extras::Extras;
use crate::context::{ClientIdentity, ContextParts, LogLevel, RequestContext, Sink};
use crate::cursor;
use crate::mrtr::{self, Rounds};
use crate::peer::Channel;
use crate::jsonrpc::{self, field, member, RpcError};
use crate::revision::{self, codes, meta, Era, ValidationStyle};
use crate::tool::{CallFailure, HandlerCall, ToolOutput};
use crate::validate::{describe, FieldError};

use super::config::{CacheHint, CacheScope, CallInfo, Core};
use crate::scopes::Guarded;
use super::params::Params;
use super::reply::{content_reply, doc_reply, failure_reply, structured_reply, text_result, Reply};
use super::scope::{CachedScope, Scope};
use super::session::{IdKey, Session};

/// `-32602` for a modern request whose `_meta` lacks a required field.
fn missing_meta(detail: &str) -> RpcError {
    RpcError::invalid_params(format!(
        "{detail}; every request of protocol revision {} carries params._meta with \"{}\" and \"{}\"",
        revision::LATEST,
        meta::PROTOCOL_VERSION,
        meta::CLIENT_CAPABILITIES
    ))
}

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
        let modern = match (session_era, method) {
            (Some(Era::Stateful), _) => false,
            (Some(Era::Stateless), _) => true,
            (None, "initialize") => names_version,
            (None, "server/discover") => true,
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
        if matches!(method, "initialize" | "ping" | "notifications/initialized") {
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
            Some(_) => return Err(missing_meta(&format!("\"{}\" must be a string", meta::PROTOCOL_VERSION))),
            None => return Err(missing_meta(&format!("params._meta lacks \"{}\"", meta::PROTOCOL_VERSION))),
        };
        if revision::era(version) != Era::Stateless || !self.config.supports(version) {
            let supported = self.config.supported_newest_first();
            return Err(RpcError::new(codes::UNSUPPORTED_PROTOCOL_VERSION, "Unsupported protocol version")
                .with_data(json!({ "supported": supported, "requested": version })));
        }
        let capabilities = match field(&request_meta, meta::CLIENT_CAPABILITIES) {
            Some(c @ Value::Object(_)) => c.clone(),
            Some(_) => return Err(missing_meta(&format!("\"{}\" must be an object", meta::CLIENT_CAPABILITIES))),
            None => return Err(missing_meta(&format!("params._meta lacks \"{}\"", meta::CLIENT_CAPABILITIES))),
        };
        let meta_log_level = match field(&request_meta, meta::LOG_LEVEL) {
            None => None,
            Some(level) => match level.as_str().and_then(LogLevel::parse) {
                Some(level) => Some(level),
                None => {
                    return Err(RpcError::invalid_params(format!("\"{}\" must be one of {}", meta::LOG_LEVEL, level_names())))
                }
            },
        };
        session.fix_era(Era::Stateless);
        let identity = ClientIdentity {
            info: field(&request_meta, meta::CLIENT_INFO).cloned().unwrap_or(Value::Null),
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
        if session.era() != Some(Era::Stateless) || matches!(method, "initialize" | "ping" | "notifications/initialized") {
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
        let (true, Some(client), Some(meta)) = (scope.modern, &scope.client, &scope.meta) else { return };
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
        self.config.supported_in(Era::Stateful).next().unwrap_or(revision::LATEST_STATEFUL)
    }

    /// Answers a request that needs no task of its own.
    pub(crate) fn handle_inline(
        &self,
        session: &Session,
        scope: &Scope,
        method: &str,
        params: Option<&Value>,
    ) -> Result<Value, RpcError> {
        match (scope.modern, method) {
            (false, "initialize") => self.initialize(session, params),
            (false, "ping") => Ok(json!({})),
            (false, "logging/setLevel") => {
                let level = params.and_then(|p| p.get("level")).and_then(Value::as_str).and_then(LogLevel::parse);
                let Some(level) = level else {
                    return Err(RpcError::invalid_params(format!("\"level\" must be one of {}", level_names())));
                };
                session.set_log_level(Some(level.as_str().to_owned()));
                Ok(json!({}))
            }
            (false, "resources/subscribe" | "resources/unsubscribe") => {
                let uri = params.and_then(|p| p.get("uri")).and_then(Value::as_str);
                let uri = uri.ok_or_else(|| RpcError::invalid_params(format!("{method} needs a string \"uri\"")))?;
                if method == "resources/subscribe" {
                    session.subscribe(uri);
                } else {
                    session.unsubscribe(uri);
                }
                Ok(json!({}))
            }
            (true, "server/discover") => Ok(self.discover()),
            (_, "tools/list") => self.tools_list(params, scope),
            (_, "resources/list") => self.declared_list("resources", &self.config.resources, params, scope),
            (_, "resources/templates/list") => {
                self.declared_list("resourceTemplates", &self.config.resource_templates, params, scope)
            }
            (_, "prompts/list") => self.declared_list("prompts", &self.config.prompts, params, scope),
            _ => Err(RpcError::method_not_found(method)),
        }
    }

    /// Reacts to a notification; never answers.
    pub(crate) fn on_notification(&self, session: &Session, method: &str, params: &Params<'_>) {
        match method {
            "notifications/cancelled" => {
                let Some(key) = params.get("requestId").map(IdKey::of) else { return };
                if session.cancel_id(&key) {
                    tracing::debug!(request = %key, "request cancelled by the client");
                }
            }
            "notifications/initialized" => tracing::debug!("client initialized"),
            other => tracing::debug!(method = other, "ignoring notification"),
        }
    }

    fn capabilities(&self) -> Value {
        let mut capabilities = self.base_capabilities();
        if self.config.completions {
            capabilities["completions"] = json!({});
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
            capabilities["resources"] = json!({ "listChanged": changing, "subscribe": self.subscribable() });
        }
        capabilities
    }

    /// Whether clients may subscribe to resource updates: when the server
    /// declares resources or resource templates.
    fn subscribable(&self) -> bool {
        !self.config.resources.is_empty() || !self.config.resource_templates.is_empty()
    }

    /// The least severe level a request's handler may log at.
    fn log_threshold(&self, session: &Session, scope: &Scope) -> Option<LogLevel> {
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
        let version = if revision::era(requested) == Era::Stateful && self.config.supports(requested) {
            requested.to_owned()
        } else {
            self.default_stateful().to_owned()
        };
        session.fix_era(Era::Stateful);
        session.set_identity(ClientIdentity {
            info: params.get("clientInfo").cloned().unwrap_or(Value::Null),
            protocol_version: version.clone(),
            capabilities: params.get("capabilities").cloned().unwrap_or_else(|| json!({})),
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
        result.insert("supportedVersions".into(), json!(self.config.supported_newest_first()));
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
        if let Some(principal) = self.list_filter(&scope.extras) {
            let visible: Vec<&Value> = (0..self.tools.len())
                .map(|i| &self.tools.get(i).declared)
                .filter(|t| self.may_use(principal, Guarded::Tool, "name", t))
                .collect();
            let page = |offset: usize, size: usize| visible.iter().skip(offset).take(size).map(|v| (*v).clone()).collect();
            let hint = CacheHint { scope: CacheScope::Private, ..self.config.tools_cache };
            return list_page("tools", visible.len(), page, params, self.config.page_size, scope.modern.then_some(hint));
        }
        let page = |offset: usize, size: usize| self.tools.page(offset, size).cloned().collect();
        list_page("tools", self.tools.len(), page, params, self.config.page_size, scope.modern.then_some(self.config.tools_cache))
    }

    /// `resources/list`, `resources/templates/list` or `prompts/list` of
    /// the declared items.
    fn declared_list(&self, key: &str, items: &[Value], params: Option<&Value>, scope: &Scope) -> Result<Value, RpcError> {
        if let Some(principal) = self.list_filter(&scope.extras) {
            let (kind, member) = match key {
                "resources" => (Guarded::Resource, "uri"),
                "resourceTemplates" => (Guarded::Resource, "uriTemplate"),
                _ => (Guarded::Prompt, "name"),
            };
            let visible: Vec<&Value> = items.iter().filter(|t| self.may_use(principal, kind, member, t)).collect();
            let page = |offset: usize, size: usize| visible.iter().skip(offset).take(size).map(|v| (*v).clone()).collect();
            let hint = CacheHint { scope: CacheScope::Private, ..self.config.lists_cache };
            return list_page(key, visible.len(), page, params, self.config.page_size, scope.modern.then_some(hint));
        }
        let page = |offset: usize, size: usize| items.iter().skip(offset).take(size).cloned().collect();
        list_page(key, items.len(), page, params, self.config.page_size, scope.modern.then_some(self.config.lists_cache))
    }

    /// The response text of a result, finished for its era: a modern
    /// result carries `resultType` and `_meta.serverInfo`.
    pub(crate) fn reply(&self, id: &Value, scope: &Scope, mut result: Value) -> Reply {
        if let (true, Value::Object(members)) = (scope.modern, &result) {
            if !members.is_empty() && !members.contains_key("resultType") && !members.contains_key("_meta") {
                // Both members go last: the result's text with the tail
                // written in before its closing brace.
                let mut out = jsonrpc::response_head(id, 256);
                out.extend_from_slice(b",\"result\":");
                jsonrpc::push_json(&mut out, &result);
                out.pop();
                out.extend_from_slice(self.stateless_result_tail.as_bytes());
                out.extend_from_slice(b"}}");
                return Reply { text: jsonrpc::into_text(out), error: None, rejected: false };
            }
        }
        if scope.modern {
            if let Value::Object(members) = &mut result {
                members.entry("resultType").or_insert_with(|| Value::from("complete"));
                let meta_obj = members.entry("_meta").or_insert_with(|| Value::Object(Map::new()));
                if let Value::Object(m) = meta_obj {
                    m.entry(meta::SERVER_INFO).or_insert_with(|| self.config.server_info.clone());
                }
            }
        }
        Reply { text: jsonrpc::response(id, &result), error: None, rejected: false }
    }

    /// Splits `tools/call` params into the tool, its arguments and the
    /// progress token, checking them against `CallToolRequest`. The
    /// answer is given in [`Core::run_call`], once the call has its slot.
    pub(crate) fn call_request(&self, params: &mut Params<'_>, meta: Option<&Value>) -> Result<CallRequest, RpcError> {
        if !params.is_object() {
            return Err(RpcError::invalid_params("tools/call needs params with a tool \"name\""));
        }
        let tool = match params.take("name") {
            Some(Value::String(name)) => self.tools.find(&name).ok_or(name),
            Some(other) => return Err(RpcError::invalid_params(format!("\"name\" must be a string, got {}", jsonrpc::kind(&other)))),
            None => return Err(RpcError::invalid_params("missing tool \"name\"")),
        };
        let arguments = match params.take("arguments") {
            None => Value::Object(Map::new()),
            Some(args @ Value::Object(_)) => args,
            Some(other) => {
                return Err(RpcError::invalid_params(format!("\"arguments\" must be an object, got {}", jsonrpc::kind(&other))))
            }
        };
        // `meta` is the request's `params._meta` (as its scope holds it).
        let progress_token = match member(meta, meta::PROGRESS_TOKEN) {
            None => None,
            Some(t @ (Value::String(_) | Value::Number(_))) => Some(t.clone()),
            Some(other) => {
                return Err(RpcError::invalid_params(format!(
                    "\"_meta.progressToken\" must be a string or an integer, got {}",
                    jsonrpc::kind(other)
                )))
            }
        };
        let retry = (params.take("inputResponses"), params.take("requestState"));
        let task = params.take("task");
        Ok(CallRequest { tool, arguments, progress_token, retry, task, link: None })
    }

    /// The reply of a finished call's result, after the output hook.
    fn finished(&self, id: &Value, scope: &Scope, name: &str, mut result: Value) -> Reply {
        if let Some(hook) = &self.output_hook {
            hook(name, &mut result);
        }
        self.reply(id, scope, result)
    }

    /// Runs one `tools/call`; `None` when it was cancelled (no response).
    pub(crate) async fn run_call(
        &self,
        session: &Session,
        id: &Value,
        call: Box<CallRequest>,
        scope: &Scope,
        token: CancellationToken,
        sink: Sink,
    ) -> Option<Reply> {
        // The clock is read only for the audit log.
        let started = audit::enabled().then(Instant::now);
        let CallRequest { tool, arguments, progress_token, retry, link, .. } = *call;
        let index = match tool {
            Ok(index) => index,
            Err(name) => return Some(Reply::error(id, &RpcError::invalid_params(format!("Unknown tool: {name}")))),
        };
        let entry = self.tools.get(index);
        let name: &str = &entry.name;
        let client = scope.client.as_deref();
        let style = scope.revision.validation;
        let audited_args = self.config.audit_arguments.then(|| arguments.clone());
        let audit = |outcome: Outcome| {
            if let Some(started) = started {
                audit::record(name, client.and_then(ClientIdentity::name), started.elapsed(), outcome, audited_args.as_ref());
            }
        };
        let tail = if scope.modern { self.stateless_result_tail.as_str() } else { "" };
        let finish = |outcome: Outcome, answer: Answer| -> Option<Reply> {
            audit(outcome);
            Some(match answer {
                // Written as text, unless the output hook wants the value.
                Answer::Failed(text) if self.output_hook.is_none() => failure_reply(id, &text, tail),
                Answer::Failed(text) => self.finished(id, scope, name, text_result(text, true)),
                Answer::Result(result) => self.finished(id, scope, name, result),
                Answer::Error(error) => Reply::error(id, &error),
            })
        };
        let invalid_args = |errors: Vec<FieldError>| match style {
            ValidationStyle::ToolError => Answer::Failed(describe(name, &errors)),
            ValidationStyle::ProtocolError => Answer::Error(
                RpcError::invalid_params(format!("arguments of tool {name} do not match its inputSchema"))
                    .with_data(json!({ "tool": name, "errors": errors.iter().map(FieldError::to_value).collect::<Vec<_>>() })),
            ),
        };

        if let Some(hook) = &self.access {
            let info = CallInfo { tool: name, arguments: &arguments, client, request_id: id, extensions: scope.extras.extensions() };
            if let Err(reason) = hook(&info) {
                return finish(Outcome::Denied, Answer::Failed(format!("Access denied to tool {name}: {reason}")));
            }
        }
        if let Some(bucket) = &entry.limit {
            if let Err(wait) = bucket.try_acquire() {
                let text = format!(
                    "Rate limit exceeded for tool {name} (at most {}); retry in {} ms",
                    bucket.limit(),
                    wait.as_millis().max(1)
                );
                return finish(Outcome::RateLimited, Answer::Failed(text));
            }
        }
        if let Err(errors) = entry.input.validate(&arguments) {
            return finish(Outcome::InvalidArguments, invalid_args(errors));
        }

        let channel = match self.channel(session, scope, "tools/call", name, &arguments, retry) {
            Ok(channel) => channel,
            Err(error) => return finish(Outcome::InvalidArguments, Answer::Error(error)),
        };
        let rounds = match &channel {
            Channel::Rounds(rounds) => Some(Arc::clone(rounds)),
            _ => None,
        };
        let ctx = RequestContext::new(ContextParts {
            request_id: id.clone(),
            tool: Arc::clone(&entry.name),
            cancel: token.clone(),
            progress_token,
            client: scope.client.clone(),
            sink,
            meta: scope.meta.clone(),
            revision: Arc::clone(&scope.version),
            extras: Arc::clone(&scope.extras),
            log_level: self.log_threshold(session, scope),
        })
        .with_channel(channel)
        .with_notifier(crate::notifier::Notifier::new(Arc::clone(&self.listeners)))
        .with_task(link.map(|l| l as Arc<dyn std::any::Any + Send + Sync>));
        // Without an output hook the result is sent as is: the handler's
        // output comes encoded as a `Doc` (see `tool::encode_output`).
        let mut call = HandlerCall::new(self.dispatch.call(index, arguments, ctx), self.output_hook.is_none());
        // Cancellation first, as a biased select; the wait for it is set up
        // only once the call has to wait (most finish in their first poll).
        let mut cancelled = std::pin::pin!(token.cancelled());
        let outcome = std::future::poll_fn(|cx| {
            if token.is_cancelled() {
                return Poll::Ready(Ran::Cancelled);
            }
            if let Poll::Ready(done) = Pin::new(&mut call).poll(cx) {
                return Poll::Ready(Ran::Done(done));
            }
            // The handler waits for answers the client has yet to give.
            if rounds.as_ref().is_some_and(|r| r.needs_input()) {
                return Poll::Ready(Ran::NeedsInput);
            }
            cancelled.as_mut().poll(cx).map(|()| Ran::Cancelled)
        })
        .await;
        let outcome = match outcome {
            Ran::Done(outcome) => outcome,
            Ran::Cancelled => {
                audit(Outcome::Cancelled);
                return None;
            }
            Ran::NeedsInput => {
                drop(call);
                let result = rounds.map(|r| r.input_required(&self.sealer)).unwrap_or_default();
                audit(Outcome::Success);
                return Some(self.reply(id, scope, result));
            }
        };
        let outcome = match (outcome, call.doc.take()) {
            (Ok(Ok(ToolOutput::Structured(Value::Null))), Some(doc)) => {
                if entry.output.as_ref().is_none_or(|v| v.is_valid_doc(&doc)) {
                    audit(Outcome::Success);
                    return Some(doc_reply(id, &doc, tail));
                }
                // Invalid: the `Value` path below names every failure.
                Ok(Ok(ToolOutput::Structured(doc.to_value())))
            }
            (Ok(Ok(ToolOutput::Content(Value::Null))), Some(doc)) if entry.output.is_none() => {
                audit(Outcome::Success);
                return Some(content_reply(id, &doc, tail));
            }
            (Ok(Ok(ToolOutput::Content(Value::Null))), Some(doc)) => Ok(Ok(ToolOutput::Content(doc.to_value()))),
            (outcome, _) => outcome,
        };
        match outcome {
            Err(panic) => {
                tracing::error!(tool = %name, panic = %panic, "tool handler panicked");
                finish(Outcome::Panicked, Answer::Error(RpcError::internal(format!("tool {name} failed unexpectedly"))))
            }
            Ok(Ok(ToolOutput::Structured(value))) => {
                if let Some(validator) = &entry.output {
                    if let Err(errors) = validator.validate(&value) {
                        tracing::error!(tool = %name, errors = ?errors, "tool output violates its outputSchema");
                        let data = json!({ "tool": name, "errors": errors.iter().map(FieldError::to_value).collect::<Vec<_>>() });
                        return finish(
                            Outcome::InvalidOutput,
                            Answer::Error(RpcError::internal(format!("tool {name} produced output that does not match its outputSchema")).with_data(data)),
                        );
                    }
                }
                if self.output_hook.is_none() {
                    // Fast path: the reply is written as text around one
                    // serialisation of the output, used for both the
                    // structured content and the text block.
                    let mut json = Vec::with_capacity(256);
                    jsonrpc::push_json(&mut json, &value);
                    drop(value);
                    audit(Outcome::Success);
                    return Some(structured_reply(id, &json, tail));
                }
                let text = jsonrpc::json_text(&value);
                let mut result = Map::new();
                result.insert("content".into(), json!([{ "type": "text", "text": text }]));
                result.insert("structuredContent".into(), value);
                finish(Outcome::Success, Answer::Result(Value::Object(result)))
            }
            Ok(Ok(ToolOutput::Content(content))) => {
                if entry.output.is_some() {
                    return finish(
                        Outcome::InvalidOutput,
                        Answer::Error(RpcError::internal(format!("tool {name} declares an outputSchema but returned no structured output"))),
                    );
                }
                let mut result = Map::new();
                result.insert("content".into(), content);
                finish(Outcome::Success, Answer::Result(Value::Object(result)))
            }
            Ok(Err(CallFailure::InvalidArguments(errors))) => finish(Outcome::InvalidArguments, invalid_args(errors)),
            Ok(Err(CallFailure::Tool(error))) => finish(Outcome::ToolError, Answer::Failed(error.message().to_owned())),
            Ok(Err(CallFailure::MissingCapability(required))) => {
                let error = RpcError::new(
                    codes::MISSING_CLIENT_CAPABILITY,
                    format!("tool {name} needs client capabilities the request did not declare"),
                )
                .with_data(json!({ "requiredCapabilities": required }));
                finish(Outcome::ToolError, Answer::Error(error))
            }
            Ok(Err(CallFailure::Encode(message))) => {
                tracing::error!(tool = %name, error = %message, "cannot encode tool output");
                finish(Outcome::InvalidOutput, Answer::Error(RpcError::internal(format!("tool {name} produced output that cannot be encoded"))))
            }
        }
    }
}

/// How a handler's run ended.
enum Ran<T> {
    /// It finished.
    Done(T),
    /// The request was cancelled.
    Cancelled,
    /// It waits for input requests the client must answer (stateless era).
    NeedsInput,
}

impl Core {
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
        (input_responses, request_state): (Option<Value>, Option<Value>),
    ) -> Result<Channel, RpcError> {
        if !scope.modern {
            let outbound = Arc::clone(session.outbound());
            return Ok(Channel::Live { outbound, timeout: self.config.client_request_timeout });
        }
        // A client that declared nothing it could be asked (and answers
        // nothing) can be sent no input request: no rounds to keep.
        let askable = scope.client.as_ref().is_some_and(|c| crate::peer::ASKED_THROUGH.iter().any(|n| c.has_capability(n)));
        if !askable && input_responses.is_none() && request_state.is_none() {
            return Ok(Channel::None);
        }
        let principal = scope.extras.principal().map(|p| p.subject.as_str());
        let binding = mrtr::Binding::new(method, name, arguments, principal);
        let rounds = Rounds::start(&self.sealer, binding, input_responses, request_state)?;
        Ok(Channel::Rounds(Arc::new(rounds)))
    }
}

/// `debug, info, …` for messages.
fn level_names() -> String {
    LogLevel::ALL.map(LogLevel::as_str).join(", ")
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
        Some(Value::String(c)) => cursor::decode(c, len)
            .ok_or_else(|| RpcError::invalid_params(format!("invalid cursor {c:?}; pass a nextCursor this server returned")))?,
        Some(other) => return Err(RpcError::invalid_params(format!("\"cursor\" must be a string, got {}", jsonrpc::kind(other)))),
    };
    let mut result = Map::new();
    result.insert(key.into(), Value::Array(page(offset, size)));
    if offset + size < len {
        result.insert("nextCursor".into(), Value::from(cursor::encode(offset + size)));
    }
    if let Some(hint) = hint {
        add_cache_hint(&mut result, hint);
    }
    Ok(Value::Object(result))
}

/// Adds `ttlMs` and `cacheScope` to a cacheable result.
pub(crate) fn add_cache_hint(result: &mut Map<String, Value>, hint: CacheHint) {
    let ms = u64::try_from(hint.ttl.as_millis()).unwrap_or(u64::MAX);
    result.insert("ttlMs".into(), Value::from(ms));
    result.insert("cacheScope".into(), Value::from(hint.scope.as_str()));
}

/// How a tool call is answered.
enum Answer {
    /// A `CallToolResult` with one text block and `isError: true`.
    Failed(String),
    /// A result.
    Result(Value),
    /// A JSON-RPC error.
    Error(RpcError),
}

/// A `tools/call` as read from its params: the tool (its index, or the
/// unknown name), its arguments and the progress token.
pub(crate) struct CallRequest {
    pub(super) tool: Result<usize, String>,
    arguments: Value,
    progress_token: Option<Value>,
    /// A retry's `inputResponses` and `requestState` (stateless era).
    retry: (Option<Value>, Option<Value>),
    /// `params.task`: the client asks for a task (2025-11-25).
    pub(super) task: Option<Value>,
    /// The task the call may become.
    pub(super) link: Option<Arc<crate::tasks::TaskLink>>,
}
