//! The server engine over an in-memory duplex with a hand-written
//! dispatcher: every protocol path without any generated code.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use mcpgen_runtime::server::ServerBuilder;
use mcpgen_runtime::tool::{BoxFuture, CallFailure, Dispatch, ToolOutput};
use mcpgen_runtime::transport::LineTransport;
use mcpgen_runtime::{RateLimit, RequestContext, ToolError};
use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream, Lines};

fn tools() -> Value {
    json!([
        {
            "name": "add",
            "inputSchema": {
                "type": "object",
                "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
                "required": ["a", "b"]
            },
            "outputSchema": {
                "type": "object",
                "properties": {"sum": {"type": "integer"}},
                "required": ["sum"]
            },
            "x-extra": {"kept": true}
        },
        {"name": "echo", "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}}},
        {"name": "wait", "inputSchema": {"type": "object"}},
        {"name": "panic", "inputSchema": {"type": "object"}},
        {"name": "fail", "inputSchema": {"type": "object"}},
        {"name": "bad_output", "inputSchema": {"type": "object"}, "outputSchema": {"type": "object", "required": ["x"]}},
        {"name": "limited", "inputSchema": {"type": "object"}},
        {"name": "secret", "inputSchema": {"type": "object"}}
    ])
}

struct Handlers {
    started_waits: Arc<AtomicUsize>,
}

impl Dispatch for Handlers {
    fn call(&self, index: usize, args: Value, ctx: RequestContext) -> BoxFuture<Result<ToolOutput, CallFailure>> {
        let started = Arc::clone(&self.started_waits);
        Box::pin(async move {
            match index {
                0 => {
                    let sum = args["a"].as_i64().unwrap() + args["b"].as_i64().unwrap();
                    Ok(ToolOutput::Structured(json!({ "sum": sum })))
                }
                1 => {
                    ctx.progress(1.0, Some(2.0), Some("half")).await;
                    let who = ctx.client().and_then(|c| c.name()).unwrap_or("nobody").to_owned();
                    let text = format!("{} from {who}", args["text"].as_str().unwrap_or(""));
                    Ok(ToolOutput::Content(json!([{ "type": "text", "text": text }])))
                }
                2 => {
                    started.fetch_add(1, Ordering::SeqCst);
                    // Waits until cancelled; never answers on its own.
                    ctx.cancelled().await;
                    Ok(ToolOutput::Content(json!([])))
                }
                3 => panic!("handler exploded"),
                4 => Err(ToolError::new("the city is on fire").into()),
                5 => Ok(ToolOutput::Structured(json!({ "y": 1 }))),
                _ => Ok(ToolOutput::Content(json!([{ "type": "text", "text": "ok" }]))),
            }
        })
    }
}

struct Client {
    write: tokio::io::WriteHalf<DuplexStream>,
    lines: Lines<BufReader<tokio::io::ReadHalf<DuplexStream>>>,
}

impl Client {
    async fn send(&mut self, text: &str) {
        self.write.write_all(text.as_bytes()).await.unwrap();
        self.write.write_all(b"\n").await.unwrap();
    }

    async fn recv(&mut self) -> Value {
        let line = self.lines.next_line().await.unwrap().expect("server closed the stream");
        serde_json::from_str(&line).unwrap()
    }

    async fn call(&mut self, id: i64, method: &str, params: Value) -> Value {
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string()).await;
        self.recv().await
    }
}

fn start(builder: impl FnOnce(ServerBuilder) -> ServerBuilder) -> (Client, Arc<AtomicUsize>) {
    let started = Arc::new(AtomicUsize::new(0));
    let dispatch = Arc::new(Handlers { started_waits: Arc::clone(&started) });
    let server = builder(
        ServerBuilder::new("2025-11-25", tools(), dispatch)
            .supported_revisions(["2025-06-18", "2025-11-25"])
            .server_info(json!({"name": "test", "version": "1.0.0"}))
            .rate_limit("limited", RateLimit::per_minute(1))
            .access_control(|call| if call.tool == "secret" { Err("not for you".into()) } else { Ok(()) })
            .output_hook(|_, result| {
                if let Some(text) = result.pointer_mut("/content/0/text") {
                    if let Some(s) = text.as_str() {
                        *text = Value::from(s.replace("password", "********"));
                    }
                }
            }),
    )
    .build()
    .unwrap();
    let (client_end, server_end) = tokio::io::duplex(1 << 16);
    let (sr, sw) = tokio::io::split(server_end);
    tokio::spawn(server.serve(LineTransport::new(sr, sw)));
    let (cr, cw) = tokio::io::split(client_end);
    (Client { write: cw, lines: BufReader::new(cr).lines() }, started)
}

