//! Unguessable bytes for ids and keys (session ids, the `requestState`
//! key, replica tags, the starting points of request ids): the operating
//! system's randomness through `getrandom`, and nothing else. When the
//! source fails the caller fails too (a server refuses to start, a session
//! is not opened) instead of falling back to something a client could
//! guess, such as the time or the process id.

/// The operating system's random source failed.
#[derive(Debug, Clone, Copy)]
pub(crate) struct RandomError(getrandom::Error);

impl std::fmt::Display for RandomError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "the operating system's random source failed ({}); session ids and the request-state key \
             must be unguessable, so mcpgen does not fall back to anything else: check that \
             getrandom(2) or /dev/urandom is available to the process (seccomp, chroot, container)",
            self.0
        )
    }
}

impl std::error::Error for RandomError {}

/// Fills `bytes` with random bytes from the operating system.
pub(crate) fn fill(bytes: &mut [u8]) -> Result<(), RandomError> {
    #[cfg(test)]
    if fail::active() {
        return Err(RandomError(getrandom::Error::UNSUPPORTED));
    }
    getrandom::fill(bytes).map_err(RandomError)
}

/// A random 64-bit number.
pub(crate) fn u64() -> Result<u64, RandomError> {
    let mut bytes = [0u8; 8];
    fill(&mut bytes)?;
    Ok(u64::from_le_bytes(bytes))
}

/// Tests make the source fail on their own thread, to check that every
/// caller fails closed.
#[cfg(test)]
pub(crate) mod fail {
    use std::cell::Cell;

    thread_local! {
        static FAILING: Cell<bool> = const { Cell::new(false) };
    }

    pub(super) fn active() -> bool {
        FAILING.with(Cell::get)
    }

    /// Runs `f` with the random source failing on this thread.
    pub(crate) fn with_failing_source<T>(f: impl FnOnce() -> T) -> T {
        struct Reset;
        impl Drop for Reset {
            fn drop(&mut self) {
                FAILING.with(|c| c.set(false));
            }
        }
        FAILING.with(|c| c.set(true));
        let _reset = Reset;
        f()
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn bytes_differ_between_calls() {
        let (mut a, mut b) = ([0u8; 40], [0u8; 40]);
        super::fill(&mut a).unwrap();
        super::fill(&mut b).unwrap();
        assert_ne!(a, b);
        assert_ne!(super::u64().unwrap(), super::u64().unwrap());
    }

    #[test]
    fn a_failing_source_is_an_error_not_a_fallback() {
        let mut bytes = [0u8; 16];
        let err = super::fail::with_failing_source(|| super::fill(&mut bytes)).unwrap_err();
        assert_eq!(bytes, [0u8; 16], "nothing is written when the source fails");
        let message = err.to_string();
        assert!(message.contains("random source failed"), "{message}");
        assert!(message.contains("does not fall back"), "{message}");
        assert!(
            super::u64().is_ok(),
            "the source works again outside the closure"
        );
    }
}
