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

    let mut store = Store::from_env();
    let shared = root.join("../../../shared/mcp-spec");
    if store.mirror.is_none() && shared.is_dir() {
        store.mirror = Some(shared);
    }
    let out_dir = PathBuf::from(std::env::var_os("OUT_DIR").unwrap_or_default());
    let generate = |revision: &str, dir: PathBuf| {
        mcpgen::Builder::new()
            .protocol(revision)
            .manifest(root.join("tools.json"))
            .store(store.clone())
            .server(true)
            .client(false)
            .out_dir(dir)
            .compile()
    };
    let result = generate(&revision, out_dir.clone()).and_then(|_| generate("2025-06-18", out_dir.join("2025-06-18")));
    if let Err(e) = result {
        // cargo shows a build script's stderr when it fails.
        eprintln!("error: {e}");
        std::process::exit(1);
    }
}
