//! OAuth 2.1 authorization of the HTTP server (the MCP authorization
//! specification, server side): [`ResourceMetadata`] published at the RFC
//! 9728 well-known URLs, and [`BearerAuth`], the bearer gate the service
//! runs before every MCP request in both eras. The gate reads the
//! `Authorization` header, asks an async [`TokenVerifier`] for the
//! [`Principal`], and answers what the specification says:
//!
//! - no or malformed token: 401 `WWW-Authenticate: Bearer resource_metadata="…", scope="…"`;
//! - invalid or expired token: 401 with `error="invalid_token"`;
//! - verifier unavailable (key set or introspection endpoint down): 503;
//! - a request for an item whose scopes the token lacks (see
//!   `x-mcpgen.scopes`): 403 `error="insufficient_scope"` naming them.
//!
//! Verifiers with the `oauth` feature: `JwtVerifier` (JWT access tokens,
//! keys from the authorization server's JWKS) and
//! `IntrospectionVerifier` (RFC 7662). With the `oauth` feature the gate
//! also takes DPoP-bound tokens (`BearerAuth::dpop`, RFC 9449): the
//! `DPoP` scheme with a proof, challenges naming `DPoP` beside (or
//! instead of) `Bearer`, and a bound token refused under `Bearer`.

#[cfg(feature = "oauth")]
pub(crate) mod dpop;
#[cfg(feature = "oauth")]
mod env;
#[cfg(feature = "oauth")]
mod fetch;
#[cfg(feature = "oauth")]
mod introspect;
#[cfg(feature = "oauth")]
mod jwt;
mod metadata;
#[cfg(feature = "oauth")]
mod verified;

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use http::{HeaderMap, StatusCode};

#[cfg(feature = "oauth")]
pub use dpop::DpopConfig;
#[cfg(feature = "oauth")]
pub use env::VARIABLES as ENV_VARIABLES;
#[cfg(feature = "oauth")]
#[allow(deprecated)]
pub use fetch::{https_fetcher, loopback_fetcher, FetchFuture, Fetcher};
#[cfg(feature = "oauth")]
pub use introspect::{IntrospectionConfig, IntrospectionVerifier};
#[cfg(feature = "oauth")]
pub use jwt::{JwtConfig, JwtVerifier};
pub use metadata::ResourceMetadata;

use super::AuthRejection;
use crate::server::handler::context::Principal;

/// The longest bearer token accepted (bytes); a longer `Authorization`
/// header is refused before anything reads it.
pub const MAX_TOKEN_BYTES: usize = 8192;

/// Why a token was not accepted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TokenError {
    /// Not a token this server accepts (bad signature, other issuer or
    /// audience, inactive, malformed): 401 `invalid_token`.
    Invalid(String),
    /// It was valid once: 401 `invalid_token`, "expired".
    Expired,
    /// It cannot be checked now (key set or introspection endpoint
    /// unreachable): 503.
    Unavailable(String),
}

impl std::fmt::Display for TokenError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TokenError::Invalid(why) => write!(f, "invalid token: {why}"),
            TokenError::Expired => f.write_str("the token expired"),
            TokenError::Unavailable(why) => write!(f, "the token cannot be verified now: {why}"),
        }
    }
}

impl std::error::Error for TokenError {}

/// What [`TokenVerifier::verify`] returns.
pub type VerifyFuture<'a> =
    Pin<Box<dyn Future<Output = Result<Principal, TokenError>> + Send + 'a>>;

/// What [`TokenVerifier::lookup`] finds for a token.
pub enum Lookup<'a> {
    /// The principal of a token verified before, whose answer still holds.
    Held(Arc<Principal>),
    /// The verification of a token the verifier holds no answer for.
    Verify(VerifyFuture<'a>),
}

impl std::fmt::Debug for Lookup<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Held(principal) => f.debug_tuple("Held").field(principal).finish(),
            Self::Verify(_) => f.write_str("Verify(..)"),
        }
    }
}

