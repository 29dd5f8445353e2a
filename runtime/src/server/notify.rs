//! The server's side of run-time change notifications (see
//! [`crate::notifier`]): [`Server::notifier`], [`Server::listen`] for
//! drivers, and `subscriptions/listen` (stateless era).

use std::sync::Arc;

use serde_json::{json, Value};

use crate::context::Sink;
use crate::jsonrpc::{self, RpcError};
use crate::notifier::{Change, Filter, Listener, Notifier, Takes};
use crate::revision::{meta, Era};

use super::engine::{Handled, Pending, Server};
use super::reply::Reply;
use super::session::{IdKey, Session};

impl Server {
    /// The handle that announces run-time changes of this server's lists
    /// and resources.
    pub fn notifier(&self) -> Notifier {
        Notifier::new(Arc::clone(&self.core.listeners))
    }

    /// Gives a stateful session a stream for messages outside requests
    /// (list changes, resource updates): a driver calls this with the
    /// connection (stdio) or the session's GET stream (HTTP).
    ///
    /// The listener holds the sink weakly: notifications reach it while the
    /// driver keeps its own `Sink` (and so the channel) alive, and never
    /// keep a finished connection's channel open.
    pub fn listen(&self, session: &Session, sink: &Sink) {
        let weak = sink.downgrade();
        self.listen_with(session, move || weak.upgrade().filter(Sink::is_connected));
    }

    /// [`Server::listen`] with the stream looked up when a notification
    /// goes out (`None`: no stream open now).
    /// The session keeps the lookup too, for its tasks' messages.
    pub(crate) fn listen_with(&self, session: &Session, stream: impl Fn() -> Option<Sink> + Send + Sync + 'static) {
        let stream: crate::sink::StreamOf = Arc::new(stream);
        session.set_stream(Arc::clone(&stream));
        let state = Arc::downgrade(&session.state);
        let takes = move |change: &Change| {
            let Some(state) = state.upgrade() else { return Takes::Gone };
            let session = Session { state };
            // Only initialized stateful sessions; an update only for a
            // subscribed URI.
            let subscribed = match change {
                Change::Updated(uri) => session.is_subscribed(uri),
                // A 2025-11-25 task tells its own session (`tasks::TaskLink`).
                Change::Task { .. } => false,
                _ => true,
            };
            if session.era() != Some(Era::Stateful) || session.identity().is_none() || !subscribed {
                return Takes::No;
            }
            stream().map_or(Takes::No, Takes::Yes)
        };
        self.core.listeners.add(Listener::Session(Box::new(takes)));
    }

    /// `subscriptions/listen` (stateless era): acknowledges the filter on
    /// the request's stream, then keeps the request open, sending what the
    /// filter asked for, until the client cancels it or the stream closes.
    pub(crate) fn subscriptions_listen(&self, session: &Session, id: Value, params: Option<&Value>, sink: &Sink, owner: String) -> Handled {
        let filter = match Filter::parse(params) {
            Ok(filter) => filter.for_owner(owner, self.core.tasks.is_some()),
            Err(error) => return Handled::Reply(Reply::error(&id, &error)),
        };
        let Some(inflight) = session.register(IdKey::of(&id)) else {
            let error = RpcError::invalid_request("request id is already in use by a running request; use a new id");
            return Handled::Reply(Reply::error(&id, &error));
        };
        let listeners = Arc::clone(&self.core.listeners);
        let sink = sink.clone();
        Handled::Pending(Pending::boxed(async move {
            let ack = json!({ "_meta": { meta::SUBSCRIPTION_ID: id }, "notifications": filter.to_value() });
            let ack = jsonrpc::notification("notifications/subscriptions/acknowledged", &ack);
            let token = inflight.token.clone();
            // The acknowledgment is queued before anything for the stream can be.
            let listener = Listener::Stream { id: id.clone(), filter, sink: sink.clone(), token: token.clone() };
            if !listeners.add_after(ack, &sink, listener) {
                return None;
            }
            tokio::select! {
                _ = token.cancelled() => {}
                _ = sink.closed() => {}
            }
            listeners.remove_stream(&id);
            drop(inflight);
            None
        }))
    }
}
