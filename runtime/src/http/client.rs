//! The Streamable HTTP transport of the client: [`HttpTransport`], a
//! [`Transport`] for `http://` and `https://` MCP endpoints, built on
//! hyper's HTTP/1.1 client connection over a Tokio `TcpStream`, with TLS
//! (rustls, feature `tls`), proxies and timeouts as [`HttpOptions`] says
//! (`connect.rs` makes the connections). A connection that cannot be made
//! fails with a [`ConnectError`](crate::transport::ConnectError) naming why:
//! refused, reset, timed out, a certificate not trusted or not for the
//! host name, a proxy refusing.
//!
//! Every message the engine writes is its own POST (`Content-Type:
//! application/json`, `Accept: application/json, text/event-stream`). The
//! answer, JSON or a Server-Sent Events stream, is read in a task of its
//! own, and every JSON-RPC message in it (the request's notifications, then
//! its response) goes to the reading half in order. What the engine sees
//! for the HTTP outcomes:
//!
//! - `202 Accepted` (or `204`) to a notification or an answer: nothing (to
//!   a request, where it means no response will come: an error, below);
//! - an error status whose body is a JSON-RPC error: that error, its `id`
//!   filled in with the request's when the server left it `null` (so
//!   `-32022`, `-32601`, `-32020` reach the caller as they are);
//! - an error status without one, a redirect, a connection that breaks, a
//!   stream that ends before the response, or an answer over the size
//!   limit: a JSON-RPC error response for the request, code
//!   [`TRANSPORT_ERROR`], whose message names the status or the problem.
//!
//! Both eras:
//!
//! - Stateful (2025-03-26 … 2025-11-25): the `Mcp-Session-Id` of the
//!   `initialize` response and the negotiated `MCP-Protocol-Version` go on
//!   every later request; closing the transport ends the session with a
//!   `DELETE` (best effort). Server requests on a stream (`ping`) are
//!   answered by the engine; the answer is POSTed like any message.
//! - Stateless (2026-07-28): a message whose `params._meta` names
//!   `io.modelcontextprotocol/protocolVersion` carries `MCP-Protocol-Version`,
//!   `Mcp-Method`, `Mcp-Name` (`tools/call`, `prompts/get`,
//!   `resources/read`) and an `Mcp-Param-{Name}` header per argument
//!   annotated with `x-mcp-header`, values in the Base64 sentinel form
//!   (`=?base64?…?=`) when they are not plain visible ASCII. The transport
//!   learns the annotations from the `tools/list` results it passes on, and
//!   leaves out of them (with a warning) every tool whose annotations break
//!   the rules. A `tools/call` refused with `-32020` for a tool whose
//!   annotations it may not know is retried once after asking `tools/list`
//!   again, as the specification recommends.
//!
//! Connections are kept alive (`pool.rs`): a request takes an idle
//! connection to the endpoint when one is open, else makes one (TCP, proxy
//! tunnel, TLS handshake); the connection goes back to the pool once the
//! answer has been read to its end and the server did not say
//! `Connection: close` (an SSE answer is read on to its end, briefly,
//! after the response). At most 8 connections stay idle, each at most
//! 90 s. An answer still streaming (a request's SSE stream, the
//! standalone `GET` stream) keeps its connection to itself. When the
//! server closed an idle connection just before it was used and the
//! request was not written, the request goes out on another connection; a
//! request that may have reached the server is never sent twice.
//!
//! Cancellation: `notifications/cancelled` from the engine (a timeout, a
//! dropped call) closes that request's connection (never pooled while its
//! answer is unread), which is how a 2026-07-28 server learns of it; in
//! the stateful era the notification is sent as well. Dropping the
//! transport closes every open stream and idle connection.
//!
//! Every read is capped ([`HttpTransport::max_message_bytes`], default
//! 32 MiB, or the engine's `ClientOptions::max_message_bytes` when
//! smaller): a larger JSON body or SSE event fails that request with an
//! error naming the limit, without buffering the rest; the connection
//! stays usable for other requests.

use std::collections::{HashMap, HashSet, VecDeque};
use std::io;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use bytes::Bytes;
use http::header::{
    HeaderName, HeaderValue, ACCEPT, AUTHORIZATION, CONTENT_TYPE, HOST, LOCATION, PROXY_AUTHORIZATION, WWW_AUTHENTICATE,
};
use http::{HeaderMap, Method, Request, Response, StatusCode};
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper_util::rt::TokioIo;
use serde::de::IgnoredAny;
use serde::{Deserialize, Deserializer};
use serde_json::{json, Map, Value};
use tokio::sync::mpsc;

use super::connect::Connector;
use super::headers::{self, ParamHeader};
use super::options::HttpOptions;
use super::pool::{self, Lease, Live, Pool};
use crate::http::oauth_client::{Authorizer, OAuth, MAX_ATTEMPTS};
use crate::transport::ConnectError;
use crate::schema::{ONE_SCHEMA, SCHEMA_LISTS, SCHEMA_MAPS};
use crate::jsonrpc::human_size;
use crate::revision::meta;
use crate::transport::{MessageRead, MessageWrite, Transport};

/// The JSON-RPC error code of the error responses the transport makes up
/// for a request the server did not answer with JSON-RPC (an HTTP error
/// status without a JSON-RPC body, a broken connection, an answer over the
/// size limit). The range -32000..-32099 is left to implementations.
pub const TRANSPORT_ERROR: i64 = -32000;

/// The longest JSON body or SSE event read by default: 32 MiB.
pub const DEFAULT_MAX_MESSAGE: usize = 32 << 20;

/// Messages read from the server and not yet taken by the engine.
const QUEUE: usize = 64;

/// How long a notification (or an answer to a server request) may take to
/// be accepted before the writer moves on.
const NOTIFY_TIMEOUT: Duration = Duration::from_secs(30);

/// How long opening the standalone SSE stream may hold up the message
/// written after `notifications/initialized` (stateful era).
const LISTEN_TIMEOUT: Duration = Duration::from_secs(2);

/// How long the `DELETE` that ends a session may take.
const DELETE_TIMEOUT: Duration = Duration::from_secs(5);

/// `tools/list` pages read at most when learning `x-mcp-header`
/// annotations again after a `-32020`.
const REFRESH_PAGES: usize = 100;

/// How often a request's SSE stream (or the standalone stream, without
/// delivering anything) is resumed before giving up.
const MAX_RESUMES: usize = 5;

/// How long to wait before resuming an SSE stream that named no `retry`.
const DEFAULT_RETRY: Duration = Duration::from_secs(1);

/// How long the rest of an SSE answer may take to end, after its response,
/// for its connection to be kept.
const DRAIN_TIMEOUT: Duration = Duration::from_secs(1);

/// The `Last-Event-ID` header of a resumed SSE stream.
const LAST_EVENT_ID: HeaderName = HeaderName::from_static("last-event-id");

/// The most of a non-JSON-RPC body quoted in an error.
const QUOTE: usize = 200;

/// A Streamable HTTP client transport for one MCP endpoint (`http://` or
/// `https://`).
///
/// ```no_run
/// # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
/// use mcpgen_runtime::client::{Client, ClientOptions};
/// use mcpgen_runtime::http::client::HttpTransport;
/// use mcpgen_runtime::http::HttpOptions;
///
/// let transport = HttpTransport::new("https://mcp.example.com/mcp")?
///     .options(HttpOptions::new().bearer_token("secret-token")?.add_ca_file("ca.pem"));
/// let options = ClientOptions::new(["2026-07-28", "2025-11-25"]);
/// let client = Client::connect(transport, options).await?;
/// let tools = client.list_all_tools().await?;
/// # Ok(()) }
/// ```
pub struct HttpTransport {
    endpoint: Endpoint,
    options: HttpOptions,
    auth: Option<Authorizer>,
    max_bytes: usize,
    learnt: Arc<Learnt>,
}

impl std::fmt::Debug for HttpTransport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpTransport")
            .field("url", &self.endpoint.url)
            .field("max_message_bytes", &self.max_bytes)
            .field("options", &self.options)
            .finish_non_exhaustive()
    }
}

/// What the transport learns from the server (shared with [`HttpInfo`]).
#[derive(Debug)]
struct Learnt {
    url: String,
    /// Stateful era: the session the server assigned.
    session_id: Mutex<Option<HeaderValue>>,
    /// Stateful era: the revision of the `initialize` result.
    protocol_version: Mutex<Option<String>>,
    closed: AtomicBool,
    /// True once closed and the session, if any, ended (or given up on).
    ended: tokio::sync::watch::Sender<bool>,
}

/// Where the endpoint is.
#[derive(Debug, Clone)]
struct Endpoint {
    /// The URL as given (for messages).
    url: String,
    /// Host to connect to (without IPv6 brackets).
    host: String,
    port: u16,
    /// `https://`.
    tls: bool,
    /// The `Host` header: the authority as written.
    authority: HeaderValue,
    /// Path and query of the request target.
    target: String,
}

