//! `tools/call`: a call's params read against `CallToolRequest`
//! ([`request`]) and the call pipeline that answers it once it has its
//! slot ([`run`]).
//!
//! The pipeline, in order: find the tool (`-32602`), access control,
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
use crate::context::{ClientIdentity, ContextParts, RequestContext, Sink};
use crate::jsonrpc::{self, member, RpcError};
use crate::peer::Channel;
use crate::revision::{codes, meta, ValidationStyle};
use crate::tool::{CallFailure, HandlerCall, ToolOutput};
use crate::validate::{describe, FieldError};

use super::config::CallInfo;
use super::methods::Core;
use super::params::Params;
use super::reply::{content_reply, doc_reply, failure_reply, structured_reply, text_result, Reply};
use super::scope::Scope;
use super::session::Session;

/// Splits `tools/call` params into the tool, its arguments and the
/// progress token, checking them against `CallToolRequest`. The
/// answer is given in [`run`], once the call has its slot.
pub(super) fn request(
    core: &Core,
    params: &mut Params<'_>,
    meta: Option<&Value>,
) -> Result<CallRequest, RpcError> {
    if !params.is_object() {
        return Err(RpcError::invalid_params(
            "tools/call needs params with a tool \"name\"",
        ));
    }
    let tool = match params.take("name") {
        Some(Value::String(name)) => core.tools.find(&name).ok_or(name),
        Some(other) => {
            return Err(RpcError::invalid_params(format!(
                "\"name\" must be a string, got {}",
                jsonrpc::kind(&other)
            )))
        }
        None => return Err(RpcError::invalid_params("missing tool \"name\"")),
    };
    let arguments = match params.take("arguments") {
        None => Value::Object(Map::new()),
        Some(args @ Value::Object(_)) => args,
        Some(other) => {
            return Err(RpcError::invalid_params(format!(
                "\"arguments\" must be an object, got {}",
                jsonrpc::kind(&other)
            )))
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
    Ok(CallRequest {
        tool,
        arguments,
        progress_token,
        retry,
        task,
        link: None,
    })
}

/// The reply of a finished call's result, after the output hook.
fn finished(core: &Core, id: &Value, scope: &Scope, name: &str, mut result: Value) -> Reply {
    if let Some(hook) = &core.output_hook {
        hook(name, &mut result);
    }
    core.reply(id, scope, result)
}

/// Runs one `tools/call`; `None` when it was cancelled (no response).
pub(super) async fn run(
    core: &Core,
    session: &Session,
    id: &Value,
    call: Box<CallRequest>,
    scope: &Scope,
    token: CancellationToken,
    sink: Sink,
) -> Option<Reply> {
    // The clock is read only for the audit log.
    let started = audit::enabled().then(Instant::now);
    let CallRequest {
        tool,
        arguments,
        progress_token,
        retry,
        link,
        ..
    } = *call;
    let index = match tool {
        Ok(index) => index,
        Err(name) => {
            return Some(Reply::error(
                id,
                &RpcError::invalid_params(format!("Unknown tool: {name}")),
            ))
        }
    };
    let entry = core.tools.get(index);
    let name: &str = &entry.name;
    let client = scope.client.as_deref();
    let style = scope.revision.validation;
    let audited_args = core.config.audit_arguments.then(|| arguments.clone());
    let audit = |outcome: Outcome| {
        if let Some(started) = started {
            audit::record(
                name,
                client.and_then(ClientIdentity::name),
                started.elapsed(),
                outcome,
                audited_args.as_ref(),
            );
        }
    };
    let tail = if scope.modern {
        core.stateless_result_tail.as_str()
    } else {
        ""
    };
    let finish = |outcome: Outcome, answer: Answer| -> Option<Reply> {
        audit(outcome);
        Some(match answer {
            // Written as text, unless the output hook wants the value.
            Answer::Failed(text) if core.output_hook.is_none() => failure_reply(id, &text, tail),
            Answer::Failed(text) => finished(core, id, scope, name, text_result(text, true)),
            Answer::Result(result) => finished(core, id, scope, name, result),
            Answer::Error(error) => Reply::error(id, &error),
        })
    };
    let invalid_args = |errors: Vec<FieldError>| {
        match style {
        ValidationStyle::ToolError => Answer::Failed(describe(name, &errors)),
        ValidationStyle::ProtocolError => Answer::Error(
            RpcError::invalid_params(format!("arguments of tool {name} do not match its inputSchema"))
                .with_data(json!({ "tool": name, "errors": errors.iter().map(FieldError::to_value).collect::<Vec<_>>() })),
        ),
    }
    };

    if let Some(hook) = &core.access {
        let info = CallInfo {
            tool: name,
            arguments: &arguments,
            client,
            request_id: id,
            extensions: scope.extras.extensions(),
        };
        if let Err(reason) = hook(&info) {
            return finish(
                Outcome::Denied,
                Answer::Failed(format!("Access denied to tool {name}: {reason}")),
            );
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

    let channel = match core.channel(session, scope, "tools/call", name, &arguments, retry) {
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
        log_level: core.log_threshold(session, scope),
    })
    .with_channel(channel)
    .with_notifier(crate::notifier::Notifier::new(Arc::clone(&core.listeners)))
    .with_task(link.map(|l| l as Arc<dyn std::any::Any + Send + Sync>));
    // Without an output hook the result is sent as is: the handler's
    // output comes encoded as a `Doc` (see `tool::encode_output`).
    let mut call = HandlerCall::new(
        core.dispatch.call(index, arguments, ctx),
        core.output_hook.is_none(),
    );
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
            let result = rounds
                .map(|r| r.input_required(&core.sealer))
                .unwrap_or_default();
            audit(Outcome::Success);
            return Some(core.reply(id, scope, result));
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
        (Ok(Ok(ToolOutput::Content(Value::Null))), Some(doc)) => {
            Ok(Ok(ToolOutput::Content(doc.to_value())))
        }
        (outcome, _) => outcome,
    };
    match outcome {
        Err(panic) => {
            tracing::error!(tool = %name, panic = %panic, "tool handler panicked");
            finish(
                Outcome::Panicked,
                Answer::Error(RpcError::internal(format!(
                    "tool {name} failed unexpectedly"
                ))),
            )
        }
        Ok(Ok(ToolOutput::Structured(value))) => {
            if let Some(validator) = &entry.output {
                if let Err(errors) = validator.validate(&value) {
                    tracing::error!(tool = %name, errors = ?errors, "tool output violates its outputSchema");
                    let data = json!({ "tool": name, "errors": errors.iter().map(FieldError::to_value).collect::<Vec<_>>() });
                    return finish(
                        Outcome::InvalidOutput,
                        Answer::Error(
                            RpcError::internal(format!(
                                "tool {name} produced output that does not match its outputSchema"
                            ))
                            .with_data(data),
                        ),
                    );
                }
            }
            if core.output_hook.is_none() {
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
                    Answer::Error(RpcError::internal(format!(
                        "tool {name} declares an outputSchema but returned no structured output"
                    ))),
                );
            }
            let mut result = Map::new();
            result.insert("content".into(), content);
            finish(Outcome::Success, Answer::Result(Value::Object(result)))
        }
        Ok(Err(CallFailure::InvalidArguments(errors))) => {
            finish(Outcome::InvalidArguments, invalid_args(errors))
        }
        Ok(Err(CallFailure::Tool(error))) => finish(
            Outcome::ToolError,
            Answer::Failed(error.message().to_owned()),
        ),
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
            finish(
                Outcome::InvalidOutput,
                Answer::Error(RpcError::internal(format!(
                    "tool {name} produced output that cannot be encoded"
                ))),
            )
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
