//! The request headers of the stateless era that mirror the body
//! (`MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`, `Mcp-Param-*` from
//! `x-mcp-header` annotations), their Base64 sentinel encoding
//! (`=?base64?…?=`), and the `-32020` HeaderMismatch error when they are
//! missing or disagree with the body.

use std::borrow::Cow;

use http::header::HeaderValue;
use http::HeaderMap;
use serde_json::Value;

use crate::jsonrpc::RpcError;
use crate::revision::codes;
use crate::server::Params;

// The header names live beside the scan that reads them.
use super::scan::Scan;
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

fn mismatch(message: String) -> RpcError {
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
fn value_text<'h>(value: &'h HeaderValue, name: &str) -> Option<Result<Cow<'h, str>, RpcError>> {
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

/// Checks the mirrored headers of a stateless request against its body:
/// `body_version` is its `_meta` protocol version, `annotated` the
/// annotated parameters of the called tool.
pub(crate) fn check<'h>(
    headers: &'h HeaderMap,
    scan: &Scan<'h>,
    method: &str,
    body_version: Option<&str>,
    params: &Params<'_>,
    annotated: &[ParamHeader],
) -> Result<(), RpcError> {
    let named =
        |value: Option<&'h HeaderValue>, name: &str| value.and_then(|v| value_text(v, name));
    match named(scan.protocol_version, PROTOCOL_VERSION).transpose()? {
        None => {
            return Err(mismatch(
                "the MCP-Protocol-Version header is required".into(),
            ))
        }
        Some(version) => {
            if let Some(body) = body_version {
                if body != version {
                    return Err(mismatch(format!(
                        "MCP-Protocol-Version header value '{version}' does not match body value '{body}'"
                    )));
                }
            }
        }
    }
    match named(scan.method, METHOD).transpose()? {
        None => return Err(mismatch("the Mcp-Method header is required".into())),
        Some(value) if value != method => {
            return Err(mismatch(format!(
                "Mcp-Method header value '{value}' does not match body value '{method}'"
            )))
        }
        Some(_) => {}
    }
    let name_field = match method {
        "tools/call" | "prompts/get" => Some("name"),
        "resources/read" => Some("uri"),
        _ => None,
    };
    if let Some(field) = name_field {
        let body = params.get(field).and_then(Value::as_str).unwrap_or("");
        match named(scan.name, NAME).transpose()? {
            None => {
                return Err(mismatch(format!(
                    "the Mcp-Name header is required for {method}"
                )))
            }
            Some(value) if value != body => {
                return Err(mismatch(format!(
                    "Mcp-Name header value '{value}' does not match body value '{body}'"
                )))
            }
            Some(_) => {}
        }
    }
    if matches!(method, "tasks/get" | "tasks/update" | "tasks/cancel") {
        // The tasks extension routes by task id; a missing header is let through.
        let body = params.get("taskId").and_then(Value::as_str).unwrap_or("");
        if let Some(value) = named(scan.name, NAME).transpose()? {
            if value != body {
                return Err(mismatch(format!(
                    "Mcp-Name header value '{value}' does not match body taskId '{body}'"
                )));
            }
        }
    }
    if annotated.is_empty() {
        return Ok(());
    }
    let arguments = params.get("arguments");
    for param in annotated {
        let body = arguments
            .and_then(|a| param.path.iter().try_fold(a, |v, k| v.get(k)))
            .filter(|v| !v.is_null());
        let header = header_text(headers, &param.header).transpose()?;
        match (body, header) {
            (None, None) => {}
            (Some(_), None) => {
                return Err(mismatch(format!(
                    "the {} header is required: the argument is in the body",
                    param.header
                )))
            }
            (None, Some(_)) => {
                return Err(mismatch(format!(
                    "the {} header is present but the argument is not in the body",
                    param.header
                )))
            }
            (Some(value), Some(text)) => {
                if !same_value(value, &text) {
                    return Err(mismatch(format!(
                        "{} header value '{text}' does not match the body value {value}",
                        param.header
                    )));
                }
            }
        }
    }
    Ok(())
}

/// Whether a header's text stands for a body value (numbers compare
/// numerically: `42.0` equals `42`).
fn same_value(body: &Value, text: &str) -> bool {
    match body {
        Value::String(s) => s == text,
        Value::Bool(b) => text == if *b { "true" } else { "false" },
        Value::Number(n) => match (n.as_f64(), text.trim().parse::<f64>()) {
            (Some(a), Ok(b)) => a == b,
            _ => false,
        },
        _ => false,
    }
}

