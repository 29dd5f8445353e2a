//! Synthesised tool arguments for the tests that `mcpgen new` scaffolds:
//! for a tool's `inputSchema`, a small JSON object the server's validator
//! accepts ([`valid_arguments`]) and one it refuses
//! ([`invalid_arguments`]).
//!
//! The valid object holds the required properties only, each the simplest
//! value its schema allows: `const`, the first `enum` value, a `default` or
//! first `examples` value that fits, else one built from the type and its
//! constraints (string `format`s, `pattern`, lengths; numeric bounds and
//! `multipleOf`; `minItems`, `prefixItems`/`items`, `contains`; nested
//! objects, `dependentRequired`, `minProperties`). Local `$ref`s
//! (`#/$defs/…`, `#/definitions/…`, any JSON pointer, anchors) are
//! followed, `allOf` branches all apply, one branch of each `anyOf`/`oneOf`
//! is picked (the first that fits), and a `type` list is tried in order.
//!
//! It is a best effort, so every result is checked with
//! [`SchemaValidator`] — the validator the server runs on each
//! `tools/call` — in the dialect the server uses. When no value is found
//! (an unsatisfiable or unsupported `pattern`, a `false` schema, a remote
//! `$ref`), the error says why, and the scaffold skips that tool's call.

mod pattern;

use std::collections::{HashMap, HashSet, VecDeque};

use mcpgen_runtime::schema::Draft;
use mcpgen_runtime::schema::SchemaValidator;
use serde_json::{json, Map, Number, Value};

/// How deep values nest (objects in objects, arrays, `$ref` chains) before
/// synthesis gives up, e.g. on a recursive type whose recursion is required.
const MAX_DEPTH: usize = 24;

/// Arguments that `schema` (a tool's `inputSchema`) accepts in dialect
/// `draft` (or the schema's own `$schema`), checked with the server's
/// validator; or why none were found.
pub fn valid_arguments(schema: &Value, draft: Draft) -> Result<Value, String> {
    let validator = SchemaValidator::compile(schema, draft)
        .map_err(|e| format!("the inputSchema does not compile: {e}"))?;
    let mut why = String::new();
    // With defaults and examples first (realistic values), then without
    // them (a default that breaks its own schema must not spoil the rest).
    for prefer_defaults in [true, false] {
        let mut synth = Synth::new(schema, draft, prefer_defaults);
        match synth.value(
            &[Frag {
                ptr: String::new(),
                schema,
            }],
            0,
            0,
        ) {
            Ok(value) if !value.is_object() => {
                why = format!("the synthesised arguments {value} are not an object")
            }
            Ok(value) => match validator.validate(&value) {
                Ok(()) => return Ok(value),
                Err(errors) => {
                    let errors: Vec<String> = errors.iter().map(ToString::to_string).collect();
                    why = format!(
                        "the synthesised arguments {value} do not validate: {}",
                        errors.join("; ")
                    );
                }
            },
            Err(e) => why = e,
        }
    }
    Err(why)
}

/// Arguments (a JSON object, as `tools/call` requires) that `schema`
/// refuses, derived from `valid` (the result of [`valid_arguments`], when
/// there is one), with what was changed to make them invalid; `None` when
/// the schema seems to accept every object tried.
pub fn invalid_arguments(
    schema: &Value,
    draft: Draft,
    valid: Option<&Value>,
) -> Option<(Value, String)> {
    let validator = SchemaValidator::compile(schema, draft).ok()?;
    let base = valid
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    let mut candidates: Vec<(Map<String, Value>, String)> = Vec::new();
    if base.is_empty() {
        candidates.push((Map::new(), "no arguments at all".to_owned()));
    }
    for name in base.keys() {
        let mut args = base.clone();
        args.retain(|k, _| k != name);
        candidates.push((args, format!("the property `{name}` left out")));
    }
    for (name, value) in &base {
        let mut args = base.clone();
        args.insert(name.clone(), wrong_type(value));
        candidates.push((args, format!("`{name}` of the wrong type")));
    }
    if let Some(properties) = schema.get("properties").and_then(Value::as_object) {
        for (name, property) in properties {
            if base.contains_key(name) {
                continue;
            }
            let declared = property
                .get("type")
                .and_then(Value::as_str)
                .unwrap_or("null");
            let wrong = match declared {
                "string" => json!(12345),
                "null" => continue,
                _ => json!("not a value of this type"),
            };
            let mut args = base.clone();
            args.insert(name.clone(), wrong);
            candidates.push((args, format!("`{name}` of the wrong type")));
        }
    }
    let mut args = base.clone();
    args.insert("mcpgenUnexpectedProperty".to_owned(), Value::Bool(true));
    candidates.push((args, "an undeclared property added".to_owned()));

    candidates
        .into_iter()
        .map(|(args, why)| (Value::Object(args), why))
        .find(|(args, _)| validator.validate(args).is_err())
}

/// A value of another JSON type than `value`.
fn wrong_type(value: &Value) -> Value {
    match value {
        Value::String(_) => json!(12345),
        Value::Null => json!(["not null"]),
        _ => json!("not a value of this type"),
    }
}

/// A schema at a JSON pointer of the root document.
#[derive(Debug, Clone)]
struct Frag<'s> {
    ptr: String,
    schema: &'s Value,
}

