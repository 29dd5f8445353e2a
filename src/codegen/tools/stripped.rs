//! The JSON Schema keywords `prepare` removes before typify sees a schema,
//! which `cycles` also looks through when it tells a bare `$ref` apart.

/// Keywords removed before typify sees a schema (see `prepare`'s module docs).
pub(crate) const STRIPPED: &[&str] = &[
    "$schema",
    "$id",
    "$anchor",
    "$comment",
    "$defs",
    "definitions",
    "format",
    "pattern",
    "patternProperties",
    "x-rust-type",
    "if",
    "then",
    "else",
];
