//! OAuth 2.1 on the Streamable HTTP server, over real loopback connections:
//! the protected resource metadata, the bearer gate with the JWT verifier
//! (real RS256 tokens signed by test keys, the key set served by a small
//! loopback JWKS server that can rotate, hang or answer garbage), the
//! manifest scopes answered 403 `insufficient_scope` in both eras,
//! sessions bound to their subject, and hostile headers and tokens.

#![cfg(feature = "oauth")]

mod support;

use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use jsonwebtoken::{Algorithm, EncodingKey, Header};
use mcpgen_runtime::server::http::auth::{
    https_fetcher, BearerAuth, JwtConfig, JwtVerifier, ResourceMetadata, TokenError, TokenVerifier,
};
use mcpgen_runtime::server::http::{serve_with_shutdown, HttpConfig, HttpService};
use mcpgen_runtime::server::ServerBuilder;
use mcpgen_runtime::server::{BoxFuture, CallFailure, Dispatch, ToolOutput};
use mcpgen_runtime::transport::http::HttpOptions;
use mcpgen_runtime::RequestContext;
use serde_json::{json, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use support::{send, Request};

const MODERN: &str = "2026-07-28";
const LEGACY: &str = "2025-11-25";
const ISSUER: &str = "http://127.0.0.1/issuer";
const RESOURCE: &str = "https://mcp.example.com/mcp";

/// The public halves of the two test keys (JWK `n`; `e` is 65537).
const N_A: &str = "3G9KqHpmm6XJQf5FDopABMhbs24Xb2HhaAH6uZvN9kixNLMqs6H911K0wmtaEyATR_stqi-0eE7nE6I5666aT091TmjIE9k4EwTq_Da2CZqR9Lirj2K9eEhewIqGG-M9uBwCu_r0mY3eEdmOKezMQaZo9qCFcC4bJEGev7bZm3XIgymZwCYvh7j8NUrapoJYvr2uQ6NS81z2_O185y7E7QQxj0bXa-Zt1vN5f6HrySK1j45McC88qxVsC1yhjgMvcU0EF3pHqK017UgOpGBZ74fokrb6tnknS98_RIjSg-bIYs6XZw96XxrWQAzImX86wMREefiSeAMCpxAUlxwBfQ";
const N_B: &str = "pciD2n4MgZItePwkg50lLcq6d-ILxCq5xpE09vFsRpeeK6vcPbR5D3Ugv9YNZ504x7paQubYSb0l5lPBgzYi5BtXPkLw3hzqdBEQ63LVgvciyT3LJSc9c2HoDrCCroohtS889pMhvk9WSpBrWz7vv3GhDgJPddbVCs24e9bVqccDOIzZp2keCzAIEmfrnDaJQMlP87MR5zlvAEZ7sJ54C_adia-KnVM7GT2mUGkhtyWqJLxPQihVJBApK2pxv7LYSTW6LkWnG3uJN1K4r19NwjtDJ38A-2c7H4Eq92i80FppaqZTX1O3HJpARo3xoQhA0WWYY-j_FE1itHGI2A57VQ";

fn key(kid: &str) -> EncodingKey {
    let der: &[u8] = if kid == "a" {
        include_bytes!("fixtures/oauth/rsa_a.der")
    } else {
        include_bytes!("fixtures/oauth/rsa_b.der")
    };
    EncodingKey::from_rsa_der(der)
}

fn jwks(kids: &[&str]) -> String {
    let keys: Vec<Value> = kids
        .iter()
        .map(|k| json!({"kty": "RSA", "use": "sig", "alg": "RS256", "kid": k, "n": if *k == "a" { N_A } else { N_B }, "e": "AQAB"}))
        .collect();
    json!({ "keys": keys }).to_string()
}

fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs()
}

/// A token signed with key `kid`, with `claims` over the usual ones.
fn token(kid: &str, claims: Value) -> String {
    let mut all = json!({ "iss": ISSUER, "aud": RESOURCE, "sub": "alice", "client_id": "app", "exp": now() + 300, "iat": now(), "scope": "notes:read" });
    for (k, v) in claims.as_object().unwrap() {
        if v.is_null() {
            all.as_object_mut().unwrap().remove(k);
        } else {
            all[k] = v.clone();
        }
    }
    let mut header = Header::new(Algorithm::RS256);
    header.kid = Some(kid.to_owned());
    jsonwebtoken::encode(&header, &all, &key(kid)).unwrap()
}

