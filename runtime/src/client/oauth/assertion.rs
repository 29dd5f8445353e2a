//! What a client presents instead of a user at a browser: a token obtained
//! elsewhere ([`Assertion`]: a workload's platform token, an enterprise
//! identity provider's ID token), and the private key it signs its
//! `private_key_jwt` client authentication with ([`ClientKey`], RFC 7523
//! §2.2, feature `oauth`).

use std::fmt;
use std::path::PathBuf;

use super::AuthError;

/// The longest assertion read (a JWT is a few kilobytes).
const MAX_ASSERTION: u64 = 64 * 1024;

/// A token this client presents and did not make: given once, or read
/// again from a file before each use (a platform rotates the file of a
/// projected service-account token). Never shown by `Debug`.
#[derive(Clone)]
pub struct Assertion(Source);

#[derive(Clone)]
enum Source {
    Fixed(String),
    File(PathBuf),
}

impl fmt::Debug for Assertion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.0 {
            Source::Fixed(_) => f.write_str("Assertion(<redacted>)"),
            Source::File(path) => write!(f, "Assertion(file {})", path.display()),
        }
    }
}

impl Assertion {
    /// The token itself.
    pub fn new(token: impl Into<String>) -> Self {
        Self(Source::Fixed(token.into()))
    }

    /// The token in the file at `path`, read again before each use
    /// (surrounding whitespace removed).
    pub fn file(path: impl Into<PathBuf>) -> Self {
        Self(Source::File(path.into()))
    }

    /// The token now; `what` names it in errors ("the workload token").
    pub(crate) fn read(&self, what: &str) -> Result<String, AuthError> {
        let token = match &self.0 {
            Source::Fixed(t) => t.trim().to_owned(),
            Source::File(path) => {
                use std::io::Read;
                let file = std::fs::File::open(path).map_err(|e| {
                    AuthError::new(format!(
                        "{what} cannot be read from {}: {e}",
                        path.display()
                    ))
                })?;
                let mut text = String::new();
                file.take(MAX_ASSERTION + 1)
                    .read_to_string(&mut text)
                    .map_err(|e| {
                        AuthError::new(format!(
                            "{what} in {} cannot be read as text: {e}",
                            path.display()
                        ))
                    })?;
                text.trim().to_owned()
            }
        };
        if token.is_empty() {
            return Err(AuthError::new(format!("{what} is empty")));
        }
        if token.len() as u64 > MAX_ASSERTION {
            return Err(AuthError::new(format!(
                "{what} is longer than {MAX_ASSERTION} bytes; is it really a token?"
            )));
        }
        if token
            .bytes()
            .any(|b| b.is_ascii_whitespace() || b.is_ascii_control())
        {
            return Err(AuthError::new(format!(
                "{what} holds whitespace or control characters; a token is one word"
            )));
        }
        Ok(token)
    }
}

/// The private key a confidential client signs its token endpoint
/// authentication with (`private_key_jwt`): an assertion with the client
/// id as `iss` and `sub`, the authorization server's issuer as `aud`, a
/// fresh `jti` and a one-minute lifetime. Never shown by `Debug`.
#[cfg(feature = "oauth")]
pub struct ClientKey {
    key: jsonwebtoken::EncodingKey,
    alg: jsonwebtoken::Algorithm,
    kid: Option<String>,
}

#[cfg(feature = "oauth")]
impl fmt::Debug for ClientKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ClientKey")
            .field("alg", &self.alg)
            .field("kid", &self.kid)
            .finish_non_exhaustive()
    }
}

/// How long a client assertion is valid, in seconds.
#[cfg(feature = "oauth")]
const ASSERTION_LIFETIME: u64 = 60;

#[cfg(feature = "oauth")]
impl ClientKey {
    /// A key from its PEM text (PKCS#8, or PKCS#1 for RSA) for the JWS
    /// algorithm `alg`: `ES256`, `ES384`, `RS256`, `RS384`, `RS512`,
    /// `PS256`, `PS384`, `PS512` or `EdDSA`.
    pub fn from_pem(pem: &[u8], alg: &str) -> Result<Self, AuthError> {
        use jsonwebtoken::{Algorithm, EncodingKey};
        let algorithm: Algorithm = alg.parse().map_err(|_| {
            AuthError::new(format!(
                "{alg:?} is not a JWS algorithm this client signs with"
            ))
        })?;
        let key = match algorithm {
            Algorithm::ES256 | Algorithm::ES384 => EncodingKey::from_ec_pem(pem),
            Algorithm::RS256
            | Algorithm::RS384
            | Algorithm::RS512
            | Algorithm::PS256
            | Algorithm::PS384
            | Algorithm::PS512 => EncodingKey::from_rsa_pem(pem),
            Algorithm::EdDSA => EncodingKey::from_ed_pem(pem),
            _ => {
                return Err(AuthError::new(format!(
                    "{alg} is a shared-secret algorithm; private_key_jwt needs a private key \
                     (ES256, RS256, PS256, EdDSA, ...)"
                )))
            }
        }
        .map_err(|e| AuthError::new(format!("the private key is not a PEM key for {alg}: {e}")))?;
        Ok(Self {
            key,
            alg: algorithm,
            kid: None,
        })
    }

