//! Property test: every schema-valid value decodes into the generated
//! types, and the runtime's validator agrees with a reference validator.
//!
//! For every tool of every manifest compiled here (the shared manifests,
//! the rule fixtures, the hard shapes of `manifests/shapes.json` and the
//! example servers' manifests),
//! values are drawn at random from the tool's `inputSchema` and
//! `outputSchema` by a schema-driven generator of this file ([`Gen`]).
//! Each value is judged by the `jsonschema` crate (the reference) and by
//! `mcpgen_runtime`'s validator, which must agree. Each value the
//! reference accepts, and the same value with every integer written as a
//! float (`5` as `5.0`), must decode into the tool's generated type the
//! way a generated server decodes arguments, and encode back to the same
//! JSON value (numbers compared by value).
//!
//! Three normalisations of the generated types are allowed in that
//! comparison, and only these: an optional property given as `null`, or
//! as an empty array or map (`[]`, `{}`), may be left out (an optional
//! property is an `Option`, and these are its `None`), and a property left out may come back as its schema's
//! `default`. Objects get only their declared properties (and
//! `additionalProperties` where a schema types them): undeclared
//! properties of an open object decode and are dropped, as serde does.
//!
//! `MCPGEN_PROPERTY_DRAWS` sets the draws per schema (default 48); the
//! counts are printed.

use std::collections::BTreeMap;

use mcpgen_runtime::schema::Draft;
use mcpgen_runtime::schema::SchemaValidator;
use serde_json::{json, Map, Number, Value};

type RoundTrip = fn(&str, bool, Value) -> Option<Result<Value, String>>;

#[path = "../../shared_data/data.rs"]
mod shared_data;

/// The manifests compiled here: the real ones of `../shared` when the
/// build found them (else the test records that they were skipped), and
/// the repository's own.
fn manifests() -> Vec<(&'static str, &'static str, RoundTrip)> {
    #[cfg(shared_manifests)]
    let real: Vec<(&'static str, &'static str, RoundTrip)> = vec![
        (
            "github",
            "../../../shared/manifests/github.json",
            mcpgen_tools_tests::github::roundtrip,
        ),
        (
            "stitch",
            "../../../shared/manifests/stitch.json",
            mcpgen_tools_tests::stitch::roundtrip,
        ),
    ];
    #[cfg(not(shared_manifests))]
    let real = {
        let test = "properties::every_valid_value_decodes_and_the_validators_agree (github, stitch, real/)";
        shared_data::skip(
            test,
            "needs ../shared/manifests, which is not beside the repository",
        );
        Vec::new()
    };
    let own: Vec<(&'static str, &'static str, RoundTrip)> = vec![
        (
            "rules",
            "manifests/rules.json",
            mcpgen_tools_tests::rules::roundtrip,
        ),
        (
            "fallbacks",
            "manifests/fallbacks.json",
            mcpgen_tools_tests::fallbacks::roundtrip,
        ),
        (
            "refs",
            "manifests/refs.json",
            mcpgen_tools_tests::refs::roundtrip,
        ),
        (
            "hostile",
            "manifests/hostile.json",
            mcpgen_tools_tests::hostile::roundtrip,
        ),
        (
            "shapes",
            "manifests/shapes.json",
            mcpgen_tools_tests::shapes::roundtrip,
        ),
        (
            "weather",
            "../../examples/weather-server/tools.json",
            mcpgen_tools_tests::weather::roundtrip,
        ),
        (
            "notes",
            "../../examples/notes-server/manifest.json",
            mcpgen_tools_tests::notes::roundtrip,
        ),
        (
            "conformance",
            "../../examples/conformance-server/tools.json",
            mcpgen_tools_tests::conformance::roundtrip,
        ),
    ];
    // With every real server's capture: shapes nobody here invented (none
    // when ../shared is not there).
    real.into_iter()
        .chain(own)
        .chain(mcpgen_tools_tests::real::ALL.iter().copied())
        .collect()
}

#[derive(Default, Debug)]
struct Counts {
    drawn: usize,
    valid: usize,
    refused: usize,
    changed: usize,
    disagreements: usize,
}

#[test]
fn every_valid_value_decodes_and_the_validators_agree() {
    // Deep values of recursive schemas need more than a test thread's
    // stack in a debug build.
    std::thread::Builder::new()
        .stack_size(256 << 20)
        .spawn(run)
        .unwrap()
        .join()
        .unwrap();
}