fn b64url(bytes: &[u8]) -> String {
    support::base64(bytes)
        .replace('+', "-")
        .replace('/', "_")
        .trim_end_matches('=')
        .to_owned()
}

// ---------------------------------------------------------------------------
// A key set server on loopback

#[derive(Clone)]
enum Jwks {
    Serve(String),
    Hang,
    Garbage,
}

struct KeyServer {
    addr: SocketAddr,
    mode: Arc<Mutex<Jwks>>,
    fetches: Arc<AtomicUsize>,
}

impl KeyServer {
    async fn start(mode: Jwks) -> Self {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let mode = Arc::new(Mutex::new(mode));
        let fetches = Arc::new(AtomicUsize::new(0));
        let (m, f) = (Arc::clone(&mode), Arc::clone(&fetches));
        tokio::spawn(async move {
            while let Ok((mut stream, _)) = listener.accept().await {
                let (m, f) = (Arc::clone(&m), Arc::clone(&f));
                tokio::spawn(async move {
                    let mut buf = Vec::new();
                    let mut chunk = [0u8; 1024];
                    while !buf.windows(4).any(|w| w == b"\r\n\r\n") {
                        match stream.read(&mut chunk).await {
                            Ok(0) | Err(_) => return,
                            Ok(n) => buf.extend_from_slice(&chunk[..n]),
                        }
                    }
                    f.fetch_add(1, Ordering::SeqCst);
                    let mode = m.lock().unwrap().clone();
                    let body = match mode {
                        Jwks::Hang => {
                            tokio::time::sleep(Duration::from_secs(60)).await;
                            return;
                        }
                        Jwks::Garbage => "<html>not a key set".to_owned(),
                        Jwks::Serve(text) => text,
                    };
                    let head = format!("HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n", body.len());
                    let _ = stream.write_all(head.as_bytes()).await;
                    let _ = stream.write_all(body.as_bytes()).await;
                });
            }
        });
        Self {
            addr,
            mode,
            fetches,
        }
    }

    fn uri(&self) -> String {
        format!("http://{}/jwks", self.addr)
    }

    fn set(&self, mode: Jwks) {
        *self.mode.lock().unwrap() = mode;
    }

    fn fetches(&self) -> usize {
        self.fetches.load(Ordering::SeqCst)
    }
}

