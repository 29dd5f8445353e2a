//! Compiling a schema document into a graph of nodes, one per subschema,
//! each a list of keyword checks. The document is first indexed (the base
//! URI and dialect of every subschema, `$id` resources and anchors), then
//! compiled from the root; references are resolved afterwards, compiling
//! their targets on demand, so recursive schemas become cycles in the
//! graph. Every keyword's value is checked on the way, as the dialect's
//! meta-schema would, and every problem is kept with its JSON pointer.

use std::collections::HashMap;
use std::sync::Arc;

use serde_json::{Map, Number, Value};

use super::format::Format;
use super::json::{push_token, show, TYPE_NAMES};
use super::pattern::Pattern;
use super::{uri, Draft, SchemaError, ONE_SCHEMA, SCHEMA_LISTS, SCHEMA_MAPS};

/// The base URI of a document without `$id`.
const DEFAULT_BASE: &str = "json-schema:///";

/// A compiled document.
#[derive(Debug)]
pub(super) struct Compiled {
    pub nodes: Vec<Node>,
    pub root: usize,
    /// Every compiled subschema by its JSON pointer in the document.
    pub at: HashMap<String, usize>,
    /// The target node of each `Kw::Ref`.
    pub refs: Vec<usize>,
    pub draft: Draft,
}

impl Compiled {
    /// Whether 1.0 is an integer (every draft but 4).
    pub fn integral_floats(&self) -> bool {
        self.draft != Draft::Draft4
    }
}

/// The checks of one subschema, in evaluation order.
#[derive(Debug, Default)]
pub(super) struct Node {
    pub kw: Vec<Kw>,
}

impl Node {
    /// Whether this is the `false` schema (nothing is valid).
    pub fn is_false(&self) -> bool {
        matches!(self.kw.as_slice(), [Kw::False])
    }
}

/// What an object's members must be.
#[derive(Debug, Default)]
pub(super) struct Members {
    /// Every name `properties` or `required` mentions, sorted.
    pub named: Vec<Named>,
    /// How many of them are required.
    pub required: usize,
    pub patterns: Vec<(Arc<Pattern>, usize)>,
    /// `additionalProperties`: members neither named nor matched.
    pub additional: Option<usize>,
}

/// One member name of [`Members`].
#[derive(Debug)]
pub(super) struct Named {
    pub name: String,
    /// Its `properties` schema.
    pub node: Option<usize>,
    pub required: bool,
}

impl Members {
    /// The entry of member `key` (a scan for a few names, else a binary search).
    pub fn find(&self, key: &str) -> Option<&Named> {
        if self.named.len() <= 12 {
            self.named.iter().find(|n| super::json::same(&n.name, key))
        } else {
            self.named
                .binary_search_by(|n| n.name.as_str().cmp(key))
                .ok()
                .map(|at| &self.named[at])
        }
    }

    /// Whether member `key` is named by `properties` or matched by a
    /// `patternProperties` pattern (so `additionalProperties` leaves it).
    pub fn covers(&self, key: &str) -> bool {
        self.find(key).is_some_and(|n| n.node.is_some())
            || self.patterns.iter().any(|(p, _)| p.matches(key))
    }

    fn add(&mut self, name: &str) -> &mut Named {
        match self.named.iter().position(|n| n.name == name) {
            Some(at) => &mut self.named[at],
            None => {
                self.named.push(Named {
                    name: name.to_owned(),
                    node: None,
                    required: false,
                });
                self.named.last_mut().expect("just pushed")
            }
        }
    }
}

/// Which side a numeric bound limits.
#[derive(Debug, Clone, Copy)]
pub(super) enum Bound {
    Min,
    Max,
    ExclusiveMin,
    ExclusiveMax,
}

