//! The one check of a manifest. [`against`] is what [`check`] (the
//! library), [`crate::Builder`] (build scripts and `mcpgen generate`),
//! `mcpgen manifest check` and `mcpgen new` all run, so what `check`
//! accepts, `generate` generates and the server serves:
//!
//! 1. what the manifest declares ([`crate::manifest::check_declarations`]);
//! 2. when that is clean, the Rust names the tools would get, worked out
//!    by the generator as `generate` does (names two tools would share,
//!    type names a prompt or template shares with a tool's nested types);
//! 3. each tool, resource, template and prompt against the revision's own
//!    definition of it in the official schema
//!    ([`crate::manifest::conform`]), which needs the resolved schema.
//!
//! It sits above `manifest` and the generator: `manifest` reads and checks
//! declarations without the code generator; this module adds what only
//! generating and the official schema can tell.

use std::path::Path;

use crate::codegen::tools::ToolsOutput;
use crate::error::{Error, ErrorKind, Result};
use crate::generator::Generator;
use crate::manifest::{conform, Manifest};
use crate::store::{ResolvedSchema, Store};

/// What [`against`] found.
#[derive(Debug, Clone)]
pub struct Report {
    /// Problems of the manifest itself (steps 1 and 2), in document order:
    /// nothing can be generated while there is one.
    pub problems: Vec<Error>,
    /// Items the revision's official schema rejects (step 3): a server
    /// would serve them as declared, so they stop a server's generation;
    /// a client of someone else's server is generated with a warning each.
    pub off_spec: Vec<Error>,
    /// The manifest's tool types, when `problems` is empty (hand them to
    /// the generator so they are not generated twice).
    pub tools: Option<ToolsOutput>,
}

impl Report {
    /// Every problem: the manifest's own, then the off-spec items.
    pub fn into_errors(self) -> Vec<Error> {
        let mut all = self.problems;
        all.extend(self.off_spec);
        all
    }
}

/// The whole check of `m` for the revision of `schema`, the official
/// schema file it was resolved to.
pub fn against(m: &Manifest, schema: &ResolvedSchema) -> Report {
    let (mut problems, tools) = match Generator::checked(m, &schema.revision) {
        Ok(tools) => (Vec::new(), Some(tools)),
        Err(problems) => (problems, None),
    };
    // Conformance leaves out what the first two steps already reported.
    let own = problems.len();
    conform::extend(m, &schema.json, &schema.revision, &mut problems);
    let off_spec = problems
        .split_off(own)
        .into_iter()
        .map(|e| e.or_kind(ErrorKind::Manifest))
        .collect();
    Report {
        problems,
        off_spec,
        tools,
    }
}

/// [`against`] the schema `resolved` gave for `revision`, as a list of
/// every problem; when the schema could not be had, the first two steps'
/// problems and the reason the third could not run.
pub fn with_schema(m: &Manifest, revision: &str, resolved: Result<ResolvedSchema>) -> Vec<Error> {
    match resolved {
        Ok(schema) => against(m, &schema).into_errors(),
        Err(e) => {
            let mut problems = Generator::check(m, revision);
            problems.push(e);
            problems
        }
    }
}

/// The first two steps alone: what the manifest declares, and the Rust
/// names its tools would get (two tools sharing one), without the
/// revision's schema.
pub fn declarations_and_names(m: &Manifest, revision: &str) -> Vec<Error> {
    Generator::check(m, revision)
}

/// Every problem of a parsed manifest for protocol `revision`, in document
/// order, with the official schema from `store`. An empty list means the
/// manifest is good: `generate` generates it and the generated server
/// starts with it.
pub fn check_in(store: &Store, m: &Manifest, revision: &str) -> Vec<Error> {
    with_schema(m, revision, store.resolve(revision, None))
}

/// [`check_in`] the store of the environment ([`Store::from_env`]: the
/// user's cache, `MCPGEN_SCHEMA_MIRROR`, then a download).
pub fn check(m: &Manifest, revision: &str) -> Vec<Error> {
    check_in(&Store::from_env(), m, revision)
}

/// Reads, parses and [`check`]s a manifest file: every problem, or none.
pub fn check_file(path: impl AsRef<Path>, revision: &str) -> Vec<Error> {
    check_file_in(&Store::from_env(), path, revision)
}

/// [`check_file`] with the official schema from `store`.
pub fn check_file_in(store: &Store, path: impl AsRef<Path>, revision: &str) -> Vec<Error> {
    let path = path.as_ref();
    match std::fs::read_to_string(path) {
        Ok(text) => check_text_in(store, &text, &path.display().to_string(), revision),
        Err(e) => vec![Error::io("read manifest", path, e)],
    }
}

/// Parses and [`check`]s manifest text (`file_name` picks JSON or YAML and
/// is used in messages): every problem, or none.
pub fn check_text(text: &str, file_name: &str, revision: &str) -> Vec<Error> {
    check_text_in(&Store::from_env(), text, file_name, revision)
}

/// [`check_text`] with the official schema from `store`.
pub fn check_text_in(store: &Store, text: &str, file_name: &str, revision: &str) -> Vec<Error> {
    match Manifest::from_str(text, file_name) {
        Ok(m) => check_in(store, &m, revision),
        Err(e) => vec![e],
    }
}
