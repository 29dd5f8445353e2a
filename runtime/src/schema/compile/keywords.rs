//! Compiling the keywords of one schema object into its [`Kw`] checks,
//! one function per family of keywords: those for any instance, numbers,
//! strings, arrays, objects, the in-place applicators, references, and
//! the keywords whose shape alone is checked. Each keyword's value is
//! read with `values.rs`, which reports what the meta-schema would reject.

use serde_json::{Map, Value};

use super::index::Scope;
use super::nodes::{Bound, Kw, Members};
use super::values::{
    count, is_schema, not_of_type, number, pattern, require, schema_list, schema_map, schema_node,
    strings, types,
};
use super::{Compiler, Pending, RefKind};
use crate::schema::format::Format;
use crate::schema::json::push_token;
use crate::schema::uri;
use crate::schema::Draft;

/// The keywords of the validation vocabulary (2019-09 and 2020-12).
const VALIDATION: [&str; 20] = [
    "type",
    "enum",
    "const",
    "multipleOf",
    "maximum",
    "exclusiveMaximum",
    "minimum",
    "exclusiveMinimum",
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
];

/// One keyword of a schema object, with what compiling it needs.
struct Site<'v> {
    /// The schema object the keyword is in.
    o: &'v Map<String, Value>,
    /// The JSON pointer of that object.
    pointer: &'v str,
    /// The base URI references resolve against.
    base: &'v str,
    draft: Draft,
    key: &'v str,
    value: &'v Value,
    /// The JSON pointer of the keyword.
    here: String,
}

/// `pointer` extended with member `key`.
fn at(pointer: &str, key: &str) -> String {
    let mut p = pointer.to_owned();
    push_token(&mut p, key);
    p
}

/// The checks of schema object `o` at `pointer`, in `scope`.
pub(super) fn keywords(
    c: &mut Compiler<'_>,
    o: &Map<String, Value>,
    pointer: &str,
    scope: &Scope,
) -> Vec<Kw> {
    let draft = scope.draft;
    let mut kw = Vec::new();
    let mut members: Option<Members> = None;
    for (key, value) in o {
        if !c.validation && VALIDATION.contains(&key.as_str()) {
            continue;
        }
        let s = Site {
            o,
            pointer,
            base: &scope.base,
            draft,
            key,
            value,
            here: at(pointer, key),
        };
        // The families share no keyword: at most one of them compiles it.
        let _ = any_instance(c, &s, &mut kw)
            || numbers(c, &s, &mut kw)
            || text(c, &s, &mut kw)
            || arrays(c, &s, &mut kw)
            || objects(c, &s, &mut kw, &mut members)
            || applicators(c, &s, &mut kw)
            || references(c, &s, &mut kw)
            || shape_only(c, &s);
    }
    if let Some(mut m) = members {
        m.named.sort_by(|a, b| a.name.cmp(&b.name));
        m.required = m.named.iter().filter(|n| n.required).count();
        kw.push(Kw::Members(Box::new(m)));
    }
    // Up to draft-07, `$ref` replaces its siblings.
    if draft <= Draft::Draft7 && o.contains_key("$ref") {
        if let Some(slot) = kw.iter().position(|k| matches!(k, Kw::Ref(_))) {
            kw = vec![kw.swap_remove(slot)];
        }
    }
    kw
}

/// `type`, `enum` and `const`; false if `s` is none of them.
fn any_instance(c: &mut Compiler<'_>, s: &Site<'_>, kw: &mut Vec<Kw>) -> bool {
    match s.key {
        "type" => {
            if let Some(bits) = types(c, s.value, &s.here) {
                kw.push(Kw::Type(bits));
            }
        }
        "enum" => match s.value {
            Value::Array(values) => kw.push(Kw::Enum(values.clone())),
            other => not_of_type(c, &s.here, other, "array"),
        },
        "const" if s.draft >= Draft::Draft6 => kw.push(Kw::Const(s.value.clone())),
        _ => return false,
    }
    true
}

