//! The HTTP requests of the authorization flow: metadata documents,
//! registration and token requests. Every request has a deadline
//! ([`TIMEOUT`]), every body a size cap ([`MAX_DOCUMENT`]), redirects are
//! never followed (the caller sees the `3xx`), and a URL is only fetched
//! when it is `https://`, or `http://` on a loopback host. Requests connect
//! as the MCP transport does (its CA files, client certificate, proxy and
//! connect timeout: [`HttpOptions`]), but never carry its extra headers;
//! the sending itself is `crate::transport::http::fetch`, shared with the server's
//! bearer verifiers.

use std::time::Duration;

use bytes::Bytes;
use http::header::{HeaderValue, ACCEPT, AUTHORIZATION, CONTENT_TYPE};
use http::{HeaderMap, Method, Request};
use url::Url;

use super::AuthError;
use crate::transport::http::fetch::exchange;
use crate::transport::http::{HttpOptions, DPOP};

/// How long one request of the flow may take, connecting included.
pub(super) const TIMEOUT: Duration = Duration::from_secs(10);

/// The largest metadata document, registration or token response read.
pub(super) const MAX_DOCUMENT: usize = 1 << 20;

/// An answer: status, headers, the whole body.
#[derive(Debug)]
pub(super) struct Fetched {
    /// The HTTP status.
    pub status: u16,
    /// The response headers.
    pub headers: HeaderMap,
    /// The body (at most [`MAX_DOCUMENT`] bytes).
    pub body: Vec<u8>,
}

impl Fetched {
    /// The body as JSON, or an error naming `what` and `url`.
    pub(super) fn json(&self, what: &str, url: &str) -> Result<serde_json::Value, AuthError> {
        serde_json::from_slice(&self.body)
            .map_err(|e| AuthError::new(format!("{what} at {url} is not JSON: {e}")))
    }

    /// Whether the status is 2xx.
    pub(super) fn ok(&self) -> bool {
        (200..300).contains(&self.status)
    }
}

/// Parses `url` and checks it may be fetched or used as an endpoint:
/// `https://`, or `http://` on a loopback host only.
pub(super) fn check_url(url: &str, what: &str) -> Result<Url, AuthError> {
    let parsed = Url::parse(url)
        .map_err(|e| AuthError::new(format!("the {what} {url:?} is not a URL: {e}")))?;
    match parsed.scheme() {
        "https" => Ok(parsed),
        "http" if is_loopback(&parsed) => Ok(parsed),
        "http" => Err(AuthError::new(format!(
            "the {what} {url} is plain http:// on a host that is not loopback; \
             authorization endpoints must use https:// (a malicious or misconfigured authorization server)"
        ))),
        other => Err(AuthError::new(format!("the {what} {url} has the scheme {other:?}; expected https://"))),
    }
}

/// Whether the URL's host is `localhost` or a loopback address.
pub(super) fn is_loopback(url: &Url) -> bool {
    match url.host() {
        Some(url::Host::Domain(d)) => d.eq_ignore_ascii_case("localhost"),
        Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
        Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
        None => false,
    }
}

/// GETs a document.
pub(super) async fn get(net: &HttpOptions, url: &str, what: &str) -> Result<Fetched, AuthError> {
    send(
        net,
        Method::GET,
        url,
        what,
        None,
        None,
        "application/json",
        HeaderMap::new(),
    )
    .await
}

/// POSTs a form (`application/x-www-form-urlencoded`), with HTTP Basic
/// authentication when `basic` names a client id and secret, and a DPoP
/// proof (RFC 9449) when there is one.
pub(super) async fn post_form(
    net: &HttpOptions,
    url: &str,
    what: &str,
    form: &[(&str, &str)],
    basic: Option<(&str, &str)>,
    dpop: Option<&str>,
) -> Result<Fetched, AuthError> {
    let body = url::form_urlencoded::Serializer::new(String::new())
        .extend_pairs(form)
        .finish();
    let auth = basic.map(|(id, secret)| {
        use base64::Engine;
        // RFC 6749 §2.3.1: both form-urlencoded before joining.
        let enc = |s: &str| url::form_urlencoded::byte_serialize(s.as_bytes()).collect::<String>();
        let pair = format!("{}:{}", enc(id), enc(secret));
        format!(
            "Basic {}",
            base64::engine::general_purpose::STANDARD.encode(pair)
        )
    });
    let content = ("application/x-www-form-urlencoded", body.into_bytes());
    let mut extra = HeaderMap::new();
    if let Some(proof) = dpop {
        let value = HeaderValue::from_str(proof)
            .map_err(|_| AuthError::new("a DPoP proof holds characters a header cannot"))?;
        extra.insert(DPOP, value);
    }
    send(
        net,
        Method::POST,
        url,
        what,
        Some(content),
        auth,
        "application/json",
        extra,
    )
    .await
}

/// POSTs a JSON document.
pub(super) async fn post_json(
    net: &HttpOptions,
    url: &str,
    what: &str,
    body: &serde_json::Value,
) -> Result<Fetched, AuthError> {
    send(
        net,
        Method::POST,
        url,
        what,
        Some(("application/json", body.to_string().into_bytes())),
        None,
        "application/json",
        HeaderMap::new(),
    )
    .await
}

#[allow(clippy::too_many_arguments)]
async fn send(
    net: &HttpOptions,
    method: Method,
    url: &str,
    what: &str,
    body: Option<(&'static str, Vec<u8>)>,
    authorization: Option<String>,
    accept: &'static str,
    extra: HeaderMap,
) -> Result<Fetched, AuthError> {
    let parsed = check_url(url, what)?;
    let mut builder = Request::builder()
        .method(method)
        .uri(parsed.as_str())
        .header(ACCEPT, accept);
    if let Some((media, _)) = &body {
        builder = builder.header(CONTENT_TYPE, *media);
    }
    if let Some(auth) = authorization {
        let mut value = HeaderValue::from_str(&auth).map_err(|_| {
            AuthError::new(format!(
                "the client credentials for the {what} {url} hold characters a header cannot"
            ))
        })?;
        value.set_sensitive(true);
        builder = builder.header(AUTHORIZATION, value);
    }
    if let Some(headers) = builder.headers_mut() {
        headers.extend(extra);
    }
    let request = builder
        .body(Bytes::from(body.map(|b| b.1).unwrap_or_default()))
        .map_err(|e| AuthError::new(format!("the {what} {url} cannot be requested: {e}")))?;
    match tokio::time::timeout(TIMEOUT, exchange(net, request, MAX_DOCUMENT)).await {
        Ok(Ok(answer)) => Ok(Fetched {
            status: answer.status.as_u16(),
            headers: answer.headers,
            body: answer.body.to_vec(),
        }),
        Ok(Err(why)) => Err(AuthError::new(format!(
            "fetching the {what} {url} failed: {why}"
        ))),
        Err(_) => Err(AuthError::new(format!(
            "the {what} {url} did not answer within {TIMEOUT:?}"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_https_or_loopback_http_is_accepted() {
        assert!(check_url("https://as.example.com/token", "token endpoint").is_ok());
        assert!(check_url("http://localhost:9000/token", "token endpoint").is_ok());
        assert!(check_url("http://127.0.0.1/token", "token endpoint").is_ok());
        assert!(check_url("http://[::1]:8/token", "token endpoint").is_ok());
        let err = check_url("http://as.example.com/token", "token endpoint").unwrap_err();
        assert!(err.message().contains("not loopback"), "{err}");
        assert!(check_url("ftp://x/", "token endpoint").is_err());
        assert!(check_url("not a url", "token endpoint").is_err());
    }
}
