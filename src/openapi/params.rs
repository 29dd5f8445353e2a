//! An operation's parameters: path-level ones overridden by the
//! operation's own (same name and place), `$ref`s followed, then each made
//! an argument of the tool and a [`Parameter`] of the binding.
//!
//! Left out: the headers OpenAPI says to ignore (`Accept`,
//! `Content-Type`, `Authorization`, any case). Swagger 2.0 `body` and
//! `formData` parameters are handed to [`super::body`].
//!
//! A parameter's schema admits only what its place can carry: a string
//! that is a path parameter or required is never empty (`minLength: 1`),
//! and a header or cookie string holds no control characters (a
//! `pattern`, next to an existing one through `allOf`).
//!
//! Style and explode: OpenAPI 3's `style`/`explode`, defaulting to
//! `simple` (path, header) or `form` (query, cookie), explode true for
//! `form` only. Swagger 2.0's `collectionFormat`: `csv` (the default) the
//! place's default style without explode, `ssv` `spaceDelimited`, `pipes`
//! `pipeDelimited`, `multi` `form` with explode; `tsv` has no OpenAPI 3
//! equivalent and is sent as `csv`, with a warning.

use mcpgen_runtime::upstream::{Location, Parameter, Style};
use serde_json::{json, Map, Value};

use super::document::{child, Diag, Version};
use super::resolve::Resolver;
use super::schema::{is_string, Schemas};

/// The pattern of a header or cookie string: no control characters.
pub(crate) const NO_CONTROL: &str = "^[^\\u0000-\\u001f\\u007f]*$";

/// A parameter as declared, `$ref` followed.
#[derive(Debug, Clone)]
pub(crate) struct Declared<'a> {
    /// The parameter object.
    pub value: &'a Value,
    /// Its pointer.
    pub at: String,
    /// Its wire name.
    pub name: String,
    /// Its `in`.
    pub place: String,
}

/// One argument of the tool made from a parameter.
#[derive(Debug)]
pub(crate) struct Argument {
    /// The property schema.
    pub schema: Value,
    /// The binding's parameter (its `argument` is the property name).
    pub binding: Parameter,
}

/// The parameters of an operation: path-level first, replaced by the
/// operation's own of the same name and place.
pub(crate) fn gather<'a>(
    lists: &[(&'a Value, String)],
    res: &Resolver<'a>,
    diag: &mut Diag,
) -> Vec<Declared<'a>> {
    let mut out: Vec<Declared<'a>> = Vec::new();
    for (list, at) in lists {
        let Value::Array(items) = list else { continue };
        for (i, item) in items.iter().enumerate() {
            let item_at = child(at, &i.to_string());
            let (value, vat) = match res.follow(item, &item_at) {
                Ok(found) => found,
                Err((p, (message, hint))) => {
                    diag.error(&p, &message, hint);
                    continue;
                }
            };
            let (Some(name), Some(place)) = (
                value.get("name").and_then(Value::as_str),
                value.get("in").and_then(Value::as_str),
            ) else {
                diag.error(&vat, "a parameter needs a `name` and an `in`", "add both");
                continue;
            };
            let d = Declared {
                value,
                at: vat,
                name: name.to_owned(),
                place: place.to_owned(),
            };
            match out
                .iter_mut()
                .find(|o| o.name == d.name && o.place == d.place)
            {
                Some(slot) => *slot = d,
                None => out.push(d),
            }
        }
    }
    out
}

fn location(place: &str) -> Option<Location> {
    Some(match place {
        "path" => Location::Path,
        "query" => Location::Query,
        "header" => Location::Header,
        "cookie" => Location::Cookie,
        _ => return None,
    })
}

/// The order in which places claim argument names.
pub(crate) fn rank(l: Location) -> u8 {
    match l {
        Location::Path => 0,
        Location::Query => 1,
        Location::Header => 2,
        Location::Cookie => 3,
    }
}

fn place_name(l: Location) -> &'static str {
    match l {
        Location::Path => "path",
        Location::Query => "query",
        Location::Header => "header",
        Location::Cookie => "cookie",
    }
}

