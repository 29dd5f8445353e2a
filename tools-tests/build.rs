//! Generates `tools.rs` for each manifest under test into
//! `$OUT_DIR/<name>/tools.rs` with `mcpgen::codegen::tools`, formatted by
//! `mcpgen::emit::format` exactly as `mcpgen generate` writes it, and a
//! `$OUT_DIR/<name>/report.txt` listing bindings and fallback warnings.

use std::fmt::Write as _;
use std::path::PathBuf;

fn main() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets OUT_DIR"));
    let manifests = [
        ("github", dir.join("../../shared/manifests/github.json")),
        ("stitch", dir.join("../../shared/manifests/stitch.json")),
        ("rules", dir.join("manifests/rules.json")),
        ("rules_yaml", dir.join("manifests/rules.yaml")),
        ("fallbacks", dir.join("manifests/fallbacks.json")),
        ("refs", dir.join("manifests/refs.json")),
    ];
    for (name, path) in manifests {
        println!("cargo:rerun-if-changed={}", path.display());
        let manifest = mcpgen::manifest::Manifest::load(&path).unwrap_or_else(|e| panic!("{e}"));
        let generated = mcpgen::codegen::tools::generate(&manifest).unwrap_or_else(|e| panic!("{e}"));
        let mut report = String::new();
        for b in &generated.tools {
            let output = b.output.as_deref().unwrap_or("-");
            writeln!(report, "tool {} {} {} {}", b.name, b.method, b.input, output).unwrap();
        }
        for w in &generated.warnings {
            writeln!(report, "warning {}", w.to_string().replace('\n', " ")).unwrap();
        }
        let header = mcpgen::emit::Header::new().input(format!("tool manifest {name}"));
        let text = mcpgen::emit::format(generated.tokens, &header).unwrap_or_else(|e| panic!("{e}"));
        let target = out.join(name);
        std::fs::create_dir_all(&target).unwrap();
        std::fs::write(target.join("tools.rs"), text).unwrap();
        std::fs::write(target.join("report.txt"), report).unwrap();
    }
}
