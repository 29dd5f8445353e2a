//! The generated client and `mcpgen introspect` against real `https://`
//! servers: the example server (examples/weather-server `--http`) behind a
//! real nginx terminating TLS with certificates this test makes (a
//! throwaway CA, rcgen), and a real HTTP CONNECT proxy (tinyproxy). What a
//! user relies on:
//!
//! - trusting the CA (`--cacert`, `HttpOptions::add_ca_file`) the call
//!   works; without it the connection is refused as "not trusted", naming
//!   the host and the hint; a certificate for another name is a name
//!   mismatch; a server asking for a client certificate gets one (mTLS);
//! - `HTTPS_PROXY` and an explicit proxy tunnel through tinyproxy (its log
//!   shows the CONNECT), `NO_PROXY` bypasses it, a proxy that refuses the
//!   destination or does not listen is an error naming the proxy;
//! - `mcpgen introspect --url https://… --cacert FILE` prints the manifest.
//!
//! nginx and tinyproxy are Debian packages (`.ci/run` installs them); a
//! missing one skips the test, except under `CI=true`, where it fails.

mod cli_support;
mod client_support;

use std::io::{BufRead, BufReader};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{mpsc, OnceLock};
use std::time::{Duration, Instant};

use client_support::{build_driver, generate, root, workspace_bin};
use rcgen::{
    BasicConstraints, CertificateParams, CertifiedIssuer, DnType, ExtendedKeyUsagePurpose, IsCa,
    KeyPair, KeyUsagePurpose,
};
use serde_json::Value;

/// How long a process may take to come up.
const PATIENCE: Duration = Duration::from_secs(30);

/// An installed program, from `PATH` or the Debian locations; `None` after
/// saying why the test is skipped (a panic under `CI=true`).
fn require(name: &str) -> Option<PathBuf> {
    let mut dirs: Vec<PathBuf> = std::env::var_os("PATH")
        .map(|p| std::env::split_paths(&p).collect())
        .unwrap_or_default();
    dirs.extend(["/usr/sbin", "/usr/bin", "/sbin"].map(PathBuf::from));
    let found = dirs.into_iter().map(|d| d.join(name)).find(|p| p.is_file());
    if found.is_none() {
        let why = format!("{name} is not installed (Debian package {name}; .ci/run installs it)");
        if std::env::var("CI").is_ok_and(|v| v == "true") {
            panic!("test cannot run under CI=true: {why}");
        }
        eprintln!("skipped: {why}");
    }
    found
}

/// A child process killed and reaped on drop.
struct Process(Child);

impl Drop for Process {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Starts `spawn(port)` on a free loopback port and waits until it
/// accepts connections; another port when the child exits (the port was
/// taken in between).
fn on_free_port(
    what: &str,
    spawn: impl Fn(u16) -> Child,
    log: impl Fn() -> String,
) -> (Process, u16) {
    for _ in 0..5 {
        let port = TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let mut child = Process(spawn(port));
        let deadline = Instant::now() + PATIENCE;
        loop {
            if matches!(child.0.try_wait(), Ok(Some(_))) {
                break;
            }
            if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
                if matches!(child.0.try_wait(), Ok(None)) {
                    return (child, port);
                }
                break;
            }
            assert!(
                Instant::now() < deadline,
                "{what} does not listen on 127.0.0.1:{port}; log:\n{}",
                log()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }
    panic!("{what} found no free port it could keep; log:\n{}", log());
}

/// The certificates of a test: a CA, a server certificate for `localhost`
/// only (so 127.0.0.1 is a name mismatch), a client certificate.
struct Pki {
    dir: tempfile::TempDir,
}

impl Pki {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let mut ca = CertificateParams::new(Vec::<String>::new()).unwrap();
        ca.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        ca.key_usages = vec![
            KeyUsagePurpose::KeyCertSign,
            KeyUsagePurpose::CrlSign,
            KeyUsagePurpose::DigitalSignature,
        ];
        ca.distinguished_name
            .push(DnType::CommonName, "mcpgen throwaway test CA");
        let ca = CertifiedIssuer::self_signed(ca, KeyPair::generate().unwrap()).unwrap();
        let leaf = |name: &str, purpose| {
            let mut params = CertificateParams::new(vec![name.to_owned()]).unwrap();
            params.distinguished_name.push(DnType::CommonName, name);
            params.extended_key_usages = vec![purpose];
            let key = KeyPair::generate().unwrap();
            (
                params.signed_by(&key, &ca).unwrap().pem(),
                key.serialize_pem(),
            )
        };
        let (server, server_key) = leaf("localhost", ExtendedKeyUsagePurpose::ServerAuth);
        let (client, client_key) = leaf("mcp-test-client", ExtendedKeyUsagePurpose::ClientAuth);
        for (file, text) in [
            ("ca.pem", ca.pem()),
            ("server.pem", server),
            ("server.key", server_key),
            ("client.pem", client),
            ("client.key", client_key),
        ] {
            std::fs::write(dir.path().join(file), text).unwrap();
        }
        Self { dir }
    }

    fn path(&self, file: &str) -> String {
        self.dir.path().join(file).display().to_string()
    }
}

/// The example server on Streamable HTTP (plain, loopback).
fn weather_server() -> (Process, String) {
    let bin = workspace_bin("weather-server", "weather-server", false);
    let mut child = Command::new(bin)
        .args(["--http", "127.0.0.1:0"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start weather-server");
    let stderr = child.stderr.take().unwrap();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            if let Some(url) = line.split("MCP endpoint: ").nth(1) {
                let _ = tx.send(url.trim().to_owned());
            }
        }
    });
    let process = Process(child);
    let url = rx
        .recv_timeout(Duration::from_secs(60))
        .expect("weather-server prints its endpoint on stderr");
    let addr = url
        .trim_start_matches("http://")
        .trim_end_matches("/mcp")
        .to_owned();
    (process, addr)
}

