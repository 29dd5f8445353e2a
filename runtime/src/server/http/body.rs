//! Response bodies of the HTTP service: a whole JSON body, or a
//! Server-Sent Events stream that carries a request's notifications and
//! then its reply (the request's work runs inside the stream, so closing the
//! stream cancels the request), or a session's standalone stream of
//! server-initiated messages. Streams send a keep-alive comment when idle
//! and end when the server shuts down.

use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use bytes::Bytes;
use http_body::{Body, Frame, SizeHint};
use tokio::sync::mpsc;

use crate::server::handler::cancel::CancellationToken;
use crate::server::Pending;

/// The body of every response of the HTTP service.
pub struct HttpBody {
    kind: Kind,
}

impl std::fmt::Debug for HttpBody {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let kind = match &self.kind {
            Kind::Full(_) => "full",
            Kind::Stream(_) => "event stream",
        };
        f.debug_struct("HttpBody").field("kind", &kind).finish()
    }
}

enum Kind {
    Full(Option<Bytes>),
    Stream(Box<SseStream>),
}

struct SseStream {
    /// A message already taken from `messages`, sent first.
    first: Option<String>,
    /// Notifications to forward, until the channel closes.
    messages: Option<mpsc::Receiver<String>>,
    /// The reply that ends the stream (none for a standalone stream).
    pending: Option<Pending>,
    keep_alive: tokio::time::Interval,
    shutdown: Pin<Box<dyn Future<Output = ()> + Send>>,
    /// Runs when the stream ends or is dropped (e.g. to free a session's
    /// stream slot).
    _on_close: Option<OnClose>,
}

/// A closure run when a stream ends.
pub(crate) struct OnClose(Option<Box<dyn FnOnce() + Send>>);

impl OnClose {
    /// Runs `f` once, when dropped.
    pub(crate) fn new(f: impl FnOnce() + Send + 'static) -> Self {
        Self(Some(Box::new(f)))
    }
}

impl Drop for OnClose {
    fn drop(&mut self) {
        if let Some(f) = self.0.take() {
            f();
        }
    }
}

impl HttpBody {
    /// A complete body.
    pub fn full(bytes: impl Into<Bytes>) -> Self {
        Self {
            kind: Kind::Full(Some(bytes.into())),
        }
    }

    /// No body.
    pub fn empty() -> Self {
        Self {
            kind: Kind::Full(None),
        }
    }

    /// An SSE stream of `messages` followed by the reply of `pending`
    /// (when given); ends at `shutdown`.
    pub(crate) fn sse(
        first: Option<String>,
        messages: mpsc::Receiver<String>,
        pending: Option<Pending>,
        keep_alive: Duration,
        shutdown: CancellationToken,
        on_close: Option<OnClose>,
    ) -> Self {
        let mut interval =
            tokio::time::interval_at(tokio::time::Instant::now() + keep_alive, keep_alive);
        interval.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        Self {
            kind: Kind::Stream(Box::new(SseStream {
                first,
                messages: Some(messages),
                pending,
                keep_alive: interval,
                shutdown: Box::pin(async move { shutdown.cancelled().await }),
                _on_close: on_close,
            })),
        }
    }
}

/// One SSE event carrying a JSON-RPC message.
fn event(message: &str) -> Bytes {
    let mut out = String::with_capacity(message.len() + 24);
    out.push_str("event: message\ndata: ");
    out.push_str(message);
    out.push_str("\n\n");
    Bytes::from(out)
}

impl Body for HttpBody {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        let this = self.get_mut();
        let stream = match &mut this.kind {
            Kind::Full(bytes) => return Poll::Ready(bytes.take().map(|b| Ok(Frame::data(b)))),
            Kind::Stream(stream) => stream,
        };
        if stream.shutdown.as_mut().poll(cx).is_ready() {
            return Poll::Ready(None);
        }
        if let Some(first) = stream.first.take() {
            return Poll::Ready(Some(Ok(Frame::data(event(&first)))));
        }
        // Notifications first: they precede the reply they relate to.
        if let Some(rx) = &mut stream.messages {
            match rx.poll_recv(cx) {
                Poll::Ready(Some(message)) => {
                    return Poll::Ready(Some(Ok(Frame::data(event(&message)))))
                }
                Poll::Ready(None) => stream.messages = None,
                Poll::Pending => {}
            }
        }
        if let Some(pending) = &mut stream.pending {
            if let Poll::Ready(reply) = Pin::new(pending).poll(cx) {
                stream.pending = None;
                // Notifications sent before the reply are still queued.
                let mut out = Vec::new();
                if let Some(rx) = &mut stream.messages {
                    while let Ok(message) = rx.try_recv() {
                        out.extend_from_slice(&event(&message));
                    }
                }
                stream.messages = None;
                if let Some(reply) = reply {
                    out.extend_from_slice(&event(&reply.text));
                }
                stream.keep_alive = tokio::time::interval(Duration::from_secs(3600));
                return Poll::Ready(if out.is_empty() {
                    None
                } else {
                    Some(Ok(Frame::data(Bytes::from(out))))
                });
            }
        } else if stream.messages.is_none() {
            return Poll::Ready(None);
        }
        if stream.keep_alive.poll_tick(cx).is_ready() {
            return Poll::Ready(Some(Ok(Frame::data(Bytes::from_static(
                b": keep-alive\n\n",
            )))));
        }
        Poll::Pending
    }

    fn is_end_stream(&self) -> bool {
        matches!(self.kind, Kind::Full(None))
    }

    fn size_hint(&self) -> SizeHint {
        match &self.kind {
            Kind::Full(Some(b)) => SizeHint::with_exact(b.len() as u64),
            Kind::Full(None) => SizeHint::with_exact(0),
            Kind::Stream(_) => SizeHint::default(),
        }
    }
}
