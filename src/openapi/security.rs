//! Security requirements: the operation's `security` (an empty list
//! means none), else the document's, each alternative a list of
//! [`SecurityScheme`]s looked up in `components.securitySchemes`
//! (Swagger 2.0: `securityDefinitions`).
//!
//! apiKey keeps its place and name; HTTP basic and bearer are `basic` and
//! `bearer` (other HTTP schemes, mutualTLS and openIdConnect are
//! `unsupported`); oauth2 is `oauth2`, with `tokenUrl` only for a
//! client-credentials flow (Swagger 2.0: `application`). Every scheme's
//! credential is read from `MCP_UPSTREAM_AUTH_<SCHEME>`.

use mcpgen_runtime::upstream::{Location, SchemeKind, SecurityScheme};
use serde_json::Value;

use super::document::{child, Diag, Version};
use super::names::credential_env;
use super::resolve::Resolver;

/// The security alternatives of an operation.
pub(crate) fn requirements(
    root: &Value,
    op: &Value,
    op_at: &str,
    version: Version,
    res: &Resolver,
    diag: &mut Diag,
) -> Vec<Vec<SecurityScheme>> {
    let (list, at) = match op.get("security") {
        Some(l) => (l, child(op_at, "security")),
        None => match root.get("security") {
            Some(l) => (l, "/security".to_owned()),
            None => return Vec::new(),
        },
    };
    let Value::Array(alternatives) = list else {
        return Vec::new();
    };
    let (defs, defs_at) = match version {
        Version::Swagger2 => (
            root.get("securityDefinitions"),
            "/securityDefinitions".to_owned(),
        ),
        _ => (
            root.pointer("/components/securitySchemes"),
            "/components/securitySchemes".to_owned(),
        ),
    };
    let mut out = Vec::new();
    for (i, alt) in alternatives.iter().enumerate() {
        let Value::Object(schemes) = alt else {
            continue;
        };
        let mut all = Vec::new();
        for (name, scopes) in schemes {
            let Some(raw) = defs.and_then(|d| d.get(name)) else {
                diag.error(
                    &child(&child(&at, &i.to_string()), name),
                    &format!("security scheme `{name}` is not defined"),
                    "define it under components.securitySchemes (Swagger 2.0: securityDefinitions)",
                );
                continue;
            };
            let (def, _) = match res.follow(raw, &child(&defs_at, name)) {
                Ok(found) => found,
                Err((p, (message, hint))) => {
                    diag.error(&p, &message, hint);
                    continue;
                }
            };
            all.push(scheme(name, def, scopes));
        }
        out.push(all);
    }
    out
}

fn scheme(name: &str, def: &Value, scopes: &Value) -> SecurityScheme {
    let text = |k: &str| def.get(k).and_then(Value::as_str).map(str::to_owned);
    let kind_name = text("type").unwrap_or_default();
    let mut s = SecurityScheme {
        scheme: name.to_owned(),
        kind: SchemeKind::Unsupported,
        location: None,
        name: None,
        token_url: None,
        scopes: scopes
            .as_array()
            .map(|a| {
                a.iter()
                    .filter_map(Value::as_str)
                    .map(str::to_owned)
                    .collect()
            })
            .unwrap_or_default(),
        env: credential_env(name),
    };
    match kind_name.as_str() {
        "apiKey" => {
            let place = match text("in").as_deref() {
                Some("query") => Some(Location::Query),
                Some("header") => Some(Location::Header),
                Some("cookie") => Some(Location::Cookie),
                _ => None,
            };
            if let Some(place) = place {
                s.kind = SchemeKind::ApiKey;
                s.location = Some(place);
                s.name = text("name");
            }
        }
        "basic" => s.kind = SchemeKind::Basic,
        "http" => {
            s.kind = match text("scheme").map(|x| x.to_ascii_lowercase()).as_deref() {
                Some("basic") => SchemeKind::Basic,
                Some("bearer") => SchemeKind::Bearer,
                _ => SchemeKind::Unsupported,
            }
        }
        "oauth2" => {
            s.kind = SchemeKind::Oauth2;
            s.token_url = def
                .pointer("/flows/clientCredentials/tokenUrl")
                .and_then(Value::as_str)
                .map(str::to_owned)
                .or_else(|| {
                    (def.get("flow").and_then(Value::as_str) == Some("application"))
                        .then(|| text("tokenUrl"))
                        .flatten()
                });
        }
        _ => {}
    }
    s
}
