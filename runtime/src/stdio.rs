//! A low-latency stdio transport for servers.
//!
//! `tokio::io::stdin()`/`stdout()` hand every read and write to tokio's
//! blocking thread pool, which costs two thread hops per message. Here,
//! when stdin is a pipe or socket (as when a client spawns the server), it
//! is switched to non-blocking mode and read through the runtime's epoll
//! (`AsyncFd`), so a request is read, handled and answered without leaving
//! the runtime's thread; its original mode is restored when the reader is
//! dropped. Otherwise (a file, a terminal) one dedicated thread reads lines
//! and hands them over through a channel. Writes go straight to stdout: a
//! pipe write of one line does not block unless the client stops reading,
//! in which case nothing could be delivered anyway. Framing is the same as
//! [`crate::transport::LineTransport`]: newline-delimited JSON, blank lines
//! skipped.

use std::io::{self, BufRead, Write};

use tokio::sync::mpsc;

use crate::transport::{MessageRead, MessageWrite, Transport};

/// Lines buffered between the reader thread and the engine.
const QUEUE: usize = 64;

/// Stdin and stdout of this process as a message transport.
#[derive(Debug, Default)]
pub struct Stdio {
    _private: (),
}

/// The stdio transport with a reader thread and direct writes.
pub fn stdio() -> Stdio {
    Stdio::default()
}

/// Reading half of [`Stdio`].
#[derive(Debug)]
pub struct StdinLines {
    inner: Reader,
}

#[derive(Debug)]
enum Reader {
    /// Lines from the reader thread.
    Thread(mpsc::Receiver<io::Result<String>>),
    /// Non-blocking reads on the runtime's thread.
    #[cfg(unix)]
    Polled(nonblocking::PolledStdin),
}

/// Writing half of [`Stdio`].
#[derive(Debug)]
pub struct StdoutLines {
    buf: Vec<u8>,
}

impl Transport for Stdio {
    type Read = StdinLines;
    type Write = StdoutLines;

    fn split(self) -> (StdinLines, StdoutLines) {
        let out = StdoutLines { buf: Vec::with_capacity(4096) };
        #[cfg(unix)]
        if let Some(polled) = nonblocking::PolledStdin::new() {
            return (StdinLines { inner: Reader::Polled(polled) }, out);
        }
        let (tx, rx) = mpsc::channel(QUEUE);
        let spawned = std::thread::Builder::new().name("mcp-stdin".into()).spawn(move || read_lines(tx));
        let rx = match spawned {
            Ok(_) => rx,
            Err(e) => {
                // No thread: the reader reports the error on its first read.
                let (tx, rx) = mpsc::channel(1);
                let _ = tx.try_send(Err(e));
                rx
            }
        };
        (StdinLines { inner: Reader::Thread(rx) }, out)
    }
}

