//! DPoP (RFC 9449) at the bearer gate: [`DpopConfig`] turns it on, and the
//! gate then checks each `DPoP` proof (§4.3): one `DPoP` header, a JWS of
//! type `dpop+jwt` signed with an asymmetric algorithm by the public key
//! in its `jwk` header (no private key), `htm` the request's method, `htu`
//! the resource's URL (query and fragment ignored), `iat` within the
//! window, a `jti` not seen within the window, `ath` the SHA-256 of the
//! access token, and, when nonces are on, a nonce this server issued.
//! The token must then be bound to that key (`cnf.jkt`, §6), and a bound
//! token is never accepted under the `Bearer` scheme (§7.2).
//!
//! Signatures and thumbprints are the `jsonwebtoken` crate's. Nonces are
//! stateless (an HMAC of the time slot, valid for the current and the
//! previous slot), so replicas sharing nothing accept each other's only
//! when they share the key ([`DpopConfig::nonce_key`]); the `jti` replay
//! cache is per process.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Duration;

use hmac::{Hmac, KeyInit, Mac};
use jsonwebtoken::jwk::{Jwk, ThumbprintHash};
use jsonwebtoken::{Algorithm, DecodingKey, Validation};
use serde_json::Value;
use sha2::{Digest, Sha256};

use crate::{base64url, unix_time};

/// The longest proof read (bytes).
pub(crate) const MAX_PROOF: usize = 8192;
/// The longest `jti` kept (characters).
const MAX_JTI: usize = 256;
/// The most `jti` values remembered; past it, proofs are refused until
/// some expire (a flood of valid proofs cannot grow memory).
const MAX_REMEMBERED: usize = 100_000;

/// The algorithms a proof may use.
const ALGORITHMS: &[(&str, Algorithm)] = &[
    ("ES256", Algorithm::ES256),
    ("ES384", Algorithm::ES384),
    ("RS256", Algorithm::RS256),
    ("RS384", Algorithm::RS384),
    ("RS512", Algorithm::RS512),
    ("PS256", Algorithm::PS256),
    ("PS384", Algorithm::PS384),
    ("PS512", Algorithm::PS512),
    ("EdDSA", Algorithm::EdDSA),
];

/// How the gate takes DPoP-bound tokens.
#[derive(Clone)]
pub struct DpopConfig {
    required: bool,
    nonces: bool,
    window: Duration,
    nonce_key: Option<[u8; 32]>,
}

impl std::fmt::Debug for DpopConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DpopConfig")
            .field("required", &self.required)
            .field("nonces", &self.nonces)
            .field("window", &self.window)
            .finish_non_exhaustive()
    }
}

impl Default for DpopConfig {
    fn default() -> Self {
        Self::new()
    }
}

impl DpopConfig {
    /// DPoP-bound tokens accepted beside bearer tokens; proofs valid for
    /// 60 s either side of now; no nonces.
    pub fn new() -> Self {
        Self {
            required: false,
            nonces: false,
            window: Duration::from_secs(60),
            nonce_key: None,
        }
    }

    /// Accepts DPoP-bound tokens only (the metadata then says
    /// `dpop_bound_access_tokens_required`).
    pub fn required(mut self, yes: bool) -> Self {
        self.required = yes;
        self
    }

    /// Proofs must carry a nonce this server issued (RFC 9449 §9): a proof
    /// without one is answered `401 use_dpop_nonce` with a `DPoP-Nonce`.
    pub fn nonces(mut self, yes: bool) -> Self {
        self.nonces = yes;
        self
    }

    /// How far a proof's `iat` may be from now, and how long its `jti` is
    /// remembered (default 60 s; at most 10 minutes).
    pub fn window(mut self, window: Duration) -> Self {
        self.window = window.clamp(Duration::from_secs(1), Duration::from_secs(600));
        self
    }

    /// The key nonces are made with, shared by replicas that must accept
    /// each other's nonces (default: a random key per process).
    pub fn nonce_key(mut self, key: [u8; 32]) -> Self {
        self.nonce_key = Some(key);
        self
    }

    /// Whether only DPoP-bound tokens are accepted.
    pub(crate) fn is_required(&self) -> bool {
        self.required
    }
}

