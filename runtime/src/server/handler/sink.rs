//! [`Sink`]: where a request's own messages go before its final reply
//! (progress, logs, requests to the client), and where notifications
//! outside requests go; `SinkShared`, what a sink shares with its transport
//! (a count of messages not yet written, or a channel made only when the
//! first message is sent). A leaf module.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use tokio::sync::mpsc;

/// Where a request's own messages go before its final reply: progress and
/// log notifications. Over stdio that is the connection; over Streamable
/// HTTP, the request's SSE stream (or nowhere when it is answered as plain
/// JSON).
#[derive(Debug, Clone, Default)]
pub struct Sink {
    /// The channel, unless it is made lazily (in `shared`).
    tx: Option<mpsc::Sender<String>>,
    /// Two words in all: a sink is held by every call's context.
    shared: Option<Arc<SinkShared>>,
}

impl Sink {
    /// Messages go to `tx` (one serialised JSON-RPC message each).
    pub fn new(tx: mpsc::Sender<String>) -> Self {
        Self {
            tx: Some(tx),
            shared: None,
        }
    }

    /// Like [`Sink::new`], and every message sent is counted in
    /// `unwritten` ([`SinkShared::counter`]) before it is queued; the receiver
    /// calls [`SinkShared::written`] once it is written. (While the count is
    /// not zero, a transport writing replies itself queues them behind
    /// instead, keeping the order.)
    pub(crate) fn counted(tx: mpsc::Sender<String>, unwritten: Arc<SinkShared>) -> Self {
        Self {
            tx: Some(tx),
            shared: Some(unwritten),
        }
    }

    /// Messages go to `lazy`'s channel ([`SinkShared::lazy`]), made when the
    /// first is sent.
    #[cfg_attr(not(feature = "streamable-http"), allow(dead_code))]
    pub(crate) fn lazy(lazy: &Arc<SinkShared>) -> Self {
        Self {
            tx: None,
            shared: Some(Arc::clone(lazy)),
        }
    }

    /// A handle that reaches the same client without keeping its channel
    /// open: a transport's channel closes when the transport is done with
    /// it, whoever else holds a [`WeakSink`].
    pub(crate) fn downgrade(&self) -> WeakSink {
        match (&self.tx, &self.shared) {
            (Some(tx), shared) => WeakSink::Channel(tx.downgrade(), shared.clone()),
            (None, Some(shared)) => WeakSink::Lazy(Arc::downgrade(shared)),
            (None, None) => WeakSink::Nowhere,
        }
    }

    /// Messages are dropped.
    pub fn discard() -> Self {
        Self {
            tx: None,
            shared: None,
        }
    }

    /// The channel's sender: the sink's own, or its lazy channel's (made
    /// now); `None` when messages are dropped.
    fn sender(&self) -> Option<&mpsc::Sender<String>> {
        match (&self.tx, &self.shared) {
            (Some(tx), _) => Some(tx),
            (None, Some(shared)) => match &**shared {
                SinkShared::Lazy(lazy) => Some(lazy.sender()),
                SinkShared::Unwritten(_) => None,
            },
            (None, None) => None,
        }
    }

    /// The count of messages not yet written, for a counted sink.
    fn unwritten(&self) -> Option<&AtomicUsize> {
        match self.shared.as_deref() {
            Some(SinkShared::Unwritten(count)) => Some(count),
            _ => None,
        }
    }

    /// Whether messages sent here can reach the client.
    pub fn is_connected(&self) -> bool {
        match (&self.tx, self.shared.as_deref()) {
            (Some(tx), _) => !tx.is_closed(),
            (None, Some(SinkShared::Lazy(lazy))) => lazy
                .tx
                .get()
                .map_or(!lazy.done.load(Ordering::Acquire), |tx| !tx.is_closed()),
            _ => false,
        }
    }

    /// Completes when messages sent here can no longer reach the client
    /// (at once for a discarding sink).
    pub async fn closed(&self) {
        if let Some(tx) = self.sender() {
            tx.closed().await;
        }
    }

    /// Queues one message without waiting; `false` when it cannot be
    /// delivered or the queue is full.
    pub(crate) fn try_send(&self, message: String) -> bool {
        let Some(tx) = self.sender() else {
            return false;
        };
        self.count();
        self.uncount_unless(tx.try_send(message).is_ok())
    }

    /// Sends one message; `false` when it cannot be delivered.
    pub async fn send(&self, message: String) -> bool {
        let Some(tx) = self.sender() else {
            return false;
        };
        self.count();
        self.uncount_unless(tx.send(message).await.is_ok())
    }

    /// Counts a message as unwritten before it is queued (counted sinks).
    fn count(&self) {
        if let Some(count) = self.unwritten() {
            count.fetch_add(1, Ordering::AcqRel);
        }
    }

    /// Takes back the count of a message that was not queued; `sent`.
    fn uncount_unless(&self, sent: bool) -> bool {
        if !sent {
            if let Some(count) = self.unwritten() {
                count.fetch_sub(1, Ordering::AcqRel);
            }
        }
        sent
    }
}

