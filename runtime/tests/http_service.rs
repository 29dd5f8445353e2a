//! The Streamable HTTP service over real loopback connections: a server
//! built with `ServerBuilder` and a hand-written `Dispatch`, served by
//! `server::http::serve_with_shutdown` on 127.0.0.1:0, talked to by the raw
//! HTTP/1.1 client in `support`. Each test asserts what clients rely on:
//! statuses, headers, JSON-RPC error codes and SSE framing, in both eras.

mod support;

use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use mcpgen_runtime::server::http::{serve_with_shutdown, AuthRejection, HttpConfig, HttpService};
use mcpgen_runtime::server::ServerBuilder;
use mcpgen_runtime::server::{BoxFuture, CallFailure, Dispatch, ToolOutput};
use mcpgen_runtime::{CancellationToken, LogLevel, Principal, RequestContext};
use serde_json::{json, Value};
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

use support::{base64, eventually, send, within, Conn, Event, Request, Response};

const MODERN: &str = "2026-07-28";
const LEGACY: &str = "2025-11-25";

fn tools() -> Value {
    json!([
        {
            "name": "quick",
            "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]},
            "outputSchema": {
                "type": "object",
                "properties": {"echo": {"type": "string"}, "principal": {"type": ["string", "null"]}},
                "required": ["echo", "principal"]
            }
        },
        {"name": "wait", "inputSchema": {"type": "object"}},
        {"name": "progress", "inputSchema": {"type": "object", "properties": {"hold": {"type": "boolean"}}}},
        {
            "name": "route",
            "inputSchema": {
                "type": "object",
                "properties": {
                    "region": {"type": "string", "x-mcp-header": "Region"},
                    "priority": {"type": "integer", "x-mcp-header": "Priority"}
                },
                "required": ["region"]
            }
        },
        {"name": "chatty", "inputSchema": {"type": "object", "properties": {"later": {"type": "boolean"}}}}
    ])
}

/// What the handlers and hooks observed.
#[derive(Default)]
struct Probe {
    /// Calls of `wait` (and of `progress` with `hold`) that started.
    started: AtomicUsize,
    /// Such calls that ended because their future was dropped while the
    /// request's cancellation token was not tripped (the transport gave up
    /// on them: a closed stream or connection).
    dropped: AtomicUsize,
    /// Such calls that ended with their token tripped (a
    /// `notifications/cancelled`, a deleted session).
    token_cancelled: AtomicUsize,
    /// The principal the access-control hook saw, per call.
    access: Mutex<Vec<Option<String>>>,
    /// The client name the access-control hook saw, per call.
    clients: Mutex<Vec<Option<String>>>,
}

impl Probe {
    fn started(&self) -> usize {
        self.started.load(Ordering::SeqCst)
    }

    fn dropped(&self) -> usize {
        self.dropped.load(Ordering::SeqCst)
    }

    fn token_cancelled(&self) -> usize {
        self.token_cancelled.load(Ordering::SeqCst)
    }
}

/// Counts how a held call ended when its future is dropped unfinished.
struct HoldGuard {
    probe: Arc<Probe>,
    token: CancellationToken,
}

impl Drop for HoldGuard {
    fn drop(&mut self) {
        if self.token.is_cancelled() {
            self.probe.token_cancelled.fetch_add(1, Ordering::SeqCst);
        } else {
            self.probe.dropped.fetch_add(1, Ordering::SeqCst);
        }
    }
}

/// Waits until the call is cancelled; the guard records how it ended.
async fn hold(probe: Arc<Probe>, ctx: &RequestContext) {
    let _guard = HoldGuard {
        probe: Arc::clone(&probe),
        token: ctx.cancellation().clone(),
    };
    probe.started.fetch_add(1, Ordering::SeqCst);
    ctx.cancelled().await;
    // The engine drops a cancelled call rather than polling it again, so
    // this point is normally not reached; the guard counts either way.
    std::future::pending::<()>().await;
}

struct Handlers {
    probe: Arc<Probe>,
}

impl Dispatch for Handlers {
    fn call(
        &self,
        index: usize,
        args: Value,
        ctx: RequestContext,
    ) -> BoxFuture<Result<ToolOutput, CallFailure>> {
        let probe = Arc::clone(&self.probe);
        Box::pin(async move {
            match index {
                0 => {
                    let principal = ctx.principal().map(|p| p.subject.clone());
                    Ok(ToolOutput::Structured(
                        json!({"echo": args["text"], "principal": principal}),
                    ))
                }
                1 => {
                    hold(probe, &ctx).await;
                    Ok(ToolOutput::Content(json!([])))
                }
                2 => {
                    ctx.progress(1.0, Some(2.0), Some("half")).await;
                    if args["hold"] == true {
                        hold(probe, &ctx).await;
                    }
                    ctx.progress(2.0, Some(2.0), Some("done")).await;
                    Ok(ToolOutput::Content(
                        json!([{"type": "text", "text": "progressed"}]),
                    ))
                }
                3 => {
                    let text = format!("routed to {} at {}", args["region"], args["priority"]);
                    Ok(ToolOutput::Content(json!([{"type": "text", "text": text}])))
                }
                _ => {
                    // Logs, then answers: at once, or after giving way once
                    // (so the call is not over at its first poll).
                    if args["later"] == true {
                        tokio::task::yield_now().await;
                    }
                    ctx.log(LogLevel::Info, json!("first"), None).await;
                    ctx.log(LogLevel::Info, json!("second"), None).await;
                    Ok(ToolOutput::Content(
                        json!([{"type": "text", "text": "chatted"}]),
                    ))
                }
            }
        })
    }
}

/// A running server; dropping it shuts the server down.
struct Harness {
    addr: SocketAddr,
    probe: Arc<Probe>,
    stop: Option<oneshot::Sender<()>>,
    served: Option<JoinHandle<std::io::Result<()>>>,
}

impl Drop for Harness {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
    }
}

impl Harness {
    async fn send(&self, request: &Request) -> Response {
        send(self.addr, request).await
    }

    async fn conn(&self) -> Conn {
        Conn::open(self.addr).await
    }

    /// Triggers the shutdown future and waits for `serve_with_shutdown` to return.
    async fn shutdown(mut self) -> std::io::Result<()> {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        let served = self.served.take().expect("served once");
        within(
            "serve_with_shutdown returns after the shutdown future",
            served,
        )
        .await
        .expect("the serve task panicked")
    }
}

async fn start(config: HttpConfig) -> Harness {
    let probe = Arc::new(Probe::default());
    let seen = Arc::clone(&probe);
    let server = ServerBuilder::new(
        LEGACY,
        tools(),
        Arc::new(Handlers {
            probe: Arc::clone(&probe),
        }),
    )
    .server_info(json!({"name": "http-test", "version": "1.2.3"}))
    .access_control(move |call| {
        let principal = call
            .extensions
            .get::<Principal>()
            .map(|p| p.subject.clone());
        seen.access.lock().unwrap().push(principal);
        seen.clients
            .lock()
            .unwrap()
            .push(call.client.and_then(|c| c.name()).map(str::to_owned));
        Ok(())
    })
    .build()
    .expect("the test server builds");
    let service = HttpService::new(server, config);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind 127.0.0.1:0");
    let addr = listener.local_addr().unwrap();
    let (stop, stopped) = oneshot::channel::<()>();
    let served = tokio::spawn(async move {
        serve_with_shutdown(listener, service, "/mcp", async move {
            let _ = stopped.await;
        })
        .await
    });
    Harness {
        addr,
        probe,
        stop: Some(stop),
        served: Some(served),
    }
}

