//! `http-load`: a closed-loop load driver for MCP servers over Streamable
//! HTTP (HTTP/1.1 keep-alive, one TCP connection per client, one request
//! in flight per client), comparing several servers in one sitting.
//!
//! Every server under test is started by the driver itself on a free
//! loopback port, stays up for the whole run, and is measured interleaved
//! with the others: for each round, for each client count, each server in
//! turn (A B C A B C …). After the last round the driver reads each
//! server's peak RSS (`VmHWM` in /proc/PID/status), stops it, and prints
//! the medians over rounds as a markdown table plus the requested ratios.
//!
//! ```text
//! http-load --clients 1,16,64 --rounds 3 --warmup 1 --secs 3 \
//!   --server 'A|stateless|target/release/weather-server --http {addr}' \
//!   --server 'B|stateful|env WORKERS=2 bench/http/target/release/rmcp-weather --http {addr}' \
//!   --server 'C|echo|target/release/echo-floor --http {addr}' \
//!   --ratio A/B --ratio A/C
//! ```
//!
//! `--server 'NAME|MODE|COMMAND'`: COMMAND is split on whitespace (no
//! quoting), `{addr}` becomes `127.0.0.1:PORT`; leading `VAR=value` words
//! set environment variables. The server's stdout and stderr go to
//! /dev/null (so an audit log costs its write, never a full pipe). The
//! endpoint is `http://{addr}/mcp`. MODE is what each client does:
//!
//! - `stateless`: the 2026-07-28 era. Every POST is a `tools/call` whose
//!   `params._meta` carries `io.modelcontextprotocol/protocolVersion`
//!   (`2026-07-28`) and `io.modelcontextprotocol/clientCapabilities` (`{}`),
//!   with the headers `MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`.
//! - `stateful`: the 2025-11-25 era. The client first sends `initialize`
//!   and `notifications/initialized` on its connection, then `tools/call`s
//!   with the `Mcp-Session-Id` it was given and `MCP-Protocol-Version:
//!   2025-11-25`; it ends with `DELETE` of its session. Answers may be JSON
//!   or SSE (`text/event-stream`, chunked); both are read to their end.
//! - `echo`: the stateless request, to a server that is not MCP (the floor).
//!
//! Every answer is checked: HTTP 200, and a JSON-RPC `result` (for MCP
//! servers, one with `structuredContent` and without `"isError":true`).
//! Before the run, one call per MCP server is parsed in full and the
//! `content` and `structuredContent` of the results are compared.
//!
//! A measurement: all clients connect (and initialize), then run for
//! `--warmup` seconds unrecorded and `--secs` seconds recorded. Requests/s is
//! the count of requests started in the recorded window over the time from
//! the window's start to the last of them finishing; p50/p99 are over their
//! latencies. "CPU/req" is the server's CPU time (sum of its threads'
//! /proc/PID/task/*/schedstat) during the recorded window per request ("of
//! which kernel": its `stime` in /proc/PID/stat, 10 ms ticks), and
//! the driver's own likewise; "machine busy" is the share of all CPUs busy
//! in that window (/proc/stat), with the CPUs' worth of it that neither the
//! server nor the driver used ("others": anything else on a shared
//! machine). `--settle SECS` first waits up to SECS for a quiet machine.
//! `--max-foreign CPUS` marks a sample "not clean" when others used more
//! than CPUS in its window; rounds then go on (up to `--max-rounds`) until
//! every server and client count has `--rounds` clean samples, and the
//! medians are over the clean ones (over all where none is clean).
//! Loops are bounded by the deadlines and by `--max-requests` per client.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io;
use std::net::SocketAddr;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

const STATELESS_VERSION: &str = "2026-07-28";
const STATEFUL_VERSION: &str = "2025-11-25";
/// Longest a single request may take before the measurement counts an error.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(10);
/// Largest response the driver accepts (headers plus body).
const MAX_RESPONSE: usize = 1 << 20;

// ---------------------------------------------------------------------------
// Command line

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    Stateless,
    Stateful,
    Echo,
}

impl Mode {
    fn parse(s: &str) -> Result<Self, String> {
        match s {
            "stateless" => Ok(Mode::Stateless),
            "stateful" => Ok(Mode::Stateful),
            "echo" => Ok(Mode::Echo),
            other => Err(format!("unknown mode {other:?}: stateless, stateful or echo")),
        }
    }
    fn label(self) -> &'static str {
        match self {
            Mode::Stateless => "stateless 2026-07-28",
            Mode::Stateful => "stateful 2025-11-25",
            Mode::Echo => "echo",
        }
    }
}

#[derive(Debug, Clone)]
struct ServerSpec {
    name: String,
    mode: Mode,
    command: String,
}

#[derive(Debug)]
struct Options {
    servers: Vec<ServerSpec>,
    clients: Vec<usize>,
    rounds: usize,
    warmup: Duration,
    secs: Duration,
    driver_threads: usize,
    max_requests: u64,
    ratios: Vec<(String, String)>,
    city: String,
    per_round: bool,
    settle: Duration,
    max_foreign: Option<f64>,
    max_rounds: usize,
}

const USAGE: &str = "usage: http-load --server 'NAME|stateless|stateful|echo|COMMAND {addr}' ... \
[--clients 1,16,64] [--rounds 3] [--warmup SECS] [--secs SECS] [--driver-threads N] \
[--max-requests N] [--ratio NAME/NAME] ... [--city Oslo] [--per-round] [--settle SECS] [--max-foreign CPUS [--max-rounds N]]";

