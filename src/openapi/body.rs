//! The request body: OpenAPI 3's `requestBody` (`$ref` followed), or
//! Swagger 2.0's `body` parameter or `formData` parameters, as one schema
//! and the binding's media type, `required` and per-member `encoding`.
//!
//! Of several media types the first `application/json` is taken, then
//! any `+json` type, then `application/x-www-form-urlencoded`, then
//! `multipart/form-data`, then the first other one. JSON, form and
//! multipart bodies keep their schema; a `text/*` body is a string and
//! any other a base64 string of the raw bytes. Multipart members that are
//! binary get `contentType: application/octet-stream` unless the document
//! sets one. Swagger 2.0 `formData` parameters make an object (multipart
//! when one is a `type: file` or the operation consumes only multipart,
//! else form-urlencoded), arrays styled by their `collectionFormat`.

use std::collections::BTreeMap;

use mcpgen_runtime::upstream::{Encoding, Style};
use serde_json::{json, Map, Value};

use super::document::{child, Diag};
use super::params::{collection_format, parse_style, swagger_schema, Declared};
use super::resolve::Resolver;
use super::schema::Schemas;

/// A request body, its argument not yet named.
#[derive(Debug)]
pub(crate) struct RequestBody {
    /// The body's schema.
    pub schema: Value,
    /// The media type sent.
    pub media_type: String,
    /// Whether the operation requires it.
    pub required: bool,
    /// Per-member encoding.
    pub encoding: BTreeMap<String, Encoding>,
}

const FORM: &str = "application/x-www-form-urlencoded";
const MULTIPART: &str = "multipart/form-data";
const OCTETS: &str = "application/octet-stream";

/// A media type without parameters, lower case.
fn essence(media_type: &str) -> String {
    media_type
        .split(';')
        .next()
        .unwrap_or_default()
        .trim()
        .to_ascii_lowercase()
}

/// Whether a media type is JSON (`application/json` or `+json`).
pub(crate) fn is_json(media_type: &str) -> bool {
    let e = essence(media_type);
    e == "application/json" || e.ends_with("+json")
}

/// How much a media type is preferred for a body (lower first).
fn preference(media_type: &str) -> u8 {
    let e = essence(media_type);
    if e == "application/json" {
        0
    } else if e.ends_with("+json") {
        1
    } else if e == FORM {
        2
    } else if e == MULTIPART {
        3
    } else {
        4
    }
}

/// The preferred of several media types (first of equals).
pub(crate) fn pick<'k>(types: impl Iterator<Item = &'k str>) -> Option<&'k str> {
    let mut best: Option<&str> = None;
    for t in types {
        if best.is_none_or(|b| preference(t) < preference(b)) {
            best = Some(t);
        }
    }
    best
}

/// The schema of a body that is not JSON, a form or multipart.
/// A required one is never empty (a required value never is).
fn raw_schema(media_type: &str, required: bool) -> Option<Value> {
    let e = essence(media_type);
    let mut schema = if preference(media_type) < 4 {
        return None;
    } else if e.starts_with("text/") {
        json!({"type": "string"})
    } else {
        json!({"type": "string", "contentEncoding": "base64", "pattern": crate::openapi::schema::BASE64_PATTERN})
    };
    if required {
        schema["minLength"] = json!(1);
    }
    Some(schema)
}

/// OpenAPI 3's `requestBody` of an operation.
pub(crate) fn request_body(
    op: &Value,
    op_at: &str,
    res: &Resolver,
    schemas: &mut Schemas,
    diag: &mut Diag,
) -> Option<RequestBody> {
    let raw = op.get("requestBody")?;
    let (rb, at) = match res.follow(raw, &child(op_at, "requestBody")) {
        Ok(found) => found,
        Err((p, (message, hint))) => {
            diag.error(&p, &message, hint);
            return None;
        }
    };
    let Some(Value::Object(content)) = rb.get("content") else {
        return None;
    };
    let media_type = pick(content.keys().map(String::as_str))?.to_owned();
    let media = &content[&media_type];
    let media_at = child(&child(&at, "content"), &media_type);
    let schema = match raw_schema(&media_type, rb.get("required") == Some(&Value::Bool(true))) {
        Some(s) => s,
        None => match media.get("schema") {
            Some(s) => schemas.convert(s, &child(&media_at, "schema"), diag),
            None => json!({}),
        },
    };
    let mut encoding = BTreeMap::new();
    let kind = essence(&media_type);
    if kind == FORM || kind == MULTIPART {
        if let Some(Value::Object(enc)) = media.get("encoding") {
            for (name, e) in enc {
                encoding.insert(
                    name.clone(),
                    Encoding {
                        content_type: e
                            .get("contentType")
                            .and_then(Value::as_str)
                            .map(str::to_owned),
                        style: parse_style(e.get("style")),
                        explode: e.get("explode").and_then(Value::as_bool),
                        allow_reserved: e.get("allowReserved") == Some(&Value::Bool(true)),
                    },
                );
            }
        }
        if kind == MULTIPART {
            if let Some(s) = media.get("schema") {
                for member in binary_members(s, res) {
                    let e = encoding.entry(member).or_insert_with(empty_encoding);
                    e.content_type.get_or_insert_with(|| OCTETS.to_owned());
                }
            }
        }
    }
    Some(RequestBody {
        schema,
        media_type,
        required: rb.get("required") == Some(&Value::Bool(true)),
        encoding,
    })
}

