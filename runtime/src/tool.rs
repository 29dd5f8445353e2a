//! The seam between the engine and generated code: how a tool call is
//! dispatched ([`Dispatch`]), what a handler returns ([`ToolOutput`],
//! [`ToolError`]) and the helpers the generated glue uses to decode typed
//! inputs and encode typed outputs.

use std::future::Future;
use std::pin::Pin;

use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::Value;

use crate::context::RequestContext;
pub use crate::tool_error::ToolError;
use crate::validate::FieldError;

/// A boxed, sendable future.
pub type BoxFuture<T> = Pin<Box<dyn Future<Output = T> + Send + 'static>>;

/// What a handler produced, already encoded as JSON.
#[derive(Debug, Clone, PartialEq)]
pub enum ToolOutput {
    /// A typed output of a tool with `outputSchema`: validated by the engine,
    /// then sent as `structuredContent` plus a text block with the same JSON.
    Structured(Value),
    /// Content blocks of a tool without `outputSchema` (a JSON array).
    Content(Value),
}

/// Why a dispatched call did not produce output.
#[derive(Debug, Clone, PartialEq)]
pub enum CallFailure {
    /// The arguments did not decode into the tool's input type; answered
    /// like a schema validation failure.
    InvalidArguments(Vec<FieldError>),
    /// The handler failed.
    Tool(ToolError),
    /// The call needs client capabilities the caller did not declare.
    MissingCapability(Value),
    /// The output could not be encoded as JSON (a bug in the handler's types).
    Encode(String),
}

impl From<ToolError> for CallFailure {
    fn from(err: ToolError) -> Self {
        match err.required_capabilities() {
            Some(required) => Self::MissingCapability(required.clone()),
            None => Self::Tool(err),
        }
    }
}

/// Dispatches a call by tool index (position in the tool table) to a typed
/// handler. Implemented by generated code.
pub trait Dispatch: Send + Sync + 'static {
    /// Runs tool number `index` with its (already validated) arguments.
    fn call(&self, index: usize, arguments: Value, ctx: RequestContext) -> BoxFuture<Result<ToolOutput, CallFailure>>;
}

/// Decodes validated arguments into a tool's input type.
pub fn decode_arguments<T: DeserializeOwned>(arguments: Value) -> Result<T, CallFailure> {
    serde_json::from_value(arguments).map_err(|e| {
        CallFailure::InvalidArguments(vec![FieldError::new("", format!("cannot decode arguments: {e}"))])
    })
}

/// Encodes a typed output of a tool with `outputSchema`.
pub fn encode_output<T: Serialize>(output: &T) -> Result<ToolOutput, CallFailure> {
    serde_json::to_value(output).map(ToolOutput::Structured).map_err(|e| CallFailure::Encode(e.to_string()))
}

/// Encodes the content blocks of a tool without `outputSchema`.
pub fn encode_content<T: Serialize>(content: &[T]) -> Result<ToolOutput, CallFailure> {
    serde_json::to_value(content).map(ToolOutput::Content).map_err(|e| CallFailure::Encode(e.to_string()))
}

/// A text content block, for tools without `outputSchema` whose handlers
/// build content as JSON.
pub fn text_block(text: impl Into<String>) -> Value {
    serde_json::json!({ "type": "text", "text": text.into() })
}
