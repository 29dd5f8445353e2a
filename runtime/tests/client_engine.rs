//! The client engine against in-process fake servers (a duplex pipe): id
//! routing, progress, ping, timeouts with cancellation, error mapping,
//! garbage, closure, version negotiation, paging and drift.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use mcpgen_runtime::client::{
    CallOptions, Client, ClientError, ClientOptions, Drift, GarbagePolicy, SchemaKind, ToolSchemas,
};
use mcpgen_runtime::transport::{
    LineReader, LineTransport, LineWriter, MessageRead, MessageWrite, Transport,
};
use serde_json::{json, Value};
use tokio::io::{duplex, DuplexStream, ReadHalf, WriteHalf};

type Peer = (
    LineReader<ReadHalf<DuplexStream>>,
    LineWriter<WriteHalf<DuplexStream>>,
);

/// A client transport and the fake server's two halves.
fn pipe() -> (
    LineTransport<ReadHalf<DuplexStream>, WriteHalf<DuplexStream>>,
    Peer,
) {
    let (a, b) = duplex(1 << 16);
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
    ClientOptions::new(["2025-11-25", "2025-06-18"]).timeout(Duration::from_secs(20))
}

/// Answers `initialize` with `version` and swallows `notifications/initialized`.
async fn handshake(peer: &mut Peer, version: &str) -> Value {
    let init = recv(peer).await;
    assert_eq!(init["method"], "initialize");
    send(
        peer,
        json!({"jsonrpc":"2.0","id":init["id"],"result":{
        "protocolVersion": version, "capabilities": {"tools":{}},
        "serverInfo": {"name":"fake","version":"1.0"}}}),
    )
    .await;
    let note = recv(peer).await;
    assert_eq!(note["method"], "notifications/initialized");
    init
}

#[tokio::test]
async fn initialize_offers_newest_and_accepts_supported_older() {
    let (t, mut peer) = pipe();
    let server = tokio::spawn(async move {
        let init = handshake(&mut peer, "2025-06-18").await;
        (init, peer)
    });
    let client = Client::connect(t, opts()).await.unwrap();
    let (init, _peer) = server.await.unwrap();
    assert_eq!(init["params"]["protocolVersion"], "2025-11-25");
    assert_eq!(init["params"]["clientInfo"]["name"], "mcpgen-client");
    let s = client.session().unwrap();
    assert_eq!(s.protocol_version, "2025-06-18");
    assert_eq!(s.server_info["name"], "fake");
    assert!(!s.stateless);
}

#[tokio::test]
async fn initialize_rejects_unsupported_version() {
    let (t, mut peer) = pipe();
    tokio::spawn(async move {
        let init = recv(&mut peer).await;
        send(&mut peer, json!({"jsonrpc":"2.0","id":init["id"],"result":{
            "protocolVersion":"2024-11-05","capabilities":{},"serverInfo":{"name":"old","version":"0"}}}))
        .await;
        recv(&mut peer).await
    });
    let err = Client::connect(t, opts()).await.unwrap_err();
    match &err {
        ClientError::Version {
            offered,
            server,
            supported,
        } => {
            assert_eq!(offered, "2025-11-25");
            assert_eq!(server, "2024-11-05");
            assert_eq!(supported.len(), 2);
        }
        other => panic!("expected a version error, got {other:?}"),
    }
    assert!(err.to_string().contains("2024-11-05"));
}

#[tokio::test]
async fn stateless_revision_uses_discover_and_meta() {
    let (t, mut peer) = pipe();
    let server = tokio::spawn(async move {
        let disc = recv(&mut peer).await;
        assert_eq!(disc["method"], "server/discover");
        assert_eq!(
            disc["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"],
            "2026-07-28"
        );
        send(
            &mut peer,
            json!({"jsonrpc":"2.0","id":disc["id"],"result":{
            "resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{"tools":{}},
            "_meta":{"io.modelcontextprotocol/serverInfo":{"name":"new","version":"2"}}}}),
        )
        .await;
        let call = recv(&mut peer).await;
        send(
            &mut peer,
            json!({"jsonrpc":"2.0","id":call["id"],"result":{"tools":[]}}),
        )
        .await;
        call
    });
    let client = Client::connect(t, ClientOptions::new(["2026-07-28", "2025-11-25"]))
        .await
        .unwrap();
    assert!(client.session().unwrap().stateless);
    assert_eq!(client.session().unwrap().server_info["name"], "new");
    client.list_all_tools().await.unwrap();
    let call = server.await.unwrap();
    assert_eq!(
        call["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"],
        "2026-07-28"
    );
    assert_eq!(
        call["params"]["_meta"]["io.modelcontextprotocol/clientInfo"]["name"],
        "mcpgen-client"
    );
}

