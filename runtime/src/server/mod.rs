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
//!   `subscriptions/listen` requests (`answer::listen`).
//!
//! The rooms, bottom up (each reads only those below it; see
//! `runtime/tests/module_graph.rs`):
//!
//! ```text
//! handler   what a handler sees and gives back: context, sink, extras,
//!           peer, outbound, mrtr, cancel, notifier, tool_error
//! request   a message as data: message, params, scope, route, cursor,
//!           handled, reply                                (reads handler)
//! access    oauth_scopes, authz, audit                    (reads handler)
//! tools     tool, toolset, limits, catch                  (reads handler)
//! config, session, surface, tasks/, search/, skills       (read the rooms)
//! answer    methods (Core, the inline methods), era, call, reads,
//!           task_methods, listen
//! engine    routes each message to `answer`; trace wraps it in a span
//! stream, http/   the drivers; builder puts a `Server` together
//! ```

pub(crate) mod access;
pub(crate) mod answer;
mod builder;
mod config;
mod engine;
pub(crate) mod handler;
#[cfg(feature = "streamable-http")]
pub mod http;
pub(crate) mod request;
pub mod search;
mod session;
#[cfg(feature = "skills")]
mod skills;
mod stream;
pub(crate) mod surface;
pub mod tasks;
pub(crate) mod tools;
#[cfg(feature = "otel")]
mod trace;

pub use builder::{ServerBuilder, ServerError};
pub use config::{AccessHook, CacheHint, CacheScope, CallInfo, OutputHook, ServerConfig};
pub use engine::Server;
pub use request::handled::{Handled, Pending};
pub use request::reply::Reply;
pub use search::{SearchIndex, ToolSearch};
pub use session::{Session, SessionSnapshot};
#[cfg(feature = "skills")]
pub use skills::{Skills, SkillsError};

// What a server's author names, wherever in the engine it lives: the
// request context and its parts, requests to the client, tool results and
// hand-written dispatch.
pub use crate::server::access::oauth_scopes::INSUFFICIENT_SCOPE;
pub use crate::server::handler::cancel::CancellationToken;
pub use crate::server::handler::context::{
    ClientIdentity, LogLevel, Principal, RequestContext, Sink,
};
pub use crate::server::handler::notifier::Notifier;
#[cfg(feature = "schemars")]
pub use crate::server::handler::peer::form_schema;
pub use crate::server::handler::peer::{
    ElicitForm, Elicitation, PeerError, Root, SampleRequest, SampleResponse,
};
pub use crate::server::handler::tool_error::ToolError;
pub use crate::server::surface::{
    Completion, CompletionRef, CompletionRequest, HandlerError, ResourceTarget, Surface,
};
pub use crate::server::tools::limits::{
    LimitFuture, LimitScope, LimitStoreError, OnStoreError, RateLimit, RateLimitStore,
};
pub use crate::server::tools::tool::{
    decode_arguments, BoxFuture, CallFailure, Dispatch, EncodedOutput, ToolOutput,
};

#[cfg(feature = "streamable-http")]
pub(crate) use request::{
    handled::poll_once, message::Message, params::Params, scope::CachedScope,
};
