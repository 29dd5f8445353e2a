//! [`HttpService`]: the MCP endpoint as a `tower::Service`. It decides per
//! request which era it belongs to (an `MCP-Session-Id`, an `initialize`,
//! or per-request `_meta`), applies the transport's rules and status codes,
//! and hands the message to the server engine with a session: the stored
//! one of a stateful session, a fresh one for a stateless request. With a
//! session store, a session unknown here is loaded from the store, and the
//! replicas tell each other of cancellations, state changes, ends,
//! messages for GET streams, the client's responses to requests a handler
//! on another replica sent, and the changes the application announces.

use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Weak};
use std::task::{Context, Poll};

use http::header::{
    HeaderValue, ALLOW, CACHE_CONTROL, CONTENT_TYPE, RETRY_AFTER, WWW_AUTHENTICATE,
};
use http::{Method, Request, Response, StatusCode};
use http_body_util::BodyExt;
use serde_json::Value;
use tokio::sync::mpsc;

use crate::jsonrpc::{self, Incoming, RpcError, METHOD_NOT_FOUND};
use crate::revision::method::Method as McpMethod;
use crate::revision::{self, meta, Era};
use crate::server::cancel::CancellationToken;
use crate::server::context::{Principal, Sink};
use crate::server::extras::Extras;
use crate::server::notifier::Change;
use crate::server::sink::SinkShared;
use crate::server::{poll_once, CachedScope, Handled, Message, Pending, Reply, Server, Session};

use super::body::{HttpBody, OnClose};
use super::guard::{self, Refusal};
use super::mirror;
use super::sessions::{Entry, Refused, Sessions};
use super::store::{bounded, AnnouncedTask, SessionEvent, StoredSession};
use super::{AuthRejection, HttpConfig};
use crate::transport::http::headers::{self, ParamHeader};
use crate::transport::http::scan::Scan;
use crate::transport::http::DPOP_NONCE;

/// Notifications a request's SSE stream buffers before its handler waits.
const STREAM_QUEUE: usize = 64;

/// The MCP endpoint over Streamable HTTP; cheap to clone (clones share
/// sessions). Mount it at the endpoint path, e.g. axum's
/// `Router::new().nest_service("/mcp", service)`, or run it with
/// [`super::serve`].
#[derive(Clone)]
pub struct HttpService {
    inner: Arc<Inner>,
}

struct Inner {
    server: Server,
    config: HttpConfig,
    sessions: Sessions,
    /// Per tool, its `x-mcp-header` annotated parameters.
    param_headers: std::collections::HashMap<String, Vec<ParamHeader>>,
    shutdown: CancellationToken,
    /// Request-body bytes that may be read and handled at once (permits
    /// are bytes; see [`HttpConfig::max_buffered_bytes`]).
    body_budget: Arc<tokio::sync::Semaphore>,
    /// Whether the session store's events are being listened to.
    listening: AtomicBool,
    /// The scope of the last stateless request's `_meta`: a client sends
    /// the same `_meta` with every request, which is then not read again.
    kept_scope: std::sync::Mutex<Option<Arc<CachedScope>>>,
    /// This service itself, for the tasks it starts.
    me: Weak<Inner>,
}

impl std::fmt::Debug for HttpService {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpService")
            .field("config", &self.inner.config)
            .field("sessions", &self.inner.sessions.len())
            .finish()
    }
}

impl HttpService {
    /// Serves `server` with the transport settings `config`.
    pub fn new(server: Server, config: HttpConfig) -> Self {
        let param_headers = server
            .core
            .tools
            .entries()
            .filter_map(|t| {
                let list = headers::param_headers(t.declared.get("inputSchema")?);
                (!list.is_empty()).then(|| (t.name.to_string(), list))
            })
            .collect();
        if let Some(store) = &config.session_store {
            relay_changes(&server, Arc::clone(store), config.store_timeout);
        }
        let sessions = Sessions::new(config.max_sessions, config.session_idle);
        let budget = config
            .max_buffered_bytes
            .min(tokio::sync::Semaphore::MAX_PERMITS);
        let body_budget = Arc::new(tokio::sync::Semaphore::new(budget));
        let inner = Arc::new_cyclic(|me| Inner {
            server,
            config,
            sessions,
            param_headers,
            shutdown: CancellationToken::new(),
            body_budget,
            listening: AtomicBool::new(false),
            kept_scope: std::sync::Mutex::new(None),
            me: me.clone(),
        });
        // Made inside a runtime, a replica listens to the others at once:
        // what they announce before its first request (a task's changes
        // for a request that then listens here) must not be missed while
        // it subscribes. Made outside one, it starts with its first request.
        if tokio::runtime::Handle::try_current().is_ok() {
            inner.listen();
        }
        Self { inner }
    }

    /// How long a client may take to send a request's head.
    pub(crate) fn header_read_timeout(&self) -> std::time::Duration {
        self.inner.config.header_read_timeout
    }

    /// The protected resource metadata document when `path` is one of its
    /// well-known paths and the service has a bearer gate (`None`
    /// otherwise): mount it at the server's root, beside the endpoint.
    pub fn resource_metadata(&self, path: &str) -> Option<Response<HttpBody>> {
        let text = self.inner.config.bearer.as_ref()?.metadata_at(path)?;
        let mut response = json(StatusCode::OK, text.to_owned());
        response
            .headers_mut()
            .insert(CACHE_CONTROL, HeaderValue::from_static("max-age=3600"));
        response
            .headers_mut()
            .insert("access-control-allow-origin", HeaderValue::from_static("*"));
        Some(response)
    }

