//! What each MCP method means to the server, in both eras: which era and
//! revision a request is served in ([`Core::scope`]: `initialize` sessions,
//! per-request `_meta`), `initialize`, `server/discover`, `ping`,
//! `tools/list` (pagination, caching hints), `tools/call` (the call
//! pipeline), the notifications it listens to, and how a result is
//! finished for its era (`resultType`, `_meta.serverInfo`).
//!
//! The `tools/call` pipeline, in order: check the params against
//! `CallToolRequest` (`-32602`), find the tool (`-32602`), access control,
//! rate limit, validate the arguments against `inputSchema`, run the
//! handler (cancellable, panics caught), validate a typed output against
//! `outputSchema`, apply the output hook, audit.

use std::sync::Arc;
use std::time::Instant;

use serde_json::{json, Map, Value};

use crate::audit::{self, Outcome};
use crate::cancel::CancellationToken;
use crate::catch::CatchUnwind;
use crate::context::{ClientIdentity, ContextParts, LogLevel, RequestContext, Sink};
use crate::cursor;
use crate::jsonrpc::{self, RpcError};
use crate::revision::{self, codes, meta, Era, Revision, ValidationStyle};
use crate::tool::{CallFailure, ToolOutput};
use crate::validate::{describe, FieldError};

use super::config::{CacheHint, CallInfo, Core};
use super::session::Session;

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
    /// Transport extensions (HTTP parts, principal).
    pub(crate) extensions: Arc<http::Extensions>,
}

/// A reply to one request: the message text and, for an error, its code
/// (transports map some codes to statuses).
#[derive(Debug, Clone, PartialEq)]
pub struct Reply {
    /// The serialised JSON-RPC response.
    pub text: String,
    /// The error code when the response is an error.
    pub error: Option<i64>,
    /// Whether the request was refused before any method ran (bad `_meta`,
    /// unsupported version, invalid message): HTTP answers these `400`.
    pub rejected: bool,
}

impl Reply {
    pub(crate) fn error(id: &Value, error: &RpcError) -> Self {
        Self { text: jsonrpc::error_response(id, error), error: Some(error.code), rejected: false }
    }

    pub(crate) fn rejection(id: &Value, error: &RpcError) -> Self {
        Self { rejected: true, ..Self::error(id, error) }
    }

    pub(crate) fn result_text(id: &Value, result: &str) -> Self {
        Self { text: jsonrpc::response_raw(id, result), error: None, rejected: false }
    }
}

