//! A POST to the MCP endpoint: the body read within its limit, the era
//! decided (a session's, `initialize`, or per-request `_meta`), the
//! mirrored headers checked, and the message run through the engine and
//! answered (202, JSON, or an SSE stream).

use std::sync::Arc;

use http::header::{HeaderValue, WWW_AUTHENTICATE};
use http::{Response, StatusCode};
use http_body_util::BodyExt;
use serde_json::Value;
use tokio::sync::mpsc;

use crate::jsonrpc::{self, Incoming, RpcError, METHOD_NOT_FOUND};
use crate::revision::method::Method as McpMethod;
use crate::revision::{self, meta, Era};
use crate::server::handler::context::{Principal, Sink};
use crate::server::handler::extras::Extras;
use crate::server::handler::sink::SinkShared;
use crate::server::{poll_once, CachedScope, Handled, Message, Pending, Reply, Session};

use super::body::HttpBody;
use super::guard;
use super::mirror;
use super::responses::{
    error, json, refusal, session_not_found, sse_response, status_only, unavailable,
};
use super::sessions::Refused;
use crate::transport::http::headers;
use crate::transport::http::scan::Scan;

use super::endpoint::{Inner, STREAM_QUEUE};

/// Why a request body was not read.
pub(super) enum BodyError {
    TooLarge,
    Failed(Box<dyn std::error::Error + Send + Sync>),
}

/// Reads a request body of at most `limit` bytes (trailers are ignored). A
/// body that comes in one piece, as most do, is kept without a copy.
pub(super) async fn read_body<B>(body: B, limit: usize) -> Result<bytes::Bytes, BodyError>
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
pub(super) struct Call {
    extras: Arc<Extras>,
    /// Answer with an SSE stream (the request asked for progress).
    stream: bool,
    /// Stateless era: status codes follow the modern rules.
    modern: bool,
}

