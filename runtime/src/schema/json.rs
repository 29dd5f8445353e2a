//! JSON as JSON Schema sees it: equality that ignores how a number is
//! written and the order of members, exact number comparison and
//! `multipleOf`, type names, and short renderings of values for messages.

use std::cmp::Ordering;
use std::fmt::Write as _;

use serde_json::{Number, Value};

/// The seven type names, in bit order.
pub(super) const TYPE_NAMES: [&str; 7] = [
    "null", "boolean", "object", "array", "number", "integer", "string",
];
pub(super) const NUMBER: u8 = 1 << 4;
pub(super) const INTEGER: u8 = 1 << 5;

/// The type bits `v` has (a whole number also has `integer`; in draft-04
/// only one written without a fraction).
pub(super) fn type_bits(v: &Value, integral_floats: bool) -> u8 {
    match v {
        Value::Null => 1,
        Value::Bool(_) => 1 << 1,
        Value::Object(_) => 1 << 2,
        Value::Array(_) => 1 << 3,
        Value::Number(n) if is_integer(n, integral_floats) => NUMBER | INTEGER,
        Value::Number(_) => NUMBER,
        Value::String(_) => 1 << 6,
    }
}

/// Whether `v` is of one of the types `bits` (a number is only asked
/// whether it is whole when `number` is not allowed but `integer` is).
pub(super) fn has_type(v: &Value, bits: u8, integral_floats: bool) -> bool {
    match v {
        Value::Number(n) => {
            bits & NUMBER != 0 || (bits & INTEGER != 0 && is_integer(n, integral_floats))
        }
        _ => type_bits(v, integral_floats) & bits != 0,
    }
}

// Out of line: inlined, the compiler hoists its float rounding out of
// every keyword loop, for values that are not even numbers.
#[inline(never)]
fn is_integer(n: &Number, integral_floats: bool) -> bool {
    match n.as_f64() {
        _ if n.is_i64() || n.is_u64() => true,
        Some(f) => integral_floats && f.is_finite() && f.fract() == 0.0,
        None => false,
    }
}

/// The names of the type bits, quoted and joined (`"string" or "null"`).
pub(super) fn type_list(bits: u8) -> String {
    let names: Vec<String> = TYPE_NAMES
        .iter()
        .enumerate()
        .filter(|(i, _)| bits & (1 << i) != 0)
        .map(|(_, n)| format!("\"{n}\""))
        .collect();
    names.join(" or ")
}

/// Whether two strings are equal; short ones are compared in a few loads
/// instead of a call to `memcmp` (member names and enum values are short).
#[inline]
pub(super) fn same(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    let n = a.len();
    if n != b.len() {
        return false;
    }
    let word = |s: &[u8], at: usize| u64::from_le_bytes(s[at..at + 8].try_into().expect("8 bytes"));
    let half = |s: &[u8], at: usize| u32::from_le_bytes(s[at..at + 4].try_into().expect("4 bytes"));
    match n {
        0..=3 => a == b,
        4..=7 => half(a, 0) == half(b, 0) && half(a, n - 4) == half(b, n - 4),
        8..=16 => word(a, 0) == word(b, 0) && word(a, n - 8) == word(b, n - 8),
        _ => a == b,
    }
}

/// JSON Schema equality: numbers by value, objects regardless of order.
pub(super) fn equal(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => compare(x, y) == Some(Ordering::Equal),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| equal(p, q))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, p)| y.get(k).is_some_and(|q| equal(p, q)))
        }
        _ => a == b,
    }
}

/// Exact comparison of two numbers (`None` only for NaN, which JSON lacks).
pub(super) fn compare(a: &Number, b: &Number) -> Option<Ordering> {
    match (integer(a), integer(b)) {
        (Some(x), Some(y)) => Some(x.cmp(&y)),
        (Some(x), None) => compare_int_float(x, b.as_f64()?),
        (None, Some(y)) => compare_int_float(y, a.as_f64()?).map(Ordering::reverse),
        (None, None) => a.as_f64()?.partial_cmp(&b.as_f64()?),
    }
}

