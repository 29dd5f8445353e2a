//! Local references of an OpenAPI document: `#/json/pointer`, `#anchor`,
//! `$id`-based (`/components/schemas/x#anchor`) and `$dynamicRef` to a
//! `$dynamicAnchor`, resolved to the JSON pointer of their target, with
//! chains of pure `$ref` aliases followed and their cycles refused.
//! Remote references are never fetched. Values under data keywords
//! (`example`, `examples`, `enum`, `default`, `const`) are never read as
//! references (the index skips them).

use std::collections::HashMap;

use serde_json::Value;

use crate::error::pointer_token;
use crate::manifest::refs::{RefIndex, DATA_KEYWORDS};

/// Why a reference names nothing usable: the message and its hint.
pub(crate) type Why = (String, &'static str);

const REMOTE_HINT: &str = "bundle the document so every reference is local (e.g. `redocly bundle` or `swagger-cli bundle`); mcpgen never fetches remote references";
const DANGLING_HINT: &str = "define what the reference names, or correct the reference";
const CYCLE_HINT: &str = "one of the aliases must say what it is instead of referring on";

/// The document's anchors and identifiers, indexed once.
#[derive(Debug)]
pub(crate) struct Resolver<'a> {
    index: RefIndex<'a>,
    dynamic: HashMap<String, String>,
}

impl<'a> Resolver<'a> {
    /// Indexes `root` (one walk over the document).
    pub(crate) fn new(root: &'a Value) -> Self {
        let mut dynamic = HashMap::new();
        walk_dynamic(root, String::new(), &mut dynamic);
        Resolver {
            index: RefIndex::new(root),
            dynamic,
        }
    }

    /// The value at a pointer.
    pub(crate) fn get(&self, pointer: &str) -> Option<&'a Value> {
        self.index.get(pointer)
    }

    /// The pointer a reference names (one step, no alias followed).
    pub(crate) fn pointer(&self, reference: &str) -> Result<String, Why> {
        match self.index.pointer(reference) {
            Ok(p) => {
                if self.get(&p).is_some() {
                    Ok(p)
                } else {
                    Err((format!("dangling reference `{reference}`: nothing at `#{p}`"), DANGLING_HINT))
                }
            }
            Err(why) if !reference.starts_with('#') && why.contains("never fetches") => Err((
                format!("remote reference `{reference}` is not fetched: it names no part of this document"),
                REMOTE_HINT,
            )),
            Err(why) => Err((
                format!(
                    "dangling reference `{reference}`: {}",
                    why.replace("in this schema", "in this document")
                ),
                DANGLING_HINT,
            )),
        }
    }

    /// The pointer of a `$dynamicRef`'s `$dynamicAnchor` (or, failing
    /// that, of what it names as a plain reference).
    pub(crate) fn dynamic(&self, reference: &str) -> Result<String, Why> {
        if let Some(name) = reference.strip_prefix('#') {
            if let Some(p) = self.dynamic.get(name) {
                return Ok(p.clone());
            }
        }
        self.pointer(reference)
    }

    /// Follows `reference` and then every pure alias (an object whose only
    /// member is a string `$ref`) to the pointer of a value that is not
    /// one.
    pub(crate) fn target(&self, reference: &str) -> Result<String, Why> {
        let mut p = self.pointer(reference)?;
        let mut seen = vec![p.clone()];
        loop {
            let Some(Value::Object(o)) = self.get(&p) else {
                return Ok(p);
            };
            let (1, Some(Value::String(next))) = (o.len(), o.get("$ref")) else {
                return Ok(p);
            };
            p = self.pointer(next)?;
            if seen.contains(&p) {
                seen.push(p);
                let chain: Vec<String> = seen.iter().map(|s| format!("#{s}")).collect();
                return Err((
                    format!("cycle of `$ref` aliases: {}", chain.join(" → ")),
                    CYCLE_HINT,
                ));
            }
            seen.push(p.clone());
        }
    }

    /// A value that may be a `$ref` (a parameter, response, request body,
    /// path item): the value it stands for, and the pointer of that.
    pub(crate) fn follow(
        &self,
        value: &'a Value,
        at: &str,
    ) -> Result<(&'a Value, String), (String, Why)> {
        match value.get("$ref") {
            None => Ok((value, at.to_owned())),
            Some(Value::String(r)) => {
                let p = self
                    .target(r)
                    .map_err(|why| (format!("{at}/$ref"), why))?;
                let v = self.get(&p).unwrap_or(&Value::Null);
                Ok((v, p))
            }
            Some(_) => Err((
                format!("{at}/$ref"),
                (
                    "`$ref` is not a string".to_owned(),
                    "quote the reference: `$ref: '#/components/...'` (unquoted, YAML reads `#…` as a comment)",
                ),
            )),
        }
    }
}

fn walk_dynamic(v: &Value, at: String, out: &mut HashMap<String, String>) {
    match v {
        Value::Object(o) => {
            if let Some(name) = o.get("$dynamicAnchor").and_then(Value::as_str) {
                out.entry(name.to_owned()).or_insert_with(|| at.clone());
            }
            for (k, c) in o {
                if !DATA_KEYWORDS.contains(&k.as_str()) {
                    walk_dynamic(c, format!("{at}/{}", pointer_token(k)), out);
                }
            }
        }
        Value::Array(a) => {
            for (i, c) in a.iter().enumerate() {
                walk_dynamic(c, format!("{at}/{i}"), out);
            }
        }
        _ => {}
    }
}
