//! mcpgen's own validator gives the answers of the `jsonschema` crate (the
//! validator the runtime used before, kept as a test-only reference) on
//! what it will meet: every definition of every official MCP schema
//! against the official examples and the JSON of the specification pages,
//! and every tool schema of the real and example manifests against
//! thousands of generated instances, with formats asserted and not.

use std::path::{Path, PathBuf};

use mcpgen_runtime::schema::{Draft, Schema};
use serde_json::{json, Map, Value};

#[path = "../../tests/shared_data/data.rs"]
mod shared_data;

/// The official schemas with the specification's examples:
/// `MCPGEN_SCHEMA_MIRROR` when it has them (a cache of downloads has not),
/// else `../shared/mcp-spec` (`None` when `test` skips without it).
fn mirror(test: &str) -> Option<PathBuf> {
    let examples = "2026-07-28/examples";
    match std::env::var_os("MCPGEN_SCHEMA_MIRROR").map(PathBuf::from) {
        Some(m) if m.join(examples).is_dir() => Some(m),
        _ => shared_data::shared_data(&format!("mcp-spec/{examples}"), test)
            .map(|_| shared_data::shared().join("mcp-spec")),
    }
}

fn read(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| {
        panic!(
            "{}: {e} (the shared material must sit beside the repository)",
            path.display()
        )
    });
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn jsonschema_draft(d: Draft) -> jsonschema::Draft {
    match d {
        Draft::Draft4 => jsonschema::Draft::Draft4,
        Draft::Draft6 => jsonschema::Draft::Draft6,
        Draft::Draft7 => jsonschema::Draft::Draft7,
        Draft::Draft201909 => jsonschema::Draft::Draft201909,
        Draft::Draft202012 => jsonschema::Draft::Draft202012,
    }
}

/// Both validators of one schema, formats asserted or not.
struct Pair {
    ours: Schema,
    theirs: jsonschema::Validator,
}

impl Pair {
    fn new(schema: &Value, draft: Draft, formats: bool) -> Option<Pair> {
        let theirs = jsonschema::options()
            .with_draft(Draft::detect(schema).map_or(jsonschema_draft(draft), jsonschema_draft))
            .should_validate_formats(formats)
            .build(schema);
        let ours = Schema::options(draft).formats(formats).compile(schema);
        match (ours, theirs) {
            (Ok(ours), Ok(theirs)) => Some(Pair { ours, theirs }),
            (Err(e), Ok(_)) => panic!("{schema}: jsonschema compiles it, ours says {e:?}"),
            (Ok(_), Err(e)) => panic!("{schema}: ours compiles it, jsonschema says {e}"),
            (Err(_), Err(_)) => None,
        }
    }
}

#[derive(Default)]
struct Tally {
    valid: usize,
    invalid: usize,
    disagreements: Vec<String>,
}

impl Tally {
    fn compare(&mut self, what: &str, pair: &Pair, instance: &Value) {
        let ours = pair.ours.is_valid(instance);
        let theirs = pair.theirs.is_valid(instance);
        if ours != theirs {
            self.disagreements.push(format!(
                "{what}: {instance}: ours {ours}, jsonschema {theirs}"
            ));
        } else if ours {
            self.valid += 1;
        } else {
            self.invalid += 1;
            assert!(
                !pair.ours.errors(instance).is_empty(),
                "{what}: {instance}: invalid without an error"
            );
        }
    }

    fn finish(self, what: &str, min_valid: usize, min_invalid: usize) {
        eprintln!(
            "{what}: {} valid, {} invalid, {} disagreements",
            self.valid,
            self.invalid,
            self.disagreements.len()
        );
        assert!(
            self.disagreements.is_empty(),
            "{what}:\n{}",
            self.disagreements
                .iter()
                .take(30)
                .cloned()
                .collect::<Vec<_>>()
                .join("\n")
        );
        assert!(
            self.valid >= min_valid && self.invalid >= min_invalid,
            "{what}: too few cases ({} valid, {} invalid)",
            self.valid,
            self.invalid
        );
    }
}

/// Official examples and every JSON object in the pages (and their
/// `params` and `result`), which between them are instances of most
/// definitions and near misses of the rest.
fn spec_instances(mirror: &Path, revision: &str) -> Vec<Value> {
    let mut out = Vec::new();
    let examples = mirror.join("2026-07-28/examples");
    for dir in
        std::fs::read_dir(&examples).unwrap_or_else(|e| panic!("{}: {e}", examples.display()))
    {
        for file in std::fs::read_dir(dir.unwrap().path()).unwrap() {
            out.push(read(&file.unwrap().path()));
        }
    }
    let pages = mirror.join(revision).join("doc-examples.json");
    for block in read(&pages).as_array().unwrap() {
        let json = &block["json"];
        for key in ["params", "result"] {
            if let Some(inner) = json.get(key) {
                out.push(inner.clone());
            }
        }
        out.push(json.clone());
    }
    out
}

