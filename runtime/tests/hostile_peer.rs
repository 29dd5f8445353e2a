//! The client engine against hostile servers: a server that writes one
//! endless line, one message over the limit, pages through `tools/list`
//! forever, repeats a cursor, or floods the client with requests without
//! reading its answers. Each must end in an error naming the limit and the
//! method, with bounded memory; none may hang the client or grow it.

use std::time::Duration;

use mcpgen_runtime::client::{Client, ClientError, ClientOptions};
use mcpgen_runtime::transport::{ChildTransport, StderrMode};
use mcpgen_runtime::transport::{
    LineReader, LineTransport, LineWriter, MessageRead, MessageWrite, Transport,
};
use serde_json::{json, Value};
use tokio::io::{duplex, AsyncWriteExt, DuplexStream, ReadHalf, WriteHalf};

type Peer = (
    LineReader<ReadHalf<DuplexStream>>,
    LineWriter<WriteHalf<DuplexStream>>,
);

/// A client transport and the fake server's two halves.
fn pipe(
    buffer: usize,
) -> (
    LineTransport<ReadHalf<DuplexStream>, WriteHalf<DuplexStream>>,
    Peer,
) {
    let (a, b) = duplex(buffer);
    let (ar, aw) = tokio::io::split(a);
    let (br, bw) = tokio::io::split(b);
    (
        LineTransport::new(ar, aw),
        LineTransport::new(br, bw).split(),
    )
}

async fn recv(peer: &mut Peer) -> Value {
    let text = peer.0.read_message().await.unwrap().expect("client closed");
    serde_json::from_str(&text).unwrap()
}

async fn send(peer: &mut Peer, v: Value) {
    peer.1.write_message(&v.to_string()).await.unwrap();
}

fn opts() -> ClientOptions {
    // Generous, so a broken limit fails on the assertion, not on timing.
    ClientOptions::new(["2025-11-25"]).timeout(Duration::from_secs(60))
}

