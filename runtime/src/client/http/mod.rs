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

use std::collections::HashMap;
use std::io;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use bytes::Bytes;
use http::header::{HeaderName, HeaderValue, PROXY_AUTHORIZATION};
use serde_json::Value;
use tokio::sync::mpsc;

use self::pool::Pool;
use crate::client::oauth::{Authorizer, OAuth};
use crate::revision::meta;
use crate::revision::method::{McpName, Method};
use crate::transport::http::connect::{Connector, Dial};
use crate::transport::http::HttpOptions;
use crate::transport::{MessageRead, MessageWrite, Transport};

mod annotations;
mod answer;
mod listen;
pub(crate) mod pool;
mod shared;
pub(crate) mod sse;

pub use annotations::{base64_encode, encode_header_value};
use shared::TransportShared;

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
/// use mcpgen_runtime::client::http::HttpTransport;
/// use mcpgen_runtime::transport::http::HttpOptions;
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
    /// Whether [`HttpTransport::options`] set the connection settings:
    /// then the client's own ([`ClientOptions::http`](crate::client::ClientOptions::http)) do not replace them.
    configured: bool,
    auth: Option<Authorizer>,
    max_bytes: usize,
    learnt: Arc<Learnt>,
    /// Set by the fuzz targets: connections made in memory.
    dial: Option<Dial>,
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
            io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("invalid MCP endpoint URL {url:?}: {why}"),
            )
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
            return Err(invalid(format!(
                "the scheme {scheme:?} is not supported; use http:// or https://"
            )));
        }
        let rest = rest.split('#').next().unwrap_or("");
        let end = rest.find(['/', '?']).unwrap_or(rest.len());
        let (authority, target) = rest.split_at(end);
        if authority.contains('@') {
            return Err(invalid(
                "credentials in the URL are not supported; send an Authorization header instead"
                    .into(),
            ));
        }
        let (host, port) = if let Some(v6) = authority.strip_prefix('[') {
            let Some((host, after)) = v6.split_once(']') else {
                return Err(invalid("an IPv6 host must be closed with ']'".into()));
            };
            let port = match after {
                "" => None,
                p => Some(
                    p.strip_prefix(':')
                        .ok_or_else(|| invalid(format!("unexpected {p:?} after the host")))?,
                ),
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
            Some(p) => p
                .parse::<u16>()
                .map_err(|_| invalid(format!("the port {p:?} is not a number from 0 to 65535")))?,
        };
        let authority = HeaderValue::from_str(authority)
            .map_err(|_| invalid("the host holds characters a Host header cannot".into()))?;
        let target = match target {
            "" => "/".to_owned(),
            t if t.starts_with('?') => format!("/{t}"),
            t => t.to_owned(),
        };
        Ok(Self {
            url: url.to_owned(),
            host: host.to_owned(),
            port,
            tls,
            authority,
            target,
        })
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
        Ok(Self {
            endpoint,
            options: HttpOptions::default(),
            configured: false,
            auth: None,
            max_bytes: DEFAULT_MAX_MESSAGE,
            learnt,
            dial: None,
        })
    }

    /// Uses these connection settings (TLS, proxy, connect timeout); their
    /// headers are added to those set before.
    pub fn options(mut self, options: HttpOptions) -> Self {
        let mut headers = std::mem::take(&mut self.options.headers);
        headers.extend(options.headers.iter().map(|(k, v)| (k.clone(), v.clone())));
        self.options = HttpOptions { headers, ..options };
        self.configured = true;
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
    /// with the token (at most
    /// [`MAX_ATTEMPTS`](crate::client::oauth::MAX_ATTEMPTS)
    /// authorizations per request). The token goes to this endpoint only. Fails when the
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

    /// Makes every connection with `dial` instead of over the network
    /// (the fuzz targets: `crate::fuzzing::http_transport`).
    pub(crate) fn dial(mut self, dial: Dial) -> Self {
        self.dial = Some(dial);
        self
    }

    /// A handle on what the transport learns (session id, negotiated
    /// revision), still usable once the transport is handed to the engine.
    pub fn info(&self) -> HttpInfo {
        HttpInfo {
            learnt: Arc::clone(&self.learnt),
        }
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
        lock(&self.learnt.session_id)
            .as_ref()
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned)
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

    /// The client's headers join those set here (a header set here wins
    /// over the client's of the same name); its connection settings apply
    /// unless [`HttpTransport::options`] gave some.
    fn take_http_options(&mut self, client: &HttpOptions) {
        for name in client.headers.keys() {
            if !self.options.headers.contains_key(name) {
                for value in client.headers.get_all(name) {
                    self.options.headers.append(name.clone(), value.clone());
                }
            }
        }
        if !self.configured {
            self.options = HttpOptions {
                headers: std::mem::take(&mut self.options.headers),
                ..client.clone()
            };
        }
    }

    fn split(self) -> (HttpReader, HttpWriter) {
        let mut endpoint = self.endpoint;
        let mut extra = self.options.headers.clone();
        let Endpoint {
            url,
            host,
            port,
            tls,
            ..
        } = &endpoint;
        let connector = match self.dial {
            Some(dial) => Ok(Connector::in_memory(url, dial, &self.options)),
            None => Connector::new(url, host, *port, *tls, &self.options),
        };
        if let Some(auth) = connector.as_ref().ok().and_then(Connector::forwarding) {
            // An http:// endpoint through a proxy: absolute-form requests to it.
            endpoint.target = endpoint
                .url
                .split('#')
                .next()
                .unwrap_or_default()
                .to_owned();
            if let Some(auth) = auth {
                extra.insert(PROXY_AUTHORIZATION, auth);
            }
        }
        let shared = Arc::new(TransportShared {
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
        (
            HttpReader {
                rx,
                shared: Arc::clone(&shared),
            },
            HttpWriter { tx, shared },
        )
    }
}

/// Reading half of [`HttpTransport`]: the messages of every answer.
pub struct HttpReader {
    rx: mpsc::Receiver<String>,
    shared: Arc<TransportShared>,
}

impl std::fmt::Debug for HttpReader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpReader").finish_non_exhaustive()
    }
}