/// Turns a bearer token into the caller it stands for. Async, so it may
/// fetch keys or ask an introspection endpoint; it must not block the
/// thread (the gate also bounds it with a timeout).
pub trait TokenVerifier: Send + Sync + 'static {
    /// The principal (subject, client id, scopes, expiry) of `token`.
    fn verify<'a>(&'a self, token: &'a str) -> VerifyFuture<'a>;

    /// What the gate asks first: the principal of `token` when this
    /// verifier already holds an answer for it (taken without a future or
    /// a timer), else its verification, as [`verify`](Self::verify) makes
    /// it but free to reuse what the lookup computed (the built-in
    /// verifiers pass on the token's digest, so a token not held is
    /// digested once). `token` may be any text: only answers for tokens
    /// that passed are held. The gate checks the token's syntax before it
    /// polls the verification, and drops it unpolled when that fails. The
    /// default holds nothing.
    fn lookup<'a>(&'a self, token: &'a str) -> Lookup<'a> {
        Lookup::Verify(self.verify(token))
    }
}

/// The bearer gate: the published metadata and the verifier.
pub struct BearerAuth {
    metadata: ResourceMetadata,
    verifier: Arc<dyn TokenVerifier>,
    /// The metadata document's text.
    document: String,
    /// The metadata's absolute URL (path-aware), as challenges name it.
    metadata_url: String,
    /// The paths the metadata is served at.
    paths: [String; 2],
    /// The `scope` of a 401 challenge (space-separated), if any.
    challenge_scope: Option<String>,
    /// The longest a verification may take (then 503).
    timeout: Duration,
    /// DPoP, when on.
    #[cfg(feature = "oauth")]
    dpop: Option<Arc<dpop::DpopGate>>,
}

impl std::fmt::Debug for BearerAuth {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BearerAuth")
            .field("metadata", &self.metadata)
            .field("timeout", &self.timeout)
            .finish()
    }
}

impl BearerAuth {
    /// Publishes `metadata` and checks every request's bearer token with
    /// `verifier`. Fails when the resource is not an absolute `http(s)`
    /// URL without query or fragment, or names no authorization server.
    pub fn new(metadata: ResourceMetadata, verifier: impl TokenVerifier) -> Result<Self, String> {
        let (metadata_url, paths) = metadata.locations()?;
        let document = metadata.document();
        let challenge_scope =
            (!metadata.scopes_supported.is_empty()).then(|| metadata.scopes_supported.join(" "));
        Ok(Self {
            metadata,
            verifier: Arc::new(verifier),
            document,
            metadata_url,
            paths,
            challenge_scope,
            timeout: Duration::from_secs(10),
            #[cfg(feature = "oauth")]
            dpop: None,
        })
    }

    /// Takes DPoP-bound tokens (RFC 9449) as `config` says, and publishes
    /// it in the metadata (`dpop_signing_alg_values_supported`, and
    /// `dpop_bound_access_tokens_required` when only they are taken).
    /// Fails only when the system has no randomness for nonces.
    #[cfg(feature = "oauth")]
    pub fn dpop(mut self, config: DpopConfig) -> Result<Self, String> {
        self.metadata.dpop_signing_alg_values_supported = dpop::DpopGate::algorithms()
            .into_iter()
            .map(str::to_owned)
            .collect();
        self.metadata.dpop_bound_access_tokens_required = config.is_required();
        self.document = self.metadata.document();
        self.dpop = Some(Arc::new(dpop::DpopGate::new(config)?));
        Ok(self)
    }

    /// Sets the longest a token's verification may take (default 10 s);
    /// a request whose token is not verified in time is answered 503.
    pub fn verify_timeout(mut self, limit: Duration) -> Self {
        self.timeout = limit;
        self
    }

    /// A gate from `MCP_RESOURCE_URL`, `MCP_AUTH_ISSUER` and
    /// `MCP_AUTH_JWKS_URI` (and `MCP_AUTH_SCOPES`, else `scopes`; see
    /// [`ENV_VARIABLES`]): `Ok(None)` when `MCP_RESOURCE_URL` is unset (no
    /// authorization), an error naming what is missing or wrong otherwise.
    #[cfg(feature = "oauth")]
    pub fn jwt_from_env(scopes: &[&str]) -> Result<Option<Self>, String> {
        let Some((metadata, verifier)) = env::jwt_settings(scopes)? else {
            return Ok(None);
        };
        Self::new(metadata, verifier).map(Some)
    }

