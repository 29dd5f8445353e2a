//! Trying a descriptor for a short while before sleeping on it.
//!
//! A client that sends its next request as soon as it has the last answer
//! finds a server that slept in epoll asleep: on a virtual machine, waking
//! a halted vCPU costs tens of microseconds, more than a whole call. So the
//! stdio reader keeps trying its input for a short budget before it sleeps
//! (how it tries, giving way to other processes and tasks, is the
//! reader's business). When input comes further apart than the budget,
//! trying stops and the reader sleeps at once, until input comes close
//! together again: an idle or slow client costs nothing.

// Only the Unix stdio reader tries its input.
#![cfg_attr(not(unix), allow(dead_code))]

use std::time::{Duration, Instant};

/// How long a reader keeps trying its input before it sleeps, by default.
pub const DEFAULT_SPIN: Duration = Duration::from_micros(50);

/// When to keep trying an input, and whether it pays.
#[derive(Debug)]
pub(crate) struct Spin {
    budget: Duration,
    /// The last input came within `budget` of when the reader began to wait
    /// for it, so trying would have found it.
    pays: bool,
    /// When the current wait began.
    began: Option<Instant>,
}

impl Spin {
    pub(crate) fn new(budget: Duration) -> Self {
        Self {
            budget,
            pays: true,
            began: None,
        }
    }

    /// The input is not ready: until when to keep trying it, for the wait
    /// this begins or continues; `None` sleeps at once.
    pub(crate) fn wait(&mut self) -> Option<Instant> {
        if self.budget.is_zero() {
            return None;
        }
        let began = *self.began.get_or_insert_with(Instant::now);
        self.pays.then(|| began + self.budget)
    }

    /// Input came while the reader was trying (so within the budget).
    pub(crate) fn caught(&mut self) {
        self.began = None;
    }

    /// Input came: records whether it came soon enough for trying to pay.
    pub(crate) fn arrived(&mut self) {
        if let Some(began) = self.began.take() {
            self.pays = began.elapsed() <= self.budget;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn wait_of(spin: &mut Spin, waited: Duration) -> bool {
        let tries = spin.wait().is_some();
        spin.began = spin.began.map(|b| b.checked_sub(waited).unwrap_or(b));
        spin.arrived();
        tries
    }

    #[test]
    fn a_reader_tries_its_input_only_while_input_comes_within_the_budget() {
        let mut spin = Spin::new(Duration::from_micros(50));
        assert!(
            wait_of(&mut spin, Duration::from_millis(2)),
            "it tries from the start"
        );
        assert!(
            !wait_of(&mut spin, Duration::from_millis(1)),
            "a client pausing between calls costs no trying"
        );
        assert!(
            !wait_of(&mut spin, Duration::from_micros(30)),
            "still none for the first quick one"
        );
        assert!(
            wait_of(&mut spin, Duration::ZERO),
            "calls close together again: it tries again"
        );
        assert!(spin.wait().is_some());
        spin.caught();
        assert!(
            spin.wait().is_some(),
            "input caught while trying: it keeps trying"
        );
        let mut off = Spin::new(Duration::ZERO);
        assert!(off.wait().is_none(), "a zero budget never tries");
        off.arrived();
        assert!(off.wait().is_none());
    }

    #[test]
    fn one_wait_keeps_its_deadline_however_often_it_is_polled() {
        let mut spin = Spin::new(Duration::from_micros(50));
        let first = spin.wait().unwrap();
        assert_eq!(spin.wait(), Some(first));
        spin.arrived();
        assert!(spin.began.is_none());
    }
}
