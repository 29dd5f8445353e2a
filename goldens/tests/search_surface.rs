//! The generated search surface (`goldens/manifests/search.json`), served
//! by the generated server and used by the generated client over a
//! stream, in both eras: the compiled index is the one the runtime builds
//! from the catalog; `tools/list` answers the pinned tool and the two
//! search tools; `search_tools` finds a tool, which then runs through
//! `call_tool` and through its own typed method.

use std::time::Duration;

use mcpgen_goldens::manifests::search::{client, server, tools};
use mcpgen_goldens::protocol::ContentBlock;
use mcpgen_runtime::client::{CallOptions, ClientOptions};
use mcpgen_runtime::server::search::SearchIndex;
use mcpgen_runtime::transport::LineTransport;
use mcpgen_runtime::{RequestContext, ToolError};
use serde_json::{json, Value};

struct Catalog;

fn text(text: String) -> Vec<ContentBlock> {
    vec![serde_json::from_value(json!({"type": "text", "text": text})).unwrap()]
}

impl server::Handler for Catalog {
    async fn get_alerts(
        &self,
        input: tools::GetAlertsInput,
        _ctx: RequestContext,
    ) -> Result<Vec<ContentBlock>, ToolError> {
        Ok(text(format!("no alerts in {}", input.state)))
    }

    async fn send_email(
        &self,
        _input: tools::SendEmailInput,
        _ctx: RequestContext,
    ) -> Result<Vec<ContentBlock>, ToolError> {
        Ok(text("sent".into()))
    }

    async fn help(
        &self,
        _input: tools::HelpInput,
        _ctx: RequestContext,
    ) -> Result<Vec<ContentBlock>, ToolError> {
        Ok(text("search first".into()))
    }
}

#[test]
fn the_compiled_index_is_the_one_the_runtime_builds() {
    let catalog: Vec<Value> = serde_json::from_str(server::TOOLS_JSON).unwrap();
    let built = SearchIndex::build(&catalog);
    let compiled = &server::TOOL_SEARCH_INDEX;
    assert_eq!(compiled.terms(), built.terms());
    assert_eq!(compiled.starts(), built.starts());
    assert_eq!(compiled.postings(), built.postings());
    assert_eq!(compiled.lengths(), built.lengths());
    assert!(
        compiled.terms().contains(&"email"),
        "sendEmail is split into words"
    );
}

async fn connect(version: &str) -> client::Client {
    let (client_end, server_end) = tokio::io::duplex(1 << 16);
    let (sr, sw) = tokio::io::split(server_end);
    let served = server::builder(Catalog).build().unwrap();
    tokio::spawn(async move { served.serve(LineTransport::new(sr, sw)).await });
    let (cr, cw) = tokio::io::split(client_end);
    let options = ClientOptions::new([version]).timeout(Duration::from_secs(20));
    client::Client::connect_with(LineTransport::new(cr, cw), options)
        .await
        .unwrap()
}

#[tokio::test]
async fn an_agent_searches_then_calls_in_both_eras() {
    for version in ["2025-11-25", "2026-07-28"] {
        let client = connect(version).await;
        let listed = client.list_all_tools().await.unwrap();
        let names: Vec<&str> = listed.iter().map(|t| t["name"].as_str().unwrap()).collect();
        assert_eq!(names, ["help", "search_tools", "call_tool"], "{version}");
        let found = client
            .search_tools("weather alerts in a state", Some(2))
            .await
            .unwrap();
        assert_eq!(found[0]["name"], "get_alerts", "{version}: {found:?}");
        assert_eq!(found[0]["inputSchema"]["required"], json!(["state"]));
        let through = client
            .engine()
            .call_tool(
                "call_tool",
                json!({"name": "get_alerts", "arguments": {"state": "TX"}}),
                &CallOptions::new(),
            )
            .await
            .unwrap();
        assert_eq!(
            through["content"][0]["text"], "no alerts in TX",
            "{version}"
        );
        let typed = client
            .get_alerts(tools::GetAlertsInput { state: "CA".into() })
            .await
            .unwrap();
        let typed = serde_json::to_value(&typed).unwrap();
        assert_eq!(typed[0]["text"], "no alerts in CA", "{version}");
        let err = client.search_tools("alerts", Some(51)).await.unwrap_err();
        assert!(err.to_string().contains("limit"), "{version}: {err}");
    }
}
