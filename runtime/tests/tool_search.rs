//! The search tool surface in the server engine, in both eras: `tools/list`
//! answers the pinned tools and `search_tools` and `call_tool`; a search
//! answers the best matches' full definitions, only those the caller may
//! call; `call_tool` runs the named tool exactly as a direct call does
//! (validation, scopes, rate limits), and every tool stays callable by
//! name.

use std::sync::{Arc, Mutex};

use mcpgen_runtime::server::search::{SearchIndex, ToolSearch};
use mcpgen_runtime::server::INSUFFICIENT_SCOPE;
use mcpgen_runtime::server::{
    BoxFuture, CallFailure, Dispatch, RateLimit, ServerBuilder, ToolOutput,
};
use mcpgen_runtime::{Principal, RequestContext, Server, Sink};
use serde_json::{json, Value};

/// Answers which tool ran with which arguments.
struct Recorder(Arc<Mutex<Vec<(usize, Value)>>>);

impl Dispatch for Recorder {
    fn call(
        &self,
        index: usize,
        arguments: Value,
        _ctx: RequestContext,
    ) -> BoxFuture<Result<ToolOutput, CallFailure>> {
        self.0.lock().unwrap().push((index, arguments.clone()));
        Box::pin(async move {
            Ok(ToolOutput::Content(
                json!([{"type": "text", "text": format!("tool {index} ran with {arguments}")}]),
            ))
        })
    }
}

fn catalog() -> Value {
    json!([
        {"name": "get_forecast", "description": "Weather forecast for a latitude and longitude.",
         "inputSchema": {"type": "object", "properties": {
             "latitude": {"type": "number"}, "longitude": {"type": "number"}},
             "required": ["latitude", "longitude"]}},
        {"name": "get_alerts", "title": "Weather alerts", "description": "Active weather alerts for a US state.",
         "inputSchema": {"type": "object", "properties": {
             "state": {"type": "string", "minLength": 2, "maxLength": 2, "description": "Two-letter state code"}},
             "required": ["state"]}},
        {"name": "send_email", "description": "Sends an email message to a recipient.",
         "inputSchema": {"type": "object", "properties": {"to": {"type": "string"}, "body": {"type": "string"}}}},
        {"name": "delete_alert_rule", "description": "Deletes an alert rule of the account.",
         "inputSchema": {"type": "object", "properties": {"rule": {"type": "string"}}}},
        {"name": "help", "description": "How to use this server.",
         "inputSchema": {"type": "object"}}
    ])
}

fn builder(calls: &Arc<Mutex<Vec<(usize, Value)>>>) -> ServerBuilder {
    ServerBuilder::new(
        "2025-11-25",
        catalog(),
        Arc::new(Recorder(Arc::clone(calls))),
    )
    .tool_search(ToolSearch::new().pin(["help"]))
    .tool_scopes("delete_alert_rule", ["rules:write"])
    .rate_limit("send_email", RateLimit::calls_per_seconds(1u32, 3600u32))
}

/// The two eras a request can be served in.
#[derive(Clone, Copy, Debug)]
enum Era {
    Stateful,
    Stateless,
}

const ERAS: [Era; 2] = [Era::Stateful, Era::Stateless];

/// A client of `server` in one era.
struct Peer {
    server: Server,
    session: mcpgen_runtime::Session,
    era: Era,
    next: u64,
}

impl Peer {
    async fn new(server: Server, era: Era) -> Self {
        let session = server.session();
        let mut peer = Peer {
            server,
            session,
            era,
            next: 1,
        };
        if let Era::Stateful = era {
            let init = peer
                .ask(
                    "initialize",
                    json!({"protocolVersion": "2025-11-25", "capabilities": {},
                    "clientInfo": {"name": "t", "version": "1"}}),
                )
                .await;
            assert!(init.get("result").is_some(), "{init}");
        }
        peer
    }

