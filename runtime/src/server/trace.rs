//! The server's span for each request (feature `otel`, see
//! [`crate::otel`]): opened once the request's scope is known, continuing
//! the caller's trace, entered while the request is handled inline and
//! around its pending future, and closed with the outcome: `error.type`
//! and `rpc.response.status_code` for a JSON-RPC error, `error.type =
//! tool_error` for a tool's `isError` result; its duration recorded as a
//! metric.

use opentelemetry::KeyValue;
use serde_json::Value;
use tracing::field::Empty;
use tracing::Instrument;
use tracing_opentelemetry::OpenTelemetrySpanExt;

use crate::otel::metrics::{Side, Timing};
use crate::otel::{propagation, record_failure, record_target, request_id, target_label};
use crate::server::handled::{Handled, Pending};
use crate::server::reply::Reply;
use crate::server::scope::Scope;

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

/// The failure a reply carries, if any. Only an error's text is read
/// again, for its message.
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
    reply.tool_error.then_some(Failure {
        code: None,
        message: None,
    })
}