    /// The published metadata.
    pub fn metadata(&self) -> &ResourceMetadata {
        &self.metadata
    }

    /// The metadata's absolute URL, as `resource_metadata` in challenges.
    pub fn metadata_url(&self) -> &str {
        &self.metadata_url
    }

    /// The metadata document, when `path` is one of its well-known paths
    /// (the path-aware one and the root one).
    pub fn metadata_at(&self, path: &str) -> Option<&str> {
        self.paths
            .iter()
            .any(|p| p == path)
            .then_some(self.document.as_str())
    }

    /// The caller of a `method` request with headers `headers`, or the
    /// answer refusing it.
    pub(crate) async fn admit(
        &self,
        method: &http::Method,
        headers: &HeaderMap,
    ) -> Result<Arc<Principal>, AuthRejection> {
        let (scheme, token) = match authorization(headers, self.takes_dpop()) {
            Ok(found) => found,
            Err(Malformed::Missing) => {
                return Err(self.challenge(
                    StatusCode::UNAUTHORIZED,
                    None,
                    "this server needs a bearer token",
                    Scheme::Bearer,
                ))
            }
            Err(Malformed::Bad(why)) => {
                return Err(self.challenge(
                    StatusCode::UNAUTHORIZED,
                    Some(("invalid_request", why)),
                    why,
                    Scheme::Bearer,
                ));
            }
        };
        if scheme == Scheme::Bearer && self.dpop_required() {
            return Err(self.challenge(
                StatusCode::UNAUTHORIZED,
                Some(("invalid_token", "this server takes DPoP-bound tokens only")),
                "this server takes DPoP-bound tokens only",
                Scheme::Dpop,
            ));
        }
        let proof_key = match scheme {
            Scheme::Dpop => Some(self.check_proof(method, headers, token)?),
            Scheme::Bearer => None,
        };
        let verified = match self.verifier.lookup(token) {
            Lookup::Held(principal) => Ok(principal),
            Lookup::Verify(verification) => {
                if let Err(Malformed::Bad(why)) = check_token68(token) {
                    return Err(self.challenge(
                        StatusCode::UNAUTHORIZED,
                        Some(("invalid_request", why)),
                        why,
                        scheme,
                    ));
                }
                match tokio::time::timeout(self.timeout, verification).await {
                    Ok(result) => result.map(Arc::new),
                    Err(_) => Err(TokenError::Unavailable(format!(
                        "no answer within {} ms",
                        self.timeout.as_millis()
                    ))),
                }
            }
        };
        let principal = match verified {
            Ok(principal) => principal,
            Err(TokenError::Unavailable(why)) => {
                tracing::warn!(reason = %why, "a bearer token could not be verified");
                return Err(AuthRejection {
                    status: StatusCode::SERVICE_UNAVAILABLE,
                    www_authenticate: None,
                    message: "the token cannot be verified now; retry shortly".into(),
                    dpop_nonce: None,
                });
            }
            Err(TokenError::Expired) => {
                return Err(self.challenge(
                    StatusCode::UNAUTHORIZED,
                    Some(("invalid_token", "the token expired")),
                    "the token expired",
                    scheme,
                ))
            }
            Err(TokenError::Invalid(why)) => {
                tracing::debug!(reason = %why, "a bearer token was refused");
                return Err(self.challenge(
                    StatusCode::UNAUTHORIZED,
                    Some(("invalid_token", "the token is not valid for this resource")),
                    &why,
                    scheme,
                ));
            }
        };
        // RFC 9449 §6-§7: a bound token goes with a proof of its key, and
        // only with one.
        let bound = principal
            .claims
            .get("cnf")
            .and_then(|c| c.get("jkt"))
            .and_then(|j| j.as_str());
        match (bound, proof_key.as_deref()) {
            (None, None) => Ok(principal),
            (Some(jkt), Some(key)) if jkt == key => Ok(principal),
            (Some(_), None) => Err(self.challenge(
                StatusCode::UNAUTHORIZED,
                Some((
                    "invalid_token",
                    "a DPoP-bound token must be sent with the DPoP scheme and a proof",
                )),
                "a DPoP-bound token was sent as a bearer token",
                Scheme::Dpop,
            )),
            (Some(_), Some(_)) => Err(self.challenge(
                StatusCode::UNAUTHORIZED,
                Some((
                    "invalid_token",
                    "the token is bound to another key than the proof's",
                )),
                "the DPoP proof's key is not the token's",
                Scheme::Dpop,
            )),
            (None, Some(_)) => Err(self.challenge(
                StatusCode::UNAUTHORIZED,
                Some((
                    "invalid_token",
                    "the token is not DPoP-bound; send it as a bearer token",
                )),
                "a bearer token was sent with the DPoP scheme",
                Scheme::Dpop,
            )),
        }
    }

