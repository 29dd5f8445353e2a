//! Integers written as floats: JSON Schema counts `5.0` and `1e3` as
//! integers (a number with a zero fraction), and Python clients send them
//! so, but serde's integer types refuse a JSON float. Before a validated
//! value is decoded into a generated type, [`integral_numbers`] rewrites
//! every float with a zero fraction that an `i64` or `u64` holds as that
//! integer, so every integer field decodes what its schema accepts.
//!
//! A number type (`f64`) decodes the integer just as well, and JSON
//! Schema compares numbers by value, so the rewrite changes no meaning:
//! `5.0` and `5` are the same instance. Floats outside the range of
//! `u64`/`i64` stay as they are: `serde_json` cannot hold them as
//! integers; the generated `i128`/`u128` fields take them directly.

use serde_json::{Number, Value};

/// Rewrites, in place, every float of `value` that has a zero fraction
/// and fits `i64` (or, when positive, `u64`) as that integer.
pub fn integral_numbers(value: &mut Value) {
    match value {
        Value::Number(n) => {
            if let Some(whole) = n.as_f64().filter(|_| n.is_f64()).and_then(whole_number) {
                *n = whole;
            }
        }
        Value::Array(items) => items.iter_mut().for_each(integral_numbers),
        Value::Object(map) => map.values_mut().for_each(integral_numbers),
        Value::Null | Value::Bool(_) | Value::String(_) => {}
    }
}

/// The integer equal to `f`, when `f` has a zero fraction and an `i64`
/// or `u64` holds it.
fn whole_number(f: f64) -> Option<Number> {
    // 2^63 and 2^64, exact in f64: the first values out of range.
    const I64_END: f64 = 9_223_372_036_854_775_808.0;
    const U64_END: f64 = 18_446_744_073_709_551_616.0;
    if !f.is_finite() || f.fract() != 0.0 {
        return None;
    }
    if (-I64_END..I64_END).contains(&f) {
        Some(Number::from(f as i64))
    } else if (0.0..U64_END).contains(&f) {
        Some(Number::from(f as u64))
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn normalised(mut v: Value) -> Value {
        integral_numbers(&mut v);
        v
    }

    #[test]
    fn whole_floats_become_integers_everywhere() {
        let v: Value = serde_json::from_str(
            r#"{"a": 5.0, "b": [1e3, -2.0, 0.5], "c": {"d": -0.0, "e": 1.5e1}}"#,
        )
        .unwrap();
        let out = normalised(v);
        assert_eq!(
            out,
            json!({"a": 5, "b": [1000, -2, 0.5], "c": {"d": 0, "e": 15}})
        );
        assert!(out["a"].is_i64() && out["b"][0].is_i64() && out["c"]["d"].is_i64());
        assert!(out["b"][2].is_f64());
    }

    /// JSON text is read exactly (serde_json's `float_roundtrip`): the
    /// default parser reads this integer-valued float one unit in the last
    /// place off, as 4419156816473006.5, and a valid integer is refused.
    #[test]
    fn integer_valued_floats_below_two_to_the_53_are_read_exactly() {
        for text in [
            "4419156816473006.0",
            "9007199254740991.0",
            "4419156816473007.0",
            "1234567890123456.0",
        ] {
            let out = normalised(serde_json::from_str(text).unwrap());
            let want: i64 = text.trim_end_matches(".0").parse().unwrap();
            assert_eq!(out.as_i64(), Some(want), "{text} read as {out}");
        }
    }

    #[test]
    fn range_edges() {
        let out = normalised(serde_json::from_str("[9.2233720368547748e18, 1.8446744073709550e19, 1.8446744073709552e19, -9.223372036854775808e18, -1e19, 1e300]").unwrap());
        assert_eq!(out[0], json!(9223372036854774784i64));
        assert_eq!(out[1], json!(18446744073709549568u64));
        assert!(out[2].is_f64(), "2^64 has no u64");
        assert_eq!(out[3], json!(i64::MIN));
        assert!(out[4].is_f64() && out[5].is_f64());
    }

    #[test]
    fn integers_and_other_values_are_left_alone() {
        let v = json!({"n": 7, "u": u64::MAX, "s": "5.0", "t": true, "z": null});
        assert_eq!(normalised(v.clone()), v);
    }
}
