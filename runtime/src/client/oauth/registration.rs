//! Client identity, in the MCP specification's order of preference:
//! credentials registered beforehand, a Client ID Metadata Document URL
//! (when the server advertises `client_id_metadata_document_supported`),
//! else RFC 7591 dynamic registration. Also how the client authenticates
//! at the token endpoint (`client_secret_basic`, `client_secret_post`,
//! `private_key_jwt` or `none`).

use std::fmt;

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use super::discovery::ServerMetadata;
use super::{fetch, AuthError, OAuth};
use crate::transport::http::HttpOptions;

/// A client's identity at one authorization server.
#[derive(Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct ClientCredentials {
    /// `client_id`.
    pub client_id: String,
    /// `client_secret`, for a confidential client.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_secret: Option<String>,
    /// The token endpoint authentication method, when fixed (registered).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub auth_method: Option<String>,
    /// The issuer these credentials belong to; `None`: any (pre-registered
    /// credentials given without one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub issuer: Option<String>,
    /// The private key for `private_key_jwt`; never stored.
    #[cfg(feature = "oauth")]
    #[serde(skip)]
    key: Option<KeyRef>,
}

/// A shared [`ClientKey`](super::ClientKey); equal only to itself.
#[cfg(feature = "oauth")]
#[derive(Clone)]
struct KeyRef(std::sync::Arc<super::ClientKey>);

#[cfg(feature = "oauth")]
impl PartialEq for KeyRef {
    fn eq(&self, other: &Self) -> bool {
        std::sync::Arc::ptr_eq(&self.0, &other.0)
    }
}

#[cfg(feature = "oauth")]
impl Eq for KeyRef {}

impl fmt::Debug for ClientCredentials {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ClientCredentials")
            .field("client_id", &self.client_id)
            .field(
                "client_secret",
                &self.client_secret.as_ref().map(|_| "<redacted>"),
            )
            .field("auth_method", &self.auth_method)
            .field("issuer", &self.issuer)
            .field("private_key", &self.has_key().then_some("<redacted>"))
            .finish()
    }
}

impl ClientCredentials {
    /// A public client known by `client_id`.
    pub fn new(client_id: impl Into<String>) -> Self {
        Self {
            client_id: client_id.into(),
            client_secret: None,
            auth_method: None,
            issuer: None,
            #[cfg(feature = "oauth")]
            key: None,
        }
    }

    /// Authenticates at the token endpoint with assertions signed by `key`
    /// (`private_key_jwt`, RFC 7523 §2.2) instead of a secret. The key is
    /// never written to a [`TokenStore`](super::TokenStore).
    #[cfg(feature = "oauth")]
    pub fn private_key(mut self, key: super::ClientKey) -> Self {
        self.key = Some(KeyRef(std::sync::Arc::new(key)));
        self
    }

    /// Whether a private key was given.
    fn has_key(&self) -> bool {
        #[cfg(feature = "oauth")]
        return self.key.is_some();
        #[cfg(not(feature = "oauth"))]
        false
    }

    /// A signed `private_key_jwt` assertion for the authorization server
    /// `issuer`.
    pub(super) fn client_assertion(&self, issuer: &str) -> Result<String, AuthError> {
        #[cfg(feature = "oauth")]
        if let Some(KeyRef(key)) = &self.key {
            return key.client_assertion(&self.client_id, issuer);
        }
        let _ = issuer;
        Err(AuthError::new(format!(
            "the client {} authenticates with private_key_jwt but has no private key \
             (ClientCredentials::private_key, feature `oauth`)",
            self.client_id
        )))
    }

    /// Adds the client secret.
    pub fn secret(mut self, secret: impl Into<String>) -> Self {
        self.client_secret = Some(secret.into());
        self
    }

    /// Binds the credentials to one authorization server's issuer: they
    /// are never sent to another.
    pub fn issuer(mut self, issuer: impl Into<String>) -> Self {
        self.issuer = Some(issuer.into());
        self
    }

    /// Fixes the token endpoint authentication method.
    pub fn auth_method(mut self, method: impl Into<String>) -> Self {
        self.auth_method = Some(method.into());
        self
    }

    /// Whether the credentials may be used with `issuer`.
    pub fn fits(&self, issuer: &str) -> bool {
        self.issuer.as_deref().is_none_or(|i| i == issuer)
    }
}

/// How the client authenticates at the token endpoint.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum AuthMethod {
    /// HTTP Basic with the id and secret.
    Basic,
    /// Id and secret in the form body.
    Post,
    /// A JWT signed with the client's private key in the form body.
    PrivateKeyJwt,
    /// A public client: the id in the form body.
    None,
}