    /// Ends every open SSE stream (for a graceful shutdown).
    pub fn shutdown(&self) {
        self.inner.shutdown.cancel();
    }

    /// Live stateful sessions.
    pub fn live_sessions(&self) -> usize {
        self.inner.sessions.len()
    }

    /// Drops expired stateful sessions now (they are also dropped lazily).
    pub fn sweep_sessions(&self) {
        self.inner.sessions.sweep();
    }

    /// Sends a server-initiated message (e.g. a notification) to stateful
    /// session `session_id`'s GET stream, on whichever replica holds it:
    /// `true` when it was handed to this service's stream or to the
    /// session store for the others.
    pub async fn notify(&self, session_id: &str, message: &Value) -> bool {
        let text = jsonrpc::json_text(message);
        if let Some(tx) = self
            .inner
            .sessions
            .peek(session_id)
            .and_then(|e| e.stream.lock().unwrap_or_else(|p| p.into_inner()).clone())
        {
            if tx.try_send(text.clone()).is_ok() {
                return true;
            }
        }
        let Some(store) = &self.inner.config.session_store else {
            return false;
        };
        let event = SessionEvent::Message { text };
        match bounded(
            self.inner.config.store_timeout,
            store.publish(session_id, &event),
        )
        .await
        {
            Ok(()) => true,
            Err(e) => {
                tracing::warn!(error = %e, "a message for a session's stream was not published");
                false
            }
        }
    }

    /// Handles one HTTP request.
    pub async fn handle<B>(&self, request: Request<B>) -> Response<HttpBody>
    where
        B: http_body::Body + Send + 'static,
        B::Data: Send,
        B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
    {
        Arc::clone(&self.inner).handle(request).await
    }
}

impl<B> tower_service::Service<Request<B>> for HttpService
where
    B: http_body::Body + Send + 'static,
    B::Data: Send,
    B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
{
    type Response = Response<HttpBody>;
    type Error = Infallible;
    type Future = Pin<Box<dyn Future<Output = Result<Response<HttpBody>, Infallible>> + Send>>;

    fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: Request<B>) -> Self::Future {
        let inner = Arc::clone(&self.inner);
        Box::pin(async move { Ok(inner.handle(request).await) })
    }
}

/// Changes the application announces on this replica go to the others
/// through the store (each delivers them to its own listeners).
fn relay_changes(server: &Server, store: Arc<dyn super::SessionStore>, limit: std::time::Duration) {
    let listeners = &server.core.listeners;
    let origin = listeners.origin();
    listeners.set_relay(Box::new(move |change| {
        let task = match change {
            Change::Task { id, owner, task } => Some(AnnouncedTask {
                id: id.clone(),
                owner: owner.clone(),
                task: task.clone(),
            }),
            _ => None,
        };
        let event = SessionEvent::Announced {
            origin,
            method: change.method().to_owned(),
            uri: change.uri().map(str::to_owned),
            task,
        };
        let store = Arc::clone(&store);
        Box::pin(async move {
            if let Err(e) = bounded(limit, store.publish("", &event)).await {
                tracing::warn!(error = %e, "a change was not announced to the other replicas");
            }
        })
    }));
}

/// A sink whose messages go through `store` to the GET stream of session
/// `id` on whichever replica holds it (a bounded queue: a message that
/// finds it full is dropped, as on a full stream).
fn relay(store: Arc<dyn super::SessionStore>, id: String, limit: std::time::Duration) -> Sink {
    let (tx, mut rx) = tokio::sync::mpsc::channel::<String>(64);
    tokio::spawn(async move {
        while let Some(text) = rx.recv().await {
            let event = SessionEvent::Message { text };
            if let Err(e) = bounded(limit, store.publish(&id, &event)).await {
                tracing::warn!(error = %e, "a task's message was not relayed to the session's stream");
            }
        }
    });
    Sink::new(tx)
}

/// A JSON body with a status.
fn json(status: StatusCode, text: String) -> Response<HttpBody> {
    let mut response = Response::new(HttpBody::full(text));
    *response.status_mut() = status;
    response
        .headers_mut()
        .insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    response
}

/// A JSON-RPC error without a request id, with a status.
fn error(status: StatusCode, error: &RpcError) -> Response<HttpBody> {
    json(status, jsonrpc::error_response(&Value::Null, error))
}

fn status_only(status: StatusCode) -> Response<HttpBody> {
    let mut response = Response::new(HttpBody::empty());
    *response.status_mut() = status;
    response
}

fn refusal(r: Refusal) -> Response<HttpBody> {
    let (status, message) = match r {
        Refusal::Forbidden(m) => (StatusCode::FORBIDDEN, m),
        Refusal::NotAcceptable(m) => (StatusCode::NOT_ACCEPTABLE, m),
        Refusal::UnsupportedMediaType(m) => (StatusCode::UNSUPPORTED_MEDIA_TYPE, m),
    };
    error(status, &RpcError::invalid_request(message))
}

