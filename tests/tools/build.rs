//! Generates `tools.rs` for each manifest under test into
//! `$OUT_DIR/<name>/tools.rs` with `mcpgen::codegen::tools`, formatted by
//! `mcpgen::emit::format` exactly as `mcpgen generate` writes it, and a
//! `$OUT_DIR/<name>/report.txt` listing bindings and fallback warnings.
//!
//! The real manifests of `../shared/manifests` are compiled when they are
//! there, with the cfg `shared_manifests` set; without them the crate
//! compiles the rest and their tests skip, except under `CI=true`, where
//! their absence stops the build.
//!
//! Besides the files in `manifests/`, one manifest is made here: the
//! hostile inputs too big to keep as files (100,000-character names,
//! 60-level nesting, 200-link `$ref` chains), written to
//! `$OUT_DIR/hostile_big.json`.

use std::fmt::Write as _;
use std::path::PathBuf;

use serde_json::{json, Map, Value};

/// Tools whose names, nesting and reference chains are far beyond what a
/// sensible schema has.
fn hostile_big() -> Value {
    let long = "p".repeat(100_000);
    let long_type = "Q".repeat(100_000);
    let long_value = format!("A{}", "a".repeat(100_000));
    let long_def = "d".repeat(100_000);
    let long_names = json!({
        "name": "long_names",
        "description": "x\n".repeat(10_000),
        "inputSchema": {
            "type": "object",
            "$defs": { long_def.clone(): {"type": "object", "properties": {"v": {"type": "string"}}} },
            "properties": {
                long.clone(): {"type": "string"},
                long_type.clone(): {"type": "object", "properties": {"x": {"type": "integer"}}},
                "pick": {"type": "string", "enum": [long_value, "b"]},
                "titled": {"type": "object", "title": "T".repeat(100_000), "properties": {"y": {"type": "boolean"}}},
                "defined": {"$ref": format!("#/$defs/{long_def}")}
            },
            "required": [long]
        }
    });
    // 60 levels of each shape that costs rustc the most per level.
    let mut objects = json!({"type": "string"});
    let mut arrays = json!({"type": "string"});
    let mut maps = json!({"type": "string"});
    let mut mixed = json!({"type": "string"});
    for level in 0..60 {
        objects = json!({"type": "object", "properties": {"c": objects}});
        arrays = json!({"type": "array", "items": arrays});
        maps = json!({"type": "object", "additionalProperties": maps});
        mixed = match level % 3 {
            0 => json!({"type": "object", "properties": {"next": mixed}}),
            1 => json!({"type": "array", "items": mixed}),
            _ => json!({"type": "object", "additionalProperties": mixed}),
        };
    }
    let deep = json!({
        "name": "deep",
        "inputSchema": {"type": "object", "properties": {"objects": objects, "arrays": arrays, "maps": maps, "mixed": mixed}}
    });
    let mut aliases = Map::new();
    let mut links = Map::new();
    for i in 0..200 {
        aliases.insert(
            format!("a{i}"),
            json!({"$ref": format!("#/$defs/a{}", i + 1)}),
        );
        links.insert(format!("l{i}"), json!({"type": "object", "properties": {"next": {"$ref": format!("#/$defs/l{}", i + 1)}}}));
    }
    aliases.insert("a200".into(), json!({"type": "string"}));
    links.insert("l200".into(), json!({"type": "string"}));
    let mut defs = aliases;
    defs.extend(links);
    let chains = json!({
        "name": "chains",
        "inputSchema": {
            "type": "object",
            "$defs": defs,
            "properties": {"alias": {"$ref": "#/$defs/a0"}, "link": {"$ref": "#/$defs/l0"}}
        }
    });
    json!({"tools": [long_names, deep, chains]})
}