fn run() {
    let draws: usize = std::env::var("MCPGEN_PROPERTY_DRAWS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(48);
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut problems: Vec<String> = Vec::new();
    let mut total = Counts::default();
    for (name, path, roundtrip) in manifests() {
        let text = std::fs::read_to_string(dir.join(path))
            .unwrap_or_else(|e| panic!("{name}: {path}: {e}"));
        let manifest: Value = serde_json::from_str(&text).unwrap();
        let mut counts = Counts::default();
        for tool in manifest["tools"].as_array().unwrap() {
            let tool_name = tool["name"].as_str().unwrap();
            for (output, key) in [(false, "inputSchema"), (true, "outputSchema")] {
                let Some(schema) = tool.get(key) else {
                    continue;
                };
                let reference = jsonschema::options()
                    .with_draft(jsonschema::Draft::Draft202012)
                    .build(schema)
                    .unwrap_or_else(|e| {
                        panic!("{name}/{tool_name}/{key}: reference cannot compile: {e}")
                    });
                let runtime =
                    SchemaValidator::compile(schema, Draft::Draft202012).unwrap_or_else(|e| {
                        panic!("{name}/{tool_name}/{key}: runtime cannot compile: {e}")
                    });
                let mut gen = Gen::new(schema, &format!("{name}/{tool_name}/{key}"));
                for _ in 0..draws {
                    let value = gen.draw(schema, 0);
                    counts.drawn += 1;
                    let valid = reference.is_valid(&value);
                    if valid != runtime.validate(&value).is_ok() {
                        counts.disagreements += 1;
                        problems.push(format!("{name}/{tool_name}/{key}: reference says {valid}, runtime the opposite, for {value}"));
                    }
                    if !valid {
                        continue;
                    }
                    counts.valid += 1;
                    for instance in [value.clone(), floats(&value)] {
                        if instance != value && !reference.is_valid(&instance) {
                            continue;
                        }
                        // As a server gets it: JSON text, parsed and validated.
                        let instance: Value =
                            serde_json::from_str(&instance.to_string()).expect("JSON text parses");
                        if let Err(why) = runtime.validate(&instance) {
                            counts.refused += 1;
                            problems.push(format!("{name}/{tool_name}/{key}: the runtime refused {instance} read from text: {why:?}"));
                            continue;
                        }
                        match roundtrip(tool_name, output, instance.clone()) {
                            None => panic!("{name}/{tool_name}: no generated type for {key}"),
                            Some(Err(why)) => {
                                counts.refused += 1;
                                problems.push(format!(
                                    "{name}/{tool_name}/{key}: refused {instance}: {why}"
                                ));
                            }
                            Some(Ok(back)) => {
                                if !same(&instance, &back, schema, schema) {
                                    counts.changed += 1;
                                    problems.push(format!(
                                        "{name}/{tool_name}/{key}: {instance} came back as {back}"
                                    ));
                                }
                            }
                        }
                    }
                }
            }
        }
        println!(
            "{name}: drawn {}, valid {}, refused {}, changed {}, disagreements {}",
            counts.drawn, counts.valid, counts.refused, counts.changed, counts.disagreements
        );
        total.drawn += counts.drawn;
        total.valid += counts.valid;
        total.refused += counts.refused;
        total.changed += counts.changed;
        total.disagreements += counts.disagreements;
    }
    println!(
        "all: drawn {}, valid {}, refused {}, changed {}, disagreements {}",
        total.drawn, total.valid, total.refused, total.changed, total.disagreements
    );
    assert!(
        total.valid * 4 > total.drawn,
        "too few valid draws to mean anything: {total:?}"
    );
    // One problem per tool and kind is enough to read.
    let mut seen = std::collections::BTreeSet::new();
    problems.retain(|p| {
        seen.insert(
            p.split(": ")
                .take(2)
                .map(|s| s.split(' ').next().unwrap_or(s))
                .collect::<Vec<_>>()
                .join(":"),
        )
    });
    problems.truncate(60);
    assert!(
        problems.is_empty(),
        "{} problems, first ones:\n{}",
        problems.len(),
        problems.join("\n")
    );
}

/// `value` with every integer written as a float (exact below 2^53).
fn floats(value: &Value) -> Value {
    match value {
        Value::Number(n) if !n.is_f64() => match n.as_i64() {
            Some(i) if i.unsigned_abs() < (1 << 53) => {
                Number::from_f64(i as f64).map_or(value.clone(), Value::Number)
            }
            _ => value.clone(),
        },
        Value::Array(a) => Value::Array(a.iter().map(floats).collect()),
        Value::Object(o) => Value::Object(o.iter().map(|(k, v)| (k.clone(), floats(v))).collect()),
        other => other.clone(),
    }
}

/// Whether `back` is `sent` as JSON Schema compares values, allowing the
/// two normalisations the module docs name.
fn same(sent: &Value, back: &Value, schema: &Value, root: &Value) -> bool {
    match (sent, back) {
        (Value::Number(a), Value::Number(b)) => a.as_f64() == b.as_f64(),
        (Value::Array(a), Value::Array(b)) => {
            let items = resolve(schema, root)
                .get("items")
                .unwrap_or(&Value::Bool(true));
            a.len() == b.len() && a.iter().zip(b).all(|(x, y)| same(x, y, items, root))
        }
        (Value::Object(a), Value::Object(b)) => {
            let props = properties(schema, root);
            let any = [Value::Bool(true)];
            let candidates = |k: &String| props.get(k).map_or(&any[..], Vec::as_slice);
            a.iter().all(|(k, v)| match b.get(k) {
                Some(w) => candidates(k).iter().any(|s| same(v, w, s, root)),
                None => {
                    v.is_null()
                        || v.as_array().is_some_and(Vec::is_empty)
                        || v.as_object().is_some_and(Map::is_empty)
                }
            }) && b.iter().all(|(k, w)| {
                a.contains_key(k)
                    || candidates(k)
                        .iter()
                        .filter_map(|p| p.get("default"))
                        .any(|d| same(d, w, &Value::Bool(true), root))
            })
        }
        _ => sent == back,
    }
}

/// The declared properties of an object schema (through `$ref`).
/// Those of the members of `anyOf`, `oneOf` and `allOf` too: a value
/// decodes as one member, whose defaults may fill it.
fn properties(schema: &Value, root: &Value) -> BTreeMap<String, Vec<Value>> {
    let schema = resolve(schema, root);
    let mut out: BTreeMap<String, Vec<Value>> = BTreeMap::new();
    for (k, v) in schema
        .get("properties")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
    {
        out.entry(k.clone())
            .or_default()
            .push(resolve(v, root).clone());
    }
    for key in ["anyOf", "oneOf", "allOf"] {
        for member in schema
            .get(key)
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            for (k, v) in properties(member, root) {
                out.entry(k).or_default().extend(v);
            }
        }
    }
    out
}

