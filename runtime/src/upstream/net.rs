//! Sending a tool's request: one [`Connector`] and keep-alive [`Pool`] per
//! origin (made on first use, TLS verified, the proxy of the
//! [`HttpOptions`] or the environment, the connect timeout), one overall
//! deadline per request (retries, waits and redirects included), retries
//! (`retry.rs`), redirects and the answer read up to a size limit.
//!
//! Redirects: `GET` and `HEAD` follow `301`, `302`, `303`, `307` and
//! `308`; other methods follow only `307` and `308`, with their body; at
//! most [`MAX_REDIRECTS`]. [`Secrets`] (credentials, and the
//! [`HttpOptions::headers`]) go only to the origin of the first request:
//! a redirect elsewhere is followed without them. Error texts name the
//! method and path, never a credential.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use bytes::Bytes;
use http::header::{HeaderName, HeaderValue, COOKIE, HOST, LOCATION, PROXY_AUTHORIZATION};
use http::{HeaderMap, Method, Request, StatusCode};
use http_body_util::{BodyExt, Full};
use hyper_util::rt::TokioIo;
use tokio::time::Instant;
use url::Url;

use super::response::ApiResponse;
use super::retry;
use crate::client::http::pool::{self, Lease, Live, Pool};
use crate::transport::http::connect::Connector;
use crate::transport::http::HttpOptions;
use crate::transport::ConnectErrorKind;

/// The most redirects one request follows.
pub(crate) const MAX_REDIRECTS: usize = 5;

/// A request before credentials: the URL holds no secret.
#[derive(Debug, Clone)]
pub(crate) struct Outgoing {
    pub(crate) method: Method,
    pub(crate) url: Url,
    /// Headers from arguments, `Content-Type` of the body.
    pub(crate) headers: HeaderMap,
    /// `name=value` cookie pieces from arguments.
    pub(crate) cookies: Vec<String>,
    pub(crate) body: Option<Bytes>,
}

/// What is added on the wire for the first request's origin only.
#[derive(Default)]
pub(crate) struct Secrets {
    /// The [`HttpOptions::headers`] of the API's requests (sent first:
    /// a scheme's header of the same name replaces them).
    pub(crate) extra: HeaderMap,
    /// `Authorization`, an API key header (marked sensitive).
    pub(crate) headers: Vec<(HeaderName, HeaderValue)>,
    /// Encoded `name=value` query pieces (API keys in the query).
    pub(crate) query: Vec<String>,
    /// `name=value` cookie pieces (API keys in a cookie).
    pub(crate) cookies: Vec<String>,
}

impl std::fmt::Debug for Secrets {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Secrets(..)")
    }
}

/// Per-request bounds.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Limits {
    pub(crate) timeout: Duration,
    pub(crate) max_bytes: usize,
    pub(crate) max_retries: u32,
}

/// The connections of one origin.
struct Origin {
    connector: Connector,
    pool: Arc<Pool>,
}

/// The upstream client's connections, by origin.
pub(crate) struct Net {
    options: HttpOptions,
    origins: Mutex<HashMap<String, Arc<Origin>>>,
}

impl std::fmt::Debug for Net {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Net")
            .field("options", &self.options)
            .finish_non_exhaustive()
    }
}

/// Why one exchange failed.
enum Failure {
    /// No connection: nothing was sent, the request may go again.
    Connect(String),
    /// Anything else.
    Fatal(String),
}

/// One answer, read.
struct ApiAnswer {
    status: StatusCode,
    headers: HeaderMap,
    body: Bytes,
}

impl Net {
    pub(crate) fn new(options: HttpOptions) -> Self {
        Self {
            options,
            origins: Mutex::new(HashMap::new()),
        }
    }

    /// Sends `out` (with `secrets` for its origin) and reads the answer,
    /// whatever its status; `Err` for no answer: a connection failure, the
    /// timeout, an answer over the size limit.
    pub(crate) async fn send(
        &self,
        out: &Outgoing,
        secrets: &Secrets,
        limits: Limits,
    ) -> Result<ApiResponse, String> {
        let shown = format!("{} {}", out.method, out.url.path());
        let deadline = Instant::now() + limits.timeout;
        match tokio::time::timeout_at(deadline, self.run(out, secrets, limits, deadline)).await {
            Ok(Ok(response)) => Ok(response),
            Ok(Err(e)) => Err(format!("{shown} failed: {e}")),
            Err(_) => Err(format!(
                "{shown} failed: no answer within {:?} (the request timed out)",
                limits.timeout
            )),
        }
    }

