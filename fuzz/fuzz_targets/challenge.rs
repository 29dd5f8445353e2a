//! `WWW-Authenticate` challenges as the OAuth client reads them from a
//! `401`/`403`: any header text gives a challenge, never a panic; the
//! `Bearer` challenge's parameters come back as given, and a header that
//! is repeated after a non-Bearer one reads the same.
//!
//! Input: header values, one per line.

#![no_main]

use libfuzzer_sys::fuzz_target;
use mcpgen_runtime::client::oauth::Challenge;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let headers: Vec<&str> = text.split('\n').collect();
    let challenge = Challenge::parse(headers.iter().copied());
    let _ = challenge.insufficient_scope();
    if let Some(scope) = &challenge.scope {
        assert!(scope.iter().all(|s| !s.is_empty() && !s.contains(' ')), "{scope:?}");
    }
    // A challenge of another scheme in its own header changes nothing.
    let mut more = vec!["Basic realm=\"x\""];
    more.extend(headers.iter().copied());
    assert_eq!(Challenge::parse(more), challenge, "{text:?}");
});
