//! The error type of the client engine and of generated clients: what went
//! wrong with a call, and what the caller can do about it.

use std::fmt;
use std::time::Duration;

use serde::de::DeserializeOwned;
use serde_json::Value;

/// One problem found by a JSON Schema validator: where in the value (an RFC
/// 6901 JSON pointer) and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SchemaProblem {
    /// JSON pointer into the validated value ("" is the whole value).
    pub pointer: String,
    /// What is wrong there.
    pub message: String,
}

impl fmt::Display for SchemaProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let at = if self.pointer.is_empty() { "/" } else { self.pointer.as_str() };
        write!(f, "at {at}: {}", self.message)
    }
}

/// Why a client call failed.
#[derive(Debug)]
pub enum ClientError {
    /// The server answered with a JSON-RPC error.
    Protocol {
        /// The method that was called.
        method: String,
        /// JSON-RPC error code (e.g. -32602 invalid params).
        code: i64,
        /// The server's message.
        message: String,
        /// The server's `data`, when it sent one (boxed to keep the error small).
        data: Option<Box<Value>>,
    },
    /// The tool ran and reported failure (`isError: true`).
    Tool {
        /// The tool's wire name.
        tool: String,
        /// The result's `content` blocks, as sent.
        content: Vec<Value>,
        /// The result's `structuredContent`, when sent (boxed to keep the error small).
        structured_content: Option<Box<Value>>,
    },
    /// The input did not match the tool's `inputSchema`; nothing was sent.
    InvalidInput {
        /// The tool's wire name.
        tool: String,
        /// Every problem the validator found.
        problems: Vec<SchemaProblem>,
    },
    /// The server's answer did not match what the tool declares
    /// (`outputSchema`, or the shape of a `tools/call` result).
    InvalidOutput {
        /// The tool's wire name.
        tool: String,
        /// Every problem found.
        problems: Vec<SchemaProblem>,
    },
    /// No answer arrived in time; `notifications/cancelled` was sent.
    Timeout {
        /// The method that was called.
        method: String,
        /// The request id that was cancelled.
        id: i64,
        /// How long the client waited.
        after: Duration,
    },
    /// The connection is gone (the server exited or closed its output).
    Closed {
        /// What happened, with the exit status and stderr when known.
        reason: String,
    },
    /// The server wrote something that is not a JSON-RPC message to the
    /// protocol stream (stdout for a child process).
    Garbage {
        /// The offending text (truncated).
        line: String,
    },
    /// Version negotiation failed.
    Version {
        /// What the client offered.
        offered: String,
        /// What the server answered (or supports).
        server: String,
        /// Every revision the client can speak.
        supported: Vec<String>,
    },
    /// A result or message that does not have the shape the protocol
    /// requires, or a tool the client does not know.
    Unexpected {
        /// What was expected and what came.
        message: String,
    },
    /// Starting the server or another local I/O operation failed.
    Io(std::io::Error),
    /// The network connection to the server could not be made (HTTP
    /// transport): refused, reset, timed out, a certificate not trusted,
    /// a proxy refusing; [`ConnectError::kind`] tells which.
    Connect(ConnectError),
}

impl ClientError {
    /// For [`ClientError::Tool`], its content blocks decoded as `T`
    /// (typically the generated `protocol` content block type).
    pub fn tool_content<T: DeserializeOwned>(&self) -> Option<Result<Vec<T>, serde_json::Error>> {
        match self {
            ClientError::Tool { content, .. } => Some(
                content.iter().map(|block| serde_json::from_value(block.clone())).collect(),
            ),
            _ => None,
        }
    }

    /// The text of the `text` content blocks of a tool error, joined by
    /// newlines; `None` for other errors.
    pub fn tool_text(&self) -> Option<String> {
        match self {
            ClientError::Tool { content, .. } => Some(
                content
                    .iter()
                    .filter_map(|b| b.get("text").and_then(Value::as_str))
                    .collect::<Vec<_>>()
                    .join("\n"),
            ),
            _ => None,
        }
    }

    pub(crate) fn unexpected(message: impl Into<String>) -> Self {
        ClientError::Unexpected { message: message.into() }
    }
}

fn write_problems(f: &mut fmt::Formatter<'_>, problems: &[SchemaProblem]) -> fmt::Result {
    for p in problems {
        write!(f, "\n  - {p}")?;
    }
    Ok(())
}

