//! Rewrites one tool's schemas into self-contained typify definitions.
//!
//! A tool's `inputSchema` and `outputSchema` are separate documents that
//! may carry local definitions (`$defs`, `definitions`) and refer to them
//! or to themselves (`#`) with `$ref`. typify resolves `$ref` only among
//! the definitions given to one `add_ref_types` call, by name, across all
//! tools. So each referenced location becomes a definition named after the
//! tool (`<Tool><Def>`), every `$ref` is rewritten to
//! `#/definitions/<name>`, and nested `title`s are prefixed with the tool
//! so that types of different tools never share a name. Definition and
//! title parts of names are bounded by [`naming::type_part`].
//!
//! Keywords that would make typify emit types from crates a user crate does
//! not depend on are removed: `format` (chrono, uuid), `pattern` and
//! `patternProperties` (regress), `x-rust-type`. These constraints are
//! still enforced at run time by the server's validator, which sees the
//! declared schema; the Rust type is a plain `String` or map. 2020-12
//! tuples (`prefixItems`) are rewritten to the draft-07 form typify reads.
//! The conditional keywords `if`/`then`/`else`, which typify does not
//! implement, are removed too: they only narrow which instances are valid,
//! so the type of the schema around them holds every valid instance. A
//! branch that declares properties of its own gets a note, since those are
//! no fields of the Rust type.
//!
//! Also here, so that whatever the schema, typify's output compiles:
//! properties get the field names mcpgen decides ([`super::fields`]);
//! reference cycles typify cannot handle are broken ([`super::cycles`]);
//! subschemas nested too deep become `serde_json::Value`
//! ([`super::depth`]); integers beyond `i64::MAX` get a type that holds
//! them (`u64` when no value is negative, else `serde_json::Value`).
//! Every reference is resolved once, through one [`RefIndex`] per document.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Map, Value};

use super::cycles::break_cycles;
use super::depth::{too_deep, MAP_LEVEL, MAX_TYPE_DEPTH};
use super::fields::Renames;
use super::integers::{wide_schema, width, Width};
use super::sources::Sources;
use super::stripped::STRIPPED;
use super::unions::{arrange, Arranged};
use crate::error::pointer_token;
use crate::manifest::refs::{collect_refs, DATA_KEYWORDS};
use crate::manifest::RefIndex;
use crate::naming::{self, Scope};

/// The keywords with which a subschema may become a type of its own (a
/// struct, an enum, a newtype with checks); so may a list of types.
const TYPE_KEYWORDS: &[&str] = &[
    "properties",
    "enum",
    "const",
    "oneOf",
    "anyOf",
    "allOf",
    "minLength",
    "maxLength",
    "additionalProperties",
    "title",
];

/// The conditional keywords among [`STRIPPED`].
const CONDITIONALS: &[&str] = &["if", "then", "else"];

/// The definitions of one schema document: `(type name, schema)` with the
/// root first.
#[derive(Debug, Clone, PartialEq)]
pub struct Prepared {
    /// Root type name and rewritten root schema, then each referenced
    /// location with its name.
    pub defs: Vec<(String, Value)>,
    /// What was changed to keep typify and the generated code finite and
    /// compiling.
    pub notes: Vec<Note>,
}

/// A change made to a schema before typify sees it.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Note {
    /// JSON pointer inside the schema document.
    pub pointer: String,
    /// What was done and why.
    pub message: String,
    /// What the user can do about it.
    pub hint: &'static str,
}

