//! Manifest loading (JSON and YAML) and `manifest check`: any text gives a
//! manifest or errors, never a panic, a hang or unbounded memory.
//!
//! Byte 0 picks the format, the rest is the text.

#![no_main]

use libfuzzer_sys::fuzz_target;
use mcpgen::check::check_text;
use mcpgen::manifest::Manifest;

fuzz_target!(|data: &[u8]| {
    let Some((&format, rest)) = data.split_first() else { return };
    let Ok(text) = std::str::from_utf8(rest) else { return };
    let name = if format % 2 == 0 { "fuzz.json" } else { "fuzz.yaml" };
    let _ = Manifest::from_str(text, name);
    let revision = if format & 2 == 0 { "2025-06-18" } else { "2026-07-28" };
    let _ = check_text(text, name, revision);
});
