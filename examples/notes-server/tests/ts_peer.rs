//! The official TypeScript SDK client (1.32.2, handshake era) as a peer of
//! the notes server, through `tests/interop/ts-notes-client.mjs`, over stdio
//! and over Streamable HTTP (`notes-server --http 127.0.0.1:0`): it lists
//! the resources, resource templates and prompts, reads the static
//! resources and notes of the `notes://{id}` template, gets both prompts,
//! and gets the errors of a missing note, an unknown URI and a prompt for a
//! missing note. Every line it prints is checked against what the server
//! serves.
//!
//! The SDK comes from `bash scripts/setup-interop.sh` (`.interop/`, or
//! `$MCPGEN_INTEROP_DIR`) run by `node` from PATH (else the Node 22 of
//! `.peers`). Without them the test is skipped with a message, except under
//! `CI=true`, where it fails. The HTTP server listens on 127.0.0.1 only.

use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{mpsc, Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

const BIN: &str = env!("CARGO_BIN_EXE_notes-server");

/// Upper bound for the peer run or a server start, so that a hung peer or
/// server fails the test instead of hanging it. Not a timing assertion.
const PATIENCE: Duration = Duration::from_secs(120);

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
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

fn peers_dir() -> PathBuf {
    std::env::var_os("MCPGEN_PEERS_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo_root().join(".peers"))
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

/// A copy of the script in the interop folder (so that node resolves the
/// SDK from there) under a name of its own, removed on drop.
struct ScriptCopy(PathBuf);

impl ScriptCopy {
    fn new(dir: &Path, script: &str) -> Self {
        let source = repo_root().join("tests/interop").join(script);
        // Unique per process and per test (the two tests run in parallel).
        let copy = dir.join(format!(
            ".{}-{:?}-{script}",
            std::process::id(),
            std::thread::current().id()
        ));
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

/// Reads a pipe to its end on a thread into shared text; the receiver
/// hears each line as well, and the end of the pipe when it is dropped.
fn drain(pipe: impl Read + Send + 'static) -> (Arc<Mutex<String>>, mpsc::Receiver<String>) {
    let text = Arc::new(Mutex::new(String::new()));
    let sink = Arc::clone(&text);
    let (lines, on_line) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(pipe).lines() {
            let Ok(line) = line else { break };
            {
                let mut sink = sink.lock().unwrap();
                sink.push_str(&line);
                sink.push('\n');
            }
            let _ = lines.send(line);
        }
    });
    (text, on_line)
}

/// `notes-server --http 127.0.0.1:0` (the port the OS picks, read from its
/// `MCP endpoint: URL` line on stderr), killed on drop.
struct HttpServer {
    child: Child,
    url: String,
    stderr: Arc<Mutex<String>>,
}

impl HttpServer {
    fn start() -> Self {
        let mut child = Command::new(BIN)
            .args(["--http", "127.0.0.1:0"])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("notes-server starts");
        let (stderr, lines) = drain(child.stderr.take().unwrap());
        let mut server = Self {
            child,
            url: String::new(),
            stderr,
        };
        let deadline = Instant::now() + PATIENCE;
        while server.url.is_empty() {
            let left = deadline.saturating_duration_since(Instant::now());
            match lines.recv_timeout(left) {
                Ok(line) => {
                    if let Some(url) = line.strip_prefix("MCP endpoint: ") {
                        server.url = url.trim().to_owned();
                    }
                }
                Err(_) => panic!(
                    "notes-server --http printed no `MCP endpoint:` line; stderr:\n{}",
                    server.stderr()
                ),
            }
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

/// Runs `command` to its end within PATIENCE (killed and failed otherwise);
/// returns whether it succeeded, its stdout and its stderr.
fn run(mut command: Command, what: &str) -> (bool, String, String) {
    let start = Instant::now();
    let mut child = command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("{what} does not start: {e}"));
    let (stdout, out_lines) = drain(child.stdout.take().unwrap());
    let (stderr, err_lines) = drain(child.stderr.take().unwrap());
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
    // Wait (bounded) until both pipes have closed: the readers have then
    // taken in all there was (the stdio server child holds them too).
    for lines in [out_lines, err_lines] {
        let until = Instant::now() + Duration::from_secs(10);
        while lines
            .recv_timeout(until.saturating_duration_since(Instant::now()))
            .is_ok()
        {}
    }
    let stdout = std::mem::take(&mut *stdout.lock().unwrap());
    let stderr = std::mem::take(&mut *stderr.lock().unwrap());
    (status.success(), stdout, stderr)
}

const READS: &[&str] = &[
    "notes://index",
    "notes://logo",
    "notes://12",
    "notes://1",
    "notes://99",
    "nope://x",
];

/// Runs ts-notes-client.mjs against the server (a stdio child of the
/// script, or an HTTP server of this test) and checks every line it printed.
fn typescript_client(http: bool) {
    let Some(dir) = require(interop_dir()) else {
        return;
    };
    let Some(node) = require(node()) else { return };
    let script = ScriptCopy::new(&dir, "ts-notes-client.mjs");
    let mut command = Command::new(node);
    command.arg(&script.0);
    for uri in READS {
        command.args(["--read", uri]);
    }
    command.args([
        "--prompt",
        "summarize_note",
        "--prompt-args",
        r#"{"id":"1","style":"bullet"}"#,
    ]);
    command.args([
        "--prompt",
        "summarize_note",
        "--prompt-args",
        r#"{"id":"2"}"#,
    ]);
    command.args(["--prompt", "daily-review"]);
    command.args([
        "--prompt",
        "summarize_note",
        "--prompt-args",
        r#"{"id":"7"}"#,
    ]);
    let server = http.then(HttpServer::start);
    match &server {
        Some(server) => command.args(["--url", &server.url]),
        None => command.args(["--stdio", BIN]),
    };
    let via = if http { "Streamable HTTP" } else { "stdio" };
    let (success, stdout, stderr) = run(command, &format!("TypeScript SDK client over {via}"));
    let server_log = server.as_ref().map(HttpServer::stderr).unwrap_or_default();
    let context =
        format!("stdout:\n{stdout}\nstderr:\n{stderr}\nHTTP server stderr:\n{server_log}");
    assert!(success, "ts-notes-client.mjs over {via} failed\n{context}");
    let lines: Vec<Value> = stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}\n{context}")))
        .collect();
    let events: Vec<&str> = lines
        .iter()
        .map(|l| l["event"].as_str().unwrap_or("?"))
        .collect();
    let mut expected = vec![
        "connected",
        "resources/list",
        "resources/templates/list",
        "prompts/list",
    ];
    expected.extend(READS.iter().map(|_| "resources/read"));
    expected.extend(["prompts/get"; 4]);
    expected.push("closed");
    assert_eq!(events, expected, "one line per step, in order\n{context}");

    // initialize: the SDK's newest version; over HTTP a session.
    let connected = &lines[0];
    assert_eq!(
        connected["serverInfo"],
        json!({"name": "notes-server", "title": "Notes (mcpgen example)", "version": "0.1.0"})
    );
    let capabilities = &connected["capabilities"];
    assert!(
        capabilities["resources"].is_object() && capabilities["prompts"].is_object(),
        "{connected}"
    );
    if http {
        assert_eq!(connected["protocolVersion"], "2025-11-25", "{connected}");
        assert!(
            connected["sessionId"]
                .as_str()
                .is_some_and(|s| !s.is_empty()),
            "no Mcp-Session-Id: {connected}"
        );
    }

    // The lists, as the manifest declares them (one page each).
    assert_eq!(lines[1]["pages"], 1);
    assert_eq!(
        lines[1]["resources"],
        json!([
            {"uri": "notes://index", "name": "index", "title": "Index of notes", "mimeType": "text/plain"},
            {"uri": "notes://logo", "name": "logo", "description": "A 1x1 PNG.", "mimeType": "image/png"},
        ]),
        "{context}"
    );
    assert_eq!(
        lines[2]["resourceTemplates"],
        json!([{"uriTemplate": "notes://{id}", "name": "note", "description": "One note by id.", "mimeType": "text/plain"}]),
        "{context}"
    );
    assert_eq!(
        lines[3]["prompts"],
        json!([
            {
                "name": "summarize_note",
                "title": "Summarize a note",
                "description": "Asks for a summary of one note, embedding it.",
                "arguments": [
                    {"name": "id", "description": "The note", "required": true},
                    {"name": "style", "description": "bullet or prose"},
                ],
            },
            {"name": "daily-review"},
        ]),
        "{context}"
    );

    // resources/read: the static text and blob, notes of the template.
    let reads = &lines[4..4 + READS.len()];
    for (uri, read) in READS.iter().zip(reads) {
        assert_eq!(read["uri"], *uri, "{context}");
    }
    let contents = |i: usize| {
        let result = &reads[i]["result"];
        assert!(reads[i]["error"].is_null(), "{}", reads[i]);
        assert_eq!(
            result["contents"].as_array().map(Vec::len),
            Some(1),
            "{result}"
        );
        result["contents"][0].clone()
    };
    let index = notes_server::NOTES
        .iter()
        .map(|(id, body)| format!("notes://{id} {body}"))
        .collect::<Vec<_>>()
        .join("\n");
    assert_eq!(
        contents(0),
        json!({"uri": "notes://index", "mimeType": "text/plain", "text": index})
    );
    assert_eq!(
        contents(1),
        json!({"uri": "notes://logo", "mimeType": "image/png", "blob": notes_server::LOGO})
    );
    assert_eq!(
        contents(2),
        json!({"uri": "notes://12", "mimeType": "text/plain", "text": "Call the plumber about the kitchen tap."})
    );
    assert_eq!(
        contents(3),
        json!({"uri": "notes://1", "mimeType": "text/plain", "text": "Buy milk and bread."})
    );
    // A note that does not exist, and a URI no resource or template
    // matches: a JSON-RPC error -32602 naming the URI, not a result.
    for (read, uri) in reads[4..].iter().zip(["notes://99", "nope://x"]) {
        assert!(read["result"].is_null(), "{read}");
        assert_eq!(read["error"]["code"], -32602, "{read}");
        assert_eq!(read["error"]["data"], json!({"uri": uri}), "{read}");
        let message = read["error"]["message"].as_str().unwrap();
        assert!(
            message.contains(&format!("Resource not found: {uri}")),
            "{read}"
        );
    }

    // prompts/get, with and without arguments.
    let gets = &lines[4 + READS.len()..4 + READS.len() + 4];
    let result = |i: usize| {
        assert!(gets[i]["error"].is_null(), "{}", gets[i]);
        gets[i]["result"].clone()
    };
    let summarize = |id: &str, body: &str, style: &str| {
        json!({
            "description": "Asks for a summary of one note, embedding it.",
            "messages": [
                {"role": "user", "content": {"type": "resource", "resource": {"uri": format!("notes://{id}"), "mimeType": "text/plain", "text": body}}},
                {"role": "user", "content": {"type": "text", "text": format!("Summarize the note above as {style}.")}},
            ],
        })
    };
    assert_eq!(gets[0]["arguments"], json!({"id": "1", "style": "bullet"}));
    assert_eq!(
        result(0),
        summarize("1", "Buy milk and bread.", "bullet"),
        "{context}"
    );
    // Without style, the handler's default.
    assert_eq!(
        result(1),
        summarize("2", "Read chapter 3 of the Rust book.", "prose"),
        "{context}"
    );
    assert_eq!(gets[2]["name"], "daily-review");
    assert_eq!(
        result(2),
        json!({"messages": [{"role": "user", "content": {"type": "text", "text": "Review my 3 notes and suggest what to do first."}}]}),
        "{context}"
    );
    // A prompt for a note that does not exist: the handler's -32602.
    assert!(gets[3]["result"].is_null(), "{}", gets[3]);
    assert_eq!(gets[3]["error"]["code"], -32602, "{}", gets[3]);
    assert!(
        gets[3]["error"]["message"]
            .as_str()
            .unwrap()
            .contains(r#"no note "7""#),
        "{}",
        gets[3]
    );

    assert_eq!(
        lines.last().unwrap()["errors"],
        json!([]),
        "the client reported errors\n{context}"
    );
}

#[test]
fn typescript_sdk_reads_resources_and_gets_prompts_over_stdio() {
    typescript_client(false);
}

#[test]
fn typescript_sdk_reads_resources_and_gets_prompts_over_http() {
    typescript_client(true);
}