impl AuthMethod {
    /// The method for `client` at a token endpoint that lists `supported`
    /// (its server's `token_endpoint_auth_methods_supported`; `None` when
    /// not said): the registered one, else `private_key_jwt` when the
    /// client has a key and the server lists it (or the client has no
    /// secret), else the first of `client_secret_basic`,
    /// `client_secret_post` the server supports when there is a secret,
    /// else `none`.
    pub(super) fn choose(client: &ClientCredentials, supported: Option<&[String]>) -> Self {
        let secret = client.client_secret.is_some();
        match client.auth_method.as_deref() {
            Some("client_secret_basic") if secret => return Self::Basic,
            Some("client_secret_post") if secret => return Self::Post,
            Some("private_key_jwt") if client.has_key() => return Self::PrivateKeyJwt,
            Some("none") => return Self::None,
            _ => {}
        }
        // RFC 8414: when absent, the default is client_secret_basic.
        let has = |m: &str| match supported {
            Some(listed) => listed.iter().any(|s| s == m),
            None => m == "client_secret_basic",
        };
        if client.has_key() && (has("private_key_jwt") || !secret) {
            return Self::PrivateKeyJwt;
        }
        if !secret {
            return Self::None;
        }
        if has("client_secret_basic") {
            Self::Basic
        } else if has("client_secret_post") {
            Self::Post
        } else {
            Self::None
        }
    }
}

/// The client's identity at `server`: pre-registered credentials that fit
/// it, else credentials registered there before (`known`), else the Client
/// ID Metadata Document URL when the server supports it, else a dynamic
/// registration.
pub(super) async fn identify(
    net: &HttpOptions,
    oauth: &OAuth,
    server: &ServerMetadata,
    known: Option<&ClientCredentials>,
    redirect_uri: &str,
) -> Result<ClientCredentials, AuthError> {
    if let Some(pre) = oauth
        .credentials
        .as_ref()
        .filter(|c| c.fits(&server.issuer))
    {
        return Ok(pre.clone());
    }
    if let Some(known) = known.filter(|c| c.issuer.as_deref() == Some(server.issuer.as_str())) {
        return Ok(known.clone());
    }
    if let Some(url) = &oauth.metadata_url {
        if server.client_id_metadata_document_supported == Some(true) {
            return Ok(ClientCredentials::new(url.clone())
                .auth_method("none")
                .issuer(server.issuer.clone()));
        }
    }
    let Some(endpoint) = &server.registration_endpoint else {
        return Err(AuthError::new(format!(
            "the authorization server {} offers no dynamic client registration and no client credentials fit it; \
             register a client there and pass its credentials (OAuth::credentials)",
            server.issuer
        )));
    };
    register(net, oauth, server, endpoint, redirect_uri).await
}

/// RFC 7591 dynamic registration as a native application.
async fn register(
    net: &HttpOptions,
    oauth: &OAuth,
    server: &ServerMetadata,
    endpoint: &str,
    redirect_uri: &str,
) -> Result<ClientCredentials, AuthError> {
    let supported = server
        .token_endpoint_auth_methods_supported
        .clone()
        .unwrap_or_default();
    let method = if supported.is_empty() || supported.iter().any(|m| m == "none") {
        "none"
    } else if supported.iter().any(|m| m == "client_secret_basic") {
        "client_secret_basic"
    } else {
        "client_secret_post"
    };
    let mut body = json!({
        "client_name": oauth.client_name,
        "redirect_uris": [redirect_uri],
        "grant_types": ["authorization_code", "refresh_token"],
        "response_types": ["code"],
        "token_endpoint_auth_method": method,
        "application_type": "native",
    });
    if let Some(scopes) = &oauth.scopes {
        body["scope"] = json!(scopes.join(" "));
    }
    let got = fetch::post_json(net, endpoint, "registration endpoint", &body).await?;
    if !got.ok() {
        return Err(AuthError::new(format!(
            "the authorization server {} refused the dynamic client registration with HTTP {}: {}",
            server.issuer,
            got.status,
            String::from_utf8_lossy(&got.body)
                .chars()
                .take(200)
                .collect::<String>()
        )));
    }
    let doc = got.json("the registration response", endpoint)?;
    let text = |k: &str| doc.get(k).and_then(Value::as_str).map(str::to_owned);
    let client_id = text("client_id").ok_or_else(|| {
        AuthError::new(format!(
            "the registration response of {endpoint} has no client_id"
        ))
    })?;
    Ok(ClientCredentials {
        client_id,
        client_secret: text("client_secret"),
        auth_method: text("token_endpoint_auth_method"),
        issuer: Some(server.issuer.clone()),
        #[cfg(feature = "oauth")]
        key: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_auth_method_follows_registration_then_server_support() {
        let listed = |methods: &[&str]| methods.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let secret = ClientCredentials::new("c").secret("s");
        assert_eq!(AuthMethod::choose(&secret, None), AuthMethod::Basic);
        assert_eq!(
            AuthMethod::choose(&secret, Some(&listed(&["client_secret_post"]))),
            AuthMethod::Post
        );
        assert_eq!(
            AuthMethod::choose(&secret, Some(&listed(&["none"]))),
            AuthMethod::None
        );
        let fixed = secret.clone().auth_method("client_secret_post");
        assert_eq!(
            AuthMethod::choose(&fixed, Some(&listed(&["client_secret_basic"]))),
            AuthMethod::Post
        );
        assert_eq!(
            AuthMethod::choose(&ClientCredentials::new("c"), None),
            AuthMethod::None
        );
        assert!(!format!("{secret:?}").contains("\"s\""));
        assert!(ClientCredentials::new("c")
            .issuer("http://a")
            .fits("http://a"));
        assert!(!ClientCredentials::new("c")
            .issuer("http://a")
            .fits("http://b"));
    }
}
