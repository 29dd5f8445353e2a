//! Notifications the application sends when its lists or resources change
//! at run time: [`Notifier`], a handle it keeps (from
//! `Server::notifier` or a handler's `RequestContext::notifier`), with
//! `notifications/{tools,prompts,resources}/list_changed` and
//! `notifications/resources/updated`, and the table of who listens.
//!
//! Who hears them: stateful sessions whose driver gave them a stream for
//! messages outside requests (the stdio connection, the HTTP GET stream),
//! `resources/updated` only for URIs the session subscribed to with
//! `resources/subscribe`; and, in the stateless era, open
//! `subscriptions/listen` requests, each for what its filter asked for,
//! tagged with its subscription id (`basic/patterns/subscriptions.mdx`);
//! there also the `notifications/tasks` of the tasks extension (SEP-2663),
//! for the task ids a request's filter names (`taskIds`) and only to the
//! task's owner, on every replica like the others.
//! It knows nothing of sessions: the server decides per session through
//! a filter it registers.
//!
//! Replicas: an HTTP service with a session store sets a `Relay` that
//! hands every change announced here to the other replicas (tagged with
//! this server's `Listeners::origin`); each of them delivers it to its
//! own listeners with `Listeners::deliver`, so a change announced on one
//! replica reaches the GET streams and `subscriptions/listen` requests
//! held by every replica, once.

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex, OnceLock};

use serde_json::{json, Map, Value};

use crate::jsonrpc::{self, RpcError};
use crate::revision::meta;
use crate::revision::method::Method;
use crate::server::handler::cancel::CancellationToken;
use crate::server::handler::sink::Sink;

/// A change the application announces.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Change {
    /// The tool list.
    Tools,
    /// The prompt list.
    Prompts,
    /// The resource list.
    Resources,
    /// One resource, by URI.
    Updated(String),
    /// A task's status (2026-07-28 tasks extension): its id, its owner and
    /// the detailed task, as `tasks/get` gives it.
    Task {
        /// The task's id.
        id: String,
        /// Who may hear of it.
        owner: String,
        /// The notification's params.
        task: Value,
    },
}

impl Change {
    /// The change named by its notification's method (and the URI of a
    /// resource update), as another replica announced it.
    #[cfg_attr(not(feature = "streamable-http"), allow(dead_code))]
    pub(crate) fn from_method(method: &str, uri: Option<String>) -> Option<Self> {
        Some(match (Method::of(method)?, uri) {
            (Method::ToolsChanged, _) => Change::Tools,
            (Method::PromptsChanged, _) => Change::Prompts,
            (Method::ResourcesChanged, _) => Change::Resources,
            (Method::ResourceUpdated, Some(uri)) => Change::Updated(uri),
            _ => return None,
        })
    }

    /// The resource URI of an update.
    #[cfg_attr(not(feature = "streamable-http"), allow(dead_code))]
    pub(crate) fn uri(&self) -> Option<&str> {
        match self {
            Change::Updated(uri) => Some(uri),
            _ => None,
        }
    }

    pub(crate) fn method(&self) -> &'static str {
        match self {
            Change::Tools => Method::ToolsChanged,
            Change::Prompts => Method::PromptsChanged,
            Change::Resources => Method::ResourcesChanged,
            Change::Updated(_) => Method::ResourceUpdated,
            Change::Task { .. } => Method::TaskChanged,
        }
        .name()
    }
}

/// What a `subscriptions/listen` request asked for.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Filter {
    tools: bool,
    prompts: bool,
    resources: bool,
    uris: Vec<String>,
    /// Tasks whose changes of status are wanted (`taskIds`, SEP-2663).
    task_ids: Vec<String>,
    /// The principal that asked (tasks are told only to their owner).
    owner: String,
}

impl Filter {
    pub(crate) fn parse(params: Option<&Value>) -> Result<Self, RpcError> {
        let Some(wanted) = params.and_then(|p| p.get("notifications")) else {
            return Err(RpcError::invalid_params(
                "subscriptions/listen needs a \"notifications\" filter object",
            ));
        };
        let Value::Object(wanted) = wanted else {
            return Err(RpcError::invalid_params(
                "\"notifications\" must be an object",
            ));
        };
        let flag = |name: &str| wanted.get(name).and_then(Value::as_bool).unwrap_or(false);
        let uris = match wanted.get("resourceSubscriptions") {
            None | Some(Value::Null) => Vec::new(),
            Some(Value::Array(list)) => list
                .iter()
                .map(|u| u.as_str().map(str::to_owned))
                .collect::<Option<Vec<_>>>()
                .ok_or_else(|| {
                    RpcError::invalid_params("\"resourceSubscriptions\" must be a list of URIs")
                })?,
            Some(_) => {
                return Err(RpcError::invalid_params(
                    "\"resourceSubscriptions\" must be a list of URIs",
                ))
            }
        };
        let task_ids = match wanted.get("taskIds") {
            None | Some(Value::Null) => Vec::new(),
            Some(Value::Array(list)) => list
                .iter()
                .map(|u| u.as_str().map(str::to_owned))
                .collect::<Option<Vec<_>>>()
                .ok_or_else(|| {
                    RpcError::invalid_params("\"taskIds\" must be a list of task ids")
                })?,
            Some(_) => {
                return Err(RpcError::invalid_params(
                    "\"taskIds\" must be a list of task ids",
                ))
            }
        };
        Ok(Self {
            tools: flag("toolsListChanged"),
            prompts: flag("promptsListChanged"),
            resources: flag("resourcesListChanged"),
            uris,
            task_ids,
            owner: String::new(),
        })
    }

