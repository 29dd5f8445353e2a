//! The client's span for each request (feature `otel`, see
//! [`crate::otel`]): a child of the caller's current span, its context sent
//! in the request's `_meta` (`traceparent`, `tracestate`) so that the
//! server's span continues the trace; closed with the outcome (a JSON-RPC
//! error's code, `tool_error` for an `isError` result, or what ended the
//! wait), its duration recorded as a metric.

use std::future::Future;

use opentelemetry::KeyValue;
use serde_json::{json, Value};
use tracing::field::Empty;
use tracing::Instrument;
use tracing_opentelemetry::OpenTelemetrySpanExt;

use crate::client::error::ClientError;
use crate::otel::metrics::{Side, Timing};
use crate::otel::{propagation, record_failure, record_target, target_label};

/// One request's span and measurement (either may be off).
pub(crate) struct ClientSpan {
    span: tracing::Span,
    timing: Option<Timing>,
}

/// A request's labels on the duration metric.
fn labels(method: &str, target: Option<&str>) -> Vec<KeyValue> {
    let mut labels = vec![KeyValue::new("mcp.method.name", method.to_owned())];
    labels.extend(target_label(method, target));
    labels
}

/// Opens the span of a request about to be sent and writes its context
/// into the params' `_meta`; `None` (params untouched) when neither a
/// subscriber nor metrics want it.
pub(crate) fn start(method: &str, params: Option<Value>) -> (Option<ClientSpan>, Option<Value>) {
    let target = params
        .as_ref()
        .and_then(|p| p.get("name"))
        .and_then(Value::as_str);
    let span = tracing::info_span!(
        target: crate::otel::TARGET,
        "mcp.request",
        otel.name = Empty,
        otel.kind = "client",
        mcp.method.name = method,
        jsonrpc.request.id = Empty,
        gen_ai.operation.name = Empty,
        gen_ai.tool.name = Empty,
        gen_ai.prompt.name = Empty,
        error.type = Empty,
        rpc.response.status_code = Empty,
        otel.status_code = Empty,
        otel.status_description = Empty,
    );
    let timing = Timing::start(Side::Client, || labels(method, target));
    if span.is_disabled() {
        return (
            timing.map(|timing| ClientSpan {
                span,
                timing: Some(timing),
            }),
            params,
        );
    }
    record_target(&span, method, target);
    let mut params = params.unwrap_or_else(|| json!({}));
    if let Some(members) = params.as_object_mut() {
        let meta = members.entry("_meta").or_insert_with(|| json!({}));
        if let Some(meta) = meta.as_object_mut() {
            propagation::inject(&span.context(), meta);
        }
    }
    (Some(ClientSpan { span, timing }), Some(params))
}

impl ClientSpan {
    /// Names the request's id once it has one.
    pub(crate) fn sent_as(&self, id: i64) {
        self.span
            .record("jsonrpc.request.id", id.to_string().as_str());
    }

    /// Waits for the answer inside the span, then closes it.
    pub(crate) async fn around(
        self,
        answer: impl Future<Output = Result<Value, ClientError>>,
    ) -> Result<Value, ClientError> {
        let result = answer.instrument(self.span.clone()).await;
        self.end(&result);
        result
    }

    fn end(self, result: &Result<Value, ClientError>) {
        let error = match result {
            Ok(value) if value.get("isError") == Some(&Value::Bool(true)) => {
                Some(("tool_error".to_owned(), None))
            }
            Ok(_) => None,
            Err(ClientError::Protocol { code, message, .. }) => {
                let code = code.to_string();
                self.span.record("rpc.response.status_code", code.as_str());
                Some((code, Some(message.clone())))
            }
            Err(other) => Some((kind(other).to_owned(), Some(other.to_string()))),
        };
        if let Some((kind, message)) = &error {
            record_failure(&self.span, kind, message.as_deref());
        }
        if let Some(timing) = self.timing {
            timing.record(error.as_ref().map(|(kind, _)| kind.as_str()));
        }
    }
}

/// `error.type` of a request that got no JSON-RPC answer.
fn kind(error: &ClientError) -> &'static str {
    match error {
        ClientError::Timeout { .. } => "timeout",
        ClientError::Closed { .. } => "closed",
        ClientError::Io(_) => "io",
        ClientError::Connect(_) => "connect",
        ClientError::Garbage { .. } => "garbage",
        _ => "other",
    }
}
