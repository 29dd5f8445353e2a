//! End to end: a server whose tool asks the client for a model answer, a
//! form and its roots, called by the runtime's client whose
//! `ClientHandlers` answer — over an in-memory stream and over Streamable
//! HTTP on loopback, in the stateful era (live requests) and the stateless
//! era (input-required results and retries).

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use mcpgen_runtime::client::http::HttpTransport;
use mcpgen_runtime::client::RpcError;
use mcpgen_runtime::client::{CallOptions, Client, ClientError, ClientHandlers, ClientOptions};
use mcpgen_runtime::server::http::{serve_with_shutdown, HttpConfig, HttpService};
use mcpgen_runtime::server::{BoxFuture, CallFailure, Dispatch, ToolOutput};
use mcpgen_runtime::server::{Server, ServerBuilder};
use mcpgen_runtime::transport::LineTransport;
use mcpgen_runtime::{Elicitation, RequestContext, SampleRequest, ToolError};
use serde_json::{json, Value};
use tokio::net::TcpListener;

/// One tool: asks for a name, then (together) a greeting and the roots.
struct Asker;

async fn ask(ctx: RequestContext) -> Result<ToolOutput, ToolError> {
    let schema =
        json!({"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]});
    let name = match ctx.elicit_with::<Value>("Your name?", schema).await? {
        Elicitation::Accept(content) => content["name"].as_str().unwrap_or_default().to_owned(),
        other => {
            return Ok(ToolOutput::Content(
                json!([{ "type": "text", "text": other.action() }]),
            ))
        }
    };
    let (greeting, roots) = tokio::join!(
        ctx.sample(SampleRequest::new(20).user(format!("Greet {name}"))),
        ctx.list_roots()
    );
    let text = format!(
        "{} / roots: {}",
        greeting?.text().unwrap_or(""),
        roots?.len()
    );
    Ok(ToolOutput::Content(
        json!([{ "type": "text", "text": text }]),
    ))
}

impl Dispatch for Asker {
    fn call(
        &self,
        _: usize,
        _: Value,
        ctx: RequestContext,
    ) -> BoxFuture<Result<ToolOutput, CallFailure>> {
        Box::pin(async move { ask(ctx).await.map_err(CallFailure::from) })
    }
}

fn server() -> Server {
    let tools = json!([{"name": "ask", "inputSchema": {"type": "object"}}]);
    ServerBuilder::new("2025-11-25", tools, Arc::new(Asker))
        .server_info(json!({"name": "asker", "version": "1.0.0"}))
        .build()
        .unwrap()
}

/// Handlers that answer like a user named Ada, counting what they answered.
fn handlers(asked: Arc<AtomicUsize>) -> ClientHandlers {
    let (a, b, c) = (Arc::clone(&asked), Arc::clone(&asked), asked);
    ClientHandlers::new()
        .on_elicitation(move |params| {
            a.fetch_add(1, Ordering::SeqCst);
            async move {
                assert_eq!(params["message"], "Your name?");
                Ok(json!({"action": "accept", "content": {"name": "Ada"}}))
            }
        })
        .on_sampling(move |params| {
            b.fetch_add(1, Ordering::SeqCst);
            let prompt = params["messages"][0]["content"]["text"].as_str().unwrap_or_default().to_owned();
            async move { Ok(json!({"role": "assistant", "content": {"type": "text", "text": format!("{prompt}!")}, "model": "m"})) }
        })
        .on_roots(move |_| {
            c.fetch_add(1, Ordering::SeqCst);
            async { Ok(json!({"roots": [{"uri": "file:///a"}, {"uri": "file:///b"}]})) }
        })
}

fn options(version: &str, handlers: ClientHandlers) -> ClientOptions {
    ClientOptions::new([version])
        .client_info("hooked", "1.0")
        .timeout(Duration::from_secs(20))
        .handlers(handlers)
}

fn text_of(result: &Value) -> &str {
    result["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("no text in {result}"))
}

async fn over_stream(version: &str, handlers: ClientHandlers) -> Result<Value, ClientError> {
    let (client_end, server_end) = tokio::io::duplex(1 << 16);
    let (sr, sw) = tokio::io::split(server_end);
    tokio::spawn(server().serve(LineTransport::new(sr, sw)));
    let (cr, cw) = tokio::io::split(client_end);
    let client = Client::connect(LineTransport::new(cr, cw), options(version, handlers)).await?;
    client
        .call_tool("ask", json!({}), &CallOptions::new())
        .await
}

#[tokio::test]
async fn handlers_answer_live_requests_and_input_requests_over_a_stream() {
    for version in ["2025-11-25", "2026-07-28"] {
        let asked = Arc::new(AtomicUsize::new(0));
        let result = over_stream(version, handlers(Arc::clone(&asked)))
            .await
            .unwrap();
        assert_eq!(text_of(&result), "Greet Ada! / roots: 2", "{version}");
        assert_eq!(
            asked.load(Ordering::SeqCst),
            3,
            "{version}: each request answered once"
        );
    }
}

#[tokio::test]
async fn a_missing_handler_or_a_handler_error_reaches_the_caller() {
    // No roots handler: the capability is not declared, so the tool is refused with -32021.
    let asked = Arc::new(AtomicUsize::new(0));
    let partial = ClientHandlers::new()
        .on_elicitation(|_| async { Ok(json!({"action": "accept", "content": {"name": "Ada"}})) })
        .on_sampling(move |_| {
            asked.fetch_add(1, Ordering::SeqCst);
            async { Ok(json!({"role": "assistant", "content": {"type": "text", "text": "hi"}, "model": "m"})) }
        });
    for version in ["2025-11-25", "2026-07-28"] {
        match over_stream(version, partial.clone()).await {
            Err(ClientError::Protocol { code, .. }) => assert_eq!(code, -32021, "{version}"),
            other => panic!("{version}: expected -32021, got {other:?}"),
        }
    }
    // The user declines: the tool says so.
    let declining = ClientHandlers::new()
        .on_elicitation(|_| async { Ok(json!({"action": "decline"})) })
        .on_sampling(|_| async { Err(RpcError::new(-1, "no model")) })
        .on_roots(|_| async { Ok(json!({"roots": []})) });
    for version in ["2025-11-25", "2026-07-28"] {
        let result = over_stream(version, declining.clone()).await.unwrap();
        assert_eq!(text_of(&result), "decline", "{version}");
    }
    // The sampling handler fails: live, the tool reports the client's
    // refusal; stateless, the client cannot retry and says why.
    let failing = declining
        .on_elicitation(|_| async { Ok(json!({"action": "accept", "content": {"name": "Ada"}})) });
    match over_stream("2025-11-25", failing.clone()).await {
        Err(ClientError::Tool { content, .. }) => assert!(
            content[0]["text"].as_str().unwrap().contains("no model"),
            "{content:?}"
        ),
        other => panic!("expected a tool error, got {other:?}"),
    }
    match over_stream("2026-07-28", failing).await {
        Err(ClientError::Protocol { code, message, .. }) => {
            assert_eq!(code, -1);
            assert!(message.contains("no model"), "{message}");
        }
        other => panic!("expected the handler's error, got {other:?}"),
    }
}

#[tokio::test]
async fn handlers_answer_over_streamable_http_in_both_eras() {
    let service = HttpService::new(server(), HttpConfig::default());
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let (_stop, stopped) = tokio::sync::oneshot::channel::<()>();
    tokio::spawn(serve_with_shutdown(listener, service, "/mcp", async {
        let _ = stopped.await;
    }));
    for version in ["2025-11-25", "2026-07-28"] {
        let asked = Arc::new(AtomicUsize::new(0));
        let client = Client::connect(
            HttpTransport::new(&url).unwrap(),
            options(version, handlers(Arc::clone(&asked))),
        )
        .await
        .unwrap();
        let result = client
            .call_tool("ask", json!({}), &CallOptions::new())
            .await
            .unwrap();
        assert_eq!(text_of(&result), "Greet Ada! / roots: 2", "{version}");
        assert_eq!(asked.load(Ordering::SeqCst), 3, "{version}");
    }
}
