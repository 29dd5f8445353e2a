//! The handshake and version negotiation.
//!
//! Revisions up to 2025-11-25 use `initialize` + `notifications/initialized`:
//! the client offers its newest revision and accepts any revision it
//! supports in the answer. Revisions from 2026-07-28 on have no handshake:
//! the client may ask `server/discover` for the server's versions, and
//! every request carries the version in `_meta`. When the client supports
//! both kinds, it tries `server/discover` first and falls back to
//! `initialize` only when the answer says the server is legacy (the rules of
//! the 2026-07-28 `versioning` and transport pages):
//!
//! - a `DiscoverResult`: the server is modern; pick the newest common
//!   revision (`initialize` when that one is legacy);
//! - `-32022` (unsupported protocol version): the server is modern; retry
//!   once with the newest revision of its `data.supported` list the client
//!   speaks, never falling back on the offered one;
//! - another error of the range the specification keeps (`-32020` header
//!   mismatch, `-32021` missing capability, …): the server is modern and
//!   refused the probe; that error is the outcome;
//! - any other JSON-RPC error (`-32601`, `-32602`, an HTTP 404 or a `400`
//!   without a modern body, which the HTTP transport reports as `-32000`):
//!   the server is legacy; `initialize` follows.

use serde_json::{json, Value};

use super::engine::{Negotiated, Shared};
use super::error::ClientError;
use super::options::CallOptions;
use crate::revision::method::Method;

/// True for revisions that have no `initialize` (the stateless era of the
/// revision table).
pub fn is_stateless_revision(revision: &str) -> bool {
    crate::revision::era(revision) == crate::revision::Era::Stateless
}

/// Negotiates the protocol revision (see the module docs) and records the
/// [`Negotiated`] ([`Client::initialize`](super::Client::initialize)).
/// Calling it twice is an error.
pub(super) async fn initialize(shared: &Shared) -> Result<&Negotiated, ClientError> {
    if shared.session.get().is_some() {
        return Err(ClientError::unexpected("the client is already initialised"));
    }
    let supported = shared.options.protocol_versions.clone();
    let Some(newest) = supported.first().cloned() else {
        return Err(ClientError::unexpected(
            "the client supports no protocol revision (ClientOptions::protocol_versions is empty)",
        ));
    };
    let session = if is_stateless_revision(&newest) {
        probe(shared, newest, &supported).await?
    } else {
        initialize_with(shared, &newest, &supported).await?
    };
    let _ = shared.session.set(session);
    Ok(shared.session.get().expect("set above"))
}

