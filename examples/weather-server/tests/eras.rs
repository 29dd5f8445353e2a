//! End-to-end tests of the two protocol eras over stdio: the example server
//! binary is spawned and driven with raw JSON-RPC lines, once per stateful
//! revision (`initialize`, 2024-11-05 to 2025-11-25) and in the stateless
//! 2026-07-28 era (per-request `params._meta`, `server/discover`,
//! `resultType`, caching hints, `-32022`).
//!
//! Every line the server writes is parsed and validated against the
//! official JSON schema of the revision the connection speaks
//! (`../shared/mcp-spec/<rev>/schema.json`): the envelope against
//! `JSONRPCMessage` and the response/error/notification envelope type, a
//! result against the result type of the method it answers (plus the
//! `<Result>Response` envelope where the revision defines one), an error
//! against the definition of its code where the revision names one, and a
//! notification against its own definition. A message that does not
//! validate fails the test with every validator error.

use std::collections::{HashMap, HashSet};
use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use jsonschema::Draft;
use serde_json::{json, Map, Value};

/// Upper bound for one answer, so a broken server fails the test instead of
/// hanging it. Not a timing assertion.
const PATIENCE: Duration = Duration::from_secs(60);

/// The stateful revisions, oldest first.
const LEGACY: [&str; 4] = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"];

/// The stateless revision.
const MODERN: &str = "2026-07-28";

const PROTOCOL_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
const CLIENT_INFO: &str = "io.modelcontextprotocol/clientInfo";
const CLIENT_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";
const SERVER_INFO: &str = "io.modelcontextprotocol/serverInfo";

// ---------------------------------------------------------------------------
// The official schemas
// ---------------------------------------------------------------------------

/// One revision's official schema with its compiled definition validators.
struct Schema {
    revision: String,
    doc: Value,
    defs_key: &'static str,
    draft: Draft,
    compiled: Mutex<HashMap<String, Arc<jsonschema::Validator>>>,
}

fn schema_path(revision: &str) -> PathBuf {
    let relative = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/mcp-spec")
        .join(revision)
        .join("schema.json");
    if relative.is_file() {
        return relative;
    }
    match std::env::var_os("MCPGEN_SCHEMA_MIRROR") {
        Some(mirror) => PathBuf::from(mirror).join(revision).join("schema.json"),
        None => relative,
    }
}

impl Schema {
    /// The schema of `revision`, loaded once per test process.
    fn of(revision: &str) -> Arc<Schema> {
        static LOADED: OnceLock<Mutex<HashMap<String, Arc<Schema>>>> = OnceLock::new();
        let mut loaded = LOADED
            .get_or_init(Default::default)
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        Arc::clone(
            loaded
                .entry(revision.to_owned())
                .or_insert_with(|| Arc::new(Schema::load(revision))),
        )
    }

    fn load(revision: &str) -> Schema {
        let path = schema_path(revision);
        let text = std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
        let doc: Value = serde_json::from_str(&text)
            .unwrap_or_else(|e| panic!("parsing {}: {e}", path.display()));
        // Draft-07 with `definitions` up to 2025-06-18, 2020-12 with `$defs` after.
        let (draft, defs_key, dialect) = if revision <= "2025-06-18" {
            (
                Draft::Draft7,
                "definitions",
                "http://json-schema.org/draft-07/schema#",
            )
        } else {
            (
                Draft::Draft202012,
                "$defs",
                "https://json-schema.org/draft/2020-12/schema",
            )
        };
        assert_eq!(
            doc["$schema"],
            dialect,
            "{} names its dialect",
            path.display()
        );
        assert!(
            doc[defs_key].is_object(),
            "{} keeps its definitions under {defs_key}",
            path.display()
        );
        Schema {
            revision: revision.to_owned(),
            doc,
            defs_key,
            draft,
            compiled: Mutex::new(HashMap::new()),
        }
    }

    fn has(&self, def: &str) -> bool {
        self.doc[self.defs_key].get(def).is_some()
    }

    fn definition(&self, def: &str) -> &Value {
        &self.doc[self.defs_key][def]
    }

    /// A validator for definition `def`: the whole schema document with its
    /// root constrained to `{"$ref": "#/<defs>/<def>"}`.
    fn validator(&self, def: &str) -> Arc<jsonschema::Validator> {
        assert!(
            self.has(def),
            "the {} schema defines no {def}",
            self.revision
        );
        let mut compiled = self.compiled.lock().unwrap_or_else(|p| p.into_inner());
        let validator = compiled.entry(def.to_owned()).or_insert_with(|| {
            let mut root = self.doc.clone();
            let reference = format!("#/{}/{def}", self.defs_key);
            root.as_object_mut()
                .unwrap()
                .insert("allOf".into(), json!([{ "$ref": reference }]));
            let validator = jsonschema::options()
                .with_draft(self.draft)
                .build(&root)
                .unwrap_or_else(|e| panic!("compiling {def} of the {} schema: {e}", self.revision));
            Arc::new(validator)
        });
        Arc::clone(validator)
    }

    /// `Err` with every validator error when `instance` is not a `def`.
    fn check(&self, def: &str, instance: &Value) -> Result<(), String> {
        let validator = self.validator(def);
        if validator.is_valid(instance) {
            return Ok(());
        }
        let mut errors: Vec<String> = validator
            .iter_errors(instance)
            .map(|e| {
                format!(
                    "    - at {:?}: {e} (schema path {})",
                    e.instance_path().as_str(),
                    e.schema_path().as_str()
                )
            })
            .collect();
        if errors.is_empty() {
            errors.push("    - invalid (the validator listed no error)".into());
        }
        Err(errors.join("\n"))
    }
}

