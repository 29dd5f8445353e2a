//! The [`Authorizer`]: what the HTTP transport asks for the `Authorization`
//! header of each request, and what it hands a `401` or a
//! `403 insufficient_scope` to. One flow runs at a time per endpoint; a
//! request that failed with a token already replaced just retries.
//!
//! On a challenge: the resource metadata is fetched again (the
//! authorization server may have moved), the server's metadata checked,
//! a refresh token tried first (`401` only), else the authorization code
//! flow runs: client identity, PKCE S256, `state`, `resource`, the scopes
//! (the challenge's, unioned with those asked before on step-up; else the
//! resource's `scopes_supported`; `offline_access` added when the
//! authorization server lists it, and then `prompt=consent`), the redirect
//! checked (`state`, RFC 9207 `iss`), the code exchanged.
//!
//! `prompt=consent` with `offline_access`: the MCP specification
//! (2026-07-28, "Refresh Tokens") lets a client wanting refresh tokens add
//! `offline_access` when the authorization server's `scopes_supported`
//! lists it; that scope is OpenID Connect's, whose Core 1.0 §11 says a
//! request for it MUST carry `prompt=consent` (an OpenID provider may
//! otherwise ignore it and issue no refresh token). A server that lists the
//! scope speaks OpenID Connect; one that does not is never sent either,
//! and an OAuth server ignores a parameter it does not know (RFC 6749
//! §3.1).

use std::collections::BTreeSet;
use std::sync::{Arc, RwLock};

use url::Url;

use super::challenge::Challenge;
use super::discovery::{self, ProtectedResource, ServerMetadata};
use super::dpop::DpopKey;
use super::grant::{self, Grant};
use super::pkce::{self, Pkce};
use super::redirect::RedirectReceiver;
use super::registration::{self, ClientCredentials};
use super::store::StoredAuth;
use super::token::{self, Tokens};
use super::{AuthError, OAuth};
use crate::transport::http::{HttpOptions, DPOP};
use crate::unix_time;

/// Whether an authorization request for `scopes` asks for
/// `offline_access`, and so must say `prompt=consent` (OpenID Connect
/// Core 1.0 §11).
pub(crate) fn asks_offline_access(scopes: &[String]) -> bool {
    scopes.iter().any(|s| s == "offline_access")
}

/// Authorization for one MCP endpoint.
pub struct Authorizer {
    oauth: OAuth,
    endpoint: Url,
    key: String,
    flow: tokio::sync::Mutex<()>,
    current: RwLock<Option<Current>>,
    /// The DPoP key the tokens are bound to, once DPoP is used.
    dpop: RwLock<Option<Arc<DpopKey>>>,
    /// The MCP server's latest `DPoP-Nonce`.
    nonce: RwLock<Option<String>>,
    /// How the flow's own requests connect (CA files, proxy, timeout of
    /// the transport), without the transport's extra headers: those are
    /// for the MCP server alone.
    net: HttpOptions,
}

impl std::fmt::Debug for Authorizer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Authorizer")
            .field("endpoint", &self.key)
            .field("has_token", &self.bearer().is_some())
            .finish_non_exhaustive()
    }
}

/// The access token in use, and whether it is DPoP-bound.
#[derive(Clone)]
struct Current {
    token: String,
    bound: bool,
}

fn read<T: Clone>(lock: &RwLock<T>) -> T {
    lock.read().unwrap_or_else(|e| e.into_inner()).clone()
}

fn write<T>(lock: &RwLock<T>, value: T) {
    *lock.write().unwrap_or_else(|e| e.into_inner()) = value;
}

