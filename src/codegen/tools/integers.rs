//! The Rust integer type of an integer schema: one that holds every value
//! the schema accepts. typify types an integer schema `i64` unless its
//! bounds name a narrower type, so `{"type": "integer"}` refused 2^63 and
//! `{"minimum": 0}` (`u64`) refused 2^64, both valid.
//!
//! [`width`] reads the range a schema allows (`minimum`, `maximum`, their
//! exclusive forms, the values of `enum` and `const`, and `default`,
//! which the type must hold too) and picks:
//!
//! - [`Width::Typify`] when the range lies within `i64`: typify's own
//!   choice (`i64`, `u64`, `NonZeroU64`…) holds it;
//! - [`Width::U64`] for a range within `0..=u64::MAX`;
//! - [`Width::U128`] for a non-negative range beyond that or unbounded
//!   above (`{"minimum": 0}`), [`Width::NonZeroU128`] when it starts at 1
//!   or above;
//! - [`Width::I128`] for any other range within `i128` (an unbounded
//!   `{"type": "integer"}`);
//! - [`Width::Unrepresentable`] beyond `i128`/`u128`: `serde_json::Value`,
//!   with a warning.
//!
//! `prepare` hands the 128-bit types to typify as the marker schemas
//! [`wide_schema`] makes, which the settings map to the Rust types
//! ([`conversions`]). Values of 2^64 and above reach a decoder as JSON
//! floats; `fixup` gives the fields of these types a deserializer that
//! takes them (`wide` in the generated file).

use serde_json::{json, Map, Value};

/// What an integer schema needs from its Rust type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Width {
    /// Not an integer schema, or a range typify's choice holds.
    Typify,
    /// Non-negative, at most `u64::MAX`.
    U64,
    /// Non-negative, beyond `u64::MAX` or unbounded above.
    U128,
    /// As `U128`, and never zero.
    NonZeroU128,
    /// Negative values allowed, beyond `i64` or unbounded.
    I128,
    /// Beyond `i128` and `u128`.
    Unrepresentable,
}

/// The `format` of the marker schemas: a name no real schema uses.
const MARK: &str = "x-mcpgen-int";

/// The marker schema typify maps to the Rust type of `width` (`U128` or
/// `I128`), with `metadata` (description, title, default) kept.
pub(crate) fn wide_schema(width: Width, metadata: Map<String, Value>) -> Value {
    let mut out = metadata;
    out.insert("type".into(), "integer".into());
    out.insert(
        "format".into(),
        format!("{MARK}-{}", rust_type(width).1).into(),
    );
    Value::Object(out)
}

/// The Rust type of a wide width, and the tag of its marker.
fn rust_type(width: Width) -> (&'static str, &'static str) {
    match width {
        Width::U128 => ("u128", "u128"),
        Width::NonZeroU128 => ("::std::num::NonZeroU128", "nzu128"),
        _ => ("i128", "i128"),
    }
}

/// The typify conversions for the marker schemas: `(schema, Rust type)`.
pub(crate) fn conversions() -> Vec<(Value, &'static str)> {
    [Width::U128, Width::NonZeroU128, Width::I128]
        .into_iter()
        .map(|w| {
            let (rust, tag) = rust_type(w);
            (
                json!({"type": "integer", "format": format!("{MARK}-{tag}")}),
                rust,
            )
        })
        .collect()
}

/// The width an integer schema needs (see the module docs).
pub(crate) fn width(o: &Map<String, Value>) -> Width {
    // With `number` beside it, the type is a number's (`f64`) anyway.
    let integer = match o.get("type") {
        Some(Value::String(t)) => t == "integer",
        Some(Value::Array(ts)) => {
            ts.iter().any(|t| t == "integer") && !ts.iter().any(|t| t == "number")
        }
        _ => false,
    };
    // A default that is no integer is typify's to refuse (the schema then
    // falls back to `serde_json::Value` with a warning).
    if !integer || o.get("default").is_some_and(|d| !d.is_i64() && !d.is_u64()) {
        return Width::Typify;
    }
    let Some((lo, hi)) = range(o) else {
        return Width::Unrepresentable;
    };
    if lo >= i128::from(i64::MIN) && hi <= i128::from(i64::MAX) {
        Width::Typify
    } else if lo >= 0 && hi <= i128::from(u64::MAX) {
        Width::U64
    } else if lo >= 1 {
        Width::NonZeroU128
    } else if lo >= 0 {
        Width::U128
    } else {
        Width::I128
    }
}

