//! DPoP (RFC 9449) for the client: a P-256 key per token store entry, and
//! the proofs (`DPoP` header) that bind its tokens to that key on token
//! requests and on every request to the MCP server. The signature is the
//! `p256` crate's ECDSA; the proof is a compact JWS (`typ` `dpop+jwt`,
//! `alg` ES256, the public key as `jwk`). Feature `oauth`; without it no
//! key can exist ([`DpopKey`] has no values) and tokens stay `Bearer`.

#[cfg(feature = "oauth")]
pub use signing::DpopKey;
#[cfg(not(feature = "oauth"))]
pub(crate) use without::DpopKey;

/// Without the `oauth` feature: a key type with no values, so that every
/// path that would use one is unreachable.
#[cfg(not(feature = "oauth"))]
mod without {
    use super::super::AuthError;

    /// No DPoP key exists without the `oauth` feature.
    #[derive(Debug)]
    pub(crate) enum DpopKey {}

    impl DpopKey {
        pub(crate) fn generate() -> Result<Self, AuthError> {
            Err(AuthError::new("DPoP needs the runtime's `oauth` feature"))
        }

        pub(crate) fn from_secret(_: &str) -> Result<Self, AuthError> {
            Self::generate()
        }

        pub(crate) fn secret(&self) -> String {
            match *self {}
        }

        pub(crate) fn proof(
            &self,
            _: &str,
            _: &str,
            _: Option<&str>,
            _: Option<&str>,
        ) -> Result<String, AuthError> {
            match *self {}
        }
    }
}

#[cfg(feature = "oauth")]
mod signing {
    use base64::Engine;
    use p256::ecdsa::signature::Signer;
    use p256::ecdsa::{Signature, SigningKey};
    use serde_json::{json, Value};
    use sha2::Digest;

    use super::super::AuthError;
    use crate::{base64url, unix_time};

    /// A DPoP key: the private key, its public JWK and the JWK's SHA-256
    /// thumbprint (RFC 7638), which a bound token names in `cnf.jkt`. The
    /// OAuth client makes and keeps its own; this type is public for
    /// clients of other transports and for tests of a server's checks.
    pub struct DpopKey {
        signing: SigningKey,
        jwk: Value,
        thumbprint: String,
    }