impl Endpoint {
    fn parse(url: &str) -> io::Result<Self> {
        let invalid = |why: String| {
            io::Error::new(io::ErrorKind::InvalidInput, format!("invalid MCP endpoint URL {url:?}: {why}"))
        };
        let Some((scheme, rest)) = url.split_once("://") else {
            return Err(invalid("expected http(s)://HOST[:PORT]/PATH".into()));
        };
        let tls = scheme.eq_ignore_ascii_case("https");
        if tls && !cfg!(feature = "tls") {
            return Err(io::Error::new(
                io::ErrorKind::Unsupported,
                format!(
                    "cannot connect to {url}: TLS is not built in (mcpgen-runtime without its `tls` feature); \
                     enable that feature (on by default) or use an http:// URL"
                ),
            ));
        }
        if !tls && !scheme.eq_ignore_ascii_case("http") {
            return Err(invalid(format!("the scheme {scheme:?} is not supported; use http:// or https://")));
        }
        let rest = rest.split('#').next().unwrap_or("");
        let end = rest.find(['/', '?']).unwrap_or(rest.len());
        let (authority, target) = rest.split_at(end);
        if authority.contains('@') {
            return Err(invalid(
                "credentials in the URL are not supported; send an Authorization header instead".into(),
            ));
        }
        let (host, port) = if let Some(v6) = authority.strip_prefix('[') {
            let Some((host, after)) = v6.split_once(']') else {
                return Err(invalid("an IPv6 host must be closed with ']'".into()));
            };
            let port = match after {
                "" => None,
                p => Some(p.strip_prefix(':').ok_or_else(|| invalid(format!("unexpected {p:?} after the host")))?),
            };
            (host, port)
        } else {
            match authority.rsplit_once(':') {
                Some((host, port)) => (host, Some(port)),
                None => (authority, None),
            }
        };
        if host.is_empty() {
            return Err(invalid("the host is missing".into()));
        }
        let port = match port {
            None if tls => 443,
            None => 80,
            Some(p) => {
                p.parse::<u16>().map_err(|_| invalid(format!("the port {p:?} is not a number from 0 to 65535")))?
            }
        };
        let authority = HeaderValue::from_str(authority)
            .map_err(|_| invalid("the host holds characters a Host header cannot".into()))?;
        let target = match target {
            "" => "/".to_owned(),
            t if t.starts_with('?') => format!("/{t}"),
            t => t.to_owned(),
        };
        Ok(Self { url: url.to_owned(), host: host.to_owned(), port, tls, authority, target })
    }
}

impl HttpTransport {
    /// A transport for the MCP endpoint at `url` (`https://HOST[:PORT]/PATH`
    /// or `http://…`), with the default [`HttpOptions`]: Mozilla's roots,
    /// the environment's proxy, 10 s to connect. Nothing is connected until
    /// the first message. Without the `tls` feature an `https://` URL is an
    /// error.
    pub fn new(url: &str) -> io::Result<Self> {
        let endpoint = Endpoint::parse(url)?;
        let learnt = Arc::new(Learnt {
            url: endpoint.url.clone(),
            session_id: Mutex::new(None),
            protocol_version: Mutex::new(None),
            closed: AtomicBool::new(false),
            ended: tokio::sync::watch::channel(false).0,
        });
        Ok(Self { endpoint, options: HttpOptions::default(), auth: None, max_bytes: DEFAULT_MAX_MESSAGE, learnt })
    }

    /// Uses these connection settings (TLS, proxy, connect timeout); their
    /// headers are added to those set before.
    pub fn options(mut self, options: HttpOptions) -> Self {
        let mut headers = std::mem::take(&mut self.options.headers);
        headers.extend(options.headers.iter().map(|(k, v)| (k.clone(), v.clone())));
        self.options = HttpOptions { headers, ..options };
        self
    }

    /// Sends `name: value` on every request (e.g. `Authorization`); the
    /// value is marked sensitive and never logged.
    pub fn header(mut self, name: HeaderName, value: HeaderValue) -> Self {
        self.options = self.options.header(name, value);
        self
    }

    /// Authorizes with OAuth 2.1 as the MCP specification describes: a
    /// `401` (or `403 insufficient_scope`) runs discovery and the
    /// authorization code flow of [`OAuth`], and the request is retried
    /// with the token (at most [`MAX_ATTEMPTS`] authorizations per
    /// request). The token goes to this endpoint only. Fails when the
    /// token store cannot be read.
    pub fn oauth(mut self, oauth: OAuth) -> io::Result<Self> {
        let authorizer = Authorizer::new(oauth, &self.endpoint.url).map_err(io::Error::other)?;
        self.auth = Some(authorizer);
        Ok(self)
    }

    /// Sets the longest JSON body or SSE event read from the server.
    pub fn max_message_bytes(mut self, bytes: usize) -> Self {
        self.max_bytes = bytes.max(1);
        self
    }

    /// Sets how long connecting to the server may take: TCP, a proxy's
    /// tunnel and the TLS handshake together (default 10 s).
    pub fn connect_timeout(mut self, timeout: Duration) -> Self {
        self.options.connect_timeout = timeout;
        self
    }

    /// A handle on what the transport learns (session id, negotiated
    /// revision), still usable once the transport is handed to the engine.
    pub fn info(&self) -> HttpInfo {
        HttpInfo { learnt: Arc::clone(&self.learnt) }
    }
}

/// What an [`HttpTransport`] has learnt so far; see [`HttpTransport::info`].
#[derive(Clone)]
pub struct HttpInfo {
    learnt: Arc<Learnt>,
}

impl std::fmt::Debug for HttpInfo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpInfo")
            .field("url", &self.url())
            .field("session_id", &self.session_id())
            .field("protocol_version", &self.protocol_version())
            .field("closed", &self.is_closed())
            .finish()
    }
}

impl HttpInfo {
    /// The endpoint URL.
    pub fn url(&self) -> &str {
        &self.learnt.url
    }

    /// The `Mcp-Session-Id` the server assigned at `initialize` (stateful era).
    pub fn session_id(&self) -> Option<String> {
        lock(&self.learnt.session_id).as_ref().and_then(|v| v.to_str().ok()).map(str::to_owned)
    }

    /// The revision the `initialize` result named (stateful era).
    pub fn protocol_version(&self) -> Option<String> {
        lock(&self.learnt.protocol_version).clone()
    }

    /// Whether the transport has been closed (a half of it dropped).
    pub fn is_closed(&self) -> bool {
        self.learnt.closed.load(Ordering::Relaxed)
    }

    /// Completes once the transport is closed and its session, if it had
    /// one, has been ended with `DELETE` (answered, failed or timed out):
    /// await it after dropping the client before the runtime goes away.
    pub async fn closed(&self) {
        let mut ended = self.learnt.ended.subscribe();
        let _ = ended.wait_for(|done| *done).await;
    }
}

impl Transport for HttpTransport {
    type Read = HttpReader;
    type Write = HttpWriter;

    fn split(self) -> (HttpReader, HttpWriter) {
        let mut endpoint = self.endpoint;
        let mut extra = self.options.headers.clone();
        let Endpoint { url, host, port, tls, .. } = &endpoint;
        let connector = Connector::new(url, host, *port, *tls, &self.options);
        if let Some(auth) = connector.as_ref().ok().and_then(Connector::forwarding) {
            // An http:// endpoint through a proxy: absolute-form requests to it.
            endpoint.target = endpoint.url.split('#').next().unwrap_or_default().to_owned();
            if let Some(auth) = auth {
                extra.insert(PROXY_AUTHORIZATION, auth);
            }
        }
        let shared = Arc::new(Shared {
            endpoint,
            extra,
            auth: self.auth.map(|auth| Arc::new(auth.network(&self.options))),
            max_bytes: AtomicUsize::new(self.max_bytes),
            connector,
            learnt: self.learnt,
            annotations: Mutex::new(HashMap::new()),
            in_flight: Mutex::new(HashMap::new()),
            refreshes: AtomicU64::new(0),
            listener: Mutex::new(None),
            pool: Pool::new(),
        });
        let (tx, rx) = mpsc::channel(QUEUE);
        (HttpReader { rx, shared: Arc::clone(&shared) }, HttpWriter { tx, shared })
    }
}

/// Reading half of [`HttpTransport`]: the messages of every answer.
pub struct HttpReader {
    rx: mpsc::Receiver<String>,
    shared: Arc<Shared>,
}

impl MessageRead for HttpReader {
    async fn read_message(&mut self) -> io::Result<Option<String>> {
        Ok(self.rx.recv().await)
    }

    /// Lowers the read cap to `bytes` (the engine passes its
    /// `ClientOptions::max_message_bytes`); the smaller limit applies.
    fn set_max_message(&mut self, bytes: usize) {
        self.shared.max_bytes.fetch_min(bytes.max(1), Ordering::Relaxed);
    }
}

