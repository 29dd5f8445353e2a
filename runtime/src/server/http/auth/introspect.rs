//! [`IntrospectionVerifier`]: opaque (or any) access tokens checked by
//! asking the authorization server (RFC 7662 token introspection), the
//! resource server authenticating with `client_secret_post`. Answers are
//! kept briefly ([`super::verified`]: by the token's SHA-256, never past
//! the token's `exp`, in a bounded table).

use std::time::Duration;

use bytes::Bytes;
use serde_json::Value;

use super::fetch::{self, Fetcher};
use super::jwt::{expired, principal_of};
use super::verified::Verified;
use super::{Lookup, TokenError, TokenVerifier, VerifyFuture, MAX_TOKEN_BYTES};
use crate::server::handler::context::Principal;

/// Settings of an [`IntrospectionVerifier`].
#[derive(Clone)]
pub struct IntrospectionConfig {
    /// The introspection endpoint.
    pub endpoint: String,
    /// This resource server's client id at the authorization server.
    pub client_id: String,
    /// Its secret.
    pub client_secret: String,
    /// The audience an active token must name (the resource's URI);
    /// `None` accepts a token without `aud`.
    pub audience: Option<String>,
    /// How long an answer is reused.
    pub cache_ttl: Duration,
    /// The longest one introspection may take.
    pub timeout: Duration,
    /// How the endpoint is reached.
    pub fetcher: Fetcher,
}

impl std::fmt::Debug for IntrospectionConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("IntrospectionConfig")
            .field("endpoint", &self.endpoint)
            .field("client_id", &self.client_id)
            .finish_non_exhaustive()
    }
}

impl IntrospectionConfig {
    /// Introspection at `endpoint` as client `client_id`, for tokens whose
    /// `aud` names `audience`; answers reused for 30 s; 5 s time limit;
    /// the default [`https_fetcher`](super::https_fetcher).
    pub fn new(
        endpoint: impl Into<String>,
        client_id: impl Into<String>,
        client_secret: impl Into<String>,
        audience: impl Into<String>,
    ) -> Self {
        Self {
            endpoint: endpoint.into(),
            client_id: client_id.into(),
            client_secret: client_secret.into(),
            audience: Some(audience.into()),
            cache_ttl: Duration::from_secs(30),
            timeout: Duration::from_secs(5),
            fetcher: fetch::https_fetcher(crate::transport::http::HttpOptions::default()),
        }
    }

    /// Sets how long answers are reused.
    pub fn cache_ttl(mut self, ttl: Duration) -> Self {
        self.cache_ttl = ttl;
        self
    }

    /// Reaches the endpoint with `fetcher`: e.g. `https_fetcher(options)`
    /// with an extra CA file or a proxy, or any other HTTP client.
    pub fn fetcher(mut self, fetcher: Fetcher) -> Self {
        self.fetcher = fetcher;
        self
    }
}

/// Verifies tokens by introspection; see the module docs.
pub struct IntrospectionVerifier {
    config: IntrospectionConfig,
    verified: Verified,
}

impl std::fmt::Debug for IntrospectionVerifier {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("IntrospectionVerifier")
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

impl IntrospectionVerifier {
    /// A verifier with `config`.
    pub fn new(config: IntrospectionConfig) -> Self {
        Self {
            config,
            verified: Verified::default(),
        }
    }

    async fn check(&self, token: &str) -> Result<Principal, TokenError> {
        if token.len() > MAX_TOKEN_BYTES {
            return Err(TokenError::Invalid(format!(
                "longer than {MAX_TOKEN_BYTES} bytes"
            )));
        }
        let (digest, hit) = self.verified.get(token);
        if let Some(principal) = hit {
            return Ok(Principal::clone(&principal));
        }
        self.check_new(token, digest).await
    }

