//! The connection engine behind a [`Client`](super::Client): one reader
//! task routing everything the server sends (responses to pending requests
//! by id, progress to per-call callbacks, task status notifications to
//! their task handles and the notification callback, `ping` answered), one
//! writer task, and the request path with its timeout, cancellation and
//! rounds of input requests ([`Shared`]).
//!
//! Nothing the server sends can grow the client without bound: the reader
//! keeps at most [`ClientOptions::max_message_bytes`] of one message (a
//! longer one fails the calls in flight, naming the limit, and closes the
//! connection), and answers to the server's own requests are dropped while
//! the server is not reading what it was sent.

use std::collections::HashMap;
use std::sync::atomic::{AtomicI64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use serde_json::{json, Map, Value};
use tokio::sync::{mpsc, oneshot};
use tokio::task::JoinHandle;

use super::error::ClientError;
use super::options::{CallOptions, ClientOptions, GarbagePolicy, Progress, ProgressCallback};
use crate::jsonrpc::{human_size, Unreadable};
use crate::revision::method::Method;
use crate::transport::{MessageRead, MessageWrite, Transport};

/// Messages waiting for the writer above which answers to the server's
/// requests (`ping`) are dropped: a server that sends requests but does
/// not read its input could otherwise queue answers without bound.
const MAX_QUEUED_ANSWERS: usize = 1024;

/// Rounds of input requests one request answers before giving up.
pub(crate) const MAX_INPUT_ROUNDS: usize = 16;

/// What the handshake settled.
#[derive(Debug, Clone, PartialEq)]
pub struct Negotiated {
    /// The negotiated protocol revision.
    pub protocol_version: String,
    /// The server's `serverInfo` (`Value::Null` when it sent none).
    pub server_info: Value,
    /// The server's capabilities.
    pub capabilities: Value,
    /// The server's instructions, when sent.
    pub instructions: Option<String>,
    /// True for revisions without `initialize` (2026-07-28 on): every
    /// request then carries version, client info and capabilities in `_meta`.
    pub stateless: bool,
}

pub(crate) type Reply = Result<Value, ClientError>;

struct Pending {
    method: String,
    reply: oneshot::Sender<Reply>,
    progress: Option<ProgressCallback>,
    /// Where notifications naming this request as their subscription go
    /// (a `subscriptions/listen` request); dropped with the request.
    notifications: Option<mpsc::Sender<ServerNotification>>,
}

/// A notification from the server, as a [`Subscription`](super::Subscription) delivers it.
#[derive(Debug, Clone, PartialEq)]
pub struct ServerNotification {
    /// The method, e.g. `notifications/resources/updated`.
    pub method: String,
    /// The params (`null` when absent).
    pub params: Value,
}

#[derive(Default)]
struct State {
    pending: HashMap<i64, Pending>,
    closed: Option<String>,
}

pub(crate) struct Shared {
    /// This engine, for the tasks that answer server requests.
    me: std::sync::Weak<Shared>,
    outgoing: mpsc::UnboundedSender<String>,
    /// Messages sent to the writer and not yet written.
    queued: AtomicUsize,
    state: Mutex<State>,
    next_id: AtomicI64,
    pub(crate) options: ClientOptions,
    pub(crate) session: OnceLock<Negotiated>,
    /// Task states the server notified (2025-11-25), by task id.
    pub(crate) statuses: Mutex<super::statuses::Statuses>,
}

/// The engine's reader and writer tasks, ended with the last handle.
pub(super) struct Tasks {
    reader: JoinHandle<()>,
    writer: JoinHandle<()>,
}

impl Tasks {
    /// Ends the writer task, dropping its half: the server's input closes.
    pub(super) fn stop_writing(&self) {
        self.writer.abort();
    }
}

impl Drop for Tasks {
    fn drop(&mut self) {
        // The reader owns the transport's reading half (for a child process,
        // the process itself, killed when dropped).
        self.reader.abort();
        self.writer.abort();
    }
}

impl std::fmt::Debug for Shared {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Shared")
            .field("session", &self.session.get())
            .finish_non_exhaustive()
    }
}