async fn initialize(client: &mut Client, version: &str) -> Value {
    let r = client
        .call(0, "initialize", json!({"protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "tester", "version": "1"}}))
        .await;
    client.send(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#).await;
    r
}

#[tokio::test]
async fn initialize_negotiates_the_version() {
    let (mut c, _) = start(|b| b);
    let r = initialize(&mut c, "2025-06-18").await;
    assert_eq!(r["result"]["protocolVersion"], "2025-06-18");
    assert_eq!(r["result"]["capabilities"]["tools"]["listChanged"], false);
    assert_eq!(r["result"]["serverInfo"]["name"], "test");
    let r = initialize(&mut c, "1999-01-01").await;
    assert_eq!(r["result"]["protocolVersion"], "2025-11-25");
    let r = c.call(1, "initialize", json!({})).await;
    assert_eq!(r["error"]["code"], -32602);
}

#[tokio::test]
async fn framing_errors_and_unknown_methods() {
    let (mut c, _) = start(|b| b);
    c.send("{not json").await;
    let r = c.recv().await;
    assert_eq!(r["error"]["code"], -32700);
    assert_eq!(r["id"], Value::Null);
    c.send(r#"{"jsonrpc":"2.0","id":5}"#).await;
    let r = c.recv().await;
    assert_eq!((r["error"]["code"].clone(), r["id"].clone()), (json!(-32600), json!(5)));
    let r = c.call(6, "resources/list", json!({})).await;
    assert_eq!(r["error"]["code"], -32601);
    // Notifications, known or not, are never answered: the next line is the ping's.
    c.send(r#"{"jsonrpc":"2.0","method":"notifications/whatever"}"#).await;
    c.send(r#"{"jsonrpc":"2.0","method":"ping"}"#).await;
    let r = c.call(7, "ping", json!({})).await;
    assert_eq!(r, json!({"jsonrpc": "2.0", "id": 7, "result": {}}));
}

#[tokio::test]
async fn tools_list_pages_through_opaque_cursors() {
    let (mut c, _) = start(|b| b.page_size(3));
    let mut names = Vec::new();
    let mut cursor: Option<Value> = None;
    let mut pages = 0;
    loop {
        let params = match &cursor {
            Some(cur) => json!({ "cursor": cur }),
            None => json!({}),
        };
        let r = c.call(pages, "tools/list", params).await;
        pages += 1;
        for t in r["result"]["tools"].as_array().unwrap() {
            names.push(t["name"].as_str().unwrap().to_owned());
        }
        match r["result"].get("nextCursor") {
            Some(next) => cursor = Some(next.clone()),
            None => break,
        }
    }
    assert_eq!(pages, 3);
    assert_eq!(names, ["add", "echo", "wait", "panic", "fail", "bad_output", "limited", "secret"]);
    let r = c.call(9, "tools/list", json!({})).await;
    assert_eq!(r["result"]["tools"][0], tools()[0], "declared tools are served unchanged");
    let r = c.call(10, "tools/list", json!({"cursor": "garbage"})).await;
    assert_eq!(r["error"]["code"], -32602);
}

#[tokio::test]
async fn tools_call_paths() {
    let (mut c, _) = start(|b| b);
    initialize(&mut c, "2025-11-25").await;
    let r = c.call(1, "tools/call", json!({"name": "add", "arguments": {"a": 2, "b": 3}})).await;
    assert_eq!(r["result"]["structuredContent"], json!({"sum": 5}));
    assert_eq!(r["result"]["content"][0]["text"], r#"{"sum":5}"#);
    assert!(r["result"].get("isError").is_none());

    let r = c.call(2, "tools/call", json!({"name": "nope", "arguments": {}})).await;
    assert_eq!(r["error"]["code"], -32602);
    let r = c.call(3, "tools/call", json!({"name": 5})).await;
    assert_eq!(r["error"]["code"], -32602);
    let r = c.call(4, "tools/call", json!({"name": "add", "arguments": [1]})).await;
    assert_eq!(r["error"]["code"], -32602);

    // 2025-11-25: invalid arguments are a tool error naming each field.
    let r = c.call(5, "tools/call", json!({"name": "add", "arguments": {"a": "x"}})).await;
    assert_eq!(r["result"]["isError"], true);
    let text = r["result"]["content"][0]["text"].as_str().unwrap();
    assert!(text.contains("/a: "), "{text}");
    assert!(text.contains("\"b\""), "{text}");

    let r = c.call(6, "tools/call", json!({"name": "fail"})).await;
    assert_eq!(r["result"], json!({"content": [{"type": "text", "text": "the city is on fire"}], "isError": true}));

    let r = c.call(7, "tools/call", json!({"name": "bad_output"})).await;
    assert_eq!(r["error"]["code"], -32603);
    assert!(r.get("result").is_none());

    let r = c.call(8, "tools/call", json!({"name": "panic"})).await;
    assert_eq!(r["error"]["code"], -32603);
    let r = c.call(9, "ping", json!({})).await;
    assert_eq!(r["result"], json!({}), "the server survives a panicking handler");

    let r = c.call(10, "tools/call", json!({"name": "secret"})).await;
    assert_eq!(r["result"]["isError"], true);
    assert!(r["result"]["content"][0]["text"].as_str().unwrap().contains("Access denied"));

    let r = c.call(11, "tools/call", json!({"name": "limited"})).await;
    assert!(r["result"].get("isError").is_none());
    let r = c.call(12, "tools/call", json!({"name": "limited"})).await;
    assert_eq!(r["result"]["isError"], true);
    assert!(r["result"]["content"][0]["text"].as_str().unwrap().contains("Rate limit exceeded"));

    // Progress, identity and the output hook.
    let r = c
        .call(13, "tools/call", json!({"name": "echo", "arguments": {"text": "password"}, "_meta": {"progressToken": "p1"}}))
        .await;
    assert_eq!(r["method"], "notifications/progress");
    assert_eq!(r["params"]["progressToken"], "p1");
    let r = c.recv().await;
    assert_eq!(r["id"], 13);
    assert_eq!(r["result"]["content"][0]["text"], "******** from tester");
}

#[tokio::test]
async fn older_revisions_answer_invalid_arguments_with_32602() {
    let (mut c, _) = start(|b| b);
    initialize(&mut c, "2025-06-18").await;
    let r = c.call(1, "tools/call", json!({"name": "add", "arguments": {"a": 1}})).await;
    assert_eq!(r["error"]["code"], -32602);
    assert_eq!(r["error"]["data"]["errors"][0]["path"], "");
    assert!(r["error"]["data"]["errors"][0]["message"].as_str().unwrap().contains("\"b\""));
}

#[tokio::test]
async fn calls_run_concurrently_and_cancel() {
    let (mut c, started) = start(|b| b);
    initialize(&mut c, "2025-11-25").await;
    // Two calls that only end when cancelled, then a quick one: the quick
    // one is answered while the others are still running.
    c.send(r#"{"jsonrpc":"2.0","id":"w1","method":"tools/call","params":{"name":"wait"}}"#).await;
    c.send(r#"{"jsonrpc":"2.0","id":"w2","method":"tools/call","params":{"name":"wait"}}"#).await;
    let r = c.call(3, "tools/call", json!({"name": "add", "arguments": {"a": 1, "b": 1}})).await;
    assert_eq!(r["id"], 3);
    while started.load(Ordering::SeqCst) < 2 {
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    c.send(r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"w1"}}"#).await;
    c.send(r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"w2","reason":"bored"}}"#).await;
    // Cancelled requests get no response: the next line answers the ping.
    let r = c.call(4, "ping", json!({})).await;
    assert_eq!(r["id"], 4);
}

#[tokio::test]
async fn a_panicking_hook_is_answered_with_32603() {
    let (mut c, _) = start(|b| b.output_hook(|tool, _| if tool == "echo" { panic!("hook bug") }));
    initialize(&mut c, "2025-11-25").await;
    let r = c.call(1, "tools/call", json!({"name": "echo", "arguments": {"text": "x"}})).await;
    assert_eq!(r["error"]["code"], -32603, "{r}");
    let r = c.call(2, "tools/call", json!({"name": "add", "arguments": {"a": 1, "b": 2}})).await;
    assert_eq!(r["result"]["structuredContent"]["sum"], 3);
}