#[test]
fn official_definitions_agree_on_official_instances() {
    let Some(mirror) = mirror("schema_agrees::official_definitions_agree_on_official_instances")
    else {
        return;
    };
    let mut tally = Tally::default();
    for revision in [
        "2024-11-05",
        "2025-03-26",
        "2025-06-18",
        "2025-11-25",
        "2026-07-28",
    ] {
        let spec = read(&mirror.join(revision).join("schema.json"));
        let defs_key = if spec.get("$defs").is_some() {
            "$defs"
        } else {
            "definitions"
        };
        let instances = spec_instances(&mirror, revision);
        let names: Vec<String> = spec[defs_key]
            .as_object()
            .unwrap()
            .keys()
            .cloned()
            .collect();
        for (i, name) in names.iter().enumerate() {
            let mut root = spec.clone();
            root["$ref"] = json!(format!("#/{defs_key}/{name}"));
            // Formats both ways, on alternate definitions (each compile is not free).
            let formats = i % 2 == 0;
            let pair = Pair::new(&root, Draft::Draft7, formats)
                .unwrap_or_else(|| panic!("{revision} {name} does not compile"));
            for instance in &instances {
                tally.compare(
                    &format!("{revision} {name} (formats {formats})"),
                    &pair,
                    instance,
                );
            }
        }
    }
    tally.finish("official definitions", 1_000, 10_000);
}

/// A small deterministic generator (xorshift).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// Strings and numbers a schema mentions, to build instances near it.
#[derive(Default)]
struct Vocabulary {
    strings: Vec<String>,
    numbers: Vec<Value>,
}

impl Vocabulary {
    fn of(schema: &Value) -> Vocabulary {
        let mut v = Vocabulary::default();
        v.collect(schema);
        v.strings.extend(
            [
                "",
                "x",
                "2025-01-01T00:00:00Z",
                "2025-01-01",
                "a@b.example",
                "https://example.com/a",
                "not a uri",
                "00000000-0000-4000-8000-000000000000",
                "日本",
            ]
            .map(String::from),
        );
        v.numbers.extend([
            json!(0),
            json!(-1),
            json!(1),
            json!(1.5),
            json!(1e3),
            json!(2.0),
        ]);
        v
    }

    fn collect(&mut self, v: &Value) {
        match v {
            Value::String(s) => self.strings.push(s.clone()),
            Value::Number(n) => {
                self.numbers.push(Value::Number(n.clone()));
                if let Some(f) = n.as_f64() {
                    self.numbers.push(json!(f + 1.0));
                    self.numbers.push(json!(f - 0.5));
                }
            }
            Value::Array(a) => a.iter().for_each(|x| self.collect(x)),
            Value::Object(o) => {
                for (k, x) in o {
                    self.strings.push(k.clone());
                    self.collect(x);
                }
            }
            _ => {}
        }
    }

    fn value(&self, rng: &mut Rng, depth: usize) -> Value {
        let kinds = if depth >= 3 { 5 } else { 8 };
        match rng.below(kinds) {
            0 => Value::Null,
            1 => Value::Bool(rng.below(2) == 0),
            2 | 3 => self.numbers[rng.below(self.numbers.len())].clone(),
            4 => Value::String(self.strings[rng.below(self.strings.len())].clone()),
            5 => Value::Array(
                (0..rng.below(4))
                    .map(|_| self.value(rng, depth + 1))
                    .collect(),
            ),
            _ => Value::Object(self.object(rng, depth)),
        }
    }

    fn object(&self, rng: &mut Rng, depth: usize) -> Map<String, Value> {
        (0..rng.below(5))
            .map(|_| {
                (
                    self.strings[rng.below(self.strings.len())].clone(),
                    self.value(rng, depth + 1),
                )
            })
            .collect()
    }
}

/// Every tool schema of a manifest file (`{"tools": [...]}` or a list).
fn tool_schemas(path: &Path) -> Vec<(String, Value)> {
    let m = read(path);
    let tools = m
        .get("tools")
        .unwrap_or(&m)
        .as_array()
        .cloned()
        .unwrap_or_default();
    let mut out = Vec::new();
    for t in tools {
        for key in ["inputSchema", "outputSchema"] {
            if let Some(s) = t.get(key).filter(|s| s.is_object()) {
                out.push((format!("{} {} {key}", path.display(), t["name"]), s.clone()));
            }
        }
    }
    out
}