fn style(text: &str) -> Option<Style> {
    Some(match text {
        "simple" => Style::Simple,
        "label" => Style::Label,
        "matrix" => Style::Matrix,
        "form" => Style::Form,
        "spaceDelimited" => Style::SpaceDelimited,
        "pipeDelimited" => Style::PipeDelimited,
        "deepObject" => Style::DeepObject,
        _ => return None,
    })
}

/// A style name of an encoding object or parameter, if known.
pub(crate) fn parse_style(v: Option<&Value>) -> Option<Style> {
    v.and_then(Value::as_str).and_then(style)
}

/// Style and explode of a Swagger 2.0 `collectionFormat`.
pub(crate) fn collection_format(
    format: Option<&str>,
    default_style: Style,
    at: &str,
    diag: &mut Diag,
) -> (Style, bool) {
    match format.unwrap_or("csv") {
        "ssv" => (Style::SpaceDelimited, false),
        "pipes" => (Style::PipeDelimited, false),
        "multi" => (Style::Form, true),
        "tsv" => {
            diag.warn(
                &child(at, "collectionFormat"),
                "`collectionFormat: tsv` has no OpenAPI 3 equivalent; values are sent comma-separated (csv)",
                "check what the API accepts, and use csv or multi if it can",
            );
            (default_style, false)
        }
        _ => (default_style, false),
    }
}

/// The schema of a Swagger 2.0 non-body parameter (its own keywords).
pub(crate) fn swagger_schema(p: &Value) -> Value {
    let mut m = Map::new();
    if let Value::Object(o) = p {
        for (k, v) in o {
            match k.as_str() {
                "name" | "in" | "required" | "collectionFormat" | "allowEmptyValue" => {}
                "items" => {
                    m.insert(k.clone(), swagger_schema(v));
                }
                _ => {
                    m.insert(k.clone(), v.clone());
                }
            }
        }
    }
    Value::Object(m)
}

/// Whether a header is one OpenAPI says to ignore.
fn ignored_header(name: &str) -> bool {
    ["accept", "content-type", "authorization"].contains(&name.to_ascii_lowercase().as_str())
}

/// The arguments of the non-body parameters, in the order path, query,
/// header, cookie (argument names are claimed by the caller in this
/// order: `binding.argument` holds the wire name until then).
pub(crate) fn arguments(
    declared: &[Declared],
    version: Version,
    schemas: &mut Schemas,
    diag: &mut Diag,
) -> Vec<Argument> {
    let mut out = Vec::new();
    for d in declared {
        if d.place == "body" || d.place == "formData" {
            continue;
        }
        let Some(loc) = location(&d.place) else {
            diag.warn(
                &child(&d.at, "in"),
                &format!(
                    "unknown parameter location `{}`; the parameter is left out",
                    d.place
                ),
                "use path, query, header or cookie",
            );
            continue;
        };
        if loc == Location::Header && ignored_header(&d.name) {
            continue;
        }
        let required = loc == Location::Path || d.value.get("required") == Some(&Value::Bool(true));
        let default_style = match loc {
            Location::Path | Location::Header => Style::Simple,
            _ => Style::Form,
        };
        let mut content_type = None;
        let (mut schema, style, explode) = if version == Version::Swagger2 {
            let schema = schemas.convert(&swagger_schema(d.value), &d.at, diag);
            let format = d.value.get("collectionFormat").and_then(Value::as_str);
            let (s, e) = collection_format(format, default_style, &d.at, diag);
            (schema, s, e)
        } else {
            let schema = if let Some(s) = d.value.get("schema") {
                schemas.convert(s, &child(&d.at, "schema"), diag)
            } else if let Some(Value::Object(content)) = d.value.get("content") {
                match content.iter().next() {
                    Some((mt, media)) => {
                        content_type = Some(mt.clone());
                        let mat = child(&child(&d.at, "content"), mt);
                        match media.get("schema") {
                            Some(s) => schemas.convert(s, &child(&mat, "schema"), diag),
                            None => json!({}),
                        }
                    }
                    None => json!({}),
                }
            } else {
                json!({})
            };
            let s = match d.value.get("style") {
                None => default_style,
                Some(v) => parse_style(Some(v)).unwrap_or_else(|| {
                    diag.warn(
                        &child(&d.at, "style"),
                        &format!("unknown style {v}; the default is used"),
                        "use one of simple, label, matrix, form, spaceDelimited, pipeDelimited, deepObject",
                    );
                    default_style
                }),
            };
            let e = d
                .value
                .get("explode")
                .and_then(Value::as_bool)
                .unwrap_or(s == Style::Form);
            (schema, s, e)
        };
        if let (Some(desc), Value::Object(m)) = (d.value.get("description"), &mut schema) {
            if !m.contains_key("description") && !m.contains_key("$ref") {
                m.insert("description".into(), desc.clone());
            }
        }
        restrict(&mut schema, loc, required);
        let allow_reserved =
            loc == Location::Query && d.value.get("allowReserved") == Some(&Value::Bool(true));
        out.push(Argument {
            schema,
            binding: Parameter {
                argument: d.name.clone(),
                name: d.name.clone(),
                location: loc,
                style,
                explode,
                allow_reserved,
                required,
                content_type,
            },
        });
    }
    out.sort_by_key(|a| rank(a.binding.location));
    out
}

