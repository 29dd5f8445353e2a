//! Run-time change notifications through the engine over an in-memory
//! duplex: `resources/subscribe` and `notifications/resources/updated`,
//! `list_changed` from the application's `Notifier` (stateful era), and
//! `subscriptions/listen` streams with their filters (stateless era).

use std::sync::Arc;

use mcpgen_runtime::server::ServerBuilder;
use mcpgen_runtime::server::{BoxFuture, CallFailure, Dispatch, ToolOutput};
use mcpgen_runtime::transport::LineTransport;
use mcpgen_runtime::{Notifier, RequestContext};
use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream, Lines};

const WATCHED: &str = "test://watched";

/// Tool 0 announces every kind of change from inside a handler.
struct Handlers;

impl Dispatch for Handlers {
    fn call(
        &self,
        _: usize,
        _: Value,
        ctx: RequestContext,
    ) -> BoxFuture<Result<ToolOutput, CallFailure>> {
        Box::pin(async move {
            let notifier = ctx.notifier().expect("an attached context has a notifier");
            let sent = notifier.tools_changed().await
                + notifier.prompts_changed().await
                + notifier.resource_updated(WATCHED).await;
            Ok(ToolOutput::Content(
                json!([{ "type": "text", "text": format!("sent {sent}") }]),
            ))
        })
    }
}

struct Client {
    write: tokio::io::WriteHalf<DuplexStream>,
    lines: Lines<BufReader<tokio::io::ReadHalf<DuplexStream>>>,
}

impl Client {
    async fn send(&mut self, message: Value) {
        self.write
            .write_all(message.to_string().as_bytes())
            .await
            .unwrap();
        self.write.write_all(b"\n").await.unwrap();
    }

    async fn recv(&mut self) -> Value {
        let line = self
            .lines
            .next_line()
            .await
            .unwrap()
            .expect("server closed the stream");
        serde_json::from_str(&line).unwrap()
    }

    /// Messages up to and including the response with `id`.
    async fn until_response(&mut self, id: i64) -> Vec<Value> {
        let mut seen = Vec::new();
        loop {
            let message = self.recv().await;
            let done = message["id"] == id && message.get("method").is_none();
            seen.push(message);
            if done {
                return seen;
            }
        }
    }
}

fn start() -> (Client, Notifier) {
    let tools = json!([{"name": "trigger", "inputSchema": {"type": "object"}}]);
    let server = ServerBuilder::new("2025-11-25", tools, Arc::new(Handlers))
        .server_info(json!({"name": "notifying", "version": "1.0.0"}))
        .resources(vec![json!({"uri": WATCHED, "name": "watched"})])
        .list_changed(true)
        .build()
        .unwrap();
    let notifier = server.notifier();
    let (client_end, server_end) = tokio::io::duplex(1 << 16);
    let (sr, sw) = tokio::io::split(server_end);
    tokio::spawn(server.serve(LineTransport::new(sr, sw)));
    let (cr, cw) = tokio::io::split(client_end);
    (
        Client {
            write: cw,
            lines: BufReader::new(cr).lines(),
        },
        notifier,
    )
}

fn methods(messages: &[Value]) -> Vec<&str> {
    messages
        .iter()
        .filter_map(|m| m["method"].as_str())
        .collect()
}

#[tokio::test]
async fn stateful_sessions_hear_list_changes_and_updates_of_what_they_subscribed_to() {
    let (mut c, notifier) = start();
    // Before initialize nothing is sent.
    assert_eq!(notifier.tools_changed().await, 0);
    let init = json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}});
    c.send(json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": init}))
        .await;
    let caps = c.recv().await["result"]["capabilities"].clone();
    assert_eq!(
        caps["resources"],
        json!({"listChanged": true, "subscribe": true})
    );
    assert_eq!(caps["tools"]["listChanged"], true);
    assert_eq!(caps["prompts"]["listChanged"], true);
    c.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        .await;

    let call = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "trigger", "arguments": {}}});
    c.send(call.clone()).await;
    let seen = c.until_response(1).await;
    assert_eq!(
        methods(&seen),
        [
            "notifications/tools/list_changed",
            "notifications/prompts/list_changed"
        ],
        "not subscribed yet"
    );

    c.send(json!({"jsonrpc": "2.0", "id": 2, "method": "resources/subscribe", "params": {"uri": WATCHED}})).await;
    assert_eq!(c.recv().await["result"], json!({}));
    let mut again = call.clone();
    again["id"] = json!(3);
    c.send(again).await;
    let seen = c.until_response(3).await;
    assert!(
        methods(&seen).contains(&"notifications/resources/updated"),
        "{seen:?}"
    );
    let update = seen
        .iter()
        .find(|m| m["method"] == "notifications/resources/updated")
        .unwrap();
    assert_eq!(update["params"], json!({"uri": WATCHED}));
    assert_eq!(
        seen.last().unwrap()["result"]["content"][0]["text"],
        "sent 3"
    );

    // The application's own handle reaches the session too.
    assert_eq!(notifier.resources_changed().await, 1);
    assert_eq!(
        c.recv().await["method"],
        "notifications/resources/list_changed"
    );

    c.send(json!({"jsonrpc": "2.0", "id": 4, "method": "resources/unsubscribe", "params": {"uri": WATCHED}})).await;
    assert_eq!(c.recv().await["result"], json!({}));
    assert_eq!(notifier.resource_updated(WATCHED).await, 0);
    c.send(json!({"jsonrpc": "2.0", "id": 5, "method": "resources/subscribe", "params": {}}))
        .await;
    assert_eq!(c.recv().await["error"]["code"], -32602);
}

