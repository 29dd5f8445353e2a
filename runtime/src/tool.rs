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

use crate::catch::panic_message;
use crate::context::RequestContext;
use crate::tool_error::ToolError;
use crate::validate::{Doc, FieldError};

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

/// Encodes a typed output of a tool with `outputSchema`.
///
/// While the server engine runs a tool call whose result it sends as is
/// (no output hook), the output is handed to the engine directly, encoded
/// once into a `Doc` that it validates and writes without building a
/// `Value`, and the `ToolOutput::Structured` returned here holds `null`
/// (the engine ignores it). Anywhere else, and for outputs a `Doc` does
/// not hold the way a `Value` would, it holds the output as a `Value`.
pub fn encode_output<T: Serialize>(output: &T) -> Result<ToolOutput, CallFailure> {
    if capture::armed() {
        if let Some(doc) = Doc::encode(output) {
            capture::fill(doc);
            return Ok(ToolOutput::Structured(Value::Null));
        }
    }
    serde_json::to_value(output)
        .map(ToolOutput::Structured)
        .map_err(|e| CallFailure::Encode(e.to_string()))
}

/// The hand-over of an encoded output from [`encode_output`] to the
/// engine: a per-thread slot, armed only while the engine polls a tool
/// call that wants it.
mod capture {
    use std::cell::RefCell;

    use crate::validate::Doc;

    pub(super) enum Slot {
        Off,
        Armed,
        Filled(Doc),
    }

    thread_local! {
        static SLOT: RefCell<Slot> = const { RefCell::new(Slot::Off) };
    }

    pub(super) fn armed() -> bool {
        SLOT.with(|s| !matches!(*s.borrow(), Slot::Off))
    }

    pub(super) fn fill(doc: Doc) {
        SLOT.with(|s| *s.borrow_mut() = Slot::Filled(doc));
    }

    /// Arms the slot until dropped (or [`Armed::finish`]), then puts back
    /// what was there, so nested polls and panics leave it as it was.
    pub(super) struct Armed {
        previous: Option<Slot>,
    }

    impl Armed {
        pub(super) fn new() -> Self {
            Self {
                previous: Some(SLOT.with(|s| std::mem::replace(&mut *s.borrow_mut(), Slot::Armed))),
            }
        }

        /// Disarms; the document encoded meanwhile, if any.
        pub(super) fn finish(mut self) -> Option<Doc> {
            let previous = self.previous.take().unwrap_or(Slot::Off);
            match SLOT.with(|s| std::mem::replace(&mut *s.borrow_mut(), previous)) {
                Slot::Filled(doc) => Some(doc),
                Slot::Off | Slot::Armed => None,
            }
        }
    }

    impl Drop for Armed {
        fn drop(&mut self) {
            if let Some(previous) = self.previous.take() {
                SLOT.with(|s| *s.borrow_mut() = previous);
            }
        }
    }
}

/// A dispatched tool call as the engine polls it: panics are caught
/// (`Err(message)`), and with `capture` the output [`encode_output`]
/// encodes is kept in [`HandlerCall::doc`].
pub(crate) struct HandlerCall {
    inner: BoxFuture<Result<ToolOutput, CallFailure>>,
    capture: bool,
    /// The output as encoded by [`encode_output`] during the call.
    pub(crate) doc: Option<Doc>,
}

impl HandlerCall {
    pub(crate) fn new(inner: BoxFuture<Result<ToolOutput, CallFailure>>, capture: bool) -> Self {
        Self {
            inner,
            capture,
            doc: None,
        }
    }
}

impl Future for HandlerCall {
    type Output = Result<Result<ToolOutput, CallFailure>, String>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.get_mut();
        let armed = this.capture.then(capture::Armed::new);
        // The future is dropped right after a panic and never polled again,
        // so no broken invariant inside it can be observed.
        let polled = std::panic::catch_unwind(AssertUnwindSafe(|| this.inner.as_mut().poll(cx)));
        if let Some(doc) = armed.and_then(capture::Armed::finish) {
            this.doc = Some(doc);
        }
        match polled {
            Ok(Poll::Pending) => Poll::Pending,
            Ok(Poll::Ready(output)) => Poll::Ready(Ok(output)),
            Err(payload) => Poll::Ready(Err(panic_message(payload.as_ref()))),
        }
    }
}

/// Encodes the content blocks of a tool without `outputSchema`.
///
/// Inside a tool call of the engine, the content is handed over encoded,
/// as with [`encode_output`] (the `ToolOutput::Content` returned then holds
/// `null`).
pub fn encode_content<T: Serialize>(content: &[T]) -> Result<ToolOutput, CallFailure> {
    if capture::armed() {
        if let Some(doc) = Doc::encode(content) {
            capture::fill(doc);
            return Ok(ToolOutput::Content(Value::Null));
        }
    }
    serde_json::to_value(content)
        .map(ToolOutput::Content)
        .map_err(|e| CallFailure::Encode(e.to_string()))
}
