//! The MCP Inspector CLI (`@modelcontextprotocol/inspector`) and the
//! TypeScript SDK v2 client (`@modelcontextprotocol/client`) against the
//! example server, over stdio (`CARGO_BIN_EXE_weather-server`) and
//! Streamable HTTP (`weather-server --http 127.0.0.1:0`).
//!
//! Both are pinned in `tests/interop/peers/inspector/package{,-lock}.json`
//! and installed into `.peers/inspector` (with Node 22 in `.peers/node22`)
//! by `bash scripts/setup-peers.sh`; `MCPGEN_PEERS_DIR` moves `.peers`.
//! Without them these tests skip, except under `CI=true`, where they fail.
//!
//! - The Inspector CLI in its stateless era (`--protocol-era modern`, which the
//!   CLI turns into the SDK's `versionNegotiation: {mode: {pin:
//!   "2026-07-28"}}`: `server/discover` must offer 2026-07-28 and nothing
//!   falls back to `initialize`) and in its stateful era (`--protocol-era
//!   legacy`, the `initialize` handshake): `--method initialize` reports
//!   the negotiated revision, `tools/list` must show the manifest's tools
//!   and `tools/call get_forecast {"city":"Oslo"}` the Oslo forecast. The
//!   CLI is one process per method.
//! - `tests/interop/peers/inspector/ts2-client.mjs` drives the SDK client
//!   pinned to 2026-07-28 (and in `auto` mode, which must pick 2026-07-28
//!   because the server offers it): one connection lists the tools and
//!   calls `get_forecast` and an unknown tool.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

/// Upper bound for one client run or for the server to come up, so a hung
/// peer fails the test instead of hanging it. Not a timing assertion.
const PATIENCE: Duration = Duration::from_secs(120);

/// The Inspector CLI's own connect timeout (its default is 15 s), well
/// inside [`PATIENCE`] so that a slow connect is reported by the CLI.
const CONNECT_TIMEOUT_MS: &str = "60000";

const MODERN: &str = "2026-07-28";
const LATEST_STATEFUL: &str = "2025-11-25";
const SERVER_INFO: &str = "io.modelcontextprotocol/serverInfo";

// ---------------------------------------------------------------------------
// The peers
// ---------------------------------------------------------------------------

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// What the tests run: Node 22, the Inspector's launcher and the SDK
/// client driver.
struct Peers {
    dir: PathBuf,
    node: PathBuf,
    inspector: PathBuf,
    driver: PathBuf,
}