    /// The filter of `owner`, with task ids only when the server has tasks.
    pub(crate) fn for_owner(mut self, owner: String, has_tasks: bool) -> Self {
        if !has_tasks {
            self.task_ids.clear();
        }
        self.owner = owner;
        self
    }

    fn wants(&self, change: &Change) -> bool {
        match change {
            Change::Tools => self.tools,
            Change::Prompts => self.prompts,
            Change::Resources => self.resources,
            Change::Updated(uri) => self.uris.iter().any(|u| u == uri),
            Change::Task { id, owner, .. } => {
                *owner == self.owner && self.task_ids.iter().any(|t| t == id)
            }
        }
    }

    /// The filter as acknowledged (only what was asked for).
    pub(crate) fn to_value(&self) -> Value {
        let mut agreed = Map::new();
        for (name, on) in [
            ("toolsListChanged", self.tools),
            ("promptsListChanged", self.prompts),
            ("resourcesListChanged", self.resources),
        ] {
            if on {
                agreed.insert(name.into(), Value::Bool(true));
            }
        }
        if !self.uris.is_empty() {
            agreed.insert("resourceSubscriptions".into(), json!(self.uris));
        }
        if !self.task_ids.is_empty() {
            agreed.insert("taskIds".into(), json!(self.task_ids));
        }
        Value::Object(agreed)
    }
}

/// Whether a stateful session takes a change.
#[derive(Debug, Clone)]
pub(crate) enum Takes {
    /// It is sent here.
    Yes(Sink),
    /// Not for this session (not initialized, not subscribed, no stream
    /// open now).
    No,
    /// The session is gone: forget it.
    Gone,
}

/// Decides for one stateful session whether it takes a change.
pub(crate) type SessionFilter = Box<dyn Fn(&Change) -> Takes + Send + Sync>;

/// One place notifications go.
pub(crate) enum Listener {
    /// A stateful session's stream for messages outside requests.
    Session(SessionFilter),
    /// An open `subscriptions/listen` request.
    Stream {
        /// The request's id: the subscription id.
        id: Value,
        /// What it asked for.
        filter: Filter,
        /// The request's stream.
        sink: Sink,
        /// Tripped when the client cancels the request.
        token: CancellationToken,
    },
}

impl Listener {
    /// Whether it can still hear anything.
    fn is_live(&self) -> bool {
        match self {
            Listener::Session(takes) => !matches!(takes(&Change::Tools), Takes::Gone),
            Listener::Stream { sink, token, .. } => sink.is_connected() && !token.is_cancelled(),
        }
    }
}

/// Hands a change announced on this replica to the others.
pub(crate) type Relay = Box<dyn Fn(&Change) -> Relaying + Send + Sync>;

/// One change on its way to the other replicas.
pub(crate) type Relaying = Pin<Box<dyn Future<Output = ()> + Send>>;

/// Most relayings queued by [`Listeners::try_deliver_everywhere`].
const RELAY_QUEUE: usize = 1024;

/// Everyone listening.
pub(crate) struct Listeners {
    list: Mutex<Vec<Listener>>,
    /// Where changes go beyond this process (one per server).
    relay: OnceLock<Relay>,
    /// Relayings queued without waiting, run one after another (in the
    /// order of the changes) by one background task.
    queued: OnceLock<tokio::sync::mpsc::Sender<Relaying>>,
    /// This server's tag on relayed changes (random).
    #[cfg_attr(not(feature = "streamable-http"), allow(dead_code))]
    origin: u64,
}

impl Listeners {
    /// No listeners yet, with a random origin tag; an error when the
    /// operating system's random source fails.
    pub(crate) fn new() -> Result<Self, crate::random::RandomError> {
        Ok(Self {
            list: Mutex::default(),
            relay: OnceLock::new(),
            queued: OnceLock::new(),
            origin: crate::random::u64()?,
        })
    }

    /// The tag of changes announced by this server.
    #[cfg_attr(not(feature = "streamable-http"), allow(dead_code))]
    pub(crate) fn origin(&self) -> u64 {
        self.origin
    }

    /// Sets where changes announced here also go; `false` when one is set
    /// already (services sharing one server relay once).
    #[cfg_attr(not(feature = "streamable-http"), allow(dead_code))]
    pub(crate) fn set_relay(&self, relay: Relay) -> bool {
        self.relay.set(relay).is_ok()
    }