#[tokio::test]
async fn discover_unknown_falls_back_to_initialize() {
    let (t, mut peer) = pipe();
    tokio::spawn(async move {
        let disc = recv(&mut peer).await;
        send(
            &mut peer,
            json!({"jsonrpc":"2.0","id":disc["id"],"error":{"code":-32601,"message":"nope"}}),
        )
        .await;
        handshake(&mut peer, "2025-11-25").await;
        std::future::pending::<()>().await;
    });
    let client = Client::connect(t, ClientOptions::new(["2026-07-28", "2025-11-25"]))
        .await
        .unwrap();
    assert_eq!(client.session().unwrap().protocol_version, "2025-11-25");
    assert!(!client.session().unwrap().stateless);
}

/// Answers one `server/discover` with a JSON-RPC error; returns the request.
async fn refuse_discover(peer: &mut Peer, error: Value) -> Value {
    let disc = recv(peer).await;
    assert_eq!(disc["method"], "server/discover");
    send(peer, json!({"jsonrpc":"2.0","id":disc["id"],"error":error})).await;
    disc
}

fn discover_result(version: &str) -> Value {
    json!({"resultType":"complete","supportedVersions":[version],"capabilities":{"tools":{}},
        "_meta":{"io.modelcontextprotocol/serverInfo":{"name":"modern","version":"1"}}})
}

#[tokio::test]
async fn discover_refusals_of_a_legacy_server_fall_back_to_initialize() {
    // -32602 (a legacy server's "not initialised") and the transport's
    // -32000 for an HTTP 404 or a 400 without a modern body.
    for error in [
        json!({"code":-32602,"message":"not initialised"}),
        json!({"code":-32000,"message":"the server answered HTTP 404 Not Found","data":{"httpStatus":404}}),
    ] {
        let (t, mut peer) = pipe();
        tokio::spawn(async move {
            refuse_discover(&mut peer, error).await;
            handshake(&mut peer, "2025-11-25").await;
            std::future::pending::<()>().await;
        });
        let client = Client::connect(t, ClientOptions::new(["2026-07-28", "2025-11-25"]))
            .await
            .unwrap();
        assert_eq!(client.session().unwrap().protocol_version, "2025-11-25");
    }
}

#[tokio::test]
async fn unsupported_version_retries_discover_with_a_listed_version() {
    let (t, mut peer) = pipe();
    let server = tokio::spawn(async move {
        let first = refuse_discover(
            &mut peer,
            json!({"code":-32022,"message":"Unsupported protocol version",
            "data":{"supported":["2026-07-28"],"requested":"2026-07-28"}}),
        )
        .await;
        let again = recv(&mut peer).await;
        assert_eq!(
            again["method"], "server/discover",
            "retried, not initialize: {again}"
        );
        send(
            &mut peer,
            json!({"jsonrpc":"2.0","id":again["id"],"result":discover_result("2026-07-28")}),
        )
        .await;
        (first, again)
    });
    let client = Client::connect(t, ClientOptions::new(["2026-07-28", "2025-11-25"]))
        .await
        .unwrap();
    let (first, again) = server.await.unwrap();
    assert_ne!(first["id"], again["id"]);
    assert_eq!(
        again["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"],
        "2026-07-28"
    );
    let session = client.session().unwrap();
    assert!(session.stateless);
    assert_eq!(session.protocol_version, "2026-07-28");
    assert_eq!(session.server_info["name"], "modern");
}

#[tokio::test]
async fn unsupported_version_listing_a_legacy_version_uses_initialize_with_it() {
    let (t, mut peer) = pipe();
    let server = tokio::spawn(async move {
        refuse_discover(
            &mut peer,
            json!({"code":-32022,"message":"Unsupported protocol version",
            "data":{"supported":["2025-06-18"],"requested":"2026-07-28"}}),
        )
        .await;
        let init = handshake(&mut peer, "2025-06-18").await;
        (init, peer)
    });
    let options = ClientOptions::new(["2026-07-28", "2025-11-25", "2025-06-18"]);
    let client = Client::connect(t, options).await.unwrap();
    assert_eq!(client.session().unwrap().protocol_version, "2025-06-18");
    let (init, _peer) = server.await.unwrap();
    assert_eq!(init["params"]["protocolVersion"], "2025-06-18");
}

