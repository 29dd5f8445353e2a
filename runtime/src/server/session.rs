//! One client's state on a server: the era it speaks (fixed by its first
//! request on a connection), the identity negotiated by `initialize`, its
//! log level, its requests in flight (for `notifications/cancelled`) and
//! its share of the call slots, and its stream for messages outside
//! requests (what a 2025-11-25 task sends after its call was answered).
//!
//! A stdio connection is one session; a stateful Streamable HTTP session
//! (`MCP-Session-Id`) is one session; a stateless HTTP request gets a fresh
//! one. The parts another replica needs to continue a stateful session are
//! a [`SessionSnapshot`].

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock, RwLock};

use serde::{Deserialize, Serialize};
use serde_json::Value;
use tokio::sync::Semaphore;

use crate::revision::Era;
use crate::server::handler::cancel::CancellationToken;
use crate::server::handler::context::ClientIdentity;
use crate::server::handler::outbound::Outbound;
use crate::server::handler::sink::StreamOf;

use crate::server::request::scope::CachedScope;

/// One client's state; cheap to clone (clones share it).
#[derive(Clone)]
pub struct Session {
    pub(crate) state: Arc<State>,
}

pub(crate) struct State {
    pub(crate) era: Mutex<Option<Era>>,
    /// The identity from `initialize`, with its revision as requests
    /// carry it (so it is not copied per request).
    pub(crate) identity: RwLock<Option<(Arc<ClientIdentity>, Arc<str>)>>,
    pub(crate) log_level: Mutex<Option<String>>,
    /// Resource URIs the client subscribed to (`resources/subscribe`).
    pub(crate) subscriptions: Mutex<std::collections::BTreeSet<String>>,
    /// Requests in flight: a short list (at most the call slots plus the
    /// queue), searched by id without hashing.
    pub(crate) inflight: Mutex<Vec<(IdKey, CancellationToken)>>,
    pub(crate) slots: Arc<Semaphore>,
    pub(crate) queued: AtomicUsize,
    /// The scope of the last modern request, under its `_meta` text.
    pub(crate) scope_cache: Mutex<Option<Arc<CachedScope>>>,
    /// Requests sent to the client, waiting for their responses: made
    /// when first needed (a stateless request's session never sends any).
    pub(crate) outbound: OnceLock<Arc<Outbound>>,
    /// Finds the session's stream for messages outside requests (the
    /// connection over stdio, the GET stream over HTTP), as its driver
    /// set it with `Server::listen`.
    pub(crate) stream: Mutex<Option<StreamOf>>,
    /// What names the session in shared state (rate-limit buckets): the
    /// HTTP session id, or a random one drawn when first asked.
    pub(crate) key: OnceLock<Arc<str>>,
}

/// What a stateful session needs to continue elsewhere (another replica,
/// after a restart): stored by a session store under the session id.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SessionSnapshot {
    /// The negotiated revision.
    pub protocol_version: String,
    /// `clientInfo` from `initialize`.
    pub client_info: Value,
    /// The client's capabilities from `initialize`.
    pub capabilities: Value,
    /// The level set with `logging/setLevel`, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub log_level: Option<String>,
    /// The resource URIs subscribed to with `resources/subscribe`, sorted.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub subscriptions: Vec<String>,
}