impl Authorizer {
    /// Authorization for the MCP endpoint `endpoint`, starting with the
    /// token the store holds for it, if any.
    pub fn new(oauth: OAuth, endpoint: &str) -> Result<Self, AuthError> {
        let parsed = Url::parse(endpoint).map_err(|e| {
            AuthError::new(format!("the MCP endpoint {endpoint:?} is not a URL: {e}"))
        })?;
        let stored = oauth.store.load(endpoint)?.unwrap_or_default();
        // A stored key that no longer loads leaves its tokens unusable.
        let dpop = match stored.dpop_key.as_deref().map(DpopKey::from_secret) {
            Some(Ok(key)) => Some(Arc::new(key)),
            Some(Err(e)) => {
                tracing::debug!("mcp oauth: the stored DPoP key is unusable: {e}");
                None
            }
            None => None,
        };
        let current = stored
            .access_token
            .filter(|_| stored.expires_at.is_none_or(|t| t > unix_time::now()))
            .filter(|_| !stored.dpop_bound || dpop.is_some())
            .map(|token| Current {
                token,
                bound: stored.dpop_bound,
            });
        Ok(Self {
            oauth,
            endpoint: parsed,
            key: endpoint.to_owned(),
            flow: tokio::sync::Mutex::new(()),
            current: RwLock::new(current),
            dpop: RwLock::new(dpop),
            nonce: RwLock::new(None),
            net: HttpOptions::default(),
        })
    }

    /// The access token to send, if there is one.
    pub fn bearer(&self) -> Option<String> {
        read(&self.current).map(|c| c.token)
    }

    /// The headers that authorize a `method` request to the MCP endpoint
    /// `url`: `Authorization: Bearer TOKEN`, or for a DPoP-bound token
    /// `Authorization: DPoP TOKEN` with a fresh proof in `DPoP` (RFC 9449
    /// §7), carrying the server's latest nonce.
    pub(crate) fn headers(
        &self,
        method: &str,
        url: &str,
    ) -> Vec<(http::HeaderName, http::HeaderValue)> {
        let Some(current) = read(&self.current) else {
            return Vec::new();
        };
        let sensitive = |text: String| {
            let mut value = http::HeaderValue::from_str(&text).ok()?;
            value.set_sensitive(true);
            Some(value)
        };
        let key = read(&self.dpop).filter(|_| current.bound);
        let Some(key) = key else {
            return sensitive(format!("Bearer {}", current.token))
                .map(|v| vec![(http::header::AUTHORIZATION, v)])
                .unwrap_or_default();
        };
        let nonce = read(&self.nonce);
        let proof = match key.proof(method, url, Some(&current.token), nonce.as_deref()) {
            Ok(p) => p,
            Err(e) => {
                tracing::warn!("mcp oauth: no DPoP proof could be made: {e}");
                return Vec::new();
            }
        };
        match (
            sensitive(format!("DPoP {}", current.token)),
            sensitive(proof),
        ) {
            (Some(auth), Some(proof)) => {
                vec![(http::header::AUTHORIZATION, auth), (DPOP, proof)]
            }
            _ => Vec::new(),
        }
    }

    /// Keeps a `DPoP-Nonce` the MCP server sent for the next proofs.
    pub(crate) fn offer_nonce(&self, nonce: &str) {
        if read(&self.current).is_some_and(|c| c.bound) && nonce.len() <= 1024 {
            write(&self.nonce, Some(nonce.to_owned()));
        }
    }

    fn set_current(&self, current: Option<Current>) {
        write(&self.current, current);
    }

    /// Handles a `401` or `403` whose `WWW-Authenticate` values are
    /// `headers`, for a request sent with the token `sent`. `Ok`: retry the
    /// request (with [`Authorizer::bearer`]).
    /// Connects the flow's requests the way the transport connects
    /// (`options`' CA files, client certificate, proxy and connect
    /// timeout); `options`' headers are not sent to authorization servers.
    pub(crate) fn network(mut self, options: &HttpOptions) -> Self {
        self.net = HttpOptions {
            headers: http::HeaderMap::new(),
            ..options.clone()
        };
        self
    }

