//! mcpgen: Rust code generation for the Model Context Protocol.
//!
//! Reads the official MCP JSON schema of one protocol revision and a tool
//! manifest, and emits typed protocol messages, typed tool inputs and
//! outputs, a server stub and client bindings. See `DESIGN` in the README
//! for the data flow: `spec` → `codegen` → `emit`.
//!
//! As a build dependency, use the library alone
//! (`default-features = false`): [`Builder`] and the generators. The `cli`
//! feature (on by default) adds what only the `mcpgen` command needs:
//! [`scaffold`] (`mcpgen new`) with [`synth`] (its synthesised tool
//! arguments), [`introspect`], [`diff`] (`mcpgen diff`), [`emit::check`]'s
//! diff rendering and schema download.

pub mod builder;
pub mod check;
pub mod codegen;
#[cfg(feature = "cli")]
pub mod diff;
pub mod emit;
pub mod error;
pub mod escape;
pub mod generator;
#[cfg(feature = "cli")]
pub mod introspect;
pub mod manifest;
pub mod naming;
#[cfg(feature = "cli")]
pub mod scaffold;
pub mod spec;
pub mod store;
#[cfg(feature = "cli")]
pub mod synth;

pub use builder::Builder;
pub use error::{Error, ErrorKind, Result};
pub use generator::Generator;
