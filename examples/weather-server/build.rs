//! Generates the server from `tools.json` at build time with
//! `mcpgen::Builder`, into `$OUT_DIR` (included by `include_generated!`),
//! and once more for revision 2025-06-18 into `$OUT_DIR/2025-06-18` (the
//! `weather-server-2025-06-18` binary).
//!
//! The main revision is `2025-11-25` unless `WEATHER_PROTOCOL` names
//! another one. Schemas come from the usual store (cache, then
//! `MCPGEN_SCHEMA_MIRROR`, then download); inside this repository the
//! official schemas in `../shared/mcp-spec` serve as the mirror when
//! `MCPGEN_SCHEMA_MIRROR` is not set.

use std::path::PathBuf;

use mcpgen::store::Store;

fn main() {
    let root = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").unwrap_or_default());
    let revision = std::env::var("WEATHER_PROTOCOL").unwrap_or_else(|_| "2025-11-25".to_owned());
    println!("cargo:rerun-if-env-changed=WEATHER_PROTOCOL");

    let store = Store::from_env().or_mirror(root.join("../../../shared/mcp-spec"));
    let out_dir = PathBuf::from(std::env::var_os("OUT_DIR").unwrap_or_default());
    for (revision, dir) in [
        (revision.as_str(), out_dir.clone()),
        ("2025-06-18", out_dir.join("2025-06-18")),
    ] {
        mcpgen::Builder::new()
            .protocol(revision)
            .manifest(root.join("tools.json"))
            .store(store.clone())
            .server(true)
            .client(false)
            .out_dir(dir)
            .compile_or_exit();
    }
}
