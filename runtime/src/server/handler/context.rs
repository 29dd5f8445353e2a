//! The request context handed to every tool handler: cancellation, progress
//! notifications, the caller's identity, the request's `_meta`, the
//! revision it is served in and an extensions slot (HTTP request parts, an
//! authenticated principal), requests to the client (see [`crate::server::handler::peer`])
//! and the change notifier; [`Sink`] (from [`crate::server::handler::sink`]) is where a
//! request's messages go before its final reply. A task-supporting tool's
//! handler also gets a [`TaskContext`], whose work [`TaskPort`] names and
//! the tasks module does (`server/tasks/link.rs`).

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use serde::de::DeserializeOwned;
use serde_json::{json, Map, Value};

use crate::jsonrpc;
use crate::revision::method::Method;
use crate::server::handler::cancel::CancellationToken;
use crate::server::handler::extras::Extras;
pub use crate::server::handler::extras::Principal;
use crate::server::handler::notifier::Notifier;
use crate::server::handler::outbound::Channel;
use crate::server::handler::peer::{
    decode_elicitation, ElicitForm, Elicitation, Keyed, Peer, PeerError, Root, SampleRequest,
    SampleResponse,
};
pub use crate::server::handler::sink::Sink;

/// Who is calling: what the client said about itself, in `initialize`
/// (stateful era) or in the request's `_meta` (stateless era).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ClientIdentity {
    /// `clientInfo` (`name`, `version`, maybe `title`...), `null` when not given.
    pub info: Value,
    /// The protocol revision in use.
    pub protocol_version: String,
    /// The client's declared capabilities.
    pub capabilities: Value,
}

impl ClientIdentity {
    /// `clientInfo.name`.
    pub fn name(&self) -> Option<&str> {
        self.info.get("name").and_then(Value::as_str)
    }

    /// `clientInfo.version`.
    pub fn version(&self) -> Option<&str> {
        self.info.get("version").and_then(Value::as_str)
    }

    /// Whether the client declared the top-level capability `name`
    /// (`sampling`, `elicitation`, `roots`, ...).
    pub fn has_capability(&self, name: &str) -> bool {
        self.capabilities.get(name).is_some_and(|c| !c.is_null())
    }
}

/// The severity of a log message (RFC 5424 levels, as MCP names them),
/// least severe first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum LogLevel {
    /// Detailed debugging information.
    Debug,
    /// Informational messages.
    Info,
    /// Normal but significant events.
    Notice,
    /// Warning conditions.
    Warning,
    /// Error conditions.
    Error,
    /// Critical conditions.
    Critical,
    /// Action must be taken immediately.
    Alert,
    /// The system is unusable.
    Emergency,
}

impl LogLevel {
    /// `debug, info, …`, for messages.
    pub(crate) fn names() -> String {
        Self::ALL.map(Self::as_str).join(", ")
    }

    /// Every level, least severe first.
    pub const ALL: [LogLevel; 8] = [
        LogLevel::Debug,
        LogLevel::Info,
        LogLevel::Notice,
        LogLevel::Warning,
        LogLevel::Error,
        LogLevel::Critical,
        LogLevel::Alert,
        LogLevel::Emergency,
    ];

    /// The wire name (`"warning"`).
    pub fn as_str(self) -> &'static str {
        match self {
            LogLevel::Debug => "debug",
            LogLevel::Info => "info",
            LogLevel::Notice => "notice",
            LogLevel::Warning => "warning",
            LogLevel::Error => "error",
            LogLevel::Critical => "critical",
            LogLevel::Alert => "alert",
            LogLevel::Emergency => "emergency",
        }
    }

    /// The level named `name`, if it is one.
    pub fn parse(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|l| l.as_str() == name)
    }
}

/// Everything a handler may need besides its typed input.
#[derive(Debug, Clone)]
pub struct RequestContext {
    request_id: Value,
    tool: Arc<str>,
    cancel: CancellationToken,
    progress_token: Option<Value>,
    client: Option<Arc<ClientIdentity>>,
    sink: Sink,
    meta: Option<Arc<Value>>,
    revision: Arc<str>,
    extras: Arc<Extras>,
    log_level: Option<LogLevel>,
    /// How requests to the client travel (see [`crate::server::handler::peer`]).
    channel: Channel,
    /// Announces run-time changes (see [`crate::server::handler::notifier`]).
    notifier: Option<Notifier>,
    /// The task this call may become (see [`TaskContext`]).
    task: Option<Arc<dyn TaskPort>>,
    /// The call's arguments as sent, for a tool that calls an HTTP API
    /// (set by the generated dispatch; see [`RequestContext::arguments`]).
    arguments: Option<Value>,
}