fn empty_encoding() -> Encoding {
    Encoding {
        content_type: None,
        style: None,
        explode: None,
        allow_reserved: false,
    }
}

/// The properties of an object schema (references followed) that hold
/// bytes: `format: binary`, `type: file`, or arrays of them.
fn binary_members(schema: &Value, res: &Resolver) -> Vec<String> {
    let deref = |v: &Value| -> Option<Value> {
        match v.get("$ref").and_then(Value::as_str) {
            Some(r) => res.target(r).ok().and_then(|p| res.get(&p)).cloned(),
            None => Some(v.clone()),
        }
    };
    let bytes = |v: &Value| {
        v.get("format") == Some(&json!("binary")) || v.get("type") == Some(&json!("file"))
    };
    let Some(root) = deref(schema) else {
        return Vec::new();
    };
    let Some(Value::Object(props)) = root.get("properties") else {
        return Vec::new();
    };
    props
        .iter()
        .filter(|(_, p)| {
            deref(p).is_some_and(|p| {
                bytes(&p) || p.get("items").and_then(deref).is_some_and(|i| bytes(&i))
            })
        })
        .map(|(name, _)| name.clone())
        .collect()
}

/// Swagger 2.0's `body` or `formData` parameters of an operation.
pub(crate) fn swagger_body(
    declared: &[Declared],
    consumes: &[String],
    schemas: &mut Schemas,
    diag: &mut Diag,
) -> Option<RequestBody> {
    if let Some(b) = declared.iter().find(|d| d.place == "body") {
        let media_type = pick(consumes.iter().map(String::as_str))
            .unwrap_or("application/json")
            .to_owned();
        let schema = match raw_schema(
            &media_type,
            b.value.get("required") == Some(&Value::Bool(true)),
        ) {
            Some(s) => s,
            None => match b.value.get("schema") {
                Some(s) => schemas.convert(s, &child(&b.at, "schema"), diag),
                None => json!({}),
            },
        };
        return Some(RequestBody {
            schema,
            media_type,
            required: b.value.get("required") == Some(&Value::Bool(true)),
            encoding: BTreeMap::new(),
        });
    }
    let form: Vec<&Declared> = declared.iter().filter(|d| d.place == "formData").collect();
    if form.is_empty() {
        return None;
    }
    let has_file = form
        .iter()
        .any(|d| d.value.get("type") == Some(&json!("file")));
    let says = |t: &str| consumes.iter().any(|c| essence(c) == t);
    let multipart = has_file || (says(MULTIPART) && !says(FORM));
    let mut properties = Map::new();
    let mut required = Vec::new();
    let mut encoding = BTreeMap::new();
    for d in form {
        let schema = schemas.convert(&swagger_schema(d.value), &d.at, diag);
        properties.insert(d.name.clone(), schema);
        if d.value.get("required") == Some(&Value::Bool(true)) {
            required.push(json!(d.name));
        }
        let mut e = empty_encoding();
        if multipart && d.value.get("type") == Some(&json!("file")) {
            e.content_type = Some(OCTETS.to_owned());
        }
        if d.value.get("type") == Some(&json!("array")) {
            let format = d.value.get("collectionFormat").and_then(Value::as_str);
            let (s, x) = collection_format(format, Style::Form, &d.at, diag);
            e.style = Some(s);
            e.explode = Some(x);
        }
        if e != empty_encoding() {
            encoding.insert(d.name.clone(), e);
        }
    }
    let any_required = !required.is_empty();
    let mut schema = json!({"type": "object", "properties": properties});
    if any_required {
        schema["required"] = Value::Array(required);
    }
    Some(RequestBody {
        schema,
        media_type: if multipart { MULTIPART } else { FORM }.to_owned(),
        required: any_required,
        encoding,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_is_preferred_then_form_then_multipart() {
        let types = ["application/xml", MULTIPART, FORM, "application/vnd.x+json"];
        assert_eq!(pick(types.iter().copied()), Some("application/vnd.x+json"));
        assert_eq!(
            pick(["text/plain", MULTIPART, FORM].iter().copied()),
            Some(FORM)
        );
        assert_eq!(
            pick(["application/xml", "text/plain"].iter().copied()),
            Some("application/xml")
        );
        assert_eq!(
            raw_schema("text/plain; charset=utf-8", false),
            Some(json!({"type": "string"}))
        );
        assert_eq!(
            raw_schema(OCTETS, false),
            Some(
                json!({"type": "string", "contentEncoding": "base64", "pattern": crate::openapi::schema::BASE64_PATTERN})
            )
        );
        assert!(is_json("application/problem+json; charset=utf-8"));
    }
}
