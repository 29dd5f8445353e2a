//! The upstream client against small APIs of its own on loopback: where
//! each argument goes on the wire (request line, headers, bodies), each
//! kind of credential, the start-up errors, retries, redirects, timeouts,
//! the size limit, and how answers become tool results.

#![cfg(feature = "upstream")]

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use bytes::Bytes;
use http::{HeaderMap, Request, Response, StatusCode};
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper_util::rt::TokioIo;
use mcpgen_runtime::transport::http::HttpOptions;
use mcpgen_runtime::upstream::Upstream;
use mcpgen_runtime::{RequestContext, ToolOutput};
use serde_json::{json, Value};
use tokio::net::TcpListener;

/// A request as the API saw it.
#[derive(Debug, Clone)]
struct Seen {
    method: String,
    /// The request target exactly as sent (`/path?query`).
    target: String,
    headers: HeaderMap,
    body: Bytes,
}

impl Seen {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }
}

type Handler = dyn Fn(&Seen, usize) -> Response<Full<Bytes>> + Send + Sync;

/// A loopback API: answers each request with `handler(request, index)`
/// and records what it saw.
struct Api {
    addr: SocketAddr,
    seen: Arc<Mutex<Vec<Seen>>>,
    connections: Arc<AtomicUsize>,
}

impl Api {
    async fn start(
        handler: impl Fn(&Seen, usize) -> Response<Full<Bytes>> + Send + Sync + 'static,
    ) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let seen: Arc<Mutex<Vec<Seen>>> = Arc::default();
        let handler: Arc<Handler> = Arc::new(handler);
        let log = Arc::clone(&seen);
        let connections: Arc<AtomicUsize> = Arc::default();
        let accepted = Arc::clone(&connections);
        tokio::spawn(async move {
            loop {
                let Ok((stream, _)) = listener.accept().await else {
                    return;
                };
                accepted.fetch_add(1, Ordering::SeqCst);
                let (log, handler) = (Arc::clone(&log), Arc::clone(&handler));
                tokio::spawn(async move {
                    let service = hyper::service::service_fn(move |req: Request<Incoming>| {
                        let (log, handler) = (Arc::clone(&log), Arc::clone(&handler));
                        async move {
                            let (parts, body) = req.into_parts();
                            let body = body
                                .collect()
                                .await
                                .map(|b| b.to_bytes())
                                .unwrap_or_default();
                            let seen = Seen {
                                method: parts.method.to_string(),
                                target: parts.uri.to_string(),
                                headers: parts.headers,
                                body,
                            };
                            let index = {
                                let mut log = log.lock().unwrap();
                                log.push(seen.clone());
                                log.len() - 1
                            };
                            Ok::<_, Infallible>(handler(&seen, index))
                        }
                    });
                    let _ = hyper::server::conn::http1::Builder::new()
                        .serve_connection(TokioIo::new(stream), service)
                        .await;
                });
            }
        });
        Api {
            addr,
            seen,
            connections,
        }
    }

    fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    fn seen(&self) -> Vec<Seen> {
        self.seen.lock().unwrap().clone()
    }
}

fn answer(status: u16, media: &str, body: impl Into<Bytes>) -> Response<Full<Bytes>> {
    let mut r = Response::new(Full::new(body.into()));
    *r.status_mut() = StatusCode::from_u16(status).unwrap();
    if !media.is_empty() {
        r.headers_mut()
            .insert("content-type", media.parse().unwrap());
    }
    r
}

fn json_ok(value: Value) -> Response<Full<Bytes>> {
    answer(200, "application/json", value.to_string())
}

/// The bindings text of one tool.
fn one(binding: Value) -> String {
    json!([binding]).to_string()
}

fn get(path: &str, server: &str) -> Value {
    json!({"operationId": "op", "method": "GET", "path": path, "servers": [{"url": server}]})
}

fn text_of(output: &ToolOutput) -> String {
    match output {
        ToolOutput::Content(Value::Array(blocks)) => {
            blocks[0]["text"].as_str().unwrap_or_default().to_owned()
        }
        other => panic!("not content: {other:?}"),
    }
}