fn method_not_allowed(allow: &'static str, why: &str) -> Response<HttpBody> {
    let mut response = error(
        StatusCode::METHOD_NOT_ALLOWED,
        &RpcError::invalid_request(why),
    );
    response
        .headers_mut()
        .insert(ALLOW, HeaderValue::from_static(allow));
    response
}

fn session_not_found() -> Response<HttpBody> {
    error(
        StatusCode::NOT_FOUND,
        &RpcError::invalid_request(
            "Session not found: it expired or was ended; send initialize without a session id",
        ),
    )
}

fn auth_refused(r: AuthRejection) -> Response<HttpBody> {
    let mut response = error(
        r.status,
        &RpcError::invalid_request(format!("authentication failed: {}", r.message)),
    );
    if r.status == StatusCode::SERVICE_UNAVAILABLE {
        response
            .headers_mut()
            .insert(RETRY_AFTER, HeaderValue::from_static("5"));
    }
    if let Some(challenge) = r
        .www_authenticate
        .and_then(|c| HeaderValue::from_str(&c).ok())
    {
        response.headers_mut().insert(WWW_AUTHENTICATE, challenge);
    }
    if let Some(nonce) = r.dpop_nonce.and_then(|n| HeaderValue::from_str(&n).ok()) {
        response.headers_mut().insert(DPOP_NONCE, nonce);
    }
    response
}

/// Why a request body was not read.
enum BodyError {
    TooLarge,
    Failed(Box<dyn std::error::Error + Send + Sync>),
}

/// Reads a request body of at most `limit` bytes (trailers are ignored). A
/// body that comes in one piece, as most do, is kept without a copy.
async fn read_body<B>(body: B, limit: usize) -> Result<bytes::Bytes, BodyError>
where
    B: http_body::Body,
    B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
{
    use bytes::{Buf, BufMut};
    let mut body = std::pin::pin!(body);
    let mut first = bytes::Bytes::new();
    let mut more: Vec<u8> = Vec::new();
    while let Some(frame) = body.as_mut().frame().await {
        let Ok(mut data) = frame.map_err(|e| BodyError::Failed(e.into()))?.into_data() else {
            continue;
        };
        if first.len() + more.len() + data.remaining() > limit {
            return Err(BodyError::TooLarge);
        }
        if first.is_empty() && more.is_empty() {
            first = data.copy_to_bytes(data.remaining());
        } else {
            more.put(std::mem::take(&mut first));
            more.put(data);
        }
    }
    Ok(if more.is_empty() { first } else { more.into() })
}

/// What a request in flight needs besides its message.
struct Call {
    extras: Arc<Extras>,
    /// Answer with an SSE stream (the request asked for progress).
    stream: bool,
    /// Stateless era: status codes follow the modern rules.
    modern: bool,
}

impl Inner {
    async fn handle<B>(self: Arc<Self>, request: Request<B>) -> Response<HttpBody>
    where
        B: http_body::Body + Send + 'static,
        B::Data: Send,
        B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
    {
        self.listen();
        let (parts, body) = request.into_parts();
        // The request's parts move into its extras (not copied), where
        // everything handling it reads them.
        let extras = Extras::http(parts);
        // (Always there: the extras were made from HTTP parts just above.)
        let Some(parts) = extras.parts() else {
            return status_only(StatusCode::INTERNAL_SERVER_ERROR);
        };
        let scan = Scan::of(&parts.headers);
        if let Err(r) = guard::check_host(scan.host, &self.config.allowed_hosts)
            .and_then(|()| guard::check_origin(scan.origin, &self.config.allowed_origins))
        {
            return refusal(r);
        }
        if let Some(gate) = &self.config.bearer {
            match gate.admit(&parts.method, &parts.headers).await {
                Ok(p) => extras.authenticate(p),
                Err(rejection) => return auth_refused(rejection),
            }
        }
        if let Some(hook) = &self.config.auth {
            match hook(parts) {
                Ok(Some(p)) => extras.authenticate(std::sync::Arc::new(p)),
                Ok(None) => {}
                Err(rejection) => return auth_refused(rejection),
            }
        }
        let session_id = scan.session_id.map(|v| v.to_str().unwrap_or(""));
        match parts.method {
            Method::POST => self.post(&extras, &scan, body, session_id).await,
            Method::GET => {
                self.get(&parts.headers, session_id, extras.principal())
                    .await
            }
            Method::DELETE => self.delete(session_id, extras.principal()).await,
            _ => method_not_allowed(
                "GET, POST, DELETE",
                "the MCP endpoint answers POST (and GET/DELETE for stateful sessions)",
            ),
        }
    }

    /// The live session named by the request (from the store when it is
    /// not here), if its caller may use it.
    async fn session(&self, id: &str, principal: Option<&Principal>) -> Option<Arc<Entry>> {
        let entry = match self.sessions.get(id) {
            Some(entry) => entry,
            None => self.restore(id).await?,
        };
        match &entry.owner {
            Some(owner) if principal.map(|p| &p.subject) != Some(owner) => None,
            _ => {
                self.keep_stored(id, &entry);
                Some(entry)
            }
        }
    }