/// One keyword check.
#[derive(Debug)]
pub(super) enum Kw {
    False,
    Type(u8),
    Enum(Vec<Value>),
    Const(Value),
    Bound(Bound, Number),
    MultipleOf(Number),
    MinLength(u64),
    MaxLength(u64),
    Pattern(Arc<Pattern>),
    Format(Format, String),
    MinItems(u64),
    MaxItems(u64),
    UniqueItems,
    /// Items from index `from` on.
    Items {
        from: usize,
        node: usize,
    },
    /// The first items, one schema each.
    Prefix(Vec<usize>),
    Contains {
        node: usize,
        min: u64,
        max: Option<u64>,
    },
    MinProperties(u64),
    MaxProperties(u64),
    /// `properties`, `required`, `patternProperties` and
    /// `additionalProperties` together: one pass over the members.
    Members(Box<Members>),
    PropertyNames(usize),
    DependentRequired(Vec<(String, Vec<String>)>),
    DependentSchemas(Vec<(String, usize)>),
    AllOf(Vec<usize>),
    AnyOf(Vec<usize>),
    OneOf(Vec<usize>),
    Not(usize),
    If {
        cond: usize,
        then: Option<usize>,
        otherwise: Option<usize>,
    },
    /// An index into [`Compiled::refs`].
    Ref(usize),
    UnevaluatedProperties(usize),
    UnevaluatedItems(usize),
}

impl Kw {
    /// Cheap checks first; the `unevaluated*` ones last, after every
    /// keyword whose annotations they read.
    fn rank(&self) -> u8 {
        match self {
            Kw::False | Kw::Type(_) => 0,
            Kw::Enum(_) | Kw::Const(_) => 1,
            Kw::UnevaluatedProperties(_) | Kw::UnevaluatedItems(_) => 3,
            _ => 2,
        }
    }
}

/// Base URI and dialect of a subschema.
#[derive(Debug, Clone)]
struct Scope {
    base: String,
    draft: Draft,
}

/// A reference waiting for its target.
struct Pending {
    /// Its index in `refs`.
    slot: usize,
    /// The absolute reference.
    target: String,
    /// Where the reference keyword is.
    pointer: String,
    written: String,
}

struct Compiler {
    formats: bool,
    nodes: Vec<Node>,
    /// Compiled subschemas by document pointer.
    at: HashMap<String, usize>,
    scopes: HashMap<String, Scope>,
    /// Resource URIs (no fragment) to document pointers.
    resources: HashMap<String, String>,
    /// `uri#anchor` to document pointers.
    anchors: HashMap<String, String>,
    pending: Vec<Pending>,
    refs: Vec<usize>,
    errors: Vec<SchemaError>,
}

/// Compiles `doc` in dialect `draft` (its own `$schema` already applied).
pub(super) fn compile(
    doc: &Value,
    draft: Draft,
    formats: bool,
) -> Result<Compiled, Vec<SchemaError>> {
    let mut c = Compiler {
        formats,
        nodes: Vec::new(),
        at: HashMap::new(),
        scopes: HashMap::new(),
        resources: HashMap::new(),
        anchors: HashMap::new(),
        pending: Vec::new(),
        refs: Vec::new(),
        errors: Vec::new(),
    };
    c.resources.insert(DEFAULT_BASE.to_owned(), String::new());
    c.index(doc, String::new(), DEFAULT_BASE, draft);
    let root = c.node(doc, String::new());
    while let Some(p) = c.pending.pop() {
        match c.locate(&p.target) {
            Ok(pointer) => {
                let target = match doc.pointer(&pointer) {
                    Some(v) => c.node(v, pointer),
                    None => {
                        c.errors.push(SchemaError {
                            pointer: p.pointer,
                            message: format!(
                                "reference \"{}\" does not resolve: nothing is at {pointer}",
                                p.written
                            ),
                        });
                        continue;
                    }
                };
                c.refs[p.slot] = target;
            }
            Err(why) => c.errors.push(SchemaError {
                pointer: p.pointer,
                message: format!("reference \"{}\" does not resolve: {why}", p.written),
            }),
        }
    }
    if c.errors.is_empty() {
        Ok(Compiled {
            nodes: c.nodes,
            root,
            at: c.at,
            refs: c.refs,
            draft,
        })
    } else {
        c.errors.sort_by(|a, b| a.pointer.cmp(&b.pointer));
        c.errors.dedup();
        Err(c.errors)
    }
}

