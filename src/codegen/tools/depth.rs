//! How deep generated tool types may nest: at most [`MAX_TYPE_DEPTH`]
//! schema levels, each subschema that would nest deeper becoming
//! `serde_json::Value`.
//!
//! Every schema level (a property, array items, map values, a union
//! member, …) is a Rust type inside another, and several of them (`Option`,
//! `Vec`, `BTreeMap`, `Box`) are more than one level for rustc. The
//! compiler proves `Send`, `Sync` or `Deserialize` for a type by walking
//! into it, and stops with "overflow evaluating the requirement" at its
//! recursion limit (128): a 60-level object, fine as JSON, makes the
//! generated server fail to compile. So a subschema deeper than the limit
//! is typed as `serde_json::Value` (the server's validator still checks it
//! against the declared schema) and generation warns about it, naming the
//! place. An array costs rustc more than most levels (`Vec` is three types
//! deep): 32 levels of them still compile, 48 do not; the limit leaves
//! room for the types a server or a user wraps around a tool type.
//! A map (`additionalProperties`, a `BTreeMap`) costs the most: rustdoc
//! proves every auto trait of a documented type, `UnwindSafe` included,
//! which it can only do by walking into the map's nodes, about nine
//! levels each, so 13 nested maps document and 14 do not. A map level
//! counts [`MAP_LEVEL`] levels here.
//!
//! Depth is counted through `$ref`s: a definition used at some level adds
//! its own depth there, plus one (a definition that only names another
//! is a newtype around it). A recursive reference (back to a definition being
//! measured) counts one level, as rustc stops at the cycle. The walk is
//! linear: each definition is measured once.

use std::collections::{BTreeSet, HashMap, HashSet};

use serde_json::Value;

use crate::error::pointer_token;
use crate::manifest::RefIndex;

/// Most schema levels a tool type nests.
pub const MAX_TYPE_DEPTH: usize = 24;

/// What one level of map (a subschema under `additionalProperties` or
/// `unevaluatedProperties`) counts for: at most 12 maps nest within
/// [`MAX_TYPE_DEPTH`].
pub const MAP_LEVEL: usize = 2;

/// Keywords whose subschema is the value type of a map.
const MAPS: &[&str] = &["additionalProperties", "unevaluatedProperties"];

/// Keywords whose values are subschemas that become nested types.
const NESTING: &[&str] = &[
    "additionalProperties",
    "items",
    "additionalItems",
    "contains",
    "propertyNames",
    "not",
    "if",
    "then",
    "else",
    "unevaluatedProperties",
    "unevaluatedItems",
];

/// Keywords whose values are maps or lists of subschemas that become
/// nested types.
const NESTING_MANY: &[&str] = &[
    "properties",
    "prefixItems",
    "anyOf",
    "oneOf",
    "allOf",
    "dependentSchemas",
];

/// The subschemas of `schema` (a schema document) to type as
/// `serde_json::Value` so that no type nests deeper than `max` levels:
/// their pointers. `roots` are the pointers of the parts that become
/// types of their own (the document root and each `$ref` target).
pub fn too_deep(index: &RefIndex<'_>, roots: &[String], max: usize) -> BTreeSet<String> {
    let mut d = Depth {
        index,
        max,
        flat: BTreeSet::new(),
        height: HashMap::new(),
        open: HashSet::new(),
    };
    for root in roots {
        d.definition(root);
    }
    d.flat
}

struct Depth<'i, 'a> {
    index: &'i RefIndex<'a>,
    max: usize,
    flat: BTreeSet<String>,
    /// Depth of each measured definition, after trimming.
    height: HashMap<String, usize>,
    /// Definitions being measured (on the current path).
    open: HashSet<String>,
}

impl Depth<'_, '_> {
    /// The depth of the definition at `pointer`, trimmed to the limit;
    /// more than the limit when it cannot be measured yet (a chain of
    /// references longer than the limit: it is measured on its own
    /// later, as a root).
    fn definition(&mut self, pointer: &str) -> usize {
        if let Some(h) = self.height.get(pointer) {
            return *h;
        }
        if self.open.contains(pointer) {
            return 1;
        }
        if self.open.len() > self.max {
            return self.max + 1;
        }
        let Some(node) = self.index.get(pointer) else {
            return 0;
        };
        self.open.insert(pointer.to_owned());
        let h = self.trim(node, pointer, self.max);
        self.open.remove(pointer);
        self.height.insert(pointer.to_owned(), h);
        h
    }

