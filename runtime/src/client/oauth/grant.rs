//! How a client gets its tokens ([`Grant`]), and the token requests of the
//! grants that need no user at a browser:
//! - client credentials (RFC 6749 §4.4; the MCP extension
//!   `io.modelcontextprotocol/oauth-client-credentials`): a machine
//!   authenticates as itself;
//! - JWT bearer (RFC 7523 §2.1) with a token from elsewhere: workload
//!   identity federation, where the platform's token for the workload is
//!   the assertion;
//! - enterprise-managed authorization (the MCP extension
//!   `io.modelcontextprotocol/enterprise-managed-authorization`): the
//!   user's ID token from the enterprise identity provider is exchanged
//!   there (RFC 8693) for an ID-JAG, an identity assertion grant for this
//!   authorization server, which the JWT-bearer grant then presents.

use std::sync::Arc;

use serde_json::Value;

use super::assertion::Assertion;
use super::discovery::ServerMetadata;
use super::dpop::DpopKey;
use super::redirect::RedirectReceiver;
use super::registration::ClientCredentials;
use super::token::{self, Tokens};
use super::AuthError;
use crate::transport::http::HttpOptions;

/// RFC 7523 §2.1.
const JWT_BEARER: &str = "urn:ietf:params:oauth:grant-type:jwt-bearer";
/// RFC 8693 §2.1.
const TOKEN_EXCHANGE: &str = "urn:ietf:params:oauth:grant-type:token-exchange";
/// RFC 8693 §3: an OpenID Connect ID token.
const ID_TOKEN_TYPE: &str = "urn:ietf:params:oauth:token-type:id_token";
/// The identity assertion JWT authorization grant's token type.
const ID_JAG_TYPE: &str = "urn:ietf:params:oauth:token-type:id-jag";

/// How the client gets its tokens.
#[derive(Clone)]
pub(crate) enum Grant {
    /// The authorization code flow; the code comes back through the receiver.
    Code(Arc<dyn RedirectReceiver>),
    /// Client credentials.
    ClientCredentials,
    /// JWT bearer with the given assertion (workload identity federation).
    JwtBearer(Assertion),
    /// An ID token exchanged for an ID-JAG, then JWT bearer.
    Enterprise(IdentityProvider),
}

impl Grant {
    /// The grant's name in messages.
    pub(super) fn name(&self) -> &'static str {
        match self {
            Self::Code(_) => "authorization code",
            Self::ClientCredentials => "client credentials",
            Self::JwtBearer(_) => "JWT bearer",
            Self::Enterprise(_) => "enterprise-managed authorization",
        }
    }
}

/// The enterprise identity provider of [`OAuth::enterprise`](super::OAuth::enterprise):
/// where the user's ID token is exchanged for an ID-JAG.
#[derive(Clone, Debug)]
pub struct IdentityProvider {
    token_endpoint: String,
    issuer: Option<String>,
    client: ClientCredentials,
    id_token: Assertion,
}

impl IdentityProvider {
    /// The identity provider whose token endpoint is `token_endpoint`,
    /// where this client is `client`, and the user's ID token it issued.
    pub fn new(
        token_endpoint: impl Into<String>,
        client: ClientCredentials,
        id_token: Assertion,
    ) -> Self {
        Self {
            token_endpoint: token_endpoint.into(),
            issuer: None,
            client,
            id_token,
        }
    }

    /// The provider's issuer identifier: the audience of this client's
    /// `private_key_jwt` assertions there (default: the token endpoint).
    pub fn issuer(mut self, issuer: impl Into<String>) -> Self {
        self.issuer = Some(issuer.into());
        self
    }
}

/// Tokens from `server` by a grant that needs no browser, for `client`,
/// asking for `scopes` and the `resource`.
pub(super) async fn request(
    net: &HttpOptions,
    grant: &Grant,
    server: &ServerMetadata,
    client: &ClientCredentials,
    scopes: &[String],
    resource: Option<&str>,
    dpop: Option<&DpopKey>,
) -> Result<Tokens, AuthError> {
    let scope = scopes.join(" ");
    let assertion;
    let mut form: Vec<(&str, &str)> = Vec::with_capacity(4);
    match grant {
        Grant::Code(_) => {
            return Err(AuthError::new(
                "the authorization code grant needs the browser flow",
            ))
        }
        Grant::ClientCredentials => form.push(("grant_type", "client_credentials")),
        Grant::JwtBearer(source) => {
            assertion = source.read("the workload's token (the JWT-bearer assertion)")?;
            form.push(("grant_type", JWT_BEARER));
            form.push(("assertion", &assertion));
        }
        Grant::Enterprise(idp) => {
            assertion = id_jag(net, idp, &server.issuer, resource, &scope).await?;
            form.push(("grant_type", JWT_BEARER));
            form.push(("assertion", &assertion));
        }
    }
    if !scope.is_empty() {
        form.push(("scope", &scope));
    }
    if let Some(r) = resource {
        form.push(("resource", r));
    }
    token::request(net, server, client, form, dpop).await
}

/// RFC 8693 at the identity provider: the user's ID token for an ID-JAG
/// whose audience is the authorization server `audience`.
async fn id_jag(
    net: &HttpOptions,
    idp: &IdentityProvider,
    audience: &str,
    resource: Option<&str>,
    scope: &str,
) -> Result<String, AuthError> {
    let id_token = idp
        .id_token
        .read("the ID token from the identity provider")?;
    let mut form = vec![
        ("grant_type", TOKEN_EXCHANGE),
        ("requested_token_type", ID_JAG_TYPE),
        ("subject_token", id_token.as_str()),
        ("subject_token_type", ID_TOKEN_TYPE),
        ("audience", audience),
    ];
    if let Some(r) = resource {
        form.push(("resource", r));
    }
    if !scope.is_empty() {
        form.push(("scope", scope));
    }
    // The provider's metadata is not fetched: its client authentication
    // is the default (`client_secret_basic`) unless the client registered
    // one, and an assertion names the issuer, else the token endpoint.
    let endpoint = token::Endpoint {
        url: &idp.token_endpoint,
        audience: idp.issuer.as_deref().unwrap_or(&idp.token_endpoint),
        auth_methods: None,
    };
    let doc = token::request_json(net, endpoint, &idp.client, form, None).await?;
    let url = &idp.token_endpoint;
    let field = |k: &str| doc.get(k).and_then(Value::as_str);
    if field("issued_token_type") != Some(ID_JAG_TYPE) {
        return Err(AuthError::new(format!(
            "the identity provider {url} issued a {:?} token, not an ID-JAG ({ID_JAG_TYPE})",
            field("issued_token_type").unwrap_or("<none>")
        )));
    }
    field("access_token")
        .filter(|t| !t.is_empty())
        .map(str::to_owned)
        .ok_or_else(|| {
            AuthError::new(format!(
                "the token exchange answer of the identity provider {url} carries no ID-JAG (access_token)"
            ))
        })
}
