//! Traces across the official Python SDK and mcpgen, both ways (runtime
//! feature `otel`):
//!
//! - the Python SDK client, with the OpenTelemetry SDK recording its spans
//!   (`py_trace.py`), calls this server, which exports over OTLP/HTTP to
//!   the receiver of `otlp.rs`: the server's span of each request has the
//!   client's trace id and the client's span as its parent, the MCP
//!   attribute names, and the tool's outcome; the request durations arrive
//!   as a histogram per tool;
//! - the runtime's client, inside an application span and exporting over
//!   OTLP/HTTP, calls the Python SDK's server (`py_http_server.py`), whose
//!   span continues the client's trace under the client's span.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};

use serde_json::{json, Value};

use super::otlp::{Point, Receiver, Span};
use super::{peers_python, repo_root, require, run, HttpServer, PATIENCE};

/// The spans a Python peer recorded (JSON lines of `py_trace.py`).
fn python_spans(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect()
}

fn python_span<'a>(spans: &'a [Value], kind: &str, name: &str) -> &'a Value {
    spans
        .iter()
        .find(|s| s["kind"] == kind && s["name"] == name)
        .unwrap_or_else(|| panic!("no {kind} span {name:?} among {spans:#?}"))
}

fn attribute<'a>(span: &'a Span, key: &str) -> &'a str {
    span.attributes
        .get(key)
        .unwrap_or_else(|| panic!("span {:?} has no {key}: {:#?}", span.name, span.attributes))
}

fn span_named(receiver: &Receiver, name: &str) -> Span {
    receiver.wait(&format!("span {name:?}"), |r| {
        r.spans().into_iter().find(|s| s.name == name)
    })
}