// ---------------------------------------------------------------------------
// Request builders

fn modern_meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "http-test-client", "version": "0.1"}
    })
}

/// A stateless request: the members of [`modern_meta`] that `params._meta`
/// lacks filled in, and the mirrored headers set from the body.
fn modern(id: i64, method: &str, mut params: Value) -> Request {
    let meta = params
        .as_object_mut()
        .expect("params object")
        .entry("_meta")
        .or_insert_with(|| json!({}));
    for (key, value) in modern_meta().as_object().unwrap() {
        meta.as_object_mut()
            .unwrap()
            .entry(key.clone())
            .or_insert_with(|| value.clone());
    }
    as_sent(id, method, params)
}

/// A stateless request with `params` exactly as given and the mirrored
/// headers set from the body (`MCP-Protocol-Version` from `_meta`, else
/// 2026-07-28; `Mcp-Method`; `Mcp-Name` from `name` or `uri`).
fn as_sent(id: i64, method: &str, params: Value) -> Request {
    let version = params
        .pointer("/_meta/io.modelcontextprotocol~1protocolVersion")
        .and_then(Value::as_str)
        .unwrap_or(MODERN)
        .to_owned();
    let name = params
        .get("name")
        .or_else(|| params.get("uri"))
        .and_then(Value::as_str)
        .map(str::to_owned);
    let mut request =
        Request::post(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
            .header("MCP-Protocol-Version", &version)
            .header("Mcp-Method", method);
    if let Some(name) = name {
        request = request.header("Mcp-Name", &name);
    }
    request
}

fn call(id: i64, tool: &str, arguments: Value) -> Request {
    modern(
        id,
        "tools/call",
        json!({"name": tool, "arguments": arguments}),
    )
}

/// A request of a stateful session.
fn legacy(session: &str, id: i64, method: &str, params: Value) -> Request {
    Request::post(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
        .header("Mcp-Session-Id", session)
        .header("MCP-Protocol-Version", LEGACY)
}

fn initialize_request() -> Request {
    Request::post(&json!({
        "jsonrpc": "2.0",
        "id": 0,
        "method": "initialize",
        "params": {"protocolVersion": LEGACY, "capabilities": {}, "clientInfo": {"name": "legacy-client", "version": "1"}}
    }))
}

/// Runs `initialize` and `notifications/initialized`; the session id.
async fn open_session(h: &Harness, extra: &[(&str, &str)]) -> String {
    let mut request = initialize_request();
    for (name, value) in extra {
        request = request.header(name, value);
    }
    let r = h.send(&request).await;
    assert_eq!(r.status(), 200, "initialize: {}", r.text());
    assert_eq!(r.json()["result"]["protocolVersion"], LEGACY);
    let id = r
        .header("mcp-session-id")
        .expect("initialize answers with Mcp-Session-Id")
        .to_owned();
    assert!(
        !id.is_empty() && id.bytes().all(|b| (0x21..=0x7e).contains(&b)),
        "session id {id:?} is visible ASCII"
    );
    let mut note = Request::post(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        .header("Mcp-Session-Id", &id)
        .header("MCP-Protocol-Version", LEGACY);
    for (name, value) in extra {
        note = note.header(name, value);
    }
    let r = h.send(&note).await;
    assert_eq!(r.status(), 202, "notifications/initialized: {}", r.text());
    assert!(r.body.is_empty(), "202 has no body");
    id
}

fn assert_rpc_error(r: &Response, status: u16, code: i64) {
    assert_eq!(r.status(), status, "body: {}", r.text());
    assert_eq!(
        r.head.media_type().as_deref(),
        Some("application/json"),
        "error bodies are JSON"
    );
    assert_eq!(r.rpc_code(), Some(code), "body: {}", r.text());
}

fn assert_header_mismatch(r: &Response, what: &str) {
    assert_eq!(r.status(), 400, "{what}: {}", r.text());
    assert_eq!(r.rpc_code(), Some(-32020), "{what}: {}", r.text());
}

// ---------------------------------------------------------------------------
// Stateless era (2026-07-28)

#[tokio::test]
async fn stateless_requests_are_answered_200_json() {
    let h = start(HttpConfig::default()).await;

    let r = h.send(&modern(1, "server/discover", json!({}))).await;
    assert_eq!(r.status(), 200, "{}", r.text());
    assert_eq!(r.head.media_type().as_deref(), Some("application/json"));
    let body = r.json();
    assert_eq!(body["id"], 1);
    assert!(body["result"]["supportedVersions"]
        .as_array()
        .unwrap()
        .contains(&json!(MODERN)));
    assert_eq!(body["result"]["resultType"], "complete");
    assert_eq!(
        body["result"]["_meta"]["io.modelcontextprotocol/serverInfo"]["name"],
        "http-test"
    );

    let r = h.send(&modern(2, "tools/list", json!({}))).await;
    assert_eq!(r.status(), 200, "{}", r.text());
    let names: Vec<Value> = r.json()["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].clone())
        .collect();
    assert_eq!(
        names,
        [
            json!("quick"),
            json!("wait"),
            json!("progress"),
            json!("route"),
            json!("chatty")
        ]
    );
    assert_eq!(r.json()["result"]["resultType"], "complete");

    let r = h.send(&call(3, "quick", json!({"text": "hi"}))).await;
    assert_eq!(r.status(), 200, "{}", r.text());
    assert_eq!(
        r.head.media_type().as_deref(),
        Some("application/json"),
        "no progress asked: plain JSON"
    );
    let body = r.json();
    assert_eq!(body["id"], 3);
    assert_eq!(
        body["result"]["structuredContent"],
        json!({"echo": "hi", "principal": null})
    );
    assert_eq!(body["result"]["resultType"], "complete");
    assert_eq!(
        body["result"]["_meta"]["io.modelcontextprotocol/serverInfo"]["version"],
        "1.2.3"
    );
    assert!(body["result"].get("isError").is_none());
}

#[tokio::test]
async fn stateless_notification_is_202_without_body() {
    let h = start(HttpConfig::default()).await;
    let note = Request::post(&json!({
        "jsonrpc": "2.0",
        "method": "notifications/whatever",
        "params": {"_meta": modern_meta()}
    }))
    .header("MCP-Protocol-Version", MODERN)
    .header("Mcp-Method", "notifications/whatever");
    let r = h.send(&note).await;
    assert_eq!(r.status(), 202, "{}", r.text());
    assert!(r.body.is_empty());
}

#[tokio::test]
async fn stateless_requests_repeating_their_meta_are_served_as_their_own() {
    // A client sends the same `_meta` with every request: the service
    // keeps the scope it made and does not read it again. Another
    // client's `_meta` in between, and a header that no longer mirrors
    // the body, are still seen.
    let h = start(HttpConfig::default()).await;
    let as_client = |id: i64, name: &str| {
        let meta = json!({"io.modelcontextprotocol/clientInfo": {"name": name, "version": "1"}});
        modern(
            id,
            "tools/call",
            json!({"name": "quick", "arguments": {"text": name}, "_meta": meta}),
        )
    };
    let order = ["alice", "alice", "alice", "bob", "alice", "bob", "bob"];
    for (n, name) in order.iter().enumerate() {
        let r = h.send(&as_client(n as i64, name)).await;
        assert_eq!(r.status(), 200, "{name}: {}", r.text());
        assert_eq!(r.json()["result"]["structuredContent"]["echo"], *name);
        let r = h
            .send(&as_client(100 + n as i64, name).header("MCP-Protocol-Version", "2026-07-29"))
            .await;
        assert_header_mismatch(&r, "a repeated _meta with a header that differs from it");
    }
    let seen: Vec<String> = h
        .probe
        .clients
        .lock()
        .unwrap()
        .iter()
        .map(|c| c.clone().unwrap_or_default())
        .collect();
    assert_eq!(seen, order, "each call was made as its own client");
    // Without capabilities the same request is refused, kept scope or not.
    for id in [200, 201] {
        let bare = json!({"io.modelcontextprotocol/protocolVersion": MODERN, "io.modelcontextprotocol/clientInfo": {"name": "c", "version": "1"}});
        let r = h
            .send(&as_sent(
                id,
                "tools/call",
                json!({"name": "quick", "arguments": {"text": "x"}, "_meta": bare}),
            ))
            .await;
        assert_rpc_error(&r, 400, -32602);
    }
}

#[tokio::test]
async fn stateless_standard_headers_must_mirror_the_body() {
    let h = start(HttpConfig::default()).await;
    let quick = || call(1, "quick", json!({"text": "x"}));

    let r = h.send(&quick().without("MCP-Protocol-Version")).await;
    assert_header_mismatch(&r, "no MCP-Protocol-Version");
    assert_eq!(r.json()["id"], 1, "the error answers the request's id");
    let r = h
        .send(&quick().header("MCP-Protocol-Version", "2026-07-29"))
        .await;
    assert_header_mismatch(&r, "MCP-Protocol-Version differs from _meta");

    let r = h.send(&quick().without("Mcp-Method")).await;
    assert_header_mismatch(&r, "no Mcp-Method");
    let r = h.send(&quick().header("Mcp-Method", "tools/list")).await;
    assert_header_mismatch(&r, "Mcp-Method differs from the method");
    let r = h.send(&quick().header("Mcp-Method", "TOOLS/CALL")).await;
    assert_header_mismatch(&r, "header values are case-sensitive");

    let r = h.send(&quick().without("Mcp-Name")).await;
    assert_header_mismatch(&r, "no Mcp-Name on tools/call");
    let r = h.send(&quick().header("Mcp-Name", "wait")).await;
    assert_header_mismatch(&r, "Mcp-Name differs from params.name");
    let r = h
        .send(&quick().header("Mcp-Name", "=?base64?not base64!?="))
        .await;
    assert_header_mismatch(&r, "malformed Base64 sentinel");
    let r = h
        .send(&quick().header("Mcp-Name", &format!("=?base64?{}?=", base64(b"wait"))))
        .await;
    assert_header_mismatch(&r, "Base64 of another name");

    // Header names are case-insensitive; the Base64 sentinel form is decoded.
    let r = h
        .send(&quick().without("Mcp-Name").header("mcp-name", "quick"))
        .await;
    assert_eq!(r.status(), 200, "lower-case header name: {}", r.text());
    let r = h
        .send(&quick().header("Mcp-Name", &format!("=?base64?{}?=", base64(b"quick"))))
        .await;
    assert_eq!(r.status(), 200, "Base64 Mcp-Name: {}", r.text());
    assert_eq!(r.json()["result"]["structuredContent"]["echo"], "x");
}

#[tokio::test]
async fn stateless_param_headers_must_mirror_annotated_arguments() {
    let h = start(HttpConfig::default()).await;
    let route = |args: Value| call(7, "route", args);

    let r = h
        .send(
            &route(json!({"region": "us-west1", "priority": 42}))
                .header("Mcp-Param-Region", "us-west1")
                .header("Mcp-Param-Priority", "42"),
        )
        .await;
    assert_eq!(r.status(), 200, "matching headers: {}", r.text());
    assert!(r.json()["result"]["content"][0]["text"]
        .as_str()
        .unwrap()
        .contains("us-west1"));

    let r = h
        .send(
            &route(json!({"region": "us-west1", "priority": 42}))
                .header("Mcp-Param-Region", "us-west1")
                .header("Mcp-Param-Priority", "42.0"),
        )
        .await;
    assert_eq!(
        r.status(),
        200,
        "integers compare numerically: {}",
        r.text()
    );

    let r = h
        .send(&route(json!({"region": "us-west1"})).header("mcp-param-region", "us-west1"))
        .await;
    assert_eq!(
        r.status(),
        200,
        "an absent argument needs no header: {}",
        r.text()
    );

    let r = h
        .send(&route(json!({"region": "Zürich"})).header(
            "Mcp-Param-Region",
            &format!("=?base64?{}?=", base64("Zürich".as_bytes())),
        ))
        .await;
    assert_eq!(r.status(), 200, "Base64 parameter value: {}", r.text());

    let r = h
        .send(&route(json!({"region": "us-west1"})).header("Mcp-Param-Region", "eu-north1"))
        .await;
    assert_header_mismatch(&r, "Mcp-Param-Region differs");
    let r = h.send(&route(json!({"region": "us-west1"}))).await;
    assert_header_mismatch(&r, "argument in the body, header missing");
    let r = h
        .send(
            &route(json!({"region": "us-west1", "priority": 42}))
                .header("Mcp-Param-Region", "us-west1")
                .header("Mcp-Param-Priority", "43"),
        )
        .await;
    assert_header_mismatch(&r, "Mcp-Param-Priority differs");
    let r = h
        .send(
            &route(json!({"region": "us-west1"}))
                .header("Mcp-Param-Region", "us-west1")
                .header("Mcp-Param-Priority", "1"),
        )
        .await;
    assert_header_mismatch(&r, "header for an argument not in the body");
}

/// The Base64 cases of the transport's test-case table, as the official
/// conformance suite sends them: the sentinel form is decoded, malformed
/// Base64 (missing padding, characters outside the alphabet) is a 400
/// HeaderMismatch, and a value that is not wholly wrapped is literal.
#[tokio::test]
async fn stateless_param_header_base64_is_strict_and_only_in_the_sentinel() {
    let h = start(HttpConfig::default()).await;
    let route = |region: &str, header: &str| {
        call(8, "route", json!({"region": region})).header("Mcp-Param-Region", header)
    };

    let r = h.send(&route("Hello", "=?base64?SGVsbG8=?=")).await;
    assert_eq!(r.status(), 200, "valid Base64: {}", r.text());
    assert!(
        r.json()["result"]["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("Hello"),
        "{}",
        r.text()
    );

    let r = h.send(&route("Hello", "=?base64?SGVsbG8?=")).await;
    assert_header_mismatch(&r, "Base64 without its padding");
    let r = h.send(&route("Hello", "=?base64?SGVs!!!bG8=?=")).await;
    assert_header_mismatch(&r, "characters outside the Base64 alphabet");
    let r = h.send(&route("Hello", "=?base64?SGVsbG8==?=")).await;
    assert_header_mismatch(&r, "too much padding");

    let r = h.send(&route("SGVsbG8=", "SGVsbG8=")).await;
    assert_eq!(
        r.status(),
        200,
        "no sentinel: the value is literal: {}",
        r.text()
    );
    let r = h
        .send(&route("=?base64?SGVsbG8=", "=?base64?SGVsbG8="))
        .await;
    assert_eq!(
        r.status(),
        200,
        "no closing ?=: the value is literal: {}",
        r.text()
    );
    let r = h.send(&route("Hello", "SGVsbG8=")).await;
    assert_header_mismatch(&r, "a literal value is not decoded");
}

#[tokio::test]
async fn stateless_unsupported_version_is_400_32022_listing_supported() {
    let h = start(HttpConfig::default()).await;
    for version in ["2099-01-01", LEGACY] {
        let mut meta = modern_meta();
        meta["io.modelcontextprotocol/protocolVersion"] = json!(version);
        let r = h
            .send(&as_sent(4, "tools/list", json!({"_meta": meta})))
            .await;
        assert_rpc_error(&r, 400, -32022);
        let supported = r.json()["error"]["data"]["supported"].clone();
        assert!(
            supported
                .as_array()
                .is_some_and(|s| s.contains(&json!(MODERN))),
            "{version}: data.supported = {supported}"
        );
    }
}

#[tokio::test]
async fn stateless_request_without_client_capabilities_is_400_32602() {
    let h = start(HttpConfig::default()).await;
    let r = h
        .send(&as_sent(
            5,
            "tools/list",
            json!({"_meta": {"io.modelcontextprotocol/protocolVersion": MODERN}}),
        ))
        .await;
    assert_rpc_error(&r, 400, -32602);
    let r = h
        .send(&as_sent(5, "tools/list", json!({"_meta": {"io.modelcontextprotocol/protocolVersion": MODERN, "io.modelcontextprotocol/clientCapabilities": "none"}})))
        .await;
    assert_rpc_error(&r, 400, -32602);
}

/// A request whose `MCP-Protocol-Version` header names 2026-07-28 but whose
/// body has no `_meta` at all is a stateless request missing its required
/// metadata: `400` with `-32602`.
#[tokio::test]
async fn stateless_request_without_meta_is_400_32602() {
    let h = start(HttpConfig::default()).await;
    let bare = Request::post(&json!({"jsonrpc": "2.0", "id": 6, "method": "tools/list"}))
        .header("MCP-Protocol-Version", MODERN)
        .header("Mcp-Method", "tools/list");
    let r = h.send(&bare).await;
    assert_rpc_error(&r, 400, -32602);
    let r = h.send(&bare.header("Mcp-Method", "tools/call").body(
        json!({"jsonrpc": "2.0", "id": 6, "method": "tools/call", "params": {"name": "quick", "arguments": {"text": "x"}}})
            .to_string()
            .into_bytes(),
    ).header("Mcp-Name", "quick"))
    .await;
    assert_rpc_error(&r, 400, -32602);
}

#[tokio::test]
async fn stateless_unknown_method_is_404_32601() {
    let h = start(HttpConfig::default()).await;
    let r = h.send(&modern(8, "sampling/explode", json!({}))).await;
    assert_rpc_error(&r, 404, -32601);
    assert_eq!(r.json()["id"], 8);
    // Methods of the stateful era do not exist in the stateless one.
    for method in ["initialize", "ping"] {
        let r = h.send(&modern(9, method, json!({}))).await;
        assert_rpc_error(&r, 404, -32601);
    }
}

#[tokio::test]
async fn malformed_bodies_are_400() {
    let h = start(HttpConfig::default()).await;
    let headers = |r: Request| {
        r.header("MCP-Protocol-Version", MODERN)
            .header("Mcp-Method", "tools/list")
    };
    let r = h
        .send(&headers(Request::post(&json!({}))).body(b"{not json".to_vec()))
        .await;
    assert_rpc_error(&r, 400, -32700);
    let batch = json!([{"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": modern_meta()}}]);
    let r = h.send(&headers(Request::post(&batch))).await;
    assert_rpc_error(&r, 400, -32600);
}

#[tokio::test]
async fn get_and_delete_without_a_session_are_405() {
    let h = start(HttpConfig::default()).await;
    for request in [
        Request::get(),
        Request::delete(),
        Request::get().header("MCP-Protocol-Version", MODERN),
    ] {
        let r = h.send(&request).await;
        assert_eq!(r.status(), 405, "{}", r.text());
        assert!(
            r.header("allow").is_some_and(|a| a.contains("POST")),
            "405 names what is allowed: {:?}",
            r.head
        );
    }
    let r = h.send(&Request::new("PUT", "/mcp")).await;
    assert_eq!(r.status(), 405);
}

#[tokio::test]
async fn healthz_is_200_and_other_paths_404() {
    let h = start(HttpConfig::default()).await;
    let r = h.send(&Request::new("GET", "/healthz")).await;
    assert_eq!(r.status(), 200);
    assert_eq!(r.json()["status"], "ok");
    let r = h.send(&Request::new("GET", "/elsewhere")).await;
    assert_eq!(r.status(), 404);
    let r = h
        .send(&call(1, "quick", json!({"text": "slash"})).path("/mcp/"))
        .await;
    assert_eq!(
        r.status(),
        200,
        "the endpoint with a trailing slash: {}",
        r.text()
    );
}

// ---------------------------------------------------------------------------
// Stateful era (2025-03-26 … 2025-11-25)

#[tokio::test]
async fn stateful_session_lifecycle() {
    let h = start(HttpConfig::default()).await;
    let id = open_session(&h, &[]).await;

    let r = h.send(&legacy(&id, 1, "tools/list", json!({}))).await;
    assert_eq!(r.status(), 200, "{}", r.text());
    assert_eq!(r.json()["result"]["tools"].as_array().unwrap().len(), 5);
    assert!(
        r.json()["result"].get("resultType").is_none(),
        "stateful results have no resultType"
    );

    let r = h
        .send(&legacy(
            &id,
            2,
            "tools/call",
            json!({"name": "quick", "arguments": {"text": "in session"}}),
        ))
        .await;
    assert_eq!(r.status(), 200, "{}", r.text());
    assert_eq!(
        r.json()["result"]["structuredContent"]["echo"],
        "in session"
    );

    let r = h
        .send(&legacy(&id, 3, "ping", json!({})).without("Mcp-Session-Id"))
        .await;
    assert_eq!(
        r.status(),
        400,
        "no session id after initialize: {}",
        r.text()
    );
    let r = h
        .send(&legacy(
            "0123456789abcdef0123456789abcdef",
            3,
            "ping",
            json!({}),
        ))
        .await;
    assert_eq!(r.status(), 404, "unknown session: {}", r.text());
    let r = h
        .send(&legacy(&id, 3, "ping", json!({})).header("MCP-Protocol-Version", "2025-06-18"))
        .await;
    assert_eq!(
        r.status(),
        400,
        "a revision other than the negotiated one: {}",
        r.text()
    );
    let r = h
        .send(&legacy(&id, 3, "ping", json!({})).header("MCP-Protocol-Version", "1999-01-01"))
        .await;
    assert_eq!(r.status(), 400, "an unsupported revision: {}", r.text());
    let r = h
        .send(&legacy(&id, 3, "ping", json!({})).without("MCP-Protocol-Version"))
        .await;
    assert_eq!(
        r.status(),
        200,
        "a missing header is tolerated: {}",
        r.text()
    );

    let r = h
        .send(&Request::delete().header("Mcp-Session-Id", &id))
        .await;
    assert!(
        (200..300).contains(&r.status()),
        "DELETE ends the session: {} {}",
        r.status(),
        r.text()
    );
    let r = h.send(&legacy(&id, 4, "ping", json!({}))).await;
    assert_eq!(r.status(), 404, "after DELETE: {}", r.text());
    let r = h
        .send(&Request::delete().header("Mcp-Session-Id", &id))
        .await;
    assert_eq!(r.status(), 404, "DELETE of an ended session");
    let r = h.send(&Request::get().header("Mcp-Session-Id", &id)).await;
    assert_eq!(r.status(), 404, "GET of an ended session");
}

#[tokio::test]
async fn stateful_get_opens_an_sse_stream_with_keep_alives() {
    let h = start(HttpConfig::default().keep_alive(Duration::from_millis(50))).await;
    let id = open_session(&h, &[]).await;

    let r = h
        .send(
            &Request::get()
                .header("Mcp-Session-Id", &id)
                .header("Accept", "application/json"),
        )
        .await;
    assert_eq!(
        r.status(),
        406,
        "a GET stream must accept text/event-stream"
    );
    let r = h
        .send(&Request::get().header("Mcp-Session-Id", "feedfacefeedfacefeedfacefeedface"))
        .await;
    assert_eq!(r.status(), 404);

    let (head, mut sse) = h
        .conn()
        .await
        .stream(&Request::get().header("Mcp-Session-Id", &id))
        .await;
    assert_eq!(head.status, 200);
    assert_eq!(head.media_type().as_deref(), Some("text/event-stream"));
    for _ in 0..2 {
        let event = within("a keep-alive comment", sse.next()).await;
        assert!(
            matches!(event, Some(Event::Comment(_))),
            "idle streams carry comments: {event:?}"
        );
    }
    // The session keeps serving POSTs while its stream is open.
    let r = h.send(&legacy(&id, 1, "ping", json!({}))).await;
    assert_eq!(r.status(), 200);
}

#[tokio::test]
async fn stateful_sessions_are_capped_at_max_sessions() {
    let h = start(HttpConfig::default().max_sessions(2)).await;
    let first = open_session(&h, &[]).await;
    let _second = open_session(&h, &[]).await;
    let r = h.send(&initialize_request()).await;
    assert_rpc_error(&r, 503, -32603);
    assert!(
        r.header("mcp-session-id").is_none(),
        "no session for a refused initialize"
    );
    assert!(r.header("retry-after").is_some(), "503 says when to retry");

    let r = h
        .send(&Request::delete().header("Mcp-Session-Id", &first))
        .await;
    assert!((200..300).contains(&r.status()));
    open_session(&h, &[]).await;
}

#[tokio::test]
async fn stateful_session_expires_when_idle() {
    let h = start(HttpConfig::default().session_idle(Duration::from_millis(100))).await;
    let id = open_session(&h, &[]).await;
    tokio::time::sleep(Duration::from_millis(400)).await;
    let r = h.send(&legacy(&id, 1, "ping", json!({}))).await;
    assert_eq!(r.status(), 404, "an idle session is gone: {}", r.text());
    open_session(&h, &[]).await;
}

#[tokio::test]
async fn stateless_only_server_refuses_initialize_with_32022() {
    let h = start(HttpConfig::default().stateless_only()).await;
    let r = h.send(&initialize_request()).await;
    assert_rpc_error(&r, 400, -32022);
    assert!(r.json()["error"]["data"]["supported"]
        .as_array()
        .is_some_and(|s| s.contains(&json!(MODERN))));
    assert!(r.header("mcp-session-id").is_none());
    let r = h
        .send(&Request::get().header("Mcp-Session-Id", "abc"))
        .await;
    assert_eq!(r.status(), 405, "no GET streams without sessions");
    let r = h
        .send(&call(1, "quick", json!({"text": "still served"})))
        .await;
    assert_eq!(r.status(), 200, "{}", r.text());
}

/// A server of the stateless era only must ignore `Mcp-Session-Id`
/// (2026-07-28, "Earlier Streamable HTTP Revisions"): the request is then
/// handled exactly as without it, so `initialize` is still refused.
#[tokio::test]
async fn stateless_only_server_refuses_initialize_even_with_a_session_id() {
    let h = start(HttpConfig::default().stateless_only()).await;
    let r = h
        .send(&initialize_request().header("Mcp-Session-Id", "abc"))
        .await;
    assert_rpc_error(&r, 400, -32022);
    assert!(r.header("mcp-session-id").is_none());
}

/// Likewise an ignored `Mcp-Session-Id` must not switch off the
/// validation of the mirrored headers.
#[tokio::test]
async fn stateless_only_server_validates_headers_even_with_a_session_id() {
    let h = start(HttpConfig::default().stateless_only()).await;
    let r = h
        .send(&call(1, "quick", json!({"text": "x"})).header("Mcp-Session-Id", "abc"))
        .await;
    assert_eq!(r.status(), 200, "{}", r.text());
    let r = h
        .send(
            &call(2, "quick", json!({"text": "x"}))
                .header("Mcp-Session-Id", "abc")
                .header("Mcp-Name", "wait"),
        )
        .await;
    assert_header_mismatch(&r, "Mcp-Name differs, with an ignored session id");
    let r = h
        .send(
            &call(3, "quick", json!({"text": "x"}))
                .header("Mcp-Session-Id", "abc")
                .without("MCP-Protocol-Version"),
        )
        .await;
    assert_header_mismatch(&r, "no MCP-Protocol-Version, with an ignored session id");
}

// ---------------------------------------------------------------------------
// Safe defaults

#[tokio::test]
async fn host_outside_the_allowlist_is_403() {
    let h = start(HttpConfig::default()).await;
    let port = h.addr.port();
    for host in ["evil.example", "127.0.0.1.nip.io", "localhost.evil.example"] {
        let r = h
            .send(&call(1, "quick", json!({"text": "x"})).header("Host", &format!("{host}:{port}")))
            .await;
        assert_eq!(r.status(), 403, "Host {host}: {}", r.text());
    }
    for host in ["localhost", "127.0.0.1"] {
        let r = h
            .send(&call(1, "quick", json!({"text": "x"})).header("Host", &format!("{host}:{port}")))
            .await;
        assert_eq!(r.status(), 200, "Host {host}: {}", r.text());
    }

    let h = start(HttpConfig::default().allow_hosts(["mcp.example"])).await;
    let r = h
        .send(&call(1, "quick", json!({"text": "x"})).header("Host", "mcp.example:443"))
        .await;
    assert_eq!(r.status(), 200, "configured host: {}", r.text());
}

#[tokio::test]
async fn origin_must_be_allowed_when_present() {
    let h = start(HttpConfig::default()).await;
    for origin in [
        "https://evil.example",
        "null",
        "http://localhost.evil.example",
    ] {
        let r = h
            .send(&call(1, "quick", json!({"text": "x"})).header("Origin", origin))
            .await;
        assert_eq!(r.status(), 403, "Origin {origin}: {}", r.text());
    }
    let r = h
        .send(&Request::get().header("Origin", "https://evil.example"))
        .await;
    assert_eq!(r.status(), 403, "GET is checked too");
    for origin in ["http://localhost:5173", "http://127.0.0.1:8080"] {
        let r = h
            .send(&call(1, "quick", json!({"text": "x"})).header("Origin", origin))
            .await;
        assert_eq!(r.status(), 200, "Origin {origin}: {}", r.text());
    }

    let h = start(HttpConfig::default().allow_origins(["https://app.example"])).await;
    let r = h
        .send(&call(1, "quick", json!({"text": "x"})).header("Origin", "https://app.example"))
        .await;
    assert_eq!(r.status(), 200, "configured origin: {}", r.text());
}

#[tokio::test]
async fn body_over_the_limit_is_413() {
    let h = start(HttpConfig::default().max_body_bytes(1024)).await;
    let big = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "quick", "arguments": {"text": "x".repeat(2000)}, "_meta": modern_meta()}})
        .to_string()
        .into_bytes();
    let headers = |r: Request| {
        r.header("MCP-Protocol-Version", MODERN)
            .header("Mcp-Method", "tools/call")
            .header("Mcp-Name", "quick")
    };

    // Declared by Content-Length: refused before the body is read.
    let r = h
        .send(&headers(Request::post(&json!({}))).declared_length(big.len()))
        .await;
    assert_eq!(
        r.status(),
        413,
        "Content-Length over the limit: {}",
        r.text()
    );

    // Chunked, no length declared: refused once the limit is crossed.
    let chunks: Vec<Vec<u8>> = big.chunks(300).map(<[u8]>::to_vec).collect();
    let r = h
        .send(&headers(Request::post(&json!({}))).chunked(chunks))
        .await;
    assert_eq!(r.status(), 413, "chunked body over the limit: {}", r.text());

    // A chunked body under the limit is served.
    let small = call(2, "quick", json!({"text": "small"}));
    let body = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "quick", "arguments": {"text": "small"}, "_meta": modern_meta()}})
        .to_string()
        .into_bytes();
    let chunks: Vec<Vec<u8>> = body.chunks(50).map(<[u8]>::to_vec).collect();
    let r = h.send(&small.chunked(chunks)).await;
    assert_eq!(
        r.status(),
        200,
        "chunked body under the limit: {}",
        r.text()
    );
}