    /// Whether the `DPoP` scheme is taken.
    fn takes_dpop(&self) -> bool {
        #[cfg(feature = "oauth")]
        return self.dpop.is_some();
        #[cfg(not(feature = "oauth"))]
        false
    }

    /// Whether only DPoP-bound tokens are taken.
    fn dpop_required(&self) -> bool {
        #[cfg(feature = "oauth")]
        return self.dpop.as_ref().is_some_and(|d| d.config().is_required());
        #[cfg(not(feature = "oauth"))]
        false
    }

    /// A nonce for the client's next proof, when nonces are on.
    fn dpop_nonce(&self) -> Option<String> {
        #[cfg(feature = "oauth")]
        return self.dpop.as_ref().and_then(|d| d.nonce());
        #[cfg(not(feature = "oauth"))]
        None
    }

    /// The thumbprint of the key of the request's one valid DPoP proof.
    #[cfg(feature = "oauth")]
    fn check_proof(
        &self,
        method: &http::Method,
        headers: &HeaderMap,
        token: &str,
    ) -> Result<String, AuthRejection> {
        let refuse = |code: &str, why: &str| {
            self.challenge(
                StatusCode::UNAUTHORIZED,
                Some((code, why)),
                why,
                Scheme::Dpop,
            )
        };
        let Some(gate) = &self.dpop else {
            return Err(refuse(
                "invalid_request",
                "this server takes no DPoP proofs",
            ));
        };
        let mut values = headers.get_all(crate::transport::http::DPOP).iter();
        let (Some(value), None) = (values.next(), values.next()) else {
            return Err(refuse(
                "invalid_dpop_proof",
                "the request needs exactly one DPoP header",
            ));
        };
        let Ok(proof) = value.to_str() else {
            return Err(refuse("invalid_dpop_proof", "the DPoP header is not ASCII"));
        };
        match gate.check(proof, method.as_str(), &self.metadata.resource, token) {
            Ok(jkt) => Ok(jkt),
            Err(dpop::ProofError::UseNonce) => Err(refuse(
                "use_dpop_nonce",
                "the DPoP proof needs the nonce of the DPoP-Nonce header",
            )),
            Err(dpop::ProofError::Invalid(why)) => {
                tracing::debug!(reason = %why, "a DPoP proof was refused");
                Err(refuse("invalid_dpop_proof", &why))
            }
        }
    }

    #[cfg(not(feature = "oauth"))]
    fn check_proof(
        &self,
        _: &http::Method,
        _: &HeaderMap,
        _: &str,
    ) -> Result<String, AuthRejection> {
        Err(self.challenge(
            StatusCode::UNAUTHORIZED,
            Some(("invalid_request", "this server takes no DPoP proofs")),
            "this server takes no DPoP proofs",
            Scheme::Bearer,
        ))
    }

