//! How verifiers reach the authorization server: a [`Fetcher`] sends one
//! request (a JWKS `GET`, an introspection `POST`) and gives back the
//! status and body. [`loopback_fetcher`], the default, is a small hyper
//! HTTP/1.1 client that talks plain `http://` to loopback addresses only
//! (tests, a sidecar); HTTPS to a remote authorization server needs a
//! fetcher with TLS (any client: `JwtConfig::fetcher`). Every fetch is
//! bounded in time and in the bytes read.

use std::future::Future;
use std::net::IpAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use http_body_util::{BodyExt, Full, Limited};
use hyper_util::rt::TokioIo;

/// What a [`Fetcher`] returns: the status and the body.
pub type FetchFuture = Pin<Box<dyn Future<Output = Result<(http::StatusCode, Bytes), String>> + Send>>;

/// Sends one request to the authorization server; `Err` says why it
/// failed. It should bound what it reads by `max_bytes`.
pub type Fetcher = Arc<dyn Fn(http::Request<Bytes>, usize) -> FetchFuture + Send + Sync>;

/// The default fetcher: plain HTTP/1.1 to loopback hosts only.
pub fn loopback_fetcher() -> Fetcher {
    Arc::new(|request, max_bytes| Box::pin(fetch_loopback(request, max_bytes)))
}

/// Sends `request` with `fetcher`, within `limit`.
pub(crate) async fn fetch(fetcher: &Fetcher, request: http::Request<Bytes>, max_bytes: usize, limit: Duration) -> Result<(http::StatusCode, Bytes), String> {
    let uri = request.uri().to_string();
    match tokio::time::timeout(limit, fetcher(request, max_bytes)).await {
        Ok(Ok(answer)) => Ok(answer),
        Ok(Err(e)) => Err(format!("{uri}: {e}")),
        Err(_) => Err(format!("{uri}: no answer within {} ms", limit.as_millis())),
    }
}

async fn fetch_loopback(mut request: http::Request<Bytes>, max_bytes: usize) -> Result<(http::StatusCode, Bytes), String> {
    let uri = request.uri().clone();
    if uri.scheme_str() != Some("http") {
        return Err("only http:// to a loopback address is built in; give the verifier a fetcher with TLS for https://".into());
    }
    let host = uri.host().unwrap_or_default();
    let bare = host.trim_start_matches('[').trim_end_matches(']');
    let loopback = bare.eq_ignore_ascii_case("localhost") || bare.parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback());
    if !loopback {
        return Err(format!("{host} is not a loopback address; plain http:// goes to loopback only"));
    }
    let port = uri.port_u16().unwrap_or(80);
    let stream = tokio::net::TcpStream::connect((if bare.eq_ignore_ascii_case("localhost") { "127.0.0.1" } else { bare }, port))
        .await
        .map_err(|e| format!("cannot connect: {e}"))?;
    let (mut sender, connection) =
        hyper::client::conn::http1::handshake(TokioIo::new(stream)).await.map_err(|e| format!("HTTP handshake failed: {e}"))?;
    let driver = tokio::spawn(async move {
        let _ = connection.await;
    });
    let authority = uri.authority().map(|a| a.to_string()).unwrap_or_default();
    if let Ok(value) = http::HeaderValue::from_str(&authority) {
        request.headers_mut().insert(http::header::HOST, value);
    }
    let path = uri.path_and_query().map_or("/", |p| p.as_str()).to_owned();
    *request.uri_mut() = path.parse().map_err(|e| format!("bad path: {e}"))?;
    let result = async {
        let response = sender.send_request(request.map(Full::new)).await.map_err(|e| format!("request failed: {e}"))?;
        let status = response.status();
        let body = Limited::new(response.into_body(), max_bytes)
            .collect()
            .await
            .map_err(|e| format!("the answer could not be read (at most {max_bytes} bytes): {e}"))?;
        Ok((status, body.to_bytes()))
    }
    .await;
    driver.abort();
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn only_loopback_is_reached_over_plain_http() {
        let fetcher = loopback_fetcher();
        for url in ["https://127.0.0.1/jwks", "http://example.com/jwks", "http://10.0.0.1/jwks"] {
            let request = http::Request::get(url).body(Bytes::new()).unwrap();
            let e = fetch(&fetcher, request, 1024, Duration::from_secs(1)).await.unwrap_err();
            assert!(e.contains("loopback"), "{url}: {e}");
        }
    }
}