/// Answers `initialize` and swallows `notifications/initialized`.
async fn handshake(peer: &mut Peer) {
    let init = recv(peer).await;
    send(peer, json!({"jsonrpc":"2.0","id":init["id"],"result":{
        "protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"hostile","version":"1"}}}))
    .await;
    assert_eq!(recv(peer).await["method"], "notifications/initialized");
}

fn unexpected(err: &ClientError) -> &str {
    match err {
        ClientError::Unexpected { message } => message,
        other => panic!("unexpected error kind: {other}"),
    }
}

#[tokio::test]
async fn a_server_writing_an_endless_line_fails_initialize_naming_the_limit() {
    // `yes | tr -d '\n'` writes "y" forever without a newline.
    let transport = ChildTransport::spawn(
        "sh",
        ["-c", "yes | tr -d '\\n'"],
        std::iter::empty::<(&str, &str)>(),
        StderrMode::Null,
    )
    .unwrap();
    let err = Client::connect(transport, opts()).await.unwrap_err();
    let message = unexpected(&err);
    assert!(message.contains("`initialize`"), "{message}");
    assert!(
        message.contains("33554432 bytes (32 MiB, ClientOptions::max_message_bytes)"),
        "{message}"
    );
}

#[tokio::test]
async fn an_oversized_answer_fails_the_calls_in_flight_and_closes() {
    let (t, mut peer) = pipe(1 << 16);
    let server = tokio::spawn(async move {
        handshake(&mut peer).await;
        let list = recv(&mut peer).await;
        assert_eq!(list["method"], "tools/list");
        let huge = format!(
            r#"{{"jsonrpc":"2.0","id":{},"result":{{"tools":[],"pad":"{}"}}}}"#,
            list["id"],
            "x".repeat(300_000)
        );
        // The client stops reading after the limit, so this write never
        // finishes: leave it to a task of its own.
        let mut writer = peer.1;
        tokio::spawn(async move { writer.write_message(&huge).await });
        peer.0
    });
    let client = Client::connect(t, opts().max_message_bytes(100_000))
        .await
        .unwrap();
    let err = client.list_all_tools().await.unwrap_err();
    let message = unexpected(&err);
    assert!(message.contains("`tools/list`"), "{message}");
    assert!(message.contains("100000 bytes"), "{message}");
    let _peer = server.await.unwrap();
    match client
        .request("ping", None, &Default::default())
        .await
        .unwrap_err()
    {
        ClientError::Closed { reason } => assert!(reason.contains("100000 bytes"), "{reason}"),
        other => panic!("unexpected {other}"),
    }
}

/// A fake server answering every `tools/list` with `per_page` tools of
/// `description_len` bytes each and a fresh cursor, forever (or `cursor`
/// when given, every time).
fn pager(mut peer: Peer, per_page: usize, description_len: usize, cursor: Option<&'static str>) {
    tokio::spawn(async move {
        handshake(&mut peer).await;
        let mut page = 0;
        loop {
            let Ok(Some(text)) = peer.0.read_message().await else {
                return;
            };
            let request: Value = serde_json::from_str(&text).unwrap();
            page += 1;
            let tools: Vec<Value> = (0..per_page)
                .map(|i| json!({"name": format!("t{page}_{i}"), "description": "d".repeat(description_len), "inputSchema": {"type": "object"}}))
                .collect();
            let next = cursor.map_or_else(|| format!("page-{page}"), str::to_owned);
            let answer = json!({"jsonrpc":"2.0","id":request["id"],"result":{"tools": tools, "nextCursor": next}});
            if peer.1.write_message(&answer.to_string()).await.is_err() {
                return;
            }
        }
    });
}

#[tokio::test]
async fn paging_forever_stops_at_the_tool_limit_naming_tools_list() {
    let (t, peer) = pipe(1 << 16);
    pager(peer, 100, 10, None);
    let client = Client::connect(t, opts()).await.unwrap();
    let message = unexpected(&client.list_all_tools().await.unwrap_err()).to_owned();
    assert!(
        message.starts_with("tools/list stopped after 101 page(s)"),
        "{message}"
    );
    assert!(
        message.contains("more than 10000 tools (ClientOptions::max_listed_tools)"),
        "{message}"
    );
}

#[tokio::test]
async fn paging_forever_stops_at_the_page_limit() {
    let (t, peer) = pipe(1 << 16);
    pager(peer, 0, 0, None);
    let client = Client::connect(t, opts()).await.unwrap();
    let message = unexpected(&client.list_all_tools().await.unwrap_err()).to_owned();
    assert!(
        message.contains("did not end after 1000 pages (ClientOptions::max_list_pages)"),
        "{message}"
    );
}

#[tokio::test]
async fn paging_forever_stops_at_the_byte_limit() {
    let (t, peer) = pipe(1 << 16);
    pager(peer, 2, 20_000, None);
    let client = Client::connect(t, opts().max_message_bytes(200_000))
        .await
        .unwrap();
    let message = unexpected(&client.list_all_tools().await.unwrap_err()).to_owned();
    assert!(
        message.starts_with("tools/list stopped after 5 page(s)"),
        "{message}"
    );
    assert!(
        message.contains("longer than 200000 bytes in all"),
        "{message}"
    );
}

#[tokio::test]
async fn a_repeated_cursor_stops_paging() {
    let (t, peer) = pipe(1 << 16);
    pager(peer, 1, 0, Some("again"));
    let client = Client::connect(t, opts()).await.unwrap();
    let message = unexpected(&client.list_all_tools().await.unwrap_err()).to_owned();
    assert!(
        message.starts_with("tools/list stopped after 2 page(s)"),
        "{message}"
    );
    assert!(
        message.contains("repeated the cursor \"again\""),
        "{message}"
    );
}

#[tokio::test]
async fn a_server_that_floods_pings_without_reading_gets_a_bounded_number_of_answers() {
    let (t, mut peer) = pipe(1 << 16);
    let (flooded, flood_done) = tokio::sync::oneshot::channel();
    let server = tokio::spawn(async move {
        handshake(&mut peer).await;
        let pings = 200_000;
        for id in 0..pings {
            let ping = format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"ping"}}"#);
            peer.1.write_message(&ping).await.unwrap();
        }
        flooded.send(()).unwrap();
        // Now read what the client queued while nobody read it, up to the
        // client's own request sent after the flood.
        let mut answers = 0;
        loop {
            let message = recv(&mut peer).await;
            if message["method"] == "ping" {
                send(
                    &mut peer,
                    json!({"jsonrpc":"2.0","id":message["id"],"result":{}}),
                )
                .await;
                break;
            }
            answers += 1;
        }
        // Once the server reads again, its pings are answered again.
        send(
            &mut peer,
            json!({"jsonrpc":"2.0","id":"again","method":"ping"}),
        )
        .await;
        while recv(&mut peer).await["id"] != "again" {}
        (answers, pings)
    });
    let client = Client::connect(t, opts()).await.unwrap();
    flood_done.await.unwrap();
    client
        .request("ping", None, &Default::default())
        .await
        .unwrap();
    let (answers, pings) = server.await.unwrap();
    assert!(
        answers < pings / 10,
        "{answers} of {pings} pings answered while the server was not reading"
    );
}

#[tokio::test]
async fn invalid_utf8_from_the_server_is_garbage_not_a_patched_message() {
    let (a, b) = duplex(1 << 16);
    let (ar, aw) = tokio::io::split(a);
    let (br, mut bw) = tokio::io::split(b);
    let mut server_in = LineTransport::new(br, tokio::io::sink()).split().0;
    tokio::spawn(async move {
        let init: Value =
            serde_json::from_str(&server_in.read_message().await.unwrap().unwrap()).unwrap();
        let mut answer = format!(
            r#"{{"jsonrpc":"2.0","id":{},"result":{{"protocolVersion":"2025-11-25","capabilities":{{}},"serverInfo":{{"name":"caf"#,
            init["id"]
        )
        .into_bytes();
        answer.extend_from_slice(b"\xe9\",\"version\":\"1\"}}}\n");
        bw.write_all(&answer).await.unwrap();
        std::future::pending::<()>().await;
    });
    let err = Client::connect(LineTransport::new(ar, aw), opts())
        .await
        .unwrap_err();
    match err {
        ClientError::Garbage { line } => assert!(line.contains("not valid UTF-8"), "{line}"),
        other => panic!("unexpected {other}"),
    }
}