/// `multipleOf` and the bounds of numbers; false if `s` is none of them.
fn numbers(c: &mut Compiler<'_>, s: &Site<'_>, kw: &mut Vec<Kw>) -> bool {
    let (key, value, here) = (s.key, s.value, s.here.as_str());
    match key {
        "multipleOf" => {
            if let Some(n) = number(c, value, here) {
                if n.as_f64().is_some_and(|f| f > 0.0) {
                    kw.push(Kw::MultipleOf(n));
                } else {
                    c.error(here, format!("{n} is not greater than 0"));
                }
            }
        }
        "minimum" | "maximum" => {
            let Some(n) = number(c, value, here) else {
                return true;
            };
            let exclusive = if s.draft == Draft::Draft4 {
                let flag = if key == "minimum" {
                    "exclusiveMinimum"
                } else {
                    "exclusiveMaximum"
                };
                s.o.get(flag) == Some(&Value::Bool(true))
            } else {
                false
            };
            let bound = match (key == "minimum", exclusive) {
                (true, false) => Bound::Min,
                (true, true) => Bound::ExclusiveMin,
                (false, false) => Bound::Max,
                (false, true) => Bound::ExclusiveMax,
            };
            kw.push(Kw::Bound(bound, n));
        }
        "exclusiveMinimum" | "exclusiveMaximum" if s.draft == Draft::Draft4 => {
            require(c, value.is_boolean(), here, value, "boolean")
        }
        "exclusiveMinimum" | "exclusiveMaximum" => {
            if let Some(n) = number(c, value, here) {
                let bound = if key == "exclusiveMinimum" {
                    Bound::ExclusiveMin
                } else {
                    Bound::ExclusiveMax
                };
                kw.push(Kw::Bound(bound, n));
            }
        }
        _ => return false,
    }
    true
}

/// `minLength`, `maxLength`, `pattern` and `format`; false if `s` is none
/// of them.
fn text(c: &mut Compiler<'_>, s: &Site<'_>, kw: &mut Vec<Kw>) -> bool {
    match s.key {
        "minLength" | "maxLength" => {
            if let Some(n) = count(c, s.value, &s.here) {
                kw.push(if s.key == "minLength" {
                    Kw::MinLength(n)
                } else {
                    Kw::MaxLength(n)
                });
            }
        }
        "pattern" => {
            if let Some(p) = pattern(c, s.value, &s.here) {
                kw.push(Kw::Pattern(p));
            }
        }
        "format" => match s.value {
            Value::String(name) => {
                if let (true, Some(f)) = (c.formats, Format::named(name, s.draft)) {
                    kw.push(Kw::Format(f, name.clone()));
                }
            }
            other => not_of_type(c, &s.here, other, "string"),
        },
        _ => return false,
    }
    true
}

/// The keywords on array items; false if `s` is none of them.
fn arrays(c: &mut Compiler<'_>, s: &Site<'_>, kw: &mut Vec<Kw>) -> bool {
    let (o, draft, value, here) = (s.o, s.draft, s.value, s.here.as_str());
    match s.key {
        "minItems" | "maxItems" => {
            if let Some(n) = count(c, value, here) {
                kw.push(if s.key == "minItems" {
                    Kw::MinItems(n)
                } else {
                    Kw::MaxItems(n)
                });
            }
        }
        "uniqueItems" => match value {
            Value::Bool(true) => kw.push(Kw::UniqueItems),
            Value::Bool(false) => {}
            other => not_of_type(c, here, other, "boolean"),
        },
        "items" => match value {
            Value::Array(list) if draft <= Draft::Draft201909 => {
                let nodes: Vec<usize> = list
                    .iter()
                    .enumerate()
                    .map(|(i, v)| c.sub(v, here, &i.to_string()))
                    .collect();
                if let Some(extra) = o.get("additionalItems") {
                    let node = c.sub(extra, s.pointer, "additionalItems");
                    kw.push(Kw::Items {
                        from: nodes.len(),
                        node,
                    });
                }
                kw.push(Kw::Prefix(nodes));
            }
            _ if is_schema(c, value, here, draft) => {
                let from = match (draft, o.get("prefixItems")) {
                    (Draft::Draft202012, Some(Value::Array(prefix))) => prefix.len(),
                    _ => 0,
                };
                let node = c.node(value, here.to_owned());
                kw.push(Kw::Items { from, node });
            }
            _ => {}
        },
        // Applied with an array `items`; otherwise only its shape matters.
        "additionalItems"
            if draft <= Draft::Draft201909 && !matches!(o.get("items"), Some(Value::Array(_))) =>
        {
            schema_node(c, value, here.to_owned(), draft);
        }
        "prefixItems" if draft >= Draft::Draft202012 => {
            if let Some(nodes) = schema_list(c, value, here, draft, false) {
                kw.push(Kw::Prefix(nodes));
            }
        }
        "contains" if draft >= Draft::Draft6 => {
            if let Some(node) = schema_node(c, value, here.to_owned(), draft) {
                let (mut min, mut max) = (1, None);
                if draft >= Draft::Draft201909 {
                    // Whole numbers, `1.0` too.
                    let whole = |k: &str| {
                        let v = o.get(k)?;
                        v.as_u64().or_else(|| {
                            v.as_f64()
                                .filter(|f| f.fract() == 0.0 && *f >= 0.0)
                                .map(|f| f as u64)
                        })
                    };
                    if let Some(n) = whole("minContains") {
                        min = n;
                    }
                    max = whole("maxContains");
                }
                kw.push(Kw::Contains { node, min, max });
            }
        }
        "minContains" | "maxContains" if draft >= Draft::Draft201909 => {
            count(c, value, here); // applied with `contains`
        }
        "unevaluatedItems" if draft >= Draft::Draft201909 => {
            if let Some(node) = schema_node(c, value, here.to_owned(), draft) {
                kw.push(Kw::UnevaluatedItems(node));
            }
        }
        _ => return false,
    }
    true
}

