//! Local `$ref`s of one schema document: finding them and resolving them to
//! the JSON pointer of their target, in time linear in the document.
//!
//! A [`RefIndex`] is built once per document: it records every `$anchor`
//! and `$id` with its pointer, in document order, and remembers each
//! reference it resolved. `#`, `#/json/pointer`, `#anchor` and `base#…`
//! (where `base` is the `$id` of a part of the document) are understood;
//! mcpgen never fetches remote schemas. Values under data keywords
//! (`enum`, `const`, `default`, `examples`) are data, not subschemas: a
//! `$ref`, `$anchor` or `$id` inside them means nothing.

use std::cell::RefCell;
use std::collections::HashMap;

use serde_json::Value;

use crate::error::pointer_token;

/// Keywords whose values are data, not subschemas.
pub const DATA_KEYWORDS: &[&str] = &["enum", "const", "default", "examples", "example"];

/// Every `$ref` string in a schema with the pointer (relative to the schema
/// root) of the `$ref` member, in document order.
pub fn collect_refs(v: &Value, at: String, out: &mut Vec<(String, String)>) {
    match v {
        Value::Object(o) => {
            for (k, child) in o {
                let p = format!("{at}/{}", pointer_token(k));
                if k == "$ref" {
                    if let Value::String(r) = child {
                        out.push((p, r.clone()));
                        continue;
                    }
                }
                if DATA_KEYWORDS.contains(&k.as_str()) {
                    continue;
                }
                collect_refs(child, p, out);
            }
        }
        Value::Array(a) => {
            for (i, child) in a.iter().enumerate() {
                collect_refs(child, format!("{at}/{i}"), out);
            }
        }
        _ => {}
    }
}

/// The anchors and identifiers of one schema document, and the
/// references resolved so far.
#[derive(Debug)]
pub struct RefIndex<'a> {
    root: &'a Value,
    /// `$anchor` name (or `$id` `#name`) → pointers, in document order.
    anchors: HashMap<String, Vec<String>>,
    /// `$id` without a trailing `#` → pointer of the first such part.
    ids: HashMap<String, String>,
    memo: RefCell<HashMap<String, Result<String, String>>>,
}

impl<'a> RefIndex<'a> {
    /// Indexes `root` (one walk over the document).
    pub fn new(root: &'a Value) -> Self {
        let mut index = RefIndex {
            root,
            anchors: HashMap::new(),
            ids: HashMap::new(),
            memo: RefCell::default(),
        };
        index.walk(root, String::new());
        index
    }

    fn walk(&mut self, v: &Value, at: String) {
        match v {
            Value::Object(o) => {
                if let Some(name) = o.get("$anchor").and_then(Value::as_str) {
                    self.anchors
                        .entry(name.to_owned())
                        .or_default()
                        .push(at.clone());
                }
                if let Some(id) = o.get("$id").and_then(Value::as_str) {
                    if let Some(name) = id.strip_prefix('#') {
                        self.anchors
                            .entry(name.to_owned())
                            .or_default()
                            .push(at.clone());
                    }
                    self.ids
                        .entry(id.trim_end_matches('#').to_owned())
                        .or_insert_with(|| at.clone());
                }
                for (k, c) in o {
                    if !DATA_KEYWORDS.contains(&k.as_str()) {
                        self.walk(c, format!("{at}/{}", pointer_token(k)));
                    }
                }
            }
            Value::Array(a) => {
                for (i, c) in a.iter().enumerate() {
                    self.walk(c, format!("{at}/{i}"));
                }
            }
            _ => {}
        }
    }