fn meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"}
    })
}

#[tokio::test]
async fn stateless_listen_streams_are_acknowledged_tagged_and_filtered() {
    let (mut c, notifier) = start();
    let filter = json!({"promptsListChanged": true, "resourceSubscriptions": [WATCHED]});
    c.send(json!({"jsonrpc": "2.0", "id": "sub-1", "method": "subscriptions/listen", "params": {"_meta": meta(), "notifications": filter}}))
        .await;
    let ack = c.recv().await;
    assert_eq!(ack["method"], "notifications/subscriptions/acknowledged");
    assert_eq!(
        ack["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        "sub-1"
    );
    assert_eq!(ack["params"]["notifications"], filter);

    c.send(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "trigger", "arguments": {}, "_meta": meta()}}))
        .await;
    let seen = c.until_response(2).await;
    // Tools were not asked for; prompts and the watched resource were.
    assert_eq!(
        methods(&seen),
        [
            "notifications/prompts/list_changed",
            "notifications/resources/updated"
        ]
    );
    for note in &seen[..2] {
        assert_eq!(
            note["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
            "sub-1"
        );
    }
    // resources/subscribe is not a method of this era.
    c.send(json!({"jsonrpc": "2.0", "id": 3, "method": "resources/subscribe", "params": {"uri": WATCHED, "_meta": meta()}})).await;
    assert_eq!(c.recv().await["error"]["code"], -32601);

    // Cancelling the listen request ends the subscription, without a response.
    c.send(json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": "sub-1", "_meta": meta()}})).await;
    c.send(json!({"jsonrpc": "2.0", "id": 4, "method": "tools/list", "params": {"_meta": meta()}}))
        .await;
    assert_eq!(c.recv().await["id"], 4);
    assert_eq!(notifier.prompts_changed().await, 0);
    // A filter is required.
    c.send(json!({"jsonrpc": "2.0", "id": 5, "method": "subscriptions/listen", "params": {"_meta": meta()}})).await;
    assert_eq!(c.recv().await["error"]["code"], -32602);
}

#[tokio::test]
async fn the_runtime_client_subscribes_and_hears_updates() {
    use mcpgen_runtime::client::{CallOptions, Client, ClientOptions};
    let tools = json!([{"name": "trigger", "inputSchema": {"type": "object"}}]);
    let server = ServerBuilder::new("2025-11-25", tools, Arc::new(Handlers))
        .server_info(json!({"name": "notifying", "version": "1.0.0"}))
        .resources(vec![json!({"uri": WATCHED, "name": "watched"})])
        .build()
        .unwrap();
    let notifier = server.notifier();
    let (client_end, server_end) = tokio::io::duplex(1 << 16);
    let (sr, sw) = tokio::io::split(server_end);
    tokio::spawn(server.serve(LineTransport::new(sr, sw)));
    let (cr, cw) = tokio::io::split(client_end);
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<(String, Value)>();
    let options = ClientOptions::new(["2025-11-25"]).on_notification(move |method, params| {
        let _ = tx.send((method.to_owned(), params.clone()));
    });
    let client = Client::connect(LineTransport::new(cr, cw), options)
        .await
        .unwrap();
    client
        .subscribe_resource(WATCHED, &CallOptions::new())
        .await
        .unwrap();
    assert_eq!(notifier.resource_updated(WATCHED).await, 1);
    let (method, params) = rx.recv().await.unwrap();
    assert_eq!(
        (method.as_str(), &params["uri"]),
        ("notifications/resources/updated", &json!(WATCHED))
    );
    client
        .unsubscribe_resource(WATCHED, &CallOptions::new())
        .await
        .unwrap();
    assert_eq!(notifier.resource_updated(WATCHED).await, 0);
}

#[tokio::test]
async fn a_connection_that_listens_still_ends_when_its_input_ends() {
    let tools = json!([{"name": "trigger", "inputSchema": {"type": "object"}}]);
    let server = ServerBuilder::new("2025-11-25", tools, Arc::new(Handlers))
        .server_info(json!({"name": "notifying", "version": "1.0.0"}))
        .build()
        .unwrap();
    let (client_end, server_end) = tokio::io::duplex(1 << 16);
    let (sr, sw) = tokio::io::split(server_end);
    let served = tokio::spawn(server.serve(LineTransport::new(sr, sw)));
    drop(client_end);
    let ended = tokio::time::timeout(std::time::Duration::from_secs(20), served).await;
    assert!(
        matches!(ended, Ok(Ok(Ok(())))),
        "serve returns at end of input: {ended:?}"
    );
}
