//! The bearer gate's DPoP proof check (RFC 9449 §4.3) on what a client
//! sends: any `DPoP` header text is refused with a reason or accepted,
//! never a panic; an accepted proof is never accepted twice (replay). And
//! proofs made right by a real key, for a method, URL and token the input
//! chooses, then altered at one byte the input chooses: accepted exactly
//! when unaltered and aimed at the gate's URL, method and token (or a
//! spelling of that URL that differs only in case, default port or
//! trailing slash).
//!
//! Input: a first byte choosing the mode, then text.

#![no_main]

use libfuzzer_sys::fuzz_target;
use mcpgen_runtime::fuzzing::dpop_proof;
use mcpgen_runtime::client::oauth::DpopKey;

const RESOURCE: &str = "https://mcp.example.com/mcp";

fuzz_target!(|data: &[u8]| {
    let Some((&mode, rest)) = data.split_first() else { return };
    let Ok(text) = std::str::from_utf8(rest) else { return };
    if mode % 2 == 0 {
        // Raw header text.
        let results = dpop_proof(text, "POST", RESOURCE, "token", true);
        if let [Ok(_), second] = results.as_slice() {
            assert!(second.is_err(), "a proof was accepted twice: {text:?}");
        }
        return;
    }
    // A real proof: method, URL and token from the text, one byte flipped.
    let mut fields = text.splitn(4, '\n');
    let method = fields.next().unwrap_or("POST");
    let url = fields.next().unwrap_or(RESOURCE);
    let token = fields.next().unwrap_or("token");
    let flip: usize = fields.next().map_or(0, |f| f.bytes().map(usize::from).sum());
    let Ok(key) = DpopKey::generate() else { return };
    let Ok(proof) = key.proof(method, url, Some(token), None) else { return };
    let mut bytes = proof.clone().into_bytes();
    let altered = flip != 0;
    if altered {
        let at = flip % bytes.len();
        bytes[at] ^= (mode | 1) & 0x7f;
    }
    let Ok(sent) = String::from_utf8(bytes) else { return };
    let results = dpop_proof(&sent, "POST", RESOURCE, "token", true);
    let base = url.split(['?', '#']).next().unwrap_or_default();
    let aimed = method == "POST" && base == RESOURCE && token == "token";
    // What the gate may also accept: the same URL with another case of
    // scheme or host, the default port written out, or trailing slashes.
    let alike = method == "POST" && token == "token" && same_place(base);
    match results.as_slice() {
        [Ok(jkt), second] => {
            assert!(second.is_err(), "replay accepted");
            assert_eq!(jkt, key.thumbprint());
            assert!(alike, "a proof for {method} {url} with another token was accepted");
            assert!(!altered || sent == proof, "an altered proof was accepted: {sent}");
        }
        [Err(_), _] => assert!(
            !(aimed && !altered),
            "a good proof was refused: {results:?}"
        ),
        _ => {}
    }
});

/// Whether `url` names `RESOURCE` up to the case of its scheme and host, an
/// explicit default port (`:443`, `:0443`, an empty `:`) and trailing `/`s.
fn same_place(url: &str) -> bool {
    let Some(rest) = strip_prefix_ignoring_case(url, "https://mcp.example.com") else {
        return false;
    };
    let path = match rest.strip_prefix(':') {
        Some(port) => {
            let digits = port.len() - port.trim_start_matches(|c: char| c.is_ascii_digit()).len();
            if digits > 0 && port[..digits].parse::<u32>() != Ok(443) {
                return false;
            }
            &port[digits..]
        }
        None => rest,
    };
    path.trim_end_matches('/') == "/mcp"
}

fn strip_prefix_ignoring_case<'a>(text: &'a str, prefix: &str) -> Option<&'a str> {
    let head = text.get(..prefix.len())?;
    head.eq_ignore_ascii_case(prefix).then(|| &text[prefix.len()..])
}
