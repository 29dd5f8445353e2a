//! The headers of the stateless era made from a tool's arguments: the
//! `x-mcp-header` annotations of a tool checked against the transport's
//! rules ([`tool_param_headers`]), and header values in the Base64 sentinel
//! form when they are not plain visible ASCII ([`encode_header_value`]).

use std::collections::HashSet;

use serde_json::Value;

use crate::schema::{ONE_SCHEMA, SCHEMA_LISTS, SCHEMA_MAPS};
use crate::transport::http::headers::{self, ParamHeader};

/// A header value as the stateless era sends it: as is when it is plain
/// visible ASCII (inner spaces allowed) without leading or trailing
/// spaces, else (or when it looks like the sentinel itself) the Base64
/// sentinel form `=?base64?…?=` of its UTF-8 bytes.
pub fn encode_header_value(value: &str) -> String {
    let plain = value.bytes().all(|b| (0x20..=0x7E).contains(&b))
        && !value.starts_with(' ')
        && !value.ends_with(' ')
        && !value.starts_with("=?base64?");
    if plain {
        value.to_owned()
    } else {
        format!("=?base64?{}?=", base64_encode(value.as_bytes()))
    }
}

/// Standard Base64 with padding.
pub fn base64_encode(bytes: &[u8]) -> String {
    base64::Engine::encode(&base64::engine::general_purpose::STANDARD, bytes)
}

/// Whether a header name is an RFC 9110 token (`1*tchar`).
fn is_token(name: &str) -> bool {
    !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b))
}

/// The `x-mcp-header` annotations of a tool, checked against the rules of
/// the transport: each a token, unique regardless of case, on a property
/// of type `string`, `integer` or `boolean` reachable from the root of
/// `inputSchema` through `properties` only. `Err` names the first problem.
pub(super) fn tool_param_headers(tool: &Value) -> Result<Vec<ParamHeader>, String> {
    let Some(schema) = tool.get("inputSchema") else {
        return Ok(Vec::new());
    };
    let mut found = Vec::new();
    annotations_in(schema, "", Some(&mut Vec::new()), &mut found);
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    for (pointer, path, schema) in found {
        let at = if pointer.is_empty() {
            "the root of inputSchema".to_owned()
        } else {
            format!("inputSchema{pointer}")
        };
        let Some(path) = path else {
            return Err(format!("the x-mcp-header at {at} is not on a property reachable through `properties` alone"));
        };
        let Some(name) = schema.get("x-mcp-header").and_then(Value::as_str) else {
            return Err(format!("the x-mcp-header at {at} is not a string"));
        };
        if !is_token(name) {
            return Err(format!(
                "the x-mcp-header {name:?} at {at} is not an HTTP header name token"
            ));
        }
        if !seen.insert(name.to_ascii_lowercase()) {
            return Err(format!(
                "the x-mcp-header {name:?} at {at} repeats another one (names are compared without case)"
            ));
        }
        let primitive = |t: &str| matches!(t, "string" | "integer" | "boolean");
        let typed = match schema.get("type") {
            Some(Value::String(t)) => primitive(t),
            Some(Value::Array(types)) => {
                let kinds: Vec<&str> = types
                    .iter()
                    .filter_map(Value::as_str)
                    .filter(|t| *t != "null")
                    .collect();
                kinds.len() == 1 && primitive(kinds[0]) && types.iter().all(Value::is_string)
            }
            _ => false,
        };
        if !typed {
            let shown = schema
                .get("type")
                .map_or_else(|| "no type".to_owned(), |t| format!("type {t}"));
            return Err(format!(
                "the x-mcp-header {name:?} at {at} is on a parameter with {shown}; only string, integer and boolean parameters may be mirrored"
            ));
        }
        out.push(ParamHeader {
            header: format!("{}{}", headers::PARAM_PREFIX, name.to_ascii_lowercase()),
            path,
        });
    }
    Ok(out)
}

