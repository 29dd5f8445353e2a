//! How verifiers reach the authorization server: a [`Fetcher`] sends one
//! request (a JWKS `GET`, an introspection `POST`) and gives back the
//! status and body. [`https_fetcher`], the default, connects as the HTTP
//! client does (`crate::transport::http::fetch`: TLS with Mozilla's roots or the
//! [`HttpOptions`]' CA files, the proxy of the environment, the connect
//! timeout) and fetches `https://` URLs, or `http://` ones on a loopback
//! host only (tests, a sidecar). Any other client can be plugged in as a
//! [`Fetcher`] (`JwtConfig::fetcher`). Every fetch is bounded in time and
//! in the bytes read; redirects are never followed.

use std::future::Future;
use std::net::IpAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;

use crate::transport::http::HttpOptions;

/// What a [`Fetcher`] returns: the status and the body.
pub type FetchFuture =
    Pin<Box<dyn Future<Output = Result<(http::StatusCode, Bytes), String>> + Send>>;

/// Sends one request to the authorization server; `Err` says why it
/// failed. It should bound what it reads by `max_bytes`.
pub type Fetcher = Arc<dyn Fn(http::Request<Bytes>, usize) -> FetchFuture + Send + Sync>;

/// The default fetcher: `https://` (or `http://` to a loopback host)
/// through connections made with `options` (CA files, client
/// certificate, proxy, connect timeout; its extra headers are not sent).
/// `https://` needs the runtime's `tls` feature (on by default).
pub fn https_fetcher(options: HttpOptions) -> Fetcher {
    let options = Arc::new(options);
    Arc::new(move |request, max_bytes| {
        let options = Arc::clone(&options);
        Box::pin(async move {
            allowed(request.uri())?;
            let answer =
                crate::transport::http::fetch::exchange(&options, request, max_bytes).await?;
            Ok((answer.status, answer.body))
        })
    })
}

/// The default fetcher, under its former name.
#[deprecated(note = "it reaches https:// too now; use `https_fetcher(HttpOptions::default())`")]
pub fn loopback_fetcher() -> Fetcher {
    https_fetcher(HttpOptions::default())
}

/// Whether the default fetcher may fetch `uri`: `https://`, or `http://`
/// on `localhost` or a loopback address.
fn allowed(uri: &http::Uri) -> Result<(), String> {
    match uri.scheme_str() {
        Some("https") => Ok(()),
        Some("http") => {
            let host = uri.host().unwrap_or_default();
            let bare = host.trim_start_matches('[').trim_end_matches(']');
            if bare.eq_ignore_ascii_case("localhost")
                || bare.parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback())
            {
                Ok(())
            } else {
                Err(format!(
                    "plain http:// to {host}, which is not a loopback address; \
                     the authorization server must be reached over https:// (http:// goes to loopback only)"
                ))
            }
        }
        Some(other) => Err(format!(
            "the scheme {other:?} cannot be fetched; use an https:// URL"
        )),
        None => Err("not an absolute URL; use an https:// URL".into()),
    }
}

/// Sends `request` with `fetcher`, within `limit`.
pub(crate) async fn fetch(
    fetcher: &Fetcher,
    request: http::Request<Bytes>,
    max_bytes: usize,
    limit: Duration,
) -> Result<(http::StatusCode, Bytes), String> {
    let uri = request.uri().to_string();
    match tokio::time::timeout(limit, fetcher(request, max_bytes)).await {
        Ok(Ok(answer)) => Ok(answer),
        Ok(Err(e)) => Err(format!("{uri}: {e}")),
        Err(_) => Err(format!("{uri}: no answer within {} ms", limit.as_millis())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn refused(url: &str) -> String {
        let request = http::Request::get(url).body(Bytes::new()).unwrap();
        fetch(
            &https_fetcher(HttpOptions::default()),
            request,
            1024,
            Duration::from_secs(5),
        )
        .await
        .unwrap_err()
    }

    #[tokio::test]
    async fn plain_http_goes_to_loopback_only() {
        for url in [
            "http://example.com/jwks",
            "http://10.0.0.1/jwks",
            "http://[2001:db8::1]/jwks",
        ] {
            let e = refused(url).await;
            assert!(
                e.contains("not a loopback address") && e.contains("https://"),
                "{url}: {e}"
            );
            assert!(e.starts_with(url), "the error names the URL: {e}");
        }
        assert!(refused("ftp://127.0.0.1/jwks").await.contains("\"ftp\""));
    }

    #[test]
    fn https_and_loopback_http_are_allowed() {
        for url in [
            "https://auth.example.com/jwks",
            "http://127.0.0.1:9/jwks",
            "http://localhost/jwks",
            "http://[::1]:8/jwks",
        ] {
            assert!(allowed(&url.parse().unwrap()).is_ok(), "{url}");
        }
    }
}
