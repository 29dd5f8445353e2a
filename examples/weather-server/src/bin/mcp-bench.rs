//! `mcp-bench`: drives stdio MCP servers with sequential `tools/call` round
//! trips and prints calls per second, p50/p99 latency and the server's peak
//! resident memory; optionally also the time to validate the call's
//! arguments against the tool's `inputSchema` with the runtime's compiled
//! validator.
//!
//! ```text
//! mcp-bench [--calls N] [--warmup N] [--tool NAME] [--args JSON]
//!           [--manifest tools.json [--validate TOOL=JSON ...]]
//!           --server NAME=COMMAND [--server NAME=COMMAND ...]
//! ```
//!
//! With `--manifest`, the arguments of `--tool` (and of every `--validate`
//! pair) are validated against that tool's `inputSchema` in a loop, and the
//! time per validation is printed.
//!
//! Each COMMAND runs under `sh -c "exec COMMAND"` with stdin/stdout piped
//! and stderr discarded. The client side is plain blocking I/O on one
//! thread, so it adds as little as possible to the measured latency.
//!
//! `--rounds R` repeats the whole comparison R times, the servers taking
//! turns (A B C A B C ...), so that every server sees the same machine load.
//!
//! Each server's CPU time per call (all its threads, from
//! `/proc/PID/task/*/schedstat`, over the timed calls) is printed beside its
//! rate: what the server itself spends, whatever the machine's wake-ups.
//!
//! `mcp-bench --echo-server [--work-us N]` is a stdio "server" that answers
//! every request with an empty result, at once or after spinning N µs on
//! the CPU: run as one of the servers, it measures the round-trip floor
//! (pipes and process wake-ups) in the same sitting, and with `--work-us`
//! the best rate any server that spends N µs of CPU per call can reach on
//! this machine (on a VM, a client idle for more than a few µs may have its
//! vCPU halted, and waking it costs more than the server's work).
//!
//! Drive mode (used by `bench/callgrind.sh`, which runs the server
//! under callgrind and counts its instructions):
//!
//! ```text
//! mcp-bench --drive N [--era stateful|stateless] [--tool NAME] [--args JSON]
//!           [--expect result|tool-error|error] [--http ADDR] --server NAME=COMMAND
//! ```
//!
//! starts the one server, makes N sequential `tools/call`s (after
//! `initialize` in the stateful era; with the per-request `_meta` of
//! 2026-07-28 in the stateless era), checks that each is answered as
//! expected, then ends the server: closes its stdin, or with `--http ADDR`
//! (the server listening there, e.g. `weather-server --http ADDR`) POSTs
//! each call to `http://ADDR/mcp` over one keep-alive connection (with the
//! stateless headers, or in the session a POSTed `initialize` opened) and
//! sends the server SIGINT at the end. Nothing is
//! timed; it exits non-zero when a call is not answered as expected.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, ExitCode, Stdio};
use std::time::{Duration, Instant};

use mcpgen_runtime::schema::{default_draft, SchemaValidator};
use serde_json::{json, Value};

struct Options {
    calls: usize,
    warmup: usize,
    tool: String,
    args: Value,
    manifest: Option<String>,
    validate: Vec<(String, Value)>,
    servers: Vec<(String, String)>,
    rounds: usize,
    drive: Option<usize>,
    stateless: bool,
    expect: Expect,
    http: Option<String>,
}

/// What each driven call must be answered with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Expect {
    /// A result without `isError: true`.
    Result,
    /// A result with `isError: true`.
    ToolError,
    /// A JSON-RPC error.
    Error,
}

