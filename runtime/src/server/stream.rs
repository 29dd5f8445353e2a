//! The message-stream driver: serves one [`Session`] over any
//! [`Transport`] (stdio, a child's pipes, a socket, an in-memory duplex).
//! It reads one message at a time, hands it to [`Server::handle_text`],
//! writes immediate replies, runs pending ones (tool calls, batches) in
//! their own tasks, and sends everything through a single writer task.
//! Reading never waits for a call slot, so cancellations and pings are
//! always read.

use std::io;
use std::sync::Arc;

use tokio::sync::mpsc;

use crate::context::Sink;
use crate::transport::{MessageRead, MessageWrite, Transport};

use super::engine::{Handled, Server};

/// Messages queued for the writer before senders wait.
const OUTBOUND_QUEUE: usize = 256;

impl Server {
    /// Serves one connection until its input ends, then lets in-flight calls
    /// finish (up to the shutdown grace) and returns.
    pub async fn serve<T: Transport>(self, transport: T) -> io::Result<()> {
        let (mut reader, mut writer) = transport.split();
        let (tx, mut rx) = mpsc::channel::<String>(OUTBOUND_QUEUE);
        let mut writer_task = tokio::spawn(async move {
            while let Some(message) = rx.recv().await {
                writer.write_message(&message).await?;
            }
            Ok::<(), io::Error>(())
        });
        let session = self.session();
        let sink = Sink::new(tx.clone());
        let extensions = Arc::new(http::Extensions::new());

        let read_result = loop {
            let text = match reader.read_message().await {
                Ok(Some(text)) => text,
                Ok(None) => break Ok(()),
                Err(e) => break Err(e),
            };
            match self.handle_text(&session, &text, &sink, &extensions) {
                Handled::Nothing => {}
                Handled::Reply(reply) => {
                    if tx.send(reply.text).await.is_err() {
                        break Ok(()); // the writer is gone
                    }
                }
                Handled::Pending(pending) => {
                    let tx = tx.clone();
                    tokio::spawn(async move {
                        if let Some(reply) = pending.await {
                            let _ = tx.send(reply.text).await;
                        }
                    });
                }
            }
        };
        drop((tx, sink));

        let grace = self.core.config.shutdown_grace;
        let written = match tokio::time::timeout(grace, &mut writer_task).await {
            Ok(joined) => joined,
            Err(_) => {
                session.cancel_all();
                writer_task.await
            }
        };
        let written = written.map_err(|e| io::Error::other(format!("writer task failed: {e}")))?;
        read_result.and(written)
    }
}
