//! Golden files of the generators, which the `goldens/` crate compiles:
//! `goldens/manifests/X.json` beside `X.tools.rs`, `X.server.rs` and
//! `X.client.rs` (protocol revision 2025-11-25), and
//! `goldens/protocol/X.json` (a schema fragment) beside `X.rs`. Each test
//! fails when the generator's output differs from the committed file.
//!
//! Re-bless after an intended change, then review the diff:
//!
//! ```sh
//! MCPGEN_BLESS=1 cargo test -p mcpgen --test goldens
//! ```

use std::path::{Path, PathBuf};

mod shared_data;

use mcpgen::codegen;
use mcpgen::emit::{self, Header};
use mcpgen::spec::Spec;
use mcpgen::store::Store;
use mcpgen::Builder;

/// The revision of the manifest goldens (`goldens/build.rs` uses the same).
const REVISION: &str = "2025-11-25";

const BLESS: &str = "MCPGEN_BLESS=1 cargo test -p mcpgen --test goldens";

fn goldens() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("goldens")
}

fn blessing() -> bool {
    std::env::var_os("MCPGEN_BLESS").is_some_and(|v| !v.is_empty() && v != "0")
}

fn store() -> Store {
    let mut store = Store::from_env();
    store.mirror = Some(shared_data::mirror());
    store
}

/// The files of `dir` whose names end in `suffix`, sorted.
fn files(dir: &Path, suffix: &str) -> Vec<PathBuf> {
    let mut found: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.ends_with(suffix))
        })
        .collect();
    found.sort();
    found
}

/// Compares `actual` with the golden file at `path`, or writes it when
/// blessing; a mismatch is described in `problems`.
fn compare(path: &Path, actual: &str, problems: &mut Vec<String>) {
    let expected = std::fs::read_to_string(path).ok();
    if expected.as_deref() == Some(actual) {
        return;
    }
    if blessing() {
        std::fs::write(path, actual).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        eprintln!("blessed {}", path.display());
        return;
    }
    let Some(expected) = expected else {
        problems.push(format!("{} is missing", path.display()));
        return;
    };
    let (mut old, mut new) = (expected.lines(), actual.lines());
    let mut line = 1;
    loop {
        match (old.next(), new.next()) {
            (Some(a), Some(b)) if a == b => line += 1,
            (a, b) => {
                problems.push(format!(
                    "{} differs from the generator's output at line {line}:\n  golden:    {}\n  generated: {}",
                    path.display(),
                    a.unwrap_or("(end of file)"),
                    b.unwrap_or("(end of file)")
                ));
                break;
            }
        }
    }
}

fn report(problems: Vec<String>) {
    assert!(
        problems.is_empty(),
        "{} golden file(s) out of date:\n{}\nIf the change is intended, re-bless with `{BLESS}` and review the diff.",
        problems.len(),
        problems.join("\n")
    );
}

#[test]
fn tools_server_and_client_goldens_match_the_generators() {
    let manifests = files(&goldens().join("manifests"), ".json");
    assert!(manifests.len() >= 3, "{manifests:?}");
    let mut problems = Vec::new();
    for manifest in &manifests {
        let generated = Builder::new()
            .protocol(REVISION)
            .manifest(manifest)
            .store(store())
            .generate()
            .unwrap_or_else(|e| panic!("{}: {e}", manifest.display()));
        for part in ["tools", "server", "client"] {
            let (_, text) = generated
                .files
                .iter()
                .find(|(name, _)| *name == format!("{part}.rs"))
                .unwrap();
            compare(
                &manifest.with_extension(format!("{part}.rs")),
                text,
                &mut problems,
            );
        }
    }
    report(problems);
}

#[test]
fn protocol_rule_goldens_match_the_generator() {
    let fragments = files(&goldens().join("protocol"), ".json");
    assert!(fragments.len() >= 5, "{fragments:?}");
    let mut problems = Vec::new();
    for fragment in &fragments {
        let name = fragment.file_name().unwrap().to_str().unwrap();
        let text = std::fs::read_to_string(fragment).unwrap();
        let doc: serde_json::Value =
            serde_json::from_str(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
        let spec = Spec::from_json(&doc, name).unwrap_or_else(|e| panic!("{name}: {e}"));
        let tokens = codegen::protocol::generate(&spec).unwrap_or_else(|e| panic!("{name}: {e}"));
        let header = Header::new().input(format!("schema fragment {name}"));
        let code = emit::format(tokens, &header).unwrap_or_else(|e| panic!("{name}: {e}"));
        compare(&fragment.with_extension("rs"), &code, &mut problems);
    }
    report(problems);
}

/// Every golden has its input beside it: none is left over from a
/// renamed or deleted case.
#[test]
fn every_golden_has_its_input() {
    let mut orphans = Vec::new();
    for (dir, suffixes) in [
        ("protocol", &[".rs"][..]),
        ("manifests", &[".tools.rs", ".server.rs", ".client.rs"][..]),
    ] {
        for suffix in suffixes {
            for golden in files(&goldens().join(dir), suffix) {
                let name = golden.file_name().unwrap().to_str().unwrap();
                let input =
                    golden.with_file_name(format!("{}.json", name.strip_suffix(suffix).unwrap()));
                if !input.is_file() {
                    orphans.push(golden.display().to_string());
                }
            }
        }
    }
    assert!(
        orphans.is_empty(),
        "goldens without their X.json beside them (delete them): {orphans:?}"
    );
}