fn parse_options() -> Result<Options, String> {
    let mut o = Options {
        calls: 20_000,
        warmup: 1_000,
        tool: "get_forecast".into(),
        args: json!({ "city": "Oslo", "days": 3, "units": "metric" }),
        manifest: None,
        validate: Vec::new(),
        servers: Vec::new(),
        rounds: 1,
        drive: None,
        stateless: false,
        expect: Expect::Result,
        http: None,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut value = || it.next().ok_or_else(|| format!("{flag} needs a value"));
        match flag.as_str() {
            "--calls" => o.calls = value()?.parse().map_err(|e| format!("--calls: {e}"))?,
            "--warmup" => o.warmup = value()?.parse().map_err(|e| format!("--warmup: {e}"))?,
            "--tool" => o.tool = value()?,
            "--args" => {
                o.args = serde_json::from_str(&value()?).map_err(|e| format!("--args: {e}"))?
            }
            "--manifest" => o.manifest = Some(value()?),
            "--validate" => {
                let spec = value()?;
                let (tool, args) = spec.split_once('=').ok_or("--validate takes TOOL=JSON")?;
                let args =
                    serde_json::from_str(args).map_err(|e| format!("--validate {tool}: {e}"))?;
                o.validate.push((tool.to_owned(), args));
            }
            "--server" => {
                let spec = value()?;
                let (name, cmd) = spec.split_once('=').ok_or("--server takes NAME=COMMAND")?;
                o.servers.push((name.to_owned(), cmd.to_owned()));
            }
            "--rounds" => o.rounds = value()?.parse().map_err(|e| format!("--rounds: {e}"))?,
            "--drive" => o.drive = Some(value()?.parse().map_err(|e| format!("--drive: {e}"))?),
            "--era" => {
                o.stateless = match value()?.as_str() {
                    "stateful" => false,
                    "stateless" => true,
                    other => return Err(format!("--era takes stateful or stateless, not {other}")),
                }
            }
            "--expect" => {
                o.expect = match value()?.as_str() {
                    "result" => Expect::Result,
                    "tool-error" => Expect::ToolError,
                    "error" => Expect::Error,
                    other => {
                        return Err(format!(
                            "--expect takes result, tool-error or error, not {other}"
                        ))
                    }
                }
            }
            "--http" => o.http = Some(value()?),
            "-h" | "--help" => {
                return Err(
                    "usage: mcp-bench [--calls N] [--warmup N] [--tool NAME] [--args JSON] \
                            [--manifest FILE] --server NAME=COMMAND ..."
                        .into(),
                )
            }
            other => return Err(format!("unknown option {other}")),
        }
    }
    if o.servers.is_empty() && o.manifest.is_none() {
        return Err("nothing to do: give --server NAME=COMMAND and/or --manifest FILE".into());
    }
    if o.calls == 0 {
        return Err("--calls must be at least 1".into());
    }
    if o.drive.is_some() && o.servers.len() != 1 {
        return Err("--drive needs exactly one --server".into());
    }
    Ok(o)
}

struct Session {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    line: String,
    next_id: u64,
}

impl Session {
    fn start(command: &str) -> Result<Self, String> {
        let mut child = Command::new("sh")
            .arg("-c")
            .arg(format!("exec {command}"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .env(
                "WEATHER_LOG",
                std::env::var("WEATHER_LOG").unwrap_or_else(|_| "info".into()),
            )
            .spawn()
            .map_err(|e| format!("cannot start {command:?}: {e}"))?;
        let stdin = child.stdin.take().ok_or("no stdin")?;
        let stdout = BufReader::new(child.stdout.take().ok_or("no stdout")?);
        Ok(Self {
            child,
            stdin,
            stdout,
            line: String::new(),
            next_id: 0,
        })
    }

    fn send(&mut self, message: &Value) -> Result<(), String> {
        let mut text = message.to_string();
        text.push('\n');
        self.stdin
            .write_all(text.as_bytes())
            .map_err(|e| format!("write: {e}"))?;
        self.stdin.flush().map_err(|e| format!("flush: {e}"))
    }

    /// Sends a request and reads lines until its response.
    fn request(&mut self, method: &str, params: Value) -> Result<Value, String> {
        self.next_id += 1;
        let id = self.next_id;
        self.send(&json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params }))?;
        loop {
            self.line.clear();
            let n = self
                .stdout
                .read_line(&mut self.line)
                .map_err(|e| format!("read: {e}"))?;
            if n == 0 {
                return Err("the server closed its output".into());
            }
            let message: Value = serde_json::from_str(&self.line)
                .map_err(|e| format!("bad JSON from server: {e}"))?;
            if message.get("id") == Some(&json!(id)) {
                return Ok(message);
            }
        }
    }

