//! Starts the `axum-server` binary on 127.0.0.1:0 and talks to it over
//! loopback with a few lines of raw HTTP/1.1: the app's own route, a
//! stateless (2026-07-28) `tools/call` and a stateful session through the
//! mounted `/mcp` endpoint, whose safe defaults still apply.

use std::net::SocketAddr;
use std::process::Stdio;
use std::time::Duration;

use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpStream;
use tokio::process::{Child, Command};

const LIMIT: Duration = Duration::from_secs(20);

async fn within<F: std::future::Future>(what: &str, fut: F) -> F::Output {
    tokio::time::timeout(LIMIT, fut)
        .await
        .unwrap_or_else(|_| panic!("timed out after {LIMIT:?}: {what}"))
}

/// The running binary; killed when dropped.
struct App {
    addr: SocketAddr,
    _child: Child,
}

async fn start() -> App {
    let mut child = Command::new(env!("CARGO_BIN_EXE_axum-server"))
        .args(["--listen", "127.0.0.1:0"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .kill_on_drop(true)
        .spawn()
        .expect("start axum-server");
    let stdout = child.stdout.take().expect("piped stdout");
    let mut line = String::new();
    within(
        "the listening line",
        BufReader::new(stdout).read_line(&mut line),
    )
    .await
    .expect("read stdout");
    let addr = line
        .trim()
        .strip_prefix("listening on http://")
        .and_then(|a| a.parse().ok())
        .unwrap_or_else(|| panic!("unexpected first line {line:?}"));
    App {
        addr,
        _child: child,
    }
}

struct Response {
    status: u16,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

impl Response {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }

    fn json(&self) -> Value {
        serde_json::from_slice(&self.body)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {}", self.text()))
    }
}

/// One request on its own connection (`Connection: close`, so the response
/// ends at EOF); `Host` is the app's address unless `headers` set one.
async fn request(
    addr: SocketAddr,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: Option<&Value>,
) -> Response {
    let mut text = format!("{method} {path} HTTP/1.1\r\nConnection: close\r\n");
    if !headers.iter().any(|(n, _)| n.eq_ignore_ascii_case("host")) {
        text.push_str(&format!("Host: {addr}\r\n"));
    }
    for (name, value) in headers {
        text.push_str(&format!("{name}: {value}\r\n"));
    }
    let body = body.map(Value::to_string).unwrap_or_default();
    text.push_str(&format!("Content-Length: {}\r\n\r\n{body}", body.len()));

    let mut stream = within("connect", TcpStream::connect(addr))
        .await
        .expect("connect");
    within("send", stream.write_all(text.as_bytes()))
        .await
        .expect("send");
    let mut raw = Vec::new();
    within("read the response", stream.read_to_end(&mut raw))
        .await
        .expect("read");

    let split = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("a complete head");
    let head = String::from_utf8_lossy(&raw[..split]).into_owned();
    let mut lines = head.split("\r\n");
    let status = lines
        .next()
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|s| s.parse().ok())
        .expect("status");
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_owned(), v.trim().to_owned()))
        .collect();
    let mut body = raw[split + 4..].to_vec();
    let chunked = headers
        .iter()
        .any(|(n, v)| n.eq_ignore_ascii_case("transfer-encoding") && v.contains("chunked"));
    if chunked {
        body = dechunk(&body);
    }
    Response {
        status,
        headers,
        body,
    }
}

fn dechunk(mut data: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    while let Some(end) = data.windows(2).position(|w| w == b"\r\n") {
        let size_text = String::from_utf8_lossy(&data[..end]).into_owned();
        let size = usize::from_str_radix(size_text.split(';').next().unwrap_or("").trim(), 16)
            .expect("chunk size");
        if size == 0 {
            break;
        }
        out.extend_from_slice(&data[end + 2..end + 2 + size]);
        data = &data[end + 2 + size + 2..];
    }
    out
}

const JSON_AND_SSE: (&str, &str) = ("Accept", "application/json, text/event-stream");
const CONTENT_JSON: (&str, &str) = ("Content-Type", "application/json");