/// A key set served over `https://localhost:PORT/jwks` with a certificate
/// of a throwaway CA (rcgen); the port and the CA's PEM.
async fn https_key_server(body: String) -> (u16, String) {
    use rcgen::{
        BasicConstraints, CertificateParams, CertifiedIssuer, DnType, IsCa, KeyPair,
        KeyUsagePurpose,
    };
    let mut ca = CertificateParams::new(Vec::<String>::new()).unwrap();
    ca.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    ca.key_usages = vec![
        KeyUsagePurpose::KeyCertSign,
        KeyUsagePurpose::DigitalSignature,
    ];
    ca.distinguished_name
        .push(DnType::CommonName, "mcpgen oauth test CA");
    let ca = CertifiedIssuer::self_signed(ca, KeyPair::generate().unwrap()).unwrap();
    let key = KeyPair::generate().unwrap();
    let leaf = CertificateParams::new(vec!["localhost".to_owned()])
        .unwrap()
        .signed_by(&key, &ca)
        .unwrap();
    let chain = vec![leaf.der().clone()];
    let private = rustls_pki_types::PrivateKeyDer::Pkcs8(key.serialize_der().into());
    let config = rustls::ServerConfig::builder_with_provider(Arc::new(
        rustls::crypto::ring::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .unwrap()
    .with_no_client_auth()
    .with_single_cert(chain, private)
    .unwrap();
    let acceptor = tokio_rustls::TlsAcceptor::from(Arc::new(config));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    tokio::spawn(async move {
        while let Ok((tcp, _)) = listener.accept().await {
            let (acceptor, body) = (acceptor.clone(), body.clone());
            tokio::spawn(async move {
                // A client that does not trust the CA ends the handshake.
                let Ok(mut stream) = acceptor.accept(tcp).await else {
                    return;
                };
                let mut buf = Vec::new();
                let mut chunk = [0u8; 1024];
                while !buf.windows(4).any(|w| w == b"\r\n\r\n") {
                    match stream.read(&mut chunk).await {
                        Ok(0) | Err(_) => return,
                        Ok(n) => buf.extend_from_slice(&chunk[..n]),
                    }
                }
                let head = format!("HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n", body.len());
                let _ = stream.write_all(head.as_bytes()).await;
                let _ = stream.write_all(body.as_bytes()).await;
                let _ = stream.shutdown().await;
            });
        }
    });
    (port, ca.pem())
}

// ---------------------------------------------------------------------------
// The protected MCP server

/// `read` (no scope), `write` (`notes:write`), `whoami` (the principal).
struct Notes;

impl Dispatch for Notes {
    fn call(
        &self,
        _index: usize,
        _args: Value,
        ctx: RequestContext,
    ) -> BoxFuture<Result<ToolOutput, CallFailure>> {
        let p = ctx.principal().cloned();
        Box::pin(async move {
            let seen = json!({
                "subject": p.as_ref().map(|p| p.subject.clone()),
                "client": p.as_ref().and_then(|p| p.client_id.clone()),
                "scopes": p.as_ref().map(|p| p.scopes.clone()),
                "expires": p.as_ref().and_then(|p| p.expires_at).is_some(),
            });
            Ok(ToolOutput::Content(
                json!([{"type": "text", "text": seen.to_string()}]),
            ))
        })
    }
}

struct Protected {
    addr: SocketAddr,
    keys: KeyServer,
    _stop: tokio::sync::oneshot::Sender<()>,
}

async fn protected_with(keys: KeyServer, config: JwtConfig, hide: bool) -> Protected {
    let tools = json!([
        {"name": "read", "inputSchema": {"type": "object"}},
        {"name": "write", "inputSchema": {"type": "object"}},
        {"name": "whoami", "inputSchema": {"type": "object"}}
    ]);
    let server = ServerBuilder::new(LEGACY, tools, Arc::new(Notes))
        .tool_scopes("write", ["notes:write"])
        .hide_unauthorized(hide)
        .build()
        .unwrap();
    let metadata = ResourceMetadata::new(RESOURCE)
        .authorization_server(ISSUER)
        .scopes(["notes:read", "notes:write"]);
    let gate = BearerAuth::new(metadata, JwtVerifier::new(config))
        .unwrap()
        .verify_timeout(Duration::from_secs(2));
    let service = HttpService::new(server, HttpConfig::default().bearer_auth(gate));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    tokio::spawn(async move {
        serve_with_shutdown(listener, service, "/mcp", async move {
            let _ = stopped.await;
        })
        .await
    });
    Protected {
        addr,
        keys,
        _stop: stop,
    }
}

async fn protected() -> Protected {
    let keys = KeyServer::start(Jwks::Serve(jwks(&["a"]))).await;
    let config = JwtConfig::new(ISSUER, RESOURCE, keys.uri());
    protected_with(keys, config, false).await
}

fn meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "oauth-test", "version": "1"}
    })
}

fn call(tool: &str) -> Request {
    let body = json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": tool, "arguments": {}, "_meta": meta()}});
    Request::post(&body)
        .header("MCP-Protocol-Version", MODERN)
        .header("Mcp-Method", "tools/call")
        .header("Mcp-Name", tool)
}

fn list() -> Request {
    let body =
        json!({"jsonrpc": "2.0", "id": 8, "method": "tools/list", "params": {"_meta": meta()}});
    Request::post(&body)
        .header("MCP-Protocol-Version", MODERN)
        .header("Mcp-Method", "tools/list")
}

fn bearer(request: Request, token: &str) -> Request {
    request.header("Authorization", &format!("Bearer {token}"))
}

fn challenge(r: &support::Response) -> String {
    r.header("www-authenticate")
        .unwrap_or_else(|| panic!("{} without WWW-Authenticate: {}", r.status(), r.text()))
        .to_owned()
}

const METADATA_URL: &str = "https://mcp.example.com/.well-known/oauth-protected-resource/mcp";

// ---------------------------------------------------------------------------

#[tokio::test]
async fn the_metadata_is_served_at_both_well_known_paths_from_configuration() {
    let p = protected().await;
    for path in [
        "/.well-known/oauth-protected-resource/mcp",
        "/.well-known/oauth-protected-resource",
    ] {
        // The Host a proxy forwards does not change what is published.
        let r = send(
            p.addr,
            &Request::new("GET", path).header("X-Forwarded-Host", "evil.example"),
        )
        .await;
        assert_eq!(r.status(), 200, "{path}: {}", r.text());
        assert_eq!(
            r.json(),
            json!({
                "resource": RESOURCE,
                "authorization_servers": [ISSUER],
                "scopes_supported": ["notes:read", "notes:write"],
                "bearer_methods_supported": ["header"]
            })
        );
    }
    let r = send(
        p.addr,
        &Request::new("GET", "/.well-known/oauth-protected-resource/other"),
    )
    .await;
    assert_eq!(r.status(), 404);
}