#[tokio::test]
async fn wrong_content_type_is_415() {
    let h = start(HttpConfig::default()).await;
    for content_type in [
        Some("text/plain"),
        Some("application/x-www-form-urlencoded"),
        None,
    ] {
        let request = call(1, "quick", json!({"text": "x"}));
        let request = match content_type {
            Some(t) => request.header("Content-Type", t),
            None => request.without("Content-Type"),
        };
        let r = h.send(&request).await;
        assert_eq!(
            r.status(),
            415,
            "Content-Type {content_type:?}: {}",
            r.text()
        );
    }
    let r = h
        .send(
            &call(1, "quick", json!({"text": "x"}))
                .header("Content-Type", "application/json; charset=utf-8"),
        )
        .await;
    assert_eq!(r.status(), 200, "parameters are allowed: {}", r.text());
}

#[tokio::test]
async fn accept_without_event_stream_is_406() {
    let h = start(HttpConfig::default()).await;
    for accept in [Some("application/json"), Some("text/event-stream"), None] {
        let request = call(1, "quick", json!({"text": "x"}));
        let request = match accept {
            Some(a) => request.header("Accept", a),
            None => request.without("Accept"),
        };
        let r = h.send(&request).await;
        assert_eq!(r.status(), 406, "Accept {accept:?}: {}", r.text());
    }
    let r = h
        .send(&call(1, "quick", json!({"text": "x"})).header("Accept", "*/*"))
        .await;
    assert_eq!(r.status(), 200, "a wildcard accepts both: {}", r.text());
}

