//! Generates the MCP bindings of the weather example's manifest
//! (`../weather-server/tools.json`) into `$OUT_DIR` with `mcpgen::Builder`;
//! `src/main.rs` includes them with `include_generated!`.
//!
//! Schemas come from the usual store (cache, then `MCPGEN_SCHEMA_MIRROR`,
//! then download); inside this repository the official schemas in
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
        .manifest(root.join("../weather-server/tools.json"))
        .store(store)
        .server(true)
        .client(false)
        .compile();
    if let Err(e) = result {
        // cargo shows a build script's stderr when it fails.
        eprintln!("error: {e}");
        std::process::exit(1);
    }
}
