//! Keep-alive for the HTTP client: the idle HTTP/1.1 connections of one
//! endpoint, kept for the next request instead of a new TCP (and TLS)
//! handshake each time.
//!
//! A [`Live`] connection is hyper's `SendRequest` and the task driving the
//! connection; dropping it closes the connection. A request holds its
//! connection as a [`Lease`]. The lease goes back to the [`Pool`]
//! ([`Lease::release`]) only once the answer's body was read to its end on
//! a connection the server keeps open ([`keeps_alive`]); a lease dropped
//! before that (an answer still streaming, a cancelled or failed request,
//! a body over the size limit) closes its connection, which is how a
//! server learns of a cancellation.
//!
//! The pool holds at most [`MAX_IDLE`] connections, most recently used
//! first out, and closes one left idle for [`IDLE_TIMEOUT`] (a reaper task,
//! running only while something is idle, wakes when the oldest is due). A connection the server closed while idle is skipped when taken
//! ([`Pool::take`], then [`Lease::ready`]); when the server closes it in
//! the instant before the request is sent, hyper hands the unwritten
//! request back and the caller may send it on another connection
//! ([`Lease::reused`] tells it the failure may be such a race).

use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

use bytes::Bytes;
use http::header::CONNECTION;
use http::{Response, Version};
use http_body_util::Full;
use hyper::client::conn::http1::SendRequest;
use tokio::task::AbortHandle;
use tokio::time::Instant;

/// The most idle connections kept.
pub(crate) const MAX_IDLE: usize = 8;

/// How long a connection may stay idle before it is closed.
pub(crate) const IDLE_TIMEOUT: Duration = Duration::from_secs(90);

/// How long an idle connection may take to be ready for a request; an
/// open, idle connection is ready at once.
const READY_TIMEOUT: Duration = Duration::from_millis(500);

/// The sending half of a connection.
pub(crate) type Sender = SendRequest<Full<Bytes>>;

/// An open HTTP/1.1 connection: its sender and the task driving it.
/// Dropping it closes the connection.
pub(crate) struct Live {
    sender: Sender,
    driver: AbortHandle,
}

impl Live {
    /// A connection from hyper's handshake; `driver` runs its I/O.
    pub(crate) fn new(sender: Sender, driver: AbortHandle) -> Self {
        Self { sender, driver }
    }
}

impl Drop for Live {
    fn drop(&mut self) {
        self.driver.abort();
    }
}

/// A connection in use by one request.
pub(crate) struct Lease {
    conn: Live,
    pool: Arc<Pool>,
    reused: bool,
}

impl Lease {
    /// The connection's sender.
    pub(crate) fn sender(&mut self) -> &mut Sender {
        &mut self.conn.sender
    }

    /// Whether the connection came from the pool (it served a request
    /// before, and the server may have closed it since).
    pub(crate) fn reused(&self) -> bool {
        self.reused
    }

    /// Waits until the connection can take a request (at most
    /// [`READY_TIMEOUT`]); `false` when it has been closed or is still
    /// busy (a request body the server stopped reading).
    pub(crate) async fn ready(&mut self) -> bool {
        matches!(
            tokio::time::timeout(READY_TIMEOUT, self.conn.sender.ready()).await,
            Ok(Ok(()))
        )
    }

    /// Gives the connection back for another request: call it only once
    /// the answer's body has been read to its end and the server keeps
    /// the connection open.
    pub(crate) fn release(self) {
        self.pool.put(self.conn);
    }
}

/// Whether the server keeps the connection of this response open: HTTP/1.1
/// without `Connection: close`.
pub(crate) fn keeps_alive<B>(response: &Response<B>) -> bool {
    response.version() == Version::HTTP_11
        && !response.headers().get_all(CONNECTION).iter().any(|v| {
            v.to_str()
                .is_ok_and(|v| v.split(',').any(|t| t.trim().eq_ignore_ascii_case("close")))
        })
}

/// The idle connections of one endpoint.
pub(crate) struct Pool {
    state: Mutex<State>,
}

struct State {
    /// Oldest first.
    idle: Vec<Idle>,
    /// A reaper task is sleeping on this pool.
    reaping: bool,
}

struct Idle {
    conn: Live,
    since: Instant,
}