    /// A `tools/call` round trip without building or parsing JSON values on
    /// the client side (it would add to the measured latency): the request
    /// is formatted from pre-serialized params, and the response is the
    /// first line carrying this id; `Ok(true)` when it has a `result`.
    fn call_fast(&mut self, params: &str) -> Result<bool, String> {
        self.next_id += 1;
        let id = self.next_id;
        let text = format!(
            "{{\"jsonrpc\":\"2.0\",\"id\":{id},\"method\":\"tools/call\",\"params\":{params}}}\n"
        );
        self.stdin
            .write_all(text.as_bytes())
            .map_err(|e| format!("write: {e}"))?;
        self.stdin.flush().map_err(|e| format!("flush: {e}"))?;
        let needle = format!("\"id\":{id}");
        loop {
            self.line.clear();
            let n = self
                .stdout
                .read_line(&mut self.line)
                .map_err(|e| format!("read: {e}"))?;
            if n == 0 {
                return Err("the server closed its output".into());
            }
            if has_id(&self.line, &needle) {
                return Ok(self.line.contains("\"result\""));
            }
        }
    }

    /// CPU time the server has run so far, in ns: the sum over its threads
    /// (the first field of each `/proc/PID/task/TID/schedstat`).
    fn cpu_ns(&self) -> Option<u64> {
        let mut total = 0;
        for task in std::fs::read_dir(format!("/proc/{}/task", self.child.id())).ok()? {
            let stat = std::fs::read_to_string(task.ok()?.path().join("schedstat")).ok()?;
            total += stat.split_whitespace().next()?.parse::<u64>().ok()?;
        }
        Some(total)
    }

    /// Peak resident set size of the server process, in KiB.
    fn peak_rss_kib(&self) -> Option<u64> {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id())).ok()?;
        let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
        line.split_whitespace().nth(1)?.parse().ok()
    }

    fn finish(mut self) {
        drop(self.stdin);
        let _ = self.child.wait();
    }

    /// One `tools/call` whose raw response line is kept in `self.line`.
    fn call_raw(&mut self, params: &str) -> Result<(), String> {
        self.call_fast(params).map(drop)
    }
}

/// The `_meta` every stateless (2026-07-28) request carries.
fn stateless_meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {}
    })
}

/// Whether a response (its JSON text) is what `expect` asks for.
fn answered_as(text: &str, expect: Expect) -> Result<(), String> {
    let message: Value = serde_json::from_str(text.trim())
        .map_err(|e| format!("bad JSON from server ({e}): {text}"))?;
    let got = match (message.get("result"), message.get("error")) {
        (Some(r), None) if r.get("isError") == Some(&json!(true)) => Expect::ToolError,
        (Some(_), None) => Expect::Result,
        (None, Some(_)) => Expect::Error,
        _ => return Err(format!("not a response: {text}")),
    };
    if got == expect {
        Ok(())
    } else {
        Err(format!("expected {expect:?}, got {got:?}: {}", text.trim()))
    }
}

/// A minimal blocking HTTP/1.1 client on one keep-alive connection.
struct HttpClient {
    addr: String,
    stream: BufReader<std::net::TcpStream>,
    /// The stateful era's session, once `initialize` opened one.
    session: Option<String>,
}

impl HttpClient {
    /// Connects to `addr`, retrying while the server starts (slowly, under
    /// callgrind).
    fn connect(addr: &str, child: &mut Child) -> Result<Self, String> {
        let deadline = Instant::now() + Duration::from_secs(120);
        loop {
            match std::net::TcpStream::connect(addr) {
                Ok(stream) => {
                    stream
                        .set_nodelay(true)
                        .map_err(|e| format!("nodelay: {e}"))?;
                    return Ok(Self {
                        addr: addr.to_owned(),
                        stream: BufReader::new(stream),
                        session: None,
                    });
                }
                Err(e) if Instant::now() > deadline => {
                    return Err(format!("cannot connect to {addr}: {e}"))
                }
                Err(_) => {
                    if let Ok(Some(status)) = child.try_wait() {
                        return Err(format!("the server exited before listening ({status})"));
                    }
                    std::thread::sleep(Duration::from_millis(50));
                }
            }
        }
    }

