//! [`JwtVerifier`]: JWT access tokens (RFC 9068 style) verified against
//! the authorization server's key set (JWKS), with the `jsonwebtoken`
//! crate doing signatures and registered claims. The key set is fetched
//! on first use, cached, and fetched again when a token names a key id
//! the cache lacks (key rotation), at most once per refresh floor. A token
//! must be signed with an allowed asymmetric algorithm (never `none`,
//! never HMAC: the keys are public), by `iss`, for `aud` = the resource,
//! within `exp`/`nbf` give or take a small skew.

use std::str::FromStr;
use std::sync::{Arc, RwLock};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use bytes::Bytes;
use jsonwebtoken::errors::ErrorKind;
use jsonwebtoken::jwk::Jwk;
use jsonwebtoken::{Algorithm, DecodingKey, Validation};
use serde_json::Value;

use super::fetch::{self, Fetcher};
use super::verified::Verified;
use super::{Lookup, TokenError, TokenVerifier, VerifyFuture, MAX_TOKEN_BYTES};
use crate::server::handler::context::Principal;

/// The longest JOSE header accepted (base64url characters).
const MAX_HEADER_CHARS: usize = 2048;

/// How long a verified token is taken on trust before its signature is
/// checked again (never past its `exp`): bounds how long a token signed
/// by a key the authorization server withdrew still passes, when the key
/// set has not been fetched again since.
const VERIFIED_FOR: Duration = Duration::from_secs(300);

/// Settings of a [`JwtVerifier`].
#[derive(Clone)]
pub struct JwtConfig {
    /// The authorization server's issuer identifier (`iss`).
    pub issuer: String,
    /// The audience tokens must name: the resource's canonical URI.
    pub audience: String,
    /// Where the key set is (`jwks_uri` of the server's metadata).
    pub jwks_uri: String,
    /// Signature algorithms accepted (asymmetric only).
    pub algorithms: Vec<Algorithm>,
    /// Clock skew allowed on `exp` and `nbf`.
    pub leeway: Duration,
    /// Key set fetches at most once per this long (unknown key ids
    /// within it are refused without a fetch).
    pub refresh_floor: Duration,
    /// The longest a key set fetch may take.
    pub fetch_timeout: Duration,
    /// The largest key set read.
    pub max_jwks_bytes: usize,
    /// How the key set is fetched.
    pub fetcher: Fetcher,
}

impl std::fmt::Debug for JwtConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("JwtConfig")
            .field("issuer", &self.issuer)
            .field("audience", &self.audience)
            .field("jwks_uri", &self.jwks_uri)
            .field("algorithms", &self.algorithms)
            .finish_non_exhaustive()
    }
}

impl JwtConfig {
    /// Tokens of `issuer` for `audience`, keys from `jwks_uri`: RS256,
    /// RS384, RS512, PS256, PS384, PS512, ES256, ES384 and EdDSA; 60 s of
    /// skew; key set fetched at most every 30 s, within 5 s, at most
    /// 256 KiB; the default [`https_fetcher`](super::https_fetcher)
    /// (`https://`, or `http://` on loopback).
    pub fn new(
        issuer: impl Into<String>,
        audience: impl Into<String>,
        jwks_uri: impl Into<String>,
    ) -> Self {
        use Algorithm::*;
        Self {
            issuer: issuer.into(),
            audience: audience.into(),
            jwks_uri: jwks_uri.into(),
            algorithms: vec![
                RS256, RS384, RS512, PS256, PS384, PS512, ES256, ES384, EdDSA,
            ],
            leeway: Duration::from_secs(60),
            refresh_floor: Duration::from_secs(30),
            fetch_timeout: Duration::from_secs(5),
            max_jwks_bytes: 256 << 10,
            fetcher: super::fetch::https_fetcher(crate::transport::http::HttpOptions::default()),
        }
    }

    /// Accepts only `algorithms` (HMAC ones are left out whatever is asked).
    pub fn algorithms(mut self, algorithms: impl IntoIterator<Item = Algorithm>) -> Self {
        self.algorithms = algorithms.into_iter().filter(|a| !is_hmac(*a)).collect();
        self
    }

    /// Sets the refresh floor.
    pub fn refresh_floor(mut self, floor: Duration) -> Self {
        self.refresh_floor = floor;
        self
    }