fn parse_options() -> Result<Options, String> {
    let mut o = Options {
        servers: Vec::new(),
        clients: vec![1, 16, 64],
        rounds: 3,
        warmup: Duration::from_secs(1),
        secs: Duration::from_secs(3),
        driver_threads: 1,
        max_requests: 5_000_000,
        ratios: Vec::new(),
        city: "Oslo".into(),
        per_round: false,
        settle: Duration::ZERO,
        max_foreign: None,
        max_rounds: 0,
    };
    let mut args = std::env::args().skip(1);
    let secs = |v: String| -> Result<Duration, String> {
        let s: f64 = v.parse().map_err(|_| format!("not a number of seconds: {v}"))?;
        if !(s > 0.0 && s <= 600.0) {
            return Err(format!("seconds out of range (0, 600]: {v}"));
        }
        Ok(Duration::from_secs_f64(s))
    };
    while let Some(arg) = args.next() {
        let mut value = || args.next().ok_or_else(|| format!("{arg} needs a value"));
        match arg.as_str() {
            "--server" => {
                let v = value()?;
                let mut parts = v.splitn(3, '|');
                let (Some(name), Some(mode), Some(command)) = (parts.next(), parts.next(), parts.next()) else {
                    return Err(format!("--server wants NAME|MODE|COMMAND, got {v:?}"));
                };
                if !command.contains("{addr}") {
                    return Err(format!("--server {name}: the command must contain {{addr}}"));
                }
                o.servers.push(ServerSpec { name: name.into(), mode: Mode::parse(mode)?, command: command.into() });
            }
            "--clients" => {
                o.clients = value()?
                    .split(',')
                    .map(|c| c.trim().parse::<usize>().ok().filter(|&n| (1..=1024).contains(&n)))
                    .collect::<Option<Vec<_>>>()
                    .ok_or("--clients wants a list of counts 1..=1024, e.g. 1,16,64")?;
            }
            "--rounds" => {
                o.rounds = value()?.parse().ok().filter(|&n| (1..=100).contains(&n)).ok_or("--rounds wants 1..=100")?
            }
            "--warmup" => o.warmup = secs(value()?)?,
            "--secs" => o.secs = secs(value()?)?,
            "--driver-threads" => {
                o.driver_threads =
                    value()?.parse().ok().filter(|&n| (1..=64).contains(&n)).ok_or("--driver-threads wants 1..=64")?
            }
            "--max-requests" => {
                o.max_requests = value()?.parse().ok().filter(|&n| n > 0).ok_or("--max-requests wants a positive count")?
            }
            "--ratio" => {
                let v = value()?;
                let (a, b) = v.split_once('/').ok_or_else(|| format!("--ratio wants NAME/NAME, got {v:?}"))?;
                o.ratios.push((a.into(), b.into()));
            }
            "--city" => o.city = value()?,
            "--per-round" => o.per_round = true,
            "--settle" => o.settle = secs(value()?)?,
            "--max-foreign" => {
                o.max_foreign = Some(
                    value()?.parse().ok().filter(|&c: &f64| c >= 0.0).ok_or("--max-foreign wants a number of CPUs")?,
                )
            }
            "--max-rounds" => {
                o.max_rounds =
                    value()?.parse().ok().filter(|&n| (1..=100).contains(&n)).ok_or("--max-rounds wants 1..=100")?
            }
            "-h" | "--help" => return Err(USAGE.into()),
            other => return Err(format!("unknown argument {other:?}\n{USAGE}")),
        }
    }
    if o.servers.is_empty() {
        return Err(format!("no --server given\n{USAGE}"));
    }
    o.max_rounds = if o.max_foreign.is_some() { o.max_rounds.max(o.rounds) } else { o.rounds };
    for (a, b) in &o.ratios {
        for n in [a, b] {
            if !o.servers.iter().any(|s| &s.name == n) {
                return Err(format!("--ratio names {n:?}, which is no --server"));
            }
        }
    }
    Ok(o)
}

// ---------------------------------------------------------------------------
// Server processes

struct Running {
    spec: ServerSpec,
    addr: SocketAddr,
    child: Child,
}

fn free_port() -> io::Result<SocketAddr> {
    let probe = std::net::TcpListener::bind("127.0.0.1:0")?;
    probe.local_addr()
}

fn start(spec: &ServerSpec) -> Result<Running, String> {
    let addr = free_port().map_err(|e| format!("no free port: {e}"))?;
    let command = spec.command.replace("{addr}", &addr.to_string());
    let mut words = command.split_whitespace();
    let mut env = Vec::new();
    let program = loop {
        match words.next() {
            Some("env") => continue,
            Some(w) if w.contains('=') && !w.starts_with('=') && !w.contains('/') => {
                let (k, v) = w.split_once('=').unwrap_or((w, ""));
                env.push((k.to_string(), v.to_string()));
            }
            Some(w) => break w.to_string(),
            None => return Err(format!("{}: empty command", spec.name)),
        }
    };
    let mut cmd = Command::new(&program);
    cmd.args(words).envs(env).stdin(Stdio::null()).stdout(Stdio::null()).stderr(Stdio::null());
    let mut child = cmd.spawn().map_err(|e| format!("{}: cannot start {program}: {e}", spec.name))?;
    // Ready when it accepts a connection (bounded: 30 s).
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        if std::net::TcpStream::connect_timeout(&addr, Duration::from_millis(200)).is_ok() {
            break;
        }
        if let Ok(Some(status)) = child.try_wait() {
            return Err(format!("{}: `{command}` exited ({status}) before listening; run it by hand to see why", spec.name));
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            return Err(format!("{}: `{command}` does not accept connections on {addr} after 30 s", spec.name));
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    Ok(Running { spec: spec.clone(), addr, child })
}

/// A `kB` field of /proc/PID/status, in KiB.
fn status_kib(pid: u32, field: &str) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with(field))?;
    line[field.len()..].trim_start_matches(':').split_whitespace().next()?.parse().ok()
}

/// CPU time the process's threads have run, in nanoseconds (schedstat).
fn cpu_ns(pid: u32) -> Option<u64> {
    let mut total = 0u64;
    for task in std::fs::read_dir(format!("/proc/{pid}/task")).ok()? {
        let path = task.ok()?.path().join("schedstat");
        if let Ok(text) = std::fs::read_to_string(path) {
            total += text.split_whitespace().next().and_then(|n| n.parse::<u64>().ok()).unwrap_or(0);
        }
    }
    Some(total)
}

