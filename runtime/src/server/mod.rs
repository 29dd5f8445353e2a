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
//! - [`search`]: for a large catalog, `tools/list` answers `search_tools`
//!   and `call_tool` in place of every tool (`call_tool` becomes the
//!   direct call before the request is read further);
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

pub(crate) mod audit;
mod authz;
mod builder;
mod call;
pub(crate) mod cancel;
pub(crate) mod catch;
mod config;
pub(crate) mod context;
pub(crate) mod cursor;
mod engine;
pub(crate) mod extras;
mod handled;
#[cfg(feature = "streamable-http")]
pub mod http;
pub(crate) mod limits;
mod message;
mod methods;
pub(crate) mod mrtr;
pub(crate) mod notifier;
mod notify;
pub(crate) mod outbound;
mod params;
pub(crate) mod peer;
mod reads;
mod reply;
mod route;
mod scope;
pub(crate) mod scopes;
pub mod search;
mod session;
pub(crate) mod sink;
#[cfg(feature = "skills")]
mod skills;
mod stream;
pub(crate) mod surface;
mod tasking;
pub mod tasks;
pub(crate) mod tool;
pub(crate) mod tool_error;
pub(crate) mod toolset;
#[cfg(feature = "otel")]
mod trace;

pub use builder::{ServerBuilder, ServerError};
pub use config::{AccessHook, CacheHint, CacheScope, CallInfo, OutputHook, ServerConfig};
pub use engine::Server;
pub use handled::{Handled, Pending};
pub use reply::Reply;
pub use search::{SearchIndex, ToolSearch};
pub use session::{Session, SessionSnapshot};
#[cfg(feature = "skills")]
pub use skills::{Skills, SkillsError};

// What a server's author names, wherever in the engine it lives: the
// request context and its parts, requests to the client, tool results and
// hand-written dispatch.
pub use crate::server::cancel::CancellationToken;
pub use crate::server::context::{ClientIdentity, LogLevel, Principal, RequestContext, Sink};
pub use crate::server::limits::{
    LimitFuture, LimitScope, LimitStoreError, OnStoreError, RateLimit, RateLimitStore,
};
pub use crate::server::notifier::Notifier;
#[cfg(feature = "schemars")]
pub use crate::server::peer::form_schema;
pub use crate::server::peer::{
    ElicitForm, Elicitation, PeerError, Root, SampleRequest, SampleResponse,
};
pub use crate::server::scopes::INSUFFICIENT_SCOPE;
pub use crate::server::surface::{
    Completion, CompletionRef, CompletionRequest, HandlerError, ResourceTarget, Surface,
};
pub use crate::server::tool::{
    decode_arguments, BoxFuture, CallFailure, Dispatch, EncodedOutput, ToolOutput,
};
pub use crate::server::tool_error::ToolError;

#[cfg(feature = "streamable-http")]
pub(crate) use {handled::poll_once, message::Message, params::Params, scope::CachedScope};
