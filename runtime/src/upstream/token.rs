//! OAuth 2 client credentials (RFC 6749 §4.4) for an API's `oauth2`
//! scheme with a `tokenUrl`: a form `POST` of
//! `grant_type=client_credentials` (and the operation's scopes) to the
//! token endpoint, the client authenticated with HTTP Basic (§2.3.1: id
//! and secret form-encoded, then base64). The access token is kept and
//! used until [`REFRESH_MARGIN`] before its `expires_in` runs out (a token
//! living no longer than that is fetched for each request; one without
//! `expires_in` is kept until the API answers `401`, see [`TokenSource::forget`]).
//! One fetch at a time per source: concurrent calls wait for it.

use std::time::Duration;

use base64::Engine as _;
use bytes::Bytes;
use http::header::{HeaderValue, ACCEPT, AUTHORIZATION, CONTENT_TYPE};
use http::{HeaderMap, Method};
use tokio::time::Instant;
use url::Url;

use super::net::{Limits, Net, Outgoing, Secrets};
use super::pct::encode;
use super::response::bounded;

/// How long before its expiry a token is replaced.
pub(crate) const REFRESH_MARGIN: Duration = Duration::from_secs(30);

/// The largest token answer read.
const MAX_TOKEN_ANSWER: usize = 64 * 1024;

/// A client-credentials grant and its cached token.
pub(crate) struct TokenSource {
    token_url: Url,
    client_id: String,
    client_secret: String,
    scopes: Vec<String>,
    /// The token and until when it is used (`None`: until a `401`).
    cached: tokio::sync::Mutex<Option<(String, Option<Instant>)>>,
}

impl std::fmt::Debug for TokenSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TokenSource")
            .field("token_url", &self.token_url.as_str())
            .field("scopes", &self.scopes)
            .finish_non_exhaustive()
    }
}

impl TokenSource {
    pub(crate) fn new(
        token_url: Url,
        client_id: String,
        client_secret: String,
        scopes: Vec<String>,
    ) -> Self {
        Self {
            token_url,
            client_id,
            client_secret,
            scopes,
            cached: tokio::sync::Mutex::new(None),
        }
    }

    /// A valid access token: the cached one, else a new one.
    pub(crate) async fn token(&self, net: &Net, limits: Limits) -> Result<String, String> {
        let mut cached = self.cached.lock().await;
        if let Some((token, until)) = cached.as_ref() {
            if until.is_none_or(|t| Instant::now() < t) {
                return Ok(token.clone());
            }
        }
        let (token, lifetime) = self.fetch(net, limits).await?;
        let until = lifetime.map(|l| Instant::now() + l.saturating_sub(REFRESH_MARGIN));
        if lifetime.is_none_or(|l| l > REFRESH_MARGIN) {
            *cached = Some((token.clone(), until));
        } else {
            *cached = None;
        }
        Ok(token)
    }

    /// Drops the cached token (the API refused it).
    pub(crate) async fn forget(&self) {
        *self.cached.lock().await = None;
    }

    async fn fetch(&self, net: &Net, limits: Limits) -> Result<(String, Option<Duration>), String> {
        let mut body = String::from("grant_type=client_credentials");
        if !self.scopes.is_empty() {
            body.push_str("&scope=");
            body.push_str(&encode(&self.scopes.join(" "), false));
        }
        let mut headers = HeaderMap::new();
        headers.insert(
            CONTENT_TYPE,
            HeaderValue::from_static("application/x-www-form-urlencoded"),
        );
        headers.insert(ACCEPT, HeaderValue::from_static("application/json"));
        let basic = base64::engine::general_purpose::STANDARD.encode(format!(
            "{}:{}",
            encode(&self.client_id, false),
            encode(&self.client_secret, false)
        ));
        let mut auth = HeaderValue::from_str(&format!("Basic {basic}"))
            .map_err(|_| "the client id or secret holds characters a header cannot".to_owned())?;
        auth.set_sensitive(true);
        let secrets = Secrets {
            headers: vec![(AUTHORIZATION, auth)],
            ..Secrets::default()
        };
        let out = Outgoing {
            method: Method::POST,
            url: self.token_url.clone(),
            headers,
            cookies: Vec::new(),
            body: Some(Bytes::from(body)),
        };
        let limits = Limits {
            max_bytes: MAX_TOKEN_ANSWER,
            max_retries: 0,
            ..limits
        };
        let failed = |why: String| format!("no access token from {}: {why}", self.token_url);
        let answer = net.send(&out, &secrets, limits).await.map_err(failed)?;
        if !answer.status.is_success() {
            let text = String::from_utf8_lossy(&answer.body);
            return Err(failed(format!(
                "it answered {}: {}",
                answer.status,
                bounded(text.trim(), 1024)
            )));
        }
        let value: serde_json::Value = serde_json::from_slice(&answer.body)
            .map_err(|e| failed(format!("the answer is not JSON: {e}")))?;
        let token = value
            .get("access_token")
            .and_then(|t| t.as_str())
            .filter(|t| !t.is_empty())
            .ok_or_else(|| failed("the answer has no access_token".into()))?;
        if let Some(kind) = value.get("token_type").and_then(|t| t.as_str()) {
            if !kind.eq_ignore_ascii_case("bearer") {
                return Err(failed(format!("the token type {kind:?} is not bearer")));
            }
        }
        let lifetime = value
            .get("expires_in")
            .and_then(|e| {
                e.as_u64()
                    .or_else(|| e.as_str().and_then(|s| s.parse().ok()))
            })
            .map(Duration::from_secs);
        Ok((token.to_owned(), lifetime))
    }
}