/// The process's CPU time in the kernel (`stime` of /proc/PID/stat, all
/// its threads), in clock ticks (1/100 s on Linux).
fn sys_ticks(pid: u32) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // Fields after the command name (which may hold spaces): state is the
    // first, stime the thirteenth.
    stat.rsplit_once(')')?.1.split_whitespace().nth(12)?.parse().ok()
}

/// Machine-wide (busy, total) jiffies from the first line of /proc/stat.
fn machine_jiffies() -> Option<(u64, u64)> {
    let stat = std::fs::read_to_string("/proc/stat").ok()?;
    let fields: Vec<u64> =
        stat.lines().next()?.split_whitespace().skip(1).take(8).filter_map(|f| f.parse().ok()).collect();
    if fields.len() < 5 {
        return None;
    }
    let total: u64 = fields.iter().sum();
    let idle = fields[3] + fields[4];
    Some((total - idle, total))
}

fn cpu_count() -> usize {
    std::fs::read_to_string("/proc/stat")
        .map(|s| s.lines().filter(|l| l.starts_with("cpu") && l.as_bytes().get(3).is_some_and(u8::is_ascii_digit)).count())
        .unwrap_or(1)
        .max(1)
}

fn loadavg() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|l| l.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "?".into())
}

// ---------------------------------------------------------------------------
// A minimal HTTP/1.1 client: one connection, one request at a time.

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Json,
    Sse,
    Other,
}

struct Response {
    status: u16,
    kind: Kind,
    session: Option<String>,
    close: bool,
}

struct Conn {
    stream: TcpStream,
    /// Bytes read and not yet consumed.
    buf: Vec<u8>,
    /// The last response's body (chunked bodies decoded).
    body: Vec<u8>,
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    if needle.is_empty() || haystack.len() < needle.len() {
        return None;
    }
    let first = needle[0];
    let last_start = haystack.len() - needle.len();
    let mut i = 0;
    while i <= last_start {
        match haystack[i..=last_start].iter().position(|&b| b == first) {
            None => return None,
            Some(p) => {
                i += p;
                if &haystack[i..i + needle.len()] == needle {
                    return Some(i);
                }
                i += 1;
            }
        }
    }
    None
}

fn invalid(msg: impl Into<String>) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, msg.into())
}

impl Conn {
    async fn open(addr: SocketAddr) -> io::Result<Self> {
        let stream = TcpStream::connect(addr).await?;
        stream.set_nodelay(true)?;
        Ok(Self { stream, buf: Vec::with_capacity(8192), body: Vec::with_capacity(4096) })
    }

    /// Reads more bytes into `buf`; an error at end of stream.
    async fn fill(&mut self) -> io::Result<()> {
        if self.buf.len() > MAX_RESPONSE {
            return Err(invalid("response too large"));
        }
        let start = self.buf.len();
        self.buf.resize(start + 8192, 0);
        let n = self.stream.read(&mut self.buf[start..]).await;
        let n = match n {
            Ok(n) => n,
            Err(e) => {
                self.buf.truncate(start);
                return Err(e);
            }
        };
        self.buf.truncate(start + n);
        if n == 0 {
            return Err(io::Error::new(io::ErrorKind::UnexpectedEof, "server closed the connection"));
        }
        Ok(())
    }

    /// Sends `request` (complete, with headers and body) and reads the whole
    /// response; its body is left in `self.body`.
    async fn exchange(&mut self, request: &[u8]) -> io::Result<Response> {
        self.stream.write_all(request).await?;
        // Head.
        let mut scanned = 0;
        let head_end = loop {
            if let Some(p) = find(&self.buf[scanned..], b"\r\n\r\n") {
                break scanned + p + 4;
            }
            scanned = self.buf.len().saturating_sub(3);
            self.fill().await?;
        };
        let head = std::str::from_utf8(&self.buf[..head_end]).map_err(|_| invalid("response head is not UTF-8"))?;
        let mut lines = head.split("\r\n");
        let status_line = lines.next().unwrap_or("");
        let status: u16 = status_line
            .split(' ')
            .nth(1)
            .and_then(|s| s.parse().ok())
            .ok_or_else(|| invalid(format!("bad status line {status_line:?}")))?;
        let mut length = None;
        let mut chunked = false;
        let mut kind = Kind::Other;
        let mut session = None;
        let mut close = false;
        for line in lines {
            let Some((name, value)) = line.split_once(':') else { continue };
            let value = value.trim();
            if name.eq_ignore_ascii_case("content-length") {
                length = Some(value.parse::<usize>().map_err(|_| invalid("bad content-length"))?);
            } else if name.eq_ignore_ascii_case("transfer-encoding") {
                chunked = value.to_ascii_lowercase().contains("chunked");
            } else if name.eq_ignore_ascii_case("content-type") {
                let essence = value.split(';').next().unwrap_or("").trim();
                kind = if essence.eq_ignore_ascii_case("application/json") {
                    Kind::Json
                } else if essence.eq_ignore_ascii_case("text/event-stream") {
                    Kind::Sse
                } else {
                    Kind::Other
                };
            } else if name.eq_ignore_ascii_case("mcp-session-id") {
                session = Some(value.to_string());
            } else if name.eq_ignore_ascii_case("connection") {
                close = value.eq_ignore_ascii_case("close");
            }
        }
        self.buf.drain(..head_end);
        self.body.clear();
        if chunked {
            self.read_chunked().await?;
        } else if let Some(length) = length {
            if length > MAX_RESPONSE {
                return Err(invalid("response too large"));
            }
            while self.buf.len() < length {
                self.fill().await?;
            }
            self.body.extend_from_slice(&self.buf[..length]);
            self.buf.drain(..length);
        } else if status != 204 && status != 304 && !(100..200).contains(&status) {
            // Body until the connection ends.
            loop {
                match self.fill().await {
                    Ok(()) => {}
                    Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => break,
                    Err(e) => return Err(e),
                }
            }
            self.body.append(&mut self.buf);
            close = true;
        }
        Ok(Response { status, kind, session, close })
    }