/// The keywords on object members, `properties`, `required`,
/// `patternProperties` and `additionalProperties` gathered in `members`;
/// false if `s` is none of them.
fn objects(
    c: &mut Compiler<'_>,
    s: &Site<'_>,
    kw: &mut Vec<Kw>,
    members: &mut Option<Members>,
) -> bool {
    let (draft, value, here) = (s.draft, s.value, s.here.as_str());
    match s.key {
        "minProperties" | "maxProperties" => {
            if let Some(n) = count(c, value, here) {
                kw.push(if s.key == "minProperties" {
                    Kw::MinProperties(n)
                } else {
                    Kw::MaxProperties(n)
                });
            }
        }
        "required" => {
            if let Some(names) = strings(c, value, here) {
                let m = members.get_or_insert_with(Members::default);
                for name in names {
                    m.add(&name).required = true;
                }
            }
        }
        "properties" => {
            if let Some(map) = schema_map(c, value, here, draft) {
                let m = members.get_or_insert_with(Members::default);
                for (name, node) in map {
                    m.add(&name).node = Some(node);
                }
            }
        }
        "patternProperties" => {
            let Some(map) = schema_map(c, value, here, draft) else {
                return true;
            };
            let mut list = Vec::new();
            for (source, node) in map {
                let p = at(here, &source);
                if let Some(pattern) = pattern(c, &Value::String(source), &p) {
                    list.push((pattern, node));
                }
            }
            members.get_or_insert_with(Members::default).patterns = list;
        }
        "additionalProperties" => {
            if let Some(node) = schema_node(c, value, here.to_owned(), draft) {
                members.get_or_insert_with(Members::default).additional = Some(node);
            }
        }
        "propertyNames" if draft >= Draft::Draft6 => {
            if let Some(node) = schema_node(c, value, here.to_owned(), draft) {
                kw.push(Kw::PropertyNames(node));
            }
        }
        // Split in 2019-09, still honoured there (as other validators do).
        "dependencies" => {
            let Some(map) = value.as_object() else {
                not_of_type(c, here, value, "object");
                return true;
            };
            let (mut names, mut schemas) = (Vec::new(), Vec::new());
            for (name, dep) in map {
                let p = at(here, name);
                if dep.is_array() {
                    if let Some(list) = strings(c, dep, &p) {
                        names.push((name.clone(), list));
                    }
                } else if is_schema(c, dep, &p, draft) {
                    schemas.push((name.clone(), c.node(dep, p)));
                }
            }
            kw.push(Kw::DependentRequired(names));
            kw.push(Kw::DependentSchemas(schemas));
        }
        "dependentRequired" if draft >= Draft::Draft201909 => {
            let Some(map) = value.as_object() else {
                not_of_type(c, here, value, "object");
                return true;
            };
            let mut names = Vec::new();
            for (name, dep) in map {
                let p = at(here, name);
                if let Some(list) = strings(c, dep, &p) {
                    names.push((name.clone(), list));
                }
            }
            kw.push(Kw::DependentRequired(names));
        }
        "dependentSchemas" if draft >= Draft::Draft201909 => {
            if let Some(map) = schema_map(c, value, here, draft) {
                kw.push(Kw::DependentSchemas(map));
            }
        }
        "unevaluatedProperties" if draft >= Draft::Draft201909 => {
            if let Some(node) = schema_node(c, value, here.to_owned(), draft) {
                kw.push(Kw::UnevaluatedProperties(node));
            }
        }
        _ => return false,
    }
    true
}

