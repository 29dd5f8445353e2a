//! Stateful sessions shared by two HTTP services (two "replicas" on two
//! loopback listeners) through one `MemoryStore`: a session opened on one
//! continues on the other, its state changes reach the store, a message for
//! the session reaches the GET stream wherever it is open, `DELETE` and
//! idle expiry end it on both. With three replicas (three servers, as
//! three processes would have): a change the application announces on one
//! reaches the GET streams (and stateless `subscriptions/listen` requests)
//! held by another, once; the client's answer to a handler's request,
//! POSTed to another replica, reaches the handler. (The Redis store is exercised with real
//! `redis-server` and `nginx` by `examples/weather-server/tests/replicas.rs`.)

mod support;

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use mcpgen_runtime::server::http::{
    serve_with_shutdown, HttpConfig, HttpService, MemoryStore, SessionStore,
};
use mcpgen_runtime::server::ServerBuilder;
use mcpgen_runtime::server::{BoxFuture, CallFailure, Dispatch, ToolOutput};
use mcpgen_runtime::{Notifier, RequestContext};
use serde_json::{json, Value};

use support::{send, within, Conn, Event, Request};

const LEGACY: &str = "2025-11-25";

const WATCHED: &str = "test://watched";

/// `echo` says its text back; `roots` asks the client for its roots and
/// says how many it has.
struct Tools;

impl Dispatch for Tools {
    fn call(
        &self,
        index: usize,
        args: Value,
        ctx: RequestContext,
    ) -> BoxFuture<Result<ToolOutput, CallFailure>> {
        Box::pin(async move {
            let text = match index {
                0 => args["text"].clone(),
                _ => match ctx.list_roots().await {
                    Ok(roots) => json!(format!("{} roots", roots.len())),
                    Err(e) => json!(format!("no roots: {e}")),
                },
            };
            Ok(ToolOutput::Content(json!([{"type": "text", "text": text}])))
        })
    }
}

/// A replica: the service (for `notify`), its server's notifier, and
/// where it listens.
struct Replica {
    service: HttpService,
    notifier: Notifier,
    addr: SocketAddr,
}

