//! OpenAPI schemas (Swagger 2.0, 3.0, 3.1) converted to clean, self-contained
//! JSON Schema 2020-12, for one tool schema at a time.
//!
//! - `nullable: true` (3.0) and `x-nullable: true` (2.0) add `"null"` to
//!   `type` (and to `enum` when there is one); without a `type` the schema
//!   becomes `anyOf: [schema, {type: null}]`.
//! - Boolean `exclusiveMinimum`/`exclusiveMaximum` take the bound's value
//!   (numeric form); `false` is dropped.
//! - `discriminator` over `oneOf`/`anyOf`: each member that is a reference
//!   becomes `allOf: [member, {properties: {tag: {const: v}}, required:
//!   [tag]}]`, `v` from `mapping` (several values: `enum`) or else the
//!   component's name; the keyword itself is dropped.
//! - In inputs, `readOnly` properties are left out (and out of
//!   `required`); in outputs, `writeOnly` ones.
//! - `example` becomes `examples: [example]`; `format: binary` and
//!   `type: file` become `{type: string, contentEncoding: base64}`.
//! - Only 2020-12 keywords are kept: `xml`, `externalDocs`, `discriminator`,
//!   `$schema`, `$vocabulary`, `$id`, anchors, nested `$defs` and every
//!   extension (`x-…` or not) are dropped.
//! - Every reference (`$ref`, `$dynamicRef`) is resolved in the document
//!   (pure aliases followed) and rewritten to `#/$defs/<name>`; the
//!   schemas it reaches are converted once each into the tool schema's
//!   `$defs` (names from [`super::names::def_name`]), so recursion stays
//!   a reference and is never expanded. 3.0 and 2.0 ignore a `$ref`'s
//!   siblings, 3.1 keeps them.
//! - A `$ref` that is not a string (YAML reads an unquoted `$ref: #/…` as
//!   null) is a warning and the schema is taken as unconstrained.

use std::collections::{HashMap, HashSet, VecDeque};

use mcpgen_runtime::jsonrpc::json_len;
use serde_json::{json, Map, Value};

use super::document::{child, Diag, Version};
use super::names::{def_name, Unique};
use super::resolve::Resolver;
use crate::error::pointer_token;

/// Which side of the call a schema describes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mode {
    /// Arguments: `readOnly` properties are left out.
    Input,
    /// Results: `writeOnly` properties are left out.
    Output,
}

/// Keywords whose value is one subschema.
/// What a base64 string may hold (standard or URL-safe alphabet, padding
/// optional): the `pattern` of every binary value, so that arguments the
/// schema accepts are bytes the request can carry.
pub(crate) const BASE64_PATTERN: &str =
    "^(?:[A-Za-z0-9+/_-]{4})*(?:[A-Za-z0-9+/_-]{2}(?:==)?|[A-Za-z0-9+/_-]{3}=?)?$";

const ONE: &[&str] = &[
    "additionalProperties",
    "propertyNames",
    "items",
    "contains",
    "unevaluatedItems",
    "unevaluatedProperties",
    "not",
    "if",
    "then",
    "else",
    "contentSchema",
];
/// Keywords whose value is a list of subschemas.
const LIST: &[&str] = &["allOf", "anyOf", "oneOf", "prefixItems"];
/// Keywords whose value maps names to subschemas.
const MAP: &[&str] = &["patternProperties", "dependentSchemas"];
/// Keywords copied as they are.
const PLAIN: &[&str] = &[
    "title",
    "description",
    "$comment",
    "multipleOf",
    "maxLength",
    "minLength",
    "pattern",
    "maxItems",
    "minItems",
    "uniqueItems",
    "maxContains",
    "minContains",
    "maxProperties",
    "minProperties",
    "required",
    "dependentRequired",
    "enum",
    "const",
    "default",
    "examples",
    "deprecated",
    "readOnly",
    "writeOnly",
    "contentEncoding",
    "contentMediaType",
];