    /// Names the key in the assertions' `kid` header (when the
    /// authorization server holds several keys of the client).
    pub fn kid(mut self, kid: impl Into<String>) -> Self {
        self.kid = Some(kid.into());
        self
    }

    /// A signed client assertion for `client_id` at the authorization
    /// server whose issuer is `audience`.
    pub(crate) fn client_assertion(
        &self,
        client_id: &str,
        audience: &str,
    ) -> Result<String, AuthError> {
        let now = crate::unix_time::now();
        let jti = super::pkce::random_string(24)?;
        let claims = serde_json::json!({
            "iss": client_id,
            "sub": client_id,
            "aud": audience,
            "jti": jti,
            "iat": now,
            "exp": now + ASSERTION_LIFETIME,
        });
        let mut header = jsonwebtoken::Header::new(self.alg);
        header.kid = self.kid.clone();
        jsonwebtoken::encode(&header, &claims, &self.key)
            .map_err(|e| AuthError::new(format!("signing the client assertion failed: {e}")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_assertion_is_one_bounded_word_read_again_from_its_file() {
        assert_eq!(Assertion::new(" abc.def \n").read("t").unwrap(), "abc.def");
        assert!(Assertion::new("  ")
            .read("the token")
            .unwrap_err()
            .message()
            .contains("empty"));
        assert!(Assertion::new("a b").read("t").is_err());
        assert!(!format!("{:?}", Assertion::new("secret")).contains("secret"));
        let dir = std::env::temp_dir().join(format!("mcpgen-assertion-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("token");
        std::fs::write(&path, "first\n").unwrap();
        let a = Assertion::file(&path);
        assert_eq!(a.read("t").unwrap(), "first");
        std::fs::write(&path, "second").unwrap();
        assert_eq!(a.read("t").unwrap(), "second", "read again before each use");
        std::fs::write(&path, "x".repeat(70_000)).unwrap();
        assert!(a.read("t").unwrap_err().message().contains("longer"));
        let missing = Assertion::file(dir.join("nope")).read("the workload token");
        assert!(missing
            .unwrap_err()
            .message()
            .contains("the workload token cannot be read"));
        std::fs::remove_dir_all(&dir).ok();
    }

    /// A P-256 key made for this test with `openssl genpkey`.
    #[cfg(feature = "oauth")]
    const TEST_KEY: &str = "-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg3JfTBqDgoxUdICi1
S46YmKpfbBb6/2pBruvQ6o2pQ/+hRANCAAQ2LgjBxb4F2q9wewqgln3T6v4xV1Dn
tSuwDQnIM1p9qUhRBY7L0T4ZWOzGljIIArnhsIqUL5BZXDaL86IJTj3i
-----END PRIVATE KEY-----
";
    #[cfg(feature = "oauth")]
    const TEST_PUBLIC: &str = "-----BEGIN PUBLIC KEY-----
MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAENi4IwcW+BdqvcHsKoJZ90+r+MVdQ
57UrsA0JyDNafalIUQWOy9E+GVjsxpYyCAK54bCKlC+QWVw2i/OiCU494g==
-----END PUBLIC KEY-----
";

    #[cfg(feature = "oauth")]
    #[test]
    fn a_client_assertion_names_the_client_and_the_issuer_and_verifies() {
        let key = ClientKey::from_pem(TEST_KEY.as_bytes(), "ES256")
            .unwrap()
            .kid("k1");
        assert!(!format!("{key:?}").contains("PRIVATE"));
        let jwt = key
            .client_assertion("client-7", "https://as.example")
            .unwrap();
        let header = jsonwebtoken::decode_header(&jwt).unwrap();
        assert_eq!(header.alg, jsonwebtoken::Algorithm::ES256);
        assert_eq!(header.kid.as_deref(), Some("k1"));
        let public = jsonwebtoken::DecodingKey::from_ec_pem(TEST_PUBLIC.as_bytes()).unwrap();
        let mut validation = jsonwebtoken::Validation::new(jsonwebtoken::Algorithm::ES256);
        validation.set_audience(&["https://as.example"]);
        validation.set_issuer(&["client-7"]);
        let claims = jsonwebtoken::decode::<serde_json::Value>(&jwt, &public, &validation)
            .unwrap()
            .claims;
        assert_eq!(claims["sub"], "client-7");
        let (iat, exp) = (
            claims["iat"].as_u64().unwrap(),
            claims["exp"].as_u64().unwrap(),
        );
        assert_eq!(exp - iat, ASSERTION_LIFETIME);
        let again = key
            .client_assertion("client-7", "https://as.example")
            .unwrap();
        let jti = |t: &str| {
            jsonwebtoken::decode::<serde_json::Value>(t, &public, &validation)
                .unwrap()
                .claims["jti"]
                .clone()
        };
        assert_ne!(jti(&jwt), jti(&again), "a fresh jti each time");
        assert!(ClientKey::from_pem(TEST_KEY.as_bytes(), "HS256")
            .unwrap_err()
            .message()
            .contains("shared-secret"));
        assert!(ClientKey::from_pem(b"not a key", "ES256").is_err());
        assert!(ClientKey::from_pem(TEST_KEY.as_bytes(), "XX1").is_err());
    }
}
