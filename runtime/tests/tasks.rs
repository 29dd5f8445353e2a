//! Tool calls as tasks through the engine: the 2025-11-25 experimental
//! tasks over a line transport (the client asks with `params.task`;
//! `tasks/get`, `tasks/result`, `tasks/list`, `tasks/cancel`), and the
//! 2026-07-28 extension through `Server::handle_text` (owner binding, the
//! bound per owner, `tasks/update` and `tasks/cancel` through a second
//! server sharing the store, a dead replica's task marked failed); a
//! 2025-11-25 task's input requests and status notifications through the
//! client engine.

use std::sync::Arc;
use std::time::Duration;

use mcpgen_runtime::revision::meta;
use mcpgen_runtime::server::tasks::{
    MemoryTaskStore, TaskOptions, TaskRecord, TaskStatus, TaskStore, EXTENSION,
};
use mcpgen_runtime::server::{BoxFuture, CallFailure, Dispatch, ToolOutput};
use mcpgen_runtime::server::{Server, ServerBuilder};
use mcpgen_runtime::transport::LineTransport;
use mcpgen_runtime::{Elicitation, Principal, RequestContext, Sink, ToolError};
use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream, Lines};

fn tools() -> Value {
    let open = json!({"type": "object"});
    json!([
        {"name": "quick", "inputSchema": open, "execution": {"taskSupport": "required"}},
        {"name": "forever", "inputSchema": open, "execution": {"taskSupport": "optional"}},
        {"name": "ask", "inputSchema": open, "execution": {"taskSupport": "optional"}},
        {"name": "plain", "inputSchema": open}
    ])
}

struct Handlers;

async fn run(index: usize, ctx: RequestContext) -> Result<String, ToolError> {
    match index {
        0 => {
            tokio::time::sleep(Duration::from_millis(50)).await;
            Ok("quick done".into())
        }
        1 => {
            if let Some(task) = ctx.task() {
                task.start().await;
            }
            ctx.cancelled().await;
            Ok("never".into())
        }
        2 => {
            let task = ctx.task().ok_or_else(|| ToolError::new("no task"))?;
            let schema = json!({"type": "object", "properties": {"name": {"type": "string"}}});
            let answer: Elicitation<Value> =
                task.elicit_with("who", "Who are you?", schema).await?;
            Ok(format!(
                "hello {}",
                answer
                    .accepted()
                    .map(|c| c["name"].clone())
                    .unwrap_or_default()
            ))
        }
        _ => Ok("plain".into()),
    }
}

impl Dispatch for Handlers {
    fn call(
        &self,
        index: usize,
        _: Value,
        ctx: RequestContext,
    ) -> BoxFuture<Result<ToolOutput, CallFailure>> {
        Box::pin(async move {
            let text = run(index, ctx).await.map_err(CallFailure::from)?;
            Ok(ToolOutput::Content(
                json!([{ "type": "text", "text": text }]),
            ))
        })
    }
}

fn server(store: Arc<MemoryTaskStore>, lease: Duration) -> Server {
    let options = TaskOptions {
        poll_interval: Duration::from_millis(20),
        max_per_owner: 2,
        lease,
        store,
        ..TaskOptions::default()
    };
    ServerBuilder::new("2025-11-25", tools(), Arc::new(Handlers))
        .tasks(options)
        .build()
        .unwrap()
}

struct Client {
    write: tokio::io::WriteHalf<DuplexStream>,
    lines: Lines<BufReader<tokio::io::ReadHalf<DuplexStream>>>,
    next: i64,
    /// The notifications read while waiting for answers, in order.
    notified: Vec<Value>,
}

impl Client {
    async fn request(&mut self, method: &str, params: Value) -> Value {
        self.next += 1;
        let message =
            json!({"jsonrpc": "2.0", "id": self.next, "method": method, "params": params});
        self.write
            .write_all(format!("{message}\n").as_bytes())
            .await
            .unwrap();
        loop {
            let line = self
                .lines
                .next_line()
                .await
                .unwrap()
                .expect("server closed the stream");
            let message: Value = serde_json::from_str(&line).unwrap();
            if message.get("id").is_some() {
                return message;
            }
            self.notified.push(message);
        }
    }
}

