//! The example server with the official MCP client SDKs as peers:
//!
//! - the Python SDK (`mcp` 2.3, which speaks both eras) through
//!   `tests/interop/peers/py_client.py`, in each of its modes
//!   (`2026-07-28`, `auto`, `2025-11-25`), over stdio and over Streamable
//!   HTTP: it lists the tools and calls some of them;
//! - the TypeScript SDK (1.32.2, handshake era only) through
//!   `tests/interop/ts-http-client.mjs` over Streamable HTTP: a session with
//!   initialize, tools/list, tools/call, progress over SSE and DELETE.
//!
//! The Python SDK comes from the venv of `bash scripts/setup-peers.sh`
//! (`.peers/py`, or `$MCPGEN_PEERS_DIR/py`); the TypeScript SDK from
//! `bash scripts/setup-interop.sh` (`.interop/`, or `$MCPGEN_INTEROP_DIR`)
//! run by `node` from PATH (else the Node 22 of `.peers`). Without them a
//! test is skipped with a message, except under `CI=true`, where it fails.
//! The HTTP servers listen on 127.0.0.1 only.
//!
//! `peers/otel.rs`: traces across the SDKs and this server, both ways,
//! through the OTLP receiver of `peers/otlp.rs`.

use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

#[cfg(feature = "otel")]
#[path = "peers/otel.rs"]
mod otel;
#[cfg(feature = "otel")]
#[path = "peers/otlp.rs"]
mod otlp;

/// Upper bound for one peer run or a server start, so that a hung peer or
/// server fails the test instead of hanging it. Not a timing assertion.
const PATIENCE: Duration = Duration::from_secs(120);

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn server_exe() -> &'static str {
    env!("CARGO_BIN_EXE_weather-server")
}

/// A peer that is not installed: the test is skipped, or fails under CI.
fn require<T>(peer: Result<T, String>) -> Option<T> {
    match peer {
        Ok(found) => Some(found),
        Err(why) => {
            if std::env::var("CI").is_ok_and(|v| v == "true") {
                panic!("peer test cannot run under CI=true: {why}");
            }
            eprintln!("skipping this peer test: {why}");
            None
        }
    }
}

/// The folder of `scripts/setup-peers.sh`.
fn peers_dir() -> PathBuf {
    std::env::var_os("MCPGEN_PEERS_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo_root().join(".peers"))
}

/// The Python of the peers venv (with the official Python SDK).
fn peers_python() -> Result<PathBuf, String> {
    let python = peers_dir().join("py/bin/python");
    if python.is_file() {
        Ok(python)
    } else {
        Err(format!(
            "{} is missing (the Python SDK venv); run `bash scripts/setup-peers.sh` (needs npm and python3 >= 3.10)",
            python.display()
        ))
    }
}

/// The interop folder with the TypeScript SDK installed.
fn interop_dir() -> Result<PathBuf, String> {
    let dir = std::env::var_os("MCPGEN_INTEROP_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo_root().join(".interop"));
    let sdk = dir.join("node_modules/@modelcontextprotocol/sdk/package.json");
    if sdk.is_file() {
        Ok(dir)
    } else {
        Err(format!(
            "{} is missing; run `bash scripts/setup-interop.sh` (needs npm)",
            sdk.display()
        ))
    }
}

/// `node` from PATH, else the Node 22 that setup-peers.sh installs.
fn node() -> Result<PathBuf, String> {
    let runs = |node: &Path| {
        Command::new(node)
            .arg("--version")
            .output()
            .is_ok_and(|out| out.status.success())
    };
    if runs(Path::new("node")) {
        return Ok(PathBuf::from("node"));
    }
    let node22 = peers_dir().join("node22/node_modules/node/bin/node");
    if runs(&node22) {
        return Ok(node22);
    }
    Err(format!(
        "node is not on PATH and {} is missing; install Node.js or run `bash scripts/setup-peers.sh`",
        node22.display()
    ))
}

/// Reads a pipe to its end on a thread; the text is shared with the
/// caller, and the receiver hears when the pipe has closed.
fn drain(pipe: impl Read + Send + 'static) -> (Arc<Mutex<String>>, mpsc::Receiver<()>) {
    let text = Arc::new(Mutex::new(String::new()));
    let sink = Arc::clone(&text);
    let (closed, on_close) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(pipe).lines() {
            let Ok(line) = line else { break };
            let mut sink = sink.lock().unwrap();
            sink.push_str(&line);
            sink.push('\n');
        }
        let _ = closed.send(());
    });
    (text, on_close)
}

