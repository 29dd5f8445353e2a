//! The client engine against a stdio server it may not trust: the server's
//! side is a script the input gives, and the client connects, lists tools
//! and calls one. Whatever the server writes (garbage, wrong ids, errors,
//! requests and notifications of its own, huge or deep JSON, a closed
//! stream), every step ends, Ok or an error, and nothing panics.
//!
//! Input: turns separated by a blank line; each turn is the lines the
//! server writes after the client's next request, with `$ID` replaced by
//! that request's id (so answers can match).

#![no_main]

use std::time::Duration;

use libfuzzer_sys::fuzz_target;
use mcpgen_runtime::client::{CallOptions, Client, ClientOptions};
use mcpgen_runtime::transport::LineTransport;
use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let turns: Vec<String> = text.split("\n\n").take(16).map(str::to_owned).collect();
    let Ok(rt) = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .start_paused(true)
        .build()
    else {
        return;
    };
    rt.block_on(async move {
        let (client_side, server_side) = tokio::io::duplex(1 << 16);
        let (client_read, client_write) = tokio::io::split(client_side);
        let (server_read, mut server_write) = tokio::io::split(server_side);
        let server = tokio::spawn(async move {
            let mut lines = BufReader::new(server_read).lines();
            let mut turns = turns.into_iter();
            while let Ok(Some(line)) = lines.next_line().await {
                let Some(id) = serde_json::from_str::<Value>(&line)
                    .ok()
                    .and_then(|v| v.get("id").cloned())
                else {
                    continue;
                };
                let Some(turn) = turns.next() else { break };
                let reply = turn.replace("$ID", &id.to_string());
                if server_write.write_all(reply.as_bytes()).await.is_err()
                    || server_write.write_all(b"\n").await.is_err()
                {
                    break;
                }
            }
        });
        let options = ClientOptions::new(["2025-11-25"]).timeout(Duration::from_secs(5));
        let transport = LineTransport::new(client_read, client_write);
        if let Ok(client) = Client::connect(transport, options).await {
            let call = CallOptions::new();
            let _ = client.request("tools/list", None, &call).await;
            let _ = client
                .request("tools/call", Some(json!({"name": "x", "arguments": {}})), &call)
                .await;
        }
        server.abort();
    });
});
