//! `mcpgen introspect --url` end to end: the example server
//! (examples/weather-server) on Streamable HTTP at 127.0.0.1, introspected
//! by the `mcpgen` binary; and the errors of bad URLs.

mod cli_support;
mod client_support;

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use cli_support::{mcpgen, run};
use client_support::{root, workspace_bin};
use serde_json::Value;

/// The example server on an ephemeral port; killed when dropped.
struct Server {
    child: Child,
    url: String,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn weather_server() -> Server {
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
    // Reads stderr to its end, so the server never blocks on a full pipe.
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            if let Some(url) = line.split("MCP endpoint: ").nth(1) {
                let _ = tx.send(url.trim().to_owned());
            }
        }
    });
    let url = rx
        .recv_timeout(Duration::from_secs(60))
        .expect("weather-server prints its endpoint on stderr");
    assert!(
        url.starts_with("http://127.0.0.1:") && url.ends_with("/mcp"),
        "{url}"
    );
    Server { child, url }
}

/// The arguments of `mcpgen introspect --url URL`, with `--timeout
/// SECONDS` when given, then `more`.
fn introspect<'a>(url: &'a str, timeout: Option<&'a str>, more: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec!["introspect", "--url", url];
    if let Some(seconds) = timeout {
        args.extend(["--timeout", seconds]);
    }
    args.extend_from_slice(more);
    args
}

fn declared_tools() -> Vec<String> {
    let text = std::fs::read_to_string(root().join("examples/weather-server/tools.json")).unwrap();
    let manifest: Value = serde_json::from_str(&text).unwrap();
    manifest["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn introspect_url_writes_the_example_servers_manifest() {
    let server = weather_server();
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("nested/introspected.json");
    let r = run(mcpgen(tmp.path())
        .args(introspect(&server.url, Some("30"), &["--out"]))
        .arg(&out));
    assert_eq!(r.code, 0, "stdout:\n{}\nstderr:\n{}", r.stdout, r.stderr);
    let tools = declared_tools();
    assert!(
        r.stderr.contains(&format!(
            "mcpgen introspect: {} tool(s) from {} (protocol 2026-07-28)",
            tools.len(),
            server.url
        )),
        "{}",
        r.stderr
    );
    let manifest: Value = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    let listed: Vec<&str> = manifest["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(listed, tools);
    assert_eq!(manifest["server"]["name"], "weather-server");
    assert!(manifest["tools"][0]["inputSchema"]["properties"].is_object());
    // What introspection writes is a manifest mcpgen accepts.
    let check = run(mcpgen(tmp.path()).args(["manifest", "check"]).arg(&out));
    assert_eq!(check.code, 0, "{}{}", check.stdout, check.stderr);

    // To stdout without --out.
    let r = run(mcpgen(tmp.path()).args(introspect(&server.url, None, &[])));
    assert_eq!(r.code, 0, "{}", r.stderr);
    let printed: Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(printed, manifest);
}

#[test]
fn introspect_url_reports_bad_urls_and_unreachable_servers() {
    let tmp = tempfile::tempdir().unwrap();
    let r = run(mcpgen(tmp.path()).args(introspect("ftp://example.com/mcp", None, &[])));
    assert_eq!(r.code, 1);
    assert!(r.stderr.contains("use http://"), "{}", r.stderr);

    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let url = format!("http://127.0.0.1:{port}/mcp");
    let r = run(mcpgen(tmp.path()).args(introspect(&url, Some("10"), &[])));
    assert_eq!(r.code, 1);
    assert!(
        r.stderr.contains(&format!("cannot connect to {url}")),
        "{}",
        r.stderr
    );
    assert!(r.stderr.contains("help:"), "{}", r.stderr);

    // Either a URL or a command, not both, and one of them.
    let r = run(mcpgen(tmp.path()).args(introspect(&url, None, &["--", "server"])));
    assert_eq!(r.code, 2, "{}", r.stderr);
    let r = run(mcpgen(tmp.path()).args(["introspect"]));
    assert_eq!(r.code, 2, "{}", r.stderr);
}

#[test]
fn introspect_url_names_a_wrong_path() {
    let server = weather_server();
    let tmp = tempfile::tempdir().unwrap();
    let wrong = server.url.replace("/mcp", "/not-mcp");
    let r = run(mcpgen(tmp.path()).args(introspect(&wrong, Some("10"), &[])));
    assert_eq!(r.code, 1);
    assert!(
        r.stderr.contains("404 Not Found") && r.stderr.contains("as an MCP endpoint"),
        "{}",
        r.stderr
    );
}

/// What a fake server answers: status line, extra header lines, body.
type Answer = (String, String, Vec<u8>);

/// A loopback HTTP server that answers every request with `answer(method,
/// path, its port)`. Serves until the test ends.
fn fake_server(answer: fn(&str, &str, u16) -> Answer) -> String {
    use std::io::{Read, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut request_line = String::new();
            if reader.read_line(&mut request_line).is_err() {
                continue;
            }
            let mut length = 0usize;
            loop {
                let mut line = String::new();
                if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
                    break;
                }
                if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                    length = v.trim().parse().unwrap_or(0);
                }
            }
            let mut body = vec![0; length];
            let _ = reader.read_exact(&mut body);
            let mut parts = request_line.split_whitespace();
            let (method, path) = (parts.next().unwrap_or(""), parts.next().unwrap_or(""));
            let (status, headers, body) = answer(method, path, port);
            let head = format!(
                "HTTP/1.1 {status}\r\n{headers}content-length: {}\r\nconnection: close\r\n\r\n",
                body.len()
            );
            let _ = stream.write_all(head.as_bytes());
            let _ = stream.write_all(&body);
        }
    });
    format!("http://127.0.0.1:{port}/mcp")
}

