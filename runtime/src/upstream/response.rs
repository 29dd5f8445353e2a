//! The API's answer ([`ApiResponse`]) and how it becomes the tool's
//! result ([`to_output`]).
//!
//! A `2xx` answer with a JSON media type (or none) for a tool whose binding
//! has `output` (the tool has an `outputSchema`) becomes
//! [`ToolOutput::Structured`]: the parsed body, as the member `wrap` of an
//! object when the binding says so; an empty `2xx` body there is `{}`
//! (the member `wrap` absent), which the engine then checks against the
//! outputSchema like any other output. Any other `2xx` answer becomes
//! content blocks ([`ToolOutput::Content`]): JSON and `text/*` (and an
//! unlabelled body that is UTF-8) one text block, `image/*` an image block
//! and `audio/*` an audio block (base64 `data`, `mimeType`), anything else
//! an embedded resource whose `uri` is the request's URL (credentials are
//! never in it) and whose `blob` is the body in base64; an empty body one
//! text block naming the status.
//!
//! Every other answer (`4xx`, `5xx`, a redirect not followed) is a
//! [`ToolError`] (a result with `isError: true`, which the model reads):
//! method, path, status and the API's error body, at most
//! [`ERROR_BODY_LIMIT`] bytes of it, cut on a character boundary.

use base64::Engine as _;
use bytes::Bytes;
use http::{HeaderMap, Method, StatusCode};
use serde_json::{json, Value};

use super::binding::Output;
use super::body::{essence, is_json};
use crate::server::handler::tool_error::ToolError;
use crate::server::tools::tool::ToolOutput;

/// How much of an error answer's body a tool error quotes.
pub const ERROR_BODY_LIMIT: usize = 4096;

/// One answer of the API to a tool's request, after redirects and
/// retries: what [`Upstream::send`](super::Upstream::send) returns and
/// [`Upstream::output`](super::Upstream::output) maps.
#[derive(Debug, Clone)]
pub struct ApiResponse {
    /// The request's method.
    pub method: Method,
    /// The URL that answered (the last one after redirects), without the
    /// credentials (a query API key is added only on the wire).
    pub url: String,
    /// The answer's status.
    pub status: StatusCode,
    /// The answer's headers.
    pub headers: HeaderMap,
    /// The whole body (at most the configured size).
    pub body: Bytes,
}

