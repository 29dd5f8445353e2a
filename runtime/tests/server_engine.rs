//! The server engine over an in-memory duplex with a hand-written
//! dispatcher: every protocol path without any generated code.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use mcpgen_runtime::server::ServerBuilder;
use mcpgen_runtime::server::{BoxFuture, CallFailure, Dispatch, ToolOutput};
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
    fn call(
        &self,
        index: usize,
        args: Value,
        ctx: RequestContext,
    ) -> BoxFuture<Result<ToolOutput, CallFailure>> {
        let started = Arc::clone(&self.started_waits);
        Box::pin(async move {
            match index {
                0 => {
                    let sum = args["a"].as_i64().unwrap() + args["b"].as_i64().unwrap();
                    Ok(ToolOutput::Structured(json!({ "sum": sum })))
                }
                1 => {
                    ctx.progress(1.0, Some(2.0), Some("half")).await;
                    let who = ctx
                        .client()
                        .and_then(|c| c.name())
                        .unwrap_or("nobody")
                        .to_owned();
                    let text = format!("{} from {who}", args["text"].as_str().unwrap_or(""));
                    Ok(ToolOutput::Content(
                        json!([{ "type": "text", "text": text }]),
                    ))
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
                _ => Ok(ToolOutput::Content(
                    json!([{ "type": "text", "text": "ok" }]),
                )),
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
        let line = self
            .lines
            .next_line()
            .await
            .unwrap()
            .expect("server closed the stream");
        serde_json::from_str(&line).unwrap()
    }

    async fn call(&mut self, id: i64, method: &str, params: Value) -> Value {
        self.send(
            &json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string(),
        )
        .await;
        self.recv().await
    }
}

fn start(builder: impl FnOnce(ServerBuilder) -> ServerBuilder) -> (Client, Arc<AtomicUsize>) {
    let started = Arc::new(AtomicUsize::new(0));
    let dispatch = Arc::new(Handlers {
        started_waits: Arc::clone(&started),
    });
    let server = builder(
        ServerBuilder::new("2025-11-25", tools(), dispatch)
            .supported_revisions(["2025-03-26", "2025-06-18", "2025-11-25"])
            .server_info(json!({"name": "test", "version": "1.0.0"}))
            .rate_limit("limited", RateLimit::per_minute(1))
            .access_control(|call| {
                if call.tool == "secret" {
                    Err("not for you".into())
                } else {
                    Ok(())
                }
            })
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
    (
        Client {
            write: cw,
            lines: BufReader::new(cr).lines(),
        },
        started,
    )
}

async fn initialize(client: &mut Client, version: &str) -> Value {
    let r = client
        .call(0, "initialize", json!({"protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "tester", "version": "1"}}))
        .await;
    client
        .send(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#)
        .await;
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
    assert_eq!(
        (r["error"]["code"].clone(), r["id"].clone()),
        (json!(-32600), json!(5))
    );
    let r = c.call(6, "sampling/createMessage", json!({})).await;
    assert_eq!(r["error"]["code"], -32601);
    // Notifications, known or not, are never answered: the next line is the ping's.
    c.send(r#"{"jsonrpc":"2.0","method":"notifications/whatever"}"#)
        .await;
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
    assert_eq!(
        names,
        [
            "add",
            "echo",
            "wait",
            "panic",
            "fail",
            "bad_output",
            "limited",
            "secret"
        ]
    );
    let r = c.call(9, "tools/list", json!({})).await;
    assert_eq!(
        r["result"]["tools"][0],
        tools()[0],
        "declared tools are served unchanged"
    );
    let r = c.call(10, "tools/list", json!({"cursor": "garbage"})).await;
    assert_eq!(r["error"]["code"], -32602);
}

#[tokio::test]
async fn tools_call_paths() {
    let (mut c, _) = start(|b| b);
    initialize(&mut c, "2025-11-25").await;
    let r = c
        .call(
            1,
            "tools/call",
            json!({"name": "add", "arguments": {"a": 2, "b": 3}}),
        )
        .await;
    assert_eq!(r["result"]["structuredContent"], json!({"sum": 5}));
    assert_eq!(r["result"]["content"][0]["text"], r#"{"sum":5}"#);
    assert!(r["result"].get("isError").is_none());

    let r = c
        .call(2, "tools/call", json!({"name": "nope", "arguments": {}}))
        .await;
    assert_eq!(r["error"]["code"], -32602);
    let r = c.call(3, "tools/call", json!({"name": 5})).await;
    assert_eq!(r["error"]["code"], -32602);
    let r = c
        .call(4, "tools/call", json!({"name": "add", "arguments": [1]}))
        .await;
    assert_eq!(r["error"]["code"], -32602);

    // 2025-11-25: invalid arguments are a tool error naming each field.
    let r = c
        .call(
            5,
            "tools/call",
            json!({"name": "add", "arguments": {"a": "x"}}),
        )
        .await;
    assert_eq!(r["result"]["isError"], true);
    let text = r["result"]["content"][0]["text"].as_str().unwrap();
    assert!(text.contains("/a: "), "{text}");
    assert!(text.contains("\"b\""), "{text}");

    let r = c.call(6, "tools/call", json!({"name": "fail"})).await;
    assert_eq!(
        r["result"],
        json!({"content": [{"type": "text", "text": "the city is on fire"}], "isError": true})
    );

    let r = c.call(7, "tools/call", json!({"name": "bad_output"})).await;
    assert_eq!(r["error"]["code"], -32603);
    assert!(r.get("result").is_none());

    let r = c.call(8, "tools/call", json!({"name": "panic"})).await;
    assert_eq!(r["error"]["code"], -32603);
    let r = c.call(9, "ping", json!({})).await;
    assert_eq!(
        r["result"],
        json!({}),
        "the server survives a panicking handler"
    );

    let r = c.call(10, "tools/call", json!({"name": "secret"})).await;
    assert_eq!(r["result"]["isError"], true);
    assert!(r["result"]["content"][0]["text"]
        .as_str()
        .unwrap()
        .contains("Access denied"));

    let r = c.call(11, "tools/call", json!({"name": "limited"})).await;
    assert!(r["result"].get("isError").is_none());
    let r = c.call(12, "tools/call", json!({"name": "limited"})).await;
    assert_eq!(r["result"]["isError"], true);
    assert!(r["result"]["content"][0]["text"]
        .as_str()
        .unwrap()
        .contains("Rate limit exceeded"));

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
    let r = c
        .call(
            1,
            "tools/call",
            json!({"name": "add", "arguments": {"a": 1}}),
        )
        .await;
    assert_eq!(r["error"]["code"], -32602);
    assert_eq!(r["error"]["data"]["errors"][0]["path"], "");
    assert!(r["error"]["data"]["errors"][0]["message"]
        .as_str()
        .unwrap()
        .contains("\"b\""));
}

#[tokio::test]
async fn calls_run_concurrently_and_cancel() {
    let (mut c, started) = start(|b| b);
    initialize(&mut c, "2025-11-25").await;
    // Two calls that only end when cancelled, then a quick one: the quick
    // one is answered while the others are still running.
    c.send(r#"{"jsonrpc":"2.0","id":"w1","method":"tools/call","params":{"name":"wait"}}"#)
        .await;
    c.send(r#"{"jsonrpc":"2.0","id":"w2","method":"tools/call","params":{"name":"wait"}}"#)
        .await;
    let r = c
        .call(
            3,
            "tools/call",
            json!({"name": "add", "arguments": {"a": 1, "b": 1}}),
        )
        .await;
    assert_eq!(r["id"], 3);
    while started.load(Ordering::SeqCst) < 2 {
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    c.send(r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"w1"}}"#)
        .await;
    c.send(r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"w2","reason":"bored"}}"#).await;
    // Cancelled requests get no response: the next line answers the ping.
    let r = c.call(4, "ping", json!({})).await;
    assert_eq!(r["id"], 4);
}

#[tokio::test]
async fn an_id_of_a_running_call_is_not_reused() {
    let (mut c, started) = start(|b| b);
    initialize(&mut c, "2025-11-25").await;
    c.send(r#"{"jsonrpc":"2.0","id":"w","method":"tools/call","params":{"name":"wait"}}"#)
        .await;
    while started.load(Ordering::SeqCst) < 1 {
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    let r = c
        .call(
            9,
            "tools/call",
            json!({"name": "add", "arguments": {"a": 1, "b": 1}}),
        )
        .await;
    assert_eq!(r["result"]["structuredContent"]["sum"], 2);
    c.send(r#"{"jsonrpc":"2.0","id":"w","method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":1}}}"#).await;
    let r = c.recv().await;
    assert_eq!(
        (r["id"].clone(), r["error"]["code"].clone()),
        (json!("w"), json!(-32600)),
        "{r}"
    );
    // The first call is still the one the id names: cancelling it ends it
    // without an answer, and the id is free again afterwards.
    c.send(r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"w"}}"#)
        .await;
    let r = c.call(10, "ping", json!({})).await;
    assert_eq!(r["id"], 10);
    let again = r#"{"jsonrpc":"2.0","id":"w","method":"tools/call","params":{"name":"add","arguments":{"a":2,"b":2}}}"#;
    let mut answer = Value::Null;
    for _ in 0..200 {
        c.send(again).await;
        answer = c.recv().await;
        if answer.get("result").is_some() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    assert_eq!(answer["result"]["structuredContent"]["sum"], 4, "{answer}");
}

#[tokio::test]
async fn a_panicking_hook_is_answered_with_32603() {
    let (mut c, _) = start(|b| {
        b.output_hook(|tool, _| {
            if tool == "echo" {
                panic!("hook bug")
            }
        })
    });
    initialize(&mut c, "2025-11-25").await;
    let r = c
        .call(
            1,
            "tools/call",
            json!({"name": "echo", "arguments": {"text": "x"}}),
        )
        .await;
    assert_eq!(r["error"]["code"], -32603, "{r}");
    let r = c
        .call(
            2,
            "tools/call",
            json!({"name": "add", "arguments": {"a": 1, "b": 2}}),
        )
        .await;
    assert_eq!(r["result"]["structuredContent"]["sum"], 3);
}

fn ids(replies: &Value) -> Vec<Value> {
    replies
        .as_array()
        .expect("a batch is answered with an array")
        .iter()
        .map(|r| r["id"].clone())
        .collect()
}

#[tokio::test]
async fn revision_2025_03_26_answers_a_batch_with_one_array_in_request_order() {
    let (mut c, _) = start(|b| b);
    initialize(&mut c, "2025-03-26").await;
    c.send(
        &json!([
            {"jsonrpc": "2.0", "id": 1, "method": "ping"},
            {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "add", "arguments": {"a": 2, "b": 3}}},
            {"jsonrpc": "2.0", "method": "notifications/whatever"},
            {"jsonrpc": "2.0", "id": "bad", "method": 7},
            {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "fail"}},
            {"jsonrpc": "2.0", "id": 4, "method": "initialize", "params": {"protocolVersion": "2025-03-26"}},
            [1]
        ])
        .to_string(),
    )
    .await;
    let r = c.recv().await;
    assert_eq!(
        ids(&r),
        vec![
            json!(1),
            json!(2),
            json!("bad"),
            json!(3),
            json!(4),
            Value::Null
        ],
        "{r}"
    );
    assert_eq!(r[0]["result"], json!({}));
    assert_eq!(r[1]["result"]["structuredContent"]["sum"], 5);
    assert_eq!(r[2]["error"]["code"], -32600);
    assert_eq!(r[3]["result"]["isError"], true);
    assert_eq!(r[4]["error"]["code"], -32600);
    assert!(
        r[4]["error"]["message"]
            .as_str()
            .unwrap()
            .contains("initialize"),
        "{r}"
    );
    assert_eq!(r[5]["error"]["code"], -32600);
    // A batch of notifications only gets no answer: the next line is the ping's.
    c.send(r#"[{"jsonrpc":"2.0","method":"notifications/initialized"}]"#)
        .await;
    let r = c.call(5, "ping", json!({})).await;
    assert_eq!(r["id"], 5);
    // An empty batch is one error object, not an array.
    c.send("[]").await;
    let r = c.recv().await;
    assert_eq!(
        (r["id"].clone(), r["error"]["code"].clone()),
        (Value::Null, json!(-32600))
    );
}

#[tokio::test]
async fn a_batch_waits_for_its_calls_and_leaves_out_cancelled_ones() {
    let (mut c, started) = start(|b| b);
    initialize(&mut c, "2025-03-26").await;
    c.send(
        r#"[{"jsonrpc":"2.0","id":"w","method":"tools/call","params":{"name":"wait"}},{"jsonrpc":"2.0","id":"p","method":"ping"}]"#,
    )
    .await;
    while started.load(Ordering::SeqCst) < 1 {
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    // The server keeps serving while the batch is pending.
    let r = c.call(6, "ping", json!({})).await;
    assert_eq!(r["id"], 6);
    c.send(r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"w"}}"#)
        .await;
    let r = c.recv().await;
    assert_eq!(ids(&r), vec![json!("p")], "{r}");
}

#[tokio::test]
async fn revisions_without_batches_reject_them_and_keep_serving() {
    let (mut c, _) = start(|b| b);
    // Before initialize the server's own revision (2025-11-25) decides.
    c.send(r#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#)
        .await;
    let r = c.recv().await;
    assert_eq!(
        (r["id"].clone(), r["error"]["code"].clone()),
        (Value::Null, json!(-32600))
    );
    assert!(
        r["error"]["message"]
            .as_str()
            .unwrap()
            .contains("2025-11-25"),
        "{r}"
    );
    initialize(&mut c, "2025-06-18").await;
    c.send(r#"[{"jsonrpc":"2.0","id":2,"method":"ping"}]"#)
        .await;
    let r = c.recv().await;
    assert!(
        r["error"]["message"]
            .as_str()
            .unwrap()
            .contains("2025-06-18"),
        "{r}"
    );
    let r = c.call(3, "ping", json!({})).await;
    assert_eq!(r["id"], 3);
}

/// The `capabilities` an `initialize` answer declares for `server`.
async fn capabilities_of(builder: ServerBuilder) -> Value {
    let server = builder
        .server_info(json!({"name": "caps", "version": "1"}))
        .build()
        .unwrap();
    let (client_end, server_end) = tokio::io::duplex(1 << 16);
    let (sr, sw) = tokio::io::split(server_end);
    tokio::spawn(server.serve(LineTransport::new(sr, sw)));
    let (cr, cw) = tokio::io::split(client_end);
    let mut c = Client {
        write: cw,
        lines: BufReader::new(cr).lines(),
    };
    initialize(&mut c, "2025-11-25").await["result"]["capabilities"].clone()
}

#[tokio::test]
async fn capabilities_follow_what_the_server_declares() {
    let dispatch = || {
        Arc::new(Handlers {
            started_waits: Arc::new(AtomicUsize::new(0)),
        })
    };
    let tools_only = capabilities_of(ServerBuilder::new("2025-11-25", tools(), dispatch())).await;
    assert_eq!(
        tools_only,
        json!({"logging": {}, "tools": {"listChanged": false}})
    );

    let prompt = json!({"name": "greet"});
    let prompts_only = capabilities_of(
        ServerBuilder::new("2025-11-25", json!([]), dispatch()).prompts(vec![prompt]),
    )
    .await;
    assert_eq!(
        prompts_only,
        json!({"logging": {}, "prompts": {"listChanged": false}})
    );

    let template = json!({"uriTemplate": "file:///{path}", "name": "file"});
    let templates = ServerBuilder::new("2025-11-25", json!([]), dispatch())
        .resource_templates(vec![template])
        .completions(true);
    assert_eq!(
        capabilities_of(templates).await,
        json!({"logging": {}, "resources": {"listChanged": false, "subscribe": true}, "completions": {}})
    );

    let statics = ServerBuilder::new("2025-11-25", tools(), dispatch())
        .resources(vec![json!({"uri": "a://b", "name": "b"})]);
    let both = capabilities_of(statics).await;
    assert!(
        both["tools"].is_object() && both["resources"].is_object() && both.get("prompts").is_none(),
        "{both}"
    );

    // Lists that may change at run time are announced even while empty.
    let changing =
        capabilities_of(ServerBuilder::new("2025-11-25", json!([]), dispatch()).list_changed(true))
            .await;
    assert_eq!(changing["tools"], json!({"listChanged": true}));
    assert_eq!(changing["prompts"], json!({"listChanged": true}));
    assert_eq!(
        changing["resources"],
        json!({"listChanged": true, "subscribe": false})
    );
}

/// The same outputs, as values or as the generated glue encodes them
/// (`encode_output`, `encode_content`).
struct Outputs {
    encoded: bool,
}

fn output_tools() -> Value {
    json!([
        {"name": "typed", "inputSchema": {"type": "object"}, "outputSchema": {"type": "object", "required": ["sum"]}},
        {"name": "blocks", "inputSchema": {"type": "object"}},
        {"name": "invalid", "inputSchema": {"type": "object"}, "outputSchema": {"type": "object", "required": ["x"]}},
        {"name": "blocks_for_schema", "inputSchema": {"type": "object"}, "outputSchema": {"type": "object"}}
    ])
}

impl Dispatch for Outputs {
    fn call(
        &self,
        index: usize,
        _args: Value,
        _ctx: RequestContext,
    ) -> BoxFuture<Result<ToolOutput, CallFailure>> {
        let encoded = self.encoded;
        Box::pin(async move {
            let typed = |value: Value| {
                if encoded {
                    mcpgen_runtime::codegen::encode_output(&value)
                } else {
                    Ok(ToolOutput::Structured(value))
                }
            };
            let blocks = |value: Value| {
                if encoded {
                    mcpgen_runtime::codegen::encode_content(value.as_array().unwrap())
                } else {
                    Ok(ToolOutput::Content(value))
                }
            };
            match index {
                0 => typed(json!({"sum": 3, "note": "a password"})),
                1 => blocks(json!([{"type": "text", "text": "my password"}])),
                2 => typed(json!({"y": 1})),
                _ => blocks(json!([{"type": "text", "text": "not typed"}])),
            }
        })
    }
}

async fn answers_of(encoded: bool, hook: bool) -> Vec<Value> {
    let mut builder =
        ServerBuilder::new("2025-11-25", output_tools(), Arc::new(Outputs { encoded }));
    if hook {
        builder = builder.output_hook(|_, result| {
            if let Some(text) = result.pointer_mut("/content/0/text") {
                if let Some(s) = text.as_str() {
                    *text = Value::from(s.replace("password", "********"));
                }
            }
        });
    }
    let server = builder.build().unwrap();
    let (client_end, server_end) = tokio::io::duplex(1 << 16);
    let (sr, sw) = tokio::io::split(server_end);
    tokio::spawn(server.serve(LineTransport::new(sr, sw)));
    let (cr, cw) = tokio::io::split(client_end);
    let mut c = Client {
        write: cw,
        lines: BufReader::new(cr).lines(),
    };
    initialize(&mut c, "2025-11-25").await;
    let mut answers = Vec::new();
    for (id, tool) in ["typed", "blocks", "invalid", "blocks_for_schema"]
        .into_iter()
        .enumerate()
    {
        answers.push(
            c.call(
                id as i64 + 1,
                "tools/call",
                json!({"name": tool, "arguments": {}}),
            )
            .await,
        );
    }
    answers
}

#[tokio::test]
async fn encoded_outputs_are_answered_as_their_values() {
    for hook in [false, true] {
        let answers = answers_of(true, hook).await;
        assert_eq!(answers, answers_of(false, hook).await, "hook: {hook}");
        let typed = &answers[0]["result"];
        assert_eq!(
            typed["structuredContent"],
            json!({"sum": 3, "note": "a password"})
        );
        let text = typed["content"][0]["text"].as_str().unwrap();
        assert_eq!(text.contains("********"), hook, "{text}");
        let blocks = &answers[1]["result"]["content"][0]["text"];
        assert_eq!(blocks, if hook { "my ********" } else { "my password" });
        assert_eq!(answers[2]["error"]["code"], -32603, "{}", answers[2]);
        assert_eq!(answers[2]["error"]["data"]["tool"], "invalid");
        assert_eq!(answers[3]["error"]["code"], -32603, "{}", answers[3]);
    }
}