/// A tool that reports what its context's extensions hold.
struct Inspect;

/// What a tower layer might insert into a request's extensions.
#[derive(Debug, Clone)]
struct Tenant(&'static str);

impl Dispatch for Inspect {
    fn call(
        &self,
        _index: usize,
        _args: Value,
        ctx: RequestContext,
    ) -> BoxFuture<Result<ToolOutput, CallFailure>> {
        let map = ctx.extensions();
        let seen = json!({
            "method": map.get::<http::Method>().map(http::Method::to_string),
            "uri": map.get::<http::Uri>().map(http::Uri::to_string),
            "header": map.get::<http::HeaderMap>().and_then(|h| h.get("x-region")).and_then(|v| v.to_str().ok()),
            "tenant": map.get::<Tenant>().map(|t| t.0),
            "principal": ctx.principal().map(|p| p.subject.clone()),
            "principal in map": map.get::<Principal>().map(|p| p.subject.clone()),
        });
        Box::pin(async move {
            Ok(ToolOutput::Content(
                json!([{"type": "text", "text": seen.to_string()}]),
            ))
        })
    }
}

#[tokio::test]
async fn handlers_see_the_requests_method_uri_headers_and_what_layers_inserted() {
    use http_body_util::BodyExt;
    let tools = json!([{"name": "inspect", "inputSchema": {"type": "object"}}]);
    let server = ServerBuilder::new(LEGACY, tools, Arc::new(Inspect))
        .build()
        .expect("the test server builds");
    let service = HttpService::new(server, HttpConfig::default());
    let params = json!({"name": "inspect", "arguments": {}, "_meta": modern_meta()});
    let body =
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params}).to_string();
    let mut request = http::Request::post("/mcp?from=layer")
        .header("host", "localhost")
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", MODERN)
        .header("mcp-method", "tools/call")
        .header("mcp-name", "inspect")
        .header("x-region", "eu-west")
        .body(body)
        .unwrap();
    // As a tower layer in front of the service would.
    request.extensions_mut().insert(Tenant("acme"));
    request.extensions_mut().insert(Principal {
        subject: "carol".into(),
        ..Principal::default()
    });
    let response = service.handle(request).await;
    assert_eq!(response.status(), 200);
    let bytes = response.into_body().collect().await.unwrap().to_bytes();
    let answer: Value = serde_json::from_slice(&bytes).unwrap();
    let text = answer["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("no text in {answer}"));
    let seen: Value = serde_json::from_str(text).unwrap();
    assert_eq!(
        seen,
        json!({
            "method": "POST",
            "uri": "/mcp?from=layer",
            "header": "eu-west",
            "tenant": "acme",
            "principal": "carol",
            "principal in map": "carol"
        })
    );
}