    async fn read_chunked(&mut self) -> io::Result<()> {
        loop {
            let line_end = loop {
                if let Some(p) = find(&self.buf, b"\r\n") {
                    break p;
                }
                self.fill().await?;
            };
            let size_text = std::str::from_utf8(&self.buf[..line_end]).map_err(|_| invalid("bad chunk size"))?;
            let size_text = size_text.split(';').next().unwrap_or("").trim();
            let size = usize::from_str_radix(size_text, 16).map_err(|_| invalid(format!("bad chunk size {size_text:?}")))?;
            self.buf.drain(..line_end + 2);
            if size == 0 {
                // Trailers, up to an empty line.
                loop {
                    let end = loop {
                        if let Some(p) = find(&self.buf, b"\r\n") {
                            break p;
                        }
                        self.fill().await?;
                    };
                    self.buf.drain(..end + 2);
                    if end == 0 {
                        return Ok(());
                    }
                }
            }
            if self.body.len() + size > MAX_RESPONSE {
                return Err(invalid("response too large"));
            }
            while self.buf.len() < size + 2 {
                self.fill().await?;
            }
            self.body.extend_from_slice(&self.buf[..size]);
            self.buf.drain(..size + 2);
        }
    }

    /// The JSON-RPC message of the last response: the body itself (JSON) or
    /// the last non-empty `data:` of its SSE events that looks like one.
    fn message(&self, kind: Kind) -> Option<&[u8]> {
        match kind {
            Kind::Sse => {
                let mut found = None;
                for line in self.body.split(|&b| b == b'\n') {
                    let line = line.strip_suffix(b"\r").unwrap_or(line);
                    if let Some(data) = line.strip_prefix(b"data:") {
                        let data = data.strip_prefix(b" ").unwrap_or(data);
                        if data.first() == Some(&b'{') {
                            found = Some(data);
                        }
                    }
                }
                found
            }
            _ => Some(&self.body[..]),
        }
    }
}

// ---------------------------------------------------------------------------
// Requests

struct Requests {
    host: String,
    mode: Mode,
    city: String,
}

impl Requests {
    fn post(&self, session: Option<&str>, version: Option<&str>, method_headers: Option<(&str, Option<&str>)>, body: &str) -> Vec<u8> {
        let mut r = String::with_capacity(512 + body.len());
        let _ = write!(
            r,
            "POST /mcp HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n",
            self.host
        );
        if let Some(v) = version {
            let _ = write!(r, "MCP-Protocol-Version: {v}\r\n");
        }
        if let Some((method, name)) = method_headers {
            let _ = write!(r, "Mcp-Method: {method}\r\n");
            if let Some(name) = name {
                let _ = write!(r, "Mcp-Name: {name}\r\n");
            }
        }
        if let Some(s) = session {
            let _ = write!(r, "Mcp-Session-Id: {s}\r\n");
        }
        let _ = write!(r, "Content-Length: {}\r\n\r\n{body}", body.len());
        r.into_bytes()
    }

    fn arguments(&self) -> String {
        serde_json::json!({ "city": self.city }).to_string()
    }

    /// The `tools/call` of request `id`.
    fn call(&self, id: u64, session: Option<&str>) -> Vec<u8> {
        match self.mode {
            Mode::Stateless | Mode::Echo => {
                let body = format!(
                    r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"get_forecast","arguments":{},"_meta":{{"io.modelcontextprotocol/protocolVersion":"{STATELESS_VERSION}","io.modelcontextprotocol/clientCapabilities":{{}}}}}}}}"#,
                    self.arguments()
                );
                self.post(None, Some(STATELESS_VERSION), Some(("tools/call", Some("get_forecast"))), &body)
            }
            Mode::Stateful => {
                let body = format!(
                    r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"get_forecast","arguments":{}}}}}"#,
                    self.arguments()
                );
                self.post(session, Some(STATEFUL_VERSION), None, &body)
            }
        }
    }

    fn initialize(&self) -> Vec<u8> {
        let body = format!(
            r#"{{"jsonrpc":"2.0","id":0,"method":"initialize","params":{{"protocolVersion":"{STATEFUL_VERSION}","capabilities":{{}},"clientInfo":{{"name":"http-load","version":"{}"}}}}}}"#,
            env!("CARGO_PKG_VERSION")
        );
        self.post(None, Some(STATEFUL_VERSION), None, &body)
    }

    fn initialized(&self, session: &str) -> Vec<u8> {
        self.post(Some(session), Some(STATEFUL_VERSION), None, r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#)
    }

    fn delete(&self, session: &str) -> Vec<u8> {
        format!(
            "DELETE /mcp HTTP/1.1\r\nHost: {}\r\nMCP-Protocol-Version: {STATEFUL_VERSION}\r\nMcp-Session-Id: {session}\r\nContent-Length: 0\r\n\r\n",
            self.host
        )
        .into_bytes()
    }
}

/// The call request's bytes split around its JSON-RPC id, so that a
/// client can vary the id without formatting the whole request again.
struct Template {
    /// The request line and headers, ending with `Content-Length: `.
    headers: Vec<u8>,
    /// The body before the id, and after it.
    body_head: Vec<u8>,
    body_tail: Vec<u8>,
}

impl Template {
    fn new(requests: &Requests, session: Option<&str>) -> Self {
        // Format once with a marker id, then cut around it.
        const MARK: &str = "987654321987";
        let full = String::from_utf8(requests.call(MARK.parse().expect("number"), session)).expect("ASCII request");
        let (head, body) = full.split_once("\r\n\r\n").expect("request has a head");
        let headers: String = head
            .split("\r\n")
            .filter(|l| !l.starts_with("Content-Length:"))
            .map(|l| format!("{l}\r\n"))
            .chain(std::iter::once("Content-Length: ".to_string()))
            .collect();
        let at = body.find(MARK).expect("id in body");
        Self {
            headers: headers.into_bytes(),
            body_head: body.as_bytes()[..at].to_vec(),
            body_tail: body.as_bytes()[at + MARK.len()..].to_vec(),
        }
    }

