//! Tokens already verified, by the SHA-256 of the token, with the
//! principal they name and until when the answer holds. A client sends the
//! same access token on every call until it expires; checking it again
//! each time costs a round trip to the introspection endpoint, or for an
//! RS256 JWT about 2.5M instructions of signature arithmetic. Only the
//! digest is kept, never the token. At most [`ENTRIES`] answers are kept:
//! when full, the stale ones go, and if none is stale, all.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Instant, SystemTime};

use sha2::{Digest, Sha256};

use crate::server::context::Principal;

/// The most answers kept.
const ENTRIES: usize = 4096;

/// The verified tokens of one verifier.
#[derive(Debug, Default)]
pub(super) struct Verified {
    answers: Mutex<HashMap<[u8; 32], (Principal, Instant)>>,
}

impl Verified {
    /// The digest of `token`, and its principal when an answer for it
    /// still holds.
    pub(super) fn get(&self, token: &str) -> ([u8; 32], Option<Principal>) {
        let digest: [u8; 32] = Sha256::digest(token.as_bytes()).into();
        let answers = self.answers.lock().unwrap_or_else(|p| p.into_inner());
        let hit = answers
            .get(&digest)
            .filter(|(_, until)| Instant::now() < *until)
            .map(|(p, _)| p.clone());
        (digest, hit)
    }

    /// Keeps `principal` for the token of `digest` for at most `ttl`, and
    /// never past the principal's expiry.
    pub(super) fn keep(&self, digest: [u8; 32], principal: &Principal, ttl: std::time::Duration) {
        let now = Instant::now();
        let mut until = now + ttl;
        if let Some(expires) = principal.expires_at {
            let left = expires
                .duration_since(SystemTime::now())
                .unwrap_or_default();
            until = until.min(now + left);
        }
        let mut answers = self.answers.lock().unwrap_or_else(|p| p.into_inner());
        if answers.len() >= ENTRIES {
            answers.retain(|_, (_, until)| *until > now);
            if answers.len() >= ENTRIES {
                answers.clear();
            }
        }
        answers.insert(digest, (principal.clone(), until));
    }

    /// Forgets every answer (the key set changed).
    pub(super) fn clear(&self) {
        self.answers
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clear();
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    fn principal(expires_in: Option<Duration>) -> Principal {
        Principal {
            subject: "alice".into(),
            scopes: vec!["notes:read".into()],
            claims: serde_json::Value::Null,
            client_id: None,
            expires_at: expires_in.map(|d| SystemTime::now() + d),
        }
    }

    #[test]
    fn answers_hold_until_the_ttl_or_the_expiry_whichever_comes_first() {
        let v = Verified::default();
        let (digest, hit) = v.get("token-a");
        assert!(hit.is_none());
        v.keep(
            digest,
            &principal(Some(Duration::from_secs(60))),
            Duration::from_secs(300),
        );
        assert_eq!(v.get("token-a").1.map(|p| p.subject), Some("alice".into()));
        assert!(
            v.get("token-b").1.is_none(),
            "another token is not the same answer"
        );
        let (digest, _) = v.get("expired");
        v.keep(
            digest,
            &principal(Some(Duration::ZERO)),
            Duration::from_secs(300),
        );
        assert!(v.get("expired").1.is_none());
        let (digest, _) = v.get("no-ttl");
        v.keep(digest, &principal(None), Duration::ZERO);
        assert!(v.get("no-ttl").1.is_none());
        v.clear();
        assert!(v.get("token-a").1.is_none());
    }
}