/// Looks up a stream to the client when a message is to be sent (`None`:
/// no stream open now): how a stateful session's messages outside
/// requests find its connection or GET stream.
pub(crate) type StreamOf = Arc<dyn Fn() -> Option<Sink> + Send + Sync>;

/// A [`Sink`] that does not keep its channel open (see [`Sink::downgrade`]).
#[derive(Debug, Clone)]
pub(crate) enum WeakSink {
    Channel(mpsc::WeakSender<String>, Option<Arc<SinkShared>>),
    Lazy(std::sync::Weak<SinkShared>),
    Nowhere,
}

impl WeakSink {
    /// The sink, while its channel is open.
    pub(crate) fn upgrade(&self) -> Option<Sink> {
        match self {
            WeakSink::Channel(tx, shared) => Some(Sink {
                tx: Some(tx.upgrade()?),
                shared: shared.clone(),
            }),
            WeakSink::Lazy(shared) => Some(Sink {
                tx: None,
                shared: Some(shared.upgrade()?),
            }),
            WeakSink::Nowhere => None,
        }
    }
}

/// What a sink shares with its transport.
#[derive(Debug)]
pub(crate) enum SinkShared {
    /// Messages handed over and not written yet (see [`Sink::counted`]).
    Unwritten(AtomicUsize),
    /// A channel made only when a message is sent (see [`Sink::lazy`]).
    Lazy(Lazy),
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

impl SinkShared {
    /// A count of unwritten messages, at zero.
    pub(crate) fn counter() -> Arc<Self> {
        Arc::new(SinkShared::Unwritten(AtomicUsize::new(0)))
    }

    /// A lazy channel of `capacity` messages, not made yet.
    #[cfg_attr(not(feature = "streamable-http"), allow(dead_code))]
    pub(crate) fn lazy(capacity: usize) -> Arc<Self> {
        Arc::new(SinkShared::Lazy(Lazy {
            capacity,
            tx: OnceLock::new(),
            rx: Mutex::new(None),
            done: AtomicBool::new(false),
        }))
    }

    /// One counted message was written.
    pub(crate) fn written(&self) {
        if let SinkShared::Unwritten(count) = self {
            count.fetch_sub(1, Ordering::AcqRel);
        }
    }

    /// Whether every counted message was written.
    pub(crate) fn all_written(&self) -> bool {
        match self {
            SinkShared::Unwritten(count) => count.load(Ordering::Acquire) == 0,
            SinkShared::Lazy(_) => true,
        }
    }

    /// Whether a message was sent to the lazy channel (so it exists).
    #[cfg_attr(not(feature = "streamable-http"), allow(dead_code))]
    pub(crate) fn used(&self) -> bool {
        matches!(self, SinkShared::Lazy(lazy) if lazy.tx.get().is_some())
    }

    /// The lazy channel's receiver (made now if no message was sent yet);
    /// once taken, after [`SinkShared::close`] or for a counter, one of a
    /// closed, empty channel.
    #[cfg_attr(not(feature = "streamable-http"), allow(dead_code))]
    pub(crate) fn receiver(&self) -> mpsc::Receiver<String> {
        let taken = match self {
            SinkShared::Lazy(lazy) => {
                lazy.sender();
                lazy.rx.lock().unwrap_or_else(|p| p.into_inner()).take()
            }
            SinkShared::Unwritten(_) => None,
        };
        taken.unwrap_or_else(|| mpsc::channel(1).1)
    }

    /// The transport stops reading the lazy channel: messages sent from
    /// now on fail.
    #[cfg_attr(not(feature = "streamable-http"), allow(dead_code))]
    pub(crate) fn close(&self) {
        if let SinkShared::Lazy(lazy) = self {
            let mut slot = lazy.rx.lock().unwrap_or_else(|p| p.into_inner());
            lazy.done.store(true, Ordering::Release);
            slot.take();
        }
    }
}

impl Lazy {
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
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sink_is_two_words() {
        // Every call's context holds one; a third word pushed the boxed
        // call future past glibc's per-thread cache (slower malloc/free on
        // every call).
        assert_eq!(
            std::mem::size_of::<Sink>(),
            2 * std::mem::size_of::<usize>()
        );
    }

    #[tokio::test]
    async fn a_lazy_channel_is_made_by_the_first_message_and_closes_with_its_last_sink() {
        let shared = SinkShared::lazy(4);
        let sink = Sink::lazy(&shared);
        assert!(
            sink.is_connected() && !shared.used(),
            "connected before any channel is made"
        );
        assert!(sink.send("one".into()).await);
        assert!(shared.used());
        let mut rx = shared.receiver();
        drop(shared);
        assert_eq!(rx.recv().await.as_deref(), Some("one"));
        let weak = sink.downgrade();
        assert!(weak.upgrade().is_some());
        drop(sink);
        assert!(
            weak.upgrade().is_none(),
            "a weak sink does not keep the channel"
        );
        assert_eq!(rx.recv().await, None, "closed once the last sink is gone");

        // Closed before any message: sending fails, the sink reports it.
        let shared = SinkShared::lazy(4);
        let sink = Sink::lazy(&shared);
        shared.close();
        assert!(!sink.is_connected());
        assert!(!sink.try_send("late".into()));
        sink.closed().await;
    }
}