    fn write(&self, id: u64, out: &mut Vec<u8>) {
        let id = id.to_string();
        let length = self.body_head.len() + id.len() + self.body_tail.len();
        out.clear();
        out.extend_from_slice(&self.headers);
        out.extend_from_slice(length.to_string().as_bytes());
        out.extend_from_slice(b"\r\n\r\n");
        out.extend_from_slice(&self.body_head);
        out.extend_from_slice(id.as_bytes());
        out.extend_from_slice(&self.body_tail);
    }
}

/// A checked answer: 200, a JSON-RPC result, and for MCP servers a tool
/// result with structured content that is not an error.
fn check(resp: &Response, conn: &Conn, mode: Mode) -> Result<(), String> {
    if resp.status != 200 {
        return Err(format!("HTTP {}: {}", resp.status, String::from_utf8_lossy(&conn.body).chars().take(300).collect::<String>()));
    }
    let message = conn.message(resp.kind).ok_or("no JSON-RPC message in the SSE stream")?;
    if find(message, b"\"result\"").is_none() {
        return Err(format!("no result: {}", String::from_utf8_lossy(message).chars().take(300).collect::<String>()));
    }
    if mode != Mode::Echo
        && (find(message, b"\"structuredContent\"").is_none() || find(message, b"\"isError\":true").is_some())
    {
        return Err(format!("not a successful tool result: {}", String::from_utf8_lossy(message).chars().take(300).collect::<String>()));
    }
    Ok(())
}

/// Opens a client's connection and, in the stateful mode, its session.
async fn open_client(addr: SocketAddr, requests: &Requests) -> Result<(Conn, Option<String>), String> {
    let mut conn = Conn::open(addr).await.map_err(|e| format!("connect: {e}"))?;
    if requests.mode != Mode::Stateful {
        return Ok((conn, None));
    }
    let resp = conn.exchange(&requests.initialize()).await.map_err(|e| format!("initialize: {e}"))?;
    if resp.status != 200 {
        return Err(format!("initialize: HTTP {}: {}", resp.status, String::from_utf8_lossy(&conn.body)));
    }
    let session = resp.session.ok_or("initialize: no Mcp-Session-Id in the answer")?;
    let resp = conn.exchange(&requests.initialized(&session)).await.map_err(|e| format!("initialized: {e}"))?;
    if !(200..300).contains(&resp.status) {
        return Err(format!("notifications/initialized: HTTP {}", resp.status));
    }
    if resp.close {
        conn = Conn::open(addr).await.map_err(|e| format!("reconnect: {e}"))?;
    }
    Ok((conn, Some(session)))
}

/// One full call, parsed: the `result` of the JSON-RPC answer.
async fn sample_result(addr: SocketAddr, requests: &Requests) -> Result<serde_json::Value, String> {
    let (mut conn, session) = open_client(addr, requests).await?;
    let resp = conn.exchange(&requests.call(1, session.as_deref())).await.map_err(|e| format!("call: {e}"))?;
    check(&resp, &conn, requests.mode)?;
    let message = conn.message(resp.kind).ok_or("no message")?;
    let mut value: serde_json::Value = serde_json::from_slice(message).map_err(|e| format!("answer is not JSON: {e}"))?;
    if let Some(session) = session {
        let _ = conn.exchange(&requests.delete(&session)).await;
    }
    Ok(value["result"].take())
}

// ---------------------------------------------------------------------------
// Measurement

struct ClientResult {
    latencies_ns: Vec<u64>,
    last_end: Option<Instant>,
    errors: u64,
    first_error: Option<String>,
}

struct Phase {
    measure_from: Instant,
    stop_at: Instant,
}

/// How long the clients keep sending after `stop_at` (unrecorded), so the
/// servers' CPU is read while every connection is still open: a server
/// with a thread per connection loses a thread's count when it ends.
const RELEASE_AFTER: Duration = Duration::from_millis(100);

async fn run_client(
    mut conn: Conn,
    session: Option<String>,
    addr: SocketAddr,
    requests: Arc<Requests>,
    mut go: tokio::sync::watch::Receiver<Option<Arc<Phase>>>,
    max_requests: u64,
) -> ClientResult {
    let mut result = ClientResult { latencies_ns: Vec::with_capacity(1 << 14), last_end: None, errors: 0, first_error: None };
    let phase = loop {
        if let Some(p) = go.borrow().clone() {
            break p;
        }
        if go.changed().await.is_err() {
            return result;
        }
    };
    let template = Template::new(&requests, session.as_deref());
    let mut request = Vec::with_capacity(1024);
    let mut id: u64 = 1;
    while id <= max_requests {
        let start = Instant::now();
        if start >= phase.stop_at + RELEASE_AFTER {
            break;
        }
        template.write(id, &mut request);
        id += 1;
        let outcome = tokio::time::timeout(REQUEST_TIMEOUT, conn.exchange(&request)).await;
        let end = Instant::now();
        let verdict = match outcome {
            Ok(Ok(resp)) => {
                let verdict = check(&resp, &conn, requests.mode);
                if resp.close {
                    match Conn::open(addr).await {
                        Ok(c) => conn = c,
                        Err(e) => {
                            result.errors += 1;
                            result.first_error.get_or_insert(format!("reconnect: {e}"));
                            break;
                        }
                    }
                }
                verdict
            }
            Ok(Err(e)) => Err(e.to_string()),
            Err(_) => Err(format!("no answer within {REQUEST_TIMEOUT:?}")),
        };
        match verdict {
            Ok(()) => {
                if start >= phase.measure_from && start < phase.stop_at {
                    result.latencies_ns.push((end - start).as_nanos() as u64);
                    result.last_end = Some(end);
                }
            }
            Err(e) => {
                result.errors += 1;
                result.first_error.get_or_insert(e);
                // A broken connection is not retried: this client stops.
                break;
            }
        }
    }
    if let Some(session) = session {
        let _ = tokio::time::timeout(Duration::from_secs(5), conn.exchange(&requests.delete(&session))).await;
    }
    result
}