    /// Sets the allowed clock skew.
    pub fn leeway(mut self, leeway: Duration) -> Self {
        self.leeway = leeway;
        self
    }

    /// Sets the key set fetch time limit.
    pub fn fetch_timeout(mut self, limit: Duration) -> Self {
        self.fetch_timeout = limit;
        self
    }

    /// Fetches the key set with `fetcher`: e.g. `https_fetcher(options)`
    /// with an extra CA file or a proxy, or any other HTTP client.
    pub fn fetcher(mut self, fetcher: Fetcher) -> Self {
        self.fetcher = fetcher;
        self
    }
}

fn is_hmac(a: Algorithm) -> bool {
    matches!(a, Algorithm::HS256 | Algorithm::HS384 | Algorithm::HS512)
}

/// One usable key of the set.
struct Key {
    kid: Option<String>,
    alg: Option<Algorithm>,
    key: DecodingKey,
}

/// The cached key set.
#[derive(Default)]
struct Keys {
    keys: Vec<Arc<Key>>,
    /// When it was last fetched (successfully or not).
    fetched: Option<Instant>,
}

/// Verifies JWT access tokens; see the module docs.
pub struct JwtVerifier {
    config: JwtConfig,
    keys: RwLock<Keys>,
    /// One key set fetch at a time.
    refreshing: tokio::sync::Mutex<()>,
    /// Tokens already verified ([`super::verified`]), forgotten when the
    /// key set is fetched again.
    verified: Verified,
}

impl std::fmt::Debug for JwtVerifier {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("JwtVerifier")
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

impl JwtVerifier {
    /// A verifier with `config`; the key set is fetched on first use.
    pub fn new(config: JwtConfig) -> Self {
        Self {
            config,
            keys: RwLock::default(),
            refreshing: tokio::sync::Mutex::new(()),
            verified: Verified::default(),
        }
    }

    /// A verifier whose key set is `jwks` (a JWKS document) until a token
    /// names a key it lacks.
    pub fn with_keys(config: JwtConfig, jwks: &str) -> Result<Self, String> {
        let keys = parse_jwks(jwks.as_bytes())?;
        Ok(Self {
            config,
            keys: RwLock::new(Keys {
                keys,
                fetched: None,
            }),
            refreshing: tokio::sync::Mutex::new(()),
            verified: Verified::default(),
        })
    }

    /// The key for a token with `kid` and `alg`, from the cache.
    fn cached(&self, kid: Option<&str>, alg: Algorithm) -> Option<Arc<Key>> {
        let keys = self.keys.read().unwrap_or_else(|p| p.into_inner());
        let mut usable = keys
            .keys
            .iter()
            .filter(|k| k.key.family() == alg.family() && k.alg.is_none_or(|a| a == alg));
        match kid {
            Some(kid) => usable.find(|k| k.kid.as_deref() == Some(kid)).cloned(),
            // Without a key id only a set with one usable key will do.
            None => {
                let first = usable.next()?;
                usable.next().is_none().then(|| Arc::clone(first))
            }
        }
    }

    /// Fetches the key set again unless that was done within the floor
    /// (or by another request while this one waited).
    async fn refresh(&self, seen: Option<Instant>) -> Result<(), TokenError> {
        let _one = self.refreshing.lock().await;
        let last = self.keys.read().unwrap_or_else(|p| p.into_inner()).fetched;
        if last != seen || last.is_some_and(|t| t.elapsed() < self.config.refresh_floor) {
            return Ok(());
        }
        let request = http::Request::get(self.config.jwks_uri.as_str())
            .header(http::header::ACCEPT, "application/json")
            .body(Bytes::new())
            .map_err(|e| TokenError::Unavailable(format!("bad jwks_uri: {e}")))?;
        let fetched = fetch::fetch(
            &self.config.fetcher,
            request,
            self.config.max_jwks_bytes,
            self.config.fetch_timeout,
        )
        .await;
        let parsed = fetched.and_then(|(status, body)| {
            if !status.is_success() {
                return Err(format!("the key set answered {status}"));
            }
            parse_jwks(&body)
        });
        let mut keys = self.keys.write().unwrap_or_else(|p| p.into_inner());
        keys.fetched = Some(Instant::now());
        match parsed {
            Ok(list) => {
                keys.keys = list;
                self.verified.clear();
                Ok(())
            }
            Err(e) => {
                tracing::warn!(error = %e, jwks_uri = %self.config.jwks_uri, "the key set was not fetched");
                Err(TokenError::Unavailable(format!(
                    "the key set was not fetched: {e}"
                )))
            }
        }
    }