    /// Answers a 401 or 403 (`insufficient_scope`) the server gave a request
    /// sent with the bearer `sent`: discovers the authorization server from
    /// the challenge's `resource_metadata`, then refreshes, steps up or
    /// authorizes again, so that the caller can retry with the new token.
    /// Another 403 is an error naming it.
    pub async fn on_challenge(
        &self,
        status: u16,
        headers: &[&str],
        sent: Option<&str>,
    ) -> Result<(), AuthError> {
        let _flow = self.flow.lock().await;
        let challenge = Challenge::parse(headers.iter().copied());
        if status == 401 && challenge.error.as_deref() == Some("use_dpop_nonce") {
            // RFC 9449 §9: the nonce came with the answer (offer_nonce);
            // retry with it, unless the refused proof already carried it.
            let bound = read(&self.current).is_some_and(|c| c.bound);
            return if bound && read(&self.nonce).is_some() {
                Ok(())
            } else {
                Err(AuthError::new(
                    "the server asks for a DPoP nonce but sent none (DPoP-Nonce header)",
                ))
            };
        }
        if status == 403 && !challenge.insufficient_scope() {
            return Err(AuthError::new(format!(
                "the server refused the request with HTTP 403{}",
                challenge
                    .error_description
                    .as_deref()
                    .map(|d| format!(": {d}"))
                    .unwrap_or_default()
            )));
        }
        if status == 401 && self.bearer().as_deref() != sent && self.bearer().is_some() {
            return Ok(()); // another request already authorized again
        }
        let mut stored = self.oauth.store.load(&self.key)?.unwrap_or_default();
        let resource = discovery::resource_metadata(
            &self.net,
            &self.endpoint,
            challenge.resource_metadata.as_deref(),
        )
        .await?;
        let server = match &resource {
            Some(prm) => {
                let issuer = prm
                    .authorization_servers
                    .iter()
                    .find(|i| **i == stored.issuer)
                    .unwrap_or(&prm.authorization_servers[0]);
                discovery::server_metadata(&self.net, issuer).await?
            }
            None => discovery::stateful_server_metadata(&self.net, &self.endpoint).await?,
        };
        if server.issuer != stored.issuer {
            // A new authorization server: nothing from the old one carries over.
            tracing::debug!(issuer = %server.issuer, "mcp oauth: authorizing with a new authorization server");
            stored = StoredAuth {
                issuer: server.issuer.clone(),
                ..StoredAuth::default()
            };
        }
        let resource_id = resource.as_ref().map(|r| r.resource.clone());
        if status == 401 {
            let client = self
                .oauth
                .credentials
                .clone()
                .filter(|c| c.fits(&server.issuer))
                .or_else(|| stored.client.clone());
            if let (Some(refresh), Some(client)) = (stored.refresh_token.clone(), client) {
                match token::refresh(
                    &self.net,
                    &server,
                    &client,
                    &refresh,
                    resource_id.as_deref(),
                    read(&self.dpop).as_deref(),
                )
                .await
                {
                    Ok(tokens) => return self.keep(stored, tokens, None),
                    Err(e) => {
                        tracing::debug!("mcp oauth: refreshing failed, authorizing again: {e}")
                    }
                }
            }
        }
        let dpop = self.dpop_key(&challenge, resource.as_ref(), &server, &mut stored)?;
        let interactive = matches!(self.oauth.grant, Grant::Code(_));
        let scopes = self.scopes(
            &challenge,
            status,
            resource.as_ref(),
            &server,
            &stored,
            interactive,
        );
        let tokens = match &self.oauth.grant {
            Grant::Code(redirect) => {
                let client = registration::identify(
                    &self.net,
                    &self.oauth,
                    &server,
                    stored.client.as_ref(),
                    &redirect.redirect_uri(),
                )
                .await?;
                stored.client = Some(client.clone());
                self.authorize_code(
                    redirect.as_ref(),
                    &server,
                    &client,
                    resource_id.as_deref(),
                    &scopes,
                    dpop.as_deref(),
                )
                .await?
            }
            other => {
                let client = self.registered(&server, other)?;
                stored.client = Some(client.clone());
                grant::request(
                    &self.net,
                    other,
                    &server,
                    &client,
                    &scopes,
                    resource_id.as_deref(),
                    dpop.as_deref(),
                )
                .await?
            }
        };
        self.keep(stored, tokens, Some(scopes))
    }