    async fn ask(&mut self, method: &str, mut params: Value) -> Value {
        if let (Era::Stateless, false) = (self.era, method == "initialize") {
            params["_meta"] = json!({
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {},
            });
        }
        self.next += 1;
        let request =
            json!({"jsonrpc": "2.0", "id": self.next, "method": method, "params": params});
        let none = Arc::new(http::Extensions::new());
        let reply = self
            .server
            .handle_text(&self.session, &request.to_string(), &Sink::discard(), &none)
            .into_reply()
            .await
            .expect("a reply");
        serde_json::from_str(&reply.text).unwrap()
    }

    async fn call(&mut self, name: &str, arguments: Value) -> Value {
        self.ask("tools/call", json!({"name": name, "arguments": arguments}))
            .await
    }
}

fn names(tools: &Value) -> Vec<&str> {
    tools
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect()
}

#[tokio::test]
async fn the_list_holds_the_pinned_tools_and_the_two_search_tools() {
    let calls = Arc::default();
    for era in ERAS {
        let mut peer = Peer::new(builder(&calls).build().unwrap(), era).await;
        let r = peer.ask("tools/list", json!({})).await;
        let tools = &r["result"]["tools"];
        assert_eq!(
            names(tools),
            ["help", "search_tools", "call_tool"],
            "{era:?}: {r}"
        );
        assert_eq!(tools[0], catalog()[4], "the pinned tool as declared");
        assert_eq!(tools[1]["inputSchema"]["required"], json!(["query"]));
        assert_eq!(
            tools[1]["inputSchema"]["properties"]["limit"]["maximum"],
            50
        );
        assert_eq!(tools[2]["inputSchema"]["required"], json!(["name"]));
    }
}