impl fmt::Display for ClientError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ClientError::Protocol { method, code, message, data } => {
                write!(f, "the server refused `{method}` with JSON-RPC error {code}: {message}")?;
                if let Some(data) = data {
                    write!(f, " (data: {data})")?;
                }
                Ok(())
            }
            ClientError::Tool { tool, content, .. } => {
                write!(f, "tool `{tool}` reported an error")?;
                let text: Vec<&str> =
                    content.iter().filter_map(|b| b.get("text").and_then(Value::as_str)).collect();
                if !text.is_empty() {
                    write!(f, ": {}", text.join(" "))?;
                }
                Ok(())
            }
            ClientError::InvalidInput { tool, problems } => {
                write!(f, "input for tool `{tool}` does not match its inputSchema; nothing was sent")?;
                write_problems(f, problems)
            }
            ClientError::InvalidOutput { tool, problems } => {
                write!(f, "the answer of tool `{tool}` does not match what the tool declares")?;
                write_problems(f, problems)?;
                write!(f, "\n  help: the server and the manifest disagree; run the drift check")
            }
            ClientError::Timeout { method, id, after } => write!(
                f,
                "`{method}` (request {id}) got no answer within {after:?}; \
                 notifications/cancelled was sent\n  help: raise the timeout \
                 (ClientOptions::default_timeout or CallOptions::timeout) if the server is slow"
            ),
            ClientError::Closed { reason } => write!(f, "the connection to the server is closed: {reason}"),
            ClientError::Garbage { line } => write!(
                f,
                "the server wrote a line that is not a JSON-RPC message to its protocol stream: {line:?}\n  \
                 help: a stdio server must log to stderr, never stdout"
            ),
            ClientError::Version { offered, server, supported } => write!(
                f,
                "protocol version mismatch: the client offered {offered}, the server answered {server}; \
                 this client supports {}\n  help: generate the client for a revision the server speaks",
                supported.join(", ")
            ),
            ClientError::Unexpected { message } => f.write_str(message),
            ClientError::Io(e) => write!(f, "{e}"),
            ClientError::Connect(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for ClientError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ClientError::Io(e) => Some(e),
            ClientError::Connect(e) => Some(e),
            _ => None,
        }
    }
}

impl From<std::io::Error> for ClientError {
    /// An I/O error carrying a [`ConnectError`] becomes [`ClientError::Connect`].
    fn from(e: std::io::Error) -> Self {
        match ConnectError::from_io(&e) {
            Some(connect) => ClientError::Connect(connect.clone()),
            None => ClientError::Io(e),
        }
    }
}

/// What kind of problem stopped a connection; see [`ConnectError`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ConnectErrorKind {
    /// Nothing listens there (TCP connection refused).
    Refused,
    /// The peer closed or reset the connection while it was being set up
    /// (during the TLS handshake or the proxy's `CONNECT`).
    Reset,
    /// Connecting (TCP, proxy tunnel and TLS handshake together) took
    /// longer than the connect timeout.
    Timeout,
    /// The host name does not resolve.
    Dns,
    /// Another network error (unreachable network, permission denied...).
    Network,
    /// The server's certificate chain does not lead to a trusted CA.
    CertificateNotTrusted,
    /// The server's certificate is not valid for the host name connected to.
    CertificateNameMismatch,
    /// The server's certificate has expired or is not valid yet.
    CertificateExpired,
    /// The server's certificate is unusable for another reason (bad
    /// signature, wrong purpose, revoked, unsupported algorithm).
    CertificateInvalid,
    /// The TLS handshake failed otherwise (no common protocol version or
    /// cipher suite, an alert from the server, a non-TLS answer).
    Tls,
    /// The proxy refused the tunnel (`CONNECT` answered with an error status).
    ProxyRefused,
    /// The proxy wants credentials (`407 Proxy Authentication Required`).
    ProxyAuthRequired,
    /// The connection settings cannot be used: a CA file or client
    /// certificate that cannot be read, a proxy URL that cannot be used,
    /// `https://` without TLS built in.
    Config,
}

/// Why the HTTP client could not reach the server: what kind of problem
/// ([`ConnectError::kind`]), which endpoint, which host name and proxy, a
/// message for a person and what to do about it.
#[derive(Debug, Clone)]
pub struct ConnectError {
    /// Boxed: `ClientError` stays small.
    inner: Box<Details>,
}