/// nginx terminating TLS in front of `upstream`: one port with the server
/// certificate, one that also requires a client certificate of the CA.
struct Nginx {
    _process: Process,
    port: u16,
    mtls_port: u16,
    _dir: tempfile::TempDir,
}

impl Nginx {
    fn start(binary: &Path, pki: &Pki, upstream: &str) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path().display().to_string();
        std::fs::create_dir_all(dir.path().join("logs")).unwrap();
        let conf_path = dir.path().join("nginx.conf");
        let mtls_port = std::cell::Cell::new(0);
        let spawn = |port: u16| {
            let second = TcpListener::bind("127.0.0.1:0")
                .unwrap()
                .local_addr()
                .unwrap()
                .port();
            mtls_port.set(second);
            let location = format!(
                "location / {{ proxy_pass http://{upstream}; proxy_http_version 1.1; proxy_set_header Connection \"\"; \
                 proxy_set_header Host $http_host; proxy_buffering off; proxy_request_buffering off; }}"
            );
            let tls = format!(
                "ssl_certificate {cert}; ssl_certificate_key {key};",
                cert = pki.path("server.pem"),
                key = pki.path("server.key")
            );
            let conf = format!(
                "daemon off;\nmaster_process off;\nworker_processes 1;\npid {d}/nginx.pid;\nerror_log {d}/logs/error.log warn;\n\
                 events {{ worker_connections 256; }}\n\
                 http {{\n  access_log off;\n  client_body_temp_path {d}/body;\n  proxy_temp_path {d}/proxy;\n\
                   fastcgi_temp_path {d}/fastcgi;\n  uwsgi_temp_path {d}/uwsgi;\n  scgi_temp_path {d}/scgi;\n\
                   server {{ listen 127.0.0.1:{port} ssl; {tls} {location} }}\n\
                   server {{ listen 127.0.0.1:{second} ssl; {tls} ssl_client_certificate {ca}; ssl_verify_client on; {location} }}\n}}\n",
                ca = pki.path("ca.pem")
            );
            std::fs::write(&conf_path, conf).unwrap();
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
        let log_path = dir.path().join("logs/error.log");
        let (process, port) = on_free_port("nginx", spawn, || {
            std::fs::read_to_string(&log_path).unwrap_or_default()
        });
        Self {
            _process: process,
            port,
            mtls_port: mtls_port.get(),
            _dir: dir,
        }
    }
}

/// tinyproxy on a free loopback port, allowing CONNECT to `allowed` only.
struct Tinyproxy {
    _process: Process,
    url: String,
    log: PathBuf,
    _dir: tempfile::TempDir,
}

impl Tinyproxy {
    fn start(binary: &Path, allowed: u16) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("tinyproxy.log");
        let conf_path = dir.path().join("tinyproxy.conf");
        let spawn = |port: u16| {
            let conf = format!(
                "Port {port}\nListen 127.0.0.1\nTimeout 30\nMaxClients 16\nLogFile \"{log}\"\nLogLevel Connect\n\
                 Allow 127.0.0.1\nConnectPort {allowed}\n",
                log = log.display()
            );
            std::fs::write(&conf_path, conf).unwrap();
            Command::new(binary)
                .arg("-d")
                .arg("-c")
                .arg(&conf_path)
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .expect("tinyproxy starts")
        };
        let (process, port) = on_free_port("tinyproxy", spawn, || {
            std::fs::read_to_string(&log).unwrap_or_default()
        });
        Self {
            _process: process,
            url: format!("http://127.0.0.1:{port}"),
            log,
            _dir: dir,
        }
    }

    /// CONNECT requests tinyproxy logged so far.
    fn connects(&self) -> usize {
        std::fs::read_to_string(&self.log)
            .unwrap_or_default()
            .matches("CONNECT")
            .count()
    }
}