#[test]
fn introspect_url_hints_fit_http_and_the_oauth_flag() {
    let tmp = tempfile::tempdir().unwrap();
    // An answer nested 100,000 deep: not a JSON-RPC message, and not a
    // stdio server's stray log line either.
    let url = fake_server(|_, _, _| {
        let depth = 100_000;
        let body = format!(
            "{{\"jsonrpc\":\"2.0\",\"id\":0,\"result\":{}{}}}",
            "[".repeat(depth),
            "]".repeat(depth)
        );
        (
            "200 OK".into(),
            "content-type: application/json\r\n".into(),
            body.into_bytes(),
        )
    });
    let r = run(mcpgen(tmp.path()).args(introspect(&url, Some("10"), &[])));
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(
        r.stderr.contains("not a JSON-RPC message") && r.stderr.contains("MCP endpoint"),
        "{}",
        r.stderr
    );
    assert!(
        !r.stderr.contains("stdio") && !r.stderr.contains("stdout"),
        "{}",
        r.stderr
    );

    // A server that asks for authorization, whose resource metadata is
    // larger than the client reads: with --oauth, the hint names the
    // failing step, not --oauth.
    let url = fake_server(|method, _, port| {
        match method {
        "POST" => (
            "401 Unauthorized".into(),
            format!(
                "www-authenticate: Bearer resource_metadata=\"http://127.0.0.1:{port}/.well-known/oauth-protected-resource\"\r\n"
            ),
            Vec::new(),
        ),
        _ => (
            "200 OK".into(),
            "content-type: application/json\r\n".into(),
            format!("{{\"pad\": \"{}\"}}", "x".repeat(2 << 20)).into_bytes(),
        ),
    }
    });
    let config = tmp.path().join("config");
    let r = run(mcpgen(tmp.path())
        .env("XDG_CONFIG_HOME", &config)
        .args(introspect(&url, Some("10"), &["--oauth"])));
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(r.stderr.contains("logging in failed"), "{}", r.stderr);
    assert!(!r.stderr.contains("pass --oauth"), "{}", r.stderr);
    // Without --oauth, the same server gets the hint to pass it.
    let r = run(mcpgen(tmp.path()).args(introspect(&url, Some("10"), &[])));
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(r.stderr.contains("pass --oauth"), "{}", r.stderr);
}

