//! Test data from outside the repository, for the tests of the `mcpgen`
//! package (the integration tests `mod` it; the library's unit tests
//! include it by path): the official schemas ([`mirror`]), and what only
//! `../shared` beside the repository has (real server manifests), through
//! [`data`], which the runtime's tests include too.
//!
//! The schemas are always available: `MCPGEN_SCHEMA_MIRROR`, else
//! `../shared/mcp-spec`, else every pinned revision downloaded once into
//! the user's cache, which is laid out as a mirror.

#![allow(dead_code)]

use std::path::PathBuf;
use std::sync::OnceLock;

#[path = "data.rs"]
mod data;
// Not every test crate uses every helper.
#[allow(unused_imports)]
pub(crate) use data::{ci, shared, shared_data, skip};

/// A directory laid out `<revision>/schema.json` holding every pinned
/// revision: `MCPGEN_SCHEMA_MIRROR`, else `../shared/mcp-spec`, else the
/// user's cache after pulling every revision into it (sha256-checked).
pub(crate) fn mirror() -> PathBuf {
    static MIRROR: OnceLock<PathBuf> = OnceLock::new();
    MIRROR
        .get_or_init(|| {
            if let Some(m) = std::env::var_os("MCPGEN_SCHEMA_MIRROR").filter(|m| !m.is_empty()) {
                return PathBuf::from(m);
            }
            let beside = shared().join("mcp-spec");
            if beside.is_dir() {
                return beside;
            }
            let store = mcpgen::store::Store::from_env();
            store.pull(None).unwrap_or_else(|e| {
                panic!(
                    "the official schemas are needed: no MCPGEN_SCHEMA_MIRROR, no {}, and {e}",
                    beside.display()
                )
            });
            store.cache_dir
        })
        .clone()
}

/// The official schema file of a pinned `revision` (see [`mirror`]).
pub(crate) fn schema_file(revision: &str) -> PathBuf {
    mirror().join(revision).join("schema.json")
}

/// A store that reads the official schemas from [`mirror`] and never
/// downloads: what the tests hand to `mcpgen::check::*_in` and the Builder.
pub(crate) fn store() -> mcpgen::store::Store {
    mcpgen::store::Store {
        cache_dir: mcpgen::store::default_cache_dir(),
        mirror: Some(mirror()),
        fetch: None,
    }
}
