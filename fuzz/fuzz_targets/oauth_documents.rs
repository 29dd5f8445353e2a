//! What the OAuth client reads from servers it may not trust: any bytes as
//! protected resource metadata, authorization server metadata and a token
//! response give an answer or an error, never a panic, and an accepted
//! token response is of the `Bearer` or `DPoP` type.
//!
//! Input: the document.

#![no_main]

use libfuzzer_sys::fuzz_target;
use mcpgen_runtime::fuzzing::oauth_documents;

const ENDPOINT: &str = "https://mcp.example.com/mcp";

fuzz_target!(|data: &[u8]| {
    let read = oauth_documents(ENDPOINT, data);
    if let Some(Ok(kind)) = &read.tokens {
        assert!(
            kind.eq_ignore_ascii_case("bearer") || kind.eq_ignore_ascii_case("dpop"),
            "{kind}"
        );
    }
});
