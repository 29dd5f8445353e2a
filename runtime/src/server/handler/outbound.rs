//! Requests a server sends to its client in the stateful era (sampling,
//! elicitation, roots): the session's outbound ids and the table of
//! requests waiting for their response. The engine hands every JSON-RPC
//! response it reads to [`Outbound::resolve`]; the request's [`Waiter`]
//! receives it. A waiter that is dropped (timeout, cancelled call) leaves
//! the table, so a late response finds nothing and is ignored.
//! [`Channel`] says how a request context reaches the client: live
//! through this table, or as rounds of input requests (stateless era).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::Value;
use tokio::sync::oneshot;

use crate::server::handler::mrtr::Rounds;

/// How a request context reaches the client.
#[derive(Clone, Default)]
pub(crate) enum Channel {
    /// Not attached to a client (a detached context).
    #[default]
    None,
    /// Stateful era: requests go out on the sink and wait for a response.
    Live {
        /// The session's outbound requests.
        outbound: Arc<Outbound>,
        /// How long a response may take.
        timeout: Duration,
    },
    /// Stateless era: requests become input requests of the reply.
    Rounds(Arc<Rounds>),
}

impl std::fmt::Debug for Channel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Channel::None => "None",
            Channel::Live { .. } => "Live",
            Channel::Rounds(_) => "Rounds",
        })
    }
}

/// What a response carried: its `result`, or its `error` object.
pub(crate) type Outcome = Result<Value, Value>;

/// One session's requests to its client; shared by the session's clones.
#[derive(Default)]
pub(crate) struct Outbound {
    next: AtomicU64,
    /// Ids waiting for a response: a short list (one per handler waiting).
    waiting: Mutex<Vec<(u64, oneshot::Sender<Outcome>)>>,
}

impl Outbound {
    /// A new id, registered as waiting for its response.
    pub(crate) fn register(self: &Arc<Self>) -> Waiter {
        let id = self.next.fetch_add(1, Ordering::Relaxed) + 1;
        let (tx, rx) = oneshot::channel();
        self.lock().push((id, tx));
        Waiter {
            outbound: Arc::clone(self),
            id,
            rx: Some(rx),
        }
    }

    /// Hands a response to the request waiting for it; `false` when no
    /// request of this session has that id (a late or unknown response).
    pub(crate) fn resolve(&self, id: &Value, outcome: Outcome) -> bool {
        let Some(id) = id.as_u64() else { return false };
        let sender = {
            let mut list = self.lock();
            list.iter()
                .position(|(k, _)| *k == id)
                .map(|at| list.swap_remove(at).1)
        };
        sender.is_some_and(|tx| tx.send(outcome).is_ok())
    }

    /// Whether a request of this session with that id waits here.
    #[cfg_attr(not(feature = "streamable-http"), allow(dead_code))]
    pub(crate) fn is_waiting(&self, id: &Value) -> bool {
        id.as_u64()
            .is_some_and(|id| self.lock().iter().any(|(k, _)| *k == id))
    }

    /// Numbers this session's requests from a random point (below 2^52,
    /// exact in every JSON reader), so that the replicas a session moves
    /// between never hand out the same id; only before the first request.
    #[cfg_attr(not(feature = "streamable-http"), allow(dead_code))]
    /// An error (and the ids unchanged) when the operating system's
    /// random source fails.
    pub(crate) fn spread_ids(&self) -> Result<(), crate::random::RandomError> {
        let start = (crate::random::u64()? >> 12) & !0xFFFF;
        let _ = self
            .next
            .compare_exchange(0, start, Ordering::Relaxed, Ordering::Relaxed);
        Ok(())
    }

    /// Requests waiting for a response.
    pub(crate) fn waiting(&self) -> usize {
        self.lock().len()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<(u64, oneshot::Sender<Outcome>)>> {
        self.waiting.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// A request sent (or about to be) and waiting for its response; leaves
/// the table when dropped.
pub(crate) struct Waiter {
    outbound: Arc<Outbound>,
    id: u64,
    rx: Option<oneshot::Receiver<Outcome>>,
}

impl Waiter {
    /// The request's JSON-RPC id.
    pub(crate) fn id(&self) -> Value {
        Value::from(self.id)
    }

    /// The response; `None` when the session ended first.
    pub(crate) async fn response(mut self) -> Option<Outcome> {
        let rx = self.rx.take()?;
        rx.await.ok()
    }
}

impl Drop for Waiter {
    fn drop(&mut self) {
        let mut list = self.outbound.lock();
        if let Some(at) = list.iter().position(|(k, _)| *k == self.id) {
            list.swap_remove(at);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[tokio::test]
    async fn a_response_reaches_its_waiter_and_only_once() {
        let out = Arc::new(Outbound::default());
        let first = out.register();
        let second = out.register();
        assert_ne!(first.id(), second.id());
        let second_id = second.id();
        assert!(out.is_waiting(&second_id));
        assert!(out.resolve(&second.id(), Ok(json!({"ok": true}))));
        assert!(!out.resolve(&second.id(), Ok(json!({}))), "answered twice");
        assert_eq!(second.response().await, Some(Ok(json!({"ok": true}))));
        assert!(!out.resolve(&json!("not-an-id"), Ok(json!({}))));
        assert!(!out.is_waiting(&second_id), "answered");
        assert_eq!(out.waiting(), 1);
        drop(first);
        assert_eq!(out.waiting(), 0, "a dropped waiter leaves the table");
    }

    #[test]
    fn spread_ids_start_at_random_points_below_2_pow_52() {
        let (a, b) = (Arc::new(Outbound::default()), Arc::new(Outbound::default()));
        a.spread_ids().unwrap();
        b.spread_ids().unwrap();
        let (ida, idb) = (
            a.register().id().as_u64().unwrap(),
            b.register().id().as_u64().unwrap(),
        );
        assert_ne!(ida, idb);
        assert!(ida < 1 << 52 && idb < 1 << 52);
        a.spread_ids().unwrap();
        assert_eq!(
            a.register().id().as_u64(),
            Some(ida + 1),
            "only before the first request"
        );
    }

    #[test]
    fn spread_ids_fail_without_randomness() {
        let out = Arc::new(Outbound::default());
        assert!(crate::random::fail::with_failing_source(|| out.spread_ids()).is_err());
    }
}