    async fn run(
        &self,
        out: &Outgoing,
        secrets: &Secrets,
        limits: Limits,
        deadline: Instant,
    ) -> Result<ApiResponse, String> {
        let home = out.url.origin();
        let mut method = out.method.clone();
        let mut url = out.url.clone();
        let mut body = out.body.clone();
        let mut headers = out.headers.clone();
        let (mut retries, mut redirects) = (0u32, 0usize);
        loop {
            let trusted = url.origin() == home;
            let secrets = trusted.then_some(secrets);
            let attempt = self
                .exchange(
                    &method,
                    &url,
                    &headers,
                    &out.cookies,
                    body.clone(),
                    secrets,
                    limits.max_bytes,
                )
                .await;
            let answer = match attempt {
                Ok(answer) => answer,
                Err(Failure::Connect(e)) if retries < limits.max_retries => {
                    retries += 1;
                    tracing::debug!(error = %e, retries, "upstream: connection failed; retrying");
                    tokio::time::sleep(retry::wait(None, retries)).await;
                    continue;
                }
                Err(Failure::Connect(e) | Failure::Fatal(e)) => return Err(e),
            };
            if retry::retryable(answer.status)
                && retry::idempotent(&method)
                && retries < limits.max_retries
            {
                retries += 1;
                let wait = retry::wait(Some(&answer.headers), retries);
                if Instant::now() + wait < deadline {
                    tracing::debug!(status = %answer.status, ?wait, retries, "upstream: retrying");
                    tokio::time::sleep(wait).await;
                    continue;
                }
            }
            if let Some(next) = redirect(&method, &url, &answer) {
                if redirects >= MAX_REDIRECTS {
                    return Err(format!("more than {MAX_REDIRECTS} redirects"));
                }
                redirects += 1;
                if answer.status == StatusCode::SEE_OTHER && method != Method::HEAD {
                    method = Method::GET;
                }
                if !matches!(
                    answer.status,
                    StatusCode::TEMPORARY_REDIRECT | StatusCode::PERMANENT_REDIRECT
                ) {
                    body = None;
                    headers.remove(http::header::CONTENT_TYPE);
                }
                url = next;
                continue;
            }
            return Ok(ApiResponse {
                method,
                url: url.to_string(),
                status: answer.status,
                headers: answer.headers,
                body: answer.body,
            });
        }
    }

    /// The connections of `url`'s origin, made on first use.
    fn origin(&self, url: &Url) -> Result<Arc<Origin>, Failure> {
        let key = url.origin().ascii_serialization();
        let mut origins = self.origins.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(origin) = origins.get(&key) {
            return Ok(Arc::clone(origin));
        }
        let https = match url.scheme() {
            "https" => true,
            "http" => false,
            other => return Err(Failure::Fatal(format!("the scheme {other:?} is not HTTP"))),
        };
        let host = url
            .host_str()
            .ok_or_else(|| Failure::Fatal("the URL has no host".into()))?
            .trim_start_matches('[')
            .trim_end_matches(']')
            .to_owned();
        let port = url.port_or_known_default().unwrap_or(80);
        let connector = Connector::new(&key, &host, port, https, &self.options)
            .map_err(|e| Failure::Fatal(e.to_string()))?;
        let origin = Arc::new(Origin {
            connector,
            pool: Pool::new(),
        });
        origins.insert(key, Arc::clone(&origin));
        Ok(origin)
    }

