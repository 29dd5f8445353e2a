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
use super::{meta, uri, Draft, SchemaError, ONE_SCHEMA, SCHEMA_LISTS, SCHEMA_MAPS};

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

/// The base URI of a document without `$id`.
const DEFAULT_BASE: &str = "json-schema:///";

/// A compiled document.
#[derive(Debug)]
pub(super) struct Compiled {
    pub nodes: Vec<Node>,
    pub root: usize,
    /// Every compiled subschema of the document by its JSON pointer.
    pub at: HashMap<String, usize>,
    /// The target node of each `Kw::Ref` and `Kw::DynamicRef`.
    pub refs: Vec<usize>,
    pub draft: Draft,
    /// What `$dynamicRef` and `$recursiveRef` need at evaluation; `None`
    /// when the schema has neither (then evaluation tracks no scope).
    pub dynamic: Option<Box<Dynamic>>,
}

impl Compiled {
    /// Whether 1.0 is an integer (every draft but 4).
    pub(crate) fn integral_floats(&self) -> bool {
        self.draft != Draft::Draft4
    }
}

/// The tables of dynamic references: each node's schema resource (the
/// dynamic scope is the list of resources evaluation went through), and
/// where each resource's dynamic anchors are.
#[derive(Debug, Default)]
pub(super) struct Dynamic {
    /// The schema resource of each node.
    pub resource_of: Vec<u32>,
    /// `$dynamicAnchor` name to the node it marks in each resource.
    pub anchors: HashMap<String, HashMap<u32, usize>>,
    /// Resources whose root has `"$recursiveAnchor": true`, to that root.
    pub recursive: HashMap<u32, usize>,
    /// The references whose target moves with the dynamic scope, by slot.
    pub lookups: HashMap<usize, Lookup>,
}

/// How a dynamic reference finds its target in the dynamic scope.
#[derive(Debug)]
pub(super) enum Lookup {
    /// The outermost resource with a `$dynamicAnchor` of this name.
    Anchor(String),
    /// The outermost resource whose root has `"$recursiveAnchor": true`.
    Recursive,
}

/// A subschema that is only a `$ref` leading, through other such
/// subschemas, back to itself (`"x": {"$ref": "#/$defs/x"}`) constrains
/// nothing: it becomes `true`, as other validators read it, rather than
/// failing at the depth limit whatever the instance.
fn loosen_reference_loops(nodes: &mut [Node], refs: &[usize]) {
    for start in 0..nodes.len() {
        let mut seen = vec![start];
        let mut at = start;
        while let [Kw::Ref(slot)] = nodes[at].kw.as_slice() {
            at = refs[*slot];
            if seen.contains(&at) {
                for n in seen {
                    nodes[n].kw.clear();
                }
                break;
            }
            seen.push(at);
        }
    }
}

/// The checks of one subschema, in evaluation order.
#[derive(Debug, Default)]
pub(super) struct Node {
    pub kw: Vec<Kw>,
}