impl Drop for HttpReader {
    fn drop(&mut self) {
        self.shared.close();
    }
}

/// Writing half of [`HttpTransport`]: one POST per message. Dropping it
/// closes the transport: open streams close, a session is ended with
/// `DELETE`, and the reading half reaches its end.
pub struct HttpWriter {
    tx: mpsc::Sender<String>,
    shared: Arc<Shared>,
}

impl MessageWrite for HttpWriter {
    async fn write_message(&mut self, message: &str) -> io::Result<()> {
        let out = Outgoing::parse(message);
        if out.method.as_deref() == Some("notifications/cancelled") {
            let stateless = self.shared.cancel(out.params.as_ref());
            if stateless {
                return Ok(()); // closing the stream was the cancellation
            }
        }
        if out.id.is_some() && out.method.is_some() {
            let lease = self.shared.checkout().await?;
            self.shared.spawn_exchange(lease, out, self.tx.clone());
            return Ok(());
        }
        // A notification or an answer to a server request: sent in order,
        // before whatever the engine writes next.
        let lease = self.shared.checkout().await?;
        let shared = Arc::clone(&self.shared);
        match tokio::time::timeout(NOTIFY_TIMEOUT, shared.post_one_way(lease, &out)).await {
            Ok(Ok(())) if out.method() == "notifications/initialized" && out.version.is_none() => {
                self.shared.start_listener(self.tx.clone()).await;
            }
            Ok(Ok(())) => {}
            Ok(Err(why)) => tracing::warn!(url = %self.shared.endpoint.url, "mcp http client: {why}"),
            Err(_) => tracing::warn!(
                url = %self.shared.endpoint.url,
                "mcp http client: the server did not accept {} within {NOTIFY_TIMEOUT:?}",
                out.describe()
            ),
        }
        Ok(())
    }
}

