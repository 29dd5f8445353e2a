//! One HTTP/1.1 request of the runtime's own, for small documents: the
//! OAuth client's metadata, registration and token requests
//! (`client::oauth`) and the server verifiers' key sets and introspection
//! (`server::http::auth`, feature `oauth`). It connects as the MCP transport does
//! ([`Connector`]: the [`HttpOptions`]' CA files, client certificate, proxy
//! and connect timeout), sends the request once, never follows a redirect
//! (the caller sees the `3xx`) and reads at most `max_bytes` of the body.
//! Which URLs may be fetched and how long a request may take are each
//! caller's policy, not this module's.

use bytes::Bytes;
use http::header::{HeaderValue, HOST, PROXY_AUTHORIZATION};
use http::{HeaderMap, Request, StatusCode};
use http_body_util::{BodyExt, Full};
use hyper_util::rt::TokioIo;
use url::Url;

use super::connect::Connector;
use super::HttpOptions;

/// An answer: status, headers, the whole body.
pub(crate) struct Fetched {
    pub(crate) status: StatusCode,
    pub(crate) headers: HeaderMap,
    pub(crate) body: Bytes,
}

/// Sends `request` (its URI absolute: `http://` or `https://`) and reads
/// the answer; `Err` says why it failed, without the URL (callers name it).
/// The request's own headers are sent as they are; `Host` (and a proxy's
/// credentials) are added here.
pub(crate) async fn exchange(
    net: &HttpOptions,
    request: Request<Bytes>,
    max_bytes: usize,
) -> Result<Fetched, String> {
    let url =
        Url::parse(&request.uri().to_string()).map_err(|e| format!("not an absolute URL: {e}"))?;
    let https = match url.scheme() {
        "https" => true,
        "http" => false,
        other => return Err(format!("the scheme {other:?} is not HTTP")),
    };
    let host = url
        .host_str()
        .ok_or("no host")?
        .trim_start_matches('[')
        .trim_end_matches(']')
        .to_owned();
    let port = url
        .port_or_known_default()
        .unwrap_or(if https { 443 } else { 80 });
    let connector =
        Connector::new(url.as_str(), &host, port, https, net).map_err(|e| e.to_string())?;
    let stream = connector.connect().await.map_err(|e| e.to_string())?;
    let (mut sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
        .await
        .map_err(|e| format!("HTTP handshake failed: {e}"))?;
    let driver = tokio::spawn(async move {
        let _ = connection.await;
    });
    let _guard = AbortOnDrop(driver.abort_handle());
    // Origin form, or the absolute form for an http:// URL sent to a forwarding proxy.
    let forwarding = connector.forwarding();
    let target = match (&forwarding, url.query()) {
        (Some(_), _) => url
            .as_str()
            .split('#')
            .next()
            .unwrap_or_default()
            .to_owned(),
        (None, Some(q)) => format!("{}?{q}", url.path()),
        (None, None) => url.path().to_owned(),
    };
    let (mut parts, body) = request.into_parts();
    parts.uri = target.parse().map_err(|e| format!("{e}"))?;
    let authority = match url.port() {
        Some(p) => format!("{}:{p}", url.host_str().unwrap_or_default()),
        None => url.host_str().unwrap_or_default().to_owned(),
    };
    parts.headers.insert(
        HOST,
        HeaderValue::from_str(&authority).map_err(|e| e.to_string())?,
    );
    if let Some(Some(proxy_auth)) = forwarding {
        parts.headers.insert(PROXY_AUTHORIZATION, proxy_auth);
    }
    let response = sender
        .send_request(Request::from_parts(parts, Full::new(body)))
        .await
        .map_err(|e| format!("request failed: {e}"))?;
    let status = response.status();
    let headers = response.headers().clone();
    let mut incoming = response.into_body();
    let mut out = Vec::new();
    while let Some(frame) = incoming.frame().await {
        let frame = frame.map_err(|e| format!("the answer could not be read: {e}"))?;
        if let Ok(data) = frame.into_data() {
            if out.len() + data.len() > max_bytes {
                return Err(format!(
                    "the answer exceeds {max_bytes} bytes; it was not read further"
                ));
            }
            out.extend_from_slice(&data);
        }
    }
    Ok(Fetched {
        status,
        headers,
        body: Bytes::from(out),
    })
}

/// Stops the connection's driver when the request ends, however it ends.
struct AbortOnDrop(tokio::task::AbortHandle);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}
