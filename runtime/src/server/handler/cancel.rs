//! A cancellation token built on tokio primitives.
//!
//! The server gives each running request a token; `notifications/cancelled`
//! trips it. Handlers can poll [`CancellationToken::is_cancelled`] or await
//! [`CancellationToken::cancelled`]; the engine itself also stops awaiting a
//! cancelled handler, so handlers that never look at the token still stop at
//! their next `.await`.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use tokio::sync::Notify;

/// A cheap, cloneable flag that can be tripped once and awaited.
#[derive(Debug, Clone, Default)]
pub struct CancellationToken {
    inner: Arc<Inner>,
}

#[derive(Debug, Default)]
struct Inner {
    cancelled: AtomicBool,
    notify: Notify,
}

impl CancellationToken {
    /// A token that is not cancelled.
    pub fn new() -> Self {
        Self::default()
    }

    /// Trips the token and wakes everyone awaiting [`Self::cancelled`].
    pub fn cancel(&self) {
        if !self.inner.cancelled.swap(true, Ordering::AcqRel) {
            self.inner.notify.notify_waiters();
        }
    }

    /// Whether [`Self::cancel`] was called.
    pub fn is_cancelled(&self) -> bool {
        self.inner.cancelled.load(Ordering::Acquire)
    }

    /// Completes once the token is cancelled (at once if it already is).
    pub async fn cancelled(&self) {
        loop {
            let notified = self.inner.notify.notified();
            tokio::pin!(notified);
            // Register interest before checking the flag, so a `cancel` between
            // the check and the await is not missed.
            notified.as_mut().enable();
            if self.is_cancelled() {
                return;
            }
            notified.await;
            if self.is_cancelled() {
                return;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn cancel_wakes_waiters_and_is_sticky() {
        let token = CancellationToken::new();
        assert!(!token.is_cancelled());
        let waiter = {
            let token = token.clone();
            tokio::spawn(async move { token.cancelled().await })
        };
        tokio::task::yield_now().await;
        token.cancel();
        waiter.await.unwrap();
        assert!(token.is_cancelled());
        // Already cancelled: completes at once.
        token.cancelled().await;
    }
}
