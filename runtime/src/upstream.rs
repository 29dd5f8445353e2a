//! Calling an existing HTTP API from a tool: the `x-mcpgen.http` binding
//! an OpenAPI import writes into each tool ([`binding`]), and, with the
//! cargo feature `upstream`, the client that builds each request from a
//! call's arguments, sends it and turns the answer into the tool's result.

pub mod binding;

pub use binding::{
    Body, Encoding, HttpBinding, Location, Output, Parameter, SchemeKind, SecurityScheme,
    ServerUrl, ServerVariable, Style,
};
