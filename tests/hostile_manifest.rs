//! Issue 13, generator side: no manifest can make `mcpgen manifest check`,
//! `mcpgen generate` or `mcpgen diff` exhaust memory, crash, hang, or
//! accept what the generated code or server then refuses; and the output
//! writer never deletes what is not a file. Each test names the class of
//! the issue it covers.

mod cli_support;

use std::path::Path;
use std::time::{Duration, Instant};

use cli_support::*;
use mcpgen::manifest::Manifest;
use mcpgen_runtime::schema::{default_draft, SchemaValidator};
use serde_json::{json, Value};

const FILES: [&str; 4] = ["protocol.rs", "tools.rs", "server.rs", "client.rs"];

fn fixture(name: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/hostile")
        .join(name)
}

/// The classic: nine aliases of nine aliases of … "lol", 9^9 values from
/// a few hundred bytes.
fn billion_laughs() -> String {
    let mut text = String::from(
        "a: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n",
    );
    for (prev, name) in "abcdefgh".chars().zip("bcdefghi".chars()) {
        let items = vec![format!("*{prev}"); 9].join(",");
        text.push_str(&format!("{name}: &{name} [{items}]\n"));
    }
    text.push_str("tools: [{name: t, inputSchema: {type: object}}]\n");
    text
}

// Class 4: YAML aliases.

#[test]
fn billion_laughs_are_refused_at_once_by_check_and_generate() {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("laughs.yaml");
    std::fs::write(&file, billion_laughs()).unwrap();
    assert!(std::fs::metadata(&file).unwrap().len() < 700);
    let started = Instant::now();
    let check = run(mcpgen(tmp.path()).args(["manifest", "check"]).arg(&file));
    let out = tmp.path().join("gen");
    let generate = run(mcpgen(tmp.path())
        .args(["generate", "--manifest"])
        .arg(&file)
        .arg("--out")
        .arg(&out));
    assert!(
        started.elapsed() < Duration::from_secs(30),
        "{:?}",
        started.elapsed()
    );
    for r in [&check, &generate] {
        assert_eq!(r.code, 1, "{}", r.stderr);
        assert!(r.stderr.contains("laughs.yaml:7:8 at /g/0"), "{}", r.stderr);
        assert!(
            r.stderr.contains("more than 1000000 values (the limit)"),
            "{}",
            r.stderr
        );
        assert!(
            r.stderr.contains("help: aliases are expanded"),
            "{}",
            r.stderr
        );
    }
    assert!(!out.exists());
}

#[test]
fn chained_aliases_cannot_nest_past_the_limit_in_generate_or_diff() {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("chain.yaml");
    let mut text = String::from("x0: &x0 {type: object}\n");
    for i in 1..20_000 {
        text.push_str(&format!(
            "x{i}: &x{i} {{type: object, properties: {{a: *x{}}}}}\n",
            i - 1
        ));
    }
    text.push_str("tools: [{name: t, inputSchema: *x19999}]\n");
    std::fs::write(&file, text).unwrap();
    let out = tmp.path().join("gen");
    let generate = run(mcpgen(tmp.path())
        .args(["generate", "--manifest"])
        .arg(&file)
        .arg("--out")
        .arg(&out));
    let diff = run(mcpgen(tmp.path())
        .args(["diff", "2025-06-18", "2025-11-25", "--manifest"])
        .arg(&file));
    for r in [&generate, &diff] {
        assert_eq!(r.code, 1, "an error, not a crash: {}", r.stderr);
        assert!(
            r.stderr.contains("chain.yaml:64:42 at /x63/properties/a"),
            "{}",
            r.stderr
        );
        assert!(
            r.stderr
                .contains("deeper than the limit of 127 nested arrays and objects"),
            "{}",
            r.stderr
        );
    }
}