// ---------------------------------------------------------------------------
// Authentication

fn bearer_auth() -> HttpConfig {
    HttpConfig::default().authenticate(|parts| {
        let token = parts
            .headers
            .get("authorization")
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.strip_prefix("Bearer "));
        match token {
            Some(subject @ ("alice" | "bob")) => Ok(Some(Principal {
                subject: subject.to_owned(),
                scopes: vec!["mcp".into()],
                ..Principal::default()
            })),
            _ => Err(AuthRejection {
                www_authenticate: Some(r#"Bearer realm="mcp", error="invalid_token""#.into()),
                ..AuthRejection::unauthorized("a bearer token is required")
            }),
        }
    })
}

#[tokio::test]
async fn auth_hook_rejects_with_401_and_passes_the_principal_on() {
    let h = start(bearer_auth()).await;
    for request in [
        call(1, "quick", json!({"text": "x"})),
        call(1, "quick", json!({"text": "x"})).header("Authorization", "Bearer mallory"),
    ] {
        let r = h.send(&request).await;
        assert_eq!(r.status(), 401, "{}", r.text());
        let challenge = r
            .header("www-authenticate")
            .expect("401 carries WWW-Authenticate");
        assert!(challenge.starts_with("Bearer"), "{challenge}");
    }
    let r = h.send(&Request::get().header("Mcp-Session-Id", "x")).await;
    assert_eq!(r.status(), 401, "GET is authenticated too");
    assert!(
        h.probe.access.lock().unwrap().is_empty(),
        "refused requests reach no hook"
    );

    let r = h
        .send(&call(2, "quick", json!({"text": "x"})).header("Authorization", "Bearer alice"))
        .await;
    assert_eq!(r.status(), 200, "{}", r.text());
    assert_eq!(
        r.json()["result"]["structuredContent"]["principal"],
        "alice",
        "the handler sees ctx.principal()"
    );
    assert_eq!(
        *h.probe.access.lock().unwrap(),
        [Some("alice".to_owned())],
        "the access-control hook sees the principal"
    );
}

