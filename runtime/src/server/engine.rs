//! The per-message entry point: [`Server::handle`] takes one classified
//! message of a [`Session`], with a [`Sink`] for what the request sends
//! before its final reply, and says what to answer: nothing (a
//! notification, a response), a reply now, or a [`Pending`] reply (a tool
//! call, a batch) that the transport awaits or spawns. It never blocks:
//! a tool call waits for its slot inside its own future, so control
//! messages (cancellation, ping) are never stuck behind calls.
//!
//! Every method of [`Server`] is declared here; what a topic does is its
//! module's: `tools/call` in `answer::call`, reads in `answer::reads`,
//! tasks in `answer::task_methods`, listening in `answer::listen`, the stream
//! driver in `stream`.

use std::future::Future;
use std::io;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;
use std::task::Poll;

use serde_json::Value;

use crate::jsonrpc::{self, Incoming, RpcError};
use crate::revision::method::Method;
use crate::server::handler::context::Sink;
use crate::server::handler::extras::Extras;
use crate::server::handler::notifier::Notifier;
use crate::server::tools::catch::panic_message;
use crate::transport::Transport;

use super::session::{IdKey, Session};
use crate::server::answer::call::{self, CallRequest};
use crate::server::answer::methods::Core;
use crate::server::request::handled::{Handled, Pending};
use crate::server::request::message::Message;
use crate::server::request::params::Params;
use crate::server::request::reply::Reply;
use crate::server::request::route::{self, Route};
use crate::server::request::scope::Scope;

/// A configured server: built once, cheap to clone, serving any number of
/// sessions over any transports.
#[derive(Clone)]
pub struct Server {
    pub(crate) core: Arc<Core>,
}

impl std::fmt::Debug for Server {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Server")
            .field("config", &self.core.config)
            .field("tools", &self.core.tools.len())
            .finish()
    }
}

impl Server {
    /// The server's settings.
    pub fn config(&self) -> &super::ServerConfig {
        &self.core.config
    }

    /// A new session: one connection (stdio), one stateful HTTP session, or
    /// one stateless request.
    pub fn session(&self) -> Session {
        Session::new(self.core.config.max_concurrent_calls)
    }

    /// Serves one connection until its input ends, then lets in-flight calls
    /// finish (up to the shutdown grace) and returns.
    pub async fn serve<T: Transport>(self, transport: T) -> io::Result<()> {
        let session = self.session();
        let grace = self.core.config.shutdown_grace;
        super::stream::serve(
            transport,
            &session,
            grace,
            |sink| self.listen(&session, sink),
            |text, sink, extras| self.handle_text_with(&session, text, sink, extras),
        )
        .await
    }

    /// The handle that announces run-time changes of this server's lists
    /// and resources.
    pub fn notifier(&self) -> Notifier {
        Notifier::new(Arc::clone(&self.core.listeners))
    }

    /// Gives a stateful session a stream for messages outside requests
    /// (list changes, resource updates): a driver calls this with the
    /// connection (stdio) or the session's GET stream (HTTP).
    ///
    /// The listener holds the sink weakly: notifications reach it while the
    /// driver keeps its own `Sink` (and so the channel) alive, and never
    /// keep a finished connection's channel open.
    pub fn listen(&self, session: &Session, sink: &Sink) {
        let weak = sink.downgrade();
        self.listen_with(session, move || weak.upgrade().filter(Sink::is_connected));
    }

    /// [`Server::listen`] with the stream looked up when a notification
    /// goes out (`None`: no stream open now).
    /// The session keeps the lookup too, for its tasks' messages.
    pub(crate) fn listen_with(
        &self,
        session: &Session,
        stream: impl Fn() -> Option<Sink> + Send + Sync + 'static,
    ) {
        crate::server::answer::listen::listen_with(&self.core.listeners, session, stream);
    }