impl Drop for HttpWriter {
    fn drop(&mut self) {
        self.shared.close();
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

struct Shared {
    endpoint: Endpoint,
    extra: HeaderMap,
    /// OAuth, when enabled: the `Authorization` header and what a `401`
    /// or `403` turns into.
    auth: Option<Arc<Authorizer>>,
    /// The read cap: [`HttpTransport::max_message_bytes`], lowered by the
    /// engine's `ClientOptions::max_message_bytes` when that is smaller.
    max_bytes: AtomicUsize,
    /// How connections are made (or why they cannot be).
    connector: Result<Connector, ConnectError>,
    learnt: Arc<Learnt>,
    /// Per tool, its valid `x-mcp-header` annotations (learnt from `tools/list`).
    annotations: Mutex<HashMap<String, Vec<ParamHeader>>>,
    /// Requests whose answer is being read, by id (JSON text).
    in_flight: Mutex<HashMap<String, InFlight>>,
    /// Ids of the transport's own `tools/list` requests.
    refreshes: AtomicU64,
    /// Stateful era: the task reading the server's standalone SSE stream.
    listener: Mutex<Option<tokio::task::AbortHandle>>,
    /// The idle connections kept for the next request.
    pool: Arc<Pool>,
}

struct InFlight {
    task: tokio::task::AbortHandle,
    stateless: bool,
}

/// A message the engine wrote, with what its headers are made of.
struct Outgoing {
    body: Bytes,
    method: Option<String>,
    id: Option<Value>,
    params: Option<Value>,
    /// `params._meta["io.modelcontextprotocol/protocolVersion"]`: the
    /// message belongs to the stateless era.
    version: Option<String>,
}

impl Outgoing {
    fn parse(text: &str) -> Self {
        let mut value: Value = serde_json::from_str(text).unwrap_or(Value::Null);
        let method = value.get("method").and_then(Value::as_str).map(str::to_owned);
        let id = value.get("id").filter(|id| !id.is_null()).cloned();
        let params = value.as_object_mut().and_then(|m| m.remove("params"));
        let version = params
            .as_ref()
            .and_then(|p| p.get("_meta"))
            .and_then(|m| m.get(meta::PROTOCOL_VERSION))
            .and_then(Value::as_str)
            .map(str::to_owned);
        Self { body: Bytes::copy_from_slice(text.as_bytes()), method, id, params, version }
    }

    fn method(&self) -> &str {
        self.method.as_deref().unwrap_or("")
    }

    fn describe(&self) -> String {
        match (&self.method, &self.id) {
            (Some(m), Some(id)) => format!("`{m}` (request {id})"),
            (Some(m), None) => format!("the notification `{m}`"),
            (None, Some(id)) => format!("the answer to the server's request {id}"),
            (None, None) => "a message".to_owned(),
        }
    }

    /// The value `Mcp-Name` mirrors, for the methods that have one.
    fn name(&self) -> Option<&str> {
        let field = match self.method() {
            "tools/call" | "prompts/get" => "name",
            "resources/read" => "uri",
            _ => return None,
        };
        Some(self.params.as_ref().and_then(|p| p.get(field)).and_then(Value::as_str).unwrap_or(""))
    }
}

/// Why reading an answer stopped.
enum ReadError {
    TooLarge,
    Http(hyper::Error),
}

fn key(id: &Value) -> String {
    id.to_string()
}

impl Shared {
    fn max(&self) -> usize {
        self.max_bytes.load(Ordering::Relaxed)
    }

    /// Marks the transport closed: every open stream closes and a
    /// stateful session is ended with `DELETE` (best effort).
    fn close(self: &Arc<Self>) {
        if self.learnt.closed.swap(true, Ordering::SeqCst) {
            return;
        }
        for (_, flight) in lock(&self.in_flight).drain() {
            flight.task.abort();
        }
        if let Some(listener) = lock(&self.listener).take() {
            listener.abort();
        }
        let session = lock(&self.learnt.session_id).clone();
        let (Some(session), Ok(handle)) = (session, tokio::runtime::Handle::try_current()) else {
            self.learnt.ended.send_replace(true);
            return;
        };
        let shared = Arc::clone(self);
        handle.spawn(async move {
            let ended = tokio::time::timeout(DELETE_TIMEOUT, shared.delete(session)).await;
            if !matches!(ended, Ok(Ok(()))) {
                tracing::debug!(url = %shared.endpoint.url, "mcp http client: ending the session with DELETE failed");
            }
            shared.learnt.ended.send_replace(true);
        });
    }

    async fn delete(&self, session: HeaderValue) -> Result<(), String> {
        let lease = self.checkout().await.map_err(|e| e.to_string())?;
        let mut request = Request::new(Full::new(Bytes::new()));
        *request.method_mut() = Method::DELETE;
        *request.uri_mut() = self.endpoint.target.parse().map_err(|e| format!("{e}"))?;
        let h = request.headers_mut();
        h.insert(HOST, self.endpoint.authority.clone());
        h.extend(self.extra.clone());
        self.authorize(h, self.bearer().as_deref());
        h.insert(headers::SESSION_ID, session);
        if let Some(version) =
            lock(&self.learnt.protocol_version).as_deref().and_then(|v| HeaderValue::from_str(v).ok())
        {
            h.insert(headers::PROTOCOL_VERSION, version);
        }
        let (response, _lease) = self.send(lease, request).await.map_err(|e| e.to_string())?;
        let mut body = response.into_body();
        while let Some(frame) = body.frame().await {
            frame.map_err(|e| e.to_string())?;
        }
        Ok(())
    }

    /// Handles the engine's `notifications/cancelled`: closes the named
    /// request's stream. True when that request was stateless, where the
    /// closed stream is the whole cancellation.
    fn cancel(&self, params: Option<&Value>) -> bool {
        let target = params.and_then(|p| p.get("requestId"));
        let flight = target.and_then(|id| lock(&self.in_flight).remove(&key(id)));
        match flight {
            Some(flight) => {
                flight.task.abort();
                flight.stateless
            }
            // Already answered: nothing to close. Send it only in a session.
            None => lock(&self.learnt.session_id).is_none() && lock(&self.learnt.protocol_version).is_none(),
        }
    }

    /// A connection for the next request: an idle one that is still open,
    /// else a fresh one; the error carries a [`ConnectError`].
    async fn checkout(&self) -> io::Result<Lease> {
        while let Some(mut lease) = self.pool.take() {
            if lease.ready().await {
                return Ok(lease);
            }
        }
        let stream = match &self.connector {
            Ok(connector) => connector.connect().await.map_err(ConnectError::into_io)?,
            Err(e) => return Err(e.clone().into_io()),
        };
        let (sender, connection) =
            hyper::client::conn::http1::handshake(TokioIo::new(stream)).await.map_err(io::Error::other)?;
        let driver = tokio::spawn(async move {
            if let Err(e) = connection.await {
                tracing::debug!(error = %e, "mcp http client: connection ended with an error");
            }
        });
        Ok(self.pool.lease(Live::new(sender, driver.abort_handle())))
    }

    /// Sends one request on `lease`. When a connection taken from the pool
    /// turns out closed before any byte of the request was written (the
    /// server closed it while idle), the request goes out on another
    /// connection instead; a request that may have reached the server is
    /// never sent again.
    async fn send(
        &self,
        mut lease: Lease,
        mut request: Request<Full<Bytes>>,
    ) -> io::Result<(Response<Incoming>, Lease)> {
        loop {
            match lease.sender().try_send_request(request).await {
                Ok(response) => return Ok((response, lease)),
                Err(mut e) => match e.take_message() {
                    Some(unsent) if lease.reused() => {
                        tracing::debug!(url = %self.endpoint.url, error = %e.error(), "mcp http client: an idle connection was closed; sending on another");
                        request = unsent;
                        lease = self.checkout().await?;
                    }
                    _ => return Err(io::Error::other(e.into_error())),
                },
            }
        }
    }

    /// The POST of a message, with the headers of its era.
    fn request(&self, out: &Outgoing) -> Result<Request<Full<Bytes>>, String> {
        let mut request = Request::new(Full::new(out.body.clone()));
        *request.method_mut() = Method::POST;
        *request.uri_mut() = self.endpoint.target.parse().map_err(|e| format!("the URL's path: {e}"))?;
        let h = request.headers_mut();
        h.insert(HOST, self.endpoint.authority.clone());
        h.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
        h.insert(ACCEPT, HeaderValue::from_static("application/json, text/event-stream"));
        h.extend(self.extra.clone());
        self.authorize(h, self.bearer().as_deref());
        let value = |text: &str| HeaderValue::from_str(&encode_header_value(text)).map_err(|e| e.to_string());
        match &out.version {
            Some(version) => {
                h.insert(headers::PROTOCOL_VERSION, value(version)?);
                if let Some(method) = &out.method {
                    h.insert(headers::METHOD, value(method)?);
                }
                if let Some(name) = out.name() {
                    h.insert(headers::NAME, value(name)?);
                }
                if out.method() == "tools/call" {
                    for (header, text) in self.param_values(out) {
                        let name = HeaderName::from_bytes(header.as_bytes()).map_err(|e| e.to_string())?;
                        h.insert(name, value(&text)?);
                    }
                }
            }
            None => {
                if let Some(session) = lock(&self.learnt.session_id).clone() {
                    h.insert(headers::SESSION_ID, session);
                }
                if let Some(version) = lock(&self.learnt.protocol_version).as_deref() {
                    h.insert(headers::PROTOCOL_VERSION, value(version)?);
                }
            }
        }
        Ok(request)
    }

    /// The access token to send, when OAuth is on and has one.
    fn bearer(&self) -> Option<String> {
        self.auth.as_ref().and_then(|a| a.bearer())
    }

    /// Puts `Authorization: Bearer TOKEN` on a request to the endpoint.
    fn authorize(&self, h: &mut HeaderMap, token: Option<&str>) {
        if let Some(mut value) = token.and_then(|t| HeaderValue::from_str(&format!("Bearer {t}")).ok()) {
            value.set_sensitive(true);
            h.insert(AUTHORIZATION, value);
        }
    }

    /// After a `401` or `403` with OAuth on: runs the authorization the
    /// challenge asks for. `Some(Ok)`: retry; `Some(Err)`: fail with it;
    /// `None`: not an authorization matter, or out of attempts.
    async fn reauthorize(
        &self,
        response: &Response<Incoming>,
        sent: Option<&str>,
        attempts: &mut usize,
    ) -> Option<Result<(), String>> {
        let auth = self.auth.as_ref()?;
        let status = response.status();
        if !(status == StatusCode::UNAUTHORIZED || status == StatusCode::FORBIDDEN) || *attempts >= MAX_ATTEMPTS {
            return None;
        }
        *attempts += 1;
        let values: Vec<&str> =
            response.headers().get_all(WWW_AUTHENTICATE).iter().filter_map(|v| v.to_str().ok()).collect();
        Some(auth.on_challenge(status.as_u16(), &values, sent).await.map_err(|e| e.to_string()))
    }

    /// The `Mcp-Param-*` headers of a `tools/call`: each annotated argument
    /// present (and not null) in the call, as text.
    fn param_values(&self, out: &Outgoing) -> Vec<(String, String)> {
        let Some(tool) = out.name() else { return Vec::new() };
        let annotations = lock(&self.annotations);
        let Some(list) = annotations.get(tool) else { return Vec::new() };
        let arguments = out.params.as_ref().and_then(|p| p.get("arguments"));
        list.iter()
            .filter_map(|param| {
                let value = param.path.iter().try_fold(arguments?, |v, k| v.get(k))?;
                let text = match value {
                    Value::String(s) => s.clone(),
                    Value::Bool(b) => b.to_string(),
                    Value::Number(n) => n.to_string(),
                    _ => return None,
                };
                Some((param.header.clone(), text))
            })
            .collect()
    }

    fn spawn_exchange(self: &Arc<Self>, lease: Lease, out: Outgoing, tx: mpsc::Sender<String>) {
        let id = key(out.id.as_ref().expect("a request has an id"));
        let stateless = out.version.is_some();
        let shared = Arc::clone(self);
        let done_key = id.clone();
        // Registered under the lock, so the task cannot finish (and
        // deregister) before it is registered.
        let mut in_flight = lock(&self.in_flight);
        let task = tokio::spawn(async move {
            shared.exchange(lease, &out, &tx).await;
            lock(&shared.in_flight).remove(&done_key);
        });
        if self.learnt.closed.load(Ordering::SeqCst) {
            task.abort();
            return;
        }
        in_flight.insert(id, InFlight { task: task.abort_handle(), stateless });
    }

    /// Sends a request and relays its answer.
    async fn exchange(&self, lease: Lease, out: &Outgoing, tx: &mpsc::Sender<String>) {
        let mut lease = Some(lease);
        let mut retried = false;
        let mut attempts = 0;
        loop {
            let lease = match lease.take() {
                Some(l) => l,
                None => match self.checkout().await {
                    Ok(l) => l,
                    Err(e) => return self.fail(out, tx, e.to_string(), None).await,
                },
            };
            let sent = self.bearer();
            let request = match self.request(out) {
                Ok(r) => r,
                Err(why) => return self.fail(out, tx, format!("cannot make the HTTP request: {why}"), None).await,
            };
            let (response, conn) = match self.send(lease, request).await {
                Ok(r) => r,
                Err(e) => {
                    let why = format!("the HTTP exchange with {} failed: {e}", self.endpoint.url);
                    return self.fail(out, tx, why, None).await;
                }
            };
            match self.reauthorize(&response, sent.as_deref(), &mut attempts).await {
                Some(Ok(())) => continue,
                Some(Err(why)) => return self.fail(out, tx, why, Some(response.status())).await,
                None => {}
            }
            if out.method() == "initialize" && out.version.is_none() && response.status().is_success() {
                if let Some(session) = response.headers().get(headers::SESSION_ID) {
                    *lock(&self.learnt.session_id) = Some(session.clone());
                }
            }
            let mut answer = Answer::new(response, self.max(), conn);
            if out.version.is_some()
                && out.method() == "tools/call"
                && !retried
                && answer.status == StatusCode::BAD_REQUEST
            {
                // A -32020 may mean the tool's annotations changed (or were
                // never listed): list the tools again and retry once.
                match answer.whole().await {
                    Ok(()) if answer.is_header_mismatch() && self.refresh_annotations(out).await => {
                        retried = true;
                        continue;
                    }
                    Ok(()) => {}
                    Err(e) => return self.fail_read(out, tx, e, Some(answer.status)).await,
                }
            }
            return self.relay(out, &mut answer, tx).await;
        }
    }

    /// Hands on every message of an answer; makes up an error response
    /// when the answer holds none for the request.
    async fn relay(&self, out: &Outgoing, answer: &mut Answer, tx: &mpsc::Sender<String>) {
        let id = out.id.clone().unwrap_or(Value::Null);
        let mut unreadable: Option<String> = None;
        let mut resumes = 0;
        loop {
            let text = match answer.next().await {
                Ok(Some(text)) => text,
                Ok(None) => match self.resume(out, answer, &mut resumes).await {
                    Some(next) => {
                        *answer = next;
                        continue;
                    }
                    None => break,
                },
                Err(e) => return self.fail_read(out, tx, e, Some(answer.status)).await,
            };
            if text.trim().is_empty() {
                continue; // an event without data (a priming event)
            }
            match classify(&text, &id) {
                Kind::Answer { fill_id } => {
                    let text = self.inspect_answer(out, text, fill_id);
                    let _ = tx.send(text).await;
                    answer.drain().await;
                    return;
                }
                Kind::Other => {
                    if tx.send(text).await.is_err() {
                        return;
                    }
                }
                Kind::NotJsonRpc => {
                    tracing::warn!(url = %self.endpoint.url, body = %quote(&text), "mcp http client: the server sent something that is not JSON-RPC");
                    unreadable.get_or_insert_with(|| quote(&text));
                }
            }
        }
        let status = answer.status;
        let why = match (&unreadable, status.is_success(), answer.sse) {
            (Some(body), true, _) => {
                format!("the server answered {} with {body:?}, which is not JSON-RPC", show_status(status))
            }
            (_, true, true) => "the server ended the SSE stream without answering the request".to_owned(),
            (None, true, false) => format!("the server answered {} without a JSON-RPC response", show_status(status)),
            (body, false, _) => {
                let mut why = format!("the server answered HTTP {}", show_status(status));
                if let Some(location) = answer.location.as_ref().filter(|_| status.is_redirection()) {
                    why.push_str(&format!(" (redirects are not followed; Location: {location})"));
                }
                if let Some(body) = body.as_ref().filter(|b| !b.is_empty()) {
                    why.push_str(&format!(": {body}"));
                }
                why
            }
        };
        self.fail(out, tx, why, Some(status)).await
    }

    /// The response to the request, after what the transport learns from
    /// it: the session's revision (`initialize`), the tools' annotations
    /// (`tools/list`, leaving out invalid tools), a missing id filled in.
    fn inspect_answer(&self, out: &Outgoing, text: String, fill_id: bool) -> String {
        let initialize = out.method() == "initialize" && out.version.is_none();
        let tools_list = out.method() == "tools/list" && out.version.is_some();
        if !(fill_id || initialize || tools_list) {
            return text;
        }
        let Ok(Value::Object(mut message)) = serde_json::from_str::<Value>(&text) else { return text };
        if fill_id {
            message.insert("id".into(), out.id.clone().unwrap_or(Value::Null));
        }
        if initialize {
            if let Some(version) = message.get("result").and_then(|r| r.get("protocolVersion")).and_then(Value::as_str)
            {
                *lock(&self.learnt.protocol_version) = Some(version.to_owned());
            }
        }
        if tools_list {
            if let Some(tools) =
                message.get_mut("result").and_then(|r| r.get_mut("tools")).and_then(Value::as_array_mut)
            {
                self.learn(tools);
            }
        }
        Value::Object(message).to_string()
    }

    /// Records the `x-mcp-header` annotations of listed tools and removes
    /// the tools whose annotations break the rules.
    fn learn(&self, tools: &mut Vec<Value>) {
        let mut annotations = lock(&self.annotations);
        tools.retain(|tool| {
            let Some(name) = tool.get("name").and_then(Value::as_str) else { return true };
            match tool_param_headers(tool) {
                Ok(list) if list.is_empty() => {
                    annotations.remove(name);
                    true
                }
                Ok(list) => {
                    annotations.insert(name.to_owned(), list);
                    true
                }
                Err(why) => {
                    tracing::warn!(tool = name, "mcp http client: tool left out of tools/list: {why}");
                    annotations.remove(name);
                    false
                }
            }
        });
    }

    /// Lists the tools again (following `nextCursor` until the called tool
    /// shows up); true when the called tool's annotations changed.
    async fn refresh_annotations(&self, call: &Outgoing) -> bool {
        let Some(tool) = call.name().map(str::to_owned) else { return false };
        let before = lock(&self.annotations).get(&tool).cloned();
        let mut meta =
            call.params.as_ref().and_then(|p| p.get("_meta")).and_then(Value::as_object).cloned().unwrap_or_default();
        meta.remove(meta::PROGRESS_TOKEN);
        let mut cursor: Option<Value> = None;
        for _ in 0..REFRESH_PAGES {
            let n = self.refreshes.fetch_add(1, Ordering::Relaxed);
            let mut params = Map::new();
            params.insert("_meta".into(), Value::Object(meta.clone()));
            if let Some(c) = cursor.take() {
                params.insert("cursor".into(), c);
            }
            let id = json!(format!("mcpgen-http-tools-refresh-{n}"));
            let text = json!({"jsonrpc": "2.0", "id": id, "method": "tools/list", "params": params}).to_string();
            let list = Outgoing::parse(&text);
            let Some(mut result) = self.fetch(&list).await else { return false };
            let Some(tools) = result.get_mut("tools").and_then(Value::as_array_mut) else { return false };
            let listed = tools.iter().any(|t| t.get("name").and_then(Value::as_str) == Some(tool.as_str()));
            self.learn(tools);
            cursor = result.get("nextCursor").filter(|c| !c.is_null()).cloned();
            if listed || cursor.is_none() {
                break;
            }
        }
        let after = lock(&self.annotations).get(&tool).cloned();
        after != before
    }

    /// The result of one request of the transport's own (notifications
    /// dropped); `None` when it fails.
    async fn fetch(&self, out: &Outgoing) -> Option<Value> {
        let lease = self.checkout().await.ok()?;
        let (response, conn) = self.send(lease, self.request(out).ok()?).await.ok()?;
        let mut answer = Answer::new(response, self.max(), conn);
        let id = out.id.clone().unwrap_or(Value::Null);
        while let Ok(Some(text)) = answer.next().await {
            if let Kind::Answer { .. } = classify(&text, &id) {
                let mut message: Value = serde_json::from_str(&text).ok()?;
                return message.get_mut("result").map(Value::take);
            }
        }
        None
    }

    /// POSTs a notification or an answer; the server's reply carries nothing.
    async fn post_one_way(&self, lease: Lease, out: &Outgoing) -> Result<(), String> {
        let mut lease = Some(lease);
        let mut attempts = 0;
        let (response, conn) = loop {
            let lease = match lease.take() {
                Some(l) => l,
                None => self.checkout().await.map_err(|e| e.to_string())?,
            };
            let sent = self.bearer();
            let request = self.request(out)?;
            let (response, conn) =
                self.send(lease, request).await.map_err(|e| format!("sending {} failed: {e}", out.describe()))?;
            match self.reauthorize(&response, sent.as_deref(), &mut attempts).await {
                Some(Ok(())) => continue,
                Some(Err(why)) => return Err(why),
                None => break (response, conn),
            }
        };
        let mut answer = Answer::new(response, self.max(), conn);
        if answer.status.is_success() {
            // 202 normally; drain whatever else came, unread.
            while let Ok(Some(_)) = answer.next().await {}
            return Ok(());
        }
        let body = match answer.whole().await {
            Ok(()) => answer.queue.iter().map(|t| quote(t)).collect::<Vec<_>>().join(" "),
            Err(_) => String::new(),
        };
        Err(format!("the server refused {} with HTTP {}: {body}", out.describe(), show_status(answer.status)))
    }

    async fn fail_read(&self, out: &Outgoing, tx: &mpsc::Sender<String>, e: ReadError, status: Option<StatusCode>) {
        let why = match e {
            ReadError::TooLarge => format!(
                "the server's answer to {} exceeds the limit of {} bytes ({}; HttpTransport::max_message_bytes, \
                 ClientOptions::max_message_bytes); it was not read and its stream was closed",
                out.describe(),
                self.max(),
                human_size(self.max())
            ),
            ReadError::Http(e) => format!("reading the server's answer to {} failed: {e}", out.describe()),
        };
        self.fail(out, tx, why, status).await
    }

    /// A `GET` of the endpoint for an SSE stream (stateful era), resuming
    /// after `last_event_id` when given. `None` when the server offers no
    /// stream (`405`, an error, not SSE).
    async fn get_stream(&self, last_event_id: Option<&str>) -> Option<Answer> {
        let lease = self.checkout().await.ok()?;
        let mut request = Request::new(Full::new(Bytes::new()));
        *request.method_mut() = Method::GET;
        *request.uri_mut() = self.endpoint.target.parse().ok()?;
        let h = request.headers_mut();
        h.insert(HOST, self.endpoint.authority.clone());
        h.insert(ACCEPT, HeaderValue::from_static("text/event-stream"));
        h.extend(self.extra.clone());
        self.authorize(h, self.bearer().as_deref());
        if let Some(session) = lock(&self.learnt.session_id).clone() {
            h.insert(headers::SESSION_ID, session);
        }
        if let Some(version) =
            lock(&self.learnt.protocol_version).as_deref().and_then(|v| HeaderValue::from_str(v).ok())
        {
            h.insert(headers::PROTOCOL_VERSION, version);
        }
        if let Some(id) = last_event_id.and_then(|id| HeaderValue::from_str(id).ok()) {
            h.insert(LAST_EVENT_ID, id);
        }
        let (response, conn) = self.send(lease, request).await.ok()?;
        let answer = Answer::new(response, self.max(), conn);
        answer.sse.then_some(answer)
    }

    /// A request's SSE stream ended without its response (stateful era):
    /// when the stream named an event id, waits the stream's `retry` and
    /// resumes it with a `GET` carrying `Last-Event-ID` (SEP-1699), at
    /// most [`MAX_RESUMES`] times.
    async fn resume(&self, out: &Outgoing, answer: &Answer, resumes: &mut usize) -> Option<Answer> {
        if out.version.is_some() || !answer.sse || *resumes >= MAX_RESUMES {
            return None;
        }
        let last = answer.parser.last_id.clone()?;
        *resumes += 1;
        tokio::time::sleep(answer.parser.retry.map_or(DEFAULT_RETRY, Duration::from_millis)).await;
        tracing::debug!(url = %self.endpoint.url, "mcp http client: resuming the stream of {} after event {last:?}", out.describe());
        self.get_stream(Some(&last)).await
    }

    /// Stateful era, after `notifications/initialized`: reads the server's
    /// standalone SSE stream (its requests and notifications go to the
    /// engine), reconnecting with `Last-Event-ID` when it ends, until the
    /// transport closes or the server offers no stream. The stream is
    /// opened (its response headers read, for at most [`LISTEN_TIMEOUT`])
    /// before the engine writes anything else: a server sends on it the
    /// requests that belong to no request of the client (an elicitation
    /// during a `tools/call`, with some SDKs) and may drop them while no
    /// stream is open.
    async fn start_listener(self: &Arc<Self>, tx: mpsc::Sender<String>) {
        if lock(&self.listener).is_some() {
            return;
        }
        let first = match tokio::time::timeout(LISTEN_TIMEOUT, self.get_stream(None)).await {
            Ok(None) => return, // no stream offered
            Ok(Some(answer)) => Some(answer),
            Err(_) => None, // slow: the task below keeps trying
        };
        let shared = Arc::clone(self);
        let mut slot = lock(&self.listener);
        if slot.is_some() || self.learnt.closed.load(Ordering::SeqCst) {
            return;
        }
        let task = tokio::spawn(async move {
            let mut first = first;
            let mut last: Option<String> = None;
            let mut idle = 0;
            while idle < MAX_RESUMES {
                let next = match first.take() {
                    Some(answer) => Some(answer),
                    None => shared.get_stream(last.as_deref()).await,
                };
                let Some(mut answer) = next else { return };
                let mut delivered = false;
                while let Ok(Some(text)) = answer.next().await {
                    if text.trim().is_empty() {
                        continue;
                    }
                    delivered = true;
                    if tx.send(text).await.is_err() {
                        return;
                    }
                }
                idle = if delivered { 0 } else { idle + 1 };
                last = answer.parser.last_id.clone().or(last);
                tokio::time::sleep(answer.parser.retry.map_or(DEFAULT_RETRY, Duration::from_millis)).await;
            }
        });
        *slot = Some(task.abort_handle());
    }

    /// Hands the engine an error response for the request.
    async fn fail(&self, out: &Outgoing, tx: &mpsc::Sender<String>, why: String, status: Option<StatusCode>) {
        tracing::debug!(url = %self.endpoint.url, "mcp http client: {why}");
        let mut data = Map::new();
        data.insert("url".into(), json!(self.endpoint.url));
        if let Some(status) = status {
            data.insert("httpStatus".into(), json!(status.as_u16()));
        }
        let message = json!({
            "jsonrpc": "2.0",
            "id": out.id.clone().unwrap_or(Value::Null),
            "error": {"code": TRANSPORT_ERROR, "message": why, "data": data},
        });
        let _ = tx.send(message.to_string()).await;
    }
}

fn show_status(status: StatusCode) -> String {
    match status.canonical_reason() {
        Some(reason) => format!("{} {reason}", status.as_u16()),
        None => status.as_u16().to_string(),
    }
}

fn quote(text: &str) -> String {
    let text = text.trim();
    if text.len() <= QUOTE {
        return text.to_owned();
    }
    let mut end = QUOTE;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &text[..end])
}

/// The reply of one POST, message by message.
struct Answer {
    status: StatusCode,
    location: Option<String>,
    body: Incoming,
    /// An SSE stream (else a whole body).
    sse: bool,
    parser: SseParser,
    /// Messages of a whole body, once read.
    queue: VecDeque<String>,
    read: bool,
    max: usize,
    /// The answer's connection, back to the pool once the body has been
    /// read to its end (when the server keeps it open); dropped, and so
    /// closed, with the answer before that.
    lease: Option<Lease>,
    keep_alive: bool,
}

impl Answer {
    fn new(response: Response<Incoming>, max: usize, lease: Lease) -> Self {
        let status = response.status();
        let keep_alive = pool::keeps_alive(&response);
        let media = response.headers().get(CONTENT_TYPE).and_then(|v| v.to_str().ok()).unwrap_or("");
        let sse = status.is_success()
            && media.split(';').next().unwrap_or("").trim().eq_ignore_ascii_case("text/event-stream");
        let location = response.headers().get(LOCATION).and_then(|v| v.to_str().ok()).map(str::to_owned);
        Self {
            status,
            location,
            body: response.into_body(),
            sse,
            parser: SseParser::new(max),
            queue: VecDeque::new(),
            read: false,
            max,
            lease: Some(lease),
            keep_alive,
        }
    }