    impl std::fmt::Debug for DpopKey {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.debug_struct("DpopKey")
                .field("thumbprint", &self.thumbprint)
                .finish_non_exhaustive()
        }
    }

    impl DpopKey {
        /// A new key from the operating system's randomness.
        pub fn generate() -> Result<Self, AuthError> {
            for _ in 0..8 {
                let mut secret = [0u8; 32];
                crate::random::fill(&mut secret).map_err(|e| AuthError::new(e.to_string()))?;
                // A 32-byte string is a valid scalar but for a chance of 2^-32.
                if let Ok(signing) = SigningKey::from_slice(&secret) {
                    return Ok(Self::from_signing(signing));
                }
            }
            Err(AuthError::new("could not make a DPoP key"))
        }

        /// The key whose private scalar is `secret` (base64url, as
        /// [`DpopKey::secret`] writes it for a token store).
        pub fn from_secret(secret: &str) -> Result<Self, AuthError> {
            let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
                .decode(secret)
                .map_err(|e| {
                    AuthError::new(format!("the stored DPoP key is not base64url: {e}"))
                })?;
            let signing = SigningKey::from_slice(&bytes)
                .map_err(|_| AuthError::new("the stored DPoP key is not a P-256 private key"))?;
            Ok(Self::from_signing(signing))
        }

        fn from_signing(signing: SigningKey) -> Self {
            let point = signing.verifying_key().to_encoded_point(false);
            let (x, y) = (
                base64url::encode(point.x().map(|x| &x[..]).unwrap_or_default()),
                base64url::encode(point.y().map(|y| &y[..]).unwrap_or_default()),
            );
            // RFC 7638 §3: the required members, in lexicographic order, no spaces.
            let canonical = format!(r#"{{"crv":"P-256","kty":"EC","x":"{x}","y":"{y}"}}"#);
            let thumbprint = base64url::encode(sha2::Sha256::digest(canonical.as_bytes()));
            let jwk = json!({"kty": "EC", "crv": "P-256", "x": x, "y": y});
            Self {
                signing,
                jwk,
                thumbprint,
            }
        }

        /// The private scalar, base64url, for a token store.
        pub fn secret(&self) -> String {
            base64url::encode(self.signing.to_bytes())
        }

        /// The JWK SHA-256 thumbprint of the public key.
        pub fn thumbprint(&self) -> &str {
            &self.thumbprint
        }

        /// A proof for one request: `method` to `url` (its query and fragment
        /// dropped, RFC 9449 §4.2), with `ath` for `access_token` and the
        /// server's `nonce` when there are.
        pub fn proof(
            &self,
            method: &str,
            url: &str,
            access_token: Option<&str>,
            nonce: Option<&str>,
        ) -> Result<String, AuthError> {
            self.proof_at(method, url, access_token, nonce, unix_time::now())
        }

        /// [`DpopKey::proof`] as if made at `iat` (seconds since the Unix
        /// epoch): for a clock the server says is off, and for tests.
        pub fn proof_at(
            &self,
            method: &str,
            url: &str,
            access_token: Option<&str>,
            nonce: Option<&str>,
            iat: u64,
        ) -> Result<String, AuthError> {
            let htu = url.split(['?', '#']).next().unwrap_or(url);
            let mut claims = json!({
                "jti": super::super::pkce::random_string(18)?,
                "htm": method,
                "htu": htu,
                "iat": iat,
            });
            if let Some(token) = access_token {
                claims["ath"] = json!(base64url::encode(sha2::Sha256::digest(token.as_bytes())));
            }
            if let Some(nonce) = nonce {
                claims["nonce"] = json!(nonce);
            }
            let header = json!({"typ": "dpop+jwt", "alg": "ES256", "jwk": self.jwk});
            let input = format!(
                "{}.{}",
                base64url::encode(header.to_string().as_bytes()),
                base64url::encode(claims.to_string().as_bytes())
            );
            let signature: Signature = self.signing.sign(input.as_bytes());
            Ok(format!(
                "{input}.{}",
                base64url::encode(signature.to_bytes())
            ))
        }
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        fn part(jwt: &str, i: usize) -> Value {
            let text = jwt.split('.').nth(i).unwrap();
            serde_json::from_slice(&base64url::decode(text).unwrap()).unwrap()
        }

        #[test]
        fn a_proof_verifies_with_its_jwk_and_binds_method_url_token_and_nonce() {
            let key = DpopKey::generate().unwrap();
            let proof = key
                .proof(
                    "POST",
                    "https://rs.example/mcp?x=1#f",
                    Some("tok"),
                    Some("n-1"),
                )
                .unwrap();
            let header = part(&proof, 0);
            assert_eq!(header["typ"], "dpop+jwt");
            assert_eq!(header["alg"], "ES256");
            assert!(header["jwk"].get("d").is_none(), "never the private key");
            let claims = part(&proof, 1);
            assert_eq!(claims["htm"], "POST");
            assert_eq!(claims["htu"], "https://rs.example/mcp");
            assert_eq!(claims["nonce"], "n-1");
            assert_eq!(
                claims["ath"],
                base64url::encode(sha2::Sha256::digest(b"tok")),
                "ath is the token's SHA-256"
            );
            // The signature verifies with the key in the header (jsonwebtoken,
            // independent of the signing code).
            let jwk: jsonwebtoken::jwk::Jwk =
                serde_json::from_value(header["jwk"].clone()).unwrap();
            let decoding = jsonwebtoken::DecodingKey::from_jwk(&jwk).unwrap();
            let mut validation = jsonwebtoken::Validation::new(jsonwebtoken::Algorithm::ES256);
            validation.required_spec_claims.clear();
            validation.validate_exp = false;
            jsonwebtoken::decode::<Value>(&proof, &decoding, &validation)
                .expect("the proof verifies");
            // RFC 7638 thumbprint, as jsonwebtoken computes it.
            assert_eq!(
                key.thumbprint(),
                jwk.thumbprint(jsonwebtoken::jwk::ThumbprintHash::SHA256)
            );
            let again = key
                .proof("POST", "https://rs.example/mcp", None, None)
                .unwrap();
            assert_ne!(part(&again, 1)["jti"], claims["jti"], "a fresh jti");
            assert!(part(&again, 1).get("ath").is_none());
            // The key survives a store.
            let restored = DpopKey::from_secret(&key.secret()).unwrap();
            assert_eq!(restored.thumbprint(), key.thumbprint());
            assert!(DpopKey::from_secret("!!").is_err());
            assert!(!format!("{key:?}").contains(&key.secret()));
        }
    }
}
