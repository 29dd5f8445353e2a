//! A request's [`Reply`] as text: JSON-RPC results and errors, and the
//! `tools/call` results written straight into one buffer (text, structured
//! and content outputs, failures), with the members a modern result
//! appends (`resultType`, `_meta.serverInfo`).

use serde_json::{json, Map, Value};

use crate::jsonrpc::{self, RpcError};
use crate::revision::meta;
use crate::schema::Doc;

/// A reply to one request: the message text and, for an error, its code
/// (transports map some codes to statuses).
#[derive(Debug, Clone, PartialEq)]
pub struct Reply {
    /// The serialised JSON-RPC response.
    pub text: String,
    /// The error code when the response is an error.
    pub error: Option<i64>,
    /// Whether the request was refused before any method ran (bad `_meta`,
    /// unsupported version, invalid message): HTTP answers these `400`.
    pub rejected: bool,
    /// Whether it is a `CallToolResult` with `isError: true`.
    pub(crate) tool_error: bool,
}

impl Reply {
    /// A result's response `text`.
    pub(crate) fn ok(text: String) -> Self {
        Self {
            text,
            error: None,
            rejected: false,
            tool_error: false,
        }
    }

    pub(crate) fn error(id: &Value, error: &RpcError) -> Self {
        Self {
            text: jsonrpc::error_response(id, error),
            error: Some(error.code),
            rejected: false,
            tool_error: false,
        }
    }

    pub(crate) fn rejection(id: &Value, error: &RpcError) -> Self {
        Self {
            rejected: true,
            ..Self::error(id, error)
        }
    }
}

/// A `CallToolResult` with one text block.
pub(in crate::server) fn text_result(text: String, is_error: bool) -> Value {
    let mut result = Map::new();
    result.insert("content".into(), json!([{ "type": "text", "text": text }]));
    if is_error {
        result.insert("isError".into(), Value::Bool(true));
    }
    Value::Object(result)
}

/// The members a modern result appends: `resultType` and `_meta.serverInfo`,
/// as text starting with a comma.
pub(crate) fn stateless_result_tail(server_info: &Value) -> String {
    let mut meta_obj = Map::new();
    meta_obj.insert(meta::SERVER_INFO.into(), server_info.clone());
    format!(
        ",\"resultType\":\"complete\",\"_meta\":{}",
        jsonrpc::json_text(&Value::Object(meta_obj))
    )
}

/// The response to a `tools/call` with structured output `json` (its
/// serialised text): `{"jsonrpc":"2.0","id":ID,"result":{"content":
/// [{"type":"text","text":JSON as a string}],"structuredContent":JSON TAIL}}`,
/// written into one buffer.
pub(in crate::server) fn structured_reply(id: &Value, json: &[u8], tail: &str) -> Reply {
    const CONTENT: &[u8] = br#","result":{"content":[{"type":"text","text":"#;
    const STRUCTURED: &[u8] = br#"}],"structuredContent":"#;
    // The text block repeats the JSON escaped, at most twice as long.
    let mut out = jsonrpc::response_head(
        id,
        CONTENT.len() + STRUCTURED.len() + 3 * json.len() + tail.len() + 6,
    );
    out.extend_from_slice(CONTENT);
    push_escaped_json(&mut out, json);
    out.extend_from_slice(STRUCTURED);
    out.extend_from_slice(json);
    out.extend_from_slice(tail.as_bytes());
    out.extend_from_slice(b"}}");
    Reply::ok(jsonrpc::into_text(out))
}

/// The response of a `CallToolResult` with the text block `text` and
/// `isError: true`, written as text: what [`text_result`] gives.
pub(in crate::server) fn failure_reply(id: &Value, text: &str, tail: &str) -> Reply {
    let mut out = jsonrpc::response_head(id, text.len() + tail.len() + 80);
    out.extend_from_slice(br#","result":{"content":[{"type":"text","text":"#);
    jsonrpc::push_json_str(&mut out, text);
    out.extend_from_slice(br#"}],"isError":true"#);
    out.extend_from_slice(tail.as_bytes());
    out.extend_from_slice(b"}}");
    Reply {
        tool_error: true,
        ..Reply::ok(jsonrpc::into_text(out))
    }
}

/// The response of a `CallToolResult` whose content blocks are `doc`.
pub(in crate::server) fn content_reply(id: &Value, doc: &Doc, tail: &str) -> Reply {
    let json = doc.json();
    let mut out = jsonrpc::response_head(id, json.len() + tail.len() + 24);
    out.extend_from_slice(br#","result":{"content":"#);
    out.extend_from_slice(json.as_bytes());
    out.extend_from_slice(tail.as_bytes());
    out.extend_from_slice(b"}}");
    Reply::ok(jsonrpc::into_text(out))
}

/// [`structured_reply`] for an output encoded as a [`Doc`].
pub(in crate::server) fn doc_reply(id: &Value, doc: &Doc, tail: &str) -> Reply {
    const CONTENT: &str = r#","result":{"content":[{"type":"text","text":""#;
    const STRUCTURED: &str = r#""}],"structuredContent":"#;
    let json = doc.json();
    let mut out = jsonrpc::response_head_text(
        id,
        CONTENT.len() + STRUCTURED.len() + 3 * json.len() + tail.len() + 6,
    );
    out.push_str(CONTENT);
    if !doc.write_text(&mut out) {
        // A string in it needed escaping: the general way.
        return structured_reply(id, json.as_bytes(), tail);
    }
    out.push_str(STRUCTURED);
    out.push_str(json);
    out.push_str(tail);
    out.push_str("}}");
    Reply::ok(out)
}

/// Appends compact JSON text as a JSON string. `serde_json` writes control
/// characters escaped, so in its output only `"` and `\` need escaping:
/// the same text `serde_json` would give for the string.
fn push_escaped_json(out: &mut Vec<u8>, json: &[u8]) {
    /// 1 for the bytes that take a backslash before them.
    const ESCAPED: [u8; 256] = {
        let mut table = [0u8; 256];
        table[b'"' as usize] = 1;
        table[b'\\' as usize] = 1;
        table
    };
    out.reserve(2 * json.len() + 2);
    out.push(b'"');
    // Branch-free through a small buffer: a backslash is always written
    // and kept only when the byte needs it.
    let mut buf = [0u8; 128];
    for block in json.chunks(64) {
        let mut len = 0;
        for &b in block {
            buf[len & 127] = b'\\';
            len += usize::from(ESCAPED[usize::from(b)]);
            buf[len & 127] = b;
            len += 1;
        }
        out.extend_from_slice(&buf[..len.min(128)]);
    }
    out.push(b'"');
}
