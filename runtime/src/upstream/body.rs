//! The request body from the body argument, by the binding's media type:
//! JSON (`application/json`, `*/*+json`) as the value's JSON text;
//! `application/x-www-form-urlencoded` as the object's members with each
//! member's `encoding` (style `form` exploded unless said otherwise; see
//! `style.rs` for `deepObject` nesting and how scalars are written);
//! `multipart/form-data` as one part per member (strings as text parts,
//! numbers and booleans as their JSON text, arrays and objects as
//! `application/json` parts, and a member whose encoding names a
//! `contentType` that is neither text nor JSON as a file part: its value
//! is a base64 string, decoded, sent with the member's name as filename;
//! an array of such strings is one part each); any other media type takes
//! the raw bytes as a base64 string (`text/*`: the string itself).

use base64::Engine as _;
use serde_json::Value;

use super::binding::{Body, Encoding, Style};
use super::style;

/// A body ready to send: its bytes and `Content-Type`.
#[derive(Debug)]
pub(crate) struct Encoded {
    pub(crate) content_type: String,
    pub(crate) bytes: Vec<u8>,
}

/// Whether a media type is JSON (`application/json` or a `+json` type).
pub(crate) fn is_json(media_type: &str) -> bool {
    let essence = essence(media_type);
    essence == "application/json" || essence.ends_with("+json")
}

/// A media type without parameters, lower case.
pub(crate) fn essence(media_type: &str) -> String {
    media_type
        .split(';')
        .next()
        .unwrap_or_default()
        .trim()
        .to_ascii_lowercase()
}

/// The body of `value` as `body` says; `Err` says what is wrong with the
/// argument.
pub(crate) fn encode(body: &Body, value: &Value) -> Result<Encoded, String> {
    let kind = essence(&body.media_type);
    let bytes = if is_json(&kind) {
        serde_json::to_vec(value).map_err(|e| e.to_string())?
    } else if kind == "application/x-www-form-urlencoded" {
        form(body, value)?.into_bytes()
    } else if kind == "multipart/form-data" {
        let boundary = boundary();
        let bytes = multipart(body, value, &boundary)?;
        return Ok(Encoded {
            content_type: format!("multipart/form-data; boundary={boundary}"),
            bytes,
        });
    } else if kind.starts_with("text/") {
        style::scalar_text(value).into_bytes()
    } else {
        match value {
            Value::String(s) => decode_base64(s).ok_or_else(|| {
                format!(
                    "the argument {:?} must be the body's bytes in base64 ({})",
                    body.argument, body.media_type
                )
            })?,
            _ => {
                return Err(format!(
                    "the argument {:?} must be a base64 string of the body's bytes ({})",
                    body.argument, body.media_type
                ))
            }
        }
    };
    Ok(Encoded {
        content_type: body.media_type.clone(),
        bytes,
    })
}

/// Standard base64, padded or not (whitespace ignored); URL-safe too.
pub(crate) fn decode_base64(text: &str) -> Option<Vec<u8>> {
    use base64::engine::general_purpose::{GeneralPurpose, GeneralPurposeConfig};
    use base64::engine::DecodePaddingMode;
    let lenient =
        GeneralPurposeConfig::new().with_decode_padding_mode(DecodePaddingMode::Indifferent);
    let compact: String = text.chars().filter(|c| !c.is_ascii_whitespace()).collect();
    GeneralPurpose::new(&base64::alphabet::STANDARD, lenient)
        .decode(&compact)
        .or_else(|_| GeneralPurpose::new(&base64::alphabet::URL_SAFE, lenient).decode(&compact))
        .ok()
}

fn members<'a>(
    body: &Body,
    value: &'a Value,
) -> Result<&'a serde_json::Map<String, Value>, String> {
    value.as_object().ok_or_else(|| {
        format!(
            "the argument {:?} must be an object: its members are the fields of the {} body",
            body.argument, body.media_type
        )
    })
}

/// `a=1&b=x%20y`: each member as its encoding says.
fn form(body: &Body, value: &Value) -> Result<String, String> {
    let mut pieces = Vec::new();
    for (name, member) in members(body, value)? {
        let encoding = body.encoding.get(name);
        let style = encoding.and_then(|e| e.style).unwrap_or(Style::Form);
        let explode = encoding
            .and_then(|e| e.explode)
            .unwrap_or(style == Style::Form);
        let allow_reserved = encoding.is_some_and(|e| e.allow_reserved);
        pieces.extend(style::query(style, explode, allow_reserved, name, member));
    }
    Ok(pieces.join("&"))
}

/// A boundary no part contains (random, 32 hex digits).
fn boundary() -> String {
    let a = crate::random::u64().unwrap_or(0x6d63_7067_656e_2d31);
    let b = crate::random::u64().unwrap_or(0x7570_7374_7265_616d);
    format!("mcpgen-{a:016x}{b:016x}")
}

/// Whether a part's media type is text or JSON (sent as its text).
fn textual(media_type: &str) -> bool {
    let essence = essence(media_type);
    essence.starts_with("text/") || is_json(&essence)
}

