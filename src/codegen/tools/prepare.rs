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
//! declared schema; the Rust type is a plain `String` or map. 2020-12
//! tuples (`prefixItems`) are rewritten to the draft-07 form typify reads.

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
    /// What was changed to keep typify and the generated code finite:
    /// `(pointer inside the schema document, message)`.
    pub notes: Vec<(String, String)>,
}

/// Prepares one schema document whose root type is `root_name`; `base` is
/// the tool's type-name base used to prefix definition names and titles;
/// `scope` holds every name already used by this tool.
pub fn prepare(schema: &Value, root_name: &str, base: &str, scope: &mut Scope) -> Prepared {
    let (schema, notes) = break_cycles(schema);
    let schema = &schema;
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
    Prepared { defs, notes }
}

/// Keys that may sit beside `$ref` in a schema that is just another name
/// for its target.
const ANNOTATIONS: &[&str] =
    &["$ref", "description", "title", "$comment", "default", "examples", "deprecated", "readOnly", "writeOnly"];

/// Removes the two reference cycles that typify cannot handle:
///
/// - an `allOf` entry whose `$ref` leads (through further `allOf`/`$ref`
///   merges) back to the schema that contains it: typify would merge
///   forever and overflow the stack. The entry adds nothing the schema
///   does not already say, so it is dropped;
/// - a chain of pure aliases (`{"$ref": …}` and nothing else) that comes
///   back to itself: typify would emit `struct X(Box<X>)`, whose
///   deserialisation never ends. Such a schema accepts anything its
///   annotations allow and becomes `serde_json::Value`.
fn break_cycles(schema: &Value) -> (Value, Vec<(String, String)>) {
    let mut drops: Vec<String> = Vec::new();
    let mut anys: Vec<String> = Vec::new();
    let mut nodes = Vec::new();
    subschemas(schema, String::new(), &mut nodes);
    for (ptr, node) in &nodes {
        if let Some(all) = node.get("allOf").and_then(Value::as_array) {
            for (i, entry) in all.iter().enumerate() {
                if let Some(r) = entry.get("$ref").and_then(Value::as_str) {
                    if merge_reaches(schema, r, ptr) {
                        drops.push(format!("{ptr}/allOf/{i}"));
                    }
                }
            }
        }
        if is_alias(node) && alias_cycle(schema, ptr) {
            anys.push(ptr.clone());
        }
    }
    let mut out = schema.clone();
    let mut notes = Vec::new();
    for ptr in anys {
        if let Some(node) = pointer_mut(&mut out, &ptr) {
            let mut any = Map::new();
            if let Some(d) = node.get("description") {
                any.insert("description".into(), d.clone());
            }
            *node = Value::Object(any);
            notes.push((ptr, "its `$ref`s only name each other, so it is typed as `serde_json::Value`".to_owned()));
        }
    }
    // Remove from the end so earlier indices stay valid.
    for ptr in drops.into_iter().rev() {
        let (parent, index) = ptr.rsplit_once('/').unwrap_or_default();
        let Ok(index) = index.parse::<usize>() else { continue };
        if let Some(Value::Array(entries)) = pointer_mut(&mut out, parent) {
            if index < entries.len() {
                entries.remove(index);
            }
            if entries.is_empty() {
                let owner = parent.trim_end_matches("/allOf");
                if let Some(Value::Object(o)) = pointer_mut(&mut out, owner) {
                    o.remove("allOf");
                }
            }
            notes.push((ptr, "this `allOf` entry refers back to the schema that contains it and is ignored".to_owned()));
        }
    }
    notes.sort();
    (out, notes)
}

fn pointer_mut<'a>(v: &'a mut Value, pointer: &str) -> Option<&'a mut Value> {
    if pointer.is_empty() {
        Some(v)
    } else {
        v.pointer_mut(pointer)
    }
}