/// Every shape of optional property the generator types differently
/// (each decoder: serde's own, the wide integers', a default function,
/// flattened maps), under each kind of name (plain, renamed, a keyword)
/// and doc text (none, or words serde uses as attribute keys): one tool
/// whose properties are all optional, so `{}` must decode.
fn optional_fields() -> Value {
    let kinds = [
        ("string", json!({"type": "string"})),
        ("wide", json!({"type": "integer"})),
        ("unsigned", json!({"type": "integer", "minimum": 0})),
        (
            "positive",
            json!({"type": "integer", "minimum": 1, "maximum": 5}),
        ),
        (
            "huge",
            json!({"type": "integer", "minimum": 0, "maximum": 1e30}),
        ),
        ("number", json!({"type": "number"})),
        ("flag", json!({"type": "boolean"})),
        ("choice", json!({"type": "string", "enum": ["a", "b"]})),
        (
            "defaulted",
            json!({"type": "string", "enum": ["a", "b"], "default": "b"}),
        ),
        ("counted", json!({"type": "integer", "default": 10})),
        ("nullable", json!({"type": ["integer", "null"]})),
        (
            "list",
            json!({"type": "array", "items": {"type": "integer"}}),
        ),
        (
            "map",
            json!({"type": "object", "additionalProperties": {"type": "integer"}}),
        ),
        (
            "nested",
            json!({"type": "object", "properties": {"inner": {"type": "integer"}}}),
        ),
        (
            "either",
            json!({"anyOf": [{"type": "integer"}, {"type": "string"}]}),
        ),
    ];
    let docs = [
        None,
        Some("Uses the default timeout."),
        Some("Not flatten, not with, not skip."),
    ];
    let mut properties = Map::new();
    for (kind, schema) in &kinds {
        for (n, doc) in docs.iter().enumerate() {
            for name in [
                format!("{kind}{n}"),
                format!("camel{n}{}", kind.to_uppercase()),
                format!("type{kind}{n}"),
            ] {
                let mut schema = schema.clone();
                if let Some(d) = doc {
                    schema["description"] = json!(d);
                }
                properties.insert(name, schema);
            }
        }
    }
    properties.insert(
        "type".into(),
        json!({"type": "integer", "description": "default"}),
    );
    let tool = json!({
        "name": "all_optional",
        "inputSchema": {"type": "object", "properties": properties.clone()},
        "outputSchema": {"type": "object", "properties": properties}
    });
    let closed = json!({
        "name": "all_optional_closed",
        "inputSchema": {"type": "object", "properties": properties_of(&tool), "additionalProperties": false}
    });
    json!({"tools": [tool, closed]})
}

fn properties_of(tool: &Value) -> Value {
    tool["inputSchema"]["properties"].clone()
}

