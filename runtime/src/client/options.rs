//! Settings of a client connection and of a single call.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use serde_json::{json, Value};

/// A `notifications/progress` update for one call.
#[derive(Debug, Clone, PartialEq)]
pub struct Progress {
    /// Progress so far (increases with every update).
    pub progress: f64,
    /// The total, when the server knows it.
    pub total: Option<f64>,
    /// A human-readable message, when sent.
    pub message: Option<String>,
}

/// Receives the progress updates of one call.
pub type ProgressCallback = Arc<dyn Fn(Progress) + Send + Sync>;

/// Receives server notifications the engine does not handle itself
/// (method, params).
pub type NotificationCallback = Arc<dyn Fn(&str, &Value) + Send + Sync>;

/// What the engine does with a line on the protocol stream that is not a
/// JSON-RPC message.
///
/// The MCP stdio transport forbids anything but protocol messages on the
/// server's stdout, so such a line means the stream can no longer be
/// trusted to line up with the calls in flight.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum GarbagePolicy {
    /// Fail every call in flight with [`ClientError::Garbage`](super::ClientError::Garbage)
    /// (naming the line); the connection stays open and later calls work.
    /// Late answers to the failed calls are dropped. The default.
    #[default]
    FailPending,
    /// Log the line (tracing, level warn) and carry on.
    Skip,
}

/// Settings of a client connection.
#[derive(Clone)]
pub struct ClientOptions {
    /// `clientInfo` sent to the server (`name`, `version`, ...).
    pub client_info: Value,
    /// The client's capabilities object.
    pub capabilities: Value,
    /// Protocol revisions this client speaks, newest first. The first is
    /// offered; the server may answer with any of them.
    pub protocol_versions: Vec<String>,
    /// How long a request waits for its answer unless the call overrides it.
    pub default_timeout: Duration,
    /// What to do with non-JSON-RPC lines from the server.
    pub garbage: GarbagePolicy,
    /// Server notifications other than progress, logging and cancellation.
    pub on_notification: Option<NotificationCallback>,
    /// The longest message accepted from the server, in bytes (default
    /// 32 MiB, as for servers). A longer one is never buffered: the calls
    /// in flight fail with an error naming the limit and the connection
    /// closes. It also bounds the whole of a paged `tools/list`.
    pub max_message_bytes: usize,
    /// The most `tools/list` pages followed through `nextCursor` (default
    /// 1,000).
    pub max_list_pages: usize,
    /// The most tools a paged `tools/list` collects (default 10,000).
    pub max_listed_tools: usize,
    /// Answers to the server's requests (sampling, elicitation, roots);
    /// see [`ClientOptions::handlers`].
    pub handlers: Option<Arc<super::hooks::ClientHandlers>>,
    /// How the client reaches an HTTP server: extra headers (a static
    /// bearer token, an API key), TLS roots and CA files, a client
    /// certificate, the proxy, the connect timeout. They apply to any
    /// [`HttpTransport`](crate::client::http::HttpTransport) the client is
    /// started over; headers and settings given to the transport itself
    /// take precedence.
    #[cfg(feature = "streamable-http")]
    pub http: crate::transport::http::HttpOptions,
}

impl ClientOptions {
    /// Options for a client speaking the given revisions (newest first).
    pub fn new<I, S>(protocol_versions: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        Self {
            client_info: json!({ "name": "mcpgen-client", "version": env!("CARGO_PKG_VERSION") }),
            capabilities: json!({}),
            protocol_versions: protocol_versions.into_iter().map(Into::into).collect(),
            default_timeout: Duration::from_secs(60),
            garbage: GarbagePolicy::default(),
            on_notification: None,
            max_message_bytes: crate::transport::DEFAULT_MAX_MESSAGE,
            max_list_pages: 1_000,
            max_listed_tools: 10_000,
            handlers: None,
            #[cfg(feature = "streamable-http")]
            http: crate::transport::http::HttpOptions::default(),
        }
    }

