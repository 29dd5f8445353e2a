//! A stdio server run as a child process, as a [`Transport`].
//!
//! Protocol messages travel over the child's stdin and stdout, newline
//! delimited ([`LineTransport`] framing). The child's stderr is never read
//! as protocol: it is inherited, captured into a bounded buffer, or
//! discarded. The process is killed when the reading half is dropped (for a
//! client: when the client is dropped). When the child's stdout ends, the
//! reader reports the exit status and, if captured, the end of its stderr.
//! Its stdout is read with the line reader's size limit (see
//! [`crate::transport`]), so no child can make this process buffer without
//! bound.

use std::ffi::OsStr;
use std::io;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::AsyncReadExt;
use tokio::process::{Child, ChildStdin, ChildStdout, Command};

use crate::transport::{LineReader, LineTransport, LineWriter, MessageRead, Transport};

/// What happens to the child's stderr.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum StderrMode {
    /// Goes to this process's stderr.
    #[default]
    Inherit,
    /// Kept in a buffer (the last 64 KiB), see [`ChildTransport::stderr`].
    Capture,
    /// Discarded.
    Null,
}

/// The captured stderr of a child (the last 64 KiB).
#[derive(Debug, Clone, Default)]
pub struct CapturedStderr(Arc<Mutex<Vec<u8>>>);

const STDERR_KEEP: usize = 64 * 1024;

impl CapturedStderr {
    /// What was captured so far, lossily decoded.
    pub fn text(&self) -> String {
        let buf = self.0.lock().unwrap_or_else(|e| e.into_inner());
        String::from_utf8_lossy(&buf).into_owned()
    }

    fn push(&self, bytes: &[u8]) {
        let mut buf = self.0.lock().unwrap_or_else(|e| e.into_inner());
        buf.extend_from_slice(bytes);
        if buf.len() > STDERR_KEEP {
            let cut = buf.len() - STDERR_KEEP;
            buf.drain(..cut);
        }
    }
}

/// A child process speaking MCP over stdio.
pub struct ChildTransport {
    child: Child,
    inner: LineTransport<ChildStdout, ChildStdin>,
    stderr: Option<CapturedStderr>,
    program: String,
}

impl std::fmt::Debug for ChildTransport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ChildTransport")
            .field("program", &self.program)
            .field("pid", &self.child.id())
            .finish_non_exhaustive()
    }
}

impl ChildTransport {
    /// Starts `command` with `args` and extra environment variables `env`.
    /// Must be called inside a Tokio runtime. Fails with a message naming
    /// the command when it cannot be started.
    pub fn spawn<I, S, E, K, V>(
        command: impl AsRef<OsStr>,
        args: I,
        env: E,
        stderr: StderrMode,
    ) -> io::Result<Self>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
        E: IntoIterator<Item = (K, V)>,
        K: AsRef<OsStr>,
        V: AsRef<OsStr>,
    {
        let program = command.as_ref().to_string_lossy().into_owned();
        let mut cmd = Command::new(command.as_ref());
        cmd.args(args)
            .envs(env)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(match stderr {
                StderrMode::Inherit => Stdio::inherit(),
                StderrMode::Capture => Stdio::piped(),
                StderrMode::Null => Stdio::null(),
            })
            .kill_on_drop(true);
        let mut child = cmd.spawn().map_err(|e| {
            io::Error::new(
                e.kind(),
                format!("cannot start server command `{program}`: {e}"),
            )
        })?;
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            return Err(io::Error::other(format!(
                "server command `{program}` has no stdio pipes"
            )));
        };
        let captured = match child.stderr.take() {
            Some(mut pipe) => {
                let captured = CapturedStderr::default();
                let sink = captured.clone();
                tokio::spawn(async move {
                    let mut chunk = [0u8; 4096];
                    while let Ok(n) = pipe.read(&mut chunk).await {
                        if n == 0 {
                            break;
                        }
                        sink.push(&chunk[..n]);
                    }
                });
                Some(captured)
            }
            None => None,
        };
        Ok(Self {
            child,
            inner: LineTransport::new(stdout, stdin),
            stderr: captured,
            program,
        })
    }

    /// The child's process id, while it runs.
    pub fn id(&self) -> Option<u32> {
        self.child.id()
    }

    /// The captured stderr ([`StderrMode::Capture`] only). Stays readable
    /// after the transport is split and moved into a client.
    pub fn stderr(&self) -> Option<CapturedStderr> {
        self.stderr.clone()
    }
}

/// Reading half of [`ChildTransport`]; owns the process.
pub struct ChildReader {
    inner: LineReader<ChildStdout>,
    child: Child,
    stderr: Option<CapturedStderr>,
    program: String,
}

impl std::fmt::Debug for ChildReader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ChildReader")
            .field("program", &self.program)
            .field("pid", &self.child.id())
            .finish_non_exhaustive()
    }
}

impl ChildReader {
    async fn ended(&mut self) -> io::Error {
        // Give the process a moment to exit so its status can be reported.
        let status = tokio::time::timeout(Duration::from_millis(500), self.child.wait()).await;
        let mut message = match status {
            Ok(Ok(status)) => format!("the server process `{}` exited ({status})", self.program),
            _ => format!("the server process `{}` closed its stdout", self.program),
        };
        if let Some(stderr) = &self.stderr {
            // Let the stderr reader catch up with the last writes.
            tokio::time::sleep(Duration::from_millis(20)).await;
            let text = stderr.text();
            let tail: Vec<&str> = text.lines().rev().take(10).collect();
            if !tail.is_empty() {
                let tail: Vec<&str> = tail.into_iter().rev().collect();
                message.push_str("; its stderr ends with:\n");
                message.push_str(&tail.join("\n"));
            }
        }
        io::Error::new(io::ErrorKind::UnexpectedEof, message)
    }
}

impl MessageRead for ChildReader {
    async fn read_message(&mut self) -> io::Result<Option<String>> {
        match self.inner.read_message().await {
            Ok(None) => Err(self.ended().await),
            other => other,
        }
    }

    fn set_max_message(&mut self, bytes: usize) {
        self.inner.set_max_message(bytes);
    }
}

impl Transport for ChildTransport {
    type Read = ChildReader;
    type Write = LineWriter<ChildStdin>;

    fn split(self) -> (Self::Read, Self::Write) {
        let (read, write) = self.inner.split();
        (
            ChildReader {
                inner: read,
                child: self.child,
                stderr: self.stderr,
                program: self.program,
            },
            write,
        )
    }
}