    /// Loads session `id` of another replica from the store; `None` when
    /// there is no store, no such session, or the store fails.
    async fn restore(&self, id: &str) -> Option<Arc<Entry>> {
        let store = self.config.session_store.as_ref()?;
        // Ids this service makes are 32 hex digits; others are not looked up.
        if id.len() > 128 || id.is_empty() {
            return None;
        }
        let stored = match bounded(self.config.store_timeout, store.load(id)).await {
            Ok(found) => found?,
            Err(e) => {
                tracing::warn!(error = %e, "session not loaded: answered as unknown");
                return None;
            }
        };
        let session = self.server.session();
        session.restore(&stored.snapshot);
        if let Err(e) = session.outbound().spread_ids() {
            tracing::error!(error = %e, "session not restored: answered as unknown");
            return None;
        }
        let state = Arc::clone(&session.state);
        let entry = self.sessions.adopt(id, session, stored.owner).ok()?;
        // Unless another request adopted it first.
        if Arc::ptr_eq(&entry.session.state, &state) {
            self.follow(id, &entry);
        }
        Some(entry)
    }

    /// List changes and resource updates go to the session's GET stream
    /// while one is open here (those announced on other replicas reach it
    /// through the store's announcements). Messages of the session's
    /// tasks (2025-11-25 status notifications, requests for input) go to
    /// the GET stream here, or, with a session store and no stream here,
    /// through the store to the replica that holds it.
    fn follow(&self, id: &str, entry: &Arc<Entry>) {
        entry.session.set_key(id);
        let stream_of = Arc::downgrade(entry);
        let local = move || {
            let entry = stream_of.upgrade()?;
            let tx = entry
                .stream
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .clone()?;
            Some(Sink::new(tx))
        };
        self.server.listen_with(&entry.session, local.clone());
        let Some(store) = &self.config.session_store else {
            return;
        };
        let relay = relay(Arc::clone(store), id.to_owned(), self.config.store_timeout);
        entry
            .session
            .set_stream(Arc::new(move || local().or_else(|| Some(relay.clone()))));
    }

    /// Restarts the session's expiry in the store (in the background, at
    /// most a few times per idle period); a session the store no longer
    /// has ended elsewhere and ends here too.
    fn keep_stored(&self, id: &str, entry: &Entry) {
        let Some(store) = &self.config.session_store else {
            return;
        };
        let every = (self.config.session_idle / 4).min(std::time::Duration::from_secs(5));
        if !entry.store_due(every) {
            return;
        }
        let (store, id, ttl, limit) = (
            Arc::clone(store),
            id.to_owned(),
            self.config.session_idle,
            self.config.store_timeout,
        );
        let entry_session = entry.session.clone();
        let sessions = self.weak_sessions();
        tokio::spawn(async move {
            match bounded(limit, store.touch(&id, ttl)).await {
                Ok(true) => {}
                Ok(false) => {
                    if let Some(inner) = sessions.upgrade() {
                        // Only when it is still the same session.
                        if inner
                            .sessions
                            .peek(&id)
                            .is_some_and(|e| Arc::ptr_eq(&e.session.state, &entry_session.state))
                        {
                            inner.sessions.close(&id);
                        }
                    }
                }
                Err(e) => tracing::warn!(error = %e, "session expiry not restarted in the store"),
            }
        });
    }

    fn weak_sessions(&self) -> Weak<Inner> {
        self.me.clone()
    }

    /// Starts listening to the session store's events (once: when the
    /// service is made inside a runtime, else inside the runtime serving
    /// the first request).
    fn listen(&self) {
        let Some(store) = &self.config.session_store else {
            return;
        };
        if self.listening.swap(true, Ordering::AcqRel) {
            return;
        }
        let mut events = store.subscribe();
        let (me, shutdown) = (self.me.clone(), self.shutdown.clone());
        tokio::spawn(async move {
            loop {
                let (id, event) = tokio::select! {
                    next = events.recv() => match next {
                        Some(item) => item,
                        None => return,
                    },
                    () = shutdown.cancelled() => return,
                };
                let Some(inner) = me.upgrade() else { return };
                inner.on_event(&id, event);
            }
        });
    }

    /// What another replica said: a change it announced, or something
    /// about session `id` (if the session is here).
    fn on_event(&self, id: &str, event: SessionEvent) {
        // An announcement names no session (its id is empty).
        match (event, self.sessions.peek(id)) {
            (
                SessionEvent::Announced {
                    origin,
                    method,
                    uri,
                    task,
                },
                _,
            ) => self.on_announced(origin, &method, uri, task),
            (_, None) => {}
            (SessionEvent::Response { text }, Some(entry)) => {
                if let Incoming::Response { id, outcome } = jsonrpc::parse_full(&text) {
                    // Only the replica where the request waits has it.
                    entry.session.outbound().resolve(&id, outcome);
                }
            }
            (SessionEvent::Cancel { request_id }, Some(entry)) => {
                entry.session.cancel(&request_id);
            }
            (SessionEvent::Message { text }, Some(entry)) => {
                let stream = entry
                    .stream
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .clone();
                if let Some(tx) = stream {
                    if tx.try_send(text).is_err() {
                        tracing::warn!("a message for a session's GET stream was dropped: the stream is full or closed");
                    }
                }
            }
            (SessionEvent::Changed { snapshot }, Some(entry)) => entry.session.restore(&snapshot),
            (SessionEvent::Ended, Some(_)) => {
                self.sessions.close(id);
            }
        }
    }