fn manifests() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut out = Vec::new();
    // The real manifests when ../shared has them; the repository's own always.
    let test = "schema_agrees::tool_schemas_agree_on_generated_instances (real manifests)";
    let real = shared_data::shared_data("manifests", test);
    for dir in real
        .into_iter()
        .chain([root.join("goldens/manifests"), root.join("tests/fixtures")])
    {
        for entry in std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "json") {
                out.push(path);
            }
        }
    }
    for example in ["weather-server", "conformance-server", "conformance-client"] {
        out.push(root.join("examples").join(example).join("tools.json"));
    }
    out
}

#[test]
fn tool_schemas_agree_on_generated_instances() {
    let mut tally = Tally::default();
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut schemas = 0;
    for path in manifests() {
        for (what, schema) in tool_schemas(&path) {
            for (draft, formats) in [
                (Draft::Draft7, true),
                (Draft::Draft202012, false),
                (Draft::Draft202012, true),
            ] {
                let Some(pair) = Pair::new(&schema, draft, formats) else {
                    continue;
                };
                schemas += 1;
                let words = Vocabulary::of(&schema);
                // Objects built from the schema's own names, so that most
                // properties are exercised, and a few arbitrary values.
                for _ in 0..150 {
                    let instance = Value::Object(words.object(&mut rng, 0));
                    tally.compare(
                        &format!("{what} {draft:?} formats {formats}"),
                        &pair,
                        &instance,
                    );
                }
                for _ in 0..10 {
                    let instance = words.value(&mut rng, 0);
                    tally.compare(
                        &format!("{what} {draft:?} formats {formats}"),
                        &pair,
                        &instance,
                    );
                }
            }
        }
    }
    assert!(schemas > 100, "only {schemas} tool schemas");
    tally.finish("tool schemas", 1_000, 10_000);
}

/// Schemas of every keyword in every dialect, against generated instances.
#[test]
fn keywords_agree_in_every_dialect() {
    let schemas = [
        json!({"type": ["integer", "string"], "minimum": 1, "maxLength": 2}),
        json!({"enum": [1, "a", [1], {"a": 1}, null]}),
        json!({"const": {"a": [1, 2]}}),
        json!({"multipleOf": 0.5, "exclusiveMaximum": 3}),
        json!({"minimum": 0, "maximum": 2, "exclusiveMinimum": true}),
        json!({"pattern": "^[a-z]$"}),
        json!({"format": "date-time"}),
        json!({"format": "email"}),
        json!({"format": "uri"}),
        json!({"format": "uuid"}),
        json!({"format": "date"}),
        json!({"items": {"type": "integer"}, "maxItems": 2, "uniqueItems": true}),
        json!({"items": [{"type": "string"}], "additionalItems": {"type": "null"}}),
        json!({"prefixItems": [{"type": "string"}], "items": false}),
        json!({"contains": {"type": "null"}, "minContains": 2}),
        json!({"properties": {"a": {"type": "integer"}, "x": {}}, "required": ["a"], "additionalProperties": false}),
        json!({"patternProperties": {"^x": {"type": "string"}}, "additionalProperties": {"type": "null"}}),
        json!({"propertyNames": {"enum": ["a", "x", ""]}, "minProperties": 1, "maxProperties": 2}),
        json!({"dependencies": {"a": ["x"], "x": {"required": ["a"]}}}),
        json!({"dependentRequired": {"a": ["x"]}, "dependentSchemas": {"x": {"maxProperties": 1}}}),
        json!({"allOf": [{"type": "object"}, {"required": ["a"]}], "anyOf": [{"required": ["x"]}, {"maxProperties": 1}]}),
        json!({"oneOf": [{"type": "integer"}, {"minimum": 1}], "not": {"const": 2}}),
        json!({"if": {"type": "string"}, "then": {"minLength": 1}, "else": {"type": "array"}}),
        json!({"$defs": {"n": {"type": ["object", "null"], "properties": {"a": {"$ref": "#/$defs/n"}}}}, "$ref": "#/$defs/n"}),
        json!({"definitions": {"s": {"type": "string"}}, "properties": {"a": {"$ref": "#/definitions/s"}}}),
        json!({"properties": {"a": true}, "allOf": [{"properties": {"x": true}}], "unevaluatedProperties": false}),
        json!({"prefixItems": [true], "contains": {"type": "null"}, "unevaluatedItems": {"type": "string"}}),
    ];
    let mut tally = Tally::default();
    let mut rng = Rng(42);
    for schema in &schemas {
        for draft in [
            Draft::Draft4,
            Draft::Draft6,
            Draft::Draft7,
            Draft::Draft201909,
            Draft::Draft202012,
        ] {
            let Some(pair) = Pair::new(schema, draft, draft <= Draft::Draft7) else {
                continue;
            };
            let words = Vocabulary::of(schema);
            for _ in 0..300 {
                tally.compare(
                    &format!("{schema} {draft:?}"),
                    &pair,
                    &words.value(&mut rng, 0),
                );
            }
        }
    }
    tally.finish("keywords", 10_000, 5_000);
}