/// The place name used by the clash rule.
pub(crate) fn clash_label(l: Location) -> &'static str {
    place_name(l)
}

/// Narrows a parameter's schema to what its place can carry.
pub(crate) fn restrict(schema: &mut Value, loc: Location, required: bool) {
    // A required array is never empty: an empty one writes no value at
    // all in a query, a header or a cookie, so the parameter would be
    // missing.
    if required && schema.get("type").and_then(Value::as_str) == Some("array") {
        if let Value::Object(m) = schema {
            if m.get("minItems").and_then(Value::as_u64).unwrap_or(0) < 1 {
                m.insert("minItems".into(), json!(1));
            }
        }
        return;
    }
    if !is_string(schema) {
        return;
    }
    let Value::Object(m) = schema else { return };
    if loc == Location::Path || required {
        let short = m.get("minLength").and_then(Value::as_u64).unwrap_or(0) < 1;
        if short {
            m.insert("minLength".into(), json!(1));
        }
    }
    if matches!(loc, Location::Header | Location::Cookie) {
        if m.contains_key("pattern") {
            let extra = json!({ "pattern": NO_CONTROL });
            match m.get_mut("allOf") {
                Some(Value::Array(list)) => list.push(extra),
                _ => {
                    m.insert("allOf".into(), json!([extra]));
                }
            }
        } else {
            m.insert("pattern".into(), json!(NO_CONTROL));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::openapi::document::parse;

    #[test]
    fn places_restrict_strings() {
        let mut path = json!({"type": "string"});
        restrict(&mut path, Location::Path, true);
        assert_eq!(path, json!({"type": "string", "minLength": 1}));
        let mut header = json!({"type": "string", "pattern": "^v[0-9]+$"});
        restrict(&mut header, Location::Header, false);
        assert_eq!(
            header,
            json!({"type": "string", "pattern": "^v[0-9]+$", "allOf": [{"pattern": NO_CONTROL}]})
        );
        let mut number = json!({"type": "integer"});
        restrict(&mut number, Location::Path, true);
        assert_eq!(number, json!({"type": "integer"}));
    }

    #[test]
    fn collection_formats_map_to_styles() {
        let d = parse("{}", "t.json").unwrap();
        let mut diag = Diag::new(&d);
        assert_eq!(
            collection_format(None, Style::Form, "", &mut diag),
            (Style::Form, false)
        );
        assert_eq!(
            collection_format(Some("csv"), Style::Simple, "", &mut diag),
            (Style::Simple, false)
        );
        assert_eq!(
            collection_format(Some("ssv"), Style::Form, "", &mut diag),
            (Style::SpaceDelimited, false)
        );
        assert_eq!(
            collection_format(Some("pipes"), Style::Form, "", &mut diag),
            (Style::PipeDelimited, false)
        );
        assert_eq!(
            collection_format(Some("multi"), Style::Form, "", &mut diag),
            (Style::Form, true)
        );
        assert!(diag.warnings.is_empty());
        assert_eq!(
            collection_format(Some("tsv"), Style::Form, "/p", &mut diag),
            (Style::Form, false)
        );
        assert_eq!(diag.warnings.len(), 1);
    }
}