/// What a finished peer process printed.
struct Output {
    success: bool,
    stdout: String,
    stderr: String,
    elapsed: Duration,
}

/// Runs `command` to its end within PATIENCE (killed and failed otherwise).
fn run(mut command: Command, what: &str) -> Output {
    let start = Instant::now();
    let mut child = command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("{what} does not start: {e}"));
    let (stdout, out_closed) = drain(child.stdout.take().unwrap());
    let (stderr, err_closed) = drain(child.stderr.take().unwrap());
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if start.elapsed() > PATIENCE {
            let _ = child.kill();
            let _ = child.wait();
            panic!(
                "{what} did not finish within {PATIENCE:?}\nstdout:\n{}\nstderr:\n{}",
                stdout.lock().unwrap(),
                stderr.lock().unwrap()
            );
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    // The pipes close when the process and any child holding them (the
    // stdio server of the Python driver) have ended; wait a bounded time.
    let _ = out_closed.recv_timeout(Duration::from_secs(10));
    let _ = err_closed.recv_timeout(Duration::from_secs(10));
    let elapsed = start.elapsed();
    let stdout = std::mem::take(&mut *stdout.lock().unwrap());
    let stderr = std::mem::take(&mut *stderr.lock().unwrap());
    Output {
        success: status.success(),
        stdout,
        stderr,
        elapsed,
    }
}

/// `weather-server --http 127.0.0.1:0`, killed on drop.
struct HttpServer {
    child: Child,
    url: String,
    stderr: Arc<Mutex<String>>,
}

impl HttpServer {
    fn start() -> Self {
        Self::start_with(&[])
    }

    /// The server with extra environment variables.
    fn start_with(env: &[(&str, &str)]) -> Self {
        Self::start_with_args(&[], env)
    }

    /// The server with extra flags and environment variables.
    fn start_with_args(args: &[&str], env: &[(&str, &str)]) -> Self {
        let mut child = Command::new(server_exe())
            .args(args)
            .args(["--http", "127.0.0.1:0"])
            .env("RUST_BACKTRACE", "1")
            .envs(env.iter().copied())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("weather-server starts");
        let pipe = child.stderr.take().unwrap();
        let stderr = Arc::new(Mutex::new(String::new()));
        let sink = Arc::clone(&stderr);
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(pipe).lines() {
                let Ok(line) = line else { break };
                if let Some(url) = line.strip_prefix("MCP endpoint: ") {
                    let _ = tx.send(url.trim().to_owned());
                }
                let mut sink = sink.lock().unwrap();
                sink.push_str(&line);
                sink.push('\n');
            }
        });
        let mut server = Self {
            child,
            url: String::new(),
            stderr,
        };
        match rx.recv_timeout(PATIENCE) {
            Ok(url) => server.url = url,
            Err(_) => panic!(
                "weather-server --http printed no `MCP endpoint:` line; stderr:\n{}",
                server.stderr()
            ),
        }
        assert!(
            server.url.starts_with("http://127.0.0.1:") && server.url.ends_with("/mcp"),
            "endpoint {}",
            server.url
        );
        server
    }

    fn stderr(&self) -> String {
        self.stderr.lock().unwrap().clone()
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn manifest_tools() -> Vec<Value> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tools.json");
    let manifest: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    manifest["tools"].as_array().unwrap().clone()
}

