//! The server's side of a stateful session's streams, for
//! [`TransportShared`]: the `GET` that opens an SSE stream, the resumption
//! of a request's stream with `Last-Event-ID` after it ended without the
//! response, and the standalone stream read for the server's own requests
//! and notifications.

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use http::header::{HeaderValue, ACCEPT, HOST};
use http::{Method, Request};
use http_body_util::Full;
use tokio::sync::mpsc;

use super::answer::PostAnswer;
use super::shared::TransportShared;
use super::{lock, Outgoing, DEFAULT_RETRY, LAST_EVENT_ID, LISTEN_TIMEOUT, MAX_RESUMES};
use crate::transport::http::headers;

impl TransportShared {
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
        tokio::time::sleep(
            answer
                .parser
                .retry
                .map_or(DEFAULT_RETRY, Duration::from_millis),
        )
        .await;
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
    pub(super) async fn start_listener(self: &Arc<Self>, tx: mpsc::Sender<String>) {
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
                tokio::time::sleep(
                    answer
                        .parser
                        .retry
                        .map_or(DEFAULT_RETRY, Duration::from_millis),
                )
                .await;
            }
        });
        *slot = Some(task.abort_handle());
    }
}
