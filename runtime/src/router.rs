//! What each MCP method means to the server: `initialize` (version
//! negotiation), `ping`, `tools/list` (pagination), `tools/call` (the call
//! pipeline) and the notifications it listens to.
//!
//! The `tools/call` pipeline, in order: check the params against
//! `CallToolRequest` (`-32602`), find the tool (`-32602`), access control,
//! rate limit, validate the arguments against `inputSchema`, run the
//! handler (cancellable, panics caught), validate a typed output against
//! `outputSchema`, apply the output hook, audit.

use std::sync::Arc;
use std::time::Instant;

use serde_json::{json, Map, Value};
use tokio::sync::mpsc;

use crate::audit::{self, Outcome};
use crate::cancel::CancellationToken;
use crate::catch::CatchUnwind;
use crate::context::{ClientIdentity, RequestContext};
use crate::cursor;
use crate::jsonrpc::{self, RpcError};
use crate::server::{CallInfo, Shared};
use crate::tool::{CallFailure, ToolOutput};
use crate::validate::{describe, FieldError};

/// The first revision that answers invalid tool arguments with a tool
/// execution error instead of a `-32602` protocol error.
const TOOL_ERROR_VALIDATION_FROM: &str = "2025-11-25";

/// The revisions with JSON-RPC batches: 2025-03-26 added them (a receiver
/// MUST accept them) and 2025-06-18 removed them again.
const BATCH_REVISIONS: &[&str] = &["2025-03-26"];

/// Whether a session on `revision` accepts JSON-RPC batches.
pub fn batches_allowed(revision: &str) -> bool {
    BATCH_REVISIONS.contains(&revision)
}

/// How invalid tool arguments are answered in a session.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ValidationStyle {
    /// Up to 2025-06-18: a `-32602` error with the failures in `data`.
    ProtocolError,
    /// From 2025-11-25: a result with `isError: true` naming each field.
    ToolError,
}