/// The Python SDK client in `mode` against the server over HTTP: the
/// server's spans continue the client's.
fn python_client_into_server(mode: &str, version: &str, session: bool) {
    let Some(python) = require(peers_python()) else {
        return;
    };
    let receiver = Receiver::start();
    let server = HttpServer::start_with(&[
        ("OTEL_EXPORTER_OTLP_ENDPOINT", &receiver.endpoint),
        ("OTEL_BSP_SCHEDULE_DELAY", "50"),
        ("OTEL_METRIC_EXPORT_INTERVAL", "200"),
    ]);
    let dir = std::env::temp_dir().join(format!("mcpgen-otel-{}-{mode}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let trace_file = dir.join("client-spans.jsonl");
    let _ = std::fs::remove_file(&trace_file);
    let mut command = Command::new(python);
    command
        .arg(repo_root().join("tests/interop/peers/py_client.py"))
        .args([
            "--mode",
            mode,
            "--timeout",
            "60",
            "--allow-tool-error",
            "--no-list",
        ])
        .arg("--trace-file")
        .arg(&trace_file)
        .args(["--call", "get_forecast", "--args", r#"{"city":"Oslo"}"#])
        .args([
            "--call",
            "simulate_failure",
            "--args",
            r#"{"mode":"tool_error"}"#,
        ])
        .args(["--url", &server.url]);
    let out = run(command, &format!("py_client.py --mode {mode} --trace-file"));
    assert!(
        out.success,
        "py_client.py failed\nstdout:\n{}\nstderr:\n{}\nserver:\n{}",
        out.stdout,
        out.stderr,
        server.stderr()
    );
    let client_spans = python_spans(&trace_file);

    for (tool, failed) in [("get_forecast", false), ("simulate_failure", true)] {
        let name = format!("tools/call {tool}");
        let client = python_span(&client_spans, "CLIENT", &format!("MCP send {name}"));
        let server_span = span_named(&receiver, &name);
        let context = format!("server span {server_span:#?}\nclient span {client:#}");
        assert_eq!(server_span.kind, "SERVER", "{context}");
        assert_eq!(
            server_span.trace_id,
            client["traceId"].as_str().unwrap(),
            "{context}"
        );
        assert_eq!(
            server_span.parent_span_id,
            client["spanId"].as_str().unwrap(),
            "{context}"
        );
        assert_eq!(attribute(&server_span, "mcp.method.name"), "tools/call");
        assert_eq!(attribute(&server_span, "mcp.protocol.version"), version);
        assert_eq!(
            attribute(&server_span, "gen_ai.operation.name"),
            "execute_tool"
        );
        assert_eq!(attribute(&server_span, "gen_ai.tool.name"), tool);
        assert_eq!(
            attribute(&server_span, "jsonrpc.request.id"),
            client["attributes"]["jsonrpc.request.id"].as_str().unwrap(),
            "{context}"
        );
        assert_eq!(
            server_span.attributes.contains_key("mcp.session.id"),
            session,
            "{context}"
        );
        if failed {
            assert_eq!(attribute(&server_span, "error.type"), "tool_error");
            assert_eq!(server_span.status, "ERROR", "{context}");
            // The tool error's text is the status message.
            assert_eq!(
                server_span.status_message, "weather station offline: sensor 7 not responding",
                "{context}"
            );
        } else {
            assert!(
                !server_span.attributes.contains_key("error.type"),
                "{context}"
            );
            assert_ne!(server_span.status, "ERROR", "{context}");
        }
    }

    // One duration per call, labelled with the tool (and the failure).
    let point = |tool: &str| {
        let tool = tool.to_owned();
        move |r: &Receiver| -> Option<Point> {
            r.points().into_iter().rev().find(|p| {
                p.metric == "mcp.server.operation.duration"
                    && p.attributes.get("gen_ai.tool.name") == Some(&tool)
            })
        }
    };
    let ok = receiver.wait("a duration of get_forecast", point("get_forecast"));
    assert_eq!(ok.count, 1, "{ok:#?}");
    assert_eq!(
        ok.attributes.get("mcp.method.name").map(String::as_str),
        Some("tools/call")
    );
    assert!(!ok.attributes.contains_key("error.type"), "{ok:#?}");
    let failed = receiver.wait("a duration of simulate_failure", point("simulate_failure"));
    assert_eq!(failed.count, 1, "{failed:#?}");
    assert_eq!(
        failed.attributes.get("error.type").map(String::as_str),
        Some("tool_error")
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn python_sdk_client_trace_continues_in_the_server_2025_11_25() {
    python_client_into_server("2025-11-25", "2025-11-25", true);
}

#[test]
fn python_sdk_client_trace_continues_in_the_server_2026_07_28() {
    python_client_into_server("2026-07-28", "2026-07-28", false);
}

/// A client that calls ten thousand tools that do not exist, and methods
/// no server answers, cannot make the server's telemetry grow with them:
/// the shipped server over stdio, exporting to the receiver, names only
/// declared tools and answered methods in spans and metric labels, and
/// records the rest as `_OTHER`. Needs no peer.
#[test]
fn undeclared_names_create_no_span_names_or_metric_series() {
    use std::io::Write;
    let receiver = Receiver::start();
    let mut child = Command::new(super::server_exe())
        .env("OTEL_EXPORTER_OTLP_ENDPOINT", &receiver.endpoint)
        .env("OTEL_BSP_SCHEDULE_DELAY", "50")
        .env("OTEL_METRIC_EXPORT_INTERVAL", "200")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("weather-server starts");
    let mut stdin = child.stdin.take().unwrap();
    let stdout = BufReader::new(child.stdout.take().unwrap());
    const NAMES: usize = 10_000;
    const METHODS: usize = 100;
    let mut lines = vec![
        json!({"jsonrpc": "2.0", "id": "init", "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "otel-bounds", "version": "0"}}}),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        json!({"jsonrpc": "2.0", "id": "ok", "method": "tools/call",
            "params": {"name": "get_forecast", "arguments": {"city": "Oslo"}}}),
        json!({"jsonrpc": "2.0", "id": "fail", "method": "tools/call",
            "params": {"name": "simulate_failure", "arguments": {"mode": "tool_error"}}}),
    ];
    for i in 0..NAMES {
        lines.push(json!({"jsonrpc": "2.0", "id": i, "method": "tools/call",
            "params": {"name": format!("nope-{i}"), "arguments": {}}}));
    }
    for i in 0..METHODS {
        lines.push(
            json!({"jsonrpc": "2.0", "id": format!("m{i}"), "method": format!("made/up-{i}"),
            "params": {"name": format!("also-{i}")}}),
        );
    }
    let expected = lines.len() - 1;
    let writer = std::thread::spawn(move || {
        for line in lines {
            writeln!(stdin, "{line}").unwrap();
        }
        stdin
    });
    let mut answered = 0;
    for line in stdout.lines() {
        let line = line.expect("a line from the server");
        let v: Value = serde_json::from_str(&line).expect("JSON from the server");
        if v.get("id").is_some() {
            answered += 1;
            if answered == expected {
                break;
            }
        }
    }
    assert_eq!(answered, expected, "every request answered");
    let stdin = writer.join().unwrap();

    // Every call's duration is in the metrics once the last export came.
    let series = receiver.wait("durations of every call", |r| {
        let points: Vec<Point> = r
            .points()
            .into_iter()
            .filter(|p| p.metric == "mcp.server.operation.duration")
            .collect();
        let calls: u64 = points
            .iter()
            .filter(|p| p.attributes.get("gen_ai.tool.name").map(String::as_str) == Some("_OTHER"))
            .map(|p| p.count)
            .max()
            .unwrap_or(0);
        (calls as usize >= NAMES).then_some(points)
    });
    let distinct: std::collections::BTreeSet<Vec<(String, String)>> = series
        .iter()
        .map(|p| p.attributes.clone().into_iter().collect())
        .collect();
    for labels in &distinct {
        for (key, value) in labels {
            assert!(
                !value.starts_with("nope-")
                    && !value.starts_with("made/up-")
                    && !value.starts_with("also-"),
                "a label carries what the client sent: {key}={value}"
            );
        }
    }
    eprintln!(
        "{NAMES} undeclared tool names and {METHODS} unanswered methods: {} metric series",
        distinct.len()
    );
    // initialize, get_forecast, simulate_failure (an error), the undeclared
    // tools, the unanswered methods: five series, whatever the client sent.
    assert!(
        distinct.len() <= 5,
        "{} metric series for {NAMES} names: {distinct:#?}",
        distinct.len()
    );
    let spans = receiver.spans();
    let names: std::collections::BTreeSet<&str> = spans.iter().map(|s| s.name.as_str()).collect();
    assert!(
        names
            .iter()
            .all(|n| !n.contains("nope-") && !n.contains("made/up-")),
        "span names: {names:?}"
    );
    assert!(
        names.contains("tools/call get_forecast"),
        "span names: {names:?}"
    );
    let other = spans
        .iter()
        .find(|s| s.attributes.get("gen_ai.tool.name").map(String::as_str) == Some("_OTHER"))
        .expect("a span of an undeclared tool");
    assert_eq!(other.name, "tools/call");
    drop(stdin);
    let _ = child.kill();
    let _ = child.wait();
}

/// `py_http_server.py --trace-file FILE`, killed on drop.
struct PythonServer {
    child: Child,
    url: String,
}

impl Drop for PythonServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn python_server(python: &Path, trace_file: &Path) -> PythonServer {
    let mut child = Command::new(python)
        .arg(repo_root().join("tests/interop/peers/py_http_server.py"))
        .arg("--trace-file")
        .arg(trace_file)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("py_http_server.py starts");
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut line = String::new();
        let _ = BufReader::new(stdout).read_line(&mut line);
        let _ = tx.send(line.trim().to_owned());
    });
    let url = rx.recv_timeout(PATIENCE).unwrap_or_default();
    assert!(
        url.starts_with("http://127.0.0.1:"),
        "py_http_server.py printed {url:?}"
    );
    // The port is bound before the URL is printed, listened on a moment later.
    let addr = url
        .trim_start_matches("http://")
        .trim_end_matches("/mcp")
        .to_owned();
    let deadline = std::time::Instant::now() + PATIENCE;
    while std::net::TcpStream::connect(&addr).is_err() {
        assert!(
            std::time::Instant::now() < deadline,
            "py_http_server.py never listened at {addr}"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    PythonServer { child, url }
}

#[test]
fn runtime_client_trace_continues_in_the_python_sdk_server() {
    use mcpgen_runtime::client::http::HttpTransport;
    use mcpgen_runtime::client::{CallOptions, Client, ClientOptions};
    use mcpgen_runtime::otel::Telemetry;
    use tracing::Instrument;
    use tracing_subscriber::layer::SubscriberExt;

    let Some(python) = require(peers_python()) else {
        return;
    };
    let dir = std::env::temp_dir().join(format!("mcpgen-otel-{}-server", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let trace_file = dir.join("server-spans.jsonl");
    let _ = std::fs::remove_file(&trace_file);
    let server = python_server(&python, &trace_file);
    let receiver = Receiver::start();

    let telemetry = Telemetry::otlp_at("otel-test-client", &receiver.endpoint).unwrap();
    let subscriber = tracing_subscriber::registry().with(telemetry.layer());
    let guard = tracing::subscriber::set_default(subscriber);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let result = runtime.block_on(
        async {
            let transport = HttpTransport::new(&server.url).unwrap();
            let client = Client::connect(transport, ClientOptions::new(["2025-11-25"]))
                .await
                .expect("the Python SDK server answers initialize");
            let result = client
                .call_tool("echo", json!({ "text": "traced" }), &CallOptions::new())
                .await;
            client.shutdown(std::time::Duration::from_secs(5)).await;
            result
        }
        .instrument(tracing::info_span!("agent")),
    );
    drop(guard);
    let result = result.expect("echo answers");
    assert_eq!(result["content"][0]["text"], "traced", "{result}");
    telemetry.shutdown().expect("the spans are exported");

    let spans = receiver.spans();
    let agent = spans
        .iter()
        .find(|s| s.name == "agent")
        .unwrap_or_else(|| panic!("no agent span: {spans:#?}"));
    let call = spans
        .iter()
        .find(|s| s.name == "tools/call echo")
        .unwrap_or_else(|| panic!("no client span: {spans:#?}"));
    assert_eq!(call.kind, "CLIENT", "{call:#?}");
    assert_eq!(call.trace_id, agent.trace_id, "{call:#?}");
    assert_eq!(call.parent_span_id, agent.span_id, "{call:#?}");
    let expected: BTreeMap<&str, &str> = [
        ("mcp.method.name", "tools/call"),
        ("gen_ai.operation.name", "execute_tool"),
        ("gen_ai.tool.name", "echo"),
    ]
    .into();
    for (key, value) in expected {
        assert_eq!(
            call.attributes.get(key).map(String::as_str),
            Some(value),
            "{call:#?}"
        );
    }
    assert!(
        call.attributes.contains_key("jsonrpc.request.id"),
        "{call:#?}"
    );

    // The Python server's span of the call, written when it ended.
    let deadline = std::time::Instant::now() + PATIENCE;
    let server_spans = loop {
        let spans = python_spans(&trace_file);
        if spans.iter().any(|s| s["name"] == "tools/call echo") {
            break spans;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the Python server recorded {spans:#?}"
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    };
    let handled = python_span(&server_spans, "SERVER", "tools/call echo");
    assert_eq!(handled["traceId"], json!(call.trace_id), "{handled:#}");
    assert_eq!(handled["parentSpanId"], json!(call.span_id), "{handled:#}");
    assert_eq!(
        handled["attributes"]["gen_ai.tool.name"], "echo",
        "{handled:#}"
    );
    assert_eq!(
        handled["attributes"]["jsonrpc.request.id"],
        json!(call.attributes["jsonrpc.request.id"]),
        "{handled:#}"
    );
    drop(server);
    let _ = std::fs::remove_dir_all(&dir);
}

/// A request whose `_meta` carries no trace context continues the one in
/// its HTTP `traceparent` header, and a JSON-RPC error is recorded with
/// its code.
#[test]
fn the_http_traceparent_header_is_the_parent_when_meta_has_none() {
    use std::io::{Read, Write};

    let receiver = Receiver::start();
    let server = HttpServer::start_with(&[
        ("OTEL_EXPORTER_OTLP_ENDPOINT", &receiver.endpoint),
        ("OTEL_BSP_SCHEDULE_DELAY", "50"),
    ]);
    let addr = server
        .url
        .trim_start_matches("http://")
        .trim_end_matches("/mcp")
        .to_owned();
    let post = |body: &str, traceparent: &str, session: &str| {
        let mut stream = std::net::TcpStream::connect(&addr).unwrap();
        write!(
            stream,
            "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
             Accept: application/json, text/event-stream\r\ntraceparent: {traceparent}\r\n\
             {session}Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        )
        .unwrap();
        let mut answer = String::new();
        let _ = stream.read_to_string(&mut answer);
        answer
    };
    let initialize = json!({
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": { "name": "raw", "version": "1" }
        }
    });
    let answer = post(
        &initialize.to_string(),
        "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
        "",
    );
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    let span = span_named(&receiver, "initialize");
    assert_eq!(
        span.trace_id, "4bf92f3577b34da6a3ce929d0e0e4736",
        "{span:#?}"
    );
    assert_eq!(span.parent_span_id, "00f067aa0ba902b7", "{span:#?}");
    assert_eq!(attribute(&span, "mcp.method.name"), "initialize");

    // An unknown method in the session: refused, with its code.
    let session = answer
        .lines()
        .find_map(|l| {
            let (name, value) = l.split_once(':')?;
            name.eq_ignore_ascii_case("mcp-session-id")
                .then(|| value.trim().to_owned())
        })
        .unwrap_or_else(|| panic!("no session id in {answer}"));
    let unknown = json!({ "jsonrpc": "2.0", "id": "x-7", "method": "no/such" });
    post(
        &unknown.to_string(),
        "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
        &format!("Mcp-Session-Id: {session}\r\nMCP-Protocol-Version: 2025-11-25\r\n"),
    );
    let spans = receiver.wait("the refused request's span", |r| {
        r.spans()
            .into_iter()
            .find(|s| s.trace_id == "0af7651916cd43dd8448eb211c80319c")
    });
    // A method the server does not answer is not named (`_OTHER`).
    assert_eq!(spans.name, "_OTHER", "{spans:#?}");
    assert_eq!(attribute(&spans, "mcp.method.name"), "_OTHER");
    assert_eq!(spans.status, "ERROR", "{spans:#?}");
    assert_eq!(attribute(&spans, "error.type"), "-32601");
    assert_eq!(attribute(&spans, "rpc.response.status_code"), "-32601");
    assert_eq!(attribute(&spans, "jsonrpc.request.id"), "x-7");
    assert_eq!(attribute(&spans, "mcp.session.id"), session);
}
