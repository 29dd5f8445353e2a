//! [`Sink`]: where a request's own messages go before its final reply
//! (progress, logs, requests to the client), and where notifications
//! outside requests go. A leaf module.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use tokio::sync::mpsc;

/// Where a request's own messages go before its final reply: progress and
/// log notifications. Over stdio that is the connection; over Streamable
/// HTTP, the request's SSE stream (or nowhere when it is answered as plain
/// JSON).
#[derive(Debug, Clone, Default)]
pub struct Sink {
    tx: Option<mpsc::Sender<String>>,
    /// Counts messages handed over and not yet written, for a transport
    /// that also writes some messages itself (see [`Sink::counted`]).
    unwritten: Option<Arc<AtomicUsize>>,
}

impl Sink {
    /// Messages go to `tx` (one serialised JSON-RPC message each).
    pub fn new(tx: mpsc::Sender<String>) -> Self {
        Self { tx: Some(tx), unwritten: None }
    }

    /// Like [`Sink::new`], and every message sent is counted in
    /// `unwritten` before it is queued; the receiver subtracts it once
    /// written. (While the count is not zero, a transport writing replies
    /// itself queues them behind instead, keeping the order.)
    pub(crate) fn counted(tx: mpsc::Sender<String>, unwritten: Arc<AtomicUsize>) -> Self {
        Self { tx: Some(tx), unwritten: Some(unwritten) }
    }

    /// A handle that reaches the same client without keeping its channel
    /// open: a transport's channel closes when the transport is done with
    /// it, whoever else holds a [`WeakSink`].
    pub(crate) fn downgrade(&self) -> WeakSink {
        WeakSink { tx: self.tx.as_ref().map(mpsc::Sender::downgrade), unwritten: self.unwritten.clone() }
    }

    /// Messages are dropped.
    pub fn discard() -> Self {
        Self { tx: None, unwritten: None }
    }

    /// Whether messages sent here can reach the client.
    pub fn is_connected(&self) -> bool {
        self.tx.as_ref().is_some_and(|tx| !tx.is_closed())
    }

    /// Completes when messages sent here can no longer reach the client
    /// (at once for a discarding sink).
    pub async fn closed(&self) {
        if let Some(tx) = &self.tx {
            tx.closed().await;
        }
    }

    /// Queues one message without waiting; `false` when it cannot be
    /// delivered or the queue is full.
    pub(crate) fn try_send(&self, message: String) -> bool {
        let Some(tx) = &self.tx else { return false };
        if let Some(count) = &self.unwritten {
            count.fetch_add(1, Ordering::AcqRel);
        }
        let sent = tx.try_send(message).is_ok();
        if !sent {
            if let Some(count) = &self.unwritten {
                count.fetch_sub(1, Ordering::AcqRel);
            }
        }
        sent
    }

    /// Sends one message; `false` when it cannot be delivered.
    pub async fn send(&self, message: String) -> bool {
        let Some(tx) = &self.tx else { return false };
        if let Some(count) = &self.unwritten {
            count.fetch_add(1, Ordering::AcqRel);
        }
        let sent = tx.send(message).await.is_ok();
        if !sent {
            if let Some(count) = &self.unwritten {
                count.fetch_sub(1, Ordering::AcqRel);
            }
        }
        sent
    }
}

/// A [`Sink`] that does not keep its channel open (see [`Sink::downgrade`]).
#[derive(Debug, Clone)]
pub(crate) struct WeakSink {
    tx: Option<mpsc::WeakSender<String>>,
    unwritten: Option<Arc<AtomicUsize>>,
}

impl WeakSink {
    /// The sink, while its channel is open.
    pub(crate) fn upgrade(&self) -> Option<Sink> {
        let tx = self.tx.as_ref()?.upgrade()?;
        Some(Sink { tx: Some(tx), unwritten: self.unwritten.clone() })
    }
}
