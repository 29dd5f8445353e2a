//! A minimal HTTP/1.1 client over a tokio `TcpStream` for the HTTP service
//! tests: requests with any headers (a forged `Host` included), bodies with
//! `Content-Length`, chunked, or only a declared length; responses read with
//! `Content-Length`, chunked framing or up to EOF; and a reader of SSE
//! events over a chunked response. Every wait is bounded by [`LIMIT`].

#![allow(dead_code)]

use std::future::Future;
use std::net::SocketAddr;
use std::time::Duration;

use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpStream;

/// The longest any single step of a test may take.
pub(crate) const LIMIT: Duration = Duration::from_secs(10);

/// Awaits `fut`, panicking with `what` if it takes longer than [`LIMIT`].
pub(crate) async fn within<F: Future>(what: &str, fut: F) -> F::Output {
    match tokio::time::timeout(LIMIT, fut).await {
        Ok(out) => out,
        Err(_) => panic!("timed out after {LIMIT:?}: {what}"),
    }
}

/// Polls `condition` until it holds, for at most [`LIMIT`].
pub(crate) async fn eventually(what: &str, mut condition: impl FnMut() -> bool) {
    within(what, async {
        while !condition() {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    })
    .await;
}

enum Body {
    None,
    Full(Vec<u8>),
    /// Sent with `Transfer-Encoding: chunked`, one chunk per element.
    Chunked(Vec<Vec<u8>>),
    /// Only a `Content-Length` header; no body bytes are sent.
    DeclaredOnly(usize),
}

/// One HTTP request to send.
pub(crate) struct Request {
    method: String,
    path: String,
    headers: Vec<(String, String)>,
    body: Body,
}

impl Request {
    /// `method path` with no headers besides `Host` (added when sent).
    pub(crate) fn new(method: &str, path: &str) -> Self {
        Self {
            method: method.to_owned(),
            path: path.to_owned(),
            headers: Vec::new(),
            body: Body::None,
        }
    }

    /// A POST of `body` to `/mcp` with the headers a conforming client
    /// sends: `Content-Type: application/json` and an `Accept` listing
    /// both JSON and event streams.
    pub(crate) fn post(body: &Value) -> Self {
        Self::new("POST", "/mcp")
            .header("Content-Type", "application/json")
            .header("Accept", "application/json, text/event-stream")
            .body(body.to_string().into_bytes())
    }

    /// A GET of `/mcp` accepting an event stream.
    pub(crate) fn get() -> Self {
        Self::new("GET", "/mcp").header("Accept", "text/event-stream")
    }

    /// A DELETE of `/mcp`.
    pub(crate) fn delete() -> Self {
        Self::new("DELETE", "/mcp")
    }

    /// Sends the request to `path` instead.
    pub(crate) fn path(mut self, path: &str) -> Self {
        self.path = path.to_owned();
        self
    }

    /// Sets header `name` (replacing any header of that name).
    pub(crate) fn header(mut self, name: &str, value: &str) -> Self {
        self.headers.retain(|(n, _)| !n.eq_ignore_ascii_case(name));
        self.headers.push((name.to_owned(), value.to_owned()));
        self
    }

    /// Removes header `name`.
    pub(crate) fn without(mut self, name: &str) -> Self {
        self.headers.retain(|(n, _)| !n.eq_ignore_ascii_case(name));
        self
    }

    /// The body, sent with `Content-Length`.
    pub(crate) fn body(mut self, bytes: Vec<u8>) -> Self {
        self.body = Body::Full(bytes);
        self
    }

    /// The body, sent chunked in these pieces.
    pub(crate) fn chunked(mut self, chunks: Vec<Vec<u8>>) -> Self {
        self.body = Body::Chunked(chunks);
        self
    }

    /// Declares `Content-Length: n` and sends no body bytes.
    pub(crate) fn declared_length(mut self, n: usize) -> Self {
        self.body = Body::DeclaredOnly(n);
        self
    }

    fn encode(&self, host: &str) -> Vec<u8> {
        let mut head = format!("{} {} HTTP/1.1\r\n", self.method, self.path);
        if !self
            .headers
            .iter()
            .any(|(n, _)| n.eq_ignore_ascii_case("host"))
        {
            head.push_str(&format!("Host: {host}\r\n"));
        }
        for (name, value) in &self.headers {
            head.push_str(&format!("{name}: {value}\r\n"));
        }
        let mut out = Vec::new();
        match &self.body {
            Body::None => {
                head.push_str("\r\n");
                out.extend_from_slice(head.as_bytes());
            }
            Body::Full(bytes) => {
                head.push_str(&format!("Content-Length: {}\r\n\r\n", bytes.len()));
                out.extend_from_slice(head.as_bytes());
                out.extend_from_slice(bytes);
            }
            Body::DeclaredOnly(n) => {
                head.push_str(&format!("Content-Length: {n}\r\n\r\n"));
                out.extend_from_slice(head.as_bytes());
            }
            Body::Chunked(chunks) => {
                head.push_str("Transfer-Encoding: chunked\r\n\r\n");
                out.extend_from_slice(head.as_bytes());
                for chunk in chunks.iter().filter(|c| !c.is_empty()) {
                    out.extend_from_slice(format!("{:x}\r\n", chunk.len()).as_bytes());
                    out.extend_from_slice(chunk);
                    out.extend_from_slice(b"\r\n");
                }
                out.extend_from_slice(b"0\r\n\r\n");
            }
        }
        out
    }
}

/// A response's status line and headers.
#[derive(Debug, Clone)]
pub(crate) struct Head {
    pub status: u16,
    pub headers: Vec<(String, String)>,
}

impl Head {
    /// The first header named `name` (case-insensitive).
    pub(crate) fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// The media type of `Content-Type`, lower case, without parameters.
    pub(crate) fn media_type(&self) -> Option<String> {
        self.header("content-type").map(|v| {
            v.split(';')
                .next()
                .unwrap_or("")
                .trim()
                .to_ascii_lowercase()
        })
    }

    fn chunked(&self) -> bool {
        self.header("transfer-encoding")
            .is_some_and(|v| v.to_ascii_lowercase().contains("chunked"))
    }

    fn content_length(&self) -> Option<usize> {
        self.header("content-length")
            .and_then(|v| v.trim().parse().ok())
    }
}

/// A whole response.
#[derive(Debug, Clone)]
pub(crate) struct Response {
    pub head: Head,
    pub body: Vec<u8>,
}

impl Response {
    pub(crate) fn status(&self) -> u16 {
        self.head.status
    }

    pub(crate) fn header(&self, name: &str) -> Option<&str> {
        self.head.header(name)
    }

    pub(crate) fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }

    /// The body as JSON; panics with the body when it is not JSON.
    pub(crate) fn json(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap_or_else(|e| {
            panic!(
                "status {}: body is not JSON ({e}): {:?}",
                self.status(),
                self.text()
            )
        })
    }

    /// The JSON-RPC error code of the body.
    pub(crate) fn rpc_code(&self) -> Option<i64> {
        self.json().pointer("/error/code").and_then(Value::as_i64)
    }
}

