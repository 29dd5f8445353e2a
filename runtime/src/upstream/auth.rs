//! Credentials for the API, chosen once at start and applied per request.
//!
//! Each scheme's credential comes from what the builder was given for the
//! scheme's name ([`UpstreamBuilder::credential`](super::UpstreamBuilder::credential),
//! [`client_credentials`](super::UpstreamBuilder::client_credentials)),
//! else from the variable its binding names (`env`): `apiKey` the key
//! (header, query or cookie), `bearer` the token, `basic` `user:password`,
//! `oauth2` an access token or, with a `tokenUrl`, `<env>_CLIENT_ID` and
//! `<env>_CLIENT_SECRET` for the client-credentials grant (`token.rs`; a
//! token in `<env>` itself is used as it is). Of a tool's alternatives the
//! first whose credentials are all there is used (an empty one: none
//! needed); `unsupported` schemes (mutual TLS, OpenID Connect) make their
//! alternative unusable. A tool with alternatives but none usable because
//! of missing credentials fails the start with the variables to set.
//!
//! The values are kept as sensitive header values or encoded query and
//! cookie pieces and never appear in a message or log.

use std::collections::HashMap;
use std::sync::Arc;

use base64::Engine as _;
use http::header::{HeaderName, HeaderValue, AUTHORIZATION};
use url::Url;

use super::binding::{Location, SchemeKind, SecurityScheme};
use super::net::{Limits, Net, Secrets};
use super::pct::encode;
use super::token::TokenSource;

/// How one scheme's credential is put on a request.
#[derive(Clone)]
pub(crate) enum Apply {
    Header(HeaderName, HeaderValue),
    Query(String),
    Cookie(String),
    Token(Arc<TokenSource>),
}

impl std::fmt::Debug for Apply {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Where the credential goes, never the credential.
        match self {
            Apply::Header(name, _) => write!(f, "Header({name})"),
            Apply::Query(_) => f.write_str("Query(..)"),
            Apply::Cookie(_) => f.write_str("Cookie(..)"),
            Apply::Token(source) => write!(f, "Token({source:?})"),
        }
    }
}

/// What a scheme's credential was found as.
enum Found {
    Ready(Apply),
    /// The variables that would provide it.
    Missing(Vec<String>),
    /// Nothing this runtime can apply.
    Unsupported,
}

/// Where credentials come from: the builder's values, then the environment.
pub(crate) struct Sources<'a> {
    pub(crate) values: &'a HashMap<String, String>,
    pub(crate) clients: &'a HashMap<String, (String, String)>,
    pub(crate) env: &'a dyn Fn(&str) -> Option<String>,
    /// Token sources made so far, shared by tools with the same grant.
    pub(crate) tokens: HashMap<(String, String, Vec<String>), Arc<TokenSource>>,
}

/// What a tool's security requirements come to.
#[derive(Debug)]
pub(crate) enum Plan {
    /// Apply these.
    Use(Vec<Apply>),
    /// Only unsupported schemes: every call fails, saying why.
    Unusable(String),
}

/// The plan of a tool with these alternatives; `Err` lists, per
/// alternative, the variables to set.
pub(crate) fn choose(
    security: &[Vec<SecurityScheme>],
    sources: &mut Sources<'_>,
) -> Result<Plan, Vec<Vec<String>>> {
    if security.is_empty() {
        return Ok(Plan::Use(Vec::new()));
    }
    let mut missing = Vec::new();
    let mut unsupported = Vec::new();
    for alternative in security {
        let mut applies = Vec::new();
        let mut wanted = Vec::new();
        let mut usable = true;
        for scheme in alternative {
            match find(scheme, sources) {
                Found::Ready(apply) => applies.push(apply),
                Found::Missing(vars) => wanted.extend(vars),
                Found::Unsupported => {
                    usable = false;
                    unsupported.push(scheme.scheme.clone());
                }
            }
        }
        if usable && wanted.is_empty() {
            return Ok(Plan::Use(applies));
        }
        if usable {
            missing.push(wanted);
        }
    }
    if missing.is_empty() {
        return Ok(Plan::Unusable(format!(
            "the API wants security schemes this runtime cannot apply ({}): override this tool's handler",
            unsupported.join(", ")
        )));
    }
    Err(missing)
}

