//! The nine real OpenAPI documents of `../shared/openapi`, end to end
//! against an independent mock: each becomes a server with
//! `mcpgen new --openapi`, which builds and passes its own tests; then its
//! binary runs over stdio with `MCP_UPSTREAM_URL` at Prism
//! (`@stoplight/prism-cli`, mocking the same document and validating
//! every request it receives against it), and every tool is called with
//! arguments drawn from its `inputSchema`:
//!
//! - Prism must find no request invalid;
//! - every 2xx answer must arrive as a result (not `isError`) whose
//!   `structuredContent` equals the body Prism sent (wrapped where the
//!   binding says so), or as content blocks where the answer is not JSON;
//! - the same call again, with Prism asked for an error answer
//!   (`Prefer: code=N`), must arrive as a tool error naming the status.
//!
//! Between the server and Prism sits a recording relay of the test's own,
//! which keeps each exchange (so the body Prism sent is known exactly) and
//! adds the `Prefer` header. Where Prism itself is wrong, the verdict is
//! set aside with its reason and printed; nothing in the product works
//! around Prism. Stripe's document is too large for Prism to load (over
//! 15 minutes and 2 GB resolving references), so Prism mocks a copy
//! without response bodies: its requests are still checked, its answers
//! are then empty and only their mapping to results is checked.

mod shared_data;

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{json, Value};
use shared_data::{ci, mirror, shared_data, skip};

/// What Prism mocks for a document.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mock {
    /// The document itself.
    Original,
    /// A copy with its `$id`/`$anchor` references made local pointers and
    /// its `$ref: null` removed (Prism cannot load the first and skips
    /// validating a body with the second), responses kept:
    /// `scripts/openapi-mock-copy.py --keep-responses`.
    LocalRefs,
    /// A copy without response bodies and unused components, which Prism
    /// loads in seconds instead of many minutes: requests are still
    /// checked, answers are empty (`scripts/openapi-mock-copy.py`).
    NoResponses,
}

/// The documents and what Prism mocks for each, the costliest to build
/// first (see the pipeline in the test).
const DOCUMENTS: &[(&str, Mock)] = &[
    ("stripe-api.yaml", Mock::NoResponses),
    ("netlify-api.yml", Mock::Original),
    ("lob-api.yml", Mock::Original),
    ("twilio-verify-v2.json", Mock::Original),
    ("figma-rest-api.yaml", Mock::NoResponses),
    ("box-api-v2025.json", Mock::Original),
    ("pinecone-db-control-2025-10.yaml", Mock::Original),
    ("swagger-petstore31.yaml", Mock::LocalRefs),
    ("oai-petstore.yaml", Mock::Original),
];

/// The protocol revision of the scaffolds.
const REVISION: &str = "2025-11-25";

fn target_dir() -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR"))
        .parent()
        .expect("the target directory")
        .to_path_buf()
}

fn cargo() -> Command {
    let mut cmd = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
    cmd.current_dir(env!("CARGO_MANIFEST_DIR"))
        // The workspace's target directory: the dependencies the other
        // scaffold tests built are reused.
        .env("CARGO_TARGET_DIR", target_dir())
        .env("MCPGEN_SCHEMA_MIRROR", mirror())
        .env("MCPGEN_OFFLINE", "1");
    cmd
}

