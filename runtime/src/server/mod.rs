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
//! Modules depend one way: `config` and `session` know nothing of the
//! others, `authz` (the scopes a request needs) reads `config`, `methods` (what each MCP method means) reads them, `engine`
//! routes messages to `methods` (and responses to the session's requests
//! to the client), `stream` drives `engine`.

mod authz;
mod builder;
mod config;
mod engine;
mod message;
mod methods;
mod params;
mod reply;
mod notify;
mod reads;
mod scope;
mod session;
mod stream;
mod tasking;

pub use builder::{ServerBuilder, ServerError};
pub use config::{AccessHook, CacheHint, CacheScope, CallInfo, OutputHook, ServerConfig};
pub use engine::{Handled, Pending, Server};
pub use reply::Reply;
pub use session::{Session, SessionSnapshot};
#[cfg(feature = "streamable-http")]
pub(crate) use {engine::poll_once, message::Message, params::Params, scope::CachedScope};