    /// Opens a stateful (2025-11-25) session: `initialize`, then
    /// `notifications/initialized`, both POSTed.
    fn initialize(&mut self) -> Result<(), String> {
        let init = json!({ "jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": { "name": "mcp-bench", "version": "1" } } });
        let answer = self.post("initialize", None, &init.to_string())?;
        if self.session.is_none() || !answer.contains("\"result\"") {
            return Err(format!("initialize opened no session: {answer}"));
        }
        self.post(
            "notifications/initialized",
            None,
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        )?;
        Ok(())
    }

    /// POSTs one `tools/call` to `/mcp`; the response body.
    fn post_call(&mut self, tool: &str, body: &str) -> Result<String, String> {
        self.post("tools/call", Some(tool), body)
    }

    /// POSTs one message to `/mcp` with the era's headers (in a session:
    /// its id and revision; else 2026-07-28's mirrored method and name);
    /// the response body (the message of an SSE answer).
    fn post(&mut self, method: &str, name: Option<&str>, body: &str) -> Result<String, String> {
        let era = match (&self.session, name) {
            (Some(id), _) => {
                format!("Mcp-Session-Id: {id}\r\nMCP-Protocol-Version: 2025-11-25\r\n")
            }
            (None, _) if method == "initialize" => String::new(),
            (None, Some(name)) => format!(
                "MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: {method}\r\nMcp-Name: {name}\r\n"
            ),
            (None, None) => format!("MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: {method}\r\n"),
        };
        // `MCP_BENCH_BEARER`: every request carries this access token (the
        // server's bearer gate, bench/callgrind.sh).
        let era = match std::env::var("MCP_BENCH_BEARER") {
            Ok(token) if !token.is_empty() => format!("{era}Authorization: Bearer {token}\r\n"),
            _ => era,
        };
        let head = format!(
            "POST /mcp HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\n\
             Accept: application/json, text/event-stream\r\n{era}Content-Length: {}\r\n\r\n",
            self.addr,
            body.len()
        );
        let stream = self.stream.get_mut();
        stream
            .write_all(head.as_bytes())
            .and_then(|()| stream.write_all(body.as_bytes()))
            .map_err(|e| format!("write: {e}"))?;
        let mut line = String::new();
        let mut length = None;
        let mut chunked = false;
        let mut first = true;
        loop {
            line.clear();
            if self
                .stream
                .read_line(&mut line)
                .map_err(|e| format!("read: {e}"))?
                == 0
            {
                return Err("the server closed the connection".into());
            }
            let header = line.trim_end();
            if first {
                first = false;
                continue; // the status line; the body says what happened
            }
            if header.is_empty() {
                break;
            }
            let (name, value) = header.split_once(':').unwrap_or((header, ""));
            if name.eq_ignore_ascii_case("content-length") {
                length = value.trim().parse::<usize>().ok();
            } else if name.eq_ignore_ascii_case("transfer-encoding")
                && value.to_ascii_lowercase().contains("chunked")
            {
                chunked = true;
            } else if name.eq_ignore_ascii_case("mcp-session-id") {
                self.session = Some(value.trim().to_owned());
            }
        }
        let mut body = Vec::new();
        if chunked {
            loop {
                line.clear();
                self.stream
                    .read_line(&mut line)
                    .map_err(|e| format!("read: {e}"))?;
                let size = usize::from_str_radix(line.trim().split(';').next().unwrap_or(""), 16)
                    .map_err(|e| format!("bad chunk size {line:?}: {e}"))?;
                let mut chunk = vec![0; size + 2];
                std::io::Read::read_exact(&mut self.stream, &mut chunk)
                    .map_err(|e| format!("read: {e}"))?;
                if size == 0 {
                    break;
                }
                body.extend_from_slice(&chunk[..size]);
            }
        } else {
            let length = length.ok_or("a response without Content-Length or chunks")?;
            body.resize(length, 0);
            std::io::Read::read_exact(&mut self.stream, &mut body)
                .map_err(|e| format!("read: {e}"))?;
        }
        let text = String::from_utf8(body).map_err(|e| format!("body not UTF-8: {e}"))?;
        // An SSE answer: the data line holds the message.
        Ok(match text.lines().find_map(|l| l.strip_prefix("data:")) {
            Some(data)
                if text.starts_with("event:")
                    || text.starts_with("data:")
                    || text.starts_with(':') =>
            {
                data.trim().to_owned()
            }
            _ => text,
        })
    }
}

