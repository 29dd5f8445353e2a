//! Run-time change notifications over Streamable HTTP on loopback: a
//! stateful session hears list changes and updates of the resources it
//! subscribed to on its GET stream; a stateless `subscriptions/listen`
//! POST is answered with an SSE stream that starts with the acknowledgment.

mod support;

use std::sync::Arc;

use mcpgen_runtime::server::http::{serve_with_shutdown, HttpConfig, HttpService};
use mcpgen_runtime::server::ServerBuilder;
use mcpgen_runtime::server::{BoxFuture, CallFailure, Dispatch, ToolOutput};
use mcpgen_runtime::{Notifier, RequestContext};
use serde_json::{json, Value};
use support::{send, Conn, Request};
use tokio::sync::oneshot;

const LEGACY: &str = "2025-11-25";
const WATCHED: &str = "test://watched";

struct NoTools;

impl Dispatch for NoTools {
    fn call(
        &self,
        _: usize,
        _: Value,
        _: RequestContext,
    ) -> BoxFuture<Result<ToolOutput, CallFailure>> {
        Box::pin(async { Ok(ToolOutput::Content(json!([]))) })
    }
}

async fn start() -> (std::net::SocketAddr, Notifier, oneshot::Sender<()>) {
    let server = ServerBuilder::new(LEGACY, json!([]), Arc::new(NoTools))
        .server_info(json!({"name": "notifying", "version": "1.0.0"}))
        .resources(vec![json!({"uri": WATCHED, "name": "watched"})])
        .list_changed(true)
        .build()
        .unwrap();
    let notifier = server.notifier();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (stop, stopped) = oneshot::channel::<()>();
    tokio::spawn(serve_with_shutdown(
        listener,
        HttpService::new(server, HttpConfig::default()),
        "/mcp",
        async {
            let _ = stopped.await;
        },
    ));
    (addr, notifier, stop)
}

fn in_session(id: &str, body: Value) -> Request {
    Request::post(&body)
        .header("Mcp-Session-Id", id)
        .header("MCP-Protocol-Version", LEGACY)
}

#[tokio::test]
async fn a_session_hears_changes_on_its_get_stream() {
    let (addr, notifier, _stop) = start().await;
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {"protocolVersion": LEGACY, "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}});
    let r = send(addr, &Request::post(&init)).await;
    assert_eq!(
        r.json()["result"]["capabilities"]["resources"]["subscribe"],
        true
    );
    let id = r.header("mcp-session-id").unwrap().to_owned();
    let r = send(
        addr,
        &in_session(
            &id,
            json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        ),
    )
    .await;
    assert_eq!(r.status(), 202);

    // No stream open yet: nobody hears it.
    assert_eq!(notifier.tools_changed().await, 0);
    let (head, mut sse) = Conn::open(addr)
        .await
        .stream(&Request::get().header("Mcp-Session-Id", &id))
        .await;
    assert_eq!(head.status, 200);
    let subscribe = json!({"jsonrpc": "2.0", "id": 1, "method": "resources/subscribe", "params": {"uri": WATCHED}});
    assert_eq!(
        send(addr, &in_session(&id, subscribe)).await.json()["result"],
        json!({})
    );

    assert_eq!(notifier.tools_changed().await, 1);
    assert_eq!(
        notifier.resource_updated("test://other").await,
        0,
        "not subscribed to that one"
    );
    assert_eq!(notifier.resource_updated(WATCHED).await, 1);
    assert_eq!(
        sse.next_json().await["method"],
        "notifications/tools/list_changed"
    );
    let update = sse.next_json().await;
    assert_eq!(update["method"], "notifications/resources/updated");
    assert_eq!(update["params"]["uri"], WATCHED);
}

#[tokio::test]
async fn a_stateless_listen_request_streams_what_it_asked_for() {
    let (addr, notifier, _stop) = start().await;
    let meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
    });
    let listen = json!({"jsonrpc": "2.0", "id": 7, "method": "subscriptions/listen",
        "params": {"_meta": meta, "notifications": {"resourcesListChanged": true}}});
    let request = Request::post(&listen)
        .header("MCP-Protocol-Version", "2026-07-28")
        .header("Mcp-Method", "subscriptions/listen");
    let (head, mut sse) = Conn::open(addr).await.stream(&request).await;
    assert_eq!(head.status, 200);
    assert_eq!(head.media_type().as_deref(), Some("text/event-stream"));
    let ack = sse.next_json().await;
    assert_eq!(ack["method"], "notifications/subscriptions/acknowledged");
    assert_eq!(
        ack["params"]["notifications"],
        json!({"resourcesListChanged": true})
    );
    assert_eq!(notifier.tools_changed().await, 0, "not asked for");
    assert_eq!(notifier.resources_changed().await, 1);
    let change = sse.next_json().await;
    assert_eq!(change["method"], "notifications/resources/list_changed");
    assert_eq!(
        change["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        7
    );
}
