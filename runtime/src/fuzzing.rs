//! Entry points of the fuzz targets (`fuzz/`) into parts of the HTTP
//! client that are not public: what a server the user may not trust feeds
//! them.

use std::sync::Arc;

use crate::client::http::sse::SseParser;
use crate::client::http::HttpTransport;

/// The HTTP client transport for `url` whose every new connection is
/// `dial()`'s in-memory stream instead of a TCP connection: the caller
/// serves the other end (status line, headers and body as it likes).
/// `url`'s host and port only go into the requests' `Host` header.
pub fn http_transport(
    url: &str,
    dial: impl Fn() -> tokio::io::DuplexStream + Send + Sync + 'static,
) -> std::io::Result<HttpTransport> {
    Ok(HttpTransport::new(url)?.dial(Arc::new(dial)))
}

/// What the client's Server-Sent Events parser made of a stream that came
/// in `chunks`, holding at most `max` bytes of one event: the events, the
/// last `id` and the last `retry`. `None` when an event passed the limit
/// (the client then fails the read).
pub fn sse(chunks: &[&[u8]], max: usize) -> Option<SseOutcome> {
    let mut parser = SseParser::new(max);
    for chunk in chunks {
        parser.feed(chunk).ok()?;
    }
    parser.finish();
    let mut events = Vec::new();
    while let Some(event) = parser.next_event() {
        events.push(event);
    }
    Some(SseOutcome {
        events,
        last_id: parser.last_id.clone(),
        retry: parser.retry,
    })
}

/// What [`sse`] read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SseOutcome {
    /// Each event's `data`, in order.
    pub events: Vec<String>,
    /// The last `id` field.
    pub last_id: Option<String>,
    /// The last `retry` field, in milliseconds.
    pub retry: Option<u64>,
}

/// What the OAuth client makes of a document a server it may not trust
/// sent (`body`), for the MCP endpoint `endpoint`: as protected resource
/// metadata, as authorization server metadata, and as a token response.
/// Each `Ok` or the error's message.
#[cfg(feature = "oauth")]
pub fn oauth_documents(endpoint: &str, body: &[u8]) -> OauthDocuments {
    use crate::client::oauth::discovery::{
        check_resource, check_server, ProtectedResource, ServerMetadata,
    };
    let Ok(doc) = serde_json::from_slice::<serde_json::Value>(body) else {
        return OauthDocuments::default();
    };
    let endpoint = url::Url::parse(endpoint).ok();
    let resource = serde_json::from_value::<ProtectedResource>(doc.clone())
        .map_err(|e| e.to_string())
        .and_then(|r| match &endpoint {
            Some(url) => check_resource(url, &r.resource, "fuzz").map_err(|e| e.to_string()),
            None => Err("no endpoint".into()),
        });
    let server = serde_json::from_value::<ServerMetadata>(doc.clone())
        .map_err(|e| e.to_string())
        .and_then(|m| {
            let issuer = m.issuer.clone();
            check_server(m, &issuer, "fuzz").map_err(|e| e.to_string())
        })
        .and_then(|m| {
            m.check_code_flow().map_err(|e| e.to_string())?;
            Ok(m.token_endpoint)
        });
    let tokens = crate::client::oauth::token::accept(doc, "fuzz", true)
        .map(|t| t.token_type)
        .map_err(|e| e.to_string());
    OauthDocuments {
        resource: Some(resource),
        server: Some(server),
        tokens: Some(tokens),
    }
}

/// What [`oauth_documents`] made of a document (`None`: not JSON).
#[cfg(feature = "oauth")]
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct OauthDocuments {
    /// As resource metadata for the endpoint.
    pub resource: Option<Result<(), String>>,
    /// As authorization server metadata usable for the browser flow: its
    /// token endpoint.
    pub server: Option<Result<String, String>>,
    /// As a token response: the token type.
    pub tokens: Option<Result<String, String>>,
}

/// The bearer gate's check of a DPoP proof sent with a `method` request to
/// `resource` carrying `token`, by a fresh gate (no nonces): the proof
/// key's thumbprint, or why it was refused. `repeat` checks the same proof
/// a second time on the same gate (a replay).
#[cfg(feature = "oauth")]
pub fn dpop_proof(
    proof: &str,
    method: &str,
    resource: &str,
    token: &str,
    repeat: bool,
) -> Vec<Result<String, String>> {
    use crate::server::http::auth::dpop::{DpopGate, ProofError};
    let Ok(gate) = DpopGate::new(crate::server::http::auth::DpopConfig::new()) else {
        return Vec::new();
    };
    let once = || {
        gate.check(proof, method, resource, token)
            .map_err(|e| match e {
                ProofError::Invalid(why) => why,
                ProofError::UseNonce => "use_dpop_nonce".to_owned(),
            })
    };
    let mut out = vec![once()];
    if repeat {
        out.push(once());
    }
    out
}