impl Node {
    /// Whether this is the `false` schema (nothing is valid).
    pub(crate) fn is_false(&self) -> bool {
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
    pub(crate) fn find(&self, key: &str) -> Option<&Named> {
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
    pub(crate) fn covers(&self, key: &str) -> bool {
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
    /// `$dynamicRef` or `$recursiveRef`: an index into [`Compiled::refs`]
    /// (the static target) and maybe into [`Dynamic::lookups`].
    DynamicRef(usize),
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

/// Base URI, dialect and schema resource of a subschema.
#[derive(Debug, Clone)]
struct Scope {
    base: String,
    draft: Draft,
    resource: u32,
}

/// Where a subschema is: its document (0 is the one compiled, the others
/// are documents it refers to) and its JSON pointer there.
type Loc = (u32, String);

/// A reference waiting for its target.
struct Pending {
    /// Its index in `refs`.
    slot: usize,
    /// The absolute reference.
    target: String,
    /// Where the reference keyword is.
    doc: u32,
    pointer: String,
    written: String,
    /// The dialect of the referring schema (that of a document it loads
    /// without `$schema`).
    draft: Draft,
    kind: RefKind,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum RefKind {
    Static,
    Dynamic,
    Recursive,
}

struct Compiler<'a> {
    formats: bool,
    /// Whether the validation vocabulary applies (a meta-schema may leave
    /// it out).
    validation: bool,
    /// The documents indexed so far (the compiled one first).
    docs: Vec<&'a Value>,
    /// The URI each document was loaded under ("" for the compiled one).
    doc_names: Vec<String>,
    /// Documents a reference may name, by URI, beside the built-in
    /// meta-schemas.
    preloaded: &'a [(String, Arc<Value>)],
    /// The document being compiled or indexed.
    doc: u32,
    nodes: Vec<Node>,
    /// Compiled subschemas by location.
    at: HashMap<Loc, usize>,
    scopes: HashMap<Loc, Scope>,
    /// Resource URIs (no fragment) to locations.
    resources: HashMap<String, Loc>,
    /// Resource base URIs, numbered.
    bases: HashMap<String, u32>,
    /// `uri#anchor` to locations (`$anchor`, `$dynamicAnchor`, and the
    /// plain-name `$id`s of older drafts).
    anchors: HashMap<String, Loc>,
    /// The `uri#name` of each `$dynamicAnchor`, with its resource.
    dynamic_anchors: HashMap<String, (u32, Loc)>,
    /// Resources whose root has `"$recursiveAnchor": true`.
    recursive_roots: Vec<(u32, Loc)>,
    pending: Vec<Pending>,
    refs: Vec<usize>,
    lookups: HashMap<usize, Lookup>,
    /// Whether a `$dynamicRef` or `$recursiveRef` was compiled.
    has_dynamic: bool,
    errors: Vec<SchemaError>,
}

/// Compiles `doc` in dialect `draft` (its own `$schema` already applied);
/// references may also name the `preloaded` documents and the drafts'
/// meta-schemas.
pub(super) fn compile(
    doc: &Value,
    draft: Draft,
    formats: bool,
    validation: bool,
    preloaded: &[(String, Arc<Value>)],
) -> Result<Compiled, Vec<SchemaError>> {
    let mut c = Compiler {
        formats,
        validation,
        docs: vec![doc],
        doc_names: vec![String::new()],
        preloaded,
        doc: 0,
        nodes: Vec::new(),
        at: HashMap::new(),
        scopes: HashMap::new(),
        resources: HashMap::new(),
        bases: HashMap::new(),
        anchors: HashMap::new(),
        dynamic_anchors: HashMap::new(),
        recursive_roots: Vec::new(),
        pending: Vec::new(),
        refs: Vec::new(),
        lookups: HashMap::new(),
        has_dynamic: false,
        errors: Vec::new(),
    };
    c.resources
        .insert(DEFAULT_BASE.to_owned(), (0, String::new()));
    c.index(doc, String::new(), DEFAULT_BASE, draft);
    let root = c.node(doc, String::new());
    let mut anchors_done = 0;
    loop {
        while let Some(p) = c.pending.pop() {
            c.resolve(p);
        }
        // Every dynamic anchor may become a target at evaluation.
        if !c.has_dynamic {
            break;
        }
        let mut targets: Vec<Loc> = c.dynamic_anchors.values().map(|(_, l)| l.clone()).collect();
        targets.extend(c.recursive_roots.iter().map(|(_, l)| l.clone()));
        targets.sort();
        if targets.len() == anchors_done && c.pending.is_empty() {
            break;
        }
        anchors_done = targets.len();
        for loc in targets {
            c.node_at(&loc);
        }
        if c.pending.is_empty() {
            break;
        }
    }
    if !c.errors.is_empty() {
        c.errors.sort_by(|a, b| a.pointer.cmp(&b.pointer));
        c.errors.dedup();
        return Err(c.errors);
    }
    let dynamic = c.has_dynamic.then(|| {
        let mut d = Dynamic {
            resource_of: vec![0; c.nodes.len()],
            lookups: std::mem::take(&mut c.lookups),
            ..Dynamic::default()
        };
        for (loc, &node) in &c.at {
            d.resource_of[node] = c.scope_of(loc).resource;
        }
        for (uri, (resource, loc)) in &c.dynamic_anchors {
            let name = uri.rsplit_once('#').map_or("", |(_, n)| n);
            if let Some(&node) = c.at.get(loc) {
                d.anchors
                    .entry(name.to_owned())
                    .or_default()
                    .insert(*resource, node);
            }
        }
        for (resource, loc) in &c.recursive_roots {
            if let Some(&node) = c.at.get(loc) {
                d.recursive.insert(*resource, node);
            }
        }
        Box::new(d)
    });
    let at =
        c.at.into_iter()
            .filter(|((doc, _), _)| *doc == 0)
            .map(|((_, pointer), node)| (pointer, node))
            .collect();
    let mut nodes = c.nodes;
    loosen_reference_loops(&mut nodes, &c.refs);
    Ok(Compiled {
        nodes,
        root,
        at,
        refs: c.refs,
        draft,
        dynamic,
    })
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

impl<'a> Compiler<'a> {
    fn error(&mut self, pointer: &str, message: impl Into<String>) {
        let pointer = match self.doc {
            0 => pointer.to_owned(),
            doc => format!("{}#{pointer}", self.doc_names[doc as usize]),
        };
        self.errors.push(SchemaError {
            pointer,
            message: message.into(),
        });
    }

    /// The number of the resource with base URI `base`.
    fn resource(&mut self, base: &str) -> u32 {
        let next = self.bases.len() as u32;
        *self.bases.entry(base.to_owned()).or_insert(next)
    }

    /// Records the base URI and dialect of every subschema, its resources
    /// and anchors.
    fn index(&mut self, v: &Value, pointer: String, base: &str, draft: Draft) {
        let Value::Object(o) = v else {
            let resource = self.resource(base);
            self.scopes.insert(
                (self.doc, pointer),
                Scope {
                    base: base.to_owned(),
                    draft,
                    resource,
                },
            );
            return;
        };
        let draft = Draft::detect(v).unwrap_or(draft);
        let mut base = base.to_owned();
        let loc = (self.doc, pointer.clone());
        // Up to draft-07, `$ref` makes its siblings (`$id` too) be ignored.
        let id = match o.get(id_key(draft)).and_then(Value::as_str) {
            Some(_) if draft <= Draft::Draft7 && o.get("$ref").is_some_and(Value::is_string) => {
                None
            }
            id => id,
        };
        if let Some(id) = id {
            if let (true, Some(anchor)) = (draft <= Draft::Draft7, id.strip_prefix('#')) {
                self.anchors.insert(format!("{base}#{anchor}"), loc.clone());
            } else {
                let resolved = uri::resolve(&base, id);
                if let (Some((_, fragment)), true) =
                    (resolved.split_once('#'), draft <= Draft::Draft7)
                {
                    if !fragment.is_empty() {
                        self.anchors.insert(resolved.clone(), loc.clone());
                    }
                }
                base = uri::strip_fragment(&resolved).to_owned();
                self.resources.insert(base.clone(), loc.clone());
            }
        }
        let resource = self.resource(&base);
        if draft >= Draft::Draft201909 {
            if let Some(anchor) = o.get("$anchor").and_then(Value::as_str) {
                self.anchors.insert(format!("{base}#{anchor}"), loc.clone());
            }
        }
        if draft == Draft::Draft202012 {
            if let Some(anchor) = o.get("$dynamicAnchor").and_then(Value::as_str) {
                let uri = format!("{base}#{anchor}");
                self.anchors.insert(uri.clone(), loc.clone());
                self.dynamic_anchors.insert(uri, (resource, loc.clone()));
            }
        }
        if draft == Draft::Draft201909 && o.get("$recursiveAnchor") == Some(&Value::Bool(true)) {
            // Only a resource's root can be the target of a `$recursiveRef`.
            if self.resources.get(&base) == Some(&loc) {
                self.recursive_roots.push((resource, loc.clone()));
            }
        }
        for (token, child) in children(o, draft) {
            self.index(child, format!("{pointer}{token}"), &base, draft);
        }
        self.scopes.insert(
            loc,
            Scope {
                base,
                draft,
                resource,
            },
        );
    }

    /// The scope of `loc`, or of the nearest indexed subschema around it.
    fn scope_of(&self, loc: &Loc) -> Scope {
        let (doc, pointer) = loc;
        let mut p = pointer.as_str();
        loop {
            if let Some(s) = self.scopes.get(&(*doc, p.to_owned())) {
                return s.clone();
            }
            match p.rfind('/') {
                Some(at) => p = &p[..at],
                None => return self.scopes[&(*doc, String::new())].clone(),
            }
        }
    }

    /// The scope of `pointer` in the current document.
    fn scope(&self, pointer: &str) -> Scope {
        self.scope_of(&(self.doc, pointer.to_owned()))
    }

    /// Indexes the preloaded or built-in document with URI `uri`, if
    /// there is one.
    fn load(&mut self, uri: &str, draft: Draft) -> bool {
        let preloaded = self.preloaded;
        let doc: &'a Value = match preloaded
            .iter()
            .find(|(u, _)| uri::strip_fragment(u) == uri)
        {
            Some((_, doc)) => doc,
            None => match meta::document(uri) {
                Some(doc) => doc,
                None => return false,
            },
        };
        let id = self.docs.len() as u32;
        self.docs.push(doc);
        self.doc_names.push(uri.to_owned());
        let saved = std::mem::replace(&mut self.doc, id);
        self.resources.insert(uri.to_owned(), (id, String::new()));
        self.index(doc, String::new(), uri, draft);
        self.doc = saved;
        true
    }

    /// The location an absolute reference names, loading the document it
    /// is in if that is a preloaded or built-in one.
    fn locate(&mut self, target: &str, draft: Draft) -> Result<Loc, String> {
        let (resource, fragment) = target.split_once('#').unwrap_or((target, ""));
        if !self.resources.contains_key(resource) && !self.load(resource, draft) {
            return Err(format!(
                "no schema in this document has the URI {resource} (remote schemas are never fetched; put it under `$defs`)"
            ));
        }
        let (doc, root) = self.resources[resource].clone();
        if fragment.is_empty() {
            return Ok((doc, root));
        }
        if fragment.starts_with('/') {
            return Ok((doc, format!("{root}{}", uri::percent_decode(fragment))));
        }
        self.anchors
            .get(target)
            .cloned()
            .ok_or_else(|| format!("no subschema has the anchor \"{fragment}\""))
    }

    /// Finds and compiles the target of reference `p`.
    fn resolve(&mut self, p: Pending) {
        let saved = std::mem::replace(&mut self.doc, p.doc);
        let located = self.locate(&p.target, p.draft);
        match located {
            Ok(loc) => match self.node_at(&loc) {
                Some(target) => {
                    self.refs[p.slot] = target;
                    match p.kind {
                        RefKind::Dynamic if self.dynamic_anchors.contains_key(&p.target) => {
                            let name = p.target.rsplit_once('#').map_or("", |(_, n)| n);
                            self.lookups.insert(p.slot, Lookup::Anchor(name.to_owned()));
                        }
                        RefKind::Recursive
                            if self.recursive_roots.iter().any(|(_, l)| *l == loc) =>
                        {
                            self.lookups.insert(p.slot, Lookup::Recursive);
                        }
                        _ => {}
                    }
                }
                None => self.error(
                    &p.pointer,
                    format!(
                        "reference \"{}\" does not resolve: nothing is at {}",
                        p.written, loc.1
                    ),
                ),
            },
            Err(why) => self.error(
                &p.pointer,
                format!("reference \"{}\" does not resolve: {why}", p.written),
            ),
        }
        self.doc = saved;
    }

    /// The node at `loc`, compiled once; `None` if nothing is there.
    fn node_at(&mut self, loc: &Loc) -> Option<usize> {
        let docs = &self.docs;
        let v: &'a Value = docs[loc.0 as usize].pointer(&loc.1)?;
        let saved = std::mem::replace(&mut self.doc, loc.0);
        let node = self.node(v, loc.1.clone());
        self.doc = saved;
        Some(node)
    }

    /// The node of subschema `v` at `pointer`, compiled once.
    fn node(&mut self, v: &Value, pointer: String) -> usize {
        let loc = (self.doc, pointer);
        if let Some(&id) = self.at.get(&loc) {
            return id;
        }
        let id = self.nodes.len();
        self.nodes.push(Node::default());
        self.at.insert(loc.clone(), id);
        let pointer = loc.1;
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
            if !self.validation && VALIDATION.contains(&key.as_str()) {
                continue;
            }
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
                    let kind = match key.as_str() {
                        "$ref" => Some(RefKind::Static),
                        "$recursiveRef" if draft == Draft::Draft201909 => Some(RefKind::Recursive),
                        "$dynamicRef" if draft == Draft::Draft202012 => Some(RefKind::Dynamic),
                        _ => None,
                    };
                    match value {
                        Value::String(r) if kind.is_some() => {
                            let kind = kind.unwrap_or(RefKind::Static);
                            let slot = self.refs.len();
                            self.refs.push(usize::MAX);
                            kw.push(if kind == RefKind::Static {
                                Kw::Ref(slot)
                            } else {
                                self.has_dynamic = true;
                                Kw::DynamicRef(slot)
                            });
                            let target = uri::resolve(&scope.base, r);
                            self.pending.push(Pending {
                                slot,
                                target,
                                doc: self.doc,
                                pointer: here,
                                written: r.clone(),
                                draft,
                                kind,
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