/// Every object subschema with its pointer (data keywords skipped).
fn subschemas<'a>(v: &'a Value, at: String, out: &mut Vec<(String, &'a Value)>) {
    match v {
        Value::Object(o) => {
            out.push((at.clone(), v));
            for (k, c) in o {
                if !DATA_KEYWORDS.contains(&k.as_str()) {
                    subschemas(c, format!("{at}/{}", k.replace('~', "~0").replace('/', "~1")), out);
                }
            }
        }
        Value::Array(a) => {
            for (i, c) in a.iter().enumerate() {
                subschemas(c, format!("{at}/{i}"), out);
            }
        }
        _ => {}
    }
}

fn is_alias(node: &Value) -> bool {
    node.as_object().is_some_and(|o| o.contains_key("$ref") && o.keys().all(|k| ANNOTATIONS.contains(&k.as_str())))
}

/// Whether following pure aliases from `ptr` comes back to `ptr`.
fn alias_cycle(root: &Value, ptr: &str) -> bool {
    let mut seen = std::collections::BTreeSet::new();
    let mut cur = ptr.to_owned();
    loop {
        let Some(node) = pointer_get(root, &cur) else { return false };
        if !is_alias(node) {
            return false;
        }
        let Some(next) = node.get("$ref").and_then(Value::as_str).and_then(|r| canonical_pointer(root, r)) else {
            return false;
        };
        if next == ptr {
            return true;
        }
        if !seen.insert(next.clone()) {
            return false;
        }
        cur = next;
    }
}

/// Whether merging the target of `reference` (and what it merges in turn)
/// reaches the schema at `ptr` or one of its ancestors.
fn merge_reaches(root: &Value, reference: &str, ptr: &str) -> bool {
    let mut seen = std::collections::BTreeSet::new();
    let mut stack: Vec<String> = canonical_pointer(root, reference).into_iter().collect();
    while let Some(t) = stack.pop() {
        if t.is_empty() || ptr == t || ptr.starts_with(&format!("{t}/")) {
            return true;
        }
        if !seen.insert(t.clone()) {
            continue;
        }
        let Some(node) = pointer_get(root, &t) else { continue };
        let mut refs: Vec<&str> = node.get("$ref").and_then(Value::as_str).into_iter().collect();
        if let Some(all) = node.get("allOf").and_then(Value::as_array) {
            refs.extend(all.iter().filter_map(|e| e.get("$ref").and_then(Value::as_str)));
        }
        stack.extend(refs.into_iter().filter_map(|r| canonical_pointer(root, r)));
    }
    false
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
            // 2020-12 tuples (`prefixItems` + `items`) in the draft-07 form
            // typify reads (`items` array + `additionalItems`).
            if let Some(prefix) = out.remove("prefixItems") {
                if let Some(rest) = out.remove("items") {
                    out.insert("additionalItems".into(), rest);
                }
                out.insert("items".into(), prefix);
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
    fn breaks_merge_and_alias_cycles() {
        let schema = json!({
            "type": "object",
            "allOf": [{"$ref": "#"}, {"required": ["k"]}],
            "$defs": {"x": {"$ref": "#/$defs/y"}, "y": {"$ref": "#/$defs/x", "description": "Y."}, "z": {"$ref": "#/$defs/x"}},
            "properties": {"k": {"type": "string"}, "a": {"$ref": "#/$defs/z"}}
        });
        let (out, notes) = break_cycles(&schema);
        assert_eq!(out["allOf"], json!([{"required": ["k"]}]));
        assert_eq!(out["$defs"]["x"], json!({}));
        assert_eq!(out["$defs"]["y"], json!({"description": "Y."}));
        assert_eq!(out["$defs"]["z"], json!({"$ref": "#/$defs/x"}));
        let at: Vec<&str> = notes.iter().map(|(p, _)| p.as_str()).collect();
        assert_eq!(at, ["/$defs/x", "/$defs/y", "/allOf/0"]);
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
