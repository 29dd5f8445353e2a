//! The seam between the engine and generated code for everything a
//! server offers besides tools: reading resources (static ones and
//! resource templates), getting prompts and completing their arguments.
//!
//! The engine resolves each request against the declared lists (which
//! static resource or template a URI names, with the template's
//! variables; which prompt, with its required arguments checked; what a
//! completion's `ref` points at) and hands the generated [`Surface`]
//! implementation an index, as [`crate::Dispatch`] does for tools. The
//! generated code decodes the typed parameters and calls the trait
//! method the application implements.

use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::{json, Map, Value};

use crate::jsonrpc::RpcError;
use crate::server::handler::context::RequestContext;
use crate::server::tools::tool::BoxFuture;

/// Why a resource read, prompt or completion failed, as the client sees it.
#[derive(Debug, Clone, PartialEq)]
pub struct HandlerError {
    error: RpcError,
}

impl HandlerError {
    /// The resource `uri` does not exist: `-32602` with `data.uri`
    /// (SEP-2164).
    pub fn not_found(uri: impl Into<String>) -> Self {
        let uri = uri.into();
        Self {
            error: RpcError::invalid_params(format!("Resource not found: {uri}"))
                .with_data(json!({ "uri": uri })),
        }
    }

    /// The request's parameters are wrong (`-32602`).
    pub fn invalid_params(message: impl std::fmt::Display) -> Self {
        Self {
            error: RpcError::invalid_params(message),
        }
    }

    /// The handler failed (`-32603`).
    pub fn internal(message: impl std::fmt::Display) -> Self {
        Self {
            error: RpcError::internal(message),
        }
    }

    /// The JSON-RPC error sent.
    pub fn rpc(&self) -> &RpcError {
        &self.error
    }

    /// The JSON-RPC error sent, by value.
    pub fn into_rpc(self) -> RpcError {
        self.error
    }
}

impl std::fmt::Display for HandlerError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} ({})", self.error.message, self.error.code)
    }
}

impl std::error::Error for HandlerError {}

impl From<crate::server::handler::peer::PeerError> for HandlerError {
    /// A missing client capability is `-32021` naming it (as for tools);
    /// any other failure to get the client's answer is `-32603`.
    fn from(err: crate::server::handler::peer::PeerError) -> Self {
        let tool_error = crate::server::handler::tool_error::ToolError::from(err);
        match tool_error.required_capabilities() {
            Some(required) => Self {
                error: RpcError::new(
                    crate::revision::codes::MISSING_CLIENT_CAPABILITY,
                    tool_error.message().to_owned(),
                )
                .with_data(json!({ "requiredCapabilities": required })),
            },
            None => Self::internal(tool_error.message()),
        }
    }
}

/// What a `resources/read` URI names.
#[derive(Debug, Clone, PartialEq)]
pub enum ResourceTarget {
    /// The static resource at this index of the declared `resources`.
    Static(usize),
    /// The resource template at this index of the declared
    /// `resourceTemplates`, with the URI's variables (strings).
    Template(usize, Map<String, Value>),
}

/// What a `completion/complete` reference points at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CompletionRef {
    /// The prompt at this index of the declared `prompts`.
    Prompt(usize),
    /// The resource template at this index of the declared `resourceTemplates`.
    Template(usize),
}

/// A `completion/complete` request, resolved.
#[derive(Debug, Clone, PartialEq)]
pub struct CompletionRequest {
    /// The prompt or template.
    pub target: CompletionRef,
    /// The argument or variable being completed.
    pub argument: String,
    /// What the user typed so far.
    pub value: String,
    /// Values of other arguments already given (`context.arguments`).
    pub context: Map<String, Value>,
}

/// Serves reads, prompts and completions by index. Implemented by
/// generated code.
pub trait Surface: Send + Sync + 'static {
    /// Reads a resource; the result is a `ReadResourceResult` object.
    fn read(
        &self,
        target: ResourceTarget,
        uri: String,
        ctx: RequestContext,
    ) -> BoxFuture<Result<Value, HandlerError>>;

    /// Gets prompt number `index` with its arguments (required ones are
    /// present and every one is a string); the result is the array of
    /// `PromptMessage` objects.
    fn prompt(
        &self,
        index: usize,
        arguments: Map<String, Value>,
        ctx: RequestContext,
    ) -> BoxFuture<Result<Value, HandlerError>>;

    /// Completes an argument; the result is the `completion` object
    /// (`values`, optional `total` and `hasMore`).
    fn complete(
        &self,
        request: CompletionRequest,
        ctx: RequestContext,
    ) -> BoxFuture<Result<Value, HandlerError>>;
}

/// Decodes prompt arguments or template variables into their generated type.
pub fn decode_params<T: DeserializeOwned>(values: Map<String, Value>) -> Result<T, HandlerError> {
    serde_json::from_value(Value::Object(values))
        .map_err(|e| HandlerError::invalid_params(format!("invalid arguments: {e}")))
}

/// Encodes a handler's typed result.
pub fn encode_result<T: Serialize>(value: &T) -> Result<Value, HandlerError> {
    serde_json::to_value(value)
        .map_err(|e| HandlerError::internal(format!("cannot encode the result: {e}")))
}

/// The `ref` of a completion request for a prompt:
/// `{"type": "ref/prompt", "name": name}`.
pub fn prompt_ref(name: &str) -> Value {
    json!({ "type": "ref/prompt", "name": name })
}

/// The `ref` of a completion request for a resource template:
/// `{"type": "ref/resource", "uri": template}`.
pub fn template_ref(template: &str) -> Value {
    json!({ "type": "ref/resource", "uri": template })
}

/// The `completion` object of an empty completion.
pub fn no_completion() -> Value {
    json!({ "values": [] })
}

/// What a completion handler returns: the `completion` of a
/// `CompleteResult` (at most 100 values are sent; more set `hasMore`).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Completion {
    /// The suggestions, best first.
    pub values: Vec<String>,
    /// How many suggestions there are in all, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total: Option<u64>,
    /// Whether there are more suggestions than `values`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub has_more: Option<bool>,
}

impl Completion {
    /// The suggestions `values`.
    pub fn new<I: IntoIterator<Item = S>, S: Into<String>>(values: I) -> Self {
        Self {
            values: values.into_iter().map(Into::into).collect(),
            total: None,
            has_more: None,
        }
    }

    /// The values of `candidates` that start with `prefix`, in order.
    pub fn matching<'a, I: IntoIterator<Item = &'a str>>(candidates: I, prefix: &str) -> Self {
        Self::new(candidates.into_iter().filter(|c| c.starts_with(prefix)))
    }
}