#[tokio::test]
async fn unsupported_version_without_a_common_version_is_a_version_error() {
    for supported in [json!(["2027-01-01"]), json!(["2026-07-28"])] {
        let (t, mut peer) = pipe();
        let again = supported == json!(["2026-07-28"]);
        let server = tokio::spawn(async move {
            let error = json!({"code":-32022,"message":"Unsupported protocol version",
                "data":{"supported":supported,"requested":"2026-07-28"}});
            refuse_discover(&mut peer, error.clone()).await;
            if again {
                // Refused a second time: the client does not loop.
                refuse_discover(&mut peer, error).await;
            }
            // What comes next, up to the client's end: no initialize.
            peer.0.read_message().await.unwrap()
        });
        let err = Client::connect(t, ClientOptions::new(["2026-07-28", "2025-11-25"]))
            .await
            .unwrap_err();
        assert!(
            matches!(&err, ClientError::Version { offered, .. } if offered == "2026-07-28"),
            "{err}"
        );
        assert_eq!(server.await.unwrap(), None, "nothing follows the refusal");
    }
}

#[tokio::test]
async fn other_modern_errors_end_the_handshake_without_initialize() {
    for code in [-32020, -32021] {
        let (t, mut peer) = pipe();
        let server = tokio::spawn(async move {
            refuse_discover(&mut peer, json!({"code":code,"message":"modern refusal"})).await;
            peer.0.read_message().await.unwrap()
        });
        let err = Client::connect(t, ClientOptions::new(["2026-07-28", "2025-11-25"]))
            .await
            .unwrap_err();
        assert!(
            matches!(&err, ClientError::Protocol { code: c, method, .. } if *c == code && method == "server/discover"),
            "{err}"
        );
        assert_eq!(server.await.unwrap(), None, "nothing follows the refusal");
    }
}

#[tokio::test]
async fn responses_route_by_id_out_of_order() {
    let (t, mut peer) = pipe();
    tokio::spawn(async move {
        handshake(&mut peer, "2025-11-25").await;
        let a = recv(&mut peer).await;
        let b = recv(&mut peer).await;
        // Answer in reverse order, with a ping from the server in between.
        send(
            &mut peer,
            json!({"jsonrpc":"2.0","id":"srv-1","method":"ping"}),
        )
        .await;
        let pong = recv(&mut peer).await;
        assert_eq!(pong, json!({"jsonrpc":"2.0","id":"srv-1","result":{}}));
        for m in [b, a] {
            let text = m["params"]["arguments"]["text"].clone();
            send(
                &mut peer,
                json!({"jsonrpc":"2.0","id":m["id"],"result":{
                "content":[{"type":"text","text":text}]}}),
            )
            .await;
        }
        std::future::pending::<()>().await;
    });
    let client = Client::connect(t, opts()).await.unwrap();
    let o = CallOptions::new();
    let (a, b) = tokio::join!(
        client.call_tool("echo", json!({"text":"a"}), &o),
        client.call_tool("echo", json!({"text":"b"}), &o),
    );
    assert_eq!(a.unwrap()["content"][0]["text"], "a");
    assert_eq!(b.unwrap()["content"][0]["text"], "b");
}

#[tokio::test]
async fn progress_reaches_the_call_callback() {
    let (t, mut peer) = pipe();
    tokio::spawn(async move {
        handshake(&mut peer, "2025-11-25").await;
        let call = recv(&mut peer).await;
        let token = call["params"]["_meta"]["progressToken"].clone();
        assert!(!token.is_null());
        for i in 1..=3 {
            send(
                &mut peer,
                json!({"jsonrpc":"2.0","method":"notifications/progress","params":{
                "progressToken":token,"progress":i,"total":3,"message":format!("step {i}")}}),
            )
            .await;
        }
        send(
            &mut peer,
            json!({"jsonrpc":"2.0","id":call["id"],"result":{"content":[]}}),
        )
        .await;
        std::future::pending::<()>().await;
    });
    let client = Client::connect(t, opts()).await.unwrap();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let sink = seen.clone();
    let options = CallOptions::new()
        .on_progress(move |p| sink.lock().unwrap().push((p.progress, p.total, p.message)));
    client.call_tool("slow", json!({}), &options).await.unwrap();
    let seen = seen.lock().unwrap().clone();
    assert_eq!(seen.len(), 3);
    assert_eq!(seen[2], (3.0, Some(3.0), Some("step 3".to_owned())));
}