    /// Sets the longest message accepted from the server, in bytes.
    pub fn max_message_bytes(mut self, bytes: usize) -> Self {
        self.max_message_bytes = bytes;
        self
    }

    /// Sets the most pages and tools a paged `tools/list` follows and collects.
    pub fn list_limits(mut self, pages: usize, tools: usize) -> Self {
        self.max_list_pages = pages;
        self.max_listed_tools = tools;
        self
    }

    /// Sets the default timeout of every request.
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.default_timeout = timeout;
        self
    }

    /// Sets the `clientInfo` name and version.
    pub fn client_info(mut self, name: &str, version: &str) -> Self {
        self.client_info = json!({ "name": name, "version": version });
        self
    }

    /// Sets the garbage policy.
    pub fn garbage(mut self, policy: GarbagePolicy) -> Self {
        self.garbage = policy;
        self
    }

    /// Sets the HTTP connection settings (see [`crate::transport::http::HttpOptions`]).
    #[cfg(feature = "streamable-http")]
    pub fn http(mut self, http: crate::transport::http::HttpOptions) -> Self {
        self.http = http;
        self
    }

    /// Sends `name: value` on every HTTP request (e.g. an API key); the
    /// value is marked sensitive and never logged.
    #[cfg(feature = "streamable-http")]
    pub fn header(mut self, name: http::HeaderName, value: http::HeaderValue) -> Self {
        self.http = self.http.header(name, value);
        self
    }

    /// Sends `Authorization: Bearer TOKEN` on every HTTP request. Fails
    /// when the token holds characters a header cannot.
    #[cfg(feature = "streamable-http")]
    pub fn bearer_token(mut self, token: &str) -> Result<Self, http::header::InvalidHeaderValue> {
        self.http = self.http.bearer_token(token)?;
        Ok(self)
    }

    /// Sets the handler of other server notifications.
    pub fn on_notification(mut self, f: impl Fn(&str, &Value) + Send + Sync + 'static) -> Self {
        self.on_notification = Some(Arc::new(f));
        self
    }

    /// Answers server requests with `handlers`, declaring the matching
    /// capabilities (`sampling`, `elicitation`, `roots`).
    pub fn handlers(mut self, handlers: super::hooks::ClientHandlers) -> Self {
        handlers.declare(&mut self.capabilities);
        self.handlers = Some(Arc::new(handlers));
        self
    }
}

impl fmt::Debug for ClientOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut s = f.debug_struct("ClientOptions");
        s.field("client_info", &self.client_info)
            .field("capabilities", &self.capabilities)
            .field("protocol_versions", &self.protocol_versions)
            .field("default_timeout", &self.default_timeout)
            .field("garbage", &self.garbage)
            .field("max_message_bytes", &self.max_message_bytes)
            .field("max_list_pages", &self.max_list_pages)
            .field("max_listed_tools", &self.max_listed_tools);
        #[cfg(feature = "streamable-http")]
        s.field("http", &self.http);
        s.finish_non_exhaustive()
    }
}

/// Settings of one call: a timeout overriding the client default, and a
/// progress callback (which makes the request carry a progress token).
#[derive(Clone, Default)]
pub struct CallOptions {
    /// Overrides [`ClientOptions::default_timeout`] for this call.
    pub timeout: Option<Duration>,
    /// Receives the call's `notifications/progress` updates.
    pub progress: Option<ProgressCallback>,
}

impl CallOptions {
    /// Default options: the client's timeout, no progress.
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets this call's timeout.
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }

    /// Sets this call's progress callback.
    pub fn on_progress(mut self, f: impl Fn(Progress) + Send + Sync + 'static) -> Self {
        self.progress = Some(Arc::new(f));
        self
    }
}

impl fmt::Debug for CallOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CallOptions")
            .field("timeout", &self.timeout)
            .field("progress", &self.progress.is_some())
            .finish()
    }
}
