//! The service's sessions across replicas: a session unknown here is
//! loaded from the session store and followed; its changes, ends and
//! cancellations, messages for GET streams, the client's responses to
//! requests a handler on another replica sent, and the changes the
//! application announces travel between replicas through the store.

use std::sync::atomic::Ordering;
use std::sync::{Arc, Weak};

use serde_json::Value;

use crate::jsonrpc::{self, Incoming};
use crate::server::handler::context::{Principal, Sink};
use crate::server::handler::notifier::Change;
use crate::server::Server;

use super::sessions::Entry;
use super::store::{bounded, AnnouncedTask, SessionEvent, StoredSession};

use super::endpoint::Inner;

/// Changes the application announces on this replica go to the others
/// through the store (each delivers them to its own listeners).
pub(super) fn relay_changes(
    server: &Server,
    store: Arc<dyn super::SessionStore>,
    limit: std::time::Duration,
) {
    let listeners = &server.core.listeners;
    let origin = listeners.origin();
    listeners.set_relay(Box::new(move |change| {
        let task = match change {
            Change::Task { id, owner, task } => Some(AnnouncedTask {
                id: id.clone(),
                owner: owner.clone(),
                task: task.clone(),
            }),
            _ => None,
        };
        let event = SessionEvent::Announced {
            origin,
            method: change.method().to_owned(),
            uri: change.uri().map(str::to_owned),
            task,
        };
        let store = Arc::clone(&store);
        Box::pin(async move {
            if let Err(e) = bounded(limit, store.publish("", &event)).await {
                tracing::warn!(error = %e, "a change was not announced to the other replicas");
            }
        })
    }));
}

/// A sink whose messages go through `store` to the GET stream of session
/// `id` on whichever replica holds it (a bounded queue: a message that
/// finds it full is dropped, as on a full stream).
pub(super) fn relay(
    store: Arc<dyn super::SessionStore>,
    id: String,
    limit: std::time::Duration,
) -> Sink {
    let (tx, mut rx) = tokio::sync::mpsc::channel::<String>(64);
    tokio::spawn(async move {
        while let Some(text) = rx.recv().await {
            let event = SessionEvent::Message { text };
            if let Err(e) = bounded(limit, store.publish(&id, &event)).await {
                tracing::warn!(error = %e, "a task's message was not relayed to the session's stream");
            }
        }
    });
    Sink::new(tx)
}

// Inherent impl away from its type: `Inner` is the service's state
// (`endpoint.rs`); these are its dealings with the session store.
impl Inner {
    /// The live session named by the request (from the store when it is
    /// not here), if its caller may use it.
    pub(super) async fn session(
        &self,
        id: &str,
        principal: Option<&Principal>,
    ) -> Option<Arc<Entry>> {
        let entry = match self.sessions.get(id) {
            Some(entry) => entry,
            None => self.restore(id).await?,
        };
        match &entry.owner {
            Some(owner) if principal.map(|p| &p.subject) != Some(owner) => None,
            _ => {
                self.keep_stored(id, &entry);
                Some(entry)
            }
        }
    }

    /// Loads session `id` of another replica from the store; `None` when
    /// there is no store, no such session, or the store fails.
    pub(super) async fn restore(&self, id: &str) -> Option<Arc<Entry>> {
        let store = self.config.session_store.as_ref()?;
        // Ids this service makes are 32 hex digits; others are not looked up.
        if id.len() > 128 || id.is_empty() {
            return None;
        }
        let stored = match bounded(self.config.store_timeout, store.load(id)).await {
            Ok(found) => found?,
            Err(e) => {
                tracing::warn!(error = %e, "session not loaded: answered as unknown");
                return None;
            }
        };
        let session = self.server.session();
        session.restore(&stored.snapshot);
        if let Err(e) = session.outbound().spread_ids() {
            tracing::error!(error = %e, "session not restored: answered as unknown");
            return None;
        }
        let state = Arc::clone(&session.state);
        let entry = self.sessions.adopt(id, session, stored.owner).ok()?;
        // Unless another request adopted it first.
        if Arc::ptr_eq(&entry.session.state, &state) {
            self.follow(id, &entry);
        }
        Some(entry)
    }

