//! Message transports shared by the server and the client engines.
//!
//! A transport is split into a reading half and a writing half that each
//! move whole JSON-RPC messages as text. Framing errors (bytes that are not
//! JSON) are the engine's business, so a reader hands back the raw text.
//! [`LineTransport`] is the newline-delimited framing MCP's stdio transport
//! uses; it works over any pair of byte streams (stdin/stdout, a child
//! process's pipes, an in-memory duplex in tests).

use std::future::Future;
use std::io;

use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};

/// The reading half of a transport: yields one message's text at a time.
pub trait MessageRead: Send + 'static {
    /// The next message, or `None` at end of stream.
    fn read_message(&mut self) -> impl Future<Output = io::Result<Option<String>>> + Send;
}

/// The writing half of a transport: sends one message's text.
pub trait MessageWrite: Send + 'static {
    /// Sends one complete message. `message` never contains a newline.
    fn write_message(&mut self, message: &str) -> impl Future<Output = io::Result<()>> + Send;
}

/// A bidirectional message channel that can be split into its two halves.
pub trait Transport: Send + 'static {
    type Read: MessageRead;
    type Write: MessageWrite;
    /// Splits the transport so reading and writing can proceed concurrently.
    fn split(self) -> (Self::Read, Self::Write);
}

/// Newline-delimited JSON over a pair of byte streams.
pub struct LineTransport<R, W> {
    reader: R,
    writer: W,
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

/// The stdio transport of a server: stdin in, stdout out. Logs must go to
/// stderr, never stdout.
pub fn stdio() -> LineTransport<tokio::io::Stdin, tokio::io::Stdout> {
    LineTransport::new(tokio::io::stdin(), tokio::io::stdout())
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
            LineReader { inner: BufReader::new(self.reader), buf: Vec::new() },
            LineWriter { inner: self.writer, buf: Vec::new() },
        )
    }
}

/// Reading half of [`LineTransport`].
pub struct LineReader<R> {
    inner: BufReader<R>,
    buf: Vec<u8>,
}

impl<R: AsyncRead + Unpin + Send + 'static> MessageRead for LineReader<R> {
    async fn read_message(&mut self) -> io::Result<Option<String>> {
        loop {
            self.buf.clear();
            let n = self.inner.read_until(b'\n', &mut self.buf).await?;
            if n == 0 {
                return Ok(None);
            }
            let line = String::from_utf8_lossy(&self.buf);
            let line = line.trim_end_matches(['\n', '\r']);
            // Blank lines between messages carry nothing; skip them.
            if !line.trim().is_empty() {
                return Ok(Some(line.to_owned()));
            }
        }
    }
}

/// Writing half of [`LineTransport`].
pub struct LineWriter<W> {
    inner: W,
    buf: Vec<u8>,
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