/// Prepares one schema document whose root type is `root_name`; `base` is
/// the tool's type-name base used to prefix definition names and titles;
/// `scope` holds every name already used by this tool; `renames` collects
/// the properties renamed for typify (see `fields`).
/// With an `origin`, every rewritten subschema's description ends with a
/// marker of its place ([`super::sources`]).
pub(crate) fn prepare(
    schema: &Value,
    root_name: &str,
    base: &str,
    scope: &mut Scope,
    renames: &mut Renames,
    origin: Option<Origin<'_>>,
) -> Prepared {
    let (schema, cycle_notes) = break_cycles(schema);
    let mut notes: Vec<Note> = cycle_notes
        .into_iter()
        .map(|(pointer, message)| Note {
            pointer,
            message,
            hint: "make the schema refer to a definition with content of its own",
        })
        .collect();
    let index = RefIndex::new(&schema);
    // Every local reference target, by canonical pointer.
    let mut targets: BTreeMap<String, String> = BTreeMap::new();
    targets.insert(String::new(), root_name.to_owned());
    let mut order: Vec<String> = Vec::new();
    let mut refs = Vec::new();
    collect_refs(&schema, String::new(), &mut refs);
    for (_, r) in refs {
        let Ok(pointer) = index.pointer(&r) else {
            continue;
        };
        if targets.contains_key(&pointer) {
            continue;
        }
        let last = pointer
            .rsplit('/')
            .next()
            .unwrap_or_default()
            .replace("~1", "/")
            .replace("~0", "~");
        let name = scope.unique(&format!("{base}{}", naming::type_part(&last)));
        targets.insert(pointer.clone(), name);
        order.push(pointer);
    }
    let mut roots = vec![String::new()];
    roots.extend(order.iter().cloned());
    let flat = too_deep(&index, &roots, MAX_TYPE_DEPTH);
    for p in &flat {
        notes.push(Note {
            pointer: p.clone(),
            message: format!(
                "nested deeper than {MAX_TYPE_DEPTH} levels (a map counts {MAP_LEVEL}), so it is typed as `serde_json::Value` (the server still validates it)"
            ),
            hint: "flatten the schema, or move the deep part into a `$defs` definition used at a shallower level",
        });
    }
    let mut r = Rewriter {
        index: &index,
        targets: &targets,
        base,
        flat: &flat,
        renames,
        notes: Vec::new(),
        origin,
    };
    let mut defs = vec![(root_name.to_owned(), r.root(""))];
    for pointer in &order {
        defs.push((targets[pointer].clone(), r.root(pointer)));
    }
    notes.append(&mut r.notes);
    notes.sort();
    notes.dedup();
    Prepared { defs, notes }
}

/// The tool and the document (`inputSchema`, `outputSchema`) a prepared
/// schema comes from, and where its places are numbered.
pub(crate) struct Origin<'a> {
    /// The tool's name.
    pub tool: &'a str,
    /// The key of the document in the tool's definition.
    pub key: &'a str,
    /// Every place marked so far.
    pub sources: &'a mut Sources,
}

/// Field names of one object schema: wire name → the key typify gets
/// (the wire name itself, or a marker).
type Plan = BTreeMap<String, String>;

struct Rewriter<'r, 'a> {
    index: &'r RefIndex<'a>,
    targets: &'r BTreeMap<String, String>,
    base: &'r str,
    flat: &'r BTreeSet<String>,
    renames: &'r mut Renames,
    notes: Vec<Note>,
    origin: Option<Origin<'r>>,
}

impl Rewriter<'_, '_> {
    /// The definition rooted at `pointer`.
    fn root(&mut self, pointer: &str) -> Value {
        let node = self
            .index
            .get(pointer)
            .cloned()
            .unwrap_or(Value::Bool(true));
        if self.flat.contains(pointer) {
            // Still the object type a tool schema root must be.
            let mut any = json_any(&node);
            if pointer.is_empty() {
                any.insert("type".into(), "object".into());
            }
            return Value::Object(any);
        }
        self.rewrite(&node, pointer, true, None)
    }

    /// A copy of `v` (the subschema at `at`) with `$ref`s renamed,
    /// stripped keywords removed, nested titles prefixed with the base,
    /// properties keyed for typify (with `inherited`, the plan of the
    /// object an inline `allOf` member is merged into).
    /// Notes the properties a `then`/`else` branch declares that the
    /// schema `around` it does not: they are no fields of the Rust type.
    fn note_branch_properties(
        &mut self,
        around: &Map<String, Value>,
        keyword: &str,
        branch: &Value,
        at: &str,
    ) {
        let declared = around.get("properties").and_then(Value::as_object);
        let Some(own) = branch.get("properties").and_then(Value::as_object) else {
            return;
        };
        let extra: Vec<&str> = own
            .keys()
            .filter(|name| !declared.is_some_and(|d| d.contains_key(*name)))
            .map(String::as_str)
            .collect();
        if extra.is_empty() {
            return;
        }
        self.notes.push(Note {
            pointer: format!("{at}/{keyword}"),
            message: format!(
                "this conditional branch declares properties the schema's `properties` do not ({}); they are not fields of the Rust type (the server still validates them)",
                extra.join(", ")
            ),
            hint: "declare them in the schema's `properties` as well to get typed fields",
        });
    }

