//! The client engine over the Streamable HTTP client transport against
//! the runtime's own HTTP server (in process, on 127.0.0.1): both eras,
//! tools, typed results and tool errors, progress over SSE, a timeout that
//! closes the stream and cancels the handler, the mirrored headers of the
//! stateless era (Base64 `Mcp-Name`, `x-mcp-header` parameters), sessions
//! and the errors the transport makes up for HTTP failures.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use http::{HeaderMap, HeaderName, HeaderValue};
use mcpgen_runtime::client::http::{HttpTransport, TRANSPORT_ERROR};
use mcpgen_runtime::client::{CallOptions, Client, ClientError, ClientOptions};
use mcpgen_runtime::server::http::{serve_with_shutdown, HttpConfig, HttpService};
use mcpgen_runtime::server::ServerBuilder;
use mcpgen_runtime::server::{BoxFuture, CallFailure, Dispatch, ToolOutput};
use mcpgen_runtime::{RequestContext, ToolError};
use serde_json::{json, Value};
use tokio::net::TcpListener;
use tokio::sync::oneshot;

const WEATHER: &str = "météo ☀";

fn tools() -> Value {
    json!([
        {
            "name": "add",
            "inputSchema": {"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}}, "required": ["a", "b"]},
            "outputSchema": {"type": "object", "properties": {"sum": {"type": "integer"}}, "required": ["sum"]}
        },
        {"name": "echo", "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}}},
        {"name": "wait", "inputSchema": {"type": "object"}},
        {"name": "fail", "inputSchema": {"type": "object"}},
        {"name": WEATHER, "inputSchema": {"type": "object"}},
        {
            "name": "route",
            "inputSchema": {"type": "object", "properties": {
                "region": {"type": "string", "x-mcp-header": "Region"},
                "count": {"type": ["integer", "null"], "x-mcp-header": "Count"},
                "query": {"type": "string"}
            }, "required": ["query"]}
        },
        {"name": "bad_header", "inputSchema": {"type": "object", "properties": {"x": {"type": "number", "x-mcp-header": "X"}}}},
        {"name": "session", "inputSchema": {"type": "object"}},
        {"name": "headers", "inputSchema": {"type": "object"}}
    ])
}

/// Counts handlers of `wait` that ended (returned or were dropped).
struct Ended(Arc<AtomicUsize>);

impl Drop for Ended {
    fn drop(&mut self) {
        self.0.fetch_add(1, Ordering::SeqCst);
    }
}

struct Handlers {
    started: Arc<AtomicUsize>,
    ended: Arc<AtomicUsize>,
}

fn header(ctx: &RequestContext, name: &str) -> String {
    ctx.extensions()
        .get::<HeaderMap>()
        .and_then(|h| h.get(name))
        .map(|v| v.to_str().unwrap_or("<not text>").to_owned())
        .unwrap_or_else(|| "<none>".to_owned())
}

fn text(s: impl Into<String>) -> Result<ToolOutput, CallFailure> {
    Ok(ToolOutput::Content(
        json!([{ "type": "text", "text": s.into() }]),
    ))
}

impl Dispatch for Handlers {
    fn call(
        &self,
        index: usize,
        args: Value,
        ctx: RequestContext,
    ) -> BoxFuture<Result<ToolOutput, CallFailure>> {
        let started = Arc::clone(&self.started);
        let ended = Arc::clone(&self.ended);
        Box::pin(async move {
            match index {
                0 => Ok(ToolOutput::Structured(
                    json!({ "sum": args["a"].as_i64().unwrap() + args["b"].as_i64().unwrap() }),
                )),
                1 => {
                    ctx.progress(1.0, Some(2.0), Some("half")).await;
                    let who = ctx
                        .client()
                        .and_then(|c| c.name())
                        .unwrap_or("nobody")
                        .to_owned();
                    text(format!(
                        "{} from {who}",
                        args["text"].as_str().unwrap_or("")
                    ))
                }
                2 => {
                    let _ended = Ended(ended);
                    started.fetch_add(1, Ordering::SeqCst);
                    ctx.progress(0.0, None, Some("waiting")).await;
                    ctx.cancelled().await;
                    text("cancelled")
                }
                3 => Err(ToolError::new("the city is on fire").into()),
                4 => text(format!("sunny; Mcp-Name was {}", header(&ctx, "mcp-name"))),
                5 => text(format!(
                    "{}|{}",
                    header(&ctx, "mcp-param-region"),
                    header(&ctx, "mcp-param-count")
                )),
                7 => text(header(&ctx, "mcp-session-id")),
                8 => text(format!(
                    "{}|{}",
                    header(&ctx, "authorization"),
                    header(&ctx, "x-api-key")
                )),
                _ => text("ok"),
            }
        })
    }
}

struct TestServer {
    url: String,
    service: HttpService,
    started: Arc<AtomicUsize>,
    ended: Arc<AtomicUsize>,
    _stop: oneshot::Sender<()>,
}

async fn serve(revisions: &[&str], config: HttpConfig) -> TestServer {
    let started = Arc::new(AtomicUsize::new(0));
    let ended = Arc::new(AtomicUsize::new(0));
    let dispatch = Arc::new(Handlers {
        started: Arc::clone(&started),
        ended: Arc::clone(&ended),
    });
    let server = ServerBuilder::new(revisions[0], tools(), dispatch)
        .supported_revisions(revisions.iter().copied())
        .server_info(json!({"name": "http-test", "version": "1.0.0"}))
        .build()
        .unwrap();
    let service = HttpService::new(server, config);
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let (stop, stopped) = oneshot::channel::<()>();
    tokio::spawn(serve_with_shutdown(
        listener,
        service.clone(),
        "/mcp",
        async {
            let _ = stopped.await;
        },
    ));
    TestServer {
        url,
        service,
        started,
        ended,
        _stop: stop,
    }
}

const BOTH: &[&str] = &["2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26"];

fn options(versions: &[&str]) -> ClientOptions {
    ClientOptions::new(versions.iter().copied())
        .client_info("http-tester", "1.0")
        .timeout(Duration::from_secs(20))
}

async fn connect(url: &str, versions: &[&str]) -> Client {
    Client::connect(HttpTransport::new(url).unwrap(), options(versions))
        .await
        .unwrap()
}

async fn eventually(what: &str, mut done: impl FnMut() -> bool) {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    while !done() {
        assert!(
            tokio::time::Instant::now() < deadline,
            "timed out waiting until {what}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

fn names(tools: &[Value]) -> Vec<&str> {
    tools.iter().map(|t| t["name"].as_str().unwrap()).collect()
}

fn first_text(result: &Value) -> &str {
    result["content"][0]["text"].as_str().unwrap()
}

fn code(err: &ClientError) -> i64 {
    match err {
        ClientError::Protocol { code, .. } => *code,
        other => panic!("expected a JSON-RPC error, got {other:?}"),
    }
}

#[tokio::test]
async fn stateless_era_lists_calls_and_maps_errors() {
    let server = serve(BOTH, HttpConfig::default()).await;
    let client = connect(&server.url, &["2026-07-28"]).await;
    let session = client.session().unwrap();
    assert!(session.stateless);
    assert_eq!(session.protocol_version, "2026-07-28");
    assert_eq!(session.server_info["name"], "http-test");

    // The tool with an `x-mcp-header` on a `number` is left out.
    let listed = client.list_all_tools().await.unwrap();
    assert_eq!(
        names(&listed),
        ["add", "echo", "wait", "fail", WEATHER, "route", "session", "headers"]
    );

    let sum = client
        .call_tool("add", json!({"a": 2, "b": 40}), &CallOptions::new())
        .await
        .unwrap();
    assert_eq!(sum["structuredContent"], json!({"sum": 42}));
    let echoed = client
        .call_tool("echo", json!({"text": "hi"}), &CallOptions::new())
        .await
        .unwrap();
    assert_eq!(first_text(&echoed), "hi from http-tester");

    let failed = client
        .call_tool("fail", json!({}), &CallOptions::new())
        .await
        .unwrap_err();
    assert_eq!(
        failed.tool_text().as_deref(),
        Some("the city is on fire"),
        "{failed:?}"
    );

    // HTTP 404 with a JSON-RPC body: the engine sees -32601.
    let unknown = client
        .request("no/such/method", None, &CallOptions::new())
        .await
        .unwrap_err();
    assert_eq!(code(&unknown), -32601, "{unknown:?}");
    // HTTP 400 with -32602 for an unknown tool.
    let missing = client
        .call_tool("nope", json!({}), &CallOptions::new())
        .await
        .unwrap_err();
    assert!(
        matches!(missing, ClientError::Protocol { .. }),
        "{missing:?}"
    );
}

#[tokio::test]
async fn a_body_version_the_server_does_not_serve_is_32022() {
    let server = serve(&["2025-11-25"], HttpConfig::default()).await;
    let client = Client::start(
        HttpTransport::new(&server.url).unwrap(),
        options(&["2026-07-28"]),
    );
    let meta = json!({"_meta": {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "x", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": {}
    }});
    let err = client
        .request("tools/list", Some(meta), &CallOptions::new())
        .await
        .unwrap_err();
    assert_eq!(code(&err), -32022, "{err:?}");
}

#[tokio::test]
async fn stateful_era_keeps_the_session_and_deletes_it_on_close() {
    let server = serve(BOTH, HttpConfig::default()).await;
    let transport = HttpTransport::new(&server.url).unwrap();
    let info = transport.info();
    let client = Client::connect(transport, options(&["2025-11-25", "2025-06-18"]))
        .await
        .unwrap();
    let session = client.session().unwrap().clone();
    assert!(!session.stateless);
    assert_eq!(session.protocol_version, "2025-11-25");
    let id = info.session_id().expect("the server assigned a session");
    assert_eq!(info.protocol_version().as_deref(), Some("2025-11-25"));
    assert_eq!(server.service.live_sessions(), 1);

    // Every later request carries the session id (the server answers 400
    // to requests without one).
    let listed = client.list_all_tools().await.unwrap();
    assert_eq!(
        listed.len(),
        9,
        "no x-mcp-header filtering in the stateful era: {:?}",
        names(&listed)
    );
    let sent = client
        .call_tool("session", json!({}), &CallOptions::new())
        .await
        .unwrap();
    assert_eq!(first_text(&sent), id);
    let sum = client
        .call_tool("add", json!({"a": 1, "b": 2}), &CallOptions::new())
        .await
        .unwrap();
    assert_eq!(sum["structuredContent"]["sum"], 3);
    let failed = client
        .call_tool("fail", json!({}), &CallOptions::new())
        .await
        .unwrap_err();
    assert_eq!(failed.tool_text().as_deref(), Some("the city is on fire"));

    drop(client);
    tokio::time::timeout(Duration::from_secs(10), info.closed())
        .await
        .expect("the DELETE is sent");
    assert!(info.is_closed());
    assert_eq!(
        server.service.live_sessions(),
        0,
        "the session was ended with DELETE"
    );
}

#[tokio::test]
async fn a_client_of_both_eras_falls_back_to_initialize() {
    let server = serve(&["2025-06-18", "2025-11-25"], HttpConfig::default()).await;
    let client = connect(&server.url, BOTH).await;
    let session = client.session().unwrap();
    assert!(!session.stateless);
    assert_eq!(session.protocol_version, "2025-11-25");
    let echoed = client
        .call_tool("echo", json!({"text": "old"}), &CallOptions::new())
        .await
        .unwrap();
    assert_eq!(first_text(&echoed), "old from http-tester");

    // And the same client options against a server of both eras: 2026-07-28.
    let modern = serve(BOTH, HttpConfig::default()).await;
    let client = connect(&modern.url, BOTH).await;
    assert!(client.session().unwrap().stateless);
}

#[tokio::test]
async fn progress_arrives_over_sse_in_both_eras() {
    let server = serve(BOTH, HttpConfig::default()).await;
    for versions in [&["2026-07-28"][..], &["2025-11-25"][..]] {
        let client = connect(&server.url, versions).await;
        let seen = Arc::new(Mutex::new(Vec::new()));
        let sink = Arc::clone(&seen);
        let options = CallOptions::new()
            .on_progress(move |p| sink.lock().unwrap().push((p.progress, p.total, p.message)));
        let result = client
            .call_tool("echo", json!({"text": "streamed"}), &options)
            .await
            .unwrap();
        assert_eq!(first_text(&result), "streamed from http-tester");
        assert_eq!(
            *seen.lock().unwrap(),
            [(1.0, Some(2.0), Some("half".to_owned()))],
            "{versions:?}"
        );
    }
}

#[tokio::test]
async fn a_timeout_closes_the_stream_and_cancels_the_handler() {
    let server = serve(BOTH, HttpConfig::default()).await;
    let mut expected = 0;
    for versions in [&["2026-07-28"][..], &["2025-11-25"][..]] {
        let client = connect(&server.url, versions).await;
        // With progress (an SSE stream from the start) and without (the
        // server holds the request until it answers).
        for progress in [true, false] {
            expected += 1;
            let mut options = CallOptions::new().timeout(Duration::from_millis(300));
            if progress {
                options = options.on_progress(|_| {});
            }
            let err = client
                .call_tool("wait", json!({}), &options)
                .await
                .unwrap_err();
            assert!(matches!(err, ClientError::Timeout { .. }), "{err:?}");
            assert_eq!(server.started.load(Ordering::SeqCst), expected);
            eventually(
                &format!("the handler is cancelled ({versions:?}, progress {progress})"),
                || server.ended.load(Ordering::SeqCst) == expected,
            )
            .await;
        }
        // The connection is still good.
        let sum = client
            .call_tool("add", json!({"a": 1, "b": 1}), &CallOptions::new())
            .await
            .unwrap();
        assert_eq!(sum["structuredContent"]["sum"], 2);
    }
}

#[tokio::test]
async fn dropping_a_call_and_dropping_the_client_cancel_the_handler() {
    let server = serve(BOTH, HttpConfig::default()).await;
    let client = connect(&server.url, &["2026-07-28"]).await;
    let defaults = CallOptions::new();
    let call = client.call_tool("wait", json!({}), &defaults);
    let dropped = tokio::time::timeout(Duration::from_millis(300), call).await;
    assert!(dropped.is_err(), "the call never answers");
    eventually("the dropped call's handler is cancelled", || {
        server.ended.load(Ordering::SeqCst) == 1
    })
    .await;

    let pending = {
        let client = client.clone();
        tokio::spawn(async move {
            client
                .call_tool("wait", json!({}), &CallOptions::new())
                .await
        })
    };
    eventually("the second call runs", || {
        server.started.load(Ordering::SeqCst) == 2
    })
    .await;
    pending.abort();
    drop(client);
    eventually("closing the client closes the stream", || {
        server.ended.load(Ordering::SeqCst) == 2
    })
    .await;
}

#[tokio::test]
async fn a_non_ascii_tool_name_is_sent_in_base64() {
    let server = serve(BOTH, HttpConfig::default()).await;
    let client = connect(&server.url, &["2026-07-28"]).await;
    let result = client
        .call_tool(WEATHER, json!({}), &CallOptions::new())
        .await
        .unwrap();
    let encoded = format!(
        "=?base64?{}?=",
        mcpgen_runtime::client::http::base64_encode(WEATHER.as_bytes())
    );
    assert_eq!(
        first_text(&result),
        format!("sunny; Mcp-Name was {encoded}")
    );
}

/// The client's HTTP settings (a bearer token, an API key) reach the
/// server over a transport built by hand, not only over a generated
/// client's `connect_http`; a header given to the transport wins.
#[tokio::test]
async fn the_clients_http_headers_apply_to_a_transport_built_by_hand() {
    let server = serve(BOTH, HttpConfig::default()).await;
    for version in ["2026-07-28", "2025-11-25"] {
        let options = options(&[version])
            .bearer_token("client-token")
            .unwrap()
            .header(
                HeaderName::from_static("x-api-key"),
                HeaderValue::from_static("from-client"),
            );
        let transport = HttpTransport::new(&server.url).unwrap().header(
            HeaderName::from_static("x-api-key"),
            HeaderValue::from_static("from-transport"),
        );
        let client = Client::connect(transport, options).await.unwrap();
        let result = client
            .call_tool("headers", json!({}), &CallOptions::new())
            .await
            .unwrap();
        assert_eq!(
            first_text(&result),
            "Bearer client-token|from-transport",
            "{version}"
        );
    }
}

#[tokio::test]
async fn x_mcp_header_parameters_are_mirrored() {
    let server = serve(BOTH, HttpConfig::default()).await;
    let client = connect(&server.url, &["2026-07-28"]).await;
    client.list_all_tools().await.unwrap();
    let call = |args: Value| {
        let client = client.clone();
        async move {
            client
                .call_tool("route", args, &CallOptions::new())
                .await
                .unwrap()
        }
    };
    let r = call(json!({"region": "us-west1", "count": 3, "query": "q"})).await;
    assert_eq!(first_text(&r), "us-west1|3");
    let r = call(json!({"region": " padded ", "query": "q"})).await;
    assert_eq!(first_text(&r), "=?base64?IHBhZGRlZCA=?=|<none>");
    let r = call(json!({"query": "q", "count": null})).await;
    assert_eq!(first_text(&r), "<none>|<none>");

    // A client that never listed the tools: the server's -32020 makes the
    // transport list them and retry once.
    let fresh = connect(&server.url, &["2026-07-28"]).await;
    let r = fresh
        .call_tool(
            "route",
            json!({"region": "eu", "count": 7, "query": "q"}),
            &CallOptions::new(),
        )
        .await
        .unwrap();
    assert_eq!(first_text(&r), "eu|7");
}

#[tokio::test]
async fn http_failures_become_errors_of_the_request() {
    let server = serve(BOTH, HttpConfig::default()).await;
    // A wrong path: the router's 404 body is not JSON-RPC.
    let wrong = server.url.replace("/mcp", "/elsewhere");
    let client = Client::start(
        HttpTransport::new(&wrong).unwrap(),
        options(&["2026-07-28"]),
    );
    let err = client.initialize().await.unwrap_err();
    match &err {
        ClientError::Protocol {
            code,
            message,
            data,
            ..
        } => {
            assert_eq!(*code, TRANSPORT_ERROR);
            assert!(message.contains("404 Not Found"), "{message}");
            assert_eq!(data.as_deref().unwrap()["httpStatus"], 404);
        }
        other => panic!("{other:?}"),
    }

    // An answer over the size limit fails that request only, whether the
    // limit is the transport's or the engine's.
    let big = "x".repeat(10_000);
    let limited = [
        (
            HttpTransport::new(&server.url)
                .unwrap()
                .max_message_bytes(4096),
            options(&["2026-07-28"]),
        ),
        (
            HttpTransport::new(&server.url).unwrap(),
            options(&["2026-07-28"]).max_message_bytes(4096),
        ),
    ];
    for (transport, opts) in limited {
        let client = Client::connect(transport, opts).await.unwrap();
        for progress in [false, true] {
            let options = if progress {
                CallOptions::new().on_progress(|_| {})
            } else {
                CallOptions::new()
            };
            let err = client
                .call_tool("echo", json!({ "text": big }), &options)
                .await
                .unwrap_err();
            let ClientError::Protocol { code, message, .. } = &err else {
                panic!("{err:?}")
            };
            assert_eq!(*code, TRANSPORT_ERROR);
            assert!(
                message.contains("exceeds the limit of 4096 bytes (4 KiB"),
                "{message}"
            );
        }
        let small = client
            .call_tool("echo", json!({"text": "small"}), &CallOptions::new())
            .await
            .unwrap();
        assert_eq!(first_text(&small), "small from http-tester");
    }
}

#[tokio::test]
async fn unreachable_servers_fail_with_a_typed_connect_error() {
    use mcpgen_runtime::client::ConnectErrorKind;
    use mcpgen_runtime::transport::http::HttpOptions;

    // Nothing listens: refused, naming the URL.
    let port = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap().port()
    };
    let direct = HttpOptions::new().no_env_proxy();
    let transport = HttpTransport::new(&format!("http://127.0.0.1:{port}/mcp"))
        .unwrap()
        .options(direct.clone());
    let err = Client::connect(transport, options(&["2026-07-28"]))
        .await
        .unwrap_err();
    let ClientError::Connect(e) = &err else {
        panic!("{err:?}")
    };
    assert_eq!(e.kind(), ConnectErrorKind::Refused);
    assert!(
        err.to_string()
            .contains("cannot connect to http://127.0.0.1:"),
        "{err}"
    );
    assert!(err.to_string().contains("help: nothing listens"), "{err}");

    // A listener that closes every connection at once: reset during the
    // TLS handshake; one that never answers: the connect timeout, not a hang.
    let closing = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let closing_port = closing.local_addr().unwrap().port();
    tokio::spawn(async move {
        while let Ok((stream, _)) = closing.accept().await {
            drop(stream);
        }
    });
    let silent = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let silent_port = silent.local_addr().unwrap().port();
    tokio::spawn(async move {
        let mut held = Vec::new();
        while let Ok((stream, _)) = silent.accept().await {
            held.push(stream);
        }
    });
    for (port, kind) in [
        (closing_port, ConnectErrorKind::Reset),
        (silent_port, ConnectErrorKind::Timeout),
    ] {
        let http = direct
            .clone()
            .connect_timeout(std::time::Duration::from_millis(300));
        let transport = HttpTransport::new(&format!("https://localhost:{port}/mcp"))
            .unwrap()
            .options(http);
        let err = Client::connect(transport, options(&["2026-07-28"]))
            .await
            .unwrap_err();
        let ClientError::Connect(e) = &err else {
            panic!("{err:?}")
        };
        assert_eq!(e.kind(), kind, "{err}");
        assert!(e.hint().is_some(), "{err}");
    }

    // Settings that cannot be used fail the first connection, saying why.
    let transport = HttpTransport::new(&format!("https://localhost:{silent_port}/mcp"))
        .unwrap()
        .options(direct.clone().add_ca_pem("not a certificate"));
    let err = Client::connect(transport, options(&["2026-07-28"]))
        .await
        .unwrap_err();
    let ClientError::Connect(e) = &err else {
        panic!("{err:?}")
    };
    assert_eq!(e.kind(), ConnectErrorKind::Config, "{err}");
    assert!(
        err.to_string()
            .contains("CA PEM text 1 holds no certificate"),
        "{err}"
    );
    let transport = HttpTransport::new(&format!("http://127.0.0.1:{port}/mcp"))
        .unwrap()
        .options(direct.proxy("socks5://127.0.0.1:1"));
    let err = Client::connect(transport, options(&["2026-07-28"]))
        .await
        .unwrap_err();
    assert!(err.to_string().contains("only HTTP proxies"), "{err}");
}

/// A loopback TCP relay in front of a test server that counts the
/// connections it accepts and, with `idle_close`, closes a connection that
/// carried nothing for that long (a server's keep-alive timeout).
struct Relay {
    url: String,
    accepted: Arc<AtomicUsize>,
}

async fn start_relay(upstream: &str, idle_close: Option<Duration>) -> Relay {
    let target = upstream
        .trim_start_matches("http://")
        .split('/')
        .next()
        .unwrap()
        .to_owned();
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let accepted = Arc::new(AtomicUsize::new(0));
    let count = Arc::clone(&accepted);
    tokio::spawn(async move {
        while let Ok((mut client, _)) = listener.accept().await {
            count.fetch_add(1, Ordering::SeqCst);
            let target = target.clone();
            tokio::spawn(async move {
                use tokio::io::{AsyncReadExt, AsyncWriteExt};
                let mut server = tokio::net::TcpStream::connect(target).await.unwrap();
                let (mut a, mut b) = ([0u8; 16 << 10], [0u8; 16 << 10]);
                let idle = idle_close.unwrap_or(Duration::from_secs(3600));
                loop {
                    let step = tokio::time::timeout(idle, async {
                        tokio::select! {
                            n = client.read(&mut a) => match n {
                                Ok(n) if n > 0 => server.write_all(&a[..n]).await.is_ok(),
                                _ => false,
                            },
                            n = server.read(&mut b) => match n {
                                Ok(n) if n > 0 => client.write_all(&b[..n]).await.is_ok(),
                                _ => false,
                            },
                        }
                    })
                    .await;
                    if step != Ok(true) {
                        return; // both sockets close
                    }
                }
            });
        }
    });
    Relay { url, accepted }
}

#[tokio::test]
async fn sequential_calls_reuse_one_connection() {
    let server = serve(BOTH, HttpConfig::default()).await;
    let relay = start_relay(&server.url, None).await;
    let client = connect(&relay.url, &["2026-07-28"]).await;
    for i in 0..50 {
        let sum = client
            .call_tool("add", json!({"a": i, "b": 1}), &CallOptions::new())
            .await
            .unwrap();
        assert_eq!(sum["structuredContent"]["sum"], i + 1);
    }
    // An answer streamed over SSE (progress) gives its connection back too.
    let options = CallOptions::new().on_progress(|_| {});
    for _ in 0..5 {
        let result = client
            .call_tool("echo", json!({"text": "streamed"}), &options)
            .await
            .unwrap();
        assert_eq!(first_text(&result), "streamed from http-tester");
    }
    assert_eq!(
        relay.accepted.load(Ordering::SeqCst),
        1,
        "every call on the first connection"
    );

    // Stateful: the standalone SSE stream keeps a connection of its own.
    let stateful = start_relay(&server.url, None).await;
    let client = connect(&stateful.url, &["2025-11-25"]).await;
    for i in 0..50 {
        let sum = client
            .call_tool("add", json!({"a": i, "b": 2}), &CallOptions::new())
            .await
            .unwrap();
        assert_eq!(sum["structuredContent"]["sum"], i + 2);
    }
    let accepted = stateful.accepted.load(Ordering::SeqCst);
    assert!(accepted <= 3, "{accepted} connections for 50 calls");
}

#[tokio::test]
async fn a_server_closing_idle_connections_does_not_fail_a_call() {
    let server = serve(BOTH, HttpConfig::default()).await;
    let relay = start_relay(&server.url, Some(Duration::from_millis(100))).await;
    let client = connect(&relay.url, &["2026-07-28"]).await;
    for i in 0..5 {
        tokio::time::sleep(Duration::from_millis(250)).await; // the idle connection is closed meanwhile
        let sum = client
            .call_tool("add", json!({"a": i, "b": 1}), &CallOptions::new())
            .await
            .unwrap();
        assert_eq!(sum["structuredContent"]["sum"], i + 1);
    }
    let accepted = relay.accepted.load(Ordering::SeqCst);
    assert!(
        accepted >= 6,
        "a new connection after each idle period: {accepted}"
    );
}

#[tokio::test]
async fn a_cancelled_call_closes_its_connection_and_the_next_one_works() {
    let server = serve(BOTH, HttpConfig::default()).await;
    let relay = start_relay(&server.url, None).await;
    let client = connect(&relay.url, &["2026-07-28"]).await;
    client
        .call_tool("add", json!({"a": 1, "b": 1}), &CallOptions::new())
        .await
        .unwrap();
    let err = client
        .call_tool(
            "wait",
            json!({}),
            &CallOptions::new().timeout(Duration::from_millis(300)),
        )
        .await
        .unwrap_err();
    assert!(matches!(err, ClientError::Timeout { .. }), "{err:?}");
    eventually("the handler is cancelled", || {
        server.ended.load(Ordering::SeqCst) == 1
    })
    .await;
    let sum = client
        .call_tool("add", json!({"a": 2, "b": 2}), &CallOptions::new())
        .await
        .unwrap();
    assert_eq!(sum["structuredContent"]["sum"], 4);
    // The first connection carried `wait` and was closed with it: the
    // last call came on a new one.
    assert_eq!(relay.accepted.load(Ordering::SeqCst), 2);
}
