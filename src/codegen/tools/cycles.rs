//! Removes the two reference cycles of a schema document that typify
//! cannot handle:
//!
//! - an `allOf` entry whose `$ref` leads (through further `allOf`/`$ref`
//!   merges) back to the schema that contains it: typify would merge
//!   forever and overflow the stack. The entry adds nothing the schema
//!   does not already say, so it is dropped;
//! - a chain of pure aliases (`{"$ref": …}` and nothing typify reads
//!   besides: annotations, `$anchor`, `$id`, …) that comes back to itself:
//!   typify would emit `struct X(Box<X>)` (or conflicting `From` impls),
//!   whose deserialisation never ends. Such a schema accepts anything its
//!   annotations allow and becomes `serde_json::Value`.
//!
//! References are resolved once each through a [`RefIndex`]; alias
//! cycles are found in one pass over the alias graph, and the search for
//! merge cycles has a fixed budget, past which the remaining `allOf`
//! references are dropped (with a note) rather than searched.

use std::collections::{BTreeSet, HashMap};

use serde_json::{Map, Value};

use super::stripped::STRIPPED;
use crate::error::pointer_token;
use crate::manifest::refs::DATA_KEYWORDS;
use crate::manifest::RefIndex;

/// Keys that may sit beside `$ref` in a schema that is just another name
/// for its target.
const ANNOTATIONS: &[&str] = &[
    "$ref",
    "description",
    "title",
    "$comment",
    "default",
    "examples",
    "deprecated",
    "readOnly",
    "writeOnly",
];

/// Most nodes the search for merge cycles visits in one document.
const MERGE_BUDGET: usize = 1_000_000;

/// `schema` without the cycles, and a note `(pointer, message)` for each
/// change.
pub(crate) fn break_cycles(schema: &Value) -> (Value, Vec<(String, String)>) {
    let index = RefIndex::new(schema);
    let mut nodes = Vec::new();
    subschemas(schema, String::new(), &mut nodes);
    let resolve = |node: &Value| {
        node.get("$ref")
            .and_then(Value::as_str)
            .and_then(|r| index.pointer(r).ok())
    };

    // Alias graph: each pure alias points at its target; nodes on a cycle
    // become `serde_json::Value`.
    let aliases: HashMap<&str, String> = nodes
        .iter()
        .filter(|(_, node)| is_alias(node))
        .filter_map(|(ptr, node)| resolve(node).map(|t| (ptr.as_str(), t)))
        .collect();
    let anys = alias_cycles(&aliases);

    let mut drops: Vec<(String, &'static str)> = Vec::new();
    let mut budget = MERGE_BUDGET;
    for (ptr, node) in &nodes {
        let Some(all) = node.get("allOf").and_then(Value::as_array) else {
            continue;
        };
        for (i, entry) in all.iter().enumerate() {
            let Some(target) = resolve(entry) else {
                continue;
            };
            match merge_reaches(&index, target, ptr, &mut budget) {
                Some(false) => {}
                Some(true) => drops.push((format!("{ptr}/allOf/{i}"), "this `allOf` entry refers back to the schema that contains it and is ignored")),
                None => drops.push((format!("{ptr}/allOf/{i}"), "this `allOf` entry is ignored: too many `allOf` references to follow in this schema")),
            }
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
            notes.push((
                ptr,
                "its `$ref`s only name each other, so it is typed as `serde_json::Value`"
                    .to_owned(),
            ));
        }
    }
    // Remove from the end so earlier indices stay valid.
    for (ptr, why) in drops.into_iter().rev() {
        let (parent, index) = ptr.rsplit_once('/').unwrap_or_default();
        let Ok(index) = index.parse::<usize>() else {
            continue;
        };
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
            notes.push((ptr, why.to_owned()));
        }
    }
    notes.sort();
    (out, notes)
}