#[tokio::test]
async fn the_2025_11_25_tasks_lifecycle() {
    let server = server(Arc::new(MemoryTaskStore::new()), Duration::from_secs(15));
    let (client_end, server_end) = tokio::io::duplex(1 << 16);
    let (sr, sw) = tokio::io::split(server_end);
    tokio::spawn(server.serve(LineTransport::new(sr, sw)));
    let (cr, cw) = tokio::io::split(client_end);
    let mut c = Client {
        write: cw,
        lines: BufReader::new(cr).lines(),
        next: 0,
        notified: Vec::new(),
    };
    let init = json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}});
    let reply = c.request("initialize", init).await;
    assert_eq!(
        reply["result"]["capabilities"]["tasks"]["requests"]["tools"]["call"],
        json!({}),
        "{reply}"
    );

    // A required task called plainly, a forbidden one as a task: -32601.
    assert_eq!(
        c.request("tools/call", json!({"name": "quick", "arguments": {}}))
            .await["error"]["code"],
        -32601
    );
    let plain = json!({"name": "plain", "arguments": {}, "task": {}});
    assert_eq!(
        c.request("tools/call", plain).await["error"]["code"],
        -32601
    );

    let created = c
        .request(
            "tools/call",
            json!({"name": "quick", "arguments": {}, "task": {"ttl": 60000}}),
        )
        .await;
    let task = &created["result"]["task"];
    assert_eq!(task["status"], "working", "{created}");
    assert_eq!(
        task["ttl"], 60000,
        "the requested ttl, under the server's limit"
    );
    assert_eq!(task["pollInterval"], 20);
    let id = task["taskId"].as_str().unwrap().to_owned();
    let got = c.request("tasks/get", json!({"taskId": id})).await;
    assert_eq!(got["result"]["taskId"], id.as_str());
    assert!(
        got["result"].get("result").is_none(),
        "2025-11-25 has tasks/result for the result"
    );
    let listed = c.request("tasks/list", json!({})).await;
    assert_eq!(
        listed["result"]["tasks"][0]["taskId"],
        id.as_str(),
        "{listed}"
    );

    // tasks/result waits for the end and ties the result to the task.
    let result = c.request("tasks/result", json!({"taskId": id})).await;
    assert_eq!(
        result["result"]["content"][0]["text"], "quick done",
        "{result}"
    );
    assert_eq!(
        result["result"]["_meta"]["io.modelcontextprotocol/related-task"]["taskId"],
        id.as_str()
    );
    assert_eq!(
        c.request("tasks/get", json!({"taskId": id})).await["result"]["status"],
        "completed"
    );
    // A finished task cannot be cancelled in 2025-11-25.
    assert_eq!(
        c.request("tasks/cancel", json!({"taskId": id})).await["error"]["code"],
        -32602
    );

    let created = c
        .request(
            "tools/call",
            json!({"name": "forever", "arguments": {}, "task": {}}),
        )
        .await;
    let id = created["result"]["task"]["taskId"]
        .as_str()
        .unwrap()
        .to_owned();
    let cancelled = c.request("tasks/cancel", json!({"taskId": id})).await;
    assert_eq!(cancelled["result"]["status"], "cancelled", "{cancelled}");
    let result = c.request("tasks/result", json!({"taskId": id})).await;
    assert_eq!(
        result["error"]["code"], -32602,
        "a cancelled task has no result: {result}"
    );
    // Each end was notified.
    let ends: Vec<(&str, &str)> = c
        .notified
        .iter()
        .filter(|n| n["method"] == "notifications/tasks/status")
        .map(|n| {
            (
                n["params"]["status"].as_str().unwrap(),
                n["params"]["taskId"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        ends.last(),
        Some(&("cancelled", id.as_str())),
        "{:?}",
        c.notified
    );
    assert!(
        ends.iter().any(|(status, _)| *status == "completed"),
        "{:?}",
        c.notified
    );
    assert_eq!(
        c.request("tasks/get", json!({"taskId": "nope"})).await["error"]["code"],
        -32602
    );
}

/// Sends one stateless request as `who` (with the extension unless `plain`).
async fn send(server: &Server, who: &str, method: &str, mut params: Value, plain: bool) -> Value {
    let extensions = if plain {
        json!({})
    } else {
        json!({ EXTENSION: {} })
    };
    params["_meta"] = json!({
        meta::PROTOCOL_VERSION: "2026-07-28",
        meta::CLIENT_CAPABILITIES: {"elicitation": {}, "extensions": extensions}
    });
    let text = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}).to_string();
    let mut ext = http::Extensions::new();
    ext.insert(Principal {
        subject: who.into(),
        ..Principal::default()
    });
    let handled = server.handle_text(&server.session(), &text, &Sink::discard(), &Arc::new(ext));
    let reply = handled.into_reply().await.expect("a reply");
    serde_json::from_str(&reply.text).unwrap()
}

