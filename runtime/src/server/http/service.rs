//! [`HttpService`]: the MCP endpoint as a `tower::Service`. It decides per
//! request which era it belongs to (an `MCP-Session-Id`, an `initialize`,
//! or per-request `_meta`), applies the transport's rules and status codes,
//! and hands the message to the server engine with a session: the stored
//! one of a stateful session, a fresh one for a stateless request. With a
//! session store, a session unknown here is loaded from the store, and the
//! replicas tell each other of cancellations, state changes, ends,
//! messages for GET streams, the client's responses to requests a handler
//! on another replica sent, and the changes the application announces.
//!
//! This file is the public face; the work is in `endpoint` (the shared
//! state and a request's first look, GET and DELETE), `post`, `replica`
//! (sessions across replicas) and `responses`.

use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::task::{Context, Poll};

use http::header::{HeaderValue, CACHE_CONTROL};
use http::{Request, Response, StatusCode};
use serde_json::Value;

use crate::jsonrpc;
use crate::server::handler::cancel::CancellationToken;
use crate::server::Server;

use super::body::HttpBody;
use super::endpoint::Inner;
use super::replica::relay_changes;
use super::responses::json;
use super::sessions::Sessions;
use super::store::{bounded, SessionEvent};
use super::HttpConfig;
use crate::transport::http::headers;

/// The MCP endpoint over Streamable HTTP; cheap to clone (clones share
/// sessions). Mount it at the endpoint path, e.g. axum's
/// `Router::new().nest_service("/mcp", service)`, or run it with
/// [`super::serve`].
#[derive(Clone)]
pub struct HttpService {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for HttpService {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpService")
            .field("config", &self.inner.config)
            .field("sessions", &self.inner.sessions.len())
            .finish()
    }
}

impl HttpService {
    /// Serves `server` with the transport settings `config`.
    pub fn new(server: Server, config: HttpConfig) -> Self {
        let param_headers = server
            .core
            .tools
            .entries()
            .filter_map(|t| {
                let list = headers::param_headers(t.declared.get("inputSchema")?);
                (!list.is_empty()).then(|| (t.name.to_string(), list))
            })
            .collect();
        if let Some(store) = &config.session_store {
            relay_changes(&server, Arc::clone(store), config.store_timeout);
        }
        let sessions = Sessions::new(config.max_sessions, config.session_idle);
        let budget = config
            .max_buffered_bytes
            .min(tokio::sync::Semaphore::MAX_PERMITS);
        let body_budget = Arc::new(tokio::sync::Semaphore::new(budget));
        let inner = Arc::new_cyclic(|me| Inner {
            server,
            config,
            sessions,
            param_headers,
            shutdown: CancellationToken::new(),
            body_budget,
            listening: AtomicBool::new(false),
            kept_scope: std::sync::Mutex::new(None),
            me: me.clone(),
        });
        // Made inside a runtime, a replica listens to the others at once:
        // what they announce before its first request (a task's changes
        // for a request that then listens here) must not be missed while
        // it subscribes. Made outside one, it starts with its first request.
        if tokio::runtime::Handle::try_current().is_ok() {
            inner.listen();
        }
        Self { inner }
    }

    /// How long a client may take to send a request's head.
    pub(crate) fn header_read_timeout(&self) -> std::time::Duration {
        self.inner.config.header_read_timeout
    }

    /// The protected resource metadata document when `path` is one of its
    /// well-known paths and the service has a bearer gate (`None`
    /// otherwise): mount it at the server's root, beside the endpoint.
    pub fn resource_metadata(&self, path: &str) -> Option<Response<HttpBody>> {
        let text = self.inner.config.bearer.as_ref()?.metadata_at(path)?;
        let mut response = json(StatusCode::OK, text.to_owned());
        response
            .headers_mut()
            .insert(CACHE_CONTROL, HeaderValue::from_static("max-age=3600"));
        response
            .headers_mut()
            .insert("access-control-allow-origin", HeaderValue::from_static("*"));
        Some(response)
    }

    /// Ends every open SSE stream (for a graceful shutdown).
    pub fn shutdown(&self) {
        self.inner.shutdown.cancel();
    }

    /// Live stateful sessions.
    pub fn live_sessions(&self) -> usize {
        self.inner.sessions.len()
    }

    /// Drops expired stateful sessions now (they are also dropped lazily).
    pub fn sweep_sessions(&self) {
        self.inner.sessions.sweep();
    }

    /// Sends a server-initiated message (e.g. a notification) to stateful
    /// session `session_id`'s GET stream, on whichever replica holds it:
    /// `true` when it was handed to this service's stream or to the
    /// session store for the others.
    pub async fn notify(&self, session_id: &str, message: &Value) -> bool {
        let text = jsonrpc::json_text(message);
        if let Some(tx) = self
            .inner
            .sessions
            .peek(session_id)
            .and_then(|e| e.stream.lock().unwrap_or_else(|p| p.into_inner()).clone())
        {
            if tx.try_send(text.clone()).is_ok() {
                return true;
            }
        }
        let Some(store) = &self.inner.config.session_store else {
            return false;
        };
        let event = SessionEvent::Message { text };
        match bounded(
            self.inner.config.store_timeout,
            store.publish(session_id, &event),
        )
        .await
        {
            Ok(()) => true,
            Err(e) => {
                tracing::warn!(error = %e, "a message for a session's stream was not published");
                false
            }
        }
    }

    /// Handles one HTTP request.
    pub async fn handle<B>(&self, request: Request<B>) -> Response<HttpBody>
    where
        B: http_body::Body + Send + 'static,
        B::Data: Send,
        B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
    {
        Arc::clone(&self.inner).handle(request).await
    }
}

impl<B> tower_service::Service<Request<B>> for HttpService
where
    B: http_body::Body + Send + 'static,
    B::Data: Send,
    B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
{
    type Response = Response<HttpBody>;
    type Error = Infallible;
    type Future = Pin<Box<dyn Future<Output = Result<Response<HttpBody>, Infallible>> + Send>>;

    fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: Request<B>) -> Self::Future {
        let inner = Arc::clone(&self.inner);
        Box::pin(async move { Ok(inner.handle(request).await) })
    }
}
