//! Rewrites one tool's schemas into self-contained typify definitions.
//!
//! A tool's `inputSchema` and `outputSchema` are separate documents that
//! may carry local definitions (`$defs`, `definitions`) and refer to them
//! or to themselves (`#`) with `$ref`. typify resolves `$ref` only among
//! the definitions given to one `add_ref_types` call, by name, across all
//! tools. So each referenced location becomes a definition named after the
//! tool (`<Tool><Def>`), every `$ref` is rewritten to
//! `#/definitions/<name>`, and nested `title`s are prefixed with the tool
//! so that types of different tools never share a name.
//!
//! Keywords that would make typify emit types from crates a user crate does
//! not depend on are removed: `format` (chrono, uuid), `pattern` and
//! `patternProperties` (regress), `x-rust-type`. These constraints are
//! still enforced at run time by the server's validator, which sees the
//! declared schema; the Rust type is a plain `String` or map.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use crate::manifest::resolve_local_ref;
use crate::naming::{pascal, Scope};

/// Keywords whose values are data, not subschemas.
const DATA_KEYWORDS: &[&str] = &["enum", "const", "default", "examples", "example"];

/// Keywords removed before typify sees a schema (see the module docs).
const STRIPPED: &[&str] =
    &["$schema", "$id", "$anchor", "$comment", "$defs", "definitions", "format", "pattern", "patternProperties", "x-rust-type"];

/// The definitions of one schema document: `(type name, schema)` with the
/// root first.
#[derive(Debug, Clone, PartialEq)]
pub struct Prepared {
    /// Root type name and rewritten root schema, then each referenced
    /// location with its name.
    pub defs: Vec<(String, Value)>,
}

/// Prepares one schema document whose root type is `root_name`; `base` is
/// the tool's type-name base used to prefix definition names and titles;
/// `scope` holds every name already used by this tool.
pub fn prepare(schema: &Value, root_name: &str, base: &str, scope: &mut Scope) -> Prepared {
    // Every local reference target, by canonical pointer.
    let mut targets: BTreeMap<String, String> = BTreeMap::new();
    targets.insert(String::new(), root_name.to_owned());
    let mut order: Vec<String> = Vec::new();
    let mut refs = Vec::new();
    collect_refs(schema, &mut refs);
    for r in refs {
        let Some(pointer) = canonical_pointer(schema, &r) else { continue };
        if targets.contains_key(&pointer) {
            continue;
        }
        let last = pointer.rsplit('/').next().unwrap_or_default().replace("~1", "/").replace("~0", "~");
        let name = scope.unique(&format!("{base}{}", pascal(&last)));
        targets.insert(pointer.clone(), name);
        order.push(pointer);
    }
    let rewrite = |v: &Value| rewrite(v, schema, &targets, base, true);
    let mut defs = vec![(root_name.to_owned(), rewrite(schema))];
    for pointer in order {
        let target = pointer_get(schema, &pointer).cloned().unwrap_or(Value::Bool(true));
        defs.push((targets[&pointer].clone(), rewrite(&target)));
    }
    Prepared { defs }
}

/// Every `$ref` string of a schema, in document order.
fn collect_refs(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::Object(o) => {
            for (k, child) in o {
                match (k.as_str(), child) {
                    ("$ref", Value::String(r)) => out.push(r.clone()),
                    (k, _) if DATA_KEYWORDS.contains(&k) => {}
                    _ => collect_refs(child, out),
                }
            }
        }
        Value::Array(a) => a.iter().for_each(|c| collect_refs(c, out)),
        _ => {}
    }
}

/// The JSON pointer (from the document root) of the value a local `$ref`
/// names, when it resolves.
fn canonical_pointer(root: &Value, reference: &str) -> Option<String> {
    let target = resolve_local_ref(root, reference).ok()?;
    find_pointer(root, target, String::new())
}

/// The pointer of `target` (by address) inside `v`.
fn find_pointer(v: &Value, target: &Value, at: String) -> Option<String> {
    if std::ptr::eq(v, target) {
        return Some(at);
    }
    match v {
        Value::Object(o) => o.iter().find_map(|(k, c)| {
            find_pointer(c, target, format!("{at}/{}", k.replace('~', "~0").replace('/', "~1")))
        }),
        Value::Array(a) => a.iter().enumerate().find_map(|(i, c)| find_pointer(c, target, format!("{at}/{i}"))),
        _ => None,
    }
}

fn pointer_get<'a>(v: &'a Value, pointer: &str) -> Option<&'a Value> {
    if pointer.is_empty() {
        Some(v)
    } else {
        v.pointer(pointer)
    }
}

