//! A low-latency stdio transport for servers.
//!
//! `tokio::io::stdin()`/`stdout()` hand every read and write to tokio's
//! blocking thread pool, which costs two thread hops per message. Here,
//! when stdin is a pipe or socket (as when a client spawns the server), it
//! is read through the runtime's epoll (`AsyncFd`), so a request is read,
//! handled and answered without leaving the runtime's thread. Otherwise (a
//! file, a terminal) one dedicated thread reads and hands messages over
//! through a channel. Framing is the same as
//! [`crate::transport::LineTransport`] (newline-delimited JSON, blank lines
//! skipped, the same size limit and UTF-8 check on every path).
//!
//! Stdin and stdout may be one socket (socat `EXEC:`, inetd, a socketpair)
//! and so share one open file description and its `O_NONBLOCK` flag. A
//! socket is therefore never switched to non-blocking mode: it is read with
//! `MSG_DONTWAIT`. Only a pipe gets `O_NONBLOCK` (restored when the reader
//! is dropped). Writes go straight to fd 1; should stdout be non-blocking
//! anyway (a read-write FIFO on both, or set so by the parent), a write that
//! would block waits for writability and resumes where it stopped, so a
//! reply is never cut or lost.
//!
//! Before the polled reader sleeps in epoll it keeps trying stdin for a
//! short while ([`Stdio::spin`]; the spin module says why).

#![allow(
    unsafe_code,
    reason = "stdin and stdout as raw file descriptors (non-blocking flags, epoll registration, recv): \
              the OS interface has no safe wrapper for them"
)]

use std::io::{self, Read};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::mpsc;

use crate::transport::{Framer, MessageRead, MessageWrite, Transport, DEFAULT_MAX_MESSAGE};

/// Messages buffered between the reader thread and the engine (each up to
/// the size limit, so kept small).
const QUEUE: usize = 4;

pub use crate::transport::spin::DEFAULT_SPIN;

/// Stdin and stdout of this process as a message transport.
#[derive(Debug)]
pub struct Stdio {
    spin: Duration,
}

impl Default for Stdio {
    fn default() -> Self {
        Self { spin: DEFAULT_SPIN }
    }
}

impl Stdio {
    /// How long the reader keeps trying a pipe or socket on stdin, between
    /// other tasks' turns, before it sleeps until input comes
    /// ([`DEFAULT_SPIN`] unless set; `Duration::ZERO` sleeps at once). It
    /// only tries while requests have been coming closer together than
    /// this, so an idle or slow client costs nothing; a client calling in
    /// a loop gets its answers without waiting for this process to wake.
    pub fn spin(mut self, budget: Duration) -> Self {
        self.spin = budget;
        self
    }
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
    /// Messages from the reader thread, which reads the limit from `max`.
    Thread {
        rx: mpsc::Receiver<io::Result<String>>,
        max: Arc<AtomicUsize>,
    },
    /// Non-blocking reads on the runtime's thread.
    #[cfg(unix)]
    Polled(nonblocking::PolledStdin),
}

/// Writing half of [`Stdio`].
#[derive(Debug)]
pub struct StdoutLines {
    buf: Vec<u8>,
    #[cfg(unix)]
    waiter: nonblocking::Writable,
}

impl Transport for Stdio {
    type Read = StdinLines;
    type Write = StdoutLines;

    fn split(self) -> (StdinLines, StdoutLines) {
        let out = StdoutLines {
            buf: Vec::with_capacity(4096),
            #[cfg(unix)]
            waiter: nonblocking::Writable::default(),
        };
        #[cfg(unix)]
        if let Some(polled) = nonblocking::PolledStdin::new(DEFAULT_MAX_MESSAGE, self.spin) {
            return (
                StdinLines {
                    inner: Reader::Polled(polled),
                },
                out,
            );
        }
        let max = Arc::new(AtomicUsize::new(DEFAULT_MAX_MESSAGE));
        let (tx, rx) = mpsc::channel(QUEUE);
        let limit = Arc::clone(&max);
        let spawned = std::thread::Builder::new()
            .name("mcp-stdin".into())
            .spawn(move || read_lines(tx, &limit));
        let rx = match spawned {
            Ok(_) => rx,
            Err(e) => {
                // No thread: the reader reports the error on its first read.
                let (tx, rx) = mpsc::channel(1);
                let _ = tx.try_send(Err(e));
                rx
            }
        };
        (
            StdinLines {
                inner: Reader::Thread { rx, max },
            },
            out,
        )
    }
}

