//! Manifest loading (JSON and YAML) and `manifest check`: any text gives a
//! manifest or errors, never a panic, a hang or unbounded memory.
//!
//! Byte 0 picks the format and the revision, the rest is the text. The
//! two revisions' schemas are resolved once (`MCPGEN_SCHEMA_MIRROR`), not
//! on every input.

#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use mcpgen::manifest::Manifest;
use mcpgen::store::{ResolvedSchema, Store};

fn schema(revision: &str) -> &'static ResolvedSchema {
    static SCHEMAS: OnceLock<[ResolvedSchema; 2]> = OnceLock::new();
    let [old, new] = SCHEMAS.get_or_init(|| {
        let store = Store::from_env();
        ["2025-06-18", "2026-07-28"].map(|rev| store.resolve(rev, None).unwrap_or_else(|e| panic!("{e}")))
    });
    if revision == old.revision { old } else { new }
}

fuzz_target!(|data: &[u8]| {
    let Some((&format, rest)) = data.split_first() else { return };
    let Ok(text) = std::str::from_utf8(rest) else { return };
    let name = if format % 2 == 0 { "fuzz.json" } else { "fuzz.yaml" };
    let revision = if format & 2 == 0 { "2025-06-18" } else { "2026-07-28" };
    if let Ok(m) = Manifest::from_str(text, name) {
        let _ = mcpgen::check::against(&m, schema(revision));
    }
});
