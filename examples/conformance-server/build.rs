//! Generates the conformance server from `tools.json` with `mcpgen::Builder`
//! into `$OUT_DIR`. Inside this repository the official schemas in
//! `../shared/mcp-spec` serve as the mirror when `MCPGEN_SCHEMA_MIRROR` is
//! not set.

use std::path::PathBuf;

use mcpgen::store::Store;

fn main() {
    let root = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").unwrap_or_default());
    let store = Store::from_env().or_mirror(root.join("../../../shared/mcp-spec"));
    mcpgen::Builder::new()
        .protocol("2025-11-25")
        .manifest(root.join("tools.json"))
        .store(store)
        .server(true)
        .client(false)
        .compile_or_exit();
}
