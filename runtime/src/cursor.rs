//! Opaque pagination cursors for `tools/list`.
//!
//! A cursor is the offset of the next page, tagged and encoded as unpadded
//! base64url so clients treat it as opaque. Anything that does not decode to
//! a tagged offset within the list is rejected (the caller answers `-32602`).

const TAG: &str = "mcpgen:v1:";
const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/// The cursor of the page starting at `offset`.
pub fn encode(offset: usize) -> String {
    base64url(format!("{TAG}{offset}").as_bytes())
}

/// The offset a cursor stands for, if it is one of ours and at most `len`.
pub fn decode(cursor: &str, len: usize) -> Option<usize> {
    let bytes = unbase64url(cursor)?;
    let text = std::str::from_utf8(&bytes).ok()?;
    let digits = text.strip_prefix(TAG)?;
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let offset: usize = digits.parse().ok()?;
    (offset <= len).then_some(offset)
}

fn base64url(input: &[u8]) -> String {
    let mut out = String::with_capacity(input.len().div_ceil(3) * 4);
    for chunk in input.chunks(3) {
        let b = [chunk[0], *chunk.get(1).unwrap_or(&0), *chunk.get(2).unwrap_or(&0)];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        let chars = chunk.len() + 1;
        for i in 0..chars {
            out.push(ALPHABET[((n >> (18 - 6 * i)) & 63) as usize] as char);
        }
    }
    out
}

fn unbase64url(input: &str) -> Option<Vec<u8>> {
    if input.len() % 4 == 1 {
        return None;
    }
    let mut out = Vec::with_capacity(input.len() * 3 / 4);
    for chunk in input.as_bytes().chunks(4) {
        let mut n: u32 = 0;
        for (i, &c) in chunk.iter().enumerate() {
            let v = ALPHABET.iter().position(|&a| a == c)? as u32;
            n |= v << (18 - 6 * i);
        }
        let bytes = [(n >> 16) as u8, (n >> 8) as u8, n as u8];
        out.extend_from_slice(&bytes[..chunk.len() - 1]);
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip() {
        for offset in [0, 1, 2, 49, 50, 117, 100_000] {
            let c = encode(offset);
            assert!(c.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_'), "{c}");
            assert_eq!(decode(&c, 200_000), Some(offset));
        }
    }

    #[test]
    fn foreign_or_out_of_range_cursors_are_rejected() {
        assert_eq!(decode(&encode(10), 5), None);
        assert_eq!(decode("", 5), None);
        assert_eq!(decode("not a cursor!", 5), None);
        assert_eq!(decode("bWNwZ2Vu", 5), None); // "mcpgen" without an offset
        assert_eq!(decode(&base64url(b"mcpgen:v1:-1"), 5), None);
        assert_eq!(decode(&base64url(b"mcpgen:v1:+1"), 5), None);
        assert_eq!(decode("A", 5), None);
    }
}
