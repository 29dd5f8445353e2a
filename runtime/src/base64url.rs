//! Base64url without padding (RFC 4648 §5), the encoding of JWS parts,
//! JWK members, PKCE values, `requestState` seals and pagination cursors:
//! one engine for every module that writes or reads it.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;

/// `bytes` as unpadded base64url text.
pub(crate) fn encode(bytes: impl AsRef<[u8]>) -> String {
    URL_SAFE_NO_PAD.encode(bytes)
}

/// The bytes of unpadded base64url text; `None` for anything else,
/// including padding and text whose unused low bits are not zero (so every
/// text has one decoding).
pub(crate) fn decode(text: impl AsRef<[u8]>) -> Option<Vec<u8>> {
    URL_SAFE_NO_PAD.decode(text).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_every_length_and_refuses_other_text() {
        let data: Vec<u8> = (0..=255u8).collect();
        for len in 0..40 {
            let text = encode(&data[..len]);
            assert!(!text.contains('='));
            assert_eq!(decode(&text).as_deref(), Some(&data[..len]));
        }
        assert_eq!(encode(b"\xfb\xff"), "-_8");
        assert_eq!(decode("a"), None);
        assert_eq!(decode("ab!c"), None);
        assert_eq!(decode("+/8"), None, "not the standard alphabet");
        assert_eq!(decode("-_9"), None, "unused low bits must be zero");
        assert_eq!(decode("-_8="), None, "no padding");
    }
}
