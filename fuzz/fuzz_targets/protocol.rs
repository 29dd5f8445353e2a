//! Decoding every protocol type of every revision: whatever decodes
//! encodes to a value that decodes again to the same value.
//!
//! Input: byte 0 picks the revision, then a definition name and a newline,
//! then JSON.

#![no_main]

use libfuzzer_sys::fuzz_target;
use mcpgen_protocol_tests as p;
use serde_json::Value;

type Roundtrip = fn(&str, &Value) -> Option<Result<Value, String>>;

fn revision(i: u8) -> (&'static [&'static str], Roundtrip) {
    match i % 5 {
        0 => (p::v2024_11_05::registry::TYPES, p::v2024_11_05::registry::roundtrip),
        1 => (p::v2025_03_26::registry::TYPES, p::v2025_03_26::registry::roundtrip),
        2 => (p::v2025_06_18::registry::TYPES, p::v2025_06_18::registry::roundtrip),
        3 => (p::v2025_11_25::registry::TYPES, p::v2025_11_25::registry::roundtrip),
        _ => (p::v2026_07_28::registry::TYPES, p::v2026_07_28::registry::roundtrip),
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((&rev, rest)) = data.split_first() else { return };
    let (types, roundtrip) = revision(rev);
    let Some(newline) = rest.iter().position(|b| *b == b'\n') else { return };
    let Ok(name) = std::str::from_utf8(&rest[..newline]) else { return };
    let Some(ty) = types.iter().copied().find(|t| *t == name) else { return };
    let Ok(value) = serde_json::from_slice::<Value>(&rest[newline + 1..]) else { return };
    let Some(Ok(first)) = roundtrip(ty, &value) else { return };
    match roundtrip(ty, &first) {
        Some(Ok(second)) => assert_eq!(first, second, "{ty}: encoding is not stable"),
        other => panic!("{ty}: its own encoding does not decode: {other:?}\nfirst: {first}"),
    }
});
