//! The message-stream driver: serves one [`Session`] over any
//! [`Transport`] (stdio, a child's pipes, a socket, an in-memory duplex).
//! It reads one message at a time, hands it to the engine
//! ([`super::Server::handle_text`]) and answers. Reading never waits for
//! a call slot, so cancellations and pings are always read.
//!
//! The fast path does not leave the reading task: a pending reply (a tool
//! call) is polled once right away, and most finish in that poll; a reply
//! is written directly when nothing else is waiting to be written. Only a
//! call that has to wait (for a slot, a timer, I/O) gets a task of its own,
//! and what other tasks send (their replies, progress, logs) goes through
//! one writer task. Messages queued for that task are counted until
//! written; while any are, replies queue behind them, so the order of what
//! a request sends before its reply is kept.

use std::io;
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::{mpsc, Mutex};

use crate::server::handler::context::Sink;
use crate::server::handler::extras::Extras;
use crate::server::handler::sink::SinkShared;
use crate::transport::{MessageRead, MessageWrite, Transport};

use super::session::Session;
use crate::server::request::handled::{poll_once, Handled};

/// Messages queued for the writer before senders wait.
const OUTBOUND_QUEUE: usize = 256;

/// Why the reading loop stopped before the end of input.
enum Stop {
    /// Reading failed.
    Read(io::Error),
    /// The writer task is gone (it failed; its error is reported).
    WriterGone,
    /// A direct write failed.
    Write(io::Error),
}

/// Serves `session` over `transport` until its input ends, then lets
/// in-flight calls finish (up to `shutdown_grace`) and returns. `listen`
/// gives the session the connection for messages outside requests;
/// `handle` answers one message's text.
pub(super) async fn serve<T: Transport>(
    transport: T,
    session: &Session,
    shutdown_grace: Duration,
    listen: impl FnOnce(&Sink),
    handle: impl Fn(&str, &Sink, &Arc<Extras>) -> Handled,
) -> io::Result<()> {
    let (mut reader, writer) = transport.split();
    let writer = Arc::new(Mutex::new(writer));
    // Messages handed to the writer task and not written yet.
    let unwritten = SinkShared::counter();
    let (tx, mut rx) = mpsc::channel::<String>(OUTBOUND_QUEUE);
    let mut writer_task = {
        let (writer, unwritten) = (Arc::clone(&writer), Arc::clone(&unwritten));
        tokio::spawn(async move {
            while let Some(message) = rx.recv().await {
                let written = writer.lock().await.write_message(&message).await;
                unwritten.written();
                written?;
            }
            Ok::<(), io::Error>(())
        })
    };
    let sink = Sink::counted(tx.clone(), Arc::clone(&unwritten));
    // List changes and resource updates reach the client on the
    // connection, without keeping it open once the input has ended.
    listen(&sink);
    let extras = Extras::map(Arc::default());

    let read_result = loop {
        let text = match reader.read_message().await {
            Ok(Some(text)) => text,
            Ok(None) => break Ok(()),
            Err(e) => break Err(Stop::Read(e)),
        };
        let reply = match handle(&text, &sink, &extras) {
            Handled::Nothing => continue,
            Handled::Reply(reply) => reply,
            Handled::Pending(mut pending) => match poll_once(&mut pending).await {
                Some(Some(reply)) => reply,
                Some(None) => continue, // cancelled: nothing is sent
                None => {
                    // It waits for something: it continues in its own task.
                    let sink = sink.clone();
                    tokio::spawn(async move {
                        if let Some(reply) = pending.await {
                            let _ = sink.send(reply.text).await;
                        }
                    });
                    continue;
                }
            },
        };
        // Written here unless other messages wait to be written (they
        // go first) or the writer is busy.
        if unwritten.all_written() {
            if let Ok(mut out) = writer.try_lock() {
                match out.write_message(&reply.text).await {
                    Ok(()) => continue,
                    Err(e) => break Err(Stop::Write(e)),
                }
            }
        }
        if !sink.send(reply.text).await {
            break Err(Stop::WriterGone);
        }
    };
    drop((tx, sink));

    let written = match tokio::time::timeout(shutdown_grace, &mut writer_task).await {
        Ok(joined) => joined,
        Err(_) => {
            session.cancel_all();
            writer_task.await
        }
    };
    let written = written.map_err(|e| io::Error::other(format!("writer task failed: {e}")))?;
    match read_result {
        Ok(()) | Err(Stop::WriterGone) => written,
        Err(Stop::Read(e) | Stop::Write(e)) => Err(e),
    }
}
