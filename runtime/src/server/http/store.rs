//! [`SessionStore`]: where stateful-era sessions live beyond one replica.
//! The HTTP service keeps its live sessions in a local table; with a store
//! configured it also writes what a session needs to continue elsewhere
//! (a [`StoredSession`]: the [`SessionSnapshot`] and the owner) under the
//! session id with the idle expiry as time-to-live, looks unknown ids up
//! there, and exchanges [`SessionEvent`]s with the other replicas
//! (cancellations, messages for a GET stream, the client's responses to
//! requests a handler elsewhere sent, state changes, ends, and changes
//! of the server's lists and resources).
//!
//! [`MemoryStore`] shares sessions between services of one process; the
//! Redis store (feature `redis`) between processes and machines.

use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use serde_json::Value;
use tokio::sync::{broadcast, mpsc};

use crate::server::SessionSnapshot;

/// A store operation in progress.
pub type StoreFuture<'a, T> = Pin<Box<dyn Future<Output = Result<T, StoreError>> + Send + 'a>>;

/// Why a store operation failed (unreachable, timed out, bad data).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoreError(pub String);

impl std::fmt::Display for StoreError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "session store: {}", self.0)
    }
}

impl std::error::Error for StoreError {}

/// What is stored under a session id.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StoredSession {
    /// The session's state.
    #[serde(flatten)]
    pub snapshot: SessionSnapshot,
    /// The authenticated subject the session belongs to, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub owner: Option<String>,
}

/// What one replica tells the others about a session.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum SessionEvent {
    /// `notifications/cancelled` for a request another replica may be
    /// running; `request_id` is the id's JSON text.
    Cancel {
        /// The cancelled request's id as JSON text.
        request_id: String,
    },
    /// A server-initiated message for the replica holding the GET stream.
    Message {
        /// The JSON-RPC message's text.
        text: String,
    },
    /// The client's response to a request a handler sent (sampling,
    /// elicitation, roots), for the replica where that handler waits.
    Response {
        /// The JSON-RPC response's text.
        text: String,
    },
    /// A change of the server's lists or of a resource announced on one
    /// replica, for the listeners of every other one; published under
    /// the empty session id (it belongs to no session).
    Announced {
        /// The announcing server's tag (it skips its own).
        origin: u64,
        /// The notification's method, e.g. `notifications/tools/list_changed`.
        method: String,
        /// The resource of `notifications/resources/updated`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        uri: Option<String>,
        /// The task of `notifications/tasks` (the tasks extension,
        /// 2026-07-28), for the owner's listening requests on every replica.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        task: Option<AnnouncedTask>,
    },
    /// The session's state changed (log level, subscriptions).
    Changed {
        /// The new state.
        snapshot: SessionSnapshot,
    },
    /// The session ended (`DELETE`): every replica drops it.
    Ended,
}

/// A task's change of status, as replicas announce it to each other.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AnnouncedTask {
    /// The task's id.
    pub id: String,
    /// The principal that owns it (only its requests hear of it).
    pub owner: String,
    /// The detailed task, as `tasks/get` gives it.
    pub task: Value,
}

/// Events of every session, as `(session id, event)`.
pub type Events = mpsc::Receiver<(String, SessionEvent)>;

/// Stores stateful sessions for every replica and carries events between
/// them. Implementations bound every operation in time: the service
/// answers 404 for a session it cannot load, never waits for ever.
pub trait SessionStore: Send + Sync + 'static {
    /// The session stored under `id`, `None` when there is none (or it
    /// expired).
    fn load<'a>(&'a self, id: &'a str) -> StoreFuture<'a, Option<StoredSession>>;

    /// Stores `session` under `id`, expiring after `ttl` unless touched.
    fn save<'a>(
        &'a self,
        id: &'a str,
        session: &'a StoredSession,
        ttl: Duration,
    ) -> StoreFuture<'a, ()>;

    /// Restarts the expiry of `id`; `false` when it is not stored.
    fn touch<'a>(&'a self, id: &'a str, ttl: Duration) -> StoreFuture<'a, bool>;

    /// Removes `id`.
    fn remove<'a>(&'a self, id: &'a str) -> StoreFuture<'a, ()>;

    /// Sends `event` about session `id` to every replica (this one too).
    fn publish<'a>(&'a self, id: &'a str, event: &'a SessionEvent) -> StoreFuture<'a, ()>;

    /// The events every replica publishes, from now on (called once per
    /// service, inside a Tokio runtime). Delivery is best effort: a store
    /// that loses its connection resubscribes and misses what was sent
    /// meanwhile.
    fn subscribe(&self) -> Events;
}

/// Runs a store operation with a time limit.
pub(crate) async fn bounded<T>(
    limit: Duration,
    op: impl Future<Output = Result<T, StoreError>>,
) -> Result<T, StoreError> {
    match tokio::time::timeout(limit, op).await {
        Ok(result) => result,
        Err(_) => Err(StoreError(format!(
            "no answer within {} ms",
            limit.as_millis()
        ))),
    }
}

/// Sessions in this process's memory, shared by every service given the
/// same store (clones share it); expiry as the stores of other processes.
#[derive(Clone)]
pub struct MemoryStore {
    inner: std::sync::Arc<Memory>,
}

struct Memory {
    map: Mutex<HashMap<String, (StoredSession, Instant)>>,
    events: broadcast::Sender<(String, SessionEvent)>,
}