    /// List changes and resource updates go to the session's GET stream
    /// while one is open here (those announced on other replicas reach it
    /// through the store's announcements). Messages of the session's
    /// tasks (2025-11-25 status notifications, requests for input) go to
    /// the GET stream here, or, with a session store and no stream here,
    /// through the store to the replica that holds it.
    pub(super) fn follow(&self, id: &str, entry: &Arc<Entry>) {
        entry.session.set_key(id);
        let stream_of = Arc::downgrade(entry);
        let local = move || {
            let entry = stream_of.upgrade()?;
            let tx = entry
                .stream
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .clone()?;
            Some(Sink::new(tx))
        };
        self.server.listen_with(&entry.session, local.clone());
        let Some(store) = &self.config.session_store else {
            return;
        };
        let relay = relay(Arc::clone(store), id.to_owned(), self.config.store_timeout);
        entry
            .session
            .set_stream(Arc::new(move || local().or_else(|| Some(relay.clone()))));
    }

    /// Restarts the session's expiry in the store (in the background, at
    /// most a few times per idle period); a session the store no longer
    /// has ended elsewhere and ends here too.
    pub(super) fn keep_stored(&self, id: &str, entry: &Entry) {
        let Some(store) = &self.config.session_store else {
            return;
        };
        let every = (self.config.session_idle / 4).min(std::time::Duration::from_secs(5));
        if !entry.store_due(every) {
            return;
        }
        let (store, id, ttl, limit) = (
            Arc::clone(store),
            id.to_owned(),
            self.config.session_idle,
            self.config.store_timeout,
        );
        let entry_session = entry.session.clone();
        let sessions = self.weak_sessions();
        tokio::spawn(async move {
            match bounded(limit, store.touch(&id, ttl)).await {
                Ok(true) => {}
                Ok(false) => {
                    if let Some(inner) = sessions.upgrade() {
                        // Only when it is still the same session.
                        if inner
                            .sessions
                            .peek(&id)
                            .is_some_and(|e| Arc::ptr_eq(&e.session.state, &entry_session.state))
                        {
                            inner.sessions.close(&id);
                        }
                    }
                }
                Err(e) => tracing::warn!(error = %e, "session expiry not restarted in the store"),
            }
        });
    }

    pub(super) fn weak_sessions(&self) -> Weak<Inner> {
        self.me.clone()
    }

    /// Starts listening to the session store's events (once: when the
    /// service is made inside a runtime, else inside the runtime serving
    /// the first request).
    pub(super) fn listen(&self) {
        let Some(store) = &self.config.session_store else {
            return;
        };
        if self.listening.swap(true, Ordering::AcqRel) {
            return;
        }
        let mut events = store.subscribe();
        let (me, shutdown) = (self.me.clone(), self.shutdown.clone());
        tokio::spawn(async move {
            loop {
                let (id, event) = tokio::select! {
                    next = events.recv() => match next {
                        Some(item) => item,
                        None => return,
                    },
                    () = shutdown.cancelled() => return,
                };
                let Some(inner) = me.upgrade() else { return };
                inner.on_event(&id, event);
            }
        });
    }

    /// What another replica said: a change it announced, or something
    /// about session `id` (if the session is here).
    pub(super) fn on_event(&self, id: &str, event: SessionEvent) {
        // An announcement names no session (its id is empty).
        match (event, self.sessions.peek(id)) {
            (
                SessionEvent::Announced {
                    origin,
                    method,
                    uri,
                    task,
                },
                _,
            ) => self.on_announced(origin, &method, uri, task),
            (_, None) => {}
            (SessionEvent::Response { text }, Some(entry)) => {
                if let Incoming::Response { id, outcome } = jsonrpc::parse_full(&text) {
                    // Only the replica where the request waits has it.
                    entry.session.outbound().resolve(&id, outcome);
                }
            }
            (SessionEvent::Cancel { request_id }, Some(entry)) => {
                entry.session.cancel(&request_id);
            }
            (SessionEvent::Message { text }, Some(entry)) => {
                let stream = entry
                    .stream
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .clone();
                if let Some(tx) = stream {
                    if tx.try_send(text).is_err() {
                        tracing::warn!("a message for a session's GET stream was dropped: the stream is full or closed");
                    }
                }
            }
            (SessionEvent::Changed { snapshot }, Some(entry)) => entry.session.restore(&snapshot),
            (SessionEvent::Ended, Some(_)) => {
                self.sessions.close(id);
            }
        }
    }

