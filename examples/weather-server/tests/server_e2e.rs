//! End-to-end tests of the generated example server: the real binary is
//! spawned and spoken to with raw JSON-RPC lines over stdio, covering every
//! protocol path: version negotiation, pagination, each error code, both
//! validation-error styles, tool errors, panics, invalid output,
//! concurrency, cancellation, progress, rate limits, the access-control and
//! output hooks, the audit log on stderr, and clean exit at end of input.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::time::Duration;

use serde_json::{json, Value};

/// Generous upper bound for one answer, so a broken server fails the test
/// instead of hanging it. Not a timing assertion.
const PATIENCE: Duration = Duration::from_secs(60);

struct Server {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
    stderr_path: std::path::PathBuf,
    _dir: TempDir,
}

/// A scratch directory removed on drop.
struct TempDir(std::path::PathBuf);

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn temp_dir() -> TempDir {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static N: AtomicUsize = AtomicUsize::new(0);
    let dir = std::env::temp_dir().join(format!(
        "weather-e2e-{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::SeqCst)
    ));
    std::fs::create_dir_all(&dir).unwrap();
    TempDir(dir)
}

impl Server {
    fn start(env: &[(&str, &str)]) -> Self {
        Self::start_bin(env!("CARGO_BIN_EXE_weather-server"), env)
    }

    fn start_bin(exe: &str, env: &[(&str, &str)]) -> Self {
        let dir = temp_dir();
        let stderr_path = dir.0.join("stderr.log");
        let stderr = std::fs::File::create(&stderr_path).unwrap();
        let mut cmd = Command::new(exe);
        cmd.stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(stderr)
            .env("RUST_BACKTRACE", "0");
        for (k, v) in env {
            cmd.env(k, v);
        }
        let mut child = cmd.spawn().expect("the example server starts");
        let stdin = child.stdin.take();
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Server {
            child,
            stdin,
            lines,
            stderr_path,
            _dir: dir,
        }
    }

    fn send(&mut self, text: &str) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        stdin.write_all(text.as_bytes()).unwrap();
        stdin.write_all(b"\n").unwrap();
        stdin.flush().unwrap();
    }

    fn send_json(&mut self, value: Value) {
        self.send(&value.to_string());
    }

    /// The next line the server writes, which must be JSON-RPC 2.0.
    fn recv(&mut self) -> Value {
        let line = self
            .lines
            .recv_timeout(PATIENCE)
            .expect("the server answers");
        let value: Value = serde_json::from_str(&line)
            .unwrap_or_else(|e| panic!("stdout line is not JSON ({e}): {line}"));
        assert_eq!(value["jsonrpc"], "2.0", "{line}");
        value
    }

    fn request(&mut self, id: Value, method: &str, params: Value) -> Value {
        self.send_json(json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params }));
        let r = self.recv();
        assert_eq!(r["id"], id, "answers in order for sequential requests: {r}");
        r
    }

    fn call(&mut self, id: i64, tool: &str, arguments: Value) -> Value {
        self.request(
            json!(id),
            "tools/call",
            json!({ "name": tool, "arguments": arguments }),
        )
    }

    fn initialize(&mut self, version: &str) -> Value {
        let r = self.request(
            json!(0),
            "initialize",
            json!({ "protocolVersion": version, "capabilities": {}, "clientInfo": { "name": "e2e-client", "version": "1.0" } }),
        );
        self.send(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
        r
    }

    /// Closes stdin, waits for a clean exit and returns stderr.
    fn finish(mut self) -> String {
        drop(self.stdin.take());
        let status = self.child.wait().unwrap();
        assert!(status.success(), "exit status {status}");
        assert!(
            self.lines.recv_timeout(PATIENCE).is_err(),
            "no output after the last answer"
        );
        std::fs::read_to_string(&self.stderr_path).unwrap()
    }
}

fn text_of(result: &Value) -> &str {
    result["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("no text block: {result}"))
}

fn manifest_tools() -> Vec<Value> {
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/tools.json")).unwrap();
    let doc: Value = serde_json::from_str(&text).unwrap();
    doc["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            let mut t = t.clone();
            t.as_object_mut().unwrap().remove("x-mcpgen");
            t
        })
        .collect()
}