fn resolve<'a>(schema: &'a Value, root: &'a Value) -> &'a Value {
    let mut s = schema;
    for _ in 0..16 {
        match s.get("$ref").and_then(Value::as_str) {
            Some(r) => match r.strip_prefix('#').and_then(|p| root.pointer(p)) {
                Some(target) => s = target,
                None => return s,
            },
            None => return s,
        }
    }
    s
}

/// A schema-driven random generator, seeded from the schema's place so
/// that every run draws the same values.
struct Gen<'a> {
    root: &'a Value,
    state: u64,
}

impl<'a> Gen<'a> {
    fn new(root: &'a Value, seed: &str) -> Self {
        let mut state = 0xcbf2_9ce4_8422_2325u64;
        for b in seed.bytes() {
            state = (state ^ u64::from(b)).wrapping_mul(0x100_0000_01b3);
        }
        Self {
            root,
            state: state | 1,
        }
    }

    fn next(&mut self) -> u64 {
        // xorshift64*
        self.state ^= self.state >> 12;
        self.state ^= self.state << 25;
        self.state ^= self.state >> 27;
        self.state.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }

    fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }

    fn draw(&mut self, schema: &Value, depth: usize) -> Value {
        if depth > 24 {
            return Value::Null;
        }
        let o = match schema {
            Value::Bool(true) => return self.any(depth),
            Value::Object(o) => o,
            _ => return Value::Null,
        };
        if let Some(r) = o.get("$ref").and_then(Value::as_str) {
            if let Some(target) = r.strip_prefix('#').and_then(|p| self.root.pointer(p)) {
                if depth < 8 {
                    return self.draw(target, depth + 1);
                }
            }
            return Value::Null;
        }
        if let Some(c) = o.get("const") {
            return c.clone();
        }
        if let Some(Value::Array(values)) = o.get("enum") {
            if !values.is_empty() {
                return values[self.below(values.len())].clone();
            }
        }
        for key in ["anyOf", "oneOf"] {
            if let Some(Value::Array(members)) = o.get(key) {
                if !members.is_empty() {
                    let member = members[self.below(members.len())].clone();
                    let merged = merge(o, &member, key);
                    return self.draw(&merged, depth + 1);
                }
            }
        }
        if let Some(Value::Array(members)) = o.get("allOf") {
            let mut merged = o.clone();
            merged.remove("allOf");
            let mut merged = Value::Object(merged);
            for m in members {
                merged = merge(merged.as_object().unwrap(), resolve(m, self.root), "allOf");
            }
            return self.draw(&merged, depth + 1);
        }
        let types: Vec<&str> = match o.get("type") {
            Some(Value::String(t)) => vec![t.as_str()],
            Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
            _ if o.contains_key("properties") || o.contains_key("required") => vec!["object"],
            _ if o.contains_key("items") || o.contains_key("prefixItems") => vec!["array"],
            _ => return self.any(depth),
        };
        let ty = types
            .get(self.below(types.len()))
            .copied()
            .unwrap_or("null");
        match ty {
            "null" => Value::Null,
            "boolean" => Value::Bool(self.chance(50)),
            "integer" => self.integer(o),
            "number" => self.number(o),
            "string" => self.string(o),
            "array" => self.array(o, depth),
            "object" => self.object(o, depth),
            _ => Value::Null,
        }
    }

    fn any(&mut self, depth: usize) -> Value {
        match self.below(if depth > 3 { 4 } else { 6 }) {
            0 => Value::Null,
            1 => Value::Bool(self.chance(50)),
            2 => json!(self.below(1000)),
            3 => json!("text"),
            4 => json!([1, "a"]),
            _ => json!({"k": 1}),
        }
    }

    fn integer(&mut self, o: &Map<String, Value>) -> Value {
        let lo = o.get("minimum").and_then(Value::as_f64).map(f64::ceil).or(o
            .get("exclusiveMinimum")
            .and_then(Value::as_f64)
            .map(|m| m.floor() + 1.0));
        let hi = o
            .get("maximum")
            .and_then(Value::as_f64)
            .map(f64::floor)
            .or(o
                .get("exclusiveMaximum")
                .and_then(Value::as_f64)
                .map(|m| m.ceil() - 1.0));
        let pick = match self.below(8) {
            // Near 2^53, where a float stops holding every integer.
            6 => 9_007_199_254_740_991.0 - self.below(3) as f64,
            7 => 4_419_156_816_473_006.0 + self.below(4) as f64,
            0 => lo.unwrap_or(-3.0),
            1 => hi.unwrap_or(1e6),
            // Beyond i64 and u64 when the bounds allow.
            2 => hi
                .unwrap_or(18_446_744_073_709_551_615.0)
                .min(if lo.unwrap_or(-1.0) >= 0.0 {
                    18_446_744_073_709_551_615.0
                } else {
                    9_223_372_036_854_775_807.0
                }),
            3 => lo.unwrap_or(-9_223_372_036_854_775_808.0),
            _ => self.below(200) as f64 - 50.0,
        };
        let lo = lo.unwrap_or(f64::MIN);
        let hi = hi.unwrap_or(f64::MAX);
        let v = pick.clamp(lo.min(hi), hi.max(lo));
        let v = match o.get("multipleOf").and_then(Value::as_f64) {
            Some(m) if m > 0.0 => (v / m).round() * m,
            _ => v,
        };
        if v == 18_446_744_073_709_551_615.0 {
            return json!(u64::MAX);
        }
        if (9_223_372_036_854_775_807.0..18_446_744_073_709_551_615.0).contains(&v) {
            return json!(v as u64);
        }
        if (-9_223_372_036_854_775_808.0..9_223_372_036_854_775_807.0).contains(&v) {
            return json!(v as i64);
        }
        Number::from_f64(v).map_or(Value::Null, Value::Number)
    }

    fn number(&mut self, o: &Map<String, Value>) -> Value {
        let lo = o
            .get("minimum")
            .or(o.get("exclusiveMinimum"))
            .and_then(Value::as_f64)
            .unwrap_or(-1e6);
        let hi = o
            .get("maximum")
            .or(o.get("exclusiveMaximum"))
            .and_then(Value::as_f64)
            .unwrap_or(1e6);
        let span = (hi - lo).max(0.0);
        let v = lo + span * (self.below(1000) as f64 / 1000.0);
        let v = if self.chance(30) { v.round() } else { v };
        Number::from_f64(v).map_or(json!(0), Value::Number)
    }

    fn string(&mut self, o: &Map<String, Value>) -> Value {
        let min = o.get("minLength").and_then(Value::as_u64).unwrap_or(0) as usize;
        let max = o
            .get("maxLength")
            .and_then(Value::as_u64)
            .map_or(min + 12, |m| m as usize)
            .max(min);
        let len = min + self.below(max - min + 1);
        match o.get("format").and_then(Value::as_str) {
            Some("date-time") => return json!("2026-11-27T10:00:00Z"),
            Some("date") => return json!("2026-11-27"),
            Some("email") => return json!("someone@example.com"),
            Some("uri") => return json!("https://example.com/a"),
            Some("uuid") => return json!("123e4567-e89b-12d3-a456-426614174000"),
            _ => {}
        }
        const ALPHABET: &[char] = &[
            'a', 'b', 'z', 'Q', '0', '7', '_', '-', ' ', 'é', 'ж', '中', '😀',
        ];
        Value::String(
            (0..len)
                .map(|_| ALPHABET[self.below(ALPHABET.len())])
                .collect(),
        )
    }

    fn array(&mut self, o: &Map<String, Value>, depth: usize) -> Value {
        let prefix: Vec<Value> = o
            .get("prefixItems")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        let min = o.get("minItems").and_then(Value::as_u64).unwrap_or(0) as usize;
        let max = o
            .get("maxItems")
            .and_then(Value::as_u64)
            .map_or(min + 3, |m| m as usize)
            .max(min)
            .min(min + 4);
        let len = if depth > 5 {
            min
        } else {
            min + self.below(max - min + 1)
        };
        let items = o.get("items").cloned().unwrap_or(Value::Bool(true));
        let mut out: Vec<Value> = Vec::with_capacity(len);
        for i in 0..len.max(prefix.len().min(max)) {
            let s = prefix.get(i).cloned().unwrap_or_else(|| items.clone());
            let v = self.draw(&s, depth + 1);
            if o.get("uniqueItems") == Some(&Value::Bool(true)) && out.contains(&v) {
                continue;
            }
            out.push(v);
        }
        Value::Array(out)
    }

    fn object(&mut self, o: &Map<String, Value>, depth: usize) -> Value {
        let props = o
            .get("properties")
            .and_then(Value::as_object)
            .cloned()
            .unwrap_or_default();
        let required: Vec<String> = o
            .get("required")
            .and_then(Value::as_array)
            .map(|r| {
                r.iter()
                    .filter_map(|v| v.as_str().map(str::to_owned))
                    .collect()
            })
            .unwrap_or_default();
        let mut out = Map::new();
        for (k, s) in &props {
            if required.contains(k) || (depth < 5 && self.chance(50)) {
                out.insert(k.clone(), self.draw(s, depth + 1));
            }
        }
        for k in &required {
            if !out.contains_key(k) {
                out.insert(k.clone(), self.any(depth + 1));
            }
        }
        if let Some(extra @ Value::Object(_)) = o.get("additionalProperties") {
            if depth < 5 {
                for i in 0..self.below(3) {
                    let key = format!("extra{i}");
                    if !props.contains_key(&key) {
                        out.insert(key, self.draw(extra, depth + 1));
                    }
                }
            }
        }
        Value::Object(out)
    }
}

/// `outer` with `keyword` removed and `member`'s keywords added (object
/// keywords merged), so that the outer schema's constraints still apply.
fn merge(outer: &Map<String, Value>, member: &Value, keyword: &str) -> Value {
    let mut out = outer.clone();
    out.remove(keyword);
    if let Some(m) = member.as_object() {
        for (k, v) in m {
            match (k.as_str(), out.get_mut(k)) {
                ("properties", Some(Value::Object(mine))) => {
                    if let Some(theirs) = v.as_object() {
                        let theirs: BTreeMap<_, _> = theirs.iter().collect();
                        for (pk, pv) in theirs {
                            mine.insert(pk.clone(), pv.clone());
                        }
                    }
                }
                ("required", Some(Value::Array(mine))) => {
                    for r in v.as_array().into_iter().flatten() {
                        if !mine.contains(r) {
                            mine.push(r.clone());
                        }
                    }
                }
                _ => {
                    out.insert(k.clone(), v.clone());
                }
            }
        }
    } else if member == &Value::Bool(false) {
        out.insert("not".into(), json!({}));
    }
    Value::Object(out)
}