impl<'s> Frag<'s> {
    /// The subschema at `self.ptr` + `/path`, when there is one.
    fn child(&self, path: &[&str]) -> Option<Frag<'s>> {
        let mut schema = self.schema;
        let mut ptr = self.ptr.clone();
        for step in path {
            schema = match schema {
                Value::Object(o) => o.get(*step)?,
                Value::Array(a) => a.get(step.parse::<usize>().ok()?)?,
                _ => return None,
            };
            ptr.push('/');
            ptr.push_str(&step.replace('~', "~0").replace('/', "~1"));
        }
        Some(Frag { ptr, schema })
    }

    fn get(&self, keyword: &str) -> Option<&'s Value> {
        self.schema.get(keyword)
    }
}

/// An `anyOf` / `oneOf` whose branch is not chosen yet.
struct Group {
    /// Pointer of the keyword (`…/anyOf`).
    ptr: String,
    len: usize,
}

struct Synth<'s> {
    root: &'s Value,
    /// The dialect: the schema's `$schema`, else the one asked for.
    draft: Draft,
    /// 2019-09 and later: `$ref` siblings apply.
    modern: bool,
    prefer_defaults: bool,
    /// Compiled validators of subschemas, by pointer (`None`: it did not
    /// compile on its own, so it is not checked before the final check).
    validators: HashMap<String, Option<SchemaValidator>>,
}

impl<'s> Synth<'s> {
    fn new(root: &'s Value, draft: Draft, prefer_defaults: bool) -> Self {
        let draft = Draft::detect(root).unwrap_or(draft);
        let modern = !matches!(draft, Draft::Draft4 | Draft::Draft6 | Draft::Draft7);
        Synth {
            root,
            draft,
            modern,
            prefer_defaults,
            validators: HashMap::new(),
        }
    }

