//! JSON-RPC framing, classification and the server engine: any line a
//! peer sends is answered (or ignored) without a panic, and every reply is
//! one JSON value.

#![no_main]

use std::sync::{Arc, OnceLock};

use libfuzzer_sys::fuzz_target;
use mcpgen_runtime::jsonrpc;
use mcpgen_runtime::server::Server;
use mcpgen_runtime::Sink;

#[path = "common.rs"]
mod common;

fn fixture() -> &'static (Server, tokio::runtime::Runtime) {
    static FIXTURE: OnceLock<(Server, tokio::runtime::Runtime)> = OnceLock::new();
    FIXTURE.get_or_init(|| (common::server(), common::runtime()))
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    // Classification alone, then through a whole session of several lines.
    let _ = jsonrpc::parse(text);
    let (server, runtime) = fixture();
    let session = server.session();
    let extensions = Arc::new(http::Extensions::new());
    runtime.block_on(async {
        for line in text.split('\n') {
            let handled = server.handle_text(&session, line, &Sink::discard(), &extensions);
            let reply = tokio::time::timeout(std::time::Duration::from_secs(5), handled.into_reply()).await;
            if let Ok(Some(reply)) = reply {
                let parsed: Result<serde_json::Value, _> = serde_json::from_str(&reply.text);
                assert!(parsed.is_ok(), "a reply is not JSON: {}", reply.text);
            }
        }
    });
});