/// A copy of `v` (a subschema of `root`) with `$ref`s renamed, stripped
/// keywords removed and nested titles prefixed with `base`.
fn rewrite(v: &Value, root: &Value, targets: &BTreeMap<String, String>, base: &str, top: bool) -> Value {
    match v {
        Value::Object(o) => {
            let mut out = Map::new();
            for (k, child) in o {
                if STRIPPED.contains(&k.as_str()) {
                    continue;
                }
                let new = match (k.as_str(), child) {
                    ("$ref", Value::String(r)) => {
                        let name = canonical_pointer(root, r).and_then(|p| targets.get(&p).cloned());
                        match name {
                            Some(n) => Value::String(format!("#/definitions/{n}")),
                            None => child.clone(),
                        }
                    }
                    ("title", Value::String(t)) if !top => Value::String(format!("{base}{}", pascal(t))),
                    ("description", Value::String(d)) => Value::String(tidy_doc(d)),
                    (k, _) if DATA_KEYWORDS.contains(&k) => child.clone(),
                    // Property names are not schemas; their values are.
                    ("properties", Value::Object(props)) => Value::Object(
                        props.iter().map(|(n, s)| (n.clone(), rewrite(s, root, targets, base, false))).collect(),
                    ),
                    _ => rewrite(child, root, targets, base, false),
                };
                out.insert(k.clone(), new);
            }
            Value::Object(out)
        }
        Value::Array(a) => Value::Array(a.iter().map(|c| rewrite(c, root, targets, base, false)).collect()),
        other => other.clone(),
    }
}

/// A description as a doc comment that rustdoc and clippy read as
/// written: a line that follows a list item without indentation starts a
/// new paragraph (instead of lazily continuing the item).
pub fn tidy_doc(text: &str) -> String {
    let is_item = |l: &str| {
        let t = l.trim_start();
        t.starts_with("- ") || t.starts_with("* ") || t.starts_with("+ ") || {
            let digits = t.chars().take_while(char::is_ascii_digit).count();
            digits > 0 && (t[digits..].starts_with(". ") || t[digits..].starts_with(") "))
        }
    };
    let mut out = String::with_capacity(text.len());
    let mut prev_item = false;
    for (i, line) in text.lines().enumerate() {
        let blank = line.trim().is_empty();
        let item = is_item(line);
        if prev_item && !blank && !item && !line.starts_with([' ', '\t']) {
            out.push('\n');
        }
        if i > 0 {
            out.push('\n');
        }
        out.push_str(line);
        if item {
            prev_item = true;
        } else if blank || !line.starts_with([' ', '\t']) {
            prev_item = false;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn text_after_a_list_starts_a_paragraph() {
        let d = "Options are:\n- 'add' - add.\n- 'remove' - remove.\nWrites hierarchy.\n\nMore.";
        assert_eq!(tidy_doc(d), "Options are:\n- 'add' - add.\n- 'remove' - remove.\n\nWrites hierarchy.\n\nMore.");
        assert_eq!(tidy_doc("1. one\n   more\ntext"), "1. one\n   more\n\ntext");
        assert_eq!(tidy_doc("plain\ntext"), "plain\ntext");
    }

    #[test]
    fn renames_defs_self_refs_and_titles() {
        let schema = json!({
            "type": "object",
            "$defs": {"node": {"type": "object", "title": "leaf", "properties": {
                "children": {"type": "array", "items": {"$ref": "#/$defs/node"}},
                "root": {"$ref": "#"}
            }}},
            "properties": {"tree": {"$ref": "#/$defs/node"}, "when": {"type": "string", "format": "date-time"}}
        });
        let mut scope = Scope::new();
        scope.reserve("FooInput");
        let p = prepare(&schema, "FooInput", "Foo", &mut scope);
        let names: Vec<&str> = p.defs.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["FooInput", "FooNode"]);
        assert_eq!(
            p.defs[0].1,
            json!({"type": "object", "properties": {
                "tree": {"$ref": "#/definitions/FooNode"},
                "when": {"type": "string"}
            }})
        );
        assert_eq!(p.defs[1].1["properties"]["children"]["items"], json!({"$ref": "#/definitions/FooNode"}));
        assert_eq!(p.defs[1].1["properties"]["root"], json!({"$ref": "#/definitions/FooInput"}));
        // A definition is a root of its own: its title is the def name's
        // business, so it is kept as written.
        assert_eq!(p.defs[1].1["title"], json!("leaf"));
    }
}