    /// The document.
    pub fn root(&self) -> &'a Value {
        self.root
    }

    /// The value at a pointer of the document.
    pub fn get(&self, pointer: &str) -> Option<&'a Value> {
        if pointer.is_empty() {
            Some(self.root)
        } else {
            self.root.pointer(pointer)
        }
    }

    /// The pointer (from the document root, with tokens as the document
    /// spells them) of what `reference` names, or why it names nothing.
    pub fn pointer(&self, reference: &str) -> Result<String, String> {
        if let Some(done) = self.memo.borrow().get(reference) {
            return done.clone();
        }
        let result = self.resolve(reference);
        self.memo
            .borrow_mut()
            .insert(reference.to_owned(), result.clone());
        result
    }

    /// The value `reference` names.
    pub fn target(&self, reference: &str) -> Result<&'a Value, String> {
        let pointer = self.pointer(reference)?;
        self.get(&pointer)
            .ok_or_else(|| format!("nothing at `#{pointer}` in this schema"))
    }

    fn resolve(&self, reference: &str) -> Result<String, String> {
        let Some(fragment) = reference.strip_prefix('#') else {
            if reference.is_empty() {
                return Ok(String::new());
            }
            let (base, frag) = reference.split_once('#').unwrap_or((reference, ""));
            let Some(at) = self.ids.get(base) else {
                return Err(format!(
                    "`{base}` is not the `$id` of any part of this schema, and mcpgen never fetches remote schemas"
                ));
            };
            return self.in_part(at, &percent_decode(frag));
        };
        self.in_part("", &percent_decode(fragment))
    }

    /// Resolves a decoded fragment inside the part of the document at `at`.
    fn in_part(&self, at: &str, fragment: &str) -> Result<String, String> {
        if fragment.is_empty() {
            return Ok(at.to_owned());
        }
        if let Some(pointer) = fragment.strip_prefix('/') {
            let mut cur = self
                .get(at)
                .ok_or_else(|| format!("nothing at `#{fragment}` in this schema"))?;
            let mut out = at.to_owned();
            for token in pointer.split('/') {
                let token = token.replace("~1", "/").replace("~0", "~");
                let (next, canonical) = match cur {
                    Value::Object(o) => (o.get(&token), pointer_token(&token)),
                    Value::Array(a) => match token.parse::<usize>() {
                        Ok(i) => (a.get(i), i.to_string()),
                        Err(_) => (None, String::new()),
                    },
                    _ => (None, String::new()),
                };
                cur = next.ok_or_else(|| format!("nothing at `#{fragment}` in this schema"))?;
                out.push('/');
                out.push_str(&canonical);
            }
            return Ok(out);
        }
        let inside =
            |p: &&String| at.is_empty() || p.as_str() == at || p.starts_with(&format!("{at}/"));
        self.anchors
            .get(fragment)
            .and_then(|list| list.iter().find(inside))
            .cloned()
            .ok_or_else(|| format!("no `$anchor` named `{fragment}` in this schema"))
    }
}

/// Resolves a `$ref` within one schema document (`#`, `#/pointer`,
/// `#anchor`, or the `$id` of a part of it); returns the target. To
/// resolve many references of one document, build a [`RefIndex`] once.
pub fn resolve_ref<'a>(root: &'a Value, reference: &str) -> Result<&'a Value, String> {
    RefIndex::new(root).target(reference)
}

fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            let hex = std::str::from_utf8(&bytes[i + 1..i + 3]).ok();
            if let Some(b) = hex.and_then(|h| u8::from_str_radix(h, 16).ok()) {
                out.push(b);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8(out).unwrap_or_else(|_| s.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn resolves_every_form_of_local_reference() {
        let schema = json!({
            "$defs": {"a/b": {"$anchor": "ab", "type": "string"}, "list": [{"type": "integer"}]},
            "properties": {"p": {"$id": "https://x.test/p", "$defs": {"q": {"$anchor": "q"}}}},
            "default": {"$anchor": "data"}
        });
        let index = RefIndex::new(&schema);
        assert_eq!(index.pointer("#").unwrap(), "");
        assert_eq!(index.pointer("#/$defs/a~1b").unwrap(), "/$defs/a~1b");
        assert_eq!(index.pointer("#/%24defs/list/0").unwrap(), "/$defs/list/0");
        assert_eq!(index.pointer("#ab").unwrap(), "/$defs/a~1b");
        assert_eq!(index.pointer("https://x.test/p").unwrap(), "/properties/p");
        assert_eq!(
            index.pointer("https://x.test/p#q").unwrap(),
            "/properties/p/$defs/q"
        );
        assert_eq!(
            index.pointer("https://x.test/p#/$defs/q").unwrap(),
            "/properties/p/$defs/q"
        );
        assert!(index
            .pointer("#data")
            .unwrap_err()
            .contains("no `$anchor` named `data`"));
        assert!(index
            .pointer("#/nope")
            .unwrap_err()
            .contains("nothing at `#/nope`"));
        assert!(index
            .pointer("https://remote.test/x")
            .unwrap_err()
            .contains("never fetches"));
        assert!(
            index.pointer("https://x.test/p#ab").is_err(),
            "an anchor outside the identified part"
        );
    }
}