    /// Handles one message's text (which may be a JSON-RPC batch). A
    /// plain request or notification is decoded without a tree for its
    /// envelope and params; a modern request repeating the `_meta` text of
    /// the session's previous one is served with that one's scope.
    pub fn handle_text(
        &self,
        session: &Session,
        text: &str,
        sink: &Sink,
        extensions: &Arc<http::Extensions>,
    ) -> Handled {
        self.handle_text_with(session, text, sink, &Extras::map(Arc::clone(extensions)))
    }

    /// [`Server::handle_text`] for a transport that made the request's [`Extras`].
    pub(crate) fn handle_text_with(
        &self,
        session: &Session,
        text: &str,
        sink: &Sink,
        extras: &Arc<Extras>,
    ) -> Handled {
        let kept = session.cached_scope();
        self.handle_message(
            session,
            Message::decode_with(text, kept.as_ref()),
            sink,
            extras,
        )
    }

    /// Handles one classified message.
    pub fn handle(
        &self,
        session: &Session,
        incoming: Incoming,
        sink: &Sink,
        extensions: &Arc<http::Extensions>,
    ) -> Handled {
        self.handle_message(
            session,
            Message::from(incoming),
            sink,
            &Extras::map(Arc::clone(extensions)),
        )
    }

    /// Handles one decoded message (a driver that looked at it first).
    pub(crate) fn handle_message(
        &self,
        session: &Session,
        message: Message<'_>,
        sink: &Sink,
        extras: &Arc<Extras>,
    ) -> Handled {
        match message {
            Message::Request {
                id,
                method,
                mut params,
                meta_text,
                cached,
            } => {
                let scope = cached
                    .as_ref()
                    .and_then(|kept| self.core.scope_of(session, &method, kept, extras));
                if let (Some(kept), None) = (&cached, &scope) {
                    // Not served from the kept scope: `_meta` goes back in.
                    params.set("_meta", kept.meta().clone());
                }
                let known = Known { scope, meta_text };
                self.request_with(session, id, &method, params, known, sink, extras, false)
            }
            Message::Notification { method, params } => {
                self.core.on_notification(session, &method, &params);
                Handled::Nothing
            }
            // The answer to a request a handler sent (sampling,
            // elicitation, roots); an unknown id is ignored.
            Message::Other(Incoming::Response { id, outcome }) => {
                if !session.outbound().resolve(&id, outcome) {
                    tracing::debug!(id = %jsonrpc::json_text(&id), "ignoring a response to no pending request");
                }
                Handled::Nothing
            }
            Message::Other(Incoming::Invalid { id, error }) => {
                Handled::Reply(Reply::rejection(&id, &error))
            }
            Message::Other(Incoming::Batch(items)) => {
                self.handle_batch(session, items, sink, extras)
            }
            // `Message::from` never leaves a request or notification here.
            Message::Other(single) => {
                self.handle_message(session, Message::from(single), sink, extras)
            }
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn request(
        &self,
        session: &Session,
        id: Value,
        method: &str,
        params: Params<'_>,
        sink: &Sink,
        extras: &Arc<Extras>,
        in_batch: bool,
    ) -> Handled {
        let known = Known {
            scope: None,
            meta_text: None,
        };
        self.request_with(session, id, method, params, known, sink, extras, in_batch)
    }

    #[allow(clippy::too_many_arguments)]
    fn request_with(
        &self,
        session: &Session,
        id: Value,
        method: &str,
        mut params: Params<'_>,
        known: Known<'_>,
        sink: &Sink,
        extras: &Arc<Extras>,
        in_batch: bool,
    ) -> Handled {
        if in_batch && Method::of(method) == Some(Method::Initialize) {
            let error =
                RpcError::invalid_request("initialize must not be part of a JSON-RPC batch");
            return Handled::Reply(Reply::error(&id, &error));
        }
        let scope = match known.scope {
            Some(scope) => scope,
            // The scope takes `_meta` from the params.
            None => match self
                .core
                .scope(session, method, params.take("_meta"), extras)
            {
                Ok(scope) => {
                    if let Some(text) = known.meta_text {
                        self.core.cache_scope(session, text, &scope);
                    }
                    scope
                }
                Err(error) => return Handled::Reply(Reply::rejection(&id, &error)),
            },
        };
        // `call_tool` becomes the call it asks for before scopes, telemetry
        // or the call pipeline read the request.
        if let (Some(search), Some(Method::ToolsCall)) = (&self.core.search, Method::of(method)) {
            if let Err(error) = search.unwrap_call(&mut params) {
                return Handled::Reply(Reply::error(&id, &error));
            }
        }
        #[cfg(feature = "otel")]
        {
            let name = params.get("name").and_then(Value::as_str);
            let (traced, target) = super::trace::bounded(&self.core, &scope, method, name);
            if let Some(span) = super::trace::start(traced, &id, target, &scope) {
                return span.around(|| self.scoped(session, id, method, params, scope, sink));
            }
        }
        self.scoped(session, id, method, params, scope, sink)
    }

    /// Serves a request whose scope is known.
    fn scoped(
        &self,
        session: &Session,
        id: Value,
        method: &str,
        mut params: Params<'_>,
        scope: Scope,
        sink: &Sink,
    ) -> Handled {
        if !self.core.authz.is_empty() {
            if let Err(error) = self
                .core
                .check_scopes(method, |k| params.get(k), &scope.extras)
            {
                return Handled::Reply(Reply::error(&id, &error));
            }
        }
        let route = route::route(&scope, method);
        if let (Some(search), Route::ToolsCall) = (&self.core.search, route) {
            if params.get("name").and_then(Value::as_str) == Some(super::search::SEARCH_TOOLS) {
                let filter = self.core.authz.call_filter(&scope.extras);
                let may_call = |tool: &Value| {
                    filter.is_none_or(|p| {
                        self.core.authz.may_use(
                            p,
                            crate::server::access::oauth_scopes::Guarded::Tool,
                            "name",
                            tool,
                        )
                    })
                };
                let result = search.answer(&self.core.tools, params.get("arguments"), may_call);
                return Handled::Reply(self.core.reply(&id, &scope, result));
            }
        }
        if route == Route::ToolsCall {
            let call = call::request(&self.core, &mut params, scope.meta.as_deref());
            return self.call(session, id, call, scope, sink);
        }
        // `_meta` is the scope's now (its member in the params holds
        // `null`); other methods read it from their params.
        if let Some(meta) = &scope.meta {
            params.set("_meta", Value::clone(meta));
        }
        let params = params.into_value();
        let inline = match route {
            Route::Inline(inline) => inline,
            Route::Listen => {
                let owner = scope
                    .extras
                    .principal()
                    .map(|p| p.subject.clone())
                    .unwrap_or_default();
                let (listeners, has_tasks) = (&self.core.listeners, self.core.tasks.is_some());
                return crate::server::answer::listen::subscriptions_listen(
                    listeners,
                    has_tasks,
                    session,
                    id,
                    params.as_ref(),
                    sink,
                    owner,
                );
            }
            Route::Task(task) => {
                return crate::server::answer::task_methods::method(
                    &self.core,
                    &id,
                    task,
                    params.as_ref(),
                    &scope,
                )
                .unwrap_or_else(|| {
                    Handled::Reply(Reply::error(&id, &RpcError::method_not_found(method)))
                });
            }
            Route::Read(route::Read::Resource) if self.core.reads_skill(params.as_ref()) => {
                route::Inline::Skills(route::SkillsRequest::Read)
            }
            Route::Read(read) => {
                return match crate::server::answer::reads::request(
                    &self.core, session, id, read, params, scope, sink,
                ) {
                    Ok(pending) => Handled::Pending(Pending::boxed(pending)),
                    Err(reply) => Handled::Reply(reply),
                };
            }
            Route::NotFound | Route::ToolsCall => {
                return Handled::Reply(Reply::error(&id, &RpcError::method_not_found(method)));
            }
        };
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            self.core
                .handle_inline(session, &scope, inline, method, params.as_ref())
        }))
        .unwrap_or_else(|p| Err(RpcError::internal(panic_message(p.as_ref()))));
        Handled::Reply(match outcome {
            Ok(result) => self.core.reply(&id, &scope, result),
            Err(error) => Reply::error(&id, &error),
        })
    }

    /// Registers a `tools/call` in flight and returns its pending reply.
    fn call(
        &self,
        session: &Session,
        id: Value,
        call: Result<CallRequest, RpcError>,
        scope: Scope,
        sink: &Sink,
    ) -> Handled {
        // Boxed (the request is about 300 bytes): the future below stays
        // small enough for the allocator's fast path (see `Pending`).
        let call = match call {
            Ok(call) => Box::new(call),
            Err(error) => return Handled::Reply(Reply::error(&id, &error)),
        };
        match crate::server::answer::task_methods::eligible(&self.core, &scope, &call) {
            Ok(false) => {}
            Ok(true) => {
                return crate::server::answer::task_methods::call_as_task(
                    &self.core, session, id, call, scope, sink,
                )
            }
            Err(error) => return Handled::Reply(Reply::error(&id, &error)),
        }
        let config = &self.core.config;
        let Some(queued) = session.enqueue(config.max_concurrent_calls + config.max_queued_calls)
        else {
            let error = RpcError::internal(format!(
                "server busy: {} tool calls of this session are running or waiting; retry later",
                config.max_concurrent_calls + config.max_queued_calls
            ));
            return Handled::Reply(Reply::error(&id, &error));
        };
        // Registered before the future is polled, so a cancellation that
        // arrives right behind the request finds it.
        let Some(inflight) = session.register(IdKey::of(&id)) else {
            // Ids must be unique among a session's requests; a reused one
            // would make `notifications/cancelled` ambiguous.
            let error = RpcError::invalid_request(format!(
                "request id {} is already in use by a running tools/call; use a new id",
                jsonrpc::json_text(&id)
            ));
            return Handled::Reply(Reply::error(&id, &error));
        };
        let core = Arc::clone(&self.core);
        let sink = sink.clone();
        let session = session.clone();
        Handled::Pending(Pending(Box::pin(async move {
            let token = inflight.token.clone();
            if token.is_cancelled() {
                return None;
            }
            // The semaphore is never closed; waiting ends with cancellation.
            // A free slot is taken at once, without waiting on the token.
            let permit = match queued.slots().try_acquire_owned() {
                Ok(permit) => Some(permit),
                Err(_) => tokio::select! {
                    biased;
                    _ = token.cancelled() => return None,
                    permit = queued.slots().acquire_owned() => permit.ok(),
                },
            };
            // Handler panics are caught inside `call::run`; this also covers
            // the user's access-control and output hooks.
            let run = call::run(&core, &session, &id, call, &scope, token, sink);
            let mut run = std::pin::pin!(run);
            // The future is dropped right after a panic, never polled again.
            let caught = std::future::poll_fn(|cx| {
                match catch_unwind(AssertUnwindSafe(|| run.as_mut().poll(cx))) {
                    Ok(Poll::Pending) => Poll::Pending,
                    Ok(Poll::Ready(reply)) => Poll::Ready(Ok(reply)),
                    Err(payload) => Poll::Ready(Err(panic_message(payload.as_ref()))),
                }
            })
            .await;
            let reply = caught.unwrap_or_else(|panic| {
                tracing::error!(panic = %panic, "tools/call failed unexpectedly");
                Some(Reply::error(
                    &id,
                    &RpcError::internal("the tool call failed unexpectedly"),
                ))
            });
            drop((permit, inflight, queued));
            reply
        })))
    }

    /// A JSON-RPC batch: one array of replies, in request order, once every
    /// request in it is done (only in revisions that have batches).
    fn handle_batch(
        &self,
        session: &Session,
        items: Vec<Value>,
        sink: &Sink,
        extras: &Arc<Extras>,
    ) -> Handled {
        let revision = match session.identity() {
            Some(client) => client.protocol_version.clone(),
            None => self.core.default_stateful().to_owned(),
        };
        if !crate::revision::get(&revision).is_some_and(|r| r.batches) {
            let error = RpcError::invalid_request(format!(
                "JSON-RPC batches are not part of MCP revision {revision} (only of 2025-03-26); send one message at a time"
            ));
            return Handled::Reply(Reply::rejection(&Value::Null, &error));
        }
        let mut parts = Vec::with_capacity(items.len());
        for item in items {
            let handled = match jsonrpc::classify(item) {
                Incoming::Request { id, method, params } => self.request(
                    session,
                    id,
                    &method,
                    Params::from(params),
                    sink,
                    extras,
                    true,
                ),
                Incoming::Batch(_) => Handled::Reply(Reply::error(
                    &Value::Null,
                    &RpcError::invalid_request("batches do not nest"),
                )),
                other => self.handle_message(session, Message::from(other), sink, extras),
            };
            parts.push(match handled {
                // Calls of a batch run concurrently, each in its own task.
                Handled::Pending(p) => Part::Running(tokio::spawn(p)),
                Handled::Reply(r) => Part::Done(r),
                Handled::Nothing => continue,
            });
        }
        if parts.is_empty() {
            return Handled::Nothing; // only notifications and responses
        }
        Handled::Pending(Pending(Box::pin(async move {
            let mut replies = Vec::with_capacity(parts.len());
            for part in parts {
                match part {
                    Part::Done(reply) => replies.push(reply.text),
                    Part::Running(task) => {
                        replies.extend(task.await.ok().flatten().map(|r| r.text))
                    }
                }
            }
            // Every call may have been cancelled: then nothing is sent.
            (!replies.is_empty()).then(|| Reply::ok(format!("[{}]", replies.join(","))))
        })))
    }
}