/// Drive mode: N sequential calls, checked, nothing timed.
fn drive(o: &Options, calls: usize) -> Result<(), String> {
    let (name, command) = &o.servers[0];
    let mut params = json!({ "name": o.tool, "arguments": o.args });
    if o.stateless {
        params["_meta"] = stateless_meta();
    }
    if let Some(addr) = &o.http {
        let mut child = Command::new("sh")
            .arg("-c")
            .arg(format!("exec {command}"))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("cannot start {command:?}: {e}"))?;
        let result = (|| {
            let mut client = HttpClient::connect(addr, &mut child)?;
            if !o.stateless {
                client.initialize().map_err(|e| format!("{name}: {e}"))?;
            }
            for i in 0..calls {
                let body = format!("{{\"jsonrpc\":\"2.0\",\"id\":{},\"method\":\"tools/call\",\"params\":{params}}}", i + 1);
                let text = client.post_call(&o.tool, &body)?;
                answered_as(&text, o.expect).map_err(|e| format!("{name}: call {}: {e}", i + 1))?;
            }
            Ok(())
        })();
        // SIGINT: the server shuts down gracefully (and callgrind writes its counts).
        let _ = Command::new("kill")
            .arg("-INT")
            .arg(child.id().to_string())
            .status();
        let _ = child.wait();
        return result;
    }
    let mut s = Session::start(command)?;
    if !o.stateless {
        let init = s.request(
            "initialize",
            json!({ "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": { "name": "mcp-bench", "version": "1" } }),
        )?;
        if init.get("result").is_none() {
            return Err(format!("{name}: initialize failed: {init}"));
        }
        s.send(&json!({ "jsonrpc": "2.0", "method": "notifications/initialized" }))?;
    }
    let params = params.to_string();
    for i in 0..calls {
        s.call_raw(&params)?;
        answered_as(&s.line, o.expect).map_err(|e| format!("{name}: call {}: {e}", i + 1))?;
    }
    s.finish();
    Ok(())
}

