//! OAuth 2.1 end to end between code mcpgen generated and a real
//! authorization server nobody here wrote: the npm package `oidc-provider`
//! (OpenID Certified), run under Node on loopback by
//! `tests/interop/oidc/provider.mjs` (dynamic registration, PKCE required,
//! RFC 8707 resource indicators with JWT access tokens for the MCP server's
//! URL, rotating refresh tokens, login and consent answered automatically).
//!
//! The MCP server is this example's generated server (`server::builder`,
//! the manifest's `x-mcpgen.scopes`: `count_notes` and the `notes://{id}`
//! template need `notes:read`, `add_note` needs `notes:write`, with the
//! example's hierarchy `notes:admin` ⊇ `notes:write` ⊇ `notes:read`)
//! behind the runtime's bearer gate with a [`JwtVerifier`] on the
//! provider's JWKS. The client is the generated typed client over the
//! runtime's OAuth transport (discovery, registration, authorization code
//! + PKCE, refresh, step-up). Nothing in between is mocked.
//!
//! A second test logs a machine in with the client credentials grant.
//!
//! Needs `node` and `oidc-provider` in `.interop/` (or `$MCPGEN_INTEROP_DIR`),
//! installed by `bash scripts/setup-interop.sh`. Without them the test says
//! so and passes, unless `CI=true`, where it fails.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Mutex;
use std::time::Duration;

