//! Per-tool rate limits: token buckets, one per tool or, by the limit's
//! [`LimitScope`], one per principal or per session of each tool; held in
//! the process, or in a [`RateLimitStore`] every replica shares.
//!
//! A limit allows `burst` calls at once and refills at `per_second` calls per
//! second. A call over the limit is refused with the time after which a retry
//! would succeed, so the answer can say when to try again.

use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Whose calls of a tool share one bucket.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum LimitScope {
    /// Every caller's (the default).
    #[default]
    Global,
    /// Each principal's (the bearer gate's subject; callers without one
    /// share the anonymous bucket).
    Principal,
    /// Each stateful session's (the `Mcp-Session-Id`, or the stdio
    /// connection); a stateless request has no session and counts as its
    /// principal's.
    Session,
}

impl LimitScope {
    /// The scope's name, as the manifest writes it.
    pub fn as_str(self) -> &'static str {
        match self {
            LimitScope::Global => "global",
            LimitScope::Principal => "principal",
            LimitScope::Session => "session",
        }
    }
}

/// A configured limit.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RateLimit {
    /// Sustained calls per second.
    pub per_second: f64,
    /// Calls allowed at once after a quiet period (at least 1).
    pub burst: u32,
    /// Whose calls share a bucket.
    pub scope: LimitScope,
}

impl RateLimit {
    /// `per_second` calls per second with a burst of the same size (at least 1).
    pub fn per_second(per_second: f64) -> Self {
        let burst = per_second.ceil().max(1.0) as u32;
        Self {
            per_second,
            burst,
            scope: LimitScope::Global,
        }
    }

    /// `calls` calls per minute, burst of one minute's worth (at least 1).
    pub fn per_minute(calls: u32) -> Self {
        Self {
            per_second: f64::from(calls) / 60.0,
            burst: calls.max(1),
            scope: LimitScope::Global,
        }
    }

    /// `calls` calls per window of `seconds` seconds, burst of one window's
    /// worth (both at least 1).
    pub fn calls_per_seconds(calls: u32, seconds: u32) -> Self {
        Self {
            per_second: f64::from(calls) / f64::from(seconds.max(1)),
            burst: calls.max(1),
            scope: LimitScope::Global,
        }
    }

    /// Sets the burst size.
    pub fn burst(mut self, burst: u32) -> Self {
        self.burst = burst.max(1);
        self
    }

    /// Gives each principal or each session its own bucket.
    pub fn per(mut self, scope: LimitScope) -> Self {
        self.scope = scope;
        self
    }
}

/// In the units a limit is declared in: `5 calls per 60 s` (a burst of
/// `burst` calls, refilled over a whole number of seconds), else the rate
/// and the burst (`0.5 calls per second, at most 3 at once`); then whose
/// calls share it (`per principal`).
impl std::fmt::Display for RateLimit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let calls = |n: u32| if n == 1 { "call" } else { "calls" };
        let window = f64::from(self.burst) / self.per_second;
        let whole = window.round();
        if self.per_second > 0.0 && whole >= 1.0 && (window - whole).abs() < 1e-6 {
            if whole == 1.0 {
                write!(f, "{} {} per second", self.burst, calls(self.burst))?;
            } else {
                write!(f, "{} {} per {} s", self.burst, calls(self.burst), whole)?;
            }
        } else {
            write!(
                f,
                "{} calls per second, at most {} at once",
                self.per_second, self.burst
            )?;
        }
        match self.scope {
            LimitScope::Global => Ok(()),
            scope => write!(f, " per {}", scope.as_str()),
        }
    }
}

/// A wait as a refusal says it: whole seconds, rounded up (`12 s`), or
/// tenths below ten seconds (`0.4 s`, `2.5 s`), never zero.
pub(crate) fn retry_delay(wait: Duration) -> String {
    let tenths = wait.as_millis().div_ceil(100).max(1);
    if tenths >= 100 {
        format!("{} s", tenths.div_ceil(10))
    } else {
        format!("{}.{} s", tenths / 10, tenths % 10)
    }
}

/// A wait as a refusal's `_meta` gives it ([`meta::RETRY_AFTER_MS`]):
/// whole milliseconds, rounded up, never zero.
///
/// [`meta::RETRY_AFTER_MS`]: crate::revision::meta::RETRY_AFTER_MS
pub(crate) fn retry_after_ms(wait: Duration) -> u64 {
    u64::try_from(wait.as_nanos().div_ceil(1_000_000).max(1)).unwrap_or(u64::MAX)
}

/// Why a [`RateLimitStore`] could not answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LimitStoreError(pub String);

impl std::fmt::Display for LimitStoreError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "rate limit store: {}", self.0)
    }
}

impl std::error::Error for LimitStoreError {}

/// What a [`RateLimitStore`] answers: the call taken, or refused with the
/// time until one would be allowed.
pub type LimitFuture<'a> =
    Pin<Box<dyn Future<Output = Result<Result<(), Duration>, LimitStoreError>> + Send + 'a>>;

/// Buckets every replica of a server shares ([`RedisStore`](crate::server::http::RedisStore)), so
/// that a limit holds across replicas. Each take is atomic in the store.
pub trait RateLimitStore: Send + Sync + 'static {
    /// Takes one call from bucket `key` under `limit`.
    fn take<'a>(&'a self, key: &'a str, limit: RateLimit) -> LimitFuture<'a>;
}

/// What a server does with a limited call when its [`RateLimitStore`]
/// fails.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum OnStoreError {
    /// Refuses the call (the default): a limit that cannot be checked is
    /// not lifted.
    #[default]
    Refuse,
    /// Checks the limit in this process alone.
    LocalLimit,
}

