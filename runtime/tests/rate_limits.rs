//! A tool's rate limit in the server engine, by scope: one bucket for
//! every caller, one per principal, one per stateful session (a stateless
//! request counting as its principal's); a refusal says when to retry.
//! (Buckets shared by replicas through Redis:
//! `examples/weather-server/tests/replica_limits.rs`.)

use std::sync::Arc;

use mcpgen_runtime::server::{BoxFuture, CallFailure, Dispatch, ToolOutput};
use mcpgen_runtime::server::{LimitScope, RateLimit, ServerBuilder};
use mcpgen_runtime::{Principal, RequestContext, Server, Session, Sink};
use serde_json::{json, Value};

struct Runs;

impl Dispatch for Runs {
    fn call(
        &self,
        _index: usize,
        _args: Value,
        _ctx: RequestContext,
    ) -> BoxFuture<Result<ToolOutput, CallFailure>> {
        Box::pin(async { Ok(ToolOutput::Content(json!([{"type": "text", "text": "ok"}]))) })
    }
}

/// A server whose `t` allows two calls a minute per `scope`.
fn server(scope: LimitScope) -> Server {
    let tools = json!([{"name": "t", "inputSchema": {"type": "object"}}]);
    ServerBuilder::new("2025-11-25", tools, Arc::new(Runs))
        .rate_limit("t", RateLimit::per_minute(2).per(scope))
        .build()
        .unwrap()
}

/// An initialized 2025-11-25 session.
async fn session(server: &Server) -> Session {
    let session = server.session();
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}});
    let none = Arc::new(http::Extensions::new());
    server
        .handle_text(&session, &init.to_string(), &Sink::discard(), &none)
        .into_reply()
        .await;
    session
}

/// Calls `t` in `session` as `who` (no principal for `None`): whether it ran.
async fn call(server: &Server, session: &Session, who: Option<&str>) -> bool {
    let mut extensions = http::Extensions::new();
    if let Some(who) = who {
        extensions.insert(Principal {
            subject: who.into(),
            ..Principal::default()
        });
    }
    let request = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "t", "arguments": {}}});
    let reply = server
        .handle_text(
            session,
            &request.to_string(),
            &Sink::discard(),
            &Arc::new(extensions),
        )
        .into_reply()
        .await
        .expect("a reply");
    let reply: Value = serde_json::from_str(&reply.text).unwrap();
    let result = &reply["result"];
    if result["isError"] == true {
        let text = result["content"][0]["text"].as_str().unwrap_or_default();
        assert!(
            text.contains("Rate limit exceeded for tool t") && text.contains("retry in"),
            "{text}"
        );
        return false;
    }
    true
}

#[tokio::test]
async fn a_global_limit_is_shared_by_every_caller() {
    let server = server(LimitScope::Global);
    let (a, b) = (session(&server).await, session(&server).await);
    assert!(call(&server, &a, Some("alice")).await);
    assert!(call(&server, &b, Some("bob")).await);
    assert!(!call(&server, &a, Some("carol")).await);
}

#[tokio::test]
async fn a_principal_limit_gives_each_principal_a_bucket() {
    let server = server(LimitScope::Principal);
    let (a, b) = (session(&server).await, session(&server).await);
    // Alice's calls count together, whatever the session.
    assert!(call(&server, &a, Some("alice")).await);
    assert!(call(&server, &b, Some("alice")).await);
    assert!(!call(&server, &a, Some("alice")).await);
    assert!(call(&server, &a, Some("bob")).await);
    // Callers without a principal share one bucket.
    assert!(call(&server, &a, None).await);
    assert!(call(&server, &b, None).await);
    assert!(!call(&server, &a, None).await);
}

#[tokio::test]
async fn a_session_limit_gives_each_session_a_bucket() {
    let server = server(LimitScope::Session);
    let (a, b) = (session(&server).await, session(&server).await);
    assert!(call(&server, &a, Some("alice")).await);
    assert!(call(&server, &a, Some("alice")).await);
    assert!(!call(&server, &a, Some("alice")).await);
    assert!(call(&server, &b, Some("alice")).await, "another session");
}