    /// One request on one connection of `url`'s origin, its answer read.
    #[allow(clippy::too_many_arguments)]
    async fn exchange(
        &self,
        method: &Method,
        url: &Url,
        headers: &HeaderMap,
        cookies: &[String],
        body: Option<Bytes>,
        secrets: Option<&Secrets>,
        max_bytes: usize,
    ) -> Result<ApiAnswer, Failure> {
        let origin = self.origin(url)?;
        let forwarding = origin.connector.forwarding();
        let mut query: Vec<&str> = url.query().into_iter().collect();
        if let Some(s) = secrets {
            query.extend(s.query.iter().map(String::as_str));
        }
        let mut target = if forwarding.is_some() {
            let mut absolute = url.clone();
            absolute.set_query(None);
            absolute.set_fragment(None);
            absolute.to_string()
        } else {
            url.path().to_owned()
        };
        if !query.is_empty() {
            target.push('?');
            target.push_str(&query.join("&"));
        }
        let mut request = Request::new(Full::new(body.unwrap_or_default()));
        *request.method_mut() = method.clone();
        *request.uri_mut() = target
            .parse()
            .map_err(|e| Failure::Fatal(format!("the request's URL is not valid: {e}")))?;
        let h = request.headers_mut();
        *h = headers.clone();
        let authority = match url.port() {
            Some(p) => format!("{}:{p}", url.host_str().unwrap_or_default()),
            None => url.host_str().unwrap_or_default().to_owned(),
        };
        h.insert(
            HOST,
            HeaderValue::from_str(&authority).map_err(|e| Failure::Fatal(e.to_string()))?,
        );
        if let Some(Some(auth)) = forwarding {
            h.insert(PROXY_AUTHORIZATION, auth);
        }
        let mut all_cookies: Vec<&str> = cookies.iter().map(String::as_str).collect();
        if let Some(s) = secrets {
            for (name, value) in &s.extra {
                h.append(name, value.clone());
            }
            for (name, value) in &s.headers {
                h.insert(name, value.clone());
            }
            all_cookies.extend(s.cookies.iter().map(String::as_str));
        }
        if !all_cookies.is_empty() {
            let mut value = HeaderValue::from_str(&all_cookies.join("; "))
                .map_err(|_| Failure::Fatal("a cookie holds characters a header cannot".into()))?;
            value.set_sensitive(secrets.is_some_and(|s| !s.cookies.is_empty()));
            h.insert(COOKIE, value);
        }
        let lease = checkout(&origin).await?;
        let (response, lease) = send_on(&origin, lease, request).await?;
        let keep_alive = pool::keeps_alive(&response);
        let status = response.status();
        let headers = response.headers().clone();
        let mut incoming = response.into_body();
        let mut out = Vec::new();
        while let Some(frame) = incoming.frame().await {
            let frame =
                frame.map_err(|e| Failure::Fatal(format!("the answer could not be read: {e}")))?;
            if let Ok(data) = frame.into_data() {
                if out.len() + data.len() > max_bytes {
                    return Err(Failure::Fatal(format!(
                        "the answer ({status}) is larger than {max_bytes} bytes, the limit; it was not read further"
                    )));
                }
                out.extend_from_slice(&data);
            }
        }
        if keep_alive {
            lease.release();
        }
        Ok(ApiAnswer {
            status,
            headers,
            body: Bytes::from(out),
        })
    }
}

/// An idle connection of the origin that is still open, else a new one.
async fn checkout(origin: &Origin) -> Result<Lease, Failure> {
    while let Some(mut lease) = origin.pool.take() {
        if lease.ready().await {
            return Ok(lease);
        }
    }
    let stream = origin.connector.connect().await.map_err(|e| {
        if e.kind() == ConnectErrorKind::Config {
            Failure::Fatal(e.to_string())
        } else {
            Failure::Connect(e.to_string())
        }
    })?;
    let (sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
        .await
        .map_err(|e| Failure::Connect(format!("HTTP handshake failed: {e}")))?;
    let driver = tokio::spawn(async move {
        let _ = connection.await;
    });
    Ok(origin.pool.lease(Live::new(sender, driver.abort_handle())))
}

/// Sends on `lease`; a pooled connection found closed before the request
/// was written is replaced and the request sent on the new one.
async fn send_on(
    origin: &Origin,
    mut lease: Lease,
    mut request: Request<Full<Bytes>>,
) -> Result<(http::Response<hyper::body::Incoming>, Lease), Failure> {
    loop {
        match lease.sender().try_send_request(request).await {
            Ok(response) => return Ok((response, lease)),
            Err(mut e) => match e.take_message() {
                Some(unsent) if lease.reused() => {
                    request = unsent;
                    lease = checkout(origin).await?;
                }
                Some(_) => {
                    return Err(Failure::Connect(format!("request not sent: {}", e.error())))
                }
                None => return Err(Failure::Fatal(format!("request failed: {}", e.error()))),
            },
        }
    }
}

/// Where a redirect answer to `method` leads, if it is followed.
fn redirect(method: &Method, url: &Url, answer: &ApiAnswer) -> Option<Url> {
    let follows = match answer.status {
        StatusCode::TEMPORARY_REDIRECT | StatusCode::PERMANENT_REDIRECT => true,
        StatusCode::MOVED_PERMANENTLY | StatusCode::FOUND | StatusCode::SEE_OTHER => {
            *method == Method::GET || *method == Method::HEAD
        }
        _ => false,
    };
    if !follows {
        return None;
    }
    let location = answer.headers.get(LOCATION)?.to_str().ok()?;
    let next = url.join(location).ok()?;
    matches!(next.scheme(), "http" | "https").then_some(next)
}