fn integer(n: &Number) -> Option<i128> {
    n.as_i64()
        .map(i128::from)
        .or_else(|| n.as_u64().map(i128::from))
}

fn compare_int_float(i: i128, f: f64) -> Option<Ordering> {
    if f.is_nan() {
        return None;
    }
    // Beyond ±2^100 the float decides; inside, its floor is exact.
    if f >= 1e30 {
        return Some(Ordering::Less);
    }
    if f <= -1e30 {
        return Some(Ordering::Greater);
    }
    let floor = f.floor();
    match i.cmp(&(floor as i128)) {
        Ordering::Equal if f > floor => Some(Ordering::Less),
        other => Some(other),
    }
}

/// Whether `v` is a whole multiple of `m` (`m` > 0), exactly in decimal:
/// 0.0075 is a multiple of 0.0001 although the floats' quotient is not whole.
pub(super) fn is_multiple(v: &Number, m: &Number) -> bool {
    if let (Some(x), Some(y)) = (integer(v), integer(m)) {
        return y != 0 && x % y == 0;
    }
    if let (Some((xm, xe)), Some((ym, ye))) = (decimal(v), decimal(m)) {
        if ym == 0 {
            return false;
        }
        // Bring both to the smaller exponent; give up to floats on overflow.
        let e = xe.min(ye);
        let scale = |mant: i128, exp: i32| {
            10i128
                .checked_pow((exp - e) as u32)
                .and_then(|p| mant.checked_mul(p))
        };
        if let (Some(a), Some(b)) = (scale(xm, xe), scale(ym, ye)) {
            return a % b == 0;
        }
    }
    match (v.as_f64(), m.as_f64()) {
        (Some(x), Some(y)) if y != 0.0 => {
            let q = x / y;
            q.is_finite() && q.fract() == 0.0
        }
        _ => false,
    }
}

/// A number as mantissa × 10^exponent, from its shortest decimal text.
fn decimal(n: &Number) -> Option<(i128, i32)> {
    let text = n.to_string();
    let (digits, exp) = match text.find(['e', 'E']) {
        Some(at) => (&text[..at], text[at + 1..].parse::<i32>().ok()?),
        None => (text.as_str(), 0),
    };
    let (whole, frac) = digits.split_once('.').unwrap_or((digits, ""));
    if whole.len() + frac.len() > 36 {
        return None;
    }
    let mantissa: i128 = format!("{whole}{frac}").parse().ok()?;
    Some((mantissa, exp.checked_sub(frac.len() as i32)?))
}

/// `v` as compact JSON, cut to about 60 characters, for a message; written
/// straight into the message (no text of its own).
pub(super) fn show(v: &Value) -> Shown<'_> {
    Shown(Text::Value(v))
}

/// `s` as a JSON string, cut like [`show`].
pub(super) fn show_str(s: &str) -> Shown<'_> {
    Shown(Text::Str(s))
}

/// `values` as a JSON array, cut like [`show`].
pub(super) fn show_list(values: &[Value]) -> Shown<'_> {
    Shown(Text::List(values))
}

/// A value as a message shows it (see [`show`]).
pub(super) struct Shown<'a>(Text<'a>);

