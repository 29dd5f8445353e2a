//! The services of the multi-replica tests, each started on free loopback
//! ports with its own directory and stopped on drop (also when a test
//! fails): `nginx` round robin in front of replicas, `redis-server`, and
//! raw HTTP probes. A missing `nginx` or `redis-server` skips the test
//! with a message, except under `CI=true` (`.ci/run` installs both), where
//! it fails. Nothing here names a server binary, so other crates' tests
//! include this file too (`#[path]`).

#![allow(dead_code)] // each test binary uses its own part

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// How long a process may take to come up.
pub const PATIENCE: Duration = Duration::from_secs(30);

/// An installed program by name, from `PATH` or the Debian locations.
pub fn program(name: &str) -> Option<PathBuf> {
    let mut dirs: Vec<PathBuf> = std::env::var_os("PATH")
        .map(|p| std::env::split_paths(&p).collect())
        .unwrap_or_default();
    dirs.extend(["/usr/sbin", "/usr/bin", "/sbin"].map(PathBuf::from));
    dirs.into_iter().map(|d| d.join(name)).find(|p| p.is_file())
}

/// The program, or `None` after saying why the test is skipped (a panic
/// under `CI=true`).
pub fn require(name: &str) -> Option<PathBuf> {
    let found = program(name);
    if found.is_none() {
        let why = format!("{name} is not installed (Debian package {name}; .ci/run installs it)");
        if std::env::var("CI").is_ok_and(|v| v == "true") {
            panic!("test cannot run under CI=true: {why}");
        }
        eprintln!("skipped: {why}");
    }
    found
}

/// A loopback port free right now.
pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free loopback port")
}

/// A fresh directory under the system's temporary directory, removed on drop.
pub struct TempDir(pub PathBuf);

impl TempDir {
    pub fn new(what: &str) -> Self {
        static N: AtomicU64 = AtomicU64::new(0);
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        let dir = std::env::temp_dir().join(format!(
            "mcpgen-{what}-{}-{}-{nanos}",
            std::process::id(),
            N.fetch_add(1, Ordering::Relaxed)
        ));
        std::fs::create_dir_all(&dir).expect("temporary directory");
        Self(dir)
    }