/// Standard Base64 (RFC 4648 §4) with its padding: the length is a
/// multiple of four and `=` only pads the last group; `None` when
/// malformed (the transport's test-case table rejects `SGVsbG8` for its
/// missing padding). Unused low bits of the last group are ignored.
pub(super) fn base64_decode(text: &str) -> Option<Vec<u8>> {
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
    use http::HeaderValue;
    use serde_json::json;

    fn headers(pairs: &[(&str, &str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (name, value) in pairs {
            h.insert(
                http::header::HeaderName::from_bytes(name.as_bytes()).unwrap(),
                HeaderValue::from_str(value).unwrap(),
            );
        }
        h
    }

    /// `check` with what a scan of `h` finds.
    fn checked(
        h: &HeaderMap,
        method: &str,
        version: Option<&str>,
        params: &Params<'_>,
        annotated: &[ParamHeader],
    ) -> Result<(), RpcError> {
        check(h, &Scan::of(h), method, version, params, annotated)
    }

    fn call_params() -> Value {
        json!({"name": "get_weather", "arguments": {"region": "us-west1", "n": 42},
               "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}}})
    }

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

    #[test]
    fn matching_headers_pass_and_each_mismatch_is_32020() {
        let good = [
            ("mcp-protocol-version", "2026-07-28"),
            ("mcp-method", "tools/call"),
            ("mcp-name", "get_weather"),
        ];
        assert_eq!(
            checked(
                &headers(&good),
                "tools/call",
                Some("2026-07-28"),
                &Params::Value(call_params()),
                &[]
            ),
            Ok(())
        );
        let encoded = [
            ("mcp-protocol-version", "2026-07-28"),
            ("mcp-method", "tools/call"),
            ("mcp-name", "=?base64?Z2V0X3dlYXRoZXI=?="),
        ];
        assert_eq!(
            checked(
                &headers(&encoded),
                "tools/call",
                Some("2026-07-28"),
                &Params::Value(call_params()),
                &[]
            ),
            Ok(())
        );
        let cases: [&[(&str, &str)]; 5] = [
            &[("mcp-method", "tools/call"), ("mcp-name", "get_weather")],
            &[
                ("mcp-protocol-version", "2026-07-28"),
                ("mcp-name", "get_weather"),
            ],
            &[
                ("mcp-protocol-version", "2026-07-28"),
                ("mcp-method", "tools/list"),
                ("mcp-name", "get_weather"),
            ],
            &[
                ("mcp-protocol-version", "2026-07-28"),
                ("mcp-method", "tools/call"),
            ],
            &[
                ("mcp-protocol-version", "2026-07-28"),
                ("mcp-method", "tools/call"),
                ("mcp-name", "other"),
            ],
        ];
        for case in cases {
            let err = checked(
                &headers(case),
                "tools/call",
                Some("2026-07-28"),
                &Params::Value(call_params()),
                &[],
            )
            .unwrap_err();
            assert_eq!(err.code, -32020, "{case:?}: {err}");
        }
    }

    #[test]
    fn annotated_parameters_are_mirrored() {
        let schema = json!({"type": "object", "properties": {
            "region": {"type": "string", "x-mcp-header": "Region"},
            "n": {"type": "integer", "x-mcp-header": "N"},
            "list": {"type": "array", "items": {"type": "object", "properties": {"x": {"type": "string", "x-mcp-header": "X"}}}}
        }});
        let annotated = param_headers(&schema);
        assert_eq!(annotated.len(), 2, "{annotated:?}");
        let base = [
            ("mcp-protocol-version", "2026-07-28"),
            ("mcp-method", "tools/call"),
            ("mcp-name", "get_weather"),
        ];
        let mut ok = base.to_vec();
        ok.extend([("mcp-param-region", "us-west1"), ("mcp-param-n", "42.0")]);
        assert_eq!(
            checked(
                &headers(&ok),
                "tools/call",
                Some("2026-07-28"),
                &Params::Value(call_params()),
                &annotated
            ),
            Ok(())
        );
        let mut missing = base.to_vec();
        missing.push(("mcp-param-region", "us-west1"));
        assert_eq!(
            checked(
                &headers(&missing),
                "tools/call",
                Some("2026-07-28"),
                &Params::Value(call_params()),
                &annotated
            )
            .unwrap_err()
            .code,
            -32020
        );
        let mut wrong = base.to_vec();
        wrong.extend([("mcp-param-region", "eu"), ("mcp-param-n", "42")]);
        assert_eq!(
            checked(
                &headers(&wrong),
                "tools/call",
                Some("2026-07-28"),
                &Params::Value(call_params()),
                &annotated
            )
            .unwrap_err()
            .code,
            -32020
        );
    }
}