fn find_peers() -> Result<Peers, String> {
    let dir = std::env::var_os("MCPGEN_PEERS_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo_root().join(".peers"));
    let node = dir.join("node22/node_modules/node/bin/node");
    let installed = dir.join("inspector");
    let inspector = installed
        .join("node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js");
    let client = installed.join("node_modules/@modelcontextprotocol/client/package.json");
    for needed in [&node, &inspector, &client] {
        if !needed.is_file() {
            return Err(format!("{} is missing", needed.display()));
        }
    }
    // An install from older pins would test other versions than the ones named here.
    let pins = repo_root().join("tests/interop/peers/inspector");
    for file in ["package.json", "package-lock.json"] {
        let pinned = std::fs::read(pins.join(file))
            .map_err(|e| format!("{}: {e}", pins.join(file).display()))?;
        if std::fs::read(installed.join(file)).ok().as_deref() != Some(&pinned[..]) {
            return Err(format!(
                "{} does not match the pinned {}",
                installed.join(file).display(),
                pins.join(file).display()
            ));
        }
    }
    let driver = pins.join("ts2-client.mjs");
    Ok(Peers {
        dir,
        node,
        inspector,
        driver,
    })
}

/// The peers, or `None` (after saying why) when the test is to be skipped.
/// Under `CI=true` a missing peer fails the test instead.
fn peers() -> Option<Peers> {
    match find_peers() {
        Ok(peers) => Some(peers),
        Err(why) => {
            let help = "run `bash scripts/setup-peers.sh` to install the MCP Inspector and the TypeScript SDK v2 client";
            if std::env::var("CI").is_ok_and(|v| v == "true") {
                panic!("the Inspector / TypeScript SDK v2 peer is not installed ({why}); {help}");
            }
            eprintln!(
                "skipping: the Inspector / TypeScript SDK v2 peer is not installed ({why}); {help}"
            );
            None
        }
    }
}

// ---------------------------------------------------------------------------
// Processes
// ---------------------------------------------------------------------------

/// A child that is killed (with its process group on Unix, so a stdio
/// server spawned by a node client goes too) and reaped when dropped.
struct Reaped {
    child: Child,
    grouped: bool,
}

impl Reaped {
    fn spawn(what: &str, mut command: Command, own_group: bool) -> Reaped {
        #[cfg(unix)]
        if own_group {
            use std::os::unix::process::CommandExt;
            command.process_group(0);
        }
        let child = command
            .spawn()
            .unwrap_or_else(|e| panic!("{what}: cannot start {command:?}: {e}"));
        Reaped {
            child,
            grouped: cfg!(unix) && own_group,
        }
    }

    fn kill(&mut self) {
        if self.grouped && self.child.try_wait().ok().flatten().is_none() {
            // The group's id is the child's pid (process_group(0)).
            let _ = Command::new("kill")
                .args(["-KILL", "--", &format!("-{}", self.child.id())])
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status();
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Reaped {
    fn drop(&mut self) {
        self.kill();
    }
}

/// Collects everything a pipe yields, readable while it is still open.
struct Drain {
    bytes: Arc<Mutex<Vec<u8>>>,
    thread: JoinHandle<()>,
}

impl Drain {
    fn new(mut pipe: impl Read + Send + 'static) -> Drain {
        let bytes = Arc::new(Mutex::new(Vec::new()));
        let sink = Arc::clone(&bytes);
        let thread = std::thread::spawn(move || {
            let mut buf = [0u8; 8192];
            while let Ok(n) = pipe.read(&mut buf) {
                if n == 0 {
                    break;
                }
                sink.lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .extend_from_slice(&buf[..n]);
            }
        });
        Drain { bytes, thread }
    }

    /// The text so far, after giving the pipe a few seconds to reach its
    /// end (a grandchild may hold it open after the child exited).
    fn text(&self) -> String {
        let until = Instant::now() + Duration::from_secs(5);
        while !self.thread.is_finished() && Instant::now() < until {
            std::thread::sleep(Duration::from_millis(10));
        }
        String::from_utf8_lossy(&self.bytes.lock().unwrap_or_else(|p| p.into_inner())).into_owned()
    }
}

/// One finished client run.
struct Run {
    what: String,
    status: ExitStatus,
    stdout: String,
    stderr: String,
}

impl Run {
    fn report(&self) -> String {
        format!(
            "{} exited with {}\n---- stdout ----\n{}\n---- stderr ----\n{}",
            self.what, self.status, self.stdout, self.stderr
        )
    }

    /// The one JSON document on stdout of a successful run.
    fn json(&self) -> Value {
        assert!(self.status.success(), "{}", self.report());
        serde_json::from_str(self.stdout.trim())
            .unwrap_or_else(|e| panic!("stdout is not one JSON document ({e}): {}", self.report()))
    }
}

/// Runs a client to its end (at most [`PATIENCE`]), capturing its output.
fn run(what: String, mut command: Command) -> Run {
    command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = Reaped::spawn(&what, command, true);
    let stdout = Drain::new(child.child.stdout.take().expect("piped stdout"));
    let stderr = Drain::new(child.child.stderr.take().expect("piped stderr"));
    let deadline = Instant::now() + PATIENCE;
    let status = loop {
        if let Some(status) = child.child.try_wait().expect("try_wait") {
            break status;
        }
        if Instant::now() > deadline {
            child.kill();
            panic!(
                "{what} did not finish within {PATIENCE:?}\n---- stdout ----\n{}\n---- stderr ----\n{}",
                stdout.text(),
                stderr.text()
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    // The group (a stdio server the client may have left behind) goes now.
    child.kill();
    Run {
        what,
        status,
        stdout: stdout.text(),
        stderr: stderr.text(),
    }
}

/// A fresh directory, removed when dropped.
struct TempDir(PathBuf);

impl TempDir {
    fn new(label: &str) -> TempDir {
        static COUNT: AtomicUsize = AtomicUsize::new(0);
        let n = COUNT.fetch_add(1, Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!("mcpgen-{label}-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("create {}: {e}", dir.display()));
        TempDir(dir)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

// ---------------------------------------------------------------------------
// The example server over HTTP
// ---------------------------------------------------------------------------

struct HttpServer {
    url: String,
    log: Arc<Mutex<String>>,
    _process: Reaped,
}

impl HttpServer {
    /// `weather-server --http 127.0.0.1:0`, once it printed its endpoint.
    fn start() -> HttpServer {
        let mut command = Command::new(env!("CARGO_BIN_EXE_weather-server"));
        command
            .args(["--http", "127.0.0.1:0"])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        let mut process = Reaped::spawn("weather-server --http", command, false);
        let stderr = process.child.stderr.take().expect("piped stderr");
        let log = Arc::new(Mutex::new(String::new()));
        let (tx, rx) = mpsc::channel();
        let sink = Arc::clone(&log);
        std::thread::spawn(move || {
            use std::io::BufRead;
            for line in std::io::BufReader::new(stderr).lines() {
                let Ok(line) = line else { break };
                if let Some(url) = line.strip_prefix("MCP endpoint: ") {
                    let _ = tx.send(url.trim().to_owned());
                }
                let mut log = sink.lock().unwrap_or_else(|p| p.into_inner());
                log.push_str(&line);
                log.push('\n');
            }
        });
        match rx.recv_timeout(PATIENCE) {
            Ok(url) => HttpServer {
                url,
                log,
                _process: process,
            },
            Err(_) => {
                let status = process.child.try_wait().ok().flatten();
                panic!(
                    "weather-server --http 127.0.0.1:0 printed no `MCP endpoint: URL` line (exit status {status:?}); stderr:\n{}",
                    log.lock().unwrap_or_else(|p| p.into_inner())
                );
            }
        }
    }

    fn log(&self) -> String {
        self.log.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }
}

/// Where a client finds the server.
enum Target<'a> {
    Stdio,
    Http(&'a HttpServer),
}

impl Target<'_> {
    fn describe(&self) -> String {
        match self {
            Target::Stdio => "stdio".to_owned(),
            Target::Http(server) => format!("HTTP {}", server.url),
        }
    }

    /// The server's log, for failure messages (a stdio server's stderr is in
    /// the client's).
    fn server_log(&self) -> String {
        match self {
            Target::Stdio => "(stdio: the server's stderr is in the client's stderr)".to_owned(),
            Target::Http(server) => server.log(),
        }
    }
}

// ---------------------------------------------------------------------------
// What every client must see
// ---------------------------------------------------------------------------

/// The manifest's tools, without its `x-` extension keys (which are not
/// part of a `Tool`).
fn manifest_tools() -> Vec<Value> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tools.json");
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
    let manifest: Value =
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("parsing {}: {e}", path.display()));
    manifest["tools"]
        .as_array()
        .expect("tools.json has a tools array")
        .iter()
        .map(|tool| {
            let fields = tool.as_object().expect("a tool is an object");
            Value::Object(
                fields
                    .iter()
                    .filter(|(k, _)| !k.starts_with("x-"))
                    .map(|(k, v)| (k.clone(), v.clone()))
                    .collect(),
            )
        })
        .collect()
}

/// `listed` shows the manifest's tools, in order, each with the manifest's
/// fields unchanged.
fn assert_manifest_tools(listed: &Value, context: &str) {
    let listed = listed
        .as_array()
        .unwrap_or_else(|| panic!("{context}: tools is not an array: {listed}"));
    let expected = manifest_tools();
    let names = |tools: &[Value]| {
        tools
            .iter()
            .map(|t| t["name"].as_str().unwrap_or("?").to_owned())
            .collect::<Vec<_>>()
    };
    assert_eq!(
        names(listed),
        names(&expected),
        "{context}: the listed tools are not the manifest's"
    );
    for (got, want) in listed.iter().zip(&expected) {
        for (key, value) in want.as_object().unwrap() {
            assert_eq!(
                &got[key], value,
                "{context}: tool {} field {key} differs from tools.json",
                want["name"]
            );
        }
    }
}

/// `result` is the default (3-day, metric) forecast for Oslo, as
/// `structuredContent` and as its JSON text block.
fn assert_oslo_forecast(result: &Value, context: &str) {
    assert_ne!(
        result["isError"], true,
        "{context}: get_forecast failed: {result}"
    );
    let forecast = &result["structuredContent"];
    assert_eq!(forecast["city"], "Oslo", "{context}: {result}");
    assert_eq!(forecast["units"], "metric", "{context}: {result}");
    let days = forecast["days"]
        .as_array()
        .unwrap_or_else(|| panic!("{context}: no days: {result}"));
    assert_eq!(days.len(), 3, "{context}: the default is 3 days: {result}");
    for (i, day) in days.iter().enumerate() {
        assert_eq!(day["day"], i + 1, "{context}: {result}");
        let (high, low) = (day["high"].as_f64(), day["low"].as_f64());
        assert!(
            matches!((high, low), (Some(h), Some(l)) if h >= l),
            "{context}: day {}: high/low {high:?}/{low:?}",
            i + 1
        );
        assert!(
            ["sunny", "partly cloudy", "cloudy", "rain", "snow"]
                .contains(&day["conditions"].as_str().unwrap_or("")),
            "{context}: day {}: {}",
            i + 1,
            day["conditions"]
        );
    }
    let text = result["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("{context}: no text block: {result}"));
    let echoed: Value = serde_json::from_str(text)
        .unwrap_or_else(|e| panic!("{context}: the text block is not JSON ({e}): {text}"));
    assert_eq!(
        &echoed, forecast,
        "{context}: the text block and structuredContent differ"
    );
}

/// A 2026-07-28 result names its server in `_meta` (the spec's per-response
/// field, a SHOULD the example server follows).
fn assert_modern_result(result: &Value, context: &str) {
    assert_eq!(
        result["_meta"][SERVER_INFO]["name"], "weather-server",
        "{context}: no {SERVER_INFO} in the result's _meta: {result}"
    );
}

// ---------------------------------------------------------------------------
// The Inspector CLI
// ---------------------------------------------------------------------------

/// One Inspector CLI run (`--cli --format json`) in `era` against `target`;
/// returns its `result`.
fn inspector(peers: &Peers, era: &str, target: &Target, method: &[&str]) -> Value {
    // A fresh HOME: no catalog, client config, stored OAuth or secrets of
    // the user's; the CLI writes nothing for these runs anyway.
    let home = TempDir::new("inspector-home");
    let mut command = Command::new(&peers.node);
    command
        .arg(&peers.inspector)
        .args([
            "--cli",
            "--format",
            "json",
            "--protocol-era",
            era,
            "--connect-timeout",
            CONNECT_TIMEOUT_MS,
        ])
        .args(method)
        .current_dir(&home.0)
        .env("HOME", &home.0)
        .env("NO_COLOR", "1");
    for var in [
        "USERPROFILE",
        "MCP_CATALOG_PATH",
        "MCP_CLIENT_CONFIG_PATH",
        "MCP_STORAGE_DIR",
        "MCP_OAUTH_CALLBACK_URL",
        "MCP_INSPECTOR_OAUTH_STATE_PATH",
        "MCP_INSPECTOR_SECRET_STORE",
        "MCP_INSPECTOR_SECRET_FILE",
        "MCP_INSPECTOR_API_TOKEN",
    ] {
        command.env_remove(var);
    }
    match target {
        Target::Stdio => command.arg(env!("CARGO_BIN_EXE_weather-server")),
        Target::Http(server) => command.args(["--transport", "http", "--server-url", &server.url]),
    };
    let what = format!(
        "inspector --cli --protocol-era {era} {} ({})",
        method.join(" "),
        target.describe()
    );
    let ran = run(what, command);
    if !ran.status.success() {
        panic!(
            "{}\n---- server log ----\n{}",
            ran.report(),
            target.server_log()
        );
    }
    let output = ran.json();
    match output.get("result") {
        Some(result) => result.clone(),
        None => panic!("no result in the CLI's output: {}", ran.report()),
    }
}

/// `initialize` (what the CLI negotiated), `tools/list` and `tools/call
/// get_forecast {"city":"Oslo"}` through the CLI in `era`.
fn inspector_session(peers: &Peers, era: &str, target: &Target) {
    let expected_version = if era == "modern" {
        MODERN
    } else {
        LATEST_STATEFUL
    };
    let context = format!("Inspector CLI, {era} era, {}", target.describe());

    let info = inspector(peers, era, target, &["--method", "initialize"]);
    assert_eq!(
        info["protocolVersion"], expected_version,
        "{context}: negotiated {info}"
    );
    assert_eq!(
        info["serverInfo"]["name"], "weather-server",
        "{context}: {info}"
    );
    assert_eq!(
        info["capabilities"]["tools"],
        json!({ "listChanged": false }),
        "{context}: {info}"
    );

    let listed = inspector(peers, era, target, &["--method", "tools/list"]);
    assert_manifest_tools(&listed["tools"], &context);

    let called = inspector(
        peers,
        era,
        target,
        &[
            "--method",
            "tools/call",
            "--tool-name",
            "get_forecast",
            "--tool-args-json",
            r#"{"city":"Oslo"}"#,
        ],
    );
    assert_oslo_forecast(&called, &context);
    if era == "modern" {
        assert_modern_result(&called, &context);
    }
}

#[test]
fn inspector_cli_modern_era_over_stdio() {
    let Some(peers) = peers() else { return };
    inspector_session(&peers, "modern", &Target::Stdio);
}

#[test]
fn inspector_cli_modern_era_over_http() {
    let Some(peers) = peers() else { return };
    let server = HttpServer::start();
    inspector_session(&peers, "modern", &Target::Http(&server));
}

#[test]
fn inspector_cli_legacy_era_over_stdio() {
    let Some(peers) = peers() else { return };
    inspector_session(&peers, "legacy", &Target::Stdio);
}

#[test]
fn inspector_cli_legacy_era_over_http() {
    let Some(peers) = peers() else { return };
    let server = HttpServer::start();
    inspector_session(&peers, "legacy", &Target::Http(&server));
}

// ---------------------------------------------------------------------------
// The TypeScript SDK v2 client
// ---------------------------------------------------------------------------

/// One `ts2-client.mjs` run in `mode` against `target`: lists the tools,
/// calls get_forecast for Oslo and a tool that does not exist.
fn ts2_client(peers: &Peers, mode: &str, target: &Target) {
    let context = format!(
        "TypeScript SDK v2 client, mode {mode}, {}",
        target.describe()
    );
    let mut command = Command::new(&peers.node);
    command
        .arg(&peers.driver)
        .args(["--mode", mode, "--timeout-ms", "30000", "--peers"])
        .arg(&peers.dir)
        .args(["--call", "get_forecast", "--args", r#"{"city":"Oslo"}"#])
        .args(["--call", "no_such_tool", "--args", "{}"]);
    match target {
        Target::Stdio => command
            .arg("--stdio")
            .arg(env!("CARGO_BIN_EXE_weather-server")),
        Target::Http(server) => command.args(["--url", &server.url]),
    };
    let ran = run(
        format!("ts2-client.mjs --mode {mode} ({})", target.describe()),
        command,
    );
    if !ran.status.success() {
        panic!(
            "{}\n---- server log ----\n{}",
            ran.report(),
            target.server_log()
        );
    }
    let summary = ran.json();

    // Pinned or auto: a server that offers 2026-07-28 is spoken to in it.
    assert_eq!(summary["era"], "modern", "{context}: {summary}");
    assert_eq!(summary["protocolVersion"], MODERN, "{context}: {summary}");
    let offered = summary["supportedVersions"]
        .as_array()
        .unwrap_or_else(|| panic!("{context}: no discover result: {summary}"));
    assert!(
        offered.contains(&json!(MODERN)),
        "{context}: server/discover offered {offered:?}"
    );
    assert_eq!(
        summary["serverInfo"]["name"], "weather-server",
        "{context}: {summary}"
    );
    assert_eq!(
        summary["capabilities"]["tools"],
        json!({ "listChanged": false }),
        "{context}: {summary}"
    );
    assert!(
        summary["instructions"]
            .as_str()
            .is_some_and(|s| s.contains("fails on purpose")),
        "{context}: {summary}"
    );
    assert_manifest_tools(&summary["tools"], &context);

    let calls = summary["calls"]
        .as_array()
        .unwrap_or_else(|| panic!("{context}: no calls: {summary}"));
    assert_eq!(calls.len(), 2, "{context}: {summary}");
    let forecast = calls[0]
        .get("result")
        .unwrap_or_else(|| panic!("{context}: get_forecast failed: {}", calls[0]));
    assert_oslo_forecast(forecast, &context);
    assert_modern_result(forecast, &context);
    // An unknown tool is a protocol error -32602 (server/tools, "Error Handling").
    assert_eq!(
        calls[1]["error"]["code"], -32602,
        "{context}: an unknown tool: {}",
        calls[1]
    );
}

#[test]
fn ts2_client_pinned_to_2026_07_28_over_stdio() {
    let Some(peers) = peers() else { return };
    ts2_client(&peers, MODERN, &Target::Stdio);
}

#[test]
fn ts2_client_pinned_to_2026_07_28_over_http() {
    let Some(peers) = peers() else { return };
    let server = HttpServer::start();
    ts2_client(&peers, MODERN, &Target::Http(&server));
}

#[test]
fn ts2_client_auto_mode_picks_2026_07_28_over_http() {
    let Some(peers) = peers() else { return };
    let server = HttpServer::start();
    ts2_client(&peers, "auto", &Target::Http(&server));
}