#[derive(Debug, Clone, Default)]
struct Sample {
    rps: f64,
    p50_us: f64,
    p99_us: f64,
    cpu_us_per_req: Option<f64>,
    /// Of the server's CPU per request, the time in the kernel (system
    /// calls, the loopback TCP stack, wake-ups); 10 ms ticks, so only
    /// meaningful over thousands of requests.
    sys_us_per_req: Option<f64>,
    driver_cpu_us_per_req: Option<f64>,
    /// Share of all CPUs busy (any process) during the recorded window.
    machine_busy: Option<f64>,
    /// CPUs' worth of work by other processes (neither the server nor the
    /// driver) during the recorded window: other tenants' builds.
    foreign_cpus: Option<f64>,
    requests: u64,
    errors: u64,
    first_error: Option<String>,
}

impl Sample {
    /// Measured on a machine to itself: no more than `max` CPUs' worth of
    /// other processes' work in the window (always, without a limit).
    fn clean(&self, max: Option<f64>) -> bool {
        match (max, self.foreign_cpus) {
            (None, _) => true,
            (Some(max), Some(f)) => f <= max,
            (Some(_), None) => true,
        }
    }
}

fn percentile(sorted: &[u64], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let rank = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1] as f64
}

async fn measure(server: &Running, clients: usize, o: &Options, city: &str) -> Sample {
    let requests = Arc::new(Requests { host: server.addr.to_string(), mode: server.spec.mode, city: city.to_string() });
    let (go_tx, go_rx) = tokio::sync::watch::channel::<Option<Arc<Phase>>>(None);
    let mut setup = Vec::with_capacity(clients);
    for _ in 0..clients {
        let requests = Arc::clone(&requests);
        let addr = server.addr;
        setup.push(tokio::spawn(async move { open_client(addr, &requests).await }));
    }
    let mut tasks = Vec::with_capacity(clients);
    let mut sample = Sample::default();
    for s in setup {
        match s.await {
            Ok(Ok((conn, session))) => {
                let requests = Arc::clone(&requests);
                tasks.push(tokio::spawn(run_client(conn, session, server.addr, requests, go_rx.clone(), o.max_requests)));
            }
            Ok(Err(e)) => {
                sample.errors += 1;
                sample.first_error.get_or_insert(e);
            }
            Err(e) => {
                sample.errors += 1;
                sample.first_error.get_or_insert(e.to_string());
            }
        }
    }
    let now = Instant::now();
    let phase = Arc::new(Phase { measure_from: now + o.warmup, stop_at: now + o.warmup + o.secs });
    let _ = go_tx.send(Some(Arc::clone(&phase)));
    let pid = server.child.id();
    tokio::time::sleep_until((phase.measure_from).into()).await;
    let cpu_before = cpu_ns(pid);
    let sys_before = sys_ticks(pid);
    let driver_before = cpu_ns(std::process::id());
    let machine_before = machine_jiffies();
    tokio::time::sleep_until((phase.stop_at).into()).await;
    let cpu_after = cpu_ns(pid);
    let sys_after = sys_ticks(pid);
    let driver_after = cpu_ns(std::process::id());
    let machine_after = machine_jiffies();
    if let (Some((b0, t0)), Some((b1, t1))) = (machine_before, machine_after) {
        if t1 > t0 {
            let busy = (b1 - b0) as f64 / (t1 - t0) as f64;
            sample.machine_busy = Some(busy);
            if let (Some(s0), Some(s1), Some(d0), Some(d1)) = (cpu_before, cpu_after, driver_before, driver_after) {
                let ours = (s1.saturating_sub(s0) + d1.saturating_sub(d0)) as f64 / o.secs.as_nanos() as f64;
                sample.foreign_cpus = Some((busy * cpu_count() as f64 - ours).max(0.0));
            }
        }
    }
    let mut latencies = Vec::new();
    let mut last_end = phase.measure_from;
    for t in tasks {
        match t.await {
            Ok(r) => {
                latencies.extend_from_slice(&r.latencies_ns);
                if let Some(end) = r.last_end {
                    last_end = last_end.max(end);
                }
                sample.errors += r.errors;
                if let Some(e) = r.first_error {
                    sample.first_error.get_or_insert(e);
                }
            }
            Err(e) => {
                sample.errors += 1;
                sample.first_error.get_or_insert(e.to_string());
            }
        }
    }
    latencies.sort_unstable();
    let window = (last_end - phase.measure_from).as_secs_f64().max(o.secs.as_secs_f64() * 0.5);
    sample.requests = latencies.len() as u64;
    sample.rps = latencies.len() as f64 / window;
    sample.p50_us = percentile(&latencies, 50.0) / 1000.0;
    sample.p99_us = percentile(&latencies, 99.0) / 1000.0;
    if let (Some(a), Some(b)) = (cpu_before, cpu_after) {
        if sample.requests > 0 {
            // CPU over the recorded window (fixed length) per request
            // completed in it; requests straddling the edges even out.
            sample.cpu_us_per_req = Some(b.saturating_sub(a) as f64 / 1000.0 / (sample.rps * o.secs.as_secs_f64()));
        }
    }
    if let (Some(a), Some(b)) = (sys_before, sys_after) {
        if sample.requests > 0 {
            sample.sys_us_per_req = Some(b.saturating_sub(a) as f64 * 10_000.0 / (sample.rps * o.secs.as_secs_f64()));
        }
    }
    if let (Some(a), Some(b)) = (driver_before, driver_after) {
        if sample.requests > 0 {
            sample.driver_cpu_us_per_req =
                Some(b.saturating_sub(a) as f64 / 1000.0 / (sample.rps * o.secs.as_secs_f64()));
        }
    }
    sample
}

// ---------------------------------------------------------------------------
// Report