/// One client connection.
pub(crate) struct Conn {
    io: BufReader<TcpStream>,
    host: String,
}

impl Conn {
    /// Connects to `addr` (sending `Host: addr` unless a request sets one).
    pub(crate) async fn open(addr: SocketAddr) -> Self {
        let stream = within("connect", TcpStream::connect(addr))
            .await
            .expect("connect to the test server");
        stream.set_nodelay(true).ok();
        Self {
            io: BufReader::new(stream),
            host: addr.to_string(),
        }
    }

    /// Writes `request`.
    pub(crate) async fn send(&mut self, request: &Request) {
        let bytes = request.encode(&self.host);
        within("send a request", self.io.get_mut().write_all(&bytes))
            .await
            .expect("write the request");
    }

    async fn line(&mut self) -> Option<String> {
        let mut line = String::new();
        let n = within("read a line", self.io.read_line(&mut line))
            .await
            .ok()?;
        (n > 0).then(|| line.trim_end_matches(['\r', '\n']).to_owned())
    }

    /// Reads a status line and headers (skipping `100 Continue`).
    pub(crate) async fn head(&mut self) -> Head {
        loop {
            let status_line = self
                .line()
                .await
                .expect("the server closed the connection before answering");
            let status: u16 = status_line
                .split_whitespace()
                .nth(1)
                .and_then(|s| s.parse().ok())
                .unwrap_or_else(|| panic!("not an HTTP status line: {status_line:?}"));
            let mut headers = Vec::new();
            loop {
                let line = self
                    .line()
                    .await
                    .expect("the server closed the connection inside the headers");
                if line.is_empty() {
                    break;
                }
                let (name, value) = line
                    .split_once(':')
                    .unwrap_or_else(|| panic!("bad header line {line:?}"));
                headers.push((name.trim().to_owned(), value.trim().to_owned()));
            }
            if status != 100 {
                return Head { status, headers };
            }
        }
    }

    /// The next chunk of a chunked body; `None` after the last one (or when
    /// the connection closes).
    pub(crate) async fn chunk(&mut self) -> Option<Vec<u8>> {
        let size_line = self.line().await?;
        let size = usize::from_str_radix(size_line.split(';').next().unwrap_or("").trim(), 16)
            .unwrap_or_else(|_| panic!("bad chunk size line {size_line:?}"));
        if size == 0 {
            // Trailers, up to the empty line.
            while let Some(line) = self.line().await {
                if line.is_empty() {
                    break;
                }
            }
            return None;
        }
        let mut data = vec![0; size];
        within("read a chunk", self.io.read_exact(&mut data))
            .await
            .ok()?;
        let _crlf = self.line().await;
        Some(data)
    }

    /// The whole body of a response with `head`.
    pub(crate) async fn body(&mut self, head: &Head, method: &str) -> Vec<u8> {
        if method == "HEAD" || head.status == 204 || head.status == 304 {
            return Vec::new();
        }
        if head.chunked() {
            let mut out = Vec::new();
            while let Some(chunk) = self.chunk().await {
                out.extend_from_slice(&chunk);
            }
            return out;
        }
        if let Some(n) = head.content_length() {
            let mut out = vec![0; n];
            within("read the body", self.io.read_exact(&mut out))
                .await
                .expect("read the body");
            return out;
        }
        let mut out = Vec::new();
        within("read the body to EOF", self.io.read_to_end(&mut out))
            .await
            .ok();
        out
    }