/// The subschemas directly inside `o` in `draft`: pointer token(s) and value.
fn children(o: &Map<String, Value>, draft: Draft) -> Vec<(String, &Value)> {
    let mut out = Vec::new();
    for (key, value) in o {
        let mut token = String::new();
        push_token(&mut token, key);
        let key = key.as_str();
        match value {
            Value::Object(_) | Value::Bool(_) if ONE_SCHEMA.contains(&key) || key == "items" => {
                out.push((token, value))
            }
            Value::Array(list) if SCHEMA_LISTS.contains(&key) => {
                out.extend(
                    list.iter()
                        .enumerate()
                        .map(|(i, v)| (format!("{token}/{i}"), v)),
                );
            }
            Value::Object(map) if SCHEMA_MAPS.contains(&key) => {
                for (name, v) in map {
                    if v.is_object() || (v.is_boolean() && draft >= Draft::Draft6) {
                        let mut p = token.clone();
                        push_token(&mut p, name);
                        out.push((p, v));
                    }
                }
            }
            _ => {}
        }
    }
    out
}

fn id_key(draft: Draft) -> &'static str {
    if draft == Draft::Draft4 {
        "id"
    } else {
        "$id"
    }
}

impl Compiler {
    fn error(&mut self, pointer: &str, message: impl Into<String>) {
        self.errors.push(SchemaError {
            pointer: pointer.to_owned(),
            message: message.into(),
        });
    }

    /// Records the base URI and dialect of every subschema, its resources
    /// and anchors.
    fn index(&mut self, v: &Value, pointer: String, base: &str, draft: Draft) {
        let Value::Object(o) = v else {
            self.scopes.insert(
                pointer,
                Scope {
                    base: base.to_owned(),
                    draft,
                },
            );
            return;
        };
        let draft = Draft::detect(v).unwrap_or(draft);
        let mut base = base.to_owned();
        if let Some(id) = o.get(id_key(draft)).and_then(Value::as_str) {
            if let (true, Some(anchor)) = (draft <= Draft::Draft7, id.strip_prefix('#')) {
                self.anchors
                    .insert(format!("{base}#{anchor}"), pointer.clone());
            } else {
                let resolved = uri::resolve(&base, id);
                if let (Some((_, fragment)), true) =
                    (resolved.split_once('#'), draft <= Draft::Draft7)
                {
                    if !fragment.is_empty() {
                        self.anchors.insert(resolved.clone(), pointer.clone());
                    }
                }
                base = uri::strip_fragment(&resolved).to_owned();
                self.resources.insert(base.clone(), pointer.clone());
            }
        }
        if draft >= Draft::Draft201909 {
            for key in ["$anchor", "$dynamicAnchor"] {
                if let Some(anchor) = o.get(key).and_then(Value::as_str) {
                    self.anchors
                        .insert(format!("{base}#{anchor}"), pointer.clone());
                }
            }
        }
        for (token, child) in children(o, draft) {
            self.index(child, format!("{pointer}{token}"), &base, draft);
        }
        self.scopes.insert(pointer, Scope { base, draft });
    }

    /// The scope of `pointer`, or of the nearest indexed subschema around it.
    fn scope(&self, pointer: &str) -> Scope {
        let mut p = pointer;
        loop {
            if let Some(s) = self.scopes.get(p) {
                return s.clone();
            }
            match p.rfind('/') {
                Some(at) => p = &p[..at],
                None => return self.scopes[""].clone(),
            }
        }
    }

    /// The document pointer an absolute reference names.
    fn locate(&self, target: &str) -> Result<String, String> {
        let (resource, fragment) = target.split_once('#').unwrap_or((target, ""));
        let Some(root) = self.resources.get(resource) else {
            return Err(format!(
                "no schema in this document has the URI {resource} (remote schemas are never fetched; put it under `$defs`)"
            ));
        };
        if fragment.is_empty() {
            return Ok(root.clone());
        }
        if fragment.starts_with('/') {
            return Ok(format!("{root}{}", uri::percent_decode(fragment)));
        }
        self.anchors
            .get(target)
            .cloned()
            .ok_or_else(|| format!("no subschema has the anchor \"{fragment}\""))
    }

    /// The node of subschema `v` at `pointer`, compiled once.
    fn node(&mut self, v: &Value, pointer: String) -> usize {
        if let Some(&id) = self.at.get(&pointer) {
            return id;
        }
        let id = self.nodes.len();
        self.nodes.push(Node::default());
        self.at.insert(pointer.clone(), id);
        let scope = self.scope(&pointer);
        let mut kw = match v {
            Value::Bool(b) if boolean_allowed(&pointer, scope.draft) => {
                if *b {
                    Vec::new()
                } else {
                    vec![Kw::False]
                }
            }
            Value::Object(o) => self.keywords(o, &pointer, &scope),
            other => {
                let want = if scope.draft >= Draft::Draft6 {
                    "\"object\" or \"boolean\""
                } else {
                    "\"object\""
                };
                self.error(&pointer, format!("{} is not of type {want}", show(other)));
                Vec::new()
            }
        };
        kw.sort_by_key(Kw::rank);
        self.nodes[id].kw = kw;
        id
    }