    /// A value that every schema of `frags` accepts.
    fn value(&mut self, frags: &[Frag<'s>], variant: usize, depth: usize) -> Result<Value, String> {
        if depth > MAX_DEPTH {
            return Err(format!(
                "values nest deeper than {MAX_DEPTH} levels (a required recursion?)"
            ));
        }
        self.choose(frags, &mut HashMap::new(), variant, depth)
    }

    /// Picks a branch for each `anyOf`/`oneOf` (the first whose value all of
    /// `frags` accept), then builds the value.
    fn choose(
        &mut self,
        frags: &[Frag<'s>],
        chosen: &mut HashMap<String, usize>,
        variant: usize,
        depth: usize,
    ) -> Result<Value, String> {
        let (flat, groups) = self.expand(frags, chosen)?;
        let Some(group) = groups.into_iter().next() else {
            return self.build(&flat, variant, depth);
        };
        let mut fallback = None;
        let mut error = None;
        for branch in 0..group.len {
            chosen.insert(group.ptr.clone(), branch);
            match self.choose(frags, chosen, variant, depth) {
                Ok(value) if self.accepts(frags, &value) => {
                    chosen.remove(&group.ptr);
                    return Ok(value);
                }
                Ok(value) => {
                    fallback.get_or_insert(value);
                }
                Err(e) => {
                    error.get_or_insert(e);
                }
            }
        }
        chosen.remove(&group.ptr);
        fallback.ok_or_else(|| {
            error.unwrap_or_else(|| format!("no branch of {} fits", show(&group.ptr)))
        })
    }

    /// Every schema that applies: `frags`, the targets of their `$ref`s,
    /// their `allOf` branches and chosen `anyOf`/`oneOf` branches; plus the
    /// groups still to choose.
    fn expand(
        &self,
        frags: &[Frag<'s>],
        chosen: &HashMap<String, usize>,
    ) -> Result<(Vec<Frag<'s>>, Vec<Group>), String> {
        let mut queue: VecDeque<Frag<'s>> = frags.iter().cloned().collect();
        let mut seen = HashSet::new();
        let mut flat = Vec::new();
        let mut groups = Vec::new();
        while let Some(frag) = queue.pop_front() {
            if !seen.insert(frag.ptr.clone()) {
                continue;
            }
            let object = match frag.schema {
                Value::Bool(true) => continue,
                Value::Bool(false) => {
                    return Err(format!("the schema at {} accepts nothing", show(&frag.ptr)))
                }
                Value::Object(o) => o,
                _ => return Err(format!("{} is not a schema", show(&frag.ptr))),
            };
            for keyword in ["$ref", "$dynamicRef", "$recursiveRef"] {
                if let Some(reference) = object.get(keyword) {
                    queue.push_back(self.resolve(reference)?);
                }
            }
            if object.contains_key("$ref") && !self.modern {
                continue; // draft-07 and older ignore the siblings of `$ref`
            }
            if let Some(Value::Array(all)) = object.get("allOf") {
                for i in 0..all.len() {
                    queue.extend(frag.child(&["allOf", &i.to_string()]));
                }
            }
            for keyword in ["anyOf", "oneOf"] {
                let Some(Value::Array(branches)) = object.get(keyword) else {
                    continue;
                };
                let ptr = format!("{}/{keyword}", frag.ptr);
                match chosen.get(&ptr) {
                    Some(i) => queue.extend(frag.child(&[keyword, &i.to_string()])),
                    None if !branches.is_empty() => groups.push(Group {
                        ptr,
                        len: branches.len(),
                    }),
                    None => {}
                }
            }
            flat.push(frag);
        }
        Ok((flat, groups))
    }

    /// The target of a local `$ref`: `#`, `#/json/pointer` (percent-encoded
    /// or not) or `#anchor`, also prefixed with the root's `$id`.
    fn resolve(&self, reference: &Value) -> Result<Frag<'s>, String> {
        let text = reference
            .as_str()
            .ok_or_else(|| format!("$ref {reference} is not a string"))?;
        let id = self
            .root
            .get("$id")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let fragment = match text.strip_prefix('#') {
            Some(f) => f,
            None => text
                .strip_prefix(id)
                .filter(|_| !id.is_empty())
                .and_then(|rest| rest.strip_prefix('#').or((rest.is_empty()).then_some("")))
                .ok_or_else(|| {
                    format!("$ref {text:?} is not local (mcpgen never fetches remote schemas)")
                })?,
        };
        let fragment = percent_decode(fragment);
        if fragment.is_empty() || fragment.starts_with('/') {
            let schema = self
                .root
                .pointer(&fragment)
                .ok_or_else(|| format!("$ref {text:?} points at nothing"))?;
            return Ok(Frag {
                ptr: fragment,
                schema,
            });
        }
        find_anchor(self.root, String::new(), &fragment)
            .ok_or_else(|| format!("$ref {text:?} names no anchor of the schema"))
    }

    /// Whether every schema of `frags` accepts `value` (a schema that does
    /// not compile on its own counts as accepting).
    fn accepts(&mut self, frags: &[Frag<'s>], value: &Value) -> bool {
        frags.iter().all(|f| match self.validator(&f.ptr) {
            Some(v) => v.validate(value).is_ok(),
            None => true,
        })
    }

    /// The validator of the subschema at `ptr`: the root embedded under an
    /// `$id`, referenced at `ptr`, so its own `$ref`s still resolve.
    fn validator(&mut self, ptr: &str) -> Option<&SchemaValidator> {
        if !self.validators.contains_key(ptr) {
            let compiled = if ptr.is_empty() {
                SchemaValidator::compile(self.root, self.draft).ok()
            } else {
                let id = self
                    .root
                    .get("$id")
                    .and_then(Value::as_str)
                    .unwrap_or("urn:mcpgen:synth:root")
                    .to_owned();
                let mut embedded = self.root.clone();
                if let Some(o) = embedded.as_object_mut() {
                    o.insert("$id".into(), Value::from(id.clone()));
                }
                let defs = if self.modern { "$defs" } else { "definitions" };
                let mut wrapper = json!({ defs: { "mcpgenSynthRoot": embedded }, "$ref": format!("{id}#{}", percent_encode(ptr)) });
                if let Some(dialect) = self.root.get("$schema") {
                    wrapper["$schema"] = dialect.clone();
                }
                SchemaValidator::compile(&wrapper, self.draft).ok()
            };
            self.validators.insert(ptr.to_owned(), compiled);
        }
        self.validators.get(ptr).and_then(Option::as_ref)
    }

    /// A value for the expanded schemas `flat` (no choices left).
    fn build(&mut self, flat: &[Frag<'s>], variant: usize, depth: usize) -> Result<Value, String> {
        let types = self.types(flat)?;
        if let Some(constant) = flat.iter().find_map(|f| f.get("const")) {
            return Ok(constant.clone());
        }
        if self.prefer_defaults {
            let candidates: Vec<&Value> = flat
                .iter()
                .flat_map(|f| {
                    let examples = f
                        .get("examples")
                        .and_then(Value::as_array)
                        .into_iter()
                        .flatten();
                    f.get("default").into_iter().chain(examples)
                })
                .collect();
            for candidate in candidates {
                if self.accepts(flat, candidate) {
                    return Ok(candidate.clone());
                }
            }
        }
        let enums: Vec<&Vec<Value>> = flat
            .iter()
            .filter_map(|f| f.get("enum").and_then(Value::as_array))
            .collect();
        if let Some((first, rest)) = enums.split_first() {
            let mut common: Vec<&Value> = first
                .iter()
                .filter(|v| rest.iter().all(|e| e.contains(v)))
                .filter(|v| {
                    types
                        .as_ref()
                        .is_none_or(|t| t.iter().any(|t| has_type(v, t)))
                })
                .collect();
            // Null last: a real value reads better and decodes into any type.
            common.sort_by_key(|v| v.is_null());
            if common.is_empty() {
                return Err(format!(
                    "no value is in every `enum` of {}",
                    show(&flat[0].ptr)
                ));
            }
            return Ok(common[variant % common.len()].clone());
        }
        let order: Vec<&str> = match types {
            Some(types) => {
                let mut types = types;
                types.sort_by_key(|t| *t == "null");
                types
            }
            None => vec![infer_type(flat)],
        };
        if order.is_empty() {
            return Err(format!(
                "the `type`s at {} exclude each other",
                show(&flat[0].ptr)
            ));
        }
        let mut fallback = None;
        let mut error = None;
        for (i, ty) in order.iter().enumerate() {
            match self.of_type(ty, flat, variant, depth) {
                Ok(value) if i + 1 == order.len() && fallback.is_none() => return Ok(value),
                Ok(value) if self.accepts(flat, &value) => return Ok(value),
                Ok(value) => {
                    fallback.get_or_insert(value);
                }
                Err(e) => {
                    error.get_or_insert(e);
                }
            }
        }
        fallback.ok_or_else(|| error.unwrap_or_default())
    }

    /// The intersection of the `type`s of `flat` in the order the first
    /// one lists them; `None` when no schema names a type.
    fn types(&self, flat: &[Frag<'s>]) -> Result<Option<Vec<&'s str>>, String> {
        let mut allowed: Option<Vec<&'s str>> = None;
        for frag in flat {
            let listed: Vec<&'s str> = match frag.get("type") {
                None => continue,
                Some(Value::String(t)) => vec![t.as_str()],
                Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
                Some(other) => {
                    return Err(format!(
                        "`type` {other} at {} is not a type",
                        show(&frag.ptr)
                    ))
                }
            };
            allowed = Some(match allowed {
                None => listed,
                Some(previous) => previous
                    .into_iter()
                    .filter_map(|p| match p {
                        _ if listed.contains(&p) => Some(p),
                        "number" if listed.contains(&"integer") => Some("integer"),
                        "integer" if listed.contains(&"number") => Some("integer"),
                        _ => None,
                    })
                    .collect(),
            });
        }
        Ok(allowed)
    }

    fn of_type(
        &mut self,
        ty: &str,
        flat: &[Frag<'s>],
        variant: usize,
        depth: usize,
    ) -> Result<Value, String> {
        match ty {
            "null" => Ok(Value::Null),
            "boolean" => Ok(Value::Bool(variant % 2 == 0)),
            "string" => self.string(flat, variant).map(Value::String),
            "integer" => self.number(flat, true, variant),
            "number" => self.number(flat, false, variant),
            "array" => self.array(flat, variant, depth),
            "object" => self.object(flat, variant, depth),
            other => Err(format!("unknown type {other:?} at {}", show(&flat[0].ptr))),
        }
    }

    /// The `keywords` of every schema of `flat`, as one schema (an `allOf`).
    fn local_schema(flat: &[Frag<'s>], ty: &str, keywords: &[&str]) -> Value {
        let parts: Vec<Value> = flat
            .iter()
            .map(|f| {
                let picked: Map<String, Value> = keywords
                    .iter()
                    .filter_map(|k| f.get(k).map(|v| ((*k).to_owned(), v.clone())))
                    .collect();
                Value::Object(picked)
            })
            .collect();
        json!({ "type": ty, "allOf": parts })
    }

    fn string(&mut self, flat: &[Frag<'s>], variant: usize) -> Result<String, String> {
        let local = Self::local_schema(
            flat,
            "string",
            &["minLength", "maxLength", "pattern", "format"],
        );
        let check = SchemaValidator::compile(&local, self.draft).map_err(|e| {
            format!(
                "the string constraints at {} do not compile: {e}",
                show(&flat[0].ptr)
            )
        })?;
        let min = flat
            .iter()
            .filter_map(|f| f.get("minLength").and_then(Value::as_u64))
            .max()
            .unwrap_or(0) as usize;
        let max = flat
            .iter()
            .filter_map(|f| f.get("maxLength").and_then(Value::as_u64))
            .min();
        let patterns: Vec<&str> = flat
            .iter()
            .filter_map(|f| f.get("pattern").and_then(Value::as_str))
            .collect();
        let format = flat
            .iter()
            .find_map(|f| f.get("format").and_then(Value::as_str));

        let mut candidates = Vec::new();
        if let Some(pattern) = patterns.first() {
            for extra in [0, 1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 64, 128] {
                candidates.extend(pattern::example(pattern, extra));
            }
        }
        let base = match format.and_then(format_example) {
            Some(example) => example.to_owned(),
            None if variant == 0 => "example".to_owned(),
            None => format!("example{variant}"),
        };
        let mut fitted: String = base
            .chars()
            .take(max.map_or(usize::MAX, |m| m as usize))
            .collect();
        while fitted.chars().count() < min {
            fitted.push('x');
        }
        candidates.push(fitted);
        candidates.push(base);
        if let Some(found) = candidates
            .iter()
            .find(|c| check.validate(&Value::from(c.as_str())).is_ok())
        {
            return Ok(found.clone());
        }
        Err(match patterns.first() {
            Some(p) => format!(
                "no string found that matches the pattern {p:?} at {}",
                show(&flat[0].ptr)
            ),
            None => format!(
                "no string found for the constraints at {}",
                show(&flat[0].ptr)
            ),
        })
    }

    fn number(
        &mut self,
        flat: &[Frag<'s>],
        integer: bool,
        variant: usize,
    ) -> Result<Value, String> {
        let ty = if integer { "integer" } else { "number" };
        let keywords = [
            "minimum",
            "maximum",
            "exclusiveMinimum",
            "exclusiveMaximum",
            "multipleOf",
        ];
        let check = SchemaValidator::compile(&Self::local_schema(flat, ty, &keywords), self.draft)
            .map_err(|e| {
                format!(
                    "the numeric constraints at {} do not compile: {e}",
                    show(&flat[0].ptr)
                )
            })?;
        let num = |k: &'static str| {
            flat.iter()
                .filter_map(move |f| f.get(k).and_then(Value::as_f64))
        };
        let lo = num("minimum")
            .chain(num("exclusiveMinimum"))
            .reduce(f64::max);
        let hi = num("maximum")
            .chain(num("exclusiveMaximum"))
            .reduce(f64::min);
        let step = num("multipleOf").next().filter(|m| *m > 0.0);

        let mut points = vec![1.0, 0.0];
        for bound in lo.into_iter().chain(hi) {
            points.extend([bound, bound + 1.0, bound - 1.0, bound.ceil(), bound.floor()]);
        }
        if let (Some(lo), Some(hi)) = (lo, hi) {
            points.push((lo + hi) / 2.0);
        }
        if let Some(step) = step {
            let mut multiples = vec![step];
            for bound in lo.into_iter().chain(hi) {
                let k = (bound / step).floor();
                multiples.extend([k * step, (k + 1.0) * step, (k - 1.0) * step]);
            }
            points.splice(0..0, multiples.into_iter().map(|m| round_like(m, step)));
        }
        let shift = step.unwrap_or(1.0) * variant as f64;
        let round = |x: f64| step.map_or(x, |s| round_like(x, s));
        let candidates = points
            .iter()
            .flat_map(|p| [round(p + shift), round(p - shift)]);
        for candidate in candidates {
            let Some(value) = number_value(candidate, integer) else {
                continue;
            };
            if check.validate(&value).is_ok() {
                return Ok(value);
            }
        }
        Err(format!(
            "no {ty} found for the bounds at {}",
            show(&flat[0].ptr)
        ))
    }

    fn array(&mut self, flat: &[Frag<'s>], variant: usize, depth: usize) -> Result<Value, String> {
        let count = |k: &'static str| {
            flat.iter()
                .filter_map(move |f| f.get(k).and_then(Value::as_u64))
        };
        let contains: Vec<Frag<'s>> = flat.iter().filter_map(|f| f.child(&["contains"])).collect();
        let min_contains = if contains.is_empty() {
            0
        } else {
            count("minContains").max().unwrap_or(1)
        };
        let len = count("minItems").max().unwrap_or(0).max(min_contains) as usize;
        if count("maxItems")
            .min()
            .is_some_and(|max| (max as usize) < len)
        {
            return Err(format!(
                "`minItems` exceeds `maxItems` at {}",
                show(&flat[0].ptr)
            ));
        }
        let unique = flat
            .iter()
            .any(|f| f.get("uniqueItems") == Some(&Value::Bool(true)));
        let mut items = Vec::with_capacity(len);
        for i in 0..len {
            let index = i.to_string();
            let mut item = Vec::new();
            for frag in flat {
                let tuple = frag.get("prefixItems").map(|t| ("prefixItems", t)).or(
                    match frag.get("items") {
                        Some(t @ Value::Array(_)) => Some(("items", t)),
                        _ => None,
                    },
                );
                match tuple {
                    Some((keyword, Value::Array(t))) if i < t.len() => {
                        item.extend(frag.child(&[keyword, &index]))
                    }
                    Some((keyword, _)) => {
                        let rest = if keyword == "prefixItems" {
                            "items"
                        } else {
                            "additionalItems"
                        };
                        item.extend(frag.child(&[rest]));
                    }
                    None => item.extend(frag.child(&["items"])),
                }
            }
            if (i as u64) < min_contains {
                item.extend(contains.iter().cloned());
            }
            // Distinct items where they must be unique: other variants
            // (enum values, numbers, strings) until one differs.
            let first = if unique { variant + i } else { variant };
            let mut value = self
                .value(&item, first, depth + 1)
                .map_err(|e| format!("item {i}: {e}"))?;
            for attempt in 1..=4 {
                if !unique || !items.contains(&value) {
                    break;
                }
                value = self.value(&item, variant + i + attempt * len, depth + 1)?;
            }
            items.push(value);
        }
        Ok(Value::Array(items))
    }

    fn object(&mut self, flat: &[Frag<'s>], variant: usize, depth: usize) -> Result<Value, String> {
        let mut required: Vec<&'s str> = Vec::new();
        for frag in flat {
            for name in frag
                .get("required")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
            {
                if !required.contains(&name) {
                    required.push(name);
                }
            }
        }
        let mut out = Map::new();
        let mut i = 0;
        while let Some(&name) = required.get(i) {
            i += 1;
            let value = self.property(flat, name, variant, depth)?;
            out.insert(name.to_owned(), value);
            for frag in flat {
                for keyword in ["dependentRequired", "dependencies"] {
                    let needs = frag
                        .get(keyword)
                        .and_then(|d| d.get(name))
                        .and_then(Value::as_array);
                    for need in needs.into_iter().flatten().filter_map(Value::as_str) {
                        if !required.contains(&need) {
                            required.push(need);
                        }
                    }
                }
            }
        }
        let min = flat
            .iter()
            .filter_map(|f| f.get("minProperties").and_then(Value::as_u64))
            .max()
            .unwrap_or(0) as usize;
        for frag in flat {
            for name in frag
                .get("properties")
                .and_then(Value::as_object)
                .into_iter()
                .flatten()
                .map(|(k, _)| k)
            {
                if out.len() >= min {
                    break;
                }
                if !out.contains_key(name) {
                    if let Ok(value) = self.property(flat, name, variant, depth) {
                        out.insert(name.clone(), value);
                    }
                }
            }
        }
        Ok(Value::Object(out))
    }

    /// A value for property `name` of the objects `flat` describe: under
    /// each schema its `properties` entry, else its `additionalProperties`.
    fn property(
        &mut self,
        flat: &[Frag<'s>],
        name: &str,
        variant: usize,
        depth: usize,
    ) -> Result<Value, String> {
        let mut frags = Vec::new();
        for frag in flat {
            let declared = frag.get("properties").and_then(|p| p.get(name)).is_some();
            if declared {
                frags.extend(frag.child(&["properties", name]));
            } else if frag.get("patternProperties").is_none() {
                frags.extend(frag.child(&["additionalProperties"]));
            }
        }
        self.value(&frags, variant, depth + 1)
            .map_err(|e| format!("property {name:?}: {e}"))
    }
}

/// A type for a schema that names none, from its keywords.
fn infer_type(flat: &[Frag<'_>]) -> &'static str {
    let has = |keywords: &[&str]| {
        flat.iter()
            .any(|f| keywords.iter().any(|k| f.get(k).is_some()))
    };
    if has(&[
        "properties",
        "required",
        "additionalProperties",
        "patternProperties",
        "minProperties",
        "dependentRequired",
    ]) {
        "object"
    } else if has(&[
        "items",
        "prefixItems",
        "minItems",
        "maxItems",
        "contains",
        "uniqueItems",
    ]) {
        "array"
    } else if has(&["minLength", "maxLength", "pattern", "format"]) {
        "string"
    } else if has(&[
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "multipleOf",
    ]) {
        "number"
    } else {
        "null"
    }
}

/// Whether `value` is of JSON Schema type `ty`.
fn has_type(value: &Value, ty: &str) -> bool {
    match ty {
        "null" => value.is_null(),
        "boolean" => value.is_boolean(),
        "string" => value.is_string(),
        "object" => value.is_object(),
        "array" => value.is_array(),
        "number" => value.is_number(),
        "integer" => value.as_f64().is_some_and(|n| n.fract() == 0.0),
        _ => true,
    }
}

/// A value of a string `format` that validators (and readers) accept.
fn format_example(format: &str) -> Option<&'static str> {
    Some(match format {
        "date-time" => "2025-01-01T00:00:00Z",
        "date" => "2025-01-01",
        "time" => "00:00:00Z",
        "duration" => "P1D",
        "email" | "idn-email" => "user@example.com",
        "hostname" | "idn-hostname" => "example.com",
        "ipv4" => "192.0.2.1",
        "ipv6" => "2001:db8::1",
        "uri" | "iri" | "uri-reference" | "iri-reference" | "url" => "https://example.com/",
        "uri-template" => "https://example.com/{id}",
        "uuid" => "00000000-0000-4000-8000-000000000000",
        "json-pointer" => "/example",
        "relative-json-pointer" => "0",
        "regex" => "^example$",
        "byte" => "ZXhhbXBsZQ==",
        "int32" | "int64" => "1",
        _ => return None,
    })
}

/// `x` rounded to the decimal places of `step` (so `3 * 0.1` is `0.3`).
fn round_like(x: f64, step: f64) -> f64 {
    let text = format!("{step}");
    let places = text.split_once('.').map_or(0, |(_, f)| f.len()).min(15) as i32;
    let scale = 10f64.powi(places);
    (x * scale).round() / scale
}

/// `x` as a JSON number: an integer when it is whole, else a float (none
/// for a fractional value where an integer is needed).
fn number_value(x: f64, integer: bool) -> Option<Value> {
    if !x.is_finite() {
        return None;
    }
    if x.fract() == 0.0 && x.abs() < 9.0e15 {
        return Some(Value::from(x as i64));
    }
    if integer {
        return None;
    }
    Number::from_f64(x).map(Value::Number)
}

/// The first subschema of `value` (at pointer `at`) declaring `name` as
/// its `$anchor`, `$dynamicAnchor` or draft-07 `$id: "#name"`.
fn find_anchor<'s>(value: &'s Value, at: String, name: &str) -> Option<Frag<'s>> {
    match value {
        Value::Object(o) => {
            let named = ["$anchor", "$dynamicAnchor"]
                .iter()
                .any(|k| o.get(*k).and_then(Value::as_str) == Some(name))
                || o.get("$id")
                    .and_then(Value::as_str)
                    .and_then(|id| id.strip_prefix('#'))
                    == Some(name);
            if named {
                return Some(Frag {
                    ptr: at,
                    schema: value,
                });
            }
            o.iter().find_map(|(k, v)| {
                find_anchor(
                    v,
                    format!("{at}/{}", k.replace('~', "~0").replace('/', "~1")),
                    name,
                )
            })
        }
        Value::Array(a) => a
            .iter()
            .enumerate()
            .find_map(|(i, v)| find_anchor(v, format!("{at}/{i}"), name)),
        _ => None,
    }
}

/// Decodes `%XX` escapes of a URI fragment.
fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = bytes
            .get(i + 1..i + 3)
            .and_then(|h| std::str::from_utf8(h).ok());
        match (bytes[i], hex.and_then(|h| u8::from_str_radix(h, 16).ok())) {
            (b'%', Some(byte)) => {
                out.push(byte);
                i += 3;
            }
            (byte, _) => {
                out.push(byte);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// A JSON pointer as a URI fragment: everything but unreserved characters
/// and `/` percent-encoded.
fn percent_encode(ptr: &str) -> String {
    let mut out = String::with_capacity(ptr.len());
    for byte in ptr.bytes() {
        if byte.is_ascii_alphanumeric() || b"-._~/".contains(&byte) {
            out.push(byte as char);
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

/// A pointer for messages (`/` for the root).
fn show(ptr: &str) -> String {
    if ptr.is_empty() {
        "the schema root".to_owned()
    } else {
        format!("`{ptr}`")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn valid(schema: Value) -> Value {
        valid_arguments(&schema, Draft::Draft202012).unwrap_or_else(|e| panic!("{schema}: {e}"))
    }

    #[test]
    fn required_properties_only() {
        let schema = json!({"type": "object", "properties": {
            "city": {"type": "string"}, "days": {"type": "integer"}, "note": {"type": "string"}
        }, "required": ["days", "city"]});
        assert_eq!(valid(schema), json!({"days": 1, "city": "example"}));
        assert_eq!(valid(json!({"type": "object"})), json!({}));
        assert_eq!(
            valid(json!({"type": "object", "properties": {}, "additionalProperties": false})),
            json!({})
        );
    }

    #[test]
    fn enum_const_and_defaults() {
        let schema = json!({"type": "object", "properties": {
            "units": {"type": "string", "enum": ["metric", "imperial"]},
            "country": {"type": "string", "enum": ["DE", "FR", "US"], "default": "US"},
            "kind": {"const": "forecast"},
            "nullable": {"type": ["string", "null"], "enum": [null, "b"]},
            "level": {"type": "integer", "default": 3, "minimum": 1},
            "bad_default": {"type": "integer", "default": "three"}
        }, "required": ["units", "country", "kind", "nullable", "level", "bad_default"]});
        assert_eq!(
            valid(schema),
            json!({"units": "metric", "country": "US", "kind": "forecast", "nullable": "b", "level": 3, "bad_default": 1})
        );
    }

    #[test]
    fn formats() {
        let schema = json!({"type": "object", "properties": {
            "at": {"type": "string", "format": "date-time"},
            "day": {"type": "string", "format": "date"},
            "mail": {"type": "string", "format": "email"},
            "link": {"type": "string", "format": "uri"},
            "id": {"type": "string", "format": "uuid"}
        }, "required": ["at", "day", "mail", "link", "id"]});
        let args = valid(schema.clone());
        assert_eq!(args["at"], "2025-01-01T00:00:00Z");
        assert_eq!(args["id"], "00000000-0000-4000-8000-000000000000");
        // Also valid where formats are assertions.
        let strict = mcpgen_runtime::schema::Schema::options(Draft::Draft202012)
            .formats(true)
            .compile(&schema)
            .unwrap();
        assert!(strict.is_valid(&args), "{args}");
    }

    #[test]
    fn numeric_bounds() {
        let schema = json!({"type": "object", "properties": {
            "page": {"type": "integer", "minimum": 5, "maximum": 9},
            "neg": {"type": "integer", "maximum": -3},
            "ratio": {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1},
            "step": {"type": "number", "minimum": 0.25, "multipleOf": 0.1},
            "even": {"type": "integer", "minimum": 3, "multipleOf": 2}
        }, "required": ["page", "neg", "ratio", "step", "even"]});
        assert_eq!(
            valid(schema),
            json!({"page": 5, "neg": -3, "ratio": 0.5, "step": 0.3, "even": 4})
        );
    }

    #[test]
    fn strings_with_lengths_and_patterns() {
        let schema = json!({"type": "object", "properties": {
            "long": {"type": "string", "minLength": 12},
            "short": {"type": "string", "maxLength": 3},
            "repo": {"type": "string", "pattern": "^[a-z0-9-]+/[a-z0-9-]+$"},
            "sha": {"type": "string", "pattern": "^[0-9a-f]{40}$"},
            "padded": {"type": "string", "pattern": "^[A-Z]+$", "minLength": 4}
        }, "required": ["long", "short", "repo", "sha", "padded"]});
        let args = valid(schema);
        assert_eq!(args["long"], "examplexxxxx");
        assert_eq!(args["short"], "exa");
        assert_eq!(args["repo"], "a/a");
        assert_eq!(args["sha"], "0".repeat(40));
        assert_eq!(args["padded"], "AAAA");
    }

    #[test]
    fn unsatisfiable_patterns_are_reported() {
        let schema = json!({"type": "object", "properties": {
            "x": {"type": "string", "pattern": "^a$", "minLength": 2}
        }, "required": ["x"]});
        let err = valid_arguments(&schema, Draft::Draft202012).unwrap_err();
        assert!(err.contains("pattern"), "{err}");
        let schema = json!({"type": "object", "properties": {"x": false}, "required": ["x"]});
        let err = valid_arguments(&schema, Draft::Draft202012).unwrap_err();
        assert!(err.contains("accepts nothing"), "{err}");
    }

    #[test]
    fn arrays_and_nested_objects() {
        let schema = json!({"type": "object", "properties": {
            "tags": {"type": "array", "items": {"type": "string", "enum": ["a", "b"]}, "minItems": 2, "uniqueItems": true},
            "pair": {"type": "array", "prefixItems": [{"type": "integer"}, {"type": "boolean"}], "minItems": 2},
            "owner": {"type": "object", "properties": {
                "login": {"type": "string"}, "address": {"type": "object", "properties": {"zip": {"type": "string", "pattern": "^[0-9]{5}$"}}, "required": ["zip"]}
            }, "required": ["login", "address"]},
            "empty": {"type": "array"}
        }, "required": ["tags", "pair", "owner", "empty"]});
        assert_eq!(
            valid(schema),
            json!({"tags": ["a", "b"], "pair": [1, true], "owner": {"login": "example", "address": {"zip": "00000"}}, "empty": []})
        );
    }

    #[test]
    fn unique_items_differ() {
        let schema = json!({"type": "object", "properties": {
            "items": {"type": "array", "minItems": 3, "uniqueItems": true, "items": {
                "type": "object", "properties": {"kind": {"const": "x"}, "n": {"type": "integer", "default": 1}, "tag": {"type": "string"}},
                "required": ["kind", "n", "tag"]}},
            "flags": {"type": "array", "minItems": 2, "uniqueItems": true, "items": {"type": "boolean"}}
        }, "required": ["items", "flags"]});
        let args = valid(schema);
        assert_eq!(
            args["items"][2],
            json!({"kind": "x", "n": 1, "tag": "example2"})
        );
        assert_eq!(args["flags"], json!([true, false]));
    }

    #[test]
    fn refs_defs_and_definitions() {
        let schema = json!({"type": "object", "$defs": {
            "Point": {"type": "object", "properties": {"x": {"$ref": "#/$defs/Coord"}}, "required": ["x"]},
            "Coord": {"type": "number", "minimum": 2},
            "Tree": {"type": "object", "properties": {"children": {"type": "array", "items": {"$ref": "#/$defs/Tree"}}, "name": {"type": "string"}}, "required": ["name", "children"]},
            "a/b": {"$anchor": "slashy", "type": "boolean"}
        }, "definitions": {"Old": {"enum": ["v1"]}},
        "properties": {
            "p": {"$ref": "#/$defs/Point"}, "t": {"$ref": "#/$defs/Tree"}, "o": {"$ref": "#/definitions/Old"},
            "s": {"$ref": "#/$defs/a~1b"}, "anchored": {"$ref": "#slashy"}
        }, "required": ["p", "t", "o", "s", "anchored"]});
        assert_eq!(
            valid(schema),
            json!({"p": {"x": 2}, "t": {"name": "example", "children": []}, "o": "v1", "s": true, "anchored": true})
        );
        let required_recursion = json!({"type": "object", "$defs": {"L": {"type": "object", "properties": {"next": {"$ref": "#/$defs/L"}}, "required": ["next"]}},
            "properties": {"l": {"$ref": "#/$defs/L"}}, "required": ["l"]});
        let err = valid_arguments(&required_recursion, Draft::Draft202012).unwrap_err();
        assert!(err.contains("deeper"), "{err}");
        let remote = json!({"type": "object", "properties": {"r": {"$ref": "https://example.com/s.json"}}, "required": ["r"]});
        assert!(valid_arguments(&remote, Draft::Draft202012).is_err());
    }

    #[test]
    fn draft_07_ignores_ref_siblings() {
        let schema = json!({"type": "object", "definitions": {"S": {"type": "string"}},
            "properties": {"s": {"$ref": "#/definitions/S", "type": "integer"}}, "required": ["s"]});
        assert_eq!(
            valid_arguments(&schema, Draft::Draft7).unwrap(),
            json!({"s": "example"})
        );
    }

    #[test]
    fn combinators_and_type_lists() {
        let schema = json!({"type": "object", "properties": {
            "any": {"anyOf": [{"type": "string", "pattern": "^(?=x)"}, {"type": "integer", "minimum": 7}]},
            "one": {"oneOf": [{"type": "string"}, {"type": "string", "maxLength": 100}, {"type": "boolean"}]},
            "all": {"allOf": [{"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]},
                              {"properties": {"b": {"type": "integer", "minimum": 3}}, "required": ["b"]}]},
            "list": {"type": ["null", "string"], "minLength": 2},
            "free": {}
        }, "required": ["any", "one", "all", "list", "free"]});
        assert_eq!(
            valid(schema),
            json!({"any": 7, "one": true, "all": {"a": "example", "b": 3}, "list": "example", "free": null})
        );
    }

    #[test]
    fn invalid_arguments_are_refused() {
        let draft = Draft::Draft202012;
        let required =
            json!({"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]});
        let args = valid_arguments(&required, draft).unwrap();
        let (bad, why) = invalid_arguments(&required, draft, Some(&args)).unwrap();
        assert_eq!(bad, json!({}));
        assert_eq!(why, "the property `a` left out");
        let optional = json!({"type": "object", "properties": {"title": {"type": "string"}}});
        assert_eq!(
            invalid_arguments(&optional, draft, Some(&json!({})))
                .unwrap()
                .0,
            json!({"title": 12345})
        );
        let closed = json!({"type": "object", "additionalProperties": false});
        assert_eq!(
            invalid_arguments(&closed, draft, Some(&json!({})))
                .unwrap()
                .0,
            json!({"mcpgenUnexpectedProperty": true})
        );
        assert_eq!(
            invalid_arguments(&json!({"type": "object"}), draft, Some(&json!({}))),
            None
        );
    }

    #[test]
    fn shared_manifests_have_valid_arguments_for_every_tool() {
        let test = "synth::tests::shared_manifests_have_valid_arguments_for_every_tool";
        let Some(dir) = crate::shared_data::shared_data("manifests", test) else {
            return;
        };
        for file in ["github.json", "stitch.json"] {
            let manifest: Value =
                serde_json::from_str(&std::fs::read_to_string(dir.join(file)).unwrap()).unwrap();
            for tool in manifest["tools"].as_array().unwrap() {
                let schema = &tool["inputSchema"];
                let args = valid_arguments(schema, Draft::Draft202012)
                    .unwrap_or_else(|e| panic!("{file} {}: {e}", tool["name"]));
                assert!(
                    invalid_arguments(schema, Draft::Draft202012, Some(&args)).is_some()
                        || args == json!({})
                );
            }
        }
    }
}