/// A future a [`TaskPort`] returns.
pub(crate) type PortFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// What the tasks module does for a [`TaskContext`]: this module sits
/// below it and names none of its types.
pub(crate) trait TaskPort: Send + Sync + std::fmt::Debug {
    /// The task's id, once the call became a task.
    fn id(&self) -> Option<&str>;
    /// Makes the call a task now (if it is not one yet) and gives its id.
    fn start(&self) -> PortFuture<'_, &str>;
    /// Sets the task's `statusMessage` (once it is a task; before, nothing).
    fn status_message(&self, message: String) -> PortFuture<'_, ()>;
    /// Sends `method` with `params` to the client of `ctx` as input of the
    /// task under `key`, needing the client's `capability`, and gives the
    /// answer.
    fn ask<'a>(
        &'a self,
        ctx: &'a RequestContext,
        key: &'a str,
        capability: &'static str,
        method: Method,
        params: Value,
    ) -> PortFuture<'a, Result<Value, PeerError>>;
}

/// A task-supporting tool's view of its task: its id, status messages,
/// input asked of the client while the task runs, and cancellation (the
/// request context's token is tripped by `tasks/cancel`).
#[derive(Debug, Clone)]
pub struct TaskContext {
    link: Arc<dyn TaskPort>,
    ctx: RequestContext,
}

impl TaskContext {
    /// The request context of the call.
    pub fn request(&self) -> &RequestContext {
        &self.ctx
    }

    /// The task's id, once the call became a task.
    pub fn id(&self) -> Option<&str> {
        self.link.id()
    }

    /// Makes the call a task now (if it is not one yet) and gives its id.
    pub async fn start(&self) -> &str {
        self.link.start().await
    }

    /// Whether the client cancelled the task.
    pub fn is_cancelled(&self) -> bool {
        self.ctx.is_cancelled()
    }

    /// Completes when the client cancels the task.
    pub async fn cancelled(&self) {
        self.ctx.cancelled().await
    }

    /// Sets the task's `statusMessage` (once it is a task; before, nothing).
    pub async fn status(&self, message: &str) {
        self.link.status_message(message.to_owned()).await
    }

    /// Asks the user to fill in the form `T` under `key`.
    pub async fn elicit<T: ElicitForm>(
        &self,
        key: &str,
        message: &str,
    ) -> Result<Elicitation<T>, PeerError> {
        self.elicit_with(key, message, T::requested_schema()).await
    }

    /// Asks the user to fill in a form with `schema` under `key`; accepted
    /// content decodes into `T`.
    pub async fn elicit_with<T: DeserializeOwned>(
        &self,
        key: &str,
        message: &str,
        schema: Value,
    ) -> Result<Elicitation<T>, PeerError> {
        let params = json!({ "mode": "form", "message": message, "requestedSchema": schema });
        let raw = self
            .link
            .ask(&self.ctx, key, "elicitation", Method::Elicit, params)
            .await?;
        decode_elicitation(raw, true).map_err(PeerError::InvalidResponse)
    }

    /// Asks the client's model for a completion under `key`.
    pub async fn sample(
        &self,
        key: &str,
        request: SampleRequest,
    ) -> Result<SampleResponse, PeerError> {
        let params = Value::Object(request.params().clone());
        let raw = self
            .link
            .ask(&self.ctx, key, "sampling", Method::CreateMessage, params)
            .await?;
        SampleResponse::decode(raw).map_err(PeerError::InvalidResponse)
    }
}

/// The parts of a [`RequestContext`] the engine fills in.
pub(crate) struct ContextParts {
    pub request_id: Value,
    pub tool: Arc<str>,
    pub cancel: CancellationToken,
    pub progress_token: Option<Value>,
    pub client: Option<Arc<ClientIdentity>>,
    pub sink: Sink,
    pub meta: Option<Arc<Value>>,
    pub revision: Arc<str>,
    pub extras: Arc<Extras>,
    /// The least severe level sent to the client; `None` sends no logs.
    pub log_level: Option<LogLevel>,
}

impl RequestContext {
    pub(crate) fn new(p: ContextParts) -> Self {
        Self {
            request_id: p.request_id,
            tool: p.tool,
            cancel: p.cancel,
            progress_token: p.progress_token,
            client: p.client,
            sink: p.sink,
            meta: p.meta,
            revision: p.revision,
            extras: p.extras,
            log_level: p.log_level,
            channel: Channel::None,
            notifier: None,
            task: None,
            arguments: None,
        }
    }

    /// The context of a call that may become a task.
    pub(crate) fn with_task(mut self, link: Option<Arc<dyn TaskPort>>) -> Self {
        self.task = link;
        self
    }

