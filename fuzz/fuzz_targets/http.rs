//! The Streamable HTTP service on arbitrary requests: any method, path,
//! headers and body get a response with a valid status, never a panic.
//!
//! Input: byte 0 picks the method, then `name: value` header lines up to
//! an empty line, then the body.

#![no_main]

use std::sync::OnceLock;

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use libfuzzer_sys::fuzz_target;
use mcpgen_runtime::server::http::{HttpConfig, HttpService};

#[path = "common.rs"]
mod common;

fn fixture() -> &'static (HttpService, tokio::runtime::Runtime) {
    static FIXTURE: OnceLock<(HttpService, tokio::runtime::Runtime)> = OnceLock::new();
    FIXTURE.get_or_init(|| {
        let config = HttpConfig::default().max_sessions(64).max_body_bytes(1 << 16);
        (HttpService::new(common::server(), config), common::runtime())
    })
}

fuzz_target!(|data: &[u8]| {
    let Some((&m, rest)) = data.split_first() else { return };
    let method = ["POST", "GET", "DELETE", "PUT", "OPTIONS"][usize::from(m) % 5];
    let split = rest.windows(2).position(|w| w == b"\n\n").unwrap_or(rest.len());
    let (head, body) = rest.split_at(split);
    let mut request = http::Request::builder().method(method).uri("/mcp").header("host", "localhost");
    for line in head.split(|b| *b == b'\n') {
        let Some(colon) = line.iter().position(|b| *b == b':') else { continue };
        let (name, value) = line.split_at(colon);
        let (Ok(name), Ok(value)) =
            (http::HeaderName::from_bytes(name), http::HeaderValue::from_bytes(value[1..].trim_ascii()))
        else {
            continue;
        };
        request = request.header(name, value);
    }
    let body = body.get(2..).unwrap_or_default().to_vec();
    let Ok(request) = request.body(Full::new(Bytes::from(body))) else { return };
    let (service, runtime) = fixture();
    runtime.block_on(async {
        let response = service.handle(request).await;
        assert!(response.status().as_u16() >= 200 && response.status().as_u16() < 600);
        // Reads a bounded part of the body (SSE streams may stay open).
        let mut body = response.into_body();
        for _ in 0..4 {
            match tokio::time::timeout(std::time::Duration::from_millis(200), body.frame()).await {
                Ok(Some(Ok(_))) => {}
                _ => break,
            }
        }
    });
});