#[tokio::test]
async fn timeout_sends_cancelled_for_that_request() {
    let (t, mut peer) = pipe();
    let server = tokio::spawn(async move {
        handshake(&mut peer, "2025-11-25").await;
        let call = recv(&mut peer).await;
        let cancel = recv(&mut peer).await;
        // A late answer after the cancellation must be dropped quietly.
        send(
            &mut peer,
            json!({"jsonrpc":"2.0","id":call["id"],"result":{"content":[]}}),
        )
        .await;
        let next = recv(&mut peer).await;
        send(
            &mut peer,
            json!({"jsonrpc":"2.0","id":next["id"],"result":{"content":[]}}),
        )
        .await;
        (call, cancel)
    });
    let client = Client::connect(t, opts()).await.unwrap();
    let err = client
        .call_tool(
            "sleep",
            json!({}),
            &CallOptions::new().timeout(Duration::from_millis(50)),
        )
        .await
        .unwrap_err();
    let ClientError::Timeout { id, method, .. } = &err else {
        panic!("expected timeout, got {err:?}")
    };
    assert_eq!(method, "tools/call");
    client
        .call_tool("after", json!({}), &CallOptions::new())
        .await
        .unwrap();
    let (call, cancel) = server.await.unwrap();
    assert_eq!(cancel["method"], "notifications/cancelled");
    assert_eq!(cancel["params"]["requestId"], call["id"]);
    assert_eq!(call["id"], json!(id));
}

#[tokio::test]
async fn tool_error_and_protocol_error_are_distinct() {
    let (t, mut peer) = pipe();
    tokio::spawn(async move {
        handshake(&mut peer, "2025-11-25").await;
        let a = recv(&mut peer).await;
        send(
            &mut peer,
            json!({"jsonrpc":"2.0","id":a["id"],"result":{
            "isError":true,"content":[{"type":"text","text":"disk full"}]}}),
        )
        .await;
        let b = recv(&mut peer).await;
        send(
            &mut peer,
            json!({"jsonrpc":"2.0","id":b["id"],"error":{
            "code":-32602,"message":"Unknown tool: nope","data":{"tool":"nope"}}}),
        )
        .await;
        std::future::pending::<()>().await;
    });
    let client = Client::connect(t, opts()).await.unwrap();
    let err = client
        .call_tool("write", json!({}), &CallOptions::new())
        .await
        .unwrap_err();
    assert_eq!(err.tool_text().as_deref(), Some("disk full"));
    assert!(
        matches!(&err, ClientError::Tool { tool, content, .. } if tool == "write" && content.len() == 1)
    );
    let err = client
        .call_tool("nope", json!({}), &CallOptions::new())
        .await
        .unwrap_err();
    match err {
        ClientError::Protocol {
            code,
            message,
            data,
            method,
        } => {
            assert_eq!((code, method.as_str()), (-32602, "tools/call"));
            assert_eq!(message, "Unknown tool: nope");
            assert_eq!(data.as_deref(), Some(&json!({"tool":"nope"})));
        }
        other => panic!("expected protocol error, got {other:?}"),
    }
}

#[tokio::test]
async fn garbage_fails_pending_calls_and_connection_survives() {
    let (t, mut peer) = pipe();
    tokio::spawn(async move {
        handshake(&mut peer, "2025-11-25").await;
        let _call = recv(&mut peer).await;
        peer.1
            .write_message("Listening on port 8080")
            .await
            .unwrap();
        let next = recv(&mut peer).await;
        send(
            &mut peer,
            json!({"jsonrpc":"2.0","id":next["id"],"result":{"content":[]}}),
        )
        .await;
        std::future::pending::<()>().await;
    });
    let client = Client::connect(t, opts()).await.unwrap();
    let err = client
        .call_tool("x", json!({}), &CallOptions::new())
        .await
        .unwrap_err();
    assert!(
        matches!(&err, ClientError::Garbage { line } if line.contains("Listening")),
        "{err:?}"
    );
    client
        .call_tool("y", json!({}), &CallOptions::new())
        .await
        .unwrap();
}

#[tokio::test]
async fn garbage_skip_policy_keeps_the_call() {
    let (t, mut peer) = pipe();
    tokio::spawn(async move {
        handshake(&mut peer, "2025-11-25").await;
        let call = recv(&mut peer).await;
        peer.1.write_message("{not json").await.unwrap();
        peer.1.write_message("[1,2]").await.unwrap();
        send(
            &mut peer,
            json!({"jsonrpc":"2.0","id":call["id"],"result":{"content":[]}}),
        )
        .await;
        std::future::pending::<()>().await;
    });
    let client = Client::connect(t, opts().garbage(GarbagePolicy::Skip))
        .await
        .unwrap();
    client
        .call_tool("x", json!({}), &CallOptions::new())
        .await
        .unwrap();
}