    /// The task side of a call to a task-supporting tool whose client
    /// supports tasks; `None` when the call runs inline only.
    pub fn task(&self) -> Option<TaskContext> {
        Some(TaskContext {
            link: Arc::clone(self.task.as_ref()?),
            ctx: self.clone(),
        })
    }

    /// The context with requests to the client going through `channel`.
    pub(crate) fn with_channel(mut self, channel: Channel) -> Self {
        self.channel = channel;
        self
    }

    /// The context carrying the call's `arguments` as the client sent them
    /// (validated against `inputSchema`). The generated dispatch sets it
    /// for the tools that call an HTTP API, whose default handler sends
    /// exactly these: a typed input written back out would drop what its
    /// type does not keep (an empty optional array, an unknown member).
    #[doc(hidden)]
    pub fn with_arguments(mut self, arguments: Value) -> Self {
        self.arguments = Some(arguments);
        self
    }

    /// The call's arguments as the client sent them, validated, for a tool
    /// that calls an HTTP API (`x-mcpgen.http`); `None` for other tools.
    pub fn arguments(&self) -> Option<&Value> {
        self.arguments.as_ref()
    }

    /// The context with `notifier` at hand for the handler.
    pub(crate) fn with_notifier(mut self, notifier: Notifier) -> Self {
        self.notifier = Some(notifier);
        self
    }

    /// The handle that announces run-time changes of the server's lists
    /// and resources (`None` for a detached context).
    pub fn notifier(&self) -> Option<&Notifier> {
        self.notifier.as_ref()
    }

    pub(crate) fn channel(&self) -> &Channel {
        &self.channel
    }

    pub(crate) fn sink(&self) -> &Sink {
        &self.sink
    }

    /// A context that is not attached to a server (for unit tests of
    /// handlers): never cancelled unless `cancel` is tripped, progress goes
    /// nowhere, no client identity, the newest revision.
    pub fn detached(tool: &str) -> Self {
        Self::new(ContextParts {
            request_id: Value::from(0),
            tool: tool.into(),
            cancel: CancellationToken::new(),
            progress_token: None,
            client: None,
            sink: Sink::discard(),
            meta: None,
            revision: crate::revision::LATEST.into(),
            extras: Extras::map(Arc::default()),
            log_level: None,
        })
    }

    /// The JSON-RPC id of the `tools/call` request.
    pub fn request_id(&self) -> &Value {
        &self.request_id
    }

    /// The wire name of the tool being called.
    pub fn tool(&self) -> &str {
        &self.tool
    }

    /// The request's cancellation token (tripped by `notifications/cancelled`,
    /// or when the HTTP stream carrying the request closes).
    pub fn cancellation(&self) -> &CancellationToken {
        &self.cancel
    }

    /// Whether the client cancelled this request.
    pub fn is_cancelled(&self) -> bool {
        self.cancel.is_cancelled()
    }

    /// Completes when the client cancels this request.
    pub async fn cancelled(&self) {
        self.cancel.cancelled().await
    }

    /// The caller: from `initialize` (stateful era) or this request's
    /// `_meta` (stateless era).
    pub fn client(&self) -> Option<&ClientIdentity> {
        self.client.as_deref()
    }

    /// The request's `params._meta`, as sent.
    pub fn meta(&self) -> Option<&Value> {
        self.meta.as_deref()
    }

    /// The protocol revision this request is served in.
    pub fn revision(&self) -> &str {
        &self.revision
    }

    /// Request extensions: over HTTP the request's `Method`, `Uri` and
    /// `HeaderMap`, the [`Principal`] the authentication hook or a tower
    /// layer set, and whatever else layers inserted into the request's
    /// extensions (the map is built on the first call).
    pub fn extensions(&self) -> &http::Extensions {
        self.extras.extensions()
    }

    /// The authenticated caller, when an authentication hook set one.
    pub fn principal(&self) -> Option<&Principal> {
        self.extras.principal()
    }

    /// `Ok` when the caller declared every capability in `names`
    /// (`"sampling"`, `"elicitation"`, `"roots"`), else the error that
    /// answers the request with `-32021` naming the missing ones.
    pub fn require_capabilities(
        &self,
        names: &[&str],
    ) -> Result<(), crate::server::handler::tool_error::ToolError> {
        let missing: Map<String, Value> = names
            .iter()
            .filter(|n| !self.client.as_deref().is_some_and(|c| c.has_capability(n)))
            .map(|n| ((*n).to_owned(), Value::Object(Map::new())))
            .collect();
        if missing.is_empty() {
            Ok(())
        } else {
            Err(
                crate::server::handler::tool_error::ToolError::missing_capabilities(Value::Object(
                    missing,
                )),
            )
        }
    }

