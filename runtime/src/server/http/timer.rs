//! [`CoarseTimer`]: hyper's timer for the header read timeout, at
//! one-second resolution. The timeout limits how long a client may take to
//! send a request's head, and so how long a keep-alive connection may sit
//! idle.
//!
//! hyper arms the timer for every request and drops it once the head is in.
//! A tokio timer per request costs a clock read, an allocation, and a
//! registration in tokio's timer wheel and its removal: about 1k
//! instructions. Here a deadline is a count of the seconds a ticker task
//! counts. A sleep polled before its deadline leaves its waker in a slot,
//! and the ticker wakes the slots that are due once a second.

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, Weak};
use std::task::{Context, Poll, Waker};
use std::time::{Duration, Instant};

/// A timer for hyper (see the module docs); clones share one clock. Its
/// ticker runs on the tokio runtime it was made on until the timer and
/// every sleep it made are gone.
#[derive(Clone)]
pub(crate) struct CoarseTimer {
    clock: Arc<Clock>,
}

struct Clock {
    /// tokio's (so that tests may pause time).
    origin: tokio::time::Instant,
    /// Whole seconds from `origin` to the last tick.
    seconds: AtomicU64,
    waiting: Mutex<Slots>,
}

/// Wakers of sleeps polled before their deadline, by slot; `free` lists
/// the slots no sleep holds.
#[derive(Default)]
struct Slots {
    slots: Vec<Option<(u64, Waker)>>,
    free: Vec<usize>,
}

impl CoarseTimer {
    /// A timer ticking on the current tokio runtime.
    pub(crate) fn start() -> Self {
        let clock = Arc::new(Clock {
            origin: tokio::time::Instant::now(),
            seconds: AtomicU64::new(0),
            waiting: Mutex::default(),
        });
        let weak = Arc::downgrade(&clock);
        tokio::spawn(tick(weak));
        Self { clock }
    }

    /// A sleep until second `deadline` of the clock.
    fn sleep_to(&self, deadline: u64) -> Pin<Box<dyn hyper::rt::Sleep>> {
        Box::pin(CoarseSleep {
            clock: Arc::clone(&self.clock),
            deadline,
            slot: None,
        })
    }
}

/// Advances `clock` once a second while anything holds it.
async fn tick(clock: Weak<Clock>) {
    let mut every = tokio::time::interval(Duration::from_secs(1));
    every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        every.tick().await;
        let Some(clock) = clock.upgrade() else { return };
        clock.advance();
    }
}

impl Clock {
    fn now(&self) -> u64 {
        self.seconds.load(Ordering::Acquire)
    }

    /// Moves to the present second and wakes the sleeps that are due.
    fn advance(&self) {
        let now = self.origin.elapsed().as_secs();
        self.seconds.store(now, Ordering::Release);
        let due: Vec<Waker> = {
            let mut waiting = self.lock();
            let due = waiting
                .slots
                .iter_mut()
                .filter(|s| s.as_ref().is_some_and(|(deadline, _)| *deadline <= now));
            due.filter_map(|slot| slot.take().map(|(_, waker)| waker))
                .collect()
        };
        due.into_iter().for_each(Waker::wake);
    }

    fn lock(&self) -> MutexGuard<'_, Slots> {
        self.waiting.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Whole seconds from `origin` to `at`, rounded up.
    fn seconds_to(&self, at: Instant) -> u64 {
        let span = at.saturating_duration_since(self.origin.into_std());
        span.as_secs() + u64::from(span.subsec_nanos() > 0)
    }
}

impl hyper::rt::Timer for CoarseTimer {
    fn sleep(&self, duration: Duration) -> Pin<Box<dyn hyper::rt::Sleep>> {
        let seconds = duration.as_secs() + u64::from(duration.subsec_nanos() > 0);
        self.sleep_to(self.clock.now().saturating_add(seconds))
    }

    fn sleep_until(&self, deadline: Instant) -> Pin<Box<dyn hyper::rt::Sleep>> {
        self.sleep_to(self.clock.seconds_to(deadline))
    }

    /// The time of the last tick (up to a second ago), without reading
    /// the system clock.
    fn now(&self) -> Instant {
        self.clock.origin.into_std() + Duration::from_secs(self.clock.now())
    }
}

/// A sleep until second `deadline` of its clock.
struct CoarseSleep {
    clock: Arc<Clock>,
    deadline: u64,
    /// The slot holding this sleep's waker, once it waited.
    slot: Option<usize>,
}

impl Future for CoarseSleep {
    type Output = ();

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        let this = self.get_mut();
        if this.clock.now() >= this.deadline {
            return Poll::Ready(());
        }
        let mut waiting = this.clock.lock();
        let entry = Some((this.deadline, cx.waker().clone()));
        match this.slot {
            Some(at) => waiting.slots[at] = entry,
            None => {
                let at = match waiting.free.pop() {
                    Some(at) => at,
                    None => {
                        waiting.slots.push(None);
                        waiting.slots.len() - 1
                    }
                };
                waiting.slots[at] = entry;
                this.slot = Some(at);
            }
        }
        Poll::Pending
    }
}

impl Drop for CoarseSleep {
    fn drop(&mut self) {
        if let Some(at) = self.slot {
            let mut waiting = self.clock.lock();
            waiting.slots[at] = None;
            waiting.free.push(at);
        }
    }
}

impl hyper::rt::Sleep for CoarseSleep {}

#[cfg(test)]
mod tests {
    use super::*;
    use hyper::rt::Timer;

    #[tokio::test(start_paused = true)]
    async fn a_sleep_ends_at_its_second_and_a_dropped_one_frees_its_slot() {
        let timer = CoarseTimer::start();
        let short = timer.sleep(Duration::from_millis(1500));
        let long = timer.sleep_until(timer.now() + Duration::from_secs(5));
        let started = tokio::time::Instant::now();
        short.await;
        let took = started.elapsed();
        assert!(
            (Duration::from_secs(2)..Duration::from_secs(3)).contains(&took),
            "{took:?}"
        );
        // A sleep that waited and was dropped gives its slot back.
        let waited = tokio::time::timeout(Duration::from_secs(1), long).await;
        assert!(waited.is_err(), "not due yet");
        let waiting = timer.clock.lock();
        assert_eq!(
            waiting.slots.len(),
            waiting.free.len(),
            "every slot is free again"
        );
    }

    #[tokio::test(start_paused = true)]
    async fn the_ticker_stops_when_the_timer_is_gone() {
        let timer = CoarseTimer::start();
        let clock = Arc::downgrade(&timer.clock);
        drop(timer);
        tokio::time::sleep(Duration::from_secs(2)).await;
        assert!(clock.upgrade().is_none());
    }
}
