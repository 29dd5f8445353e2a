//! [`TransportShared`]: what both halves of an [`HttpTransport`](super::HttpTransport)
//! hold — the endpoint, the session learnt, OAuth, the pool, the requests
//! in flight — and the exchanges themselves: one POST per message with its
//! headers (both eras, `Mcp-Param-*` included), its answer read in a task
//! and passed on message by message, the `-32020` retry after a fresh
//! `tools/list`, SSE resumption with `Last-Event-ID`, the standalone `GET`
//! stream (read by `listen`), cancellation and the closing `DELETE`.

use std::collections::HashMap;
use std::io;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use bytes::Bytes;
use http::header::{HeaderName, HeaderValue, ACCEPT, CONTENT_TYPE, HOST, WWW_AUTHENTICATE};
use http::{HeaderMap, Method, Request, Response, StatusCode};
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper_util::rt::TokioIo;
use serde_json::{json, Map, Value};
use tokio::sync::mpsc;

use super::annotations::{encode_header_value, tool_param_headers};
use super::answer::{classify, Kind, PostAnswer};
use super::{
    key, lock, Endpoint, Learnt, Outgoing, ReadError, DELETE_TIMEOUT, LAST_EVENT_ID, MAX_RESUMES,
    QUOTE, REFRESH_PAGES, TRANSPORT_ERROR,
};
use crate::client::http::pool::{Lease, Live, Pool};
use crate::client::oauth::{Authorizer, MAX_ATTEMPTS};
use crate::jsonrpc::human_size;
use crate::revision::meta;
use crate::revision::method::Method as McpMethod;
use crate::transport::http::connect::Connector;
use crate::transport::http::headers::{self, ParamHeader};
use crate::transport::http::DPOP_NONCE;
use crate::transport::ConnectError;

pub(super) struct TransportShared {
    pub(super) endpoint: Endpoint,
    pub(super) extra: HeaderMap,
    /// OAuth, when enabled: the `Authorization` header and what a `401`
    /// or `403` turns into.
    pub(super) auth: Option<Arc<Authorizer>>,
    /// The read cap: [`HttpTransport::max_message_bytes`], lowered by the
    /// engine's `ClientOptions::max_message_bytes` when that is smaller.
    pub(super) max_bytes: AtomicUsize,
    /// How connections are made (or why they cannot be).
    pub(super) connector: Result<Connector, ConnectError>,
    pub(super) learnt: Arc<Learnt>,
    /// Per tool, its valid `x-mcp-header` annotations (learnt from `tools/list`).
    pub(super) annotations: Mutex<HashMap<String, Vec<ParamHeader>>>,
    /// Requests whose answer is being read, by id (JSON text).
    pub(super) in_flight: Mutex<HashMap<String, InFlight>>,
    /// Ids of the transport's own `tools/list` requests.
    pub(super) refreshes: AtomicU64,
    /// Stateful era: the task reading the server's standalone SSE stream.
    pub(super) listener: Mutex<Option<tokio::task::AbortHandle>>,
    /// The idle connections kept for the next request.
    pub(super) pool: Arc<Pool>,
}

pub(super) struct InFlight {
    pub(super) task: tokio::task::AbortHandle,
    pub(super) stateless: bool,
}

impl TransportShared {
    pub(super) fn max(&self) -> usize {
        self.max_bytes.load(Ordering::Relaxed)
    }

