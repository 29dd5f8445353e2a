//! The whole check of a manifest, as `mcpgen manifest check` runs it:
//! what the manifest declares ([`crate::manifest::check_declarations`]), then,
//! when that is clean, the Rust names the tools would get, worked out by
//! the [`Generator`] as `generate` does, so that names two tools would
//! share and type names a prompt or template shares with a tool's nested
//! types are reported too: what `check` accepts, `generate` generates and
//! the server serves.
//!
//! It sits above both: `manifest` reads and checks declarations without
//! the code generator; this module adds what only generating can tell.

use std::path::Path;

use crate::error::Error;
use crate::generator::Generator;
use crate::manifest::Manifest;

/// Reads, parses and checks a manifest file: every problem, or none.
pub fn check_file(path: impl AsRef<Path>, revision: &str) -> Vec<Error> {
    let path = path.as_ref();
    match std::fs::read_to_string(path) {
        Ok(text) => check_text(&text, &path.display().to_string(), revision),
        Err(e) => vec![Error::io("read manifest", path, e)],
    }
}

/// Parses and checks manifest text (`file_name` picks JSON or YAML and is
/// used in messages): every problem, or none.
pub fn check_text(text: &str, file_name: &str, revision: &str) -> Vec<Error> {
    match Manifest::from_str(text, file_name) {
        Ok(m) => check(&m, revision),
        Err(e) => vec![e],
    }
}

/// Every problem of a parsed manifest for protocol `revision`, in document
/// order. An empty list means the manifest is good: `generate` generates
/// it and the generated server starts with it.
pub fn check(m: &Manifest, revision: &str) -> Vec<Error> {
    Generator::check(m, revision)
}