#[test]
fn a_deep_aliased_member_is_refused_before_a_server_could_fail_on_it() {
    // Each anchor is shallow where it is defined; `_meta` puts 126 of them
    // inside the tool, 3 levels deep: 129 levels, deeper than serde_json
    // (and so a generated server) reads.
    let mut text = String::from("x0: &x0 {k: 1}\n");
    for i in 1..126 {
        text.push_str(&format!("x{i}: &x{i} {{k: *x{}}}\n", i - 1));
    }
    text.push_str("tools: [{name: t, inputSchema: {type: object}, _meta: *x125}]\n");
    let err = Manifest::from_str(&text, "meta.yaml").unwrap_err();
    let loc = err.location.clone().unwrap();
    assert_eq!(loc.pointer.as_deref(), Some("/tools/0/_meta"), "{err}");
    assert_eq!(loc.line_col, Some((127, 55)), "{err}");
    assert!(
        err.message.contains("126 nested levels here, 129 in all"),
        "{err}"
    );
    // At the limit, the tool table a server parses at start-up parses.
    let mut text = String::from("x0: &x0 {k: 1}\n");
    for i in 1..124 {
        text.push_str(&format!("x{i}: &x{i} {{k: *x{}}}\n", i - 1));
    }
    text.push_str("tools: [{name: t, inputSchema: {type: object}, _meta: *x123}]\n");
    let m = Manifest::from_str(&text, "meta.yaml").unwrap();
    let served = Value::Array(m.served_tools()).to_string();
    serde_json::from_str::<Value>(&served).expect("the served tool table parses");
}

// Class 6: identifiers and nesting rustc cannot cope with.

/// Every identifier of a generated file.
fn identifiers(text: &str) -> Vec<String> {
    fn walk(ts: proc_macro2::TokenStream, out: &mut Vec<String>) {
        for tt in ts {
            match tt {
                proc_macro2::TokenTree::Ident(i) => out.push(i.to_string()),
                proc_macro2::TokenTree::Group(g) => walk(g.stream(), out),
                _ => {}
            }
        }
    }
    let mut out = Vec::new();
    walk(text.parse().expect("generated code tokenizes"), &mut out);
    out
}

#[test]
fn long_names_and_deep_nesting_give_bounded_identifiers_and_a_warning() {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("long.json");
    let long = "p".repeat(100_000);
    let mut deep = json!({"type": "string"});
    for _ in 0..40 {
        deep = json!({"type": "object", "properties": {"c": deep}});
    }
    let m = json!({"tools": [{
        "name": "long",
        "inputSchema": {
            "type": "object",
            "title": "T".repeat(100_000),
            "properties": {
                long.clone(): {"type": "string"},
                "camel": {"type": "object", "title": "U".repeat(100_000), "properties": {"deep": deep}}
            }
        }
    }]});
    std::fs::write(&file, m.to_string()).unwrap();
    let g = mcpgen::Builder::new()
        .manifest(&file)
        .store(store(tmp.path()))
        .generate()
        .unwrap();
    for (name, text) in &g.files {
        let idents = identifiers(text);
        let longest = idents.iter().map(String::len).max().unwrap_or(0);
        assert!(
            longest <= mcpgen::naming::MAX_IDENT,
            "{name}: an identifier of {longest} characters"
        );
    }
    let warnings: Vec<String> = g.warnings.iter().map(ToString::to_string).collect();
    assert!(
        warnings
            .iter()
            .any(|w| w.contains("nested deeper than 24 levels")),
        "{warnings:?}"
    );
    assert!(
        warnings
            .iter()
            .any(|w| w.contains("bytes long, more than the 256 a field can match")),
        "{warnings:?}"
    );
}

fn store(cache: &Path) -> mcpgen::store::Store {
    mcpgen::store::Store {
        cache_dir: cache.to_path_buf(),
        mirror: Some(mirror()),
        fetch: None,
    }
}

// Class 7: output that does not compile. (That it compiles, warnings
// denied, is tested by the tests/tools crate; here: what reaches comments
// and names outside tools.rs.)

#[test]
fn hostile_text_never_reaches_a_comment_raw_and_keyword_tools_get_snake_methods() {
    let tmp = tempfile::tempdir().unwrap();
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/tools/manifests/hostile.json");
    let g = mcpgen::Builder::new()
        .manifest(&manifest)
        .store(store(tmp.path()))
        .generate()
        .unwrap();
    let again = mcpgen::Builder::new()
        .manifest(&manifest)
        .store(store(tmp.path()))
        .generate()
        .unwrap();
    assert_eq!(g.files, again.files, "deterministic");
    let bidi = |c: char| matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}');
    for (name, text) in &g.files {
        assert!(!text.contains('\r'), "{name} holds a carriage return");
        assert!(
            !text.chars().any(bidi),
            "{name} holds a bidirectional control"
        );
        assert!(!text.contains("__with"), "{name}");
        // No marker of a renamed property is left (the one property named
        // like a marker is kept as it is).
        assert!(!text.contains("Zmcpgen"), "{name}");
        assert_eq!(
            text.matches("zmcpgen").count(),
            text.matches("a_zmcpgen12345678").count(),
            "{name}"
        );
    }
    let server = &g.files[2].1;
    assert!(
        server.contains("fn type_tool(") && server.contains("fn self_tool("),
        "keyword tools"
    );
    assert!(
        server.contains("override \\u{202e}evil"),
        "the description is kept, made visible"
    );
}