    /// A token no answer is held for, whose digest is `digest`: asked
    /// about at the endpoint, and the answer kept when it is active.
    async fn check_new(&self, token: &str, digest: u128) -> Result<Principal, TokenError> {
        let form = format!(
            "token={}&token_type_hint=access_token&client_id={}&client_secret={}",
            form_encode(token),
            form_encode(&self.config.client_id),
            form_encode(&self.config.client_secret)
        );
        let request = http::Request::post(self.config.endpoint.as_str())
            .header(
                http::header::CONTENT_TYPE,
                "application/x-www-form-urlencoded",
            )
            .header(http::header::ACCEPT, "application/json")
            .body(Bytes::from(form))
            .map_err(|e| TokenError::Unavailable(format!("bad introspection endpoint: {e}")))?;
        let (status, body) =
            fetch::fetch(&self.config.fetcher, request, 64 << 10, self.config.timeout)
                .await
                .map_err(TokenError::Unavailable)?;
        if !status.is_success() {
            return Err(TokenError::Unavailable(format!(
                "the introspection endpoint answered {status}"
            )));
        }
        let answer: Value = serde_json::from_slice(&body).map_err(|e| {
            TokenError::Unavailable(format!("the introspection answer is not JSON: {e}"))
        })?;
        let principal = self.judge(answer)?;
        self.verified
            .keep(digest, &principal, self.config.cache_ttl);
        Ok(principal)
    }

    /// The principal of an introspection answer, if the token is active,
    /// unexpired and for this resource.
    fn judge(&self, answer: Value) -> Result<Principal, TokenError> {
        if answer.get("active") != Some(&Value::Bool(true)) {
            return Err(TokenError::Invalid(
                "the authorization server says the token is not active".into(),
            ));
        }
        if answer
            .get("exp")
            .and_then(Value::as_u64)
            .is_some_and(expired)
        {
            return Err(TokenError::Expired);
        }
        if let Some(audience) = &self.config.audience {
            let named = match answer.get("aud") {
                Some(Value::String(a)) => a == audience,
                Some(Value::Array(list)) => list.iter().any(|a| a.as_str() == Some(audience)),
                _ => false,
            };
            if !named {
                return Err(TokenError::Invalid(
                    "issued for another resource (aud)".into(),
                ));
            }
        }
        principal_of(answer)
    }
}

impl TokenVerifier for IntrospectionVerifier {
    fn verify<'a>(&'a self, token: &'a str) -> VerifyFuture<'a> {
        Box::pin(self.check(token))
    }

    fn lookup<'a>(&'a self, token: &'a str) -> Lookup<'a> {
        if token.len() > MAX_TOKEN_BYTES {
            return Lookup::Verify(self.verify(token));
        }
        self.verified
            .lookup(token, |digest| self.check_new(token, digest))
    }
}

/// `application/x-www-form-urlencoded` encoding of a value.
fn form_encode(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for b in text.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn form_values_are_percent_encoded() {
        assert_eq!(form_encode("a+b/c= d&é"), "a%2Bb%2Fc%3D%20d%26%C3%A9");
    }

    #[test]
    fn only_active_unexpired_tokens_for_this_resource_pass() {
        let v = IntrospectionVerifier::new(IntrospectionConfig::new(
            "http://127.0.0.1:1/i",
            "rs",
            "s",
            "https://r/mcp",
        ));
        let ok = serde_json::json!({ "active": true, "sub": "alice", "aud": ["https://r/mcp"], "scope": "a", "exp": 4000000000u64 });
        assert_eq!(v.judge(ok).unwrap().subject, "alice");
        assert!(matches!(
            v.judge(serde_json::json!({ "active": false })),
            Err(TokenError::Invalid(_))
        ));
        assert_eq!(
            v.judge(
                serde_json::json!({ "active": true, "sub": "a", "aud": "https://r/mcp", "exp": 1 })
            ),
            Err(TokenError::Expired)
        );
        assert!(matches!(
            v.judge(serde_json::json!({ "active": true, "sub": "a", "aud": "https://other" })),
            Err(TokenError::Invalid(_))
        ));
    }
}
