//! Checks every HTTP request passes before MCP sees it: the `Host` and
//! `Origin` allowlists (DNS-rebinding protection, 403), the media types of
//! `Accept` (406) and `Content-Type` (415).

use http::header::ACCEPT;
use http::{HeaderMap, HeaderValue};

/// The host names a local server answers to by default.
pub const LOCAL_HOSTS: &[&str] = &["localhost", "127.0.0.1", "[::1]"];

/// An allowlist of hosts: entries without a port match any port.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Allow {
    /// Anything (for servers behind a proxy that checks for them).
    Any,
    /// Only these (`example.com`, `localhost:8080`, `[::1]`).
    Only(Vec<String>),
}

impl Allow {
    /// The loopback names on any port.
    pub fn local() -> Self {
        Allow::Only(LOCAL_HOSTS.iter().map(|h| (*h).to_owned()).collect())
    }

    /// Whether `authority` (`host[:port]`) is allowed.
    pub fn admits(&self, authority: &str) -> bool {
        let Allow::Only(list) = self else { return true };
        // Compared without case and without lower-cased copies: splitting
        // at `[`, `]` and `:` does not depend on case.
        let (host, _) = split_port(authority);
        list.iter().any(|entry| match split_port(entry) {
            (h, None) => h.eq_ignore_ascii_case(host),
            _ => entry.eq_ignore_ascii_case(authority),
        })
    }
}

/// Splits `host[:port]` (with `[v6]` hosts) into host and port.
fn split_port(authority: &str) -> (&str, Option<&str>) {
    if let Some(rest) = authority.strip_prefix('[') {
        return match rest.find(']') {
            Some(end) => {
                let host = &authority[..end + 2];
                let port = authority[end + 2..].strip_prefix(':');
                (host, port)
            }
            None => (authority, None),
        };
    }
    match authority.bytes().rposition(|b| b == b':') {
        Some(colon)
            if authority.as_bytes()[colon + 1..]
                .iter()
                .all(u8::is_ascii_digit) =>
        {
            (&authority[..colon], Some(&authority[colon + 1..]))
        }
        _ => (authority, None),
    }
}

/// Why a request is refused before it reaches MCP.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Refusal {
    /// 403: host or origin not allowed.
    Forbidden(String),
    /// 406: the client does not accept what the server sends.
    NotAcceptable(String),
    /// 415: the body is not JSON.
    UnsupportedMediaType(String),
}

/// `Host` (its first value, `host`) must be on the host allowlist (a
/// request without one is refused unless any host is allowed).
pub(crate) fn check_host(host: Option<&HeaderValue>, hosts: &Allow) -> Result<(), Refusal> {
    if *hosts == Allow::Any {
        return Ok(());
    }
    let host = host.and_then(|h| h.to_str().ok()).unwrap_or("");
    if host.is_empty() || !hosts.admits(host) {
        return Err(Refusal::Forbidden(format!(
            "Host {host:?} is not allowed; configure the allowed hosts of this server to serve it"
        )));
    }
    Ok(())
}

/// An `Origin`, when present, must name an allowed host (browsers send it;
/// other clients usually do not).
pub(crate) fn check_origin(origin: Option<&HeaderValue>, origins: &Allow) -> Result<(), Refusal> {
    let Some(origin) = origin else { return Ok(()) };
    if *origins == Allow::Any {
        return Ok(());
    }
    let text = origin.to_str().unwrap_or("");
    let authority = text
        .split_once("://")
        .map(|(_, rest)| rest.trim_end_matches('/'))
        .unwrap_or("");
    let exact =
        matches!(origins, Allow::Only(list) if list.iter().any(|o| o.eq_ignore_ascii_case(text)));
    if exact || (!authority.is_empty() && origins.admits(authority)) {
        return Ok(());
    }
    Err(Refusal::Forbidden(format!(
        "Origin {text:?} is not allowed"
    )))
}

/// Whether the `Accept` header admits `wanted` (`type/subtype`), with
/// `*/*` and `type/*` wildcards.
pub(crate) fn accepts(headers: &HeaderMap, wanted: &str) -> bool {
    let (kind, _) = wanted.split_once('/').unwrap_or((wanted, ""));
    media_ranges(headers).any(|range| admits_range(range, wanted, kind))
}

/// The media ranges of the `Accept` headers, without parameters: the
/// values that are text (visible ASCII and tabs, so trimming ASCII
/// whitespace is trimming whitespace) split at commas.
fn media_ranges(headers: &HeaderMap) -> impl Iterator<Item = &[u8]> {
    headers
        .get_all(ACCEPT)
        .iter()
        .filter(|v| v.to_str().is_ok())
        .flat_map(|v| v.as_bytes().split(|&b| b == b','))
        .map(|item| {
            let end = item.iter().position(|&b| b == b';').unwrap_or(item.len());
            item[..end].trim_ascii()
        })
}

/// Whether media range `range` (any case) admits `wanted` (`type/subtype`,
/// lower case, whose type is `kind`), with `*/*` and `type/*` wildcards.
fn admits_range(range: &[u8], wanted: &str, kind: &str) -> bool {
    let wildcard = range.len() == kind.len() + 2
        && range.ends_with(b"/*")
        && lowered_is(&range[..kind.len()], kind.as_bytes());
    lowered_is(range, wanted.as_bytes()) || range == b"*/*" || wildcard
}

/// Whether `text` in ASCII lower case is `target` (without the copy).
fn lowered_is(text: &[u8], target: &[u8]) -> bool {
    text.len() == target.len()
        && text
            .iter()
            .zip(target)
            .all(|(a, b)| a.to_ascii_lowercase() == *b)
}

