//! `tools/call`: a call's params read against `CallToolRequest`
//! ([`request`]) and the call pipeline that answers it once it has its
//! slot ([`run`]).
//!
//! The pipeline, in named steps: find the tool (`-32602`); [`Call::admit`]:
//! access control, rate limit, the arguments against `inputSchema`;
//! [`Call::invoke`] and [`Call::wait`]: run the handler (cancellable,
//! panics caught);
//! [`Call::answer`]: a typed output against `outputSchema`, the output
//! hook, the reply. Every step's end is audited.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::Poll;
use std::time::{Duration, Instant};

use serde_json::{json, Map, Value};

use crate::jsonrpc::{self, member, RpcError};
use crate::revision::method::Method;
use crate::revision::{codes, meta, ValidationStyle};
use crate::schema::{describe, FieldError};
use crate::server::access::audit::{self, Outcome};
use crate::server::handler::cancel::CancellationToken;
use crate::server::handler::context::{
    ClientIdentity, ContextParts, RequestContext, Sink, TaskPort,
};
use crate::server::handler::mrtr::{Retry, Rounds};
use crate::server::handler::peer::Channel;
use crate::server::tools::limits::{LimitScope, OnStoreError, RateLimit};
use crate::server::tools::tool::{CallFailure, HandlerCall, Invoked, ToolOutput};
use crate::server::tools::toolset::ToolEntry;

use crate::server::answer::methods::Core;
use crate::server::config::CallInfo;
use crate::server::request::params::Params;
use crate::server::request::reply::{
    content_reply, doc_reply, failure_reply, structured_reply, text_result, Reply,
};
use crate::server::request::scope::Scope;
use crate::server::session::Session;

