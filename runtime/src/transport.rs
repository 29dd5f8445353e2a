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
//! buffered whole. The reader hands over an [`Unreadable`] placeholder as
//! soon as the limit is passed and drops the rest of that line; text that
//! is not UTF-8 is handed over as a placeholder too, never patched up.
//!
//! A transport that cannot reach its peer says why with a [`ConnectError`].

mod connect_error;

pub use crate::child::{CapturedStderr, ChildReader, ChildTransport, StderrMode};
pub use crate::stdio::{stdio, StdinLines, Stdio, StdoutLines, DEFAULT_SPIN};
pub use connect_error::{ConnectError, ConnectErrorKind};

use std::future::Future;
use std::io;

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};

use crate::jsonrpc::Unreadable;

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

/// Newline framing without I/O: the caller reads into [`Framer::spare`],
/// reports the count with [`Framer::filled`] and takes messages from
/// [`Framer::next_message`]. At most the limit plus one read chunk is ever
/// buffered.
#[derive(Debug)]
pub(crate) struct Framer {
    /// `buf[start..end]` holds unread bytes; the rest is room for reads.
    buf: Vec<u8>,
    start: usize,
    end: usize,
    /// `buf[start..scanned]` holds no newline.
    scanned: usize,
    max: usize,
    /// Inside a message over the limit (already reported), dropping it.
    skipping: bool,
    eof: bool,
}

/// Buffers above this size are released once empty.
const KEEP_BUFFER: usize = 1 << 20;

impl Framer {
    pub(crate) fn new(max: usize) -> Self {
        Self {
            buf: Vec::new(),
            start: 0,
            end: 0,
            scanned: 0,
            max: max.max(1),
            skipping: false,
            eof: false,
        }
    }

    pub(crate) fn set_max(&mut self, max: usize) {
        self.max = max.max(1);
    }

    /// End of input was read and every message has been taken.
    pub(crate) fn at_end(&self) -> bool {
        self.eof && self.start == self.end
    }

    /// The next message (or placeholder) among the bytes read so far; at
    /// end of input, a last line without a newline counts too. Blank lines
    /// are skipped.
    pub(crate) fn next_message(&mut self) -> Option<String> {
        loop {
            let from = self.start.max(self.scanned);
            match self.buf[from..self.end].iter().position(|&b| b == b'\n') {
                Some(at) => {
                    let newline = from + at;
                    let (line, skipped) = (self.start..newline, self.skipping);
                    self.start = newline + 1;
                    self.scanned = self.start;
                    self.skipping = false;
                    if skipped {
                        continue; // the end of a message already reported
                    }
                    if let Some(message) = self.take(line) {
                        return Some(message);
                    }
                }
                None => {
                    self.scanned = self.end;
                    if self.skipping {
                        self.start = self.end;
                        self.skipping &= !self.eof;
                        return None;
                    }
                    if self.end - self.start > self.max {
                        // Report at once; the rest of the line is dropped
                        // as it arrives, never buffered.
                        self.start = self.end;
                        self.skipping = !self.eof;
                        return Some(Unreadable::TooLarge { limit: self.max }.placeholder());
                    }
                    if self.eof && self.start < self.end {
                        let line = self.start..self.end;
                        self.start = self.end;
                        return self.take(line);
                    }
                    return None;
                }
            }
        }
    }

    /// One line's message: `None` when blank.
    fn take(&self, line: std::ops::Range<usize>) -> Option<String> {
        if line.len() > self.max {
            return Some(Unreadable::TooLarge { limit: self.max }.placeholder());
        }
        let mut bytes = &self.buf[line];
        if let [rest @ .., b'\r'] = bytes {
            bytes = rest;
        }
        match std::str::from_utf8(bytes) {
            Ok(text) if text.trim().is_empty() => None,
            Ok(text) => Some(text.to_owned()),
            Err(e) => Some(
                Unreadable::NotUtf8 {
                    offset: e.valid_up_to(),
                }
                .placeholder(),
            ),
        }
    }

    /// Room for the next read: small reads for small messages, bigger ones
    /// for big messages.
    pub(crate) fn spare(&mut self) -> &mut [u8] {
        if self.start > 0 {
            self.buf.copy_within(self.start..self.end, 0);
            self.end -= self.start;
            self.scanned -= self.start;
            self.start = 0;
        }
        if self.end == 0 && self.buf.len() > KEEP_BUFFER {
            self.buf = Vec::new();
        }
        let chunk = if self.end > 65_536 { 65_536 } else { 8_192 };
        if self.buf.len() < self.end + chunk {
            self.buf.resize(self.end + chunk, 0);
        }
        &mut self.buf[self.end..self.end + chunk]
    }

    /// Records that `n` bytes were read into [`Framer::spare`]; `0` means
    /// end of input.
    pub(crate) fn filled(&mut self, n: usize) {
        self.end += n;
        if n == 0 {
            self.eof = true;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn feed(framer: &mut Framer, bytes: &[u8]) -> Vec<String> {
        let mut out = Vec::new();
        for piece in bytes.chunks(5000) {
            let room = framer.spare();
            room[..piece.len()].copy_from_slice(piece);
            framer.filled(piece.len());
            out.extend(std::iter::from_fn(|| framer.next_message()));
        }
        out
    }

    #[test]
    fn lines_split_blank_lines_skip_and_a_last_line_counts() {
        let mut f = Framer::new(100);
        let mut got = feed(&mut f, b"a\r\n\n  \nb\nc");
        f.filled(0);
        got.extend(std::iter::from_fn(|| f.next_message()));
        assert_eq!(got, ["a", "b", "c"]);
        assert!(f.at_end());
    }

    #[test]
    fn a_message_over_the_limit_is_reported_once_and_never_buffered() {
        let mut f = Framer::new(10_000);
        let mut input = vec![b'x'; 1_000_000];
        input.extend_from_slice(b"\nok\n");
        let got = feed(&mut f, &input);
        assert_eq!(
            got,
            [
                Unreadable::TooLarge { limit: 10_000 }.placeholder(),
                "ok".to_owned()
            ]
        );
        assert!(f.buf.len() < 10_000 + 70_000, "buffered {}", f.buf.len());
    }

    #[test]
    fn invalid_utf8_is_reported_not_replaced() {
        let mut f = Framer::new(100);
        let got = feed(&mut f, b"{\"a\":\"\xff\"}\n\"ok\"\n");
        assert_eq!(
            got,
            [
                Unreadable::NotUtf8 { offset: 6 }.placeholder(),
                "\"ok\"".to_owned()
            ]
        );
    }
}