/// Every schema holding `x-mcp-header` under `schema`: its JSON pointer,
/// its `properties` path when every step to it is a `properties` key, and
/// the schema. Values of `const`, `enum`, `default` and `examples` are data,
/// never looked into.
fn annotations_in<'a>(
    schema: &'a Value,
    pointer: &str,
    path: Option<&mut Vec<String>>,
    out: &mut Vec<(String, Option<Vec<String>>, &'a Value)>,
) {
    let Some(obj) = schema.as_object() else {
        return;
    };
    let reachable = path.as_ref().filter(|p| !p.is_empty()).map(|p| p.to_vec());
    let mut path = path;
    if obj.contains_key("x-mcp-header") {
        out.push((pointer.to_owned(), reachable, schema));
    }
    let escape = |key: &str| key.replace('~', "~0").replace('/', "~1");
    for (keyword, sub) in obj {
        let here = format!("{pointer}/{}", escape(keyword));
        match keyword.as_str() {
            "properties" => {
                for (name, property) in sub.as_object().into_iter().flatten() {
                    let at = format!("{here}/{}", escape(name));
                    match path.as_deref_mut() {
                        Some(p) => {
                            p.push(name.clone());
                            annotations_in(property, &at, Some(p), out);
                            p.pop();
                        }
                        None => annotations_in(property, &at, None, out),
                    }
                }
            }
            k if SCHEMA_MAPS.contains(&k) => {
                for (name, sub) in sub.as_object().into_iter().flatten() {
                    annotations_in(sub, &format!("{here}/{}", escape(name)), None, out);
                }
            }
            k if SCHEMA_LISTS.contains(&k) => match sub {
                Value::Array(list) => {
                    for (i, sub) in list.iter().enumerate() {
                        annotations_in(sub, &format!("{here}/{i}"), None, out);
                    }
                }
                sub => annotations_in(sub, &here, None, out),
            },
            k if ONE_SCHEMA.contains(&k) => annotations_in(sub, &here, None, out),
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn header_values_use_the_sentinel_form_when_needed() {
        assert_eq!(encode_header_value("us-west1"), "us-west1");
        assert_eq!(encode_header_value("a b"), "a b");
        assert_eq!(
            encode_header_value("Hello, 世界"),
            "=?base64?SGVsbG8sIOS4lueVjA==?="
        );
        assert_eq!(encode_header_value(" padded "), "=?base64?IHBhZGRlZCA=?=");
        assert_eq!(
            encode_header_value("line1\nline2"),
            "=?base64?bGluZTEKbGluZTI=?="
        );
        assert_eq!(
            encode_header_value("=?base64?literal?="),
            "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?="
        );
        for text in ["", "f", "fo", "foo", "foob", "fooba", "foobar", "météo ☀"] {
            let encoded = base64_encode(text.as_bytes());
            assert_eq!(
                headers::base64_decode(&encoded).unwrap(),
                text.as_bytes(),
                "{text}: {encoded}"
            );
        }
        assert_eq!(base64_encode(b"foobar"), "Zm9vYmFy");
        assert_eq!(base64_encode(b"fooba"), "Zm9vYmE=");
    }

    fn tool(properties: Value) -> Value {
        json!({"name": "t", "inputSchema": {"type": "object", "properties": properties}})
    }

    #[test]
    fn annotations_follow_the_rules() {
        let ok = tool(json!({
            "region": {"type": "string", "x-mcp-header": "Region"},
            "n": {"type": ["integer", "null"], "x-mcp-header": "N"},
            "deep": {"type": "object", "properties": {"flag": {"type": "boolean", "x-mcp-header": "Flag"}}},
            "x-mcp-header": {"type": "string", "default": {"x-mcp-header": "data, not an annotation"}}
        }));
        let list = tool_param_headers(&ok).unwrap();
        let got: Vec<(&str, Vec<&str>)> = list
            .iter()
            .map(|p| {
                (
                    p.header.as_str(),
                    p.path.iter().map(String::as_str).collect(),
                )
            })
            .collect();
        assert_eq!(
            got,
            [
                ("mcp-param-region", vec!["region"]),
                ("mcp-param-n", vec!["n"]),
                ("mcp-param-flag", vec!["deep", "flag"])
            ]
        );

        let bad = [
            (
                tool(json!({"a": {"type": "string", "x-mcp-header": "Bad Name"}})),
                "token",
            ),
            (
                tool(json!({"a": {"type": "string", "x-mcp-header": ""}})),
                "token",
            ),
            (
                tool(
                    json!({"a": {"type": "string", "x-mcp-header": "X"}, "b": {"type": "string", "x-mcp-header": "x"}}),
                ),
                "repeats",
            ),
            (
                tool(json!({"a": {"type": "number", "x-mcp-header": "A"}})),
                "number",
            ),
            (
                tool(json!({"a": {"type": "object", "x-mcp-header": "A"}})),
                "object",
            ),
            (tool(json!({"a": {"x-mcp-header": "A"}})), "no type"),
            (
                tool(
                    json!({"a": {"type": "array", "items": {"type": "string", "x-mcp-header": "A"}}}),
                ),
                "reachable",
            ),
            (
                tool(json!({"a": {"anyOf": [{"type": "string", "x-mcp-header": "A"}]}})),
                "reachable",
            ),
            (
                json!({"name": "t", "inputSchema": {"type": "object", "$defs": {"d": {"type": "string", "x-mcp-header": "D"}}}}),
                "reachable",
            ),
            (
                json!({"name": "t", "inputSchema": {"type": "object", "x-mcp-header": "Root"}}),
                "reachable",
            ),
            (
                tool(json!({"a": {"type": "string", "x-mcp-header": 7}})),
                "not a string",
            ),
        ];
        for (tool, why) in bad {
            let err = tool_param_headers(&tool).unwrap_err();
            assert!(err.contains(why), "{tool}: {err}");
        }
    }
}
