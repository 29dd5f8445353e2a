//! The server's span for each request (feature `otel`, see
//! [`crate::otel`]): opened once the request's scope is known, continuing
//! the caller's trace, entered while the request is handled inline and
//! around its pending future, and closed with the outcome: `error.type`
//! and `rpc.response.status_code` for a JSON-RPC error, `error.type =
//! tool_error` for a tool's `isError` result (its text as the status
//! message); its duration recorded as a metric. Only the methods the server
//! answers and the tools and prompts it declares are named in spans and
//! labels ([`bounded`]); anything else a client sends is recorded as
//! [`OTHER`], so the number of span names and metric series is bounded by
//! the manifest.

use opentelemetry::KeyValue;
use serde_json::Value;
use tracing::field::Empty;
use tracing::Instrument;
use tracing_opentelemetry::OpenTelemetrySpanExt;

use crate::otel::metrics::{Side, Timing};
use crate::otel::{
    propagation, record_failure, record_target, request_id, target_key, target_label, OTHER,
};
use crate::revision::method::Method;
use crate::server::answer::methods::Core;
use crate::server::answer::reads::prompt_index;
use crate::server::request::handled::{Handled, Pending};
use crate::server::request::reply::Reply;
use crate::server::request::route::{route, Route};
use crate::server::request::scope::Scope;

/// One request's span and measurement (either may be off).
pub(crate) struct RequestSpan {
    span: tracing::Span,
    timing: Option<Timing>,
}

/// A request's labels on the duration metric: method, revision and the
/// tool or prompt it names.
fn labels(method: &str, version: &str, target: Option<&str>) -> Vec<KeyValue> {
    let mut labels = vec![
        KeyValue::new("mcp.method.name", method.to_owned()),
        KeyValue::new("mcp.protocol.version", version.to_owned()),
    ];
    labels.extend(target_label(method, target));
    labels
}

/// The method and target a request's telemetry names: the method when the
/// server answers it in the request's revision, the tool of `tools/call`
/// or prompt of `prompts/get` when the server declares it, [`OTHER`] in
/// their place otherwise; no target for the other methods.
pub(crate) fn bounded<'m, 'n>(
    core: &Core,
    scope: &Scope,
    method: &'m str,
    name: Option<&'n str>,
) -> (&'m str, Option<&'n str>) {
    if route(scope, method) == Route::NotFound {
        return (OTHER, None);
    }
    let Some(name) = name.filter(|_| target_key(method).is_some()) else {
        return (method, None);
    };
    let declared = match Method::of(method) {
        Some(Method::ToolsCall) => {
            core.tools.find(name).is_some()
                || (core.search.is_some() && name == crate::server::search::SEARCH_TOOLS)
        }
        _ => prompt_index(core, name).is_some(),
    };
    (method, Some(if declared { name } else { OTHER }))
}

/// Opens the span of request `id` (`None` when neither a subscriber nor
/// metrics want it). `target` is the `name` member of its params.
pub(crate) fn start(
    method: &str,
    id: &Value,
    target: Option<&str>,
    scope: &Scope,
) -> Option<RequestSpan> {
    let span = tracing::info_span!(
        target: crate::otel::TARGET,
        "mcp.request",
        otel.name = Empty,
        otel.kind = "server",
        mcp.method.name = method,
        mcp.protocol.version = &*scope.version,
        jsonrpc.request.id = Empty,
        mcp.session.id = Empty,
        gen_ai.operation.name = Empty,
        gen_ai.tool.name = Empty,
        gen_ai.prompt.name = Empty,
        error.type = Empty,
        rpc.response.status_code = Empty,
        otel.status_code = Empty,
        otel.status_description = Empty,
    );
    let timing = Timing::start(Side::Server, || labels(method, &scope.version, target));
    if span.is_disabled() {
        return timing.map(|timing| RequestSpan {
            span,
            timing: Some(timing),
        });
    }
    record_target(&span, method, target);
    span.record("jsonrpc.request.id", request_id(id).as_str());
    #[cfg(feature = "streamable-http")]
    let headers = Some(scope.extras.headers());
    #[cfg(not(feature = "streamable-http"))]
    let headers: Option<&http::HeaderMap> = None;
    if let Some(session) = headers
        .and_then(|h| h.get("mcp-session-id"))
        .and_then(|v| v.to_str().ok())
    {
        span.record("mcp.session.id", session);
    }
    if let Some(parent) = propagation::extract(scope.meta.as_deref(), headers) {
        // Fails only when no OpenTelemetry layer is in the subscriber.
        let _ = span.set_parent(parent);
    }
    Some(RequestSpan { span, timing })
}

impl RequestSpan {
    /// Handles the request inside the span: `handle` runs entered in it,
    /// a pending reply is polled in it, and the span ends with the reply.
    pub(crate) fn around(self, handle: impl FnOnce() -> Handled) -> Handled {
        let handled = self.span.in_scope(handle);
        match handled {
            Handled::Reply(reply) => {
                self.end(Some(&reply));
                Handled::Reply(reply)
            }
            Handled::Pending(pending) => {
                let span = self.span.clone();
                Handled::Pending(Pending::boxed(async move {
                    let reply = pending.instrument(span).await;
                    self.end(reply.as_ref());
                    reply
                }))
            }
            Handled::Nothing => {
                self.end(None);
                Handled::Nothing
            }
        }
    }

    /// Records how the request ended; `None`: no reply (cancelled).
    fn end(self, reply: Option<&Reply>) {
        let error = reply.and_then(outcome);
        let kind = error.as_ref().map(|e| match e.code {
            Some(code) => code.to_string(),
            None => "tool_error".to_owned(),
        });
        if let (Some(error), Some(kind)) = (&error, &kind) {
            if error.code.is_some() {
                self.span.record("rpc.response.status_code", kind.as_str());
            }
            record_failure(&self.span, kind, error.message.as_deref());
        }
        if let Some(timing) = self.timing {
            timing.record(kind.as_deref());
        }
    }
}

/// How a reply failed: a JSON-RPC error's code and message, or a tool
/// error (no code).
struct Failure {
    code: Option<i64>,
    message: Option<String>,
}

/// The longest status message a span gets from a tool error's text.
const MAX_MESSAGE_BYTES: usize = 1024;

/// The failure a reply carries, if any. Only an error's text is read
/// again, for its message: a JSON-RPC error's `message`, a tool error's
/// text blocks (at most [`MAX_MESSAGE_BYTES`]).
fn outcome(reply: &Reply) -> Option<Failure> {
    if let Some(code) = reply.error {
        let message = serde_json::from_str::<Value>(&reply.text)
            .ok()
            .and_then(|v| v.pointer("/error/message")?.as_str().map(str::to_owned));
        return Some(Failure {
            code: Some(code),
            message,
        });
    }
    if !reply.tool_error {
        return None;
    }
    let text = serde_json::from_str::<Value>(&reply.text).ok().map(|v| {
        let blocks = v.pointer("/result/content").and_then(Value::as_array);
        let texts: Vec<&str> = blocks
            .into_iter()
            .flatten()
            .filter_map(|b| b.get("text").and_then(Value::as_str))
            .collect();
        texts.join("\n")
    });
    Some(Failure {
        code: None,
        message: text.filter(|t| !t.is_empty()).map(|mut t| {
            if t.len() > MAX_MESSAGE_BYTES {
                let mut end = MAX_MESSAGE_BYTES;
                while !t.is_char_boundary(end) {
                    end -= 1;
                }
                t.truncate(end);
                t.push('…');
            }
            t
        }),
    })
}