fn find(scheme: &SecurityScheme, sources: &mut Sources<'_>) -> Found {
    let env = sources.env;
    let value = sources
        .values
        .get(&scheme.scheme)
        .cloned()
        .or_else(|| env(&scheme.env))
        .filter(|v| !v.is_empty());
    let header = |name: HeaderName, text: String| match HeaderValue::from_str(&text) {
        Ok(mut v) => {
            v.set_sensitive(true);
            Found::Ready(Apply::Header(name, v))
        }
        // Unusable as a header: reported as missing, naming the variable only.
        Err(_) => Found::Missing(vec![format!(
            "{} (set, but its value cannot be sent in a header)",
            scheme.env
        )]),
    };
    match (scheme.kind, value) {
        (SchemeKind::Unsupported, _) => Found::Unsupported,
        (SchemeKind::ApiKey, Some(key)) => {
            let name = scheme.name.clone().unwrap_or_default();
            match scheme.location {
                Some(Location::Query) => Found::Ready(Apply::Query(format!(
                    "{}={}",
                    encode(&name, false),
                    encode(&key, false)
                ))),
                Some(Location::Cookie) => Found::Ready(Apply::Cookie(format!(
                    "{}={}",
                    encode(&name, false),
                    encode(&key, false)
                ))),
                _ => match HeaderName::from_bytes(name.as_bytes()) {
                    Ok(header_name) => header(header_name, key),
                    Err(_) => Found::Unsupported,
                },
            }
        }
        (SchemeKind::Bearer | SchemeKind::Oauth2, Some(token)) => {
            header(AUTHORIZATION, format!("Bearer {token}"))
        }
        (SchemeKind::Basic, Some(pair)) => header(
            AUTHORIZATION,
            format!(
                "Basic {}",
                base64::engine::general_purpose::STANDARD.encode(pair)
            ),
        ),
        (SchemeKind::Oauth2, None) if scheme.token_url.is_some() => client(scheme, sources),
        (_, None) => Found::Missing(vec![scheme.env.clone()]),
    }
}

/// The client-credentials grant of an `oauth2` scheme with a `tokenUrl`.
fn client(scheme: &SecurityScheme, sources: &mut Sources<'_>) -> Found {
    let env = sources.env;
    let (id_var, secret_var) = (
        format!("{}_CLIENT_ID", scheme.env),
        format!("{}_CLIENT_SECRET", scheme.env),
    );
    let pair = sources.clients.get(&scheme.scheme).cloned().or_else(|| {
        let id = env(&id_var).filter(|v| !v.is_empty())?;
        let secret = env(&secret_var).filter(|v| !v.is_empty())?;
        Some((id, secret))
    });
    let Some((id, secret)) = pair else {
        return Found::Missing(vec![id_var, secret_var]);
    };
    let Some(url) = scheme
        .token_url
        .as_deref()
        .and_then(|u| Url::parse(u).ok())
        .filter(|u| matches!(u.scheme(), "http" | "https"))
    else {
        return Found::Unsupported;
    };
    let mut scopes = scheme.scopes.clone();
    scopes.sort();
    scopes.dedup();
    let key = (url.to_string(), id.clone(), scopes.clone());
    let source = sources
        .tokens
        .entry(key)
        .or_insert_with(|| Arc::new(TokenSource::new(url, id, secret, scopes)));
    Found::Ready(Apply::Token(Arc::clone(source)))
}

/// The secrets of one request under `plan`.
pub(crate) async fn secrets(
    applies: &[Apply],
    net: &Net,
    limits: Limits,
) -> Result<Secrets, String> {
    let mut secrets = Secrets::default();
    for apply in applies {
        match apply {
            Apply::Header(name, value) => secrets.headers.push((name.clone(), value.clone())),
            Apply::Query(piece) => secrets.query.push(piece.clone()),
            Apply::Cookie(piece) => secrets.cookies.push(piece.clone()),
            Apply::Token(source) => {
                let token = source.token(net, limits).await?;
                let mut value = HeaderValue::from_str(&format!("Bearer {token}"))
                    .map_err(|_| "the access token holds characters a header cannot".to_owned())?;
                value.set_sensitive(true);
                secrets.headers.push((AUTHORIZATION, value));
            }
        }
    }
    Ok(secrets)
}

/// After a `401`: the cached tokens of `applies` are dropped.
pub(crate) async fn refused(applies: &[Apply]) {
    for apply in applies {
        if let Apply::Token(source) = apply {
            source.forget().await;
        }
    }
}