    fn rewrite(&mut self, v: &Value, at: &str, top: bool, inherited: Option<&Plan>) -> Value {
        let o = match v {
            Value::Object(o) => o,
            Value::Array(a) => {
                return Value::Array(
                    a.iter()
                        .enumerate()
                        .map(|(i, c)| self.child(c, &format!("{at}/{i}"), None))
                        .collect(),
                )
            }
            other => return other.clone(),
        };
        let own_plan;
        let plan = match inherited {
            Some(p) => Some(p),
            None => {
                own_plan = self.plan(v);
                own_plan.as_ref()
            }
        };
        let width = width(o);
        match width {
            Width::Unrepresentable => {
                let why = "its values go beyond what `i128` and `u128` hold, so it is typed as `serde_json::Value`";
                let hint = "bound it with `minimum` and `maximum` to get an integer type";
                self.notes.push(Note {
                    pointer: at.to_owned(),
                    message: why.to_owned(),
                    hint,
                });
                return Value::Object(json_any(v));
            }
            Width::U128 | Width::NonZeroU128 | Width::I128 => return self.wide(o, at, width),
            Width::Typify | Width::U64 => {}
        }
        let mut out = Map::new();
        // Properties whose names are too long to match by name are left to
        // the `extra` map (see `naming::MAX_WIRE_NAME`).
        let mut long_names = false;
        for (k, child) in o {
            if CONDITIONALS.contains(&k.as_str()) && k != "if" {
                self.note_branch_properties(o, k, child, at);
            }
            if STRIPPED.contains(&k.as_str()) {
                continue;
            }
            let here = format!("{at}/{}", pointer_token(k));
            let new = match (k.as_str(), child) {
                ("$ref", Value::String(r)) => {
                    let name = self
                        .index
                        .pointer(r)
                        .ok()
                        .and_then(|p| self.targets.get(&p).cloned());
                    match name {
                        Some(n) => Value::String(format!("#/definitions/{n}")),
                        None => child.clone(),
                    }
                }
                // `minLength: 0` constrains nothing, and typify writes its
                // check as a comparison rustc warns is useless (Box's
                // OpenAPI document has one).
                ("minLength", Value::Number(n)) if n.as_u64() == Some(0) => continue,
                ("enum" | "const", _) if too_long_values(k, child) => {
                    self.notes.push(Note {
                        pointer: here,
                        message: format!(
                            "a value here is longer than the {} bytes a variant can match, so the values are not a Rust enum (the server still checks them)",
                            naming::MAX_WIRE_NAME
                        ),
                        hint: "shorten the values to get an enum",
                    });
                    continue;
                }
                ("title", Value::String(t)) if !top => {
                    Value::String(format!("{}{}", self.base, naming::type_part(t)))
                }
                ("description", Value::String(d)) => Value::String(tidy_doc(d)),
                (k, _) if DATA_KEYWORDS.contains(&k) => match k {
                    "enum" | "examples" => match child {
                        Value::Array(items) => {
                            Value::Array(items.iter().map(|d| self.rename_data(d, v, 0)).collect())
                        }
                        other => other.clone(),
                    },
                    _ => self.rename_data(child, v, 0),
                },
                // Property names are not schemas; their values are.
                ("properties", Value::Object(props)) => {
                    let mut kept = Map::new();
                    for (n, s) in props {
                        let at = format!("{here}/{}", pointer_token(n));
                        if n.len() > naming::MAX_WIRE_NAME {
                            long_names = true;
                            self.notes.push(Note {
                                pointer: at,
                                message: format!(
                                    "this property's name is {} bytes long, more than the {} a field can match, so it is kept in the type's `extra` map",
                                    n.len(),
                                    naming::MAX_WIRE_NAME
                                ),
                                hint: "shorten the property name to get a field of its own",
                            });
                            continue;
                        }
                        kept.insert(key(plan, n), self.child(s, &at, None));
                    }
                    Value::Object(kept)
                }
                ("required", Value::Array(names)) => Value::Array(
                    names
                        .iter()
                        .filter(|n| n.as_str().is_none_or(|n| n.len() <= naming::MAX_WIRE_NAME))
                        .map(|n| {
                            n.as_str()
                                .map_or_else(|| n.clone(), |n| Value::String(key(plan, n)))
                        })
                        .collect(),
                ),

                // Inline members of `allOf` are merged into this object by
                // typify: they share its field names.
                ("allOf", Value::Array(members)) => Value::Array(
                    members
                        .iter()
                        .enumerate()
                        .map(|(i, m)| {
                            let inline = m.is_object() && m.get("$ref").is_none();
                            self.child(m, &format!("{here}/{i}"), if inline { plan } else { None })
                        })
                        .collect(),
                ),
                _ => self.child(child, &here, None),
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
        if long_names {
            // Typed additional properties would not hold the long-named
            // ones; `{}` makes typify keep every other member in `extra`.
            out.insert("additionalProperties".into(), Value::Object(Map::new()));
        }
        self.unions(o, &mut out);
        if width == Width::U64 {
            // typify picks `u64` for a lower bound of 0 and no other bound.
            for k in ["exclusiveMinimum", "maximum", "exclusiveMaximum"] {
                out.remove(k);
            }
            out.insert("minimum".into(), 0.into());
        }
        self.mark(&mut out, at);
        Value::Object(out)
    }

    /// Ends the description of `out` (the subschema at `at`) with the
    /// marker of its place, when there is an origin and the description
    /// is text or absent.
    fn mark(&mut self, out: &mut Map<String, Value>, at: &str) {
        let Some(origin) = &mut self.origin else {
            return;
        };
        // Only where typify may make a type (most subschemas are plain
        // values, whose field docs would only carry the marker away).
        let typed = TYPE_KEYWORDS.iter().any(|k| out.contains_key(*k))
            || out.get("type").is_some_and(Value::is_array);
        if !at.is_empty() && !typed {
            return;
        }
        let text = match out.get("description") {
            None => String::new(),
            Some(Value::String(d)) => d.clone(),
            Some(_) => return,
        };
        let marker = origin
            .sources
            .mark(origin.tool, format!("/{}{at}", origin.key));
        out.insert("description".into(), Value::String(text + &marker));
    }

    /// `anyOf`/`oneOf` of `o`, already rewritten in `out`, arranged for
    /// typify ([`super::unions`]): collapsed to one type, or a `oneOf`
    /// (an `anyOf` too, when there is no `oneOf` beside it) of ordered
    /// members that each have a name.
    fn unions(&self, o: &Map<String, Value>, out: &mut Map<String, Value>) {
        for key in ["anyOf", "oneOf"] {
            let (Some(Value::Array(original)), Some(Value::Array(rewritten))) =
                (o.get(key), out.get(key))
            else {
                continue;
            };
            if original.len() != rewritten.len() {
                continue;
            }
            match arrange(original, rewritten.clone(), self.base) {
                Arranged::Collapsed(t) => {
                    out.remove(key);
                    out.entry("type").or_insert_with(|| t.into());
                }
                Arranged::Assertions => {
                    out.remove(key);
                }
                Arranged::Members(members) => {
                    let target = if key == "anyOf" && !out.contains_key("oneOf") {
                        "oneOf"
                    } else {
                        key
                    };
                    out.remove(key);
                    out.insert(target.into(), Value::Array(members));
                }
            }
        }
    }

    /// An integer schema that needs `u128`/`i128`: the marker schema typify
    /// maps to it, with the schema's description, title and default. With
    /// other types beside `integer` (`["integer", "null"]`), the marker
    /// becomes one member of an `anyOf` with the rest of the schema.
    fn wide(&mut self, o: &Map<String, Value>, at: &str, width: Width) -> Value {
        let metadata: Map<String, Value> = ["description", "title", "default"]
            .iter()
            .filter_map(|k| o.get(*k).map(|v| ((*k).to_owned(), v.clone())))
            .collect();
        let others: Vec<Value> = match o.get("type") {
            Some(Value::Array(ts)) => ts.iter().filter(|t| *t != "integer").cloned().collect(),
            _ => Vec::new(),
        };
        if others.is_empty() {
            return wide_schema(width, metadata);
        }
        let mut rest = o.clone();
        rest.insert(
            "type".into(),
            match others.as_slice() {
                [one] => one.clone(),
                _ => Value::Array(others.clone()),
            },
        );
        for k in ["enum", "const", "default", "description", "title"] {
            rest.remove(k);
        }
        let declared = Value::Object(rest);
        let rest = self.child(&declared, at, None);
        let mut out = metadata.clone();
        out.remove("default");
        let members = vec![wide_schema(width, Map::new()), rest];
        let members = match others.as_slice() {
            // `["integer", "null"]`: typify's `Option`.
            [only] if only == "null" => members,
            _ => match arrange(&[members[0].clone(), declared], members.clone(), self.base) {
                Arranged::Members(m) => m,
                Arranged::Collapsed(_) | Arranged::Assertions => members,
            },
        };
        out.insert("anyOf".into(), Value::Array(members));
        if let Some(d) = metadata.get("default") {
            out.insert("default".into(), d.clone());
        }
        Value::Object(out)
    }

    /// A nested subschema: flattened when it is too deep, else rewritten.
    fn child(&mut self, v: &Value, at: &str, inherited: Option<&Plan>) -> Value {
        if self.flat.contains(at) {
            return Value::Object(json_any(v));
        }
        self.rewrite(v, at, false, inherited)
    }

    /// The field plan of an object schema: its properties, the names it
    /// requires without declaring them, and those of its inline `allOf`
    /// members (typify merges them into one struct). `None` when it has
    /// no property.
    fn plan(&mut self, node: &Value) -> Option<Plan> {
        let mut wires: Vec<&str> = Vec::new();
        let o = node.as_object()?;
        let mut parts: Vec<&Map<String, Value>> = vec![o];
        if let Some(Value::Array(members)) = o.get("allOf") {
            parts.extend(
                members
                    .iter()
                    .filter(|m| m.get("$ref").is_none())
                    .filter_map(Value::as_object),
            );
        }
        for part in &parts {
            if let Some(Value::Object(props)) = part.get("properties") {
                wires.extend(props.keys().map(String::as_str));
            }
            if let Some(Value::Array(req)) = part.get("required") {
                wires.extend(req.iter().filter_map(Value::as_str));
            }
        }
        wires.retain(|w| w.len() <= naming::MAX_WIRE_NAME);
        if wires.is_empty() {
            return None;
        }
        let mut seen = BTreeSet::new();
        wires.retain(|w| seen.insert(*w));
        // typify adds a flattened `extra` field for typed additional
        // properties.
        let extra = o
            .get("additionalProperties")
            .is_some_and(|a| !a.is_boolean());
        let reserved: &[&str] = if extra { &["extra"] } else { &[] };
        let fields = naming::field_names(&wires, reserved);
        let mut plan = Plan::new();
        for (wire, field) in wires.iter().zip(fields) {
            let key = if field == *wire {
                field
            } else {
                self.renames.marker(wire, &field)
            };
            plan.insert((*wire).to_owned(), key);
        }
        Some(plan)
    }

    /// A data value (`default`, `const`, an `enum` member) of the schema
    /// `schema` with object members keyed as the schema's properties are
    /// for typify, so that typify finds (and checks) defaults per field.
    fn rename_data(&mut self, data: &Value, schema: &Value, hops: usize) -> Value {
        // Follow references to the schema that says what the data is.
        let mut schema = schema;
        for _ in 0..16 {
            match schema
                .get("$ref")
                .and_then(Value::as_str)
                .and_then(|r| self.index.target(r).ok())
            {
                Some(target) if !std::ptr::eq(target, schema) => schema = target,
                _ => break,
            }
        }
        if hops > 64 {
            return data.clone();
        }
        match data {
            Value::Object(members) => {
                let plan = self.plan(schema);
                let props = schema.get("properties");
                let extra = schema.get("additionalProperties");
                members
                    .iter()
                    .map(|(k, v)| {
                        let sub = props.and_then(|p| p.get(k)).or(extra);
                        let v = match sub {
                            Some(sub) => self.rename_data(v, sub, hops + 1),
                            None => v.clone(),
                        };
                        (key(plan.as_ref(), k), v)
                    })
                    .collect::<Map<String, Value>>()
                    .into()
            }
            Value::Array(items) => {
                let per_item = |i: usize| match (schema.get("prefixItems"), schema.get("items")) {
                    (Some(Value::Array(prefix)), rest) => prefix.get(i).or(rest),
                    (None, Some(Value::Array(tuple))) => {
                        tuple.get(i).or(schema.get("additionalItems"))
                    }
                    (None, Some(item)) => Some(item),
                    _ => None,
                };
                let subs: Vec<Option<&Value>> = (0..items.len()).map(per_item).collect();
                items
                    .iter()
                    .zip(subs)
                    .map(|(v, sub)| match sub {
                        Some(sub) => self.rename_data(v, sub, hops + 1),
                        None => v.clone(),
                    })
                    .collect::<Vec<Value>>()
                    .into()
            }
            other => other.clone(),
        }
    }
}

/// Whether an `enum` or `const` holds a string too long to be matched as
/// a variant name.
fn too_long_values(keyword: &str, value: &Value) -> bool {
    let long = |v: &Value| v.as_str().is_some_and(|s| s.len() > naming::MAX_WIRE_NAME);
    match (keyword, value) {
        ("enum", Value::Array(values)) => values.iter().any(long),
        ("const", v) => long(v),
        _ => false,
    }
}

/// The key typify gets for property `wire` under `plan`.
fn key(plan: Option<&Plan>, wire: &str) -> String {
    plan.and_then(|p| p.get(wire))
        .cloned()
        .unwrap_or_else(|| wire.to_owned())
}

/// A schema that accepts any JSON value, keeping `node`'s description.
fn json_any(node: &Value) -> Map<String, Value> {
    let mut any = Map::new();
    if let Some(d) = node.get("description").and_then(Value::as_str) {
        any.insert("description".into(), Value::String(tidy_doc(d)));
    }
    any
}

/// A description as a doc comment that rustdoc and clippy read as
/// written: a line that follows a list item without indentation starts a
/// new paragraph (instead of lazily continuing the item).
pub(crate) fn tidy_doc(text: &str) -> String {
    let text = &super::sources::clean(text);
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

    fn prep(schema: &Value) -> (Prepared, Renames) {
        let mut scope = Scope::new();
        scope.reserve("FooInput");
        let mut renames = Renames::default();
        let p = prepare(schema, "FooInput", "Foo", &mut scope, &mut renames, None);
        (p, renames)
    }

    #[test]
    fn text_after_a_list_starts_a_paragraph() {
        let d = "Options are:\n- 'add' - add.\n- 'remove' - remove.\nWrites hierarchy.\n\nMore.";
        assert_eq!(
            tidy_doc(d),
            "Options are:\n- 'add' - add.\n- 'remove' - remove.\n\nWrites hierarchy.\n\nMore."
        );
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
        let (p, renames) = prep(&schema);
        assert!(renames.is_empty());
        let names: Vec<&str> = p.defs.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["FooInput", "FooNode"]);
        assert_eq!(
            p.defs[0].1,
            json!({"type": "object", "properties": {
                "tree": {"$ref": "#/definitions/FooNode"},
                "when": {"type": "string"}
            }})
        );
        assert_eq!(
            p.defs[1].1["properties"]["children"]["items"],
            json!({"$ref": "#/definitions/FooNode"})
        );
        assert_eq!(
            p.defs[1].1["properties"]["root"],
            json!({"$ref": "#/definitions/FooInput"})
        );
        // A definition is a root of its own: its title is the def name's
        // business, so it is kept as written.
        assert_eq!(p.defs[1].1["title"], json!("leaf"));
    }

    #[test]
    fn properties_needing_other_field_names_get_markers_in_keys_required_and_defaults() {
        let schema = json!({
            "type": "object",
            "properties": {
                "fooBar": {"type": "string"},
                "foo_bar": {"type": "string"},
                "cfg": {"type": "object", "properties": {"maxItems": {"type": "integer"}}, "default": {"maxItems": 3}}
            },
            "required": ["fooBar", "Self"],
            "default": {"cfg": {"maxItems": 1}, "fooBar": "x"}
        });
        let (p, renames) = prep(&schema);
        let root = &p.defs[0].1;
        let keys: Vec<&String> = root["properties"].as_object().unwrap().keys().collect();
        assert_eq!(keys[1], "foo_bar");
        assert!(keys[0].starts_with("foo_bar_2_zmcpgen"), "{keys:?}");
        assert_eq!(keys[2], "cfg");
        let required: Vec<&str> = root["required"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap())
            .collect();
        assert_eq!(required[0], keys[0]);
        assert!(required[1].starts_with("self_zmcpgen"), "{required:?}");
        let inner = root["properties"]["cfg"]["properties"]
            .as_object()
            .unwrap()
            .keys()
            .next()
            .unwrap()
            .clone();
        assert!(inner.starts_with("max_items_zmcpgen"), "{inner}");
        assert_eq!(
            root["properties"]["cfg"]["default"],
            json!({ inner.clone(): 3 })
        );
        assert_eq!(
            root["default"],
            json!({"cfg": { inner: 1 }, keys[0].clone(): "x"})
        );
        assert!(!renames.is_empty());
    }

    #[test]
    fn long_titles_and_definition_names_are_bounded() {
        let long = "t".repeat(10_000);
        let schema = json!({
            "type": "object",
            "$defs": { long.clone(): {"type": "object", "properties": {"x": {"type": "object", "title": long.clone()}}}},
            "properties": {"a": {"$ref": format!("#/$defs/{long}")}}
        });
        let (p, _) = prep(&schema);
        assert!(p.defs[1].0.len() <= 3 + naming::MAX_NAME, "{}", p.defs[1].0);
        let title = p.defs[1].1["properties"]["x"]["title"].as_str().unwrap();
        assert!(title.len() <= 3 + naming::MAX_NAME, "{title}");
    }

    #[test]
    fn names_and_values_too_long_to_match_are_data() {
        let long = "p".repeat(naming::MAX_WIRE_NAME + 1);
        let schema = json!({
            "type": "object",
            "properties": {
                long.clone(): {"type": "string"},
                "short": {"type": "string", "enum": [long.clone(), "x"]},
                "fixed": {"const": long.clone()}
            },
            "required": [long.clone(), "short"],
            "additionalProperties": false
        });
        let (p, _) = prep(&schema);
        assert_eq!(
            p.defs[0].1,
            json!({"type": "object", "properties": {"short": {"type": "string"}, "fixed": {}}, "required": ["short"], "additionalProperties": {}})
        );
        let at: Vec<&str> = p.notes.iter().map(|n| n.pointer.as_str()).collect();
        assert_eq!(at.len(), 3);
        assert!(
            at.contains(&"/properties/fixed/const") && at.contains(&"/properties/short/enum"),
            "{at:?}"
        );
    }

    #[test]
    fn integers_beyond_i64_get_a_type_that_holds_them() {
        let schema = json!({
            "type": "object",
            "properties": {
                "u": {"type": "integer", "enum": [9223372036854775808u64, 1]},
                "d": {"type": "integer", "minimum": 0, "default": 18446744073709551615u64},
                "any": {"type": "integer", "description": "Big.", "default": 9223372036854775808u64},
                "huge": {"type": "integer", "description": "Huge.", "const": 1e40}
            }
        });
        let (p, _) = prep(&schema);
        let props = &p.defs[0].1["properties"];
        assert_eq!(
            props["u"],
            json!({"type": "integer", "enum": [9223372036854775808u64, 1], "minimum": 0})
        );
        assert_eq!(
            props["d"],
            json!({"type": "integer", "format": "x-mcpgen-int-u128", "default": 18446744073709551615u64})
        );
        assert_eq!(
            props["any"],
            json!({"description": "Big.", "type": "integer", "format": "x-mcpgen-int-i128", "default": 9223372036854775808u64})
        );
        assert_eq!(props["huge"], json!({"description": "Huge."}));
        assert_eq!(p.notes.len(), 1, "{:?}", p.notes);
        assert_eq!(p.notes[0].pointer, "/properties/huge");
    }

    #[test]
    fn too_deep_subschemas_become_json_values_with_a_note() {
        let mut s = json!({"type": "string", "description": "Leaf."});
        for _ in 0..(MAX_TYPE_DEPTH + 3) {
            s = json!({"type": "object", "description": "Level.", "properties": {"c": s}});
        }
        let (p, _) = prep(&s);
        let mut node = &p.defs[0].1;
        let mut levels = 0;
        while let Some(next) = node.get("properties").and_then(|p| p.get("c")) {
            node = next;
            levels += 1;
        }
        assert_eq!(levels, MAX_TYPE_DEPTH);
        assert_eq!(node, &json!({"description": "Level."}));
        assert_eq!(p.notes.len(), 1);
        assert!(
            p.notes[0].message.contains("nested deeper than"),
            "{:?}",
            p.notes
        );
    }
}
