//! The MCP server engine: configuration, the message loop and the writer.
//!
//! [`ServerBuilder`] collects the tool table, the generated dispatcher and
//! the hooks; [`Server::serve`] runs over any [`Transport`]: it reads one
//! message at a time, answers cheap requests inline, runs every
//! `tools/call` in its own task (so calls run concurrently and can be
//! cancelled), never answers a notification, and sends everything through a
//! single writer task. In revisions with JSON-RPC batches (2025-03-26) a
//! batch is answered with one array once all its calls are done. Protocol
//! semantics of each method live in [`crate::router`].

use std::collections::HashMap;
use std::io;
use std::sync::{Arc, Mutex, RwLock};
use std::time::Duration;

use serde_json::Value;
use tokio::sync::{mpsc, OwnedSemaphorePermit, Semaphore};
use tokio::task::JoinHandle;

use crate::cancel::CancellationToken;
use crate::catch::CatchUnwind;
use crate::context::ClientIdentity;
use crate::jsonrpc::{self, Incoming};
use crate::limits::RateLimit;
use crate::tool::Dispatch;
use crate::toolset::{ToolSet, ToolSetError};
use crate::transport::{MessageRead, MessageWrite, Transport};

/// What the access-control hook is told about a call.
#[derive(Debug)]
pub struct CallInfo<'a> {
    /// Wire name of the tool.
    pub tool: &'a str,
    /// The arguments as sent (already validated).
    pub arguments: &'a Value,
    /// The caller, once initialized.
    pub client: Option<&'a ClientIdentity>,
    /// The JSON-RPC id of the request.
    pub request_id: &'a Value,
}

/// Decides whether a call may run; `Err(reason)` refuses it.
pub type AccessHook = Arc<dyn Fn(&CallInfo<'_>) -> Result<(), String> + Send + Sync>;
/// Rewrites a finished `CallToolResult` (e.g. to redact secrets) before it is sent.
pub type OutputHook = Arc<dyn Fn(&str, &mut Value) + Send + Sync>;

/// Static settings of a server.
#[derive(Debug, Clone)]
pub struct ServerConfig {
    /// The revision the server was generated for; answered when the client
    /// asks for a revision the server does not support.
    pub revision: String,
    /// Every revision the server accepts in `initialize`.
    pub supported_revisions: Vec<String>,
    /// `serverInfo` (`name`, `version`, optional `title`, ...).
    pub server_info: Value,
    /// `instructions` sent in the `initialize` result.
    pub instructions: Option<String>,
    /// Tools per `tools/list` page.
    pub page_size: usize,
    /// Whether `tools.listChanged` is declared.
    pub list_changed: bool,
    /// Whether the audit log includes argument values.
    pub audit_arguments: bool,
    /// How long in-flight calls may finish after the input closes before
    /// they are cancelled.
    pub shutdown_grace: Duration,
    /// Tool calls running at once; further requests wait (and reading pauses)
    /// until one finishes.
    pub max_concurrent_calls: usize,
}

/// Everything the message loop and the request tasks share.
pub(crate) struct Shared {
    pub(crate) config: ServerConfig,
    pub(crate) tools: ToolSet,
    pub(crate) dispatch: Arc<dyn Dispatch>,
    pub(crate) access: Option<AccessHook>,
    pub(crate) output_hook: Option<OutputHook>,
    pub(crate) client: RwLock<Option<Arc<ClientIdentity>>>,
    pub(crate) inflight: Mutex<HashMap<String, CancellationToken>>,
}

/// A configured server, ready to serve one connection.
pub struct Server {
    shared: Arc<Shared>,
}

/// Why a server could not be built.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ServerError {
    /// The tool table is unusable (a schema does not compile, ...).
    Tools(ToolSetError),
    /// A setting is invalid.
    Config(String),
}

impl std::fmt::Display for ServerError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ServerError::Tools(e) => e.fmt(f),
            ServerError::Config(m) => write!(f, "server configuration: {m}"),
        }
    }
}

impl std::error::Error for ServerError {}