/// Why a proof was refused.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum ProofError {
    /// Not acceptable: 401 `invalid_dpop_proof`.
    Invalid(String),
    /// Acceptable but for the nonce: 401 `use_dpop_nonce`.
    UseNonce,
}

/// The gate's DPoP state.
pub(crate) struct DpopGate {
    config: DpopConfig,
    key: [u8; 32],
    seen: Mutex<HashMap<String, u64>>,
}

impl std::fmt::Debug for DpopGate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DpopGate")
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

/// Whether `htu` is written the plain way, `scheme://host[:port]/path`:
/// no user info, backslashes, percent-escapes in the authority, or `.` and
/// `..` segments. A URL parser would quietly resolve each of those to the
/// resource's own URL, which no honest client writes.
fn plain(htu: &str) -> bool {
    let Some((_, rest)) = htu.split_once("://") else {
        return false;
    };
    let (authority, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
    let dotted = |segment: &str| {
        let s = segment.to_ascii_lowercase().replace("%2e", ".");
        s == "." || s == ".."
    };
    !htu.contains('\\') && !authority.contains(['@', '%']) && !path.split('/').any(dotted)
}

/// A URL as `htu` compares: lowercase scheme and host, the port, the path
/// without a trailing `/`; no query or fragment.
fn normalized(url: &str) -> Option<String> {
    let parsed = url::Url::parse(url).ok()?;
    let host = parsed.host_str()?.to_ascii_lowercase();
    let port = parsed
        .port_or_known_default()
        .map(|p| format!(":{p}"))
        .unwrap_or_default();
    Some(format!(
        "{}://{host}{port}{}",
        parsed.scheme(),
        parsed.path().trim_end_matches('/')
    ))
}

impl DpopGate {
    /// The gate's state for `config`; fails only when the system has no
    /// randomness for the nonce key.
    pub(crate) fn new(config: DpopConfig) -> Result<Self, String> {
        let key = match config.nonce_key {
            Some(k) => k,
            None => {
                let mut k = [0u8; 32];
                crate::random::fill(&mut k).map_err(|e| e.to_string())?;
                k
            }
        };
        Ok(Self {
            config,
            key,
            seen: Mutex::new(HashMap::new()),
        })
    }

    pub(crate) fn config(&self) -> &DpopConfig {
        &self.config
    }

    /// The algorithms proofs may use, for metadata and challenges.
    pub(crate) fn algorithms() -> Vec<&'static str> {
        ALGORITHMS.iter().map(|(name, _)| *name).collect()
    }

    fn slot(&self, at: u64) -> u64 {
        at / self.config.window.as_secs().max(1)
    }

    fn nonce_for(&self, slot: u64) -> String {
        let mut mac = <Hmac<Sha256> as KeyInit>::new_from_slice(&self.key)
            .expect("HMAC takes a key of any length");
        mac.update(&slot.to_be_bytes());
        let tag = mac.finalize().into_bytes();
        let mut bytes = slot.to_be_bytes().to_vec();
        bytes.extend_from_slice(&tag[..16]);
        base64url::encode(bytes)
    }

    /// A nonce to hand out now, when nonces are on.
    pub(crate) fn nonce(&self) -> Option<String> {
        self.config
            .nonces
            .then(|| self.nonce_for(self.slot(unix_time::now())))
    }

    fn nonce_fresh(&self, nonce: &str) -> bool {
        let current = self.slot(unix_time::now());
        [current, current.saturating_sub(1)]
            .iter()
            .any(|slot| self.nonce_for(*slot).as_bytes() == nonce.as_bytes())
    }

    /// Checks `proof` for a `method` request to `resource` carrying
    /// `token`; the proof key's JWK SHA-256 thumbprint on success.
    pub(crate) fn check(
        &self,
        proof: &str,
        method: &str,
        resource: &str,
        token: &str,
    ) -> Result<String, ProofError> {
        let invalid = |why: &str| Err(ProofError::Invalid(why.to_owned()));
        if proof.len() > MAX_PROOF {
            return invalid("the DPoP proof is too long");
        }
        let Some(head) = proof.split('.').next() else {
            return invalid("the DPoP proof is not a JWS");
        };
        // The raw header: the key must carry no private part.
        let raw: Value = match base64url::decode(head).and_then(|b| serde_json::from_slice(&b).ok())
        {
            Some(v) => v,
            None => return invalid("the DPoP proof's header is not base64url JSON"),
        };
        if raw.get("typ").and_then(Value::as_str) != Some("dpop+jwt") {
            return invalid("the DPoP proof's typ is not dpop+jwt");
        }
        let Some(alg) = raw
            .get("alg")
            .and_then(Value::as_str)
            .and_then(|a| ALGORITHMS.iter().find(|(n, _)| *n == a))
            .map(|(_, alg)| *alg)
        else {
            return invalid(
                "the DPoP proof's alg is not an asymmetric algorithm this server takes",
            );
        };
        let Some(jwk_value) = raw.get("jwk").filter(|j| j.is_object()) else {
            return invalid("the DPoP proof has no jwk header");
        };
        if jwk_value.get("d").is_some() {
            return invalid("the DPoP proof's jwk holds a private key");
        }
        let Ok(jwk) = serde_json::from_value::<Jwk>(jwk_value.clone()) else {
            return invalid("the DPoP proof's jwk is not a public key");
        };
        let Ok(key) = DecodingKey::from_jwk(&jwk) else {
            return invalid("the DPoP proof's jwk is not a usable key");
        };
        let mut validation = Validation::new(alg);
        validation.required_spec_claims.clear();
        validation.validate_exp = false;
        validation.validate_aud = false;
        let claims = match jsonwebtoken::decode::<Value>(proof, &key, &validation) {
            Ok(data) => data.claims,
            Err(_) => return invalid("the DPoP proof's signature does not verify with its jwk"),
        };
        let text = |k: &str| claims.get(k).and_then(Value::as_str);
        if text("htm") != Some(method) {
            return invalid("the DPoP proof is for another HTTP method (htm)");
        }
        match text("htu") {
            // A URI has no controls, spaces or non-ASCII bytes; a URL
            // parser would drop some of them silently.
            Some(htu)
                if !htu.contains(['?', '#'])
                    && htu.bytes().all(|b| b.is_ascii_graphic())
                    && plain(htu)
                    && normalized(htu).is_some()
                    && normalized(htu) == normalized(resource) => {}
            _ => return invalid("the DPoP proof is for another URL (htu)"),
        }
        let window = self.config.window.as_secs();
        let at = unix_time::now();
        match claims.get("iat").and_then(Value::as_u64) {
            Some(iat) if iat + window >= at && iat <= at + window => {}
            _ => return invalid("the DPoP proof's iat is outside the accepted window"),
        }
        let expected = base64url::encode(Sha256::digest(token.as_bytes()));
        if text("ath") != Some(expected.as_str()) {
            return invalid("the DPoP proof is for another access token (ath)");
        }
        let Some(jti) = text("jti").filter(|j| !j.is_empty() && j.len() <= MAX_JTI) else {
            return invalid("the DPoP proof has no usable jti");
        };
        if self.config.nonces && !text("nonce").is_some_and(|n| self.nonce_fresh(n)) {
            return Err(ProofError::UseNonce);
        }
        {
            let mut seen = self.seen.lock().unwrap_or_else(|e| e.into_inner());
            if seen.len() >= MAX_REMEMBERED {
                seen.retain(|_, until| *until > at);
            }
            if seen.get(jti).is_some_and(|until| *until > at) {
                return invalid("the DPoP proof was used before (jti)");
            }
            if seen.len() >= MAX_REMEMBERED {
                return invalid("too many DPoP proofs at once; retry shortly");
            }
            seen.insert(jti.to_owned(), at + 2 * window);
        }
        Ok(jwk.thumbprint(ThumbprintHash::SHA256))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::client::oauth::dpop::DpopKey;

    const RESOURCE: &str = "https://mcp.example.com/mcp";

    #[test]
    fn proofs_bind_method_url_time_token_and_jti() {
        let gate = DpopGate::new(DpopConfig::new()).unwrap();
        let key = DpopKey::generate().unwrap();
        let proof = key.proof("POST", RESOURCE, Some("tok"), None).unwrap();
        let jkt = gate
            .check(&proof, "POST", RESOURCE, "tok")
            .expect("a good proof");
        assert_eq!(jkt, key.thumbprint());
        let refused = |proof: &str, method: &str, token: &str| match gate
            .check(proof, method, RESOURCE, token)
        {
            Err(ProofError::Invalid(why)) => why,
            other => panic!("expected a refusal, got {other:?}"),
        };
        assert!(refused(&proof, "POST", "tok").contains("used before"));
        let fresh = || key.proof("POST", RESOURCE, Some("tok"), None).unwrap();
        assert!(refused(&fresh(), "GET", "tok").contains("htm"));
        assert!(refused(&fresh(), "POST", "other").contains("ath"));
        let elsewhere = key
            .proof("POST", "https://evil.example.com/mcp", Some("tok"), None)
            .unwrap();
        assert!(refused(&elsewhere, "POST", "tok").contains("htu"));
        // Found by the fuzzer: trailing NULs (or a space) that a URL parser
        // strips do not make another URI the same one.
        for padded in [
            format!("{RESOURCE}\0\0"),
            format!(" {RESOURCE}"),
            format!("{RESOURCE}\t"),
            // Nor do spellings a URL parser resolves to the same place.
            "https://user@mcp.example.com/mcp".to_owned(),
            "https://mcp.exampl%65.com/mcp".to_owned(),
            "https:\\\\mcp.example.com\\mcp".to_owned(),
            "https://mcp.example.com/x/../mcp".to_owned(),
            "https://mcp.example.com/%2E/mcp".to_owned(),
            "https:mcp.example.com/mcp".to_owned(),
        ] {
            let proof = key.proof("POST", &padded, Some("tok"), None).unwrap();
            assert!(refused(&proof, "POST", "tok").contains("htu"), "{padded:?}");
        }
        // The query is no part of htu; a trailing slash or the default port is.
        let same = key
            .proof(
                "POST",
                "https://MCP.example.com:443/mcp/?a=1",
                Some("tok"),
                None,
            )
            .unwrap();
        assert!(gate.check(&same, "POST", RESOURCE, "tok").is_ok());
        // A proof whose payload was altered does not verify.
        let mut parts: Vec<&str> = proof.split('.').collect();
        let other = key.proof("GET", RESOURCE, Some("tok"), None).unwrap();
        parts[1] = other.split('.').nth(1).unwrap();
        assert!(refused(&parts.join("."), "GET", "tok").contains("signature"));
        assert!(refused("a.b.c", "POST", "tok").contains("header"));
        assert!(refused(&"x".repeat(MAX_PROOF + 1), "POST", "tok").contains("too long"));
    }

    #[test]
    fn a_stale_proof_or_one_without_the_servers_nonce_is_refused() {
        let gate = DpopGate::new(
            DpopConfig::new()
                .nonces(true)
                .window(Duration::from_secs(30)),
        )
        .unwrap();
        let key = DpopKey::generate().unwrap();
        let bare = key.proof("POST", RESOURCE, Some("t"), None).unwrap();
        assert_eq!(
            gate.check(&bare, "POST", RESOURCE, "t"),
            Err(ProofError::UseNonce)
        );
        let nonce = gate.nonce().unwrap();
        let with = key
            .proof("POST", RESOURCE, Some("t"), Some(&nonce))
            .unwrap();
        assert!(gate.check(&with, "POST", RESOURCE, "t").is_ok());
        let forged = key
            .proof("POST", RESOURCE, Some("t"), Some("AAAAAAAAAAA"))
            .unwrap();
        assert_eq!(
            gate.check(&forged, "POST", RESOURCE, "t"),
            Err(ProofError::UseNonce)
        );
        let other = DpopGate::new(DpopConfig::new().nonces(true)).unwrap();
        assert!(other.nonce() != gate.nonce(), "each gate has its own key");
        let shared = DpopConfig::new().nonces(true).nonce_key([7; 32]);
        let (a, b) = (
            DpopGate::new(shared.clone()).unwrap(),
            DpopGate::new(shared).unwrap(),
        );
        assert_eq!(a.nonce(), b.nonce(), "replicas sharing a key share nonces");
        assert!(
            !a.nonce_fresh(&a.nonce_for(a.slot(unix_time::now()) - 2)),
            "two slots ago is stale"
        );
        assert!(a.nonce_fresh(&a.nonce_for(a.slot(unix_time::now()) - 1)));
    }
}
