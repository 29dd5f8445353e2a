//! Per-tool rate limits: a token bucket per tool.
//!
//! A limit allows `burst` calls at once and refills at `per_second` calls per
//! second. A call over the limit is refused with the time after which a retry
//! would succeed, so the answer can say when to try again.

use std::sync::Mutex;
use std::time::{Duration, Instant};

/// A configured limit.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RateLimit {
    /// Sustained calls per second.
    pub per_second: f64,
    /// Calls allowed at once after a quiet period (at least 1).
    pub burst: u32,
}

impl RateLimit {
    /// `per_second` calls per second with a burst of the same size (at least 1).
    pub fn per_second(per_second: f64) -> Self {
        let burst = per_second.ceil().max(1.0) as u32;
        Self { per_second, burst }
    }

    /// `calls` calls per minute, burst of one minute's worth (at least 1).
    pub fn per_minute(calls: u32) -> Self {
        Self {
            per_second: f64::from(calls) / 60.0,
            burst: calls.max(1),
        }
    }

    /// `calls` calls per window of `seconds` seconds, burst of one window's
    /// worth (both at least 1).
    pub fn calls_per_seconds(calls: u32, seconds: u32) -> Self {
        Self {
            per_second: f64::from(calls) / f64::from(seconds.max(1)),
            burst: calls.max(1),
        }
    }

    /// Sets the burst size.
    pub fn burst(mut self, burst: u32) -> Self {
        self.burst = burst.max(1);
        self
    }
}

impl std::fmt::Display for RateLimit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} calls per second (burst {})",
            self.per_second, self.burst
        )
    }
}

/// The state of one limit.
#[derive(Debug)]
pub(crate) struct Bucket {
    limit: RateLimit,
    state: Mutex<State>,
}

#[derive(Debug)]
struct State {
    tokens: f64,
    last: Instant,
}

impl Bucket {
    /// A full bucket for `limit`.
    pub(crate) fn new(limit: RateLimit) -> Self {
        Self {
            limit,
            state: Mutex::new(State {
                tokens: f64::from(limit.burst),
                last: Instant::now(),
            }),
        }
    }

    /// The configured limit.
    pub(crate) fn limit(&self) -> RateLimit {
        self.limit
    }

    /// Takes one call now, or says how long until one is available.
    pub(crate) fn try_acquire(&self) -> Result<(), Duration> {
        self.try_acquire_at(Instant::now())
    }

    /// [`Self::try_acquire`] at a given instant (for tests).
    pub(crate) fn try_acquire_at(&self, now: Instant) -> Result<(), Duration> {
        let mut state = self.state.lock().unwrap_or_else(|p| p.into_inner());
        let elapsed = now.saturating_duration_since(state.last).as_secs_f64();
        state.last = now.max(state.last);
        let cap = f64::from(self.limit.burst);
        state.tokens = (state.tokens + elapsed * self.limit.per_second).min(cap);
        if state.tokens >= 1.0 {
            state.tokens -= 1.0;
            Ok(())
        } else if self.limit.per_second > 0.0 {
            Err(Duration::from_secs_f64(
                (1.0 - state.tokens) / self.limit.per_second,
            ))
        } else {
            Err(Duration::MAX)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn burst_then_refill() {
        let bucket = Bucket::new(RateLimit::per_second(2.0));
        let t0 = Instant::now();
        assert!(bucket.try_acquire_at(t0).is_ok());
        assert!(bucket.try_acquire_at(t0).is_ok());
        let wait = bucket.try_acquire_at(t0).unwrap_err();
        assert_eq!(wait, Duration::from_millis(500));
        assert!(bucket
            .try_acquire_at(t0 + Duration::from_millis(500))
            .is_ok());
        assert!(bucket
            .try_acquire_at(t0 + Duration::from_millis(500))
            .is_err());
    }

    #[test]
    fn per_minute_and_burst() {
        let limit = RateLimit::per_minute(6).burst(1);
        assert_eq!(limit.burst, 1);
        let bucket = Bucket::new(limit);
        let t0 = Instant::now();
        assert!(bucket.try_acquire_at(t0).is_ok());
        assert_eq!(
            bucket.try_acquire_at(t0).unwrap_err(),
            Duration::from_secs(10)
        );
    }
}
