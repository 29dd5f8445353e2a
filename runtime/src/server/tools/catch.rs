//! Turning a panic inside a future into a value, so one handler's panic
//! becomes an error response instead of a dead server.

use std::any::Any;
use std::future::Future;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::pin::Pin;
use std::task::{Context, Poll};

/// Wraps a future; resolves to `Err(message)` if polling it panicked.
pub(crate) struct CatchUnwind<F> {
    inner: Pin<Box<F>>,
}

impl<F> std::fmt::Debug for CatchUnwind<F> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CatchUnwind").finish_non_exhaustive()
    }
}

impl<F: Future> CatchUnwind<F> {
    /// Wraps `future`.
    pub(crate) fn new(future: F) -> Self {
        Self {
            inner: Box::pin(future),
        }
    }
}

impl<F: Future> Future for CatchUnwind<F> {
    type Output = Result<F::Output, String>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let inner = self.inner.as_mut();
        // The future is dropped right after a panic and never polled again,
        // so no broken invariant inside it can be observed.
        match catch_unwind(AssertUnwindSafe(move || inner.poll(cx))) {
            Ok(Poll::Pending) => Poll::Pending,
            Ok(Poll::Ready(v)) => Poll::Ready(Ok(v)),
            Err(payload) => Poll::Ready(Err(panic_message(payload.as_ref()))),
        }
    }
}

/// The text of a panic payload.
pub(crate) fn panic_message(payload: &(dyn Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_owned()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "panic with a non-string payload".to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn panics_become_errors() {
        let ok = CatchUnwind::new(async { 5 }).await;
        assert_eq!(ok, Ok(5));
        let caught = CatchUnwind::new(async {
            tokio::task::yield_now().await;
            if true {
                panic!("boom {}", 1);
            }
            5
        })
        .await;
        assert_eq!(caught, Err("boom 1".to_owned()));
    }
}