fn main() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets OUT_DIR"));
    let big = out.join("hostile_big.json");
    std::fs::write(&big, serde_json::to_string(&hostile_big()).unwrap()).unwrap();
    let optional = out.join("optional.json");
    std::fs::write(
        &optional,
        serde_json::to_string(&optional_fields()).unwrap(),
    )
    .unwrap();
    let shared = dir.join("../../../shared/manifests");
    let real_dir = shared.join("real");
    let real = [
        ("github", shared.join("github.json")),
        ("stitch", shared.join("stitch.json")),
    ];
    println!("cargo::rustc-check-cfg=cfg(shared_manifests)");
    println!("cargo:rerun-if-env-changed=CI");
    let have_real = real.iter().all(|(_, path)| path.is_file()) && real_dir.is_dir();
    if have_real {
        println!("cargo:rustc-cfg=shared_manifests");
    } else if std::env::var("CI").is_ok_and(|v| !v.is_empty() && v != "0" && v != "false") {
        panic!("{} lacks github.json, stitch.json or real/, and CI=true requires them (put ../shared beside the clone)", shared.display());
    }
    let manifests = [
        ("rules", dir.join("manifests/rules.json")),
        ("rules_yaml", dir.join("manifests/rules.yaml")),
        ("fallbacks", dir.join("manifests/fallbacks.json")),
        ("refs", dir.join("manifests/refs.json")),
        ("hostile", dir.join("manifests/hostile.json")),
        ("shapes", dir.join("manifests/shapes.json")),
        (
            "weather",
            dir.join("../../examples/weather-server/tools.json"),
        ),
        (
            "notes",
            dir.join("../../examples/notes-server/manifest.json"),
        ),
        (
            "conformance",
            dir.join("../../examples/conformance-server/tools.json"),
        ),
        ("hostile_big", big),
        ("optional", optional),
    ];
    // Watched even when missing, so the build sees them once they are there.
    for (_, path) in &real {
        println!("cargo:rerun-if-changed={}", path.display());
    }
    let mut manifests: Vec<(String, PathBuf)> = real
        .into_iter()
        .filter(|_| have_real)
        .chain(manifests)
        .map(|(n, p)| (n.to_owned(), p))
        .collect();
    // Every capture of a real server's tools in `../shared/manifests/real/`,
    // as module `real::<file stem>` (`chrome-devtools.json` → `chrome_devtools`).
    println!("cargo:rerun-if-changed={}", real_dir.display());
    let mut real: Vec<(String, PathBuf)> = std::fs::read_dir(&real_dir)
        .into_iter()
        .flatten()
        .filter(|_| have_real)
        .filter_map(|entry| {
            let path = entry.ok()?.path();
            let stem = path.file_stem()?.to_str()?.replace(['-', '.'], "_");
            (path.extension()? == "json").then_some((stem, path))
        })
        .collect();
    real.sort();
    let mut real_rs = String::new();
    for (stem, path) in &real {
        let file = path.file_name().unwrap().to_string_lossy();
        let dir_name = format!("real_{stem}");
        let at = out.join(&dir_name);
        writeln!(
            real_rs,
            "/// Tools of `../shared/manifests/real/{file}`.\npub mod {stem} {{\n    include!({:?});\n    include!({:?});\n}}",
            at.join("tools.rs").display().to_string(),
            at.join("roundtrip.rs").display().to_string()
        )
        .unwrap();
        manifests.push((dir_name, path.clone()));
    }
    real_rs.push_str("/// `(file, path, roundtrip)` of every real manifest, in file-name order.\npub const ALL: &[(&str, &str, crate::RoundTrip)] = &[\n");
    for (stem, path) in &real {
        writeln!(
            real_rs,
            "    ({:?}, {:?}, {stem}::roundtrip),",
            path.file_name().unwrap().to_string_lossy(),
            path.display().to_string()
        )
        .unwrap();
    }
    real_rs.push_str("];\n");
    std::fs::write(out.join("real.rs"), real_rs).unwrap();
    for (name, path) in manifests {
        let name = name.as_str();
        println!("cargo:rerun-if-changed={}", path.display());
        let manifest = mcpgen::manifest::Manifest::load(&path).unwrap_or_else(|e| panic!("{e}"));
        let generated =
            mcpgen::codegen::tools::generate(&manifest).unwrap_or_else(|e| panic!("{e}"));
        let mut report = String::new();
        for b in &generated.tools {
            let output = b.output.as_deref().unwrap_or("-");
            writeln!(
                report,
                "tool {} {} {} {}",
                b.name, b.method, b.input, output
            )
            .unwrap();
        }
        for w in &generated.warnings {
            writeln!(report, "warning {}", w.to_string().replace('\n', " ")).unwrap();
        }
        let header = mcpgen::emit::Header::new().input(format!("tool manifest {name}"));
        let text =
            mcpgen::emit::format(generated.tokens, &header).unwrap_or_else(|e| panic!("{e}"));
        let target = out.join(name);
        std::fs::create_dir_all(&target).unwrap();
        std::fs::write(target.join("tools.rs"), text).unwrap();
        std::fs::write(target.join("report.txt"), report).unwrap();
        std::fs::write(target.join("roundtrip.rs"), roundtrip(&generated.tools)).unwrap();
    }
}

/// `roundtrip.rs` of a manifest: `pub fn roundtrip(tool, output, value)`
/// decodes `value` as the tool's input (or output) type the way the
/// runtime does and encodes it back; `None` for a tool (or output) the
/// manifest does not have.
fn roundtrip(bindings: &[mcpgen::codegen::tools::ToolBinding]) -> String {
    let mut arms = String::new();
    for b in bindings {
        writeln!(
            arms,
            "        ({:?}, false) => Some(crate::decode_encode::<{}>(value)),",
            b.name, b.input
        )
        .unwrap();
        if let Some(output) = &b.output {
            writeln!(
                arms,
                "        ({:?}, true) => Some(crate::decode_encode::<{output}>(value)),",
                b.name
            )
            .unwrap();
        }
    }
    format!(
        "/// Decodes `value` as the input (`output == false`) or output type of\n\
         /// `tool` and encodes it back; `None` when there is no such type.\n\
         pub fn roundtrip(tool: &str, output: bool, value: ::serde_json::Value) -> Option<Result<::serde_json::Value, String>> {{\n\
         \x20   match (tool, output) {{\n{arms}        _ => {{\n            let _ = value;\n            None\n        }}\n    }}\n}}\n"
    )
}