#[tokio::test]
async fn a_session_belongs_to_the_principal_that_opened_it() {
    let h = start(bearer_auth()).await;
    let alice = [("Authorization", "Bearer alice")];
    let bob = [("Authorization", "Bearer bob")];
    let id = open_session(&h, &alice).await;

    let r = h
        .send(
            &legacy(
                &id,
                1,
                "tools/call",
                json!({"name": "quick", "arguments": {"text": "mine"}}),
            )
            .header("Authorization", "Bearer bob"),
        )
        .await;
    assert_eq!(
        r.status(),
        404,
        "another principal cannot use the session: {}",
        r.text()
    );
    let r = h
        .send(
            &Request::get()
                .header("Mcp-Session-Id", &id)
                .header(bob[0].0, bob[0].1),
        )
        .await;
    assert_eq!(r.status(), 404, "nor open its stream");
    let r = h
        .send(
            &Request::delete()
                .header("Mcp-Session-Id", &id)
                .header(bob[0].0, bob[0].1),
        )
        .await;
    assert_eq!(r.status(), 404, "nor end it");

    let r = h
        .send(
            &legacy(
                &id,
                2,
                "tools/call",
                json!({"name": "quick", "arguments": {"text": "mine"}}),
            )
            .header(alice[0].0, alice[0].1),
        )
        .await;
    assert_eq!(r.status(), 200, "{}", r.text());
    assert_eq!(
        r.json()["result"]["structuredContent"]["principal"],
        "alice"
    );
    assert_eq!(*h.probe.access.lock().unwrap(), [Some("alice".to_owned())]);
}