/// The modern handshake: `server/discover` with the newest revision,
/// then what its answer calls for (see the module docs).
async fn probe(
    shared: &Shared,
    newest: String,
    supported: &[String],
) -> Result<Negotiated, ClientError> {
    let newest_stateful = supported
        .iter()
        .find(|v| !is_stateless_revision(v))
        .cloned();
    let mut offer = newest;
    let mut retried = false;
    loop {
        let error = match discover(shared, &offer, supported).await {
            Ok(Discovered::Negotiated(session)) => return Ok(session),
            Ok(Discovered::Stateful(version)) => {
                return initialize_with(shared, &version, supported).await
            }
            Ok(Discovered::Nothing(theirs)) => {
                return Err(ClientError::Version {
                    offered: offer,
                    server: theirs,
                    supported: supported.to_vec(),
                })
            }
            Err(error) => error,
        };
        let ClientError::Protocol { code, data, .. } = &error else {
            return Err(error);
        };
        if *code == crate::revision::codes::UNSUPPORTED_PROTOCOL_VERSION {
            // A modern server that does not take `offer`: use a revision
            // from its list, once.
            let theirs: Vec<&str> = data
                .as_deref()
                .and_then(|d| d.get("supported"))
                .and_then(Value::as_array)
                .map(|a| a.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            let common = supported.iter().find(|v| theirs.contains(&v.as_str()));
            match common {
                Some(version) if !is_stateless_revision(version) => {
                    return initialize_with(shared, version, supported).await
                }
                Some(version) if !retried => {
                    retried = true;
                    offer = version.clone();
                    continue;
                }
                _ => {
                    return Err(ClientError::Version {
                        offered: offer,
                        server: if theirs.is_empty() {
                            "no supported versions".into()
                        } else {
                            theirs.join(", ")
                        },
                        supported: supported.to_vec(),
                    })
                }
            }
        }
        if crate::revision::codes::is_stateless(*code) {
            return Err(error);
        }
        // Any other error: the server does not know `server/discover`.
        return match &newest_stateful {
            Some(stateful) => initialize_with(shared, stateful, supported).await,
            None => Err(error),
        };
    }
}

/// `server/discover` and what to do with its answer.
async fn discover(
    shared: &Shared,
    offer: &str,
    supported: &[String],
) -> Result<Discovered, ClientError> {
    let mut meta = serde_json::Map::new();
    shared.add_stateless_meta(&mut meta, offer);
    let result = shared
        .request(
            Method::Discover.name(),
            Some(json!({ "_meta": meta })),
            &CallOptions::new(),
        )
        .await?;
    let theirs: Vec<&str> = result
        .get("supportedVersions")
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let Some(version) = supported.iter().find(|v| theirs.contains(&v.as_str())) else {
        return Ok(Discovered::Nothing(theirs.join(", ")));
    };
    if !is_stateless_revision(version) {
        return Ok(Discovered::Stateful(version.clone()));
    }
    let server_info = result
        .pointer("/_meta/io.modelcontextprotocol~1serverInfo")
        .or_else(|| result.get("serverInfo"))
        .cloned()
        .unwrap_or(Value::Null);
    Ok(Discovered::Negotiated(Negotiated {
        protocol_version: version.clone(),
        server_info,
        capabilities: result
            .get("capabilities")
            .cloned()
            .unwrap_or_else(|| json!({})),
        instructions: result
            .get("instructions")
            .and_then(Value::as_str)
            .map(str::to_owned),
        stateless: true,
    }))
}

async fn initialize_with(
    shared: &Shared,
    offer: &str,
    supported: &[String],
) -> Result<Negotiated, ClientError> {
    let params = json!({
        "protocolVersion": offer,
        "capabilities": shared.options.capabilities,
        "clientInfo": shared.options.client_info,
    });
    let result = shared
        .request(Method::Initialize.name(), Some(params), &CallOptions::new())
        .await?;
    let Some(version) = result.get("protocolVersion").and_then(Value::as_str) else {
        return Err(ClientError::unexpected(format!(
            "the server's initialize result has no protocolVersion: {}",
            truncate_json(&result)
        )));
    };
    if !supported.iter().any(|v| v == version) {
        return Err(ClientError::Version {
            offered: offer.to_owned(),
            server: version.to_owned(),
            supported: supported.to_vec(),
        });
    }
    shared.notify(Method::Initialized.name(), None)?;
    Ok(Negotiated {
        protocol_version: version.to_owned(),
        server_info: result.get("serverInfo").cloned().unwrap_or(Value::Null),
        capabilities: result
            .get("capabilities")
            .cloned()
            .unwrap_or_else(|| json!({})),
        instructions: result
            .get("instructions")
            .and_then(Value::as_str)
            .map(str::to_owned),
        stateless: false,
    })
}

/// The outcome of `server/discover`.
enum Discovered {
    /// A stateless revision both sides speak.
    Negotiated(Negotiated),
    /// The newest common revision needs `initialize`.
    Stateful(String),
    /// No common revision; the server's list.
    Nothing(String),
}

fn truncate_json(value: &Value) -> String {
    let text = value.to_string();
    if text.len() > 300 {
        let mut end = 300;
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        format!("{}…", &text[..end])
    } else {
        text
    }
}