impl std::fmt::Debug for Session {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Session")
            .field("era", &self.era())
            .field("identity", &self.identity())
            .field("in_flight", &self.in_flight())
            .finish()
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl Session {
    pub(crate) fn new(max_concurrent_calls: usize) -> Self {
        Self {
            state: Arc::new(State {
                era: Mutex::new(None),
                identity: RwLock::new(None),
                log_level: Mutex::new(None),
                subscriptions: Mutex::new(std::collections::BTreeSet::new()),
                inflight: Mutex::new(Vec::new()),
                slots: Arc::new(Semaphore::new(max_concurrent_calls.max(1))),
                queued: AtomicUsize::new(0),
                scope_cache: Mutex::new(None),
                outbound: OnceLock::new(),
                stream: Mutex::new(None),
                key: OnceLock::new(),
            }),
        }
    }

    /// The era this session speaks, once its first request fixed it.
    pub fn era(&self) -> Option<Era> {
        *lock(&self.state.era)
    }

    /// Fixes the era if it is not fixed yet; returns the era in force.
    pub(crate) fn fix_era(&self, era: Era) -> Era {
        *lock(&self.state.era).get_or_insert(era)
    }

    /// The client as `initialize` described it (stateful era).
    pub fn identity(&self) -> Option<Arc<ClientIdentity>> {
        self.state
            .identity
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .as_ref()
            .map(|(c, _)| Arc::clone(c))
    }

    /// The identity and its protocol revision.
    pub(crate) fn identity_and_version(&self) -> Option<(Arc<ClientIdentity>, Arc<str>)> {
        self.state
            .identity
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    pub(crate) fn set_identity(&self, identity: ClientIdentity) {
        let version: Arc<str> = identity.protocol_version.as_str().into();
        *self
            .state
            .identity
            .write()
            .unwrap_or_else(|p| p.into_inner()) = Some((Arc::new(identity), version));
    }

    /// The level set with `logging/setLevel`.
    pub fn log_level(&self) -> Option<String> {
        lock(&self.state.log_level).clone()
    }

    /// Sets the session's log level.
    pub fn set_log_level(&self, level: Option<String>) {
        *lock(&self.state.log_level) = level;
    }

    /// Subscribes the session to updates of resource `uri`; `false` when
    /// it already was.
    pub fn subscribe(&self, uri: &str) -> bool {
        lock(&self.state.subscriptions).insert(uri.to_owned())
    }

    /// Ends the subscription to `uri`; `false` when there was none.
    pub fn unsubscribe(&self, uri: &str) -> bool {
        lock(&self.state.subscriptions).remove(uri)
    }

    /// Whether the session is subscribed to `uri`.
    pub fn is_subscribed(&self, uri: &str) -> bool {
        lock(&self.state.subscriptions).contains(uri)
    }

    /// The resource URIs the session is subscribed to, sorted.
    pub fn subscriptions(&self) -> Vec<String> {
        lock(&self.state.subscriptions).iter().cloned().collect()
    }

    /// The session's requests to its client.
    pub(crate) fn outbound(&self) -> &Arc<Outbound> {
        self.state.outbound.get_or_init(Arc::default)
    }

    /// Sets how the session's stream for messages outside requests is found.
    pub(crate) fn set_stream(&self, stream: StreamOf) {
        *lock(&self.state.stream) = Some(stream);
    }

    /// Names the session by `id` (its HTTP session id) in shared state;
    /// the first name given stays.
    #[cfg_attr(not(feature = "streamable-http"), allow(dead_code))]
    pub(crate) fn set_key(&self, id: &str) {
        let _ = self.state.key.set(Arc::from(id));
    }

    /// The session's name in shared state: the one given, or a random
    /// one; `None` when the random source fails.
    pub(crate) fn key(&self) -> Option<Arc<str>> {
        if let Some(key) = self.state.key.get() {
            return Some(Arc::clone(key));
        }
        let drawn = crate::random::u64().ok()?;
        let drawn: Arc<str> = Arc::from(format!("local-{drawn:016x}"));
        Some(Arc::clone(self.state.key.get_or_init(|| drawn)))
    }

    /// How the session's stream for messages outside requests is found,
    /// once its driver gave it one.
    pub(crate) fn stream_of(&self) -> Option<StreamOf> {
        lock(&self.state.stream).clone()
    }

    /// Requests this session sent to its client that wait for a response.
    pub fn awaiting_client(&self) -> usize {
        self.state.outbound.get().map_or(0, |o| o.waiting())
    }

    /// Requests of this session in flight.
    pub fn in_flight(&self) -> usize {
        lock(&self.state.inflight).len()
    }

    /// Cancels every request in flight (e.g. when the connection or the
    /// HTTP session ends).
    pub fn cancel_all(&self) {
        for (_, token) in lock(&self.state.inflight).iter() {
            token.cancel();
        }
    }

    /// Cancels the request whose id has the JSON text `key`; `false` when
    /// no such request is in flight.
    pub fn cancel(&self, key: &str) -> bool {
        match serde_json::from_str::<Value>(key) {
            Ok(id) => self.cancel_id(&IdKey::of(&id)),
            Err(_) => false,
        }
    }

    /// Cancels the request with id `key`; `false` when no such request is
    /// in flight.
    pub(crate) fn cancel_id(&self, key: &IdKey) -> bool {
        match lock(&self.state.inflight).iter().find(|(k, _)| k == key) {
            Some((_, token)) => {
                token.cancel();
                true
            }
            None => false,
        }
    }

    /// What another replica needs to continue this session; `None` before
    /// `initialize`.
    pub fn snapshot(&self) -> Option<SessionSnapshot> {
        let identity = self.identity()?;
        Some(SessionSnapshot {
            protocol_version: identity.protocol_version.clone(),
            client_info: identity.info.clone(),
            capabilities: identity.capabilities.clone(),
            log_level: self.log_level(),
            subscriptions: self.subscriptions(),
        })
    }

    /// Restores the state of a snapshot into this session (a fresh one, or
    /// one whose state another replica changed: requests in flight stay).
    pub fn restore(&self, snapshot: &SessionSnapshot) {
        self.fix_era(Era::Stateful);
        self.set_identity(ClientIdentity {
            info: snapshot.client_info.clone(),
            protocol_version: snapshot.protocol_version.clone(),
            capabilities: snapshot.capabilities.clone(),
        });
        self.set_log_level(snapshot.log_level.clone());
        *lock(&self.state.subscriptions) = snapshot.subscriptions.iter().cloned().collect();
    }

    /// Registers a request in flight under `key`; `None` when the key is
    /// taken by a running request.
    pub(crate) fn register(&self, key: IdKey) -> Option<InFlight> {
        let mut list = lock(&self.state.inflight);
        if list.iter().any(|(k, _)| *k == key) {
            return None;
        }
        let token = CancellationToken::new();
        list.push((key.clone(), token.clone()));
        drop(list);
        Some(InFlight {
            session: self.clone(),
            key,
            token,
        })
    }

    /// The scope kept by [`Session::cache_scope`].
    pub(crate) fn cached_scope(&self) -> Option<Arc<CachedScope>> {
        lock(&self.state.scope_cache).clone()
    }

    /// Keeps the scope of a modern request (replacing the one kept).
    pub(crate) fn cache_scope(&self, scope: Arc<CachedScope>) {
        *lock(&self.state.scope_cache) = Some(scope);
    }

    /// Counts a call waiting for a slot; `None` when `limit` are waiting.
    pub(crate) fn enqueue(&self, limit: usize) -> Option<Queued> {
        let before = self.state.queued.fetch_add(1, Ordering::AcqRel);
        if before >= limit {
            self.state.queued.fetch_sub(1, Ordering::AcqRel);
            return None;
        }
        Some(Queued {
            session: self.clone(),
        })
    }
}

/// A request id as the in-flight list keeps it: two keys are equal
/// exactly when the ids' JSON texts are (without building the text for
/// the ids JSON-RPC allows: strings and integers).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum IdKey {
    /// An integer id (`i64` or `u64`).
    Int(i128),
    /// A string id.
    Str(String),
    /// Any other value, by its JSON text.
    Text(String),
}

impl IdKey {
    /// The key of an id.
    pub(crate) fn of(id: &Value) -> Self {
        match id {
            Value::String(s) => IdKey::Str(s.clone()),
            Value::Number(n) => match (n.as_u64(), n.as_i64()) {
                (Some(u), _) => IdKey::Int(i128::from(u)),
                (None, Some(i)) => IdKey::Int(i128::from(i)),
                (None, None) => IdKey::Text(n.to_string()),
            },
            other => IdKey::Text(crate::jsonrpc::json_text(other)),
        }
    }
}

impl std::fmt::Display for IdKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            IdKey::Int(n) => write!(f, "{n}"),
            IdKey::Str(s) => write!(f, "{}", Value::String(s.clone())),
            IdKey::Text(t) => f.write_str(t),
        }
    }
}

/// A request registered in flight; unregistered when dropped (finished,
/// cancelled, or abandoned by its transport).
pub(crate) struct InFlight {
    session: Session,
    key: IdKey,
    pub(crate) token: CancellationToken,
}

impl Drop for InFlight {
    fn drop(&mut self) {
        let mut list = lock(&self.session.state.inflight);
        if let Some(at) = list.iter().rposition(|(k, _)| *k == self.key) {
            list.swap_remove(at);
        }
    }
}

/// A call counted as waiting or running; uncounted when dropped.
pub(crate) struct Queued {
    session: Session,
}

impl Queued {
    pub(crate) fn slots(&self) -> Arc<Semaphore> {
        Arc::clone(&self.session.state.slots)
    }
}

impl Drop for Queued {
    fn drop(&mut self) {
        self.session.state.queued.fetch_sub(1, Ordering::AcqRel);
    }
}
