//! Messages written as text: responses (from a value or from the result's
//! JSON text), error responses, notifications and requests, and the pieces
//! the engines write replies with straight into one buffer (the response
//! head, JSON strings escaped exactly as `serde_json` escapes them, digits).

#![allow(
    unsafe_code,
    reason = "JSON string escaping writes ASCII around UTF-8 pieces straight into a String's bytes, one pass \
              on the reply path of every call (no second UTF-8 check)"
)]

use serde_json::Value;

use super::{RpcError, STRING_STOP};

/// Compact JSON text of a value. Writes through `serde_json`'s byte
/// writer, which is much faster than `Display` (`to_string()`), whose
/// output goes through `fmt::Write` one piece at a time.
pub fn json_text(value: &Value) -> String {
    // Serializing a `Value` cannot fail (its map keys are strings).
    serde_json::to_string(value).unwrap_or_default()
}

/// Appends the compact JSON text of `value`.
pub(crate) fn push_json(out: &mut Vec<u8>, value: &Value) {
    // Writing a `Value` into a `Vec` cannot fail (its map keys are strings).
    let _ = serde_json::to_writer(&mut *out, value);
}

/// Appends `s` as a JSON string, quoted and escaped exactly as
/// `serde_json` writes it (`\"`, `\\`, `\b`, `\t`, `\n`, `\f`, `\r`,
/// `\u00xx` for other control characters; everything else as is).
pub(crate) fn push_json_str(out: &mut Vec<u8>, s: &str) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let mut rest = s.as_bytes();
    out.reserve(rest.len() + 2);
    out.push(b'"');
    while let Some(at) = first_escaped(rest) {
        out.extend_from_slice(&rest[..at]);
        let b = rest[at];
        match b {
            b'"' => out.extend_from_slice(b"\\\""),
            b'\\' => out.extend_from_slice(b"\\\\"),
            0x08 => out.extend_from_slice(b"\\b"),
            0x09 => out.extend_from_slice(b"\\t"),
            0x0a => out.extend_from_slice(b"\\n"),
            0x0c => out.extend_from_slice(b"\\f"),
            0x0d => out.extend_from_slice(b"\\r"),
            _ => out.extend_from_slice(&[
                b'\\',
                b'u',
                b'0',
                b'0',
                HEX[usize::from(b >> 4)],
                HEX[usize::from(b & 0xf)],
            ]),
        }
        rest = &rest[at + 1..];
    }
    out.extend_from_slice(rest);
    out.push(b'"');
}

/// The index of the first byte of `bytes` that ends a plain string
/// ([`STRING_STOP`]). Eight bytes at a time while none of them can be one
/// (no control byte, `"` or `\`), then byte by byte: long texts without
/// escapes are skipped cheaply.
fn first_escaped(bytes: &[u8]) -> Option<usize> {
    const ONES: u64 = u64::from_ne_bytes([0x01; 8]);
    const HIGH: u64 = u64::from_ne_bytes([0x80; 8]);
    let mut at = 0;
    while let Some(chunk) = bytes.get(at..at + 8) {
        let word = u64::from_ne_bytes([
            chunk[0], chunk[1], chunk[2], chunk[3], chunk[4], chunk[5], chunk[6], chunk[7],
        ]);
        // A byte below 0x20 or equal to 0x22 or 0x5c makes the matching
        // test non-zero (it may also flag bytes after it: only a hint).
        let control = word.wrapping_sub(ONES * 0x20) & !word;
        let quote = (word ^ (ONES * 0x22)).wrapping_sub(ONES) & !(word ^ (ONES * 0x22));
        let backslash = (word ^ (ONES * 0x5c)).wrapping_sub(ONES) & !(word ^ (ONES * 0x5c));
        if (control | quote | backslash) & HIGH != 0 {
            break;
        }
        at += 8;
    }
    bytes[at..]
        .iter()
        .position(|&b| STRING_STOP[usize::from(b)])
        .map(|i| at + i)
}

/// [`push_json_str`] into a `String`.
pub(crate) fn push_json_string(out: &mut String, s: &str) {
    // SAFETY: `push_json_str` appends `s` (UTF-8) cut only before ASCII
    // bytes, with ASCII quotes and escapes around and between the pieces.
    push_json_str(unsafe { out.as_mut_vec() }, s);
}

/// Appends the decimal digits of `n`.
pub(crate) fn push_digits(out: &mut String, mut n: u64) {
    if n < 10 {
        out.push(char::from(b'0' + n as u8));
        return;
    }
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    while n > 0 {
        at -= 1;
        digits[at] = b'0' + (n % 10) as u8;
        n /= 10;
    }
    for &d in &digits[at..] {
        out.push(char::from(d));
    }
}

