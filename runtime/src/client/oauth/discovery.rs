//! Finding the authorization server: RFC 9728 protected resource metadata
//! (the challenge's `resource_metadata` URL, else the path-aware then the
//! root well-known URL), then RFC 8414 / OpenID Connect Discovery metadata
//! of the chosen authorization server in the order the MCP specification
//! gives, each document checked (its `resource` against the MCP endpoint,
//! its `issuer` against the URL it was built from, endpoint schemes; PKCE
//! `S256` when a user is to log in at a browser).

use serde::Deserialize;
use url::Url;

use super::fetch::{self, check_url};
use super::AuthError;
use crate::transport::http::HttpOptions;

/// RFC 9728 protected resource metadata, the fields the flow uses.
#[derive(Debug, Clone, Deserialize, PartialEq, Eq)]
pub(crate) struct ProtectedResource {
    /// The resource identifier, sent as `resource` exactly as written.
    pub resource: String,
    /// Issuers of the authorization servers that protect the resource.
    #[serde(default)]
    pub authorization_servers: Vec<String>,
    /// Scopes the resource knows.
    #[serde(default)]
    pub scopes_supported: Option<Vec<String>>,
    /// RFC 9728: the resource accepts DPoP-bound tokens only.
    #[serde(default)]
    pub dpop_bound_access_tokens_required: Option<bool>,
}

/// RFC 8414 authorization server metadata, the fields the flow uses.
#[derive(Debug, Clone, Deserialize, PartialEq, Eq, Default)]
pub(crate) struct ServerMetadata {
    /// The issuer identifier.
    pub issuer: String,
    /// Where the user authorizes (absent at a server without browser
    /// grants).
    #[serde(default)]
    pub authorization_endpoint: String,
    /// Where codes and refresh tokens are exchanged.
    pub token_endpoint: String,
    /// RFC 7591 dynamic registration, when offered.
    #[serde(default)]
    pub registration_endpoint: Option<String>,
    /// Scopes the server knows.
    #[serde(default)]
    pub scopes_supported: Option<Vec<String>>,
    /// PKCE methods; must hold `S256` for the code flow.
    #[serde(default)]
    pub code_challenge_methods_supported: Option<Vec<String>>,
    /// Token endpoint authentication methods (RFC 8414 default:
    /// `client_secret_basic`).
    #[serde(default)]
    pub token_endpoint_auth_methods_supported: Option<Vec<String>>,
    /// Whether a Client ID Metadata Document URL may be the `client_id`.
    #[serde(default)]
    pub client_id_metadata_document_supported: Option<bool>,
    /// RFC 9207: the authorization response carries `iss`.
    #[serde(default)]
    pub authorization_response_iss_parameter_supported: Option<bool>,
    /// Grant types the server supports.
    #[serde(default)]
    pub grant_types_supported: Option<Vec<String>>,
    /// RFC 9449 §5.1: the algorithms of DPoP proofs the server accepts.
    #[serde(default)]
    pub dpop_signing_alg_values_supported: Option<Vec<String>>,
}

impl ServerMetadata {
    /// What the authorization code flow needs of the server beyond
    /// [`check_server`]: an authorization endpoint and PKCE `S256`.
    pub(crate) fn check_code_flow(&self) -> Result<(), AuthError> {
        let issuer = &self.issuer;
        let s256 = self
            .code_challenge_methods_supported
            .as_ref()
            .is_some_and(|m| m.iter().any(|m| m == "S256"));
        if !s256 {
            return Err(AuthError::new(format!(
                "the authorization server {issuer} does not advertise PKCE S256 in code_challenge_methods_supported; \
                 MCP clients must not authorize without it"
            )));
        }
        if self.authorization_endpoint.is_empty() {
            return Err(AuthError::new(format!(
                "the authorization server {issuer} has no authorization_endpoint; a user cannot log in there \
                 (a machine can: OAuth::client_credentials)"
            )));
        }
        Ok(())
    }

    /// Whether `scope` is listed in `scopes_supported`.
    pub(super) fn supports_scope(&self, scope: &str) -> bool {
        self.scopes_supported
            .as_ref()
            .is_some_and(|s| s.iter().any(|x| x == scope))
    }
}

/// The well-known URLs of a resource's metadata, path-aware first.
pub(super) fn resource_metadata_urls(server: &Url) -> Vec<String> {
    let origin = origin(server);
    let path = server.path().trim_end_matches('/');
    let mut out = Vec::new();
    if !path.is_empty() {
        out.push(format!(
            "{origin}/.well-known/oauth-protected-resource{path}"
        ));
    }
    out.push(format!("{origin}/.well-known/oauth-protected-resource"));
    out
}