// ---------------------------------------------------------------------------
// Streaming and cancellation

fn progress_call(id: i64, hold: bool) -> Request {
    modern(
        id,
        "tools/call",
        json!({"name": "progress", "arguments": {"hold": hold}, "_meta": {"progressToken": "tok-1"}}),
    )
}

#[tokio::test]
async fn progress_is_streamed_as_sse_before_the_result() {
    let h = start(HttpConfig::default()).await;
    let (head, mut sse) = h.conn().await.stream(&progress_call(11, false)).await;
    assert_eq!(head.status, 200);
    assert_eq!(head.media_type().as_deref(), Some("text/event-stream"));
    assert_eq!(head.header("x-accel-buffering"), Some("no"));

    let events: Vec<Event> = within("the whole SSE response", sse.rest()).await;
    let messages: Vec<&Event> = events
        .iter()
        .filter(|e| matches!(e, Event::Message { .. }))
        .collect();
    assert_eq!(
        messages.len(),
        3,
        "two progress notifications, then the result: {events:?}"
    );
    for message in &messages {
        let Event::Message { event, raw, .. } = message else {
            unreachable!()
        };
        assert_eq!(event.as_deref(), Some("message"), "{raw}");
        assert!(
            raw.starts_with("event: message\ndata: "),
            "framing: {raw:?}"
        );
    }
    let progress = messages[0].json().unwrap();
    assert_eq!(progress["method"], "notifications/progress");
    assert_eq!(progress["params"]["progressToken"], "tok-1");
    assert_eq!(progress["params"]["progress"], 1.0);
    assert_eq!(messages[1].json().unwrap()["params"]["progress"], 2.0);
    let result = messages[2].json().unwrap();
    assert_eq!(result["id"], 11);
    assert_eq!(result["result"]["content"][0]["text"], "progressed");
    assert_eq!(result["result"]["resultType"], "complete");
}

#[tokio::test]
async fn a_call_that_logs_before_its_result_is_answered_as_sse_in_order() {
    let h = start(HttpConfig::default()).await;
    for later in [false, true] {
        let meta = json!({"io.modelcontextprotocol/logLevel": "info"});
        let request = modern(
            21,
            "tools/call",
            json!({"name": "chatty", "arguments": {"later": later}, "_meta": meta}),
        );
        let (head, mut sse) = h.conn().await.stream(&request).await;
        assert_eq!(head.status, 200, "later: {later}");
        assert_eq!(
            head.media_type().as_deref(),
            Some("text/event-stream"),
            "later: {later}"
        );
        let events: Vec<Event> = within("the whole SSE response", sse.rest()).await;
        let messages: Vec<Value> = events
            .iter()
            .filter(|e| matches!(e, Event::Message { .. }))
            .map(|e| e.json().unwrap())
            .collect();
        assert_eq!(
            messages.len(),
            3,
            "two log messages, then the result (later: {later}): {events:?}"
        );
        assert_eq!(messages[0]["method"], "notifications/message");
        assert_eq!(messages[0]["params"]["data"], "first");
        assert_eq!(messages[1]["params"]["data"], "second");
        assert_eq!(messages[2]["id"], 21);
        assert_eq!(messages[2]["result"]["content"][0]["text"], "chatted");
    }
    // Without a log level nothing is sent first: plain JSON.
    let r = h
        .send(&modern(
            22,
            "tools/call",
            json!({"name": "chatty", "arguments": {}}),
        ))
        .await;
    assert_eq!(r.status(), 200, "{}", r.text());
    assert_eq!(r.head.media_type().as_deref(), Some("application/json"));
    assert_eq!(r.json()["result"]["content"][0]["text"], "chatted");
}

#[tokio::test]
async fn closing_the_sse_stream_cancels_the_call_and_the_server_keeps_serving() {
    let h = start(HttpConfig::default()).await;
    let (head, mut sse) = h.conn().await.stream(&progress_call(12, true)).await;
    assert_eq!(head.status, 200);
    let first = within("the first progress notification", sse.next_message())
        .await
        .expect("a progress event");
    assert_eq!(first.json().unwrap()["method"], "notifications/progress");
    eventually("the handler started", || h.probe.started() == 1).await;
    drop(sse);

    eventually("the handler is cancelled once its stream closes", || {
        h.probe.dropped() + h.probe.token_cancelled() == 1
    })
    .await;
    let r = h.send(&call(13, "quick", json!({"text": "after"}))).await;
    assert_eq!(r.status(), 200, "the server keeps serving: {}", r.text());
}

