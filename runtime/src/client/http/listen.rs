//! The standalone SSE stream of a stateful session, over a
//! [`TransportShared`]: opened after `notifications/initialized` and read
//! for the server's own requests and notifications, reconnecting with
//! `Last-Event-ID` when it ends.

use std::sync::atomic::Ordering;
use std::sync::Arc;

use tokio::sync::mpsc;

use super::shared::TransportShared;
use super::{lock, LISTEN_TIMEOUT, MAX_RESUMES};

/// Stateful era, after `notifications/initialized`: reads the server's
/// standalone SSE stream (its requests and notifications go to the
/// engine), reconnecting with `Last-Event-ID` when it ends, until the
/// transport closes or the server offers no stream. The stream is
/// opened (its response headers read, for at most [`LISTEN_TIMEOUT`])
/// before the engine writes anything else: a server sends on it the
/// requests that belong to no request of the client (an elicitation
/// during a `tools/call`, with some SDKs) and may drop them while no
/// stream is open.
pub(super) async fn start_listener(shared: &Arc<TransportShared>, tx: mpsc::Sender<String>) {
    if lock(&shared.listener).is_some() {
        return;
    }
    let first = match tokio::time::timeout(LISTEN_TIMEOUT, shared.get_stream(None)).await {
        Ok(None) => return, // no stream offered
        Ok(Some(answer)) => Some(answer),
        Err(_) => None, // slow: the task below keeps trying
    };
    let reader = Arc::clone(shared);
    let mut slot = lock(&shared.listener);
    if slot.is_some() || shared.learnt.closed.load(Ordering::SeqCst) {
        return;
    }
    let task = tokio::spawn(async move {
        let mut first = first;
        let mut last: Option<String> = None;
        let mut idle = 0;
        while idle < MAX_RESUMES {
            let next = match first.take() {
                Some(answer) => Some(answer),
                None => reader.get_stream(last.as_deref()).await,
            };
            let Some(mut answer) = next else { return };
            let mut delivered = false;
            while let Ok(Some(text)) = answer.next().await {
                if text.trim().is_empty() {
                    continue;
                }
                delivered = true;
                if tx.send(text).await.is_err() {
                    return;
                }
            }
            idle = if delivered { 0 } else { idle + 1 };
            last = answer.parser.last_id.clone().or(last);
            tokio::time::sleep(answer.retry_delay()).await;
        }
    });
    *slot = Some(task.abort_handle());
}