/// Prism's command: `$MCPGEN_INTEROP_DIR/node_modules/.bin/prism`, else
/// the repository's `.interop/` (scripts/setup-interop.sh installs it).
fn prism_command() -> Option<PathBuf> {
    let dir = std::env::var_os("MCPGEN_INTEROP_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join(".interop"));
    let bin = dir.join("node_modules/.bin/prism");
    bin.is_file().then_some(bin)
}

/// One exchange the relay saw.
#[derive(Debug, Clone)]
struct Exchange {
    request_line: String,
    /// The request's body, as text.
    request_body: String,
    status: u16,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

impl Exchange {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// Prism's findings about the request (`sl-violations` entries whose
    /// location starts at `request`), as text.
    fn request_violations(&self) -> Vec<String> {
        let mut found = Vec::new();
        if let Some(header) = self.header("sl-violations") {
            if let Ok(Value::Array(items)) = serde_json::from_str::<Value>(header) {
                for item in items {
                    if item["location"][0] == "request" {
                        found.push(item.to_string());
                    }
                }
            }
        }
        if self.status == 422 || self.status == 400 {
            if let Ok(body) = serde_json::from_slice::<Value>(&self.body) {
                let kind = body["type"].as_str().unwrap_or_default();
                if kind.contains("UNPROCESSABLE_ENTITY") || kind.contains("INVALID") {
                    found.push(body["validation"].to_string());
                }
            }
        }
        found
    }

    fn is_json(&self) -> bool {
        self.header("content-type").is_some_and(|t| {
            let t = t.split(';').next().unwrap_or_default().trim();
            t == "application/json" || t.ends_with("+json")
        })
    }
}

/// A relay on a loopback port: every request goes to Prism on its own
/// connection (with `Prefer` added when set), and the exchange is kept.
struct Relay {
    port: u16,
    log: Arc<Mutex<Vec<Exchange>>>,
    prefer: Arc<Mutex<Option<String>>>,
}

impl Relay {
    fn start(upstream: u16) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind the relay");
        let port = listener.local_addr().expect("its address").port();
        let log = Arc::new(Mutex::new(Vec::new()));
        let prefer: Arc<Mutex<Option<String>>> = Arc::new(Mutex::new(None));
        let (log2, prefer2) = (Arc::clone(&log), Arc::clone(&prefer));
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(stream) = stream else { continue };
                let (log, prefer) = (Arc::clone(&log2), Arc::clone(&prefer2));
                std::thread::spawn(move || {
                    let prefer = prefer.lock().unwrap().clone();
                    let _ = relay_one(stream, upstream, prefer.as_deref(), &log);
                });
            }
        });
        Relay { port, log, prefer }
    }

    fn take(&self) -> Vec<Exchange> {
        std::mem::take(&mut *self.log.lock().unwrap())
    }

    fn set_prefer(&self, value: Option<&str>) {
        *self.prefer.lock().unwrap() = value.map(str::to_owned);
    }
}

/// Reads one HTTP/1.1 message head and its `Content-Length` body (or a
/// chunked body, de-chunked) from `stream`; `None` on EOF before a head.
fn read_message(stream: &mut impl Read, until_eof: bool) -> Option<(String, Vec<u8>)> {
    let mut raw = Vec::new();
    let mut buf = [0u8; 65536];
    let end = loop {
        if let Some(end) = raw.windows(4).position(|w| w == b"\r\n\r\n") {
            break end;
        }
        match stream.read(&mut buf) {
            Ok(0) | Err(_) => return None,
            Ok(n) => raw.extend_from_slice(&buf[..n]),
        }
    };
    let head = String::from_utf8_lossy(&raw[..end]).into_owned();
    let mut body = raw[end + 4..].to_vec();
    let lower = head.to_ascii_lowercase();
    let length = lower
        .lines()
        .find_map(|l| l.strip_prefix("content-length:"))
        .and_then(|v| v.trim().parse::<usize>().ok());
    let chunked = lower
        .lines()
        .any(|l| l.starts_with("transfer-encoding:") && l.contains("chunked"));
    if let Some(length) = length {
        while body.len() < length {
            match stream.read(&mut buf) {
                Ok(0) | Err(_) => break,
                Ok(n) => body.extend_from_slice(&buf[..n]),
            }
        }
        body.truncate(length);
    } else if chunked || until_eof {
        loop {
            if chunked && body.ends_with(b"0\r\n\r\n") {
                break;
            }
            match stream.read(&mut buf) {
                Ok(0) | Err(_) => break,
                Ok(n) => body.extend_from_slice(&buf[..n]),
            }
        }
        if chunked {
            body = unchunk(&body);
        }
    }
    Some((head, body))
}

fn unchunk(mut body: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    while let Some(line_end) = body.windows(2).position(|w| w == b"\r\n") {
        let size = String::from_utf8_lossy(&body[..line_end]);
        let Ok(size) = usize::from_str_radix(size.split(';').next().unwrap_or_default().trim(), 16)
        else {
            break;
        };
        let start = line_end + 2;
        if size == 0 || body.len() < start + size {
            break;
        }
        out.extend_from_slice(&body[start..start + size]);
        body = &body[(start + size + 2).min(body.len())..];
    }
    out
}

