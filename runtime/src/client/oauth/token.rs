//! Token requests: the authorization code with its PKCE verifier, and
//! refresh tokens; both with the RFC 8707 `resource` and the client's
//! token endpoint authentication.

use serde::Deserialize;

use super::discovery::ServerMetadata;
use super::registration::{AuthMethod, ClientCredentials};
use super::{fetch, AuthError};
use crate::transport::http::HttpOptions;

/// RFC 7523 §2.2: a client authenticating with a signed JWT.
const CLIENT_ASSERTION_TYPE: &str = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer";

/// A successful token response (RFC 6749 §5.1).
#[derive(Clone, Deserialize)]
pub(super) struct Tokens {
    /// The access token.
    pub access_token: String,
    /// `Bearer` (anything else is refused).
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

/// Exchanges an authorization code.
pub(super) async fn exchange_code(
    net: &HttpOptions,
    server: &ServerMetadata,
    client: &ClientCredentials,
    code: &str,
    verifier: &str,
    redirect_uri: &str,
    resource: Option<&str>,
) -> Result<Tokens, AuthError> {
    let mut form = vec![
        ("grant_type", "authorization_code"),
        ("code", code),
        ("redirect_uri", redirect_uri),
        ("code_verifier", verifier),
    ];
    if let Some(r) = resource {
        form.push(("resource", r));
    }
    request(net, server, client, form).await
}

/// Uses a refresh token.
pub(super) async fn refresh(
    net: &HttpOptions,
    server: &ServerMetadata,
    client: &ClientCredentials,
    refresh_token: &str,
    resource: Option<&str>,
) -> Result<Tokens, AuthError> {
    let mut form = vec![
        ("grant_type", "refresh_token"),
        ("refresh_token", refresh_token),
    ];
    if let Some(r) = resource {
        form.push(("resource", r));
    }
    request(net, server, client, form).await
}

/// A token request of any grant: `form` with the client's token endpoint
/// authentication; an access token of the `Bearer` type.
pub(super) async fn request(
    net: &HttpOptions,
    server: &ServerMetadata,
    client: &ClientCredentials,
    form: Vec<(&str, &str)>,
) -> Result<Tokens, AuthError> {
    let url = &server.token_endpoint;
    let tokens: Tokens = serde_json::from_value(request_json(net, server, client, form).await?)
        .map_err(|e| AuthError::new(format!("the token response of {url} is not valid: {e}")))?;
    if !tokens.token_type.eq_ignore_ascii_case("bearer") {
        return Err(AuthError::new(format!(
            "the token endpoint {url} issued a {:?} token; this client sends Bearer tokens only",
            tokens.token_type
        )));
    }
    Ok(tokens)
}

/// POSTs `form` to `server`'s token endpoint with the client's
/// authentication; the successful answer's JSON, or an error with the
/// endpoint's `error` and `error_description`.
pub(super) async fn request_json(
    net: &HttpOptions,
    server: &ServerMetadata,
    client: &ClientCredentials,
    mut form: Vec<(&str, &str)>,
) -> Result<serde_json::Value, AuthError> {
    let method = AuthMethod::choose(client, server);
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
            assertion = client.client_assertion(&server.issuer)?;
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
    let url = &server.token_endpoint;
    let got = fetch::post_form(net, url, "token endpoint", &form, basic).await?;
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
