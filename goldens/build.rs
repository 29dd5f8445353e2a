//! Writes two files to `$OUT_DIR` for `src/lib.rs`:
//!
//! - `protocol/protocol.rs`: the protocol types of revision 2025-11-25,
//!   generated from the official schema, which the manifest goldens
//!   (`protocol::…`, imported with `use super::{protocol, tools}`) link
//!   against. Text generated from the official
//!   schema is never committed, so it is generated here, at build time.
//! - `goldens.rs`: one module per golden file, found by listing
//!   `goldens/protocol/*.rs` and `goldens/manifests/*.{tools,server,client}.rs`,
//!   so every committed golden is compiled.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use mcpgen::store::Store;

/// The revision of the manifest goldens (`tests/goldens.rs` uses the same).
const REVISION: &str = "2025-11-25";

fn main() {
    if let Err(e) = run() {
        eprintln!("error: {e}");
        std::process::exit(1);
    }
}

fn run() -> Result<(), Box<dyn std::error::Error>> {
    let root =
        PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").ok_or("no CARGO_MANIFEST_DIR")?);
    let out = PathBuf::from(std::env::var_os("OUT_DIR").ok_or("no OUT_DIR")?);
    for dir in ["protocol", "manifests"] {
        println!("cargo:rerun-if-changed={}", root.join(dir).display());
    }

    let mut store = Store::from_env();
    let shared = root.join("../../shared/mcp-spec");
    if store.mirror.is_none() && shared.is_dir() {
        store.mirror = Some(shared);
    }
    mcpgen::Builder::new()
        .protocol(REVISION)
        .store(store)
        .out_dir(out.join("protocol"))
        .compile()?;

    let mut modules = String::from(
        "/// Protocol rules: one module per `goldens/protocol/X.rs`.\npub mod rules {\n",
    );
    for (stem, path) in goldens(&root.join("protocol"), ".rs")? {
        writeln!(modules, "    /// From `goldens/protocol/{stem}.json`.\n    pub mod {stem} {{\n        include!({path:?});\n    }}")?;
    }
    modules.push_str("}\n\n/// Manifests: one module per `goldens/manifests/X.json`, with its\n/// `tools`, `server` and `client` goldens.\npub mod manifests {\n");
    for (stem, _) in goldens(&root.join("manifests"), ".json")? {
        writeln!(modules, "    /// From `goldens/manifests/{stem}.json`.\n    pub mod {stem} {{\n        pub use crate::protocol;")?;
        for part in ["tools", "server", "client"] {
            let path = root.join("manifests").join(format!("{stem}.{part}.rs"));
            let path = path.to_str().ok_or("a golden path is not UTF-8")?;
            writeln!(
                modules,
                "        pub mod {part} {{\n            include!({path:?});\n        }}"
            )?;
        }
        modules.push_str("    }\n");
    }
    modules.push_str("}\n");
    std::fs::write(out.join("goldens.rs"), modules)?;
    Ok(())
}

/// `(stem, path)` of the files in `dir` named `<stem><suffix>` where the
/// stem has no dot, sorted.
fn goldens(dir: &Path, suffix: &str) -> Result<Vec<(String, String)>, Box<dyn std::error::Error>> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        let name = path
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default();
        if let Some(stem) = name.strip_suffix(suffix).filter(|s| !s.contains('.')) {
            let text = path.to_str().ok_or("a golden path is not UTF-8")?;
            found.push((stem.to_owned(), text.to_owned()));
        }
    }
    found.sort();
    Ok(found)
}
