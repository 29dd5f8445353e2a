//! The MCP server engine, split the way the protocol is:
//!
//! - [`Server`] (built once by [`ServerBuilder`], cheap to clone): the
//!   settings, the tool table with validators compiled once, the generated
//!   dispatch and the hooks;
//! - [`Session`]: one client's state (era, `initialize` identity, log
//!   level, requests in flight), per connection, per stateful HTTP session
//!   or per stateless request;
//! - [`Server::handle`] / [`Server::handle_text`]: the one per-message
//!   entry point, answering nothing, a [`Reply`] now, or a [`Pending`] one;
//! - drivers: [`Server::serve`] over any message stream (stdio) and, with
//!   the `streamable-http` feature, the Streamable HTTP service (the `http`
//!   module, which drives this one);
//! - [`Server::notifier`]: run-time list changes and resource updates, to
//!   the streams drivers gave sessions with [`Server::listen`] and to
//!   `subscriptions/listen` requests (`notify`).
//!
//! Modules depend one way. At the bottom, `config` (the author's
//! settings), `params`, `scope`, `reply` and `authz` (who may use what)
//! know nothing of the others; `session` reads `scope`, `message` reads
//! `params` and `scope`, `handled` (what handling a message produced)
//! reads `reply`. `methods` (the shared `Core` and what each MCP method
//! means) reads them; the topics `call` (`tools/call`), `reads`, `tasking`
//! (tasks) and `notify` (listening) read `methods` or only the parts they
//! are given; `engine` routes messages to the topics (and responses to
//! the session's requests to the client); `stream` is handed the engine's
//! entry points and never names it; `builder` puts a `Server` together.

mod authz;
mod builder;
mod call;
mod config;
mod engine;
mod handled;
mod message;
mod methods;
mod notify;
mod params;
mod reads;
mod reply;
mod route;
mod scope;
mod session;
mod stream;
mod tasking;

pub use builder::{ServerBuilder, ServerError};
pub use config::{AccessHook, CacheHint, CacheScope, CallInfo, OutputHook, ServerConfig};
pub use engine::Server;
pub use handled::{Handled, Pending};
pub use reply::Reply;
pub use session::{Session, SessionSnapshot};

// What a server's author names, wherever in the engine it lives: the
// request context and its parts, requests to the client, tool results and
// hand-written dispatch.
pub use crate::cancel::CancellationToken;
pub use crate::context::{ClientIdentity, LogLevel, Principal, RequestContext, Sink};
pub use crate::limits::RateLimit;
pub use crate::notifier::Notifier;
#[cfg(feature = "schemars")]
pub use crate::peer::form_schema;
pub use crate::peer::{ElicitForm, Elicitation, PeerError, Root, SampleRequest, SampleResponse};
pub use crate::scopes::INSUFFICIENT_SCOPE;
pub use crate::surface::{
    Completion, CompletionRef, CompletionRequest, HandlerError, ResourceTarget, Surface,
};
pub use crate::tool::{
    decode_arguments, BoxFuture, CallFailure, Dispatch, EncodedOutput, ToolOutput,
};
pub use crate::tool_error::ToolError;

/// Long-running tools (the tasks of 2025-11-25 and the
/// `io.modelcontextprotocol/tasks` extension of 2026-07-28): the context
/// a task handler reports through, task state and where it is kept.
pub mod tasks {
    #[cfg(feature = "redis")]
    pub use crate::tasks::RedisTaskStore;
    pub use crate::tasks::{
        MemoryTaskStore, TaskChange, TaskContext, TaskFuture, TaskOptions, TaskRecord, TaskStatus,
        TaskStore, TaskStoreError, TaskSupport, EXTENSION, RELATED_TASK,
    };
}
#[cfg(feature = "streamable-http")]
pub(crate) use {handled::poll_once, message::Message, params::Params, scope::CachedScope};