/// The metadata URLs of an issuer, in the specification's order: RFC 8414
/// with the path inserted, OpenID Connect with the path inserted, OpenID
/// Connect with the path appended (only the first two for an issuer
/// without a path).
pub(super) fn server_metadata_urls(issuer: &Url) -> Vec<String> {
    let origin = origin(issuer);
    let path = issuer.path().trim_end_matches('/');
    if path.is_empty() {
        vec![
            format!("{origin}/.well-known/oauth-authorization-server"),
            format!("{origin}/.well-known/openid-configuration"),
        ]
    } else {
        vec![
            format!("{origin}/.well-known/oauth-authorization-server{path}"),
            format!("{origin}/.well-known/openid-configuration{path}"),
            format!("{origin}{path}/.well-known/openid-configuration"),
        ]
    }
}

/// `scheme://host[:port]` of a URL.
pub(super) fn origin(url: &Url) -> String {
    url.origin().ascii_serialization()
}

/// Fetches the resource metadata of the MCP endpoint `server`: from the
/// challenge's URL when there is one, else (or when that fails) from the
/// well-known URLs. `Ok(None)` when no document exists (a server of the
/// 2025-03-26 revision). The document's `resource` must name the endpoint
/// or a parent of it on the same origin.
pub(super) async fn resource_metadata(
    net: &HttpOptions,
    server: &Url,
    hinted: Option<&str>,
) -> Result<Option<ProtectedResource>, AuthError> {
    let mut candidates: Vec<String> = hinted.map(str::to_owned).into_iter().collect();
    candidates.extend(resource_metadata_urls(server));
    let mut last = None;
    for url in candidates {
        if let Err(e) = check_url(&url, "protected resource metadata URL") {
            last = Some(e);
            continue;
        }
        let got = match fetch::get(net, &url, "protected resource metadata").await {
            Ok(got) => got,
            Err(e) => {
                last = Some(e);
                continue;
            }
        };
        if !got.ok() {
            continue;
        }
        let doc: ProtectedResource = serde_json::from_value(
            got.json("the protected resource metadata", &url)?,
        )
        .map_err(|e| {
            AuthError::new(format!(
                "the protected resource metadata at {url} is not valid: {e}"
            ))
        })?;
        check_resource(server, &doc.resource, &url)?;
        if doc.authorization_servers.is_empty() {
            return Err(AuthError::new(format!(
                "the protected resource metadata at {url} lists no authorization_servers"
            )));
        }
        return Ok(Some(doc));
    }
    match last {
        Some(e) if hinted.is_some() => Err(e),
        _ => Ok(None),
    }
}

/// Checks that the metadata's `resource` is the MCP endpoint or a parent of
/// it on the same origin (RFC 9728 §3.3, RFC 8707).
pub(crate) fn check_resource(server: &Url, resource: &str, from: &str) -> Result<(), AuthError> {
    let mismatch = || {
        AuthError::new(format!(
            "the protected resource metadata at {from} names the resource {resource}, which is not the MCP server {server}; \
             refusing to authorize for another resource"
        ))
    };
    let parsed = Url::parse(resource).map_err(|_| mismatch())?;
    if parsed.fragment().is_some() || origin(&parsed) != origin(server) {
        return Err(mismatch());
    }
    let want = parsed.path().trim_end_matches('/');
    let have = server.path().trim_end_matches('/');
    if want.is_empty() || have == want || have.starts_with(&format!("{want}/")) {
        Ok(())
    } else {
        Err(mismatch())
    }
}

/// Fetches and checks the metadata of the authorization server `issuer`.
pub(super) async fn server_metadata(
    net: &HttpOptions,
    issuer: &str,
) -> Result<ServerMetadata, AuthError> {
    let parsed = check_url(issuer, "authorization server")?;
    for url in server_metadata_urls(&parsed) {
        let got = fetch::get(net, &url, "authorization server metadata").await?;
        if !got.ok() {
            continue;
        }
        let doc: ServerMetadata = serde_json::from_value(
            got.json("the authorization server metadata", &url)?,
        )
        .map_err(|e| {
            AuthError::new(format!(
                "the authorization server metadata at {url} is not valid: {e}"
            ))
        })?;
        return check_server(doc, issuer, &url);
    }
    Err(AuthError::new(format!(
        "the authorization server {issuer} publishes no metadata (tried RFC 8414 and OpenID Connect discovery URLs)"
    )))
}

/// The checks every authorization server metadata document must pass.
pub(crate) fn check_server(
    doc: ServerMetadata,
    issuer: &str,
    from: &str,
) -> Result<ServerMetadata, AuthError> {
    if doc.issuer != issuer {
        return Err(AuthError::new(format!(
            "the authorization server metadata at {from} names the issuer {:?}, not {issuer:?} it was fetched for; \
             refusing to use it (RFC 8414 §3.3)",
            doc.issuer
        )));
    }
    if !doc.authorization_endpoint.is_empty() {
        check_url(&doc.authorization_endpoint, "authorization endpoint")?;
    }
    check_url(&doc.token_endpoint, "token endpoint")?;
    if let Some(r) = &doc.registration_endpoint {
        check_url(r, "registration endpoint")?;
    }
    Ok(doc)
}