fn median(mut v: Vec<f64>) -> f64 {
    v.retain(|x| x.is_finite());
    if v.is_empty() {
        return f64::NAN;
    }
    v.sort_by(|a, b| a.total_cmp(b));
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

fn thousands(x: f64) -> String {
    if !x.is_finite() {
        return "–".into();
    }
    let n = x.round() as u64;
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

fn micros(us: f64) -> String {
    if !us.is_finite() {
        "–".into()
    } else if us >= 10_000.0 {
        format!("{:.1} ms", us / 1000.0)
    } else if us >= 1000.0 {
        format!("{:.2} ms", us / 1000.0)
    } else {
        if us < 100.0 { format!("{us:.1} µs") } else { format!("{us:.0} µs") }
    }
}

fn mib(kib: Option<u64>) -> String {
    kib.map_or("–".into(), |k| format!("{:.1} MiB", k as f64 / 1024.0))
}

fn main() -> std::process::ExitCode {
    let o = match parse_options() {
        Ok(o) => o,
        Err(e) => {
            eprintln!("{e}");
            return std::process::ExitCode::from(2);
        }
    };
    let runtime = if o.driver_threads == 1 {
        tokio::runtime::Builder::new_current_thread().enable_all().build()
    } else {
        tokio::runtime::Builder::new_multi_thread().worker_threads(o.driver_threads).enable_all().build()
    };
    let runtime = match runtime {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("http-load: tokio: {e}");
            return std::process::ExitCode::FAILURE;
        }
    };
    let mut running: Vec<Running> = Vec::new();
    let code = match runtime.block_on(run(&o, &mut running)) {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("http-load: {e}");
            std::process::ExitCode::FAILURE
        }
    };
    for r in &mut running {
        let _ = r.child.kill();
        let _ = r.child.wait();
    }
    code
}

/// Waits (at most `limit`) for a 2-second window in which under 25% of the
/// machine is busy; returns the busy share of the last window.
async fn settle(limit: Duration) -> Option<f64> {
    let deadline = Instant::now() + limit;
    loop {
        let (b0, t0) = machine_jiffies()?;
        tokio::time::sleep(Duration::from_secs(2)).await;
        let (b1, t1) = machine_jiffies()?;
        let busy = (b1 - b0) as f64 / (t1 - t0).max(1) as f64;
        if busy < 0.25 || Instant::now() >= deadline {
            return Some(busy);
        }
        eprintln!("machine {:.0}% busy (load {}); waiting for it to settle", busy * 100.0, loadavg());
    }
}

