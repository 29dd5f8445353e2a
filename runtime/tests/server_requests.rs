//! Requests a handler makes of the client (sampling, elicitation, roots)
//! through the engine over an in-memory duplex: in the stateful era as
//! live JSON-RPC requests answered by the client, in the stateless era as
//! `InputRequiredResult` rounds resumed by retries.

use std::sync::Arc;
use std::time::Duration;

use mcpgen_runtime::server::ServerBuilder;
use mcpgen_runtime::server::{BoxFuture, CallFailure, Dispatch, ToolOutput};
use mcpgen_runtime::transport::LineTransport;
use mcpgen_runtime::{ElicitForm, Elicitation, RequestContext, SampleRequest, ToolError};
use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream, Lines};

fn tools() -> Value {
    let open = json!({"type": "object"});
    json!([
        {"name": "sample", "inputSchema": {"type": "object", "properties": {"prompt": {"type": "string"}}}},
        {"name": "form", "inputSchema": open},
        {"name": "roots", "inputSchema": open},
        {"name": "two_steps", "inputSchema": open},
        {"name": "together", "inputSchema": open},
        {"name": "visit", "inputSchema": open}
    ])
}

#[derive(serde::Deserialize)]
struct Person {
    name: String,
    age: u32,
}

impl ElicitForm for Person {
    fn requested_schema() -> Value {
        json!({
            "type": "object",
            "properties": {"name": {"type": "string"}, "age": {"type": "integer"}},
            "required": ["name", "age"]
        })
    }
}

struct Handlers;

async fn run(index: usize, args: Value, ctx: RequestContext) -> Result<ToolOutput, ToolError> {
    let out = match index {
        0 => {
            let prompt = args["prompt"].as_str().unwrap_or("hi").to_owned();
            let answer = ctx.sample(SampleRequest::new(100).user(prompt)).await?;
            format!(
                "LLM response: {} ({})",
                answer.text().unwrap_or(""),
                answer.model
            )
        }
        1 => match ctx.elicit::<Person>("Who are you?").await? {
            Elicitation::Accept(p) => format!("Hello {}, {}", p.name, p.age),
            other => other.action().to_owned(),
        },
        2 => {
            let roots = ctx.list_roots().await?;
            roots
                .iter()
                .map(|r| r.uri.as_str())
                .collect::<Vec<_>>()
                .join(" ")
        }
        3 => {
            let schema = json!({"type": "object", "properties": {"v": {"type": "string"}}, "required": ["v"]});
            let first: Elicitation<Value> = ctx
                .keyed("first")
                .elicit_with("Step 1", schema.clone())
                .await?;
            let second: Elicitation<Value> =
                ctx.keyed("second").elicit_with("Step 2", schema).await?;
            let v = |e: Elicitation<Value>| {
                e.accepted()
                    .map(|c| c["v"].as_str().unwrap_or("").to_owned())
                    .unwrap_or_default()
            };
            format!("{}+{} resumed={}", v(first), v(second), ctx.is_resumed())
        }
        4 => {
            let (sampled, roots) = tokio::join!(
                ctx.sample(SampleRequest::new(10).user("greet")),
                ctx.list_roots()
            );
            format!("{} / {}", sampled?.text().unwrap_or(""), roots?.len())
        }
        _ => ctx
            .elicit_url("Sign in", "https://example.com/login", "login-1")
            .await?
            .action()
            .to_owned(),
    };
    Ok(ToolOutput::Content(
        json!([{ "type": "text", "text": out }]),
    ))
}

impl Dispatch for Handlers {
    fn call(
        &self,
        index: usize,
        args: Value,
        ctx: RequestContext,
    ) -> BoxFuture<Result<ToolOutput, CallFailure>> {
        Box::pin(async move {
            match run(index, args, ctx).await {
                Ok(out) => Ok(out),
                Err(e) => Err(e.into()),
            }
        })
    }
}

struct Client {
    write: tokio::io::WriteHalf<DuplexStream>,
    lines: Lines<BufReader<tokio::io::ReadHalf<DuplexStream>>>,
}

