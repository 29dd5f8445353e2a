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
use crate::validate::FieldError;

/// A boxed, sendable future.
pub type BoxFuture<T> = Pin<Box<dyn Future<Output = T> + Send + 'static>>;

/// A failure a tool handler reports. It is answered as a tool result with
/// `isError: true` and the message as text, so the model can read it.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolError {
    message: String,
    required_capabilities: Option<Value>,
}

impl ToolError {
    /// A tool error with this message.
    pub fn new(message: impl Into<String>) -> Self {
        Self { message: message.into(), required_capabilities: None }
    }

    /// The call needs client capabilities the caller did not declare
    /// (`{"sampling": {}}`): answered with the protocol error `-32021`
    /// (MissingRequiredClientCapability) instead of a tool result.
    pub fn missing_capabilities(required: Value) -> Self {
        let names: Vec<&str> = required.as_object().map(|o| o.keys().map(String::as_str).collect()).unwrap_or_default();
        Self {
            message: format!("the client did not declare the capabilities this tool needs: {}", names.join(", ")),
            required_capabilities: Some(required),
        }
    }

    /// The missing capabilities, for an error made by
    /// [`ToolError::missing_capabilities`].
    pub fn required_capabilities(&self) -> Option<&Value> {
        self.required_capabilities.as_ref()
    }

    /// The message sent to the caller.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl std::fmt::Display for ToolError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for ToolError {}

impl From<String> for ToolError {
    fn from(message: String) -> Self {
        Self::new(message)
    }
}

impl From<&str> for ToolError {
    fn from(message: &str) -> Self {
        Self::new(message)
    }
}

impl From<std::io::Error> for ToolError {
    fn from(err: std::io::Error) -> Self {
        Self::new(err.to_string())
    }
}

impl From<serde_json::Error> for ToolError {
    fn from(err: serde_json::Error) -> Self {
        Self::new(err.to_string())
    }
}

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
        match err.required_capabilities {
            Some(required) => Self::MissingCapability(required),
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
