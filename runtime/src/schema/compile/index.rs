//! The first pass over a schema document and the documents it refers to:
//! the base URI, dialect and schema resource of every subschema, the
//! `$id` resources and the anchors, so that a reference can be located
//! before (or without) its target being compiled.

use std::collections::HashMap;
use std::sync::Arc;

use serde_json::{Map, Value};

use crate::schema::json::push_token;
use crate::schema::{meta, uri, Draft, ONE_SCHEMA, SCHEMA_LISTS, SCHEMA_MAPS};

/// The base URI of a document without `$id`.
const DEFAULT_BASE: &str = "json-schema:///";

/// Base URI, dialect and schema resource of a subschema.
#[derive(Debug, Clone)]
pub(super) struct Scope {
    pub base: String,
    pub draft: Draft,
    pub resource: u32,
}

/// Where a subschema is: its document (0 is the one compiled, the others
/// are documents it refers to) and its JSON pointer there.
pub(super) type Loc = (u32, String);

/// What indexing found in every document loaded so far.
pub(super) struct Index<'a> {
    /// The documents indexed so far (the compiled one first).
    pub docs: Vec<&'a Value>,
    /// The URI each document was loaded under ("" for the compiled one).
    pub doc_names: Vec<String>,
    /// Documents a reference may name, by URI, beside the built-in
    /// meta-schemas.
    preloaded: &'a [(String, Arc<Value>)],
    scopes: HashMap<Loc, Scope>,
    /// Resource URIs (no fragment) to locations.
    resources: HashMap<String, Loc>,
    /// Resource base URIs, numbered.
    bases: HashMap<String, u32>,
    /// `uri#anchor` to locations (`$anchor`, `$dynamicAnchor`, and the
    /// plain-name `$id`s of older drafts).
    anchors: HashMap<String, Loc>,
    /// The `uri#name` of each `$dynamicAnchor`, with its resource.
    pub dynamic_anchors: HashMap<String, (u32, Loc)>,
    /// Resources whose root has `"$recursiveAnchor": true`.
    pub recursive_roots: Vec<(u32, Loc)>,
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

impl<'a> Index<'a> {
    /// Indexes `doc` (document 0) in dialect `draft`; references may also
    /// name the `preloaded` documents and the drafts' meta-schemas.
    pub(super) fn new(doc: &'a Value, draft: Draft, preloaded: &'a [(String, Arc<Value>)]) -> Self {
        let mut index = Index {
            docs: vec![doc],
            doc_names: vec![String::new()],
            preloaded,
            scopes: HashMap::new(),
            resources: HashMap::new(),
            bases: HashMap::new(),
            anchors: HashMap::new(),
            dynamic_anchors: HashMap::new(),
            recursive_roots: Vec::new(),
        };
        index
            .resources
            .insert(DEFAULT_BASE.to_owned(), (0, String::new()));
        index.index(doc, 0, String::new(), DEFAULT_BASE, draft);
        index
    }

    /// The number of the resource with base URI `base`.
    fn resource(&mut self, base: &str) -> u32 {
        let next = self.bases.len() as u32;
        *self.bases.entry(base.to_owned()).or_insert(next)
    }

    /// Records the base URI and dialect of every subschema, its resources
    /// and anchors.
    fn index(&mut self, v: &Value, doc: u32, pointer: String, base: &str, draft: Draft) {
        let Value::Object(o) = v else {
            let resource = self.resource(base);
            self.scopes.insert(
                (doc, pointer),
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
        let loc = (doc, pointer.clone());
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
            self.index(child, doc, format!("{pointer}{token}"), &base, draft);
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
    pub(super) fn scope_of(&self, loc: &Loc) -> Scope {
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
        self.resources.insert(uri.to_owned(), (id, String::new()));
        self.index(doc, id, String::new(), uri, draft);
        true
    }

    /// The location an absolute reference names, loading the document it
    /// is in if that is a preloaded or built-in one.
    pub(super) fn locate(&mut self, target: &str, draft: Draft) -> Result<Loc, String> {
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
}
