//! Messages between a client and a server spread over replicas, through a
//! real `redis-server` (and a real `nginx` round robin), each started by
//! the test on free loopback ports. Three replicas run in this process,
//! each with its own server, its own `RedisStore` connection and its own
//! loopback listener, as three processes would; a test server stands in
//! for the application so that it can announce changes and ask the client
//! for its roots.
//!
//! - A change the application announces on one replica (a list change,
//!   an update of a subscribed resource) reaches the GET stream a
//!   2025-11-25 session holds on another replica, and a 2026-07-28
//!   `subscriptions/listen` stream on another replica.
//! - The client's answer to a handler's `roots/list`, POSTed to another
//!   replica than the one running the handler, reaches the handler; the
//!   runtime's client makes such calls through nginx round robin in both
//!   eras, and every one succeeds.
//! - A 2025-11-25 task started on one replica tells the session's GET
//!   stream on another of each change of status and asks the client for
//!   input there; the answer, POSTed to a third, reaches the task. A
//!   2026-07-28 task's changes of status reach its owner's
//!   `subscriptions/listen` request held by another replica.
//! - A session left idle expires in Redis (the key's time-to-live) and on
//!   every replica: 404 everywhere.

mod infra;

#[path = "../../../runtime/tests/support/mod.rs"]
mod support;

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use infra::{require, Nginx, Redis};
use mcpgen_runtime::client::http::HttpTransport;
use mcpgen_runtime::client::ClientHandlers;
use mcpgen_runtime::client::{CallOptions, Client, ClientOptions};
use mcpgen_runtime::server::http::{
    serve_with_shutdown, HttpConfig, HttpService, RedisStore, SessionStore,
};
use mcpgen_runtime::server::tasks::EXTENSION as TASKS;
use mcpgen_runtime::server::ServerBuilder;
use mcpgen_runtime::server::{BoxFuture, CallFailure, Dispatch, ToolOutput};
use mcpgen_runtime::{Notifier, RequestContext};
use serde_json::{json, Value};
use support::{send, Conn, Request};

const LEGACY: &str = "2025-11-25";
const MODERN: &str = "2026-07-28";
const WATCHED: &str = "test://watched";

/// `roots` asks the client for its roots and says how many there are;
/// `confirm` (task support optional) becomes a task and asks the user to
/// confirm through it.
struct Roots;

impl Dispatch for Roots {
    fn call(
        &self,
        index: usize,
        _args: Value,
        ctx: RequestContext,
    ) -> BoxFuture<Result<ToolOutput, CallFailure>> {
        if index == 1 {
            return Box::pin(async move {
                let text = match ctx.task() {
                    Some(task) => {
                        task.start().await;
                        let form =
                            json!({"type": "object", "properties": {"go": {"type": "boolean"}}});
                        match task.elicit_with::<Value>("go", "Go ahead?", form).await {
                            Ok(_) => "confirmed".to_owned(),
                            Err(e) => format!("not confirmed: {e}"),
                        }
                    }
                    None => "not a task".to_owned(),
                };
                Ok(ToolOutput::Content(json!([{"type": "text", "text": text}])))
            });
        }
        Box::pin(async move {
            let text = match ctx.list_roots().await {
                Ok(roots) => format!("{} roots", roots.len()),
                Err(e) => format!("no roots: {e}"),
            };
            Ok(ToolOutput::Content(json!([{"type": "text", "text": text}])))
        })
    }
}

struct Replica {
    service: HttpService,
    notifier: Notifier,
    addr: SocketAddr,
    store: RedisStore,
}

/// A replica sharing sessions through the Redis at `url` under `prefix`.
async fn replica(url: &str, prefix: &str, idle: Duration) -> Replica {
    let tools = json!([
        {"name": "roots", "inputSchema": {"type": "object"}},
        {"name": "confirm", "inputSchema": {"type": "object"}, "execution": {"taskSupport": "optional"}}
    ]);
    let server = ServerBuilder::new(LEGACY, tools, Arc::new(Roots))
        .resources(vec![json!({"uri": WATCHED, "name": "watched"})])
        .list_changed(true)
        // Any replica resumes a 2026-07-28 request another one sealed.
        .request_state_key(b"one key for every replica of this endpoint")
        .build()
        .expect("server builds");
    let notifier = server.notifier();
    // Generous limits: a loaded CI machine may take over a second to
    // connect (the 1 s defaults would answer 404, as documented).
    let limit = Duration::from_secs(10);
    let store = RedisStore::new(url)
        .expect("redis url")
        .prefix(prefix)
        .timeout(limit);
    let config = HttpConfig::default()
        .session_store(store.clone())
        .session_idle(idle)
        .store_timeout(limit);
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
        store,
    }
}

