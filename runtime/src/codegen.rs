//! The prelude of generated code: `server.rs` and `client.rs` start with
//! `use mcpgen_runtime::codegen::*;` (as tonic's generated code starts with
//! `use tonic::codegen::*;`) and name what they use plainly. It holds only
//! what generated code needs, under names that do not clash with the
//! items generated beside it (the engine's client is `ClientEngine`, since
//! `client.rs` defines its own `Client`). Not meant for hand-written code,
//! which should import from the modules themselves.

pub use std::future::Future;
pub use std::sync::{Arc, OnceLock};

pub use serde_json::{self, json, Map, Value};

pub use crate::client::Client as ClientEngine;
pub use crate::client::{
    content_result, structured_result, CallOptions, ClientError, ClientOptions, Drift, Negotiated,
    Progress, TaskStart, ToolSchemas,
};
pub use crate::integral::integral_numbers;
pub use crate::server::search::{SearchIndex, ToolSearch};
pub use crate::server::surface::{
    decode_params, encode_result, no_completion, prompt_ref, template_ref, CompletionRef,
    CompletionRequest, ResourceTarget,
};
pub use crate::server::tools::tool::{
    decode_arguments, encode_content, encode_output, BoxFuture, CallFailure,
};
pub use crate::server::LimitScope;
pub use crate::transport::child::{ChildTransport, StderrMode};
pub use crate::transport::stdio::stdio;
pub use crate::transport::Transport;
pub use crate::{
    Completion, Dispatch, HandlerError, RateLimit, RequestContext, ServerBuilder, ServerError,
    Surface, ToolError, ToolOutput,
};

#[cfg(feature = "streamable-http")]
pub use crate::client::http::HttpTransport;
#[cfg(feature = "streamable-http")]
pub use crate::server::http::{bind_and_serve, HttpConfig, HttpService, ToSocketAddrs};
#[cfg(feature = "upstream")]
pub use crate::upstream::{ApiResponse, Upstream};
