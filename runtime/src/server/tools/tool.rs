//! The seam between the engine and generated code: how a tool call is
//! dispatched ([`Dispatch`]), what a handler returns ([`ToolOutput`],
//! [`ToolError`]) and the helpers the generated glue uses to decode typed
//! inputs and encode typed outputs.

use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::pin::Pin;
use std::task::{Context, Poll};

use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::Value;

use crate::schema::{Doc, FieldError};
use crate::server::handler::context::RequestContext;
use crate::server::handler::tool_error::ToolError;
use crate::server::tools::catch::panic_message;

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
    /// Either of the above as the generated glue encodes it
    /// ([`encode_output`], [`encode_content`]): straight into the document
    /// the engine validates and writes, with no `Value` built.
    Encoded(EncodedOutput),
}

/// A tool's structured output or content blocks, encoded once into the
/// document the engine validates and writes as is.
#[derive(Debug, Clone)]
pub struct EncodedOutput {
    /// A typed output (`structuredContent`), else content blocks.
    structured: bool,
    doc: Doc,
}

impl EncodedOutput {
    /// Whether this is a typed output (`structuredContent`) rather than
    /// content blocks.
    pub fn is_structured(&self) -> bool {
        self.structured
    }

    /// The output as a `Value`.
    pub fn to_value(&self) -> Value {
        self.doc.to_value()
    }

    /// The compact JSON text of the output.
    pub fn json(&self) -> &str {
        self.doc.json()
    }

    pub(crate) fn doc(&self) -> &Doc {
        &self.doc
    }
}

impl PartialEq for EncodedOutput {
    fn eq(&self, other: &Self) -> bool {
        self.structured == other.structured && self.doc.json() == other.doc.json()
    }
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
    fn call(
        &self,
        index: usize,
        arguments: Value,
        ctx: RequestContext,
    ) -> BoxFuture<Result<ToolOutput, CallFailure>>;
}

/// Decodes validated arguments into a tool's input type, integers
/// written with a zero fraction (`5.0`, `1e3`) read as the integers they
/// are (`integral_numbers`).
pub fn decode_arguments<T: DeserializeOwned>(mut arguments: Value) -> Result<T, CallFailure> {
    crate::integral::integral_numbers(&mut arguments);
    serde_json::from_value(arguments).map_err(|e| {
        CallFailure::InvalidArguments(vec![FieldError::new(
            "",
            format!("cannot decode arguments: {e}"),
        )])
    })
}

/// Encodes a typed output of a tool with `outputSchema`: into the
/// document the engine validates and writes as is
/// ([`ToolOutput::Encoded`]), or as a `Value` when the document cannot
/// hold it the way a `Value` would.
pub fn encode_output<T: Serialize>(output: &T) -> Result<ToolOutput, CallFailure> {
    match Doc::encode(output) {
        Some(doc) => Ok(ToolOutput::Encoded(EncodedOutput {
            structured: true,
            doc,
        })),
        None => serde_json::to_value(output)
            .map(ToolOutput::Structured)
            .map_err(|e| CallFailure::Encode(e.to_string())),
    }
}

/// How a dispatched tool call ended.
pub(crate) enum Invoked {
    /// The handler's output, encoded.
    Output(ToolOutput),
    /// The arguments did not decode, or the handler failed.
    Failed(CallFailure),
    /// The handler panicked, with this message.
    Panicked(String),
}

/// A dispatched tool call as the engine polls it, panics caught.
pub(crate) struct HandlerCall {
    inner: BoxFuture<Result<ToolOutput, CallFailure>>,
}

impl HandlerCall {
    pub(crate) fn new(inner: BoxFuture<Result<ToolOutput, CallFailure>>) -> Self {
        Self { inner }
    }
}

impl Future for HandlerCall {
    type Output = Invoked;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.get_mut();
        // The future is dropped right after a panic and never polled again,
        // so no broken invariant inside it can be observed.
        match std::panic::catch_unwind(AssertUnwindSafe(|| this.inner.as_mut().poll(cx))) {
            Ok(Poll::Pending) => Poll::Pending,
            Ok(Poll::Ready(Ok(output))) => Poll::Ready(Invoked::Output(output)),
            Ok(Poll::Ready(Err(failure))) => Poll::Ready(Invoked::Failed(failure)),
            Err(payload) => Poll::Ready(Invoked::Panicked(panic_message(payload.as_ref()))),
        }
    }
}

/// Encodes the content blocks of a tool without `outputSchema`, as
/// [`encode_output`] encodes a typed output.
pub fn encode_content<T: Serialize>(content: &[T]) -> Result<ToolOutput, CallFailure> {
    match Doc::encode(content) {
        Some(doc) => Ok(ToolOutput::Encoded(EncodedOutput {
            structured: false,
            doc,
        })),
        None => serde_json::to_value(content)
            .map(ToolOutput::Content)
            .map_err(|e| CallFailure::Encode(e.to_string())),
    }
}