/// The reader thread: blocking reads until end of input, framed with the
/// size limit like every other reader.
fn read_lines(tx: mpsc::Sender<io::Result<String>>, max: &AtomicUsize) {
    let stdin = io::stdin();
    let mut stdin = stdin.lock();
    let mut framer = Framer::new(max.load(Ordering::Relaxed));
    loop {
        framer.set_max(max.load(Ordering::Relaxed));
        while let Some(message) = framer.next_message() {
            if tx.blocking_send(Ok(message)).is_err() {
                return; // the engine is gone
            }
        }
        if framer.at_end() {
            return;
        }
        match stdin.read(framer.spare()) {
            Ok(n) => framer.filled(n),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
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
            Reader::Thread { rx, .. } => match rx.recv().await {
                Some(Ok(line)) => Ok(Some(line)),
                Some(Err(e)) => Err(e),
                None => Ok(None),
            },
            #[cfg(unix)]
            Reader::Polled(polled) => polled.read_message().await,
        }
    }

    fn set_max_message(&mut self, bytes: usize) {
        match &mut self.inner {
            Reader::Thread { max, .. } => max.store(bytes, Ordering::Relaxed),
            #[cfg(unix)]
            Reader::Polled(polled) => polled.set_max(bytes),
        }
    }
}

impl MessageWrite for StdoutLines {
    async fn write_message(&mut self, message: &str) -> io::Result<()> {
        #[cfg(unix)]
        {
            // The message and its newline in one `writev`, without copying.
            let written = self.waiter.write_both(message.as_bytes(), b"\n").await?;
            if written < message.len() + 1 {
                // Stdout would block: the rest goes through the buffer.
                self.buf.clear();
                self.buf
                    .extend_from_slice(message.as_bytes().get(written..).unwrap_or_default());
                self.buf.push(b'\n');
                return self.waiter.write_all(&self.buf).await;
            }
            Ok(())
        }
        #[cfg(not(unix))]
        {
            use std::io::Write;
            self.buf.clear();
            self.buf.extend_from_slice(message.as_bytes());
            self.buf.push(b'\n');
            let mut out = io::stdout().lock();
            out.write_all(&self.buf)?;
            out.flush()
        }
    }
}

#[cfg(unix)]
mod nonblocking {
    //! Stdin registered with the runtime's epoll, and writes to stdout that
    //! wait for writability instead of failing when stdout is non-blocking.

    use std::fs::File;
    use std::io::{self, IoSlice, Read, Write};
    use std::mem::ManuallyDrop;
    use std::os::fd::{AsRawFd, FromRawFd, RawFd};
    use std::os::unix::fs::FileTypeExt;
    use std::time::{Duration, Instant};

    use tokio::io::unix::AsyncFd;
    use tokio::io::Interest;

    use crate::transport::spin::Spin;
    use crate::transport::Framer;

    const STDIN: RawFd = 0;
    /// The longest other tasks wait while the reader tries stdin.
    const TURN: Duration = Duration::from_micros(10);
    const STDOUT: RawFd = 1;

    /// A standard descriptor, never closed by us.
    #[derive(Debug)]
    struct StdFd {
        fd: RawFd,
        file: ManuallyDrop<File>,
    }

    impl StdFd {
        fn new(fd: RawFd) -> Self {
            // SAFETY: fds 0 and 1 stay open for the life of the process and
            // the `File` is never dropped (ManuallyDrop), so it never closes
            // them.
            Self {
                fd,
                file: ManuallyDrop::new(unsafe { File::from_raw_fd(fd) }),
            }
        }
    }

    impl AsRawFd for StdFd {
        fn as_raw_fd(&self) -> RawFd {
            self.fd
        }
    }