/// Builds a [`Server`].
pub struct ServerBuilder {
    config: ServerConfig,
    tools: Value,
    dispatch: Arc<dyn Dispatch>,
    limits: HashMap<String, RateLimit>,
    access: Option<AccessHook>,
    output_hook: Option<OutputHook>,
}

impl ServerBuilder {
    /// A server for `revision`, serving `tools` (a JSON array of `Tool`
    /// objects, in the order `tools/list` returns them) through `dispatch`.
    pub fn new(revision: &str, tools: Value, dispatch: Arc<dyn Dispatch>) -> Self {
        Self {
            config: ServerConfig {
                revision: revision.to_owned(),
                supported_revisions: vec![revision.to_owned()],
                server_info: serde_json::json!({ "name": "mcpgen-server", "version": "0.0.0" }),
                instructions: None,
                page_size: 100,
                list_changed: false,
                audit_arguments: false,
                shutdown_grace: Duration::from_secs(10),
                max_concurrent_calls: 64,
            },
            tools,
            dispatch,
            limits: HashMap::new(),
            access: None,
            output_hook: None,
        }
    }

    /// Revisions accepted in `initialize` (the generated revision is always added).
    pub fn supported_revisions<I, S>(mut self, revisions: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let mut list: Vec<String> = revisions.into_iter().map(Into::into).collect();
        if !list.contains(&self.config.revision) {
            list.push(self.config.revision.clone());
        }
        self.config.supported_revisions = list;
        self
    }

    /// `serverInfo` of the `initialize` result.
    pub fn server_info(mut self, info: Value) -> Self {
        self.config.server_info = info;
        self
    }

    /// `instructions` of the `initialize` result.
    pub fn instructions(mut self, text: impl Into<String>) -> Self {
        self.config.instructions = Some(text.into());
        self
    }

    /// Tools per `tools/list` page (at least 1).
    pub fn page_size(mut self, size: usize) -> Self {
        self.config.page_size = size.max(1);
        self
    }

    /// Declares `tools.listChanged: true` in the capabilities.
    pub fn list_changed(mut self, yes: bool) -> Self {
        self.config.list_changed = yes;
        self
    }

    /// Includes argument values in the audit log (off by default: they may
    /// hold secrets).
    pub fn audit_arguments(mut self, yes: bool) -> Self {
        self.config.audit_arguments = yes;
        self
    }

    /// Grace period for in-flight calls once the input closes.
    pub fn shutdown_grace(mut self, grace: Duration) -> Self {
        self.config.shutdown_grace = grace;
        self
    }

    /// Tool calls running at once (at least 1, default 64). When all are
    /// busy the server stops reading until one finishes, so a flood of
    /// requests cannot exhaust memory.
    pub fn max_concurrent_calls(mut self, n: usize) -> Self {
        self.config.max_concurrent_calls = n.max(1);
        self
    }

    /// Limits calls of one tool; over the limit a call is answered with a
    /// tool error saying when to retry.
    pub fn rate_limit(mut self, tool: impl Into<String>, limit: RateLimit) -> Self {
        self.limits.insert(tool.into(), limit);
        self
    }