/// Splits `tools/call` params into the tool, its arguments and the
/// progress token, checking them against `CallToolRequest`. The
/// answer is given in [`run`], once the call has its slot.
pub(in crate::server) fn request(
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
        Some(Value::String(name)) => match core.tools.find(&name) {
            Some(index) => Tool::Index(index),
            None => Tool::Unknown(name),
        },
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
    let retry = Retry {
        input_responses: params.take("inputResponses"),
        request_state: params.take("requestState"),
    };
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

/// Runs one `tools/call`; `None` when it was cancelled (no response).
pub(in crate::server) async fn run(
    core: &Core,
    session: &Session,
    id: &Value,
    request: Box<CallRequest>,
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
    } = *request;
    let index = match tool {
        Tool::Index(index) => index,
        Tool::Unknown(name) => {
            return Some(Reply::error(
                id,
                &RpcError::invalid_params(format!("Unknown tool: {name}")),
            ))
        }
    };
    let call = Call {
        core,
        id,
        scope,
        entry: core.tools.get(index),
        tail: if scope.modern {
            core.stateless_result_tail.as_str()
        } else {
            ""
        },
        started,
        audited_arguments: core.config.audit_arguments.then(|| arguments.clone()),
    };
    if let Err(refused) = call.admit(&arguments) {
        return Some(refused);
    }
    if call.entry.limit.is_some() {
        // Boxed: the call's own future stays small enough for the
        // allocator's fast path (see `Pending`).
        if let Err(refused) = Box::pin(call.limit(session)).await {
            return Some(refused);
        }
    }
    if let Err(refused) = call.check_arguments(&arguments) {
        return Some(refused);
    }
    let channel = match core.channel(
        session,
        scope,
        Method::ToolsCall.name(),
        &call.entry.name,
        &arguments,
        retry,
    ) {
        Ok(channel) => channel,
        Err(error) => {
            return Some(call.finish(Outcome::InvalidArguments, CallAnswer::Error(error)))
        }
    };
    let rounds = match &channel {
        Channel::Rounds(rounds) => Some(Arc::clone(rounds)),
        _ => None,
    };
    let ctx = RequestContext::new(ContextParts {
        request_id: id.clone(),
        tool: Arc::clone(&call.entry.name),
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
    .with_notifier(crate::server::handler::notifier::Notifier::new(Arc::clone(
        &core.listeners,
    )))
    .with_task(link.map(|l| l as Arc<dyn TaskPort>));
    let running = call.invoke(index, arguments, ctx);
    match Call::wait(running, &token, rounds.as_deref()).await {
        Ran::Done(invoked) => Some(call.answer(invoked)),
        Ran::Cancelled => {
            call.audit(Outcome::Cancelled);
            None
        }
        Ran::NeedsInput => {
            let result = rounds
                .map(|r| r.input_required(&core.sealer))
                .unwrap_or_default();
            call.audit(Outcome::Success);
            Some(core.reply(id, scope, result))
        }
    }
}

/// One call of a known tool being answered: what each step needs.
struct Call<'a> {
    core: &'a Core,
    id: &'a Value,
    scope: &'a Scope,
    entry: &'a ToolEntry,
    /// What a stateless result ends with (empty in the stateful era).
    tail: &'a str,
    /// When the call started, if the audit log is on.
    started: Option<Instant>,
    /// The arguments, kept for the audit log if it records them.
    audited_arguments: Option<Value>,
}

impl Call<'_> {
    fn name(&self) -> &str {
        &self.entry.name
    }

    /// Records the call's outcome in the audit log (when it is on).
    fn audit(&self, outcome: Outcome) {
        if let Some(started) = self.started {
            audit::record(
                self.name(),
                self.scope.client.as_deref().and_then(ClientIdentity::name),
                started.elapsed(),
                outcome,
                self.audited_arguments.as_ref(),
            );
        }
    }

    /// Audits `outcome` and writes `answer`.
    fn finish(&self, outcome: Outcome, answer: CallAnswer) -> Reply {
        self.audit(outcome);
        let (core, id, scope, name) = (self.core, self.id, self.scope, self.name());
        match answer {
            // Written as text, unless the output hook wants the value.
            CallAnswer::Failed(text) if core.output_hook.is_none() => {
                failure_reply(id, &text, self.tail)
            }
            CallAnswer::Failed(text) => finished(core, id, scope, name, text_result(text, true)),
            CallAnswer::Result(result) => finished(core, id, scope, name, result),
            CallAnswer::Error(error) => Reply::error(id, &error),
        }
    }

    /// Arguments that do not match `inputSchema` (or the input type), as
    /// the revision answers them: a tool error or `-32602`.
    fn invalid_arguments(&self, errors: Vec<FieldError>) -> CallAnswer {
        let name = self.name();
        match self.scope.revision.validation {
            ValidationStyle::ToolError => CallAnswer::Failed(describe(name, &errors)),
            ValidationStyle::ProtocolError => CallAnswer::Error(
                RpcError::invalid_params(format!("arguments of tool {name} do not match its inputSchema"))
                    .with_data(json!({ "tool": name, "errors": errors.iter().map(FieldError::to_value).collect::<Vec<_>>() })),
            ),
        }
    }

    /// Access control: the reply refusing the call, if it does.
    fn admit(&self, arguments: &Value) -> Result<(), Reply> {
        let name = self.name();
        if let Some(hook) = &self.core.access {
            let info = CallInfo {
                tool: name,
                arguments,
                client: self.scope.client.as_deref(),
                request_id: self.id,
                extensions: self.scope.extras.extensions(),
            };
            if let Err(reason) = hook(&info) {
                let text = format!("Access denied to tool {name}: {reason}");
                return Err(self.finish(Outcome::Denied, CallAnswer::Failed(text)));
            }
        }
        Ok(())
    }

    /// The arguments against `inputSchema`: the reply refusing the call,
    /// if they do not match.
    fn check_arguments(&self, arguments: &Value) -> Result<(), Reply> {
        if let Err(errors) = self.entry.input.validate(arguments) {
            return Err(self.finish(Outcome::InvalidArguments, self.invalid_arguments(errors)));
        }
        Ok(())
    }

    /// The tool's rate limit, in this process or in the shared store: the
    /// reply refusing the call, if over the limit (or the store failed and
    /// the server refuses then).
    async fn limit(&self, session: &Session) -> Result<(), Reply> {
        let Some(bucket) = &self.entry.limit else {
            return Ok(());
        };
        let limit = bucket.limit();
        let principal = || {
            let subject = self.scope.extras.principal().map(|p| p.subject.as_str());
            format!("principal:{}", subject.unwrap_or_default())
        };
        let key = match limit.scope {
            LimitScope::Global => String::new(),
            LimitScope::Principal => principal(),
            LimitScope::Session if self.scope.modern => principal(),
            LimitScope::Session => match session.key() {
                Some(key) => format!("session:{key}"),
                None => return Err(self.over_limit(limit, None)),
            },
        };
        let taken = match &self.core.limit_store {
            None => bucket.try_acquire(&key),
            Some((store, on_error)) => {
                let shared = format!("{}\u{0}{key}", self.name());
                match store.take(&shared, limit).await {
                    Ok(taken) => taken,
                    Err(e) => {
                        tracing::error!(tool = %self.name(), error = %e, "the rate limit store failed; {}",
                        match on_error {
                            OnStoreError::Refuse => "the call is refused",
                            OnStoreError::LocalLimit => "the limit is checked in this process",
                        });
                        match on_error {
                            OnStoreError::Refuse => return Err(self.over_limit(limit, None)),
                            OnStoreError::LocalLimit => bucket.try_acquire(&key),
                        }
                    }
                }
            }
        };
        taken.map_err(|wait| self.over_limit(limit, Some(wait)))
    }

    /// A refusal for the rate limit: when a retry may succeed, or that the
    /// limit cannot be checked now.
    fn over_limit(&self, limit: RateLimit, wait: Option<Duration>) -> Reply {
        let name = self.name();
        let Some(wait) = wait else {
            let text = format!(
                "Rate limit of tool {name} cannot be checked now (limited to {limit}); retry later"
            );
            return self.finish(Outcome::RateLimited, CallAnswer::Failed(text));
        };
        let text = format!(
            "Rate limit exceeded for tool {name} (limited to {limit}); retry in {}",
            crate::server::tools::limits::retry_delay(wait)
        );
        // The wait also as a number, so a client need not read the text.
        let mut result = text_result(text, true);
        result["_meta"] =
            json!({ meta::RETRY_AFTER_MS: crate::server::tools::limits::retry_after_ms(wait) });
        self.finish(Outcome::RateLimited, CallAnswer::Result(result))
    }

    /// Starts the handler of tool `index` (dispatched, panics caught).
    fn invoke(&self, index: usize, arguments: Value, ctx: RequestContext) -> HandlerCall {
        HandlerCall::new(self.core.dispatch.call(index, arguments, ctx))
    }

    /// Waits until the handler is done, the request is cancelled, or
    /// (stateless era) the handler waits for answers the client has yet
    /// to give.
    async fn wait(
        mut running: HandlerCall,
        token: &CancellationToken,
        rounds: Option<&Rounds>,
    ) -> Ran {
        // Cancellation first, as a biased select; the wait for it is set up
        // only once the call has to wait (most finish in their first poll).
        let mut cancelled = std::pin::pin!(token.cancelled());
        std::future::poll_fn(|cx| {
            if token.is_cancelled() {
                return Poll::Ready(Ran::Cancelled);
            }
            if let Poll::Ready(invoked) = Pin::new(&mut running).poll(cx) {
                return Poll::Ready(Ran::Done(invoked));
            }
            if rounds.is_some_and(Rounds::needs_input) {
                return Poll::Ready(Ran::NeedsInput);
            }
            cancelled.as_mut().poll(cx).map(|()| Ran::Cancelled)
        })
        .await
    }

    /// The reply to what the handler did.
    fn answer(&self, invoked: Invoked) -> Reply {
        let name = self.name();
        let output = match invoked {
            Invoked::Output(output) => output,
            Invoked::Failed(CallFailure::InvalidArguments(errors)) => {
                return self.finish(Outcome::InvalidArguments, self.invalid_arguments(errors))
            }
            Invoked::Failed(CallFailure::Tool(error)) => {
                return self.finish(
                    Outcome::ToolError,
                    CallAnswer::Failed(error.message().to_owned()),
                )
            }
            Invoked::Failed(CallFailure::MissingCapability(required)) => {
                let error = RpcError::new(
                    codes::MISSING_CLIENT_CAPABILITY,
                    format!("tool {name} needs client capabilities the request did not declare"),
                )
                .with_data(json!({ "requiredCapabilities": required }));
                return self.finish(Outcome::ToolError, CallAnswer::Error(error));
            }
            Invoked::Failed(CallFailure::Encode(message)) => {
                tracing::error!(tool = %name, error = %message, "cannot encode tool output");
                let error = RpcError::internal(format!(
                    "tool {name} produced output that cannot be encoded"
                ));
                return self.finish(Outcome::InvalidOutput, CallAnswer::Error(error));
            }
            Invoked::Panicked(panic) => {
                tracing::error!(tool = %name, panic = %panic, "tool handler panicked");
                let error = RpcError::internal(format!("tool {name} failed unexpectedly"));
                return self.finish(Outcome::Panicked, CallAnswer::Error(error));
            }
        };
        match output {
            // Sent as encoded when valid and no output hook wants a value.
            ToolOutput::Encoded(encoded) if self.core.output_hook.is_none() => {
                if !encoded.is_structured() {
                    if let Some(refused) = self.refuse_content() {
                        return refused;
                    }
                    self.audit(Outcome::Success);
                    return content_reply(self.id, encoded.doc(), self.tail);
                }
                if self
                    .entry
                    .output
                    .as_ref()
                    .is_none_or(|v| v.is_valid_doc(encoded.doc()))
                {
                    self.audit(Outcome::Success);
                    return doc_reply(self.id, encoded.doc(), self.tail);
                }
                // Invalid: the `Value` path names every failure.
                self.structured(encoded.to_value())
            }
            ToolOutput::Encoded(encoded) if encoded.is_structured() => {
                self.structured(encoded.to_value())
            }
            ToolOutput::Encoded(encoded) => self.content(encoded.to_value()),
            ToolOutput::Structured(value) => self.structured(value),
            ToolOutput::Content(content) => self.content(content),
        }
    }

    /// The reply to a typed output, checked against `outputSchema`.
    fn structured(&self, value: Value) -> Reply {
        let name = self.name();
        if let Some(validator) = &self.entry.output {
            if let Err(errors) = validator.validate(&value) {
                tracing::error!(tool = %name, errors = ?errors, "tool output violates its outputSchema");
                let data = json!({ "tool": name, "errors": errors.iter().map(FieldError::to_value).collect::<Vec<_>>() });
                let error = RpcError::internal(format!(
                    "tool {name} produced output that does not match its outputSchema"
                ))
                .with_data(data);
                return self.finish(Outcome::InvalidOutput, CallAnswer::Error(error));
            }
        }
        if self.core.output_hook.is_none() {
            // Fast path: the reply is written as text around one
            // serialisation of the output, used for both the structured
            // content and the text block.
            let mut json = Vec::with_capacity(256);
            jsonrpc::push_json(&mut json, &value);
            drop(value);
            self.audit(Outcome::Success);
            return structured_reply(self.id, &json, self.tail);
        }
        let text = jsonrpc::json_text(&value);
        let mut result = Map::new();
        result.insert("content".into(), json!([{ "type": "text", "text": text }]));
        result.insert("structuredContent".into(), value);
        self.finish(Outcome::Success, CallAnswer::Result(Value::Object(result)))
    }

    /// The refusal of content blocks from a tool that declares an
    /// `outputSchema`.
    fn refuse_content(&self) -> Option<Reply> {
        self.entry.output.is_some().then(|| {
            let error = RpcError::internal(format!(
                "tool {} declares an outputSchema but returned no structured output",
                self.name()
            ));
            self.finish(Outcome::InvalidOutput, CallAnswer::Error(error))
        })
    }

    /// The reply to content blocks.
    fn content(&self, content: Value) -> Reply {
        if let Some(refused) = self.refuse_content() {
            return refused;
        }
        let mut result = Map::new();
        result.insert("content".into(), content);
        self.finish(Outcome::Success, CallAnswer::Result(Value::Object(result)))
    }
}

