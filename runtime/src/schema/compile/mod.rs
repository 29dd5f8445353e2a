//! Compiling a schema document into a graph of nodes, one per subschema,
//! each a list of keyword checks. The document is first indexed (the base
//! URI and dialect of every subschema, `$id` resources and anchors:
//! `index.rs`), then compiled from the root (`keywords.rs`, reading each
//! keyword's value with `values.rs`); references are resolved afterwards,
//! compiling their targets on demand, so recursive schemas become cycles
//! in the graph (`nodes.rs`). Every keyword's value is checked on the way,
//! as the dialect's meta-schema would, and every problem is kept with its
//! JSON pointer.

mod index;
mod keywords;
mod nodes;
mod values;

pub(super) use nodes::{Bound, Compiled, Kw, Lookup, Members};

use std::collections::HashMap;
use std::sync::Arc;

use serde_json::Value;

use super::json::{push_token, show};
use super::{Draft, SchemaError};
use index::{Index, Loc, Scope};
use nodes::{loosen_reference_loops, Dynamic, Node};
use values::boolean_allowed;

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

/// The state of one compilation: what indexing found, the nodes compiled
/// so far, the references waiting for their targets and the problems.
struct Compiler<'a> {
    formats: bool,
    /// Whether the validation vocabulary applies (a meta-schema may leave
    /// it out).
    validation: bool,
    index: Index<'a>,
    /// The document being compiled.
    doc: u32,
    nodes: Vec<Node>,
    /// Compiled subschemas by location.
    at: HashMap<Loc, usize>,
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
        index: Index::new(doc, draft, preloaded),
        doc: 0,
        nodes: Vec::new(),
        at: HashMap::new(),
        pending: Vec::new(),
        refs: Vec::new(),
        lookups: HashMap::new(),
        has_dynamic: false,
        errors: Vec::new(),
    };
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
        let mut targets: Vec<Loc> = c
            .index
            .dynamic_anchors
            .values()
            .map(|(_, l)| l.clone())
            .collect();
        targets.extend(c.index.recursive_roots.iter().map(|(_, l)| l.clone()));
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
            d.resource_of[node] = c.index.scope_of(loc).resource;
        }
        for (uri, (resource, loc)) in &c.index.dynamic_anchors {
            let name = uri.rsplit_once('#').map_or("", |(_, n)| n);
            if let Some(&node) = c.at.get(loc) {
                d.anchors
                    .entry(name.to_owned())
                    .or_default()
                    .insert(*resource, node);
            }
        }
        for (resource, loc) in &c.index.recursive_roots {
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

impl<'a> Compiler<'a> {
    /// Records a problem at `pointer` (prefixed with the URI of the
    /// document when that is not the one compiled).
    fn error(&mut self, pointer: &str, message: impl Into<String>) {
        let pointer = match self.doc {
            0 => pointer.to_owned(),
            doc => format!("{}#{pointer}", self.index.doc_names[doc as usize]),
        };
        self.errors.push(SchemaError {
            pointer,
            message: message.into(),
        });
    }

    /// The scope of `pointer` in the current document.
    fn scope(&self, pointer: &str) -> Scope {
        self.index.scope_of(&(self.doc, pointer.to_owned()))
    }

    /// Finds and compiles the target of reference `p`.
    fn resolve(&mut self, p: Pending) {
        let saved = std::mem::replace(&mut self.doc, p.doc);
        let located = self.index.locate(&p.target, p.draft);
        match located {
            Ok(loc) => match self.node_at(&loc) {
                Some(target) => {
                    self.refs[p.slot] = target;
                    match p.kind {
                        RefKind::Dynamic if self.index.dynamic_anchors.contains_key(&p.target) => {
                            let name = p.target.rsplit_once('#').map_or("", |(_, n)| n);
                            self.lookups.insert(p.slot, Lookup::Anchor(name.to_owned()));
                        }
                        RefKind::Recursive
                            if self.index.recursive_roots.iter().any(|(_, l)| *l == loc) =>
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
        let docs = &self.index.docs;
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
            Value::Object(o) => keywords::keywords(self, o, &pointer, &scope),
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

    /// The node of `v`, member `key` of the object at `pointer`.
    fn sub(&mut self, v: &Value, pointer: &str, key: &str) -> usize {
        let mut p = pointer.to_owned();
        push_token(&mut p, key);
        self.node(v, p)
    }
}