/// The schemas of one tool schema (its `inputSchema` or `outputSchema`):
/// converts subschemas and collects the `$defs` they reach.
pub(crate) struct Schemas<'r, 'a> {
    res: &'r Resolver<'a>,
    version: Version,
    mode: Mode,
    names: HashMap<String, String>,
    unique: Unique,
    queue: VecDeque<String>,
    defs: Map<String, Value>,
    /// References left unconstrained because the budget was spent.
    cut: usize,
}

/// Most definitions one tool schema copies into its `$defs`. Past it, a
/// reference to a further schema becomes `{}` (unconstrained): APIs whose
/// every object links to every other (Stripe's expandable fields reach
/// hundreds of components from one response) would otherwise copy the
/// whole graph into every tool. Definitions are taken breadth-first, so
/// what is kept is what is nearest the root.
pub(crate) const MAX_DEFS: usize = 64;

impl<'r, 'a> Schemas<'r, 'a> {
    /// An empty set for one tool schema.
    pub(crate) fn new(res: &'r Resolver<'a>, version: Version, mode: Mode) -> Self {
        Schemas {
            res,
            version,
            mode,
            names: HashMap::new(),
            unique: Unique::default(),
            queue: VecDeque::new(),
            defs: Map::new(),
            cut: 0,
        }
    }

    /// Converts the schema `v` found at the document pointer `at`.
    pub(crate) fn convert(&mut self, v: &Value, at: &str, diag: &mut Diag) -> Value {
        match v {
            Value::Bool(b) => Value::Bool(*b),
            Value::Object(o) => self.object(o, at, diag),
            _ => {
                diag.warn(
                    at,
                    "a schema must be an object; taken as unconstrained",
                    "write a schema object such as {\"type\": \"string\"}",
                );
                json!({})
            }
        }
    }

    /// The `$defs` reached, every one converted, and how many references
    /// were left unconstrained past [`MAX_DEFS`] (call last).
    pub(crate) fn finish(self, diag: &mut Diag) -> (Map<String, Value>, usize) {
        self.finish_within(usize::MAX, diag)
            .expect("no budget to exceed")
    }

    /// As [`Schemas::finish`], or none as soon as the `$defs` written as
    /// compact JSON exceed `budget` bytes: a schema that must stay under a
    /// size is not converted further once it cannot (Stripe's responses
    /// reach hundreds of large components, which each tool would convert
    /// only to drop).
    pub(crate) fn finish_within(
        mut self,
        budget: usize,
        diag: &mut Diag,
    ) -> Option<(Map<String, Value>, usize)> {
        let mut spent = 0usize;
        while let Some(pointer) = self.queue.pop_front() {
            let name = self.names[&pointer].clone();
            let value = self.res.get(&pointer).unwrap_or(&Value::Null);
            let converted = self.convert(value, &pointer, diag);
            if budget != usize::MAX {
                spent = spent.saturating_add(json_len(&converted));
                if spent > budget {
                    return None;
                }
            }
            self.defs.insert(name, converted);
        }
        Some((self.defs, self.cut))
    }

    /// `#/$defs/<name>` for the schema at a document pointer, queued for
    /// conversion the first time.
    fn def_ref(&mut self, pointer: &str) -> Option<String> {
        let name = match self.names.get(pointer) {
            Some(n) => n.clone(),
            None if self.names.len() >= MAX_DEFS => {
                self.cut += 1;
                return None;
            }
            None => {
                let name = self.unique.claim(&def_name(pointer), usize::MAX);
                self.names.insert(pointer.to_owned(), name.clone());
                self.queue.push_back(pointer.to_owned());
                name
            }
        };
        Some(format!("#/$defs/{}", pointer_token(&name)))
    }

    /// The rewritten reference of a `$ref` (or `$dynamicRef`) at `at`, or
    /// none when it is reported.
    fn reference(
        &mut self,
        value: &Value,
        at: &str,
        dynamic: bool,
        diag: &mut Diag,
    ) -> Option<String> {
        let Value::String(r) = value else {
            diag.warn(
                at,
                "`$ref` is not a string (YAML reads an unquoted `$ref: #/…` as a comment, leaving null); the schema is taken as unconstrained",
                "quote the reference: `$ref: '#/components/schemas/Name'`",
            );
            return None;
        };
        let pointer = if dynamic {
            self.res.dynamic(r)
        } else {
            self.res.target(r)
        };
        match pointer {
            Ok(p) => self.def_ref(&p),
            Err((message, hint)) => {
                diag.error(at, &message, hint);
                None
            }
        }
    }

