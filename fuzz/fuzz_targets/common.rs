//! Pieces the targets share: a small server (two tools, one validated)
//! and a single-threaded runtime to drive it.

use std::sync::Arc;

use mcpgen_runtime::server::{Server, ServerBuilder};
use mcpgen_runtime::server::{BoxFuture, CallFailure, Dispatch, ToolOutput};
use mcpgen_runtime::RequestContext;
use serde_json::{json, Value};

struct Tools;

impl Dispatch for Tools {
    fn call(&self, index: usize, args: Value, ctx: RequestContext) -> BoxFuture<Result<ToolOutput, CallFailure>> {
        Box::pin(async move {
            ctx.progress(1.0, None, None).await;
            match index {
                0 => Ok(ToolOutput::Structured(json!({ "echo": args }))),
                _ => Ok(ToolOutput::Content(json!([{ "type": "text", "text": "ok" }]))),
            }
        })
    }
}

/// The server every target talks to.
pub fn server() -> Server {
    let tools = json!([
        {
            "name": "echo",
            "inputSchema": {
                "type": "object",
                "properties": {"text": {"type": "string", "maxLength": 64, "x-mcp-header": "Text"}, "n": {"type": "integer"}},
                "required": ["text"]
            },
            "outputSchema": {"type": "object"}
        },
        {"name": "plain", "inputSchema": {"type": "object"}}
    ]);
    ServerBuilder::new("2025-11-25", tools, Arc::new(Tools)).build().expect("the fuzz server builds")
}

/// A current-thread runtime with timers.
pub fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread().enable_time().build().expect("runtime")
}
