//! [`Scan`]: the request headers the transport reads (`Host`, `Origin`,
//! `Content-Type`, `Content-Length`, `Accept` and MCP's own), found in one
//! pass over the request's header map instead of a hashed lookup each.

use http::{HeaderMap, HeaderValue};

/// `MCP-Protocol-Version`.
pub(crate) const PROTOCOL_VERSION: &str = "mcp-protocol-version";
/// `Mcp-Method`.
pub(crate) const METHOD: &str = "mcp-method";
/// `Mcp-Name`.
pub(crate) const NAME: &str = "mcp-name";
/// `Mcp-Session-Id` (stateful era).
pub(crate) const SESSION_ID: &str = "mcp-session-id";

/// The first value of each header the transport reads (what
/// `HeaderMap::get` gives) and how many `Accept` values came.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct Scan<'h> {
    pub host: Option<&'h HeaderValue>,
    pub origin: Option<&'h HeaderValue>,
    pub content_type: Option<&'h HeaderValue>,
    pub content_length: Option<&'h HeaderValue>,
    pub accept: Option<&'h HeaderValue>,
    pub accept_values: usize,
    pub session_id: Option<&'h HeaderValue>,
    pub protocol_version: Option<&'h HeaderValue>,
    pub method: Option<&'h HeaderValue>,
    pub name: Option<&'h HeaderValue>,
}

impl<'h> Scan<'h> {
    /// Looks through `headers` once.
    pub(crate) fn of(headers: &'h HeaderMap) -> Self {
        let mut scan = Scan::default();
        // Names in a `HeaderMap` are lower case.
        for (name, value) in headers {
            let slot = match name.as_str() {
                "host" => &mut scan.host,
                "origin" => &mut scan.origin,
                "content-type" => &mut scan.content_type,
                "content-length" => &mut scan.content_length,
                "accept" => {
                    scan.accept_values += 1;
                    &mut scan.accept
                }
                SESSION_ID => &mut scan.session_id,
                PROTOCOL_VERSION => &mut scan.protocol_version,
                METHOD => &mut scan.method,
                NAME => &mut scan.name,
                _ => continue,
            };
            if slot.is_none() {
                *slot = Some(value);
            }
        }
        scan
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_scan_finds_what_header_lookups_find() {
        let mut headers = HeaderMap::new();
        for (name, value) in [
            ("Host", "localhost:3000"),
            ("Accept", "application/json"),
            ("MCP-Protocol-Version", "2026-07-28"),
            ("Accept", "text/event-stream"),
            ("Mcp-Method", "tools/call"),
            ("Mcp-Name", "first"),
            ("mcp-name", "second"),
            ("Content-Type", "application/json"),
            ("X-Other", "ignored"),
        ] {
            headers.append(
                http::header::HeaderName::from_bytes(name.as_bytes()).unwrap(),
                HeaderValue::from_static(value),
            );
        }
        let scan = Scan::of(&headers);
        let all = [
            ("host", scan.host),
            ("origin", scan.origin),
            ("content-type", scan.content_type),
            ("content-length", scan.content_length),
            ("accept", scan.accept),
            (SESSION_ID, scan.session_id),
            (PROTOCOL_VERSION, scan.protocol_version),
            (METHOD, scan.method),
            (NAME, scan.name),
        ];
        for (name, found) in all {
            assert_eq!(found, headers.get(name), "{name}");
        }
        assert_eq!(
            scan.name.unwrap(),
            "first",
            "the first value, as HeaderMap::get gives"
        );
        assert_eq!(scan.accept_values, 2);
        assert_eq!(Scan::of(&HeaderMap::new()).accept_values, 0);
    }
}
