//! Rate limits that hold across replicas: three replicas in this process,
//! each with its own server, its own `RedisStore` connection and its own
//! loopback listener, behind a real `nginx` round robin, keep a tool's
//! per-principal buckets in a real `redis-server`.
//!
//! - One principal gets its limit in all, wherever its calls land, and
//!   is told when to retry; another principal's calls are unaffected.
//! - With Redis gone, a limited call is refused (the limit is not lifted)
//!   with a clear answer, and a tool without a limit still works.

mod infra;

#[path = "../../../runtime/tests/support/mod.rs"]
mod support;

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use infra::{require, Nginx, Redis};
use mcpgen_runtime::http::{serve_with_shutdown, HttpConfig, HttpService, RedisStore};
use mcpgen_runtime::server::{BoxFuture, CallFailure, Dispatch, ToolOutput};
use mcpgen_runtime::server::{LimitScope, OnStoreError, RateLimit, ServerBuilder};
use mcpgen_runtime::{Principal, RequestContext};
use serde_json::{json, Value};
use support::{send, Request};

const MODERN: &str = "2026-07-28";

/// Five calls per principal per minute: no refill within the test.
const LIMIT: u32 = 5;

/// `ping` (limited) and `echo` (not) answer at once.
struct Tools;

impl Dispatch for Tools {
    fn call(
        &self,
        _index: usize,
        _args: Value,
        _ctx: RequestContext,
    ) -> BoxFuture<Result<ToolOutput, CallFailure>> {
        Box::pin(async { Ok(ToolOutput::Content(json!([{"type": "text", "text": "ok"}]))) })
    }
}

/// A replica whose callers are named by their `X-User` header.
async fn replica(url: &str) -> SocketAddr {
    let tools = json!([
        {"name": "ping", "inputSchema": {"type": "object"}},
        {"name": "echo", "inputSchema": {"type": "object"}}
    ]);
    let store = RedisStore::new(url)
        .expect("redis url")
        .prefix("limits:")
        .timeout(Duration::from_secs(2));
    let server = ServerBuilder::new(MODERN, tools, Arc::new(Tools))
        .rate_limit(
            "ping",
            RateLimit::per_minute(LIMIT).per(LimitScope::Principal),
        )
        .rate_limit_store(store, OnStoreError::Refuse)
        .build()
        .expect("server builds");
    let config = HttpConfig::default().authenticate(|parts| {
        Ok(parts
            .headers
            .get("x-user")
            .and_then(|v| v.to_str().ok())
            .map(|user| Principal {
                subject: user.to_owned(),
                ..Principal::default()
            }))
    });
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let service = HttpService::new(server, config);
    tokio::spawn(async move {
        serve_with_shutdown(listener, service, "/mcp", std::future::pending()).await
    });
    addr
}

/// Calls `tool` as `user` through `addr`: its text and whether it failed.
async fn call(addr: SocketAddr, user: &str, tool: &str) -> (String, bool) {
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": tool, "arguments": {}, "_meta": {
            "io.modelcontextprotocol/protocolVersion": MODERN,
            "io.modelcontextprotocol/clientCapabilities": {}}}});
    let request = Request::post(&body)
        .header("MCP-Protocol-Version", MODERN)
        .header("Mcp-Method", "tools/call")
        .header("Mcp-Name", tool)
        .header("X-User", user);
    let response = send(addr, &request).await;
    assert_eq!(response.status(), 200, "{}", response.text());
    let result = response.json()["result"].clone();
    let text = result["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("a text result: {result}"))
        .to_owned();
    (text, result["isError"] == true)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_principals_limit_holds_across_replicas_and_fails_closed_without_redis() {
    let (Some(redis_bin), Some(nginx_bin)) = (require("redis-server"), require("nginx")) else {
        return;
    };
    let redis = Redis::start(&redis_bin);
    let replicas = [
        replica(&redis.url).await,
        replica(&redis.url).await,
        replica(&redis.url).await,
    ];
    let upstreams: Vec<String> = replicas.iter().map(SocketAddr::to_string).collect();
    let upstreams: Vec<&str> = upstreams.iter().map(String::as_str).collect();
    let nginx = Nginx::start(&nginx_bin, &upstreams);
    let front: SocketAddr = nginx
        .url
        .trim_start_matches("http://")
        .trim_end_matches("/mcp")
        .parse()
        .expect("nginx's address");

    // Alice: 15 calls round robin over three replicas, LIMIT pass.
    let mut passed = 0;
    for n in 0..15 {
        let (text, failed) = call(front, "alice", "ping").await;
        if failed {
            assert!(
                text.contains("Rate limit exceeded for tool ping") && text.contains("retry in"),
                "call {n}: {text}"
            );
        } else {
            passed += 1;
        }
    }
    assert_eq!(passed, LIMIT, "alice's limit, counted across the replicas");
    // Bob has a bucket of his own, on every replica.
    for replica in replicas {
        assert_eq!(call(replica, "bob", "ping").await, ("ok".to_owned(), false));
    }

    // Redis gone: limited calls are refused, and say why; others work.
    drop(redis);
    let (text, failed) = call(front, "carol", "ping").await;
    assert!(
        failed,
        "a limit that cannot be checked is not lifted: {text}"
    );
    assert!(text.contains("cannot be checked now"), "{text}");
    assert_eq!(call(front, "carol", "echo").await, ("ok".to_owned(), false));
}
