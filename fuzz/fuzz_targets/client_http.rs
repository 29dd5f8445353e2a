//! The client engine over the Streamable HTTP client transport against a
//! server it may not trust: every connection the transport makes is an
//! in-memory stream (`mcpgen_runtime::fuzzing::http_transport`) whose
//! other end writes the bytes the input gives as the HTTP answer to each
//! request: any status line, headers and body, JSON or Server-Sent
//! Events, chunked, truncated, or the connection closed. The client
//! connects, lists tools and calls one, on a paused clock (timeouts and
//! retry delays pass at once).
//!
//! Checked, beyond "no panic":
//! - every step ends, `Ok` or an error, within a bound of virtual time;
//! - no error is blank, and nothing the client returns is much larger than
//!   what the server sent (no amplification);
//! - the client makes a bounded number of requests and connections;
//! - once the client is dropped the transport closes (`HttpInfo::closed`)
//!   and no connection stays open.
//!
//! Input: the first byte picks the revision (even: 2025-11-25, stateful;
//! odd: 2026-07-28, stateless); the rest is turns separated by NUL bytes,
//! each the bytes written after the transport's next request, whichever
//! connection it came on. In a turn, `$ID` becomes the request's JSON-RPC
//! id and `$LEN` the length of what follows the first blank line (the
//! body, after `$ID` is filled in). A turn starting with `!` closes the
//! connection after it; otherwise the connection waits for another
//! request. When the turns run out, each new request's connection is
//! closed unanswered.

#![no_main]

use std::collections::VecDeque;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use libfuzzer_sys::fuzz_target;
use mcpgen_runtime::client::{CallOptions, Client, ClientError, ClientOptions};
use mcpgen_runtime::fuzzing::http_transport;
use serde_json::{json, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt, DuplexStream};
use tokio::task::JoinHandle;

/// The most turns read from one input.
const MAX_TURNS: usize = 32;
/// The longest message the client reads (JSON body or SSE event).
const MAX_MESSAGE: usize = 64 << 10;
/// Each call's timeout.
const CALL_TIMEOUT: Duration = Duration::from_secs(5);
/// The longest the whole conversation may take (virtual time): three
/// calls, each with its retries, resumes and re-authorizations.
const CONVERSATION: Duration = Duration::from_secs(600);
/// The longest closing may take after the client is dropped (the
/// session's `DELETE` has 5 s; virtual time).
const CLOSING: Duration = Duration::from_secs(60);
/// The most requests and connections for the three calls.
const MAX_REQUESTS: usize = 256;
/// The most request head read (bytes) before the server gives up.
const MAX_HEAD: usize = 1 << 20;

/// What the served side saw and holds.
#[derive(Default)]
struct Served {
    turns: Mutex<VecDeque<Vec<u8>>>,
    requests: AtomicUsize,
    connections: Mutex<Vec<JoinHandle<()>>>,
}

fuzz_target!(|data: &[u8]| {
    let Some((&mode, script)) = data.split_first() else {
        return;
    };
    let revision = if mode % 2 == 0 { "2025-11-25" } else { "2026-07-28" };
    let served = Arc::new(Served::default());
    *served.turns.lock().unwrap() = script
        .split(|&b| b == 0)
        .take(MAX_TURNS)
        .map(<[u8]>::to_vec)
        .collect();
    let Ok(rt) = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .start_paused(true)
        .build()
    else {
        return;
    };
    rt.block_on(converse(revision, served, data.len()));
});