#[test]
fn initialize_negotiates_versions_and_declares_tools() {
    let mut s = Server::start(&[]);
    let r = s.initialize("2025-11-25");
    let result = &r["result"];
    assert_eq!(result["protocolVersion"], "2025-11-25");
    assert_eq!(
        result["capabilities"]["tools"],
        json!({ "listChanged": false })
    );
    assert_eq!(result["capabilities"]["logging"], json!({}));
    assert_eq!(
        result["serverInfo"],
        json!({ "name": "weather-server", "version": "0.1.0", "title": "Weather (mcpgen example)" })
    );
    assert!(result["instructions"]
        .as_str()
        .unwrap()
        .contains("fails on purpose"));

    for older in ["2024-11-05", "2025-03-26", "2025-06-18"] {
        let r = s.request(json!(1), "initialize", json!({ "protocolVersion": older, "capabilities": {}, "clientInfo": { "name": "c", "version": "1" } }));
        assert_eq!(
            r["result"]["protocolVersion"], older,
            "a supported revision is echoed"
        );
    }
    let r = s.request(json!(2), "initialize", json!({ "protocolVersion": "2099-01-01", "capabilities": {}, "clientInfo": { "name": "c", "version": "1" } }));
    assert_eq!(
        r["result"]["protocolVersion"], "2025-11-25",
        "else the server's own"
    );
    let r = s.request(json!(3), "initialize", json!({ "capabilities": {} }));
    assert_eq!(r["error"]["code"], -32602);
    let r = s.request(json!("p"), "ping", json!({}));
    assert_eq!(r["result"], json!({}));
    s.finish();
}

