//! `client-http URL CALLS [--cacert FILE]`: connects the runtime's client
//! engine to the Streamable HTTP endpoint at URL (stateless 2026-07-28)
//! and calls `get_forecast` CALLS times one after another, each answer
//! checked. Run twice under callgrind with different CALLS by
//! scripts/bench-client-callgrind.sh: the difference over the difference
//! of calls is the client's cost of one call.

use mcpgen_runtime::client::{CallOptions, Client, ClientOptions};
use mcpgen_runtime::http::client::HttpTransport;
use serde_json::json;

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let mut args = std::env::args().skip(1);
    let url = args.next().expect("usage: client-http URL CALLS");
    let calls: usize = args.next().and_then(|n| n.parse().ok()).expect("usage: client-http URL CALLS");
    let transport = HttpTransport::new(&url).expect("a valid URL");
    let client = Client::connect(transport, ClientOptions::new(["2026-07-28"])).await.expect("connect");
    let options = CallOptions::new();
    for _ in 0..calls {
        let result = client.call_tool("get_forecast", json!({"city": "Oslo"}), &options).await.expect("call");
        assert!(result.get("structuredContent").is_some(), "{result}");
    }
}
