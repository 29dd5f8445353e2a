//! What the search tool surface costs and saves on a catalog
//! (`bench/search/cost.sh` runs it):
//!
//! - `search_cost bytes MANIFEST [PINNED...]`: the bytes of the
//!   `tools/list` response of a server serving the manifest's tools with
//!   every tool listed, and with the search surface (the pinned tools
//!   plus `search_tools` and `call_tool`), and of a `search_tools` answer
//!   of five tools;
//! - `search_cost queries MANIFEST N`: builds the index once and ranks N
//!   queries (eight task-like queries in turn), so that callgrind's count
//!   for two N gives the instructions of one query.

use std::sync::Arc;

use mcpgen_runtime::server::search::{SearchIndex, ToolSearch};
use mcpgen_runtime::server::{BoxFuture, CallFailure, Dispatch, ServerBuilder, ToolOutput};
use mcpgen_runtime::{RequestContext, Sink};
use serde_json::{json, Value};

/// Queries of the kind an agent sends.
const QUERIES: [&str; 8] = [
    "list the open pull requests of a repository",
    "create a new page in my workspace",
    "take a screenshot of the current browser page",
    "what time is it in Tokyo",
    "search the documents for a phrase",
    "send a payment refund to a customer",
    "read the contents of a file",
    "add a comment to an issue",
];

struct NoCalls;

impl Dispatch for NoCalls {
    fn call(
        &self,
        _index: usize,
        _arguments: Value,
        _ctx: RequestContext,
    ) -> BoxFuture<Result<ToolOutput, CallFailure>> {
        Box::pin(async { Ok(ToolOutput::Content(json!([]))) })
    }
}

fn tools(path: &str) -> Vec<Value> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let manifest: Value = serde_json::from_str(&text).expect("the manifest is JSON");
    let mut tools = manifest["tools"].as_array().cloned().unwrap_or_default();
    // mcpgen's own settings are never served.
    for tool in &mut tools {
        if let Some(tool) = tool.as_object_mut() {
            tool.shift_remove("x-mcpgen");
        }
    }
    tools
}

/// The bytes of the response to `request` of a stateless 2026-07-28 client.
async fn answer_bytes(builder: ServerBuilder, method: &str, params: Value) -> usize {
    let server = builder.build().expect("the server builds");
    let mut params = params;
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
    });
    let request = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
    let session = server.session();
    let none = Arc::new(http::Extensions::new());
    let reply = server
        .handle_text(&session, &request.to_string(), &Sink::discard(), &none)
        .into_reply()
        .await
        .expect("a reply");
    reply.text.len()
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let args: Vec<String> = std::env::args().collect();
    match args
        .iter()
        .map(String::as_str)
        .collect::<Vec<_>>()
        .as_slice()
    {
        [_, "bytes", manifest, pinned @ ..] => {
            let tools = tools(manifest);
            let builder = || {
                ServerBuilder::new("2025-11-25", Value::from(tools.clone()), Arc::new(NoCalls))
                    .page_size(100_000)
            };
            let search = || builder().tool_search(ToolSearch::new().pin(pinned.iter().copied()));
            let all = answer_bytes(builder(), "tools/list", json!({})).await;
            let listed = answer_bytes(search(), "tools/list", json!({})).await;
            let found = answer_bytes(
                search(),
                "tools/call",
                json!({"name": "search_tools", "arguments": {"query": QUERIES[0]}}),
            )
            .await;
            println!(
                "{{\"tools\": {}, \"all\": {all}, \"search\": {listed}, \"search_tools_answer\": {found}}}",
                tools.len()
            );
        }
        [_, "queries", manifest, n] => {
            let tools = tools(manifest);
            let index = SearchIndex::build(&tools);
            let n: usize = n.parse().expect("N is a number");
            let mut found = 0usize;
            for i in 0..n {
                let query = std::hint::black_box(QUERIES[i % QUERIES.len()]);
                found += index.search(query, 5, |_| true).len();
            }
            println!("{found}");
        }
        _ => {
            eprintln!(
                "usage: search_cost bytes MANIFEST [PINNED...] | search_cost queries MANIFEST N"
            );
            std::process::exit(2);
        }
    }
}