    /// The body has been read to its end: the connection is free.
    fn ended(&mut self) {
        if let Some(lease) = self.lease.take().filter(|_| self.keep_alive) {
            lease.release();
        }
    }

    /// After the response of an SSE answer: reads the rest of the stream,
    /// which the server should end now, so that the connection can serve
    /// another request; gives up (closing the connection) after
    /// [`DRAIN_TIMEOUT`] or at the size limit.
    async fn drain(&mut self) {
        if !self.sse || self.lease.is_none() {
            return;
        }
        let mut left = self.max;
        let rest = async {
            while let Some(frame) = self.body.frame().await {
                let Ok(frame) = frame else { return false };
                let size = frame.data_ref().map_or(0, Bytes::len);
                if size > left {
                    return false;
                }
                left -= size;
            }
            true
        };
        if let Ok(true) = tokio::time::timeout(DRAIN_TIMEOUT, rest).await {
            self.ended();
        }
    }

    /// Whether a whole body is one JSON-RPC error `-32020` (HeaderMismatch).
    fn is_header_mismatch(&self) -> bool {
        self.queue.iter().any(|text| {
            serde_json::from_str::<Value>(text).ok().and_then(|v| v.pointer("/error/code").and_then(Value::as_i64))
                == Some(crate::revision::codes::HEADER_MISMATCH)
        })
    }

