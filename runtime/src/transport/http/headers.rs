//! The request headers of the stateless era that mirror the body
//! (`MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`, `Mcp-Param-*` from
//! `x-mcp-header` annotations), their Base64 sentinel encoding
//! (`=?base64?…?=`), and the `-32020` HeaderMismatch error when they are
//! missing or disagree with the body (which the server checks:
//! `server/http/mirror`).

use std::borrow::Cow;

use http::header::HeaderValue;
use http::HeaderMap;
use serde_json::Value;

use crate::jsonrpc::RpcError;
use crate::revision::codes;

// The header names live beside the scan that reads them.
pub(crate) use super::scan::{METHOD, NAME, PROTOCOL_VERSION, SESSION_ID};

/// Prefix of the headers mirroring annotated tool parameters.
pub(crate) const PARAM_PREFIX: &str = "mcp-param-";

/// One `x-mcp-header` annotation of a tool's `inputSchema`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParamHeader {
    /// The header name, lower case (`mcp-param-region`).
    pub header: String,
    /// The chain of `properties` keys leading to the parameter.
    pub path: Vec<String>,
}

/// The annotated parameters of an `inputSchema`: reachable from the root
/// through `properties` only, as the transport defines them.
pub fn param_headers(schema: &Value) -> Vec<ParamHeader> {
    let mut out = Vec::new();
    collect(schema, &mut Vec::new(), &mut out);
    out
}

fn collect(schema: &Value, path: &mut Vec<String>, out: &mut Vec<ParamHeader>) {
    let Some(props) = schema.get("properties").and_then(Value::as_object) else {
        return;
    };
    for (key, sub) in props {
        path.push(key.clone());
        if let Some(name) = sub.get("x-mcp-header").and_then(Value::as_str) {
            out.push(ParamHeader {
                header: format!("{PARAM_PREFIX}{}", name.to_ascii_lowercase()),
                path: path.clone(),
            });
        }
        // Bounded by the schema's own depth, which the validator accepted.
        if path.len() < 64 {
            collect(sub, path, out);
        }
        path.pop();
    }
}

pub(crate) fn mismatch(message: String) -> RpcError {
    RpcError::new(
        codes::HEADER_MISMATCH,
        format!("Header mismatch: {message}"),
    )
}

/// A header's text, decoded from the Base64 sentinel form when it has it
/// (borrowed when it has not); `Err` for a value that is not visible ASCII
/// or bad Base64.
pub(crate) fn header_text<'h>(
    headers: &'h HeaderMap,
    name: &str,
) -> Option<Result<Cow<'h, str>, RpcError>> {
    value_text(headers.get(name)?, name)
}

/// [`header_text`] of the value of header `name`.
pub(crate) fn value_text<'h>(
    value: &'h HeaderValue,
    name: &str,
) -> Option<Result<Cow<'h, str>, RpcError>> {
    let Ok(text) = value.to_str() else {
        return Some(Err(mismatch(format!(
            "{name} holds characters that are not visible ASCII"
        ))));
    };
    Some(
        match text
            .strip_prefix("=?base64?")
            .and_then(|t| t.strip_suffix("?="))
        {
            Some(encoded) => base64_decode(encoded)
                .and_then(|bytes| String::from_utf8(bytes).ok())
                .map(Cow::Owned)
                .ok_or_else(|| mismatch(format!("{name} is not valid Base64 of UTF-8 text"))),
            None => Ok(Cow::Borrowed(text)),
        },
    )
}

/// Standard Base64 (RFC 4648 §4) with its padding: the length is a
/// multiple of four and `=` only pads the last group; `None` when
/// malformed (the transport's test-case table rejects `SGVsbG8` for its
/// missing padding). Unused low bits of the last group are ignored.
pub(crate) fn base64_decode(text: &str) -> Option<Vec<u8>> {
    use base64::engine::general_purpose::{GeneralPurpose, PAD};
    use base64::Engine as _;
    const STANDARD_LENIENT_BITS: GeneralPurpose = GeneralPurpose::new(
        &base64::alphabet::STANDARD,
        PAD.with_decode_allow_trailing_bits(true),
    );
    STANDARD_LENIENT_BITS.decode(text).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_round_trips_the_spec_examples() {
        assert_eq!(
            base64_decode("SGVsbG8sIOS4lueVjA==").unwrap(),
            "Hello, 世界".as_bytes()
        );
        assert_eq!(base64_decode("IHBhZGRlZCA=").unwrap(), b" padded ");
        assert_eq!(base64_decode("bGluZTEKbGluZTI=").unwrap(), b"line1\nline2");
        assert_eq!(base64_decode("").unwrap(), b"");
        assert!(base64_decode("a").is_none());
        assert!(base64_decode("a$==").is_none());
        // Padding is required, and only at the end.
        assert_eq!(base64_decode("SGVsbG8=").unwrap(), b"Hello");
        assert!(base64_decode("SGVsbG8").is_none());
        assert!(base64_decode("SGVsbG8==").is_none());
        assert!(base64_decode("SGVs!!!bG8=").is_none());
        assert!(base64_decode("SG=sbG8=").is_none());
    }
}