impl ValidationStyle {
    /// The style of a protocol revision.
    pub fn for_revision(revision: &str) -> Self {
        if revision >= TOOL_ERROR_VALIDATION_FROM {
            ValidationStyle::ToolError
        } else {
            ValidationStyle::ProtocolError
        }
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

impl Shared {
    /// Answers a request that needs no task of its own.
    pub(crate) fn handle_inline(&self, method: &str, params: Option<&Value>) -> Result<Value, RpcError> {
        match method {
            "initialize" => self.initialize(params),
            "ping" => Ok(json!({})),
            "tools/list" => self.tools_list(params),
            _ => Err(RpcError::method_not_found(method)),
        }
    }

    /// Reacts to a notification; never answers.
    pub(crate) fn on_notification(&self, method: &str, params: Option<&Value>) {
        match method {
            "notifications/cancelled" => {
                let Some(id) = params.and_then(|p| p.get("requestId")) else { return };
                let key = jsonrpc::json_text(id);
                let token = self.inflight.lock().unwrap_or_else(|p| p.into_inner()).get(&key).cloned();
                if let Some(token) = token {
                    tracing::debug!(request = %key, "request cancelled by the client");
                    token.cancel();
                }
            }
            "notifications/initialized" => tracing::debug!("client initialized"),
            other => tracing::debug!(method = other, "ignoring notification"),
        }
    }

    fn initialize(&self, params: Option<&Value>) -> Result<Value, RpcError> {
        let params = params.ok_or_else(|| RpcError::invalid_params("initialize needs params"))?;
        let requested = params
            .get("protocolVersion")
            .and_then(Value::as_str)
            .ok_or_else(|| RpcError::invalid_params("\"protocolVersion\" must be a string"))?;
        let version = if self.config.supported_revisions.iter().any(|r| r == requested) {
            requested.to_owned()
        } else {
            self.config.revision.clone()
        };
        let identity = ClientIdentity {
            info: params.get("clientInfo").cloned().unwrap_or(Value::Null),
            protocol_version: version.clone(),
            capabilities: params.get("capabilities").cloned().unwrap_or_else(|| json!({})),
        };
        *self.client.write().unwrap_or_else(|p| p.into_inner()) = Some(Arc::new(identity));

        let mut result = Map::new();
        result.insert("protocolVersion".into(), Value::from(version));
        result.insert("capabilities".into(), json!({ "tools": { "listChanged": self.config.list_changed } }));
        result.insert("serverInfo".into(), self.config.server_info.clone());
        if let Some(text) = &self.config.instructions {
            result.insert("instructions".into(), Value::from(text.clone()));
        }
        Ok(Value::Object(result))
    }

    fn tools_list(&self, params: Option<&Value>) -> Result<Value, RpcError> {
        let offset = match params.and_then(|p| p.get("cursor")) {
            None | Some(Value::Null) => 0,
            Some(Value::String(c)) => cursor::decode(c, self.tools.len())
                .ok_or_else(|| RpcError::invalid_params(format!("invalid cursor {c:?}; pass a nextCursor this server returned")))?,
            Some(other) => {
                return Err(RpcError::invalid_params(format!("\"cursor\" must be a string, got {}", jsonrpc::kind(other))))
            }
        };
        let size = self.config.page_size;
        let tools: Vec<Value> = self.tools.page(offset, size).cloned().collect();
        let mut result = Map::new();
        result.insert("tools".into(), Value::Array(tools));
        if offset + size < self.tools.len() {
            result.insert("nextCursor".into(), Value::from(cursor::encode(offset + size)));
        }
        Ok(Value::Object(result))
    }

    fn client_identity(&self) -> Option<Arc<ClientIdentity>> {
        self.client.read().unwrap_or_else(|p| p.into_inner()).clone()
    }

    /// The revision of the session: the negotiated one once `initialize` is
    /// done, else the one the server was generated for.
    pub(crate) fn session_revision(&self) -> String {
        self.client_identity().map_or_else(|| self.config.revision.clone(), |c| c.protocol_version.clone())
    }

    /// Runs one `tools/call`; `None` when it was cancelled (no response).
    pub(crate) async fn run_call(
        &self,
        id: Value,
        params: Option<Value>,
        token: CancellationToken,
        tx: mpsc::Sender<String>,
    ) -> Option<String> {
        let started = Instant::now();
        let (name, arguments, progress_token) = match parse_call(params) {
            Ok(parts) => parts,
            Err(error) => return Some(jsonrpc::error_response(&id, &error)),
        };
        let Some(index) = self.tools.find(&name) else {
            return Some(jsonrpc::error_response(&id, &RpcError::invalid_params(format!("Unknown tool: {name}"))));
        };
        let entry = self.tools.get(index);
        let client = self.client_identity();
        let revision = client.as_ref().map_or(self.config.revision.as_str(), |c| c.protocol_version.as_str());
        let style = ValidationStyle::for_revision(revision);
        let audited_args = self.config.audit_arguments.then(|| arguments.clone());
        let finish = |outcome: Outcome, reply: Result<Value, RpcError>| -> Option<String> {
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
                    jsonrpc::response(&id, &result)
                }
                Err(error) => jsonrpc::error_response(&id, &error),
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
            let info = CallInfo { tool: &name, arguments: &arguments, client: client.as_deref(), request_id: &id };
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

        let ctx = RequestContext::new(id.clone(), Arc::clone(&entry.name), token.clone(), progress_token, client.clone(), tx);
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
                    return Some(jsonrpc::response_raw(&id, &structured_result_text(&text)));
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
            Ok(Err(CallFailure::Encode(message))) => {
                tracing::error!(tool = %name, error = %message, "cannot encode tool output");
                finish(Outcome::InvalidOutput, Err(RpcError::internal(format!("tool {name} produced output that cannot be encoded"))))
            }
        }
    }
}

/// `{"content":[{"type":"text","text":TEXT}],"structuredContent":JSON}`
/// for the serialized structured output `json`.
fn structured_result_text(json: &str) -> String {
    // A `str` serializes as an escaped JSON string and cannot fail.
    let escaped = serde_json::to_string(json).unwrap_or_default();
    let mut out = String::with_capacity(escaped.len() + json.len() + 64);
    out.push_str(r#"{"content":[{"type":"text","text":"#);
    out.push_str(&escaped);
    out.push_str(r#"}],"structuredContent":"#);
    out.push_str(json);
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
    let progress_token = match params.get("_meta").and_then(|m| m.get("progressToken")) {
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
