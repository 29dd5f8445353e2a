//! The fixtures of the `tasks-*` scenarios (the tasks extension): tools
//! that take a while, fail either way, or ask the client for input
//! through their task, and one that gathers input in a multi round-trip
//! before it becomes a task.

use std::time::Duration;

use mcpgen_runtime::{Elicitation, PeerError, RequestContext, ToolError};
use serde_json::{json, Value};

/// `{"type":"object","properties":{NAME:{"type":TYPE}},"required":[NAME]}`.
fn one_field(name: &str, kind: &str) -> Value {
    json!({"type": "object", "properties": {name: {"type": kind}}, "required": [name]})
}

/// Asks for a form under `key`: through the task when the call has one,
/// through the request otherwise.
async fn ask(
    ctx: &RequestContext,
    key: &str,
    message: &str,
    schema: Value,
) -> Result<Elicitation<Value>, PeerError> {
    match ctx.task() {
        Some(task) => task.elicit_with(key, message, schema).await,
        None => ctx.keyed(key).elicit_with(message, schema).await,
    }
}

/// `slow_compute`: sleeps, then reports.
pub async fn slow_compute(ctx: &RequestContext, seconds: f64, label: Option<&str>) -> String {
    if seconds > 0.0 {
        if let Some(task) = ctx.task() {
            task.start().await;
            task.status(&format!("computing for {seconds} s")).await;
        }
        tokio::time::sleep(Duration::from_secs_f64(seconds.min(3600.0))).await;
    }
    format!(
        "Computed {} after {seconds} s",
        label.unwrap_or("(no label)")
    )
}

/// `failing_job`: a tool error after a second.
pub async fn failing_job() -> ToolError {
    tokio::time::sleep(Duration::from_secs(1)).await;
    ToolError::new("failing_job failed on purpose")
}

/// `protocol_error_job`: panics after a moment (the engine answers a
/// panic with an internal error, which fails the task).
pub async fn protocol_error_job() -> String {
    tokio::time::sleep(Duration::from_millis(200)).await;
    panic!("protocol_error_job fails on purpose")
}

/// `confirm_delete`: one confirmation.
pub async fn confirm_delete(ctx: &RequestContext, filename: &str) -> Result<String, PeerError> {
    let answer = ask(
        ctx,
        "confirm",
        &format!("Delete {filename}?"),
        one_field("confirm", "boolean"),
    )
    .await?;
    let confirmed = answer.accepted().is_some_and(|c| c["confirm"] == true);
    Ok(if confirmed {
        format!("Deleted {filename}")
    } else {
        format!("Kept {filename}")
    })
}

/// `multi_input`: two questions at once.
pub async fn multi_input(ctx: &RequestContext) -> Result<String, PeerError> {
    let (name, confirm) = tokio::join!(
        ask(
            ctx,
            "name",
            "What is your name?",
            one_field("name", "string")
        ),
        ask(ctx, "confirm", "Proceed?", one_field("confirm", "boolean")),
    );
    let name = name?
        .accepted()
        .and_then(|c| c["name"].as_str().map(str::to_owned))
        .unwrap_or_default();
    Ok(format!("{name}: {}", confirm?.action()))
}

/// `test_tool_with_task`: the user's name in a multi round-trip, then the
/// rest of the work as a task.
pub async fn greet_later(ctx: &RequestContext) -> Result<String, PeerError> {
    let answer: Elicitation<Value> = ctx
        .keyed("user_name")
        .elicit_with("What is your name?", one_field("name", "string"))
        .await?;
    let name = answer
        .accepted()
        .and_then(|c| c["name"].as_str().map(str::to_owned))
        .unwrap_or_else(|| "stranger".into());
    if let Some(task) = ctx.task() {
        task.start().await;
    }
    tokio::time::sleep(Duration::from_millis(100)).await;
    Ok(format!("Hello, {name}! (greeted by a task)"))
}