#[test]
fn renamed_properties_leave_no_marker_in_the_shared_manifests() {
    let test = "hostile_manifest::renamed_properties_leave_no_marker_in_the_shared_manifests";
    let Some(manifests) = shared_data("manifests", test) else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    for m in ["github.json", "stitch.json"] {
        let g = mcpgen::Builder::new()
            .manifest(manifests.join(m))
            .store(store(tmp.path()))
            .generate()
            .unwrap();
        let tools = &g.files[1].1;
        assert!(
            !tools.contains("zmcpgen") && !tools.contains("Zmcpgen"),
            "{m}"
        );
    }
}

// Class 8: what check accepts, the server starts with.

#[test]
fn check_reports_what_the_server_would_refuse_at_start_up() {
    let file = fixture("refused_at_startup.json");
    let errors = mcpgen::check::check_file_in(&shared_data::store(), &file, "2025-11-25");
    let got: Vec<(String, (usize, usize))> = errors
        .iter()
        .map(|e| {
            let loc = e.location.clone().unwrap();
            assert!(e.hint.is_some(), "{e}");
            (loc.pointer.unwrap(), loc.line_col.unwrap())
        })
        .collect();
    assert_eq!(
        got,
        [
            (
                "/tools/0/inputSchema/properties/code/pattern".to_owned(),
                (3, 113)
            ),
            (
                "/tools/3/inputSchema/properties/x/$dynamicRef".to_owned(),
                (6, 106)
            ),
        ]
    );
    // Named back-references and `[^]` are ECMA-262, which the server's
    // pattern engine implements: tools 1 and 2 are fine.
    assert!(
        errors.iter().all(|e| e
            .message
            .starts_with("`inputSchema` is not a valid 2020-12 schema")),
        "{errors:?}"
    );
    assert!(
        errors[0]
            .message
            .contains("not a valid ECMA-262 regular expression"),
        "{}",
        errors[0]
    );
    assert!(
        errors[1]
            .message
            .contains("remote schemas are never fetched"),
        "{}",
        errors[1]
    );
    // And generate (through the Builder) refuses the same.
    let tmp = tempfile::tempdir().unwrap();
    let err = mcpgen::Builder::new()
        .manifest(&file)
        .store(store(tmp.path()))
        .generate()
        .unwrap_err();
    assert!(
        err.to_string().contains("the manifest has 2 problem(s)"),
        "{err}"
    );
}

#[test]
fn check_and_the_server_agree_on_every_pattern() {
    let patterns = [
        "(?<=\\$)\\d+",
        "(a)\\1",
        "[^]",
        "\\p{L}+",
        "(?<n>a)\\k<n>",
        "\\cJ",
        "a{,3}",
        "(?i)a",
        "[\\w-.]",
        "\\Z",
        "^[a-z]+$",
        "\\u00e9",
        "(",
        "a**",
    ];
    for revision in ["2025-06-18", "2025-11-25"] {
        for p in patterns {
            let schema =
                json!({"type": "object", "properties": {"s": {"type": "string", "pattern": p}}});
            let server = SchemaValidator::compile(&schema, default_draft(revision)).is_ok();
            let text = json!({"tools": [{"name": "t", "inputSchema": schema}]}).to_string();
            let check =
                mcpgen::check::check_text_in(&shared_data::store(), &text, "m.json", revision)
                    .is_empty();
            assert_eq!(
                check, server,
                "{revision}: pattern {p:?}: check says {check}, the server {server}"
            );
        }
    }
}

#[test]
fn check_reports_names_that_generate_would_refuse() {
    let file = fixture("colliding_types.json");
    let errors = mcpgen::check::check_file_in(&shared_data::store(), &file, "2025-11-25");
    assert_eq!(errors.len(), 1, "{errors:?}");
    let e = &errors[0];
    assert!(
        e.message
            .contains("tools `a` and `a-input` would both define a Rust type named `AInputInput`"),
        "{e}"
    );
    let loc = e.location.clone().unwrap();
    assert_eq!(
        (loc.pointer.as_deref(), loc.line_col),
        (Some("/tools/1"), Some((4, 5)))
    );
}