/// What the lean path already knows about a request: the scope kept for
/// its `_meta` text, and that text.
struct Known<'a> {
    scope: Option<Scope>,
    meta_text: Option<&'a str>,
}

/// One member's reply in a batch.
enum Part {
    Done(Reply),
    Running(tokio::task::JoinHandle<Option<Reply>>),
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::revision::meta;
    use crate::server::tools::tool::{BoxFuture, CallFailure, Dispatch, ToolOutput};

    struct Waits;

    impl Dispatch for Waits {
        fn call(
            &self,
            _: usize,
            _: Value,
            _: crate::RequestContext,
        ) -> BoxFuture<Result<ToolOutput, CallFailure>> {
            Box::pin(std::future::pending())
        }
    }

    /// glibc keeps freed blocks of up to 1,032 bytes in a per-thread cache;
    /// a larger block takes malloc's slow path on every call.
    const THREAD_CACHE_MAX: usize = 1032;

    #[test]
    fn a_tool_calls_boxed_future_fits_mallocs_per_thread_cache() {
        let tools = serde_json::json!([{"name": "wait", "inputSchema": {"type": "object"}}]);
        let server =
            crate::server::ServerBuilder::new(crate::revision::LATEST, tools, Arc::new(Waits))
                .build()
                .unwrap();
        let meta = serde_json::json!({
            meta::PROTOCOL_VERSION: crate::revision::LATEST,
            meta::CLIENT_CAPABILITIES: {}
        });
        let call = serde_json::json!({
            "jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": "wait", "arguments": {}, "_meta": meta}
        });
        let extensions = Arc::new(http::Extensions::new());
        let handled = server.handle_text(
            &server.session(),
            &call.to_string(),
            &Sink::discard(),
            &extensions,
        );
        let Handled::Pending(pending) = handled else {
            panic!("a call that waits is pending")
        };
        let size = std::mem::size_of_val(&*pending.0);
        assert!(
            size <= THREAD_CACHE_MAX,
            "the boxed call future is {size} bytes"
        );
    }
}
