//! The generated protocol types of every pinned revision, compiled with
//! warnings denied. Each module also carries a test-only `registry` of
//! look-ups by name used by the round-trip tests.
#![deny(warnings)]

macro_rules! revision {
    ($module:ident, $file:literal) => {
        #[allow(missing_docs)]
        pub mod $module {
            include!(concat!(env!("OUT_DIR"), "/", $file));
        }
    };
}

revision!(v2024_11_05, "2024-11-05.rs");
revision!(v2025_03_26, "2025-03-26.rs");
revision!(v2025_06_18, "2025-06-18.rs");
revision!(v2025_11_25, "2025-11-25.rs");
revision!(v2026_07_28, "2026-07-28.rs");