/// A number as the integer bound it sets (`ceil` for a lower bound,
/// `floor` for an upper one), exact for `i64`/`u64` values; `None` beyond
/// what `i128`/`u128` hold.
fn bound(n: &Value, lower: bool) -> Option<i128> {
    if let Some(i) = n.as_i64() {
        return Some(i128::from(i));
    }
    if let Some(u) = n.as_u64() {
        return Some(i128::from(u));
    }
    let f = n.as_f64()?;
    let f = if lower { f.ceil() } else { f.floor() };
    // u128::MAX is beyond i128: saturate there, since it is still held.
    if !(-1.7e38..=3.4e38).contains(&f) {
        return None;
    }
    Some(f as i128)
}

/// The smallest and largest value the schema allows or defaults to
/// (`i128::MIN`/`i128::MAX` where unbounded), or `None` when a value lies
/// beyond `i128`/`u128`. A draft-4 boolean `exclusiveMinimum` only
/// narrows `minimum`, so it is read as `minimum`.
fn range(o: &Map<String, Value>) -> Option<(i128, i128)> {
    let mut values: Vec<&Value> = Vec::new();
    if let Some(list) = o.get("enum").and_then(Value::as_array) {
        values.extend(list.iter().filter(|v| v.is_number()));
    }
    values.extend(o.get("const").filter(|v| v.is_number()));
    let (mut lo, mut hi) = if o.contains_key("enum") || o.contains_key("const") {
        let mut lo = i128::MAX;
        let mut hi = i128::MIN;
        for v in values {
            lo = lo.min(bound(v, true)?);
            hi = hi.max(bound(v, false)?);
        }
        (lo, hi)
    } else {
        let mut lo = i128::MIN;
        let mut hi = i128::MAX;
        // An exclusive bound x allows floor(x) + 1 (or ceil(x) - 1)
        // onwards; one beyond i128 leaves that end unbounded.
        if let Some(n) = o.get("minimum").filter(|n| n.is_number()) {
            lo = lo.max(bound(n, true).unwrap_or(i128::MIN));
        }
        if let Some(n) = o.get("exclusiveMinimum").filter(|n| n.is_number()) {
            lo = lo.max(bound(n, false).map_or(i128::MIN, |b| b.saturating_add(1)));
        }
        if let Some(n) = o.get("maximum").filter(|n| n.is_number()) {
            hi = hi.min(bound(n, false).unwrap_or(i128::MAX));
        }
        if let Some(n) = o.get("exclusiveMaximum").filter(|n| n.is_number()) {
            hi = hi.min(bound(n, true).map_or(i128::MAX, |b| b.saturating_sub(1)));
        }
        (lo, hi)
    };
    if let Some(d) = o.get("default").filter(|d| d.is_number()) {
        lo = lo.min(bound(d, true)?);
        hi = hi.max(bound(d, false)?);
    }
    Some((lo, hi))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn w(v: Value) -> Width {
        width(v.as_object().unwrap())
    }

    #[test]
    fn widths_hold_every_valid_value() {
        assert_eq!(w(json!({"type": "string"})), Width::Typify);
        assert_eq!(
            w(json!({"type": "integer", "minimum": -5, "maximum": 5})),
            Width::Typify
        );
        assert_eq!(
            w(
                json!({"type": "integer", "minimum": -9007199254740991i64, "maximum": 9007199254740991i64})
            ),
            Width::Typify
        );
        assert_eq!(
            w(json!({"type": "integer", "enum": [1, 2, 3]})),
            Width::Typify
        );
        assert_eq!(
            w(json!({"type": "integer", "minimum": 0, "maximum": 18446744073709551615u64})),
            Width::U64
        );
        assert_eq!(
            w(json!({"type": "integer", "enum": [9223372036854775808u64, 1]})),
            Width::U64
        );
        assert_eq!(w(json!({"type": "integer", "minimum": 0})), Width::U128);
        assert_eq!(
            w(json!({"type": "integer", "exclusiveMinimum": 0})),
            Width::NonZeroU128
        );
        assert_eq!(
            w(json!({"type": "integer", "minimum": 1, "default": 30})),
            Width::NonZeroU128
        );
        assert_eq!(w(json!({"type": "integer"})), Width::I128);
        assert_eq!(
            w(json!({"type": ["integer", "null"], "maximum": 10})),
            Width::I128
        );
        assert_eq!(w(json!({"type": ["integer", "number"]})), Width::Typify);
        assert_eq!(
            w(json!({"type": "integer", "minimum": 0, "maximum": 5, "default": -1})),
            Width::Typify
        );
        assert_eq!(
            w(json!({"type": "integer", "const": 1e40})),
            Width::Unrepresentable
        );
        assert_eq!(w(json!({"type": "integer", "maximum": 0})), Width::I128);
    }
}
