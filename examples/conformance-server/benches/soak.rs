//! The soak (`bash bench/soak.sh`; not part of CI): mixed load for
//! `SOAK_SECONDS` (default 1,800) through nginx (the shipped
//! `deploy/nginx/weather-mcp.conf`) to three `conformance-server --http …
//! --session-store redis://…` replicas that share one real `redis-server`
//! (append-only file on, written out every second as Redis advises, so a
//! restart keeps what it held), bearer tokens
//! required (JWT, the key set served on loopback).
//!
//! `SOAK_CLIENTS` workers (default 6) each cycle through five kinds of
//! call, every one with a deadline of a minute (past it, the call counts
//! as hung):
//! - `stateless`: `greet` in the 2026-07-28 era;
//! - `session`: `test_simple_text` in a 2025-11-25 session (kept in Redis,
//!   so its calls land on any replica);
//! - `stream`: `test_tool_with_progress` in that session, its progress
//!   notifications on the answer's event stream;
//! - `task`: `confirm_delete` as a task that asks for input (an
//!   elicitation the client answers), its result fetched to the end;
//! - `refused`: a call with an expired token, which must get 401.
//!
//! Every `SOAK_KILL_EVERY` seconds (default 300) one replica is killed
//! (SIGKILL) and started again on its port two seconds later; Redis is
//! restarted once, half way between two kills. A window runs from a
//! disruption until `GRACE` after the service is back (long enough for a
//! dead replica's tasks to be reported failed); a call counts as failed
//! inside a window when its time overlaps one. Every five seconds the
//! resident memory of each replica process is read from `/proc`.
//!
//! The report (stdout, and `SOAK_REPORT` when set, with the replicas' and
//! Redis's logs in `SOAK_REPORT.logs/`): calls per kind, failed
//! calls inside and outside the windows, hung calls, tasks started,
//! completed, reported failed and lost (neither), and for each replica
//! process its resident memory at start and end and its slope. The exit
//! status is 1 when a call failed outside a window, hung, or a task was
//! lost, or when a replica panicked.

#[path = "../../weather-server/tests/infra/services.rs"]
mod services;
#[path = "../../weather-server/tests/infra/tokens.rs"]
mod tokens;

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use mcpgen_runtime::client::http::HttpTransport;
use mcpgen_runtime::client::{CallOptions, Client, ClientHandlers, ClientOptions, ToolStart};
use mcpgen_runtime::server::tasks::EXTENSION;
use serde_json::{json, Value};
use services::{free_port, require, Nginx, Process, TempDir, PATIENCE};

/// The resource the replicas serve (tokens name it in `aud`).
const RESOURCE: &str = "https://soak.example/mcp";
/// How long after a disruption's end its window lasts: a dead replica's
/// running task is reported failed once its lease (15 s by default) has
/// passed, and a client waits up to 30 s for an answer.
const GRACE: Duration = Duration::from_secs(45);
/// A call taking longer than this is hung.
const DEADLINE: Duration = Duration::from_secs(60);

fn setting(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// A `conformance-server` replica on a fixed loopback port, its stderr in
/// a file.
struct Replica {
    port: u16,
    process: Process,
    log: PathBuf,
}

impl Replica {
    fn start(port: u16, store: &str, vars: &[(&str, String)], dir: &Path, n: usize) -> Self {
        let log = dir.join(format!("replica-{n}.log"));
        let file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&log)
            .expect("replica log");
        let child = Command::new(env!("CARGO_BIN_EXE_conformance-server"))
            .args([
                "--http",
                &format!("127.0.0.1:{port}"),
                "--session-store",
                store,
            ])
            .envs(vars.iter().map(|(k, v)| (*k, v.as_str())))
            .env("RUST_BACKTRACE", "1")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(file)
            .spawn()
            .expect("conformance-server starts");
        wait_listening(port, &child, &log);
        Self {
            port,
            process: Process(Some(child)),
            log,
        }
    }

    fn pid(&self) -> Option<u32> {
        self.process.0.as_ref().map(Child::id)
    }
}