#[tokio::test]
async fn closed_stream_fails_every_pending_call() {
    let (t, mut peer) = pipe();
    tokio::spawn(async move {
        handshake(&mut peer, "2025-11-25").await;
        recv(&mut peer).await;
        recv(&mut peer).await;
        drop(peer);
    });
    let client = Client::connect(t, opts()).await.unwrap();
    let o = CallOptions::new();
    let (a, b) = tokio::join!(
        client.call_tool("a", json!({}), &o),
        client.call_tool("b", json!({}), &o),
    );
    for r in [a, b] {
        assert!(matches!(r, Err(ClientError::Closed { .. })), "{r:?}");
    }
    let later = client.call_tool("c", json!({}), &CallOptions::new()).await;
    assert!(matches!(later, Err(ClientError::Closed { .. })));
}

#[tokio::test]
async fn list_all_tools_follows_cursors() {
    let (t, mut peer) = pipe();
    tokio::spawn(async move {
        handshake(&mut peer, "2025-11-25").await;
        for (i, cursor) in [(0, Value::Null), (1, json!("c1")), (2, json!("c2"))] {
            let req = recv(&mut peer).await;
            assert_eq!(
                req["params"].get("cursor").cloned().unwrap_or(Value::Null),
                cursor
            );
            let mut result =
                json!({"tools":[{"name":format!("t{i}"),"inputSchema":{"type":"object"}}]});
            if i < 2 {
                result["nextCursor"] = json!(format!("c{}", i + 1));
            }
            send(
                &mut peer,
                json!({"jsonrpc":"2.0","id":req["id"],"result":result}),
            )
            .await;
        }
        std::future::pending::<()>().await;
    });
    let client = Client::connect(t, opts()).await.unwrap();
    let tools = client.list_all_tools().await.unwrap();
    let names: Vec<_> = tools
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(names, ["t0", "t1", "t2"]);
}

#[test]
fn drift_reports_missing_extra_and_changed() {
    let expected = vec![
        json!({"name":"a","inputSchema":{"type":"object","properties":{"x":{"type":"string"}}}}),
        json!({"name":"b","inputSchema":{"type":"object"}}),
        json!({"name":"c","inputSchema":{"type":"object"},"outputSchema":{"type":"object"}}),
    ];
    let live = vec![
        // Same schema, other key order: no drift for `a`.
        json!({"inputSchema":{"properties":{"x":{"type":"string"}},"type":"object"},"name":"a"}),
        json!({"name":"c","inputSchema":{"type":"object","required":["y"]}}),
        json!({"name":"d","inputSchema":{"type":"object"}}),
    ];
    let drift = Drift::compare(&expected, &live);
    assert_eq!(drift.missing, ["b"]);
    assert_eq!(drift.extra, ["d"]);
    let kinds: Vec<_> = drift
        .changed
        .iter()
        .map(|c| (c.tool.as_str(), c.kind))
        .collect();
    assert_eq!(kinds, [("c", SchemaKind::Input), ("c", SchemaKind::Output)]);
    assert!(drift.changed[1].live.is_none());
    assert!(drift.to_string().contains("outputSchema removed"));
    assert!(Drift::compare(&expected, &expected).is_empty());
}

#[test]
fn input_validation_names_field_and_reason() {
    let schemas = ToolSchemas::from_json(
        &json!([{"name":"add","inputSchema":{"type":"object","properties":{
            "a":{"type":"integer"},"b":{"type":"integer","minimum":0}},"required":["a","b"]}}])
        .to_string(),
    );
    schemas
        .validate_input("add", &json!({"a":1,"b":2}))
        .unwrap();
    let err = schemas
        .validate_input("add", &json!({"a":"one","b":-1}))
        .unwrap_err();
    let ClientError::InvalidInput { problems, .. } = &err else {
        panic!("{err:?}")
    };
    let pointers: Vec<_> = problems.iter().map(|p| p.pointer.as_str()).collect();
    assert!(
        pointers.contains(&"/a") && pointers.contains(&"/b"),
        "{problems:?}"
    );
    assert!(err.to_string().contains("/a"));
    assert!(schemas.validate_input("missing", &json!({})).is_err());
    let broken = ToolSchemas::from_json("not json");
    assert!(broken
        .validate_input("add", &json!({}))
        .unwrap_err()
        .to_string()
        .contains("not a JSON array"));
}
