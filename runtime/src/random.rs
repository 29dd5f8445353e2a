//! Unguessable bytes for ids and keys (session ids, the `requestState`
//! key, replica tags): the operating system's randomness, or, where it is
//! unavailable, a SHA-256 of what the process has (time, a counter, an
//! address, its id), still out of a client's reach.

use std::sync::atomic::{AtomicU64, Ordering};

use sha2::{Digest, Sha256};

/// Fills `bytes` with random bytes.
pub(crate) fn fill(bytes: &mut [u8]) {
    if getrandom::fill(bytes).is_ok() {
        return;
    }
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    for (i, chunk) in bytes.chunks_mut(32).enumerate() {
        let seed = format!(
            "{:?}{}{:p}{}{i}",
            std::time::SystemTime::now(),
            COUNTER.fetch_add(1, Ordering::Relaxed),
            chunk.as_ptr(),
            std::process::id()
        );
        let digest = Sha256::digest(seed.as_bytes());
        chunk.copy_from_slice(&digest[..chunk.len()]);
    }
}

/// A random 64-bit number.
pub(crate) fn u64() -> u64 {
    let mut bytes = [0u8; 8];
    fill(&mut bytes);
    u64::from_le_bytes(bytes)
}

#[cfg(test)]
mod tests {
    #[test]
    fn bytes_differ_between_calls() {
        let (mut a, mut b) = ([0u8; 40], [0u8; 40]);
        super::fill(&mut a);
        super::fill(&mut b);
        assert_ne!(a, b);
        assert_ne!(super::u64(), super::u64());
    }
}