/// The result definition of the answer to `method`.
fn result_definition(method: &str) -> &'static str {
    match method {
        "initialize" => "InitializeResult",
        "ping" => "EmptyResult",
        "tools/list" => "ListToolsResult",
        "tools/call" => "CallToolResult",
        "server/discover" => "DiscoverResult",
        other => panic!("the test sent {other}, which has no known result type"),
    }
}

/// The definition a revision gives an error code, if it names one.
fn error_definition(code: i64) -> Option<&'static str> {
    Some(match code {
        -32700 => "ParseError",
        -32600 => "InvalidRequestError",
        -32601 => "MethodNotFoundError",
        -32602 => "InvalidParamsError",
        -32603 => "InternalError",
        -32020 => "HeaderMismatchError",
        -32021 => "MissingRequiredClientCapabilityError",
        -32022 => "UnsupportedProtocolVersionError",
        _ => return None,
    })
}

/// The definition of a notification the server may send.
fn notification_definition(method: &str) -> &'static str {
    match method {
        "notifications/progress" => "ProgressNotification",
        "notifications/message" => "LoggingMessageNotification",
        "notifications/tools/list_changed" => "ToolListChangedNotification",
        other => panic!("the server sent an unexpected notification {other}"),
    }
}

/// Validates one server message against the schema of `revision`;
/// `answers` is the method of the request a response answers. Panics with
/// every validator error when it does not validate.
fn validate_message(revision: &str, message: &Value, answers: Option<&str>) {
    let schema = Schema::of(revision);
    let mut failures: Vec<String> = Vec::new();
    let mut check = |def: &str, instance: &Value| {
        if let Err(errors) = schema.check(def, instance) {
            failures.push(format!("  not a valid {def}:\n{errors}"));
        }
    };
    if schema.has("JSONRPCMessage") {
        check("JSONRPCMessage", message);
    }
    if let Some(method) = message.get("method").and_then(Value::as_str) {
        assert!(
            message.get("id").is_none(),
            "the server sent a request over stdio: {message}"
        );
        check("JSONRPCNotification", message);
        check(notification_definition(method), message);
    } else if let Some(error) = message.get("error") {
        let envelope = if schema.has("JSONRPCErrorResponse") {
            "JSONRPCErrorResponse"
        } else {
            "JSONRPCError"
        };
        check(envelope, message);
        if let Some(def) = error["code"]
            .as_i64()
            .and_then(error_definition)
            .filter(|d| schema.has(d))
        {
            // Some error definitions are whole responses, others the error object.
            let is_response = schema.definition(def)["properties"].get("error").is_some();
            check(def, if is_response { message } else { error });
        }
    } else {
        let envelope = if schema.has("JSONRPCResultResponse") {
            "JSONRPCResultResponse"
        } else {
            "JSONRPCResponse"
        };
        check(envelope, message);
        let method = answers
            .unwrap_or_else(|| panic!("a result that answers no request of this test: {message}"));
        let def = result_definition(method);
        check(def, &message["result"]);
        let response = format!("{def}Response");
        if schema.has(&response) {
            check(&response, message);
        }
    }
    if !failures.is_empty() {
        panic!("a server message does not validate against the official {revision} schema\nmessage: {message}\n{}", failures.join("\n"));
    }
}

// ---------------------------------------------------------------------------
// The server process
// ---------------------------------------------------------------------------

/// A scratch directory removed on drop.
struct TempDir(PathBuf);

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn temp_dir() -> TempDir {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static N: AtomicUsize = AtomicUsize::new(0);
    let dir = std::env::temp_dir().join(format!(
        "weather-eras-{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::SeqCst)
    ));
    std::fs::create_dir_all(&dir).unwrap();
    TempDir(dir)
}

/// One stdio connection to a fresh server process, validating everything
/// the server writes against the schema of `revision`.
struct Conn {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
    /// The revision whose schema the server's messages must follow.
    revision: String,
    /// Requests sent and not answered yet: id (as JSON text) to method.
    pending: HashMap<String, String>,
    /// Ids of requests this test cancelled: they must get no response.
    cancelled: HashSet<String>,
    stderr_path: PathBuf,
    _dir: TempDir,
}

impl Conn {
    fn start(revision: &str) -> Self {
        Self::start_with(revision, &[])
    }

    fn start_with(revision: &str, env: &[(&str, &str)]) -> Self {
        let dir = temp_dir();
        let stderr_path = dir.0.join("stderr.log");
        let stderr = std::fs::File::create(&stderr_path).unwrap();
        let mut command = Command::new(env!("CARGO_BIN_EXE_weather-server"));
        command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(stderr)
            .env("RUST_BACKTRACE", "0");
        for (key, value) in env {
            command.env(key, value);
        }
        let mut child = command.spawn().expect("the example server starts");
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
        Conn {
            child,
            stdin,
            lines,
            revision: revision.to_owned(),
            pending: HashMap::new(),
            cancelled: HashSet::new(),
            stderr_path,
            _dir: dir,
        }
    }