/// Most buckets one scoped limit keeps in the process; beyond that the
/// buckets refilled to the full burst (the same as new ones) are dropped.
const MAX_BUCKETS: usize = 16_384;

/// The buckets of one limit, by key (`""` for a global limit).
#[derive(Debug)]
pub(crate) struct Bucket {
    limit: RateLimit,
    states: Mutex<HashMap<String, State>>,
}

#[derive(Debug, Clone, Copy)]
struct State {
    tokens: f64,
    last: Instant,
}

impl State {
    fn refill(&mut self, now: Instant, limit: RateLimit) {
        let elapsed = now.saturating_duration_since(self.last).as_secs_f64();
        self.last = now.max(self.last);
        self.tokens = (self.tokens + elapsed * limit.per_second).min(f64::from(limit.burst));
    }
}

impl Bucket {
    /// Full buckets for `limit`.
    pub(crate) fn new(limit: RateLimit) -> Self {
        Self {
            limit,
            states: Mutex::new(HashMap::new()),
        }
    }

    /// The configured limit.
    pub(crate) fn limit(&self) -> RateLimit {
        self.limit
    }

    /// Takes one call of bucket `key` now, or says how long until one is
    /// available.
    pub(crate) fn try_acquire(&self, key: &str) -> Result<(), Duration> {
        self.try_acquire_at(key, Instant::now())
    }

    /// [`Self::try_acquire`] at a given instant (for tests).
    pub(crate) fn try_acquire_at(&self, key: &str, now: Instant) -> Result<(), Duration> {
        let limit = self.limit;
        let mut states = self.states.lock().unwrap_or_else(|p| p.into_inner());
        if states.len() >= MAX_BUCKETS && !states.contains_key(key) {
            states.retain(|_, state| {
                state.refill(now, limit);
                state.tokens < f64::from(limit.burst)
            });
        }
        let state = states.entry(key.to_owned()).or_insert(State {
            tokens: f64::from(limit.burst),
            last: now,
        });
        state.refill(now, limit);
        if state.tokens >= 1.0 {
            state.tokens -= 1.0;
            Ok(())
        } else if limit.per_second > 0.0 {
            Err(Duration::from_secs_f64(
                (1.0 - state.tokens) / limit.per_second,
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
        assert!(bucket.try_acquire_at("", t0).is_ok());
        assert!(bucket.try_acquire_at("", t0).is_ok());
        let wait = bucket.try_acquire_at("", t0).unwrap_err();
        assert_eq!(wait, Duration::from_millis(500));
        assert!(bucket
            .try_acquire_at("", t0 + Duration::from_millis(500))
            .is_ok());
        assert!(bucket
            .try_acquire_at("", t0 + Duration::from_millis(500))
            .is_err());
    }

    #[test]
    fn each_key_has_its_own_bucket() {
        let bucket = Bucket::new(RateLimit::per_minute(1).per(LimitScope::Principal));
        let t0 = Instant::now();
        assert!(bucket.try_acquire_at("alice", t0).is_ok());
        assert!(bucket.try_acquire_at("alice", t0).is_err());
        assert!(bucket.try_acquire_at("bob", t0).is_ok());
        assert_eq!(bucket.limit().to_string(), "1 call per 60 s per principal");
    }

    #[test]
    fn limits_and_waits_are_said_in_the_declared_units() {
        assert_eq!(
            RateLimit::calls_per_seconds(5, 60).to_string(),
            "5 calls per 60 s"
        );
        assert_eq!(
            RateLimit::per_second(10.0).to_string(),
            "10 calls per second"
        );
        assert_eq!(
            RateLimit::per_minute(60).burst(3).to_string(),
            "3 calls per 3 s"
        );
        assert_eq!(
            RateLimit::per_second(0.5).burst(3).to_string(),
            "3 calls per 6 s"
        );
        assert_eq!(
            RateLimit::per_second(0.3).to_string(),
            "0.3 calls per second, at most 1 at once"
        );
        assert_eq!(retry_delay(Duration::from_millis(11_960)), "12 s");
        assert_eq!(retry_delay(Duration::from_millis(2_410)), "2.5 s");
        assert_eq!(retry_delay(Duration::from_millis(1)), "0.1 s");
        assert_eq!(retry_delay(Duration::ZERO), "0.1 s");
        assert_eq!(retry_after_ms(Duration::from_micros(11_959_001)), 11_960);
        assert_eq!(retry_after_ms(Duration::ZERO), 1);
    }

    #[test]
    fn refilled_buckets_make_room_for_new_keys() {
        let bucket = Bucket::new(RateLimit::per_second(1.0).per(LimitScope::Session));
        let t0 = Instant::now();
        for i in 0..MAX_BUCKETS {
            assert!(bucket.try_acquire_at(&i.to_string(), t0).is_ok());
        }
        // A second later every bucket is full again: all are dropped.
        let t1 = t0 + Duration::from_secs(1);
        assert!(bucket.try_acquire_at("new", t1).is_ok());
        assert_eq!(bucket.states.lock().unwrap().len(), 1);
    }

    #[test]
    fn per_minute_and_burst() {
        let limit = RateLimit::per_minute(6).burst(1);
        assert_eq!(limit.burst, 1);
        let bucket = Bucket::new(limit);
        let t0 = Instant::now();
        assert!(bucket.try_acquire_at("", t0).is_ok());
        assert_eq!(
            bucket.try_acquire_at("", t0).unwrap_err(),
            Duration::from_secs(10)
        );
    }
}
