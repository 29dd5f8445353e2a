//! The server's check of a stateless request's mirrored headers
//! (`MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`, `Mcp-Param-*`)
//! against its body: `-32020` HeaderMismatch when one is missing or
//! disagrees. The headers' names and encoding are both sides'
//! (`transport/http/headers`).

use http::header::HeaderValue;
use http::HeaderMap;
use serde_json::Value;

use crate::jsonrpc::RpcError;
use crate::revision::method::{McpName, Method};
use crate::server::Params;
use crate::transport::http::headers::{
    header_text, mismatch, value_text, ParamHeader, METHOD, NAME, PROTOCOL_VERSION,
};
use crate::transport::http::scan::Scan;

/// Checks the mirrored headers of a stateless request against its body:
/// the method as sent and as the method table knows it (if it does),
/// `body_version` its `_meta` protocol version, `annotated` the
/// annotated parameters of the called tool.
pub(crate) fn check<'h>(
    headers: &'h HeaderMap,
    scan: &Scan<'h>,
    (method, known): (&str, Option<Method>),
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
    let mirrored = known
        .and_then(|m| Some((m.mcp_name(), m.target()?.member())))
        .filter(|(rule, _)| *rule != McpName::None);
    if let Some((rule, member)) = mirrored {
        let body = params.get(member).and_then(Value::as_str).unwrap_or("");
        match named(scan.name, NAME).transpose()? {
            // The tasks extension routes by task id; a missing header is let through.
            None if rule == McpName::IfSent => {}
            None => {
                return Err(mismatch(format!(
                    "the Mcp-Name header is required for {method}"
                )))
            }
            Some(value) if value != body => {
                return Err(mismatch(format!(
                    "Mcp-Name header value '{value}' does not match body {member} '{body}'"
                )));
            }
            Some(_) => {}
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transport::http::param_headers;
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
        check(
            h,
            &Scan::of(h),
            (method, Method::of(method)),
            version,
            params,
            annotated,
        )
    }

    fn call_params() -> Value {
        json!({"name": "get_weather", "arguments": {"region": "us-west1", "n": 42},
               "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}}})
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