#[test]
fn framing_errors_unknown_methods_and_silent_notifications() {
    let mut s = Server::start(&[]);
    s.initialize("2025-11-25");
    s.send("{this is not json");
    let r = s.recv();
    assert_eq!(
        (r["id"].clone(), r["error"]["code"].clone()),
        (Value::Null, json!(-32700))
    );

    s.send(r#"{"id":4,"method":"ping"}"#);
    let r = s.recv();
    assert_eq!(
        (r["id"].clone(), r["error"]["code"].clone()),
        (json!(4), json!(-32600))
    );
    s.send(r#"{"jsonrpc":"2.0","id":5,"method":"tools/list","params":"all"}"#);
    assert_eq!(s.recv()["error"]["code"], -32600);
    s.send(r#"{"jsonrpc":"2.0","id":true,"method":"ping"}"#);
    assert_eq!(s.recv()["error"]["code"], -32600);
    s.send(r#"[{"jsonrpc":"2.0","id":6,"method":"ping"}]"#);
    assert_eq!(s.recv()["error"]["code"], -32600);

    let r = s.request(json!(7), "sampling/createMessage", json!({}));
    assert_eq!(r["error"]["code"], -32601);
    assert!(r["error"]["message"]
        .as_str()
        .unwrap()
        .contains("sampling/createMessage"));

    // Notifications, known or not, get no answer: the next line is the ping's.
    s.send(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
    s.send(r#"{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}"#);
    s.send(r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":12345}}"#);
    s.send(r#"{"jsonrpc":"2.0","method":"tools/list"}"#);
    let r = s.request(json!(8), "ping", json!({}));
    assert_eq!(r["result"], json!({}));
    s.finish();
}

#[test]
fn tools_list_serves_the_manifest_in_order_with_pages() {
    let mut s = Server::start(&[("WEATHER_PAGE_SIZE", "4")]);
    s.initialize("2025-11-25");
    let mut served = Vec::new();
    let mut cursor: Option<Value> = None;
    let mut pages = 0;
    loop {
        let params = cursor
            .as_ref()
            .map_or(json!({}), |c| json!({ "cursor": c }));
        let r = s.request(json!(10 + pages), "tools/list", params);
        pages += 1;
        served.extend(r["result"]["tools"].as_array().unwrap().iter().cloned());
        match r["result"].get("nextCursor") {
            Some(c) => {
                assert!(c
                    .as_str()
                    .unwrap()
                    .chars()
                    .all(|ch| ch.is_ascii_alphanumeric() || ch == '-' || ch == '_'));
                cursor = Some(c.clone());
            }
            None => break,
        }
    }
    assert_eq!(pages, 2);
    assert_eq!(
        served,
        manifest_tools(),
        "exactly as declared, unknown fields kept, x-mcpgen removed"
    );
    assert_eq!(
        served[5]["x-example-note"],
        "unknown fields are served unchanged"
    );

    for bad in [json!("bm90LWEtY3Vyc29y"), json!("!!"), json!(17)] {
        let r = s.request(json!(20), "tools/list", json!({ "cursor": bad }));
        assert_eq!(r["error"]["code"], -32602, "{bad}");
    }
    s.finish();
}

#[test]
fn every_tool_answers() {
    let mut s = Server::start(&[]);
    s.initialize("2025-11-25");

    let r = s.call(
        1,
        "get_forecast",
        json!({ "city": "Oslo", "days": 2, "units": "imperial" }),
    );
    let result = &r["result"];
    let structured = &result["structuredContent"];
    assert_eq!(structured["city"], "Oslo");
    assert_eq!(structured["units"], "imperial");
    assert_eq!(structured["days"].as_array().unwrap().len(), 2);
    let echoed: Value = serde_json::from_str(text_of(result)).unwrap();
    assert_eq!(&echoed, structured, "the text block carries the same JSON");
    assert!(result.get("isError").is_none());

    // Defaults apply: three days in metric.
    let r = s.call(2, "get_forecast", json!({ "city": "Bergen" }));
    assert_eq!(
        r["result"]["structuredContent"]["days"]
            .as_array()
            .unwrap()
            .len(),
        3
    );
    assert_eq!(r["result"]["structuredContent"]["units"], "metric");

    let r = s.call(
        3,
        "convert_temperature",
        json!({ "value": 100, "from": "celsius", "to": "fahrenheit" }),
    );
    assert_eq!(
        r["result"]["content"],
        json!([{ "type": "text", "text": "100 celsius = 212.00 °F" }])
    );
    assert!(r["result"].get("structuredContent").is_none());

    let r = s.call(
        4,
        "plan_trip",
        json!({
            "traveler": { "name": "Ada", "age": 36 },
            "stops": [{ "city": "Bergen", "nights": 2 }, { "city": "Oslo", "nights": 1 }],
            "preferences": { "avoid": ["rain"] }
        }),
    );
    let plan = &r["result"]["structuredContent"];
    assert_eq!(plan["traveler"], "Ada");
    assert_eq!(plan["total_nights"], 3);
    assert_eq!(plan["itinerary"][1]["arrive_on_night"], 3);

    let r = s.call(5, "get_alerts", json!({ "region": "Swiss Alps" }));
    assert!(
        text_of(&r["result"]).starts_with("Swiss Alps: Avalanche"),
        "{r}"
    );

    // Progress notifications come before the result when asked for.
    s.send_json(json!({
        "jsonrpc": "2.0", "id": 6, "method": "tools/call",
        "params": { "name": "watch_radar", "arguments": { "steps": 3, "step_ms": 1 }, "_meta": { "progressToken": "radar-1" } }
    }));
    for step in 1..=3 {
        let n = s.recv();
        assert_eq!(n["method"], "notifications/progress");
        assert_eq!(n["params"]["progressToken"], "radar-1");
        assert_eq!(n["params"]["progress"], json!(step as f64));
        assert_eq!(n["params"]["total"], json!(3.0));
        assert!(n.get("id").is_none());
    }
    let r = s.recv();
    assert_eq!(r["id"], 6);
    assert!(text_of(&r["result"]).contains("3 sweeps"));

    let r = s.call(7, "simulate_failure", json!({ "mode": "tool_error" }));
    assert_eq!(
        r["result"],
        json!({ "content": [{ "type": "text", "text": "weather station offline: sensor 7 not responding" }], "isError": true })
    );
    s.finish();
}

#[test]
fn tools_call_errors() {
    let mut s = Server::start(&[]);
    s.initialize("2025-11-25");
    let cases = [
        json!({ "name": "no_such_tool", "arguments": {} }),
        json!({ "arguments": { "city": "Oslo" } }),
        json!({ "name": 42 }),
        json!({ "name": "get_forecast", "arguments": "Oslo" }),
        json!({ "name": "get_forecast", "arguments": { "city": "Oslo" }, "_meta": { "progressToken": [1] } }),
    ];
    for (i, params) in cases.into_iter().enumerate() {
        let r = s.request(json!(i), "tools/call", params.clone());
        assert_eq!(r["error"]["code"], -32602, "{params} -> {r}");
    }
    let r = s.request(json!(9), "tools/call", Value::Null);
    assert_eq!(r["error"]["code"], -32600, "params must be an object: {r}");
    s.finish();
}

#[test]
fn invalid_arguments_are_a_tool_error_from_2025_11_25() {
    let mut s = Server::start(&[]);
    s.initialize("2025-11-25");
    let r = s.call(
        1,
        "get_forecast",
        json!({ "city": "", "days": 9, "units": "kelvin", "extra": true }),
    );
    let result = &r["result"];
    assert_eq!(result["isError"], true, "{r}");
    let text = text_of(result);
    for needle in [
        "/city",
        "/days",
        "/units",
        "extra",
        "greater than the maximum of 7",
    ] {
        assert!(text.contains(needle), "{needle:?} missing from {text}");
    }
    let r = s.call(
        2,
        "plan_trip",
        json!({ "traveler": {}, "stops": [{ "city": "Oslo", "nights": 0 }] }),
    );
    let text = text_of(&r["result"]);
    assert!(
        text.contains("/traveler") && text.contains("\"name\""),
        "{text}"
    );
    assert!(text.contains("/stops/0/nights"), "{text}");
    s.finish();
}

#[test]
fn invalid_arguments_are_32602_up_to_2025_06_18() {
    let mut s = Server::start(&[]);
    s.initialize("2025-06-18");
    let r = s.call(1, "get_forecast", json!({ "city": "", "days": 0 }));
    assert_eq!(r["error"]["code"], -32602, "{r}");
    assert!(r.get("result").is_none());
    let errors = r["error"]["data"]["errors"].as_array().unwrap();
    let paths: Vec<&str> = errors.iter().map(|e| e["path"].as_str().unwrap()).collect();
    assert!(
        paths.contains(&"/city") && paths.contains(&"/days"),
        "{paths:?}"
    );
    assert!(errors
        .iter()
        .all(|e| !e["message"].as_str().unwrap().is_empty()));
    s.finish();
}

#[test]
fn invalid_output_panics_and_recovery() {
    let mut s = Server::start(&[]);
    s.initialize("2025-11-25");
    let r = s.call(1, "simulate_failure", json!({ "mode": "bad_output" }));
    assert_eq!(r["error"]["code"], -32603, "{r}");
    assert!(
        r.get("result").is_none(),
        "invalid output never goes out as success"
    );
    assert_eq!(r["error"]["data"]["errors"][0]["path"], "/code");

    let r = s.call(2, "simulate_failure", json!({ "mode": "panic" }));
    assert_eq!(r["error"]["code"], -32603, "{r}");
    // Still serving, twice over.
    let r = s.call(3, "simulate_failure", json!({ "mode": "panic" }));
    assert_eq!(r["error"]["code"], -32603);
    let r = s.call(4, "get_forecast", json!({ "city": "Oslo" }));
    assert_eq!(r["result"]["structuredContent"]["city"], "Oslo");
    let stderr = s.finish();
    assert!(
        stderr.contains("simulated handler panic"),
        "the panic is logged on stderr"
    );
}

#[test]
fn calls_run_concurrently_and_cancellation_stops_them() {
    let mut s = Server::start(&[]);
    s.initialize("2025-11-25");
    // A scan that would take 100 s, then a quick call: the quick call is
    // answered while the scan runs.
    s.send_json(json!({
        "jsonrpc": "2.0", "id": "scan", "method": "tools/call",
        "params": { "name": "watch_radar", "arguments": { "steps": 1000, "step_ms": 100 } }
    }));
    let r = s.call(2, "get_forecast", json!({ "city": "Oslo", "days": 1 }));
    assert_eq!(
        r["result"]["structuredContent"]["days"]
            .as_array()
            .unwrap()
            .len(),
        1
    );
    s.send(r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"scan","reason":"user gave up"}}"#);
    // No response for the cancelled request: the next line answers the ping.
    let r = s.request(json!(3), "ping", json!({}));
    assert_eq!(r["result"], json!({}));
    let stderr = s.finish();
    let cancelled = stderr.lines().any(|l| {
        l.contains("mcpgen::audit") && l.contains("watch_radar") && l.contains("cancelled")
    });
    assert!(
        cancelled,
        "the audit log records the cancellation:\n{stderr}"
    );
}

#[test]
fn rate_limit_access_control_output_hook_and_audit() {
    let mut s = Server::start(&[
        ("WEATHER_DENY_TOOLS", "plan_trip"),
        ("WEATHER_REDACT", "Oslo"),
        ("WEATHER_AUDIT_ARGS", "1"),
    ]);
    s.initialize("2025-11-25");
    for i in 0..5 {
        let r = s.call(i, "get_alerts", json!({ "region": "North Sea" }));
        assert!(
            r["result"].get("isError").is_none(),
            "call {i} within the limit: {r}"
        );
    }
    let r = s.call(5, "get_alerts", json!({ "region": "North Sea" }));
    assert_eq!(r["result"]["isError"], true);
    let text = text_of(&r["result"]);
    // In the manifest's units (5 calls per 60 s per caller), the wait in seconds.
    assert!(
        text.contains(
            "Rate limit exceeded for tool get_alerts (limited to 5 calls per 60 s per principal); retry in "
        ) && text.ends_with(" s"),
        "{text}"
    );
    // The same wait as a number in the result's `_meta`, in milliseconds.
    let wait = r["result"]["_meta"]["mcpgen/retryAfterMs"]
        .as_u64()
        .unwrap_or_else(|| panic!("no mcpgen/retryAfterMs: {r}"));
    assert!((10_000..=12_000).contains(&wait), "{r}");
    assert!(
        text.ends_with(&format!("retry in {} s", wait.div_ceil(1000))),
        "{text}"
    );

    let r = s.call(
        6,
        "plan_trip",
        json!({ "traveler": { "name": "Ada" }, "stops": [{ "city": "Rome", "nights": 1 }] }),
    );
    assert_eq!(r["result"]["isError"], true);
    assert!(text_of(&r["result"])
        .contains("Access denied to tool plan_trip: e2e-client may not call plan_trip"));

    let r = s.call(7, "get_forecast", json!({ "city": "Oslo", "days": 1 }));
    assert!(text_of(&r["result"]).contains("[redacted]"), "{r}");
    assert!(!text_of(&r["result"]).contains("Oslo"));

    let stderr = s.finish();
    let audit: Vec<&str> = stderr
        .lines()
        .filter(|l| l.contains("mcpgen::audit"))
        .collect();
    assert_eq!(audit.len(), 8, "one audit line per call:\n{stderr}");
    assert!(audit
        .iter()
        .any(|l| l.contains("tool=\"get_alerts\"") && l.contains("outcome=\"rate_limited\"")));
    assert!(audit
        .iter()
        .any(|l| l.contains("tool=\"plan_trip\"") && l.contains("outcome=\"denied\"")));
    assert!(audit
        .iter()
        .all(|l| l.contains("client=\"e2e-client\"") && l.contains("duration_us=")));
    assert!(
        audit.iter().any(|l| l.contains("North Sea")),
        "argument values when enabled"
    );
}

#[test]
fn audit_log_leaves_out_arguments_by_default() {
    let mut s = Server::start(&[]);
    s.initialize("2025-11-25");
    let r = s.call(1, "get_forecast", json!({ "city": "Reykjavik" }));
    assert!(r.get("result").is_some());
    let stderr = s.finish();
    assert!(stderr.contains("outcome=\"success\""), "{stderr}");
    assert!(
        !stderr.contains("Reykjavik"),
        "argument values stay out of the log:\n{stderr}"
    );
}

#[test]
fn requests_from_a_file_are_all_answered_before_exit() {
    // Stdin is a regular file here (not a pipe), which takes the reader-thread
    // path of the stdio transport; calls still running at end of input finish.
    let dir = temp_dir();
    let input = dir.0.join("requests.jsonl");
    let requests = [
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "file", "version": "1"}}}),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "watch_radar", "arguments": {"steps": 3, "step_ms": 20}}}),
        json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "get_alerts", "arguments": {"region": "Baltic Sea"}}}),
    ];
    let text: String = requests.iter().map(|r| format!("{r}\n")).collect();
    std::fs::write(&input, format!("\n{text}\n")).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_weather-server"))
        .stdin(std::fs::File::open(&input).unwrap())
        .stderr(Stdio::null())
        .output()
        .unwrap();
    assert!(out.status.success());
    let answers: Vec<Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let mut ids: Vec<i64> = answers.iter().map(|a| a["id"].as_i64().unwrap()).collect();
    ids.sort_unstable();
    assert_eq!(ids, [1, 2, 3], "{answers:?}");
    assert!(
        answers.iter().all(|a| a.get("result").is_some()),
        "{answers:?}"
    );
}