/// `allOf`, `anyOf`, `oneOf`, `not` and `if`/`then`/`else`; false if `s`
/// is none of them.
fn applicators(c: &mut Compiler<'_>, s: &Site<'_>, kw: &mut Vec<Kw>) -> bool {
    let (o, draft, value) = (s.o, s.draft, s.value);
    match s.key {
        "allOf" | "anyOf" | "oneOf" => {
            if let Some(nodes) = schema_list(c, value, &s.here, draft, true) {
                kw.push(match s.key {
                    "allOf" => Kw::AllOf(nodes),
                    "anyOf" => Kw::AnyOf(nodes),
                    _ => Kw::OneOf(nodes),
                });
            }
        }
        "not" => {
            if let Some(node) = schema_node(c, value, s.here.clone(), draft) {
                kw.push(Kw::Not(node));
            }
        }
        "if" if draft >= Draft::Draft7 => {
            if let Some(cond) = schema_node(c, value, s.here.clone(), draft) {
                let mut branch = |k: &str| schema_node(c, o.get(k)?, at(s.pointer, k), draft);
                let then = branch("then");
                let otherwise = branch("else");
                kw.push(Kw::If {
                    cond,
                    then,
                    otherwise,
                });
            }
        }
        // Applied with `if`; alone, only its shape matters.
        "then" | "else" if draft >= Draft::Draft7 && !o.contains_key("if") => {
            schema_node(c, value, s.here.clone(), draft);
        }
        _ => return false,
    }
    true
}

/// `$ref`, `$recursiveRef` and `$dynamicRef`: a slot in the compiler's
/// references, filled once the target is compiled; false if `s` is none
/// of them.
fn references(c: &mut Compiler<'_>, s: &Site<'_>, kw: &mut Vec<Kw>) -> bool {
    let draft = s.draft;
    let kind = match s.key {
        "$ref" => Some(RefKind::Static),
        "$recursiveRef" if draft == Draft::Draft201909 => Some(RefKind::Recursive),
        "$dynamicRef" if draft == Draft::Draft202012 => Some(RefKind::Dynamic),
        "$recursiveRef" | "$dynamicRef" => None,
        _ => return false,
    };
    match s.value {
        Value::String(r) if kind.is_some() => {
            let kind = kind.unwrap_or(RefKind::Static);
            let slot = c.refs.len();
            c.refs.push(usize::MAX);
            kw.push(if kind == RefKind::Static {
                Kw::Ref(slot)
            } else {
                c.has_dynamic = true;
                Kw::DynamicRef(slot)
            });
            let target = uri::resolve(s.base, r);
            c.pending.push(Pending {
                slot,
                target,
                doc: c.doc,
                pointer: s.here.clone(),
                written: r.clone(),
                draft,
                kind,
            });
        }
        Value::String(_) => {}
        other => not_of_type(c, &s.here, other, "string"),
    }
    true
}

/// The keywords that check nothing of an instance, only their own shape
/// (and compile the subschemas they hold); false if `s` is none of them.
fn shape_only(c: &mut Compiler<'_>, s: &Site<'_>) -> bool {
    let (key, draft, value, here) = (s.key, s.draft, s.value, s.here.as_str());
    match key {
        "definitions" | "$defs" => {
            schema_map(c, value, here, draft);
        }
        "contentSchema" if draft >= Draft::Draft201909 => {
            schema_node(c, value, here.to_owned(), draft);
        }
        "$id" | "id" | "$schema" | "$anchor" | "$dynamicAnchor" | "$comment" | "title"
        | "description" | "contentMediaType" | "contentEncoding" => {
            require(
                c,
                value.is_string() || (key == "id" && draft != Draft::Draft4),
                here,
                value,
                "string",
            );
        }
        "readOnly" | "writeOnly" | "deprecated" | "$recursiveAnchor" => {
            require(c, value.is_boolean(), here, value, "boolean")
        }
        "examples" if draft >= Draft::Draft6 => require(c, value.is_array(), here, value, "array"),
        _ => return false,
    }
    true
}
