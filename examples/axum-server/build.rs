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
    let store = Store::from_env().or_mirror(root.join("../../../shared/mcp-spec"));
    mcpgen::Builder::new()
        .protocol("2025-11-25")
        .manifest(root.join("../weather-server/tools.json"))
        .store(store)
        .server(true)
        .client(false)
        .compile_or_exit();
}
