//! Generates the server and the client from `manifest.json` at build time
//! with `mcpgen::Builder`, into `$OUT_DIR` (included by
//! `include_generated!`). Inside this repository the official schemas in
//! `../shared/mcp-spec` serve as the mirror when `MCPGEN_SCHEMA_MIRROR` is
//! not set.

use std::path::PathBuf;

use mcpgen::store::Store;

fn main() {
    let root = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").unwrap_or_default());
    let mut store = Store::from_env();
    let shared = root.join("../../../shared/mcp-spec");
    if store.mirror.is_none() && shared.is_dir() {
        store.mirror = Some(shared);
    }
    let result = mcpgen::Builder::new()
        .protocol("2025-11-25")
        .manifest(root.join("manifest.json"))
        .store(store)
        .server(true)
        .client(true)
        .compile();
    if let Err(e) = result {
        eprintln!("error: {e}");
        std::process::exit(1);
    }
}
