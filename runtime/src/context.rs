//! The request context handed to every tool handler: cancellation, progress
//! notifications and the caller's identity.

use std::sync::Arc;

use serde_json::{Map, Value};
use tokio::sync::mpsc;

use crate::cancel::CancellationToken;
use crate::jsonrpc;

/// Who is calling: what the client said about itself in `initialize`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ClientIdentity {
    /// `clientInfo` from `initialize` (`name`, `version`, maybe `title`...).
    pub info: Value,
    /// The protocol revision agreed in `initialize`.
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
}

/// Everything a handler may need besides its typed input.
#[derive(Debug, Clone)]
pub struct RequestContext {
    request_id: Value,
    tool: Arc<str>,
    cancel: CancellationToken,
    progress_token: Option<Value>,
    client: Option<Arc<ClientIdentity>>,
    outbound: mpsc::Sender<String>,
}

impl RequestContext {
    pub(crate) fn new(
        request_id: Value,
        tool: Arc<str>,
        cancel: CancellationToken,
        progress_token: Option<Value>,
        client: Option<Arc<ClientIdentity>>,
        outbound: mpsc::Sender<String>,
    ) -> Self {
        Self { request_id, tool, cancel, progress_token, client, outbound }
    }

    /// A context that is not attached to a server (for unit tests of
    /// handlers): never cancelled unless `cancel` is tripped, progress goes
    /// nowhere, no client identity.
    pub fn detached(tool: &str) -> Self {
        let (outbound, _) = mpsc::channel(1);
        Self::new(Value::from(0), tool.into(), CancellationToken::new(), None, None, outbound)
    }

    /// The JSON-RPC id of the `tools/call` request.
    pub fn request_id(&self) -> &Value {
        &self.request_id
    }

    /// The wire name of the tool being called.
    pub fn tool(&self) -> &str {
        &self.tool
    }

    /// The request's cancellation token (tripped by `notifications/cancelled`).
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

    /// The caller, once `initialize` has been answered.
    pub fn client(&self) -> Option<&ClientIdentity> {
        self.client.as_deref()
    }

    /// Whether the caller asked for progress (its request had a
    /// `_meta.progressToken`).
    pub fn wants_progress(&self) -> bool {
        self.progress_token.is_some()
    }

    /// Sends `notifications/progress` when the caller asked for progress;
    /// does nothing otherwise. `progress` should increase with each call.
    pub async fn progress(&self, progress: f64, total: Option<f64>, message: Option<&str>) {
        let Some(token) = &self.progress_token else { return };
        let mut params = Map::new();
        params.insert("progressToken".into(), token.clone());
        params.insert("progress".into(), Value::from(progress));
        if let Some(total) = total {
            params.insert("total".into(), Value::from(total));
        }
        if let Some(message) = message {
            params.insert("message".into(), Value::from(message));
        }
        let text = jsonrpc::notification("notifications/progress", &Value::Object(params));
        // A closed connection is not the handler's problem.
        let _ = self.outbound.send(text).await;
    }
}