    /// Sends a change to the listeners here (not relayed); how many took it.
    pub(crate) async fn deliver(&self, change: &Change) -> usize {
        let mut sent = 0;
        for (sink, text) in self.messages(change) {
            sent += usize::from(sink.send(text).await);
        }
        sent
    }

    /// Queues a change for the listeners here without waiting (a full
    /// stream misses it) and hands it to the other replicas in the
    /// background; how many here took it.
    pub(crate) fn try_deliver_everywhere(&self, change: &Change) -> usize {
        let sent = self.try_deliver(change);
        if let Some(relay) = self.relay.get() {
            let queue = self.queued.get_or_init(|| {
                let (tx, mut rx) = tokio::sync::mpsc::channel::<Relaying>(RELAY_QUEUE);
                tokio::spawn(async move {
                    while let Some(relaying) = rx.recv().await {
                        relaying.await;
                    }
                });
                tx
            });
            if queue.try_send(relay(change)).is_err() {
                tracing::warn!(
                    method = change.method(),
                    "a change was not relayed to the other replicas: too many are waiting"
                );
            }
        }
        sent
    }

    /// Queues a change for the listeners here without waiting (not
    /// relayed; a full stream misses it); how many took it.
    pub(crate) fn try_deliver(&self, change: &Change) -> usize {
        self.messages(change)
            .into_iter()
            .map(|(sink, text)| usize::from(sink.try_send(text)))
            .sum()
    }

    pub(crate) fn add(&self, listener: Listener) {
        let mut list = self.list.lock().unwrap_or_else(|p| p.into_inner());
        list.retain(Listener::is_live);
        list.push(listener);
    }

    /// Queues `first` on `sink` and adds `listener` in one step, so that
    /// nothing for the listener can be queued before `first` (a stream's
    /// acknowledgment); `false` when `first` cannot be queued.
    pub(crate) fn add_after(&self, first: String, sink: &Sink, listener: Listener) -> bool {
        let mut list = self.list.lock().unwrap_or_else(|p| p.into_inner());
        if !sink.try_send(first) {
            return false;
        }
        list.retain(Listener::is_live);
        list.push(listener);
        true
    }

    pub(crate) fn remove_stream(&self, stream_id: &Value) {
        let mut list = self.list.lock().unwrap_or_else(|p| p.into_inner());
        list.retain(|l| !matches!(l, Listener::Stream { id, .. } if id == stream_id));
    }

    /// The messages a change sends, with where they go.
    fn messages(&self, change: &Change) -> Vec<(Sink, String)> {
        let params = match change {
            Change::Updated(uri) => json!({ "uri": uri }),
            Change::Task { task, .. } => task.clone(),
            _ => json!({}),
        };
        let mut list = self.list.lock().unwrap_or_else(|p| p.into_inner());
        list.retain(Listener::is_live);
        list.iter()
            .filter_map(|listener| match listener {
                Listener::Session(takes) => match takes(change) {
                    Takes::Yes(sink) => {
                        Some((sink, jsonrpc::notification(change.method(), &params)))
                    }
                    Takes::No | Takes::Gone => None,
                },
                Listener::Stream {
                    id, filter, sink, ..
                } => {
                    if !filter.wants(change) {
                        return None;
                    }
                    let mut tagged = params.clone();
                    tagged["_meta"] = json!({ meta::SUBSCRIPTION_ID: id });
                    Some((
                        sink.clone(),
                        jsonrpc::notification(change.method(), &tagged),
                    ))
                }
            })
            .collect()
    }
}

/// Announces run-time changes to every client listening; cheap to clone.
#[derive(Clone)]
pub struct Notifier {
    listeners: Arc<Listeners>,
}

impl std::fmt::Debug for Notifier {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Notifier").finish_non_exhaustive()
    }
}

impl Notifier {
    pub(crate) fn new(listeners: Arc<Listeners>) -> Self {
        Self { listeners }
    }

    /// The tool list changed: `notifications/tools/list_changed`. Returns
    /// how many clients of this replica it was sent to (with a session
    /// store, the other replicas are told too and count their own).
    pub async fn tools_changed(&self) -> usize {
        self.send(Change::Tools).await
    }

    /// The prompt list changed: `notifications/prompts/list_changed`.
    pub async fn prompts_changed(&self) -> usize {
        self.send(Change::Prompts).await
    }

    /// The resource list changed: `notifications/resources/list_changed`.
    pub async fn resources_changed(&self) -> usize {
        self.send(Change::Resources).await
    }

    /// The resource `uri` changed: `notifications/resources/updated` to
    /// the clients subscribed to it.
    pub async fn resource_updated(&self, uri: &str) -> usize {
        self.send(Change::Updated(uri.to_owned())).await
    }

    async fn send(&self, change: Change) -> usize {
        let sent = self.listeners.deliver(&change).await;
        if let Some(relay) = self.listeners.relay.get() {
            relay(&change).await;
        }
        sent
    }
}