#[tokio::test]
async fn a_search_answers_the_best_matches_full_definitions() {
    let calls = Arc::default();
    for era in ERAS {
        let mut peer = Peer::new(builder(&calls).build().unwrap(), era).await;
        let r = peer
            .call("search_tools", json!({"query": "weather alerts for Texas"}))
            .await;
        let result = &r["result"];
        assert_ne!(result["isError"], true, "{era:?}: {r}");
        let found = &result["structuredContent"]["result"];
        assert_eq!(names(found)[0], "get_alerts", "{era:?}: {r}");
        assert_eq!(
            found[0],
            catalog()[1],
            "the definition as declared, schema included"
        );
        let text: Value =
            serde_json::from_str(result["content"][0]["text"].as_str().unwrap()).unwrap();
        assert_eq!(&text, found, "the text is the same JSON array");
        // The limit holds; unmatched words answer nothing, with a hint.
        let r = peer
            .call(
                "search_tools",
                json!({"query": "weather alert", "limit": 1}),
            )
            .await;
        assert_eq!(
            r["result"]["structuredContent"]["result"]
                .as_array()
                .unwrap()
                .len(),
            1
        );
        let r = peer.call("search_tools", json!({"query": "zebra"})).await;
        assert_eq!(r["result"]["structuredContent"]["result"], json!([]));
        assert!(r["result"]["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("try other words"));
        // Bad arguments: a tool error saying what to send.
        for bad in [
            json!({}),
            json!({"query": "x", "limit": 51}),
            json!({"query": "   "}),
            json!({"query": "x", "page": 2}),
            json!({"query": "get ".repeat(300)}),
        ] {
            let r = peer.call("search_tools", bad.clone()).await;
            assert_eq!(r["result"]["isError"], true, "{bad}: {r}");
            assert!(
                r["result"]["content"][0]["text"]
                    .as_str()
                    .unwrap()
                    .contains("search_tools needs"),
                "{r}"
            );
        }
    }
}

#[tokio::test]
async fn call_tool_runs_the_named_tool_as_a_direct_call_would() {
    for era in ERAS {
        let calls: Arc<Mutex<Vec<(usize, Value)>>> = Arc::default();
        let mut peer = Peer::new(builder(&calls).build().unwrap(), era).await;
        let r = peer
            .call(
                "call_tool",
                json!({"name": "get_alerts", "arguments": {"state": "TX"}}),
            )
            .await;
        assert!(
            r["result"]["content"][0]["text"]
                .as_str()
                .unwrap()
                .starts_with("tool 1 ran"),
            "{era:?}: {r}"
        );
        assert_eq!(
            calls.lock().unwrap().as_slice(),
            [(1, json!({"state": "TX"}))]
        );
        // Hidden from the list, still callable by name.
        let r = peer.call("get_alerts", json!({"state": "CA"})).await;
        assert!(
            r["result"]["content"][0]["text"]
                .as_str()
                .unwrap()
                .starts_with("tool 1 ran"),
            "{r}"
        );
        // The tool's own input schema is checked: the same answer either way.
        let direct = peer.call("get_alerts", json!({"state": "Texas"})).await;
        let through = peer
            .call(
                "call_tool",
                json!({"name": "get_alerts", "arguments": {"state": "Texas"}}),
            )
            .await;
        assert_eq!(strip_id(&direct), strip_id(&through), "{era:?}");
        assert_eq!(
            calls.lock().unwrap().len(),
            2,
            "invalid arguments ran nothing"
        );
        // The rate limit is the tool's, whichever way it is called.
        let r = peer
            .call(
                "call_tool",
                json!({"name": "send_email", "arguments": {"to": "a@example.com"}}),
            )
            .await;
        assert_ne!(r["result"]["isError"], true, "{r}");
        let r = peer
            .call("send_email", json!({"to": "b@example.com"}))
            .await;
        let refused = r["result"]["content"][0]["text"]
            .as_str()
            .unwrap_or_default();
        assert!(refused.contains("Rate limit"), "{era:?}: {r}");
        // An unknown tool, and call_tool's own misuse.
        let r = peer.call("call_tool", json!({"name": "nope"})).await;
        assert!(
            r["error"]["message"]
                .as_str()
                .unwrap()
                .contains("Unknown tool: nope"),
            "{r}"
        );
        for bad in [
            json!({}),
            json!({"name": 3}),
            json!({"name": "help", "arguments": [1]}),
            json!({"name": "call_tool"}),
            json!({"name": "help", "extra": 1}),
        ] {
            let r = peer.call("call_tool", bad.clone()).await;
            assert_eq!(r["error"]["code"], -32602, "{bad}: {r}");
        }
    }
}

fn strip_id(response: &Value) -> Value {
    let mut response = response.clone();
    response.as_object_mut().unwrap().remove("id");
    response
}

#[tokio::test]
async fn scopes_hold_through_call_tool_and_searches_leave_out_what_cannot_be_called() {
    let calls = Arc::default();
    let reader = Principal {
        subject: "alice".into(),
        scopes: vec!["rules:read".into()],
        ..Principal::default()
    };
    let server = builder(&calls).principal(reader).build().unwrap();
    for era in ERAS {
        let mut peer = Peer::new(server.clone(), era).await;
        let r = peer
            .call(
                "call_tool",
                json!({"name": "delete_alert_rule", "arguments": {"rule": "r1"}}),
            )
            .await;
        assert_eq!(r["error"]["code"], INSUFFICIENT_SCOPE, "{era:?}: {r}");
        let r = peer
            .call(
                "search_tools",
                json!({"query": "delete alert rule", "limit": 50}),
            )
            .await;
        let found = names(&r["result"]["structuredContent"]["result"]).join(",");
        assert!(!found.contains("delete_alert_rule"), "{found}");
        assert!(found.contains("get_alerts"), "{found}");
    }
    let writer = Principal {
        subject: "bob".into(),
        scopes: vec!["rules:write".into()],
        ..Principal::default()
    };
    let server = builder(&calls).principal(writer).build().unwrap();
    let mut peer = Peer::new(server, Era::Stateless).await;
    let r = peer
        .call("search_tools", json!({"query": "delete alert rule"}))
        .await;
    assert_eq!(
        names(&r["result"]["structuredContent"]["result"])[0],
        "delete_alert_rule",
        "{r}"
    );
}

#[test]
fn a_catalog_the_surface_cannot_serve_is_refused_at_build() {
    let calls = Arc::default();
    let err = |b: ServerBuilder| b.build().expect_err("refused").to_string();
    let unknown = builder(&calls).tool_search(ToolSearch::new().pin(["nope"]));
    assert!(err(unknown).contains("pinned tool \"nope\" is not declared"));
    let mut tools = catalog();
    tools[4]["name"] = json!("search_tools");
    let clash = ServerBuilder::new("2025-11-25", tools, Arc::new(Recorder(Arc::default())))
        .tool_search(ToolSearch::new());
    assert!(err(clash).contains("rename the declared tool \"search_tools\""));
    static OTHER: SearchIndex = SearchIndex::from_static(&[], &[0], &[], &[1, 1]);
    let stale = builder(&calls).tool_search(ToolSearch::new().index(&OTHER));
    assert!(err(stale).contains("regenerate the bindings"));
}

#[tokio::test]
async fn every_tool_pages_out_in_catalog_order_with_the_star_query() {
    let calls = Arc::default();
    for era in ERAS {
        let mut peer = Peer::new(builder(&calls).build().unwrap(), era).await;
        let mut seen = Vec::new();
        for offset in [0, 2, 4, 6] {
            let r = peer
                .call(
                    "search_tools",
                    json!({"query": "*", "limit": 2, "offset": offset}),
                )
                .await;
            let page = &r["result"]["structuredContent"]["result"];
            seen.extend(names(page).into_iter().map(str::to_owned));
        }
        let declared: Vec<String> = names(&catalog()).into_iter().map(str::to_owned).collect();
        assert_eq!(seen, declared, "{era:?}");
        // An offset pages a ranked answer too.
        let first = peer
            .call("search_tools", json!({"query": "alert", "limit": 1}))
            .await;
        let second = peer
            .call(
                "search_tools",
                json!({"query": "alert", "limit": 1, "offset": 1}),
            )
            .await;
        let both = peer
            .call("search_tools", json!({"query": "alert", "limit": 2}))
            .await;
        let mut paged = names(&first["result"]["structuredContent"]["result"]);
        paged.extend(names(&second["result"]["structuredContent"]["result"]));
        assert_eq!(paged, names(&both["result"]["structuredContent"]["result"]));
        let r = peer
            .call("search_tools", json!({"query": "*", "offset": -1}))
            .await;
        assert_eq!(r["result"]["isError"], true, "{r}");
    }
    // Tools the caller cannot call stay out of the whole list too.
    let reader = Principal {
        subject: "alice".into(),
        scopes: vec![],
        ..Principal::default()
    };
    let mut peer = Peer::new(
        builder(&calls).principal(reader).build().unwrap(),
        Era::Stateless,
    )
    .await;
    let r = peer
        .call("search_tools", json!({"query": "*", "limit": 50}))
        .await;
    let all = names(&r["result"]["structuredContent"]["result"]).join(",");
    assert!(
        !all.contains("delete_alert_rule") && all.contains("get_alerts"),
        "{all}"
    );
}

#[tokio::test]
async fn a_task_runs_through_call_tool_as_through_a_direct_call() {
    let mut tools = catalog();
    tools.as_array_mut().unwrap().push(
        json!({"name": "build_report", "description": "Builds the yearly report.",
        "inputSchema": {"type": "object"}, "execution": {"taskSupport": "required"}}),
    );
    let calls: Arc<Mutex<Vec<(usize, Value)>>> = Arc::default();
    let server = ServerBuilder::new("2025-11-25", tools, Arc::new(Recorder(Arc::clone(&calls))))
        .tool_search(ToolSearch::new())
        .build()
        .unwrap();
    let mut peer = Peer::new(server, Era::Stateful).await;
    // Without a task: refused as the direct call is.
    let direct = peer.call("build_report", json!({})).await;
    let through = peer
        .call("call_tool", json!({"name": "build_report"}))
        .await;
    assert_eq!(direct["error"]["code"], -32601, "{direct}");
    assert_eq!(strip_id(&direct), strip_id(&through));
    // As a task: created, and its result is the tool's.
    let created = peer
        .ask(
            "tools/call",
            json!({"name": "call_tool", "arguments": {"name": "build_report"}, "task": {}}),
        )
        .await;
    let task = &created["result"]["task"];
    assert_eq!(task["status"], "working", "{created}");
    let id = task["taskId"].as_str().unwrap().to_owned();
    let result = peer.ask("tasks/result", json!({"taskId": id})).await;
    let text = result["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default();
    assert!(text.starts_with("tool 5 ran"), "{result}");
}
