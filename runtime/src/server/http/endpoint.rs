//! The endpoint's state ([`Inner`], shared by every clone of the service)
//! and its first look at a request: Host and Origin, authentication, then
//! POST (`post`), the GET stream of a stateful session, or its DELETE.
//! Sessions across replicas are `replica`'s.

use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Weak};

use http::{Method, Request, Response, StatusCode};
use tokio::sync::mpsc;

use crate::server::handler::cancel::CancellationToken;
use crate::server::handler::context::Principal;
use crate::server::handler::extras::Extras;
use crate::server::{CachedScope, Server};

use super::body::{HttpBody, OnClose};
use super::guard;
use super::responses::{
    auth_refused, method_not_allowed, refusal, session_not_found, sse_response, status_only,
};
use super::sessions::Sessions;
use super::store::{bounded, SessionEvent};
use super::HttpConfig;
use crate::transport::http::headers::ParamHeader;
use crate::transport::http::scan::Scan;

/// Notifications a request's SSE stream buffers before its handler waits.
pub(super) const STREAM_QUEUE: usize = 64;

/// What every clone of the service shares.
pub(super) struct Inner {
    pub(super) server: Server,
    pub(super) config: HttpConfig,
    pub(super) sessions: Sessions,
    /// Per tool, its `x-mcp-header` annotated parameters.
    pub(super) param_headers: std::collections::HashMap<String, Vec<ParamHeader>>,
    pub(super) shutdown: CancellationToken,
    /// Request-body bytes that may be read and handled at once (permits
    /// are bytes; see [`HttpConfig::max_buffered_bytes`]).
    pub(super) body_budget: Arc<tokio::sync::Semaphore>,
    /// Whether the session store's events are being listened to.
    pub(super) listening: AtomicBool,
    /// The scope of the last stateless request's `_meta`: a client sends
    /// the same `_meta` with every request, which is then not read again.
    pub(super) kept_scope: std::sync::Mutex<Option<Arc<CachedScope>>>,
    /// This service itself, for the tasks it starts.
    pub(super) me: Weak<Inner>,
}

impl Inner {
    pub(super) async fn handle<B>(self: Arc<Self>, request: Request<B>) -> Response<HttpBody>
    where
        B: http_body::Body + Send + 'static,
        B::Data: Send,
        B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
    {
        self.listen();
        let (parts, body) = request.into_parts();
        // The request's parts move into its extras (not copied), where
        // everything handling it reads them.
        let extras = Extras::http(parts);
        // (Always there: the extras were made from HTTP parts just above.)
        let Some(parts) = extras.parts() else {
            return status_only(StatusCode::INTERNAL_SERVER_ERROR);
        };
        let scan = Scan::of(&parts.headers);
        if let Err(r) = guard::check_host(scan.host, &self.config.allowed_hosts)
            .and_then(|()| guard::check_origin(scan.origin, &self.config.allowed_origins))
        {
            return refusal(r);
        }
        if let Some(gate) = &self.config.bearer {
            match gate.admit(&parts.method, &parts.headers).await {
                Ok(p) => extras.authenticate(p),
                Err(rejection) => return auth_refused(rejection),
            }
        }
        if let Some(hook) = &self.config.auth {
            match hook(parts) {
                Ok(Some(p)) => extras.authenticate(std::sync::Arc::new(p)),
                Ok(None) => {}
                Err(rejection) => return auth_refused(rejection),
            }
        }
        let session_id = scan.session_id.map(|v| v.to_str().unwrap_or(""));
        match parts.method {
            Method::POST => self.post(&extras, &scan, body, session_id).await,
            Method::GET => {
                self.get(&parts.headers, session_id, extras.principal())
                    .await
            }
            Method::DELETE => self.delete(session_id, extras.principal()).await,
            _ => method_not_allowed(
                "GET, POST, DELETE",
                "the MCP endpoint answers POST (and GET/DELETE for stateful sessions)",
            ),
        }
    }

    async fn get(
        &self,
        headers: &http::HeaderMap,
        session_id: Option<&str>,
        principal: Option<&Principal>,
    ) -> Response<HttpBody> {
        let Some(id) = session_id.filter(|_| self.config.stateful) else {
            return method_not_allowed(
                "POST",
                "GET streams belong to stateful sessions; send requests with POST",
            );
        };
        if let Err(r) = guard::check_get_accept(headers) {
            return refusal(r);
        }
        let Some(entry) = self.session(id, principal).await else {
            return session_not_found();
        };
        let (tx, rx) = mpsc::channel(STREAM_QUEUE);
        let weak = tx.downgrade();
        *entry.stream.lock().unwrap_or_else(|p| p.into_inner()) = Some(tx);
        let slot = Arc::clone(&entry);
        let on_close = OnClose::new(move || {
            let mut current = slot.stream.lock().unwrap_or_else(|p| p.into_inner());
            let ours = match (current.as_ref(), weak.upgrade()) {
                (Some(open), Some(mine)) => open.same_channel(&mine),
                _ => false,
            };
            if ours {
                *current = None;
            }
        });
        sse_response(HttpBody::sse(
            None,
            rx,
            None,
            self.config.keep_alive,
            self.shutdown.clone(),
            Some(on_close),
        ))
    }

    async fn delete(
        &self,
        session_id: Option<&str>,
        principal: Option<&Principal>,
    ) -> Response<HttpBody> {
        let Some(id) = session_id.filter(|_| self.config.stateful) else {
            return method_not_allowed(
                "POST",
                "there is no session to end: this request names none",
            );
        };
        if self.session(id, principal).await.is_none() {
            return session_not_found();
        }
        self.sessions.close(id);
        if let Some(store) = &self.config.session_store {
            // Gone from the store, then from every replica holding it.
            let limit = self.config.store_timeout;
            if let Err(e) = bounded(limit, store.remove(id)).await {
                tracing::warn!(error = %e, "ended session not removed from the store");
            }
            if let Err(e) = bounded(limit, store.publish(id, &SessionEvent::Ended)).await {
                tracing::warn!(error = %e, "session end not published");
            }
        }
        status_only(StatusCode::OK)
    }
}
