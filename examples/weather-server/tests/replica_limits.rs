//! Rate limits that hold across replicas, as shipped: three
//! `weather-server --http … --session-store redis://…` processes (the
//! example binary, bearer tokens required as `MCP_AUTH_*` configures it)
//! behind nginx with the shipped `deploy/nginx/weather-mcp.conf`, one real
//! `redis-server`. The manifest limits `get_alerts` to 5 calls a minute
//! per caller and `watch_radar` to 30 a minute in all.
//!
//! - A caller gets exactly its limit across the three replicas, wherever
//!   its calls land, and each refusal says when to retry (in the text and
//!   as `_meta["mcpgen/retryAfterMs"]`); another caller has a bucket of its
//!   own on every replica.
//! - The global limit admits exactly 30 calls of all callers together.
//! - With Redis gone, limited calls are refused with a clear message (a
//!   limit that cannot be checked is not lifted) and unlimited ones served.

mod infra;

use infra::tokens::key_server;
use infra::{http, require, Nginx, Redis, Replica};
use serde_json::{json, Value};

const MODERN: &str = "2026-07-28";
/// The resource the replicas serve (tokens must name it in `aud`).
const RESOURCE: &str = "https://weather.example/mcp";

/// A tool call's answer: its text, whether it failed, and its `_meta`.
struct Answer {
    text: String,
    failed: bool,
    meta: Value,
}

/// Calls `tool` with `arguments` at `addr` (a replica or nginx) with
/// `bearer`'s token.
fn call(addr: &str, bearer: &str, tool: &str, arguments: Value) -> Answer {
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": tool, "arguments": arguments, "_meta": {
            "io.modelcontextprotocol/protocolVersion": MODERN,
            "io.modelcontextprotocol/clientCapabilities": {}}}})
    .to_string();
    let authorization = format!("Bearer {bearer}");
    let headers = [
        ("Content-Type", "application/json"),
        ("Accept", "application/json, text/event-stream"),
        ("MCP-Protocol-Version", MODERN),
        ("Mcp-Method", "tools/call"),
        ("Mcp-Name", tool),
        ("Authorization", authorization.as_str()),
    ];
    let (status, text) = http(addr, "POST", "/mcp", &headers, &body);
    assert_eq!(status, 200, "{tool} at {addr}: {text}");
    // One JSON message, whatever framing carried it (a body, a chunk or
    // an SSE event).
    let json = text
        .find('{')
        .zip(text.rfind('}'))
        .and_then(|(from, to)| serde_json::from_str::<Value>(&text[from..=to]).ok())
        .unwrap_or_else(|| panic!("{tool} at {addr}: no JSON answer in {text:?}"));
    let result = &json["result"];
    Answer {
        text: result["content"][0]["text"]
            .as_str()
            .unwrap_or_else(|| panic!("a text result: {json}"))
            .to_owned(),
        failed: result["isError"] == true,
        meta: result["_meta"].clone(),
    }
}

/// Checks a refusal over the limit: the declared limit, the wait in
/// seconds, and the same wait in `_meta`.
fn assert_refused(answer: &Answer, tool: &str, limit: &str) {
    assert!(
        answer.failed,
        "{tool} is refused over its limit: {}",
        answer.text
    );
    let wait = answer.meta["mcpgen/retryAfterMs"]
        .as_u64()
        .unwrap_or_else(|| panic!("{tool}: no mcpgen/retryAfterMs in {}", answer.meta));
    assert!(wait > 0 && wait <= 60_000, "{wait}");
    let said = format!("Rate limit exceeded for tool {tool} (limited to {limit}); retry in ");
    assert!(
        answer.text.starts_with(&said) && answer.text.ends_with(" s"),
        "{}",
        answer.text
    );
}

#[test]
fn the_shipped_servers_limits_hold_across_replicas_and_fail_closed_without_redis() {
    let (Some(redis_bin), Some(nginx_bin)) = (require("redis-server"), require("nginx")) else {
        return;
    };
    let mut redis = Redis::start(&redis_bin);
    let issuer = key_server();
    let jwks = format!("{issuer}/jwks");
    let vars = [
        ("MCP_RESOURCE_URL", RESOURCE),
        ("MCP_AUTH_ISSUER", issuer.as_str()),
        ("MCP_AUTH_JWKS_URI", jwks.as_str()),
    ];
    let store = ["--session-store", redis.url.as_str()];
    let replicas: Vec<Replica> = (0..3)
        .map(|_| Replica::start_with_env(&store, &vars))
        .collect();
    let upstreams: Vec<&str> = replicas.iter().map(|r| r.addr.as_str()).collect();
    let nginx = Nginx::start(&nginx_bin, &upstreams);
    let front = nginx
        .url
        .trim_start_matches("http://")
        .trim_end_matches("/mcp")
        .to_owned();
    let [alice, bob, carol] =
        ["alice", "bob", "carol"].map(|who| infra::tokens::token(&issuer, RESOURCE, who, 600));
    let region = || json!({ "region": "North Sea" });

    // Alice: 15 calls round robin over the three replicas, 5 pass.
    let mut passed = 0;
    for _ in 0..15 {
        let answer = call(&front, &alice, "get_alerts", region());
        if answer.failed {
            assert_refused(&answer, "get_alerts", "5 calls per 60 s per principal");
        } else {
            passed += 1;
        }
    }
    assert_eq!(passed, 5, "alice's limit, counted across the replicas");
    for replica in &replicas {
        assert!(
            replica.calls_served() >= 5,
            "nginx spreads the calls:\n{}",
            replica.stderr()
        );
    }
    // Bob has a bucket of his own, on every replica.
    for replica in &replicas {
        let answer = call(&replica.addr, &bob, "get_alerts", region());
        assert!(
            !answer.failed,
            "bob is not limited by alice's calls: {}",
            answer.text
        );
    }

    // The global limit: 30 scans a minute of all callers together.
    let scan = || json!({ "steps": 1, "step_ms": 0 });
    let mut scanned = 0;
    for n in 0..40 {
        let who = [&alice, &bob, &carol][n % 3];
        let answer = call(&front, who, "watch_radar", scan());
        if answer.failed {
            assert_refused(&answer, "watch_radar", "30 calls per 60 s");
        } else {
            scanned += 1;
        }
    }
    assert_eq!(
        scanned, 30,
        "the global limit, counted across callers and replicas"
    );

    // Redis gone: limited calls are refused, and say why; others work.
    redis.process.kill();
    for replica in &replicas {
        let answer = call(&replica.addr, &carol, "get_alerts", region());
        assert!(
            answer.failed,
            "a limit that cannot be checked is not lifted: {}",
            answer.text
        );
        assert!(
            answer
                .text
                .starts_with("Rate limit of tool get_alerts cannot be checked now"),
            "{}",
            answer.text
        );
        let answer = call(
            &replica.addr,
            &carol,
            "convert_temperature",
            json!({ "value": 20.0, "from": "celsius", "to": "kelvin" }),
        );
        assert!(
            !answer.failed,
            "a tool without a limit is served: {}",
            answer.text
        );
    }
    for replica in &replicas {
        assert!(!replica.panicked(), "{}", replica.stderr());
        assert!(
            replica.stderr().contains("the rate limit store failed"),
            "the replica logs why it refused:\n{}",
            replica.stderr()
        );
    }
}