/// The reader thread: blocking reads of whole lines until end of input.
fn read_lines(tx: mpsc::Sender<io::Result<String>>) {
    let stdin = io::stdin();
    let mut stdin = stdin.lock();
    let mut buf = Vec::with_capacity(4096);
    loop {
        buf.clear();
        match stdin.read_until(b'\n', &mut buf) {
            Ok(0) => return,
            Ok(_) => {
                let line = String::from_utf8_lossy(&buf);
                let line = line.trim_end_matches(['\n', '\r']);
                if line.trim().is_empty() {
                    continue;
                }
                if tx.blocking_send(Ok(line.to_owned())).is_err() {
                    return; // the engine is gone
                }
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => {
                let _ = tx.blocking_send(Err(e));
                return;
            }
        }
    }
}

impl MessageRead for StdinLines {
    async fn read_message(&mut self) -> io::Result<Option<String>> {
        match &mut self.inner {
            Reader::Thread(rx) => match rx.recv().await {
                Some(Ok(line)) => Ok(Some(line)),
                Some(Err(e)) => Err(e),
                None => Ok(None),
            },
            #[cfg(unix)]
            Reader::Polled(polled) => polled.read_line().await,
        }
    }
}

impl MessageWrite for StdoutLines {
    async fn write_message(&mut self, message: &str) -> io::Result<()> {
        self.buf.clear();
        self.buf.extend_from_slice(message.as_bytes());
        self.buf.push(b'\n');
        let mut out = io::stdout().lock();
        out.write_all(&self.buf)?;
        out.flush()
    }
}

#[cfg(unix)]
mod nonblocking {
    //! Stdin as a non-blocking pipe registered with the runtime's epoll.

    use std::fs::File;
    use std::io::{self, Read};
    use std::mem::ManuallyDrop;
    use std::os::fd::{AsRawFd, FromRawFd, RawFd};
    use std::os::unix::fs::FileTypeExt;

    use tokio::io::unix::AsyncFd;
    use tokio::io::Interest;

    const STDIN: RawFd = 0;

    /// Longest message kept in memory; a longer one is dropped and reported
    /// to the engine as unparsable text (answered `-32700`).
    const MAX_MESSAGE: usize = 32 << 20;
    /// What the engine receives in place of a dropped message.
    const TOO_LARGE: &str = "<message over 32 MiB dropped>";

    /// File descriptor 0, never closed by us.
    #[derive(Debug)]
    struct Fd0(ManuallyDrop<File>);

    impl AsRawFd for Fd0 {
        fn as_raw_fd(&self) -> RawFd {
            STDIN
        }
    }

    /// Stdin registered with epoll; restores its blocking mode on drop.
    #[derive(Debug)]
    pub(super) struct PolledStdin {
        fd: AsyncFd<Fd0>,
        old_flags: libc::c_int,
        buf: Vec<u8>,
        start: usize,
        /// `buf[start..scanned]` holds no newline.
        scanned: usize,
        eof: bool,
        /// Inside a message over [`MAX_MESSAGE`], dropping it.
        skipping: bool,
    }

    impl PolledStdin {
        /// `None` when stdin is not a pipe or socket, or cannot be polled;
        /// the caller then falls back to the reader thread.
        pub(super) fn new() -> Option<Self> {
            // SAFETY: fd 0 stays open for the life of the process and the
            // `File` is never dropped (ManuallyDrop), so it is never closed.
            let file = ManuallyDrop::new(unsafe { File::from_raw_fd(STDIN) });
            let kind = file.metadata().ok()?.file_type();
            if !(kind.is_fifo() || kind.is_socket()) {
                return None;
            }
            // SAFETY: fcntl on an open descriptor with F_GETFL/F_SETFL has no
            // memory-safety requirements.
            let old_flags = unsafe { libc::fcntl(STDIN, libc::F_GETFL) };
            if old_flags < 0 {
                return None;
            }
            // SAFETY: as above.
            if unsafe { libc::fcntl(STDIN, libc::F_SETFL, old_flags | libc::O_NONBLOCK) } < 0 {
                return None;
            }
            // SAFETY: fd 0 is open and is never closed or replaced by this
            // process, so it outlives the AsyncFd and always names the same
            // file description.
            let registered = unsafe { AsyncFd::register_with_interest(Fd0(file), Interest::READABLE) };
            match registered {
                Ok(fd) => Some(Self { fd, old_flags, buf: Vec::with_capacity(8192), start: 0, scanned: 0, eof: false, skipping: false }),
                Err(_) => {
                    restore(old_flags);
                    None
                }
            }
        }

        /// The next non-blank line, or `None` at end of input.
        pub(super) async fn read_line(&mut self) -> io::Result<Option<String>> {
            loop {
                // Bytes before `scanned` are known to hold no newline.
                let from = self.start.max(self.scanned);
                let newline = self.buf[from..].iter().position(|&b| b == b'\n').map(|p| from + p);
                self.scanned = newline.unwrap_or(self.buf.len());
                if self.skipping {
                    // Dropping the rest of an oversized message.
                    match newline {
                        Some(end) => {
                            self.start = end + 1;
                            self.skipping = false;
                            return Ok(Some(TOO_LARGE.to_owned()));
                        }
                        None => {
                            self.buf.clear();
                            self.start = 0;
                            self.scanned = 0;
                            if self.eof {
                                self.skipping = false;
                                return Ok(Some(TOO_LARGE.to_owned()));
                            }
                        }
                    }
                } else if let Some(end) = newline {
                    let line = String::from_utf8_lossy(&self.buf[self.start..end]);
                    let line = line.trim_end_matches('\r').to_owned();
                    self.start = end + 1;
                    if line.trim().is_empty() {
                        continue;
                    }
                    return Ok(Some(line));
                }
                if !self.skipping && self.buf.len() - self.start > MAX_MESSAGE {
                    self.skipping = true;
                    continue;
                }
                if self.eof && !self.skipping {
                    // A last line without a newline still counts.
                    let rest = String::from_utf8_lossy(&self.buf[self.start..]).trim().to_owned();
                    self.buf.clear();
                    self.start = 0;
                    self.scanned = 0;
                    return Ok((!rest.is_empty()).then_some(rest));
                }
                // Compact, then read more.
                if self.start > 0 {
                    self.buf.drain(..self.start);
                    self.scanned = self.scanned.saturating_sub(self.start);
                    self.start = 0;
                }
                let len = self.buf.len();
                // Small reads for small messages, bigger ones for big messages.
                let chunk = if len > 65_536 { 65_536 } else { 8_192 };
                self.buf.resize(len + chunk, 0);
                let n = loop {
                    let mut guard = self.fd.readable().await?;
                    let target = &mut self.buf[len..];
                    let want = target.len();
                    match guard.try_io(|fd| (&*fd.get_ref().0).read(target)) {
                        Ok(Ok(n)) => {
                            // With epoll, a short read means the pipe is drained
                            // (tokio's own sockets rely on this too): skip the
                            // read that would only say "would block".
                            if n > 0 && n < want {
                                guard.clear_ready();
                            }
                            break n;
                        }
                        Ok(Err(e)) if e.kind() == io::ErrorKind::Interrupted => continue,
                        Ok(Err(e)) => {
                            self.buf.truncate(len);
                            return Err(e);
                        }
                        Err(_would_block) => continue,
                    }
                };
                self.buf.truncate(len + n);
                if n == 0 {
                    self.eof = true;
                }
            }
        }
    }

    impl Drop for PolledStdin {
        fn drop(&mut self) {
            restore(self.old_flags);
        }
    }

    fn restore(flags: libc::c_int) {
        // SAFETY: see `PolledStdin::new`.
        unsafe {
            libc::fcntl(STDIN, libc::F_SETFL, flags);
        }
    }
}