impl ApiResponse {
    /// The essence of the answer's `Content-Type` (`application/json`),
    /// lower case, if it has one.
    pub fn media_type(&self) -> Option<String> {
        self.headers
            .get(http::header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .map(essence)
            .filter(|m| !m.is_empty())
    }

    /// `GET /pets/7`: the method and the URL's path, for messages.
    pub fn request_line(&self) -> String {
        let path = url::Url::parse(&self.url)
            .map(|u| u.path().to_owned())
            .unwrap_or_else(|_| self.url.clone());
        format!("{} {path}", self.method)
    }
}

/// The tool's result for `response`, given the binding's `output`.
pub(crate) fn to_output(
    output: Option<&Output>,
    response: ApiResponse,
) -> Result<ToolOutput, ToolError> {
    if !response.status.is_success() {
        return Err(ToolError::new(failure_message(&response)));
    }
    let media = response.media_type();
    if let Some(output) = output {
        if media.as_deref().is_some_and(|m| !is_json(m)) {
            return Err(ToolError::new(format!(
                "{} answered {} with {}, not JSON: the tool's output needs a JSON answer",
                response.request_line(),
                status_text(response.status),
                media.unwrap_or_default()
            )));
        }
        let value = if response.body.iter().all(u8::is_ascii_whitespace) {
            None
        } else {
            Some(
                serde_json::from_slice::<Value>(&response.body).map_err(|e| {
                    ToolError::new(format!(
                        "{} answered {} with a body that is not valid JSON: {e}",
                        response.request_line(),
                        status_text(response.status)
                    ))
                })?,
            )
        };
        return match (&output.wrap, value) {
            (_, None) => Ok(ToolOutput::Structured(json!({}))),
            (Some(wrap), Some(value)) => Ok(ToolOutput::Structured(json!({ wrap: value }))),
            (None, Some(value @ Value::Object(_))) => Ok(ToolOutput::Structured(value)),
            (None, Some(other)) => Err(ToolError::new(format!(
                "{} answered JSON that is not an object ({}), but the tool's output is an object",
                response.request_line(),
                kind(&other)
            ))),
        };
    }
    Ok(ToolOutput::Content(Value::Array(vec![content_block(
        &response,
        media.as_deref(),
    )])))
}

fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

fn content_block(response: &ApiResponse, media: Option<&str>) -> Value {
    let body = &response.body;
    if body.is_empty() {
        return json!({"type": "text", "text": format!("{} answered {} (no body)",
            response.request_line(), status_text(response.status))});
    }
    let b64 = || base64::engine::general_purpose::STANDARD.encode(body);
    match media {
        Some(m) if is_json(m) || m.starts_with("text/") => {
            json!({"type": "text", "text": String::from_utf8_lossy(body)})
        }
        Some(m) if m.starts_with("image/") => {
            json!({"type": "image", "data": b64(), "mimeType": m})
        }
        Some(m) if m.starts_with("audio/") => {
            json!({"type": "audio", "data": b64(), "mimeType": m})
        }
        None if std::str::from_utf8(body).is_ok() => {
            json!({"type": "text", "text": String::from_utf8_lossy(body)})
        }
        m => json!({"type": "resource", "resource": {
            "uri": response.url,
            "mimeType": m.unwrap_or("application/octet-stream"),
            "blob": b64(),
        }}),
    }
}

/// `404 Not Found`.
fn status_text(status: StatusCode) -> String {
    match status.canonical_reason() {
        Some(reason) => format!("{} {reason}", status.as_u16()),
        None => status.as_u16().to_string(),
    }
}

/// The tool error's text for a failed answer.
fn failure_message(response: &ApiResponse) -> String {
    let mut message = format!(
        "{} failed: the API answered {}",
        response.request_line(),
        status_text(response.status)
    );
    if response.status.is_redirection() {
        message.push_str(" (a redirect that was not followed)");
    }
    let body = &response.body;
    if body.is_empty() {
        return message;
    }
    match std::str::from_utf8(body) {
        Ok(text) => {
            message.push_str(": ");
            message.push_str(&bounded(text.trim(), ERROR_BODY_LIMIT));
        }
        Err(_) => message.push_str(&format!(
            " with {} bytes of {}",
            body.len(),
            response
                .media_type()
                .unwrap_or_else(|| "binary data".into())
        )),
    }
    message
}

/// `text` cut to at most `limit` bytes on a character boundary, with a
/// note saying so.
pub(crate) fn bounded(text: &str, limit: usize) -> String {
    if text.len() <= limit {
        return text.to_owned();
    }
    let mut cut = limit;
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    format!("{}… (cut at {cut} of {} bytes)", &text[..cut], text.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answer(status: u16, media: Option<&str>, body: &'static [u8]) -> ApiResponse {
        let mut headers = HeaderMap::new();
        if let Some(m) = media {
            headers.insert(http::header::CONTENT_TYPE, m.parse().unwrap());
        }
        ApiResponse {
            method: Method::GET,
            url: "http://api.test/v1/pets/7?x=1".into(),
            status: StatusCode::from_u16(status).unwrap(),
            headers,
            body: Bytes::from_static(body),
        }
    }

    #[test]
    fn json_answers_become_structured_output_wrapped_or_not() {
        let out = |wrap: Option<&str>, r| {
            to_output(
                Some(&Output {
                    wrap: wrap.map(str::to_owned),
                }),
                r,
            )
        };
        assert_eq!(
            out(None, answer(200, Some("application/json"), br#"{"a":1}"#)).unwrap(),
            ToolOutput::Structured(json!({"a": 1}))
        );
        assert_eq!(
            out(
                Some("items"),
                answer(200, Some("application/problem+json; charset=utf-8"), b"[1]")
            )
            .unwrap(),
            ToolOutput::Structured(json!({"items": [1]}))
        );
        assert_eq!(
            out(None, answer(204, None, b"")).unwrap(),
            ToolOutput::Structured(json!({}))
        );
        assert!(out(None, answer(200, Some("application/json"), b"[1]")).is_err());
        assert!(out(None, answer(200, Some("application/json"), b"{"))
            .unwrap_err()
            .message()
            .contains("not valid JSON"));
        assert!(out(None, answer(200, Some("text/html"), b"<p>"))
            .unwrap_err()
            .message()
            .contains("text/html"));
    }

    #[test]
    fn other_answers_become_content_blocks() {
        let blocks = |r| match to_output(None, r).unwrap() {
            ToolOutput::Content(Value::Array(b)) => b[0].clone(),
            other => panic!("{other:?}"),
        };
        assert_eq!(
            blocks(answer(200, Some("application/json"), br#"{"a":1}"#)),
            json!({"type": "text", "text": "{\"a\":1}"})
        );
        assert_eq!(
            blocks(answer(200, Some("image/png"), b"\x89PNG")),
            json!({"type": "image", "data": "iVBORw==", "mimeType": "image/png"})
        );
        assert_eq!(
            blocks(answer(200, Some("audio/wav"), b"RIFF"))["type"],
            "audio"
        );
        assert_eq!(
            blocks(answer(200, Some("application/pdf"), b"%PDF")),
            json!({"type": "resource", "resource": {"uri": "http://api.test/v1/pets/7?x=1",
                "mimeType": "application/pdf", "blob": "JVBERg=="}})
        );
        assert_eq!(
            blocks(answer(204, None, b""))["text"],
            "GET /v1/pets/7 answered 204 No Content (no body)"
        );
    }

    #[test]
    fn failures_are_tool_errors_with_a_bounded_body() {
        let e = to_output(
            None,
            answer(404, Some("application/json"), br#"{"error":"no pet 7"}"#),
        )
        .unwrap_err();
        assert_eq!(
            e.message(),
            r#"GET /v1/pets/7 failed: the API answered 404 Not Found: {"error":"no pet 7"}"#
        );
        let long = "é".repeat(5000);
        let cut = bounded(&long, ERROR_BODY_LIMIT);
        assert!(
            cut.ends_with("… (cut at 4096 of 10000 bytes)"),
            "{}",
            &cut[4000..]
        );
        assert_eq!(bounded("short", 10), "short");
    }
}