#[tokio::test]
async fn closing_the_connection_of_a_json_call_cancels_it() {
    let h = start(HttpConfig::default()).await;
    let mut conn = h.conn().await;
    conn.send(&call(14, "wait", json!({}))).await;
    eventually("the handler started", || h.probe.started() == 1).await;
    drop(conn);
    eventually(
        "the handler is cancelled once the connection closes",
        || h.probe.dropped() + h.probe.token_cancelled() == 1,
    )
    .await;
    let r = h.send(&modern(15, "tools/list", json!({}))).await;
    assert_eq!(r.status(), 200);
}

/// In the stateful era a disconnection is not a cancellation (2025-11-25
/// transports: "Disconnection SHOULD NOT be interpreted as the client
/// cancelling its request"; clients cancel with `notifications/cancelled`).
#[tokio::test]
async fn stateful_disconnect_is_not_cancellation_but_notifications_cancelled_is() {
    let h = start(HttpConfig::default()).await;
    let id = open_session(&h, &[]).await;
    let request = legacy(
        &id,
        21,
        "tools/call",
        json!({"name": "wait", "arguments": {}, "_meta": {"progressToken": 5}}),
    );
    let (head, sse) = h.conn().await.stream(&request).await;
    assert_eq!(head.status, 200);
    eventually("the handler started", || h.probe.started() == 1).await;
    drop(sse);
    // Gives a server that (wrongly) cancels on disconnect the time to do
    // so; a correct server passes however long this takes.
    tokio::time::sleep(Duration::from_millis(300)).await;

    let cancel = Request::post(&json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 21}}))
        .header("Mcp-Session-Id", &id)
        .header("MCP-Protocol-Version", LEGACY);
    let r = h.send(&cancel).await;
    assert_eq!(r.status(), 202);
    eventually("the call ended", || {
        h.probe.dropped() + h.probe.token_cancelled() == 1
    })
    .await;
    assert_eq!(
        (h.probe.token_cancelled(), h.probe.dropped()),
        (1, 0),
        "the call must survive the disconnect and end by notifications/cancelled"
    );
}

#[tokio::test]
async fn deleting_a_session_cancels_its_calls_and_ends_their_streams() {
    let h = start(HttpConfig::default()).await;
    let id = open_session(&h, &[]).await;
    let request = legacy(
        &id,
        31,
        "tools/call",
        json!({"name": "wait", "arguments": {}, "_meta": {"progressToken": "d"}}),
    );
    let (head, mut sse) = h.conn().await.stream(&request).await;
    assert_eq!(head.status, 200);
    assert_eq!(head.media_type().as_deref(), Some("text/event-stream"));
    eventually("the handler started", || h.probe.started() == 1).await;

    let r = h
        .send(&Request::delete().header("Mcp-Session-Id", &id))
        .await;
    assert!((200..300).contains(&r.status()));
    eventually("the call is cancelled", || h.probe.token_cancelled() == 1).await;
    let rest = within("the call's stream ends", sse.rest()).await;
    assert!(
        rest.iter().all(|e| matches!(e, Event::Comment(_))),
        "no reply for a cancelled call: {rest:?}"
    );
}

// ---------------------------------------------------------------------------
// Graceful shutdown

#[tokio::test]
async fn shutdown_ends_serving_and_open_sse_streams() {
    let h = start(HttpConfig::default()).await;
    let id = open_session(&h, &[]).await;
    let (head, mut sse) = h
        .conn()
        .await
        .stream(&Request::get().header("Mcp-Session-Id", &id))
        .await;
    assert_eq!(head.status, 200);
    // An idle keep-alive connection must not hold the shutdown up.
    let mut idle = h.conn().await;
    assert_eq!(
        idle.request(&call(1, "quick", json!({"text": "x"})))
            .await
            .status(),
        200
    );
    let addr = h.addr;

    let ended = tokio::spawn(async move { sse.rest().await });
    h.shutdown().await.expect("serve_with_shutdown returns Ok");
    let rest = within("the SSE stream ends at shutdown", ended)
        .await
        .unwrap();
    assert!(
        rest.iter().all(|e| matches!(e, Event::Comment(_))),
        "{rest:?}"
    );
    assert!(idle.closed().await, "the idle connection is closed");
    assert!(
        within(
            "connect after shutdown",
            tokio::net::TcpStream::connect(addr)
        )
        .await
        .is_err(),
        "the listener is closed"
    );
}

#[tokio::test]
async fn bodies_read_at_once_are_held_to_a_budget_503_past_it() {
    use tokio::io::AsyncWriteExt;
    let h = start(
        HttpConfig::default()
            .max_body_bytes(1000)
            .max_buffered_bytes(1000),
    )
    .await;
    let request = |id: i64| {
        call(id, "quick", json!({"text": "hi"}))
            .header("MCP-Protocol-Version", MODERN)
            .header("Mcp-Method", "tools/call")
            .header("Mcp-Name", "quick")
    };

    // A slow client declares 900 bytes and sends a few: they stay reserved.
    let mut slow = tokio::net::TcpStream::connect(h.addr).await.unwrap();
    let head = "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nContent-Length: 900\r\n\r\n{\"jsonrpc\"";
    slow.write_all(head.as_bytes()).await.unwrap();
    // (The server reserves the share once it has read the head.)
    let r = within("the slow body holds its share of the budget", async {
        loop {
            let r = send(h.addr, &request(2)).await;
            if r.status() != 200 {
                break r;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    })
    .await;
    assert_eq!(r.status(), 503, "past the budget: {}", r.text());
    assert_eq!(r.header("retry-after"), Some("1"));
    assert_eq!(r.rpc_code(), Some(-32603), "{}", r.text());

    // The slow client goes away: its share comes back.
    drop(slow);
    within("the budget is released", async {
        while send(h.addr, &request(3)).await.status() != 200 {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    })
    .await;
}

#[tokio::test]
async fn a_client_that_sends_its_head_slowly_is_cut_off_and_the_server_keeps_serving() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let h = start(HttpConfig::default().header_read_timeout(Duration::from_secs(1))).await;
    // Half a head, then nothing: the connection is closed within the
    // timeout (one-second resolution), not held open.
    let mut slow = tokio::net::TcpStream::connect(h.addr).await.unwrap();
    slow.write_all(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        .await
        .unwrap();
    let started = std::time::Instant::now();
    let mut rest = Vec::new();
    let read = tokio::time::timeout(Duration::from_secs(10), slow.read_to_end(&mut rest)).await;
    assert!(read.is_ok(), "the slow connection is still open after 10 s");
    let took = started.elapsed();
    assert!(
        took >= Duration::from_millis(900) && took < Duration::from_secs(5),
        "closed after {took:?}"
    );
    // An idle keep-alive connection is closed the same way.
    let mut idle = tokio::net::TcpStream::connect(h.addr).await.unwrap();
    let read = tokio::time::timeout(Duration::from_secs(10), idle.read_to_end(&mut rest)).await;
    assert!(read.is_ok(), "the idle connection is still open after 10 s");
    // Others are served as before.
    let r = h.send(&call(1, "quick", json!({"text": "after"}))).await;
    assert_eq!(r.status(), 200, "{}", r.text());
}