fn multipart(body: &Body, value: &Value, boundary: &str) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    for (name, member) in members(body, value)? {
        let encoding: Option<&Encoding> = body.encoding.get(name);
        let declared = encoding.and_then(|e| e.content_type.as_deref());
        match (declared, member) {
            (Some(kind), Value::Array(items)) if !textual(kind) => {
                for item in items {
                    file_part(&mut out, boundary, name, kind, item)?;
                }
            }
            (Some(kind), item) if !textual(kind) => {
                file_part(&mut out, boundary, name, kind, item)?;
            }
            (declared, Value::Array(_) | Value::Object(_)) => {
                let kind = declared.unwrap_or("application/json");
                let text = serde_json::to_string(member).map_err(|e| e.to_string())?;
                part(&mut out, boundary, name, None, Some(kind), text.as_bytes());
            }
            (declared, scalar) => {
                let text = style::scalar_text(scalar);
                part(&mut out, boundary, name, None, declared, text.as_bytes());
            }
        }
    }
    out.extend_from_slice(format!("--{boundary}--\r\n").as_bytes());
    Ok(out)
}

fn file_part(
    out: &mut Vec<u8>,
    boundary: &str,
    name: &str,
    kind: &str,
    value: &Value,
) -> Result<(), String> {
    let bytes = value.as_str().and_then(decode_base64).ok_or_else(|| {
        format!("the member {name:?} must be a base64 string of the file's bytes ({kind})")
    })?;
    part(out, boundary, name, Some(name), Some(kind), &bytes);
    Ok(())
}

/// One part: its `Content-Disposition` (names with `"`, CR and LF escaped
/// as browsers do), its `Content-Type` if any, its bytes.
fn part(
    out: &mut Vec<u8>,
    boundary: &str,
    name: &str,
    filename: Option<&str>,
    kind: Option<&str>,
    bytes: &[u8],
) {
    let quote = |s: &str| {
        s.replace('"', "%22")
            .replace('\r', "%0D")
            .replace('\n', "%0A")
    };
    let mut head = format!(
        "--{boundary}\r\nContent-Disposition: form-data; name=\"{}\"",
        quote(name)
    );
    if let Some(file) = filename {
        head.push_str(&format!("; filename=\"{}\"", quote(file)));
    }
    head.push_str("\r\n");
    if let Some(kind) = kind {
        head.push_str(&format!("Content-Type: {kind}\r\n"));
    }
    head.push_str("\r\n");
    out.extend_from_slice(head.as_bytes());
    out.extend_from_slice(bytes);
    out.extend_from_slice(b"\r\n");
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use std::collections::BTreeMap;

    fn body(media_type: &str, encoding: BTreeMap<String, Encoding>) -> Body {
        Body {
            argument: "body".into(),
            media_type: media_type.into(),
            required: true,
            encoding,
        }
    }

    #[test]
    fn forms_write_members_by_their_encoding() {
        let mut encoding = BTreeMap::new();
        encoding.insert(
            "metadata".to_owned(),
            Encoding {
                content_type: None,
                style: Some(Style::DeepObject),
                explode: Some(true),
                allow_reserved: false,
            },
        );
        encoding.insert(
            "tags".to_owned(),
            Encoding {
                content_type: None,
                style: Some(Style::PipeDelimited),
                explode: None,
                allow_reserved: false,
            },
        );
        let b = body("application/x-www-form-urlencoded", encoding);
        let value = json!({"amount": 3, "live": true, "name": "a b&c", "ids": [1, 2],
                           "metadata": {"k": {"n": "v"}}, "tags": ["x", "y"]});
        let out = encode(&b, &value).unwrap();
        assert_eq!(
            String::from_utf8(out.bytes).unwrap(),
            "amount=3&live=true&name=a%20b%26c&ids=1&ids=2&metadata[k][n]=v&tags=x%7Cy"
        );
        assert_eq!(out.content_type, "application/x-www-form-urlencoded");
        assert!(encode(&b, &json!([1])).unwrap_err().contains("object"));
    }

    #[test]
    fn raw_bodies_are_base64_unless_text() {
        let b = body("application/octet-stream", BTreeMap::new());
        assert_eq!(
            encode(&b, &json!("AAEC/w==")).unwrap().bytes,
            [0, 1, 2, 255]
        );
        assert_eq!(encode(&b, &json!("AAEC_w")).unwrap().bytes, [0, 1, 2, 255]);
        assert!(encode(&b, &json!("not base64!")).is_err());
        let t = body("text/plain; charset=utf-8", BTreeMap::new());
        assert_eq!(
            encode(&t, &json!("héllo")).unwrap().bytes,
            "héllo".as_bytes()
        );
        let j = body("application/merge-patch+json", BTreeMap::new());
        assert_eq!(
            encode(&j, &json!({"a": null})).unwrap().bytes,
            br#"{"a":null}"#
        );
    }
}