/// The aliases that lie on a cycle of the alias graph (each alias has one
/// target), in pointer order; one pass, each node visited once.
fn alias_cycles(aliases: &HashMap<&str, String>) -> BTreeSet<String> {
    let mut on_cycle = BTreeSet::new();
    // 0: unvisited; otherwise the walk that visited it.
    let mut walk_of: HashMap<&str, usize> = HashMap::new();
    let mut starts: Vec<&str> = aliases.keys().copied().collect();
    starts.sort_unstable();
    for (walk, start) in starts.into_iter().enumerate() {
        let walk = walk + 1;
        let mut path: Vec<&str> = Vec::new();
        let mut cur = start;
        loop {
            match walk_of.get(cur) {
                Some(&w) if w == walk => {
                    // Back on this walk's own path: `cur` starts a cycle.
                    let from = path.iter().position(|p| *p == cur).unwrap_or(0);
                    on_cycle.extend(path[from..].iter().map(|p| (*p).to_owned()));
                    break;
                }
                Some(_) => break,
                None => {}
            }
            walk_of.insert(cur, walk);
            path.push(cur);
            match aliases.get_key_value(cur) {
                Some((_, next)) => match aliases.get_key_value(next.as_str()) {
                    Some((key, _)) => cur = key,
                    None => break,
                },
                None => break,
            }
        }
    }
    on_cycle
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
                    subschemas(c, format!("{at}/{}", pointer_token(k)), out);
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

/// Whether a schema is, as typify sees it, only another name for the
/// target of its `$ref`: every other key is an annotation or a keyword
/// mcpgen removes before typify.
fn is_alias(node: &Value) -> bool {
    node.as_object().is_some_and(|o| {
        o.contains_key("$ref")
            && o.keys()
                .all(|k| ANNOTATIONS.contains(&k.as_str()) || STRIPPED.contains(&k.as_str()))
    })
}

/// Whether merging the schema at `target` (and what it merges in turn)
/// reaches the schema at `ptr` or one of its ancestors; `None` when the
/// search budget ran out.
fn merge_reaches(
    index: &RefIndex<'_>,
    target: String,
    ptr: &str,
    budget: &mut usize,
) -> Option<bool> {
    let mut seen = BTreeSet::new();
    let mut stack = vec![target];
    while let Some(t) = stack.pop() {
        if t.is_empty() || ptr == t || ptr.starts_with(&format!("{t}/")) {
            return Some(true);
        }
        if !seen.insert(t.clone()) {
            continue;
        }
        *budget = budget.checked_sub(1)?;
        let Some(node) = index.get(&t) else { continue };
        let mut refs: Vec<&str> = node
            .get("$ref")
            .and_then(Value::as_str)
            .into_iter()
            .collect();
        if let Some(all) = node.get("allOf").and_then(Value::as_array) {
            refs.extend(
                all.iter()
                    .filter_map(|e| e.get("$ref").and_then(Value::as_str)),
            );
        }
        stack.extend(refs.into_iter().filter_map(|r| index.pointer(r).ok()));
    }
    Some(false)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

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
    fn an_anchor_naming_itself_is_an_alias_cycle() {
        let schema = json!({"type": "object", "properties": {"x": {"$anchor": "x", "$ref": "#x"}}});
        let (out, notes) = break_cycles(&schema);
        assert_eq!(out["properties"]["x"], json!({}));
        assert_eq!(notes.len(), 1);
    }

    #[test]
    fn long_alias_chains_are_walked_once() {
        let mut defs = Map::new();
        for i in 0..20_000 {
            defs.insert(
                format!("d{i}"),
                json!({"$ref": format!("#/$defs/d{}", i + 1)}),
            );
        }
        defs.insert("d20000".into(), json!({"$ref": "#/$defs/d0"}));
        let schema = json!({"type": "object", "$defs": defs});
        let started = std::time::Instant::now();
        let (_, notes) = break_cycles(&schema);
        assert_eq!(notes.len(), 20_001);
        assert!(
            started.elapsed() < std::time::Duration::from_secs(20),
            "{:?}",
            started.elapsed()
        );
    }
}
