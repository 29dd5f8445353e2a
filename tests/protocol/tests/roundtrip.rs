//! The generated protocol types against the specification's own examples:
//! the 129 official examples of 2026-07-28 (round trip, union dispatch,
//! corrupted constants), the JSON-RPC messages of every revision's
//! specification pages, and the seed documents' messages and content
//! blocks. Prints a table per revision; fails on any schema-valid example
//! that does not round-trip exactly.

use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use mcpgen_protocol_tests as gen;
use serde_json::{json, Value};

/// What a union's decoder gives for a value: the variant it chose and the
/// value re-encoded, or why it failed; `None` for an unknown union.
type UnionDecoding = Option<Result<(&'static str, Value), String>>;

/// The registry of one generated revision.
struct Revision {
    name: &'static str,
    roundtrip: fn(&str, &Value) -> Option<Result<Value, String>>,
    unions_of: fn(&str) -> &'static [&'static str],
    decode_union: fn(&str, &Value) -> UnionDecoding,
    method: fn(&str) -> Option<(&'static str, &'static str)>,
    params_roundtrip: fn(&str, &Value) -> Option<Result<Value, String>>,
    result_roundtrip: fn(&str, &Value) -> Result<Value, String>,
    result_pointer: fn(&str) -> Option<&'static str>,
    content_block: Option<(&'static str, &'static str)>,
}

macro_rules! revision {
    ($name:literal, $m:ident) => {
        Revision {
            name: $name,
            roundtrip: gen::$m::registry::roundtrip,
            unions_of: gen::$m::registry::unions_of,
            decode_union: gen::$m::registry::decode_union,
            method: gen::$m::registry::method,
            params_roundtrip: gen::$m::registry::params_roundtrip,
            result_roundtrip: gen::$m::registry::result_roundtrip,
            result_pointer: gen::$m::registry::result_pointer,
            content_block: gen::$m::registry::CONTENT_BLOCK,
        }
    };
}

fn revisions() -> Vec<Revision> {
    vec![
        revision!("2024-11-05", v2024_11_05),
        revision!("2025-03-26", v2025_03_26),
        revision!("2025-06-18", v2025_06_18),
        revision!("2025-11-25", v2025_11_25),
        revision!("2026-07-28", v2026_07_28),
    ]
}

#[path = "../../shared_data/data.rs"]
mod shared_data;

/// The official schemas with the specification's examples:
/// `MCPGEN_SCHEMA_MIRROR` when it has them (a cache of downloads has not),
/// else `../shared/mcp-spec`.
fn mirror() -> PathBuf {
    std::env::var_os("MCPGEN_SCHEMA_MIRROR")
        .map(PathBuf::from)
        .filter(|m| m.join("2026-07-28/examples").is_dir())
        .unwrap_or_else(|| shared_data::shared().join("mcp-spec"))
}

use shared_data::shared;

