//! [`Sink`]: where a request's own messages go before its final reply
//! (progress, logs, requests to the client), and where notifications
//! outside requests go; [`Lazy`], a sink's channel made only when a
//! message is sent. A leaf module.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock, Weak};

use tokio::sync::mpsc;

/// Where a request's own messages go before its final reply: progress and
/// log notifications. Over stdio that is the connection; over Streamable
/// HTTP, the request's SSE stream (or nowhere when it is answered as plain
/// JSON).
#[derive(Debug, Clone, Default)]
pub struct Sink {
    tx: Option<To>,
    /// Counts messages handed over and not yet written, for a transport
    /// that also writes some messages itself (see [`Sink::counted`]).
    unwritten: Option<Arc<AtomicUsize>>,
}

impl Sink {
    /// Messages go to `tx` (one serialised JSON-RPC message each).
    pub fn new(tx: mpsc::Sender<String>) -> Self {
        Self { tx: Some(To::Channel(tx)), unwritten: None }
    }

    /// Messages go to `lazy`'s channel, made when the first is sent.
    #[cfg_attr(not(feature = "streamable-http"), allow(dead_code))]
    pub(crate) fn lazy(lazy: &Arc<Lazy>) -> Self {
        Self { tx: Some(To::Lazy(Arc::clone(lazy))), unwritten: None }
    }

    /// Like [`Sink::new`], and every message sent is counted in
    /// `unwritten` before it is queued; the receiver subtracts it once
    /// written. (While the count is not zero, a transport writing replies
    /// itself queues them behind instead, keeping the order.)
    pub(crate) fn counted(tx: mpsc::Sender<String>, unwritten: Arc<AtomicUsize>) -> Self {
        Self { tx: Some(To::Channel(tx)), unwritten: Some(unwritten) }
    }

    /// A handle that reaches the same client without keeping its channel
    /// open: a transport's channel closes when the transport is done with
    /// it, whoever else holds a [`WeakSink`].
    pub(crate) fn downgrade(&self) -> WeakSink {
        let tx = self.tx.as_ref().map(|to| match to {
            To::Channel(tx) => WeakTo::Channel(tx.downgrade()),
            To::Lazy(lazy) => WeakTo::Lazy(Arc::downgrade(lazy)),
        });
        WeakSink { tx, unwritten: self.unwritten.clone() }
    }

    /// Messages are dropped.
    pub fn discard() -> Self {
        Self { tx: None, unwritten: None }
    }

    /// Whether messages sent here can reach the client.
    pub fn is_connected(&self) -> bool {
        match &self.tx {
            None => false,
            Some(To::Channel(tx)) => !tx.is_closed(),
            Some(To::Lazy(lazy)) => lazy.tx.get().map_or(!lazy.done.load(Ordering::Acquire), |tx| !tx.is_closed()),
        }
    }

    /// Completes when messages sent here can no longer reach the client
    /// (at once for a discarding sink).
    pub async fn closed(&self) {
        if let Some(to) = &self.tx {
            to.sender().closed().await;
        }
    }

    /// Queues one message without waiting; `false` when it cannot be
    /// delivered or the queue is full.
    pub(crate) fn try_send(&self, message: String) -> bool {
        let Some(tx) = &self.tx else { return false };
        if let Some(count) = &self.unwritten {
            count.fetch_add(1, Ordering::AcqRel);
        }
        let sent = tx.sender().try_send(message).is_ok();
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
        let sent = tx.sender().send(message).await.is_ok();
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
    tx: Option<WeakTo>,
    unwritten: Option<Arc<AtomicUsize>>,
}

impl WeakSink {
    /// The sink, while its channel is open.
    pub(crate) fn upgrade(&self) -> Option<Sink> {
        let tx = match self.tx.as_ref()? {
            WeakTo::Channel(tx) => To::Channel(tx.upgrade()?),
            WeakTo::Lazy(lazy) => To::Lazy(lazy.upgrade()?),
        };
        Some(Sink { tx: Some(tx), unwritten: self.unwritten.clone() })
    }
}

/// Where a connected sink's messages go.
#[derive(Debug, Clone)]
enum To {
    Channel(mpsc::Sender<String>),
    Lazy(Arc<Lazy>),
}

#[derive(Debug, Clone)]
enum WeakTo {
    Channel(mpsc::WeakSender<String>),
    Lazy(Weak<Lazy>),
}

impl To {
    fn sender(&self) -> &mpsc::Sender<String> {
        match self {
            To::Channel(tx) => tx,
            To::Lazy(lazy) => lazy.sender(),
        }
    }
}

/// A request's channel, made when its first message is sent: most
/// requests send none, and are answered without one. Like a channel's
/// sender, it closes when the last sink holding it is dropped (the
/// transport drops its own handle once it has taken the receiver).
#[derive(Debug)]
pub(crate) struct Lazy {
    capacity: usize,
    tx: OnceLock<mpsc::Sender<String>>,
    /// The receiver, until the transport takes it.
    rx: Mutex<Option<mpsc::Receiver<String>>>,
    /// The transport no longer reads: a channel made from now on is closed.
    done: AtomicBool,
}

// Only the Streamable HTTP transport answers requests without a channel.
#[cfg_attr(not(feature = "streamable-http"), allow(dead_code))]
impl Lazy {
    pub(crate) fn new(capacity: usize) -> Arc<Self> {
        Arc::new(Self { capacity, tx: OnceLock::new(), rx: Mutex::new(None), done: AtomicBool::new(false) })
    }

    fn sender(&self) -> &mpsc::Sender<String> {
        self.tx.get_or_init(|| {
            let (tx, rx) = mpsc::channel(self.capacity);
            let mut slot = self.rx.lock().unwrap_or_else(|p| p.into_inner());
            if !self.done.load(Ordering::Acquire) {
                *slot = Some(rx);
            }
            tx
        })
    }

    /// Whether any message was sent (so the channel exists).
    pub(crate) fn used(&self) -> bool {
        self.tx.get().is_some()
    }

    /// The receiver (made now if no message was sent yet); once taken, or
    /// after [`Lazy::close`], one of a closed, empty channel.
    pub(crate) fn receiver(&self) -> mpsc::Receiver<String> {
        self.sender();
        self.rx.lock().unwrap_or_else(|p| p.into_inner()).take().unwrap_or_else(|| mpsc::channel(1).1)
    }

    /// The transport stops reading: messages sent from now on fail.
    pub(crate) fn close(&self) {
        let mut slot = self.rx.lock().unwrap_or_else(|p| p.into_inner());
        self.done.store(true, Ordering::Release);
        slot.take();
    }
}