async fn three(url: &str, prefix: &str, idle: Duration) -> [Replica; 3] {
    [
        replica(url, prefix, idle).await,
        replica(url, prefix, idle).await,
        replica(url, prefix, idle).await,
    ]
}

fn in_session(session: &str, body: &Value) -> Request {
    Request::post(body)
        .header("Mcp-Session-Id", session)
        .header("MCP-Protocol-Version", LEGACY)
}

async fn open_session(addr: SocketAddr) -> String {
    open_session_with(addr, json!({"roots": {}})).await
}

async fn open_session_with(addr: SocketAddr, capabilities: Value) -> String {
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {"protocolVersion": LEGACY, "capabilities": capabilities, "clientInfo": {"name": "raw", "version": "1"}}});
    let r = send(addr, &Request::post(&init)).await;
    assert_eq!(r.status(), 200, "initialize: {}", r.text());
    r.header("mcp-session-id").expect("a session id").to_owned()
}

/// A runtime client through `url` answering `roots/list` with two roots.
async fn client(url: &str, version: &str) -> Client {
    let handlers = ClientHandlers::new().on_roots(|_| async {
        Ok(json!({"roots": [{"uri": "file:///src"}, {"uri": "file:///doc"}]}))
    });
    let options = ClientOptions::new([version])
        .timeout(Duration::from_secs(30))
        .client_info("replica-messages", "1")
        .handlers(handlers);
    Client::connect(HttpTransport::new(url).expect("transport"), options)
        .await
        .expect("client connects through nginx")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn changes_and_answers_cross_replicas_through_redis_and_nginx() {
    let (Some(redis_bin), Some(nginx_bin)) = (require("redis-server"), require("nginx")) else {
        return;
    };
    let redis = Redis::start(&redis_bin);
    let [a, b, c] = three(&redis.url, "messages:", Duration::from_secs(60)).await;

    // A 2025-11-25 session: opened on a, its GET stream on b, its
    // subscription made on c; changes announced on a and c.
    let id = open_session(a.addr).await;
    assert!(
        a.store.load(&id).await.expect("Redis answers").is_some(),
        "initialize stored the session in Redis"
    );
    let get = Request::get()
        .header("Mcp-Session-Id", &id)
        .header("MCP-Protocol-Version", LEGACY);
    let (head, mut stream) = Conn::open(b.addr).await.stream(&get).await;
    assert_eq!(head.status, 200);
    let subscribe = json!({"jsonrpc": "2.0", "id": 1, "method": "resources/subscribe", "params": {"uri": WATCHED}});
    assert_eq!(
        send(c.addr, &in_session(&id, &subscribe)).await.json()["result"],
        json!({})
    );
    a.notifier.tools_changed().await;
    assert_eq!(
        stream.next_json().await["method"],
        "notifications/tools/list_changed"
    );
    c.notifier.resource_updated("test://other").await;
    c.notifier.resource_updated(WATCHED).await;
    let update = stream.next_json().await;
    assert_eq!(
        update["method"], "notifications/resources/updated",
        "{update}"
    );
    assert_eq!(
        update["params"]["uri"], WATCHED,
        "only the subscribed URI, once: {update}"
    );

    // A 2026-07-28 subscriptions/listen stream on c hears a change announced on b.
    let meta = json!({"io.modelcontextprotocol/protocolVersion": MODERN, "io.modelcontextprotocol/clientCapabilities": {}});
    let listen = json!({"jsonrpc": "2.0", "id": 7, "method": "subscriptions/listen",
        "params": {"_meta": meta, "notifications": {"promptsListChanged": true}}});
    let listen = Request::post(&listen)
        .header("MCP-Protocol-Version", MODERN)
        .header("Mcp-Method", "subscriptions/listen");
    let (_, mut listening) = Conn::open(c.addr).await.stream(&listen).await;
    assert_eq!(
        listening.next_json().await["method"],
        "notifications/subscriptions/acknowledged"
    );
    b.notifier.prompts_changed().await;
    let change = listening.next_json().await;
    assert_eq!(change["method"], "notifications/prompts/list_changed");
    assert_eq!(
        change["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        7
    );
    assert_eq!(
        stream.next_json().await["method"],
        "notifications/prompts/list_changed",
        "the session's stream too"
    );

    // roots/list asked on one replica, answered on another.
    for (n, (runs, answers)) in [(&a, &b), (&b, &c), (&c, &a)].into_iter().enumerate() {
        let call = json!({"jsonrpc": "2.0", "id": 10 + n, "method": "tools/call", "params": {"name": "roots", "arguments": {}}});
        let (_, mut sse) = Conn::open(runs.addr)
            .await
            .stream(&in_session(&id, &call))
            .await;
        let ask = sse.next_json().await;
        assert_eq!(ask["method"], "roots/list", "{ask}");
        let answer = json!({"jsonrpc": "2.0", "id": ask["id"], "result": {"roots": [{"uri": "file:///src"}]}});
        assert_eq!(
            send(answers.addr, &in_session(&id, &answer)).await.status(),
            202
        );
        let result = sse.next_json().await;
        assert_eq!(
            result["result"]["content"][0]["text"], "1 roots",
            "call {n}: {result}"
        );
    }

    // The runtime's client through nginx round robin, both eras: every
    // roots call succeeds wherever its answer lands.
    let nginx = Nginx::start(
        &nginx_bin,
        &[
            &a.addr.to_string(),
            &b.addr.to_string(),
            &c.addr.to_string(),
        ],
    );
    for version in [LEGACY, MODERN] {
        let client = client(&nginx.url, version).await;
        for n in 0..30 {
            let result = client
                .call_tool("roots", json!({}), &CallOptions::new())
                .await;
            let result = result.unwrap_or_else(|e| panic!("{version} call {n}: {e}"));
            assert_eq!(
                result["content"][0]["text"], "2 roots",
                "{version} call {n}: {result}"
            );
        }
        client.shutdown(Duration::from_secs(2)).await;
    }
    assert!(a.service.live_sessions() + b.service.live_sessions() + c.service.live_sessions() > 0);
    drop(a.store);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tasks_messages_reach_the_session_stream_on_another_replica() {
    let Some(redis_bin) = require("redis-server") else {
        return;
    };
    let redis = Redis::start(&redis_bin);
    let [a, b, c] = three(&redis.url, "tasks:", Duration::from_secs(60)).await;
    // The session opened on a, its GET stream on b, the task started on a.
    let id = open_session_with(a.addr, json!({"elicitation": {}})).await;
    let get = Request::get()
        .header("Mcp-Session-Id", &id)
        .header("MCP-Protocol-Version", LEGACY);
    let (head, mut stream) = Conn::open(b.addr).await.stream(&get).await;
    assert_eq!(head.status, 200);
    let call = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "confirm", "arguments": {}, "task": {"ttl": 60000}}});
    let created = send(a.addr, &in_session(&id, &call)).await.json();
    let task_id = created["result"]["task"]["taskId"]
        .as_str()
        .unwrap_or_else(|| panic!("a task was created: {created}"))
        .to_owned();

    // On b's stream: the task's status turns input_required, and its
    // request for input, tied to the task.
    let (mut status, mut ask) = (None, None);
    while status.is_none() || ask.is_none() {
        let message = stream.next_json().await;
        match message["method"].as_str() {
            Some("notifications/tasks/status") => status = Some(message),
            Some("elicitation/create") => ask = Some(message),
            _ => panic!("unexpected on the session's stream: {message}"),
        }
    }
    let (status, ask) = (status.unwrap(), ask.unwrap());
    assert_eq!(status["params"]["taskId"], task_id.as_str(), "{status}");
    assert_eq!(status["params"]["status"], "input_required", "{status}");
    assert_eq!(
        ask["params"]["_meta"]["io.modelcontextprotocol/related-task"]["taskId"],
        task_id.as_str(),
        "{ask}"
    );

    // The answer, POSTed to c, reaches the task on a; b hears it end.
    let answer = json!({"jsonrpc": "2.0", "id": ask["id"], "result": {"action": "accept", "content": {"go": true}}});
    assert_eq!(send(c.addr, &in_session(&id, &answer)).await.status(), 202);
    let mut statuses = Vec::new();
    while statuses.last().map(String::as_str) != Some("completed") {
        let message = stream.next_json().await;
        assert_eq!(message["method"], "notifications/tasks/status", "{message}");
        assert_eq!(message["params"]["taskId"], task_id.as_str(), "{message}");
        statuses.push(
            message["params"]["status"]
                .as_str()
                .unwrap_or("")
                .to_owned(),
        );
    }
    assert_eq!(
        statuses,
        ["working", "completed"],
        "the task's changes of status after the answer"
    );
}