    /// 403 `insufficient_scope` for a caller holding `held` that needs
    /// `required`: the challenge's `scope` is both, so that a client asking
    /// for it again keeps what it had (step-up).
    pub(crate) fn insufficient_scope(
        &self,
        held: &Principal,
        required: &[String],
        message: &str,
    ) -> AuthRejection {
        let mut scopes: Vec<&str> = held.scopes.iter().map(String::as_str).collect();
        scopes.extend(
            required
                .iter()
                .map(String::as_str)
                .filter(|r| !held.scopes.iter().any(|s| s == r)),
        );
        let scope = scopes.join(" ");
        let challenge = format!(
            "Bearer error=\"insufficient_scope\", scope=\"{}\", resource_metadata=\"{}\", error_description=\"{}\"",
            quoted(&scope),
            quoted(&self.metadata_url),
            quoted("the token lacks scopes this request needs")
        );
        AuthRejection {
            status: StatusCode::FORBIDDEN,
            www_authenticate: Some(challenge),
            message: message.to_owned(),
            dpop_nonce: None,
        }
    }

    /// The challenges of a 401: `Bearer` (unless only DPoP is taken) and
    /// `DPoP` (when taken) with the metadata URL and the scope; `error` on
    /// the one the request used (`on`); a nonce when nonces are on.
    fn challenge(
        &self,
        status: StatusCode,
        error: Option<(&str, &str)>,
        message: &str,
        on: Scheme,
    ) -> AuthRejection {
        let mut params = format!("resource_metadata=\"{}\"", quoted(&self.metadata_url));
        if let Some(scope) = &self.challenge_scope {
            params.push_str(&format!(", scope=\"{}\"", quoted(scope)));
        }
        let error = error.map(|(code, description)| {
            format!(
                ", error=\"{code}\", error_description=\"{}\"",
                quoted(description)
            )
        });
        let mut challenges = Vec::new();
        if !self.dpop_required() {
            let own = if on == Scheme::Bearer {
                error.as_deref()
            } else {
                None
            };
            challenges.push(format!("Bearer {params}{}", own.unwrap_or_default()));
        }
        if self.takes_dpop() || on == Scheme::Dpop {
            let own = if on == Scheme::Dpop {
                error.as_deref()
            } else {
                None
            };
            challenges.push(format!(
                "DPoP algs=\"{}\", {params}{}",
                dpop_algorithms(),
                own.unwrap_or_default()
            ));
        }
        AuthRejection {
            status,
            www_authenticate: Some(challenges.join(", ")),
            message: message.to_owned(),
            dpop_nonce: self.dpop_nonce(),
        }
    }
}

/// The algorithms of the `DPoP` challenge's `algs`.
fn dpop_algorithms() -> String {
    #[cfg(feature = "oauth")]
    return dpop::DpopGate::algorithms().join(" ");
    #[cfg(not(feature = "oauth"))]
    String::new()
}

/// How the `Authorization` header presents the token.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Scheme {
    Bearer,
    Dpop,
}

