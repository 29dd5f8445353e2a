//! What handling one message produces: nothing, a [`Reply`] now, or a
//! [`Pending`] reply the transport awaits or spawns. The engine and the
//! topic modules (reads, tasks, listening) answer in these terms; the
//! transports take them.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use crate::server::request::reply::Reply;

/// What handling one message produced.
#[derive(Debug)]
pub enum Handled {
    /// Nothing to send (a notification, a response).
    Nothing,
    /// The reply, ready now.
    Reply(Reply),
    /// The reply once the work is done; `None` when the request was
    /// cancelled (no reply is sent for it). Dropping it cancels the request.
    Pending(Pending),
}

/// A reply still being worked on.
///
/// A tool call's future is allocated once per call: it is kept at most
/// 1,032 bytes (1,024 now, `-Zprint-type-sizes`), the largest size glibc
/// serves from its per-thread cache; past it every call's malloc and free
/// take the slow path (about 500 instructions more per call).
pub struct Pending(
    pub(in crate::server) Pin<Box<dyn Future<Output = Option<Reply>> + Send + 'static>>,
);

impl std::fmt::Debug for Pending {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Pending")
    }
}

impl Future for Pending {
    type Output = Option<Reply>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        self.0.as_mut().poll(cx)
    }
}

/// Polls `future` once; `Some(output)` when that finished it. The
/// transports use it to answer a call that finishes at once (most tool
/// calls) in the task that read it, and move only those that wait for
/// something to a task of their own.
pub(crate) fn poll_once<F: Future + Unpin>(
    future: &mut F,
) -> impl Future<Output = Option<F::Output>> + '_ {
    std::future::poll_fn(move |cx| {
        Poll::Ready(match Pin::new(&mut *future).poll(cx) {
            Poll::Ready(output) => Some(output),
            Poll::Pending => None,
        })
    })
}

impl Pending {
    /// Wraps a future producing the reply.
    pub(crate) fn boxed(future: impl Future<Output = Option<Reply>> + Send + 'static) -> Self {
        Pending(Box::pin(future))
    }
}

impl Handled {
    /// The reply, waiting for it if it is pending.
    pub async fn into_reply(self) -> Option<Reply> {
        match self {
            Handled::Nothing => None,
            Handled::Reply(reply) => Some(reply),
            Handled::Pending(pending) => pending.await,
        }
    }
}