impl Client {
    async fn send(&mut self, message: Value) {
        self.write
            .write_all(message.to_string().as_bytes())
            .await
            .unwrap();
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

    async fn call_tool(&mut self, id: i64, name: &str, params: Value) -> Value {
        let mut params = params;
        params["name"] = json!(name);
        params
            .as_object_mut()
            .unwrap()
            .entry("arguments")
            .or_insert(json!({}));
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params}))
            .await;
        self.recv().await
    }
}

fn start(timeout: Duration) -> Client {
    let server = ServerBuilder::new("2025-11-25", tools(), Arc::new(Handlers))
        .server_info(json!({"name": "asker", "version": "1.0.0"}))
        .client_request_timeout(timeout)
        .request_state_key(b"test key")
        .build()
        .unwrap();
    let (client_end, server_end) = tokio::io::duplex(1 << 16);
    let (sr, sw) = tokio::io::split(server_end);
    tokio::spawn(server.serve(LineTransport::new(sr, sw)));
    let (cr, cw) = tokio::io::split(client_end);
    Client {
        write: cw,
        lines: BufReader::new(cr).lines(),
    }
}

async fn initialize(client: &mut Client, capabilities: Value) {
    let init = json!({"protocolVersion": "2025-11-25", "capabilities": capabilities, "clientInfo": {"name": "t", "version": "1"}});
    client
        .send(json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": init}))
        .await;
    assert!(client.recv().await["result"].is_object());
    client
        .send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        .await;
}

fn result_text(reply: &Value) -> &str {
    reply["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("no text in {reply}"))
}

#[tokio::test]
async fn stateful_sampling_goes_to_the_client_and_its_answer_back_to_the_handler() {
    let mut c = start(Duration::from_secs(60));
    initialize(&mut c, json!({"sampling": {}})).await;
    c.send(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "sample", "arguments": {"prompt": "Capital?"}}}))
        .await;
    let request = c.recv().await;
    assert_eq!(request["method"], "sampling/createMessage");
    assert_eq!(request["params"]["maxTokens"], 100);
    assert_eq!(
        request["params"]["messages"][0],
        json!({"role": "user", "content": {"type": "text", "text": "Capital?"}})
    );
    // An answer to an id nobody asked with changes nothing.
    c.send(json!({"jsonrpc": "2.0", "id": 9999, "result": {}}))
        .await;
    let answer = json!({"role": "assistant", "content": {"type": "text", "text": "Paris"}, "model": "m1", "stopReason": "endTurn"});
    c.send(json!({"jsonrpc": "2.0", "id": request["id"], "result": answer}))
        .await;
    let reply = c.recv().await;
    assert_eq!(reply["id"], 1);
    assert_eq!(result_text(&reply), "LLM response: Paris (m1)");
}

#[tokio::test]
async fn stateful_elicitation_decodes_accept_decline_and_cancel() {
    let mut c = start(Duration::from_secs(60));
    initialize(&mut c, json!({"elicitation": {}})).await;
    let answers = [
        (
            json!({"action": "accept", "content": {"name": "Ada", "age": 36}}),
            "Hello Ada, 36",
        ),
        (json!({"action": "decline"}), "decline"),
        (json!({"action": "cancel"}), "cancel"),
    ];
    for (n, (answer, expected)) in answers.into_iter().enumerate() {
        let id = n as i64 + 1;
        c.send(json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": "form", "arguments": {}}})).await;
        let request = c.recv().await;
        assert_eq!(request["method"], "elicitation/create");
        assert_eq!(request["params"]["mode"], "form");
        assert_eq!(
            request["params"]["requestedSchema"]["required"],
            json!(["name", "age"])
        );
        c.send(json!({"jsonrpc": "2.0", "id": request["id"], "result": answer}))
            .await;
        assert_eq!(result_text(&c.recv().await), expected);
    }
    // Content that does not fit the form is the handler's error, not a panic.
    c.send(json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "form", "arguments": {}}})).await;
    let request = c.recv().await;
    c.send(json!({"jsonrpc": "2.0", "id": request["id"], "result": {"action": "accept", "content": {"name": 5}}})).await;
    let reply = c.recv().await;
    assert_eq!(reply["result"]["isError"], true);
    assert!(result_text(&reply).contains("not usable"), "{reply}");
}

