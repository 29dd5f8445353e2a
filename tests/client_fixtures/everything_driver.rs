// Driver for tests/client_everything.rs: a client generated from the
// introspected manifest of the official reference server
// `@modelcontextprotocol/server-everything`, calling several of its tools
// with typed inputs, getting a prompt and reading resources. The bindings
// may be of a later revision than the server's 2025-11-25: the client then
// falls back to it. Prints "ok <step>" per passed step; panics otherwise.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use client::{CallOptions, Client, ClientError, ClientOptions};
use tools::*;

fn text(blocks: &[protocol::ContentBlock]) -> String {
    blocks
        .iter()
        .filter_map(|b| match b {
            protocol::ContentBlock::Text(t) => Some(t.text.as_str()),
            _ => None,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[tokio::main]
async fn main() {
    let mut args = std::env::args().skip(1);
    let program = args.next().expect("usage: driver PROGRAM [ARGS...]");
    let rest: Vec<String> = args.collect();
    let mut versions = vec![client::PROTOCOL_VERSION];
    if client::PROTOCOL_VERSION != "2025-11-25" {
        versions.push("2025-11-25");
    }
    let c = Client::spawn_with(&program, &rest, ClientOptions::new(versions).timeout(Duration::from_secs(60)))
        .await
        .expect("handshake with server-everything");
    let session = c.session().expect("session");
    assert_eq!(session.server_info["name"], "mcp-servers/everything");
    println!("ok initialize {}", session.protocol_version);

    let echoed = c.echo(EchoInput { message: "héllo mcpgen".into() }).await.expect("echo");
    assert_eq!(text(&echoed), "Echo: héllo mcpgen");
    println!("ok echo");

    let sum = c.get_sum(GetSumInput { a: 2.5, b: 40.0 }).await.expect("get-sum");
    assert!(text(&sum).contains("42.5"), "{}", text(&sum));
    println!("ok get_sum");

    // Structured output: validated against outputSchema, decoded typed.
    let weather = c
        .get_structured_content(GetStructuredContentInput { location: GetStructuredContentInputLocation::Chicago })
        .await
        .expect("get-structured-content");
    assert!(!weather.conditions.is_empty());
    assert!((0.0..=100.0).contains(&weather.humidity), "{weather:?}");
    println!("ok get_structured_content");

    // A tool that reports an error (it needs task augmentation).
    let err = c
        .simulate_research_query(SimulateResearchQueryInput { topic: "rust".into(), ambiguous: false })
        .await
        .expect_err("simulate-research-query fails without tasks");
    assert!(matches!(&err, ClientError::Tool { tool, .. } if tool == "simulate-research-query"), "{err:?}");
    assert!(err.tool_text().unwrap().contains("task"), "{err}");
    println!("ok tool_error");

    // Image content decodes into the protocol's content block type.
    let image = c.get_tiny_image(GetTinyImageInput::default()).await.expect("get-tiny-image");
    assert!(image.iter().any(|b| matches!(b, protocol::ContentBlock::Image(i) if i.mime_type == "image/png")));
    println!("ok get_tiny_image");

    // Progress notifications from a long-running operation.
    let seen = Arc::new(Mutex::new(0usize));
    let sink = seen.clone();
    c.trigger_long_running_operation_with(
        TriggerLongRunningOperationInput { duration: 0.3, steps: 3.0 },
        CallOptions::new().on_progress(move |_| *sink.lock().unwrap() += 1),
    )
    .await
    .expect("trigger-long-running-operation");
    assert_eq!(*seen.lock().unwrap(), 3);
    println!("ok progress");

    // Prompts and resources decode into the bindings' result types, whose
    // later revisions require members this server does not send.
    let prompt = c.get_args_prompt(ArgsPromptArgs { city: "Oslo".into(), state: None }).await.expect("args-prompt");
    let said = serde_json::to_value(&prompt.messages).unwrap();
    assert!(said.to_string().contains("Oslo"), "{said}");
    println!("ok prompt");
    let features = c.read_resource(StaticResource::FeaturesMd).await.expect("read features.md");
    let features = serde_json::to_value(&features).unwrap();
    assert_eq!(features["contents"][0]["uri"], "demo://resource/static/document/features.md", "{features}");
    let dynamic = c.read_dynamic_text_resource(DynamicTextResourceParams { resource_id: "3".into() }).await.expect("read text 3");
    let dynamic = serde_json::to_value(&dynamic).unwrap();
    assert_eq!(dynamic["contents"][0]["uri"], "demo://resource/dynamic/text/3", "{dynamic}");
    println!("ok resources");

    let drift = c.check_drift().await.expect("drift");
    assert!(drift.is_empty(), "{drift}");
    println!("ok drift");
}
