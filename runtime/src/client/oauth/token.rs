//! Token requests: the authorization code with its PKCE verifier, and
//! refresh tokens; both with the RFC 8707 `resource` and the client's
//! token endpoint authentication; with a DPoP proof (RFC 9449 §5) when the
//! tokens are to be bound to the client's key, answering the server's
//! `use_dpop_nonce` once.

use serde::Deserialize;

use super::discovery::ServerMetadata;
use super::dpop::DpopKey;
use super::registration::{AuthMethod, ClientCredentials};
use super::{fetch, AuthError};
use crate::transport::http::{HttpOptions, DPOP_NONCE};

/// RFC 7523 §2.2: a client authenticating with a signed JWT.
const CLIENT_ASSERTION_TYPE: &str = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer";

/// A token endpoint as a request to it needs to know it: the URL, the
/// audience of a `private_key_jwt` client assertion there (its server's
/// issuer), and the client authentication methods its server lists.
#[derive(Clone, Copy, Debug)]
pub(super) struct Endpoint<'a> {
    /// The token endpoint's URL.
    pub url: &'a str,
    /// The `aud` of a client assertion sent there.
    pub audience: &'a str,
    /// `token_endpoint_auth_methods_supported` (RFC 8414); `None` when the
    /// server does not say (then `client_secret_basic`).
    pub auth_methods: Option<&'a [String]>,
}

impl<'a> Endpoint<'a> {
    /// The token endpoint of the authorization server `server`.
    pub(super) fn of(server: &'a ServerMetadata) -> Self {
        Self {
            url: &server.token_endpoint,
            audience: &server.issuer,
            auth_methods: server.token_endpoint_auth_methods_supported.as_deref(),
        }
    }
}

/// A successful token response (RFC 6749 §5.1).
#[derive(Clone, Deserialize)]
pub(crate) struct Tokens {
    /// The access token.
    pub access_token: String,
    /// `Bearer`, or `DPoP` for a token bound to the proof's key (anything
    /// else is refused).
    #[serde(default)]
    pub token_type: String,
    /// A refresh token, when issued.
    #[serde(default)]
    pub refresh_token: Option<String>,
    /// Lifetime of the access token in seconds.
    #[serde(default)]
    pub expires_in: Option<u64>,
    /// The scopes granted, when they differ from those requested.
    #[serde(default)]
    pub scope: Option<String>,
}

impl std::fmt::Debug for Tokens {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tokens")
            .field("token_type", &self.token_type)
            .field(
                "refresh_token",
                &self.refresh_token.as_ref().map(|_| "<redacted>"),
            )
            .field("expires_in", &self.expires_in)
            .field("scope", &self.scope)
            .finish_non_exhaustive()
    }
}

/// An authorization code as it came back, with the PKCE verifier and the
/// redirect URI of its request.
pub(super) struct Code<'a> {
    /// The code.
    pub code: &'a str,
    /// The PKCE verifier.
    pub verifier: &'a str,
    /// The `redirect_uri` the authorization request named.
    pub redirect_uri: &'a str,
}

/// Exchanges an authorization code.
pub(super) async fn exchange_code(
    net: &HttpOptions,
    server: &ServerMetadata,
    client: &ClientCredentials,
    code: Code<'_>,
    resource: Option<&str>,
    dpop: Option<&DpopKey>,
) -> Result<Tokens, AuthError> {
    let mut form = vec![
        ("grant_type", "authorization_code"),
        ("code", code.code),
        ("redirect_uri", code.redirect_uri),
        ("code_verifier", code.verifier),
    ];
    if let Some(r) = resource {
        form.push(("resource", r));
    }
    request(net, server, client, form, dpop).await
}

/// Uses a refresh token.
pub(super) async fn refresh(
    net: &HttpOptions,
    server: &ServerMetadata,
    client: &ClientCredentials,
    refresh_token: &str,
    resource: Option<&str>,
    dpop: Option<&DpopKey>,
) -> Result<Tokens, AuthError> {
    let mut form = vec![
        ("grant_type", "refresh_token"),
        ("refresh_token", refresh_token),
    ];
    if let Some(r) = resource {
        form.push(("resource", r));
    }
    request(net, server, client, form, dpop).await
}

