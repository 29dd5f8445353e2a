//! Opaque pagination cursors for `tools/list`.
//!
//! A cursor is the offset of the next page, tagged and encoded as unpadded
//! base64url so clients treat it as opaque. Anything that does not decode to
//! a tagged offset within the list is rejected (the caller answers `-32602`).

use crate::base64url;

const TAG: &str = "mcpgen:v1:";

/// The cursor of the page starting at `offset`.
pub(crate) fn encode(offset: usize) -> String {
    base64url::encode(format!("{TAG}{offset}").as_bytes())
}

/// The offset a cursor stands for, if it is one of ours and at most `len`.
pub(crate) fn decode(cursor: &str, len: usize) -> Option<usize> {
    let bytes = base64url::decode(cursor)?;
    let text = std::str::from_utf8(&bytes).ok()?;
    let digits = text.strip_prefix(TAG)?;
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let offset: usize = digits.parse().ok()?;
    (offset <= len).then_some(offset)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip() {
        for offset in [0, 1, 2, 49, 50, 117, 100_000] {
            let c = encode(offset);
            assert!(
                c.bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_'),
                "{c}"
            );
            assert_eq!(decode(&c, 200_000), Some(offset));
        }
    }

    #[test]
    fn foreign_or_out_of_range_cursors_are_rejected() {
        assert_eq!(decode(&encode(10), 5), None);
        assert_eq!(decode("", 5), None);
        assert_eq!(decode("not a cursor!", 5), None);
        assert_eq!(decode("bWNwZ2Vu", 5), None); // "mcpgen" without an offset
        assert_eq!(decode(&base64url::encode(b"mcpgen:v1:-1"), 5), None);
        assert_eq!(decode(&base64url::encode(b"mcpgen:v1:+1"), 5), None);
        assert_eq!(decode("A", 5), None);
    }
}
