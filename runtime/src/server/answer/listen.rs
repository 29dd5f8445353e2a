//! The server's side of run-time change notifications (see
//! [`crate::server::handler::notifier`]): the listener that gives a stateful session's
//! stream what changed (for [`crate::server::Server::listen`]), and
//! `subscriptions/listen` (stateless era).

use std::sync::Arc;

use serde_json::{json, Value};

use crate::jsonrpc::{self, RpcError};
use crate::revision::method::Method;
use crate::revision::{meta, Era};
use crate::server::handler::context::Sink;
use crate::server::handler::notifier::{Change, Filter, Listener, Listeners, Takes};

use crate::server::request::handled::{Handled, Pending};
use crate::server::request::reply::Reply;
use crate::server::session::{IdKey, Session};

/// [`crate::server::Server::listen`] with the stream looked up when a notification
/// goes out (`None`: no stream open now).
/// The session keeps the lookup too, for its tasks' messages.
pub(in crate::server) fn listen_with(
    listeners: &Listeners,
    session: &Session,
    stream: impl Fn() -> Option<Sink> + Send + Sync + 'static,
) {
    let stream: crate::server::handler::sink::StreamOf = Arc::new(stream);
    session.set_stream(Arc::clone(&stream));
    let state = Arc::downgrade(&session.state);
    let takes = move |change: &Change| {
        let Some(state) = state.upgrade() else {
            return Takes::Gone;
        };
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
    listeners.add(Listener::Session(Box::new(takes)));
}

/// `subscriptions/listen` (stateless era): acknowledges the filter on
/// the request's stream, then keeps the request open, sending what the
/// filter asked for, until the client cancels it or the stream closes.
pub(in crate::server) fn subscriptions_listen(
    listeners: &Arc<Listeners>,
    has_tasks: bool,
    session: &Session,
    id: Value,
    params: Option<&Value>,
    sink: &Sink,
    owner: String,
) -> Handled {
    let filter = match Filter::parse(params) {
        Ok(filter) => filter.for_owner(owner, has_tasks),
        Err(error) => return Handled::Reply(Reply::error(&id, &error)),
    };
    let Some(inflight) = session.register(IdKey::of(&id)) else {
        let error = RpcError::invalid_request(
            "request id is already in use by a running request; use a new id",
        );
        return Handled::Reply(Reply::error(&id, &error));
    };
    let listeners = Arc::clone(listeners);
    let sink = sink.clone();
    Handled::Pending(Pending::boxed(async move {
        let ack =
            json!({ "_meta": { meta::SUBSCRIPTION_ID: id }, "notifications": filter.to_value() });
        let ack = jsonrpc::notification(Method::Acknowledged.name(), &ack);
        let token = inflight.token.clone();
        // The acknowledgment is queued before anything for the stream can be.
        let listener = Listener::Stream {
            id: id.clone(),
            filter,
            sink: sink.clone(),
            token: token.clone(),
        };
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