impl Pool {
    pub(crate) fn new() -> Arc<Self> {
        Arc::new(Self {
            state: Mutex::new(State {
                idle: Vec::new(),
                reaping: false,
            }),
        })
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The most recently used idle connection not known to be closed or
    /// stale, leased; the caller awaits [`Lease::ready`] before use.
    pub(crate) fn take(self: &Arc<Self>) -> Option<Lease> {
        let now = Instant::now();
        let mut state = self.state();
        while let Some(idle) = state.idle.pop() {
            if !idle.conn.sender.is_closed() && now.duration_since(idle.since) < IDLE_TIMEOUT {
                return Some(Lease {
                    conn: idle.conn,
                    pool: Arc::clone(self),
                    reused: true,
                });
            }
        }
        None
    }

    /// A lease on a connection just made.
    pub(crate) fn lease(self: &Arc<Self>, conn: Live) -> Lease {
        Lease {
            conn,
            pool: Arc::clone(self),
            reused: false,
        }
    }

    /// Keeps an idle connection, closing the oldest beyond [`MAX_IDLE`].
    fn put(self: &Arc<Self>, conn: Live) {
        if conn.sender.is_closed() {
            return;
        }
        let mut state = self.state();
        state.idle.push(Idle {
            conn,
            since: Instant::now(),
        });
        if state.idle.len() > MAX_IDLE {
            state.idle.remove(0);
        }
        if !state.reaping {
            if let Ok(runtime) = tokio::runtime::Handle::try_current() {
                state.reaping = true;
                runtime.spawn(reap(Arc::downgrade(self)));
            }
        }
    }

    /// Closes the connections idle for [`IDLE_TIMEOUT`] or closed by the
    /// server; how long until the next one times out, `None` (and the
    /// reaper stops) when none is left.
    fn expire(&self) -> Option<Duration> {
        let now = Instant::now();
        let mut state = self.state();
        state.idle.retain(|idle| {
            !idle.conn.sender.is_closed() && now.duration_since(idle.since) < IDLE_TIMEOUT
        });
        match state.idle.first() {
            Some(oldest) => Some(IDLE_TIMEOUT.saturating_sub(now.duration_since(oldest.since))),
            None => {
                state.reaping = false;
                None
            }
        }
    }

    /// How many connections are idle (for tests).
    #[cfg(test)]
    fn idle(&self) -> usize {
        self.state().idle.len()
    }
}

/// The reaper: wakes when the oldest idle connection times out, until the
/// pool is empty or gone.
async fn reap(pool: Weak<Pool>) {
    let mut wait = IDLE_TIMEOUT;
    loop {
        tokio::time::sleep(wait).await;
        let Some(pool) = pool.upgrade() else { return };
        match pool.expire() {
            Some(next) => wait = next.max(Duration::from_millis(10)),
            None => return,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use http::header::HeaderValue;
    use hyper_util::rt::TokioIo;

    /// A connection to a socket pair whose other end is returned.
    async fn live() -> (Live, tokio::io::DuplexStream) {
        let (ours, theirs) = tokio::io::duplex(1024);
        let (sender, conn) = hyper::client::conn::http1::handshake(TokioIo::new(ours))
            .await
            .unwrap();
        let driver = tokio::spawn(async move {
            let _ = conn.await;
        });
        (Live::new(sender, driver.abort_handle()), theirs)
    }

    #[tokio::test]
    async fn released_connections_are_reused_newest_first_and_bounded() {
        let pool = Pool::new();
        assert!(pool.take().is_none());
        let mut peers = Vec::new();
        for _ in 0..MAX_IDLE + 2 {
            let (conn, peer) = live().await;
            peers.push(peer);
            pool.lease(conn).release();
        }
        assert_eq!(pool.idle(), MAX_IDLE);
        let mut lease = pool.take().expect("an idle connection");
        assert!(lease.reused());
        assert!(lease.ready().await);
        assert_eq!(pool.idle(), MAX_IDLE - 1);
    }

    #[tokio::test]
    async fn a_connection_the_server_closed_is_not_taken() {
        let pool = Pool::new();
        let (conn, peer) = live().await;
        pool.lease(conn).release();
        drop(peer);
        // The driver sees the end of the stream and closes the connection.
        for _ in 0..100 {
            tokio::task::yield_now().await;
        }
        assert!(pool.take().is_none());
    }

    #[tokio::test(start_paused = true)]
    async fn idle_connections_time_out() {
        let pool = Pool::new();
        let (conn, _peer) = live().await;
        pool.lease(conn).release();
        tokio::time::sleep(IDLE_TIMEOUT / 2).await;
        assert_eq!(pool.idle(), 1);
        tokio::time::sleep(IDLE_TIMEOUT).await;
        assert_eq!(pool.idle(), 0);
        assert!(
            !pool.state().reaping,
            "the reaper stops once nothing is idle"
        );
    }

    #[test]
    fn keep_alive_is_http_1_1_without_connection_close() {
        let response = |version, connection: Option<&'static str>| {
            let mut r = Response::new(());
            *r.version_mut() = version;
            if let Some(c) = connection {
                r.headers_mut()
                    .insert(CONNECTION, HeaderValue::from_static(c));
            }
            r
        };
        assert!(keeps_alive(&response(Version::HTTP_11, None)));
        assert!(keeps_alive(&response(Version::HTTP_11, Some("keep-alive"))));
        assert!(!keeps_alive(&response(Version::HTTP_11, Some("Close"))));
        assert!(!keeps_alive(&response(
            Version::HTTP_11,
            Some("upgrade, close")
        )));
        assert!(!keeps_alive(&response(Version::HTTP_10, None)));
    }
}
