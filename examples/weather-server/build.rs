//! Generates the server from `tools.json` at build time.
//!
//! The protocol revision is `2025-11-25` unless `WEATHER_PROTOCOL` names
//! another one. Schemas come from the usual store (cache, then
//! `MCPGEN_SCHEMA_MIRROR`, then download); inside this repository the
//! official schemas in `../shared/mcp-spec` serve as the mirror when
//! `MCPGEN_SCHEMA_MIRROR` is not set.

use std::path::{Path, PathBuf};

use mcpgen::codegen;
use mcpgen::emit::{self, Header};
use mcpgen::manifest::Manifest;
use mcpgen::spec::Spec;
use mcpgen::store::Store;

fn main() {
    if let Err(e) = generate() {
        // cargo prints build-script stderr on failure.
        eprintln!("error: {e}");
        std::process::exit(1);
    }
}

fn generate() -> mcpgen::Result<()> {
    let root = PathBuf::from(env("CARGO_MANIFEST_DIR"));
    let manifest_path = root.join("tools.json");
    let revision = std::env::var("WEATHER_PROTOCOL").unwrap_or_else(|_| "2025-11-25".to_owned());
    println!("cargo:rerun-if-changed={}", manifest_path.display());
    println!("cargo:rerun-if-env-changed=WEATHER_PROTOCOL");
    println!("cargo:rerun-if-env-changed=MCPGEN_SCHEMA_MIRROR");

    let mut store = Store::from_env();
    let shared = root.join("../../../shared/mcp-spec");
    if store.mirror.is_none() && shared.is_dir() {
        store.mirror = Some(shared);
    }
    let schema = store.resolve(&revision, None)?;
    println!("cargo:rerun-if-changed={}", schema.path.display());
    let spec = Spec::from_json(&schema.json, &format!("MCP schema {revision}"))?;
    let manifest = Manifest::load(&manifest_path)?;

    let protocol = codegen::protocol::generate(&spec)?;
    let tools = codegen::tools::generate(&manifest)?;
    for warning in &tools.warnings {
        println!("cargo:warning={}", warning.to_string().replace('\n', " "));
    }
    let server = codegen::server::generate(&manifest, &tools.tools, &spec, &revision)?;

    let header = Header::new().input(format!("protocol revision {revision}")).input("manifest tools.json");
    let files = [
        ("protocol.rs", protocol),
        ("tools.rs", tools.tokens),
        ("server.rs", server),
        ("client.rs", proc_macro2::TokenStream::new()),
    ];
    let mut out = Vec::new();
    for (name, tokens) in files {
        out.push((name.to_owned(), emit::format(tokens, &header)?));
    }
    emit::write_all(Path::new(&env("OUT_DIR")), &out)?;
    Ok(())
}

fn env(name: &str) -> String {
    std::env::var(name).unwrap_or_else(|_| panic!("{name} is set by cargo"))
}