    /// Reads a whole (non-SSE) body into the queue: one message, or the
    /// members of a batch.
    async fn whole(&mut self) -> Result<(), ReadError> {
        if self.read || self.sse {
            return Ok(());
        }
        self.read = true;
        let mut bytes = Vec::new();
        while let Some(frame) = self.body.frame().await {
            let frame = frame.map_err(ReadError::Http)?;
            if let Ok(data) = frame.into_data() {
                if bytes.len() + data.len() > self.max {
                    return Err(ReadError::TooLarge);
                }
                bytes.extend_from_slice(&data);
            }
        }
        self.ended();
        let text = String::from_utf8_lossy(&bytes);
        if text.trim().is_empty() {
            return Ok(());
        }
        match serde_json::from_str::<Value>(&text) {
            Ok(Value::Array(batch)) if !batch.is_empty() => self.queue.extend(batch.iter().map(Value::to_string)),
            _ => self.queue.push_back(text.into_owned()),
        }
        Ok(())
    }

    /// The next message, `None` at the end of the answer.
    async fn next(&mut self) -> Result<Option<String>, ReadError> {
        if !self.sse {
            self.whole().await?;
            return Ok(self.queue.pop_front());
        }
        loop {
            if let Some(event) = self.parser.next_event() {
                return Ok(Some(event));
            }
            if self.parser.ended {
                return Ok(None);
            }
            match self.body.frame().await {
                Some(Ok(frame)) => {
                    if let Ok(data) = frame.into_data() {
                        self.parser.feed(&data).map_err(|()| ReadError::TooLarge)?;
                    }
                }
                Some(Err(e)) => return Err(ReadError::Http(e)),
                None => {
                    self.ended();
                    self.parser.finish();
                }
            }
        }
    }
}

/// What a message of an answer is to the request.
enum Kind {
    /// The response to it (`fill_id`: an error whose id is missing or null).
    Answer { fill_id: bool },
    /// A notification, a server request, or a response to something else.
    Other,
    /// Not a JSON-RPC message.
    NotJsonRpc,
}

fn present<'de, D: Deserializer<'de>>(d: D) -> Result<bool, D::Error> {
    IgnoredAny::deserialize(d).map(|_| true)
}

/// The members of a message that tell what it is, skipping the rest.
#[derive(Deserialize)]
struct Peek {
    #[serde(default)]
    id: Option<Value>,
    #[serde(default, deserialize_with = "present")]
    method: bool,
    #[serde(default, deserialize_with = "present")]
    result: bool,
    #[serde(default)]
    error: Option<Value>,
}

fn classify(text: &str, id: &Value) -> Kind {
    if !text.trim_start().starts_with('{') {
        return Kind::NotJsonRpc;
    }
    let Ok(peek) = serde_json::from_str::<Peek>(text) else { return Kind::NotJsonRpc };
    if peek.method {
        return Kind::Other;
    }
    // A JSON-RPC error is an object with an integer code; `{"error": "…"}`
    // from a proxy or a router is not one.
    let error = match &peek.error {
        None => false,
        Some(e) if e.get("code").is_some_and(|c| c.is_i64()) => true,
        Some(_) => return Kind::NotJsonRpc,
    };
    if !(peek.result || error) {
        return Kind::NotJsonRpc;
    }
    match &peek.id {
        Some(theirs) if theirs == id => Kind::Answer { fill_id: false },
        None if error => Kind::Answer { fill_id: true },
        _ => Kind::Other,
    }
}

/// An incremental Server-Sent Events parser: `data:` lines of an event
/// joined by newlines, comments and other fields ignored, any of CRLF, LF
/// or CR ending a line. Holds at most `max` bytes of one event.
struct SseParser {
    line: Vec<u8>,
    data: Vec<u8>,
    has_data: bool,
    /// The previous chunk ended with CR: a LF starting the next one belongs to it.
    after_cr: bool,
    first_line: bool,
    events: VecDeque<String>,
    max: usize,
    ended: bool,
    /// The last `id` field seen (what `Last-Event-ID` resumes from).
    last_id: Option<String>,
    /// The last `retry` field: how long to wait before reconnecting, in ms.
    retry: Option<u64>,
}

impl SseParser {
    fn new(max: usize) -> Self {
        Self {
            line: Vec::new(),
            data: Vec::new(),
            has_data: false,
            after_cr: false,
            first_line: true,
            events: VecDeque::new(),
            max,
            ended: false,
            last_id: None,
            retry: None,
        }
    }