    /// How stdin is read without blocking.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    enum Mode {
        /// A socket: `recv` with `MSG_DONTWAIT`, the descriptor untouched.
        Socket,
        /// A pipe switched to `O_NONBLOCK`; the old flags are restored on drop.
        Pipe { old_flags: libc::c_int },
    }

    /// Stdin registered with epoll.
    #[derive(Debug)]
    pub(super) struct PolledStdin {
        fd: AsyncFd<StdFd>,
        mode: Mode,
        framer: Framer,
        spin: Spin,
    }

    impl PolledStdin {
        /// `None` when stdin is not a pipe or socket, or cannot be polled;
        /// the caller then falls back to the reader thread.
        pub(super) fn new(max: usize, spin: Duration) -> Option<Self> {
            let stdin = StdFd::new(STDIN);
            let kind = stdin.file.metadata().ok()?.file_type();
            let mode = if kind.is_socket() {
                Mode::Socket
            } else if kind.is_fifo() {
                // SAFETY: fcntl with F_GETFL/F_SETFL on an open descriptor
                // has no memory-safety requirements.
                let old_flags = unsafe { libc::fcntl(STDIN, libc::F_GETFL) };
                // SAFETY: as above.
                if old_flags < 0
                    || unsafe { libc::fcntl(STDIN, libc::F_SETFL, old_flags | libc::O_NONBLOCK) }
                        < 0
                {
                    return None;
                }
                Mode::Pipe { old_flags }
            } else {
                return None;
            };
            // SAFETY: fd 0 is open and is never closed or replaced by this
            // process, so it outlives the AsyncFd and always names the same
            // file description.
            let registered = unsafe { AsyncFd::register_with_interest(stdin, Interest::READABLE) };
            match registered {
                Ok(fd) => Some(Self {
                    fd,
                    mode,
                    framer: Framer::new(max),
                    spin: Spin::new(spin),
                }),
                Err(_) => {
                    restore(mode);
                    None
                }
            }
        }

        pub(super) fn set_max(&mut self, max: usize) {
            self.framer.set_max(max);
        }

        /// The next message, or `None` at end of input.
        pub(super) async fn read_message(&mut self) -> io::Result<Option<String>> {
            loop {
                if let Some(message) = self.framer.next_message() {
                    return Ok(Some(message));
                }
                if self.framer.at_end() {
                    return Ok(None);
                }
                let target = self.framer.spare();
                let want = target.len();
                if let Some(until) = self.spin.wait() {
                    if let Some(n) = try_until(&self.fd, self.mode, target, until).await? {
                        self.spin.caught();
                        self.framer.filled(n);
                        continue;
                    }
                }
                let n = loop {
                    let mut guard = self.fd.readable().await?;
                    let mode = self.mode;
                    match guard.try_io(|fd| read_some(fd.get_ref(), mode, &mut *target)) {
                        Ok(Ok(n)) => {
                            // With epoll, a short read means the input is
                            // drained (tokio's own sockets rely on this too):
                            // skip the read that would only say "would block".
                            if n > 0 && n < want {
                                guard.clear_ready();
                            }
                            break n;
                        }
                        Ok(Err(e)) if e.kind() == io::ErrorKind::Interrupted => continue,
                        Ok(Err(e)) => return Err(e),
                        Err(_would_block) => continue,
                    }
                };
                self.spin.arrived();
                self.framer.filled(n);
            }
        }
    }

    /// Reads whatever stdin holds, trying again until `until`. Between
    /// tries the thread gives its CPU to any other process that wants it
    /// (`sched_yield`), and at least every [`TURN`] other tasks of the
    /// runtime get their turn (and its I/O and timers are polled). `None`
    /// when nothing came by then.
    async fn try_until(
        fd: &AsyncFd<StdFd>,
        mode: Mode,
        target: &mut [u8],
        until: Instant,
    ) -> io::Result<Option<usize>> {
        let mut turn = None;
        loop {
            match read_some(fd.get_ref(), mode, target) {
                Ok(n) => return Ok(Some(n)),
                // Compared as numbers: the common case, cheaply.
                Err(e)
                    if e.raw_os_error().is_some_and(|c| {
                        c == libc::EAGAIN || c == libc::EWOULDBLOCK || c == libc::EINTR
                    }) => {}
                Err(e) => return Err(e),
            }
            let now = Instant::now();
            if now >= until {
                return Ok(None);
            }
            if now >= *turn.get_or_insert(now + TURN) {
                tokio::task::yield_now().await;
                turn = None;
            } else {
                std::thread::yield_now();
            }
        }
    }

    fn read_some(fd: &StdFd, mode: Mode, target: &mut [u8]) -> io::Result<usize> {
        match mode {
            Mode::Pipe { .. } => (&*fd.file).read(target),
            Mode::Socket => {
                // SAFETY: `target` is valid for writes of `target.len()`
                // bytes for the duration of the call.
                let n = unsafe {
                    libc::recv(
                        fd.fd,
                        target.as_mut_ptr().cast(),
                        target.len(),
                        libc::MSG_DONTWAIT,
                    )
                };
                if n < 0 {
                    Err(io::Error::last_os_error())
                } else {
                    Ok(n as usize)
                }
            }
        }
    }

    impl Drop for PolledStdin {
        fn drop(&mut self) {
            restore(self.mode);
        }
    }

    fn restore(mode: Mode) {
        if let Mode::Pipe { old_flags } = mode {
            // SAFETY: see `PolledStdin::new`.
            unsafe {
                libc::fcntl(STDIN, libc::F_SETFL, old_flags);
            }
        }
    }

    /// Writes to fd 1 that survive a non-blocking stdout: `EAGAIN` waits
    /// for writability (through epoll once needed, else short sleeps).
    #[derive(Debug, Default)]
    pub(super) struct Writable {
        /// Fd 1 registered with epoll, after the first write that would
        /// have blocked; `Err` when it cannot be registered.
        registered: Option<Result<AsyncFd<StdFd>, ()>>,
    }

    impl Writable {
        /// Writes `head` then `tail` to stdout with as few `writev`s as
        /// it takes without waiting; how many bytes of the two went out
        /// (all of them unless stdout would block).
        pub(super) async fn write_both(&mut self, head: &[u8], tail: &[u8]) -> io::Result<usize> {
            let total = head.len() + tail.len();
            let mut written = 0;
            while written < total {
                let parts = if written < head.len() {
                    [IoSlice::new(&head[written..]), IoSlice::new(tail)]
                } else {
                    [
                        IoSlice::new(&tail[written - head.len()..]),
                        IoSlice::new(&[]),
                    ]
                };
                match write_some_vectored(&parts) {
                    Ok(0) => return Err(io::ErrorKind::WriteZero.into()),
                    Ok(n) => written += n,
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                    Err(e) if e.kind() == io::ErrorKind::WouldBlock => break,
                    Err(e) => return Err(e),
                }
            }
            Ok(written)
        }

        /// Writes all of `bytes` to stdout, in order, whatever its mode.
        pub(super) async fn write_all(&mut self, bytes: &[u8]) -> io::Result<()> {
            let mut written = 0;
            while written < bytes.len() {
                match write_some(&bytes[written..]) {
                    Ok(0) => return Err(io::ErrorKind::WriteZero.into()),
                    Ok(n) => written += n,
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                    Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                        written += self.write_when_ready(&bytes[written..]).await?;
                    }
                    Err(e) => return Err(e),
                }
            }
            Ok(())
        }

        /// Waits until stdout takes bytes again and writes some of them.
        async fn write_when_ready(&mut self, bytes: &[u8]) -> io::Result<usize> {
            let registered = self.registered.get_or_insert_with(|| {
                // SAFETY: as for stdin in `PolledStdin::new`: fd 1 is never
                // closed or replaced by this process.
                unsafe { AsyncFd::register_with_interest(StdFd::new(STDOUT), Interest::WRITABLE) }
                    .map_err(drop)
            });
            let Ok(fd) = registered else {
                // Not pollable (a regular file cannot be): retry shortly.
                tokio::time::sleep(Duration::from_millis(1)).await;
                return Ok(0);
            };
            loop {
                let mut guard = fd.writable().await?;
                match guard.try_io(|_| write_some(bytes)) {
                    Ok(Err(e)) if e.kind() == io::ErrorKind::Interrupted => continue,
                    Ok(Ok(0)) => return Err(io::ErrorKind::WriteZero.into()),
                    Ok(result) => return result,
                    Err(_would_block) => continue,
                }
            }
        }
    }

    /// [`write_some`] of several slices, with one `writev`.
    fn write_some_vectored(parts: &[IoSlice<'_>]) -> io::Result<usize> {
        let mut out = io::stdout().lock();
        out.flush()?;
        let stdout = StdFd::new(STDOUT);
        let n = (&*stdout.file).write_vectored(parts)?;
        drop(out);
        Ok(n)
    }

    /// One `write` to fd 1, under the lock of `std::io::stdout` (which is
    /// flushed first) so that nothing else printed lands inside a message.
    fn write_some(bytes: &[u8]) -> io::Result<usize> {
        let mut out = io::stdout().lock();
        out.flush()?;
        let stdout = StdFd::new(STDOUT);
        let n = (&*stdout.file).write(bytes)?;
        drop(out);
        Ok(n)
    }
}