async fn until(server: &Server, who: &str, id: &str, status: &str) -> Value {
    for _ in 0..500 {
        let got = send(server, who, "tasks/get", json!({"taskId": id}), false).await;
        if got["result"]["status"] == status {
            return got["result"].clone();
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("task {id} never became {status}");
}

#[tokio::test]
async fn extension_tasks_are_bound_bounded_and_served_by_any_replica() {
    let store = Arc::new(MemoryTaskStore::new());
    let (a, b) = (
        server(Arc::clone(&store), Duration::from_secs(15)),
        server(Arc::clone(&store), Duration::from_secs(15)),
    );
    let discover = send(&a, "alice", "server/discover", json!({}), false).await;
    assert_eq!(
        discover["result"]["capabilities"]["extensions"][EXTENSION],
        json!({})
    );
    assert!(discover["result"]["capabilities"].get("tasks").is_none());

    // Without the extension: -32021 for a required task and the task methods.
    let reply = send(
        &a,
        "alice",
        "tools/call",
        json!({"name": "quick", "arguments": {}}),
        true,
    )
    .await;
    assert_eq!(reply["error"]["code"], -32021);
    assert_eq!(
        reply["error"]["data"]["requiredCapabilities"]["extensions"][EXTENSION],
        json!({})
    );
    assert_eq!(
        send(&a, "alice", "tasks/get", json!({"taskId": "x"}), true).await["error"]["code"],
        -32021
    );
    assert_eq!(
        send(&a, "alice", "tasks/list", json!({}), false).await["error"]["code"],
        -32601
    );

    // Started on A, asked for input, answered through B, read through B.
    let created = send(
        &a,
        "alice",
        "tools/call",
        json!({"name": "ask", "arguments": {}}),
        false,
    )
    .await;
    assert_eq!(created["result"]["resultType"], "task", "{created}");
    let id = created["result"]["taskId"].as_str().unwrap().to_owned();
    let parked = until(&b, "alice", &id, "input_required").await;
    assert_eq!(
        parked["inputRequests"]["who"]["method"],
        "elicitation/create"
    );
    // Another caller cannot see it, nor answer it.
    assert_eq!(
        send(&b, "mallory", "tasks/get", json!({"taskId": id}), false).await["error"]["code"],
        -32602
    );
    let answer = json!({"taskId": id, "inputResponses": {"who": {"action": "accept", "content": {"name": "Ada"}}}});
    assert_eq!(
        send(&b, "mallory", "tasks/update", answer.clone(), false).await["error"]["code"],
        -32602
    );
    let ack = send(&b, "alice", "tasks/update", answer, false).await;
    assert_eq!(ack["result"]["resultType"], "complete");
    assert!(ack["result"].get("taskId").is_none());
    let done = until(&b, "alice", &id, "completed").await;
    assert_eq!(done["result"]["content"][0]["text"], "hello \"Ada\"");

    // Two unfinished tasks per caller; a third is refused; cancelling
    // through B stops the handler running on A.
    let first = send(
        &a,
        "alice",
        "tools/call",
        json!({"name": "forever", "arguments": {}}),
        false,
    )
    .await;
    let second = send(
        &a,
        "alice",
        "tools/call",
        json!({"name": "forever", "arguments": {}}),
        false,
    )
    .await;
    let third = send(
        &a,
        "alice",
        "tools/call",
        json!({"name": "forever", "arguments": {}}),
        false,
    )
    .await;
    assert!(
        third["error"]["message"]
            .as_str()
            .unwrap()
            .contains("too many unfinished tasks"),
        "{third}"
    );
    assert_eq!(
        send(
            &a,
            "bob",
            "tools/call",
            json!({"name": "forever", "arguments": {}}),
            false
        )
        .await["result"]["resultType"],
        "task"
    );
    for created in [first, second] {
        let id = created["result"]["taskId"].as_str().unwrap();
        let ack = send(&b, "alice", "tasks/cancel", json!({"taskId": id}), false).await;
        assert_eq!(
            ack["result"],
            json!({"resultType": "complete", "_meta": {meta::SERVER_INFO: {"name": "mcpgen-server", "version": "0.0.0"}}})
        );
        until(&a, "alice", id, "cancelled").await;
    }
    assert_eq!(
        send(
            &a,
            "alice",
            "tools/call",
            json!({"name": "forever", "arguments": {}}),
            false
        )
        .await["result"]["resultType"],
        "task"
    );
}

#[tokio::test]
async fn a_task_whose_replica_stopped_renewing_its_lease_is_failed() {
    let store = Arc::new(MemoryTaskStore::new());
    let b = server(Arc::clone(&store), Duration::from_secs(15));
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64;
    let orphan = TaskRecord {
        id: "orphan".into(),
        owner: "alice".into(),
        modern: true,
        status: TaskStatus::Working,
        status_message: None,
        created_ms: now - 60_000,
        updated_ms: now - 60_000,
        ttl_ms: None,
        poll_ms: 20,
        result: None,
        error: None,
        input_requests: Default::default(),
        input_responses: Default::default(),
        cancel_requested: false,
        replica: "gone".into(),
        lease_ms: now - 30_000,
    };
    assert!(store.create(&orphan, 2).await.unwrap());
    let got = send(&b, "alice", "tasks/get", json!({"taskId": "orphan"}), false).await;
    assert_eq!(got["result"]["status"], "failed", "{got}");
    assert_eq!(got["result"]["error"]["code"], -32603);
}

fn client_options(version: &str) -> mcpgen_runtime::client::ClientOptions {
    let handlers = mcpgen_runtime::client::ClientHandlers::new()
        .on_elicitation(|_| async { Ok(json!({"action": "accept", "content": {"name": "Ada"}})) });
    let mut options = mcpgen_runtime::client::ClientOptions::new([version])
        .client_info("tasker", "1.0")
        .timeout(Duration::from_secs(20))
        .handlers(handlers);
    options.capabilities = json!({"elicitation": {}, "extensions": { EXTENSION: {} }});
    options
}

/// The client's task handle against the engine: a task's result, input
/// answered by the client's handlers, cancellation.
async fn drive_client(client: &mcpgen_runtime::client::Client, version: &str, with_input: bool) {
    use mcpgen_runtime::client::ToolStart;
    let ToolStart::Task(task) = client
        .start_tool("quick", json!({}), Some(Duration::from_secs(60)))
        .await
        .unwrap()
    else {
        panic!("{version}: quick runs as a task")
    };
    assert!(!task.id().is_empty());
    assert!(
        task.poll_interval() <= Duration::from_millis(20),
        "{version}: the server's interval"
    );
    let result = task.result().await.unwrap();
    assert_eq!(result["content"][0]["text"], "quick done", "{version}");
    if with_input {
        let ToolStart::Task(task) = client.start_tool("ask", json!({}), None).await.unwrap() else {
            panic!("{version}: a task")
        };
        assert_eq!(
            task.result().await.unwrap()["content"][0]["text"],
            "hello \"Ada\"",
            "{version}"
        );
    }
    let ToolStart::Task(mut task) = client.start_tool("forever", json!({}), None).await.unwrap()
    else {
        panic!("{version}: a task")
    };
    task.cancel().await.unwrap();
    assert_eq!(
        task.poll().await.unwrap()["status"],
        "cancelled",
        "{version}"
    );
    let plain = client.start_tool("plain", json!({}), None).await;
    // 2025-11-25 refuses a task of a tool that forbids it; the extension
    // answers such a call inline.
    match (version, plain) {
        ("2026-07-28", Ok(ToolStart::Done(result))) => {
            assert_eq!(result["content"][0]["text"], "plain")
        }
        ("2025-11-25", Err(e)) => assert!(e.to_string().contains("-32601"), "{e}"),
        (_, other) => panic!("{version}: {other:?}"),
    }
}

#[tokio::test]
async fn the_client_drives_tasks_over_a_stream_and_streamable_http_in_both_eras() {
    use mcpgen_runtime::client::http::HttpTransport;
    use mcpgen_runtime::client::Client;
    use mcpgen_runtime::server::http::{serve_with_shutdown, HttpConfig, HttpService};
    for version in ["2025-11-25", "2026-07-28"] {
        let (client_end, server_end) = tokio::io::duplex(1 << 16);
        let (sr, sw) = tokio::io::split(server_end);
        tokio::spawn(
            server(Arc::new(MemoryTaskStore::new()), Duration::from_secs(15))
                .serve(LineTransport::new(sr, sw)),
        );
        let (cr, cw) = tokio::io::split(client_end);
        let client = Client::connect(LineTransport::new(cr, cw), client_options(version))
            .await
            .unwrap();
        drive_client(&client, version, true).await;
    }
    let service = HttpService::new(
        server(Arc::new(MemoryTaskStore::new()), Duration::from_secs(15)),
        HttpConfig::default(),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let (_stop, stopped) = tokio::sync::oneshot::channel::<()>();
    tokio::spawn(serve_with_shutdown(listener, service, "/mcp", async {
        let _ = stopped.await;
    }));
    for version in ["2025-11-25", "2026-07-28"] {
        let client = Client::connect(HttpTransport::new(&url).unwrap(), client_options(version))
            .await
            .unwrap();
        // A 2025-11-25 task asks its input on the session's GET stream.
        drive_client(&client, version, true).await;
    }
}

/// A 2025-11-25 task asks the client through the session's stream, tied
/// to the task, and the session learns each change of status without
/// polling: with a poll interval of an hour, only the notifications can
/// move `next_status` on.
#[tokio::test]
async fn a_2025_11_25_task_asks_its_session_and_notifies_each_status() {
    use mcpgen_runtime::client::{Client, ToolStart};
    use std::sync::Mutex;
    let options = TaskOptions {
        poll_interval: Duration::from_secs(3600),
        ..TaskOptions::default()
    };
    let server = ServerBuilder::new("2025-11-25", tools(), Arc::new(Handlers))
        .tasks(options)
        .build()
        .unwrap();
    let (client_end, server_end) = tokio::io::duplex(1 << 16);
    let (sr, sw) = tokio::io::split(server_end);
    tokio::spawn(server.serve(LineTransport::new(sr, sw)));

    let asked = Arc::new(Mutex::new(Vec::<Value>::new()));
    let statuses = Arc::new(Mutex::new(Vec::<Value>::new()));
    let (asked_in, statuses_in) = (Arc::clone(&asked), Arc::clone(&statuses));
    let handlers = mcpgen_runtime::client::ClientHandlers::new().on_elicitation(move |params| {
        asked_in.lock().unwrap().push(params);
        async { Ok(json!({"action": "accept", "content": {"name": "Ada"}})) }
    });
    let mut options = mcpgen_runtime::client::ClientOptions::new(["2025-11-25"])
        .timeout(Duration::from_secs(20))
        .handlers(handlers)
        .on_notification(move |method, params| {
            if method == "notifications/tasks/status" {
                statuses_in.lock().unwrap().push(params.clone());
            }
        });
    options.capabilities = json!({"elicitation": {}});
    let (cr, cw) = tokio::io::split(client_end);
    let client = Client::connect(LineTransport::new(cr, cw), options)
        .await
        .unwrap();

    let ToolStart::Task(mut task) = client.start_tool("ask", json!({}), None).await.unwrap() else {
        panic!("ask runs as a task")
    };
    let id = task.id().to_owned();
    let last = loop {
        let state = tokio::time::timeout(Duration::from_secs(30), task.next_status())
            .await
            .expect("a status notification")
            .unwrap();
        if state["status"] == "completed" {
            break state.clone();
        }
    };
    assert_eq!(last["taskId"], id.as_str());
    assert!(
        last.get("_meta").is_none(),
        "no related-task _meta on a status notification: {last}"
    );
    assert_eq!(
        task.result().await.unwrap()["content"][0]["text"],
        "hello \"Ada\""
    );

    let asked = asked.lock().unwrap().clone();
    assert_eq!(asked.len(), 1, "{asked:?}");
    assert_eq!(
        asked[0]["_meta"]["io.modelcontextprotocol/related-task"]["taskId"],
        id.as_str(),
        "{asked:?}"
    );
    assert_eq!(asked[0]["message"], "Who are you?");
    let seen: Vec<String> = statuses
        .lock()
        .unwrap()
        .iter()
        .map(|s| s["status"].as_str().unwrap_or_default().to_owned())
        .collect();
    assert_eq!(
        seen,
        ["input_required", "working", "completed"],
        "each change of status, in order"
    );

    // A cancelled task tells of it too.
    let ToolStart::Task(mut task) = client.start_tool("forever", json!({}), None).await.unwrap()
    else {
        panic!("a task")
    };
    task.cancel().await.unwrap();
    let state = tokio::time::timeout(Duration::from_secs(30), task.next_status())
        .await
        .expect("the cancellation")
        .unwrap();
    assert_eq!(state["status"], "cancelled", "{state}");
}

/// Opens a `subscriptions/listen` request as `who` for `task_ids`; its
/// stream, after the acknowledgment (checked).
async fn listen(
    server: &Server,
    who: &str,
    task_ids: &[&str],
) -> tokio::sync::mpsc::Receiver<String> {
    let (tx, mut rx) = tokio::sync::mpsc::channel(16);
    let params = json!({
        "notifications": {"taskIds": task_ids},
        "_meta": {meta::PROTOCOL_VERSION: "2026-07-28", meta::CLIENT_CAPABILITIES: {"extensions": {EXTENSION: {}}}}
    });
    let text =
        json!({"jsonrpc": "2.0", "id": 7, "method": "subscriptions/listen", "params": params})
            .to_string();
    let mut ext = http::Extensions::new();
    ext.insert(Principal {
        subject: who.into(),
        ..Principal::default()
    });
    let handled = server.handle_text(&server.session(), &text, &Sink::new(tx), &Arc::new(ext));
    tokio::spawn(handled.into_reply());
    let ack: Value = serde_json::from_str(&rx.recv().await.expect("the acknowledgment")).unwrap();
    assert_eq!(ack["method"], "notifications/subscriptions/acknowledged");
    assert_eq!(
        ack["params"]["notifications"]["taskIds"],
        json!(task_ids),
        "{ack}"
    );
    rx
}

/// The tasks extension's `notifications/tasks`: each change of status of
/// a task, as the detailed task, to the listening requests of its owner
/// that name it, tagged with the subscription.
#[tokio::test]
async fn extension_tasks_notify_their_owners_listening_requests() {
    let server = server(Arc::new(MemoryTaskStore::new()), Duration::from_secs(15));
    let created = send(
        &server,
        "alice",
        "tools/call",
        json!({"name": "ask", "arguments": {}}),
        false,
    )
    .await;
    let id = created["result"]["taskId"]
        .as_str()
        .expect("a task")
        .to_owned();
    until(&server, "alice", &id, "input_required").await;
    let mut alice = listen(&server, "alice", &[&id]).await;
    let mut bob = listen(&server, "bob", &[&id]).await;

    let answer = json!({"taskId": id, "inputResponses": {"who": {"action": "accept", "content": {"name": "Ada"}}}});
    send(&server, "alice", "tasks/update", answer, false).await;
    let mut seen = Vec::new();
    while seen
        .last()
        .is_none_or(|n: &Value| n["params"]["status"] != "completed")
    {
        let text = alice.recv().await.expect("a notification");
        seen.push(serde_json::from_str(&text).unwrap());
    }
    let statuses: Vec<&str> = seen
        .iter()
        .map(|n| n["params"]["status"].as_str().unwrap())
        .collect();
    assert_eq!(statuses, ["working", "completed"], "{seen:?}");
    for n in &seen {
        assert_eq!(n["method"], "notifications/tasks");
        assert_eq!(n["params"]["taskId"], id.as_str());
        assert_eq!(n["params"]["_meta"][meta::SUBSCRIPTION_ID], 7);
    }
    assert_eq!(
        seen[1]["params"]["result"]["content"][0]["text"], "hello \"Ada\"",
        "the detailed task inlines the result"
    );
    // Queued to every listener at once: another owner's request got nothing.
    assert!(bob.try_recv().is_err(), "a task is told only to its owner");
}
