//! mcpgen: Rust code generation for the Model Context Protocol.
//!
//! Reads the official MCP JSON schema of one protocol revision and a tool
//! manifest, and emits typed protocol messages, typed tool inputs and
//! outputs, a server stub and client bindings (ARCHITECTURE.md has the
//! data flow: `spec` → `codegen` → `emit`).
//!
//! As a build dependency, use the library alone
//! (`default-features = false`): [`Builder`] in `build.rs`, over a
//! [`Spec`] resolved by the [`Store`] and a [`Manifest`] ([`check`] lists
//! every problem of one). The generator the builder and the CLI run is
//! internal. Errors are
//! [`Error`]s with an [`ErrorKind`]. The `cli` feature (on by default)
//! adds what only the `mcpgen` command needs: `mcpgen new`, `diff`,
//! `introspect` and schema download.

// The library's API: the build-script builder, the generator it runs,
// the manifest check, and the inputs (schema store, spec, manifest).
pub mod builder;
pub mod check;
pub mod error;
mod generator;
mod include;
pub mod manifest;
pub mod openapi;
pub mod spec;
pub mod store;

// The steps behind them and the `mcpgen` command's own parts: public for
// the command and the tests, hidden from the docs and not part of the API.
#[cfg(feature = "cli")]
#[doc(hidden)]
pub mod cli;
#[doc(hidden)]
pub mod codegen;
#[doc(hidden)]
pub mod emit;
#[doc(hidden)]
pub mod escape;
#[doc(hidden)]
pub mod naming;

/// The tests' data from outside the repository (one helper for the
/// library's unit tests and the integration tests).
#[cfg(test)]
#[path = "../tests/shared_data/mod.rs"]
mod shared_data;
// `mcpgen::` in that helper, as the integration tests write it.
#[cfg(test)]
extern crate self as mcpgen;

pub use builder::Builder;
pub use codegen::tools::{ToolBinding, ToolsOutput};
pub use emit::Header;
pub use error::{Error, ErrorKind, Result};
pub use generator::ProtocolTypes;
pub use manifest::Manifest;
pub use spec::Spec;
pub use store::Store;
