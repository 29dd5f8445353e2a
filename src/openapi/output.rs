//! The success response: which JSON schema, if any, becomes the tool's
//! `outputSchema`.
//!
//! The lowest 2xx response (`200`…`299`, then `2XX`) whose content is
//! JSON (`application/json` or `+json`) gives it, and only when every
//! declared 2xx response that has content has JSON content; otherwise
//! (or without any 2xx content) the tool has no `outputSchema`. A JSON
//! response without a schema admits anything (`{}`). Swagger 2.0: the 2xx
//! responses with a `schema`, when the operation produces JSON.

use serde_json::{json, Value};

use super::body::is_json;
use super::document::{child, Diag, Version};
use super::resolve::Resolver;

/// The success response's schema in the document: a reference to it
/// (value and pointer) or `{}` when the JSON response has none.
pub(crate) fn success<'a>(
    op: &'a Value,
    op_at: &str,
    version: Version,
    produces: &[String],
    res: &Resolver<'a>,
    diag: &mut Diag,
) -> Option<(Value, String)> {
    let Some(Value::Object(responses)) = op.get("responses") else {
        return None;
    };
    let responses_at = child(op_at, "responses");
    let mut codes: Vec<(u32, &String)> = responses
        .keys()
        .filter_map(|k| {
            let order = match k.as_str() {
                "2XX" | "2xx" => 300,
                _ => k.parse::<u32>().ok().filter(|c| (200..300).contains(c))?,
            };
            Some((order, k))
        })
        .collect();
    codes.sort();
    let mut chosen: Option<(Value, String)> = None;
    for (_, code) in codes {
        let (resp, at) = match res.follow(&responses[code], &child(&responses_at, code)) {
            Ok(found) => found,
            Err((p, (message, hint))) => {
                diag.error(&p, &message, hint);
                return None;
            }
        };
        if version == Version::Swagger2 {
            let Some(schema) = resp.get("schema") else {
                continue;
            };
            let json = produces.is_empty() || produces.iter().any(|p| is_json(p));
            if !json {
                return None;
            }
            if chosen.is_none() {
                chosen = Some((schema.clone(), child(&at, "schema")));
            }
            continue;
        }
        let Some(Value::Object(content)) = resp.get("content") else {
            continue;
        };
        if content.is_empty() {
            continue;
        }
        let json_type = content
            .keys()
            .find(|k| {
                is_json(k) && k.split(';').next().unwrap_or_default().trim() == "application/json"
            })
            .or_else(|| content.keys().find(|k| is_json(k)));
        // A 2xx response with content but none of it JSON: no output schema.
        let mt = json_type?;
        if chosen.is_none() {
            let media_at = child(&child(&at, "content"), mt);
            chosen = Some(match content[mt].get("schema") {
                Some(s) => (s.clone(), child(&media_at, "schema")),
                None => (json!({}), media_at),
            });
        }
    }
    chosen
}