    /// A change another replica announced, for the listeners here.
    fn on_announced(
        &self,
        origin: u64,
        method: &str,
        uri: Option<String>,
        task: Option<AnnouncedTask>,
    ) {
        let listeners = &self.server.core.listeners;
        let change = match task {
            Some(AnnouncedTask { id, owner, task }) => Some(Change::Task { id, owner, task }),
            None => Change::from_method(method, uri),
        };
        match change {
            // A task's changes are queued at once, in the order they came.
            Some(change @ Change::Task { .. }) if origin != listeners.origin() => {
                listeners.try_deliver(&change);
            }
            Some(change) if origin != listeners.origin() => {
                let listeners = Arc::clone(listeners);
                tokio::spawn(async move { listeners.deliver(&change).await });
            }
            Some(_) => {} // announced here, delivered here already
            None => {
                tracing::warn!(method = %method, "a change announced by another replica is not understood")
            }
        }
    }

    /// Writes the session's state to the store (after `initialize` and
    /// every change) and tells the other replicas of a change.
    async fn store_session(&self, id: &str, entry: &Entry, changed: bool) {
        let Some(store) = &self.config.session_store else {
            return;
        };
        let Some(snapshot) = entry.session.snapshot() else {
            return;
        };
        let stored = StoredSession {
            snapshot,
            owner: entry.owner.clone(),
        };
        let limit = self.config.store_timeout;
        if let Err(e) = bounded(limit, store.save(id, &stored, self.config.session_idle)).await {
            tracing::warn!(error = %e, "session not stored: other replicas will not know it");
            return;
        }
        if changed {
            let event = SessionEvent::Changed {
                snapshot: stored.snapshot,
            };
            if let Err(e) = bounded(limit, store.publish(id, &event)).await {
                tracing::warn!(error = %e, "session change not published");
            }
        }
    }

    async fn post<B>(
        &self,
        extras: &Arc<Extras>,
        scan: &Scan<'_>,
        body: B,
        session_id: Option<&str>,
    ) -> Response<HttpBody>
    where
        B: http_body::Body + Send + 'static,
        B::Data: Send,
        B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
    {
        let request_headers = extras.headers();
        if let Err(r) = guard::check_content_type(scan.content_type).and_then(|()| {
            guard::check_post_accept(request_headers, scan.accept, scan.accept_values)
        }) {
            return refusal(r);
        }
        let limit = self.config.max_body_bytes;
        let declared = scan
            .content_length
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.parse::<u64>().ok());
        let too_large = || {
            error(
                StatusCode::PAYLOAD_TOO_LARGE,
                &RpcError::invalid_request(format!(
                    "the request body exceeds the limit of {limit} bytes"
                )),
            )
        };
        if declared.is_some_and(|n| n > limit as u64) {
            return too_large();
        }
        // Held until the request is handled: bodies in memory stay within
        // the budget whatever the number of connections.
        let cost = declared
            .map_or(limit, |n| n as usize)
            .clamp(1, self.config.max_buffered_bytes.max(1));
        let permit = u32::try_from(cost)
            .ok()
            .and_then(|n| Arc::clone(&self.body_budget).try_acquire_many_owned(n).ok());
        let Some(_budget) = permit else {
            return unavailable(
                "the server is reading too many request bodies at once; retry shortly",
                "1",
            );
        };
        let bytes = match read_body(body, limit).await {
            Ok(bytes) => bytes,
            Err(BodyError::TooLarge) => return too_large(),
            Err(BodyError::Failed(e)) => {
                return error(
                    StatusCode::BAD_REQUEST,
                    &RpcError::parse_error(format!("cannot read the body: {e}")),
                )
            }
        };
        let Ok(text) = std::str::from_utf8(&bytes) else {
            return error(
                StatusCode::BAD_REQUEST,
                &RpcError::parse_error("the body is not UTF-8"),
            );
        };
        let kept = self
            .kept_scope
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone();
        let message = Message::decode_with(text, kept.as_ref());

        let principal = extras.principal();
        if let (
            Some(gate),
            Some(held),
            Message::Request {
                id, method, params, ..
            },
        ) = (&self.config.bearer, principal, &message)
        {
            if let Some((what, required, missing)) =
                self.server
                    .core
                    .scope_shortfall(method, |k| params.get(k), extras)
            {
                let missing: Vec<&str> = missing.iter().map(String::as_str).collect();
                let e = crate::server::scopes::insufficient(&what, &required, &missing);
                let r = gate.insufficient_scope(held, &required, &e.message);
                let mut response = json(StatusCode::FORBIDDEN, jsonrpc::error_response(id, &e));
                if let Some(challenge) = r
                    .www_authenticate
                    .and_then(|c| HeaderValue::from_str(&c).ok())
                {
                    response.headers_mut().insert(WWW_AUTHENTICATE, challenge);
                }
                return response;
            }
        }