fn wait_listening(port: u16, child: &Child, log: &Path) {
    let deadline = Instant::now() + PATIENCE;
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(
            Instant::now() < deadline,
            "process {} does not listen on port {port}; log:\n{}",
            child.id(),
            std::fs::read_to_string(log).unwrap_or_default()
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// `redis-server` on a fixed port with its append-only file in `dir`.
fn start_redis(binary: &Path, port: u16, dir: &Path) -> Process {
    let child = Command::new(binary)
        .args(["--bind", "127.0.0.1", "--port", &port.to_string()])
        .args([
            "--save",
            "",
            "--appendonly",
            "yes",
            "--appendfsync",
            "everysec",
        ])
        .arg("--dir")
        .arg(dir)
        .arg("--logfile")
        .arg(dir.join("redis.log"))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("redis-server starts");
    wait_listening(port, &child, &dir.join("redis.log"));
    Process(Some(child))
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Kind {
    Stateless,
    Session,
    Stream,
    Task,
    Refused,
}

const KINDS: [Kind; 5] = [
    Kind::Stateless,
    Kind::Session,
    Kind::Stream,
    Kind::Task,
    Kind::Refused,
];

enum Outcome {
    Ok,
    Failed(String),
    Hung,
}

/// What happened to a task, for the count of lost ones.
#[derive(Clone, Copy, PartialEq, Eq)]
enum TaskEnd {
    NotStarted,
    Completed,
    ReportedFailed,
    Lost,
}

struct Call {
    kind: Kind,
    from: f64,
    to: f64,
    outcome: Outcome,
    task: TaskEnd,
}

/// What the workers share.
struct Shared {
    nginx_url: String,
    nginx_addr: String,
    token: String,
    expired: String,
    epoch: Instant,
    until: Instant,
    calls: Mutex<Vec<Call>>,
}

fn options(version: &str, token: &str) -> ClientOptions {
    let handlers = ClientHandlers::new().on_elicitation(|_| async {
        Ok(json!({"action": "accept", "content": {"confirm": true}}))
    });
    let mut options = ClientOptions::new([version])
        .timeout(Duration::from_secs(30))
        .handlers(handlers)
        .bearer_token(token)
        .expect("a header value");
    options.capabilities = json!({"elicitation": {}, "extensions": { EXTENSION: {} }});
    options
}

async fn connect(shared: &Shared, version: &str) -> Result<Client, String> {
    let transport = HttpTransport::new(&shared.nginx_url).map_err(|e| e.to_string())?;
    Client::connect(transport, options(version, &shared.token))
        .await
        .map_err(|e| format!("connect ({version}): {e}"))
}

fn text_of(result: &Value) -> &str {
    result["content"][0]["text"].as_str().unwrap_or_default()
}

/// One call of `kind`; the clients are made on first use and again after
/// a failure.
async fn once(
    shared: &Shared,
    kind: Kind,
    n: u64,
    modern: &mut Option<Client>,
    session: &mut Option<Client>,
) -> (Result<(), String>, TaskEnd) {
    let client = match kind {
        Kind::Stateless | Kind::Task => modern,
        Kind::Session | Kind::Stream => session,
        Kind::Refused => {
            let addr = shared.nginx_addr.clone();
            let expired = shared.expired.clone();
            let status = tokio::task::spawn_blocking(move || refused_status(&addr, &expired))
                .await
                .map_err(|e| e.to_string());
            return match status {
                Ok(401) => (Ok(()), TaskEnd::NotStarted),
                Ok(other) => (
                    Err(format!("an expired token got {other}, not 401")),
                    TaskEnd::NotStarted,
                ),
                Err(e) => (Err(e), TaskEnd::NotStarted),
            };
        }
    };
    if client.is_none() {
        let version = if matches!(kind, Kind::Session | Kind::Stream) {
            "2025-11-25"
        } else {
            "2026-07-28"
        };
        match connect(shared, version).await {
            Ok(c) => *client = Some(c),
            Err(e) => return (Err(e), TaskEnd::NotStarted),
        }
    }
    let c = client.as_ref().expect("connected");
    let (result, task) = match kind {
        Kind::Stateless => {
            let name = format!("soak-{n}");
            let r = c
                .call_tool("greet", json!({ "name": name }), &CallOptions::new())
                .await;
            (
                r.map_err(|e| e.to_string()).and_then(|v| {
                    let want = format!("Hello, {name}!");
                    (text_of(&v) == want)
                        .then_some(())
                        .ok_or_else(|| format!("greet: {v}"))
                }),
                TaskEnd::NotStarted,
            )
        }
        Kind::Session => {
            let r = c
                .call_tool("test_simple_text", json!({}), &CallOptions::new())
                .await;
            (
                r.map_err(|e| e.to_string()).and_then(|v| {
                    (!text_of(&v).is_empty())
                        .then_some(())
                        .ok_or_else(|| format!("test_simple_text: {v}"))
                }),
                TaskEnd::NotStarted,
            )
        }
        Kind::Stream => {
            let seen = Arc::new(Mutex::new(0u32));
            let count = Arc::clone(&seen);
            let options = CallOptions::new().on_progress(move |_| {
                *count.lock().unwrap() += 1;
            });
            let r = c
                .call_tool("test_tool_with_progress", json!({}), &options)
                .await;
            let seen = *seen.lock().unwrap();
            (
                r.map_err(|e| e.to_string()).and_then(|_| {
                    (seen == 3)
                        .then_some(())
                        .ok_or_else(|| format!("{seen} progress notifications, not 3"))
                }),
                TaskEnd::NotStarted,
            )
        }
        Kind::Task => task_call(c, n).await,
        Kind::Refused => unreachable!("answered above"),
    };
    if result.is_err() {
        *client = None;
    }
    (result, task)
}

/// `confirm_delete` as a task: started, its input given, polled to its
/// end. A request that fails on the way (its replica killed) is tried
/// again, through nginx, until the task ends or the call's deadline; a
/// task that never ends is lost.
async fn task_call(client: &Client, n: u64) -> (Result<(), String>, TaskEnd) {
    let file = format!("soak-{n}.txt");
    let start = client
        .start_tool("confirm_delete", json!({ "filename": file }), None)
        .await;
    let mut task = match start {
        Ok(ToolStart::Task(task)) => task,
        Ok(ToolStart::Done(v)) => {
            return (
                Err(format!("confirm_delete did not run as a task: {v}")),
                TaskEnd::NotStarted,
            )
        }
        Err(e) => return (Err(format!("start: {e}")), TaskEnd::NotStarted),
    };
    let id = task.id().to_owned();
    let mut trouble: Option<String> = None;
    let until = Instant::now() + DEADLINE - Duration::from_secs(5);
    while Instant::now() < until {
        let step = match task.status() {
            "completed" => {
                let v = task.last()["result"].clone();
                let answer = if text_of(&v) == format!("Deleted {file}") {
                    trouble.map_or(Ok(()), Err)
                } else {
                    Err(format!("task {id}: {v}"))
                };
                return (answer, TaskEnd::Completed);
            }
            "failed" | "cancelled" => {
                let why = format!("task {id} ended {}: {}", task.status(), task.last());
                return (Err(why), TaskEnd::ReportedFailed);
            }
            "input_required" => {
                let keys: Vec<String> = task.last()["inputRequests"]
                    .as_object()
                    .map(|o| o.keys().cloned().collect())
                    .unwrap_or_default();
                let answers = keys
                    .into_iter()
                    .map(|k| (k, json!({"action": "accept", "content": {"confirm": true}})))
                    .collect();
                task.supply(answers).await
            }
            _ => Ok(()),
        };
        let polled = match step {
            Ok(()) => {
                tokio::time::sleep(task.poll_interval().min(Duration::from_millis(500))).await;
                task.poll().await.map(drop)
            }
            Err(e) => Err(e),
        };
        if let Err(e) = polled {
            trouble.get_or_insert_with(|| format!("task {id}: {e}"));
            tokio::time::sleep(Duration::from_millis(500)).await;
        }
    }
    let why = trouble.unwrap_or_else(|| format!("task {id} still {}", task.status()));
    (Err(why), TaskEnd::Lost)
}

/// The status of a `tools/call` sent with an expired token.
fn refused_status(addr: &str, expired: &str) -> u16 {
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "greet", "arguments": {"name": "x"}, "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {}}}})
    .to_string();
    let authorization = format!("Bearer {expired}");
    let headers = [
        ("Content-Type", "application/json"),
        ("Accept", "application/json, text/event-stream"),
        ("MCP-Protocol-Version", "2026-07-28"),
        ("Mcp-Method", "tools/call"),
        ("Mcp-Name", "greet"),
        ("Authorization", authorization.as_str()),
    ];
    services::http(addr, "POST", "/mcp", &headers, &body).0
}

async fn worker(shared: Arc<Shared>, index: usize) {
    let (mut modern, mut session) = (None, None);
    let mut n = index as u64 * 1_000_000;
    while Instant::now() < shared.until {
        let kind = KINDS[(n as usize + index) % KINDS.len()];
        let from = shared.epoch.elapsed().as_secs_f64();
        let run = once(&shared, kind, n, &mut modern, &mut session);
        let (outcome, task) = match tokio::time::timeout(DEADLINE, run).await {
            Ok((Ok(()), task)) => (Outcome::Ok, task),
            Ok((Err(e), task)) => (Outcome::Failed(e), task),
            Err(_) => {
                (modern, session) = (None, None);
                let task = if kind == Kind::Task {
                    TaskEnd::Lost
                } else {
                    TaskEnd::NotStarted
                };
                (Outcome::Hung, task)
            }
        };
        let to = shared.epoch.elapsed().as_secs_f64();
        if !matches!(outcome, Outcome::Ok) {
            // No storm of retries while a replica or Redis is down.
            tokio::time::sleep(Duration::from_millis(250)).await;
        }
        shared.calls.lock().unwrap().push(Call {
            kind,
            from,
            to,
            outcome,
            task,
        });
        n += 1;
    }
}

/// Resident memory of `pid` in KiB.
fn rss_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// One replica process's memory samples: (seconds since the start, KiB).
struct Lifetime {
    replica: usize,
    pid: u32,
    samples: Vec<(f64, u64)>,
}

/// The least-squares slope of the samples after the first minute, in
/// KiB per minute.
fn slope(samples: &[(f64, u64)]) -> Option<f64> {
    let first = samples.first()?.0;
    let s: Vec<(f64, f64)> = samples
        .iter()
        .filter(|(t, _)| t - first >= 60.0)
        .map(|&(t, k)| (t / 60.0, k as f64))
        .collect();
    if s.len() < 3 {
        return None;
    }
    let n = s.len() as f64;
    let (mx, my) = (
        s.iter().map(|p| p.0).sum::<f64>() / n,
        s.iter().map(|p| p.1).sum::<f64>() / n,
    );
    let num: f64 = s.iter().map(|(x, y)| (x - mx) * (y - my)).sum();
    let den: f64 = s.iter().map(|(x, _)| (x - mx).powi(2)).sum();
    (den > 0.0).then(|| num / den)
}

fn main() {
    let seconds = setting("SOAK_SECONDS", 1800);
    let kill_every = setting("SOAK_KILL_EVERY", 300).max(30);
    let clients = setting("SOAK_CLIENTS", 6).max(1) as usize;
    let (Some(redis_bin), Some(nginx_bin)) = (require("redis-server"), require("nginx")) else {
        std::process::exit(2);
    };
    let dir = TempDir::new("soak");
    let redis_dir = dir.path().join("redis");
    std::fs::create_dir_all(&redis_dir).expect("redis directory");
    let redis_port = free_port();
    let mut redis = start_redis(&redis_bin, redis_port, &redis_dir);
    let store = format!("redis://127.0.0.1:{redis_port}");
    let issuer = tokens::key_server();
    let vars = [
        ("MCP_RESOURCE_URL", RESOURCE.to_owned()),
        ("MCP_AUTH_ISSUER", issuer.clone()),
        ("MCP_AUTH_JWKS_URI", format!("{issuer}/jwks")),
    ];
    let mut replicas: Vec<Replica> = (0..3)
        .map(|n| Replica::start(free_port(), &store, &vars, dir.path(), n))
        .collect();
    let upstreams: Vec<String> = replicas
        .iter()
        .map(|r| format!("127.0.0.1:{}", r.port))
        .collect();
    let upstream_refs: Vec<&str> = upstreams.iter().map(String::as_str).collect();
    let nginx = Nginx::start(&nginx_bin, &upstream_refs);
    let epoch = Instant::now();
    let shared = Arc::new(Shared {
        nginx_addr: nginx
            .url
            .trim_start_matches("http://")
            .trim_end_matches("/mcp")
            .to_owned(),
        nginx_url: nginx.url.clone(),
        // Longer than the soak: a token that expires mid-run would fail
        // calls for a reason of the test's own.
        token: tokens::token(&issuer, RESOURCE, "soak", seconds as i64 + 3600),
        expired: tokens::token(&issuer, RESOURCE, "late", -3600),
        epoch,
        until: epoch + Duration::from_secs(seconds),
        calls: Mutex::new(Vec::new()),
    });
    eprintln!(
        "soak: {seconds} s, {clients} clients, a replica killed every {kill_every} s, nginx at {}",
        nginx.url
    );

    // Memory: every five seconds, each replica process.
    let lifetimes: Arc<Mutex<Vec<Lifetime>>> = Arc::default();
    let pids: Arc<Mutex<Vec<Option<u32>>>> =
        Arc::new(Mutex::new(replicas.iter().map(Replica::pid).collect()));
    let done = Arc::new(AtomicBool::new(false));
    let sampler = {
        let (lifetimes, pids, done) =
            (Arc::clone(&lifetimes), Arc::clone(&pids), Arc::clone(&done));
        std::thread::spawn(move || {
            while !done.load(Ordering::Relaxed) {
                let t = epoch.elapsed().as_secs_f64();
                let current = pids.lock().unwrap().clone();
                let mut all = lifetimes.lock().unwrap();
                for (replica, pid) in current.into_iter().enumerate() {
                    let Some(pid) = pid else { continue };
                    let Some(kib) = rss_kib(pid) else { continue };
                    match all.iter_mut().find(|l| l.pid == pid) {
                        Some(l) => l.samples.push((t, kib)),
                        None => all.push(Lifetime {
                            replica,
                            pid,
                            samples: vec![(t, kib)],
                        }),
                    }
                }
                drop(all);
                std::thread::sleep(Duration::from_secs(5));
            }
        })
    };

    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a runtime");
    let load = {
        let shared = Arc::clone(&shared);
        runtime.spawn(async move {
            let workers: Vec<_> = (0..clients)
                .map(|i| tokio::spawn(worker(Arc::clone(&shared), i)))
                .collect();
            for w in workers {
                let _ = w.await;
            }
        })
    };

    // The disruptions: (what, from, to) in seconds since the start.
    let mut windows: Vec<(String, f64, f64)> = Vec::new();
    let redis_at = kill_every as f64 * 2.5;
    let mut redis_restarted = false;
    let mut next_kill = kill_every as f64;
    let mut killed = 0usize;
    loop {
        let now = epoch.elapsed().as_secs_f64();
        if now >= seconds as f64 {
            break;
        }
        if !redis_restarted && now >= redis_at && redis_at < seconds as f64 {
            redis_restarted = true;
            let from = epoch.elapsed().as_secs_f64();
            redis.terminate();
            std::thread::sleep(Duration::from_secs(2));
            redis = start_redis(&redis_bin, redis_port, &redis_dir);
            let to = epoch.elapsed().as_secs_f64() + GRACE.as_secs_f64();
            eprintln!("soak: redis restarted at {from:.0} s");
            windows.push(("redis restart".into(), from, to));
        }
        if now >= next_kill {
            let n = killed % replicas.len();
            killed += 1;
            next_kill += kill_every as f64;
            let from = epoch.elapsed().as_secs_f64();
            replicas[n].process.kill();
            pids.lock().unwrap()[n] = None;
            std::thread::sleep(Duration::from_secs(2));
            let port = replicas[n].port;
            replicas[n] = Replica::start(port, &store, &vars, dir.path(), n);
            pids.lock().unwrap()[n] = replicas[n].pid();
            let to = epoch.elapsed().as_secs_f64() + GRACE.as_secs_f64();
            eprintln!(
                "soak: replica {n} killed at {from:.0} s, back at {:.0} s",
                to - GRACE.as_secs_f64()
            );
            windows.push((format!("replica {n} killed"), from, to));
        }
        std::thread::sleep(Duration::from_millis(200));
    }
    runtime.block_on(async {
        let _ = tokio::time::timeout(DEADLINE + Duration::from_secs(10), load).await;
    });
    done.store(true, Ordering::Relaxed);
    let _ = sampler.join();

    let calls = std::mem::take(&mut *shared.calls.lock().unwrap());
    let lifetimes = std::mem::take(&mut *lifetimes.lock().unwrap());
    let panicked: Vec<String> = replicas
        .iter()
        .filter_map(|r| {
            let log = std::fs::read_to_string(&r.log).unwrap_or_default();
            log.contains("panicked")
                .then(|| r.log.display().to_string())
        })
        .collect();
    let (report, clean) = report(seconds, clients, &calls, &windows, &lifetimes, &panicked);
    println!("{report}");
    if let Ok(path) = std::env::var("SOAK_REPORT") {
        std::fs::write(&path, &report).unwrap_or_else(|e| panic!("{path}: {e}"));
        keep_logs(dir.path(), Path::new(&format!("{path}.logs")));
    }
    drop(nginx);
    drop(replicas);
    drop(redis);
    std::process::exit(if clean { 0 } else { 1 });
}

/// Copies the replicas' and Redis's logs from `from` to `to`.
fn keep_logs(from: &Path, to: &Path) {
    let _ = std::fs::create_dir_all(to);
    let logs = [from.join("redis").join("redis.log")];
    let replicas = std::fs::read_dir(from)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "log"));
    for log in logs.into_iter().chain(replicas) {
        if let Some(name) = log.file_name() {
            let _ = std::fs::copy(&log, to.join(name));
        }
    }
}

/// The report in Markdown, and whether the soak was clean.
fn report(
    seconds: u64,
    clients: usize,
    calls: &[Call],
    windows: &[(String, f64, f64)],
    lifetimes: &[Lifetime],
    panicked: &[String],
) -> (String, bool) {
    let inside = |c: &Call| {
        windows
            .iter()
            .any(|(_, from, to)| c.from <= *to && c.to >= *from)
    };
    let mut out = String::new();
    let _ = writeln!(
        out,
        "## Soak: {seconds} s, {clients} clients, {} disruptions\n",
        windows.len()
    );
    let _ = writeln!(
        out,
        "| kind | calls | ok | failed in a window | failed outside | hung |"
    );
    let _ = writeln!(out, "| --- | ---: | ---: | ---: | ---: | ---: |");
    let mut outside_failures = Vec::new();
    let (mut total, mut hung_all, mut outside_all) = (0, 0, 0);
    for kind in KINDS {
        let of: Vec<&Call> = calls.iter().filter(|c| c.kind == kind).collect();
        let ok = of
            .iter()
            .filter(|c| matches!(c.outcome, Outcome::Ok))
            .count();
        let hung = of
            .iter()
            .filter(|c| matches!(c.outcome, Outcome::Hung))
            .count();
        let failed: Vec<&&Call> = of
            .iter()
            .filter(|c| matches!(c.outcome, Outcome::Failed(_)))
            .collect();
        let in_window = failed.iter().filter(|c| inside(c)).count();
        for c in failed.iter().filter(|c| !inside(c)) {
            if let Outcome::Failed(why) = &c.outcome {
                outside_failures.push(format!(
                    "{:?} at {:.1}–{:.1} s: {why}",
                    c.kind, c.from, c.to
                ));
            }
        }
        let outside = failed.len() - in_window;
        total += of.len();
        hung_all += hung;
        outside_all += outside;
        let _ = writeln!(
            out,
            "| {kind:?} | {} | {ok} | {in_window} | {outside} | {hung} |",
            of.len()
        );
    }
    let _ = writeln!(out, "| all | {total} | | | {outside_all} | {hung_all} |\n");
    let tasks = |end: TaskEnd| calls.iter().filter(|c| c.task == end).count();
    let started = calls
        .iter()
        .filter(|c| c.kind == Kind::Task && c.task != TaskEnd::NotStarted)
        .count();
    let lost = tasks(TaskEnd::Lost);
    let _ = writeln!(
        out,
        "Tasks: {started} started, {} completed, {} reported failed, {lost} lost.\n",
        tasks(TaskEnd::Completed),
        tasks(TaskEnd::ReportedFailed)
    );
    let _ = writeln!(
        out,
        "Disruptions (window = until the service is back + {} s):\n",
        GRACE.as_secs()
    );
    for (what, from, to) in windows {
        let _ = writeln!(out, "- {what}: {from:.0}–{to:.0} s");
    }
    let _ = writeln!(
        out,
        "\n| replica | pid | lived | RSS first | RSS last | RSS max | slope after 1 min |"
    );
    let _ = writeln!(out, "| ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
    for l in lifetimes {
        let (Some(first), Some(last)) = (l.samples.first(), l.samples.last()) else {
            continue;
        };
        let max = l.samples.iter().map(|s| s.1).max().unwrap_or(0);
        let slope = slope(&l.samples).map_or("–".into(), |s| format!("{s:+.0} KiB/min"));
        let _ = writeln!(
            out,
            "| {} | {} | {:.0}–{:.0} s | {:.1} MiB | {:.1} MiB | {:.1} MiB | {slope} |",
            l.replica,
            l.pid,
            first.0,
            last.0,
            first.1 as f64 / 1024.0,
            last.1 as f64 / 1024.0,
            max as f64 / 1024.0
        );
    }
    if !outside_failures.is_empty() {
        // When they happened: one burst (a store outage) or all along.
        let mut by_minute: BTreeMap<u64, usize> = BTreeMap::new();
        for c in calls.iter().filter(|c| !inside(c)) {
            if matches!(c.outcome, Outcome::Failed(_)) {
                *by_minute.entry(c.from as u64 / 60).or_default() += 1;
            }
        }
        let minutes: Vec<String> = by_minute
            .iter()
            .map(|(m, n)| format!("minute {m}: {n}"))
            .collect();
        let _ = writeln!(
            out,
            "\nFailed outside a window, by minute: {}.",
            minutes.join(", ")
        );
        let _ = writeln!(out, "\nFailed outside a window (first 20):\n");
        for f in outside_failures.iter().take(20) {
            let _ = writeln!(out, "- {f}");
        }
    }
    if !panicked.is_empty() {
        let _ = writeln!(out, "\nA replica panicked: {}", panicked.join(", "));
    }
    let clean = outside_all == 0 && hung_all == 0 && lost == 0 && panicked.is_empty();
    let _ = writeln!(
        out,
        "\nVerdict: {}",
        if clean { "clean" } else { "NOT clean" }
    );
    (out, clean)
}
