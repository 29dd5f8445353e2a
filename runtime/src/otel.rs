//! OpenTelemetry (feature `otel`): traces that cross the client–server
//! boundary, and request durations as metrics.
//!
//! - The server opens one span per request, named and
//!   attributed as the MCP semantic conventions and the official Python SDK
//!   name them (`mcp.method.name`, `mcp.protocol.version`,
//!   `jsonrpc.request.id`, `mcp.session.id`, `gen_ai.operation.name`,
//!   `gen_ai.tool.name`, `gen_ai.prompt.name`, `error.type`,
//!   `rpc.response.status_code`), continuing the caller's trace from the
//!   W3C trace context in the request's `_meta` (`traceparent`,
//!   `tracestate`), or from the HTTP `traceparent` header when `_meta` has
//!   none. A handler's own `tracing` spans and events nest under it.
//! - The client opens one span per request and sends its
//!   context in the request's `_meta`, so the server's span is its child.
//! - Both record how long requests took (`mcp.server.operation.duration`,
//!   `mcp.client.operation.duration`, in seconds; the count per
//!   `gen_ai.tool.name` is the number of calls of each tool) once
//!   [`enable_metrics`] was called or a [`Telemetry`] installed.
//!
//! The spans are `tracing` spans (target `mcpgen::otel`), made
//! OpenTelemetry spans by a `tracing_opentelemetry` layer in the
//! subscriber: [`Telemetry::otlp`] builds one exporting over OTLP/HTTP,
//! or bring your own. Without such a subscriber the spans are disabled and
//! cost a check each.

pub(crate) mod metrics;
pub(crate) mod propagation;
mod telemetry;

pub use metrics::enable_metrics;
pub use telemetry::{Telemetry, TelemetryError};

use crate::revision::method::{Method, Target};

/// The `tracing` target of the request spans.
pub const TARGET: &str = "mcpgen::otel";

/// How JSON-RPC ids read as `jsonrpc.request.id`: a string as it is, a
/// number as its digits.
pub(crate) fn request_id(id: &serde_json::Value) -> String {
    match id {
        serde_json::Value::String(s) => s.clone(),
        other => crate::jsonrpc::json_text(other),
    }
}

/// What telemetry records in place of a method the server does not
/// answer, or a tool or prompt it does not declare (OpenTelemetry's
/// convention for values outside a known set): what a client sends can
/// then create neither span names nor metric series.
pub const OTHER: &str = "_OTHER";

/// A span's name: the method and, when the request names one, its target
/// (the tool or prompt); a target outside the declared ones ([`OTHER`])
/// leaves the method alone.
pub(crate) fn span_name(method: &str, target: Option<&str>) -> String {
    match target {
        Some(target) if target != OTHER => format!("{method} {target}"),
        _ => method.to_owned(),
    }
}

/// The attribute that names what a request is about, for the methods that
/// name one: the tool of `tools/call`, the prompt of `prompts/get`.
pub(crate) fn target_key(method: &str) -> Option<&'static str> {
    match Method::of(method)?.target()? {
        Target::Tool => Some("gen_ai.tool.name"),
        Target::Prompt => Some("gen_ai.prompt.name"),
        _ => None,
    }
}

/// Names a request's span after its method and target, and records what
/// it is about (`gen_ai.operation.name`, `gen_ai.tool.name`,
/// `gen_ai.prompt.name`).
pub(crate) fn record_target(span: &tracing::Span, method: &str, target: Option<&str>) {
    span.record("otel.name", span_name(method, target).as_str());
    if Method::of(method) == Some(Method::ToolsCall) {
        span.record("gen_ai.operation.name", "execute_tool");
    }
    if let (Some(key), Some(target)) = (target_key(method), target) {
        span.record(key, target);
    }
}

/// The duration metric's label for a request's target, if it has one.
pub(crate) fn target_label(method: &str, target: Option<&str>) -> Option<opentelemetry::KeyValue> {
    Some(opentelemetry::KeyValue::new(
        target_key(method)?,
        target?.to_owned(),
    ))
}

/// Marks a request's span as failed: `error.type`, and the status with
/// its description when there is one.
pub(crate) fn record_failure(span: &tracing::Span, kind: &str, message: Option<&str>) {
    span.record("error.type", kind);
    span.record("otel.status_code", "error");
    if let Some(message) = message {
        span.record("otel.status_description", message);
    }
}