fn read_json(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Validates instances against definitions of one revision's schema.
struct Validators {
    schema: Value,
    defs_key: &'static str,
    cache: HashMap<String, jsonschema::Validator>,
}

impl Validators {
    fn new(revision: &str) -> Self {
        let schema = read_json(&mirror().join(revision).join("schema.json"));
        let defs_key = if schema.get("$defs").is_some() {
            "$defs"
        } else {
            "definitions"
        };
        Self {
            schema,
            defs_key,
            cache: HashMap::new(),
        }
    }

    /// `None` when valid, else the first validation error.
    fn check(&mut self, pointer: &str, instance: &Value) -> Option<String> {
        if !self.cache.contains_key(pointer) {
            let mut root = self.schema.clone();
            root.as_object_mut()
                .unwrap()
                .insert("allOf".into(), json!([{ "$ref": pointer }]));
            let v = jsonschema::validator_for(&root)
                .unwrap_or_else(|e| panic!("schema for {pointer}: {e}"));
            self.cache.insert(pointer.to_owned(), v);
        }
        let v = &self.cache[pointer];
        v.iter_errors(instance)
            .next()
            .map(|e| format!("{} at {}", e, e.instance_path()))
    }

    fn def(&self, name: &str) -> String {
        format!("#/{}/{}", self.defs_key, name)
    }

    /// Whether the definition fixes `property` to a constant.
    fn const_property(&self, def: &str, property: &str) -> bool {
        self.schema[self.defs_key][def]["properties"][property]
            .get("const")
            .is_some()
    }
}

#[derive(Default)]
struct Row {
    examples: usize,
    schema_valid: usize,
    exact: usize,
    union_checked: usize,
    union_ok: usize,
    corrupt_checked: usize,
    corrupt_rejected: usize,
    typed_checked: usize,
    typed_ok: usize,
}

#[derive(Default)]
struct Report {
    rows: BTreeMap<String, Row>,
    failures: Vec<String>,
    defects: Vec<String>,
}

impl Report {
    fn row(&mut self, key: &str) -> &mut Row {
        self.rows.entry(key.to_owned()).or_default()
    }

    fn print(&self) -> String {
        let mut out = String::new();
        writeln!(
            out,
            "{:<26} {:>8} {:>12} {:>13} {:>16} {:>18} {:>14}",
            "source",
            "examples",
            "schema-valid",
            "exact r-trip",
            "union dispatch",
            "corrupt rejected",
            "typed by method"
        )
        .unwrap();
        for (k, r) in &self.rows {
            writeln!(
                out,
                "{:<26} {:>8} {:>12} {:>13} {:>16} {:>18} {:>14}",
                k,
                r.examples,
                r.schema_valid,
                format!("{}/{}", r.exact, r.schema_valid),
                format!("{}/{}", r.union_ok, r.union_checked),
                format!("{}/{}", r.corrupt_rejected, r.corrupt_checked),
                format!("{}/{}", r.typed_ok, r.typed_checked),
            )
            .unwrap();
        }
        if !self.defects.is_empty() {
            writeln!(
                out,
                "\nspec-example defects (fail their own schema, not counted):"
            )
            .unwrap();
            for d in &self.defects {
                writeln!(out, "  {d}").unwrap();
            }
        }
        out
    }
}

/// Round-trips `value` as type `ty`, through every union that lists `ty`,
/// and rejects copies with corrupted top-level constants.
fn check_typed(
    rev: &Revision,
    v: &mut Validators,
    report: &mut Report,
    key: &str,
    label: &str,
    ty: &str,
    value: &Value,
) {
    match (rev.roundtrip)(ty, value) {
        Some(Ok(back)) if back == *value => report.row(key).exact += 1,
        Some(Ok(back)) => report.failures.push(format!(
            "{label}: {ty} round trip differs:\n  in:  {value}\n  out: {back}"
        )),
        Some(Err(e)) => report
            .failures
            .push(format!("{label}: does not decode as {ty}: {e}")),
        None => report
            .failures
            .push(format!("{label}: no generated type {ty}")),
    }
    for union in (rev.unions_of)(ty) {
        report.row(key).union_checked += 1;
        match (rev.decode_union)(union, value) {
            Some(Ok((member, back))) if member == ty && back == *value => {
                report.row(key).union_ok += 1
            }
            Some(Ok((member, _))) if member != ty => report.failures.push(format!(
                "{label}: decoded through {union} as {member}, not {ty}"
            )),
            Some(Ok((_, back))) => report.failures.push(format!(
                "{label}: through {union} round trip differs: {back}"
            )),
            Some(Err(e)) => report
                .failures
                .push(format!("{label}: does not decode through {union}: {e}")),
            None => report
                .failures
                .push(format!("{label}: no decoder for union {union}")),
        }
    }
    for property in ["type", "method", "jsonrpc", "mode", "resultType"] {
        if value.get(property).is_none() || !v.const_property(ty, property) {
            continue;
        }
        let mut corrupted = value.clone();
        corrupted[property] = json!("corrupted-value");
        report.row(key).corrupt_checked += 1;
        let mut accepted = Vec::new();
        if let Some(Ok(_)) = (rev.roundtrip)(ty, &corrupted) {
            accepted.push(ty.to_owned());
        }
        for union in (rev.unions_of)(ty) {
            if let Some(Ok((member, _))) = (rev.decode_union)(union, &corrupted) {
                accepted.push(format!("{union} (as {member})"));
            }
        }
        if accepted.is_empty() {
            report.row(key).corrupt_rejected += 1;
        } else {
            report.failures.push(format!(
                "{label}: corrupted `{property}` still decodes as {}",
                accepted.join(", ")
            ));
        }
    }
}

/// One JSON-RPC message of a revision: valid → exact as `JSONRPCMessage`,
/// typed params by method, typed result by the method of its request.
fn check_message(
    rev: &Revision,
    v: &mut Validators,
    report: &mut Report,
    key: &str,
    label: &str,
    msg: &Value,
    requests: &HashMap<String, String>,
) {
    report.row(key).examples += 1;
    // Valid means valid for its own method: the message against its
    // method's definition, a result against its method's result type.
    let method_type = msg
        .get("method")
        .and_then(Value::as_str)
        .map(|m| (m, (rev.method)(m)));
    let result_method = msg
        .get("result")
        .and_then(|_| requests.get(&msg.get("id").map(Value::to_string).unwrap_or_default()));
    let own = match (method_type, result_method) {
        (Some((m, None)), _) => Err(format!("method `{m}` is not a method of this revision")),
        (Some((_, Some((_, message_type)))), _) => Ok(Some((v.def(message_type), msg.clone()))),
        (None, Some(m)) => {
            Ok((rev.result_pointer)(m).map(|p| (p.to_owned(), msg["result"].clone())))
        }
        _ => Ok(None),
    };
    let pointer = v.def("JSONRPCMessage");
    let invalid = match own {
        Err(e) => Some(e),
        Ok(own) => v.check(&pointer, msg).or_else(|| {
            own.and_then(|(p, value)| v.check(&p, &value).map(|e| format!("{e} (against {p})")))
        }),
    };
    if let Some(err) = invalid {
        report.defects.push(format!("{label}: {err}"));
        return;
    }
    report.row(key).schema_valid += 1;
    match (rev.roundtrip)("JSONRPCMessage", msg) {
        Some(Ok(back)) if back == *msg => report.row(key).exact += 1,
        Some(Ok(back)) => report.failures.push(format!(
            "{label}: JSONRPCMessage round trip differs:\n  in:  {msg}\n  out: {back}"
        )),
        Some(Err(e)) => report
            .failures
            .push(format!("{label}: not a JSONRPCMessage: {e}")),
        None => report
            .failures
            .push(format!("{label}: no JSONRPCMessage type")),
    }
    if let Some(method) = msg.get("method").and_then(Value::as_str) {
        report.row(key).typed_checked += 1;
        let Some((_, message_type)) = (rev.method)(method) else {
            report.failures.push(format!(
                "{label}: method `{method}` is not in the method table"
            ));
            return;
        };
        let params = msg.get("params").cloned();
        let ok = match params {
            Some(p) => match (rev.params_roundtrip)(method, &p) {
                Some(Ok(back)) if back == p => true,
                Some(Ok(back)) => {
                    report
                        .failures
                        .push(format!("{label}: params of `{method}` differ: {back}"));
                    false
                }
                Some(Err(e)) => {
                    report
                        .failures
                        .push(format!("{label}: params of `{method}`: {e}"));
                    false
                }
                None => {
                    report
                        .failures
                        .push(format!("{label}: `{method}` has no params type"));
                    false
                }
            },
            None => true,
        };
        // The whole message also decodes through the groupings of its type.
        let mut in_groups = true;
        for union in (rev.unions_of)(message_type) {
            match (rev.decode_union)(union, msg) {
                Some(Ok((member, back))) if member == message_type && back == *msg => {}
                other => {
                    in_groups = false;
                    report
                        .failures
                        .push(format!("{label}: through {union}: {other:?}"));
                }
            }
        }
        if ok && in_groups {
            report.row(key).typed_ok += 1;
        }
    } else if let Some(result) = msg.get("result") {
        let id = msg.get("id").map(Value::to_string).unwrap_or_default();
        if let Some(method) = requests.get(&id) {
            report.row(key).typed_checked += 1;
            match (rev.result_roundtrip)(method, result) {
                Ok(back) if back == *result => report.row(key).typed_ok += 1,
                Ok(back) => report
                    .failures
                    .push(format!("{label}: result of `{method}` differs: {back}")),
                Err(e) => report
                    .failures
                    .push(format!("{label}: result of `{method}`: {e}")),
            }
        }
    }
}

/// A fragment that is a content block: exact through the revision's
/// content block type.
fn check_content_block(
    rev: &Revision,
    v: &mut Validators,
    report: &mut Report,
    key: &str,
    label: &str,
    value: &Value,
) -> bool {
    let Some((ty, pointer)) = rev.content_block else {
        return false;
    };
    let kinds = ["text", "image", "audio", "resource", "resource_link"];
    if !value
        .get("type")
        .and_then(Value::as_str)
        .is_some_and(|t| kinds.contains(&t))
    {
        return false;
    }
    report.row(key).examples += 1;
    if let Some(err) = v.check(pointer, value) {
        report.defects.push(format!("{label}: {err}"));
        return true;
    }
    report.row(key).schema_valid += 1;
    check_typed(rev, v, report, key, label, ty, value);
    true
}

fn doc_examples(rev: &Revision, v: &mut Validators, report: &mut Report) {
    let key = format!("{} spec pages", rev.name);
    let entries = read_json(&mirror().join(rev.name).join("doc-examples.json"));
    let entries = entries.as_array().unwrap();
    let mut requests: HashMap<String, HashMap<String, String>> = HashMap::new();
    for e in entries {
        let src = e["source"].as_str().unwrap().to_owned();
        if let (Some(id), Some(m)) = (
            e["json"].get("id"),
            e["json"].get("method").and_then(Value::as_str),
        ) {
            requests
                .entry(src)
                .or_default()
                .insert(id.to_string(), m.to_owned());
        }
    }
    for e in entries {
        let src = e["source"].as_str().unwrap();
        let label = format!("{}#{}", src, e["block"]);
        let json = &e["json"];
        if json.get("jsonrpc").is_some() {
            let empty = HashMap::new();
            check_message(
                rev,
                v,
                report,
                &key,
                &label,
                json,
                requests.get(src).unwrap_or(&empty),
            );
        } else {
            check_content_block(rev, v, report, &key, &label, json);
        }
    }
}

fn seed_examples(revs: &[Revision], report: &mut Report) {
    // The revision each seed document describes: the one it names, else the
    // one that introduced what it documents (`title`/`outputSchema`: 2025-06-18).
    let mut files: Vec<PathBuf> = std::fs::read_dir(shared().join("seeds"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    for path in files {
        let text = std::fs::read_to_string(&path).unwrap();
        let revision = if text.contains("2024-11-05") {
            "2024-11-05"
        } else {
            "2025-06-18"
        };
        let rev = revs.iter().find(|r| r.name == revision).unwrap();
        let mut v = Validators::new(revision);
        let key = format!("{revision} seeds");
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let blocks: Vec<Value> = text
            .split("```json")
            .skip(1)
            .filter_map(|chunk| chunk.split("```").next())
            .filter_map(|block| serde_json::from_str(block).ok())
            .collect();
        let mut requests = HashMap::new();
        for b in &blocks {
            if let (Some(id), Some(m)) = (b.get("id"), b.get("method").and_then(Value::as_str)) {
                requests.insert(id.to_string(), m.to_owned());
            }
        }
        for (i, b) in blocks.iter().enumerate() {
            let label = format!("seeds/{name} block {i}");
            if b.get("jsonrpc").is_some() {
                check_message(rev, &mut v, report, &key, &label, b, &requests);
            } else if !check_content_block(rev, &mut v, report, &key, &label, b) {
                // Content blocks listed inside a fragment (`"content": [...]`).
                if let Some(items) = b.get("content").and_then(Value::as_array) {
                    for (j, item) in items.iter().enumerate() {
                        check_content_block(
                            rev,
                            &mut v,
                            report,
                            &key,
                            &format!("{label} content[{j}]"),
                            item,
                        );
                    }
                }
            }
        }
    }
}

fn official_examples(rev: &Revision, report: &mut Report) {
    let mut v = Validators::new(rev.name);
    let key = format!("{} official examples", rev.name);
    let dir = mirror().join(rev.name).join("examples");
    let mut types: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    types.sort();
    for type_dir in types {
        let ty = type_dir.file_name().unwrap().to_string_lossy().into_owned();
        let mut files: Vec<PathBuf> = std::fs::read_dir(&type_dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        files.sort();
        for file in files {
            let value = read_json(&file);
            let label = format!(
                "examples/{ty}/{}",
                file.file_name().unwrap().to_string_lossy()
            );
            report.row(&key).examples += 1;
            let pointer = v.def(&ty);
            if let Some(err) = v.check(&pointer, &value) {
                report.defects.push(format!("{label}: {err}"));
                continue;
            }
            report.row(&key).schema_valid += 1;
            check_typed(rev, &mut v, report, &key, &label, &ty, &value);
        }
    }
}

#[test]
fn generated_types_match_the_specification_examples() {
    // The examples and the seeds are only in ../shared (a downloaded
    // schema comes without them).
    let test = "roundtrip::generated_types_match_the_specification_examples";
    if !mirror().join("2026-07-28/examples").is_dir()
        && shared_data::shared_data("mcp-spec/2026-07-28/examples", test).is_none()
    {
        return;
    }
    if shared_data::shared_data("seeds", test).is_none() {
        return;
    }
    let revs = revisions();
    let mut report = Report::default();
    official_examples(
        revs.iter().find(|r| r.name == "2026-07-28").unwrap(),
        &mut report,
    );
    for rev in &revs {
        let mut v = Validators::new(rev.name);
        doc_examples(rev, &mut v, &mut report);
    }
    seed_examples(&revs, &mut report);
    println!("{}", report.print());

    let official = &report.rows["2026-07-28 official examples"];
    assert_eq!(
        official.examples, 129,
        "the mirror holds 129 official examples"
    );
    for f in &report.failures {
        eprintln!("FAIL {f}");
    }
    assert!(
        report.failures.is_empty(),
        "{} failures (listed above)",
        report.failures.len()
    );
    for (k, r) in &report.rows {
        assert_eq!(
            r.exact, r.schema_valid,
            "{k}: every schema-valid example must round-trip exactly"
        );
        assert_eq!(
            r.union_ok, r.union_checked,
            "{k}: every union member must land in its own variant"
        );
        assert_eq!(
            r.corrupt_rejected, r.corrupt_checked,
            "{k}: every corrupted constant must be rejected"
        );
        assert_eq!(
            r.typed_ok, r.typed_checked,
            "{k}: every message must decode typed by its method"
        );
    }
    assert!(official.union_checked > 0 && official.corrupt_checked > 0);
}
