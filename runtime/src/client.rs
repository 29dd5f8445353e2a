//! The client engine: calls a server's tools over any [`Transport`](crate::transport::Transport).
//!
//! Version-agnostic: it moves `serde_json::Value`s; generated clients add
//! the types. Layout:
//! - `handle`: [`Client`] itself, the one `impl` of all its methods;
//! - `engine`: the connection (request routing by id, progress, `ping`,
//!   timeouts with `notifications/cancelled`, transport closure, garbage);
//! - `handshake`: `initialize` / `server/discover` and version negotiation;
//! - `hooks`: the application's answers to server requests (sampling,
//!   elicitation, roots), live or as input responses;
//! - `tools`: `tools/call` and paged lists (`tools/list` and the others);
//! - `subscription`: `subscriptions/listen` streams (2026-07-28);
//! - `tasks`: tool calls as tasks, untyped and typed; `statuses` keeps the
//!   task status notifications of 2025-11-25 for their handles;
//! - `schemas`: compiled tool schemas and the checks of the typed call path;
//! - `surface`: results of prompts, resources and completion decoded;
//! - `drift`: live tools against the manifest;
//! - `options` and `error`;
//!
//! OAuth 2.1 authorization belongs to the Streamable HTTP transport:
//! [`oauth`] (feature `streamable-http`), beside the transport [`http`].
//!
//! Garbage on the protocol stream (a line that is not a JSON-RPC message)
//! fails every call in flight with [`ClientError::Garbage`] by default and
//! keeps the connection; see [`GarbagePolicy`].

mod drift;
mod engine;
mod error;
mod handle;
mod handshake;
mod hooks;
#[cfg(feature = "streamable-http")]
pub mod http;
#[cfg(feature = "streamable-http")]
pub mod oauth;
mod options;
mod schemas;
#[cfg(feature = "skills")]
mod skills;
mod statuses;
mod subscription;
mod surface;
mod tasks;
mod tools;
#[cfg(feature = "otel")]
mod trace;

pub use crate::jsonrpc::RpcError;
pub use drift::{Drift, SchemaChange, SchemaKind};
pub use engine::{Negotiated, ServerNotification};
pub use error::{ClientError, ConnectError, ConnectErrorKind, SchemaProblem};
pub use handle::Client;
pub use handshake::is_stateless_revision;
pub use hooks::{ClientHandlers, RequestHandler};
pub use options::{
    CallOptions, ClientOptions, GarbagePolicy, NotificationCallback, Progress, ProgressCallback,
};
pub use schemas::{content_result, structured_result, ToolSchemas};
#[cfg(feature = "skills")]
pub use skills::LoadedSkill;
pub use subscription::Subscription;
pub use tasks::{ResultDecoder, TaskStart, ToolStart, ToolTask, TypedTask};