use mcpgen_runtime::client::http::HttpTransport;
use mcpgen_runtime::client::oauth::RedirectFuture as AuthFuture;
use mcpgen_runtime::client::oauth::{AuthError, Callback, OAuth, RedirectReceiver};
use mcpgen_runtime::server::http::auth::{
    BearerAuth, DpopConfig, JwtConfig, JwtVerifier, ResourceMetadata,
};
use mcpgen_runtime::server::http::{serve_with_shutdown, HttpConfig, HttpService};
use notes_server::client::{Client, ClientOptions};
use notes_server::tools::{AddNoteInput, CountNotesInput, NoteParams};
use serde_json::{json, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// Access tokens live this long (seconds); the verifier allows no skew.
const TOKEN_TTL: u64 = 3;

fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Skips (returns `None`) when node or oidc-provider is missing; panics
/// instead under `CI=true`.
fn prerequisites() -> Option<(PathBuf, PathBuf)> {
    let dir = std::env::var_os("MCPGEN_INTEROP_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo_root().join(".interop"));
    // The Node 22 of the official peers when installed (oidc-provider's
    // supported runtime), else node from PATH.
    let peers = std::env::var_os("MCPGEN_PEERS_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo_root().join(".peers"));
    let node = [peers.join("node22/node_modules/node/bin/node")]
        .into_iter()
        .find(|p| p.is_file())
        .unwrap_or_else(|| PathBuf::from("node"));
    let missing = if !dir
        .join("node_modules/oidc-provider/package.json")
        .is_file()
    {
        Some(format!(
            "oidc-provider is not installed in {} (run `bash scripts/setup-interop.sh`)",
            dir.display()
        ))
    } else if Command::new(&node)
        .arg("--version")
        .output()
        .map(|o| !o.status.success())
        .unwrap_or(true)
    {
        Some(format!("{} does not run", node.display()))
    } else {
        None
    };
    if let Some(why) = missing {
        if std::env::var("CI").is_ok_and(|v| v == "true") {
            panic!("oauth_e2e: {why}; CI=true, so this is a failure");
        }
        eprintln!("oauth_e2e: skipped: {why}");
        return None;
    }
    Some((node, dir))
}

/// The authorization server: a Node child ended with the test.
struct Provider {
    child: Child,
    issuer: String,
    /// Where the launcher runs from (removed at the end).
    home: PathBuf,
}

impl Drop for Provider {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.home);
    }
}

impl Provider {
    /// Runs the launcher from a scratch folder whose `node_modules` links
    /// to the interop folder's (which stays untouched); one folder per
    /// provider, as the tests run side by side.
    fn start(node: &Path, dir: &Path) -> Self {
        static STARTED: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let n = STARTED.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let home = std::env::temp_dir().join(format!("mcpgen-oidc-e2e-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&home);
        std::fs::create_dir_all(&home).expect("a scratch folder");
        std::os::unix::fs::symlink(dir.join("node_modules"), home.join("node_modules"))
            .expect("link node_modules");
        let script = home.join("provider.mjs");
        std::fs::copy(repo_root().join("tests/interop/oidc/provider.mjs"), &script)
            .expect("copy provider.mjs");
        let mut child = Command::new(node)
            .arg(&script)
            .current_dir(&home)
            .env("OIDC_AT_TTL", TOKEN_TTL.to_string())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("spawn node");
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .expect("read READY");
        let issuer = line
            .strip_prefix("READY ")
            .unwrap_or_else(|| panic!("provider.mjs printed {line:?}"))
            .trim()
            .to_owned();
        Self {
            child,
            issuer,
            home,
        }
    }

    async fn stats(&self) -> Value {
        let r = get(&format!("{}/_test/stats", self.issuer), &BTreeMap::new()).await;
        serde_json::from_str(&r.body).unwrap()
    }

    async fn rotate(&self) -> Value {
        let r = http(
            &format!("{}/_test/rotate", self.issuer),
            "POST",
            &BTreeMap::new(),
            "",
        )
        .await;
        serde_json::from_str(&r.body).unwrap()
    }

    /// A token from the client credentials grant of the pre-registered
    /// client `minter`, for `resource`.
    async fn mint(&self, resource: &str, scope: &str) -> String {
        let body = format!(
            "grant_type=client_credentials&client_id=minter&client_secret=minter-secret&scope={}&resource={}",
            scope.replace(' ', "%20"),
            resource.replace(':', "%3A").replace('/', "%2F")
        );
        let r = http(
            &format!("{}/token", self.issuer),
            "POST",
            &BTreeMap::new(),
            &body,
        )
        .await;
        assert_eq!(r.status, 200, "token endpoint: {}", r.body);
        let v: Value = serde_json::from_str(&r.body).unwrap();
        v["access_token"].as_str().unwrap().to_owned()
    }
}

// ---------------------------------------------------------------------------
// A small HTTP/1.1 client (loopback only) for the browser's part.

struct Answer {
    status: u16,
    location: Option<String>,
    cookies: Vec<String>,
    body: String,
}

async fn get(url: &str, cookies: &BTreeMap<String, String>) -> Answer {
    http(url, "GET", cookies, "").await
}

async fn http(url: &str, method: &str, cookies: &BTreeMap<String, String>, body: &str) -> Answer {
    let rest = url.strip_prefix("http://").expect("loopback http URL");
    let (authority, path) = rest
        .split_once('/')
        .map(|(a, p)| (a, format!("/{p}")))
        .unwrap_or((rest, "/".to_owned()));
    let addr: SocketAddr = authority.parse().expect("IP:port authority");
    assert!(addr.ip().is_loopback());
    let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    let mut head = format!("{method} {path} HTTP/1.1\r\nhost: {authority}\r\nconnection: close\r\ncontent-length: {}\r\n", body.len());
    if !body.is_empty() {
        head.push_str("content-type: application/x-www-form-urlencoded\r\n");
    }
    if !cookies.is_empty() {
        let jar: Vec<String> = cookies.iter().map(|(k, v)| format!("{k}={v}")).collect();
        head.push_str(&format!("cookie: {}\r\n", jar.join("; ")));
    }
    head.push_str("\r\n");
    stream.write_all(head.as_bytes()).await.unwrap();
    stream.write_all(body.as_bytes()).await.unwrap();
    let mut raw = Vec::new();
    tokio::time::timeout(Duration::from_secs(10), stream.read_to_end(&mut raw))
        .await
        .expect("answer within 10 s")
        .unwrap();
    let text = String::from_utf8_lossy(&raw).into_owned();
    let (head, rest) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let mut lines = head.lines();
    let status = lines
        .next()
        .unwrap()
        .split(' ')
        .nth(1)
        .unwrap()
        .parse()
        .unwrap();
    let (mut location, mut set) = (None, Vec::new());
    let mut chunked = false;
    for line in lines {
        let Some((name, value)) = line.split_once(':') else {
            continue;
        };
        match name.trim().to_ascii_lowercase().as_str() {
            "location" => location = Some(value.trim().to_owned()),
            "set-cookie" => set.push(value.trim().to_owned()),
            "transfer-encoding" => chunked = value.contains("chunked"),
            _ => {}
        }
    }
    let body = if chunked {
        dechunk(rest)
    } else {
        rest.to_owned()
    };
    Answer {
        status,
        location,
        cookies: set,
        body,
    }
}

fn dechunk(mut rest: &str) -> String {
    let mut out = String::new();
    while let Some((size, tail)) = rest.split_once("\r\n") {
        let n = usize::from_str_radix(size.trim(), 16).unwrap_or(0);
        if n == 0 || tail.len() < n {
            break;
        }
        out.push_str(&tail[..n]);
        rest = tail[n..].trim_start_matches("\r\n");
    }
    out
}

/// The browser: follows the authorization server's redirects (login,
/// consent, resume) with a cookie jar kept between authorizations, until
/// one goes to the redirect URI. It keeps the authorization URLs it was
/// sent to, shared with the test.
struct Browser {
    redirect_uri: String,
    jar: Mutex<BTreeMap<String, String>>,
    visited: std::sync::Arc<Mutex<Vec<String>>>,
}

/// A browser with an empty cookie jar that has visited nothing, sending
/// the code to an unused loopback port (it never arrives there: the
/// browser stops at the redirect).
fn browser() -> Browser {
    Browser {
        redirect_uri: "http://127.0.0.1:9/callback".to_owned(),
        jar: Mutex::new(BTreeMap::new()),
        visited: std::sync::Arc::new(Mutex::new(Vec::new())),
    }
}

impl RedirectReceiver for Browser {
    fn redirect_uri(&self) -> String {
        self.redirect_uri.clone()
    }

    fn receive<'a>(
        &'a self,
        authorization_url: &'a str,
    ) -> AuthFuture<'a, Result<Callback, AuthError>> {
        Box::pin(async move {
            self.visited
                .lock()
                .unwrap()
                .push(authorization_url.to_owned());
            let mut url = authorization_url.to_owned();
            for _ in 0..10 {
                let jar = self.jar.lock().unwrap().clone();
                let r = get(&url, &jar).await;
                {
                    let mut jar = self.jar.lock().unwrap();
                    for c in &r.cookies {
                        let pair = c.split(';').next().unwrap_or("");
                        let Some((k, v)) = pair.split_once('=') else {
                            continue;
                        };
                        if v.is_empty()
                            || c.to_ascii_lowercase().contains("expires=thu, 01 jan 1970")
                        {
                            jar.remove(k);
                        } else {
                            jar.insert(k.to_owned(), v.to_owned());
                        }
                    }
                }
                let Some(next) = r.location.filter(|_| (300..400).contains(&r.status)) else {
                    return Err(AuthError::new(format!(
                        "the authorization server answered {} at {url}: {}",
                        r.status, r.body
                    )));
                };
                if let Some(query) = next.strip_prefix(&format!("{}?", self.redirect_uri)) {
                    return Ok(Callback::from_query(query));
                }
                url = if next.starts_with('/') {
                    let origin: String = url.splitn(4, '/').take(3).collect::<Vec<_>>().join("/");
                    format!("{origin}{next}")
                } else {
                    next
                };
            }
            Err(AuthError::new("too many redirects"))
        })
    }
}

// ---------------------------------------------------------------------------
// The protected MCP server: the generated one

struct Mcp {
    url: String,
    _stop: tokio::sync::oneshot::Sender<()>,
}

/// The example's generated server (its builder, scopes and hierarchy)
/// behind a JWT bearer gate on `issuer`'s key set.
async fn mcp_server(issuer: &str) -> Mcp {
    mcp_server_with(issuer, None).await
}

/// [`mcp_server`], its gate taking DPoP-bound tokens as `dpop` says.
async fn mcp_server_with(issuer: &str, dpop: Option<DpopConfig>) -> Mcp {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let server = notes_server::builder(notes_server::Notes::default())
        .build()
        .unwrap();
    // `scopes_supported` is the minimal set for basic use (the
    // specification's scope selection strategy): the first authorization
    // asks for `notes:read` only, and `add_note` needs a step-up.
    let metadata = ResourceMetadata::new(url.as_str())
        .authorization_server(issuer)
        .scopes(["notes:read"]);
    let config = JwtConfig::new(issuer, url.as_str(), format!("{issuer}/jwks"))
        .leeway(Duration::ZERO)
        .refresh_floor(Duration::ZERO);
    let mut gate = BearerAuth::new(metadata, JwtVerifier::new(config)).unwrap();
    if let Some(dpop) = dpop {
        gate = gate.dpop(dpop).unwrap();
    }
    let service = HttpService::new(server, HttpConfig::default().bearer_auth(gate));
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    tokio::spawn(serve_with_shutdown(listener, service, "/mcp", async move {
        let _ = stopped.await;
    }));
    Mcp { url, _stop: stop }
}

/// The status, `WWW-Authenticate` challenge and body of a raw stateless
/// `tools/call` of `tool` with `arguments`, sent with `token`.
async fn raw_call(url: &str, token: &str, tool: &str, arguments: Value) -> (u16, String, String) {
    raw_call_with(url, &format!("Bearer {token}"), None, tool, arguments).await
}

/// [`raw_call`] with this `Authorization` value and `DPoP` proof.
async fn raw_call_with(
    url: &str,
    authorization: &str,
    proof: Option<&str>,
    tool: &str,
    arguments: Value,
) -> (u16, String, String) {
    let rest = url.strip_prefix("http://").unwrap();
    let (authority, path) = rest.split_once('/').unwrap();
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": tool, "arguments": arguments, "_meta": {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "1"}}}})
    .to_string();
    let mut stream = tokio::net::TcpStream::connect(authority).await.unwrap();
    let head = format!(
        "POST /{path} HTTP/1.1\r\nhost: {authority}\r\nconnection: close\r\ncontent-type: application/json\r\naccept: application/json, text/event-stream\r\n\
         mcp-protocol-version: 2026-07-28\r\nmcp-method: tools/call\r\nmcp-name: {tool}\r\nauthorization: {authorization}\r\n{}content-length: {}\r\n\r\n",
        proof.map(|p| format!("dpop: {p}\r\n")).unwrap_or_default(),
        body.len()
    );
    stream.write_all(head.as_bytes()).await.unwrap();
    stream.write_all(body.as_bytes()).await.unwrap();
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw).await.unwrap();
    let text = String::from_utf8_lossy(&raw).into_owned();
    let status = text.split(' ').nth(1).unwrap().parse().unwrap();
    let challenge = text
        .lines()
        .find(|l| l.to_ascii_lowercase().starts_with("www-authenticate:"))
        .unwrap_or("")
        .to_owned();
    let body = text
        .split_once("\r\n\r\n")
        .map_or("", |(_, b)| b)
        .to_owned();
    (status, challenge, body)
}