    /// A change another replica announced, for the listeners here.
    pub(super) fn on_announced(
        &self,
        origin: u64,
        method: &str,
        uri: Option<String>,
        task: Option<AnnouncedTask>,
    ) {
        let listeners = &self.server.core.listeners;
        let change = match task {
            Some(AnnouncedTask { id, owner, task }) => Some(Change::Task { id, owner, task }),
            None => Change::from_method(method, uri),
        };
        match change {
            // A task's changes are queued at once, in the order they came.
            Some(change @ Change::Task { .. }) if origin != listeners.origin() => {
                listeners.try_deliver(&change);
            }
            Some(change) if origin != listeners.origin() => {
                let listeners = Arc::clone(listeners);
                tokio::spawn(async move { listeners.deliver(&change).await });
            }
            Some(_) => {} // announced here, delivered here already
            None => {
                tracing::warn!(method = %method, "a change announced by another replica is not understood")
            }
        }
    }

    /// Writes the session's state to the store (after `initialize` and
    /// every change) and tells the other replicas of a change.
    pub(super) async fn store_session(&self, id: &str, entry: &Entry, changed: bool) {
        let Some(store) = &self.config.session_store else {
            return;
        };
        let Some(snapshot) = entry.session.snapshot() else {
            return;
        };
        let stored = StoredSession {
            snapshot,
            owner: entry.owner.clone(),
        };
        let limit = self.config.store_timeout;
        if let Err(e) = bounded(limit, store.save(id, &stored, self.config.session_idle)).await {
            tracing::warn!(error = %e, "session not stored: other replicas will not know it");
            return;
        }
        if changed {
            let event = SessionEvent::Changed {
                snapshot: stored.snapshot,
            };
            if let Err(e) = bounded(limit, store.publish(id, &event)).await {
                tracing::warn!(error = %e, "session change not published");
            }
        }
    }

    /// `notifications/cancelled`: a request running elsewhere is cancelled
    /// by the replica running it (told through the store).
    pub(super) async fn cancel_anywhere(
        &self,
        id: &str,
        entry: &Entry,
        request_id: Option<&Value>,
    ) {
        let Some(store) = &self.config.session_store else {
            return;
        };
        let Some(request_id) = request_id else { return };
        let key = jsonrpc::json_text(request_id);
        if entry.session.cancel(&key) {
            return; // it runs here
        }
        let event = SessionEvent::Cancel { request_id: key };
        if let Err(e) = bounded(self.config.store_timeout, store.publish(id, &event)).await {
            tracing::warn!(error = %e, "cancellation not published");
        }
    }

    /// The client's response to a request no handler here waits for: the
    /// replica where one does takes it from the store. `false` when it is
    /// for this replica (or there is no store): the engine takes it.
    pub(super) async fn forward_response(
        &self,
        id: &str,
        entry: &Entry,
        request_id: &Value,
        outcome: &crate::server::handler::outbound::Outcome,
    ) -> bool {
        let Some(store) = &self.config.session_store else {
            return false;
        };
        if entry.session.outbound().is_waiting(request_id) {
            return false; // it waits here
        }
        let text = match outcome {
            Ok(result) => {
                serde_json::json!({ "jsonrpc": "2.0", "id": request_id, "result": result })
            }
            Err(error) => serde_json::json!({ "jsonrpc": "2.0", "id": request_id, "error": error }),
        };
        let event = SessionEvent::Response {
            text: jsonrpc::json_text(&text),
        };
        if let Err(e) = bounded(self.config.store_timeout, store.publish(id, &event)).await {
            tracing::warn!(error = %e, "a response for another replica was not published");
        }
        true
    }
}
