//! [`ResourceMetadata`]: the OAuth 2.0 Protected Resource Metadata
//! (RFC 9728) of the server, from configuration. The server's public URL
//! is the configured `resource`, never guessed from a request's `Host`, so
//! the metadata is right behind a reverse proxy. It is served at the
//! path-aware well-known URL (`/.well-known/oauth-protected-resource/mcp`
//! for a resource `https://host/mcp`) and at the root one
//! (`/.well-known/oauth-protected-resource`).

use serde_json::{json, Map, Value};

/// The well-known path prefix of RFC 9728 §3.
pub(crate) const WELL_KNOWN: &str = "/.well-known/oauth-protected-resource";

/// What the server publishes about itself as a protected resource.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResourceMetadata {
    /// The server's canonical URI, e.g. `https://mcp.example.com/mcp`:
    /// tokens must be issued for it (their audience).
    pub resource: String,
    /// The issuer URLs of the authorization servers clients may use.
    pub authorization_servers: Vec<String>,
    /// The scopes this server understands.
    pub scopes_supported: Vec<String>,
    /// How tokens may be sent: `["header"]`.
    pub bearer_methods_supported: Vec<String>,
    /// A human-readable name of the resource, if any.
    pub resource_name: Option<String>,
    /// A page documenting the resource, if any.
    pub resource_documentation: Option<String>,
    /// RFC 9728: the DPoP proof algorithms taken (set by the gate's DPoP).
    pub dpop_signing_alg_values_supported: Vec<String>,
    /// RFC 9728: only DPoP-bound tokens are taken.
    pub dpop_bound_access_tokens_required: bool,
}

impl ResourceMetadata {
    /// The metadata of `resource` (its canonical URI), with tokens in the
    /// `Authorization` header only.
    pub fn new(resource: impl Into<String>) -> Self {
        Self {
            resource: resource.into(),
            authorization_servers: Vec::new(),
            scopes_supported: Vec::new(),
            bearer_methods_supported: vec!["header".into()],
            resource_name: None,
            resource_documentation: None,
            dpop_signing_alg_values_supported: Vec::new(),
            dpop_bound_access_tokens_required: false,
        }
    }

    /// Adds an authorization server (its issuer URL).
    pub fn authorization_server(mut self, issuer: impl Into<String>) -> Self {
        self.authorization_servers.push(issuer.into());
        self
    }

    /// Adds scopes to `scopes_supported` (repeats are left out).
    pub fn scopes<I: IntoIterator<Item = S>, S: Into<String>>(mut self, scopes: I) -> Self {
        for scope in scopes {
            let scope = scope.into();
            if !self.scopes_supported.contains(&scope) {
                self.scopes_supported.push(scope);
            }
        }
        self
    }

    /// Sets `resource_name`.
    pub fn name(mut self, name: impl Into<String>) -> Self {
        self.resource_name = Some(name.into());
        self
    }

    /// The JSON document (members with no value are left out).
    pub fn document(&self) -> String {
        let mut doc = Map::new();
        doc.insert("resource".into(), json!(self.resource));
        doc.insert(
            "authorization_servers".into(),
            json!(self.authorization_servers),
        );
        if !self.scopes_supported.is_empty() {
            doc.insert("scopes_supported".into(), json!(self.scopes_supported));
        }
        doc.insert(
            "bearer_methods_supported".into(),
            json!(self.bearer_methods_supported),
        );
        if let Some(name) = &self.resource_name {
            doc.insert("resource_name".into(), json!(name));
        }
        if let Some(page) = &self.resource_documentation {
            doc.insert("resource_documentation".into(), json!(page));
        }
        if !self.dpop_signing_alg_values_supported.is_empty() {
            doc.insert(
                "dpop_signing_alg_values_supported".into(),
                json!(self.dpop_signing_alg_values_supported),
            );
        }
        if self.dpop_bound_access_tokens_required {
            doc.insert("dpop_bound_access_tokens_required".into(), json!(true));
        }
        Value::Object(doc).to_string()
    }

    /// The absolute URL of the metadata (path-aware) and the two paths it
    /// is served at; an error saying what is wrong with the configuration.
    pub(crate) fn locations(&self) -> Result<(String, [String; 2]), String> {
        let resource = &self.resource;
        let uri: http::Uri = resource
            .parse()
            .map_err(|e| format!("the resource {resource:?} is not a URL: {e}"))?;
        let scheme = uri.scheme_str().unwrap_or_default();
        if !matches!(scheme, "https" | "http") || uri.authority().is_none() {
            return Err(format!("the resource {resource:?} must be an absolute https:// URL (http:// for local testing)"));
        }
        if uri.query().is_some() || resource.contains('#') {
            return Err(format!(
                "the resource {resource:?} must have no query or fragment (RFC 8707)"
            ));
        }
        if self.authorization_servers.is_empty() {
            return Err("name at least one authorization server (its issuer URL)".into());
        }
        let path = uri.path().trim_end_matches('/');
        let aware = format!("{WELL_KNOWN}{path}");
        let url = format!(
            "{scheme}://{}{aware}",
            uri.authority().map(|a| a.as_str()).unwrap_or_default()
        );
        Ok((url, [aware, WELL_KNOWN.to_owned()]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_metadata_is_published_where_rfc_9728_says_for_the_configured_url() {
        let m = ResourceMetadata::new("https://mcp.example.com/tools/mcp")
            .authorization_server("https://auth.example.com")
            .scopes(["notes:read", "notes:write", "notes:read"]);
        let (url, paths) = m.locations().unwrap();
        assert_eq!(
            url,
            "https://mcp.example.com/.well-known/oauth-protected-resource/tools/mcp"
        );
        assert_eq!(
            paths,
            [
                "/.well-known/oauth-protected-resource/tools/mcp".to_owned(),
                WELL_KNOWN.to_owned()
            ]
        );
        let doc: Value = serde_json::from_str(&m.document()).unwrap();
        assert_eq!(
            doc,
            json!({
                "resource": "https://mcp.example.com/tools/mcp",
                "authorization_servers": ["https://auth.example.com"],
                "scopes_supported": ["notes:read", "notes:write"],
                "bearer_methods_supported": ["header"],
            })
        );
        let root =
            ResourceMetadata::new("https://mcp.example.com/").authorization_server("https://a");
        assert_eq!(
            root.locations().unwrap().0,
            "https://mcp.example.com/.well-known/oauth-protected-resource"
        );
    }

    #[test]
    fn a_resource_that_is_no_canonical_url_is_refused() {
        for bad in [
            "mcp.example.com/mcp",
            "ftp://x/mcp",
            "https://x/mcp?a=1",
            "https://x/mcp#f",
            "/mcp",
        ] {
            let m = ResourceMetadata::new(bad).authorization_server("https://a");
            assert!(m.locations().is_err(), "{bad}");
        }
        assert!(ResourceMetadata::new("https://x/mcp")
            .locations()
            .unwrap_err()
            .contains("authorization server"));
    }
}