fn relay_one(
    mut client: TcpStream,
    upstream: u16,
    prefer: Option<&str>,
    log: &Mutex<Vec<Exchange>>,
) -> Option<()> {
    client
        .set_read_timeout(Some(Duration::from_secs(60)))
        .ok()?;
    let (head, body) = read_message(&mut client, false)?;
    let mut lines = head.split("\r\n");
    let request_line = lines.next().unwrap_or_default().to_owned();
    let mut out_head = format!("{request_line}\r\n");
    for line in lines {
        let name = line
            .split(':')
            .next()
            .unwrap_or_default()
            .to_ascii_lowercase();
        if matches!(
            name.as_str(),
            "connection" | "content-length" | "prefer" | "transfer-encoding"
        ) {
            continue;
        }
        out_head.push_str(line);
        out_head.push_str("\r\n");
    }
    if let Some(prefer) = prefer {
        out_head.push_str(&format!("Prefer: {prefer}\r\n"));
    }
    out_head.push_str(&format!(
        "Content-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    ));
    let mut prism = TcpStream::connect(("127.0.0.1", upstream)).ok()?;
    prism
        .set_read_timeout(Some(Duration::from_secs(120)))
        .ok()?;
    prism.write_all(out_head.as_bytes()).ok()?;
    prism.write_all(&body).ok()?;
    let (answer_head, answer_body) = read_message(&mut prism, true)?;
    let mut answer_lines = answer_head.split("\r\n");
    let status_line = answer_lines.next().unwrap_or_default().to_owned();
    let status = status_line
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let headers: Vec<(String, String)> = answer_lines
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_owned(), v.trim().to_owned()))
        .collect();
    let mut back = format!("{status_line}\r\n");
    for (name, value) in &headers {
        let lower = name.to_ascii_lowercase();
        if matches!(
            lower.as_str(),
            "connection" | "content-length" | "transfer-encoding"
        ) {
            continue;
        }
        back.push_str(&format!("{name}: {value}\r\n"));
    }
    back.push_str(&format!(
        "Content-Length: {}\r\nConnection: close\r\n\r\n",
        answer_body.len()
    ));
    // Kept before the answer goes back: the call's result can come only
    // after it.
    log.lock().unwrap().push(Exchange {
        request_line,
        request_body: String::from_utf8_lossy(&body).into_owned(),
        status,
        headers,
        body: answer_body.clone(),
    });
    let _ = client.write_all(back.as_bytes());
    let _ = client.write_all(&answer_body);
    Some(())
}

/// Prism mocking `document` on a free loopback port, ready.
struct Prism {
    child: Child,
    port: u16,
}

impl Prism {
    fn start(command: &Path, document: &Path) -> Self {
        let port = TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("a free port")
            .port();
        let mut child = Command::new(command)
            .args(["mock", "-h", "127.0.0.1", "-p", &port.to_string()])
            .arg(document)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start prism");
        let (tx, ready) = mpsc::channel();
        for out in [
            Box::new(child.stdout.take().expect("stdout")) as Box<dyn Read + Send>,
            Box::new(child.stderr.take().expect("stderr")),
        ] {
            let tx = tx.clone();
            std::thread::spawn(move || {
                for line in BufReader::new(out).lines() {
                    let Ok(line) = line else { break };
                    if line.contains("Prism is listening") {
                        let _ = tx.send(Ok(()));
                    } else if line.contains("error") || line.contains("Error") {
                        let _ = tx.send(Err(line));
                    }
                }
            });
        }
        // A guard against a Prism that never starts, not a performance check.
        loop {
            match ready.recv_timeout(Duration::from_secs(900)) {
                Ok(Ok(())) => break,
                Ok(Err(line)) => eprintln!("prism: {line}"),
                Err(e) => panic!("prism did not start on {}: {e}", document.display()),
            }
        }
        Prism { child, port }
    }
}