/// Everything a test needs: certificates, the example server behind
/// nginx, the driver; `None` when nginx is missing outside CI.
struct Stack {
    pki: Pki,
    nginx: Nginx,
    _server: Process,
    driver: PathBuf,
}

/// The driver, generated and built once for the tests of this file,
/// which run in parallel: each writing the same directory would race.
fn driver() -> PathBuf {
    static DRIVER: OnceLock<PathBuf> = OnceLock::new();
    DRIVER
        .get_or_init(|| {
            let generated = Path::new(env!("CARGO_TARGET_TMPDIR")).join("client-tls/generated");
            generate(
                &root().join("examples/weather-server/tools.json"),
                "2025-11-25",
                &generated,
            );
            build_driver(
                "client_tls_driver",
                &generated,
                include_str!("client_fixtures/tls_driver.rs"),
                false,
            )
        })
        .clone()
}

impl Stack {
    fn start() -> Option<Self> {
        let nginx_bin = require("nginx")?;
        let driver = driver();
        let (server, upstream) = weather_server();
        let pki = Pki::new();
        let nginx = Nginx::start(&nginx_bin, &pki, &upstream);
        Some(Self {
            pki,
            nginx,
            _server: server,
            driver,
        })
    }

    fn url(&self, host: &str) -> String {
        format!("https://{host}:{}/mcp", self.nginx.port)
    }

    /// Runs the driver (no proxy from this test's environment unless
    /// `env` sets one); its exit code and stdout.
    fn drive(&self, url: &str, args: &[&str], env: &[(&str, &str)]) -> (i32, String) {
        let mut cmd = Command::new(&self.driver);
        cmd.arg(url).args(args);
        for var in [
            "HTTPS_PROXY",
            "https_proxy",
            "HTTP_PROXY",
            "http_proxy",
            "ALL_PROXY",
            "all_proxy",
            "NO_PROXY",
            "no_proxy",
        ] {
            cmd.env_remove(var);
        }
        cmd.envs(env.iter().copied());
        let out = cmd.output().expect("driver runs");
        let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
        let stderr = String::from_utf8_lossy(&out.stderr);
        (out.status.code().unwrap_or(-1), format!("{stdout}{stderr}"))
    }
}

fn assert_called(code: i32, out: &str) {
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains("ok connect 2026-07-28") && out.contains("ok get_forecast 2"),
        "{out}"
    );
}

#[test]
fn generated_client_over_https_trusts_the_given_ca_only() {
    let Some(stack) = Stack::start() else { return };
    let ca = stack.pki.path("ca.pem");
    let url = stack.url("localhost");

    // Trusting the throwaway CA: the call goes through nginx's TLS.
    let (code, out) = stack.drive(&url, &["--cacert", &ca, "--bearer", "static-token"], &[]);
    assert_called(code, &out);

    // Without it (Mozilla's roots only): not trusted, naming the host and the way out.
    let (code, out) = stack.drive(&url, &[], &[]);
    assert_eq!(code, 3, "{out}");
    assert!(
        out.contains("connect-error CertificateNotTrusted host=localhost proxy=- "),
        "{out}"
    );
    assert!(
        out.contains(&format!(
            "cannot connect to {url}: the certificate of localhost is not trusted"
        )),
        "{out}"
    );
    assert!(out.contains("--cacert"), "{out}");

    // A certificate for `localhost` reached as 127.0.0.1: a name mismatch.
    let by_ip = stack.url("127.0.0.1");
    let (code, out) = stack.drive(&by_ip, &["--cacert", &ca], &[]);
    assert_eq!(code, 3, "{out}");
    assert!(
        out.contains("connect-error CertificateNameMismatch host=127.0.0.1"),
        "{out}"
    );
    assert!(out.contains("it names localhost"), "{out}");

    // A CA file that does not exist: a configuration error naming it.
    let (code, out) = stack.drive(&url, &["--cacert", "/nonexistent/ca.pem"], &[]);
    assert_eq!(code, 3, "{out}");
    assert!(
        out.contains("connect-error Config") && out.contains("/nonexistent/ca.pem"),
        "{out}"
    );

    // Mutual TLS: with the client certificate the call works; without
    // it nginx refuses the request (400, "No required SSL certificate").
    let mtls = format!("https://localhost:{}/mcp", stack.nginx.mtls_port);
    let identity = [
        "--cacert",
        &ca,
        "--cert",
        &stack.pki.path("client.pem"),
        "--key",
        &stack.pki.path("client.key"),
    ];
    let (code, out) = stack.drive(&mtls, &identity, &[]);
    assert_called(code, &out);
    let (code, out) = stack.drive(&mtls, &["--cacert", &ca], &[]);
    assert_eq!(code, 4, "{out}");
    assert!(
        out.contains("400") && out.contains("No required SSL certificate"),
        "{out}"
    );
}