    fn stderr(&self) -> String {
        std::fs::read_to_string(&self.stderr_path).unwrap_or_default()
    }

    fn send(&mut self, message: &Value) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        let mut text = message.to_string();
        text.push('\n');
        stdin.write_all(text.as_bytes()).unwrap();
        stdin.flush().unwrap();
    }

    /// Sends a request without waiting for its answer.
    fn send_request(&mut self, id: Value, method: &str, params: Option<Value>) {
        let mut message = json!({ "jsonrpc": "2.0", "id": id, "method": method });
        if let Some(params) = params {
            message["params"] = params;
        }
        let previous = self.pending.insert(id.to_string(), method.to_owned());
        assert!(
            previous.is_none(),
            "the test reuses id {id} of a pending request"
        );
        self.send(&message);
    }

    fn notify(&mut self, method: &str, params: Option<Value>) {
        let mut message = json!({ "jsonrpc": "2.0", "method": method });
        if let Some(params) = params {
            message["params"] = params;
        }
        self.send(&message);
    }

    /// Sends `notifications/cancelled` for request `id`.
    fn cancel(&mut self, id: Value, reason: &str) {
        self.cancelled.insert(id.to_string());
        self.notify(
            "notifications/cancelled",
            Some(json!({ "requestId": id, "reason": reason })),
        );
    }

    /// Checks and classifies one line the server wrote.
    fn accept(&mut self, line: &str) -> Value {
        assert!(!line.contains('\n'), "one message per line");
        let message: Value = serde_json::from_str(line).unwrap_or_else(|e| {
            panic!(
                "the server wrote a line that is not JSON ({e}): {line}\nstderr:\n{}",
                self.stderr()
            )
        });
        assert_eq!(message["jsonrpc"], "2.0", "JSON-RPC 2.0: {line}");
        let answers = match message.get("id") {
            Some(id) if message.get("method").is_none() => {
                let key = id.to_string();
                assert!(
                    !self.cancelled.contains(&key),
                    "a response to request {id}, which was cancelled: {line}"
                );
                Some(
                    self.pending
                        .remove(&key)
                        .unwrap_or_else(|| panic!("a response to no pending request: {line}")),
                )
            }
            _ => None,
        };
        validate_message(&self.revision, &message, answers.as_deref());
        message
    }

    /// The next message the server writes, validated.
    fn recv(&mut self) -> Value {
        match self.lines.recv_timeout(PATIENCE) {
            Ok(line) => self.accept(&line),
            Err(e) => panic!(
                "no message from the server ({e:?}); pending {:?}\nstderr:\n{}",
                self.pending,
                self.stderr()
            ),
        }
    }

    /// The next message within `wait`, if any.
    fn recv_within(&mut self, wait: Duration) -> Option<Value> {
        match self.lines.recv_timeout(wait) {
            Ok(line) => Some(self.accept(&line)),
            Err(RecvTimeoutError::Timeout) => None,
            Err(RecvTimeoutError::Disconnected) => {
                panic!("the server closed its output\nstderr:\n{}", self.stderr())
            }
        }
    }

    /// A request whose response must be the very next message.
    fn request(&mut self, id: Value, method: &str, params: Option<Value>) -> Value {
        self.send_request(id.clone(), method, params);
        let response = self.recv();
        assert_eq!(
            response["id"], id,
            "the next message answers {method} {id}: {response}"
        );
        response
    }

    /// A stateless request: `params` with the per-request `_meta` of 2026-07-28.
    fn modern(&mut self, id: Value, method: &str, params: Value) -> Value {
        self.request(id, method, Some(with_meta(params)))
    }

    /// Closes stdin, expects a clean exit and no further output.
    fn finish(mut self) {
        drop(self.stdin.take());
        let deadline = Instant::now() + PATIENCE;
        let status = loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                break status;
            }
            assert!(
                Instant::now() < deadline,
                "the server does not exit when its input closes"
            );
            std::thread::sleep(Duration::from_millis(10));
        };
        assert!(
            status.success(),
            "exit status {status}\nstderr:\n{}",
            self.stderr()
        );
        if let Ok(line) = self.lines.recv_timeout(PATIENCE) {
            let message = self.accept(&line);
            panic!("output after the last answer: {message}");
        }
        let unanswered: Vec<&String> = self
            .pending
            .keys()
            .filter(|k| !self.cancelled.contains(*k))
            .collect();
        assert!(
            unanswered.is_empty(),
            "requests never answered: {unanswered:?}"
        );
    }
}

