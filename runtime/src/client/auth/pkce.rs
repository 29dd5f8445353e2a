//! PKCE (RFC 7636) with the `S256` method, and the `state` value of an
//! authorization request: random strings from the operating system.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use sha2::{Digest, Sha256};

/// A PKCE verifier and its `S256` challenge.
pub struct Pkce {
    /// `code_verifier`: 43 characters of base64url (32 random bytes).
    pub verifier: String,
    /// `code_challenge`: base64url of the verifier's SHA-256.
    pub challenge: String,
}

impl Pkce {
    /// A fresh verifier and its challenge.
    pub fn new() -> Self {
        let verifier = random_string(32);
        let challenge = challenge(&verifier);
        Self { verifier, challenge }
    }
}

impl Default for Pkce {
    fn default() -> Self {
        Self::new()
    }
}

/// The `S256` challenge of a verifier.
pub fn challenge(verifier: &str) -> String {
    URL_SAFE_NO_PAD.encode(Sha256::digest(verifier.as_bytes()))
}

/// `bytes` random bytes as base64url without padding (`state`, verifiers).
pub fn random_string(bytes: usize) -> String {
    let mut buf = vec![0u8; bytes];
    crate::random::fill(&mut buf);
    URL_SAFE_NO_PAD.encode(buf)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn s256_matches_rfc_7636_appendix_b() {
        assert_eq!(challenge("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"), "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM");
        let p = Pkce::new();
        assert_eq!(p.verifier.len(), 43);
        assert_eq!(p.challenge, challenge(&p.verifier));
        assert_ne!(Pkce::new().verifier, p.verifier);
    }
}
