//! The three ways a manifest is checked run one check (`mcpgen::check`):
//! the library (`check::check_in`, which `check::check` runs with the
//! environment's store), the build step (`Builder`, as in `build.rs` and
//! `mcpgen generate`) and `mcpgen manifest check`. Each bad manifest here
//! is refused by all three with the same problems, whichever step finds
//! it: the parser, the declarations, the Rust names, or only the
//! conformance to the revision's own definitions. A good one passes all
//! three.

mod shared_data;

use std::path::Path;
use std::process::Command;

use mcpgen::store::Store;
use mcpgen::{Builder, Manifest};

const REVISION: &str = "2025-11-25";

/// Bad manifests: a name, what is wrong, and the text.
const BAD: &[(&str, &str, &str)] = &[
    ("unparsable.json", "not JSON", "{\"tools\": [\n"),
    (
        "bad_name.json",
        "a tool name with a space",
        r#"{"tools": [{"name": "has space", "inputSchema": {"type": "object"}}]}"#,
    ),
    (
        "twice.json",
        "one tool name twice",
        r#"{"tools": [{"name": "a", "inputSchema": {"type": "object"}}, {"name": "a", "inputSchema": {"type": "object"}}]}"#,
    ),
    (
        "not_object.json",
        "an inputSchema that is not an object",
        r#"{"tools": [{"name": "a", "inputSchema": {"type": "string"}}]}"#,
    ),
    (
        "clash.json",
        "a Rust type name a prompt shares with a tool's types (found by generating)",
        r##"{"tools": [{"name": "greet", "inputSchema": {"type": "object", "properties": {"a": {"$ref": "#/$defs/Args"}},
            "$defs": {"Args": {"type": "object", "properties": {"n": {"type": "integer"}}}}}}],
           "prompts": [{"name": "greet"}]}"##,
    ),
    (
        "off_spec.json",
        "a resource size the revision's `Resource` does not allow (found only by conformance)",
        r#"{"tools": [], "resources": [{"name": "r", "uri": "docs://readme", "size": "big"}]}"#,
    ),
    (
        "off_spec_tool.json",
        "a tool title that is not a string (found only by conformance)",
        r#"{"tools": [{"name": "t", "title": 5, "inputSchema": {"type": "object"}}]}"#,
    ),
];

/// Schemas from the mirror only, caching into `cache`.
fn store(cache: &Path) -> Store {
    Store {
        cache_dir: cache.to_path_buf(),
        mirror: Some(shared_data::mirror()),
        fetch: None,
    }
}

/// The library's problems for the manifest file `path`.
fn library(path: &Path, cache: &Path) -> Vec<String> {
    match Manifest::load(path) {
        Ok(m) => mcpgen::check::check_in(&store(cache), &m, REVISION)
            .iter()
            .map(|e| e.message.clone())
            .collect(),
        Err(e) => vec![e.message],
    }
}

/// The Builder's error, if any, and whether it wrote into `out`.
fn builder(path: &Path, cache: &Path, out: &Path) -> (Option<String>, bool) {
    let result = Builder::new()
        .protocol(REVISION)
        .manifest(path)
        .store(store(cache))
        .out_dir(out)
        .cargo_directives(false)
        .compile();
    (result.err().map(|e| e.to_string()), out.exists())
}

/// `mcpgen manifest check`: exit code and stderr.
fn cli(path: &Path, cache: &Path) -> (i32, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_mcpgen"))
        .args(["manifest", "check", "--protocol", REVISION])
        .arg(path)
        .env("MCPGEN_SCHEMA_MIRROR", shared_data::mirror())
        .env("MCPGEN_SCHEMA_CACHE", cache)
        .env("MCPGEN_OFFLINE", "1")
        .output()
        .expect("run mcpgen");
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

#[test]
fn the_library_the_builder_and_the_cli_refuse_the_same_manifests() {
    let tmp = tempfile::tempdir().unwrap();
    let cache = tmp.path().join("cache");
    for (i, (name, what, text)) in BAD.iter().enumerate() {
        let path = tmp.path().join(name);
        std::fs::write(&path, text).unwrap();
        let problems = library(&path, &cache);
        assert!(
            !problems.is_empty(),
            "{name} ({what}): the library accepts it"
        );

        let out = tmp.path().join(format!("out-{i}"));
        let (built, wrote) = builder(&path, &cache, &out);
        let built = built.unwrap_or_else(|| panic!("{name} ({what}): the Builder generates it"));
        assert!(
            !wrote,
            "{name}: the Builder wrote output for a refused manifest"
        );

        let (code, stderr) = cli(&path, &cache);
        assert_eq!(
            code, 1,
            "{name} ({what}): `mcpgen manifest check` accepts it: {stderr}"
        );

        // The same problems, each reported by all three.
        for problem in &problems {
            assert!(
                built.contains(problem.as_str()),
                "{name}: the Builder does not report {problem:?}:\n{built}"
            );
            assert!(
                stderr.contains(problem.as_str()),
                "{name}: the CLI does not report {problem:?}:\n{stderr}"
            );
        }
        let count = format!("{} problem(s)", problems.len());
        assert!(
            stderr.contains(&count),
            "{name}: the CLI counts otherwise than {count}:\n{stderr}"
        );
    }
}

#[test]
fn conformance_is_the_only_step_that_refuses_the_off_spec_manifests() {
    let tmp = tempfile::tempdir().unwrap();
    for (name, _, text) in BAD.iter().filter(|(name, ..)| name.starts_with("off_spec")) {
        let m = Manifest::from_str(text, name).unwrap();
        assert!(
            mcpgen::check::declarations_and_names(&m, REVISION).is_empty(),
            "{name}: declarations and names are clean"
        );
        let schema = store(tmp.path()).resolve(REVISION, None).unwrap();
        let report = mcpgen::check::against(&m, &schema);
        assert!(
            report.problems.is_empty() && !report.off_spec.is_empty(),
            "{name}: {report:?}"
        );
    }
}

#[test]
fn a_good_manifest_passes_all_three() {
    let tmp = tempfile::tempdir().unwrap();
    let cache = tmp.path().join("cache");
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/weather-server/tools.json");
    assert_eq!(library(&path, &cache), Vec::<String>::new());
    let (built, wrote) = builder(&path, &cache, &tmp.path().join("out"));
    assert_eq!(built, None);
    assert!(wrote);
    let (code, stderr) = cli(&path, &cache);
    assert_eq!(code, 0, "{stderr}");
}