fn truncate(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_owned();
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &text[..end])
}

/// Removes a request from the pending table and cancels it on the wire if
/// the caller stops waiting before the answer.
struct CancelOnDrop<'a> {
    shared: &'a Shared,
    id: i64,
    armed: bool,
}

impl Drop for CancelOnDrop<'_> {
    fn drop(&mut self) {
        if self.armed {
            self.shared.abandon(self.id, "the caller stopped waiting");
        }
    }
}

/// The `_meta` object of a params object, created when missing.
fn meta_of(params: &mut Option<Value>) -> &mut Map<String, Value> {
    let params = params.get_or_insert_with(|| json!({}));
    if !params.is_object() {
        *params = json!({});
    }
    let obj = params.as_object_mut().expect("made an object above");
    let meta = obj.entry("_meta").or_insert_with(|| json!({}));
    if !meta.is_object() {
        *meta = json!({});
    }
    meta.as_object_mut().expect("made an object above")
}

impl Shared {
    /// Starts the reader and writer tasks over a transport. No message is sent.
    pub(super) fn spawn<T: Transport>(
        transport: T,
        options: ClientOptions,
    ) -> (Arc<Shared>, Tasks) {
        #[cfg(feature = "streamable-http")]
        let transport = {
            let mut transport = transport;
            transport.take_http_options(&options.http);
            transport
        };
        let (mut read, write) = transport.split();
        read.set_max_message(options.max_message_bytes);
        let (tx, rx) = mpsc::unbounded_channel();
        let shared = Arc::new_cyclic(|me| Shared {
            me: me.clone(),
            outgoing: tx,
            queued: AtomicUsize::new(0),
            state: Mutex::new(State::default()),
            next_id: AtomicI64::new(1),
            options,
            session: OnceLock::new(),
            statuses: Mutex::default(),
        });
        let reader = tokio::spawn(read_loop(read, shared.clone()));
        let writer = tokio::spawn(write_loop(write, rx, shared.clone()));
        (shared, Tasks { reader, writer })
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        // A poisoned lock only means a callback panicked; the table is intact.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Why the connection closed, if it has.
    pub(super) fn closed_reason(&self) -> Option<String> {
        self.lock().closed.clone()
    }

    /// A request and its result, under the default timeout unless
    /// `options` overrides it, cancelled on timeout or when dropped; a
    /// stateless server's `InputRequiredResult` answered with the
    /// handlers and the request retried (as [`Client::request`](super::Client::request) tells).
    pub(crate) async fn request(
        &self,
        method: &str,
        params: Option<Value>,
        options: &CallOptions,
    ) -> Result<Value, ClientError> {
        let mut params = params;
        for _ in 0..MAX_INPUT_ROUNDS {
            let result = self.request_once(method, params.clone(), options).await?;
            if result.get("resultType").and_then(Value::as_str) != Some("input_required") {
                return Ok(result);
            }
            let Some(handlers) = self.options.handlers.clone() else {
                return Ok(result);
            };
            let requests = result
                .get("inputRequests")
                .and_then(Value::as_object)
                .cloned()
                .unwrap_or_default();
            let responses =
                handlers
                    .answer_all(&requests)
                    .await
                    .map_err(|e| ClientError::Protocol {
                        method: method.to_owned(),
                        code: e.code,
                        message: format!("cannot answer the server's input request: {}", e.message),
                        data: e.data.map(Box::new),
                    })?;
            let retry = params.get_or_insert_with(|| json!({}));
            if !retry.is_object() {
                *retry = json!({});
            }
            let retry = retry.as_object_mut().expect("made an object above");
            retry.insert("inputResponses".into(), Value::Object(responses));
            match result.get("requestState") {
                Some(state) => retry.insert("requestState".into(), state.clone()),
                None => retry.remove("requestState"),
            };
        }
        Err(ClientError::Protocol {
            method: method.to_owned(),
            code: crate::jsonrpc::INTERNAL_ERROR,
            message: format!("the server asked for input more than {MAX_INPUT_ROUNDS} times"),
            data: None,
        })
    }

    /// One request and its answer, as sent.
    async fn request_once(
        &self,
        method: &str,
        params: Option<Value>,
        options: &CallOptions,
    ) -> Result<Value, ClientError> {
        #[cfg(feature = "otel")]
        let (traced, params) = super::trace::start(method, params);
        let sent = self.start(method, params, options.progress.clone(), None);
        #[cfg(feature = "otel")]
        if let Some(traced) = traced {
            if let Ok((id, _)) = &sent {
                traced.sent_as(*id);
            }
            return traced.around(self.answer(method, sent, options)).await;
        }
        self.answer(method, sent, options).await
    }

    /// Waits for the answer to a request [`Shared::start`] sent.
    async fn answer(
        &self,
        method: &str,
        sent: Result<(i64, oneshot::Receiver<Reply>), ClientError>,
        options: &CallOptions,
    ) -> Result<Value, ClientError> {
        let (id, rx) = sent?;
        let mut guard = CancelOnDrop {
            shared: self,
            id,
            armed: Method::of(method) != Some(Method::Initialize),
        };
        let after = options.timeout.unwrap_or(self.options.default_timeout);
        match tokio::time::timeout(after, rx).await {
            Ok(Ok(reply)) => {
                guard.armed = false;
                reply
            }
            Ok(Err(_)) => {
                guard.armed = false;
                Err(self.closed_error())
            }
            Err(_) => {
                guard.armed = false;
                if self.lock().pending.remove(&id).is_some()
                    && Method::of(method) != Some(Method::Initialize)
                {
                    self.cancel(id, &format!("timed out after {after:?}"));
                }
                Err(ClientError::Timeout {
                    method: method.to_owned(),
                    id,
                    after,
                })
            }
        }
    }

    pub(crate) fn closed_error(&self) -> ClientError {
        let reason = self
            .lock()
            .closed
            .clone()
            .unwrap_or_else(|| "the connection ended".into());
        ClientError::Closed { reason }
    }

    /// Registers and sends a request: its id and where its answer comes.
    pub(crate) fn start(
        &self,
        method: &str,
        params: Option<Value>,
        progress: Option<ProgressCallback>,
        notifications: Option<mpsc::Sender<ServerNotification>>,
    ) -> Result<(i64, oneshot::Receiver<Reply>), ClientError> {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let mut params = params;
        if progress.is_some() {
            meta_of(&mut params).insert("progressToken".into(), json!(id));
        }
        if let Some(session) = self.session.get().filter(|s| s.stateless) {
            self.add_stateless_meta(meta_of(&mut params), &session.protocol_version);
        }
        let mut message = Map::new();
        message.insert("jsonrpc".into(), json!("2.0"));
        message.insert("id".into(), json!(id));
        message.insert("method".into(), json!(method));
        if let Some(params) = params {
            message.insert("params".into(), params);
        }
        let text = Value::Object(message).to_string();

        let (tx, rx) = oneshot::channel();
        {
            let mut state = self.lock();
            if let Some(reason) = &state.closed {
                return Err(ClientError::Closed {
                    reason: reason.clone(),
                });
            }
            state.pending.insert(
                id,
                Pending {
                    method: method.to_owned(),
                    reply: tx,
                    progress,
                    notifications,
                },
            );
        }
        if self.enqueue(text).is_err() {
            self.lock().pending.remove(&id);
            return Err(self.closed_error());
        }
        Ok((id, rx))
    }

    /// Stops waiting for request `id`: forgets it and, when it was still
    /// waiting, cancels it on the wire.
    pub(crate) fn abandon(&self, id: i64, reason: &str) {
        if self.lock().pending.remove(&id).is_some() {
            self.cancel(id, reason);
        }
    }

    pub(crate) fn add_stateless_meta(&self, meta: &mut Map<String, Value>, version: &str) {
        meta.entry(crate::revision::meta::PROTOCOL_VERSION)
            .or_insert_with(|| json!(version));
        meta.entry(crate::revision::meta::CLIENT_INFO)
            .or_insert_with(|| self.options.client_info.clone());
        meta.entry(crate::revision::meta::CLIENT_CAPABILITIES)
            .or_insert_with(|| self.options.capabilities.clone());
    }

    fn send(&self, message: Value) -> Result<(), ClientError> {
        self.enqueue(message.to_string())
            .map_err(|_| self.closed_error())
    }

    /// Hands a message to the writer task, counting it until written.
    fn enqueue(&self, text: String) -> Result<(), ()> {
        self.queued.fetch_add(1, Ordering::Relaxed);
        self.outgoing.send(text).map_err(|_| {
            self.queued.fetch_sub(1, Ordering::Relaxed);
        })
    }

    /// Sends a notification.
    pub(crate) fn notify(&self, method: &str, params: Option<Value>) -> Result<(), ClientError> {
        let mut message = json!({ "jsonrpc": "2.0", "method": method });
        if let Some(params) = params {
            message["params"] = params;
        }
        self.send(message)
    }

    fn cancel(&self, id: i64, reason: &str) {
        // Best effort: if the connection is gone there is nothing to cancel.
        let _ = self.notify(
            Method::Cancelled.name(),
            Some(json!({ "requestId": id, "reason": reason })),
        );
    }

    /// Marks the connection closed and fails every pending request.
    fn close(&self, reason: String) {
        self.close_with(reason.clone(), |_| ClientError::Closed {
            reason: reason.clone(),
        });
    }

    /// Marks the connection closed with `reason` (what later calls are
    /// told) and fails every pending request with `error(method)`.
    fn close_with(&self, reason: String, error: impl Fn(&str) -> ClientError) {
        let pending = {
            let mut state = self.lock();
            if state.closed.is_none() {
                state.closed = Some(reason);
            }
            std::mem::take(&mut state.pending)
        };
        for (_, p) in pending {
            let _ = p.reply.send(Err(error(&p.method)));
        }
    }

    /// The server sent a message over the size limit: the reader dropped
    /// it unread, so whatever it answered is lost and the stream may go on
    /// without end. Every call in flight fails naming the limit and what
    /// it was waiting for, and the connection closes.
    fn too_large(&self, limit: usize) {
        let limit_text = format!(
            "the limit of {limit} bytes ({}, ClientOptions::max_message_bytes)",
            human_size(limit)
        );
        let waiting = {
            let state = self.lock();
            let mut ids: Vec<&i64> = state.pending.keys().collect();
            ids.sort_unstable();
            ids.iter()
                .map(|id| format!("`{}` (request {id})", state.pending[id].method))
                .collect::<Vec<_>>()
        };
        let during = if waiting.is_empty() {
            "while no request was waiting for an answer".to_owned()
        } else {
            format!("while waiting for the answer to {}", waiting.join(", "))
        };
        let reason = format!(
            "the server sent a message longer than {limit_text} {during}; it was not read and the connection was closed"
        );
        tracing::warn!("mcp client: {reason}");
        self.close_with(reason, |method| {
            ClientError::unexpected(format!(
                "reading the answer to `{method}`: the server sent a message longer than {limit_text}; \
                 it was not read and the connection was closed"
            ))
        });
    }

    fn garbage(&self, text: &str, why: &str) {
        let line = truncate(text, 200);
        tracing::warn!(line = %line, "mcp client: {why}");
        if self.options.garbage == GarbagePolicy::FailPending {
            let pending = std::mem::take(&mut self.lock().pending);
            for (_, p) in pending {
                let _ = p
                    .reply
                    .send(Err(ClientError::Garbage { line: line.clone() }));
            }
        }
    }

    /// Routes one message; `false` when the client stops reading.
    fn handle_text(&self, text: &str) -> bool {
        match Unreadable::from_placeholder(text) {
            Some(Unreadable::TooLarge { limit }) => {
                self.too_large(limit);
                return false;
            }
            Some(not_utf8) => {
                self.garbage(
                    text,
                    &format!("the server wrote a line that is not JSON: {not_utf8}"),
                );
                return true;
            }
            None => {}
        }
        match serde_json::from_str::<Value>(text) {
            Ok(Value::Array(batch)) if !batch.is_empty() => {
                for message in batch {
                    self.handle_message(text, message);
                }
            }
            Ok(message) => self.handle_message(text, message),
            Err(_) => self.garbage(text, "the server wrote a line that is not JSON"),
        }
        true
    }

    fn handle_message(&self, text: &str, message: Value) {
        let Value::Object(mut obj) = message else {
            return self.garbage(text, "the server wrote JSON that is not a JSON-RPC message");
        };
        let method = obj.get("method").and_then(Value::as_str).map(str::to_owned);
        match (method, obj.remove("id")) {
            (Some(method), Some(id)) => {
                let params = obj.remove("params").unwrap_or_else(|| json!({}));
                self.handle_request(&method, id, params)
            }
            (Some(method), None) => {
                let params = obj.remove("params").unwrap_or(Value::Null);
                self.handle_notification(&method, &params)
            }
            (None, Some(id)) if obj.contains_key("result") || obj.contains_key("error") => {
                self.handle_response(id, obj)
            }
            _ => self.garbage(text, "the server wrote JSON that is not a JSON-RPC message"),
        }
    }

    fn handle_response(&self, id: Value, mut obj: Map<String, Value>) {
        let Some(id) = id.as_i64() else {
            tracing::debug!(%id, "mcp client: answer to a request id this client never uses");
            return;
        };
        let Some(pending) = self.lock().pending.remove(&id) else {
            tracing::debug!(id, "mcp client: late or unknown answer dropped");
            return;
        };
        let reply = match obj.remove("error") {
            Some(error) => Err(ClientError::Protocol {
                method: pending.method,
                code: error.get("code").and_then(Value::as_i64).unwrap_or(0),
                message: error
                    .get("message")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_owned(),
                data: error.get("data").cloned().map(Box::new),
            }),
            None => Ok(obj.remove("result").unwrap_or(Value::Null)),
        };
        let _ = pending.reply.send(reply);
    }

    fn handle_request(&self, method: &str, id: Value, params: Value) {
        if self.queued.load(Ordering::Relaxed) > MAX_QUEUED_ANSWERS {
            tracing::debug!(
                method,
                "mcp client: the server is not reading its input; request left unanswered"
            );
            return;
        }
        let id_ok = id.is_string() || id.is_i64() || id.is_u64();
        let answer = if !id_ok {
            json!({ "jsonrpc": "2.0", "id": null, "error": {
                "code": crate::jsonrpc::INVALID_REQUEST,
                "message": format!("Invalid request: \"id\" must be a string or an integer, got {id}"),
            }})
        } else if Method::of(method) == Some(Method::Ping) {
            json!({ "jsonrpc": "2.0", "id": id, "result": {} })
        } else if let Some(handler) = self
            .options
            .handlers
            .as_ref()
            .and_then(|h| h.for_method(method))
            .cloned()
        {
            // The application's answer, in a task of its own: the reader
            // keeps reading (the server may send more while it waits).
            let me = self.me.clone();
            tokio::spawn(async move {
                let answer = match handler(params).await {
                    Ok(result) => json!({ "jsonrpc": "2.0", "id": id, "result": result }),
                    Err(error) => json!({ "jsonrpc": "2.0", "id": id, "error": error.to_value() }),
                };
                if let Some(shared) = me.upgrade() {
                    let _ = shared.send(answer);
                }
            });
            return;
        } else {
            json!({ "jsonrpc": "2.0", "id": id, "error": {
                "code": -32601,
                "message": format!("method not found: this client does not handle `{method}`"),
            }})
        };
        let _ = self.send(answer);
    }

    fn handle_notification(&self, method: &str, params: &Value) {
        // A notification of a subscription goes to it (2026-07-28).
        let subscription = params
            .get("_meta")
            .and_then(|m| m.get(crate::revision::meta::SUBSCRIPTION_ID))
            .and_then(Value::as_i64);
        if let Some(id) = subscription {
            let stream = self
                .lock()
                .pending
                .get(&id)
                .and_then(|p| p.notifications.clone());
            if let Some(stream) = stream {
                let notification = ServerNotification {
                    method: method.to_owned(),
                    params: params.clone(),
                };
                if stream.try_send(notification).is_err() {
                    tracing::warn!(
                        subscription = id,
                        method,
                        "mcp client: subscription not read; notification dropped"
                    );
                }
                return;
            }
        }
        match Method::of(method) {
            Some(Method::Progress) => {
                let token = params.get("progressToken");
                let id = token.and_then(|t| {
                    t.as_i64()
                        .or_else(|| t.as_str().and_then(|s| s.parse().ok()))
                });
                let callback = id.and_then(|id| {
                    self.lock()
                        .pending
                        .get(&id)
                        .and_then(|p| p.progress.clone())
                });
                let Some(callback) = callback else {
                    tracing::debug!("mcp client: progress for no call in flight dropped");
                    return;
                };
                let Some(progress) = params.get("progress").and_then(Value::as_f64) else {
                    tracing::warn!("mcp client: progress notification without a number `progress`");
                    return;
                };
                callback(Progress {
                    progress,
                    total: params.get("total").and_then(Value::as_f64),
                    message: params
                        .get("message")
                        .and_then(Value::as_str)
                        .map(str::to_owned),
                });
            }
            Some(Method::LogMessage) => {
                tracing::info!(level = ?params.get("level"), data = ?params.get("data"), "mcp server log");
            }
            _ => {
                if Method::of(method) == Some(Method::TaskStatus) {
                    self.statuses
                        .lock()
                        .unwrap_or_else(|p| p.into_inner())
                        .deliver(params);
                }
                if let Some(callback) = &self.options.on_notification {
                    callback(method, params);
                }
            }
        }
    }
}

async fn read_loop<R: MessageRead>(mut reader: R, shared: Arc<Shared>) {
    loop {
        match reader.read_message().await {
            Ok(Some(text)) => {
                if !shared.handle_text(&text) {
                    break;
                }
            }
            Ok(None) => {
                shared.close("the server closed its output (did it exit?)".into());
                break;
            }
            Err(e) => {
                shared.close(e.to_string());
                break;
            }
        }
    }
    // Keep the reading half (and a child process it owns) alive until the
    // client is dropped, so the exit status stays observable.
    std::future::pending::<()>().await;
    drop(reader);
}

async fn write_loop<W: MessageWrite>(
    mut writer: W,
    mut rx: mpsc::UnboundedReceiver<String>,
    shared: Arc<Shared>,
) {
    while let Some(message) = rx.recv().await {
        let written = writer.write_message(&message).await;
        shared.queued.fetch_sub(1, Ordering::Relaxed);
        if let Err(e) = written {
            // A connection that could not be made (HTTP) fails the calls
            // in flight with the typed reason; later calls see its text.
            match super::error::ConnectError::from_io(&e) {
                Some(connect) => {
                    let connect = connect.clone();
                    shared.close_with(connect.to_string(), |_| {
                        ClientError::Connect(connect.clone())
                    });
                }
                None => shared.close(format!("writing to the server failed: {e}")),
            }
            break;
        }
    }
}