impl MessageRead for HttpReader {
    async fn read_message(&mut self) -> io::Result<Option<String>> {
        Ok(self.rx.recv().await)
    }

    /// Lowers the read cap to `bytes` (the engine passes its
    /// `ClientOptions::max_message_bytes`); the smaller limit applies.
    fn set_max_message(&mut self, bytes: usize) {
        self.shared
            .max_bytes
            .fetch_min(bytes.max(1), Ordering::Relaxed);
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
    shared: Arc<TransportShared>,
}

impl std::fmt::Debug for HttpWriter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpWriter").finish_non_exhaustive()
    }
}

impl MessageWrite for HttpWriter {
    async fn write_message(&mut self, message: &str) -> io::Result<()> {
        let out = Outgoing::parse(message);
        if out.known() == Some(Method::Cancelled) {
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
            Ok(Ok(())) if out.known() == Some(Method::Initialized) && out.version.is_none() => {
                listen::start_listener(&self.shared, self.tx.clone()).await;
            }
            Ok(Ok(())) => {}
            Ok(Err(why)) => {
                tracing::warn!(url = %self.shared.endpoint.url, "mcp http client: {why}")
            }
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
        let method = value
            .get("method")
            .and_then(Value::as_str)
            .map(str::to_owned);
        let id = value.get("id").filter(|id| !id.is_null()).cloned();
        let params = value.as_object_mut().and_then(|m| m.remove("params"));
        let version = params
            .as_ref()
            .and_then(|p| p.get("_meta"))
            .and_then(|m| m.get(meta::PROTOCOL_VERSION))
            .and_then(Value::as_str)
            .map(str::to_owned);
        Self {
            body: Bytes::copy_from_slice(text.as_bytes()),
            method,
            id,
            params,
            version,
        }
    }

    /// The method, when MCP has one by that name.
    fn known(&self) -> Option<Method> {
        Method::of(self.method.as_deref()?)
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
        let field = self
            .known()
            .filter(|m| m.mcp_name() == McpName::Required)?
            .target()?
            .member();
        Some(
            self.params
                .as_ref()
                .and_then(|p| p.get(field))
                .and_then(Value::as_str)
                .unwrap_or(""),
        )
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_parse() {
        let e = Endpoint::parse("http://127.0.0.1:8080/mcp").unwrap();
        assert_eq!(
            (e.host.as_str(), e.port, e.target.as_str()),
            ("127.0.0.1", 8080, "/mcp")
        );
        assert_eq!(e.authority, "127.0.0.1:8080");
        let e = Endpoint::parse("HTTP://[::1]/a/b?x=1#frag").unwrap();
        assert_eq!(
            (e.host.as_str(), e.port, e.target.as_str()),
            ("::1", 80, "/a/b?x=1")
        );
        let e = Endpoint::parse("http://localhost").unwrap();
        assert_eq!(e.target, "/");
        match Endpoint::parse("https://example.com/mcp") {
            Ok(e) => assert_eq!((e.host.as_str(), e.port, e.tls), ("example.com", 443, true)),
            Err(err) => assert!(
                !cfg!(feature = "tls") && err.to_string().contains("TLS is not built in"),
                "{err}"
            ),
        }
        for bad in [
            "ftp://x/",
            "127.0.0.1:80/mcp",
            "http://:80/",
            "http://h:99999/",
            "http://u:p@h/",
        ] {
            assert!(Endpoint::parse(bad).is_err(), "{bad}");
        }
    }
}