/// A `CallToolResult` with one text block.
fn text_result(text: String, is_error: bool) -> Value {
    let mut result = Map::new();
    result.insert("content".into(), json!([{ "type": "text", "text": text }]));
    if is_error {
        result.insert("isError".into(), Value::Bool(true));
    }
    Value::Object(result)
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
        params: Option<&Value>,
        extensions: &Arc<http::Extensions>,
    ) -> Result<Scope, RpcError> {
        let request_meta = params.and_then(|p| p.get("_meta"));
        let names_version = request_meta.is_some_and(|m| m.get(meta::PROTOCOL_VERSION).is_some());
        let session_era = session.era();
        let modern = match (session_era, method) {
            (Some(Era::Legacy), _) => false,
            (Some(Era::Modern), _) => true,
            (None, "initialize") => names_version,
            (None, "server/discover") => true,
            (None, _) => names_version || self.config.supported_in(Era::Legacy).next().is_none(),
        };
        if !modern {
            let client = session.identity();
            let version: Arc<str> = match &client {
                Some(c) => c.protocol_version.as_str().into(),
                None => self.default_legacy().into(),
            };
            return Ok(Scope {
                revision: revision::nearest(&version),
                version,
                modern: false,
                client,
                meta: request_meta.cloned().map(Arc::new),
                extensions: Arc::clone(extensions),
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
        let Some(request_meta) = request_meta.and_then(Value::as_object) else {
            return Err(missing_meta("the request has no params._meta object"));
        };
        let version = match request_meta.get(meta::PROTOCOL_VERSION) {
            Some(Value::String(v)) => v.as_str(),
            Some(_) => return Err(missing_meta(&format!("\"{}\" must be a string", meta::PROTOCOL_VERSION))),
            None => return Err(missing_meta(&format!("params._meta lacks \"{}\"", meta::PROTOCOL_VERSION))),
        };
        if revision::era(version) != Era::Modern || !self.config.supports(version) {
            let supported = self.config.supported_newest_first();
            return Err(RpcError::new(codes::UNSUPPORTED_PROTOCOL_VERSION, "Unsupported protocol version")
                .with_data(json!({ "supported": supported, "requested": version })));
        }
        let capabilities = match request_meta.get(meta::CLIENT_CAPABILITIES) {
            Some(c @ Value::Object(_)) => c.clone(),
            Some(_) => return Err(missing_meta(&format!("\"{}\" must be an object", meta::CLIENT_CAPABILITIES))),
            None => return Err(missing_meta(&format!("params._meta lacks \"{}\"", meta::CLIENT_CAPABILITIES))),
        };
        if let Some(level) = request_meta.get(meta::LOG_LEVEL) {
            if level.as_str().and_then(LogLevel::parse).is_none() {
                return Err(RpcError::invalid_params(format!("\"{}\" must be one of {}", meta::LOG_LEVEL, level_names())));
            }
        }
        session.fix_era(Era::Modern);
        let identity = ClientIdentity {
            info: request_meta.get(meta::CLIENT_INFO).cloned().unwrap_or(Value::Null),
            protocol_version: version.to_owned(),
            capabilities,
        };
        Ok(Scope {
            revision: revision::nearest(version),
            version: version.into(),
            modern: true,
            client: Some(Arc::new(identity)),
            meta: Some(Arc::new(Value::Object(request_meta.clone()))),
            extensions: Arc::clone(extensions),
        })
    }

    /// The revision a stateful request is served in before `initialize`.
    pub(crate) fn default_legacy(&self) -> &str {
        self.config.supported_in(Era::Legacy).next().unwrap_or(revision::LATEST_LEGACY)
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
            (true, "server/discover") => Ok(self.discover()),
            (_, "tools/list") => self.tools_list(params, scope),
            (_, "resources/list") => self.declared_list("resources", &self.config.resources, params, scope),
            (_, "resources/templates/list") => {
                self.declared_list("resourceTemplates", &self.config.resource_templates, params, scope)
            }
            (_, "prompts/list") => self.declared_list("prompts", &self.config.prompts, params, scope),
            (_, "resources/read") => {
                // SEP-2164: an unknown resource is -32602 naming the URI.
                let uri = params.and_then(|p| p.get("uri")).cloned().unwrap_or(Value::Null);
                Err(RpcError::invalid_params(format!("Resource not found: {uri}")).with_data(json!({ "uri": uri })))
            }
            (_, "prompts/get") => {
                let name = params.and_then(|p| p.get("name")).cloned().unwrap_or(Value::Null);
                Err(RpcError::invalid_params(format!("Unknown prompt: {name}")))
            }
            _ => Err(RpcError::method_not_found(method)),
        }
    }

    /// Reacts to a notification; never answers.
    pub(crate) fn on_notification(&self, session: &Session, method: &str, params: Option<&Value>) {
        match method {
            "notifications/cancelled" => {
                let Some(id) = params.and_then(|p| p.get("requestId")) else { return };
                let key = jsonrpc::json_text(id);
                if session.cancel(&key) {
                    tracing::debug!(request = %key, "request cancelled by the client");
                }
            }
            "notifications/initialized" => tracing::debug!("client initialized"),
            other => tracing::debug!(method = other, "ignoring notification"),
        }
    }

    fn capabilities(&self) -> Value {
        json!({
            "logging": {},
            "prompts": { "listChanged": false },
            "resources": { "listChanged": false, "subscribe": false },
            "tools": { "listChanged": self.config.list_changed },
        })
    }

    /// The least severe level a request's handler may log at.
    fn log_threshold(&self, session: &Session, scope: &Scope) -> Option<LogLevel> {
        if scope.modern {
            scope.meta.as_deref().and_then(|m| m.get(meta::LOG_LEVEL)).and_then(Value::as_str).and_then(LogLevel::parse)
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
        let version = if revision::era(requested) == Era::Legacy && self.config.supports(requested) {
            requested.to_owned()
        } else {
            self.default_legacy().to_owned()
        };
        session.fix_era(Era::Legacy);
        session.set_identity(ClientIdentity {
            info: params.get("clientInfo").cloned().unwrap_or(Value::Null),
            protocol_version: version.clone(),
            capabilities: params.get("capabilities").cloned().unwrap_or_else(|| json!({})),
        });

        let mut result = Map::new();
        result.insert("protocolVersion".into(), Value::from(version));
        result.insert("capabilities".into(), self.capabilities());
        result.insert("serverInfo".into(), self.config.server_info.clone());
        if let Some(text) = &self.config.instructions {
            result.insert("instructions".into(), Value::from(text.clone()));
        }
        Ok(Value::Object(result))
    }

    fn discover(&self) -> Value {
        let mut result = Map::new();
        result.insert("supportedVersions".into(), json!(self.config.supported_newest_first()));
        result.insert("capabilities".into(), self.capabilities());
        if let Some(text) = &self.config.instructions {
            result.insert("instructions".into(), Value::from(text.clone()));
        }
        add_cache_hint(&mut result, self.config.discover_cache);
        Value::Object(result)
    }

    fn tools_list(&self, params: Option<&Value>, scope: &Scope) -> Result<Value, RpcError> {
        let page = |offset: usize, size: usize| self.tools.page(offset, size).cloned().collect();
        list_page("tools", self.tools.len(), page, params, self.config.page_size, scope.modern.then_some(self.config.tools_cache))
    }

    /// `resources/list`, `resources/templates/list` or `prompts/list` of
    /// the declared items.
    fn declared_list(&self, key: &str, items: &[Value], params: Option<&Value>, scope: &Scope) -> Result<Value, RpcError> {
        let page = |offset: usize, size: usize| items.iter().skip(offset).take(size).cloned().collect();
        list_page(key, items.len(), page, params, self.config.page_size, scope.modern.then_some(self.config.lists_cache))
    }

    /// The response text of a result, finished for its era: a modern
    /// result carries `resultType` and `_meta.serverInfo`.
    pub(crate) fn reply(&self, id: &Value, scope: &Scope, mut result: Value) -> Reply {
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

    /// Runs one `tools/call`; `None` when it was cancelled (no response).
    pub(crate) async fn run_call(
        &self,
        session: Session,
        id: Value,
        params: Option<Value>,
        scope: Scope,
        token: CancellationToken,
        sink: Sink,
    ) -> Option<Reply> {
        let started = Instant::now();
        let (name, arguments, progress_token) = match parse_call(params) {
            Ok(parts) => parts,
            Err(error) => return Some(Reply::error(&id, &error)),
        };
        let Some(index) = self.tools.find(&name) else {
            return Some(Reply::error(&id, &RpcError::invalid_params(format!("Unknown tool: {name}"))));
        };
        let entry = self.tools.get(index);
        let client = scope.client.clone();
        let style = scope.revision.validation;
        let audited_args = self.config.audit_arguments.then(|| arguments.clone());
        let finish = |outcome: Outcome, reply: Result<Value, RpcError>| -> Option<Reply> {
            audit::record(
                &name,
                client.as_deref().and_then(ClientIdentity::name),
                started.elapsed(),
                outcome,
                audited_args.as_ref(),
            );
            Some(match reply {
                Ok(mut result) => {
                    if let Some(hook) = &self.output_hook {
                        hook(&name, &mut result);
                    }
                    self.reply(&id, &scope, result)
                }
                Err(error) => Reply::error(&id, &error),
            })
        };
        let invalid_args = |errors: Vec<FieldError>| match style {
            ValidationStyle::ToolError => Ok(text_result(describe(&name, &errors), true)),
            ValidationStyle::ProtocolError => Err(RpcError::invalid_params(format!(
                "arguments of tool {name} do not match its inputSchema"
            ))
            .with_data(json!({ "tool": name, "errors": errors.iter().map(FieldError::to_value).collect::<Vec<_>>() }))),
        };

        if let Some(hook) = &self.access {
            let info = CallInfo {
                tool: &name,
                arguments: &arguments,
                client: client.as_deref(),
                request_id: &id,
                extensions: &scope.extensions,
            };
            if let Err(reason) = hook(&info) {
                return finish(Outcome::Denied, Ok(text_result(format!("Access denied to tool {name}: {reason}"), true)));
            }
        }
        if let Some(bucket) = &entry.limit {
            if let Err(wait) = bucket.try_acquire() {
                let text = format!(
                    "Rate limit exceeded for tool {name} (at most {}); retry in {} ms",
                    bucket.limit(),
                    wait.as_millis().max(1)
                );
                return finish(Outcome::RateLimited, Ok(text_result(text, true)));
            }
        }
        if let Err(errors) = entry.input.validate(&arguments) {
            return finish(Outcome::InvalidArguments, invalid_args(errors));
        }

        let ctx = RequestContext::new(ContextParts {
            request_id: id.clone(),
            tool: Arc::clone(&entry.name),
            cancel: token.clone(),
            progress_token,
            client: client.clone(),
            sink,
            meta: scope.meta.clone(),
            revision: Arc::clone(&scope.version),
            extensions: Arc::clone(&scope.extensions),
            log_level: self.log_threshold(&session, &scope),
        });
        let call = CatchUnwind::new(self.dispatch.call(index, arguments, ctx));
        let outcome = tokio::select! {
            biased;
            _ = token.cancelled() => None,
            done = call => Some(done),
        };
        let Some(outcome) = outcome else {
            audit::record(&name, client.as_deref().and_then(ClientIdentity::name), started.elapsed(), Outcome::Cancelled, audited_args.as_ref());
            return None;
        };
        match outcome {
            Err(panic) => {
                tracing::error!(tool = %name, panic = %panic, "tool handler panicked");
                finish(Outcome::Panicked, Err(RpcError::internal(format!("tool {name} failed unexpectedly"))))
            }
            Ok(Ok(ToolOutput::Structured(value))) => {
                if let Some(validator) = &entry.output {
                    if let Err(errors) = validator.validate(&value) {
                        tracing::error!(tool = %name, errors = ?errors, "tool output violates its outputSchema");
                        let data = json!({ "tool": name, "errors": errors.iter().map(FieldError::to_value).collect::<Vec<_>>() });
                        return finish(
                            Outcome::InvalidOutput,
                            Err(RpcError::internal(format!("tool {name} produced output that does not match its outputSchema")).with_data(data)),
                        );
                    }
                }
                let text = jsonrpc::json_text(&value);
                if self.output_hook.is_none() {
                    // Fast path: the result is assembled as text, so the
                    // output is serialized once instead of twice.
                    audit::record(
                        &name,
                        client.as_deref().and_then(ClientIdentity::name),
                        started.elapsed(),
                        Outcome::Success,
                        audited_args.as_ref(),
                    );
                    let tail = if scope.modern { self.modern_result_tail.as_str() } else { "" };
                    return Some(Reply::result_text(&id, &structured_result_text(&text, tail)));
                }
                let mut result = Map::new();
                result.insert("content".into(), json!([{ "type": "text", "text": text }]));
                result.insert("structuredContent".into(), value);
                finish(Outcome::Success, Ok(Value::Object(result)))
            }
            Ok(Ok(ToolOutput::Content(content))) => {
                if entry.output.is_some() {
                    return finish(
                        Outcome::InvalidOutput,
                        Err(RpcError::internal(format!("tool {name} declares an outputSchema but returned no structured output"))),
                    );
                }
                let mut result = Map::new();
                result.insert("content".into(), content);
                finish(Outcome::Success, Ok(Value::Object(result)))
            }
            Ok(Err(CallFailure::InvalidArguments(errors))) => finish(Outcome::InvalidArguments, invalid_args(errors)),
            Ok(Err(CallFailure::Tool(error))) => finish(Outcome::ToolError, Ok(text_result(error.message().to_owned(), true))),
            Ok(Err(CallFailure::MissingCapability(required))) => {
                let error = RpcError::new(
                    codes::MISSING_CLIENT_CAPABILITY,
                    format!("tool {name} needs client capabilities the request did not declare"),
                )
                .with_data(json!({ "requiredCapabilities": required }));
                finish(Outcome::ToolError, Err(error))
            }
            Ok(Err(CallFailure::Encode(message))) => {
                tracing::error!(tool = %name, error = %message, "cannot encode tool output");
                finish(Outcome::InvalidOutput, Err(RpcError::internal(format!("tool {name} produced output that cannot be encoded"))))
            }
        }
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
fn add_cache_hint(result: &mut Map<String, Value>, hint: CacheHint) {
    let ms = u64::try_from(hint.ttl.as_millis()).unwrap_or(u64::MAX);
    result.insert("ttlMs".into(), Value::from(ms));
    result.insert("cacheScope".into(), Value::from(hint.scope.as_str()));
}

/// The members a modern result appends: `resultType` and `_meta.serverInfo`,
/// as text starting with a comma.
pub(crate) fn modern_result_tail(server_info: &Value) -> String {
    let mut meta_obj = Map::new();
    meta_obj.insert(meta::SERVER_INFO.into(), server_info.clone());
    format!(",\"resultType\":\"complete\",\"_meta\":{}", jsonrpc::json_text(&Value::Object(meta_obj)))
}

/// `{"content":[{"type":"text","text":TEXT}],"structuredContent":JSON TAIL}`
/// for the serialized structured output `json`.
fn structured_result_text(json: &str, tail: &str) -> String {
    // A `str` serializes as an escaped JSON string and cannot fail.
    let escaped = serde_json::to_string(json).unwrap_or_default();
    let mut out = String::with_capacity(escaped.len() + json.len() + tail.len() + 64);
    out.push_str(r#"{"content":[{"type":"text","text":"#);
    out.push_str(&escaped);
    out.push_str(r#"}],"structuredContent":"#);
    out.push_str(json);
    out.push_str(tail);
    out.push('}');
    out
}

/// Splits `tools/call` params into name, arguments and progress token,
/// checking them against `CallToolRequest`.
fn parse_call(params: Option<Value>) -> Result<(String, Value, Option<Value>), RpcError> {
    let Some(Value::Object(mut params)) = params else {
        return Err(RpcError::invalid_params("tools/call needs params with a tool \"name\""));
    };
    let name = match params.remove("name") {
        Some(Value::String(name)) => name,
        Some(other) => return Err(RpcError::invalid_params(format!("\"name\" must be a string, got {}", jsonrpc::kind(&other)))),
        None => return Err(RpcError::invalid_params("missing tool \"name\"")),
    };
    let arguments = match params.remove("arguments") {
        None => Value::Object(Map::new()),
        Some(args @ Value::Object(_)) => args,
        Some(other) => {
            return Err(RpcError::invalid_params(format!("\"arguments\" must be an object, got {}", jsonrpc::kind(&other))))
        }
    };
    let progress_token = match params.get("_meta").and_then(|m| m.get(meta::PROGRESS_TOKEN)) {
        None => None,
        Some(t @ (Value::String(_) | Value::Number(_))) => Some(t.clone()),
        Some(other) => {
            return Err(RpcError::invalid_params(format!(
                "\"_meta.progressToken\" must be a string or an integer, got {}",
                jsonrpc::kind(other)
            )))
        }
    };
    Ok((name, arguments, progress_token))
}