/// A request read off a loopback connection: its head (request line and
/// header lines, as sent) and body.
struct Received {
    head: String,
    body: Vec<u8>,
}

impl Received {
    fn read(stream: &std::net::TcpStream) -> Option<Self> {
        use std::io::Read;
        let mut reader = BufReader::new(stream.try_clone().ok()?);
        let mut head = String::new();
        let mut length = 0usize;
        loop {
            let mut line = String::new();
            if reader.read_line(&mut line).ok()? == 0 {
                return None;
            }
            if line == "\r\n" {
                break;
            }
            if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                length = v.trim().parse().ok()?;
            }
            head.push_str(&line);
        }
        let mut body = vec![0; length];
        reader.read_exact(&mut body).ok()?;
        Some(Self { head, body })
    }

    fn path(&self) -> &str {
        self.head.split_whitespace().nth(1).unwrap_or("")
    }

    fn header(&self, name: &str) -> Option<&str> {
        self.head.lines().skip(1).find_map(|l| {
            let (n, v) = l.split_once(':')?;
            n.eq_ignore_ascii_case(name).then(|| v.trim())
        })
    }
}

/// An authorization server and a bearer gate in front of `upstream` (an
/// MCP endpoint), on one loopback port: `/token` grants `cc-token` to the
/// client `machine` with the secret `s3cret` (HTTP Basic, client
/// credentials, the resource named); `/mcp` forwards requests carrying
/// that token and answers others `401` with the resource metadata's URL.
/// Returns the gate's MCP URL and the count of tokens granted.
fn gated(upstream: &str) -> (String, std::sync::Arc<std::sync::atomic::AtomicUsize>) {
    use std::io::Write;
    use std::sync::atomic::{AtomicUsize, Ordering};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let url = format!("{base}/mcp");
    let upstream = upstream
        .strip_prefix("http://")
        .and_then(|r| r.split('/').next())
        .unwrap()
        .to_owned();
    let granted = std::sync::Arc::new(AtomicUsize::new(0));
    let count = granted.clone();
    let (gate_url, issuer) = (url.clone(), base.clone());
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let (url, base, upstream, count) = (
                gate_url.clone(),
                issuer.clone(),
                upstream.clone(),
                count.clone(),
            );
            std::thread::spawn(move || {
                let Some(req) = Received::read(&stream) else {
                    return;
                };
                let json = |status: &str, extra: &str, body: String| {
                    format!(
                        "HTTP/1.1 {status}\r\ncontent-type: application/json\r\n{extra}content-length: {}\r\nconnection: close\r\n\r\n{body}",
                        body.len()
                    )
                };
                let answer = match req.path() {
                    "/.well-known/oauth-protected-resource/mcp"
                    | "/.well-known/oauth-protected-resource" => json(
                        "200 OK",
                        "",
                        serde_json::json!({"resource": url, "authorization_servers": [base]}).to_string(),
                    ),
                    "/.well-known/oauth-authorization-server" => json(
                        "200 OK",
                        "",
                        serde_json::json!({
                            "issuer": base,
                            "authorization_endpoint": format!("{base}/authorize"),
                            "token_endpoint": format!("{base}/token"),
                            "grant_types_supported": ["client_credentials"],
                            "token_endpoint_auth_methods_supported": ["client_secret_basic"],
                        })
                        .to_string(),
                    ),
                    "/token" => {
                        let form = String::from_utf8_lossy(&req.body).into_owned();
                        let resource = url.replace(':', "%3A").replace('/', "%2F");
                        // base64 of `machine:s3cret`.
                        if req.header("authorization") == Some("Basic bWFjaGluZTpzM2NyZXQ=")
                            && form.contains("grant_type=client_credentials")
                            && form.contains(&format!("resource={resource}"))
                        {
                            count.fetch_add(1, Ordering::SeqCst);
                            json(
                                "200 OK",
                                "",
                                r#"{"access_token":"cc-token","token_type":"Bearer","expires_in":3600}"#.into(),
                            )
                        } else {
                            json(
                                "401 Unauthorized",
                                "",
                                r#"{"error":"invalid_client","error_description":"unknown client or secret"}"#.into(),
                            )
                        }
                    }
                    "/mcp" if req.header("authorization") == Some("Bearer cc-token") => {
                        // Forwarded as sent, but for Host and the connection's end.
                        let mut upstream_stream = std::net::TcpStream::connect(&upstream).unwrap();
                        let mut head = String::new();
                        for (i, line) in req.head.lines().enumerate() {
                            let name = line.split(':').next().unwrap_or("").to_ascii_lowercase();
                            if i > 0 && (name == "host" || name == "connection") {
                                continue;
                            }
                            head.push_str(line);
                            head.push_str("\r\n");
                        }
                        head.push_str(&format!("host: {upstream}\r\nconnection: close\r\n\r\n"));
                        upstream_stream.write_all(head.as_bytes()).unwrap();
                        upstream_stream.write_all(&req.body).unwrap();
                        let _ = std::io::copy(&mut upstream_stream, &mut stream);
                        return;
                    }
                    _ => format!(
                        "HTTP/1.1 401 Unauthorized\r\nwww-authenticate: Bearer resource_metadata=\"{base}/.well-known/oauth-protected-resource/mcp\"\r\ncontent-length: 0\r\nconnection: close\r\n\r\n"
                    ),
                };
                let _ = stream.write_all(answer.as_bytes());
            });
        }
    });
    (url, granted)
}