#[test]
fn https_goes_through_a_connect_proxy_unless_no_proxy_says_otherwise() {
    let Some(stack) = Stack::start() else { return };
    let Some(tinyproxy_bin) = require("tinyproxy") else {
        return;
    };
    let proxy = Tinyproxy::start(&tinyproxy_bin, stack.nginx.port);
    let ca = stack.pki.path("ca.pem");
    let url = stack.url("localhost");

    // HTTPS_PROXY from the environment: tunnelled through tinyproxy.
    let before = proxy.connects();
    let (code, out) = stack.drive(&url, &["--cacert", &ca], &[("HTTPS_PROXY", &proxy.url)]);
    assert_called(code, &out);
    assert!(
        proxy.connects() > before,
        "tinyproxy logged no CONNECT:\n{}",
        std::fs::read_to_string(&proxy.log).unwrap_or_default()
    );

    // The explicit option, whatever the environment says.
    let before = proxy.connects();
    let dead = format!(
        "http://127.0.0.1:{}",
        TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port()
    );
    let (code, out) = stack.drive(
        &url,
        &["--cacert", &ca, "--proxy", &proxy.url],
        &[("HTTPS_PROXY", &dead)],
    );
    assert_called(code, &out);
    assert!(proxy.connects() > before);

    // NO_PROXY: reached directly although HTTPS_PROXY names a dead proxy;
    // without it, the dead proxy is the error, named.
    let (code, out) = stack.drive(
        &url,
        &["--cacert", &ca],
        &[("HTTPS_PROXY", &dead), ("NO_PROXY", "localhost")],
    );
    assert_called(code, &out);
    let (code, out) = stack.drive(&url, &["--cacert", &ca], &[("HTTPS_PROXY", &dead)]);
    assert_eq!(code, 3, "{out}");
    assert!(
        out.contains(&format!(
            "connect-error Refused host=127.0.0.1 proxy={dead} "
        )),
        "{out}"
    );
    // And --no-env-proxy ignores the environment.
    let (code, out) = stack.drive(
        &url,
        &["--cacert", &ca, "--no-env-proxy"],
        &[("HTTPS_PROXY", &dead)],
    );
    assert_called(code, &out);

    // A destination the proxy does not allow (tinyproxy's ConnectPort): refused, with its status.
    let other = format!("https://localhost:{}/mcp", stack.nginx.mtls_port);
    let (code, out) = stack.drive(&other, &["--cacert", &ca, "--proxy", &proxy.url], &[]);
    assert_eq!(code, 3, "{out}");
    assert!(
        out.contains(&format!(
            "connect-error ProxyRefused host=- proxy={} status=403",
            proxy.url
        )),
        "{out}"
    );
}

#[test]
fn introspect_url_https_with_cacert_prints_the_manifest() {
    let Some(stack) = Stack::start() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let url = stack.url("localhost");
    let ca = stack.pki.path("ca.pem");
    let introspect = |args: &[&str]| {
        let mut cmd = cli_support::mcpgen(tmp.path());
        cmd.args(["introspect", "--timeout", "30", "--url", &url])
            .args(args);
        for var in ["HTTPS_PROXY", "https_proxy", "ALL_PROXY", "all_proxy"] {
            cmd.env_remove(var);
        }
        cli_support::run(&mut cmd)
    };
    let r = introspect(&[
        "--cacert",
        &ca,
        "--header",
        "Authorization: Bearer never-logged-token",
    ]);
    assert_eq!(r.code, 0, "stdout:\n{}\nstderr:\n{}", r.stdout, r.stderr);
    let manifest: Value = serde_json::from_str(&r.stdout).unwrap();
    let tools: Vec<&str> = manifest["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    assert!(tools.contains(&"get_forecast"), "{tools:?}");
    assert_eq!(manifest["server"]["name"], "weather-server");
    assert!(!r.stderr.contains("never-logged-token"), "{}", r.stderr);

    let r = introspect(&[]);
    assert_eq!(r.code, 1, "{}", r.stdout);
    assert!(
        r.stderr.contains(&format!(
            "cannot connect to {url}: the certificate of localhost is not trusted"
        )),
        "{}",
        r.stderr
    );
    assert!(
        r.stderr.contains("help:") && r.stderr.contains("--cacert FILE"),
        "{}",
        r.stderr
    );

    let r = introspect(&["--header", "no colon here"]);
    assert_eq!(r.code, 1);
    assert!(
        r.stderr.contains("--header") && r.stderr.contains("NAME: VALUE"),
        "{}",
        r.stderr
    );
}
