//! Stateful sessions shared by two HTTP services (two "replicas" on two
//! loopback listeners) through one `MemoryStore`: a session opened on one
//! continues on the other, its state changes reach the store, a message for
//! the session reaches the GET stream wherever it is open, `DELETE` and
//! idle expiry end it on both. (The Redis store is exercised with real
//! `redis-server` and `nginx` by `examples/weather-server/tests/replicas.rs`.)

mod support;

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use mcpgen_runtime::http::{serve_with_shutdown, HttpConfig, HttpService, MemoryStore, SessionStore};
use mcpgen_runtime::server::ServerBuilder;
use mcpgen_runtime::tool::{BoxFuture, CallFailure, Dispatch, ToolOutput};
use mcpgen_runtime::RequestContext;
use serde_json::{json, Value};

use support::{send, within, Conn, Event, Request};

const LEGACY: &str = "2025-11-25";

struct Echo;

impl Dispatch for Echo {
    fn call(&self, _index: usize, args: Value, _ctx: RequestContext) -> BoxFuture<Result<ToolOutput, CallFailure>> {
        Box::pin(async move { Ok(ToolOutput::Content(json!([{"type": "text", "text": args["text"]}]))) })
    }
}

/// A replica: the service (for `notify`) and where it listens.
struct Replica {
    service: HttpService,
    addr: SocketAddr,
}

async fn replica(store: &MemoryStore, idle: Duration) -> Replica {
    let tools = json!([{"name": "echo", "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}}}]);
    let server = ServerBuilder::new(LEGACY, tools, Arc::new(Echo)).build().expect("server builds");
    let config = HttpConfig::default().session_store(store.clone()).session_idle(idle);
    let service = HttpService::new(server, config);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let serving = service.clone();
    tokio::spawn(async move { serve_with_shutdown(listener, serving, "/mcp", std::future::pending()).await });
    Replica { service, addr }
}

fn legacy(session: &str, id: i64, method: &str, params: Value) -> Request {
    Request::post(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
        .header("Mcp-Session-Id", session)
        .header("MCP-Protocol-Version", LEGACY)
}

async fn open_session(addr: SocketAddr) -> String {
    let r = send(
        addr,
        &Request::post(&json!({"jsonrpc": "2.0", "id": 0, "method": "initialize",
            "params": {"protocolVersion": LEGACY, "capabilities": {"roots": {}}, "clientInfo": {"name": "shared", "version": "1"}}})),
    )
    .await;
    assert_eq!(r.status(), 200, "initialize: {}", r.text());
    r.header("mcp-session-id").expect("a session id").to_owned()
}

async fn echo(addr: SocketAddr, session: &str, id: i64) -> u16 {
    send(addr, &legacy(session, id, "tools/call", json!({"name": "echo", "arguments": {"text": "hi"}}))).await.status()
}

#[tokio::test]
async fn a_session_continues_on_another_replica_with_its_state() {
    let store = MemoryStore::new();
    let (a, b) = (replica(&store, Duration::from_secs(60)).await, replica(&store, Duration::from_secs(60)).await);
    let id = open_session(a.addr).await;
    let stored = store.load(&id).await.unwrap().expect("stored at initialize");
    assert_eq!(stored.snapshot.protocol_version, LEGACY);
    assert_eq!(stored.snapshot.client_info["name"], "shared");
    assert_eq!(stored.snapshot.capabilities, json!({"roots": {}}));

    assert_eq!(echo(b.addr, &id, 1).await, 200, "replica b continues the session");
    let r = send(b.addr, &legacy(&id, 2, "logging/setLevel", json!({"level": "error"}))).await;
    assert_eq!(r.status(), 200, "{}", r.text());
    let stored = store.load(&id).await.unwrap().unwrap();
    assert_eq!(stored.snapshot.log_level.as_deref(), Some("error"), "the change is stored for every replica");
    assert_eq!(echo(a.addr, &id, 3).await, 200);
    // An id no replica made is unknown everywhere.
    assert_eq!(echo(b.addr, "0123456789abcdef0123456789abcdef", 4).await, 404);
}

#[tokio::test]
async fn a_message_reaches_the_get_stream_on_another_replica() {
    let store = MemoryStore::new();
    let (a, b) = (replica(&store, Duration::from_secs(60)).await, replica(&store, Duration::from_secs(60)).await);
    let id = open_session(a.addr).await;
    let get = Request::get().header("Mcp-Session-Id", &id).header("MCP-Protocol-Version", LEGACY);
    let (head, mut events) = Conn::open(a.addr).await.stream(&get).await;
    assert_eq!(head.status, 200);
    // Replica b has the session from the store once it served a request of it.
    assert_eq!(echo(b.addr, &id, 1).await, 200);
    let note = json!({"jsonrpc": "2.0", "method": "notifications/resources/updated", "params": {"uri": "file:///x"}});
    assert!(b.service.notify(&id, &note).await, "handed to the store");
    let event = within("the message arrives on a's stream", async {
        loop {
            match events.next().await {
                Some(e @ Event::Message { .. }) => return e,
                Some(Event::Comment(_)) => continue,
                None => panic!("the stream ended"),
            }
        }
    })
    .await;
    assert_eq!(event.json(), Some(note));
}

#[tokio::test]
async fn delete_and_expiry_end_a_session_on_every_replica() {
    let store = MemoryStore::new();
    let (a, b) = (replica(&store, Duration::from_secs(60)).await, replica(&store, Duration::from_secs(60)).await);
    let id = open_session(a.addr).await;
    assert_eq!(echo(b.addr, &id, 1).await, 200);
    let r = send(b.addr, &Request::delete().header("Mcp-Session-Id", &id).header("MCP-Protocol-Version", LEGACY)).await;
    assert_eq!(r.status(), 200);
    assert_eq!(store.load(&id).await.unwrap(), None, "gone from the store");
    assert_eq!(echo(b.addr, &id, 2).await, 404);
    // Replica a learns of the end through the store's events.
    let mut status = 0;
    for attempt in 0..200 {
        status = echo(a.addr, &id, 10 + attempt).await;
        if status == 404 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(status, 404, "replica a ended it too");

    // Idle expiry: the store's copy and both local ones end.
    let store = MemoryStore::new();
    let idle = Duration::from_millis(200);
    let (a, b) = (replica(&store, idle).await, replica(&store, idle).await);
    let id = open_session(a.addr).await;
    assert_eq!(echo(b.addr, &id, 1).await, 200);
    tokio::time::sleep(idle * 3).await;
    assert_eq!(store.load(&id).await.unwrap(), None, "expired in the store");
    assert_eq!(echo(a.addr, &id, 2).await, 404, "expired on a");
    assert_eq!(echo(b.addr, &id, 3).await, 404, "expired on b");
}
