//! What a client answers when the server asks it for something:
//! [`ClientHandlers`], the application's handlers for
//! `sampling/createMessage`, `elicitation/create` and `roots/list`. Each
//! handler gets the request's params and returns the result (or a
//! JSON-RPC error). Set them with [`ClientOptions::handlers`](super::ClientOptions::handlers), which also
//! declares the matching capabilities.
//!
//! They serve both eras: in the stateful era the engine answers the
//! server's requests with them; in the stateless era (2026-07-28) it
//! answers the `inputRequests` of an `InputRequiredResult` with them and
//! retries the request with `inputResponses` and the `requestState`.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use serde_json::{json, Map, Value};

use crate::jsonrpc::RpcError;
use crate::revision::method::Method;

/// One handler: the request's params in, its result out.
pub type RequestHandler = Arc<
    dyn Fn(Value) -> Pin<Box<dyn Future<Output = Result<Value, RpcError>> + Send>> + Send + Sync,
>;

/// The application's answers to server requests; each is optional.
#[derive(Clone, Default)]
pub struct ClientHandlers {
    sampling: Option<RequestHandler>,
    elicitation: Option<RequestHandler>,
    roots: Option<RequestHandler>,
}

impl std::fmt::Debug for ClientHandlers {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClientHandlers")
            .field("sampling", &self.sampling.is_some())
            .field("elicitation", &self.elicitation.is_some())
            .field("roots", &self.roots.is_some())
            .finish()
    }
}

fn boxed<F, Fut>(f: F) -> RequestHandler
where
    F: Fn(Value) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<Value, RpcError>> + Send + 'static,
{
    Arc::new(move |params| Box::pin(f(params)))
}

impl ClientHandlers {
    /// No handlers.
    pub fn new() -> Self {
        Self::default()
    }

    /// Answers `sampling/createMessage` (params: `CreateMessageRequestParams`,
    /// result: `CreateMessageResult`).
    pub fn on_sampling<F, Fut>(mut self, f: F) -> Self
    where
        F: Fn(Value) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<Value, RpcError>> + Send + 'static,
    {
        self.sampling = Some(boxed(f));
        self
    }

    /// Answers `elicitation/create` (params: `ElicitRequestParams`, result:
    /// `ElicitResult` with `action` and, when accepted, `content`).
    pub fn on_elicitation<F, Fut>(mut self, f: F) -> Self
    where
        F: Fn(Value) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<Value, RpcError>> + Send + 'static,
    {
        self.elicitation = Some(boxed(f));
        self
    }

    /// Answers `roots/list` (result: `ListRootsResult`).
    pub fn on_roots<F, Fut>(mut self, f: F) -> Self
    where
        F: Fn(Value) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<Value, RpcError>> + Send + 'static,
    {
        self.roots = Some(boxed(f));
        self
    }

    /// The handler of a server request's method, if any.
    pub(crate) fn for_method(&self, method: &str) -> Option<&RequestHandler> {
        match Method::of(method)? {
            Method::CreateMessage => self.sampling.as_ref(),
            Method::Elicit => self.elicitation.as_ref(),
            Method::RootsList => self.roots.as_ref(),
            _ => None,
        }
    }

    /// Adds the capabilities these handlers serve to `capabilities`.
    pub(super) fn declare(&self, capabilities: &mut Value) {
        if !capabilities.is_object() {
            *capabilities = json!({});
        }
        let caps = capabilities.as_object_mut().expect("made an object above");
        if self.sampling.is_some() {
            caps.entry("sampling").or_insert_with(|| json!({}));
        }
        if self.elicitation.is_some() {
            caps.entry("elicitation").or_insert_with(|| json!({}));
        }
        if self.roots.is_some() {
            caps.entry("roots")
                .or_insert_with(|| json!({ "listChanged": false }));
        }
    }

    /// Answers every input request of an `InputRequiredResult`: the
    /// `inputResponses` of the retry, or the first failure (an input
    /// request this client has no handler for is `-32601`).
    pub(crate) async fn answer_all(
        &self,
        requests: &Map<String, Value>,
    ) -> Result<Map<String, Value>, RpcError> {
        let mut pending = Vec::with_capacity(requests.len());
        for (key, request) in requests {
            let method = request
                .get("method")
                .and_then(Value::as_str)
                .unwrap_or_default();
            let Some(handler) = self.for_method(method) else {
                return Err(RpcError::method_not_found(method));
            };
            let params = request.get("params").cloned().unwrap_or_else(|| json!({}));
            pending.push((key.clone(), handler(params)));
        }
        let mut responses = Map::new();
        for (key, answer) in pending {
            responses.insert(key, answer.await?);
        }
        Ok(responses)
    }
}