impl Default for MemoryStore {
    fn default() -> Self {
        Self::new()
    }
}

impl std::fmt::Debug for MemoryStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MemoryStore")
            .field("sessions", &self.lock().len())
            .finish()
    }
}

impl MemoryStore {
    /// An empty store.
    pub fn new() -> Self {
        let (events, _) = broadcast::channel(1024);
        Self {
            inner: std::sync::Arc::new(Memory {
                map: Mutex::new(HashMap::new()),
                events,
            }),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, (StoredSession, Instant)>> {
        self.inner.map.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn live<'a>(
        map: &'a mut HashMap<String, (StoredSession, Instant)>,
        id: &str,
    ) -> Option<&'a mut (StoredSession, Instant)> {
        if map
            .get(id)
            .is_some_and(|(_, deadline)| *deadline <= Instant::now())
        {
            map.remove(id);
        }
        map.get_mut(id)
    }
}

impl SessionStore for MemoryStore {
    fn load<'a>(&'a self, id: &'a str) -> StoreFuture<'a, Option<StoredSession>> {
        let found = Self::live(&mut self.lock(), id).map(|(s, _)| s.clone());
        Box::pin(async move { Ok(found) })
    }

    fn save<'a>(
        &'a self,
        id: &'a str,
        session: &'a StoredSession,
        ttl: Duration,
    ) -> StoreFuture<'a, ()> {
        self.lock()
            .insert(id.to_owned(), (session.clone(), Instant::now() + ttl));
        Box::pin(async { Ok(()) })
    }

    fn touch<'a>(&'a self, id: &'a str, ttl: Duration) -> StoreFuture<'a, bool> {
        let found = match Self::live(&mut self.lock(), id) {
            Some(entry) => {
                entry.1 = Instant::now() + ttl;
                true
            }
            None => false,
        };
        Box::pin(async move { Ok(found) })
    }

    fn remove<'a>(&'a self, id: &'a str) -> StoreFuture<'a, ()> {
        self.lock().remove(id);
        Box::pin(async { Ok(()) })
    }

    fn publish<'a>(&'a self, id: &'a str, event: &'a SessionEvent) -> StoreFuture<'a, ()> {
        // No subscriber is not an error: no replica holds anything.
        let _ = self.inner.events.send((id.to_owned(), event.clone()));
        Box::pin(async { Ok(()) })
    }

    fn subscribe(&self) -> Events {
        let mut source = self.inner.events.subscribe();
        let (tx, rx) = mpsc::channel(256);
        tokio::spawn(async move {
            loop {
                match source.recv().await {
                    Ok(item) => {
                        if tx.send(item).await.is_err() {
                            return;
                        }
                    }
                    Err(broadcast::error::RecvError::Lagged(missed)) => {
                        tracing::warn!(missed, "session events dropped: a replica fell behind");
                    }
                    Err(broadcast::error::RecvError::Closed) => return,
                }
            }
        });
        rx
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stored() -> StoredSession {
        StoredSession {
            snapshot: SessionSnapshot {
                protocol_version: "2025-11-25".into(),
                client_info: serde_json::json!({"name": "c", "version": "1"}),
                capabilities: serde_json::json!({}),
                log_level: Some("info".into()),
                subscriptions: vec!["file:///a".into()],
            },
            owner: None,
        }
    }

    #[tokio::test]
    async fn memory_store_saves_expires_and_carries_events() {
        let store = MemoryStore::new();
        let mut events = store.subscribe();
        store
            .save("a", &stored(), Duration::from_millis(40))
            .await
            .unwrap();
        assert_eq!(store.load("a").await.unwrap(), Some(stored()));
        assert!(store.touch("a", Duration::from_millis(40)).await.unwrap());
        tokio::time::sleep(Duration::from_millis(80)).await;
        assert_eq!(store.load("a").await.unwrap(), None, "expired");
        assert!(!store.touch("a", Duration::from_secs(1)).await.unwrap());
        store.publish("a", &SessionEvent::Ended).await.unwrap();
        assert_eq!(
            events.recv().await,
            Some(("a".to_owned(), SessionEvent::Ended))
        );
    }

    #[test]
    fn stored_sessions_and_events_are_plain_json() {
        let text = serde_json::to_string(&stored()).unwrap();
        assert!(
            text.contains(r#""protocol_version":"2025-11-25""#),
            "{text}"
        );
        assert_eq!(
            serde_json::from_str::<StoredSession>(&text).unwrap(),
            stored()
        );
        for event in [
            SessionEvent::Cancel {
                request_id: "7".into(),
            },
            SessionEvent::Response {
                text: r#"{"jsonrpc":"2.0","id":9,"result":{}}"#.into(),
            },
            SessionEvent::Announced {
                origin: u64::MAX,
                method: "notifications/resources/updated".into(),
                uri: Some("file:///a".into()),
                task: None,
            },
            SessionEvent::Announced {
                origin: 7,
                method: "notifications/tasks".into(),
                uri: None,
                task: Some(AnnouncedTask {
                    id: "t1".into(),
                    owner: "alice".into(),
                    task: serde_json::json!({"taskId": "t1", "status": "working"}),
                }),
            },
        ] {
            let text = serde_json::to_string(&event).unwrap();
            assert_eq!(
                serde_json::from_str::<SessionEvent>(&text).unwrap(),
                event,
                "{text}"
            );
        }
    }
}