/// Why no token was read from the request.
#[derive(Debug, PartialEq, Eq)]
enum Malformed {
    Missing,
    Bad(&'static str),
}

/// The bearer token of the `Authorization` header (RFC 6750 §2.1; tokens
/// in the query or body are not accepted).
#[cfg(test)]
fn bearer_token(headers: &HeaderMap) -> Result<&str, Malformed> {
    let (_, token) = authorization(headers, false)?;
    check_token68(token)?;
    Ok(token)
}

/// The scheme and token of the `Authorization` header: `Bearer` (RFC 6750
/// §2.1; tokens in the query or body are not accepted), or `DPoP` (RFC
/// 9449 §7.1) when `dpop`.
fn authorization(headers: &HeaderMap, dpop: bool) -> Result<(Scheme, &str), Malformed> {
    let mut values = headers.get_all(http::header::AUTHORIZATION).iter();
    let Some(value) = values.next() else {
        return Err(Malformed::Missing);
    };
    if values.next().is_some() {
        return Err(Malformed::Bad("more than one Authorization header"));
    }
    if value.len() > MAX_TOKEN_BYTES + 7 {
        return Err(Malformed::Bad("the Authorization header is too long"));
    }
    let text = std::str::from_utf8(value.as_bytes())
        .ok()
        .filter(|t| t.is_ascii())
        .ok_or(Malformed::Bad("the Authorization header is not ASCII"))?;
    let (scheme, rest) = text.split_once(' ').ok_or(Malformed::Bad(
        "the Authorization header is not \"Bearer <token>\"",
    ))?;
    let scheme = if scheme.eq_ignore_ascii_case("bearer") {
        Scheme::Bearer
    } else if dpop && scheme.eq_ignore_ascii_case("dpop") {
        Scheme::Dpop
    } else if dpop {
        return Err(Malformed::Bad(
            "the Authorization scheme is neither Bearer nor DPoP",
        ));
    } else {
        return Err(Malformed::Bad("the Authorization scheme is not Bearer"));
    };
    Ok((scheme, rest.trim_start_matches(' ')))
}

/// Checks that `token` is a token68 (RFC 7235 §2.1): ALPHA / DIGIT / "-" /
/// "." / "_" / "~" / "+" / "/", then "=" padding. A token the verifier
/// already holds an answer for was checked when it first came.
fn check_token68(token: &str) -> Result<(), Malformed> {
    let body = token.trim_end_matches('=');
    if !body.is_empty() && body.bytes().all(|b| TOKEN68[usize::from(b)]) {
        Ok(())
    } else {
        Err(Malformed::Bad(
            "the bearer token has characters a token cannot have",
        ))
    }
}

/// The characters of a token68 before its padding, by byte (a table: a
/// JWT is a kilobyte, checked on every request).
const TOKEN68: [bool; 256] = {
    let mut table = [false; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        table[b] =
            c.is_ascii_alphanumeric() || matches!(c, b'-' | b'.' | b'_' | b'~' | b'+' | b'/');
        b += 1;
    }
    table
};

/// `text` fit for a quoted-string: quotes and backslashes escaped, control
/// characters dropped.
fn quoted(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '"' | '\\' => {
                out.push('\\');
                out.push(c);
            }
            c if c.is_control() || !c.is_ascii() => {}
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use http::HeaderValue;

    fn with(value: &[u8]) -> HeaderMap {
        let mut h = HeaderMap::new();
        h.insert(
            http::header::AUTHORIZATION,
            HeaderValue::from_bytes(value).unwrap(),
        );
        h
    }

    #[test]
    fn the_authorization_header_yields_a_token_or_says_what_is_wrong() {
        assert_eq!(bearer_token(&HeaderMap::new()), Err(Malformed::Missing));
        assert_eq!(
            bearer_token(&with(b"Bearer abc.DEF-_~+/==")),
            Ok("abc.DEF-_~+/==")
        );
        assert_eq!(bearer_token(&with(b"bearer  abc")), Ok("abc"));
        assert!(matches!(
            bearer_token(&with(b"Basic dXNlcjpwYXNz")),
            Err(Malformed::Bad(_))
        ));
        assert!(matches!(
            bearer_token(&with(b"Bearer")),
            Err(Malformed::Bad(_))
        ));
        assert!(matches!(
            bearer_token(&with(b"Bearer ")),
            Err(Malformed::Bad(_))
        ));
        assert!(matches!(
            bearer_token(&with(b"Bearer a b")),
            Err(Malformed::Bad(_))
        ));
        assert!(matches!(
            bearer_token(&with(b"Bearer a\"b")),
            Err(Malformed::Bad(_))
        ));
        assert!(matches!(
            bearer_token(&with(b"Bearer \xffab")),
            Err(Malformed::Bad(_))
        ));
        let long = format!("Bearer {}", "a".repeat(MAX_TOKEN_BYTES + 1));
        assert!(matches!(
            bearer_token(&with(long.as_bytes())),
            Err(Malformed::Bad(_))
        ));
        let mut two = with(b"Bearer a");
        two.append(
            http::header::AUTHORIZATION,
            HeaderValue::from_static("Bearer b"),
        );
        assert!(matches!(bearer_token(&two), Err(Malformed::Bad(_))));
    }

    #[test]
    fn quoted_strings_cannot_break_out_of_the_challenge() {
        assert_eq!(quoted("a\"b\\c\r\nd"), "a\\\"b\\\\cd");
    }
}
