//! PKCE (RFC 7636) with the `S256` method, and the `state` value of an
//! authorization request: random strings from the operating system.

use sha2::{Digest, Sha256};

use super::AuthError;
use crate::base64url;

/// A PKCE verifier and its `S256` challenge.
pub(super) struct Pkce {
    /// `code_verifier`: 43 characters of base64url (32 random bytes).
    pub verifier: String,
    /// `code_challenge`: base64url of the verifier's SHA-256.
    pub challenge: String,
}

impl std::fmt::Debug for Pkce {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The verifier is a secret until the code is exchanged.
        f.debug_struct("Pkce")
            .field("challenge", &self.challenge)
            .finish_non_exhaustive()
    }
}

impl Pkce {
    /// A fresh verifier and its challenge; an error when the operating
    /// system's random source fails (never a guessable verifier).
    pub(super) fn new() -> Result<Self, AuthError> {
        let verifier = random_string(32)?;
        let challenge = challenge(&verifier);
        Ok(Self {
            verifier,
            challenge,
        })
    }
}

/// The `S256` challenge of a verifier.
pub(super) fn challenge(verifier: &str) -> String {
    base64url::encode(Sha256::digest(verifier.as_bytes()))
}

/// `bytes` random bytes as base64url without padding (`state`, verifiers);
/// an error when the operating system's random source fails.
pub(super) fn random_string(bytes: usize) -> Result<String, AuthError> {
    let mut buf = vec![0u8; bytes];
    crate::random::fill(&mut buf)
        .map_err(|e| AuthError::new(format!("cannot start an authorization: {e}")))?;
    Ok(base64url::encode(buf))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn s256_matches_rfc_7636_appendix_b() {
        assert_eq!(
            challenge("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"),
            "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
        );
        let p = Pkce::new().unwrap();
        assert_eq!(p.verifier.len(), 43);
        assert_eq!(p.challenge, challenge(&p.verifier));
        assert_ne!(Pkce::new().unwrap().verifier, p.verifier);
    }

    #[test]
    fn no_verifier_or_state_without_randomness() {
        crate::random::fail::with_failing_source(|| {
            let err = Pkce::new().expect_err("a failing random source is an error");
            assert!(err.to_string().contains("random source"), "{err}");
            assert!(random_string(24).is_err());
        });
    }
}
