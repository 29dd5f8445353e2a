//! The audit log of tool calls, written through `tracing` under the target
//! `mcpgen::audit`: tool, caller, duration and outcome of every call, and the
//! argument values only when the server enables it (they may hold secrets).
//! Where it goes is the subscriber's choice; a stdio server must send it to
//! stderr or a file, never stdout.

use std::time::Duration;

use serde_json::Value;

/// The `tracing` target of audit events.
pub(crate) const TARGET: &str = "mcpgen::audit";

/// How a tool call ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Outcome {
    /// The handler succeeded and its result was sent.
    Success,
    /// The handler returned a tool error (`isError: true`).
    ToolError,
    /// The arguments failed validation or decoding.
    InvalidArguments,
    /// The access-control hook refused the call.
    Denied,
    /// The tool's rate limit refused the call.
    RateLimited,
    /// The client cancelled the call; nothing was sent.
    Cancelled,
    /// The handler panicked; an internal error was sent.
    Panicked,
    /// The handler's output violated `outputSchema`; an internal error was sent.
    InvalidOutput,
}

impl Outcome {
    /// Stable lower-case name, used as the `outcome` field.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Outcome::Success => "success",
            Outcome::ToolError => "tool_error",
            Outcome::InvalidArguments => "invalid_arguments",
            Outcome::Denied => "denied",
            Outcome::RateLimited => "rate_limited",
            Outcome::Cancelled => "cancelled",
            Outcome::Panicked => "panicked",
            Outcome::InvalidOutput => "invalid_output",
        }
    }
}

/// Whether audit events are recorded at all (a subscriber wants them):
/// when not, callers skip even reading the clock.
pub(crate) fn enabled() -> bool {
    tracing::enabled!(target: TARGET, tracing::Level::INFO)
}

/// Records one finished call.
pub(crate) fn record(
    tool: &str,
    client: Option<&str>,
    duration: Duration,
    outcome: Outcome,
    arguments: Option<&Value>,
) {
    let micros = u64::try_from(duration.as_micros()).unwrap_or(u64::MAX);
    let client = client.unwrap_or("-");
    let outcome = outcome.as_str();
    match arguments {
        Some(args) => tracing::info!(
            target: TARGET,
            tool,
            client,
            duration_us = micros,
            outcome,
            arguments = %args,
            "tool call"
        ),
        None => {
            tracing::info!(target: TARGET, tool, client, duration_us = micros, outcome, "tool call")
        }
    }
}
