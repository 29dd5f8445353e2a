//! The official Python SDK client (`tests/interop/peers/py_client.py`, from
//! the peers venv: `.peers/py` or `$MCPGEN_PEERS_DIR/py`) lists the notes
//! server's resources, templates and prompts, reads a static and a
//! templated resource and gets a prompt, over stdio and Streamable HTTP in
//! both eras. Without the venv the test is skipped with a message, except
//! under `CI=true`, where it fails.

use std::net::TcpStream;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

const BIN: &str = env!("CARGO_BIN_EXE_notes-server");

fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The peers venv's Python, or `None` (skip) when it is missing outside CI.
fn python() -> Option<PathBuf> {
    let dir = std::env::var_os("MCPGEN_PEERS_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo_root().join(".peers"));
    let python = dir.join("py/bin/python");
    if python.is_file() {
        return Some(python);
    }
    let why = format!(
        "{} is missing; run `bash scripts/setup-peers.sh`",
        python.display()
    );
    assert!(
        !std::env::var("CI").is_ok_and(|v| v == "true"),
        "peer test cannot run under CI=true: {why}"
    );
    eprintln!("skipped: {why}");
    None
}

/// `notes-server --http` on a free loopback port, killed on drop.
struct HttpServer {
    child: Child,
    url: String,
}

impl HttpServer {
    fn start() -> HttpServer {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let addr = format!("127.0.0.1:{port}");
        let child = Command::new(BIN)
            .args(["--http", &addr])
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let server = HttpServer {
            child,
            url: format!("http://{addr}/mcp"),
        };
        // Wait (bounded, not asserted on) until it accepts connections.
        let deadline = Instant::now() + Duration::from_secs(60);
        while TcpStream::connect(&addr).is_err() {
            assert!(
                Instant::now() < deadline,
                "notes-server --http {addr} did not start listening"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        server
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Runs the Python client against the server, returns its output events.
fn python_client(mode: &str, http: bool) -> Option<Vec<Value>> {
    let python = python()?;
    let mut command = Command::new(python);
    command
        .arg(repo_root().join("tests/interop/peers/py_client.py"))
        .args(["--mode", mode, "--timeout", "60", "--no-list", "--surface"]);
    command.args(["--read", "notes://logo", "--read", "notes://12"]);
    command.args([
        "--prompt",
        "summarize_note",
        "--prompt-args",
        r#"{"id": "1", "style": "bullet"}"#,
        "--prompt",
        "daily-review",
    ]);
    let server = http.then(HttpServer::start);
    match &server {
        Some(server) => command.args(["--url", &server.url]),
        None => command.args(["--stdio", BIN]),
    };
    let out = command.output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "py_client.py --mode {mode} failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    Some(
        stdout
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect(),
    )
}

fn check(events: &[Value], era: &str) {
    let event = |name: &str| {
        events
            .iter()
            .find(|e| e["event"] == name)
            .unwrap_or_else(|| panic!("no {name} in {events:?}"))
            .clone()
    };
    let connected = event("connected");
    assert_eq!(connected["era"], era);
    assert!(
        connected["capabilities"]["prompts"].is_object()
            && connected["capabilities"]["resources"].is_object(),
        "{connected}"
    );
    let uris: Vec<Value> = event("resources/list")["resources"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["uri"].clone())
        .collect();
    assert_eq!(uris, [json!("notes://index"), json!("notes://logo")]);
    assert_eq!(
        event("resources/templates/list")["resourceTemplates"][0]["uriTemplate"],
        "notes://{id}"
    );
    let prompts = event("prompts/list")["prompts"].clone();
    assert_eq!(
        prompts[0]["arguments"][0],
        json!({"name": "id", "description": "The note", "required": true})
    );
    let reads: Vec<&Value> = events
        .iter()
        .filter(|e| e["event"] == "resources/read")
        .collect();
    assert_eq!(
        reads[0]["result"]["contents"][0]["blob"],
        notes_server::LOGO
    );
    assert_eq!(
        reads[1]["result"]["contents"][0]["text"],
        "Call the plumber about the kitchen tap."
    );
    let gets: Vec<&Value> = events
        .iter()
        .filter(|e| e["event"] == "prompts/get")
        .collect();
    assert_eq!(
        gets[0]["result"]["messages"][0]["content"]["resource"]["text"],
        "Buy milk and bread."
    );
    assert_eq!(
        gets[0]["result"]["messages"][1]["content"]["text"],
        "Summarize the note above as bullet."
    );
    assert_eq!(
        gets[1]["result"]["messages"][0]["content"]["text"],
        "Review my 3 notes and suggest what to do first."
    );
}

#[test]
fn python_sdk_reads_resources_and_gets_prompts_over_stdio_in_both_eras() {
    for (mode, era) in [("2025-11-25", "handshake"), ("2026-07-28", "2026-07-28")] {
        let Some(events) = python_client(mode, false) else {
            return;
        };
        check(&events, era);
    }
}

#[test]
fn python_sdk_reads_resources_and_gets_prompts_over_http_in_both_eras() {
    for (mode, era) in [("2025-11-25", "handshake"), ("2026-07-28", "2026-07-28")] {
        let Some(events) = python_client(mode, true) else {
            return;
        };
        check(&events, era);
    }
}