impl Drop for Prism {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The scaffolded server over stdio, initialized.
struct Server {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
    next_id: i64,
}

impl Server {
    fn start(binary: &Path, env: &[(String, String)]) -> Self {
        let mut child = Command::new(binary)
            .envs(env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("start the server");
        let stdout = child.stdout.take().expect("stdout");
        let stdin = child.stdin.take().expect("stdin");
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let mut server = Server {
            child,
            stdin,
            lines,
            next_id: 1,
        };
        let init = server.request(
            "initialize",
            json!({"protocolVersion": REVISION, "capabilities": {}, "clientInfo": {"name": "openapi-prism", "version": "0"}}),
        );
        assert!(init.get("result").is_some(), "initialize: {init}");
        server.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        server
    }

    fn send(&mut self, message: &Value) {
        writeln!(self.stdin, "{message}").expect("write to the server");
        self.stdin.flush().expect("flush");
    }

    fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        loop {
            // A guard against a hung server, not a performance check.
            let line = self
                .lines
                .recv_timeout(Duration::from_secs(120))
                .unwrap_or_else(|e| panic!("{method}: no answer: {e}"));
            let Ok(message) = serde_json::from_str::<Value>(&line) else {
                continue;
            };
            if message["id"] == json!(id) {
                return message;
            }
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The text of a result's content blocks.
fn result_text(response: &Value) -> String {
    response["result"]["content"]
        .as_array()
        .map(|blocks| {
            blocks
                .iter()
                .filter_map(|b| b["text"].as_str())
                .collect::<Vec<_>>()
                .join("\n")
        })
        .unwrap_or_else(|| response.to_string())
}

/// What happened to one document.
#[derive(Debug, Default)]
struct Report {
    operations: usize,
    tools: usize,
    calls: usize,
    invalid: usize,
    right: usize,
    /// `(tool, why)`: verdicts set aside because Prism was wrong.
    set_aside: Vec<(String, String)>,
    /// `(tool, what)`: wrong results.
    wrong: Vec<(String, String)>,
}

/// The copy Prism mocks instead of `document` (see [`Mock`]).
fn mock_copy(document: &Path, mock: Mock, out: &Path) -> PathBuf {
    let path = out.join(format!(
        "{}.mock.json",
        document
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or("document")
    ));
    let mut cmd = Command::new("python3");
    cmd.arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/openapi-mock-copy.py"));
    if mock == Mock::LocalRefs {
        cmd.arg("--keep-responses");
    }
    let status = cmd
        .arg(document)
        .arg(&path)
        .env("NODE_PATH", prism_node_modules())
        .status()
        .expect("run scripts/openapi-mock-copy.py");
    assert!(
        status.success(),
        "openapi-mock-copy.py {}",
        document.display()
    );
    path
}

/// Where Prism's node modules are (the copy script reads YAML with them).
fn prism_node_modules() -> PathBuf {
    std::env::var_os("MCPGEN_INTEROP_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join(".interop"))
        .join("node_modules")
}

/// A document's scaffold, built and past its own tests.
struct Built {
    document: PathBuf,
    mock: Mock,
    crate_name: String,
    tools: Vec<Value>,
    operations: usize,
}

/// `mcpgen new --openapi` for a document, then the scaffold's own
/// `cargo test` (which builds the server binary the calls go to).
fn build(document: &Path, mock: Mock, work: &Path) -> Built {
    let stem = document
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap()
        .replace('.', "-");
    let crate_dir = work.join(format!("{stem}-server"));
    let crate_name = format!("{stem}-server");
    let _ = std::fs::remove_dir_all(&crate_dir);
    let new = Command::new(env!("CARGO_BIN_EXE_mcpgen"))
        .arg("new")
        .arg(&crate_dir)
        .arg("--openapi")
        .arg(document)
        .args(["--protocol", REVISION])
        .arg("--mcpgen-path")
        .arg(env!("CARGO_MANIFEST_DIR"))
        .env("MCPGEN_SCHEMA_MIRROR", mirror())
        .env("MCPGEN_OFFLINE", "1")
        .output()
        .expect("run mcpgen new");
    assert!(
        new.status.success(),
        "mcpgen new --openapi {}: {}",
        document.display(),
        String::from_utf8_lossy(&new.stderr)
    );
    // The scaffold builds and passes its own tests (against its stand-in API).
    let tested = cargo()
        .args(["test", "--offline", "--quiet", "--manifest-path"])
        .arg(crate_dir.join("Cargo.toml"))
        .output()
        .expect("run cargo");
    let stdout = String::from_utf8_lossy(&tested.stdout);
    let stderr = String::from_utf8_lossy(&tested.stderr);
    assert!(
        tested.status.success() && !stderr.contains("warning:"),
        "{stem}: the scaffold's own tests:\n{stdout}\n{stderr}"
    );
    let manifest: Value =
        serde_json::from_str(&std::fs::read_to_string(crate_dir.join("tools.json")).unwrap())
            .unwrap();
    let tools = manifest["tools"].as_array().cloned().unwrap_or_default();
    Built {
        document: document.to_path_buf(),
        mock,
        crate_name,
        tools,
        operations: count_operations(document),
    }
}

/// Runs a built scaffold against Prism: every tool called twice, once for
/// a success and once for an error answer.
fn exercise(prism_command: &Path, built: &Built, work: &Path) -> Report {
    let Built {
        document,
        mock,
        crate_name,
        tools,
        operations,
    } = built;
    let (document, mock) = (document.as_path(), *mock);
    let prism_copy = mock == Mock::NoResponses;
    let mut report = Report {
        tools: tools.len(),
        operations: *operations,
        ..Report::default()
    };

    let mocked = match mock {
        Mock::Original => document.to_path_buf(),
        _ => mock_copy(document, mock, work),
    };
    let prism = Prism::start(prism_command, &mocked);
    let relay = Relay::start(prism.port);
    let mut env: Vec<(String, String)> = vec![(
        "MCP_UPSTREAM_URL".to_owned(),
        format!("http://127.0.0.1:{}", relay.port),
    )];
    for tool in tools {
        for alternative in tool["x-mcpgen"]["http"]["security"]
            .as_array()
            .into_iter()
            .flatten()
        {
            for scheme in alternative.as_array().into_iter().flatten() {
                let var = scheme["env"].as_str().unwrap_or_default().to_owned();
                if scheme["tokenUrl"].is_string() {
                    continue;
                }
                if scheme["type"] == "basic" {
                    env.push((var, "user:secret".to_owned()));
                } else {
                    env.push((var, "stand-in-credential".to_owned()));
                }
            }
        }
    }
    env.sort();
    env.dedup();
    let binary = target_dir().join("debug").join(crate_name);
    let mut server = Server::start(&binary, &env);
    let draft = mcpgen_runtime::schema::default_draft(REVISION);
    for tool in tools {
        let name = tool["name"].as_str().unwrap().to_owned();
        let arguments = match mcpgen::cli::synth::valid_arguments(&tool["inputSchema"], draft) {
            Ok(a) => a,
            Err(why) => {
                report
                    .wrong
                    .push((name, format!("no valid arguments synthesised: {why}")));
                continue;
            }
        };
        relay.set_prefer(None);
        report.calls += 1;
        let response = server.request("tools/call", json!({"name": name, "arguments": arguments}));
        let exchanges = relay.take();
        judge(&mut report, tool, &name, &response, &exchanges, prism_copy);

        // The same call, answered with an error by Prism.
        relay.set_prefer(Some("code=404"));
        report.calls += 1;
        let response = server.request("tools/call", json!({"name": name, "arguments": arguments}));
        let exchanges = relay.take();
        judge(&mut report, tool, &name, &response, &exchanges, prism_copy);
    }
    drop(server);
    drop(prism);
    report
}

/// Sorts one call into right, invalid, set aside or wrong.
fn judge(
    report: &mut Report,
    tool: &Value,
    name: &str,
    response: &Value,
    exchanges: &[Exchange],
    prism_copy: bool,
) {
    let [exchange] = exchanges else {
        report.wrong.push((
            name.to_owned(),
            format!("{} requests reached Prism: {response}", exchanges.len()),
        ));
        return;
    };
    let violations = exchange.request_violations();
    let multipart = binding_media_type(tool).is_some_and(|m| m.starts_with("multipart/"));
    if multipart
        && !violations.is_empty()
        && violations
            .iter()
            .all(|v| v.contains("\"code\":\"type\"") && v.contains("must be object"))
    {
        // An object member of a multipart body goes as a part of type
        // application/json (OpenAPI's default for objects); Prism reads
        // every part as a string.
        report.set_aside.push((
            name.to_owned(),
            "Prism reads a multipart part holding JSON as a string (\"must be object\")".to_owned(),
        ));
        return;
    }
    let indexed_objects = {
        let body = exchange
            .request_body
            .replace("%5B", "[")
            .replace("%5D", "]");
        body.contains("[0][")
    };
    if indexed_objects
        && violations.len() == 1
        && violations[0].contains("Cannot deserialize JSON object array in form data")
    {
        // An array of objects in a form body is written the deepObject way,
        // `line_items[0][price]=…` (what Stripe documents and reads);
        // Prism reads such an array only as JSON text, and refuses the
        // request with a 415 before judging it.
        report.set_aside.push((
            name.to_owned(),
            "Prism reads an array of objects in a form body only as JSON (415), not as `a[0][b]=…`"
                .to_owned(),
        ));
        return;
    }
    if !violations.is_empty() && violations.iter().all(|v| invented_member(v, exchange)) {
        // Prism fills an optional object member the request did not send
        // with `{}`, then finds that object's required members missing.
        report.set_aside.push((
            name.to_owned(),
            "Prism fills an absent optional deepObject member with {} and finds its required members missing".to_owned(),
        ));
        return;
    }
    if !violations.is_empty() {
        report.invalid += 1;
        report.wrong.push((
            name.to_owned(),
            format!(
                "Prism found `{}` invalid: {}",
                exchange.request_line,
                violations.join("; ")
            ),
        ));
        return;
    }
    let result = &response["result"];
    let is_error = result["isError"] == json!(true);
    if !(200..300).contains(&exchange.status) {
        if is_error && result_text(response).contains(&exchange.status.to_string()) {
            report.right += 1;
        } else {
            report.wrong.push((
                name.to_owned(),
                format!(
                    "Prism answered {} and the result was {response}",
                    exchange.status
                ),
            ));
        }
        return;
    }
    let binding = &tool["x-mcpgen"]["http"];
    if prism_copy {
        // No response bodies in Prism's copy: the answer is empty.
        if response.get("result").is_some() || response.get("error").is_some() {
            report.set_aside.push((
                name.to_owned(),
                "Prism mocks a copy without response bodies: only the request was checked"
                    .to_owned(),
            ));
        }
        return;
    }
    if binding.get("output").is_some() && exchange.is_json() {
        let Ok(body) = serde_json::from_slice::<Value>(&exchange.body) else {
            report.wrong.push((
                name.to_owned(),
                "Prism's JSON answer does not parse".to_owned(),
            ));
            return;
        };
        let expected = match binding["output"]["wrap"].as_str() {
            Some(member) => json!({ member: body }),
            None => body,
        };
        // Prism sometimes generates an answer that breaks its own document.
        let schema = &tool["outputSchema"];
        let validator = mcpgen_runtime::schema::SchemaValidator::compile(
            schema,
            mcpgen_runtime::schema::default_draft(REVISION),
        );
        if let Ok(validator) = validator {
            if validator.validate(&expected).is_err() {
                report.set_aside.push((
                    name.to_owned(),
                    format!(
                        "Prism's {} answer does not match the document's own response schema",
                        exchange.status
                    ),
                ));
                return;
            }
        }
        if !is_error && result["structuredContent"] == expected {
            report.right += 1;
        } else {
            report.wrong.push((
                name.to_owned(),
                format!("Prism answered {expected} and the result was {response}"),
            ));
        }
        return;
    }
    if !is_error && result["content"].is_array() {
        report.right += 1;
    } else {
        report.wrong.push((
            name.to_owned(),
            format!(
                "Prism answered {} and the result was {response}",
                exchange.status
            ),
        ));
    }
}

/// Whether `violation` is a missing required member of an object member
/// (`Request body property a.b must have required property 'c'`, or the
/// same of a query parameter) that the request never sent: no pair of its
/// query or body has the key `a[b]` or one within it (`a[b][x]`), written
/// plainly or percent-encoded.
fn invented_member(violation: &str, exchange: &Exchange) -> bool {
    let Ok(v) = serde_json::from_str::<Value>(violation) else {
        return false;
    };
    let message = v["message"].as_str().unwrap_or_default();
    if v["code"] != "required" {
        return false;
    }
    let subject = message
        .strip_prefix("Request body property ")
        .or_else(|| message.strip_prefix("Request query parameter "));
    let Some(path) = subject
        .and_then(|s| s.split(" must have required property").next())
        .filter(|p| !p.is_empty())
    else {
        return false;
    };
    let mut segments = path.split('.');
    let mut key = segments.next().unwrap_or_default().to_owned();
    for segment in segments {
        key.push_str(&format!("[{segment}]"));
    }
    let target = exchange.request_line.split(' ').nth(1).unwrap_or_default();
    let sent = |text: &str| {
        text.split(['?', '&']).any(|pair| {
            let name = pair.split('=').next().unwrap_or_default();
            let name = name
                .replace("%5B", "[")
                .replace("%5b", "[")
                .replace("%5D", "]")
                .replace("%5d", "]");
            name == key || name.starts_with(&format!("{key}["))
        })
    };
    !sent(target) && !sent(&exchange.request_body)
}

/// The media type of a tool's request body, if it has one.
fn binding_media_type(tool: &Value) -> Option<&str> {
    tool["x-mcpgen"]["http"]["body"]["mediaType"].as_str()
}

/// Operations of the document: (path, method) pairs, as the importer
/// counts them before filters.
fn count_operations(document: &Path) -> usize {
    mcpgen::openapi::import(document, &mcpgen::openapi::ImportOptions::default())
        .map(|i| i.operations)
        .unwrap_or_else(|e| panic!("{}: {e:?}", document.display()))
}

#[test]
fn every_document_serves_its_tools_against_prism() {
    let test = "openapi_prism::every_document_serves_its_tools_against_prism";
    let Some(dir) = shared_data("openapi", test) else {
        return;
    };
    let Some(prism) = prism_command() else {
        let reason = "needs Prism (scripts/setup-interop.sh installs it into .interop/)";
        if ci() {
            panic!("{test} {reason}, and CI=true requires it");
        }
        skip(test, reason);
        return;
    };
    let only = std::env::var("MCPGEN_OPENAPI_ONLY").ok();
    let work = target_dir().join("openapi-prism/crates");
    std::fs::create_dir_all(&work).unwrap();
    let chosen: Vec<(&str, Mock)> = DOCUMENTS
        .iter()
        .copied()
        // MCPGEN_OPENAPI_ONLY=netlify,lob: only documents whose file names
        // contain one of these (for a developer's rerun; CI runs all).
        .filter(|(file, _)| {
            only.as_deref()
                .is_none_or(|o| o.split(',').any(|part| file.contains(part)))
        })
        .collect();
    // Pipelined: one thread builds the scaffolds in turn (cargo builds one
    // at a time in a shared target directory), while this one runs each
    // built server against Prism. The costliest build comes first, so the
    // other builds overlap its calls.
    let mut reports = BTreeMap::new();
    std::thread::scope(|scope| {
        let (sender, built) = mpsc::channel::<Built>();
        let work = &work;
        let chosen = &chosen;
        let builder = scope.spawn(move || {
            for (file, mock) in chosen {
                let one = build(&dir.join(file), *mock, work);
                if sender.send(one).is_err() {
                    return;
                }
            }
        });
        for one in built {
            let file = one
                .document
                .file_name()
                .and_then(|f| f.to_str())
                .unwrap_or_default()
                .to_owned();
            let report = exercise(&prism, &one, work);
            eprintln!("{file}: {report:?}");
            reports.insert(file, report);
        }
        if let Err(panic) = builder.join() {
            std::panic::resume_unwind(panic);
        }
    });
    let mut table = String::from(
        "| document | operations | tools | calls | invalid (Prism) | right | set aside | wrong |\n|---|---|---|---|---|---|---|---|\n",
    );
    for (file, r) in &reports {
        table.push_str(&format!(
            "| {file} | {} | {} | {} | {} | {} | {} | {} |\n",
            r.operations,
            r.tools,
            r.calls,
            r.invalid,
            r.right,
            r.set_aside.len(),
            r.wrong.len()
        ));
    }
    eprintln!("{table}");
    let table_dir = target_dir().join("openapi-prism");
    let _ = std::fs::write(table_dir.join("table.md"), &table);
    // One line per document and reason: how many calls, and which tools.
    let mut set_aside = String::new();
    for (file, r) in &reports {
        let mut by_reason: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
        for (tool, why) in &r.set_aside {
            by_reason.entry(why).or_default().push(tool);
        }
        for (why, tools) in by_reason {
            let mut names = tools.clone();
            names.dedup();
            let shown: Vec<&str> = names.iter().take(5).copied().collect();
            let more = names.len().saturating_sub(shown.len());
            set_aside.push_str(&format!(
                "set aside: {file}: {} call(s): {why} ({}{})\n",
                tools.len(),
                shown.join(", "),
                if more > 0 {
                    format!(" and {more} more")
                } else {
                    String::new()
                }
            ));
        }
    }
    eprint!("{set_aside}");
    let _ = std::fs::write(table_dir.join("set-aside.txt"), &set_aside);
    let wrong: Vec<String> = reports
        .iter()
        .flat_map(|(file, r)| r.wrong.iter().map(move |(t, w)| format!("{file} {t}: {w}")))
        .collect();
    for (file, r) in &reports {
        assert_eq!(r.tools, r.operations, "{file}: one tool per operation");
    }
    assert!(
        wrong.is_empty(),
        "{} wrong results:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
}
