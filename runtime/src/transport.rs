//! Message transports shared by the server and the client engines.
//!
//! A transport is split into a reading half and a writing half that each
//! move whole JSON-RPC messages as text. Framing errors (bytes that are not
//! JSON) are the engine's business, so a reader hands back the raw text.
//! [`LineTransport`] is the newline-delimited framing MCP's stdio transport
//! uses; it works over any pair of byte streams (stdin/stdout, a child
//! process's pipes, an in-memory duplex in tests).
//!
//! Every line reader caps a message at [`DEFAULT_MAX_MESSAGE`] (or the
//! limit set with [`MessageRead::set_max_message`]): a longer one is never
//! buffered whole. The reader hands over an [`Unreadable`](crate::jsonrpc::Unreadable) placeholder as
//! soon as the limit is passed and drops the rest of that line; text that
//! is not UTF-8 is handed over as a placeholder too, never patched up.
//!
//! A transport that cannot reach its peer says why with a [`ConnectError`].

pub(crate) mod child;
mod connect_error;
mod framer;
#[cfg(feature = "streamable-http")]
pub mod http;
mod spin;
pub(crate) mod stdio;

pub use child::{CapturedStderr, ChildReader, ChildTransport, StderrMode};
pub use connect_error::{ConnectError, ConnectErrorKind};
pub(crate) use framer::Framer;
pub use stdio::{stdio, StdinLines, Stdio, StdoutLines, DEFAULT_SPIN};

use std::future::Future;
use std::io;

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};

/// The longest message a reader keeps by default: 32 MiB.
pub const DEFAULT_MAX_MESSAGE: usize = 32 << 20;

/// The reading half of a transport: yields one message's text at a time.
pub trait MessageRead: Send + 'static {
    /// The next message, or `None` at end of stream.
    fn read_message(&mut self) -> impl Future<Output = io::Result<Option<String>>> + Send;

    /// Sets the longest message this reader keeps, in bytes. Readers that
    /// do not frame a byte stream ignore it.
    fn set_max_message(&mut self, bytes: usize) {
        let _ = bytes;
    }
}

/// The writing half of a transport: sends one message's text.
pub trait MessageWrite: Send + 'static {
    /// Sends one complete message. `message` never contains a newline.
    fn write_message(&mut self, message: &str) -> impl Future<Output = io::Result<()>> + Send;
}

/// A bidirectional message channel that can be split into its two halves.
pub trait Transport: Send + 'static {
    /// The reading half.
    type Read: MessageRead;
    /// The writing half.
    type Write: MessageWrite;
    /// Splits the transport so reading and writing can proceed concurrently.
    fn split(self) -> (Self::Read, Self::Write);

    /// Takes the client's HTTP settings
    /// ([`ClientOptions::http`](crate::client::ClientOptions::http): headers
    /// such as a bearer token, TLS, proxy), which the client engine hands
    /// every transport before it starts. Transports that are not HTTP
    /// ignore them.
    #[cfg(feature = "streamable-http")]
    fn take_http_options(&mut self, client: &crate::transport::http::HttpOptions) {
        let _ = client;
    }
}

/// Newline-delimited JSON over a pair of byte streams.
pub struct LineTransport<R, W> {
    reader: R,
    writer: W,
}

impl<R, W> std::fmt::Debug for LineTransport<R, W> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LineTransport").finish_non_exhaustive()
    }
}

impl<R, W> LineTransport<R, W>
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    /// Frames messages over an existing pair of byte streams.
    pub fn new(reader: R, writer: W) -> Self {
        Self { reader, writer }
    }
}

impl<R, W> Transport for LineTransport<R, W>
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    type Read = LineReader<R>;
    type Write = LineWriter<W>;

    fn split(self) -> (Self::Read, Self::Write) {
        (
            LineReader {
                inner: self.reader,
                framer: Framer::new(DEFAULT_MAX_MESSAGE),
            },
            LineWriter {
                inner: self.writer,
                buf: Vec::new(),
            },
        )
    }
}

/// Reading half of [`LineTransport`].
pub struct LineReader<R> {
    inner: R,
    framer: Framer,
}

impl<R> std::fmt::Debug for LineReader<R> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LineReader").finish_non_exhaustive()
    }
}

impl<R: AsyncRead + Unpin + Send + 'static> MessageRead for LineReader<R> {
    async fn read_message(&mut self) -> io::Result<Option<String>> {
        loop {
            if let Some(message) = self.framer.next_message() {
                return Ok(Some(message));
            }
            if self.framer.at_end() {
                return Ok(None);
            }
            let n = self.inner.read(self.framer.spare()).await?;
            self.framer.filled(n);
        }
    }

    fn set_max_message(&mut self, bytes: usize) {
        self.framer.set_max(bytes);
    }
}

/// Writing half of [`LineTransport`].
pub struct LineWriter<W> {
    inner: W,
    buf: Vec<u8>,
}

impl<W> std::fmt::Debug for LineWriter<W> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LineWriter").finish_non_exhaustive()
    }
}

impl<W: AsyncWrite + Unpin + Send + 'static> MessageWrite for LineWriter<W> {
    async fn write_message(&mut self, message: &str) -> io::Result<()> {
        self.buf.clear();
        self.buf.extend_from_slice(message.as_bytes());
        self.buf.push(b'\n');
        self.inner.write_all(&self.buf).await?;
        self.inner.flush().await
    }
}
