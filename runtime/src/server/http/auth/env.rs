//! What [`super::BearerAuth::jwt_from_env`] reads: a JWT bearer gate's
//! settings from the environment, for servers that are deployed rather
//! than compiled with their settings (what `mcpgen new … --auth jwt` and
//! the examples use).

use std::time::Duration;

use super::{JwtConfig, JwtVerifier, ResourceMetadata};

/// The variables read, with what each one holds.
pub const VARIABLES: [(&str, &str); 4] = [
    (
        "MCP_RESOURCE_URL",
        "the server's public URL, e.g. https://mcp.example.com/mcp (tokens must name it in aud)",
    ),
    ("MCP_AUTH_ISSUER", "the authorization server's issuer URL"),
    ("MCP_AUTH_JWKS_URI", "its key set URL (jwks_uri)"),
    (
        "MCP_AUTH_SCOPES",
        "optional: scopes_supported, space-separated (default: the manifest's)",
    ),
];

/// The metadata and verifier that `MCP_RESOURCE_URL`, `MCP_AUTH_ISSUER`
/// and `MCP_AUTH_JWKS_URI` (and `MCP_AUTH_SCOPES`, else `scopes`)
/// describe: `Ok(None)` when `MCP_RESOURCE_URL` is unset, an error naming
/// what is missing otherwise.
pub(super) fn jwt_settings(
    scopes: &[&str],
) -> Result<Option<(ResourceMetadata, JwtVerifier)>, String> {
    let var = |name: &str| std::env::var(name).ok().filter(|v| !v.trim().is_empty());
    let Some(resource) = var("MCP_RESOURCE_URL") else {
        return Ok(None);
    };
    let need = |name: &str| {
        var(name).ok_or_else(|| {
            format!(
                "MCP_RESOURCE_URL is set, so {name} must be too ({})",
                describe(name)
            )
        })
    };
    let issuer = need("MCP_AUTH_ISSUER")?;
    let jwks = need("MCP_AUTH_JWKS_URI")?;
    let scopes: Vec<String> = match var("MCP_AUTH_SCOPES") {
        Some(list) => list.split_whitespace().map(str::to_owned).collect(),
        None => scopes.iter().map(|s| (*s).to_owned()).collect(),
    };
    let metadata = ResourceMetadata::new(resource.clone())
        .authorization_server(issuer.clone())
        .scopes(scopes);
    let verifier = JwtVerifier::new(
        JwtConfig::new(issuer, resource, jwks).fetch_timeout(Duration::from_secs(5)),
    );
    Ok(Some((metadata, verifier)))
}

fn describe(name: &str) -> &'static str {
    VARIABLES
        .iter()
        .find(|(n, _)| *n == name)
        .map_or("", |(_, d)| d)
}