    async fn check(&self, token: &str) -> Result<Principal, TokenError> {
        if token.len() > MAX_TOKEN_BYTES {
            return Err(TokenError::Invalid(format!(
                "longer than {MAX_TOKEN_BYTES} bytes"
            )));
        }
        // A token verified before is not checked again while its answer
        // holds (at most VERIFIED_FOR, never past `exp` + leeway).
        let (digest, hit) = self.verified.get(token);
        if let Some(principal) = hit {
            return Ok(Principal::clone(&principal));
        }
        self.check_new(token, digest).await
    }

    /// A token no answer is held for, whose digest is `digest`: checked in
    /// full, and its answer kept when it passes.
    async fn check_new(&self, token: &str, digest: u128) -> Result<Principal, TokenError> {
        let header_len = token.find('.').unwrap_or(token.len());
        if header_len > MAX_HEADER_CHARS {
            return Err(TokenError::Invalid(format!(
                "a JOSE header longer than {MAX_HEADER_CHARS} characters"
            )));
        }
        let header = jsonwebtoken::decode_header(token)
            .map_err(|e| TokenError::Invalid(format!("not a signed JWT: {e}")))?;
        let alg = header.alg;
        if is_hmac(alg) || !self.config.algorithms.contains(&alg) {
            return Err(TokenError::Invalid(format!(
                "the algorithm {alg:?} is not accepted"
            )));
        }
        let kid = header.kid.as_deref();
        let key = match self.cached(kid, alg) {
            Some(key) => key,
            None => {
                let seen = self.keys.read().unwrap_or_else(|p| p.into_inner()).fetched;
                self.refresh(seen).await?;
                self.cached(kid, alg).ok_or_else(|| {
                    TokenError::Invalid(format!(
                        "no key {:?} for {alg:?} in the key set",
                        kid.unwrap_or("")
                    ))
                })?
            }
        };
        let mut validation = Validation::new(alg);
        validation.set_issuer(&[&self.config.issuer]);
        validation.set_audience(&[&self.config.audience]);
        validation.set_required_spec_claims(&["exp", "iss", "aud"]);
        validation.leeway = self.config.leeway.as_secs();
        validation.validate_nbf = true;
        let data =
            jsonwebtoken::decode::<Value>(token, &key.key, &validation).map_err(|e| {
                match e.kind() {
                    ErrorKind::ExpiredSignature => TokenError::Expired,
                    ErrorKind::ImmatureSignature => {
                        TokenError::Invalid("not valid yet (nbf)".into())
                    }
                    ErrorKind::InvalidAudience => {
                        TokenError::Invalid("issued for another resource (aud)".into())
                    }
                    ErrorKind::InvalidIssuer => {
                        TokenError::Invalid("issued by another authorization server (iss)".into())
                    }
                    ErrorKind::InvalidSignature => {
                        TokenError::Invalid("the signature does not verify".into())
                    }
                    _ => TokenError::Invalid(format!("rejected: {e}")),
                }
            })?;
        let principal = principal_of(data.claims)?;
        self.verified.keep(digest, &principal, VERIFIED_FOR);
        Ok(principal)
    }
}

impl TokenVerifier for JwtVerifier {
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

/// The principal a token's claims name: `sub` (or the client), the
/// client (`client_id`, or `azp`), the scopes (`scope`, space-separated,
/// or an `scp` array) and `exp`.
pub(crate) fn principal_of(claims: Value) -> Result<Principal, TokenError> {
    let text = |k: &str| claims.get(k).and_then(Value::as_str).map(str::to_owned);
    let client_id = text("client_id").or_else(|| text("azp"));
    let subject = text("sub")
        .or_else(|| client_id.clone())
        .ok_or_else(|| TokenError::Invalid("no sub or client_id".into()))?;
    let scopes = match (claims.get("scope"), claims.get("scp")) {
        (Some(Value::String(s)), _) => s
            .split(' ')
            .filter(|s| !s.is_empty())
            .map(str::to_owned)
            .collect(),
        (_, Some(Value::Array(list))) => list
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_owned)
            .collect(),
        (_, Some(Value::String(s))) => s
            .split(' ')
            .filter(|s| !s.is_empty())
            .map(str::to_owned)
            .collect(),
        _ => Vec::new(),
    };
    let expires_at = claims
        .get("exp")
        .and_then(Value::as_u64)
        .map(|s| UNIX_EPOCH + Duration::from_secs(s));
    Ok(Principal {
        subject,
        scopes,
        claims,
        client_id,
        expires_at,
    })
}

/// Whether `exp` (seconds since the epoch) is past.
pub(crate) fn expired(exp: u64) -> bool {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .is_ok_and(|now| now.as_secs() >= exp)
}

/// The signature keys of a JWKS document: symmetric keys, keys for
/// encryption and keys this build cannot use are left out.
fn parse_jwks(body: &[u8]) -> Result<Vec<Arc<Key>>, String> {
    let doc: Value =
        serde_json::from_slice(body).map_err(|e| format!("the key set is not JSON: {e}"))?;
    let list = doc
        .get("keys")
        .and_then(Value::as_array)
        .ok_or("the key set has no \"keys\" array")?;
    let mut keys = Vec::new();
    for raw in list.iter().take(100) {
        let member = |k: &str| raw.get(k).and_then(Value::as_str);
        if member("use").is_some_and(|u| u != "sig")
            || !matches!(member("kty"), Some("RSA" | "EC" | "OKP"))
        {
            continue;
        }
        // An Ed25519 key is 32 bytes: 43 base64url characters.
        if member("kty") == Some("OKP")
            && (member("crv") != Some("Ed25519") || member("x").map(str::len) != Some(43))
        {
            continue;
        }
        let alg = match member("alg") {
            None => None,
            Some(name) => match Algorithm::from_str(name) {
                Ok(a) if !is_hmac(a) => Some(a),
                _ => continue,
            },
        };
        let Ok(jwk) = serde_json::from_value::<Jwk>(raw.clone()) else {
            continue;
        };
        let Ok(key) = DecodingKey::from_jwk(&jwk) else {
            continue;
        };
        keys.push(Arc::new(Key {
            kid: member("kid").map(str::to_owned),
            alg,
            key,
        }));
    }
    Ok(keys)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn garbage_key_sets_are_errors_or_empty_never_panics() {
        assert!(parse_jwks(b"<html>").is_err());
        assert!(parse_jwks(b"{}").is_err());
        let deep = format!("{}{}", "[".repeat(10_000), "]".repeat(10_000));
        assert!(parse_jwks(deep.as_bytes()).is_err());
        let odd = br#"{"keys":[1,{"kty":"oct","k":"c2VjcmV0"},{"kty":"OKP","crv":"Ed25519","x":"AA"},
            {"kty":"RSA","n":"!!","e":"AQAB"},{"kty":"EC","crv":"P-256","x":"AA","y":"AA"},{"kty":"RSA","alg":"HS256","n":"AQAB","e":"AQAB"}]}"#;
        let keys = parse_jwks(odd).unwrap();
        // Only keys that decode are kept; none of these is a usable public key
        // except possibly a malformed RSA one the crate accepts lazily.
        assert!(keys
            .iter()
            .all(|k| k.key.family() != jsonwebtoken::AlgorithmFamily::Hmac));
    }

    #[test]
    fn claims_name_the_principal() {
        let p = principal_of(serde_json::json!({ "sub": "alice", "client_id": "app", "scope": "a  b", "exp": 2000000000u64 })).unwrap();
        assert_eq!(
            (p.subject.as_str(), p.client_id.as_deref(), p.scopes.clone()),
            ("alice", Some("app"), vec!["a".to_owned(), "b".to_owned()])
        );
        assert_eq!(
            p.expires_at,
            Some(UNIX_EPOCH + Duration::from_secs(2000000000))
        );
        let p = principal_of(serde_json::json!({ "azp": "svc", "scp": ["x"] })).unwrap();
        assert_eq!(
            (p.subject.as_str(), p.scopes.clone()),
            ("svc", vec!["x".to_owned()])
        );
        assert!(principal_of(serde_json::json!({})).is_err());
        assert!(expired(1));
        assert!(!expired(u64::MAX / 2));
    }
}