#[test]
fn server_generated_for_2025_06_18_speaks_that_revision() {
    let mut s = Server::start_bin(env!("CARGO_BIN_EXE_weather-server-2025-06-18"), &[]);
    let r = s.initialize("2025-06-18");
    assert_eq!(r["result"]["protocolVersion"], "2025-06-18");
    let r = s.call(1, "get_forecast", json!({ "city": "Oslo", "days": 1 }));
    assert_eq!(r["result"]["structuredContent"]["city"], "Oslo");
    let r = s.call(
        2,
        "convert_temperature",
        json!({ "value": 0, "from": "celsius", "to": "kelvin" }),
    );
    assert_eq!(text_of(&r["result"]), "0 celsius = 273.15 K");
    let r = s.call(3, "get_forecast", json!({ "city": "" }));
    assert_eq!(r["error"]["code"], -32602, "{r}");
    assert_eq!(r["error"]["data"]["errors"][0]["path"], "/city");
    let r = s.request(json!(4), "initialize", json!({ "protocolVersion": "2024-11-05", "capabilities": {}, "clientInfo": { "name": "old", "version": "1" } }));
    assert_eq!(r["result"]["protocolVersion"], "2024-11-05");
    // Types generated for 2025-06-18 still serve newer clients.
    let r = s.request(json!(5), "initialize", json!({ "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": { "name": "new", "version": "1" } }));
    assert_eq!(
        r["result"]["protocolVersion"], "2025-11-25",
        "every revision is served by default"
    );
    s.finish();
}