    fn next_event(&mut self) -> Option<String> {
        self.events.pop_front()
    }

    /// Takes a chunk of the stream; `Err` once an event passes the limit.
    fn feed(&mut self, mut chunk: &[u8]) -> Result<(), ()> {
        if self.after_cr {
            self.after_cr = false;
            if let [b'\n', rest @ ..] = chunk {
                chunk = rest;
            }
        }
        while let Some(at) = chunk.iter().position(|&b| b == b'\n' || b == b'\r') {
            self.line.extend_from_slice(&chunk[..at]);
            self.end_line()?;
            let crlf = chunk[at] == b'\r' && chunk.get(at + 1) == Some(&b'\n');
            if chunk[at] == b'\r' && at + 1 == chunk.len() {
                self.after_cr = true;
            }
            chunk = &chunk[at + if crlf { 2 } else { 1 }..];
        }
        self.line.extend_from_slice(chunk);
        if self.line.len() + self.data.len() > self.max {
            return Err(());
        }
        Ok(())
    }

    /// The stream ended: a last event without its blank line counts too.
    fn finish(&mut self) {
        if !self.line.is_empty() {
            let _ = self.end_line();
        }
        self.dispatch();
        self.ended = true;
    }

    fn dispatch(&mut self) {
        if self.has_data {
            if self.data.last() == Some(&b'\n') {
                self.data.pop();
            }
            let data = std::mem::take(&mut self.data);
            self.events.push_back(
                String::from_utf8(data).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned()),
            );
        }
        self.data.clear();
        self.has_data = false;
    }

    fn end_line(&mut self) -> Result<(), ()> {
        let mut line = std::mem::take(&mut self.line);
        if std::mem::take(&mut self.first_line) {
            if let [0xEF, 0xBB, 0xBF, ..] = line[..] {
                line.drain(..3);
            }
        }
        if line.is_empty() {
            self.dispatch();
        } else if line[0] != b':' {
            let (field, value) = match line.iter().position(|&b| b == b':') {
                Some(at) => {
                    let value = &line[at + 1..];
                    (&line[..at], value.strip_prefix(b" ").unwrap_or(value))
                }
                None => (&line[..], &[][..]),
            };
            if field == b"data" {
                if self.data.len() + value.len() + 1 > self.max {
                    return Err(());
                }
                self.data.extend_from_slice(value);
                self.data.push(b'\n');
                self.has_data = true;
            }
            if field == b"id" && !value.contains(&0) {
                self.last_id = Some(String::from_utf8_lossy(value).into_owned());
            }
            if field == b"retry" && !value.is_empty() && value.iter().all(u8::is_ascii_digit) {
                self.retry = std::str::from_utf8(value).ok().and_then(|v| v.parse().ok());
            }
            // `event` and unknown fields carry nothing here.
        }
        // Reuse the allocation of ordinary lines.
        if line.capacity() <= 1 << 16 {
            line.clear();
            self.line = line;
        }
        Ok(())
    }
}

/// A header value as the stateless era sends it: as is when it is plain
/// visible ASCII (inner spaces allowed) without leading or trailing
/// spaces, else (or when it looks like the sentinel itself) the Base64
/// sentinel form `=?base64?…?=` of its UTF-8 bytes.
pub fn encode_header_value(value: &str) -> String {
    let plain = value.bytes().all(|b| (0x20..=0x7E).contains(&b))
        && !value.starts_with(' ')
        && !value.ends_with(' ')
        && !value.starts_with("=?base64?");
    if plain {
        value.to_owned()
    } else {
        format!("=?base64?{}?=", base64_encode(value.as_bytes()))
    }
}

/// Standard Base64 with padding.
pub fn base64_encode(bytes: &[u8]) -> String {
    base64::Engine::encode(&base64::engine::general_purpose::STANDARD, bytes)
}

/// Whether a header name is an RFC 9110 token (`1*tchar`).
fn is_token(name: &str) -> bool {
    !name.is_empty() && name.bytes().all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b))
}

/// The `x-mcp-header` annotations of a tool, checked against the rules of
/// the transport: each a token, unique regardless of case, on a property
/// of type `string`, `integer` or `boolean` reachable from the root of
/// `inputSchema` through `properties` only. `Err` names the first problem.
fn tool_param_headers(tool: &Value) -> Result<Vec<ParamHeader>, String> {
    let Some(schema) = tool.get("inputSchema") else { return Ok(Vec::new()) };
    let mut found = Vec::new();
    annotations_in(schema, "", Some(&mut Vec::new()), &mut found);
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    for (pointer, path, schema) in found {
        let at =
            if pointer.is_empty() { "the root of inputSchema".to_owned() } else { format!("inputSchema{pointer}") };
        let Some(path) = path else {
            return Err(format!("the x-mcp-header at {at} is not on a property reachable through `properties` alone"));
        };
        let Some(name) = schema.get("x-mcp-header").and_then(Value::as_str) else {
            return Err(format!("the x-mcp-header at {at} is not a string"));
        };
        if !is_token(name) {
            return Err(format!("the x-mcp-header {name:?} at {at} is not an HTTP header name token"));
        }
        if !seen.insert(name.to_ascii_lowercase()) {
            return Err(format!(
                "the x-mcp-header {name:?} at {at} repeats another one (names are compared without case)"
            ));
        }
        let primitive = |t: &str| matches!(t, "string" | "integer" | "boolean");
        let typed = match schema.get("type") {
            Some(Value::String(t)) => primitive(t),
            Some(Value::Array(types)) => {
                let kinds: Vec<&str> = types.iter().filter_map(Value::as_str).filter(|t| *t != "null").collect();
                kinds.len() == 1 && primitive(kinds[0]) && types.iter().all(Value::is_string)
            }
            _ => false,
        };
        if !typed {
            let shown = schema.get("type").map_or_else(|| "no type".to_owned(), |t| format!("type {t}"));
            return Err(format!(
                "the x-mcp-header {name:?} at {at} is on a parameter with {shown}; only string, integer and boolean parameters may be mirrored"
            ));
        }
        out.push(ParamHeader { header: format!("{}{}", headers::PARAM_PREFIX, name.to_ascii_lowercase()), path });
    }
    Ok(out)
}