    /// The credentials registered beforehand that a grant without a
    /// browser needs (there is no redirect to register).
    fn registered(
        &self,
        server: &ServerMetadata,
        grant: &Grant,
    ) -> Result<ClientCredentials, AuthError> {
        match &self.oauth.credentials {
            Some(c) if c.fits(&server.issuer) => Ok(c.clone()),
            Some(c) => Err(AuthError::new(format!(
                "the client credentials are for the authorization server {}, not {}; \
                 the {} grant needs credentials registered with {}",
                c.issuer.as_deref().unwrap_or("?"),
                server.issuer,
                grant.name(),
                server.issuer
            ))),
            None => Err(AuthError::new(format!(
                "the {} grant needs client credentials registered with {} (OAuth::credentials)",
                grant.name(),
                server.issuer
            ))),
        }
    }

    /// Stores new tokens and makes the access token current.
    fn keep(
        &self,
        mut stored: StoredAuth,
        tokens: Tokens,
        scopes: Option<Vec<String>>,
    ) -> Result<(), AuthError> {
        stored.access_token = Some(tokens.access_token.clone());
        if tokens.refresh_token.is_some() {
            stored.refresh_token = tokens.refresh_token;
        }
        stored.expires_at = tokens.expires_in.map(|s| unix_time::now() + s);
        if let Some(scopes) = scopes {
            stored.scopes = scopes;
        }
        stored.dpop_bound = tokens.token_type.eq_ignore_ascii_case("dpop");
        self.oauth.store.save(&self.key, &stored)?;
        if stored.dpop_bound {
            // A new token: the server's nonce for the old one may be stale.
            write(&self.nonce, None);
        }
        self.set_current(Some(Current {
            token: tokens.access_token,
            bound: stored.dpop_bound,
        }));
        Ok(())
    }

    /// The DPoP key to bind new tokens to, made (and stored) on first use:
    /// when [`OAuth::dpop`](super::OAuth::dpop) says so, or by default
    /// when the authorization server takes ES256 proofs and the MCP server
    /// asks for DPoP (its challenge, or its metadata's
    /// `dpop_bound_access_tokens_required`).
    fn dpop_key(
        &self,
        challenge: &Challenge,
        resource: Option<&ProtectedResource>,
        server: &ServerMetadata,
        stored: &mut StoredAuth,
    ) -> Result<Option<Arc<DpopKey>>, AuthError> {
        let es256 = server
            .dpop_signing_alg_values_supported
            .as_ref()
            .is_some_and(|a| a.iter().any(|a| a == "ES256"));
        let asked = challenge.dpop
            || resource.is_some_and(|r| r.dpop_bound_access_tokens_required == Some(true));
        let wanted = match self.oauth.dpop {
            Some(on) => on,
            None => cfg!(feature = "oauth") && es256 && asked,
        };
        if !wanted {
            return Ok(None);
        }
        if let Some(key) = read(&self.dpop) {
            stored.dpop_key = Some(key.secret());
            return Ok(Some(key));
        }
        let key = Arc::new(DpopKey::generate()?);
        stored.dpop_key = Some(key.secret());
        write(&self.dpop, Some(key.clone()));
        Ok(Some(key))
    }