    /// Marks the transport closed: every open stream closes and a
    /// stateful session is ended with `DELETE` (best effort).
    pub(super) fn close(self: &Arc<Self>) {
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

    pub(super) async fn delete(&self, session: HeaderValue) -> Result<(), String> {
        let lease = self.checkout().await.map_err(|e| e.to_string())?;
        let mut request = Request::new(Full::new(Bytes::new()));
        *request.method_mut() = Method::DELETE;
        *request.uri_mut() = self.endpoint.target.parse().map_err(|e| format!("{e}"))?;
        let h = request.headers_mut();
        h.insert(HOST, self.endpoint.authority.clone());
        h.extend(self.extra.clone());
        self.authorize(h, "DELETE");
        h.insert(headers::SESSION_ID, session);
        if let Some(version) = lock(&self.learnt.protocol_version)
            .as_deref()
            .and_then(|v| HeaderValue::from_str(v).ok())
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
    pub(super) fn cancel(&self, params: Option<&Value>) -> bool {
        let target = params.and_then(|p| p.get("requestId"));
        let flight = target.and_then(|id| lock(&self.in_flight).remove(&key(id)));
        match flight {
            Some(flight) => {
                flight.task.abort();
                flight.stateless
            }
            // Already answered: nothing to close. Send it only in a session.
            None => {
                lock(&self.learnt.session_id).is_none()
                    && lock(&self.learnt.protocol_version).is_none()
            }
        }
    }

    /// A connection for the next request: an idle one that is still open,
    /// else a fresh one; the error carries a [`ConnectError`].
    pub(super) async fn checkout(&self) -> io::Result<Lease> {
        while let Some(mut lease) = self.pool.take() {
            if lease.ready().await {
                return Ok(lease);
            }
        }
        let stream = match &self.connector {
            Ok(connector) => connector.connect().await.map_err(ConnectError::into_io)?,
            Err(e) => return Err(e.clone().into_io()),
        };
        let (sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
            .await
            .map_err(io::Error::other)?;
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
    pub(super) async fn send(
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
    pub(super) fn request(&self, out: &Outgoing) -> Result<Request<Full<Bytes>>, String> {
        let mut request = Request::new(Full::new(out.body.clone()));
        *request.method_mut() = Method::POST;
        *request.uri_mut() = self
            .endpoint
            .target
            .parse()
            .map_err(|e| format!("the URL's path: {e}"))?;
        let h = request.headers_mut();
        h.insert(HOST, self.endpoint.authority.clone());
        h.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
        h.insert(
            ACCEPT,
            HeaderValue::from_static("application/json, text/event-stream"),
        );
        h.extend(self.extra.clone());
        self.authorize(h, "POST");
        let value = |text: &str| {
            HeaderValue::from_str(&encode_header_value(text)).map_err(|e| e.to_string())
        };
        match &out.version {
            Some(version) => {
                h.insert(headers::PROTOCOL_VERSION, value(version)?);
                if let Some(method) = &out.method {
                    h.insert(headers::METHOD, value(method)?);
                }
                if let Some(name) = out.name() {
                    h.insert(headers::NAME, value(name)?);
                }
                if out.known() == Some(McpMethod::ToolsCall) {
                    for (header, text) in self.param_values(out) {
                        let name =
                            HeaderName::from_bytes(header.as_bytes()).map_err(|e| e.to_string())?;
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
    pub(super) fn bearer(&self) -> Option<String> {
        self.auth.as_ref().and_then(|a| a.bearer())
    }

    /// Puts the OAuth headers on a `method` request to the endpoint:
    /// `Authorization: Bearer TOKEN`, or a DPoP-bound token with its proof.
    pub(super) fn authorize(&self, h: &mut HeaderMap, method: &str) {
        if let Some(auth) = &self.auth {
            h.extend(auth.headers(method, &self.endpoint.url));
        }
    }

    /// After a `401` or `403` with OAuth on: runs the authorization the
    /// challenge asks for. `Some(Ok)`: retry; `Some(Err)`: fail with it;
    /// `None`: not an authorization matter, or out of attempts.
    pub(super) async fn reauthorize(
        &self,
        response: &Response<Incoming>,
        sent: Option<&str>,
        attempts: &mut usize,
    ) -> Option<Result<(), String>> {
        let auth = self.auth.as_ref()?;
        if let Some(nonce) = response
            .headers()
            .get(DPOP_NONCE)
            .and_then(|v| v.to_str().ok())
        {
            auth.offer_nonce(nonce);
        }
        let status = response.status();
        if !(status == StatusCode::UNAUTHORIZED || status == StatusCode::FORBIDDEN)
            || *attempts >= MAX_ATTEMPTS
        {
            return None;
        }
        *attempts += 1;
        let values: Vec<&str> = response
            .headers()
            .get_all(WWW_AUTHENTICATE)
            .iter()
            .filter_map(|v| v.to_str().ok())
            .collect();
        Some(
            auth.on_challenge(status.as_u16(), &values, sent)
                .await
                .map_err(|e| e.to_string()),
        )
    }

    /// The `Mcp-Param-*` headers of a `tools/call`: each annotated argument
    /// present (and not null) in the call, as text.
    pub(super) fn param_values(&self, out: &Outgoing) -> Vec<(String, String)> {
        let Some(tool) = out.name() else {
            return Vec::new();
        };
        let annotations = lock(&self.annotations);
        let Some(list) = annotations.get(tool) else {
            return Vec::new();
        };
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

    pub(super) fn spawn_exchange(
        self: &Arc<Self>,
        lease: Lease,
        out: Outgoing,
        tx: mpsc::Sender<String>,
    ) {
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
        in_flight.insert(
            id,
            InFlight {
                task: task.abort_handle(),
                stateless,
            },
        );
    }

    /// Sends a request and relays its answer.
    pub(super) async fn exchange(&self, lease: Lease, out: &Outgoing, tx: &mpsc::Sender<String>) {
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
                Err(why) => {
                    return self
                        .fail(
                            out,
                            tx,
                            format!("cannot make the HTTP request: {why}"),
                            None,
                        )
                        .await
                }
            };
            let (response, conn) = match self.send(lease, request).await {
                Ok(r) => r,
                Err(e) => {
                    let why = format!("the HTTP exchange with {} failed: {e}", self.endpoint.url);
                    return self.fail(out, tx, why, None).await;
                }
            };
            match self
                .reauthorize(&response, sent.as_deref(), &mut attempts)
                .await
            {
                Some(Ok(())) => continue,
                Some(Err(why)) => return self.fail(out, tx, why, Some(response.status())).await,
                None => {}
            }
            if out.known() == Some(McpMethod::Initialize)
                && out.version.is_none()
                && response.status().is_success()
            {
                if let Some(session) = response.headers().get(headers::SESSION_ID) {
                    *lock(&self.learnt.session_id) = Some(session.clone());
                }
            }
            let mut answer = PostAnswer::new(response, self.max(), conn);
            if out.version.is_some()
                && out.known() == Some(McpMethod::ToolsCall)
                && !retried
                && answer.status == StatusCode::BAD_REQUEST
            {
                // A -32020 may mean the tool's annotations changed (or were
                // never listed): list the tools again and retry once.
                match answer.whole().await {
                    Ok(())
                        if answer.is_header_mismatch() && self.refresh_annotations(out).await =>
                    {
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
    pub(super) async fn relay(
        &self,
        out: &Outgoing,
        answer: &mut PostAnswer,
        tx: &mpsc::Sender<String>,
    ) {
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
                format!(
                    "the server answered {} with {body:?}, which is not JSON-RPC",
                    show_status(status)
                )
            }
            (_, true, true) => {
                "the server ended the SSE stream without answering the request".to_owned()
            }
            (None, true, false) => format!(
                "the server answered {} without a JSON-RPC response",
                show_status(status)
            ),
            (body, false, _) => {
                let mut why = format!("the server answered HTTP {}", show_status(status));
                if let Some(location) = answer.location.as_ref().filter(|_| status.is_redirection())
                {
                    why.push_str(&format!(
                        " (redirects are not followed; Location: {location})"
                    ));
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
    pub(super) fn inspect_answer(&self, out: &Outgoing, text: String, fill_id: bool) -> String {
        let initialize = out.known() == Some(McpMethod::Initialize) && out.version.is_none();
        let tools_list = out.known() == Some(McpMethod::ToolsList) && out.version.is_some();
        if !(fill_id || initialize || tools_list) {
            return text;
        }
        let Ok(Value::Object(mut message)) = serde_json::from_str::<Value>(&text) else {
            return text;
        };
        if fill_id {
            message.insert("id".into(), out.id.clone().unwrap_or(Value::Null));
        }
        if initialize {
            if let Some(version) = message
                .get("result")
                .and_then(|r| r.get("protocolVersion"))
                .and_then(Value::as_str)
            {
                *lock(&self.learnt.protocol_version) = Some(version.to_owned());
            }
        }
        if tools_list {
            if let Some(tools) = message
                .get_mut("result")
                .and_then(|r| r.get_mut("tools"))
                .and_then(Value::as_array_mut)
            {
                self.learn(tools);
            }
        }
        Value::Object(message).to_string()
    }

    /// Records the `x-mcp-header` annotations of listed tools and removes
    /// the tools whose annotations break the rules.
    pub(super) fn learn(&self, tools: &mut Vec<Value>) {
        let mut annotations = lock(&self.annotations);
        tools.retain(|tool| {
            let Some(name) = tool.get("name").and_then(Value::as_str) else {
                return true;
            };
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
                    tracing::warn!(
                        tool = name,
                        "mcp http client: tool left out of tools/list: {why}"
                    );
                    annotations.remove(name);
                    false
                }
            }
        });
    }

    /// Lists the tools again (following `nextCursor` until the called tool
    /// shows up); true when the called tool's annotations changed.
    pub(super) async fn refresh_annotations(&self, call: &Outgoing) -> bool {
        let Some(tool) = call.name().map(str::to_owned) else {
            return false;
        };
        let before = lock(&self.annotations).get(&tool).cloned();
        let mut meta = call
            .params
            .as_ref()
            .and_then(|p| p.get("_meta"))
            .and_then(Value::as_object)
            .cloned()
            .unwrap_or_default();
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
            let text =
                json!({"jsonrpc": "2.0", "id": id, "method": McpMethod::ToolsList.name(), "params": params})
                    .to_string();
            let list = Outgoing::parse(&text);
            let Some(mut result) = self.fetch(&list).await else {
                return false;
            };
            let Some(tools) = result.get_mut("tools").and_then(Value::as_array_mut) else {
                return false;
            };
            let listed = tools
                .iter()
                .any(|t| t.get("name").and_then(Value::as_str) == Some(tool.as_str()));
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
    pub(super) async fn fetch(&self, out: &Outgoing) -> Option<Value> {
        let lease = self.checkout().await.ok()?;
        let (response, conn) = self.send(lease, self.request(out).ok()?).await.ok()?;
        let mut answer = PostAnswer::new(response, self.max(), conn);
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
    pub(super) async fn post_one_way(&self, lease: Lease, out: &Outgoing) -> Result<(), String> {
        let mut lease = Some(lease);
        let mut attempts = 0;
        let (response, conn) = loop {
            let lease = match lease.take() {
                Some(l) => l,
                None => self.checkout().await.map_err(|e| e.to_string())?,
            };
            let sent = self.bearer();
            let request = self.request(out)?;
            let (response, conn) = self
                .send(lease, request)
                .await
                .map_err(|e| format!("sending {} failed: {e}", out.describe()))?;
            match self
                .reauthorize(&response, sent.as_deref(), &mut attempts)
                .await
            {
                Some(Ok(())) => continue,
                Some(Err(why)) => return Err(why),
                None => break (response, conn),
            }
        };
        let mut answer = PostAnswer::new(response, self.max(), conn);
        if answer.status.is_success() {
            // 202 normally; drain whatever else came, unread.
            while let Ok(Some(_)) = answer.next().await {}
            return Ok(());
        }
        let body = match answer.whole().await {
            Ok(()) => answer
                .queue
                .iter()
                .map(|t| quote(t))
                .collect::<Vec<_>>()
                .join(" "),
            Err(_) => String::new(),
        };
        Err(format!(
            "the server refused {} with HTTP {}: {body}",
            out.describe(),
            show_status(answer.status)
        ))
    }

    pub(super) async fn fail_read(
        &self,
        out: &Outgoing,
        tx: &mpsc::Sender<String>,
        e: ReadError,
        status: Option<StatusCode>,
    ) {
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
    pub(super) async fn get_stream(&self, last_event_id: Option<&str>) -> Option<PostAnswer> {
        let lease = self.checkout().await.ok()?;
        let mut request = Request::new(Full::new(Bytes::new()));
        *request.method_mut() = Method::GET;
        *request.uri_mut() = self.endpoint.target.parse().ok()?;
        let h = request.headers_mut();
        h.insert(HOST, self.endpoint.authority.clone());
        h.insert(ACCEPT, HeaderValue::from_static("text/event-stream"));
        h.extend(self.extra.clone());
        self.authorize(h, "GET");
        if let Some(session) = lock(&self.learnt.session_id).clone() {
            h.insert(headers::SESSION_ID, session);
        }
        if let Some(version) = lock(&self.learnt.protocol_version)
            .as_deref()
            .and_then(|v| HeaderValue::from_str(v).ok())
        {
            h.insert(headers::PROTOCOL_VERSION, version);
        }
        if let Some(id) = last_event_id.and_then(|id| HeaderValue::from_str(id).ok()) {
            h.insert(LAST_EVENT_ID, id);
        }
        let (response, conn) = self.send(lease, request).await.ok()?;
        let answer = PostAnswer::new(response, self.max(), conn);
        answer.sse.then_some(answer)
    }

    /// A request's SSE stream ended without its response (stateful era):
    /// when the stream named an event id, waits the stream's `retry` and
    /// resumes it with a `GET` carrying `Last-Event-ID` (SEP-1699), at
    /// most [`MAX_RESUMES`] times.
    pub(super) async fn resume(
        &self,
        out: &Outgoing,
        answer: &PostAnswer,
        resumes: &mut usize,
    ) -> Option<PostAnswer> {
        if out.version.is_some() || !answer.sse || *resumes >= MAX_RESUMES {
            return None;
        }
        let last = answer.parser.last_id.clone()?;
        *resumes += 1;
        tokio::time::sleep(answer.retry_delay()).await;
        tracing::debug!(url = %self.endpoint.url, "mcp http client: resuming the stream of {} after event {last:?}", out.describe());
        self.get_stream(Some(&last)).await
    }

    /// Hands the engine an error response for the request.
    pub(super) async fn fail(
        &self,
        out: &Outgoing,
        tx: &mpsc::Sender<String>,
        why: String,
        status: Option<StatusCode>,
    ) {
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

pub(super) fn show_status(status: StatusCode) -> String {
    match status.canonical_reason() {
        Some(reason) => format!("{} {reason}", status.as_u16()),
        None => status.as_u16().to_string(),
    }
}

pub(super) fn quote(text: &str) -> String {
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