#[tokio::test]
async fn stateful_requests_need_the_capability_and_report_client_errors_and_timeouts() {
    let mut c = start(Duration::from_millis(200));
    initialize(
        &mut c,
        json!({"roots": {"listChanged": true}, "elicitation": {}}),
    )
    .await;
    // No sampling capability: refused before anything is sent.
    let reply = c.call_tool(1, "sample", json!({})).await;
    assert_eq!(reply["error"]["code"], -32021, "{reply}");
    assert_eq!(
        reply["error"]["data"]["requiredCapabilities"],
        json!({"sampling": {}})
    );
    // URL mode needs elicitation.url, which form-only clients lack.
    let reply = c.call_tool(2, "visit", json!({})).await;
    assert_eq!(
        reply["error"]["data"]["requiredCapabilities"],
        json!({"elicitation": {"url": {}}})
    );
    // The client refuses: the tool reports it.
    c.send(json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "roots", "arguments": {}}})).await;
    let request = c.recv().await;
    assert_eq!(request["method"], "roots/list");
    c.send(json!({"jsonrpc": "2.0", "id": request["id"], "error": {"code": -1, "message": "no roots for you"}})).await;
    let reply = c.recv().await;
    assert_eq!(reply["result"]["isError"], true);
    assert!(result_text(&reply).contains("no roots for you"));
    // No answer: the handler gives up after the timeout and cancels the request.
    c.send(json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {"name": "roots", "arguments": {}}})).await;
    let request = c.recv().await;
    let cancel = c.recv().await;
    assert_eq!(cancel["method"], "notifications/cancelled");
    assert_eq!(cancel["params"]["requestId"], request["id"]);
    let reply = c.recv().await;
    assert_eq!(reply["id"], 4);
    assert!(result_text(&reply).contains("did not answer"), "{reply}");
    // The call is cancelled while it waits: the client's request is cancelled too.
    c.send(json!({"jsonrpc": "2.0", "id": 6, "method": "tools/call", "params": {"name": "roots", "arguments": {}}})).await;
    let asked = c.recv().await;
    c.send(
        json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 6}}),
    )
    .await;
    let cancel = c.recv().await;
    assert_eq!(cancel["method"], "notifications/cancelled");
    assert_eq!(cancel["params"]["requestId"], asked["id"]);
    // A late answer is ignored; the session still works.
    c.send(json!({"jsonrpc": "2.0", "id": request["id"], "result": {"roots": []}}))
        .await;
    c.send(json!({"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {"name": "roots", "arguments": {}}})).await;
    let request = c.recv().await;
    c.send(json!({"jsonrpc": "2.0", "id": request["id"], "result": {"roots": [{"uri": "file:///a"}, {"uri": "file:///b", "name": "B"}]}})).await;
    assert_eq!(result_text(&c.recv().await), "file:///a file:///b");
}

fn modern_meta(capabilities: Value) -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": capabilities,
        "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"}
    })
}

fn all_capabilities() -> Value {
    json!({"sampling": {}, "elicitation": {}, "roots": {}})
}

