//! Integers beyond `i64`: typify types an integer schema `i64` unless its
//! bounds say otherwise, so `enum: [9223372036854775808]` became an
//! overflowing literal and a default of `u64::MAX` a panic at run time.
//! [`big_integers`] says what the values an integer schema names (`enum`,
//! `const`, `default`) need: `i64` ([`BigIntegers::Fit`]), `u64` when none
//! may be negative ([`BigIntegers::Unsigned`]; `prepare` then gives typify
//! the bound that picks it), or no integer type at all
//! ([`BigIntegers::Unrepresentable`]: the schema becomes
//! `serde_json::Value`, with a warning).

use serde_json::{Map, Value};

/// What an integer schema's values need from its Rust type.
#[derive(Debug, PartialEq, Eq)]
pub enum BigIntegers {
    /// `i64` holds them (or it is not an integer schema).
    Fit,
    /// Some are beyond `i64::MAX`, none is negative: `u64`.
    Unsigned,
    /// Some are beyond `i64::MAX`, some may be negative: no integer type.
    Unrepresentable(&'static str),
}

/// Whether the values an integer schema names (`enum`, `const`,
/// `default`) fit `i64`, as declared.
pub fn big_integers(o: &Map<String, Value>) -> BigIntegers {
    let integer = match o.get("type") {
        Some(Value::String(t)) => t == "integer",
        Some(Value::Array(ts)) => ts.iter().any(|t| t == "integer"),
        _ => false,
    };
    if !integer {
        return BigIntegers::Fit;
    }
    let mut values: Vec<&serde_json::Number> = Vec::new();
    for k in ["enum", "const", "default"] {
        match o.get(k) {
            Some(Value::Number(n)) => values.push(n),
            Some(Value::Array(list)) if k == "enum" => values.extend(list.iter().filter_map(|v| match v {
                Value::Number(n) => Some(n),
                _ => None,
            })),
            _ => {}
        }
    }
    if !values.iter().any(|n| n.is_u64() && !n.is_i64()) {
        return BigIntegers::Fit;
    }
    let bound = |k: &str, floor: f64| o.get(k).and_then(Value::as_f64).is_some_and(|m| m >= floor);
    let listed = o.get("enum").and_then(Value::as_array).map(|l| l.iter().all(|v| v.as_f64().is_some_and(|f| f >= 0.0)));
    let never_negative = bound("minimum", 0.0)
        || bound("exclusiveMinimum", -1.0)
        || listed == Some(true)
        || (listed.is_none() && o.get("const").and_then(Value::as_f64).is_some_and(|f| f >= 0.0));
    if never_negative {
        BigIntegers::Unsigned
    } else {
        BigIntegers::Unrepresentable(
            "its values go beyond `i64::MAX` and below zero, which no Rust integer type holds, so it is typed as `serde_json::Value`",
        )
    }
}