/// A POST must accept both JSON and an event stream (`first` is the
/// first of the `values` `Accept` headers in `headers`).
pub(crate) fn check_post_accept(
    headers: &HeaderMap,
    first: Option<&HeaderValue>,
    values: usize,
) -> Result<(), Refusal> {
    // What SDK clients send, as one header: accepted without parsing it.
    if let (Some(only), 1) = (first, values) {
        if only.as_bytes() == b"application/json, text/event-stream" {
            return Ok(());
        }
    }
    // Both looked for in one pass over the ranges.
    let (mut json, mut events) = (false, false);
    for range in media_ranges(headers) {
        json = json || admits_range(range, "application/json", "application");
        events = events || admits_range(range, "text/event-stream", "text");
        if json && events {
            break;
        }
    }
    if json && events {
        Ok(())
    } else {
        Err(Refusal::NotAcceptable(
            "the Accept header must list both application/json and text/event-stream".into(),
        ))
    }
}

/// A GET stream must accept an event stream.
pub(crate) fn check_get_accept(headers: &HeaderMap) -> Result<(), Refusal> {
    if accepts(headers, "text/event-stream") {
        Ok(())
    } else {
        Err(Refusal::NotAcceptable(
            "the Accept header must list text/event-stream".into(),
        ))
    }
}

/// A POST body must be `application/json` (`content_type`: the first
/// `Content-Type` value).
pub(crate) fn check_content_type(content_type: Option<&HeaderValue>) -> Result<(), Refusal> {
    let value = content_type.and_then(|v| v.to_str().ok()).unwrap_or("");
    let media = value.split(';').next().unwrap_or("").trim();
    if media.eq_ignore_ascii_case("application/json") {
        Ok(())
    } else {
        Err(Refusal::UnsupportedMediaType(format!(
            "Content-Type must be application/json, got {value:?}"
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use http::header::{CONTENT_TYPE, HOST, ORIGIN};

    fn headers(pairs: &[(http::header::HeaderName, &str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (name, value) in pairs {
            h.append(name.clone(), HeaderValue::from_str(value).unwrap());
        }
        h
    }

    /// `check_post_accept` with what a scan of `h` finds.
    fn post_accept(h: &HeaderMap) -> Result<(), Refusal> {
        check_post_accept(h, h.get(ACCEPT), h.get_all(ACCEPT).iter().count())
    }

    #[test]
    fn local_hosts_match_on_any_port_and_nothing_else() {
        let local = Allow::local();
        for ok in [
            "localhost",
            "localhost:8080",
            "127.0.0.1:1",
            "[::1]:3000",
            "LOCALHOST",
        ] {
            assert!(local.admits(ok), "{ok}");
        }
        for bad in [
            "evil.com",
            "localhost.evil.com",
            "127.0.0.2",
            "[::2]:80",
            "evil.com:localhost",
        ] {
            assert!(!local.admits(bad), "{bad}");
        }
        let pinned = Allow::Only(vec!["example.com:8443".into()]);
        assert!(pinned.admits("example.com:8443"));
        assert!(!pinned.admits("example.com:8444"));
    }

    #[test]
    fn host_and_origin_checks() {
        let local = Allow::local();
        assert!(check_host(headers(&[(HOST, "localhost:1")]).get(HOST), &local).is_ok());
        assert!(check_host(headers(&[(HOST, "attacker.example")]).get(HOST), &local).is_err());
        assert!(check_host(None, &local).is_err());
        assert!(check_origin(None, &local).is_ok());
        assert!(check_origin(
            headers(&[(ORIGIN, "http://localhost:5173")]).get(ORIGIN),
            &local
        )
        .is_ok());
        assert!(check_origin(
            headers(&[(ORIGIN, "https://attacker.example")]).get(ORIGIN),
            &local
        )
        .is_err());
        assert!(check_origin(headers(&[(ORIGIN, "null")]).get(ORIGIN), &local).is_err());
    }

    #[test]
    fn accept_and_content_type() {
        assert!(post_accept(&headers(&[(ACCEPT, "application/json, text/event-stream")])).is_ok());
        assert!(post_accept(&headers(&[(ACCEPT, "*/*")])).is_ok());
        assert!(post_accept(&headers(&[(ACCEPT, "Application/JSON;q=1 , TEXT/*")])).is_ok());
        assert!(post_accept(&headers(&[
            (ACCEPT, "application/json"),
            (ACCEPT, "text/event-stream")
        ]))
        .is_ok());
        assert!(post_accept(&headers(&[(
            ACCEPT,
            "application/json, text/event-streams"
        )]))
        .is_err());
        assert!(post_accept(&headers(&[(ACCEPT, "application/json")])).is_err());
        // The usual value first, then more: all of them are read.
        assert!(post_accept(&headers(&[
            (ACCEPT, "application/json, text/event-stream"),
            (ACCEPT, "image/png")
        ]))
        .is_ok());
        assert!(check_post_accept(&HeaderMap::new(), None, 0).is_err());
        assert!(check_get_accept(&headers(&[(ACCEPT, "text/*;q=0.5")])).is_ok());
        assert!(check_content_type(
            headers(&[(CONTENT_TYPE, "application/json; charset=utf-8")]).get(CONTENT_TYPE)
        )
        .is_ok());
        assert!(
            check_content_type(headers(&[(CONTENT_TYPE, "text/plain")]).get(CONTENT_TYPE)).is_err()
        );
        assert!(check_content_type(None).is_err());
    }
}