    pub fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Waits until `addr` accepts TCP connections.
/// Starts `what` on a free loopback port: `spawn(port)` starts the
/// process, `ours(addr)` tells its answer from another process's.
/// [`free_port`] leaves a window in which another test's server may take
/// the port; the child then fails to bind and exits while the port still
/// answers (that server's), which once made a test talk to a Redis that
/// was not its own. So the port counts only when the answer is the
/// child's and the child still runs; otherwise another port is tried.
fn listen_on_free_port(
    what: &str,
    spawn: impl Fn(u16) -> Child,
    ours: impl Fn(&str) -> bool,
    log: impl Fn() -> String,
) -> (Child, u16) {
    const ATTEMPTS: usize = 5;
    for _ in 0..ATTEMPTS {
        let port = free_port();
        let addr = format!("127.0.0.1:{port}");
        let mut child = spawn(port);
        let deadline = Instant::now() + PATIENCE;
        loop {
            if matches!(child.try_wait(), Ok(Some(_))) {
                break; // it could not bind: another port
            }
            if std::net::TcpStream::connect(&addr).is_ok() {
                if ours(&addr) && matches!(child.try_wait(), Ok(None)) {
                    return (child, port);
                }
                let _ = child.kill();
                let _ = child.wait();
                break;
            }
            if Instant::now() > deadline {
                let _ = child.kill();
                panic!("{what} does not listen on {addr}; log:\n{}", log());
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }
    panic!(
        "{what} found no free port it could keep in {ATTEMPTS} attempts; log:\n{}",
        log()
    );
}

/// The response head of `GET /` at `addr` (empty when there is none).
fn response_head(addr: &str) -> String {
    let answer = exchange(addr, "GET", "/", &[], "", Duration::from_secs(5)).unwrap_or_default();
    answer
        .split("\r\n\r\n")
        .next()
        .unwrap_or_default()
        .to_owned()
}

/// Whether a Redis server answers `PING` at `addr`.
fn answers_ping(addr: &str) -> bool {
    use std::io::{Read, Write};
    let Ok(mut stream) = std::net::TcpStream::connect(addr) else {
        return false;
    };
    let _ = stream.set_read_timeout(Some(Duration::from_secs(5)));
    let mut reply = [0u8; 7];
    stream.write_all(b"PING\r\n").is_ok()
        && stream.read_exact(&mut reply).is_ok()
        && &reply == b"+PONG\r\n"
}

/// A child process killed (and reaped) on drop.
pub struct Process(pub Option<Child>);

impl Process {
    /// Kills it now (SIGKILL) and waits for it.
    pub fn kill(&mut self) {
        if let Some(mut child) = self.0.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// Stops it with SIGTERM (a graceful end) and waits for it.
    pub fn terminate(&mut self) {
        if let Some(mut child) = self.0.take() {
            let _ = Command::new("kill")
                .arg("-TERM")
                .arg(child.id().to_string())
                .status();
            let _ = child.wait();
        }
    }
}

impl Drop for Process {
    fn drop(&mut self) {
        self.kill();
    }
}

/// `nginx` in front of `upstreams`, round robin, on a free loopback port,
/// with its own prefix, temporary directories and logs (`daemon off`, one
/// process).
pub struct Nginx {
    pub process: Process,
    pub url: String,
    dir: TempDir,
}

impl Nginx {
    /// nginx with the shipped `deploy/nginx/weather-mcp.conf`, its
    /// upstream servers replaced by `upstreams` and its listen address by
    /// a free loopback port; only the process's own paths are added.
    pub fn start(binary: &Path, upstreams: &[&str]) -> Self {
        let dir = TempDir::new("nginx");
        let d = dir.path().display();
        std::fs::create_dir_all(dir.path().join("logs")).expect("nginx logs directory");
        let conf_path = dir.path().join("nginx.conf");
        let site_path = dir.path().join("weather-mcp.conf");
        let shipped =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../../deploy/nginx/weather-mcp.conf");
        let shipped = std::fs::read_to_string(&shipped)
            .unwrap_or_else(|e| panic!("{}: {e}", shipped.display()));
        let spawn = |port: u16| {
            let site = shipped_site(&shipped, upstreams, &format!("127.0.0.1:{port}"));
            std::fs::write(&site_path, site).expect("site configuration written");
            let conf = format!(
                "daemon off;\nmaster_process off;\nworker_processes 1;\npid {d}/nginx.pid;\nerror_log {d}/logs/error.log warn;\n\
                 events {{ worker_connections 1024; }}\n\
                 http {{\n    access_log off;\n\
                     client_body_temp_path {d}/body;\n    proxy_temp_path {d}/proxy;\n    fastcgi_temp_path {d}/fastcgi;\n\
                     uwsgi_temp_path {d}/uwsgi;\n    scgi_temp_path {d}/scgi;\n\
                     include {};\n}}\n",
                site_path.display()
            );
            std::fs::write(&conf_path, conf).expect("nginx.conf written");
            Command::new(binary)
                .arg("-p")
                .arg(dir.path())
                .arg("-e")
                .arg(dir.path().join("logs/error.log"))
                .arg("-c")
                .arg(&conf_path)
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .expect("nginx starts")
        };
        // nginx names itself in the `Server` header of what it proxies.
        let ours = |addr: &str| {
            response_head(addr)
                .to_ascii_lowercase()
                .contains("\r\nserver: nginx")
        };
        let log = dir_log(dir.path().join("logs/error.log"));
        let (child, port) = listen_on_free_port("nginx", spawn, ours, log);
        Self {
            process: Process(Some(child)),
            url: format!("http://127.0.0.1:{port}/mcp"),
            dir,
        }
    }
}

/// The shipped site configuration with its `upstream` block's servers
/// replaced by `upstreams` (each keeping the shipped server parameters)
/// and its `listen` address by `listen`; every other line as shipped.
fn shipped_site(shipped: &str, upstreams: &[&str], listen: &str) -> String {
    let mut out = String::new();
    let (mut in_upstream, mut servers, mut listens) = (false, 0, 0);
    for line in shipped.lines() {
        let words: Vec<&str> = line.split_whitespace().collect();
        match words.as_slice() {
            ["upstream", _, "{"] => in_upstream = true,
            ["}"] if in_upstream => in_upstream = false,
            ["server", _, params @ ..] if in_upstream => {
                // The shipped parameters, once per replica of the test.
                if servers == 0 {
                    let params = params.join(" ");
                    let params = params.trim_end_matches(';');
                    for upstream in upstreams {
                        out.push_str(&format!("    server {upstream} {params};\n"));
                    }
                }
                servers += 1;
                continue;
            }
            ["listen", _] => {
                out.push_str(&format!("    listen {listen};\n"));
                listens += 1;
                continue;
            }
            _ => {}
        }
        out.push_str(line);
        out.push('\n');
    }
    assert!(
        servers > 0 && listens == 1,
        "deploy/nginx/weather-mcp.conf: one upstream with servers and one listen expected"
    );
    out
}

fn dir_log(path: PathBuf) -> impl Fn() -> String {
    move || std::fs::read_to_string(&path).unwrap_or_default()
}

/// `redis-server` on a free loopback port, no persistence, its own
/// directory.
pub struct Redis {
    pub process: Process,
    pub url: String,
    pub port: u16,
    dir: TempDir,
}

impl Redis {
    /// The standard output of `redis-cli` running `args` against this
    /// server (`redis-cli` comes with `redis-server`).
    pub fn cli(&self, args: &[&str]) -> String {
        let cli = require("redis-cli").expect("redis-cli comes with redis-server");
        let out = Command::new(cli)
            .arg("-p")
            .arg(self.port.to_string())
            .args(args)
            .output()
            .expect("redis-cli runs");
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    pub fn start(binary: &Path) -> Self {
        let dir = TempDir::new("redis");
        let spawn = |port: u16| {
            Command::new(binary)
                .args([
                    "--bind",
                    "127.0.0.1",
                    "--port",
                    &port.to_string(),
                    "--save",
                    "",
                    "--appendonly",
                    "no",
                ])
                .arg("--dir")
                .arg(dir.path())
                .arg("--logfile")
                .arg(dir.path().join("redis.log"))
                .args(["--daemonize", "no"])
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .expect("redis-server starts")
        };
        let log = dir_log(dir.path().join("redis.log"));
        let (child, port) = listen_on_free_port("redis-server", spawn, answers_ping, log);
        Self {
            process: Process(Some(child)),
            url: format!("redis://127.0.0.1:{port}"),
            port,
            dir,
        }
    }
}

/// One raw HTTP/1.1 exchange on loopback (`Connection: close`): the status
/// and the body. For probes the client engines do not make (a legacy
/// request with a session id of another replica, DELETE, /healthz).
pub fn http(
    addr: &str,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> (u16, String) {
    let answer = exchange(addr, method, path, headers, body, Duration::from_secs(30))
        .expect("connect and send the request");
    let status = answer
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let body = answer
        .split_once("\r\n\r\n")
        .map(|(_, b)| b.to_owned())
        .unwrap_or_default();
    (status, body)
}

/// The raw answer to one request (`Connection: close`, `Host` added
/// unless given); `None` when nothing listens at `addr` or the request
/// cannot be sent.
fn exchange(
    addr: &str,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &str,
    wait: Duration,
) -> Option<String> {
    use std::io::{Read, Write};
    let mut stream = std::net::TcpStream::connect(addr).ok()?;
    stream.set_read_timeout(Some(wait)).expect("read timeout");
    let mut request = format!(
        "{method} {path} HTTP/1.1\r\nConnection: close\r\nContent-Length: {}\r\n",
        body.len()
    );
    if !headers
        .iter()
        .any(|(name, _)| name.eq_ignore_ascii_case("host"))
    {
        request.push_str(&format!("Host: {addr}\r\n"));
    }
    for (name, value) in headers {
        request.push_str(&format!("{name}: {value}\r\n"));
    }
    request.push_str("\r\n");
    request.push_str(body);
    stream.write_all(request.as_bytes()).ok()?;
    let mut answer = String::new();
    let _ = stream.read_to_string(&mut answer);
    Some(answer)
}
