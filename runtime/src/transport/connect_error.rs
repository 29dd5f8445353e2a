//! Why a transport could not reach its peer: [`ConnectError`], with a
//! matchable [`ConnectErrorKind`] (refused, timed out, certificate not
//! trusted, proxy refused…), the endpoint, host and proxy concerned, and a
//! hint. The HTTP transport makes them; the client engine reports them as
//! `ClientError::Connect`.

use std::fmt;

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
        Self {
            inner: Box::new(inner),
        }
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
        e.get_ref()
            .and_then(|inner| inner.downcast_ref::<ConnectError>())
    }

    /// As an I/O error (of the matching [`std::io::ErrorKind`]) wrapping it.
    pub fn into_io(self) -> std::io::Error {
        use std::io::ErrorKind as K;
        let kind = match self.inner.kind {
            ConnectErrorKind::Refused => K::ConnectionRefused,
            ConnectErrorKind::Reset => K::ConnectionReset,
            ConnectErrorKind::Timeout => K::TimedOut,
            ConnectErrorKind::Config => K::InvalidInput,
            ConnectErrorKind::ProxyRefused | ConnectErrorKind::ProxyAuthRequired => {
                K::PermissionDenied
            }
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
        self.inner
            .source
            .as_deref()
            .map(|e| e as &(dyn std::error::Error + 'static))
    }
}
