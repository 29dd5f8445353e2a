//! Tokens already verified, by a keyed digest of the token, with the
//! principal they name and until when the answer holds. A client sends the
//! same access token on every call until it expires; checking it again
//! each time costs a round trip to the introspection endpoint, or for an
//! RS256 JWT about 2.5M instructions of signature arithmetic. Only the
//! digest is kept, never the token. At most [`ENTRIES`] answers are kept:
//! when full, the stale ones go, and if none is stale, all.
//!
//! The digest is SipHash-2-4 with a 128-bit output under a random key of
//! this process: a pseudorandom function, so without the key nobody can
//! make another token that lands on a kept answer, and about ten times
//! cheaper than SHA-256 on a 1 KB JWT (the whole cached check was +120%
//! on an HTTP call with SHA-256). Without randomness for the key nothing is
//! kept, and every token is checked in full.

use std::collections::HashMap;
use std::future::Future;
use std::hash::Hasher;
use std::sync::{Arc, Mutex};
use std::time::{Instant, SystemTime};

use siphasher::sip128::{Hasher128, SipHasher24};

use super::{Lookup, TokenError};
use crate::server::handler::context::Principal;

/// The most answers kept.
const ENTRIES: usize = 4096;

/// The verified tokens of one verifier.
pub(super) struct Verified {
    /// The digest's key; `None` when the system had no randomness.
    key: Option<[u8; 16]>,
    answers: Mutex<HashMap<u128, (Arc<Principal>, Instant)>>,
}

impl std::fmt::Debug for Verified {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Verified").finish_non_exhaustive()
    }
}

impl Default for Verified {
    fn default() -> Self {
        let mut key = [0u8; 16];
        let key = match crate::random::fill(&mut key) {
            Ok(()) => Some(key),
            Err(e) => {
                tracing::warn!("verified tokens are not cached: {e}");
                None
            }
        };
        Self {
            key,
            answers: Mutex::new(HashMap::new()),
        }
    }
}

/// A digest no kept answer has (nothing is kept without a key).
const NONE: u128 = 0;

impl Verified {
    /// The digest of `token`, and its principal when an answer for it
    /// still holds.
    pub(super) fn get(&self, token: &str) -> (u128, Option<Arc<Principal>>) {
        let Some(key) = &self.key else {
            return (NONE, None);
        };
        let mut hasher = SipHasher24::new_with_key(key);
        hasher.write(token.as_bytes());
        let digest = hasher.finish128().as_u128();
        let answers = self.answers.lock().unwrap_or_else(|p| p.into_inner());
        let hit = answers
            .get(&digest)
            .filter(|(_, until)| Instant::now() < *until)
            .map(|(p, _)| Arc::clone(p));
        (digest, hit)
    }

    /// What the bearer gate's lookup finds for `token`: the principal held
    /// for it, else the verification `check` makes of the token given its
    /// digest (kept with the answer: the token is digested once).
    pub(super) fn lookup<'a, F>(&self, token: &str, check: impl FnOnce(u128) -> F) -> Lookup<'a>
    where
        F: Future<Output = Result<Principal, TokenError>> + Send + 'a,
    {
        match self.get(token) {
            (_, Some(principal)) => Lookup::Held(principal),
            (digest, None) => Lookup::Verify(Box::pin(check(digest))),
        }
    }

    /// Keeps `principal` for the token of `digest` for at most `ttl`, and
    /// never past the principal's expiry.
    pub(super) fn keep(&self, digest: u128, principal: &Principal, ttl: std::time::Duration) {
        if self.key.is_none() {
            return;
        }
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
        answers.insert(digest, (Arc::new(principal.clone()), until));
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
    fn a_lookup_hands_a_miss_the_digest_it_made_and_a_hit_the_principal() {
        let v = Verified::default();
        let (digest, _) = v.get("token-a");
        let mut handed = None;
        let miss = v.lookup("token-a", |d| {
            handed = Some(d);
            async { Err(TokenError::Expired) }
        });
        assert!(matches!(miss, Lookup::Verify(_)));
        assert_eq!(
            handed,
            Some(digest),
            "the digest is made once and passed on"
        );
        v.keep(digest, &principal(None), Duration::from_secs(300));
        let hit = v.lookup("token-a", |_| async {
            Err(TokenError::Invalid(
                "a held token is not verified again".into(),
            ))
        });
        assert!(matches!(hit, Lookup::Held(p) if p.subject == "alice"));
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
        assert_eq!(
            v.get("token-a").1.map(|p| p.subject.clone()),
            Some("alice".into())
        );
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
        // Another verifier's key gives other digests.
        assert_ne!(Verified::default().get("token-a").0, v.get("token-a").0);
        // No randomness, no cache.
        let blind = crate::random::fail::with_failing_source(Verified::default);
        let (digest, _) = blind.get("token-a");
        blind.keep(digest, &principal(None), Duration::from_secs(300));
        assert!(blind.get("token-a").1.is_none());
    }
}