/// The 2025-03-26 fallback for a server without resource metadata: its
/// origin is the authorization server; metadata at the root well-known
/// URL, else the default endpoints `/authorize`, `/token`, `/register`.
pub(super) async fn stateful_server_metadata(
    net: &HttpOptions,
    server: &Url,
) -> Result<ServerMetadata, AuthError> {
    let origin = origin(server);
    let url = format!("{origin}/.well-known/oauth-authorization-server");
    let got = fetch::get(net, &url, "authorization server metadata").await?;
    if got.ok() {
        let doc: ServerMetadata = serde_json::from_value(
            got.json("the authorization server metadata", &url)?,
        )
        .map_err(|e| {
            AuthError::new(format!(
                "the authorization server metadata at {url} is not valid: {e}"
            ))
        })?;
        return check_server(doc, &origin, &url);
    }
    Ok(ServerMetadata {
        issuer: origin.clone(),
        authorization_endpoint: format!("{origin}/authorize"),
        token_endpoint: format!("{origin}/token"),
        registration_endpoint: Some(format!("{origin}/register")),
        code_challenge_methods_supported: Some(vec!["S256".into()]),
        ..ServerMetadata::default()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn url(s: &str) -> Url {
        Url::parse(s).unwrap()
    }

    #[test]
    fn well_known_urls_follow_the_specification_order() {
        assert_eq!(
            resource_metadata_urls(&url("http://h:1/mcp")),
            [
                "http://h:1/.well-known/oauth-protected-resource/mcp",
                "http://h:1/.well-known/oauth-protected-resource"
            ]
        );
        assert_eq!(
            resource_metadata_urls(&url("http://h/")),
            ["http://h/.well-known/oauth-protected-resource"]
        );
        assert_eq!(
            server_metadata_urls(&url("https://as/tenant1")),
            [
                "https://as/.well-known/oauth-authorization-server/tenant1",
                "https://as/.well-known/openid-configuration/tenant1",
                "https://as/tenant1/.well-known/openid-configuration"
            ]
        );
        assert_eq!(
            server_metadata_urls(&url("https://as")),
            [
                "https://as/.well-known/oauth-authorization-server",
                "https://as/.well-known/openid-configuration"
            ]
        );
    }

    #[test]
    fn the_resource_must_be_the_server_or_a_parent() {
        let server = url("http://localhost:5/mcp");
        assert!(check_resource(&server, "http://localhost:5/mcp", "x").is_ok());
        assert!(check_resource(&server, "http://localhost:5", "x").is_ok());
        assert!(check_resource(&server, "https://evil.example.com/mcp", "x").is_err());
        assert!(check_resource(&server, "http://localhost:5/other", "x").is_err());
        assert!(check_resource(&server, "http://localhost:5/m", "x").is_err());
        assert!(check_resource(&server, "http://localhost:6/mcp", "x").is_err());
    }

    #[test]
    fn server_metadata_is_refused_on_a_wrong_issuer_and_the_code_flow_without_s256() {
        let good = ServerMetadata {
            issuer: "http://localhost:7".into(),
            authorization_endpoint: "http://localhost:7/authorize".into(),
            token_endpoint: "http://localhost:7/token".into(),
            code_challenge_methods_supported: Some(vec!["S256".into()]),
            ..ServerMetadata::default()
        };
        assert!(check_server(good.clone(), "http://localhost:7", "m").is_ok());
        let err = check_server(good.clone(), "http://localhost:7/", "m").unwrap_err();
        assert!(err.message().contains("issuer"), "{err}");
        let plain = ServerMetadata {
            code_challenge_methods_supported: Some(vec!["plain".into()]),
            ..good.clone()
        };
        let plain = check_server(plain, "http://localhost:7", "m").expect("fine without a browser");
        assert!(plain
            .check_code_flow()
            .unwrap_err()
            .message()
            .contains("S256"));
        assert!(good.check_code_flow().is_ok());
        let machine = ServerMetadata {
            authorization_endpoint: String::new(),
            ..good.clone()
        };
        assert!(machine
            .check_code_flow()
            .unwrap_err()
            .message()
            .contains("client_credentials"));
        let remote = ServerMetadata {
            token_endpoint: "http://evil.example.com/token".into(),
            ..good
        };
        assert!(check_server(remote, "http://localhost:7", "m")
            .unwrap_err()
            .message()
            .contains("not loopback"));
    }
}