    /// The document value a (possibly referring) schema stands for.
    fn resolved(&self, v: &'a Value) -> Option<&'a Value> {
        match v.get("$ref") {
            Some(Value::String(r)) => self.res.target(r).ok().and_then(|p| self.res.get(&p)),
            _ => Some(v),
        }
    }

    /// Whether a property is left out on this side.
    fn hidden(&self, property: &'a Value) -> bool {
        let key = match self.mode {
            Mode::Input => "readOnly",
            Mode::Output => "writeOnly",
        };
        let own = property.get(key) == Some(&Value::Bool(true));
        own || self
            .resolved(property)
            .is_some_and(|t| t.get(key) == Some(&Value::Bool(true)))
    }

    fn object(&mut self, o: &Map<String, Value>, at: &str, diag: &mut Diag) -> Value {
        let mut out = Map::new();
        if let Some(r) = o.get("$ref") {
            if let Some(target) = self.reference(r, &child(at, "$ref"), false, diag) {
                out.insert("$ref".into(), Value::String(target));
            }
            if self.version != Version::V31 {
                return Value::Object(out);
            }
        }
        if let Some(r) = o.get("$dynamicRef") {
            if let Some(target) = self.reference(r, &child(at, "$dynamicRef"), true, diag) {
                out.insert("$ref".into(), Value::String(target));
            }
        }
        let nullable = o.get("nullable") == Some(&Value::Bool(true))
            || o.get("x-nullable") == Some(&Value::Bool(true));
        let mut hidden: HashSet<String> = HashSet::new();
        let mut binary = false;
        for (k, v) in o {
            let kp = || child(at, k);
            match k.as_str() {
                "$ref" | "$dynamicRef" | "nullable" | "x-nullable" | "discriminator" => {}
                "type" => match v {
                    Value::String(t) if t == "file" => {
                        out.insert("type".into(), json!("string"));
                        binary = true;
                    }
                    _ => {
                        out.insert("type".into(), v.clone());
                    }
                },
                "format" => {
                    if v == "binary" {
                        binary = true;
                    } else {
                        out.insert("format".into(), v.clone());
                    }
                }
                "properties" => {
                    let mut props = Map::new();
                    if let Value::Object(ps) = v {
                        for (name, sub) in ps {
                            if self.hidden(sub) {
                                hidden.insert(name.clone());
                                continue;
                            }
                            let c = self.convert(sub, &child(&kp(), name), diag);
                            props.insert(name.clone(), c);
                        }
                    }
                    out.insert("properties".into(), Value::Object(props));
                }
                "example" if !o.contains_key("examples") => {
                    out.insert("examples".into(), json!([v]));
                }
                // 3.0 schemas have no `examples`; 2020-12 wants a list.
                "examples" if v.is_array() => {
                    out.insert("examples".into(), v.clone());
                }
                "example" | "examples" => {}
                "minimum" | "maximum" => {
                    let bound = if k == "minimum" {
                        "exclusiveMinimum"
                    } else {
                        "exclusiveMaximum"
                    };
                    if o.get(bound) != Some(&Value::Bool(true)) {
                        out.insert(k.clone(), v.clone());
                    }
                }
                "exclusiveMinimum" | "exclusiveMaximum" => match v {
                    Value::Bool(true) => {
                        let plain = if k == "exclusiveMinimum" {
                            "minimum"
                        } else {
                            "maximum"
                        };
                        if let Some(n) = o.get(plain) {
                            out.insert(k.clone(), n.clone());
                        }
                    }
                    Value::Bool(false) => {}
                    other => {
                        out.insert(k.clone(), other.clone());
                    }
                },
                key if ONE.contains(&key) => {
                    let c = self.convert(v, &kp(), diag);
                    out.insert(k.clone(), c);
                }
                key if LIST.contains(&key) => {
                    let items = match v {
                        Value::Array(a) => a
                            .iter()
                            .enumerate()
                            .map(|(i, s)| self.convert(s, &child(&kp(), &i.to_string()), diag))
                            .collect(),
                        other => vec![self.convert(other, &kp(), diag)],
                    };
                    out.insert(k.clone(), Value::Array(items));
                }
                key if MAP.contains(&key) => {
                    let mut m = Map::new();
                    if let Value::Object(entries) = v {
                        for (name, sub) in entries {
                            m.insert(name.clone(), self.convert(sub, &child(&kp(), name), diag));
                        }
                    }
                    out.insert(k.clone(), Value::Object(m));
                }
                key if PLAIN.contains(&key) => {
                    out.insert(k.clone(), v.clone());
                }
                _ => {}
            }
        }
        if binary {
            out.insert("type".into(), json!("string"));
            out.insert("contentEncoding".into(), json!("base64"));
            out.insert("pattern".into(), json!(BASE64_PATTERN));
        }
        if !hidden.is_empty() {
            if let Some(Value::Array(req)) = out.get_mut("required") {
                req.retain(|r| r.as_str().is_none_or(|r| !hidden.contains(r)));
            }
        }
        if let Some(d) = o.get("discriminator") {
            self.tag_members(o, d, &mut out);
        }
        let out = if nullable { add_null(out) } else { out };
        Value::Object(out)
    }

    /// Makes each referenced `oneOf`/`anyOf` member carry its tag.
    fn tag_members(&self, o: &Map<String, Value>, d: &Value, out: &mut Map<String, Value>) {
        let Some(tag) = d.get("propertyName").and_then(Value::as_str) else {
            return;
        };
        // mapping value → target pointer
        let mut mapped: Vec<(String, String)> = Vec::new();
        if let Some(Value::Object(mapping)) = d.get("mapping") {
            for (value, target) in mapping {
                let Some(t) = target.as_str() else { continue };
                let reference = if t.contains('#') || t.contains('/') {
                    t.to_owned()
                } else if self.version == Version::Swagger2 {
                    format!("#/definitions/{t}")
                } else {
                    format!("#/components/schemas/{t}")
                };
                if let Ok(p) = self.res.target(&reference) {
                    mapped.push((value.clone(), p));
                }
            }
        }
        for key in ["oneOf", "anyOf"] {
            let (Some(Value::Array(members)), Some(Value::Array(converted))) =
                (o.get(key), out.get_mut(key))
            else {
                continue;
            };
            for (member, conv) in members.iter().zip(converted.iter_mut()) {
                let Some(Value::String(r)) = member.get("$ref") else {
                    continue;
                };
                let Ok(p) = self.res.target(r) else { continue };
                let mut values: Vec<Value> = mapped
                    .iter()
                    .filter(|(_, t)| *t == p)
                    .map(|(v, _)| Value::String(v.clone()))
                    .collect();
                if values.is_empty() {
                    let name = p.rsplit('/').next().unwrap_or_default();
                    values.push(Value::String(name.replace("~1", "/").replace("~0", "~")));
                }
                let constraint = if values.len() == 1 {
                    json!({ "const": values[0] })
                } else {
                    json!({ "enum": values })
                };
                let carried = json!({
                    "properties": { tag: constraint },
                    "required": [tag],
                });
                *conv = json!({ "allOf": [conv.take(), carried] });
            }
        }
    }
}

/// A schema that also admits `null`.
fn add_null(mut out: Map<String, Value>) -> Map<String, Value> {
    let null = Value::String("null".into());
    if let Some(Value::Array(e)) = out.get_mut("enum") {
        if !e.contains(&Value::Null) {
            e.push(Value::Null);
        }
    }
    match out.get_mut("type") {
        Some(Value::String(t)) => {
            if t != "null" {
                let t = Value::String(std::mem::take(t));
                out.insert("type".into(), Value::Array(vec![t, null]));
            }
            out
        }
        Some(Value::Array(ts)) => {
            if !ts.contains(&null) {
                ts.push(null);
            }
            out
        }
        _ => {
            if out.is_empty() || out.contains_key("enum") {
                return out;
            }
            let mut wrapper = Map::new();
            for k in ["title", "description"] {
                if let Some(v) = out.remove(k) {
                    wrapper.insert(k.into(), v);
                }
            }
            wrapper.insert(
                "anyOf".into(),
                json!([Value::Object(out), { "type": "null" }]),
            );
            wrapper
        }
    }
}

/// Whether a converted schema is a string (its `type` is or includes
/// `string`).
pub(crate) fn is_string(schema: &Value) -> bool {
    match schema.get("type") {
        Some(Value::String(t)) => t == "string",
        Some(Value::Array(ts)) => ts.iter().any(|t| t == "string"),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::openapi::document::{parse, Document};

    fn doc(v: Value) -> Document {
        parse(&v.to_string(), "t.json").unwrap()
    }

    fn convert(
        d: &Document,
        version: Version,
        mode: Mode,
        pointer: &str,
    ) -> (Value, Map<String, Value>, Vec<String>) {
        let res = Resolver::new(&d.root);
        let mut diag = Diag::new(d);
        let mut s = Schemas::new(&res, version, mode);
        let v = s.convert(d.root.pointer(pointer).unwrap(), pointer, &mut diag);
        let (defs, _) = s.finish(&mut diag);
        let mut problems: Vec<String> = diag.errors.iter().map(|e| e.to_string()).collect();
        problems.extend(diag.warnings.iter().map(|e| format!("warning: {e}")));
        (v, defs, problems)
    }

    #[test]
    fn nullable_adds_null_to_type_and_enum() {
        let d = doc(json!({"s": {
            "a": {"type": "string", "nullable": true, "enum": ["x", "y"]},
            "b": {"type": "integer", "x-nullable": true},
            "c": {"allOf": [{"type": "object"}], "nullable": true, "description": "C"}
        }}));
        let (a, _, _) = convert(&d, Version::V30, Mode::Input, "/s/a");
        assert_eq!(
            a,
            json!({"type": ["string", "null"], "enum": ["x", "y", null]})
        );
        let (b, _, _) = convert(&d, Version::Swagger2, Mode::Input, "/s/b");
        assert_eq!(b, json!({"type": ["integer", "null"]}));
        let (c, _, _) = convert(&d, Version::V30, Mode::Input, "/s/c");
        assert_eq!(
            c,
            json!({"description": "C", "anyOf": [{"allOf": [{"type": "object"}]}, {"type": "null"}]})
        );
    }

    #[test]
    fn boolean_exclusive_bounds_become_numbers() {
        let d = doc(
            json!({"s": {"type": "number", "minimum": 1, "exclusiveMinimum": true,
                                  "maximum": 9, "exclusiveMaximum": false}}),
        );
        let (v, _, _) = convert(&d, Version::V30, Mode::Input, "/s");
        assert_eq!(
            v,
            json!({"type": "number", "exclusiveMinimum": 1, "maximum": 9})
        );
        let d = doc(json!({"s": {"exclusiveMinimum": 1, "exclusiveMaximum": 10}}));
        let (v, _, _) = convert(&d, Version::V31, Mode::Input, "/s");
        assert_eq!(v, json!({"exclusiveMinimum": 1, "exclusiveMaximum": 10}));
    }

    #[test]
    fn discriminator_members_carry_their_tag() {
        let d = doc(json!({
            "components": {"schemas": {
                "Pet": {"oneOf": [{"$ref": "#/components/schemas/Cat"}, {"$ref": "#/components/schemas/Dog"}],
                        "discriminator": {"propertyName": "kind", "mapping": {"cat": "#/components/schemas/Cat"}}},
                "Cat": {"type": "object", "properties": {"kind": {"type": "string"}}},
                "Dog": {"type": "object", "properties": {"kind": {"type": "string"}}}
            }}
        }));
        let (v, defs, problems) = convert(&d, Version::V30, Mode::Input, "/components/schemas/Pet");
        assert!(problems.is_empty(), "{problems:?}");
        assert_eq!(
            v,
            json!({"oneOf": [
                {"allOf": [{"$ref": "#/$defs/Cat"}, {"properties": {"kind": {"const": "cat"}}, "required": ["kind"]}]},
                {"allOf": [{"$ref": "#/$defs/Dog"}, {"properties": {"kind": {"const": "Dog"}}, "required": ["kind"]}]}
            ]})
        );
        assert!(defs.contains_key("Cat") && defs.contains_key("Dog"));
    }

    #[test]
    fn read_only_out_of_inputs_write_only_out_of_outputs() {
        let d = doc(json!({"components": {"schemas": {
            "Id": {"type": "integer", "readOnly": true},
            "U": {"type": "object", "required": ["id", "name", "password"], "properties": {
                "id": {"$ref": "#/components/schemas/Id"},
                "name": {"type": "string"},
                "password": {"type": "string", "writeOnly": true}
            }}
        }}}));
        let (input, _, _) = convert(&d, Version::V30, Mode::Input, "/components/schemas/U");
        assert_eq!(input["required"], json!(["name", "password"]));
        assert!(input["properties"].get("id").is_none());
        let (output, _, _) = convert(&d, Version::V30, Mode::Output, "/components/schemas/U");
        assert_eq!(output["required"], json!(["id", "name"]));
        assert!(output["properties"].get("password").is_none());
    }

    #[test]
    fn references_become_defs_and_recursion_stays_a_reference() {
        let d = doc(json!({"components": {"schemas": {
            "Node": {"type": "object", "properties": {"kids": {"type": "array", "items": {"$ref": "#/components/schemas/Node"}},
                     "blob": {"type": "string", "format": "binary"}},
                     "xml": {"name": "n"}, "example": {"$ref": "not a reference"}, "swagger-extension": true},
            "Alias": {"$ref": "#/components/schemas/Node"}
        }}}));
        let (v, defs, problems) =
            convert(&d, Version::V30, Mode::Input, "/components/schemas/Alias");
        assert!(problems.is_empty(), "{problems:?}");
        assert_eq!(v, json!({"$ref": "#/$defs/Node"}));
        assert_eq!(
            defs["Node"],
            json!({"type": "object", "properties": {
                "kids": {"type": "array", "items": {"$ref": "#/$defs/Node"}},
                "blob": {"type": "string", "contentEncoding": "base64", "pattern": BASE64_PATTERN}},
                "examples": [{"$ref": "not a reference"}]})
        );
    }

    #[test]
    fn id_and_anchor_references_resolve() {
        let d = doc(json!({"components": {"schemas": {
            "Pet": {"properties": {"detailId": {"$ref": "/components/schemas/petdetails#pet_details_id"}}},
            "PetDetails": {"$id": "/components/schemas/petdetails", "$schema": "https://json-schema.org/draft/2020-12/schema",
                           "properties": {"id": {"type": "integer", "$anchor": "pet_details_id"}}}
        }}}));
        let (v, defs, problems) = convert(&d, Version::V31, Mode::Input, "/components/schemas/Pet");
        assert!(problems.is_empty(), "{problems:?}");
        let r = v["properties"]["detailId"]["$ref"].as_str().unwrap();
        let name = r.strip_prefix("#/$defs/").unwrap();
        assert_eq!(defs[name], json!({"type": "integer"}));
    }

    #[test]
    fn alias_cycles_and_dangling_references_are_errors_with_pointers() {
        let d = doc(json!({"components": {"schemas": {
            "A": {"$ref": "#/components/schemas/B"},
            "B": {"$ref": "#/components/schemas/A"},
            "C": {"properties": {"x": {"$ref": "#/components/schemas/Nope"}, "y": {"$ref": "https://x.test/s.json"}}}
        }}}));
        let (_, _, problems) = convert(&d, Version::V30, Mode::Input, "/components/schemas/A");
        assert!(
            problems[0].contains("cycle of `$ref` aliases"),
            "{problems:?}"
        );
        let (_, _, problems) = convert(&d, Version::V30, Mode::Input, "/components/schemas/C");
        assert!(
            problems[0].contains("/components/schemas/C/properties/x/$ref"),
            "{problems:?}"
        );
        assert!(problems[0].contains("dangling"), "{problems:?}");
        assert!(problems[1].contains("remote reference"), "{problems:?}");
    }
}