        // A stateless-only server ignores session ids (2026-07-28 transports).
        if let Some(id) = session_id.filter(|_| self.config.stateful) {
            return self
                .post_in_session(id, scan, message, principal, Arc::clone(extras))
                .await;
        }
        match &message {
            Message::Other(Incoming::Invalid { .. }) => {
                let reply = match self.server.handle_message(
                    &self.server.session(),
                    message,
                    &Sink::discard(),
                    extras,
                ) {
                    Handled::Reply(r) => r,
                    _ => return status_only(StatusCode::BAD_REQUEST),
                };
                json(StatusCode::BAD_REQUEST, reply.text)
            }
            Message::Other(Incoming::Batch(_)) => error(
                StatusCode::BAD_REQUEST,
                &RpcError::invalid_request(
                    "a JSON-RPC batch belongs to a 2025-03-26 session: send initialize first",
                ),
            ),
            Message::Request { method, params, .. } | Message::Notification { method, params } => {
                let header_version = scan.protocol_version.and_then(|v| v.to_str().ok());
                let body_version = message.meta(meta::PROTOCOL_VERSION);
                let modern = body_version.is_some()
                    || header_version.is_some_and(|v| revision::era(v) == Era::Stateless);
                if !modern
                    && McpMethod::of(method) == Some(McpMethod::Initialize)
                    && matches!(message, Message::Request { .. })
                {
                    return self.initialize(message, Arc::clone(extras)).await;
                }
                if !modern {
                    let supported = self.server.config().supported_newest_first().join(", ");
                    return error(
                        StatusCode::BAD_REQUEST,
                        &RpcError::invalid_request(format!(
                            "no Mcp-Session-Id: send initialize first (stateful revisions) or per-request _meta (2026-07-28); this server supports {supported}"
                        )),
                    );
                }
                if matches!(message, Message::Notification { .. }) {
                    let _ = self.server.handle_message(
                        &self.server.session(),
                        message,
                        &Sink::discard(),
                        extras,
                    );
                    return status_only(StatusCode::ACCEPTED);
                }
                let annotated = match McpMethod::of(method) {
                    Some(McpMethod::ToolsCall) if !self.param_headers.is_empty() => {
                        match params.get("name").and_then(Value::as_str) {
                            Some(tool) => self
                                .param_headers
                                .get(tool)
                                .map(Vec::as_slice)
                                .unwrap_or(&[]),
                            None => &[],
                        }
                    }
                    _ => &[],
                };
                if let Err(e) = mirror::check(
                    request_headers,
                    scan,
                    method,
                    body_version.and_then(Value::as_str),
                    params,
                    annotated,
                ) {
                    let id = match &message {
                        Message::Request { id, .. } => id.clone(),
                        _ => Value::Null,
                    };
                    return json(StatusCode::BAD_REQUEST, jsonrpc::error_response(&id, &e));
                }
                let stream = message.meta(meta::PROGRESS_TOKEN).is_some();
                let call = Call {
                    extras: Arc::clone(extras),
                    stream,
                    modern: true,
                };
                let session = self.server.session();
                // Stateless: the request must carry its own _meta.
                session.fix_era(Era::Stateless);
                let response = self.answer(&session, message, call).await;
                // The scope this request's `_meta` made, for the next one.
                if let Some(made) = session.cached_scope() {
                    if !kept.is_some_and(|k| Arc::ptr_eq(&k, &made)) {
                        *self.kept_scope.lock().unwrap_or_else(|p| p.into_inner()) = Some(made);
                    }
                }
                response
            }
            Message::Other(Incoming::Response { .. }) => status_only(StatusCode::ACCEPTED),
            // A request or notification is never `Other`.
            Message::Other(_) => status_only(StatusCode::BAD_REQUEST),
        }
    }

    /// `initialize` without a session: opens one when it succeeds.
    async fn initialize(&self, message: Message<'_>, extras: Arc<Extras>) -> Response<HttpBody> {
        if !self.config.stateful
            || self
                .server
                .config()
                .supported_in(Era::Stateful)
                .next()
                .is_none()
        {
            let supported = self.server.config().supported_newest_first();
            let e = RpcError::new(
                revision::codes::UNSUPPORTED_PROTOCOL_VERSION,
                format!("this server is stateless: it supports {} with per-request _meta, not initialize", supported.join(", ")),
            )
            .with_data(serde_json::json!({ "supported": supported, "requested": Value::Null }));
            return error(StatusCode::BAD_REQUEST, &e);
        }
        let session = self.server.session();
        // Ids of requests to the client stay unique across replicas; the
        // session's own id is random too. Without randomness, no session.
        let spread = if self.config.session_store.is_some() {
            session.outbound().spread_ids()
        } else {
            Ok(())
        };
        let opened = spread.map_err(Refused::NoRandomness).and_then(|()| {
            self.sessions
                .open(session, extras.principal().map(|p| p.subject.clone()))
        });
        let (id, entry) = match opened {
            Ok(opened) => opened,
            Err(Refused::Full) => {
                return unavailable(
                    &format!(
                        "too many sessions (at most {}); retry later",
                        self.config.max_sessions
                    ),
                    "5",
                )
            }
            Err(Refused::NoRandomness(e)) => {
                tracing::error!(error = %e, "session not opened");
                return unavailable(
                    "no session could be opened: the server's random source failed",
                    "5",
                );
            }
        };
        self.follow(&id, &entry);
        let handled =
            self.server
                .handle_message(&entry.session, message, &Sink::discard(), &extras);
        let reply = handled.into_reply().await;
        match reply {
            Some(reply) if reply.error.is_none() => {
                self.store_session(&id, &entry, false).await;
                let mut response = json(StatusCode::OK, reply.text);
                if let Ok(value) = HeaderValue::from_str(&id) {
                    response.headers_mut().insert(headers::SESSION_ID, value);
                }
                response
            }
            Some(reply) => {
                self.sessions.discard(&id);
                json(
                    if reply.rejected {
                        StatusCode::BAD_REQUEST
                    } else {
                        StatusCode::OK
                    },
                    reply.text,
                )
            }
            None => {
                self.sessions.discard(&id);
                status_only(StatusCode::ACCEPTED)
            }
        }
    }

    async fn post_in_session(
        &self,
        id: &str,
        scan: &Scan<'_>,
        message: Message<'_>,
        principal: Option<&Principal>,
        extras: Arc<Extras>,
    ) -> Response<HttpBody> {
        let Some(entry) = self.session(id, principal).await else {
            return session_not_found();
        };
        if let Some(version) = scan.protocol_version {
            let sent = version.to_str().unwrap_or("");
            if let Some(client) = entry
                .session
                .identity()
                .filter(|c| c.protocol_version != sent)
            {
                return error(
                    StatusCode::BAD_REQUEST,
                    &RpcError::invalid_request(format!(
                        "MCP-Protocol-Version {sent:?} is not this session's revision {}",
                        client.protocol_version
                    )),
                );
            }
        }
        if let Message::Other(Incoming::Response {
            id: request_id,
            outcome,
        }) = &message
        {
            if self.forward_response(id, &entry, request_id, outcome).await {
                return status_only(StatusCode::ACCEPTED);
            }
        }
        let stream = matches!(message, Message::Request { .. })
            && message.meta(meta::PROGRESS_TOKEN).is_some();
        let changes = matches!(&message, Message::Request { method, .. }
        if matches!(
            McpMethod::of(method),
            Some(McpMethod::SetLevel | McpMethod::Subscribe | McpMethod::Unsubscribe)
        ));
        if let Message::Notification { method, params } = &message {
            if McpMethod::of(method) == Some(McpMethod::Cancelled) {
                self.cancel_anywhere(id, &entry, params.get("requestId"))
                    .await;
            }
        }
        let before = if changes {
            entry.session.snapshot()
        } else {
            None
        };
        let response = self
            .answer(
                &entry.session,
                message,
                Call {
                    extras,
                    stream,
                    modern: false,
                },
            )
            .await;
        if changes && entry.session.snapshot() != before {
            self.store_session(id, &entry, true).await;
        }
        response
    }

    /// `notifications/cancelled`: a request running elsewhere is cancelled
    /// by the replica running it (told through the store).
    async fn cancel_anywhere(&self, id: &str, entry: &Entry, request_id: Option<&Value>) {
        let Some(store) = &self.config.session_store else {
            return;
        };
        let Some(request_id) = request_id else { return };
        let key = jsonrpc::json_text(request_id);
        if entry.session.cancel(&key) {
            return; // it runs here
        }
        let event = SessionEvent::Cancel { request_id: key };
        if let Err(e) = bounded(self.config.store_timeout, store.publish(id, &event)).await {
            tracing::warn!(error = %e, "cancellation not published");
        }
    }

    /// The client's response to a request no handler here waits for: the
    /// replica where one does takes it from the store. `false` when it is
    /// for this replica (or there is no store): the engine takes it.
    async fn forward_response(
        &self,
        id: &str,
        entry: &Entry,
        request_id: &Value,
        outcome: &crate::server::outbound::Outcome,
    ) -> bool {
        let Some(store) = &self.config.session_store else {
            return false;
        };
        if entry.session.outbound().is_waiting(request_id) {
            return false; // it waits here
        }
        let text = match outcome {
            Ok(result) => {
                serde_json::json!({ "jsonrpc": "2.0", "id": request_id, "result": result })
            }
            Err(error) => serde_json::json!({ "jsonrpc": "2.0", "id": request_id, "error": error }),
        };
        let event = SessionEvent::Response {
            text: jsonrpc::json_text(&text),
        };
        if let Err(e) = bounded(self.config.store_timeout, store.publish(id, &event)).await {
            tracing::warn!(error = %e, "a response for another replica was not published");
        }
        true
    }

    /// Runs a message through the engine and answers: 202 for nothing to
    /// say, JSON for a reply, SSE when the request asked for progress or
    /// sends anything (progress, logs) before its reply.
    async fn answer(
        &self,
        session: &Session,
        message: Message<'_>,
        call: Call,
    ) -> Response<HttpBody> {
        // The request's channel is made only if it sends a message.
        let lazy = SinkShared::lazy(STREAM_QUEUE);
        let sink = Sink::lazy(&lazy);
        let mut pending = match self
            .server
            .handle_message(session, message, &sink, &call.extras)
        {
            Handled::Nothing => return status_only(StatusCode::ACCEPTED),
            Handled::Reply(reply) => return self.reply(reply, call.modern),
            Handled::Pending(pending) => pending,
        };
        drop(sink);
        // Most calls finish at their first poll, and send nothing first.
        match poll_once(&mut pending).await {
            Some(done) if !call.stream => {
                if !lazy.used() {
                    lazy.close();
                    return self.finished(done, None, call.modern);
                }
                return self.finished(done, Some(lazy.receiver()), call.modern);
            }
            Some(done) => pending = Pending::boxed(std::future::ready(done)),
            // Stateful era: a disconnection is not a cancellation (clients
            // send notifications/cancelled), so a call that does not finish
            // at its first poll runs on its own task.
            None if !call.modern => {
                let task = tokio::spawn(pending);
                pending = Pending::boxed(async move { task.await.ok().flatten() });
            }
            None => {}
        }
        // Every sink is gone (so the channel closed) only once the call is over.
        let mut rx = lazy.receiver();
        drop(lazy);
        let keep_alive = self.config.keep_alive;
        if call.stream {
            // Streamed from the start, so closing the stream cancels the call.
            return sse_response(HttpBody::sse(
                None,
                rx,
                Some(pending),
                keep_alive,
                self.shutdown.clone(),
                None,
            ));
        }
        tokio::select! {
            biased;
            first = rx.recv() => match first {
                Some(message) => {
                    sse_response(HttpBody::sse(Some(message), rx, Some(pending), keep_alive, self.shutdown.clone(), None))
                }
                None => {
                    let done = pending.await;
                    self.finished(done, None, call.modern)
                }
            },
            done = &mut pending => self.finished(done, Some(rx), call.modern),
        }
    }

    /// The answer to a call that is over: its reply as JSON, or as SSE
    /// after the messages it sent first (still queued in `rx`).
    fn finished(
        &self,
        done: Option<Reply>,
        rx: Option<mpsc::Receiver<String>>,
        modern: bool,
    ) -> Response<HttpBody> {
        if let Some(mut rx) = rx {
            if let Ok(first) = rx.try_recv() {
                let rest = Some(Pending::boxed(std::future::ready(done)));
                return sse_response(HttpBody::sse(
                    Some(first),
                    rx,
                    rest,
                    self.config.keep_alive,
                    self.shutdown.clone(),
                    None,
                ));
            }
        }
        match done {
            Some(reply) => self.reply(reply, modern),
            None => status_only(StatusCode::ACCEPTED),
        }
    }

    fn reply(&self, reply: Reply, modern: bool) -> Response<HttpBody> {
        use crate::revision::codes::{
            HEADER_MISMATCH, MISSING_CLIENT_CAPABILITY, UNSUPPORTED_PROTOCOL_VERSION,
        };
        let status = match (reply.error, reply.rejected, modern) {
            (Some(METHOD_NOT_FOUND), _, true) => StatusCode::NOT_FOUND,
            (_, true, _) => StatusCode::BAD_REQUEST,
            (
                Some(HEADER_MISMATCH | MISSING_CLIENT_CAPABILITY | UNSUPPORTED_PROTOCOL_VERSION),
                _,
                _,
            ) => StatusCode::BAD_REQUEST,
            _ => StatusCode::OK,
        };
        json(status, reply.text)
    }

    async fn get(
        &self,
        headers: &http::HeaderMap,
        session_id: Option<&str>,
        principal: Option<&Principal>,
    ) -> Response<HttpBody> {
        let Some(id) = session_id.filter(|_| self.config.stateful) else {
            return method_not_allowed(
                "POST",
                "GET streams belong to stateful sessions; send requests with POST",
            );
        };
        if let Err(r) = guard::check_get_accept(headers) {
            return refusal(r);
        }
        let Some(entry) = self.session(id, principal).await else {
            return session_not_found();
        };
        let (tx, rx) = mpsc::channel(STREAM_QUEUE);
        let weak = tx.downgrade();
        *entry.stream.lock().unwrap_or_else(|p| p.into_inner()) = Some(tx);
        let slot = Arc::clone(&entry);
        let on_close = OnClose::new(move || {
            let mut current = slot.stream.lock().unwrap_or_else(|p| p.into_inner());
            let ours = match (current.as_ref(), weak.upgrade()) {
                (Some(open), Some(mine)) => open.same_channel(&mine),
                _ => false,
            };
            if ours {
                *current = None;
            }
        });
        sse_response(HttpBody::sse(
            None,
            rx,
            None,
            self.config.keep_alive,
            self.shutdown.clone(),
            Some(on_close),
        ))
    }

    async fn delete(
        &self,
        session_id: Option<&str>,
        principal: Option<&Principal>,
    ) -> Response<HttpBody> {
        let Some(id) = session_id.filter(|_| self.config.stateful) else {
            return method_not_allowed(
                "POST",
                "there is no session to end: this request names none",
            );
        };
        if self.session(id, principal).await.is_none() {
            return session_not_found();
        }
        self.sessions.close(id);
        if let Some(store) = &self.config.session_store {
            // Gone from the store, then from every replica holding it.
            let limit = self.config.store_timeout;
            if let Err(e) = bounded(limit, store.remove(id)).await {
                tracing::warn!(error = %e, "ended session not removed from the store");
            }
            if let Err(e) = bounded(limit, store.publish(id, &SessionEvent::Ended)).await {
                tracing::warn!(error = %e, "session end not published");
            }
        }
        status_only(StatusCode::OK)
    }
}

fn sse_response(body: HttpBody) -> Response<HttpBody> {
    let mut response = Response::new(body);
    let h = response.headers_mut();
    h.insert(CONTENT_TYPE, HeaderValue::from_static("text/event-stream"));
    h.insert(CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    h.insert("x-accel-buffering", HeaderValue::from_static("no"));
    response
}

/// 503 with `Retry-After` (seconds) and a JSON-RPC error saying why.
fn unavailable(why: &str, retry_after: &'static str) -> Response<HttpBody> {
    let mut response = error(StatusCode::SERVICE_UNAVAILABLE, &RpcError::internal(why));
    response
        .headers_mut()
        .insert(RETRY_AFTER, HeaderValue::from_static(retry_after));
    response
}
