//! Readers of keyword values: each checks that a keyword holds what the
//! dialect's meta-schema allows (a type name, a number, a non-negative
//! integer, unique strings, an ECMA-262 pattern, one or more subschemas),
//! reports to the [`Compiler`] with the keyword's JSON pointer when it
//! does not, and compiles the subschemas it holds.

use std::sync::Arc;

use serde_json::{Number, Value};

use super::Compiler;
use crate::schema::json::{push_token, show, TYPE_NAMES};
use crate::schema::pattern::Pattern;
use crate::schema::Draft;

/// Reports `v` at `pointer` as not of type `ty` unless `ok`.
pub(super) fn require(c: &mut Compiler<'_>, ok: bool, pointer: &str, v: &Value, ty: &str) {
    if !ok {
        not_of_type(c, pointer, v, ty);
    }
}

/// The node of `v` at `pointer` if `v` can be a schema (else says why).
pub(super) fn schema_node(
    c: &mut Compiler<'_>,
    v: &Value,
    pointer: String,
    draft: Draft,
) -> Option<usize> {
    is_schema(c, v, &pointer, draft).then(|| c.node(v, pointer))
}

/// Reports `v` at `pointer` as not of type `ty`.
pub(super) fn not_of_type(c: &mut Compiler<'_>, pointer: &str, v: &Value, ty: &str) {
    c.error(pointer, format!("{} is not of type \"{ty}\"", show(v)));
}

/// The `type` names as bits (see `TYPE_NAMES`).
pub(super) fn types(c: &mut Compiler<'_>, v: &Value, pointer: &str) -> Option<u8> {
    let names: Vec<&Value> = match v {
        Value::String(_) => vec![v],
        Value::Array(list) => list.iter().collect(),
        other => {
            c.error(
                pointer,
                format!("{} is not of type \"string\" or \"array\"", show(other)),
            );
            return None;
        }
    };
    let mut bits = 0u8;
    for (i, name) in names.iter().enumerate() {
        let found = name
            .as_str()
            .and_then(|n| TYPE_NAMES.iter().position(|t| *t == n));
        match found {
            Some(bit) if bits & (1 << bit) == 0 => bits |= 1 << bit,
            Some(_) => c.error(pointer, format!("{} has repeated items", show(v))),
            None => {
                let at = if v.is_array() {
                    format!("{pointer}/{i}")
                } else {
                    pointer.to_owned()
                };
                c.error(
                    &at,
                    format!(
                        "{} is not one of the type names ({})",
                        show(name),
                        TYPE_NAMES.join(", ")
                    ),
                );
            }
        }
    }
    // An empty list allows nothing.
    Some(bits)
}

/// A number.
pub(super) fn number(c: &mut Compiler<'_>, v: &Value, pointer: &str) -> Option<Number> {
    match v {
        Value::Number(n) => Some(n.clone()),
        other => {
            not_of_type(c, pointer, other, "number");
            None
        }
    }
}

/// A non-negative integer (`2.0` counts from draft-06 on).
pub(super) fn count(c: &mut Compiler<'_>, v: &Value, pointer: &str) -> Option<u64> {
    let whole = v.as_u64().or_else(|| {
        v.as_f64()
            .filter(|f| f.fract() == 0.0 && *f >= 0.0)
            .map(|f| f as u64)
    });
    match (whole, v) {
        (Some(n), _) => Some(n),
        (None, Value::Number(n)) if n.as_f64().is_some_and(|f| f < 0.0) => {
            c.error(pointer, format!("{n} is less than the minimum of 0"));
            None
        }
        (None, other) => {
            not_of_type(c, pointer, other, "integer");
            None
        }
    }
}

/// A list of unique strings.
pub(super) fn strings(c: &mut Compiler<'_>, v: &Value, pointer: &str) -> Option<Vec<String>> {
    let Value::Array(list) = v else {
        not_of_type(c, pointer, v, "array");
        return None;
    };
    let mut out: Vec<String> = Vec::with_capacity(list.len());
    for (i, item) in list.iter().enumerate() {
        match item {
            Value::String(s) if out.contains(s) => {
                c.error(pointer, format!("{} has repeated items", show(v)))
            }
            Value::String(s) => out.push(s.clone()),
            other => not_of_type(c, &format!("{pointer}/{i}"), other, "string"),
        }
    }
    Some(out)
}

/// A string that is a valid ECMA-262 pattern, compiled.
pub(super) fn pattern(c: &mut Compiler<'_>, v: &Value, pointer: &str) -> Option<Arc<Pattern>> {
    let Value::String(source) = v else {
        not_of_type(c, pointer, v, "string");
        return None;
    };
    match compile_pattern(source) {
        Ok(p) => Some(p),
        Err(e) => {
            c.error(
                pointer,
                format!(
                    "{} is not a valid ECMA-262 regular expression: {e}",
                    show(v)
                ),
            );
            None
        }
    }
}

/// Whether `v` can be a schema in `draft`; says why not if it cannot.
pub(super) fn is_schema(c: &mut Compiler<'_>, v: &Value, pointer: &str, draft: Draft) -> bool {
    match v {
        Value::Object(_) => true,
        Value::Bool(_) if boolean_allowed(pointer, draft) => true,
        other => {
            let want = if draft >= Draft::Draft6 {
                "\"object\" or \"boolean\""
            } else {
                "\"object\""
            };
            c.error(pointer, format!("{} is not of type {want}", show(other)));
            false
        }
    }
}

/// A list of subschemas (`non_empty`: at least one), compiled.
pub(super) fn schema_list(
    c: &mut Compiler<'_>,
    v: &Value,
    pointer: &str,
    draft: Draft,
    non_empty: bool,
) -> Option<Vec<usize>> {
    let Value::Array(list) = v else {
        not_of_type(c, pointer, v, "array");
        return None;
    };
    if non_empty && list.is_empty() {
        c.error(pointer, "[] has fewer than 1 item");
        return None;
    }
    let mut nodes = Vec::with_capacity(list.len());
    for (i, s) in list.iter().enumerate() {
        let p = format!("{pointer}/{i}");
        if is_schema(c, s, &p, draft) {
            nodes.push(c.node(s, p));
        }
    }
    Some(nodes)
}

/// An object of subschemas, compiled, with their names.
pub(super) fn schema_map(
    c: &mut Compiler<'_>,
    v: &Value,
    pointer: &str,
    draft: Draft,
) -> Option<Vec<(String, usize)>> {
    let Value::Object(map) = v else {
        not_of_type(c, pointer, v, "object");
        return None;
    };
    let mut out = Vec::with_capacity(map.len());
    for (name, s) in map {
        let mut p = pointer.to_owned();
        push_token(&mut p, name);
        if is_schema(c, s, &p, draft) {
            out.push((name.clone(), c.node(s, p)));
        }
    }
    Some(out)
}

/// Whether a boolean can stand for a schema at `pointer`: anywhere from
/// draft-06 on, and as `additionalProperties` or `additionalItems` before.
pub(super) fn boolean_allowed(pointer: &str, draft: Draft) -> bool {
    draft >= Draft::Draft6
        || pointer.ends_with("/additionalProperties")
        || pointer.ends_with("/additionalItems")
}

/// Compiles an ECMA-262 pattern (as `new RegExp(source)` would, no flags).
fn compile_pattern(source: &str) -> Result<Arc<Pattern>, String> {
    Pattern::compile(source).map(Arc::new)
}