    /// The scopes to ask for: the configured ones; else the challenge's
    /// (on step-up, with those asked before); else the resource's
    /// `scopes_supported`; plus `offline_access` when the authorization
    /// server lists it and a user is asked (`interactive`).
    fn scopes(
        &self,
        challenge: &Challenge,
        status: u16,
        resource: Option<&ProtectedResource>,
        server: &ServerMetadata,
        stored: &StoredAuth,
        interactive: bool,
    ) -> Vec<String> {
        let mut out: Vec<String> = if let Some(configured) = &self.oauth.scopes {
            configured.clone()
        } else if let Some(scope) = &challenge.scope {
            scope.clone()
        } else {
            resource
                .and_then(|r| r.scopes_supported.clone())
                .unwrap_or_default()
        };
        if status == 403 {
            let mut seen: BTreeSet<String> = out.iter().cloned().collect();
            for s in stored.scopes.iter().rev() {
                if seen.insert(s.clone()) {
                    out.insert(0, s.clone());
                }
            }
        }
        if interactive
            && server.supports_scope("offline_access")
            && !out.iter().any(|s| s == "offline_access")
        {
            out.push("offline_access".to_owned());
        }
        out
    }

    /// The authorization code flow: the URL, the redirect, its checks, the
    /// token request.
    async fn authorize_code(
        &self,
        redirect: &dyn RedirectReceiver,
        server: &ServerMetadata,
        client: &registration::ClientCredentials,
        resource: Option<&str>,
        scopes: &[String],
        dpop: Option<&DpopKey>,
    ) -> Result<Tokens, AuthError> {
        server.check_code_flow()?;
        let pkce = Pkce::new()?;
        let state = pkce::random_string(24)?;
        let redirect_uri = redirect.redirect_uri();
        let mut url = Url::parse(&server.authorization_endpoint)
            .map_err(|e| AuthError::new(format!("the authorization endpoint is not a URL: {e}")))?;
        {
            let mut q = url.query_pairs_mut();
            q.append_pair("response_type", "code")
                .append_pair("client_id", &client.client_id)
                .append_pair("redirect_uri", &redirect_uri)
                .append_pair("code_challenge", &pkce.challenge)
                .append_pair("code_challenge_method", "S256")
                .append_pair("state", &state);
            if !scopes.is_empty() {
                q.append_pair("scope", &scopes.join(" "));
            }
            if asks_offline_access(scopes) {
                q.append_pair("prompt", "consent");
            }
            if let Some(r) = resource {
                q.append_pair("resource", r);
            }
        }
        let callback = redirect.receive(url.as_str()).await?;
        if let Some(error) = &callback.error {
            return Err(AuthError::new(format!(
                "the authorization server refused: {error}{}",
                callback
                    .error_description
                    .as_deref()
                    .map(|d| format!(" ({d})"))
                    .unwrap_or_default()
            )));
        }
        if callback.state.as_deref() != Some(state.as_str()) {
            return Err(AuthError::new(
                "the authorization response's state does not match the request's; it was discarded",
            ));
        }
        match &callback.iss {
            Some(iss) if *iss != server.issuer => {
                return Err(AuthError::new(format!(
                    "the authorization response names the issuer {iss:?}, not {:?}; it was discarded (RFC 9207)",
                    server.issuer
                )))
            }
            None if server.authorization_response_iss_parameter_supported == Some(true) => {
                return Err(AuthError::new(format!(
                    "the authorization server {} advertises the iss response parameter but its response has none; \
                     it was discarded (RFC 9207)",
                    server.issuer
                )))
            }
            _ => {}
        }
        let code = callback
            .code
            .ok_or_else(|| AuthError::new("the authorization response carries no code"))?;
        token::exchange_code(
            &self.net,
            server,
            client,
            token::Code {
                code: &code,
                verifier: &pkce.verifier,
                redirect_uri: &redirect_uri,
            },
            resource,
            dpop,
        )
        .await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offline_access_is_asked_for_with_prompt_consent_only() {
        let scopes = |list: &[&str]| list.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert!(asks_offline_access(&scopes(&[
            "notes:read",
            "offline_access"
        ])));
        assert!(!asks_offline_access(&scopes(&["notes:read"])));
        assert!(
            !asks_offline_access(&scopes(&["offline_access_x"])),
            "the exact scope only"
        );
        assert!(!asks_offline_access(&[]));
    }
}