fn names(tools: &[Value]) -> Vec<&str> {
    tools
        .iter()
        .map(|t| {
            t["name"]
                .as_str()
                .unwrap_or_else(|| panic!("tool without a name: {t}"))
        })
        .collect()
}

fn text(result: &Value) -> &str {
    result["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("no text block: {result}"))
}

/// get_forecast {"city": "Oslo"}: three metric days (the defaults), the
/// same every time (forecasts are derived from the city name).
fn assert_oslo_forecast(result: &Value) {
    assert_ne!(result["isError"], true, "{result}");
    let forecast = &result["structuredContent"];
    assert_eq!(forecast["city"], "Oslo", "{result}");
    assert_eq!(forecast["units"], "metric", "{result}");
    assert_eq!(
        forecast["days"],
        json!([
            {"day": 1, "high": 10.7, "low": 7.4, "conditions": "partly cloudy"},
            {"day": 2, "high": 24.6, "low": 21.5, "conditions": "sunny"},
            {"day": 3, "high": 15.5, "low": 7.8, "conditions": "rain"},
        ]),
        "{result}"
    );
    // The text block carries the same JSON, for clients that ignore structuredContent.
    let echoed: Value =
        serde_json::from_str(text(result)).unwrap_or_else(|e| panic!("{e}: {result}"));
    assert_eq!(&echoed, forecast);
}

// ---------------------------------------------------------------------------
// The Python SDK client.

#[derive(Clone, Copy, Debug)]
enum Via {
    Stdio,
    Http,
}

/// The calls every Python run makes, with what each must answer.
const PY_CALLS: &[(&str, &str)] = &[
    ("get_forecast", r#"{"city":"Oslo"}"#),
    (
        "convert_temperature",
        r#"{"value":100,"from":"celsius","to":"fahrenheit"}"#,
    ),
    ("get_alerts", r#"{"region":"Swiss Alps"}"#),
    ("watch_radar", r#"{"steps":3,"step_ms":1}"#),
    ("simulate_failure", r#"{"mode":"tool_error"}"#),
];

/// Runs the py_client.py `command` against the server started with
/// `flags` (a stdio child of the driver, or an HTTP server of this test
/// given the same flags), asserts it succeeded and returns its output
/// lines, the context for messages and how long it took.
fn run_python(
    mut command: Command,
    via: Via,
    flags: &[&str],
    what: &str,
) -> (Vec<Value>, String, Duration) {
    let server = match via {
        Via::Stdio => {
            command.args(["--stdio", server_exe()]).args(flags);
            None
        }
        Via::Http => {
            let server = HttpServer::start_with_args(flags, &[]);
            command.args(["--url", &server.url]);
            Some(server)
        }
    };
    let out = run(command, &format!("Python SDK {what} over {via:?}"));
    let server_log = server.as_ref().map(HttpServer::stderr).unwrap_or_default();
    let context = format!(
        "stdout:\n{}\nstderr:\n{}\nHTTP server stderr:\n{server_log}",
        out.stdout, out.stderr
    );
    assert!(
        out.success,
        "py_client.py {what} over {via:?} failed\n{context}"
    );
    let lines = out
        .stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}\n{context}")))
        .collect();
    (lines, context, out.elapsed)
}

/// Runs py_client.py in `mode` against the server (a stdio child of the
/// driver, or an HTTP server of this test) and checks every line it printed.
fn python_client(mode: &str, via: Via, expected_version: &str) {
    let Some(python) = require(peers_python()) else {
        return;
    };
    let driver = repo_root().join("tests/interop/peers/py_client.py");
    let mut command = Command::new(python);
    command
        .arg(&driver)
        .args(["--mode", mode, "--timeout", "60", "--allow-tool-error"]);
    for (name, args) in PY_CALLS {
        command.args(["--call", name, "--args", args]);
    }
    let (lines, context, elapsed) = run_python(command, via, &[], &format!("--mode {mode}"));
    assert_eq!(
        lines.len(),
        2 + PY_CALLS.len(),
        "one line per step\n{context}"
    );

    let connected = &lines[0];
    assert_eq!(connected["event"], "connected", "{context}");
    assert_eq!(connected["protocolVersion"], expected_version, "{context}");
    let era = if expected_version == "2026-07-28" {
        "2026-07-28"
    } else {
        "handshake"
    };
    assert_eq!(connected["era"], era, "{context}");
    assert_eq!(
        connected["serverInfo"]["name"], "weather-server",
        "{context}"
    );
    assert!(connected["capabilities"]["tools"].is_object(), "{context}");

    let listed = &lines[1];
    assert_eq!(listed["event"], "tools/list", "{context}");
    let manifest = manifest_tools();
    let tools = listed["tools"].as_array().unwrap();
    assert_eq!(names(tools), names(&manifest), "{context}");
    assert_eq!(
        tools[0]["outputSchema"], manifest[0]["outputSchema"],
        "{context}"
    );

    let calls = &lines[2..];
    for ((name, _), line) in PY_CALLS.iter().zip(calls) {
        assert_eq!(line["event"], "tools/call", "{context}");
        assert_eq!(line["name"], *name, "{context}");
        if era == "2026-07-28" {
            // Every result of the stateless era says it is complete and
            // (a SHOULD of 2026-07-28) names the server in its _meta.
            assert_eq!(
                line["result"]["resultType"], "complete",
                "{name}: {}",
                line["result"]
            );
            let server_info = &line["result"]["_meta"]["io.modelcontextprotocol/serverInfo"];
            assert_eq!(
                server_info["name"], "weather-server",
                "{name}: {}",
                line["result"]
            );
        }
    }
    let result = |name: &str| &calls.iter().find(|l| l["name"] == name).unwrap()["result"];
    assert_oslo_forecast(result("get_forecast"));
    assert_eq!(
        text(result("convert_temperature")),
        "100 celsius = 212.00 °F"
    );
    assert_eq!(
        text(result("get_alerts")),
        "Swiss Alps: Avalanche danger level 3 (considerable) above 2000 m."
    );
    assert!(
        text(result("watch_radar")).contains("3 sweeps"),
        "{}",
        result("watch_radar")
    );
    for ok in ["convert_temperature", "get_alerts", "watch_radar"] {
        assert_ne!(result(ok)["isError"], true, "{ok}: {}", result(ok));
    }
    // A tool failure reaches the client as an isError result, not a protocol error.
    let failure = result("simulate_failure");
    assert_eq!(failure["isError"], true, "{failure}");
    assert_eq!(
        text(failure),
        "weather station offline: sensor 7 not responding"
    );
    eprintln!("Python SDK client --mode {mode} over {via:?}: ok ({elapsed:.2?})");
}

/// An agent's flow against the search tool surface
/// (`--tool-surface search`): `tools/list` answers the two search tools;
/// `search_tools` finds the alerts tool for a request in a person's words;
/// the tool runs through `call_tool`, then by its own name, with the same
/// answer.
fn python_search_flow(mode: &str, via: Via) {
    let Some(python) = require(peers_python()) else {
        return;
    };
    let driver = repo_root().join("tests/interop/peers/py_client.py");
    let mut command = Command::new(python);
    command
        .arg(&driver)
        .args(["--mode", mode, "--timeout", "60"]);
    let calls = [
        (
            "search_tools",
            r#"{"query":"are there any weather warnings for the Alps region?","limit":3}"#,
        ),
        (
            "call_tool",
            r#"{"name":"get_alerts","arguments":{"region":"Swiss Alps"}}"#,
        ),
        ("get_alerts", r#"{"region":"Swiss Alps"}"#),
    ];
    for (name, args) in calls {
        command.args(["--call", name, "--args", args]);
    }
    let flags = ["--tool-surface", "search"];
    let (lines, context, elapsed) =
        run_python(command, via, &flags, &format!("search flow --mode {mode}"));
    assert_eq!(lines.len(), 2 + calls.len(), "one line per step\n{context}");
    let listed = lines[1]["tools"].as_array().unwrap();
    assert_eq!(names(listed), ["search_tools", "call_tool"], "{context}");
    let found = lines[2]["result"]["structuredContent"]["result"]
        .as_array()
        .unwrap_or_else(|| panic!("no tools found\n{context}"));
    assert_eq!(found[0]["name"], "get_alerts", "{context}");
    let manifest = manifest_tools();
    let declared = manifest.iter().find(|t| t["name"] == "get_alerts").unwrap();
    assert_eq!(
        found[0]["inputSchema"], declared["inputSchema"],
        "the full definition"
    );
    let expected = "Swiss Alps: Avalanche danger level 3 (considerable) above 2000 m.";
    assert_eq!(
        text(&lines[3]["result"]),
        expected,
        "through call_tool\n{context}"
    );
    assert_eq!(text(&lines[4]["result"]), expected, "by name\n{context}");
    eprintln!("Python SDK search flow --mode {mode} over {via:?}: ok ({elapsed:.2?})");
}

#[test]
fn python_sdk_search_flow_2026_07_28_over_stdio() {
    python_search_flow("2026-07-28", Via::Stdio);
}

#[test]
fn python_sdk_search_flow_2026_07_28_over_http() {
    python_search_flow("2026-07-28", Via::Http);
}

#[test]
fn python_sdk_search_flow_2025_11_25_over_stdio() {
    python_search_flow("2025-11-25", Via::Stdio);
}

#[test]
fn python_sdk_search_flow_2025_11_25_over_http() {
    python_search_flow("2025-11-25", Via::Http);
}

#[test]
fn python_sdk_2026_07_28_over_stdio() {
    python_client("2026-07-28", Via::Stdio, "2026-07-28");
}

#[test]
fn python_sdk_2026_07_28_over_http() {
    python_client("2026-07-28", Via::Http, "2026-07-28");
}

/// `auto` probes with server/discover; the server speaks 2026-07-28, so
/// the SDK must stay in that era rather than fall back to initialize.
#[test]
fn python_sdk_auto_over_stdio() {
    python_client("auto", Via::Stdio, "2026-07-28");
}

#[test]
fn python_sdk_auto_over_http() {
    python_client("auto", Via::Http, "2026-07-28");
}

#[test]
fn python_sdk_2025_11_25_over_stdio() {
    python_client("2025-11-25", Via::Stdio, "2025-11-25");
}

#[test]
fn python_sdk_2025_11_25_over_http() {
    python_client("2025-11-25", Via::Http, "2025-11-25");
}

// ---------------------------------------------------------------------------
// The TypeScript SDK client over Streamable HTTP.

/// A copy of a script in the interop folder (so that node resolves the SDK
/// from there) under a name of its own, removed on drop.
struct ScriptCopy(PathBuf);

impl ScriptCopy {
    fn new(dir: &Path, script: &str) -> Self {
        let source = repo_root().join("tests/interop").join(script);
        let copy = dir.join(format!(".{}-{script}", std::process::id()));
        std::fs::copy(&source, &copy)
            .unwrap_or_else(|e| panic!("copy {} to {}: {e}", source.display(), copy.display()));
        Self(copy)
    }
}

impl Drop for ScriptCopy {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

#[test]
fn typescript_sdk_over_streamable_http() {
    let Some(dir) = require(interop_dir()) else {
        return;
    };
    let Some(node) = require(node()) else { return };
    let script = ScriptCopy::new(&dir, "ts-http-client.mjs");
    let server = HttpServer::start();
    let mut command = Command::new(node);
    command.arg(&script.0).arg(&server.url);
    let out = run(command, "TypeScript SDK client over Streamable HTTP");
    let context = format!(
        "stdout:\n{}\nstderr:\n{}\nserver stderr:\n{}",
        out.stdout,
        out.stderr,
        server.stderr()
    );
    assert!(out.success, "ts-http-client.mjs failed\n{context}");
    let summary: Value =
        serde_json::from_str(out.stdout.trim()).unwrap_or_else(|e| panic!("{e}\n{context}"));

    // initialize: the SDK's newest version, a session.
    assert_eq!(summary["protocolVersion"], "2025-11-25", "{context}");
    assert!(
        summary["sessionId"].as_str().is_some_and(|s| !s.is_empty()),
        "no Mcp-Session-Id\n{context}"
    );
    assert_eq!(summary["serverInfo"]["name"], "weather-server");
    assert!(summary["capabilities"]["tools"].is_object(), "{context}");

    let manifest = manifest_tools();
    let tools = summary["tools"].as_array().unwrap();
    assert_eq!(names(tools), names(&manifest));
    assert_eq!(tools[0]["outputSchema"], manifest[0]["outputSchema"]);

    // The SDK validated structuredContent against the outputSchema itself.
    let calls = &summary["calls"];
    assert_oslo_forecast(&calls["get_forecast"]);
    assert_eq!(
        text(&calls["convert_temperature"]),
        "100 celsius = 212.00 °F"
    );
    assert!(
        text(&calls["watch_radar"]).contains("3 sweeps"),
        "{context}"
    );
    // Over HTTP the notifications precede the result on the same SSE
    // stream, so the callback sees every one of them, in order.
    let progress: Vec<(f64, f64)> = summary["progress"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["progress"].as_f64().unwrap(),
                p["total"].as_f64().unwrap(),
            )
        })
        .collect();
    assert_eq!(progress, [(1.0, 3.0), (2.0, 3.0), (3.0, 3.0)], "{context}");
    assert_eq!(summary["ping"], json!({}));
    assert_eq!(
        summary["errors"],
        json!([]),
        "the client reported errors during the session\n{context}"
    );

    // The wire as the transport saw it.
    let http = summary["http"].as_array().unwrap();
    let init = &http[0];
    assert_eq!(
        (&init["method"], &init["rpc"], &init["status"]),
        (&json!("POST"), &json!("initialize"), &json!(200))
    );
    assert_eq!(init["sessionReceived"], summary["sessionId"]);
    let initialized = http
        .iter()
        .find(|e| e["rpc"] == "notifications/initialized")
        .expect("notifications/initialized");
    assert_eq!(
        initialized["status"], 202,
        "a notification is accepted without a body\n{context}"
    );
    let posts: Vec<&Value> = http.iter().filter(|e| e["rpc"] == "tools/call").collect();
    assert_eq!(posts.len(), 3, "{context}");
    let radar = posts[2];
    assert_eq!(radar["status"], 200, "{context}");
    assert!(
        radar["contentType"]
            .as_str()
            .is_some_and(|t| t.starts_with("text/event-stream")),
        "watch_radar's progress must come as SSE: {radar}"
    );
    for entry in http
        .iter()
        .filter(|e| e["method"] == "POST" && e["rpc"] != "initialize")
    {
        let status = entry["status"].as_u64().unwrap();
        assert!((200..300).contains(&status), "{entry}");
    }

    // DELETE ended the session; the id is unknown afterwards.
    let delete = http
        .iter()
        .find(|e| e["method"] == "DELETE")
        .expect("the client sent DELETE");
    assert_eq!(delete["sessionSent"], summary["sessionId"]);
    assert_eq!(delete["status"], 200, "DELETE of a live session\n{context}");
    assert_eq!(summary["sessionAfterDelete"], Value::Null);
    assert_eq!(
        summary["afterDelete"]["status"], 404,
        "a request with the ended session\n{context}"
    );
    eprintln!(
        "TypeScript SDK client over Streamable HTTP: ok ({:.2?})",
        out.elapsed
    );
}