impl Drop for Conn {
    fn drop(&mut self) {
        // Only when a test failed before `finish`: stop this test's own child.
        if matches!(self.child.try_wait(), Ok(None)) {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

// ---------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------

/// The per-request `_meta` of a 2026-07-28 client.
fn request_meta() -> Map<String, Value> {
    let mut meta = Map::new();
    meta.insert(PROTOCOL_VERSION.into(), json!(MODERN));
    meta.insert(
        CLIENT_INFO.into(),
        json!({ "name": "eras-test", "version": "1.0.0" }),
    );
    meta.insert(CLIENT_CAPABILITIES.into(), json!({}));
    meta
}

/// `params` with the per-request `_meta` added (next to any `_meta` it has).
fn with_meta(mut params: Value) -> Value {
    let object = params.as_object_mut().expect("params are an object");
    let meta = object.entry("_meta").or_insert_with(|| json!({}));
    for (key, value) in request_meta() {
        meta.as_object_mut().unwrap().entry(key).or_insert(value);
    }
    params
}

/// `params` with `_meta` exactly `meta`.
fn with_exact_meta(mut params: Value, meta: Value) -> Value {
    params["_meta"] = meta;
    params
}

/// The tools of `tools.json` as `tools/list` serves them (without the
/// generator's own `x-mcpgen` member).
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

fn names(tools: &[Value]) -> Vec<&str> {
    tools
        .iter()
        .map(|t| t["name"].as_str().unwrap_or("<no name>"))
        .collect()
}

fn text_of(result: &Value) -> &str {
    result["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("no text block: {result}"))
}

/// Checks the members every 2026-07-28 result carries.
fn assert_modern_result(result: &Value) {
    assert_eq!(result["resultType"], "complete", "resultType: {result}");
    let info = &result["_meta"][SERVER_INFO];
    assert_eq!(info["name"], "weather-server", "_meta.serverInfo: {result}");
    assert_eq!(info["version"], "0.1.0", "_meta.serverInfo: {result}");
}

/// Checks the caching hints of a cacheable 2026-07-28 result.
fn assert_cache_hint(result: &Value) {
    assert!(
        result["ttlMs"].is_u64(),
        "ttlMs is an integer >= 0: {result}"
    );
    let scope = result["cacheScope"].as_str().unwrap_or_default();
    assert!(
        scope == "public" || scope == "private",
        "cacheScope is public or private: {result}"
    );
}

/// Checks that a stateful result carries none of the stateless era's members.
fn assert_legacy_result(result: &Value) {
    for member in ["resultType", "ttlMs", "cacheScope"] {
        assert!(
            result.get(member).is_none(),
            "a stateful result without {member}: {result}"
        );
    }
    assert!(
        result["_meta"].get(SERVER_INFO).is_none(),
        "a stateful result without _meta.serverInfo: {result}"
    );
}

/// A `get_forecast` answer for Oslo, 2 days, imperial.
fn assert_forecast(result: &Value) {
    assert_ne!(result["isError"], true, "a successful call: {result}");
    let output = &result["structuredContent"];
    assert_eq!(output["city"], "Oslo");
    assert_eq!(output["units"], "imperial");
    let days = output["days"]
        .as_array()
        .unwrap_or_else(|| panic!("days: {result}"));
    assert_eq!(days.len(), 2);
    assert_eq!(days[0]["day"], 1);
    assert!(days[0]["high"].as_f64().unwrap() >= days[0]["low"].as_f64().unwrap());
    let text: Value =
        serde_json::from_str(text_of(result)).expect("the text block is the output as JSON");
    assert_eq!(&text, output, "the text block mirrors structuredContent");
}

fn forecast_args() -> Value {
    json!({ "city": "Oslo", "days": 2, "units": "imperial" })
}

/// Arguments that violate get_forecast's inputSchema three ways.
fn bad_forecast_args() -> Value {
    json!({ "city": "", "days": 9, "units": "kelvin" })
}

/// The versions an `UnsupportedProtocolVersionError` or `DiscoverResult` lists.
fn assert_lists_every_version(versions: &Value) {
    let versions: Vec<&str> = versions
        .as_array()
        .unwrap_or_else(|| panic!("a list: {versions}"))
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert!(
        versions.contains(&MODERN),
        "{MODERN} is listed: {versions:?}"
    );
    for legacy in LEGACY {
        assert!(
            versions.contains(&legacy),
            "{legacy} is listed: {versions:?}"
        );
    }
}

// ---------------------------------------------------------------------------
// The stateful era
// ---------------------------------------------------------------------------

fn stateful_session(revision: &str) {
    let mut s = Conn::start(revision);
    let r = s.request(
        json!(0),
        "initialize",
        Some(json!({ "protocolVersion": revision, "capabilities": {}, "clientInfo": { "name": "eras-test", "version": "1.0.0" } })),
    );
    let result = &r["result"];
    assert_eq!(
        result["protocolVersion"], revision,
        "a supported revision is echoed"
    );
    assert!(
        result["capabilities"]["tools"].is_object(),
        "tools capability: {result}"
    );
    assert_eq!(result["serverInfo"]["name"], "weather-server");
    assert_eq!(result["serverInfo"]["version"], "0.1.0");
    assert_legacy_result(result);
    s.notify("notifications/initialized", None);

    // The notification is not answered: the next message answers the ping.
    let r = s.request(json!("ping-1"), "ping", None);
    assert_eq!(r["result"], json!({}));

    let r = s.request(json!(1), "tools/list", Some(json!({})));
    let result = &r["result"];
    let tools = result["tools"]
        .as_array()
        .unwrap_or_else(|| panic!("tools: {result}"));
    let expected = manifest_tools();
    assert_eq!(names(tools), names(&expected));
    for (served, declared) in tools.iter().zip(&expected) {
        assert_eq!(
            served["inputSchema"], declared["inputSchema"],
            "inputSchema of {}",
            declared["name"]
        );
    }
    assert!(result.get("nextCursor").is_none(), "one page: {result}");
    assert_legacy_result(result);

    let r = s.request(
        json!(2),
        "tools/call",
        Some(json!({ "name": "get_forecast", "arguments": forecast_args() })),
    );
    assert_forecast(&r["result"]);
    assert_legacy_result(&r["result"]);

    let r = s.request(
        json!(3),
        "tools/call",
        Some(json!({ "name": "get_forecast", "arguments": bad_forecast_args() })),
    );
    if revision <= "2025-06-18" {
        // Up to 2025-06-18 invalid arguments are a protocol error.
        assert!(
            r.get("result").is_none(),
            "{revision}: invalid arguments are a -32602 error, not a result: {r}"
        );
        assert_eq!(r["error"]["code"], -32602, "{r}");
        let errors = r["error"]["data"]["errors"].to_string();
        for field in ["city", "days", "units"] {
            assert!(
                errors.contains(field),
                "{revision}: the error data names {field}: {r}"
            );
        }
    } else {
        // From 2025-11-25 they are a tool error the model can read.
        assert!(
            r.get("error").is_none(),
            "{revision}: invalid arguments are an isError result: {r}"
        );
        assert_eq!(r["result"]["isError"], true, "{r}");
        let text = text_of(&r["result"]);
        for field in ["/city", "/days", "/units"] {
            assert!(
                text.contains(field),
                "{revision}: the tool error names {field}: {text}"
            );
        }
        assert_legacy_result(&r["result"]);
    }

    // `server/discover` (a dual-era client's probe) is no method of a
    // session opened with `initialize`.
    let r = s.request(json!(4), "server/discover", Some(with_meta(json!({}))));
    assert_eq!(
        r["error"]["code"], -32601,
        "server/discover after initialize: {r}"
    );
    let r = s.request(json!(5), "server/discover", None);
    assert_eq!(
        r["error"]["code"], -32601,
        "server/discover after initialize: {r}"
    );

    // The session still serves.
    let r = s.request(json!("ping-2"), "ping", None);
    assert_eq!(r["result"], json!({}));
    s.finish();
}

#[test]
fn stateful_era_2024_11_05() {
    stateful_session("2024-11-05");
}

#[test]
fn stateful_era_2025_03_26() {
    stateful_session("2025-03-26");
}

#[test]
fn stateful_era_2025_06_18() {
    stateful_session("2025-06-18");
}

#[test]
fn stateful_era_2025_11_25() {
    stateful_session("2025-11-25");
}

// ---------------------------------------------------------------------------
// The stateless era
// ---------------------------------------------------------------------------

#[test]
fn stateless_discover_and_tools_list() {
    let mut s = Conn::start(MODERN);
    // The stdio probe of a dual-era client: server/discover first.
    let r = s.modern(json!("discover-1"), "server/discover", json!({}));
    let result = &r["result"];
    assert_modern_result(result);
    assert_cache_hint(result);
    assert_lists_every_version(&result["supportedVersions"]);
    assert!(
        result["capabilities"]["tools"].is_object(),
        "tools capability: {result}"
    );
    assert!(
        result["instructions"]
            .as_str()
            .unwrap_or_default()
            .contains("fails on purpose"),
        "instructions: {result}"
    );

    let r = s.modern(json!(1), "tools/list", json!({}));
    let result = &r["result"];
    assert_modern_result(result);
    assert_cache_hint(result);
    let tools = result["tools"]
        .as_array()
        .unwrap_or_else(|| panic!("tools: {result}"));
    let expected = manifest_tools();
    assert_eq!(names(tools), names(&expected));
    for (served, declared) in tools.iter().zip(&expected) {
        assert_eq!(
            served["inputSchema"], declared["inputSchema"],
            "inputSchema of {}",
            declared["name"]
        );
        assert_eq!(
            served.get("outputSchema"),
            declared.get("outputSchema"),
            "outputSchema of {}",
            declared["name"]
        );
    }

    // clientInfo is optional.
    let mut meta = request_meta();
    meta.remove(CLIENT_INFO);
    let r = s.request(
        json!(2),
        "tools/list",
        Some(with_exact_meta(json!({}), Value::Object(meta))),
    );
    assert_modern_result(&r["result"]);
    assert_eq!(
        names(r["result"]["tools"].as_array().unwrap()),
        names(&expected)
    );
    s.finish();
}

#[test]
fn stateless_tools_list_pages_each_carry_caching_hints() {
    let mut s = Conn::start_with(MODERN, &[("WEATHER_PAGE_SIZE", "2")]);
    let mut served = Vec::new();
    let mut scopes = HashSet::new();
    let mut cursor: Option<Value> = None;
    for page in 0.. {
        assert!(page < 10, "the pages end");
        let params = match &cursor {
            Some(c) => json!({ "cursor": c }),
            None => json!({}),
        };
        let r = s.modern(json!(page), "tools/list", params);
        let result = &r["result"];
        assert_modern_result(result);
        assert_cache_hint(result);
        scopes.insert(result["cacheScope"].to_string());
        served.extend(result["tools"].as_array().unwrap().iter().cloned());
        match result.get("nextCursor") {
            Some(next) => cursor = Some(next.clone()),
            None => break,
        }
    }
    assert_eq!(
        scopes.len(),
        1,
        "every page of one list has the same cacheScope: {scopes:?}"
    );
    assert_eq!(names(&served), names(&manifest_tools()));

    // A cursor request is a request like any other: it needs its _meta.
    let r = s.request(
        json!("no-meta"),
        "tools/list",
        Some(json!({ "cursor": cursor })),
    );
    assert_eq!(r["error"]["code"], -32602, "{r}");
    s.finish();
}

#[test]
fn stateless_tools_call_valid_and_invalid() {
    let mut s = Conn::start(MODERN);
    // No discover first: a modern client may call any method inline.
    let r = s.modern(
        json!(1),
        "tools/call",
        json!({ "name": "get_forecast", "arguments": forecast_args() }),
    );
    assert_forecast(&r["result"]);
    assert_modern_result(&r["result"]);

    // Invalid arguments: a tool error naming each field, not a protocol error.
    let r = s.modern(
        json!(2),
        "tools/call",
        json!({ "name": "get_forecast", "arguments": bad_forecast_args() }),
    );
    assert!(
        r.get("error").is_none(),
        "invalid arguments are an isError result: {r}"
    );
    assert_eq!(r["result"]["isError"], true, "{r}");
    let text = text_of(&r["result"]);
    for field in ["/city", "/days", "/units"] {
        assert!(text.contains(field), "the tool error names {field}: {text}");
    }
    assert_modern_result(&r["result"]);

    // A tool's own failure is an isError result as well.
    let r = s.modern(
        json!(3),
        "tools/call",
        json!({ "name": "simulate_failure", "arguments": { "mode": "tool_error" } }),
    );
    assert_eq!(r["result"]["isError"], true, "{r}");
    assert!(text_of(&r["result"]).contains("offline"));
    assert_modern_result(&r["result"]);

    // An unknown tool is a protocol error.
    let r = s.modern(
        json!(4),
        "tools/call",
        json!({ "name": "no_such_tool", "arguments": {} }),
    );
    assert_eq!(r["error"]["code"], -32602, "{r}");

    // A content-only tool.
    let r = s.modern(
        json!(5),
        "tools/call",
        json!({ "name": "convert_temperature", "arguments": { "value": 100, "from": "celsius", "to": "fahrenheit" } }),
    );
    assert_eq!(text_of(&r["result"]), "100 celsius = 212.00 °F");
    assert_modern_result(&r["result"]);
    s.finish();
}

/// Reads the progress notifications of `token` and then the response to
/// `id`; returns the progress values and the response.
fn progress_then_response(s: &mut Conn, id: &Value, token: &Value) -> (Vec<Value>, Value) {
    let mut progress = Vec::new();
    loop {
        let m = s.recv();
        if m.get("method").is_some() {
            assert_eq!(m["method"], "notifications/progress", "{m}");
            assert_eq!(
                &m["params"]["progressToken"], token,
                "the request's token: {m}"
            );
            progress.push(m["params"].clone());
        } else {
            assert_eq!(&m["id"], id, "{m}");
            return (progress, m);
        }
    }
}

#[test]
fn stateless_progress_notifications() {
    let mut s = Conn::start(MODERN);
    for (id, token) in [
        (json!("radar-call"), json!("radar-token")),
        (json!(2), json!(77)),
    ] {
        let params = json!({ "name": "watch_radar", "arguments": { "steps": 4, "step_ms": 5 }, "_meta": { "progressToken": token } });
        s.send_request(id.clone(), "tools/call", Some(with_meta(params)));
        let (progress, response) = progress_then_response(&mut s, &id, &token);
        assert_eq!(progress.len(), 4, "one notification per step: {progress:?}");
        for (step, params) in progress.iter().enumerate() {
            assert_eq!(
                params["progress"].as_f64(),
                Some((step + 1) as f64),
                "increasing progress: {progress:?}"
            );
            assert_eq!(params["total"].as_f64(), Some(4.0), "{params}");
        }
        let result = &response["result"];
        assert!(
            text_of(result).starts_with("radar scan complete: 4 sweeps"),
            "{result}"
        );
        assert_modern_result(result);
    }

    // Without a progress token there is no progress.
    let r = s.modern(
        json!(3),
        "tools/call",
        json!({ "name": "watch_radar", "arguments": { "steps": 3, "step_ms": 1 } }),
    );
    assert!(text_of(&r["result"]).starts_with("radar scan complete: 3 sweeps"));
    s.finish();
}

#[test]
fn stateless_cancellation_stops_a_running_call() {
    let mut s = Conn::start(MODERN);
    let id = json!("long-scan");
    let token = json!("long-scan-progress");
    // 1000 steps of 20 ms: 20 s if it ran to the end.
    let params = json!({ "name": "watch_radar", "arguments": { "steps": 1000, "step_ms": 20 }, "_meta": { "progressToken": token } });
    s.send_request(id.clone(), "tools/call", Some(with_meta(params)));
    let first = s.recv();
    assert_eq!(
        first["method"], "notifications/progress",
        "the scan is running: {first}"
    );
    assert_eq!(first["params"]["progressToken"], token);

    s.cancel(id.clone(), "the user gave up");
    // Progress sent before the server read the cancellation may still be
    // in flight; the answer to the next request comes after it.
    s.send_request(json!(2), "tools/list", Some(with_meta(json!({}))));
    loop {
        let m = s.recv();
        if m["method"] == "notifications/progress" {
            assert_eq!(m["params"]["progressToken"], token);
            continue;
        }
        assert_eq!(m["id"], 2, "{m}");
        assert_modern_result(&m["result"]);
        break;
    }
    // Nothing more for the cancelled call: no progress, no response.
    if let Some(m) = s.recv_within(Duration::from_millis(600)) {
        panic!("a message after the cancellation was processed: {m}");
    }

    // The server keeps serving, calls included.
    let r = s.modern(
        json!(3),
        "tools/call",
        json!({ "name": "get_forecast", "arguments": forecast_args() }),
    );
    assert_forecast(&r["result"]);
    let r = s.modern(json!(4), "server/discover", json!({}));
    assert_modern_result(&r["result"]);
    s.finish();
}

#[test]
fn stateless_unsupported_protocol_version() {
    let mut s = Conn::start(MODERN);
    let mut meta = request_meta();
    meta.insert(PROTOCOL_VERSION.into(), json!("1900-01-01"));
    let meta = Value::Object(meta);
    for (id, method, params) in [
        (json!(1), "tools/list", json!({})),
        (json!("probe"), "server/discover", json!({})),
        (
            json!(3),
            "tools/call",
            json!({ "name": "get_forecast", "arguments": forecast_args() }),
        ),
    ] {
        let r = s.request(id, method, Some(with_exact_meta(params, meta.clone())));
        let error = &r["error"];
        assert_eq!(error["code"], -32022, "{method} in 1900-01-01: {r}");
        assert_eq!(error["data"]["requested"], "1900-01-01", "{r}");
        assert_lists_every_version(&error["data"]["supported"]);
    }
    // The client retries with a version from the list.
    let r = s.modern(json!(4), "tools/list", json!({}));
    assert_modern_result(&r["result"]);
    s.finish();
}

/// A request naming a version the server does not speak is answered
/// `-32022` whatever else its `_meta` holds: which fields are required is
/// defined by the revision, and over stdio a dual-era client treats any
/// error other than a recognized modern one as "legacy server" and falls
/// back to `initialize` (basic/transports/stdio.mdx, Backward
/// Compatibility), so a `-32602` here would send it down the wrong path.
#[test]
fn stateless_unsupported_version_is_reported_before_other_meta_checks() {
    let mut s = Conn::start(MODERN);
    for (id, version) in [(json!(1), "2027-01-01"), (json!(2), "1900-01-01")] {
        let meta = json!({ PROTOCOL_VERSION: version, CLIENT_INFO: { "name": "eras-test", "version": "1.0.0" } });
        let r = s.request(
            id,
            "server/discover",
            Some(with_exact_meta(json!({}), meta)),
        );
        assert_eq!(
            r["error"]["code"], -32022,
            "server/discover naming {version} without clientCapabilities: {r}"
        );
        assert_eq!(r["error"]["data"]["requested"], version, "{r}");
        assert_lists_every_version(&r["error"]["data"]["supported"]);
    }
    let r = s.modern(json!(3), "server/discover", json!({}));
    assert_modern_result(&r["result"]);
    s.finish();
}

#[test]
fn stateless_missing_meta_fields_are_invalid_params() {
    let mut s = Conn::start(MODERN);
    let mut no_capabilities = request_meta();
    no_capabilities.remove(CLIENT_CAPABILITIES);
    let no_capabilities = Value::Object(no_capabilities);
    // On a fresh connection: a modern request without clientCapabilities.
    for (id, method, params) in [
        (json!(1), "tools/list", json!({})),
        (json!(2), "server/discover", json!({})),
        (
            json!(3),
            "tools/call",
            json!({ "name": "get_forecast", "arguments": forecast_args() }),
        ),
    ] {
        let r = s.request(
            id,
            method,
            Some(with_exact_meta(params, no_capabilities.clone())),
        );
        assert_eq!(
            r["error"]["code"], -32602,
            "{method} without clientCapabilities: {r}"
        );
    }
    // server/discover is modern by itself: without any _meta it is malformed.
    let r = s.request(json!(4), "server/discover", Some(json!({})));
    assert_eq!(
        r["error"]["code"], -32602,
        "server/discover without _meta: {r}"
    );
    let r = s.request(json!(5), "server/discover", None);
    assert_eq!(
        r["error"]["code"], -32602,
        "server/discover without params: {r}"
    );

    // Once the connection is modern, every request needs its _meta.
    let r = s.modern(json!(6), "server/discover", json!({}));
    assert_modern_result(&r["result"]);
    let r = s.request(json!(7), "tools/list", None);
    assert_eq!(r["error"]["code"], -32602, "tools/list without params: {r}");
    let r = s.request(json!(8), "tools/list", Some(json!({})));
    assert_eq!(r["error"]["code"], -32602, "tools/list without _meta: {r}");
    let r = s.request(
        json!(9),
        "tools/call",
        Some(json!({ "name": "get_forecast", "arguments": forecast_args() })),
    );
    assert_eq!(r["error"]["code"], -32602, "tools/call without _meta: {r}");
    let r = s.request(
        json!(10),
        "tools/list",
        Some(with_exact_meta(json!({}), no_capabilities.clone())),
    );
    assert_eq!(
        r["error"]["code"], -32602,
        "tools/list without clientCapabilities: {r}"
    );
    let mut no_version = request_meta();
    no_version.remove(PROTOCOL_VERSION);
    let r = s.request(
        json!(11),
        "tools/list",
        Some(with_exact_meta(json!({}), Value::Object(no_version))),
    );
    assert_eq!(
        r["error"]["code"], -32602,
        "tools/list without protocolVersion: {r}"
    );

    // Still serving.
    let r = s.modern(json!(12), "tools/list", json!({}));
    assert_modern_result(&r["result"]);
    s.finish();
}

#[test]
fn stateless_ping_is_method_not_found() {
    let mut s = Conn::start(MODERN);
    // As the first request of the connection...
    let r = s.modern(json!(1), "ping", json!({}));
    assert_eq!(r["error"]["code"], -32601, "ping in {MODERN}: {r}");
    // ...and later.
    let r = s.modern(json!(2), "tools/list", json!({}));
    assert_modern_result(&r["result"]);
    let r = s.modern(json!(3), "ping", json!({}));
    assert_eq!(r["error"]["code"], -32601, "ping in {MODERN}: {r}");
    s.finish();
}

#[test]
fn stateless_initialize_refused_after_a_modern_request() {
    for opening in ["server/discover", "tools/call"] {
        let mut s = Conn::start(MODERN);
        let params = match opening {
            "tools/call" => json!({ "name": "get_forecast", "arguments": forecast_args() }),
            _ => json!({}),
        };
        let r = s.modern(json!(1), opening, params);
        assert_modern_result(&r["result"]);

        let r = s.request(
            json!(2),
            "initialize",
            Some(json!({ "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": { "name": "legacy", "version": "1" } })),
        );
        // Refused; the code is implementation-defined (versioning.mdx,
        // compatibility matrix), but the error SHOULD name the supported
        // versions, as a legacy client has no other way to learn them.
        assert!(
            r.get("result").is_none(),
            "initialize after {opening} is refused: {r}"
        );
        let error = &r["error"];
        let code = error["code"].as_i64();
        assert!(
            matches!(code, Some(-32022 | -32601)),
            "initialize after {opening}: -32022 or -32601: {r}"
        );
        if code == Some(-32022) {
            assert_eq!(error["data"]["requested"], "2025-11-25", "{r}");
        }
        assert_lists_every_version(&error["data"]["supported"]);
        let message = error["message"].as_str().unwrap_or_default();
        for version in LEGACY.iter().chain([&MODERN]) {
            assert!(
                message.contains(version),
                "the message names {version}: {message}"
            );
        }

        // The connection stays modern.
        let r = s.modern(
            json!(3),
            "tools/call",
            json!({ "name": "get_forecast", "arguments": forecast_args() }),
        );
        assert_forecast(&r["result"]);
        assert_modern_result(&r["result"]);
        let r = s.modern(json!(4), "server/discover", json!({}));
        assert_modern_result(&r["result"]);
        s.finish();
    }
}

/// A legacy client's `initialize` that names no version, on a modern
/// connection: refused, with an error that is valid for the connection's
/// revision (an `UnsupportedProtocolVersionError` must carry
/// `data.requested` as a string).
#[test]
fn stateless_initialize_without_a_version_is_refused_with_a_valid_error() {
    let mut s = Conn::start(MODERN);
    let r = s.modern(json!(1), "server/discover", json!({}));
    assert_modern_result(&r["result"]);
    let r = s.request(
        json!(2),
        "initialize",
        Some(json!({ "capabilities": {}, "clientInfo": { "name": "legacy", "version": "1" } })),
    );
    assert!(r.get("result").is_none(), "initialize is refused: {r}");
    let r = s.request(json!(3), "initialize", None);
    assert!(r.get("result").is_none(), "initialize is refused: {r}");
    let r = s.modern(json!(4), "tools/list", json!({}));
    assert_modern_result(&r["result"]);
    s.finish();
}

// ---------------------------------------------------------------------------
// The validator itself
// ---------------------------------------------------------------------------

/// The schema check catches what it must, so a passing test means something.
#[test]
fn schema_validation_rejects_non_conforming_messages() {
    let good = json!({ "jsonrpc": "2.0", "id": 1, "result": { "tools": [], "resultType": "complete", "ttlMs": 0, "cacheScope": "public" } });
    validate_message(MODERN, &good, Some("tools/list"));
    let schema = Schema::of(MODERN);
    assert!(schema
        .check(
            "ListToolsResult",
            &json!({ "tools": [], "ttlMs": -1, "cacheScope": "public", "resultType": "complete" })
        )
        .is_err());
    assert!(
        schema
            .check("ListToolsResult", &json!({ "tools": [] }))
            .is_err(),
        "resultType, ttlMs and cacheScope are required"
    );
    assert!(schema
        .check(
            "DiscoverResult",
            &json!({ "supportedVersions": [MODERN], "capabilities": {}, "resultType": "complete" })
        )
        .is_err());
    assert!(schema
        .check(
            "UnsupportedProtocolVersionError",
            &json!({ "jsonrpc": "2.0", "id": 1, "error": { "code": -32022, "message": "x", "data": { "supported": [MODERN] } } })
        )
        .is_err());
    let legacy = Schema::of("2024-11-05");
    assert!(
        legacy
            .check(
                "CallToolResult",
                &json!({ "content": [{ "type": "text" }] })
            )
            .is_err(),
        "a text block needs text"
    );
    assert!(legacy
        .check(
            "InitializeResult",
            &json!({ "protocolVersion": "2024-11-05", "capabilities": {} })
        )
        .is_err());
    let caught = std::panic::catch_unwind(|| {
        validate_message(
            MODERN,
            &json!({ "jsonrpc": "2.0", "id": 1, "result": { "tools": [] } }),
            Some("tools/list"),
        )
    });
    assert!(
        caught.is_err(),
        "validate_message fails on a non-conforming message"
    );
}