/// Every schema holding `x-mcp-header` under `schema`: its JSON pointer,
/// its `properties` path when every step to it is a `properties` key, and
/// the schema. Values of `const`, `enum`, `default` and `examples` are data,
/// never looked into.
fn annotations_in<'a>(
    schema: &'a Value,
    pointer: &str,
    path: Option<&mut Vec<String>>,
    out: &mut Vec<(String, Option<Vec<String>>, &'a Value)>,
) {
    let Some(obj) = schema.as_object() else { return };
    let reachable = path.as_ref().filter(|p| !p.is_empty()).map(|p| p.to_vec());
    let mut path = path;
    if obj.contains_key("x-mcp-header") {
        out.push((pointer.to_owned(), reachable, schema));
    }
    let escape = |key: &str| key.replace('~', "~0").replace('/', "~1");
    for (keyword, sub) in obj {
        let here = format!("{pointer}/{}", escape(keyword));
        match keyword.as_str() {
            "properties" => {
                for (name, property) in sub.as_object().into_iter().flatten() {
                    let at = format!("{here}/{}", escape(name));
                    match path.as_deref_mut() {
                        Some(p) => {
                            p.push(name.clone());
                            annotations_in(property, &at, Some(p), out);
                            p.pop();
                        }
                        None => annotations_in(property, &at, None, out),
                    }
                }
            }
            k if SCHEMA_MAPS.contains(&k) => {
                for (name, sub) in sub.as_object().into_iter().flatten() {
                    annotations_in(sub, &format!("{here}/{}", escape(name)), None, out);
                }
            }
            k if SCHEMA_LISTS.contains(&k) => match sub {
                Value::Array(list) => {
                    for (i, sub) in list.iter().enumerate() {
                        annotations_in(sub, &format!("{here}/{i}"), None, out);
                    }
                }
                sub => annotations_in(sub, &here, None, out),
            },
            k if ONE_SCHEMA.contains(&k) => annotations_in(sub, &here, None, out),
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_parse() {
        let e = Endpoint::parse("http://127.0.0.1:8080/mcp").unwrap();
        assert_eq!((e.host.as_str(), e.port, e.target.as_str()), ("127.0.0.1", 8080, "/mcp"));
        assert_eq!(e.authority, "127.0.0.1:8080");
        let e = Endpoint::parse("HTTP://[::1]/a/b?x=1#frag").unwrap();
        assert_eq!((e.host.as_str(), e.port, e.target.as_str()), ("::1", 80, "/a/b?x=1"));
        let e = Endpoint::parse("http://localhost").unwrap();
        assert_eq!(e.target, "/");
        match Endpoint::parse("https://example.com/mcp") {
            Ok(e) => assert_eq!((e.host.as_str(), e.port, e.tls), ("example.com", 443, true)),
            Err(err) => assert!(!cfg!(feature = "tls") && err.to_string().contains("TLS is not built in"), "{err}"),
        }
        for bad in ["ftp://x/", "127.0.0.1:80/mcp", "http://:80/", "http://h:99999/", "http://u:p@h/"] {
            assert!(Endpoint::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn header_values_use_the_sentinel_form_when_needed() {
        assert_eq!(encode_header_value("us-west1"), "us-west1");
        assert_eq!(encode_header_value("a b"), "a b");
        assert_eq!(encode_header_value("Hello, 世界"), "=?base64?SGVsbG8sIOS4lueVjA==?=");
        assert_eq!(encode_header_value(" padded "), "=?base64?IHBhZGRlZCA=?=");
        assert_eq!(encode_header_value("line1\nline2"), "=?base64?bGluZTEKbGluZTI=?=");
        assert_eq!(encode_header_value("=?base64?literal?="), "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?=");
        for text in ["", "f", "fo", "foo", "foob", "fooba", "foobar", "météo ☀"] {
            let encoded = base64_encode(text.as_bytes());
            assert_eq!(headers::base64_decode(&encoded).unwrap(), text.as_bytes(), "{text}: {encoded}");
        }
        assert_eq!(base64_encode(b"foobar"), "Zm9vYmFy");
        assert_eq!(base64_encode(b"fooba"), "Zm9vYmE=");
    }

    fn tool(properties: Value) -> Value {
        json!({"name": "t", "inputSchema": {"type": "object", "properties": properties}})
    }

    #[test]
    fn annotations_follow_the_rules() {
        let ok = tool(json!({
            "region": {"type": "string", "x-mcp-header": "Region"},
            "n": {"type": ["integer", "null"], "x-mcp-header": "N"},
            "deep": {"type": "object", "properties": {"flag": {"type": "boolean", "x-mcp-header": "Flag"}}},
            "x-mcp-header": {"type": "string", "default": {"x-mcp-header": "data, not an annotation"}}
        }));
        let list = tool_param_headers(&ok).unwrap();
        let got: Vec<(&str, Vec<&str>)> =
            list.iter().map(|p| (p.header.as_str(), p.path.iter().map(String::as_str).collect())).collect();
        assert_eq!(
            got,
            [
                ("mcp-param-region", vec!["region"]),
                ("mcp-param-n", vec!["n"]),
                ("mcp-param-flag", vec!["deep", "flag"])
            ]
        );

        let bad = [
            (tool(json!({"a": {"type": "string", "x-mcp-header": "Bad Name"}})), "token"),
            (tool(json!({"a": {"type": "string", "x-mcp-header": ""}})), "token"),
            (
                tool(
                    json!({"a": {"type": "string", "x-mcp-header": "X"}, "b": {"type": "string", "x-mcp-header": "x"}}),
                ),
                "repeats",
            ),
            (tool(json!({"a": {"type": "number", "x-mcp-header": "A"}})), "number"),
            (tool(json!({"a": {"type": "object", "x-mcp-header": "A"}})), "object"),
            (tool(json!({"a": {"x-mcp-header": "A"}})), "no type"),
            (tool(json!({"a": {"type": "array", "items": {"type": "string", "x-mcp-header": "A"}}})), "reachable"),
            (tool(json!({"a": {"anyOf": [{"type": "string", "x-mcp-header": "A"}]}})), "reachable"),
            (
                json!({"name": "t", "inputSchema": {"type": "object", "$defs": {"d": {"type": "string", "x-mcp-header": "D"}}}}),
                "reachable",
            ),
            (json!({"name": "t", "inputSchema": {"type": "object", "x-mcp-header": "Root"}}), "reachable"),
            (tool(json!({"a": {"type": "string", "x-mcp-header": 7}})), "not a string"),
        ];
        for (tool, why) in bad {
            let err = tool_param_headers(&tool).unwrap_err();
            assert!(err.contains(why), "{tool}: {err}");
        }
    }

    fn events(parser: &mut SseParser) -> Vec<String> {
        std::iter::from_fn(|| parser.next_event()).collect()
    }

    #[test]
    fn sse_events_split_on_any_line_ending_and_in_any_chunking() {
        let stream = "\u{feff}: keep-alive\r\n\r\nevent: message\r\ndata: {\"a\":\r\ndata: 1}\r\n\r\nid: 7\ndata:x\n\ndata\n\n\rdata: last";
        let want = ["{\"a\":\n1}", "x", "", "last"];
        for size in [1, 2, 3, 5, 7, 64] {
            let mut parser = SseParser::new(1 << 20);
            let mut got = Vec::new();
            for piece in stream.as_bytes().chunks(size) {
                parser.feed(piece).unwrap();
                got.extend(events(&mut parser));
            }
            parser.finish();
            got.extend(events(&mut parser));
            assert_eq!(got, want, "chunks of {size}");
        }
    }

    #[test]
    fn an_sse_event_over_the_limit_fails() {
        let mut parser = SseParser::new(10);
        assert!(parser.feed(b"data: 12345\n\n").is_ok());
        assert_eq!(events(&mut parser), ["12345"]);
        assert!(parser.feed(b"data: 123456789012").is_err());
        let mut parser = SseParser::new(10);
        assert!(parser.feed(b"data: 123456\ndata: 123456\n").is_err());
    }

    #[test]
    fn messages_are_classified_against_the_request_id() {
        let id = json!(3);
        assert!(matches!(classify(r#"{"jsonrpc":"2.0","id":3,"result":{}}"#, &id), Kind::Answer { fill_id: false }));
        assert!(matches!(
            classify(r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32022}}"#, &id),
            Kind::Answer { fill_id: true }
        ));
        assert!(matches!(classify(r#"{"jsonrpc":"2.0","error":{"code":-1}}"#, &id), Kind::Answer { fill_id: true }));
        assert!(matches!(classify(r#"{"jsonrpc":"2.0","id":4,"result":null}"#, &id), Kind::Other));
        assert!(matches!(classify(r#"{"jsonrpc":"2.0","method":"notifications/progress"}"#, &id), Kind::Other));
        assert!(matches!(classify(r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#, &id), Kind::Other));
        assert!(matches!(classify("<html>", &id), Kind::NotJsonRpc));
        assert!(matches!(classify(r#"{"error":"not found"}"#, &id), Kind::NotJsonRpc));
        assert!(matches!(classify(r#"{"id":3,"error":{"code":"x"}}"#, &id), Kind::NotJsonRpc));
        assert!(matches!(classify(r#"{"status":"ok"}"#, &id), Kind::NotJsonRpc));
        assert!(matches!(classify("[3]", &id), Kind::NotJsonRpc));
    }
}
