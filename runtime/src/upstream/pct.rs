//! Percent-encoding as RFC 6570 and RFC 3986 want it for URLs built from
//! arguments: unreserved characters (`A-Z a-z 0-9 - . _ ~`) as they are,
//! every other byte of the UTF-8 text as `%XX`; with `allowReserved`, the
//! reserved characters and existing `%XX` triplets are kept as well, except
//! the few that would change a query's structure (`#`, `&`, `=`, `+`).

/// Characters kept as they are whatever the mode.
fn unreserved(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~')
}

/// RFC 3986 reserved characters a value may keep under `allowReserved`
/// without breaking the query it is in.
fn kept_reserved(b: u8) -> bool {
    matches!(
        b,
        b':' | b'/'
            | b'?'
            | b'['
            | b']'
            | b'@'
            | b'!'
            | b'$'
            | b'\''
            | b'('
            | b')'
            | b'*'
            | b','
            | b';'
    )
}

/// `text` percent-encoded; `allow_reserved` keeps reserved characters and
/// `%XX` triplets already there.
pub(crate) fn encode(text: &str, allow_reserved: bool) -> String {
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        let triplet = b == b'%'
            && bytes.get(i + 1).is_some_and(u8::is_ascii_hexdigit)
            && bytes.get(i + 2).is_some_and(u8::is_ascii_hexdigit);
        if unreserved(b) || (allow_reserved && (kept_reserved(b) || triplet)) {
            out.push(char::from(b));
        } else {
            out.push('%');
            out.push(hex(b >> 4));
            out.push(hex(b & 0xf));
        }
        i += 1;
    }
    out
}

fn hex(nibble: u8) -> char {
    char::from(b"0123456789ABCDEF"[usize::from(nibble)])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encodes_all_but_unreserved_unless_reserved_is_allowed() {
        assert_eq!(encode("a-b.c_d~e", false), "a-b.c_d~e");
        assert_eq!(encode("a b/c?d", false), "a%20b%2Fc%3Fd");
        assert_eq!(encode("é", false), "%C3%A9");
        assert_eq!(encode("a b/c?d", true), "a%20b/c?d");
        assert_eq!(encode("x%2Fy&z=1#f+", true), "x%2Fy%26z%3D1%23f%2B");
        assert_eq!(encode("100%", true), "100%25");
        assert_eq!(encode("%2", false), "%252");
    }
}