    /// Called before every tool call; `Err(reason)` refuses the call.
    pub fn access_control<F>(mut self, hook: F) -> Self
    where
        F: Fn(&CallInfo<'_>) -> Result<(), String> + Send + Sync + 'static,
    {
        self.access = Some(Arc::new(hook));
        self
    }

    /// Called on every `CallToolResult` before it is sent.
    pub fn output_hook<F>(mut self, hook: F) -> Self
    where
        F: Fn(&str, &mut Value) + Send + Sync + 'static,
    {
        self.output_hook = Some(Arc::new(hook));
        self
    }

    /// Compiles the validators and checks the settings.
    pub fn build(self) -> Result<Server, ServerError> {
        if !self.config.server_info.get("name").is_some_and(Value::is_string) {
            return Err(ServerError::Config("serverInfo needs a string \"name\"".into()));
        }
        let tools = ToolSet::new(&self.tools, &self.config.revision, &self.limits).map_err(ServerError::Tools)?;
        Ok(Server {
            shared: Arc::new(Shared {
                config: self.config,
                tools,
                dispatch: self.dispatch,
                access: self.access,
                output_hook: self.output_hook,
                client: RwLock::new(None),
                inflight: Mutex::new(HashMap::new()),
            }),
        })
    }
}

/// Messages queued for the writer before senders wait.
const OUTBOUND_QUEUE: usize = 256;

impl Server {
    /// Serves one connection until its input ends, then lets in-flight calls
    /// finish (up to the shutdown grace) and returns.
    pub async fn serve<T: Transport>(self, transport: T) -> io::Result<()> {
        let (mut reader, mut writer) = transport.split();
        let (tx, mut rx) = mpsc::channel::<String>(OUTBOUND_QUEUE);
        let slots = Arc::new(Semaphore::new(self.shared.config.max_concurrent_calls));
        let mut writer_task = tokio::spawn(async move {
            while let Some(message) = rx.recv().await {
                writer.write_message(&message).await?;
            }
            Ok::<(), io::Error>(())
        });

        let read_result = loop {
            let text = match reader.read_message().await {
                Ok(Some(text)) => text,
                Ok(None) => break Ok(()),
                Err(e) => break Err(e),
            };
            if let Some(reply) = self.on_message(&text, &tx, &slots).await {
                if tx.send(reply).await.is_err() {
                    break Ok(()); // the writer is gone
                }
            }
        };
        drop(tx);

        let grace = self.shared.config.shutdown_grace;
        let written = match tokio::time::timeout(grace, &mut writer_task).await {
            Ok(joined) => joined,
            Err(_) => {
                for token in self.shared.inflight.lock().unwrap_or_else(|p| p.into_inner()).values() {
                    token.cancel();
                }
                writer_task.await
            }
        };
        let written = written.map_err(|e| io::Error::other(format!("writer task failed: {e}")))?;
        read_result.and(written)
    }

    /// Handles one line; returns an immediate reply, if any. Tool calls
    /// are answered later by their task.
    async fn on_message(&self, text: &str, tx: &mpsc::Sender<String>, slots: &Arc<Semaphore>) -> Option<String> {
        let items = match jsonrpc::parse(text) {
            Incoming::Batch(items) => items,
            single => {
                return match self.on_incoming(single, tx, slots, Delivery::Direct).await {
                    Answer::Now(reply) => Some(reply),
                    Answer::Later(_) | Answer::Nothing => None,
                }
            }
        };
        let revision = self.shared.session_revision();
        if !crate::router::batches_allowed(&revision) {
            let error = jsonrpc::RpcError::invalid_request(format!(
                "JSON-RPC batches are not part of MCP revision {revision}; send one message per line"
            ));
            return Some(jsonrpc::error_response(&Value::Null, &error));
        }
        let mut answers = Vec::with_capacity(items.len());
        for item in items {
            answers.push(self.on_incoming(jsonrpc::classify(item), tx, slots, Delivery::Collected).await);
        }
        if answers.iter().all(|a| matches!(a, Answer::Nothing)) {
            return None; // only notifications and responses: no reply at all
        }
        // One array of replies, in request order, once every call is done.
        let tx = tx.clone();
        tokio::spawn(async move {
            let mut replies = Vec::with_capacity(answers.len());
            for answer in answers {
                match answer {
                    Answer::Now(reply) => replies.push(reply),
                    Answer::Later(call) => replies.extend(call.await.ok().flatten()),
                    Answer::Nothing => {}
                }
            }
            // Every call may have been cancelled: then nothing is sent.
            if !replies.is_empty() {
                let _ = tx.send(format!("[{}]", replies.join(","))).await;
            }
        });
        None
    }