#[test]
fn introspect_url_logs_a_machine_in_with_client_credentials() {
    let server = weather_server();
    let (url, granted) = gated(&server.url);
    let tmp = tempfile::tempdir().unwrap();
    let config = tmp.path().join("config");
    // Without credentials: refused, with the hint to log in.
    let r = run(mcpgen(tmp.path()).args(introspect(&url, Some("20"), &[])));
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(r.stderr.contains("pass --oauth"), "{}", r.stderr);

    // The secret from the environment (it never shows on a command line).
    let r = run(mcpgen(tmp.path())
        .env("XDG_CONFIG_HOME", &config)
        .env("MCPGEN_CLIENT_SECRET", "s3cret")
        .args(introspect(&url, Some("20"), &["--client-id", "machine"])));
    assert_eq!(r.code, 0, "{}", r.stderr);
    let manifest: Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(
        manifest["tools"].as_array().unwrap().len(),
        declared_tools().len()
    );
    assert_eq!(
        granted.load(std::sync::atomic::Ordering::SeqCst),
        1,
        "one token, no browser"
    );

    // A wrong secret: the token endpoint's refusal, the secret never shown.
    let r = run(mcpgen(tmp.path())
        .env("XDG_CONFIG_HOME", tmp.path().join("other"))
        .args(introspect(
            &url,
            Some("20"),
            &["--client-id", "machine", "--client-secret", "wrong-secret"],
        )));
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(r.stderr.contains("invalid_client"), "{}", r.stderr);
    assert!(!r.stderr.contains("wrong-secret"), "{}", r.stderr);

    // --client-id alone cannot log in; a key that is not PEM is named.
    let r = run(mcpgen(tmp.path()).args(introspect(&url, None, &["--client-id", "machine"])));
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(
        r.stderr.contains("--client-secret or --client-key"),
        "{}",
        r.stderr
    );
    let bad_key = tmp.path().join("key.pem");
    std::fs::write(&bad_key, "not a key").unwrap();
    let r = run(mcpgen(tmp.path())
        .args(introspect(
            &url,
            None,
            &["--client-id", "machine", "--client-key"],
        ))
        .arg(&bad_key));
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(
        r.stderr.contains("--client-key") && r.stderr.contains("PEM"),
        "{}",
        r.stderr
    );
}