/// A token request of any grant: `form` with the client's token endpoint
/// authentication and, with `dpop`, a proof of its key; an access token
/// of the `Bearer` type, or `DPoP` when a proof was sent.
pub(super) async fn request(
    net: &HttpOptions,
    server: &ServerMetadata,
    client: &ClientCredentials,
    form: Vec<(&str, &str)>,
    dpop: Option<&DpopKey>,
) -> Result<Tokens, AuthError> {
    let doc = request_json(net, Endpoint::of(server), client, form, dpop).await?;
    accept(doc, &server.token_endpoint, dpop.is_some())
}

/// A successful token response of the endpoint `url` read: an access
/// token of the `Bearer` type, or `DPoP` when a proof was sent (`dpop`).
pub(crate) fn accept(doc: serde_json::Value, url: &str, dpop: bool) -> Result<Tokens, AuthError> {
    let tokens: Tokens = serde_json::from_value(doc)
        .map_err(|e| AuthError::new(format!("the token response of {url} is not valid: {e}")))?;
    let bound = tokens.token_type.eq_ignore_ascii_case("dpop");
    if !(tokens.token_type.eq_ignore_ascii_case("bearer") || bound && dpop) {
        return Err(AuthError::new(format!(
            "the token endpoint {url} issued a {:?} token; this client sends Bearer tokens, and DPoP tokens \
             when it asked for them",
            tokens.token_type
        )));
    }
    Ok(tokens)
}

/// POSTs `form` to the token `endpoint` with the client's
/// authentication; the successful answer's JSON, or an error with the
/// endpoint's `error` and `error_description`. With `dpop`, each attempt
/// carries a fresh proof; a `use_dpop_nonce` answer is retried once with
/// the server's nonce (RFC 9449 §8).
pub(super) async fn request_json(
    net: &HttpOptions,
    endpoint: Endpoint<'_>,
    client: &ClientCredentials,
    mut form: Vec<(&str, &str)>,
    dpop: Option<&DpopKey>,
) -> Result<serde_json::Value, AuthError> {
    let method = AuthMethod::choose(client, endpoint.auth_methods);
    let assertion: String;
    let secret = client.client_secret.as_deref().unwrap_or("");
    let basic = match method {
        AuthMethod::Basic => Some((client.client_id.as_str(), secret)),
        AuthMethod::Post => {
            form.push(("client_id", &client.client_id));
            form.push(("client_secret", secret));
            None
        }
        AuthMethod::PrivateKeyJwt => {
            assertion = client.client_assertion(endpoint.audience)?;
            form.push(("client_id", &client.client_id));
            form.push(("client_assertion_type", CLIENT_ASSERTION_TYPE));
            form.push(("client_assertion", &assertion));
            None
        }
        AuthMethod::None => {
            form.push(("client_id", &client.client_id));
            None
        }
    };
    let url = endpoint.url;
    let mut nonce: Option<String> = None;
    let got = loop {
        let proof = match dpop {
            Some(key) => Some(key.proof("POST", url, None, nonce.as_deref())?),
            None => None,
        };
        let got =
            fetch::post_form(net, url, "token endpoint", &form, basic, proof.as_deref()).await?;
        if got.status == 400 && dpop.is_some() && nonce.is_none() {
            let offered = got
                .headers
                .get(DPOP_NONCE)
                .and_then(|v| v.to_str().ok())
                .map(str::to_owned);
            let asks = got
                .json("the token error", url)
                .ok()
                .is_some_and(|d| d.get("error").and_then(|e| e.as_str()) == Some("use_dpop_nonce"));
            if let (true, Some(offered)) = (asks, offered) {
                nonce = Some(offered);
                continue;
            }
        }
        break got;
    };
    if !got.ok() {
        let doc = got.json("the token error", url).ok();
        let field = |k: &str| {
            doc.as_ref()
                .and_then(|d| d.get(k))
                .and_then(|v| v.as_str())
                .unwrap_or("")
                .to_owned()
        };
        return Err(AuthError::new(format!(
            "the token endpoint {url} refused the request with HTTP {}: {} {}",
            got.status,
            field("error"),
            field("error_description")
        )));
    }
    got.json("the token response", url)
}