// Class 9: super-linear and amplified costs.

/// `links` definitions, each only a `$ref` to the next.
fn alias_chain(links: usize) -> Value {
    let mut defs = serde_json::Map::new();
    for i in 0..links {
        defs.insert(
            format!("d{i}"),
            json!({"$ref": format!("#/$defs/d{}", i + 1)}),
        );
    }
    defs.insert(format!("d{links}"), json!({"type": "string"}));
    json!({"tools": [{"name": "chain", "inputSchema": {
        "type": "object", "$defs": defs, "properties": {"start": {"$ref": "#/$defs/d0"}}
    }}]})
}

#[test]
fn long_ref_chains_generate_in_linear_time() {
    // 800 links took 99 s before (time grew about 7x per doubling); 1,600
    // would have taken over ten minutes.
    let text = alias_chain(1_600).to_string();
    let m = Manifest::from_str(&text, "chain.json").unwrap();
    let started = Instant::now();
    assert!(mcpgen::check::check_in(&shared_data::store(), &m, "2025-11-25").is_empty());
    let out = mcpgen::codegen::tools::generate(&m).unwrap();
    assert!(
        started.elapsed() < Duration::from_secs(60),
        "{:?}",
        started.elapsed()
    );
    assert!(
        !out.warnings.is_empty(),
        "the chain is cut at the depth limit"
    );
}

#[test]
fn a_long_description_costs_its_size_not_a_syntax_node_per_line() {
    let time = Path::new("/usr/bin/time");
    if !time.exists() {
        eprintln!("skipped: /usr/bin/time measures the peak memory");
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("desc.json");
    let m = json!({"tools": [{"name": "t", "description": "a\n".repeat(1_000_000), "inputSchema": {"type": "object"}}]});
    std::fs::write(&file, m.to_string()).unwrap();
    let mut cmd = std::process::Command::new(time);
    cmd.args(["-f", "peak-kb %M"])
        .arg(env!("CARGO_BIN_EXE_mcpgen"));
    cmd.env("MCPGEN_SCHEMA_MIRROR", mirror())
        .env("MCPGEN_SCHEMA_CACHE", tmp.path())
        .env("MCPGEN_OFFLINE", "1");
    let r = run(cmd
        .args(["generate", "--manifest"])
        .arg(&file)
        .arg("--out")
        .arg(tmp.path().join("gen")));
    assert_eq!(r.code, 0, "{}", r.stderr);
    let kb: u64 = r
        .stderr
        .lines()
        .find_map(|l| l.strip_prefix("peak-kb "))
        .and_then(|n| n.trim().parse().ok())
        .unwrap();
    // 1.05 GB before (the formatter's syntax tree held every line), about
    // 0.5 GB now, most of it the server generator's own tokens.
    assert!(kb < 800_000, "peak {kb} KB for a 3 MB manifest");
}

// Class 10 (part): the writer.

#[test]
fn a_directory_named_like_an_output_file_is_refused_and_nothing_is_written() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("gen");
    std::fs::create_dir_all(out.join("tools.rs")).unwrap();
    std::fs::write(out.join("tools.rs/notes.txt"), "mine").unwrap();
    let weather = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/weather-server/tools.json");
    let r = run(mcpgen(tmp.path())
        .args(["generate", "--manifest"])
        .arg(&weather)
        .arg("--out")
        .arg(&out));
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(
        r.stderr
            .contains("tools.rs is a directory where mcpgen writes the generated file `tools.rs`"),
        "{}",
        r.stderr
    );
    assert!(
        r.stderr.contains("help: move it out of the way"),
        "{}",
        r.stderr
    );
    assert_eq!(
        std::fs::read_to_string(out.join("tools.rs/notes.txt")).unwrap(),
        "mine"
    );
    for f in FILES {
        if f != "tools.rs" {
            assert!(!out.join(f).exists(), "{f} was written");
        }
    }
    let entries: Vec<_> = std::fs::read_dir(tmp.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert!(
        entries
            .iter()
            .all(|n| !n.to_string_lossy().contains(".mcpgen-")),
        "{entries:?}"
    );
}