/// A stateless (2026-07-28) request with the tasks extension and
/// elicitation among its capabilities.
fn modern(method: &str, name: Option<&str>, mut params: Value) -> Request {
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}, "extensions": {TASKS: {}}}
    });
    let body = json!({"jsonrpc": "2.0", "id": 3, "method": method, "params": params});
    let request = Request::post(&body)
        .header("MCP-Protocol-Version", MODERN)
        .header("Mcp-Method", method);
    match name {
        Some(name) => request.header("Mcp-Name", name),
        None => request,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tasks_changes_reach_its_owners_listening_request_on_another_replica() {
    let Some(redis_bin) = require("redis-server") else {
        return;
    };
    let redis = Redis::start(&redis_bin);
    let [a, _b, c] = three(&redis.url, "modern-tasks:", Duration::from_secs(60)).await;
    // The task runs on a and waits for input; the listening request is on c.
    let call = modern(
        "tools/call",
        Some("confirm"),
        json!({"name": "confirm", "arguments": {}}),
    );
    let created = send(a.addr, &call).await.json();
    let task_id = created["result"]["taskId"]
        .as_str()
        .unwrap_or_else(|| panic!("a task was created: {created}"))
        .to_owned();
    for _ in 0..200 {
        let get = modern("tasks/get", None, json!({"taskId": task_id}));
        if send(a.addr, &get).await.json()["result"]["status"] == "input_required" {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let listen = modern(
        "subscriptions/listen",
        None,
        json!({"notifications": {"taskIds": [task_id]}}),
    );
    let (_, mut listening) = Conn::open(c.addr).await.stream(&listen).await;
    assert_eq!(
        listening.next_json().await["method"],
        "notifications/subscriptions/acknowledged"
    );
    let answer = json!({"taskId": task_id, "inputResponses": {"go": {"action": "accept", "content": {"go": true}}}});
    let updated = send(a.addr, &modern("tasks/update", None, answer)).await;
    assert_eq!(updated.status(), 200, "{}", updated.text());
    let mut statuses = Vec::new();
    while statuses.last().map(String::as_str) != Some("completed") {
        let message = listening.next_json().await;
        assert_eq!(message["method"], "notifications/tasks", "{message}");
        assert_eq!(message["params"]["taskId"], task_id.as_str(), "{message}");
        statuses.push(
            message["params"]["status"]
                .as_str()
                .unwrap_or("")
                .to_owned(),
        );
    }
    // The change to input_required may reach c after the request began
    // to listen (it was relayed through Redis meanwhile).
    if statuses.first().map(String::as_str) == Some("input_required") {
        statuses.remove(0);
    }
    assert_eq!(
        statuses,
        ["working", "completed"],
        "each change of status, relayed from a"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_idle_session_expires_in_redis_and_on_every_replica() {
    let Some(redis_bin) = require("redis-server") else {
        return;
    };
    let redis = Redis::start(&redis_bin);
    let idle = Duration::from_millis(1500);
    let [a, b, c] = three(&redis.url, "expiry:", idle).await;
    let id = open_session(a.addr).await;
    let ping = json!({"jsonrpc": "2.0", "id": 1, "method": "ping"});
    assert_eq!(
        send(b.addr, &in_session(&id, &ping)).await.status(),
        200,
        "shared through Redis"
    );
    let stored = a.store.load(&id).await.expect("Redis answers");
    assert_eq!(
        stored.map(|s| s.snapshot.protocol_version).as_deref(),
        Some(LEGACY)
    );

    tokio::time::sleep(idle * 2).await;
    assert_eq!(
        a.store.load(&id).await.expect("Redis answers"),
        None,
        "the key expired in Redis"
    );
    for (name, replica) in [("a", &a), ("b", &b), ("c", &c)] {
        let r = send(replica.addr, &in_session(&id, &ping)).await;
        assert_eq!(r.status(), 404, "replica {name}: {}", r.text());
    }
}