#[tokio::test]
async fn no_or_bad_tokens_get_401_challenges_naming_the_metadata() {
    let p = protected().await;
    let r = send(p.addr, &call("read")).await;
    assert_eq!(r.status(), 401);
    assert_eq!(
        challenge(&r),
        format!("Bearer resource_metadata=\"{METADATA_URL}\", scope=\"notes:read notes:write\"")
    );

    let expired = token("a", json!({"exp": now() - 3600}));
    let r = send(p.addr, &bearer(call("read"), &expired)).await;
    assert_eq!(r.status(), 401);
    assert!(
        challenge(&r).contains("error=\"invalid_token\", error_description=\"the token expired\""),
        "{}",
        challenge(&r)
    );

    let other_audience = token("a", json!({"aud": "https://other.example.com/mcp"}));
    let other_issuer = token("a", json!({"iss": "http://127.0.0.1/elsewhere"}));
    let not_yet = token("a", json!({"nbf": now() + 3600}));
    let no_exp = token("a", json!({"exp": null}));
    let mut forged = token("a", json!({}));
    forged.truncate(forged.rfind('.').unwrap());
    forged.push('.');
    forged.push_str(&b64url(&[7u8; 256]));
    // The payload swapped for one with more scope: the signature no longer matches.
    let good = token("a", json!({}));
    let parts: Vec<&str> = good.split('.').collect();
    let swapped = format!("{}.{}.{}", parts[0], b64url(json!({"iss": ISSUER, "aud": RESOURCE, "sub": "alice", "exp": now() + 300, "scope": "notes:write"}).to_string().as_bytes()), parts[2]);
    let none = format!("{}.{}.", b64url(br#"{"alg":"none","typ":"JWT"}"#), parts[1]);
    // HMAC keyed with the public key's text: refused by algorithm.
    let hmac = {
        let mut h = Header::new(Algorithm::HS256);
        h.kid = Some("a".into());
        jsonwebtoken::encode(
            &h,
            &json!({"iss": ISSUER, "aud": RESOURCE, "sub": "m", "exp": now() + 300}),
            &EncodingKey::from_secret(N_A.as_bytes()),
        )
        .unwrap()
    };
    let unknown_kid = token("b", json!({}));
    for (what, t) in [
        ("other audience", other_audience),
        ("other issuer", other_issuer),
        ("not yet valid", not_yet),
        ("no exp", no_exp),
        ("forged signature", forged),
        ("swapped payload", swapped),
        ("alg none", none),
        ("HMAC", hmac),
        ("unknown key", unknown_kid),
        ("not a JWT", "abc.def".to_owned()),
    ] {
        let r = send(p.addr, &bearer(call("read"), &t)).await;
        assert_eq!(r.status(), 401, "{what}: {}", r.text());
        assert!(
            challenge(&r).contains("error=\"invalid_token\""),
            "{what}: {}",
            challenge(&r)
        );
        assert!(challenge(&r).contains(METADATA_URL), "{what}");
    }
}

#[tokio::test]
async fn a_valid_token_reaches_the_handler_as_the_principal() {
    let p = protected().await;
    let r = send(p.addr, &bearer(call("whoami"), &token("a", json!({})))).await;
    assert_eq!(r.status(), 200, "{}", r.text());
    let seen: Value =
        serde_json::from_str(r.json()["result"]["content"][0]["text"].as_str().unwrap()).unwrap();
    assert_eq!(
        seen,
        json!({"subject": "alice", "client": "app", "scopes": ["notes:read"], "expires": true})
    );
}

#[tokio::test]
async fn too_little_scope_is_403_insufficient_scope_naming_what_is_needed() {
    let p = protected().await;
    let r = send(p.addr, &bearer(call("write"), &token("a", json!({})))).await;
    assert_eq!(r.status(), 403, "{}", r.text());
    assert_eq!(
        challenge(&r),
        format!("Bearer error=\"insufficient_scope\", scope=\"notes:read notes:write\", resource_metadata=\"{METADATA_URL}\", error_description=\"the token lacks scopes this request needs\"")
    );
    assert_eq!(r.json()["id"], 7);
    assert_eq!(
        r.json()["error"]["code"],
        mcpgen_runtime::server::INSUFFICIENT_SCOPE
    );
    assert_eq!(
        r.json()["error"]["data"]["requiredScopes"],
        json!(["notes:write"])
    );
    // Step-up: the same caller with the scope.
    let r = send(
        p.addr,
        &bearer(
            call("write"),
            &token("a", json!({"scope": "notes:read notes:write"})),
        ),
    )
    .await;
    assert_eq!(r.status(), 200, "{}", r.text());
}

#[tokio::test]
async fn lists_can_hide_what_the_caller_may_not_use() {
    let keys = KeyServer::start(Jwks::Serve(jwks(&["a"]))).await;
    let config = JwtConfig::new(ISSUER, RESOURCE, keys.uri());
    let p = protected_with(keys, config, true).await;
    let names = |r: &support::Response| -> Vec<String> {
        r.json()["result"]["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["name"].as_str().unwrap().to_owned())
            .collect()
    };
    let r = send(p.addr, &bearer(list(), &token("a", json!({})))).await;
    assert_eq!(names(&r), ["read", "whoami"]);
    assert_eq!(
        r.json()["result"]["cacheScope"],
        "private",
        "a filtered list is the caller's own"
    );
    let r = send(
        p.addr,
        &bearer(list(), &token("a", json!({"scope": "notes:write"}))),
    )
    .await;
    assert_eq!(names(&r), ["read", "write", "whoami"]);
}

#[tokio::test]
async fn the_key_set_is_fetched_once_and_again_for_a_rotated_key() {
    let keys = KeyServer::start(Jwks::Serve(jwks(&["a"]))).await;
    let config = JwtConfig::new(ISSUER, RESOURCE, keys.uri()).refresh_floor(Duration::ZERO);
    let p = protected_with(keys, config, false).await;
    for _ in 0..3 {
        assert_eq!(
            send(p.addr, &bearer(call("read"), &token("a", json!({}))))
                .await
                .status(),
            200
        );
    }
    assert_eq!(p.keys.fetches(), 1, "cached after the first fetch");
    p.keys.set(Jwks::Serve(jwks(&["a", "b"])));
    let r = send(p.addr, &bearer(call("read"), &token("b", json!({})))).await;
    assert_eq!(
        r.status(),
        200,
        "a token of the new key after rotation: {}",
        r.text()
    );
    assert_eq!(p.keys.fetches(), 2);
    p.keys.set(Jwks::Serve(jwks(&["b"])));
    // Key `a` is still cached; a retired key is refused once the set is fetched again.
    let r = send(p.addr, &bearer(call("read"), &token("c", json!({})))).await;
    assert_eq!(r.status(), 401);
    let r = send(p.addr, &bearer(call("read"), &token("a", json!({})))).await;
    assert_eq!(r.status(), 401, "key a left the set");
}

#[tokio::test]
async fn unknown_key_ids_do_not_fetch_more_often_than_the_floor() {
    let p = protected().await; // 30 s floor
    assert_eq!(
        send(p.addr, &bearer(call("read"), &token("a", json!({}))))
            .await
            .status(),
        200
    );
    for _ in 0..5 {
        assert_eq!(
            send(p.addr, &bearer(call("read"), &token("b", json!({}))))
                .await
                .status(),
            401
        );
    }
    assert_eq!(
        p.keys.fetches(),
        1,
        "a flood of unknown key ids is no flood of fetches"
    );
}

#[tokio::test]
async fn a_key_set_that_hangs_or_is_garbage_is_503_not_a_hang() {
    for mode in [Jwks::Hang, Jwks::Garbage] {
        let keys = KeyServer::start(mode).await;
        let config =
            JwtConfig::new(ISSUER, RESOURCE, keys.uri()).fetch_timeout(Duration::from_millis(300));
        let p = protected_with(keys, config, false).await;
        let r = send(p.addr, &bearer(call("read"), &token("a", json!({})))).await;
        assert_eq!(r.status(), 503, "{}", r.text());
        assert_eq!(r.header("retry-after"), Some("5"));
    }
}

#[tokio::test]
async fn hostile_authorization_headers_and_tokens_are_refused_cleanly() {
    let p = protected().await;
    let huge_header = format!(
        "{}.e30.sig",
        b64url(format!("{{\"alg\":\"RS256\",\"kid\":\"{}\"}}", "k".repeat(6000)).as_bytes())
    );
    let deep = format!(
        "{}.e30.sig",
        b64url(format!("{}{}", "[".repeat(3000), "]".repeat(3000)).as_bytes())
    );
    let deep_claims = {
        let t = token("a", json!({}));
        let parts: Vec<&str> = t.split('.').collect();
        format!(
            "{}.{}.{}",
            parts[0],
            b64url(format!("{{\"a\":{}{}}}", "[".repeat(3000), "]".repeat(3000)).as_bytes()),
            parts[2]
        )
    };
    for (what, value) in [
        ("basic", "Basic YWxpY2U6cw==".to_owned()),
        ("empty bearer", "Bearer ".to_owned()),
        ("two words", "Bearer a b".to_owned()),
        ("huge", format!("Bearer {}", "a".repeat(20_000))),
        ("huge JOSE header", format!("Bearer {huge_header}")),
        ("deep JSON header", format!("Bearer {deep}")),
        ("deep JSON claims", format!("Bearer {deep_claims}")),
    ] {
        let r = send(p.addr, &call("read").header("Authorization", &value)).await;
        assert_eq!(r.status(), 401, "{what}: {}", r.text());
        assert!(
            challenge(&r).starts_with("Bearer resource_metadata="),
            "{what}"
        );
    }
    // The server still serves.
    assert_eq!(
        send(p.addr, &bearer(call("read"), &token("a", json!({}))))
            .await
            .status(),
        200
    );
}

#[tokio::test]
async fn a_session_is_bound_to_the_subject_that_opened_it() {
    let p = protected().await;
    let alice = token("a", json!({}));
    let mallory = token("a", json!({"sub": "mallory"}));
    let init = Request::post(&json!({"jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {"protocolVersion": LEGACY, "capabilities": {}, "clientInfo": {"name": "c", "version": "1"}}}));
    let r = send(p.addr, &bearer(init, &alice)).await;
    assert_eq!(r.status(), 200, "{}", r.text());
    let session = r.header("mcp-session-id").unwrap().to_owned();
    let in_session = |id: i64, tool: &str| {
        Request::post(&json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": tool, "arguments": {}}}))
            .header("Mcp-Session-Id", &session)
            .header("MCP-Protocol-Version", LEGACY)
    };
    let r = send(p.addr, &bearer(in_session(1, "read"), &alice)).await;
    assert_eq!(r.status(), 200, "{}", r.text());
    let r = send(p.addr, &bearer(in_session(2, "read"), &mallory)).await;
    assert_eq!(
        r.status(),
        404,
        "another subject's token cannot ride the session"
    );
    let r = send(p.addr, &in_session(3, "read")).await;
    assert_eq!(r.status(), 401, "a session id is no credential");
    // Scopes hold in the session era too.
    let r = send(p.addr, &bearer(in_session(4, "write"), &alice)).await;
    assert_eq!(r.status(), 403, "{}", r.text());
    assert!(challenge(&r).contains("insufficient_scope"));
}

#[tokio::test]
async fn the_default_fetcher_reads_an_https_key_set_trusting_the_configured_ca() {
    let (port, ca) = https_key_server(jwks(&["a"])).await;
    let uri = format!("https://localhost:{port}/jwks");
    let trusting = HttpOptions::new().add_ca_pem(ca).no_env_proxy();
    let verifier =
        JwtVerifier::new(JwtConfig::new(ISSUER, RESOURCE, &uri).fetcher(https_fetcher(trusting)));
    let principal = verifier
        .verify(&token("a", json!({})))
        .await
        .expect("the key set is fetched over https");
    assert_eq!(principal.subject, "alice");

    // The default roots do not include the test CA: the fetch fails, saying why.
    let verifier = JwtVerifier::new(JwtConfig::new(ISSUER, RESOURCE, &uri));
    match verifier.verify(&token("a", json!({}))).await {
        Err(TokenError::Unavailable(why)) => {
            assert!(why.contains("not trusted") && why.contains(&uri), "{why}")
        }
        other => panic!("expected the key set to be unavailable, got {other:?}"),
    }

    // Plain http:// off loopback is refused before anything is sent.
    let verifier = JwtVerifier::new(JwtConfig::new(
        ISSUER,
        RESOURCE,
        "http://auth.example.com/jwks",
    ));
    match verifier.verify(&token("a", json!({}))).await {
        Err(TokenError::Unavailable(why)) => assert!(
            why.contains("not a loopback address") && why.contains("https://"),
            "{why}"
        ),
        other => panic!("expected plain http:// to be refused, got {other:?}"),
    }
}