    /// Makes the schema at `pointer` at most `budget` levels deep
    /// (recording what to flatten) and returns its depth.
    fn trim(&mut self, node: &Value, pointer: &str, budget: usize) -> usize {
        let Some(obj) = node.as_object() else {
            return 0;
        };
        let mut h = 0;
        if let Some(reference) = obj.get("$ref").and_then(Value::as_str) {
            if let Ok(target) = self.index.pointer(reference) {
                // A definition that only names another is a newtype around
                // it: one level more. Counted for every reference.
                let th = self.definition(&target).saturating_add(1);
                if th > budget {
                    self.flat.insert(pointer.to_owned());
                    return 0;
                }
                h = th;
            }
        }
        // Each child with what its level counts for.
        let mut children: Vec<(String, &Value, usize)> = Vec::new();
        for (k, v) in obj {
            let at = format!("{pointer}/{}", pointer_token(k));
            if NESTING.contains(&k.as_str()) {
                let cost = if MAPS.contains(&k.as_str()) {
                    MAP_LEVEL
                } else {
                    1
                };
                match v {
                    Value::Array(list) => {
                        children.extend(
                            list.iter()
                                .enumerate()
                                .map(|(i, c)| (format!("{at}/{i}"), c, cost)),
                        );
                    }
                    other => children.push((at, other, cost)),
                }
            } else if NESTING_MANY.contains(&k.as_str()) {
                match v {
                    Value::Object(map) => {
                        children.extend(
                            map.iter()
                                .map(|(n, c)| (format!("{at}/{}", pointer_token(n)), c, 1)),
                        );
                    }
                    Value::Array(list) => {
                        children.extend(
                            list.iter()
                                .enumerate()
                                .map(|(i, c)| (format!("{at}/{i}"), c, 1)),
                        );
                    }
                    _ => {}
                }
            }
        }
        children.retain(|(_, c, _)| c.is_object());
        let Some(need) = children.iter().map(|(_, _, cost)| *cost).max() else {
            return h;
        };
        if budget < need {
            self.flat.insert(pointer.to_owned());
            return 0;
        }
        for (at, child, cost) in children {
            h = h.max(self.trim(child, &at, budget - cost) + cost);
        }
        h
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn nested(levels: usize) -> Value {
        let mut s = json!({"type": "string"});
        for _ in 0..levels {
            s = json!({"type": "object", "properties": {"c": s}});
        }
        s
    }

    #[test]
    fn flattens_only_what_is_deeper_than_the_limit() {
        let ok = nested(4);
        assert!(too_deep(&RefIndex::new(&ok), &[String::new()], 4).is_empty());
        let deep = nested(6);
        let flat = too_deep(&RefIndex::new(&deep), &[String::new()], 4);
        assert_eq!(
            flat.into_iter().collect::<Vec<_>>(),
            ["/properties/c/properties/c/properties/c/properties/c"]
        );
    }

    #[test]
    fn a_map_level_counts_double() {
        let mut s = json!({"type": "string"});
        for _ in 0..3 {
            s = json!({"type": "object", "additionalProperties": s});
        }
        // Three maps are six levels: within 6, not within 5.
        assert!(too_deep(&RefIndex::new(&s), &[String::new()], 6).is_empty());
        let flat = too_deep(&RefIndex::new(&s), &[String::new()], 5);
        assert_eq!(
            flat.into_iter().collect::<Vec<_>>(),
            ["/additionalProperties/additionalProperties"]
        );
    }

    #[test]
    fn counts_through_references_and_stops_at_recursion() {
        let mut defs = serde_json::Map::new();
        for i in 0..50 {
            defs.insert(format!("d{i}"), json!({"type": "object", "properties": {"next": {"$ref": format!("#/$defs/d{}", i + 1)}}}));
        }
        defs.insert("d50".into(), json!({"type": "string"}));
        defs.insert("tree".into(), json!({"type": "object", "properties": {"kids": {"type": "array", "items": {"$ref": "#/$defs/tree"}}}}));
        let schema = json!({"type": "object", "$defs": defs, "properties": {"a": {"$ref": "#/$defs/d0"}, "t": {"$ref": "#/$defs/tree"}}});
        let index = RefIndex::new(&schema);
        let mut roots = vec![String::new()];
        roots.extend((0..=50).map(|i| format!("/$defs/d{i}")));
        roots.push("/$defs/tree".into());
        let flat = too_deep(&index, &roots, 6);
        // Each definition nests at most 6 levels: the chain is cut every
        // few links; the recursive tree is left alone.
        assert!(
            flat.iter()
                .all(|p| p.ends_with("/properties/next") || p == "/properties/a"),
            "{flat:?}"
        );
        assert!(!flat.iter().any(|p| p.contains("tree")), "{flat:?}");
        assert!(flat.len() >= 10, "{flat:?}");
    }
}