/// `{"jsonrpc":"2.0","id":ID` as text, with room for `more` bytes.
pub(crate) fn response_head_text(id: &Value, more: usize) -> String {
    let mut out = String::with_capacity(40 + more);
    out.push_str("{\"jsonrpc\":\"2.0\",\"id\":");
    match id {
        Value::Number(n) if n.as_u64().is_some() => {
            push_digits(&mut out, n.as_u64().unwrap_or_default())
        }
        Value::Number(n) if n.as_i64().is_some() => {
            let i = n.as_i64().unwrap_or_default();
            out.push('-');
            push_digits(&mut out, i.unsigned_abs());
        }
        Value::String(s) => push_json_string(&mut out, s),
        other => out.push_str(&json_text(other)),
    }
    out
}

/// The text of bytes written by the functions above (always UTF-8: every
/// piece is a `&str` or `serde_json` output).
pub(crate) fn into_text(bytes: Vec<u8>) -> String {
    String::from_utf8(bytes).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

/// `{"jsonrpc":"2.0","id":ID` with room for `more` bytes.
pub(crate) fn response_head(id: &Value, more: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(40 + more);
    out.extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"id\":");
    push_json(&mut out, id);
    out
}

/// A success response as text.
pub fn response(id: &Value, result: &Value) -> String {
    let mut out = response_head(id, 128);
    out.extend_from_slice(b",\"result\":");
    push_json(&mut out, result);
    out.push(b'}');
    into_text(out)
}

/// A success response as text, from the result's JSON text.
pub fn response_raw(id: &Value, result_json: &str) -> String {
    let mut out = response_head(id, result_json.len() + 12);
    out.extend_from_slice(b",\"result\":");
    out.extend_from_slice(result_json.as_bytes());
    out.push(b'}');
    into_text(out)
}

/// An error response as text.
pub fn error_response(id: &Value, error: &RpcError) -> String {
    let mut out = response_head(id, error.message.len() + 64);
    out.extend_from_slice(b",\"error\":{\"code\":");
    push_json(&mut out, &Value::from(error.code));
    out.extend_from_slice(b",\"message\":");
    push_json_str(&mut out, &error.message);
    if let Some(data) = &error.data {
        out.extend_from_slice(b",\"data\":");
        push_json(&mut out, data);
    }
    out.extend_from_slice(b"}}");
    into_text(out)
}

/// A notification as text.
pub fn notification(method: &str, params: &Value) -> String {
    let mut out = Vec::with_capacity(128);
    out.extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"method\":");
    push_json_str(&mut out, method);
    out.extend_from_slice(b",\"params\":");
    push_json(&mut out, params);
    out.push(b'}');
    into_text(out)
}

/// A request as text (used by clients and tests).
pub fn request(id: &Value, method: &str, params: &Value) -> String {
    let mut out = response_head(id, 128);
    out.extend_from_slice(b",\"method\":");
    push_json_str(&mut out, method);
    out.extend_from_slice(b",\"params\":");
    push_json(&mut out, params);
    out.push(b'}');
    into_text(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn strings_are_escaped_as_serde_json_does() {
        for s in [
            "",
            "plain",
            "q\"b\\s",
            "\u{0}\u{8}\t\n\u{b}\u{c}\r\u{1f}\u{7f}",
            "é😀/",
        ] {
            let mut out = Vec::new();
            push_json_str(&mut out, s);
            assert_eq!(
                String::from_utf8(out).unwrap(),
                serde_json::to_string(s).unwrap()
            );
        }
        for s in [
            "",
            "plain",
            "q\"b\\s",
            "\u{0}\u{8}\t\n\u{b}\u{c}\r\u{1f}\u{7f}",
            "é😀/",
        ] {
            let mut out = String::new();
            push_json_string(&mut out, s);
            assert_eq!(out, serde_json::to_string(s).unwrap());
        }
        // Long texts are scanned eight bytes at a time: every byte that
        // needs escaping (and some that do not) at every offset of a word.
        for special in (0u8..0x20).chain([b'"', b'\\', b'!', b'#', b'[', b']', 0x7f]) {
            for at in 0..24 {
                let mut text = "abcdéfgh".repeat(3);
                if !text.is_char_boundary(at) {
                    continue;
                }
                text.insert(at, char::from(special));
                let mut out = Vec::new();
                push_json_str(&mut out, &text);
                assert_eq!(
                    String::from_utf8(out).unwrap(),
                    serde_json::to_string(&text).unwrap(),
                    "{text:?}"
                );
            }
        }
        for id in [
            json!(0),
            json!(7),
            json!(u64::MAX),
            json!(-1),
            json!(i64::MIN),
            json!("a\"b"),
            json!(1.5),
            json!(null),
        ] {
            let mut head = String::from_utf8(response_head(&id, 0)).unwrap();
            head.push('}');
            let mut text = response_head_text(&id, 0);
            text.push('}');
            assert_eq!(text, head);
        }
        let e = RpcError::new(-1, "a \"b\"").with_data(json!({"x": [1]}));
        assert_eq!(
            error_response(&json!(1), &e),
            format!(
                "{{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{}}}",
                json_text(&e.to_value())
            )
        );
    }
}
