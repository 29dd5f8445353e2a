//! The runtime client's `subscriptions/listen` (2026-07-28) against the
//! runtime's server, over an in-memory stdio pipe and over Streamable HTTP
//! on loopback: the acknowledgment, notifications for what the filter
//! names only, and dropping the subscription ending it on the server.

use std::sync::Arc;
use std::time::Duration;

use mcpgen_runtime::client::http::HttpTransport;
use mcpgen_runtime::client::{Client, ClientError, ClientOptions, Subscription};
use mcpgen_runtime::server::http::{serve_with_shutdown, HttpConfig, HttpService};
use mcpgen_runtime::server::{BoxFuture, CallFailure, Dispatch, ToolOutput};
use mcpgen_runtime::server::{Server, ServerBuilder};
use mcpgen_runtime::transport::LineTransport;
use mcpgen_runtime::{Notifier, RequestContext};
use serde_json::{json, Value};

const WATCHED: &str = "test://watched";
const MODERN: &str = "2026-07-28";

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

fn server(revision: &str) -> Server {
    ServerBuilder::new(revision, json!([]), Arc::new(NoTools))
        .server_info(json!({"name": "notifying", "version": "1.0.0"}))
        .resources(vec![json!({"uri": WATCHED, "name": "watched"})])
        .list_changed(true)
        .build()
        .unwrap()
}

async fn over_stdio(server: Server, versions: &[&str]) -> Result<Client, ClientError> {
    let (client_end, server_end) = tokio::io::duplex(1 << 16);
    let (sr, sw) = tokio::io::split(server_end);
    tokio::spawn(server.serve(LineTransport::new(sr, sw)));
    let (cr, cw) = tokio::io::split(client_end);
    Client::connect(
        LineTransport::new(cr, cw),
        ClientOptions::new(versions.iter().copied()),
    )
    .await
}

async fn over_http(server: Server) -> Client {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    tokio::spawn(serve_with_shutdown(
        listener,
        HttpService::new(server, HttpConfig::default()),
        "/mcp",
        std::future::pending(),
    ));
    Client::connect(
        HttpTransport::new(&url).unwrap(),
        ClientOptions::new([MODERN]),
    )
    .await
    .unwrap()
}

async fn next(subscription: &mut Subscription) -> (String, Value) {
    let event = tokio::time::timeout(Duration::from_secs(20), subscription.next())
        .await
        .expect("a notification in time");
    let event = event.expect("the subscription is still open");
    (event.method, event.params)
}

/// Waits until `notify` reaches `want` listeners (the server learns of a
/// new or dropped subscription asynchronously).
async fn until_heard_by(want: usize, mut notify: impl AsyncFnMut() -> usize) {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
    loop {
        let heard = notify().await;
        if heard == want {
            return;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "heard by {heard}, not {want}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

async fn scenario(client: Client, notifier: Notifier) {
    let mut subscription = client
        .listen(json!({"resourceSubscriptions": [WATCHED], "toolsListChanged": true}))
        .await
        .unwrap();
    let acknowledged = subscription.acknowledged().clone();
    assert_eq!(
        acknowledged["resourceSubscriptions"],
        json!([WATCHED]),
        "{acknowledged}"
    );
    assert_eq!(acknowledged["toolsListChanged"], true, "{acknowledged}");

    // Not asked for: nobody hears it.
    assert_eq!(notifier.prompts_changed().await, 0);
    assert_eq!(notifier.resource_updated("test://other").await, 0);
    assert_eq!(notifier.resource_updated(WATCHED).await, 1);
    let (method, params) = next(&mut subscription).await;
    assert_eq!(
        (method.as_str(), &params["uri"]),
        ("notifications/resources/updated", &json!(WATCHED))
    );
    assert_eq!(
        params["_meta"]["io.modelcontextprotocol/subscriptionId"],
        json!(subscription.id())
    );
    assert_eq!(notifier.tools_changed().await, 1);
    assert_eq!(
        next(&mut subscription).await.0,
        "notifications/tools/list_changed"
    );

    // Dropping it cancels the request: the server stops sending.
    drop(subscription);
    until_heard_by(0, async || notifier.resource_updated(WATCHED).await).await;
    // The connection is still good for other requests and subscriptions.
    let mut again = client
        .listen(json!({"resourcesListChanged": true}))
        .await
        .unwrap();
    assert_eq!(notifier.resources_changed().await, 1);
    assert_eq!(
        next(&mut again).await.0,
        "notifications/resources/list_changed"
    );
}

#[tokio::test]
async fn a_subscription_over_stdio_hears_what_it_asked_for_until_dropped() {
    let server = server(MODERN);
    let notifier = server.notifier();
    let client = over_stdio(server, &[MODERN]).await.unwrap();
    scenario(client, notifier).await;
}

#[tokio::test]
async fn a_subscription_over_http_hears_what_it_asked_for_until_dropped() {
    let server = server(MODERN);
    let notifier = server.notifier();
    scenario(over_http(server).await, notifier).await;
}

#[tokio::test]
async fn a_stateful_session_is_told_listen_is_not_its_method() {
    let client = over_stdio(server("2025-11-25"), &["2025-11-25"])
        .await
        .unwrap();
    let err = client
        .listen(json!({"toolsListChanged": true}))
        .await
        .unwrap_err();
    assert!(
        matches!(err, ClientError::Protocol { code: -32601, .. }),
        "{err:?}"
    );
}
