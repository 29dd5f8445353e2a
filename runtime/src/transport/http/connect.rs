//! How the HTTP client reaches its server, once per new connection (idle
//! ones are reused, `pool.rs`): a TCP connection to the server or to its
//! proxy, a `CONNECT` tunnel through the proxy for `https://`, then the
//! TLS handshake (feature `tls`), all within the connect timeout. [`Connector`] is made once when the
//! transport starts (proxy chosen, certificates read); [`Conn`] is the
//! resulting stream, plain or TLS. Every failure is a [`ConnectError`].
//! The fuzz targets dial instead ([`Dial`]): an in-memory stream whose
//! other end they serve.

use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use http::header::HeaderValue;
use tokio::io::{AsyncRead, AsyncWrite, DuplexStream, ReadBuf};
use tokio::net::TcpStream;

use super::options::HttpOptions;
use super::proxy::Proxy;
use crate::transport::{ConnectError, ConnectErrorKind};

/// Makes the stream of each new connection in memory instead of over
/// TCP: the fuzz targets' way in (`crate::fuzzing::http_transport`),
/// which play the server at the other end.
pub(crate) type Dial = Arc<dyn Fn() -> DuplexStream + Send + Sync>;

/// Where and how to connect, made once per transport.
pub(crate) struct Connector {
    url: String,
    /// Set: connections are made by this, never over the network.
    dial: Option<Dial>,
    /// The server's host (without IPv6 brackets) and port.
    host: String,
    port: u16,
    proxy: Option<Proxy>,
    timeout: Duration,
    #[cfg(feature = "tls")]
    tls: Option<super::tls::Tls>,
}

impl Connector {
    /// The connector of the endpoint `url` at `host:port`, `https` or not.
    pub(crate) fn new(
        url: &str,
        host: &str,
        port: u16,
        https: bool,
        options: &HttpOptions,
    ) -> Result<Self, ConnectError> {
        let authority = authority(host, port);
        let proxy = Proxy::choose(
            &options.proxy,
            if https { "https" } else { "http" },
            &authority,
            url,
        )?;
        #[cfg(feature = "tls")]
        let tls = if https {
            Some(super::tls::Tls::new(&options.tls, url)?)
        } else {
            None
        };
        #[cfg(not(feature = "tls"))]
        if https {
            return Err(ConnectError::new(
                ConnectErrorKind::Config,
                url,
                "TLS is not built in (mcpgen-runtime without its `tls` feature)",
            )
            .with_hint(
                "enable the `tls` feature of mcpgen-runtime (on by default), or use an http:// URL",
            ));
        }
        Ok(Self {
            url: url.to_owned(),
            dial: None,
            host: host.to_owned(),
            port,
            proxy,
            timeout: options.connect_timeout,
            #[cfg(feature = "tls")]
            tls,
        })
    }

    /// The connector of the endpoint `url` whose connections `dial` makes
    /// (no proxy, no TLS).
    pub(crate) fn in_memory(url: &str, dial: Dial, options: &HttpOptions) -> Self {
        Self {
            url: url.to_owned(),
            dial: Some(dial),
            host: String::new(),
            port: 0,
            proxy: None,
            timeout: options.connect_timeout,
            #[cfg(feature = "tls")]
            tls: None,
        }
    }

    /// For an `http://` endpoint behind a proxy, requests go to the proxy
    /// in absolute form: `Some` with the proxy's credentials, if any.
    pub(crate) fn forwarding(&self) -> Option<Option<HeaderValue>> {
        #[cfg(feature = "tls")]
        if self.tls.is_some() {
            return None;
        }
        self.proxy.as_ref().map(|p| p.auth.clone())
    }

    /// A fresh connection, ready for HTTP/1.1.
    pub(crate) async fn connect(&self) -> Result<Conn, ConnectError> {
        match tokio::time::timeout(self.timeout, self.connect_now()).await {
            Ok(result) => result,
            Err(_) => {
                let e = ConnectError::new(
                    ConnectErrorKind::Timeout,
                    &self.url,
                    format!("no connection within {:?}", self.timeout),
                )
                .with_hint("is the server (or proxy) up and reachable? HttpOptions::connect_timeout sets the limit");
                Err(match &self.proxy {
                    Some(p) => e.with_proxy(&p.shown),
                    None => e,
                })
            }
        }
    }

    async fn connect_now(&self) -> Result<Conn, ConnectError> {
        if let Some(dial) = &self.dial {
            return Ok(Conn::Memory(dial()));
        }
        let (host, port) = match &self.proxy {
            Some(p) => (p.host.as_str(), p.port),
            None => (self.host.as_str(), self.port),
        };
        let stream = match TcpStream::connect((host, port)).await {
            Ok(stream) => stream,
            Err(e) => return Err(self.tcp_error(e, host, port)),
        };
        let _ = stream.set_nodelay(true);
        #[cfg(feature = "tls")]
        if let Some(tls) = &self.tls {
            // Boxed: the handshake's state stays out of the futures of
            // plain connections (a larger task costs every call).
            return Box::pin(self.secure(tls, stream)).await;
        }
        Ok(Conn::Plain(stream))
    }