async fn replica(store: &MemoryStore, idle: Duration) -> Replica {
    let tools = json!([
        {"name": "echo", "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}}},
        {"name": "roots", "inputSchema": {"type": "object"}},
    ]);
    let server = ServerBuilder::new(LEGACY, tools, Arc::new(Tools))
        .resources(vec![json!({"uri": WATCHED, "name": "watched"})])
        .list_changed(true)
        .build()
        .expect("server builds");
    let notifier = server.notifier();
    let config = HttpConfig::default()
        .session_store(store.clone())
        .session_idle(idle);
    let service = HttpService::new(server, config);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let serving = service.clone();
    tokio::spawn(async move {
        serve_with_shutdown(listener, serving, "/mcp", std::future::pending()).await
    });
    Replica {
        service,
        notifier,
        addr,
    }
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
    send(
        addr,
        &legacy(
            session,
            id,
            "tools/call",
            json!({"name": "echo", "arguments": {"text": "hi"}}),
        ),
    )
    .await
    .status()
}

#[tokio::test]
async fn a_session_continues_on_another_replica_with_its_state() {
    let store = MemoryStore::new();
    let (a, b) = (
        replica(&store, Duration::from_secs(60)).await,
        replica(&store, Duration::from_secs(60)).await,
    );
    let id = open_session(a.addr).await;
    let stored = store
        .load(&id)
        .await
        .unwrap()
        .expect("stored at initialize");
    assert_eq!(stored.snapshot.protocol_version, LEGACY);
    assert_eq!(stored.snapshot.client_info["name"], "shared");
    assert_eq!(stored.snapshot.capabilities, json!({"roots": {}}));

    assert_eq!(
        echo(b.addr, &id, 1).await,
        200,
        "replica b continues the session"
    );
    let r = send(
        b.addr,
        &legacy(&id, 2, "logging/setLevel", json!({"level": "error"})),
    )
    .await;
    assert_eq!(r.status(), 200, "{}", r.text());
    let stored = store.load(&id).await.unwrap().unwrap();
    assert_eq!(
        stored.snapshot.log_level.as_deref(),
        Some("error"),
        "the change is stored for every replica"
    );
    assert_eq!(echo(a.addr, &id, 3).await, 200);
    // An id no replica made is unknown everywhere.
    assert_eq!(
        echo(b.addr, "0123456789abcdef0123456789abcdef", 4).await,
        404
    );
}

#[tokio::test]
async fn a_message_reaches_the_get_stream_on_another_replica() {
    let store = MemoryStore::new();
    let (a, b) = (
        replica(&store, Duration::from_secs(60)).await,
        replica(&store, Duration::from_secs(60)).await,
    );
    let id = open_session(a.addr).await;
    let get = Request::get()
        .header("Mcp-Session-Id", &id)
        .header("MCP-Protocol-Version", LEGACY);
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
    let (a, b) = (
        replica(&store, Duration::from_secs(60)).await,
        replica(&store, Duration::from_secs(60)).await,
    );
    let id = open_session(a.addr).await;
    assert_eq!(echo(b.addr, &id, 1).await, 200);
    let r = send(
        b.addr,
        &Request::delete()
            .header("Mcp-Session-Id", &id)
            .header("MCP-Protocol-Version", LEGACY),
    )
    .await;
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

async fn three(store: &MemoryStore) -> [Replica; 3] {
    let idle = Duration::from_secs(60);
    [
        replica(store, idle).await,
        replica(store, idle).await,
        replica(store, idle).await,
    ]
}

#[tokio::test]
async fn a_change_announced_on_one_replica_reaches_streams_held_by_another_once() {
    let store = MemoryStore::new();
    let [a, b, c] = three(&store).await;
    let id = open_session(a.addr).await;
    // The GET stream is on b, the subscription made on c, the changes
    // announced on a and c.
    let get = Request::get()
        .header("Mcp-Session-Id", &id)
        .header("MCP-Protocol-Version", LEGACY);
    let (head, mut stream) = Conn::open(b.addr).await.stream(&get).await;
    assert_eq!(head.status, 200);
    let subscribe = legacy(&id, 1, "resources/subscribe", json!({"uri": WATCHED}));
    assert_eq!(send(c.addr, &subscribe).await.json()["result"], json!({}));

    assert_eq!(a.notifier.tools_changed().await, 0, "no stream on a itself");
    assert_eq!(
        stream.next_json().await["method"],
        "notifications/tools/list_changed"
    );
    // The subscription reaches b through the store's events, in order
    // before the update announced after it.
    c.notifier.resource_updated("test://other").await;
    c.notifier.resource_updated(WATCHED).await;
    let update = stream.next_json().await;
    assert_eq!(
        update["method"], "notifications/resources/updated",
        "only the subscribed URI, and once: {update}"
    );
    assert_eq!(update["params"]["uri"], WATCHED);
    b.notifier.prompts_changed().await;
    let next = stream.next_json().await;
    assert_eq!(
        next["method"], "notifications/prompts/list_changed",
        "no duplicate before it: {next}"
    );
}

#[tokio::test]
async fn a_stateless_listen_request_hears_changes_announced_on_other_replicas() {
    let store = MemoryStore::new();
    let [a, b, c] = three(&store).await;
    let meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
    });
    let listen = json!({"jsonrpc": "2.0", "id": 7, "method": "subscriptions/listen",
        "params": {"_meta": meta, "notifications": {"toolsListChanged": true, "resourceSubscriptions": [WATCHED]}}});
    let request = Request::post(&listen)
        .header("MCP-Protocol-Version", "2026-07-28")
        .header("Mcp-Method", "subscriptions/listen");
    let (head, mut sse) = Conn::open(a.addr).await.stream(&request).await;
    assert_eq!(head.status, 200);
    assert_eq!(
        sse.next_json().await["method"],
        "notifications/subscriptions/acknowledged"
    );
    b.notifier.resources_changed().await; // not asked for
    b.notifier.tools_changed().await;
    let change = sse.next_json().await;
    assert_eq!(
        change["method"], "notifications/tools/list_changed",
        "{change}"
    );
    assert_eq!(
        change["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        7
    );
    c.notifier.resource_updated(WATCHED).await;
    let update = sse.next_json().await;
    assert_eq!(update["params"]["uri"], WATCHED, "{update}");
}

#[tokio::test]
async fn the_answer_to_a_handlers_request_reaches_it_from_another_replica() {
    let store = MemoryStore::new();
    let [a, b, c] = three(&store).await;
    let id = open_session(a.addr).await;
    for (n, (runs, answers)) in [(&a, &b), (&b, &c), (&c, &a), (&a, &a)]
        .into_iter()
        .enumerate()
    {
        let call = legacy(
            &id,
            10 + n as i64,
            "tools/call",
            json!({"name": "roots", "arguments": {}}),
        );
        let (head, mut sse) = Conn::open(runs.addr).await.stream(&call).await;
        assert_eq!(head.status, 200);
        let ask = sse.next_json().await;
        assert_eq!(ask["method"], "roots/list", "{ask}");
        let answer = json!({"jsonrpc": "2.0", "id": ask["id"], "result": {"roots": [{"uri": "file:///src"}, {"uri": "file:///doc"}]}});
        let r = send(
            answers.addr,
            &Request::post(&answer)
                .header("Mcp-Session-Id", &id)
                .header("MCP-Protocol-Version", LEGACY),
        )
        .await;
        assert_eq!(r.status(), 202);
        let result = sse.next_json().await;
        assert_eq!(result["id"], 10 + n as i64);
        assert_eq!(
            result["result"]["content"][0]["text"], "2 roots",
            "call {n}: {result}"
        );
    }
    // The replicas number their requests apart, so an answer can only
    // reach the one that asked.
    let mut asked = Vec::new();
    for (n, runs) in [&a, &b].into_iter().enumerate() {
        let call = legacy(
            &id,
            20 + n as i64,
            "tools/call",
            json!({"name": "roots", "arguments": {}}),
        );
        let (_, mut sse) = Conn::open(runs.addr).await.stream(&call).await;
        asked.push(sse.next_json().await["id"].clone());
    }
    assert_ne!(asked[0], asked[1]);
}