#[tokio::test]
async fn stateless_requests_become_input_required_results_resumed_by_retries() {
    let mut c = start(Duration::from_secs(60));
    let meta = modern_meta(all_capabilities());
    let first = c
        .call_tool(
            1,
            "sample",
            json!({"arguments": {"prompt": "Capital?"}, "_meta": meta}),
        )
        .await;
    let result = &first["result"];
    assert_eq!(result["resultType"], "input_required", "{first}");
    assert_eq!(
        result["inputRequests"]["sampling_1"]["method"],
        "sampling/createMessage"
    );
    assert_eq!(
        result["inputRequests"]["sampling_1"]["params"]["messages"][0]["content"]["text"],
        "Capital?"
    );
    assert!(result["requestState"].is_string());
    assert!(result["_meta"]["io.modelcontextprotocol/serverInfo"].is_object());
    let answer =
        json!({"role": "assistant", "content": {"type": "text", "text": "Paris"}, "model": "m"});
    let retry = json!({
        "arguments": {"prompt": "Capital?"}, "_meta": meta,
        "inputResponses": {"sampling_1": answer, "unrelated": {"x": 1}},
        "requestState": result["requestState"]
    });
    let done = c.call_tool(2, "sample", retry.clone()).await;
    assert_eq!(done["result"]["resultType"], "complete");
    assert_eq!(result_text(&done), "LLM response: Paris (m)");

    // The state belongs to that request: other arguments, or a changed state, are refused.
    let mut other = retry.clone();
    other["arguments"]["prompt"] = json!("Something else?");
    assert_eq!(
        c.call_tool(3, "sample", other).await["error"]["code"],
        -32602
    );
    let mut tampered = retry.clone();
    tampered["requestState"] = json!(format!(
        "{}-TAMPERED",
        result["requestState"].as_str().unwrap()
    ));
    let reply = c.call_tool(4, "sample", tampered).await;
    assert_eq!(reply["error"]["code"], -32602);
    assert!(reply["error"]["message"]
        .as_str()
        .unwrap()
        .contains("requestState"));
    // Malformed inputResponses are a protocol error; an unusable answer is asked for again.
    let mut null = retry.clone();
    null["inputResponses"] = Value::Null;
    assert_eq!(
        c.call_tool(5, "sample", null).await["error"]["code"],
        -32602
    );
    let mut wrong = retry;
    wrong["inputResponses"] = json!({"sampling_1": 12345});
    let again = c.call_tool(6, "sample", wrong).await;
    assert_eq!(again["result"]["resultType"], "input_required");
    assert!(again["result"]["inputRequests"]["sampling_1"].is_object());
}

#[tokio::test]
async fn stateless_rounds_follow_the_handler_one_request_at_a_time_or_together() {
    let mut c = start(Duration::from_secs(60));
    let meta = modern_meta(all_capabilities());
    let r1 = c.call_tool(1, "two_steps", json!({"_meta": meta})).await["result"].clone();
    assert_eq!(
        r1["inputRequests"]
            .as_object()
            .unwrap()
            .keys()
            .collect::<Vec<_>>(),
        ["first"]
    );
    let accept = |v: &str| json!({"action": "accept", "content": {"v": v}});
    let r2 = c
        .call_tool(2, "two_steps", json!({"_meta": meta, "inputResponses": {"first": accept("a")}, "requestState": r1["requestState"]}))
        .await["result"]
        .clone();
    assert_eq!(r2["resultType"], "input_required");
    assert_eq!(
        r2["inputRequests"]
            .as_object()
            .unwrap()
            .keys()
            .collect::<Vec<_>>(),
        ["second"]
    );
    assert_ne!(
        r2["requestState"], r1["requestState"],
        "the state carries the first answer"
    );
    let done = c
        .call_tool(3, "two_steps", json!({"_meta": meta, "inputResponses": {"second": accept("b")}, "requestState": r2["requestState"]}))
        .await;
    assert_eq!(result_text(&done), "a+b resumed=true");

    // Requests made together are asked for in one round.
    let together = c.call_tool(4, "together", json!({"_meta": meta})).await["result"].clone();
    let methods: Vec<&str> = together["inputRequests"]
        .as_object()
        .unwrap()
        .values()
        .map(|r| r["method"].as_str().unwrap())
        .collect();
    assert_eq!(methods.len(), 2);
    assert!(
        methods.contains(&"sampling/createMessage") && methods.contains(&"roots/list"),
        "{together}"
    );

    // Only declared capabilities are asked for: without sampling the call is refused.
    let refused = c
        .call_tool(
            5,
            "sample",
            json!({"_meta": modern_meta(json!({"elicitation": {}}))}),
        )
        .await;
    assert_eq!(refused["error"]["code"], -32021);
    // Nor from a client that declared no capability at all (such calls keep no rounds).
    let refused = c
        .call_tool(6, "sample", json!({"_meta": modern_meta(json!({}))}))
        .await;
    assert_eq!(refused["error"]["code"], -32021, "{refused}");
}