fn b64url_decode(s: &str) -> Vec<u8> {
    let mut out = Vec::new();
    let (mut acc, mut bits) = (0u32, 0);
    for c in s.bytes() {
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'-' => 62,
            b'_' => 63,
            _ => continue,
        };
        acc = (acc << 6) | u32::from(v);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
        }
    }
    out
}

fn b64url_encode(bytes: &[u8]) -> String {
    const A: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, b)| n | (u32::from(*b) << (16 - 8 * i)));
        for i in 0..=chunk.len() {
            out.push(A[((n >> (18 - 6 * i)) & 63) as usize] as char);
        }
    }
    out
}

fn header_of(token: &str) -> Value {
    serde_json::from_slice(&b64url_decode(token.split('.').next().unwrap())).unwrap()
}

/// The decoded query parameters of `url` (form encoding).
fn query_of(url: &str) -> BTreeMap<String, String> {
    let decode = |s: &str| {
        let bytes = s.as_bytes();
        let mut out = Vec::new();
        let mut i = 0;
        while i < bytes.len() {
            match bytes[i] {
                b'+' => out.push(b' '),
                b'%' if i + 2 < bytes.len() => {
                    out.push(u8::from_str_radix(&s[i + 1..i + 3], 16).unwrap());
                    i += 2;
                }
                b => out.push(b),
            }
            i += 1;
        }
        String::from_utf8(out).unwrap()
    };
    let query = url.split_once('?').map_or("", |(_, q)| q);
    query
        .split('&')
        .filter_map(|pair| pair.split_once('='))
        .map(|(k, v)| (decode(k), decode(v)))
        .collect()
}