    fn sub(&mut self, v: &Value, pointer: &str, key: &str) -> usize {
        let mut p = pointer.to_owned();
        push_token(&mut p, key);
        self.node(v, p)
    }

    fn keywords(&mut self, o: &Map<String, Value>, pointer: &str, scope: &Scope) -> Vec<Kw> {
        let draft = scope.draft;
        let mut kw = Vec::new();
        let mut members: Option<Members> = None;
        let at = |key: &str| {
            let mut p = pointer.to_owned();
            push_token(&mut p, key);
            p
        };
        for (key, value) in o {
            let here = at(key);
            match key.as_str() {
                "type" => {
                    if let Some(bits) = self.types(value, &here) {
                        kw.push(Kw::Type(bits));
                    }
                }
                "enum" => match value {
                    Value::Array(values) => kw.push(Kw::Enum(values.clone())),
                    other => self.not_of_type(&here, other, "array"),
                },
                "const" if draft >= Draft::Draft6 => kw.push(Kw::Const(value.clone())),
                "multipleOf" => {
                    if let Some(n) = self.number(value, &here) {
                        if n.as_f64().is_some_and(|f| f > 0.0) {
                            kw.push(Kw::MultipleOf(n));
                        } else {
                            self.error(&here, format!("{n} is not greater than 0"));
                        }
                    }
                }
                "minimum" | "maximum" => {
                    let Some(n) = self.number(value, &here) else {
                        continue;
                    };
                    let exclusive = if draft == Draft::Draft4 {
                        let flag = if key == "minimum" {
                            "exclusiveMinimum"
                        } else {
                            "exclusiveMaximum"
                        };
                        o.get(flag) == Some(&Value::Bool(true))
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
                "exclusiveMinimum" | "exclusiveMaximum" if draft == Draft::Draft4 => {
                    self.require(value.is_boolean(), &here, value, "boolean")
                }
                "exclusiveMinimum" | "exclusiveMaximum" => {
                    if let Some(n) = self.number(value, &here) {
                        let bound = if key == "exclusiveMinimum" {
                            Bound::ExclusiveMin
                        } else {
                            Bound::ExclusiveMax
                        };
                        kw.push(Kw::Bound(bound, n));
                    }
                }
                "minLength" | "maxLength" | "minItems" | "maxItems" | "minProperties"
                | "maxProperties" => {
                    let Some(n) = self.count(value, &here) else {
                        continue;
                    };
                    kw.push(match key.as_str() {
                        "minLength" => Kw::MinLength(n),
                        "maxLength" => Kw::MaxLength(n),
                        "minItems" => Kw::MinItems(n),
                        "maxItems" => Kw::MaxItems(n),
                        "minProperties" => Kw::MinProperties(n),
                        _ => Kw::MaxProperties(n),
                    });
                }
                "minContains" | "maxContains" if draft >= Draft::Draft201909 => {
                    self.count(value, &here); // applied with `contains`
                }
                "pattern" => {
                    if let Some(p) = self.pattern(value, &here) {
                        kw.push(Kw::Pattern(p));
                    }
                }
                "format" => match value {
                    Value::String(name) => {
                        if let (true, Some(f)) = (self.formats, Format::named(name, draft)) {
                            kw.push(Kw::Format(f, name.clone()));
                        }
                    }
                    other => self.not_of_type(&here, other, "string"),
                },
                "uniqueItems" => match value {
                    Value::Bool(true) => kw.push(Kw::UniqueItems),
                    Value::Bool(false) => {}
                    other => self.not_of_type(&here, other, "boolean"),
                },
                "required" => {
                    if let Some(names) = self.strings(value, &here) {
                        let m = members.get_or_insert_with(Members::default);
                        for name in names {
                            m.add(&name).required = true;
                        }
                    }
                }
                "items" => match value {
                    Value::Array(list) if draft <= Draft::Draft201909 => {
                        let nodes: Vec<usize> = list
                            .iter()
                            .enumerate()
                            .map(|(i, s)| self.sub(s, &here, &i.to_string()))
                            .collect();
                        if let Some(extra) = o.get("additionalItems") {
                            let node = self.sub(extra, pointer, "additionalItems");
                            kw.push(Kw::Items {
                                from: nodes.len(),
                                node,
                            });
                        }
                        kw.push(Kw::Prefix(nodes));
                    }
                    _ if self.is_schema(value, &here, draft) => {
                        let from = match (draft, o.get("prefixItems")) {
                            (Draft::Draft202012, Some(Value::Array(prefix))) => prefix.len(),
                            _ => 0,
                        };
                        let node = self.node(value, here);
                        kw.push(Kw::Items { from, node });
                    }
                    _ => {}
                },
                // Applied with an array `items`; otherwise only its shape matters.
                "additionalItems"
                    if draft <= Draft::Draft201909
                        && !matches!(o.get("items"), Some(Value::Array(_))) =>
                {
                    self.schema_node(value, here, draft);
                }
                "prefixItems" if draft >= Draft::Draft202012 => {
                    if let Some(nodes) = self.schema_list(value, &here, draft, false) {
                        kw.push(Kw::Prefix(nodes));
                    }
                }
                "contains" if draft >= Draft::Draft6 => {
                    if let Some(node) = self.schema_node(value, here, draft) {
                        let (mut min, mut max) = (1, None);
                        if draft >= Draft::Draft201909 {
                            if let Some(n) = o.get("minContains").and_then(Value::as_u64) {
                                min = n;
                            }
                            max = o.get("maxContains").and_then(Value::as_u64);
                        }
                        kw.push(Kw::Contains { node, min, max });
                    }
                }
                "properties" => {
                    if let Some(map) = self.schema_map(value, &here, draft) {
                        let m = members.get_or_insert_with(Members::default);
                        for (name, node) in map {
                            m.add(&name).node = Some(node);
                        }
                    }
                }
                "patternProperties" => {
                    let Some(map) = self.schema_map(value, &here, draft) else {
                        continue;
                    };
                    let mut list = Vec::new();
                    for (source, node) in map {
                        let mut p = here.clone();
                        push_token(&mut p, &source);
                        if let Some(pattern) = self.pattern(&Value::String(source), &p) {
                            list.push((pattern, node));
                        }
                    }
                    members.get_or_insert_with(Members::default).patterns = list;
                }
                "additionalProperties" => {
                    if let Some(node) = self.schema_node(value, here, draft) {
                        members.get_or_insert_with(Members::default).additional = Some(node);
                    }
                }
                "propertyNames" if draft >= Draft::Draft6 => {
                    if let Some(node) = self.schema_node(value, here, draft) {
                        kw.push(Kw::PropertyNames(node));
                    }
                }
                // Split in 2019-09, still honoured there (as other validators do).
                "dependencies" => {
                    let Some(map) = value.as_object() else {
                        self.not_of_type(&here, value, "object");
                        continue;
                    };
                    let (mut names, mut schemas) = (Vec::new(), Vec::new());
                    for (name, dep) in map {
                        let mut p = here.clone();
                        push_token(&mut p, name);
                        if dep.is_array() {
                            if let Some(list) = self.strings(dep, &p) {
                                names.push((name.clone(), list));
                            }
                        } else if self.is_schema(dep, &p, draft) {
                            schemas.push((name.clone(), self.node(dep, p)));
                        }
                    }
                    kw.push(Kw::DependentRequired(names));
                    kw.push(Kw::DependentSchemas(schemas));
                }
                "dependentRequired" if draft >= Draft::Draft201909 => {
                    let Some(map) = value.as_object() else {
                        self.not_of_type(&here, value, "object");
                        continue;
                    };
                    let mut names = Vec::new();
                    for (name, dep) in map {
                        let mut p = here.clone();
                        push_token(&mut p, name);
                        if let Some(list) = self.strings(dep, &p) {
                            names.push((name.clone(), list));
                        }
                    }
                    kw.push(Kw::DependentRequired(names));
                }
                "dependentSchemas" if draft >= Draft::Draft201909 => {
                    if let Some(map) = self.schema_map(value, &here, draft) {
                        kw.push(Kw::DependentSchemas(map));
                    }
                }
                "allOf" | "anyOf" | "oneOf" => {
                    if let Some(nodes) = self.schema_list(value, &here, draft, true) {
                        kw.push(match key.as_str() {
                            "allOf" => Kw::AllOf(nodes),
                            "anyOf" => Kw::AnyOf(nodes),
                            _ => Kw::OneOf(nodes),
                        });
                    }
                }
                "not" => {
                    if let Some(node) = self.schema_node(value, here, draft) {
                        kw.push(Kw::Not(node));
                    }
                }
                "if" if draft >= Draft::Draft7 => {
                    if let Some(cond) = self.schema_node(value, here, draft) {
                        let branch = |c: &mut Self, k: &str| c.schema_node(o.get(k)?, at(k), draft);
                        let then = branch(self, "then");
                        let otherwise = branch(self, "else");
                        kw.push(Kw::If {
                            cond,
                            then,
                            otherwise,
                        });
                    }
                }
                // Applied with `if`; alone, only its shape matters.
                "then" | "else" if draft >= Draft::Draft7 && !o.contains_key("if") => {
                    self.schema_node(value, here, draft);
                }
                "unevaluatedProperties" | "unevaluatedItems" if draft >= Draft::Draft201909 => {
                    if let Some(node) = self.schema_node(value, here, draft) {
                        kw.push(if key == "unevaluatedProperties" {
                            Kw::UnevaluatedProperties(node)
                        } else {
                            Kw::UnevaluatedItems(node)
                        });
                    }
                }
                "definitions" | "$defs" => {
                    self.schema_map(value, &here, draft);
                }
                "contentSchema" if draft >= Draft::Draft201909 => {
                    self.schema_node(value, here, draft);
                }
                "$ref" | "$recursiveRef" | "$dynamicRef" => {
                    let applies = match key.as_str() {
                        "$ref" => true,
                        "$recursiveRef" => draft == Draft::Draft201909,
                        _ => draft == Draft::Draft202012,
                    };
                    match value {
                        Value::String(r) if applies => {
                            let slot = self.refs.len();
                            self.refs.push(usize::MAX);
                            kw.push(Kw::Ref(slot));
                            let target = uri::resolve(&scope.base, r);
                            self.pending.push(Pending {
                                slot,
                                target,
                                pointer: here,
                                written: r.clone(),
                            });
                        }
                        Value::String(_) => {}
                        other => self.not_of_type(&here, other, "string"),
                    }
                }
                "$id" | "id" | "$schema" | "$anchor" | "$dynamicAnchor" | "$comment" | "title"
                | "description" | "contentMediaType" | "contentEncoding" => {
                    self.require(
                        value.is_string() || (key == "id" && draft != Draft::Draft4),
                        &here,
                        value,
                        "string",
                    );
                }
                "readOnly" | "writeOnly" | "deprecated" | "$recursiveAnchor" => {
                    self.require(value.is_boolean(), &here, value, "boolean")
                }
                "examples" if draft >= Draft::Draft6 => {
                    self.require(value.is_array(), &here, value, "array")
                }
                _ => {}
            }
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

    /// Reports `v` at `pointer` as not of type `ty` unless `ok`.
    fn require(&mut self, ok: bool, pointer: &str, v: &Value, ty: &str) {
        if !ok {
            self.not_of_type(pointer, v, ty);
        }
    }

    /// The node of `v` at `pointer` if `v` can be a schema (else says why).
    fn schema_node(&mut self, v: &Value, pointer: String, draft: Draft) -> Option<usize> {
        self.is_schema(v, &pointer, draft)
            .then(|| self.node(v, pointer))
    }

    fn not_of_type(&mut self, pointer: &str, v: &Value, ty: &str) {
        self.error(pointer, format!("{} is not of type \"{ty}\"", show(v)));
    }

    fn types(&mut self, v: &Value, pointer: &str) -> Option<u8> {
        let names: Vec<&Value> = match v {
            Value::String(_) => vec![v],
            Value::Array(list) => list.iter().collect(),
            other => {
                self.error(
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
                Some(_) => self.error(pointer, format!("{} has repeated items", show(v))),
                None => {
                    let at = if v.is_array() {
                        format!("{pointer}/{i}")
                    } else {
                        pointer.to_owned()
                    };
                    self.error(
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

    fn number(&mut self, v: &Value, pointer: &str) -> Option<Number> {
        match v {
            Value::Number(n) => Some(n.clone()),
            other => {
                self.not_of_type(pointer, other, "number");
                None
            }
        }
    }

    /// A non-negative integer (`2.0` counts from draft-06 on).
    fn count(&mut self, v: &Value, pointer: &str) -> Option<u64> {
        let whole = v.as_u64().or_else(|| {
            v.as_f64()
                .filter(|f| f.fract() == 0.0 && *f >= 0.0)
                .map(|f| f as u64)
        });
        match (whole, v) {
            (Some(n), _) => Some(n),
            (None, Value::Number(n)) if n.as_f64().is_some_and(|f| f < 0.0) => {
                self.error(pointer, format!("{n} is less than the minimum of 0"));
                None
            }
            (None, other) => {
                self.not_of_type(pointer, other, "integer");
                None
            }
        }
    }

    fn strings(&mut self, v: &Value, pointer: &str) -> Option<Vec<String>> {
        let Value::Array(list) = v else {
            self.not_of_type(pointer, v, "array");
            return None;
        };
        let mut out: Vec<String> = Vec::with_capacity(list.len());
        for (i, item) in list.iter().enumerate() {
            match item {
                Value::String(s) if out.contains(s) => {
                    self.error(pointer, format!("{} has repeated items", show(v)))
                }
                Value::String(s) => out.push(s.clone()),
                other => self.not_of_type(&format!("{pointer}/{i}"), other, "string"),
            }
        }
        Some(out)
    }

    fn pattern(&mut self, v: &Value, pointer: &str) -> Option<Arc<Pattern>> {
        let Value::String(source) = v else {
            self.not_of_type(pointer, v, "string");
            return None;
        };
        match compile_pattern(source) {
            Ok(p) => Some(p),
            Err(e) => {
                self.error(
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
    fn is_schema(&mut self, v: &Value, pointer: &str, draft: Draft) -> bool {
        match v {
            Value::Object(_) => true,
            Value::Bool(_) if boolean_allowed(pointer, draft) => true,
            other => {
                let want = if draft >= Draft::Draft6 {
                    "\"object\" or \"boolean\""
                } else {
                    "\"object\""
                };
                self.error(pointer, format!("{} is not of type {want}", show(other)));
                false
            }
        }
    }

    fn schema_list(
        &mut self,
        v: &Value,
        pointer: &str,
        draft: Draft,
        non_empty: bool,
    ) -> Option<Vec<usize>> {
        let Value::Array(list) = v else {
            self.not_of_type(pointer, v, "array");
            return None;
        };
        if non_empty && list.is_empty() {
            self.error(pointer, "[] has fewer than 1 item");
            return None;
        }
        let mut nodes = Vec::with_capacity(list.len());
        for (i, s) in list.iter().enumerate() {
            let p = format!("{pointer}/{i}");
            if self.is_schema(s, &p, draft) {
                nodes.push(self.node(s, p));
            }
        }
        Some(nodes)
    }

    fn schema_map(
        &mut self,
        v: &Value,
        pointer: &str,
        draft: Draft,
    ) -> Option<Vec<(String, usize)>> {
        let Value::Object(map) = v else {
            self.not_of_type(pointer, v, "object");
            return None;
        };
        let mut out = Vec::with_capacity(map.len());
        for (name, s) in map {
            let mut p = pointer.to_owned();
            push_token(&mut p, name);
            if self.is_schema(s, &p, draft) {
                out.push((name.clone(), self.node(s, p)));
            }
        }
        Some(out)
    }
}

/// Whether a boolean can stand for a schema at `pointer`: anywhere from
/// draft-06 on, and as `additionalProperties` or `additionalItems` before.
fn boolean_allowed(pointer: &str, draft: Draft) -> bool {
    draft >= Draft::Draft6
        || pointer.ends_with("/additionalProperties")
        || pointer.ends_with("/additionalItems")
}

/// Compiles an ECMA-262 pattern (as `new RegExp(source)` would, no flags).
fn compile_pattern(source: &str) -> Result<Arc<Pattern>, String> {
    Pattern::compile(source).map(Arc::new)
}
