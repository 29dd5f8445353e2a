//! The HTTP client's Server-Sent Events parser on any stream a server may
//! send: never a panic, and the same events, `id` and `retry` however the
//! stream is split into chunks (a body arrives in whatever pieces the
//! network makes), whenever no event passes the size limit.
//!
//! Input: byte 0 sets the limit and the chunk size; the rest is the stream.

#![no_main]

use libfuzzer_sys::fuzz_target;
use mcpgen_runtime::fuzzing::sse;

fuzz_target!(|data: &[u8]| {
    let Some((&k, stream)) = data.split_first() else { return };
    let max = 16 + usize::from(k) * 8;
    let step = usize::from(k % 13) + 1;
    let whole = sse(&[stream], max);
    let pieces: Vec<&[u8]> = stream.chunks(step).collect();
    let split = sse(&pieces, max);
    let bytes: Vec<&[u8]> = stream.chunks(1).collect();
    let single = sse(&bytes, max);
    if let (Some(a), Some(b), Some(c)) = (&whole, &split, &single) {
        assert_eq!(a, b, "whole stream against {step}-byte chunks");
        assert_eq!(a, c, "whole stream against single bytes");
    }
});