enum Text<'a> {
    Value(&'a Value),
    Str(&'a str),
    List(&'a [Value]),
}

/// Passes at most `left` bytes on (cut at a character boundary).
struct Limited<'a, 'b> {
    f: &'a mut std::fmt::Formatter<'b>,
    left: usize,
    cut: bool,
}

impl std::fmt::Write for Limited<'_, '_> {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        if self.cut {
            return Ok(());
        }
        if s.len() <= self.left {
            self.left -= s.len();
            return self.f.write_str(s);
        }
        let mut end = self.left;
        while !s.is_char_boundary(end) {
            end -= 1;
        }
        self.cut = true;
        self.f.write_str(&s[..end])
    }
}

fn write_value(w: &mut Limited<'_, '_>, v: &Value) -> std::fmt::Result {
    match v {
        Value::String(s) => write_string(w, s),
        Value::Number(n) => write!(w, "{n}"),
        other => write!(w, "{other}"),
    }
}

fn write_string(w: &mut Limited<'_, '_>, s: &str) -> std::fmt::Result {
    use std::fmt::Write as _;
    w.write_char('"')?;
    // Runs of bytes that need no escape are written at once; every byte
    // that does is ASCII, so the cuts fall on character boundaries.
    let mut plain = 0;
    for (i, b) in s.bytes().enumerate() {
        let escaped = match b {
            b'"' => "\\\"",
            b'\\' => "\\\\",
            b'\n' => "\\n",
            b'\r' => "\\r",
            b'\t' => "\\t",
            0..=0x1f => "",
            _ => continue,
        };
        w.write_str(&s[plain..i])?;
        if escaped.is_empty() {
            write!(w, "\\u{b:04x}")?;
        } else {
            w.write_str(escaped)?;
        }
        plain = i + 1;
        if w.cut {
            return Ok(());
        }
    }
    w.write_str(&s[plain..])?;
    w.write_char('"')
}

impl std::fmt::Display for Shown<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut w = Limited {
            f,
            left: 60,
            cut: false,
        };
        match self.0 {
            Text::Value(v) => write_value(&mut w, v)?,
            Text::Str(s) => write_string(&mut w, s)?,
            Text::List(values) => {
                use std::fmt::Write as _;
                w.write_char('[')?;
                for (i, v) in values.iter().enumerate() {
                    if i > 0 {
                        w.write_char(',')?;
                    }
                    write_value(&mut w, v)?;
                }
                w.write_char(']')?;
            }
        }
        if w.cut {
            w.f.write_str("…")?;
        }
        Ok(())
    }
}

/// Appends `/token` to a JSON pointer, escaping `~` and `/`.
pub(super) fn push_token(pointer: &mut String, token: &str) {
    pointer.push('/');
    if !token.contains(['~', '/']) {
        pointer.push_str(token);
        return;
    }
    for c in token.chars() {
        match c {
            '~' => pointer.push_str("~0"),
            '/' => pointer.push_str("~1"),
            c => pointer.push(c),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn num(v: Value) -> Number {
        match v {
            Value::Number(n) => n,
            _ => unreachable!(),
        }
    }

    #[test]
    fn numbers_compare_exactly_across_representations() {
        assert_eq!(
            compare(&num(json!(1)), &num(json!(1.0))),
            Some(Ordering::Equal)
        );
        assert_eq!(
            compare(&num(json!(2)), &num(json!(1.5))),
            Some(Ordering::Greater)
        );
        assert_eq!(
            compare(&num(json!(-2)), &num(json!(-1.5))),
            Some(Ordering::Less)
        );
        assert_eq!(
            compare(&num(json!(u64::MAX)), &num(json!(i64::MIN))),
            Some(Ordering::Greater)
        );
        assert_eq!(
            compare(
                &num(json!(9007199254740993u64)),
                &num(json!(9007199254740992.0))
            ),
            Some(Ordering::Greater)
        );
        assert!(equal(&json!({"a": [1, 2.0]}), &json!({"a": [1.0, 2]})));
        assert!(!equal(&json!([1, 2]), &json!([2, 1])));
    }

    #[test]
    fn multiples_are_decimal() {
        assert!(is_multiple(&num(json!(0.0075)), &num(json!(0.0001))));
        assert!(is_multiple(&num(json!(4.5)), &num(json!(1.5))));
        assert!(!is_multiple(&num(json!(0.00751)), &num(json!(0.0001))));
        assert!(is_multiple(&num(json!(10)), &num(json!(2))));
        assert!(!is_multiple(&num(json!(7)), &num(json!(2))));
        assert!(!is_multiple(&num(json!(1e308)), &num(json!(0.123456789))));
    }
}
