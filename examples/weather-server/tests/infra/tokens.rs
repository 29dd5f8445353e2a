//! Bearer tokens for the replica tests and the soak: a key set served on
//! loopback and RS256 tokens signed with the runtime's test key
//! (`runtime/tests/fixtures/oauth/rsa_a.der`). Other crates include this
//! file too (`#[path]`).

#![allow(dead_code)] // each binary uses its own part

use std::io::{Read, Write};
use std::net::TcpListener;
use std::time::{SystemTime, UNIX_EPOCH};

use jsonwebtoken::{Algorithm, EncodingKey, Header};
use serde_json::json;

/// The public half of the signing key (JWK `n`; `e` is 65537).
const N: &str = "3G9KqHpmm6XJQf5FDopABMhbs24Xb2HhaAH6uZvN9kixNLMqs6H911K0wmtaEyATR_stqi-0eE7nE6I5666aT091TmjIE9k4EwTq_Da2CZqR9Lirj2K9eEhewIqGG-M9uBwCu_r0mY3eEdmOKezMQaZo9qCFcC4bJEGev7bZm3XIgymZwCYvh7j8NUrapoJYvr2uQ6NS81z2_O185y7E7QQxj0bXa-Zt1vN5f6HrySK1j45McC88qxVsC1yhjgMvcU0EF3pHqK017UgOpGBZ74fokrb6tnknS98_RIjSg-bIYs6XZw96XxrWQAzImX86wMREefiSeAMCpxAUlxwBfQ";

/// Serves the key set at every path of a loopback port; the issuer's URL.
pub fn key_server() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").expect("a loopback port");
    let issuer = format!("http://{}", listener.local_addr().unwrap());
    let body = json!({ "keys": [{ "kty": "RSA", "use": "sig", "alg": "RS256", "kid": "a", "n": N, "e": "AQAB" }] })
        .to_string();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let mut request = [0u8; 4096];
            let _ = stream.read(&mut request);
            let _ = write!(
                stream,
                "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            );
        }
    });
    issuer
}

/// A bearer token of `subject`, issued by `issuer` for `resource`, valid
/// for `lifetime` seconds (expired since then when negative).
pub fn token(issuer: &str, resource: &str, subject: &str, lifetime: i64) -> String {
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64;
    let claims = json!({ "iss": issuer, "aud": resource, "sub": subject, "exp": now + lifetime, "iat": now });
    let mut header = Header::new(Algorithm::RS256);
    header.kid = Some("a".into());
    let key = EncodingKey::from_rsa_der(include_bytes!(
        "../../../../runtime/tests/fixtures/oauth/rsa_a.der"
    ));
    jsonwebtoken::encode(&header, &claims, &key).expect("the token is signed")
}