/// The reply of a finished call's result, after the output hook.
fn finished(core: &Core, id: &Value, scope: &Scope, name: &str, mut result: Value) -> Reply {
    if let Some(hook) = &core.output_hook {
        hook(name, &mut result);
    }
    core.reply(id, scope, result)
}

/// How a handler's run ended.
enum Ran {
    /// It finished.
    Done(Invoked),
    /// The request was cancelled.
    Cancelled,
    /// It waits for input requests the client must answer (stateless era).
    NeedsInput,
}

/// How a tool call is answered.
enum CallAnswer {
    /// A `CallToolResult` with one text block and `isError: true`.
    Failed(String),
    /// A result.
    Result(Value),
    /// A JSON-RPC error.
    Error(RpcError),
}

/// The tool a `tools/call` names.
pub(crate) enum Tool {
    /// The tool at this index of the tool table.
    Index(usize),
    /// No tool has this name.
    Unknown(String),
}

/// A `tools/call` as read from its params: the tool, its arguments and
/// the progress token.
pub(crate) struct CallRequest {
    pub(in crate::server) tool: Tool,
    arguments: Value,
    progress_token: Option<Value>,
    /// What a retry brings back (stateless era).
    retry: Retry,
    /// `params.task`: the client asks for a task (2025-11-25).
    pub(in crate::server) task: Option<Value>,
    /// The task the call may become.
    pub(in crate::server) link: Option<Arc<crate::server::tasks::TaskLink>>,
}