    /// Whether a message of `level` would reach the client: at or above the
    /// level set with `logging/setLevel` (stateful era; every level until
    /// one is set) or the request's `_meta` log level (stateless era; none
    /// without it).
    pub fn logs(&self, level: LogLevel) -> bool {
        self.log_level.is_some_and(|min| level >= min)
    }

    /// Sends `notifications/message` with `data` (any JSON) when `level`
    /// passes the client's threshold; `logger` names the source.
    pub async fn log(&self, level: LogLevel, data: Value, logger: Option<&str>) {
        if !self.logs(level) || self.cancel.is_cancelled() {
            return;
        }
        let mut params = Map::new();
        params.insert("level".into(), Value::from(level.as_str()));
        if let Some(logger) = logger {
            params.insert("logger".into(), Value::from(logger));
        }
        params.insert("data".into(), data);
        let text = jsonrpc::notification(Method::LogMessage.name(), &Value::Object(params));
        let _ = self.sink.send(text).await;
    }

    /// Whether the caller asked for progress (its request had a
    /// `_meta.progressToken`).
    pub fn wants_progress(&self) -> bool {
        self.progress_token.is_some()
    }

    /// Sends `notifications/progress` when the caller asked for progress;
    /// does nothing otherwise. `progress` should increase with each call.
    pub async fn progress(&self, progress: f64, total: Option<f64>, message: Option<&str>) {
        let Some(token) = &self.progress_token else {
            return;
        };
        if self.cancel.is_cancelled() {
            return; // nothing more may be sent for a cancelled request
        }
        let mut params = Map::new();
        params.insert("progressToken".into(), token.clone());
        params.insert("progress".into(), Value::from(progress));
        if let Some(total) = total {
            params.insert("total".into(), Value::from(total));
        }
        if let Some(message) = message {
            params.insert("message".into(), Value::from(message));
        }
        let text = jsonrpc::notification(Method::Progress.name(), &Value::Object(params));
        // A closed connection is not the handler's problem.
        let _ = self.sink.send(text).await;
    }

    /// Asks the client's model for a completion (`sampling/createMessage`).
    pub async fn sample(&self, request: SampleRequest) -> Result<SampleResponse, PeerError> {
        self.peer(None).sample(request).await
    }

    /// Asks the user to fill in the form `T` (`elicitation/create`, form
    /// mode).
    pub async fn elicit<T: ElicitForm>(&self, message: &str) -> Result<Elicitation<T>, PeerError> {
        self.peer(None).elicit(message, T::requested_schema()).await
    }

    /// Form mode with an explicit `requestedSchema`; accepted content
    /// decodes into `T` (`serde_json::Value` takes anything).
    pub async fn elicit_with<T: DeserializeOwned>(
        &self,
        message: &str,
        schema: Value,
    ) -> Result<Elicitation<T>, PeerError> {
        self.peer(None).elicit(message, schema).await
    }

    /// Sends the user to `url` (`elicitation/create`, URL mode; needs the
    /// client's `elicitation.url` capability). `Accept` means the user
    /// agreed to open it, not that the interaction there is done.
    pub async fn elicit_url(
        &self,
        message: &str,
        url: &str,
        elicitation_id: &str,
    ) -> Result<Elicitation<()>, PeerError> {
        self.peer(None)
            .elicit_url(message, url, elicitation_id)
            .await
    }

    /// The client's roots (`roots/list`).
    pub async fn list_roots(&self) -> Result<Vec<Root>, PeerError> {
        self.peer(None).list_roots().await
    }

    /// The same requests under `key`: in the stateless era the key of the
    /// input request (otherwise `sampling_1`, `elicitation_2`… in call
    /// order); ignored in the stateful era.
    pub fn keyed<'a>(&'a self, key: &'a str) -> Keyed<'a> {
        Keyed::new(self.peer(Some(key)))
    }

    /// Whether this request is a retry that came with a `requestState` this
    /// server issued and verified (stateless era).
    pub fn is_resumed(&self) -> bool {
        matches!(&self.channel, Channel::Rounds(rounds) if rounds.resumed())
    }

    /// The client as this request reaches it, asking under `key`.
    fn peer<'a>(&'a self, key: Option<&'a str>) -> Peer<'a> {
        Peer {
            channel: &self.channel,
            sink: &self.sink,
            capabilities: self.client.as_deref().map(|c| &c.capabilities),
            revision: &self.revision,
            cancel: &self.cancel,
            key,
        }
    }
}