#[test]
fn an_oversized_message_is_refused_and_the_server_keeps_serving() {
    let mut s = Server::start(&[]);
    s.initialize("2025-11-25");
    let padding = "x".repeat(33 << 20);
    s.send(&format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"ping","params":{{"pad":"{padding}"}}}}"#
    ));
    let r = s.recv();
    assert_eq!(
        r["error"]["code"], -32700,
        "messages over 32 MiB are not buffered: {r}"
    );
    let r = s.request(json!(2), "ping", json!({}));
    assert_eq!(r["result"], json!({}));
    s.finish();
}

#[test]
fn a_reader_that_keeps_trying_stdin_lets_every_other_task_run() {
    // The stdio reader tries stdin for up to two minutes (longer than the
    // test waits for any line) before sleeping, so it is always trying
    // here: the scan's timers, its progress notifications (sent by another
    // task), a ping answered meanwhile, a cancellation and the end of input
    // must all still get their turn.
    let mut s = Server::start(&[("WEATHER_SPIN_US", "120000000")]);
    s.initialize("2025-11-25");
    s.send_json(json!({
        "jsonrpc": "2.0", "id": "scan", "method": "tools/call",
        "params": { "name": "watch_radar", "arguments": { "steps": 4, "step_ms": 20 }, "_meta": { "progressToken": "p" } }
    }));
    let first = s.recv();
    assert_eq!(first["params"]["progress"], json!(1.0), "{first}");
    s.send_json(json!({ "jsonrpc": "2.0", "id": 9, "method": "ping" }));
    let (mut progress, mut pong) = (vec![1.0], false);
    let last = loop {
        let m = s.recv();
        match (&m["method"], &m["id"]) {
            (method, _) if method == "notifications/progress" => {
                progress.push(m["params"]["progress"].as_f64().unwrap())
            }
            (_, id) if id == 9 => pong = m["result"] == json!({}),
            _ => break m,
        }
    };
    assert!(pong, "the ping is answered while the scan runs");
    assert_eq!(progress, [1.0, 2.0, 3.0, 4.0]);
    assert_eq!(last["id"], "scan");
    assert!(text_of(&last["result"]).contains("4 sweeps"), "{last}");
    s.send_json(json!({
        "jsonrpc": "2.0", "id": "long", "method": "tools/call",
        "params": { "name": "watch_radar", "arguments": { "steps": 1000, "step_ms": 100 } }
    }));
    s.send(r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"long"}}"#);
    let r = s.call(10, "get_forecast", json!({ "city": "Oslo", "days": 1 }));
    assert_eq!(
        r["result"]["structuredContent"]["days"]
            .as_array()
            .unwrap()
            .len(),
        1
    );
    s.finish();
}