#[tokio::test]
async fn the_app_route_and_the_mounted_mcp_endpoint_are_served() {
    let app = start().await;

    let r = request(app.addr, "GET", "/", &[], None).await;
    assert_eq!(r.status, 200, "{}", r.text());
    assert!(r.text().contains("/mcp"), "{}", r.text());

    let call = json!({
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {
            "name": "get_forecast",
            "arguments": {"city": "Oslo", "days": 2},
            "_meta": {
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {},
                "io.modelcontextprotocol/clientInfo": {"name": "mounted-test", "version": "1"}
            }
        }
    });
    let mcp_headers = [
        CONTENT_JSON,
        JSON_AND_SSE,
        ("MCP-Protocol-Version", "2026-07-28"),
        ("Mcp-Method", "tools/call"),
        ("Mcp-Name", "get_forecast"),
    ];
    let r = request(app.addr, "POST", "/mcp", &mcp_headers, Some(&call)).await;
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.header("content-type"), Some("application/json"));
    let body = r.json();
    assert_eq!(body["id"], 1);
    assert_eq!(body["result"]["structuredContent"]["city"], "Oslo");
    assert_eq!(
        body["result"]["structuredContent"]["days"]
            .as_array()
            .map(Vec::len),
        Some(2)
    );
    assert_eq!(body["result"]["resultType"], "complete");
    assert_eq!(
        body["result"]["_meta"]["io.modelcontextprotocol/serverInfo"]["name"],
        "weather-server"
    );

    // The mounted service keeps its own rules: mirrored headers, Host allowlist.
    let r = request(
        app.addr,
        "POST",
        "/mcp",
        &[
            CONTENT_JSON,
            JSON_AND_SSE,
            ("MCP-Protocol-Version", "2026-07-28"),
        ],
        Some(&call),
    )
    .await;
    assert_eq!(r.status, 400, "{}", r.text());
    assert_eq!(r.json()["error"]["code"], -32020);
    let foreign = [mcp_headers.as_slice(), &[("Host", "evil.example")]].concat();
    let r = request(app.addr, "POST", "/mcp", &foreign, Some(&call)).await;
    assert_eq!(r.status, 403, "{}", r.text());

    let r = request(app.addr, "GET", "/nowhere", &[], None).await;
    assert_eq!(r.status, 404);
}

#[tokio::test]
async fn a_stateful_session_works_through_the_mount() {
    let app = start().await;
    let init = json!({
        "jsonrpc": "2.0",
        "id": 0,
        "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "mounted-test", "version": "1"}}
    });
    let r = request(
        app.addr,
        "POST",
        "/mcp",
        &[CONTENT_JSON, JSON_AND_SSE],
        Some(&init),
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.json()["result"]["serverInfo"]["name"], "weather-server");
    let session = r
        .header("mcp-session-id")
        .expect("Mcp-Session-Id passes through axum")
        .to_owned();

    let in_session = [
        CONTENT_JSON,
        JSON_AND_SSE,
        ("Mcp-Session-Id", session.as_str()),
        ("MCP-Protocol-Version", "2025-11-25"),
    ];
    let r = request(
        app.addr,
        "POST",
        "/mcp",
        &in_session,
        Some(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"})),
    )
    .await;
    assert_eq!(r.status, 202, "{}", r.text());
    let list = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"});
    let r = request(app.addr, "POST", "/mcp", &in_session, Some(&list)).await;
    assert_eq!(r.status, 200, "{}", r.text());
    assert!(
        r.json()["result"]["tools"]
            .as_array()
            .is_some_and(|t| t.len() == 6),
        "{}",
        r.text()
    );

    let r = request(
        app.addr,
        "DELETE",
        "/mcp",
        &[("Mcp-Session-Id", session.as_str())],
        None,
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.text());
    let r = request(app.addr, "POST", "/mcp", &in_session, Some(&list)).await;
    assert_eq!(r.status, 404, "{}", r.text());
}