#[tokio::test]
async fn parameters_go_on_the_wire_as_their_styles_say() {
    let api = Api::start(|_, _| json_ok(json!({"ok": true}))).await;
    let mut b = get(
        "/items/{id}/{coords}",
        &format!("{}/v{{version}}", api.url()),
    );
    b["servers"][0]["variables"] = json!({"version": {"default": "2"}});
    b["parameters"] = json!([
        {"argument": "id", "name": "id", "in": "path", "style": "simple", "explode": false, "required": true},
        {"argument": "coords", "name": "coords", "in": "path", "style": "matrix", "explode": true},
        {"argument": "tags", "name": "tags", "in": "query", "style": "form", "explode": true},
        {"argument": "ids", "name": "ids", "in": "query", "style": "pipeDelimited", "explode": false},
        {"argument": "words", "name": "words", "in": "query", "style": "spaceDelimited", "explode": false},
        {"argument": "filter", "name": "filter", "in": "query", "style": "deepObject", "explode": true},
        {"argument": "path", "name": "path", "in": "query", "style": "form", "explode": true, "allowReserved": true},
        {"argument": "json", "name": "json", "in": "query", "style": "form", "explode": true, "contentType": "application/json"},
        {"argument": "missing", "name": "missing", "in": "query", "style": "form", "explode": true},
        {"argument": "trace", "name": "X-Trace-Ids", "in": "header", "style": "simple", "explode": false},
        {"argument": "session", "name": "session", "in": "cookie", "style": "form", "explode": true},
        {"argument": "prefs", "name": "prefs", "in": "cookie", "style": "form", "explode": false}
    ]);
    let upstream = Upstream::builder(&one(b)).build().unwrap();
    let args = json!({
        "id": "a b/ü", "coords": {"x": 1, "y": 2},
        "tags": ["red", "green"], "ids": [1, 2, 3], "words": ["a", "b"],
        "filter": {"status": "open", "owner": {"name": "Ann"}, "n": [5, 6]},
        "path": "/a/b?c", "json": {"k": "v"},
        "trace": ["t1", "t2"], "session": "s&1", "prefs": ["x", "y"]
    });
    let out = upstream.call(0, &args).await.unwrap();
    assert_eq!(text_of(&out), r#"{"ok":true}"#);
    let seen = &api.seen()[0];
    assert_eq!(seen.method, "GET");
    assert_eq!(
        seen.target,
        "/v2/items/a%20b%2F%C3%BC/;x=1;y=2\
         ?tags=red&tags=green&ids=1%7C2%7C3&words=a%20b\
         &filter[status]=open&filter[owner][name]=Ann&filter[n][0]=5&filter[n][1]=6\
         &path=/a/b?c&json=%7B%22k%22%3A%22v%22%7D"
    );
    assert_eq!(seen.header("x-trace-ids"), Some("t1,t2"));
    assert_eq!(seen.header("cookie"), Some("session=s%261; prefs=x,y"));
    assert_eq!(seen.header("host"), Some(api.addr.to_string().as_str()));
}

#[tokio::test]
async fn bodies_are_encoded_by_media_type() {
    let api = Api::start(|_, _| answer(204, "", "")).await;
    let post = |media: &str, encoding: Value| {
        json!({"operationId": "op", "method": "POST", "path": "/x", "servers": [{"url": api.url()}],
               "body": {"argument": "body", "mediaType": media, "encoding": encoding}})
    };
    let bindings = json!([
        post("application/json", json!({})),
        post(
            "application/x-www-form-urlencoded",
            json!({"metadata": {"style": "deepObject", "explode": true}})
        ),
        post(
            "multipart/form-data",
            json!({"file": {"contentType": "image/png"}, "note": {"contentType": "text/plain"}})
        ),
        post("application/octet-stream", json!({})),
        post("text/csv", json!({}))
    ]);
    let upstream = Upstream::builder(&bindings.to_string()).build().unwrap();
    let out = upstream
        .call(0, &json!({"body": {"name": "Rex", "age": 3}}))
        .await
        .unwrap();
    assert_eq!(text_of(&out), "POST /x answered 204 No Content (no body)");
    upstream
        .call(
            1,
            &json!({"body": {"amount": 100, "live": false, "description": "a b+c",
                                   "metadata": {"order": {"id": "7"}}, "items": ["x", "y"]}}),
        )
        .await
        .unwrap();
    upstream
        .call(
            2,
            &json!({"body": {"file": "iVBORw==", "note": "hello", "count": 2, "meta": {"a": 1}}}),
        )
        .await
        .unwrap();
    upstream
        .call(3, &json!({"body": "AAEC/w=="}))
        .await
        .unwrap();
    upstream
        .call(4, &json!({"body": "a,b\n1,2\n"}))
        .await
        .unwrap();
    upstream.call(0, &json!({})).await.unwrap();
    let seen = api.seen();
    assert_eq!(seen[0].header("content-type"), Some("application/json"));
    assert_eq!(seen[0].body, r#"{"name":"Rex","age":3}"#);
    assert_eq!(
        seen[1].header("content-type"),
        Some("application/x-www-form-urlencoded")
    );
    assert_eq!(
        seen[1].body,
        "amount=100&live=false&description=a%20b%2Bc&metadata[order][id]=7&items=x&items=y"
    );
    let kind = seen[2].header("content-type").unwrap().to_owned();
    let boundary = kind
        .strip_prefix("multipart/form-data; boundary=")
        .expect(&kind);
    let mut expected = format!(
        "--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"file\"\r\nContent-Type: image/png\r\n\r\n"
    )
    .into_bytes();
    expected.extend_from_slice(b"\x89PNG");
    expected.extend_from_slice(
        format!(
            "\r\n--{b}\r\nContent-Disposition: form-data; name=\"note\"\r\nContent-Type: text/plain\r\n\r\nhello\r\n\
             --{b}\r\nContent-Disposition: form-data; name=\"count\"\r\n\r\n2\r\n\
             --{b}\r\nContent-Disposition: form-data; name=\"meta\"\r\nContent-Type: application/json\r\n\r\n{{\"a\":1}}\r\n\
             --{b}--\r\n",
            b = boundary
        )
        .as_bytes(),
    );
    assert_eq!(seen[2].body.as_ref(), expected.as_slice());
    assert_eq!(
        seen[3].header("content-type"),
        Some("application/octet-stream")
    );
    assert_eq!(seen[3].body.as_ref(), [0, 1, 2, 255]);
    assert_eq!(seen[4].body, "a,b\n1,2\n");
    assert_eq!(
        seen[5].header("content-type"),
        None,
        "no body argument, no body"
    );
    assert!(seen[5].body.is_empty());
}

fn secured(server: &str, schemes: Value) -> Value {
    let mut b = get("/me", server);
    b["security"] = schemes;
    b
}

#[tokio::test]
async fn each_kind_of_credential_is_applied() {
    let api = Api::start(|_, _| json_ok(json!({}))).await;
    let url = api.url();
    let bindings = json!([
        secured(
            &url,
            json!([[{"scheme": "k", "type": "apiKey", "in": "header", "name": "X-Api-Key", "env": "T1_KEY"}]])
        ),
        secured(
            &url,
            json!([[{"scheme": "q", "type": "apiKey", "in": "query", "name": "api key", "env": "T1_Q"}]])
        ),
        secured(
            &url,
            json!([[{"scheme": "c", "type": "apiKey", "in": "cookie", "name": "sid", "env": "T1_C"}]])
        ),
        secured(
            &url,
            json!([[{"scheme": "b", "type": "bearer", "env": "T1_BEARER"}]])
        ),
        secured(
            &url,
            json!([[{"scheme": "basic", "type": "basic", "env": "T1_BASIC"}]])
        ),
        secured(
            &url,
            json!([[{"scheme": "o", "type": "oauth2", "env": "T1_OAUTH"}]])
        ),
        // AND: both schemes of the alternative; the first alternative
        // lacks its variable, so the second one is used.
        secured(
            &url,
            json!([
                [{"scheme": "none", "type": "bearer", "env": "T1_UNSET"}],
                [{"scheme": "k", "type": "apiKey", "in": "header", "name": "X-Api-Key", "env": "T1_KEY"},
                 {"scheme": "q", "type": "apiKey", "in": "query", "name": "api key", "env": "T1_Q"}]
            ])
        ),
        // Unsupported first, then anonymous.
        secured(
            &url,
            json!([[{"scheme": "mtls", "type": "unsupported", "env": "T1_MTLS"}], []])
        )
    ]);
    let env = |name: &str| {
        Some(
            match name {
                "T1_KEY" => "key-1",
                "T1_Q" => "q&1",
                "T1_C" => "cookie 1",
                "T1_BEARER" => "tok-b",
                "T1_BASIC" => "ann:pa:ss",
                "T1_OAUTH" => "tok-o",
                _ => return None,
            }
            .to_owned(),
        )
    };
    let upstream = Upstream::builder(&bindings.to_string())
        .env(env)
        .build()
        .unwrap();
    for tool in 0..8 {
        upstream.call(tool, &json!({})).await.unwrap();
    }
    let seen = api.seen();
    assert_eq!(seen[0].header("x-api-key"), Some("key-1"));
    assert_eq!(seen[1].target, "/me?api%20key=q%261");
    assert_eq!(seen[2].header("cookie"), Some("sid=cookie%201"));
    assert_eq!(seen[3].header("authorization"), Some("Bearer tok-b"));
    // base64("ann:pa:ss")
    assert_eq!(seen[4].header("authorization"), Some("Basic YW5uOnBhOnNz"));
    assert_eq!(seen[5].header("authorization"), Some("Bearer tok-o"));
    assert_eq!(seen[6].header("x-api-key"), Some("key-1"));
    assert_eq!(seen[6].target, "/me?api%20key=q%261");
    assert_eq!(seen[6].header("authorization"), None);
    assert_eq!(seen[7].header("authorization"), None);
    assert_eq!(seen[7].target, "/me");
    // The builder's values win over the environment.
    let upstream = Upstream::builder(&bindings.to_string())
        .env(env)
        .credential("b", "from-builder")
        .build()
        .unwrap();
    upstream.call(3, &json!({})).await.unwrap();
    assert_eq!(
        api.seen()[8].header("authorization"),
        Some("Bearer from-builder")
    );
}

#[tokio::test]
async fn client_credentials_fetch_cache_and_refresh_the_token() {
    let lifetime = Arc::new(Mutex::new(3600u64));
    let life = Arc::clone(&lifetime);
    let auth = Api::start(move |_, index| {
        json_ok(
            json!({"access_token": format!("tok{index}"), "token_type": "Bearer",
                       "expires_in": *life.lock().unwrap()}),
        )
    })
    .await;
    let api = Api::start(|_, _| json_ok(json!({}))).await;
    let scheme = json!([[{"scheme": "cc", "type": "oauth2", "tokenUrl": format!("{}/token", auth.url()),
                          "scopes": ["read", "write"], "env": "T2_CC"}]]);
    let bindings = json!([
        secured(&api.url(), scheme.clone()),
        secured(&api.url(), scheme)
    ]);
    let env = |name: &str| match name {
        "T2_CC_CLIENT_ID" => Some("client 1".to_owned()),
        "T2_CC_CLIENT_SECRET" => Some("s3cr:t".to_owned()),
        _ => None,
    };
    let upstream = Upstream::builder(&bindings.to_string())
        .env(env)
        .build()
        .unwrap();
    upstream.call(0, &json!({})).await.unwrap();
    upstream.call(1, &json!({})).await.unwrap();
    let tokens = auth.seen();
    assert_eq!(
        tokens.len(),
        1,
        "the token is cached across calls and tools"
    );
    assert_eq!(tokens[0].method, "POST");
    assert_eq!(tokens[0].target, "/token");
    assert_eq!(
        tokens[0].header("content-type"),
        Some("application/x-www-form-urlencoded")
    );
    assert_eq!(
        tokens[0].body,
        "grant_type=client_credentials&scope=read%20write"
    );
    // base64("client%201:s3cr%3At")
    assert_eq!(
        tokens[0].header("authorization"),
        Some("Basic Y2xpZW50JTIwMTpzM2NyJTNBdA==")
    );
    let seen = api.seen();
    assert_eq!(seen[0].header("authorization"), Some("Bearer tok0"));
    assert_eq!(seen[1].header("authorization"), Some("Bearer tok0"));

    // A token about to expire is replaced before it is used again.
    *lifetime.lock().unwrap() = 10;
    let upstream = Upstream::builder(
        &json!([secured(
            &api.url(),
            json!([[{"scheme": "cc", "type": "oauth2",
        "tokenUrl": format!("{}/token", auth.url()), "env": "T2_CC"}]])
        )])
        .to_string(),
    )
    .client_credentials("cc", "id", "secret")
    .build()
    .unwrap();
    upstream.call(0, &json!({})).await.unwrap();
    upstream.call(0, &json!({})).await.unwrap();
    assert_eq!(auth.seen().len(), 3);
    assert_eq!(auth.seen()[1].body, "grant_type=client_credentials");
    let seen = api.seen();
    assert_eq!(seen[2].header("authorization"), Some("Bearer tok1"));
    assert_eq!(seen[3].header("authorization"), Some("Bearer tok2"));
}

#[tokio::test]
async fn missing_credentials_and_urls_fail_the_start_naming_the_variables() {
    let bindings = json!([
        null,
        secured(
            "https://api.example.com",
            json!([
                [{"scheme": "k", "type": "apiKey", "in": "header", "name": "X-Key", "env": "T3_KEY"}],
                [{"scheme": "cc", "type": "oauth2", "tokenUrl": "https://auth.example.com/token", "env": "T3_CC"}]
            ])
        ),
        get("/relative", "/v1")
    ]);
    let err = Upstream::builder(&bindings.to_string())
        .build()
        .unwrap_err();
    assert_eq!(
        err.variables(),
        [
            "T3_KEY",
            "T3_CC_CLIENT_ID",
            "T3_CC_CLIENT_SECRET",
            "MCP_UPSTREAM_URL"
        ]
    );
    assert!(
        err.message().contains("tool #1 (op) needs credentials for its API: set T3_KEY, or set T3_CC_CLIENT_ID and T3_CC_CLIENT_SECRET"),
        "{err}"
    );
    assert!(
        err.message().contains("tool #2 (op)") && err.message().contains("set MCP_UPSTREAM_URL"),
        "{err}"
    );
    // With the variables set it starts; MCP_UPSTREAM_URL replaces the servers.
    let upstream = Upstream::builder(&bindings.to_string())
        .env(|name| {
            (name == "T3_KEY" || name == "MCP_UPSTREAM_URL")
                .then(|| "http://127.0.0.1:9/base".to_owned())
        })
        .build()
        .unwrap();
    assert!(upstream.binding(0).is_none() && upstream.binding(1).is_some());
    let e = upstream.call(0, &json!({})).await.unwrap_err();
    assert!(e.message().contains("no HTTP binding"), "{e}");
    // A value a header cannot carry is named, never shown.
    let err = Upstream::builder(&one(secured(
        "http://127.0.0.1:9",
        json!([[{"scheme": "b", "type": "bearer", "env": "T3_BEARER"}]]),
    )))
    .credential("b", "line\nbreak")
    .build()
    .unwrap_err();
    assert_eq!(err.variables(), ["T3_BEARER"]);
    assert!(
        err.message()
            .contains("set T3_BEARER (set, but its value cannot be sent in a header)")
            && !err.message().contains("break"),
        "{err}"
    );
    assert!(Upstream::builder("{")
        .build()
        .unwrap_err()
        .message()
        .contains("do not parse"));
}

#[tokio::test]
async fn credentials_never_show_in_errors() {
    let api = Api::start(|seen, _| answer(401, "text/plain", format!("bad {}", seen.target))).await;
    let bindings = one(secured(
        &api.url(),
        json!([[{"scheme": "q", "type": "apiKey", "in": "query", "name": "key", "env": "T4"}]]),
    ));
    let upstream = Upstream::builder(&bindings)
        .credential("q", "sekrit")
        .build()
        .unwrap();
    let err = upstream.call(0, &json!({})).await.unwrap_err();
    // The API echoed the key itself; the client's own words never hold it.
    assert!(
        err.message()
            .starts_with("GET /me failed: the API answered 401 Unauthorized: bad /me?key="),
        "{err}"
    );
    assert!(!format!("{upstream:?}").contains("sekrit"));
}

#[tokio::test]
async fn idempotent_requests_are_retried_after_429_and_503() {
    let api = Api::start(|seen, index| {
        if seen.target.starts_with("/flaky") && index == 0 {
            let mut r = answer(429, "text/plain", "slow down");
            r.headers_mut().insert("retry-after", "1".parse().unwrap());
            return r;
        }
        if seen.target.starts_with("/down") {
            let mut r = answer(503, "text/plain", "down");
            r.headers_mut().insert("retry-after", "0".parse().unwrap());
            return r;
        }
        json_ok(json!({"n": index}))
    })
    .await;
    let post = json!({"operationId": "op", "method": "POST", "path": "/down", "servers": [{"url": api.url()}]});
    let bindings = json!([get("/flaky", &api.url()), get("/down", &api.url()), post]);
    let upstream = Upstream::builder(&bindings.to_string()).build().unwrap();
    let out = upstream.call(0, &json!({})).await.unwrap();
    assert_eq!(text_of(&out), r#"{"n":1}"#);
    assert_eq!(api.seen().len(), 2);
    let err = upstream.call(1, &json!({})).await.unwrap_err();
    assert!(
        err.message().contains("503 Service Unavailable: down"),
        "{err}"
    );
    assert_eq!(api.seen().len(), 5, "one request and two retries");
    let err = upstream.call(2, &json!({})).await.unwrap_err();
    assert!(err.message().starts_with("POST /down failed"), "{err}");
    assert_eq!(api.seen().len(), 6, "a POST is not sent again");
    let upstream = Upstream::builder(&bindings.to_string())
        .max_retries(0)
        .build()
        .unwrap();
    upstream.call(1, &json!({})).await.unwrap_err();
    assert_eq!(api.seen().len(), 7);
}

#[tokio::test]
async fn redirects_are_followed_and_credentials_stay_home() {
    let other = Api::start(|_, _| json_ok(json!({"where": "other"}))).await;
    let elsewhere = format!("{}/landing", other.url());
    let api = Api::start(move |seen, _| {
        let to = |status: u16, location: &str| {
            let mut r = answer(status, "", "");
            r.headers_mut()
                .insert("location", location.parse().unwrap());
            r
        };
        match seen.target.as_str() {
            "/old" => to(302, "/new?x=1"),
            "/away" => to(301, &elsewhere),
            "/loop" => to(302, "/loop"),
            "/post-307" => to(307, "/new"),
            "/post-302" => to(302, "/new"),
            _ => json_ok(json!({"where": "home", "target": seen.target})),
        }
    })
    .await;
    let secured_at = |method: &str, path: &str| {
        json!({"operationId": "op", "method": method, "path": path, "servers": [{"url": api.url()}],
               "security": [[{"scheme": "b", "type": "bearer", "env": "T5"}]],
               "body": {"argument": "body", "mediaType": "application/json"}})
    };
    let bindings = json!([
        secured_at("GET", "/old"),
        secured_at("GET", "/away"),
        secured_at("GET", "/loop"),
        secured_at("POST", "/post-307"),
        secured_at("POST", "/post-302")
    ]);
    let options = HttpOptions::new().header(
        http::HeaderName::from_static("x-extra"),
        http::HeaderValue::from_static("extra-secret"),
    );
    let upstream = Upstream::builder(&bindings.to_string())
        .credential("b", "tok")
        .http_options(options)
        .build()
        .unwrap();
    assert!(!format!("{upstream:?}").contains("extra-secret"));
    let out = upstream.call(0, &json!({})).await.unwrap();
    assert!(text_of(&out).contains("/new?x=1"));
    let seen = api.seen();
    assert_eq!(seen[1].target, "/new?x=1");
    assert_eq!(
        seen[1].header("authorization"),
        Some("Bearer tok"),
        "same origin keeps credentials"
    );

    let response = upstream.send(1, &json!({})).await.unwrap();
    assert_eq!(response.url, format!("{}/landing", other.url()));
    assert_eq!(
        other.seen()[0].header("authorization"),
        None,
        "another origin gets no credentials"
    );
    assert_eq!(other.seen()[0].header("x-extra"), None);
    assert_eq!(api.seen()[2].header("x-extra"), Some("extra-secret"));

    let err = upstream.call(2, &json!({})).await.unwrap_err();
    assert!(err.message().contains("more than 5 redirects"), "{err}");

    let before = api.seen().len();
    upstream.call(3, &json!({"body": {"a": 1}})).await.unwrap();
    let seen = api.seen();
    assert_eq!(
        (
            seen[before + 1].method.as_str(),
            seen[before + 1].target.as_str()
        ),
        ("POST", "/new")
    );
    assert_eq!(seen[before + 1].body, r#"{"a":1}"#, "307 keeps the body");

    let err = upstream
        .call(4, &json!({"body": {"a": 1}}))
        .await
        .unwrap_err();
    assert!(
        err.message()
            .contains("302 Found (a redirect that was not followed)"),
        "{err}"
    );
}

#[tokio::test]
async fn a_silent_api_times_out_and_a_huge_answer_is_refused() {
    // Accepts connections and never answers.
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let silent = listener.local_addr().unwrap();
    tokio::spawn(async move {
        let mut held = Vec::new();
        while let Ok((stream, _)) = listener.accept().await {
            held.push(stream);
        }
    });
    let upstream = Upstream::builder(&one(get("/slow", &format!("http://{silent}"))))
        .timeout(Duration::from_millis(300))
        .build()
        .unwrap();
    let err = upstream.call(0, &json!({})).await.unwrap_err();
    assert!(
        err.message()
            .contains("GET /slow failed: no answer within 300ms"),
        "{err}"
    );

    let api = Api::start(|_, _| answer(200, "text/plain", vec![b'x'; 1000])).await;
    let upstream = Upstream::builder(&one(get("/big", &api.url())))
        .max_response_bytes(100)
        .build()
        .unwrap();
    let err = upstream.call(0, &json!({})).await.unwrap_err();
    assert!(err.message().contains("larger than 100 bytes"), "{err}");

    // Nothing listens: a tool error, after the retries.
    let closed = TcpListener::bind("127.0.0.1:0")
        .await
        .unwrap()
        .local_addr()
        .unwrap();
    let upstream = Upstream::builder(&one(get("/x", &format!("http://{closed}"))))
        .max_retries(1)
        .build()
        .unwrap();
    let err = upstream.call(0, &json!({})).await.unwrap_err();
    assert!(err.message().starts_with("GET /x failed:"), "{err}");
}

#[tokio::test]
async fn answers_become_results() {
    let api = Api::start(|seen, _| match seen.target.as_str() {
        "/pets/7" => answer(404, "application/json", r#"{"error":"no pet 7"}"#),
        "/list" => json_ok(json!([{"id": 1}])),
        "/pet" => json_ok(json!({"id": 1})),
        "/photo" => answer(200, "image/png", &b"\x89PNG"[..]),
        "/doc" => answer(200, "application/pdf", &b"%PDF"[..]),
        _ => answer(500, "text/plain", "x".repeat(10_000)),
    })
    .await;
    let with_output = |path: &str, output: Value| {
        let mut b = get(path, &api.url());
        b["output"] = output;
        b
    };
    let bindings = json!([
        get("/pets/7", &api.url()),
        with_output("/list", json!({"wrap": "items"})),
        with_output("/pet", json!({})),
        get("/photo", &api.url()),
        get("/doc", &api.url()),
        get("/boom", &api.url())
    ]);
    let upstream = Upstream::builder(&bindings.to_string()).build().unwrap();
    let err = upstream.call(0, &json!({})).await.unwrap_err();
    assert_eq!(
        err.message(),
        r#"GET /pets/7 failed: the API answered 404 Not Found: {"error":"no pet 7"}"#
    );
    assert_eq!(
        upstream.call(1, &json!({})).await.unwrap(),
        ToolOutput::Structured(json!({"items": [{"id": 1}]}))
    );
    assert_eq!(
        upstream.call(2, &json!({})).await.unwrap(),
        ToolOutput::Structured(json!({"id": 1}))
    );
    assert_eq!(
        upstream.call(3, &json!({})).await.unwrap(),
        ToolOutput::Content(
            json!([{"type": "image", "data": "iVBORw==", "mimeType": "image/png"}])
        )
    );
    assert_eq!(
        upstream.call(4, &json!({})).await.unwrap(),
        ToolOutput::Content(json!([{"type": "resource", "resource": {
            "uri": format!("{}/doc", api.url()), "mimeType": "application/pdf", "blob": "JVBERg=="}}]))
    );
    let err = upstream.call(5, &json!({})).await.unwrap_err();
    assert!(
        err.message().ends_with("… (cut at 4096 of 10000 bytes)"),
        "{}",
        &err.message()[..80]
    );
    // send + output: the same as call.
    let response = upstream.send(2, &json!({})).await.unwrap();
    assert_eq!(response.status, 200);
    assert_eq!(
        upstream.output(2, response).unwrap(),
        ToolOutput::Structured(json!({"id": 1}))
    );
}

#[tokio::test]
async fn connections_are_kept_alive_per_origin() {
    let api = Api::start(|_, _| json_ok(json!({}))).await;
    let upstream = Upstream::builder(&one(get("/x", &api.url())))
        .build()
        .unwrap();
    for _ in 0..3 {
        upstream.call(0, &json!({})).await.unwrap();
    }
    assert_eq!(api.seen().len(), 3);
    assert_eq!(api.connections.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn a_refused_token_is_fetched_again() {
    let auth = Api::start(|_, index| json_ok(json!({"access_token": format!("tok{index}")}))).await;
    // Refuses the first token.
    let api = Api::start(|seen, _| match seen.header("authorization") {
        Some("Bearer tok0") => answer(401, "application/json", r#"{"error":"expired"}"#),
        _ => json_ok(json!({})),
    })
    .await;
    let bindings = one(secured(
        &api.url(),
        json!([[{"scheme": "cc", "type": "oauth2", "tokenUrl": format!("{}/token", auth.url()), "env": "T6"}]]),
    ));
    let upstream = Upstream::builder(&bindings)
        .client_credentials("cc", "id", "secret")
        .build()
        .unwrap();
    let err = upstream.call(0, &json!({})).await.unwrap_err();
    assert!(err.message().contains("401 Unauthorized"), "{err}");
    upstream.call(0, &json!({})).await.unwrap();
    upstream.call(0, &json!({})).await.unwrap();
    assert_eq!(auth.seen().len(), 2, "a new token after the 401, then kept");
    assert_eq!(api.seen()[1].header("authorization"), Some("Bearer tok1"));
}

/// Generated handlers share one client across tasks and box its futures.
#[test]
fn the_client_and_its_futures_are_send_and_sync() {
    fn send_sync<T: Send + Sync>(_: &T) {}
    fn send<T: Send>(_: T) {}
    let upstream = Upstream::builder("[]").build().unwrap();
    send_sync(&upstream);
    let args = json!({});
    send(upstream.call(0, &args));
    send(upstream.send(0, &args));
    send(upstream.answer(0, &args, RequestContext::detached("t")));
}

#[tokio::test]
async fn the_default_handler_sends_the_arguments_as_sent_else_the_input() {
    let api = Api::start(|_, _| json_ok(json!({"ok": true}))).await;
    let mut b = get("/search", &api.url());
    b["parameters"] = json!([
        {"argument": "q", "name": "q", "in": "query", "style": "form", "explode": true}
    ]);
    let upstream = Upstream::builder(&one(b)).build().unwrap();
    // A typed input, written out: what a handler calling it directly has.
    #[derive(serde::Serialize)]
    struct Input {
        q: String,
    }
    let typed = Input { q: "typed".into() };
    let out = upstream
        .answer(0, &typed, RequestContext::detached("t"))
        .await
        .unwrap();
    assert_eq!(text_of(&out), r#"{"ok":true}"#);
    // The arguments as the client sent them win over the typed input
    // (which may keep less of them).
    let sent = RequestContext::detached("t").with_arguments(json!({"q": "sent"}));
    upstream.answer(0, &typed, sent).await.unwrap();
    let targets: Vec<String> = api.seen().into_iter().map(|s| s.target).collect();
    assert_eq!(targets, ["/search?q=typed", "/search?q=sent"]);
    // An input that cannot be written out is a tool error, not a panic.
    struct Unwritable;
    impl serde::Serialize for Unwritable {
        fn serialize<S: serde::Serializer>(&self, _: S) -> Result<S::Ok, S::Error> {
            Err(serde::ser::Error::custom("no"))
        }
    }
    let err = upstream
        .answer(0, &Unwritable, RequestContext::detached("t"))
        .await
        .unwrap_err();
    assert_eq!(err.message(), "cannot encode the tool's input: no");
    assert_eq!(api.seen().len(), 2);
}