async fn run(o: &Options, running: &mut Vec<Running>) -> Result<(), String> {
    if !o.settle.is_zero() {
        if let Some(busy) = settle(o.settle).await {
            eprintln!("machine {:.0}% busy before the run", busy * 100.0);
        }
    }
    let load_start = loadavg();
    for spec in &o.servers {
        let r = start(spec)?;
        eprintln!("started {} ({}) pid {} on {}", spec.name, spec.mode.label(), r.child.id(), r.addr);
        running.push(r);
    }
    // Same answer from every MCP server?
    let mut reference: Option<(String, serde_json::Value)> = None;
    let mut notes = Vec::new();
    for r in running.iter() {
        if r.spec.mode == Mode::Echo {
            continue;
        }
        let requests = Requests { host: r.addr.to_string(), mode: r.spec.mode, city: o.city.clone() };
        let result = sample_result(r.addr, &requests).await.map_err(|e| format!("{}: sample call failed: {e}", r.spec.name))?;
        let payload = serde_json::json!({ "content": result["content"], "structuredContent": result["structuredContent"] });
        let extra: Vec<&str> = result
            .as_object()
            .map(|m| m.keys().map(String::as_str).filter(|k| *k != "content" && *k != "structuredContent").collect())
            .unwrap_or_default();
        eprintln!("{}: result = {}", r.spec.name, result);
        match &reference {
            None => reference = Some((r.spec.name.clone(), payload)),
            Some((name, expected)) => {
                if &payload == expected {
                    notes.push(format!("{}: content and structuredContent identical to {name}'s", r.spec.name));
                } else {
                    notes.push(format!("{}: content/structuredContent DIFFER from {name}'s: {payload}", r.spec.name));
                }
            }
        }
        if !extra.is_empty() {
            notes.push(format!("{}: result also carries {}", r.spec.name, extra.join(", ")));
        }
    }
    for n in &notes {
        eprintln!("{n}");
    }

    // name -> clients -> samples over rounds
    let mut samples: BTreeMap<(usize, usize), Vec<Sample>> = BTreeMap::new();
    let mut rounds_run = 0;
    for round in 1..=o.max_rounds {
        // With --max-foreign, rounds go on (up to --max-rounds) until every
        // server and client count has --rounds clean samples.
        let enough = |samples: &BTreeMap<(usize, usize), Vec<Sample>>| {
            (0..running.len()).all(|i| {
                o.clients.iter().all(|c| {
                    samples.get(&(i, *c)).map_or(0, |v| v.iter().filter(|s| s.clean(o.max_foreign)).count()) >= o.rounds
                })
            })
        };
        if enough(&samples) {
            break;
        }
        rounds_run = round;
        for &clients in &o.clients {
            for (i, r) in running.iter().enumerate() {
                let s = measure(r, clients, o, &o.city).await;
                eprintln!(
                    "round {round} clients {clients:>3} {:<12} {:>9} req/s  p50 {:>9}  p99 {:>9}  cpu/req {:>7} (driver {:>6})  busy {:>4} (others {:>4}){}  errors {}{}   [load {}]",
                    r.spec.name,
                    thousands(s.rps),
                    micros(s.p50_us),
                    micros(s.p99_us),
                    s.cpu_us_per_req.map_or("–".into(), micros),
                    s.driver_cpu_us_per_req.map_or("–".into(), micros),
                    s.machine_busy.map_or("–".into(), |b| format!("{:.0}%", b * 100.0)),
                    s.foreign_cpus.map_or("–".into(), |c| format!("{c:.2}")),
                    if s.clean(o.max_foreign) { "" } else { " NOT CLEAN" },
                    s.errors,
                    s.first_error.as_deref().map(|e| format!(" (first: {e})")).unwrap_or_default(),
                    loadavg(),
                );
                samples.entry((i, clients)).or_default().push(s);
                // Let sessions close and sockets settle before the next server.
                tokio::time::sleep(Duration::from_millis(200)).await;
            }
        }
    }
    let load_end = loadavg();
    let peaks: Vec<Option<u64>> = running.iter().map(|r| status_kib(r.child.id(), "VmHWM")).collect();
    let alive: Vec<bool> = running.iter_mut().map(|r| matches!(r.child.try_wait(), Ok(None))).collect();

    // Medians.
    struct Row {
        rps: f64,
        p50: f64,
        p99: f64,
        cpu: f64,
        sys: f64,
        driver_cpu: f64,
        busy: f64,
        foreign: f64,
        rps_min: f64,
        rps_max: f64,
        errors: u64,
        used: usize,
        of: usize,
    }
    let mut rows: BTreeMap<(usize, usize), Row> = BTreeMap::new();
    for ((i, c), all) in &samples {
        // Medians over the clean samples; over all of them if none is.
        let clean: Vec<&Sample> = all.iter().filter(|s| s.clean(o.max_foreign)).collect();
        let v: Vec<&Sample> = if clean.is_empty() { all.iter().collect() } else { clean };
        rows.insert(
            (*i, *c),
            Row {
                rps: median(v.iter().map(|s| s.rps).collect()),
                p50: median(v.iter().map(|s| s.p50_us).collect()),
                p99: median(v.iter().map(|s| s.p99_us).collect()),
                cpu: median(v.iter().filter_map(|s| s.cpu_us_per_req).collect()),
                sys: median(v.iter().filter_map(|s| s.sys_us_per_req).collect()),
                driver_cpu: median(v.iter().filter_map(|s| s.driver_cpu_us_per_req).collect()),
                busy: median(v.iter().filter_map(|s| s.machine_busy).collect()),
                foreign: median(v.iter().filter_map(|s| s.foreign_cpus).collect()),
                rps_min: v.iter().map(|s| s.rps).fold(f64::INFINITY, f64::min),
                rps_max: v.iter().map(|s| s.rps).fold(0.0, f64::max),
                errors: all.iter().map(|s| s.errors).sum(),
                used: v.len(),
                of: all.len(),
            },
        );
    }
    let mut out = String::new();
    let _ = writeln!(
        out,
        "\n{} rounds, interleaved{}; per measurement {:.1} s warm-up + {:.1} s recorded; driver: {} thread(s); load average {} at start, {} at end\n",
        rounds_run,
        o.max_foreign.map_or(String::new(), |m| format!(
            " (medians over the rounds in which other processes used at most {m} CPU, all rounds where none did)"
        )),
        o.warmup.as_secs_f64(),
        o.secs.as_secs_f64(),
        o.driver_threads,
        load_start,
        load_end
    );
    let _ = writeln!(
        out,
        "| server | clients | req/s | p50 | p99 | peak RSS | server CPU/req | of which kernel | driver CPU/req | machine busy (others) | rounds used | req/s range |"
    );
    let _ = writeln!(out, "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
    for (i, r) in running.iter().enumerate() {
        for &c in &o.clients {
            let Some(row) = rows.get(&(i, c)) else { continue };
            let _ = writeln!(
                out,
                "| {} ({}) | {} | {} | {} | {} | {} | {} | {} | {} | {} | {}/{} | {}–{} |{}",
                r.spec.name,
                r.spec.mode.label(),
                c,
                thousands(row.rps),
                micros(row.p50),
                micros(row.p99),
                mib(peaks[i]),
                micros(row.cpu),
                micros(row.sys),
                micros(row.driver_cpu),
                if row.busy.is_finite() {
                    format!("{:.0}% ({:.2} CPU)", row.busy * 100.0, row.foreign)
                } else {
                    "–".into()
                },
                row.used,
                row.of,
                thousands(row.rps_min),
                thousands(row.rps_max),
                if row.errors > 0 { format!(" **{} errors**", row.errors) } else { String::new() }
            );
        }
    }
    if !o.ratios.is_empty() {
        // Every pair at every client count: the targets are at one client
        // (a serial loop) as well as at the most.
        let _ = writeln!(out, "\nRatios (medians):\n");
        let _ = writeln!(out, "| ratio | clients | req/s | p50 | p99 | peak RSS | server CPU/req |");
        let _ = writeln!(out, "| --- | ---: | ---: | ---: | ---: | ---: | ---: |");
        let index = |n: &str| running.iter().position(|r| r.spec.name == n);
        for (a, b) in &o.ratios {
            let (Some(ia), Some(ib)) = (index(a), index(b)) else { continue };
            let rss = match (peaks[ia], peaks[ib]) {
                (Some(x), Some(y)) if y > 0 => format!("{:.2}×", x as f64 / y as f64),
                _ => "–".into(),
            };
            for &clients in &o.clients {
                let (Some(ra), Some(rb)) = (rows.get(&(ia, clients)), rows.get(&(ib, clients))) else { continue };
                let _ = writeln!(
                    out,
                    "| {a} / {b} | {clients} | {:.2}× | {:.2}× | {:.2}× | {rss} | {:.2}× |",
                    ra.rps / rb.rps,
                    ra.p50 / rb.p50,
                    ra.p99 / rb.p99,
                    ra.cpu / rb.cpu
                );
            }
        }
    }
    if !notes.is_empty() {
        let _ = writeln!(out);
        for n in &notes {
            let _ = writeln!(out, "- {n}");
        }
    }
    for (i, r) in running.iter().enumerate() {
        if !alive[i] {
            let _ = writeln!(out, "- WARNING: {} exited during the run", r.spec.name);
        }
    }
    if o.per_round {
        let _ = writeln!(out, "\nPer round (req/s):\n");
        for ((i, c), v) in &samples {
            let list: Vec<String> = v
                .iter()
                .map(|s| format!("{}{}", thousands(s.rps), if s.clean(o.max_foreign) { "" } else { " (not clean)" }))
                .collect();
            let _ = writeln!(out, "- {} @ {c}: {}", running[*i].spec.name, list.join(", "));
        }
    }
    print!("{out}");
    Ok(())
}