    /// Through the proxy's tunnel, if any, then the TLS handshake.
    #[cfg(feature = "tls")]
    async fn secure(
        &self,
        tls: &super::tls::Tls,
        mut stream: TcpStream,
    ) -> Result<Conn, ConnectError> {
        if let Some(proxy) = &self.proxy {
            proxy
                .tunnel(&mut stream, &authority(&self.host, self.port), &self.url)
                .await?;
        }
        let stream = tls
            .handshake(&self.host, stream, &self.url)
            .await
            .map_err(|e| match &self.proxy {
                Some(p) => e.with_proxy(&p.shown),
                None => e,
            })?;
        Ok(Conn::Tls(Box::new(stream)))
    }

    fn tcp_error(&self, e: io::Error, host: &str, port: u16) -> ConnectError {
        let what = if self.proxy.is_some() {
            "the proxy"
        } else {
            "the server"
        };
        let (kind, hint) = match e.kind() {
            io::ErrorKind::ConnectionRefused => (
                ConnectErrorKind::Refused,
                format!(
                    "nothing listens at {host}:{port}: is {what} running, and is the port right?"
                ),
            ),
            io::ErrorKind::ConnectionReset | io::ErrorKind::ConnectionAborted => (
                ConnectErrorKind::Reset,
                format!("{what} or something in between closed the connection"),
            ),
            io::ErrorKind::TimedOut => (
                ConnectErrorKind::Timeout,
                format!("is {what} reachable from here?"),
            ),
            // Not a socket error: the name did not resolve.
            _ if e.raw_os_error().is_none() => (
                ConnectErrorKind::Dns,
                format!("check the host name {host:?} (and this machine's DNS)"),
            ),
            _ => (
                ConnectErrorKind::Network,
                format!("is {what} reachable from here?"),
            ),
        };
        let error = ConnectError::new(kind, &self.url, format!("{host}:{port}: {e}"))
            .with_host(host)
            .with_hint(hint);
        let error = match &self.proxy {
            Some(p) => error.with_proxy(&p.shown),
            None => error,
        };
        error.with_source(e)
    }
}

/// `host:port`, an IPv6 host in brackets.
pub(crate) fn authority(host: &str, port: u16) -> String {
    if host.contains(':') {
        format!("[{host}]:{port}")
    } else {
        format!("{host}:{port}")
    }
}

/// A connection to the server: plain TCP, or TLS over TCP (or, for the
/// fuzz targets, an in-memory stream).
pub(crate) enum Conn {
    Plain(TcpStream),
    Memory(DuplexStream),
    #[cfg(feature = "tls")]
    Tls(Box<tokio_rustls::client::TlsStream<TcpStream>>),
}

impl AsyncRead for Conn {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        match self.get_mut() {
            Conn::Plain(s) => Pin::new(s).poll_read(cx, buf),
            Conn::Memory(s) => Pin::new(s).poll_read(cx, buf),
            #[cfg(feature = "tls")]
            Conn::Tls(s) => Pin::new(s.as_mut()).poll_read(cx, buf),
        }
    }
}

impl AsyncWrite for Conn {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        match self.get_mut() {
            Conn::Plain(s) => Pin::new(s).poll_write(cx, buf),
            Conn::Memory(s) => Pin::new(s).poll_write(cx, buf),
            #[cfg(feature = "tls")]
            Conn::Tls(s) => Pin::new(s.as_mut()).poll_write(cx, buf),
        }
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        match self.get_mut() {
            Conn::Plain(s) => Pin::new(s).poll_write_vectored(cx, bufs),
            Conn::Memory(s) => Pin::new(s).poll_write_vectored(cx, bufs),
            #[cfg(feature = "tls")]
            Conn::Tls(s) => Pin::new(s.as_mut()).poll_write_vectored(cx, bufs),
        }
    }

    fn is_write_vectored(&self) -> bool {
        match self {
            Conn::Plain(s) => s.is_write_vectored(),
            Conn::Memory(s) => s.is_write_vectored(),
            #[cfg(feature = "tls")]
            Conn::Tls(s) => s.is_write_vectored(),
        }
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self.get_mut() {
            Conn::Plain(s) => Pin::new(s).poll_flush(cx),
            Conn::Memory(s) => Pin::new(s).poll_flush(cx),
            #[cfg(feature = "tls")]
            Conn::Tls(s) => Pin::new(s.as_mut()).poll_flush(cx),
        }
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self.get_mut() {
            Conn::Plain(s) => Pin::new(s).poll_shutdown(cx),
            Conn::Memory(s) => Pin::new(s).poll_shutdown(cx),
            #[cfg(feature = "tls")]
            Conn::Tls(s) => Pin::new(s.as_mut()).poll_shutdown(cx),
        }
    }
}
