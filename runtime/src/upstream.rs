//! Calling an existing HTTP API from a tool: the `x-mcpgen.http` binding
//! an OpenAPI import writes into each tool ([`binding`]), and, with the
//! cargo feature `upstream`, the client (`Upstream`) that builds each
//! request from a call's arguments, sends it and turns the answer into the
//! tool's result.
//!
//! The parts, one job each: `pct` (percent-encoding), `style` (OpenAPI
//! parameter styles, RFC 6570), `body` (JSON, form, multipart and raw
//! bodies), `request` (a call's request from its binding), `auth` and
//! `token` (the API's credentials; OAuth client credentials), `retry`
//! (what is sent again, and when), `net` (connections per origin, the
//! deadline, redirects, the size limit), `response` (the answer as the
//! tool's result), `error` (why the client could not start) and `client`
//! (`Upstream` and its builder).
//!
//! Credentials: only the API's own, from the builder or the environment
//! variables each security scheme names (`MCP_UPSTREAM_AUTH_…`). The MCP
//! client's token (what the server's bearer gate checked) is never passed
//! on: nothing here reads it. Credentials go only to the API's origin (a
//! redirect elsewhere is followed without them) and never into a message
//! or a log.

pub mod binding;

#[cfg(feature = "upstream")]
mod auth;
#[cfg(feature = "upstream")]
mod body;
#[cfg(feature = "upstream")]
mod client;
#[cfg(feature = "upstream")]
mod error;
#[cfg(feature = "upstream")]
mod net;
#[cfg(feature = "upstream")]
mod pct;
#[cfg(feature = "upstream")]
mod request;
#[cfg(feature = "upstream")]
mod response;
#[cfg(feature = "upstream")]
mod retry;
#[cfg(feature = "upstream")]
mod style;
#[cfg(feature = "upstream")]
mod token;

pub use binding::{
    Body, Encoding, HttpBinding, Location, Output, Parameter, SchemeKind, SecurityScheme,
    ServerUrl, ServerVariable, Style,
};
#[cfg(feature = "upstream")]
pub use client::{
    Answer, Upstream, UpstreamBuilder, DEFAULT_MAX_RESPONSE_BYTES, DEFAULT_MAX_RETRIES,
    DEFAULT_TIMEOUT, UPSTREAM_URL_VAR,
};
#[cfg(feature = "upstream")]
pub use error::UpstreamError;
#[cfg(feature = "upstream")]
pub use response::{ApiResponse, ERROR_BODY_LIMIT};
