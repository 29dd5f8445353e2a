//! The wall clock as the JOSE and OAuth documents count it: whole seconds
//! since the Unix epoch (`iat`, `exp`, token expiry, DPoP nonce slots,
//! `requestState` expiry).

use std::time::{SystemTime, UNIX_EPOCH};

/// Seconds since the Unix epoch; 0 on a clock set before it.
pub(crate) fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}