    /// Handles one classified message (alone or from a batch).
    async fn on_incoming(
        &self,
        incoming: Incoming,
        tx: &mpsc::Sender<String>,
        slots: &Arc<Semaphore>,
        delivery: Delivery,
    ) -> Answer {
        match incoming {
            Incoming::Request { id, method, .. } if method == "initialize" && delivery == Delivery::Collected => {
                let error = jsonrpc::RpcError::invalid_request("initialize must not be part of a JSON-RPC batch");
                Answer::Now(jsonrpc::error_response(&id, &error))
            }
            Incoming::Request { id, method, params } => {
                if method == "tools/call" {
                    let key = jsonrpc::json_text(&id);
                    if self.shared.inflight.lock().unwrap_or_else(|p| p.into_inner()).contains_key(&key) {
                        // Ids must be unique among a session's requests; a reused one
                        // would make `notifications/cancelled` ambiguous.
                        let error = jsonrpc::RpcError::invalid_request(format!(
                            "request id {key} is already in use by a running tools/call; use a new id"
                        ));
                        return Answer::Now(jsonrpc::error_response(&id, &error));
                    }
                    // The semaphore is never closed, so this only waits.
                    let permit = Arc::clone(slots).acquire_owned().await.ok();
                    return Answer::Later(self.spawn_call(id, key, params, tx.clone(), permit, delivery));
                }
                let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    self.shared.handle_inline(&method, params.as_ref())
                }))
                .unwrap_or_else(|p| Err(jsonrpc::RpcError::internal(crate::catch::panic_message(p.as_ref()))));
                Answer::Now(match outcome {
                    Ok(result) => jsonrpc::response(&id, &result),
                    Err(error) => jsonrpc::error_response(&id, &error),
                })
            }
            Incoming::Notification { method, params } => {
                self.shared.on_notification(&method, params.as_ref());
                Answer::Nothing
            }
            // This server sends no requests, so responses answer nothing.
            Incoming::Response { .. } => Answer::Nothing,
            Incoming::Invalid { id, error } => Answer::Now(jsonrpc::error_response(&id, &error)),
            // `classify` never yields a batch; a nested one is answered as invalid.
            Incoming::Batch(_) => Answer::Now(jsonrpc::error_response(
                &Value::Null,
                &jsonrpc::RpcError::invalid_request("batches do not nest"),
            )),
        }
    }

    /// Starts a `tools/call` in its own task, registered in flight under
    /// `key` (the id's JSON text). With [`Delivery::Direct`] the task sends
    /// its reply itself; with [`Delivery::Collected`] the reply is the
    /// task's output, for the batch it belongs to.
    fn spawn_call(
        &self,
        id: Value,
        key: String,
        params: Option<Value>,
        tx: mpsc::Sender<String>,
        permit: Option<OwnedSemaphorePermit>,
        delivery: Delivery,
    ) -> JoinHandle<Option<String>> {
        let token = CancellationToken::new();
        // Registered before the task starts, so a cancellation that arrives
        // right behind the request finds it.
        self.shared.inflight.lock().unwrap_or_else(|p| p.into_inner()).insert(key.clone(), token.clone());
        let shared = Arc::clone(&self.shared);
        tokio::spawn(async move {
            // Handler panics are caught inside `run_call`; this also covers the
            // user's access-control and output hooks.
            let echo = id.clone();
            let reply = CatchUnwind::new(shared.run_call(id, params, token, tx.clone())).await.unwrap_or_else(|panic| {
                tracing::error!(panic = %panic, "tools/call failed unexpectedly");
                Some(jsonrpc::error_response(&echo, &jsonrpc::RpcError::internal("the tool call failed unexpectedly")))
            });
            shared.inflight.lock().unwrap_or_else(|p| p.into_inner()).remove(&key);
            drop(permit);
            match (delivery, reply) {
                (Delivery::Direct, Some(reply)) => {
                    let _ = tx.send(reply).await;
                    None
                }
                (_, reply) => reply,
            }
        })
    }
}

/// Where a tool call's reply goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Delivery {
    /// Straight to the writer (a message on its own line).
    Direct,
    /// Back to the batch it came in, which answers with one array.
    Collected,
}

/// What handling one message produced.
enum Answer {
    /// A reply to send now.
    Now(String),
    /// A running tool call; its output is the reply when collected.
    Later(JoinHandle<Option<String>>),
    /// Nothing to send (a notification, a response).
    Nothing,
}