    /// Sends `request` and reads the whole response.
    pub(crate) async fn request(&mut self, request: &Request) -> Response {
        self.send(request).await;
        let head = self.head().await;
        let body = self.body(&head, &request.method).await;
        Response { head, body }
    }

    /// Sends `request` and returns the head, leaving the body to an
    /// [`Sse`] reader.
    pub(crate) async fn stream(mut self, request: &Request) -> (Head, Sse) {
        self.send(request).await;
        let head = self.head().await;
        (
            head,
            Sse {
                conn: self,
                buf: String::new(),
                ended: false,
            },
        )
    }

    /// Whether the server closed the connection: reads to EOF.
    pub(crate) async fn closed(&mut self) -> bool {
        let mut rest = Vec::new();
        within(
            "wait for the server to close",
            self.io.read_to_end(&mut rest),
        )
        .await
        .is_ok()
    }
}

/// Sends `request` on a new connection and reads the response.
pub(crate) async fn send(addr: SocketAddr, request: &Request) -> Response {
    Conn::open(addr).await.request(request).await
}

/// One SSE event.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Event {
    /// A comment line (`: keep-alive`), text after the colon.
    Comment(String),
    /// An event with its `event:` type (if any), its data and its raw text.
    Message {
        event: Option<String>,
        data: String,
        raw: String,
    },
}

impl Event {
    /// The data as JSON, for a message event.
    pub(crate) fn json(&self) -> Option<Value> {
        match self {
            Event::Message { data, .. } => serde_json::from_str(data).ok(),
            Event::Comment(_) => None,
        }
    }
}

/// Reads SSE events from a chunked response body.
pub(crate) struct Sse {
    conn: Conn,
    buf: String,
    ended: bool,
}

impl Sse {
    /// The next event; `None` when the stream ended.
    pub(crate) async fn next(&mut self) -> Option<Event> {
        loop {
            if let Some(end) = self.buf.find("\n\n") {
                let block: String = self.buf.drain(..end + 2).collect();
                if let Some(event) = parse_event(&block) {
                    return Some(event);
                }
                continue;
            }
            if self.ended {
                return None;
            }
            match self.conn.chunk().await {
                Some(bytes) => self
                    .buf
                    .push_str(&String::from_utf8_lossy(&bytes).replace("\r\n", "\n")),
                None => self.ended = true,
            }
        }
    }

    /// The next message event, skipping comments.
    pub(crate) async fn next_message(&mut self) -> Option<Event> {
        loop {
            match self.next().await? {
                Event::Comment(_) => continue,
                message => return Some(message),
            }
        }
    }

    /// The next message event's data as JSON, within [`LIMIT`]; panics
    /// when the stream ends first.
    pub(crate) async fn next_json(&mut self) -> Value {
        match within("an SSE message", self.next_message()).await {
            Some(event) => event.json().expect("an SSE message whose data is JSON"),
            None => panic!("the SSE stream ended"),
        }
    }

    /// Every remaining event until the stream ends.
    pub(crate) async fn rest(&mut self) -> Vec<Event> {
        let mut out = Vec::new();
        while let Some(event) = self.next().await {
            out.push(event);
        }
        out
    }

    /// Gives the connection back (e.g. to drop it mid-stream).
    pub(crate) fn into_conn(self) -> Conn {
        self.conn
    }
}

fn parse_event(block: &str) -> Option<Event> {
    let lines: Vec<&str> = block.lines().filter(|l| !l.is_empty()).collect();
    if lines.is_empty() {
        return None;
    }
    if lines.iter().all(|l| l.starts_with(':')) {
        return Some(Event::Comment(
            lines
                .iter()
                .map(|l| l[1..].trim())
                .collect::<Vec<_>>()
                .join("\n"),
        ));
    }
    let mut event = None;
    let mut data = Vec::new();
    for line in &lines {
        let (field, value) = line.split_once(':').unwrap_or((line, ""));
        let value = value.strip_prefix(' ').unwrap_or(value);
        match field {
            "event" => event = Some(value.to_owned()),
            "data" => data.push(value.to_owned()),
            _ => {}
        }
    }
    Some(Event::Message {
        event,
        data: data.join("\n"),
        raw: block.trim_end().to_owned(),
    })
}

/// Standard Base64 with padding (for `=?base64?…?=` header values).
pub(crate) fn base64(bytes: &[u8]) -> String {
    base64::Engine::encode(&base64::engine::general_purpose::STANDARD, bytes)
}

#[test]
fn base64_matches_the_spec_examples() {
    assert_eq!(base64("Hello, 世界".as_bytes()), "SGVsbG8sIOS4lueVjA==");
    assert_eq!(base64(b" padded "), "IHBhZGRlZCA=");
    assert_eq!(base64(b"=?base64?literal?="), "PT9iYXNlNjQ/bGl0ZXJhbD89");
}