#[derive(Debug, Clone)]
struct Details {
    kind: ConnectErrorKind,
    url: String,
    host: Option<String>,
    proxy: Option<String>,
    status: Option<u16>,
    message: String,
    hint: Option<String>,
    source: Option<std::sync::Arc<dyn std::error::Error + Send + Sync>>,
}

impl ConnectError {
    /// A connection error of `kind` reaching `url`, `message` saying what happened.
    pub fn new(kind: ConnectErrorKind, url: impl Into<String>, message: impl Into<String>) -> Self {
        let inner = Details {
            kind,
            url: url.into(),
            host: None,
            proxy: None,
            status: None,
            message: message.into(),
            hint: None,
            source: None,
        };
        Self { inner: Box::new(inner) }
    }

    /// Names the host name (of the certificate check, or connected to).
    pub fn with_host(mut self, host: impl Into<String>) -> Self {
        self.inner.host = Some(host.into());
        self
    }

    /// Names the proxy the connection went through.
    pub fn with_proxy(mut self, proxy: impl Into<String>) -> Self {
        self.inner.proxy = Some(proxy.into());
        self
    }

    /// The proxy's HTTP status to `CONNECT`.
    pub fn with_status(mut self, status: u16) -> Self {
        self.inner.status = Some(status);
        self
    }

    /// What to do about it.
    pub fn with_hint(mut self, hint: impl Into<String>) -> Self {
        self.inner.hint = Some(hint.into());
        self
    }

    /// The underlying error.
    pub fn with_source(mut self, source: impl std::error::Error + Send + Sync + 'static) -> Self {
        self.inner.source = Some(std::sync::Arc::new(source));
        self
    }

    /// What kind of problem it is.
    pub fn kind(&self) -> ConnectErrorKind {
        self.inner.kind
    }

    /// The endpoint URL.
    pub fn url(&self) -> &str {
        &self.inner.url
    }

    /// The host name concerned (the name a certificate was checked against).
    pub fn host(&self) -> Option<&str> {
        self.inner.host.as_deref()
    }

    /// The proxy the connection went through, when there was one.
    pub fn proxy(&self) -> Option<&str> {
        self.inner.proxy.as_deref()
    }

    /// The proxy's HTTP status, for [`ConnectErrorKind::ProxyRefused`] and
    /// [`ConnectErrorKind::ProxyAuthRequired`].
    pub fn status(&self) -> Option<u16> {
        self.inner.status
    }

    /// What happened, without the URL and the hint.
    pub fn message(&self) -> &str {
        &self.inner.message
    }

    /// What to do about it, when there is advice.
    pub fn hint(&self) -> Option<&str> {
        self.inner.hint.as_deref()
    }

    /// The connection error an I/O error carries, if any (the HTTP
    /// transport reports connection failures as I/O errors wrapping one).
    pub fn from_io(e: &std::io::Error) -> Option<&ConnectError> {
        e.get_ref().and_then(|inner| inner.downcast_ref::<ConnectError>())
    }

    /// As an I/O error (of the matching [`std::io::ErrorKind`]) wrapping it.
    pub fn into_io(self) -> std::io::Error {
        use std::io::ErrorKind as K;
        let kind = match self.inner.kind {
            ConnectErrorKind::Refused => K::ConnectionRefused,
            ConnectErrorKind::Reset => K::ConnectionReset,
            ConnectErrorKind::Timeout => K::TimedOut,
            ConnectErrorKind::Config => K::InvalidInput,
            ConnectErrorKind::ProxyRefused | ConnectErrorKind::ProxyAuthRequired => K::PermissionDenied,
            ConnectErrorKind::Dns | ConnectErrorKind::Network => K::Other,
            _ => K::InvalidData,
        };
        std::io::Error::new(kind, self)
    }
}

impl fmt::Display for ConnectError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "cannot connect to {}", self.inner.url)?;
        if let Some(proxy) = &self.inner.proxy {
            write!(f, " through the proxy {proxy}")?;
        }
        write!(f, ": {}", self.inner.message)?;
        if let Some(hint) = &self.inner.hint {
            write!(f, "\n  help: {hint}")?;
        }
        Ok(())
    }
}

impl std::error::Error for ConnectError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.inner.source.as_deref().map(|e| e as &(dyn std::error::Error + 'static))
    }
}