async fn converse(revision: &str, served: Arc<Served>, input: usize) {
    let dialed = Arc::clone(&served);
    let transport = http_transport("http://mcp.test/mcp", move || {
        let (client, server) = tokio::io::duplex(1 << 17);
        let task = tokio::spawn(serve(server, Arc::clone(&dialed)));
        dialed.connections.lock().unwrap().push(task);
        client
    })
    .expect("a valid URL")
    .max_message_bytes(MAX_MESSAGE);
    let info = transport.info();
    let options = ClientOptions::new([revision])
        .timeout(CALL_TIMEOUT)
        .max_message_bytes(MAX_MESSAGE);

    let outcomes = tokio::time::timeout(CONVERSATION, async {
        let mut outcomes = Vec::new();
        match Client::connect(transport, options).await {
            Ok(client) => {
                let call = CallOptions::new();
                outcomes.push(client.request("tools/list", None, &call).await);
                let params = json!({"name": "echo", "arguments": {"text": "hi"}});
                outcomes.push(client.request("tools/call", Some(params), &call).await);
                outcomes.push(client.request("ping", None, &call).await);
            }
            Err(e) => outcomes.push(Err(e)),
        }
        outcomes
    })
    .await
    .unwrap_or_else(|_| panic!("the calls did not end within {CONVERSATION:?} (virtual)"));

    // Nothing the client hands back is much larger than what it was sent.
    let bound = 8 * input + (16 << 10);
    for outcome in &outcomes {
        let size = match outcome {
            Ok(value) => serde_json::to_string(value).map_or(0, |t| t.len()),
            Err(e) => checked_error(e),
        };
        assert!(size <= bound, "an outcome of {size} bytes from {input} bytes of input: {outcome:?}");
    }

    tokio::time::timeout(CLOSING, info.closed())
        .await
        .unwrap_or_else(|_| panic!("the transport did not close within {CLOSING:?} of the client's drop"));
    let requests = served.requests.load(Ordering::Relaxed);
    let connections = std::mem::take(&mut *served.connections.lock().unwrap());
    assert!(
        requests <= MAX_REQUESTS && connections.len() <= MAX_REQUESTS,
        "{requests} requests on {} connections for three calls",
        connections.len()
    );
    // Every connection ends: the client closed it, or the server did.
    let all_closed = async {
        for task in connections {
            let _ = task.await;
        }
    };
    tokio::time::timeout(CLOSING, all_closed)
        .await
        .unwrap_or_else(|_| panic!("a connection stayed open after the transport closed"));
}

/// The size of an error's text, which must say something.
fn checked_error(e: &ClientError) -> usize {
    let text = e.to_string();
    assert!(!text.trim().is_empty(), "a blank error: {e:?}");
    if let ClientError::Protocol { data: Some(data), .. } = e {
        return text.len() + serde_json::to_string(data).map_or(0, |t| t.len());
    }
    text.len()
}

/// One connection's server: reads a request, writes the next turn, and
/// so on until a turn closes it, the turns run out or the client goes.
async fn serve(mut conn: DuplexStream, served: Arc<Served>) {
    let mut buffered = Vec::new();
    while let Some(body) = read_request(&mut conn, &mut buffered).await {
        served.requests.fetch_add(1, Ordering::Relaxed);
        let Some(turn) = served.turns.lock().unwrap().pop_front() else {
            return;
        };
        let (close, turn) = match turn.strip_prefix(b"!") {
            Some(rest) => (true, rest.to_vec()),
            None => (false, turn),
        };
        let id = serde_json::from_slice::<Value>(&body)
            .ok()
            .and_then(|v| v.get("id").map(Value::to_string))
            .unwrap_or_else(|| "null".to_owned());
        if conn.write_all(&fill(&turn, &id)).await.is_err() || close {
            return;
        }
    }
}

/// Reads one request (head, then a `Content-Length` body) and returns its
/// body; `None` when the client closed the connection or sent no request.
async fn read_request(conn: &mut DuplexStream, buffered: &mut Vec<u8>) -> Option<Vec<u8>> {
    let head_end = loop {
        if let Some(at) = find(buffered, b"\r\n\r\n") {
            break at + 4;
        }
        if buffered.len() > MAX_HEAD || !read_more(conn, buffered).await {
            return None;
        }
    };
    let head = String::from_utf8_lossy(&buffered[..head_end]).to_ascii_lowercase();
    let length = head
        .lines()
        .find_map(|l| l.strip_prefix("content-length:"))
        .and_then(|v| v.trim().parse::<usize>().ok())
        .unwrap_or(0);
    while buffered.len() < head_end + length {
        if !read_more(conn, buffered).await {
            return None;
        }
    }
    let body = buffered[head_end..head_end + length].to_vec();
    buffered.drain(..head_end + length);
    Some(body)
}

async fn read_more(conn: &mut DuplexStream, buffered: &mut Vec<u8>) -> bool {
    let mut chunk = [0u8; 4096];
    match conn.read(&mut chunk).await {
        Ok(0) | Err(_) => false,
        Ok(n) => {
            buffered.extend_from_slice(&chunk[..n]);
            true
        }
    }
}

/// `turn` with `$ID` replaced by `id`, then `$LEN` in the head by the
/// length of what follows its first blank line.
fn fill(turn: &[u8], id: &str) -> Vec<u8> {
    let turn = replace(turn, b"$ID", id.as_bytes());
    let Some(at) = find(&turn, b"\r\n\r\n") else {
        return turn;
    };
    let (head, rest) = turn.split_at(at);
    let mut out = replace(head, b"$LEN", (rest.len() - 4).to_string().as_bytes());
    out.extend_from_slice(rest);
    out
}

fn replace(text: &[u8], from: &[u8], to: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = find(rest, from) {
        out.extend_from_slice(&rest[..at]);
        out.extend_from_slice(to);
        rest = &rest[at + from.len()..];
    }
    out.extend_from_slice(rest);
    out
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}