/// Whether `line` has `"id":N` for exactly this N (not a longer number).
fn has_id(line: &str, needle: &str) -> bool {
    line.match_indices(needle)
        .any(|(at, _)| !line[at + needle.len()..].starts_with(|c: char| c.is_ascii_digit()))
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let rank = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

fn micros(d: Duration) -> f64 {
    d.as_secs_f64() * 1e6
}

/// One server's figures in one round.
struct Figures {
    calls_per_s: f64,
    p50_us: f64,
    p99_us: f64,
    peak_rss_kib: Option<u64>,
    /// Server CPU per timed call, in µs (threads that ended are not counted).
    cpu_us: Option<f64>,
}

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

/// Per server across rounds: median calls/s, p50 and p99, the largest
/// peak RSS, and throughput relative to the first server.
fn summarize(servers: &[(String, String)], results: &[Vec<Figures>]) {
    println!(
        "summary over {} rounds (medians; peak RSS: largest)",
        results.first().map_or(0, Vec::len)
    );
    let base = results
        .first()
        .filter(|r| !r.is_empty())
        .map(|r| median(r.iter().map(|f| f.calls_per_s).collect()));
    for ((name, _), figures) in servers.iter().zip(results) {
        if figures.is_empty() {
            continue;
        }
        let rate = median(figures.iter().map(|f| f.calls_per_s).collect());
        let rss = figures
            .iter()
            .filter_map(|f| f.peak_rss_kib)
            .max()
            .map_or("n/a".to_owned(), |k| {
                format!("{:.1} MiB", k as f64 / 1024.0)
            });
        let ratio = base.map_or(String::new(), |b| format!("  first/this={:.2}x", b / rate));
        let cpu: Vec<f64> = figures.iter().filter_map(|f| f.cpu_us).collect();
        let cpu = if cpu.is_empty() {
            "n/a".to_owned()
        } else {
            format!("{:.1}µs", median(cpu))
        };
        println!(
            "{name:<16} calls/s={rate:<9.0} p50={:.1}µs p99={:.1}µs cpu/call={cpu:<7} peak_rss={rss}{ratio}",
            median(figures.iter().map(|f| f.p50_us).collect()),
            median(figures.iter().map(|f| f.p99_us).collect()),
        );
    }
}

fn bench_server(name: &str, command: &str, o: &Options) -> Result<Figures, String> {
    let mut s = Session::start(command)?;
    let init = s.request(
        "initialize",
        json!({ "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": { "name": "mcp-bench", "version": "1" } }),
    )?;
    if init.get("result").is_none() {
        return Err(format!("{name}: initialize failed: {init}"));
    }
    s.send(&json!({ "jsonrpc": "2.0", "method": "notifications/initialized" }))?;
    let params = json!({ "name": o.tool, "arguments": o.args });
    let check = s.request("tools/call", params.clone())?;
    if check.get("result").is_none() || check["result"].get("isError") == Some(&json!(true)) {
        return Err(format!(
            "{name}: the benchmark call does not succeed: {check}"
        ));
    }
    let params = params.to_string();
    for _ in 0..o.warmup {
        s.call_fast(&params)?;
    }
    let mut samples = Vec::with_capacity(o.calls);
    let cpu_before = s.cpu_ns();
    let started = Instant::now();
    for _ in 0..o.calls {
        let t = Instant::now();
        let ok = s.call_fast(&params)?;
        samples.push(t.elapsed());
        if !ok {
            return Err(format!("{name}: call failed: {}", s.line.trim_end()));
        }
    }
    let total = started.elapsed();
    let cpu_us = cpu_before
        .zip(s.cpu_ns())
        .map(|(a, b)| b.saturating_sub(a) as f64 / 1e3 / o.calls as f64);
    let rss = s.peak_rss_kib();
    s.finish();
    samples.sort_unstable();
    let figures = Figures {
        calls_per_s: o.calls as f64 / total.as_secs_f64(),
        p50_us: micros(percentile(&samples, 50.0)),
        p99_us: micros(percentile(&samples, 99.0)),
        peak_rss_kib: rss,
        cpu_us,
    };
    let rss = rss.map_or("n/a".to_owned(), |k| {
        format!("{:.1} MiB", k as f64 / 1024.0)
    });
    let cpu = cpu_us.map_or("n/a".to_owned(), |c| format!("{c:.1}µs"));
    println!(
        "{name:<16} calls={:<7} calls/s={:<9.0} p50={:.1}µs p99={:.1}µs max={:.1}µs cpu/call={cpu:<7} peak_rss={rss}",
        o.calls,
        figures.calls_per_s,
        figures.p50_us,
        figures.p99_us,
        micros(samples[samples.len() - 1]),
    );
    Ok(figures)
}

fn bench_validation(manifest: &str, o: &Options) -> Result<(), String> {
    let text = std::fs::read_to_string(manifest).map_err(|e| format!("{manifest}: {e}"))?;
    let doc: Value = serde_json::from_str(&text).map_err(|e| format!("{manifest}: {e}"))?;
    let tools = doc
        .get("tools")
        .and_then(Value::as_array)
        .ok_or(format!("{manifest}: no tools array"))?;
    let mut cases = vec![(o.tool.clone(), o.args.clone())];
    cases.extend(o.validate.iter().cloned());
    for (name, args) in cases {
        let schema = tools
            .iter()
            .find(|t| t.get("name").and_then(Value::as_str) == Some(name.as_str()))
            .and_then(|t| t.get("inputSchema"))
            .ok_or(format!("{manifest}: no tool {name} with an inputSchema"))?;
        let v = SchemaValidator::compile(schema, default_draft("2025-11-25"))
            .map_err(|e| format!("{name}: {e}"))?;
        let valid = v.validate(&args).is_ok();
        let iterations = o.calls.max(10_000);
        for _ in 0..1_000 {
            std::hint::black_box(v.validate(std::hint::black_box(&args)).is_ok());
        }
        let started = Instant::now();
        for _ in 0..iterations {
            std::hint::black_box(v.validate(std::hint::black_box(&args)).is_ok());
        }
        let per_call = started.elapsed().as_secs_f64() * 1e6 / iterations as f64;
        let kind = if valid {
            "valid arguments"
        } else {
            "invalid arguments, every error collected"
        };
        println!("validation       tool={name:<20} {per_call:.2}µs per call ({kind}, {iterations} iterations)");
    }
    Ok(())
}

/// `mcp-bench --echo-server [--work-us N]`: the floor of a round trip over
/// stdio. A blocking loop that answers every request line with an empty
/// result under its id (found by a plain text search, no JSON parsing):
/// what the pipes and process wake-ups cost with no server work at all, or
/// with `work` spent spinning on the CPU before each answer.
fn echo_server(work: Duration) -> ExitCode {
    use std::io::BufRead;
    let stdin = std::io::stdin();
    let mut out = std::io::stdout().lock();
    let mut reply = String::new();
    for line in stdin.lock().lines() {
        let Ok(line) = line else { break };
        let Some(at) = line.find("\"id\":") else {
            continue;
        }; // a notification
        let rest = &line[at + 5..];
        let end = rest.find([',', '}']).unwrap_or(rest.len());
        let started = Instant::now();
        while started.elapsed() < work {
            std::hint::spin_loop();
        }
        reply.clear();
        reply.push_str("{\"jsonrpc\":\"2.0\",\"id\":");
        reply.push_str(rest[..end].trim());
        reply.push_str(",\"result\":{\"content\":[]}}\n");
        if out
            .write_all(reply.as_bytes())
            .and_then(|()| out.flush())
            .is_err()
        {
            break;
        }
    }
    ExitCode::SUCCESS
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("--echo-server") {
        let work = match &args[1..] {
            [] => 0,
            [flag, us] if flag == "--work-us" => match us.parse() {
                Ok(us) => us,
                Err(e) => {
                    eprintln!("mcp-bench: --work-us: {e}");
                    return ExitCode::from(2);
                }
            },
            _ => {
                eprintln!("mcp-bench: usage: mcp-bench --echo-server [--work-us N]");
                return ExitCode::from(2);
            }
        };
        return echo_server(Duration::from_micros(work));
    }
    let o = match parse_options() {
        Ok(o) => o,
        Err(e) => {
            eprintln!("mcp-bench: {e}");
            return ExitCode::from(2);
        }
    };
    if let Some(calls) = o.drive {
        return match drive(&o, calls) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("mcp-bench: {e}");
                ExitCode::FAILURE
            }
        };
    }
    let mut ok = true;
    let mut results: Vec<Vec<Figures>> = o.servers.iter().map(|_| Vec::new()).collect();
    for round in 1..=o.rounds {
        if o.rounds > 1 {
            println!("round {round} of {}", o.rounds);
        }
        for ((name, command), figures) in o.servers.iter().zip(&mut results) {
            match bench_server(name, command, &o) {
                Ok(f) => figures.push(f),
                Err(e) => {
                    eprintln!("mcp-bench: {name}: {e}");
                    ok = false;
                }
            }
        }
    }
    if o.rounds > 1 && !o.servers.is_empty() {
        summarize(&o.servers, &results);
    }
    if let Some(manifest) = &o.manifest {
        if let Err(e) = bench_validation(manifest, &o) {
            eprintln!("mcp-bench: {e}");
            ok = false;
        }
    }
    if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