// Inherent impl away from its type: `Inner` is the service's state
// (`endpoint.rs`); these are its answers to POST.
impl Inner {
    pub(super) async fn post<B>(
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
        // The budget permit is held until the request is handled.
        let (bytes, _budget) = match self.read_post_body(extras, scan, body).await {
            Ok(read) => read,
            Err(refused) => return refused,
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
        if let Some(refused) = self.refuse_insufficient_scope(extras, &message) {
            return refused;
        }
        // A stateless-only server ignores session ids (2026-07-28 transports).
        if let Some(id) = session_id.filter(|_| self.config.stateful) {
            return self
                .post_in_session(id, scan, message, extras.principal(), Arc::clone(extras))
                .await;
        }
        self.post_sessionless(scan, message, kept, extras).await
    }

    /// Reads a POST's body within the limits: its `Content-Type` and
    /// `Accept`, its size, and the budget of bodies read at once (the
    /// permit, held until the request is handled).
    async fn read_post_body<B>(
        &self,
        extras: &Arc<Extras>,
        scan: &Scan<'_>,
        body: B,
    ) -> Result<(bytes::Bytes, tokio::sync::OwnedSemaphorePermit), Response<HttpBody>>
    where
        B: http_body::Body + Send + 'static,
        B::Data: Send,
        B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
    {
        let request_headers = extras.headers();
        if let Err(r) = guard::check_content_type(scan.content_type).and_then(|()| {
            guard::check_post_accept(request_headers, scan.accept, scan.accept_values)
        }) {
            return Err(refusal(r));
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
            return Err(too_large());
        }
        // Held until the request is handled: bodies in memory stay within
        // the budget whatever the number of connections.
        let cost = declared
            .map_or(limit, |n| n as usize)
            .clamp(1, self.config.max_buffered_bytes.max(1));
        let permit = u32::try_from(cost)
            .ok()
            .and_then(|n| Arc::clone(&self.body_budget).try_acquire_many_owned(n).ok());
        let Some(budget) = permit else {
            return Err(unavailable(
                "the server is reading too many request bodies at once; retry shortly",
                "1",
            ));
        };
        let bytes = match read_body(body, limit).await {
            Ok(bytes) => bytes,
            Err(BodyError::TooLarge) => return Err(too_large()),
            Err(BodyError::Failed(e)) => {
                return Err(error(
                    StatusCode::BAD_REQUEST,
                    &RpcError::parse_error(format!("cannot read the body: {e}")),
                ))
            }
        };
        Ok((bytes, budget))
    }

    /// With a bearer gate, a request whose token lacks the scopes its
    /// target needs: 403 with the `insufficient_scope` challenge.
    fn refuse_insufficient_scope(
        &self,
        extras: &Arc<Extras>,
        message: &Message<'_>,
    ) -> Option<Response<HttpBody>> {
        if let (
            Some(gate),
            Some(held),
            Message::Request {
                id, method, params, ..
            },
        ) = (&self.config.bearer, extras.principal(), message)
        {
            if let Some((what, required, missing)) =
                self.server
                    .core
                    .scope_shortfall(method, |k| params.get(k), extras)
            {
                let missing: Vec<&str> = missing.iter().map(String::as_str).collect();
                let e =
                    crate::server::access::oauth_scopes::insufficient(&what, &required, &missing);
                let r = gate.insufficient_scope(held, &required, &e.message);
                let mut response = json(StatusCode::FORBIDDEN, jsonrpc::error_response(id, &e));
                if let Some(challenge) = r
                    .www_authenticate
                    .and_then(|c| HeaderValue::from_str(&c).ok())
                {
                    response.headers_mut().insert(WWW_AUTHENTICATE, challenge);
                }
                return Some(response);
            }
        }
        None
    }

    /// A message without a session: `initialize` (which opens one), a
    /// stateless request or notification ([`Self::post_stateless`]), or
    /// what is refused without one.
    async fn post_sessionless(
        &self,
        scan: &Scan<'_>,
        message: Message<'_>,
        kept: Option<Arc<CachedScope>>,
        extras: &Arc<Extras>,
    ) -> Response<HttpBody> {
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
            Message::Request { method, .. } | Message::Notification { method, .. } => {
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
                self.post_stateless(scan, message, kept, extras).await
            }
            Message::Other(Incoming::Response { .. }) => status_only(StatusCode::ACCEPTED),
            // A request or notification is never `Other`.
            Message::Other(_) => status_only(StatusCode::BAD_REQUEST),
        }
    }

    /// A stateless request: its mirrored headers checked against its
    /// body, then answered on a fresh session (whose scope is kept for the
    /// next request with the same `_meta`).
    async fn post_stateless(
        &self,
        scan: &Scan<'_>,
        message: Message<'_>,
        kept: Option<Arc<CachedScope>>,
        extras: &Arc<Extras>,
    ) -> Response<HttpBody> {
        let Message::Request {
            id, method, params, ..
        } = &message
        else {
            return status_only(StatusCode::BAD_REQUEST);
        };
        let body_version = message.meta(meta::PROTOCOL_VERSION);
        let known = McpMethod::of(method);
        let annotated = match known {
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
            extras.headers(),
            scan,
            (method, known),
            body_version.and_then(Value::as_str),
            params,
            annotated,
        ) {
            return json(StatusCode::BAD_REQUEST, jsonrpc::error_response(id, &e));
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

    /// `initialize` without a session: opens one when it succeeds.
    pub(super) async fn initialize(
        &self,
        message: Message<'_>,
        extras: Arc<Extras>,
    ) -> Response<HttpBody> {
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

    pub(super) async fn post_in_session(
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

    /// Runs a message through the engine and answers: 202 for nothing to
    /// say, JSON for a reply, SSE when the request asked for progress or
    /// sends anything (progress, logs) before its reply.
    pub(super) async fn answer(
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
    pub(super) fn finished(
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

    pub(super) fn reply(&self, reply: Reply, modern: bool) -> Response<HttpBody> {
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
}