fn options() -> ClientOptions {
    ClientOptions::new(["2026-07-28", "2025-11-25"])
        .client_info("oauth-e2e", "1.0")
        .timeout(Duration::from_secs(30))
}

fn note(text: &str) -> AddNoteInput {
    AddNoteInput {
        text: text.parse().unwrap(),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_generated_client_and_server_work_with_a_real_authorization_server() {
    let Some((node, dir)) = prerequisites() else {
        return;
    };
    let provider = Provider::start(&node, &dir);
    let issuer = provider.issuer.clone();
    let mcp = mcp_server(&issuer).await;
    let mut steps = 0;

    // Discovery → dynamic registration → authorization code + PKCE → calls
    // of the generated client.
    let browser = browser();
    let visited = browser.visited.clone();
    let oauth = OAuth::new(browser).client_name("mcpgen oauth e2e");
    let transport = HttpTransport::new(&mcp.url).unwrap().oauth(oauth).unwrap();
    let client = Client::connect_with(transport, options())
        .await
        .expect("connect through the authorization");
    assert_eq!(
        client
            .count_notes(CountNotesInput::default())
            .await
            .expect("count_notes with notes:read")
            .count,
        3
    );
    let read = serde_json::to_value(
        client
            .read_note(NoteParams { id: "12".into() })
            .await
            .expect("a template read with notes:read"),
    )
    .unwrap();
    assert_eq!(
        read["contents"][0]["text"],
        "Call the plumber about the kitchen tap."
    );
    let stats = provider.stats().await;
    assert_eq!(stats["registrations"], 1, "{stats}");
    assert_eq!(stats["authorization_code"], 1, "{stats}");
    {
        let urls = visited.lock().unwrap();
        assert_eq!(urls.len(), 1);
        let query = query_of(&urls[0]);
        assert_eq!(
            query["scope"], "notes:read offline_access",
            "the metadata's scopes_supported, and offline_access: {query:?}"
        );
        assert_eq!(
            query["prompt"], "consent",
            "offline_access goes with prompt=consent (OpenID Connect Core 11)"
        );
        assert_eq!(query["code_challenge_method"], "S256");
        assert_eq!(query["resource"], mcp.url);
    }
    steps += 1;

    // A tool needing more scope: 403 insufficient_scope → step-up → success.
    let added = client
        .add_note(note("Water the plants."))
        .await
        .expect("add_note after a step-up");
    assert_eq!(
        added.author, "alice",
        "the handler sees the verified subject"
    );
    assert_eq!(added.id, "4");
    let stats = provider.stats().await;
    assert_eq!(
        stats["registrations"], 1,
        "the registration is reused: {stats}"
    );
    assert_eq!(stats["authorization_code"], 2, "{stats}");
    {
        let urls = visited.lock().unwrap();
        let query = query_of(&urls[1]);
        let mut scopes: Vec<&str> = query["scope"].split(' ').collect();
        scopes.sort();
        assert_eq!(
            scopes,
            ["notes:read", "notes:write", "offline_access"],
            "the union of the scopes asked before and the challenge's"
        );
        assert_eq!(query["prompt"], "consent");
    }
    assert_eq!(
        client
            .count_notes(CountNotesInput::default())
            .await
            .unwrap()
            .count,
        4,
        "reads kept after the step-up"
    );
    steps += 1;

    // The access token expires → 401 → refresh token → success.
    let refreshed_before = stats["refresh_token"].as_u64().unwrap();
    tokio::time::sleep(Duration::from_secs(TOKEN_TTL + 1)).await;
    let again = client
        .add_note(note("Pay the rent."))
        .await
        .expect("add_note after a refresh");
    assert_eq!((again.id.as_str(), again.author.as_str()), ("5", "alice"));
    let stats = provider.stats().await;
    assert!(
        stats["refresh_token"].as_u64().unwrap() > refreshed_before,
        "no refresh: {stats}"
    );
    assert_eq!(
        stats["authorization_code"], 2,
        "a refresh, not a new authorization: {stats}"
    );
    steps += 1;

    // Key rotation mid-run: the new key signs, the verifier meets an unknown
    // kid and fetches the key set again.
    let jwks_before = stats["jwks"].as_u64().unwrap();
    let rotated = provider.rotate().await;
    let new_kid = rotated["kids"][0].as_str().unwrap().to_owned();
    tokio::time::sleep(Duration::from_secs(TOKEN_TTL + 1)).await;
    let after = client
        .count_notes(CountNotesInput::default())
        .await
        .expect("count_notes after the key rotation");
    assert_eq!(after.count, 5);
    let stats = provider.stats().await;
    assert!(
        stats["jwks"].as_u64().unwrap() > jwks_before,
        "the key set was not fetched again: {stats}"
    );
    let minted = provider.mint(&mcp.url, "notes:read").await;
    assert_eq!(header_of(&minted)["kid"], new_kid.as_str());
    assert_eq!(header_of(&minted)["typ"], "at+jwt");
    assert_eq!(
        raw_call(&mcp.url, &minted, "count_notes", json!({}))
            .await
            .0,
        200,
        "a token of the new key"
    );
    steps += 1;

    // The scope hierarchy the example declares, with tokens of the real
    // server: `notes:admin` alone stands for `notes:write` and, through it,
    // `notes:read`; `notes:read` never for `notes:write`.
    let admin = provider.mint(&mcp.url, "notes:admin").await;
    let (status, _, body) = raw_call(
        &mcp.url,
        &admin,
        "add_note",
        json!({"text": "From the admin."}),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    assert!(body.contains("\"id\":\"6\""), "{body}");
    assert_eq!(
        raw_call(&mcp.url, &admin, "count_notes", json!({})).await.0,
        200
    );
    let (status, challenge, body) =
        raw_call(&mcp.url, &minted, "add_note", json!({"text": "x"})).await;
    assert_eq!(status, 403, "{body}");
    assert!(
        challenge.contains("insufficient_scope") && challenge.contains("notes:write"),
        "{challenge}"
    );
    steps += 1;

    // Tokens the gate must refuse, all issued (or derived from ones issued)
    // by the real server.
    let other = provider
        .mint("http://127.0.0.1:9/other", "notes:read")
        .await;
    let parts: Vec<String> = minted.split('.').map(str::to_owned).collect();
    let none = format!(
        "{}.{}.",
        b64url_encode(br#"{"alg":"none","typ":"at+jwt"}"#),
        parts[1]
    );
    let mut signature = b64url_decode(&parts[2]);
    signature[10] ^= 1;
    let forged_signature = format!("{}.{}.{}", parts[0], parts[1], b64url_encode(&signature));
    let mut claims: Value = serde_json::from_slice(&b64url_decode(&parts[1])).unwrap();
    claims["scope"] = json!("notes:read notes:write");
    let forged_claims = format!(
        "{}.{}.{}",
        parts[0],
        b64url_encode(claims.to_string().as_bytes()),
        parts[2]
    );
    for (what, token) in [
        ("another audience", other),
        ("alg none", none),
        ("a forged signature", forged_signature),
        ("altered claims", forged_claims),
    ] {
        let (status, challenge, _) = raw_call(&mcp.url, &token, "count_notes", json!({})).await;
        assert_eq!(status, 401, "{what}");
        assert!(challenge.contains("invalid_token"), "{what}: {challenge}");
        steps += 1;
    }
    // And the token, once expired.
    tokio::time::sleep(Duration::from_secs(TOKEN_TTL + 1)).await;
    let (status, challenge, _) = raw_call(&mcp.url, &minted, "count_notes", json!({})).await;
    assert_eq!(status, 401, "expired");
    assert!(challenge.contains("expired"), "{challenge}");
    steps += 1;

    assert_eq!(steps, 10);
    eprintln!("oauth_e2e: {steps} steps verified against oidc-provider");
    drop(client);
}

/// A machine logging in as itself: the client credentials grant of the
/// runtime's OAuth client (`client_secret_post`, as the provider's `minter`
/// client is registered), the scopes from the server's metadata, a step-up
/// by the same grant, and a wrong secret refused with the provider's error.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_machine_logs_in_with_client_credentials_at_a_real_authorization_server() {
    use mcpgen_runtime::client::oauth::ClientCredentials;
    let Some((node, dir)) = prerequisites() else {
        return;
    };
    let provider = Provider::start(&node, &dir);
    let issuer = provider.issuer.clone();
    let mcp = mcp_server(&issuer).await;
    let before = provider.stats().await;
    let minter = ClientCredentials::new("minter")
        .secret("minter-secret")
        .auth_method("client_secret_post");
    let transport = HttpTransport::new(&mcp.url)
        .unwrap()
        .oauth(OAuth::client_credentials(minter))
        .unwrap();
    let client = Client::connect_with(transport, options())
        .await
        .expect("connect with a client credentials token");
    assert_eq!(
        client
            .count_notes(CountNotesInput::default())
            .await
            .expect("count_notes with notes:read")
            .count,
        3
    );
    let added = client
        .add_note(note("Rotate the backup disk."))
        .await
        .expect("add_note after a step-up by client credentials");
    assert_eq!(
        added.author, "minter",
        "the subject of a client credentials token is the client"
    );
    let after = provider.stats().await;
    let grants = |s: &Value, k: &str| s[k].as_u64().unwrap_or(0);
    assert_eq!(
        grants(&after, "client_credentials") - grants(&before, "client_credentials"),
        2,
        "one grant for notes:read, one for the step-up: {after}"
    );
    assert_eq!(
        grants(&after, "registrations"),
        grants(&before, "registrations"),
        "no registration"
    );
    assert_eq!(
        grants(&after, "authorization_code"),
        grants(&before, "authorization_code"),
        "no browser"
    );
    drop(client);

    let wrong = ClientCredentials::new("minter")
        .secret("not-the-secret")
        .auth_method("client_secret_post");
    let transport = HttpTransport::new(&mcp.url)
        .unwrap()
        .oauth(OAuth::client_credentials(wrong))
        .unwrap();
    let err = Client::connect_with(transport, options())
        .await
        .expect_err("a wrong secret cannot connect")
        .to_string();
    assert!(
        err.contains("invalid_client") && err.contains("token endpoint"),
        "the provider's refusal, named: {err}"
    );
    assert!(
        !err.contains("not-the-secret"),
        "the secret is never shown: {err}"
    );
}

/// DPoP end to end: the gate takes DPoP-bound tokens, the provider binds
/// tokens to the proof's key, the runtime's client uses DPoP because both
/// offer it. Then the attacks on a stolen token, each refused by the gate:
/// the bearer scheme, another key's proof, a replayed proof, a proof for
/// another URL or method, a stale proof. Last, a gate that demands nonces.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dpop_bound_tokens_hold_at_the_gate_with_a_real_authorization_server() {
    use mcpgen_runtime::client::oauth::{DpopKey, FileTokenStore, TokenStore};
    let Some((node, dir)) = prerequisites() else {
        return;
    };
    let provider = Provider::start(&node, &dir);
    let issuer = provider.issuer.clone();
    let mcp = mcp_server_with(&issuer, Some(DpopConfig::new())).await;
    let scratch = std::env::temp_dir().join(format!("mcpgen-dpop-e2e-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&scratch);
    let tokens = scratch.join("tokens.json");
    let oauth = OAuth::new(browser()).store(FileTokenStore::new(&tokens));
    let transport = HttpTransport::new(&mcp.url).unwrap().oauth(oauth).unwrap();
    let client = Client::connect_with(transport, options())
        .await
        .expect("connect with a DPoP-bound token");
    assert_eq!(
        client
            .count_notes(CountNotesInput::default())
            .await
            .unwrap()
            .count,
        3
    );

    // What the client holds: a token bound to its key.
    let stored = FileTokenStore::new(&tokens)
        .load(&mcp.url)
        .unwrap()
        .unwrap();
    assert!(stored.dpop_bound, "the provider issued a DPoP token");
    let token = stored.access_token.clone().unwrap();
    let key = DpopKey::from_secret(stored.dpop_key.as_deref().unwrap()).unwrap();
    let claims: Value =
        serde_json::from_slice(&b64url_decode(token.split('.').nth(1).unwrap())).unwrap();
    assert_eq!(claims["cnf"]["jkt"], key.thumbprint(), "{claims}");

    let call = |auth: String, proof: Option<String>| {
        let url = mcp.url.clone();
        async move { raw_call_with(&url, &auth, proof.as_deref(), "count_notes", json!({})).await }
    };
    let proof = |method: &str, url: &str, iat: Option<u64>| {
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_secs();
        key.proof_at(method, url, Some(&token), None, iat.unwrap_or(now))
            .unwrap()
    };
    let dpop = format!("DPoP {token}");
    // The holder of the key: accepted.
    let good = proof("POST", &mcp.url, None);
    let (status, _, body) = call(dpop.clone(), Some(good.clone())).await;
    assert_eq!(status, 200, "{body}");
    // A stolen token as a bearer token.
    let (status, challenge, _) = call(format!("Bearer {token}"), None).await;
    assert_eq!(status, 401);
    assert!(
        challenge.contains("DPoP") && challenge.contains("invalid_token"),
        "{challenge}"
    );
    // The same proof again.
    let (status, challenge, _) = call(dpop.clone(), Some(good)).await;
    assert_eq!(status, 401);
    assert!(
        challenge.contains("invalid_dpop_proof") && challenge.contains("used before"),
        "{challenge}"
    );
    // A proof for another URL, for another method, made ten minutes ago.
    for (bad, what) in [
        (proof("POST", "http://127.0.0.1:9/mcp", None), "htu"),
        (proof("GET", &mcp.url, None), "htm"),
        (
            proof(
                "POST",
                &mcp.url,
                Some(claims["iat"].as_u64().unwrap() - 600),
            ),
            "iat",
        ),
    ] {
        let (status, challenge, _) = call(dpop.clone(), Some(bad)).await;
        assert_eq!(status, 401, "{what}");
        assert!(
            challenge.contains("invalid_dpop_proof") && challenge.contains(what),
            "{what}: {challenge}"
        );
    }
    // The thief's own key.
    let thief = DpopKey::generate().unwrap();
    let theirs = thief.proof("POST", &mcp.url, Some(&token), None).unwrap();
    let (status, challenge, _) = call(dpop.clone(), Some(theirs)).await;
    assert_eq!(status, 401);
    assert!(challenge.contains("another key"), "{challenge}");
    // No proof at all.
    let (status, challenge, _) = call(dpop.clone(), None).await;
    assert_eq!(status, 401);
    assert!(challenge.contains("exactly one DPoP header"), "{challenge}");
    drop(client);

    // A gate that demands its nonces: the client answers use_dpop_nonce.
    let strict =
        mcp_server_with(&issuer, Some(DpopConfig::new().required(true).nonces(true))).await;
    let transport = HttpTransport::new(&strict.url)
        .unwrap()
        .oauth(OAuth::new(browser()))
        .unwrap();
    let client = Client::connect_with(transport, options())
        .await
        .expect("connect to a gate demanding nonces");
    assert_eq!(
        client
            .count_notes(CountNotesInput::default())
            .await
            .unwrap()
            .count,
        3
    );
    let (status, challenge, _) = raw_call(&strict.url, &token, "count_notes", json!({})).await;
    assert_eq!(status, 401);
    assert!(!challenge.contains("Bearer"), "DPoP only: {challenge}");
    let _ = std::fs::remove_dir_all(&scratch);
}
