//! `subscriptions/listen` (2026-07-28): a long-lived request whose
//! notifications (list changes, resource updates) carry its id as
//! `_meta["io.modelcontextprotocol/subscriptionId"]`.
//! [`Client::listen`](super::Client::listen) sends it and waits for the
//! server's acknowledgment; the [`Subscription`] then yields the notifications until the server ends it
//! (its response), the connection closes, or it is dropped (which cancels
//! the request: `notifications/cancelled`, and over HTTP its stream is
//! closed).

use std::sync::Arc;

use serde_json::{json, Value};
use tokio::sync::{mpsc, oneshot};

use super::engine::{Reply, ServerNotification, Shared};
use super::error::ClientError;
use crate::revision::method::Method;

/// Notifications a subscription holds before the application reads them;
/// more are dropped (with a warning) rather than buffered without bound.
const QUEUE: usize = 256;

/// The acknowledgment the server sends first on a subscription.
const ACKNOWLEDGED: &str = Method::Acknowledged.name();

/// An open `subscriptions/listen` stream.
pub struct Subscription {
    shared: Arc<Shared>,
    id: i64,
    acknowledged: Value,
    events: mpsc::Receiver<ServerNotification>,
    ended: Option<oneshot::Receiver<Reply>>,
}

/// Sends `subscriptions/listen` with `filter` and waits, within the default
/// timeout, for the server's acknowledgment
/// ([`Client::listen`](super::Client::listen)).
pub(super) async fn listen(
    shared: &Arc<Shared>,
    filter: Value,
) -> Result<Subscription, ClientError> {
    let (tx, mut events) = mpsc::channel(QUEUE);
    let (id, mut ended) = shared.start(
        Method::Listen.name(),
        Some(json!({ "notifications": filter })),
        None,
        Some(tx),
    )?;
    let mut subscription = Subscription {
        shared: Arc::clone(shared),
        id,
        acknowledged: Value::Null,
        events: mpsc::channel(1).1,
        ended: None,
    };
    let after = shared.options.default_timeout;
    // The acknowledgment, or the request's end (its answer says why).
    let first = tokio::time::timeout(after, async {
        tokio::select! {
            biased;
            event = events.recv() => event.ok_or(None),
            reply = &mut ended => Err(Some(reply)),
        }
    });
    match first.await {
        Ok(Ok(event)) if event.method == ACKNOWLEDGED => {
            subscription.acknowledged = event
                .params
                .get("notifications")
                .cloned()
                .unwrap_or(Value::Null);
            subscription.events = events;
            subscription.ended = Some(ended);
            Ok(subscription)
        }
        Ok(Ok(event)) => Err(ClientError::unexpected(format!(
            "subscriptions/listen: the server sent {} before {ACKNOWLEDGED}",
            event.method
        ))),
        Ok(Err(reply)) => {
            let reply = match reply {
                Some(reply) => reply,
                None => ended.await,
            };
            Err(match reply {
                Ok(Err(e)) => e,
                Ok(Ok(_)) => ClientError::unexpected(format!(
                    "subscriptions/listen: the server ended the subscription before {ACKNOWLEDGED}"
                )),
                Err(_) => shared.closed_error(),
            })
        }
        Err(_) => Err(ClientError::Timeout {
            method: Method::Listen.name().into(),
            id,
            after,
        }),
    }
}

impl std::fmt::Debug for Subscription {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Subscription")
            .field("id", &self.id)
            .field("acknowledged", &self.acknowledged)
            .finish_non_exhaustive()
    }
}

impl Subscription {
    /// The request id, which the server's notifications carry.
    pub fn id(&self) -> i64 {
        self.id
    }

    /// The filter the server agreed to honour (its acknowledgment).
    pub fn acknowledged(&self) -> &Value {
        &self.acknowledged
    }

    /// The next notification; `None` once the subscription has ended (the
    /// server answered the request, or the connection closed).
    pub async fn next(&mut self) -> Option<ServerNotification> {
        self.events.recv().await
    }

    /// How the subscription ended, once [`Subscription::next`] has said
    /// `None`: the server's result (a graceful end) or the error.
    pub async fn end(mut self) -> Result<Value, ClientError> {
        let ended = self.ended.take();
        match ended {
            Some(ended) => ended
                .await
                .unwrap_or_else(|_| Err(self.shared.closed_error())),
            None => Err(ClientError::unexpected("the subscription was never opened")),
        }
    }
}

impl Drop for Subscription {
    fn drop(&mut self) {
        // Still open: the request is cancelled (over HTTP its stream closes).
        self.shared.abandon(self.id, "the subscription was dropped");
    }
}
