//! The manifest's scopes in the server engine, whatever the transport:
//! checked against the request's principal (or the server's, as a stdio
//! server is given one) before any handler runs, answered with JSON-RPC
//! error -32003 naming them; not checked without a principal; and
//! optionally hidden from list results.

use std::sync::Arc;

use mcpgen_runtime::server::ServerBuilder;
use mcpgen_runtime::server::INSUFFICIENT_SCOPE;
use mcpgen_runtime::server::{BoxFuture, CallFailure, Dispatch, ToolOutput};
use mcpgen_runtime::{Principal, RequestContext, Server, Sink};
use serde_json::{json, Value};

struct Echo;

impl Dispatch for Echo {
    fn call(
        &self,
        _index: usize,
        _args: Value,
        _ctx: RequestContext,
    ) -> BoxFuture<Result<ToolOutput, CallFailure>> {
        Box::pin(async {
            Ok(ToolOutput::Content(
                json!([{"type": "text", "text": "ran"}]),
            ))
        })
    }
}

fn builder() -> ServerBuilder {
    let tools = json!([{"name": "read", "inputSchema": {"type": "object"}}, {"name": "write", "inputSchema": {"type": "object"}}]);
    ServerBuilder::new("2025-11-25", tools, Arc::new(Echo))
        .tool_scopes("write", ["notes:write"])
        .prompts(vec![json!({"name": "review"})])
        .prompt_scopes("review", ["notes:review"])
        .resource_templates(vec![json!({"uriTemplate": "notes://{id}", "name": "note"})])
        .resource_scopes("notes://{id}", ["notes:read"])
}

fn holder(scopes: &[&str]) -> Principal {
    Principal {
        subject: "alice".into(),
        scopes: scopes.iter().map(|s| s.to_string()).collect(),
        ..Principal::default()
    }
}

/// Sends `method` with `params` in an initialized session; the response.
async fn ask(server: &Server, method: &str, params: Value) -> Value {
    let session = server.session();
    let none = Arc::new(http::Extensions::new());
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}});
    server
        .handle_text(&session, &init.to_string(), &Sink::discard(), &none)
        .into_reply()
        .await;
    let request = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
    let reply = server
        .handle_text(&session, &request.to_string(), &Sink::discard(), &none)
        .into_reply()
        .await
        .expect("a reply");
    serde_json::from_str(&reply.text).unwrap()
}

#[tokio::test]
async fn the_servers_principal_is_checked_before_any_handler_runs() {
    let server = builder()
        .principal(holder(&["notes:read"]))
        .build()
        .unwrap();
    let r = ask(
        &server,
        "tools/call",
        json!({"name": "write", "arguments": {}}),
    )
    .await;
    assert_eq!(r["error"]["code"], INSUFFICIENT_SCOPE, "{r}");
    assert_eq!(
        r["error"]["data"],
        json!({"requiredScopes": ["notes:write"], "missingScopes": ["notes:write"]})
    );
    assert!(r["error"]["message"]
        .as_str()
        .unwrap()
        .contains("tool write"));
    let r = ask(
        &server,
        "tools/call",
        json!({"name": "read", "arguments": {}}),
    )
    .await;
    assert_eq!(r["result"]["content"][0]["text"], "ran", "{r}");
    let r = ask(&server, "prompts/get", json!({"name": "review"})).await;
    assert_eq!(r["error"]["code"], INSUFFICIENT_SCOPE, "{r}");
    let r = ask(&server, "completion/complete", json!({"ref": {"type": "ref/prompt", "name": "review"}, "argument": {"name": "a", "value": ""}})).await;
    assert_eq!(
        r["error"]["code"], INSUFFICIENT_SCOPE,
        "a completion needs the prompt's scopes: {r}"
    );
    // A URI read through a template needs the template's scopes (held here).
    let r = ask(&server, "resources/read", json!({"uri": "notes://7"})).await;
    assert_ne!(r["error"]["code"], INSUFFICIENT_SCOPE, "{r}");
    let server = builder().principal(holder(&[])).build().unwrap();
    let r = ask(&server, "resources/read", json!({"uri": "notes://7"})).await;
    assert_eq!(
        r["error"]["data"]["requiredScopes"],
        json!(["notes:read"]),
        "{r}"
    );
}

#[tokio::test]
async fn without_a_principal_scopes_are_not_checked() {
    let server = builder().build().unwrap();
    let r = ask(
        &server,
        "tools/call",
        json!({"name": "write", "arguments": {}}),
    )
    .await;
    assert_eq!(r["result"]["content"][0]["text"], "ran", "{r}");
}

#[tokio::test]
async fn lists_hide_what_the_caller_may_not_use_when_asked() {
    let names = |r: &Value, key: &str| -> Vec<String> {
        r["result"][key]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["name"].as_str().unwrap().to_owned())
            .collect()
    };
    let server = builder()
        .principal(holder(&[]))
        .hide_unauthorized(true)
        .build()
        .unwrap();
    assert_eq!(
        names(&ask(&server, "tools/list", json!({})).await, "tools"),
        ["read"]
    );
    assert!(names(&ask(&server, "prompts/list", json!({})).await, "prompts").is_empty());
    assert!(names(
        &ask(&server, "resources/templates/list", json!({})).await,
        "resourceTemplates"
    )
    .is_empty());
    let server = builder().principal(holder(&[])).build().unwrap();
    assert_eq!(
        names(&ask(&server, "tools/list", json!({})).await, "tools"),
        ["read", "write"],
        "shown unless asked"
    );
}

#[test]
fn scopes_for_an_item_the_server_does_not_declare_are_a_build_error() {
    let Err(e) = builder().tool_scopes("nope", ["x"]).build() else {
        panic!("scopes for an unknown tool were accepted")
    };
    assert!(e.to_string().contains("tool nope"), "{e}");
}

/// A declared hierarchy (`notes:admin` ⊇ `notes:write` ⊇ `notes:read`):
/// the broader scope is enough for calls and lists, the narrower never for
/// the broader, and nothing is implied without the declaration.
#[tokio::test]
async fn a_declared_scope_hierarchy_lets_a_broader_scope_stand_for_narrower_ones() {
    let hierarchy = || {
        builder()
            .scope_implies("notes:admin", ["notes:write"])
            .scope_implies("notes:write", ["notes:read"])
    };
    let server = hierarchy()
        .principal(holder(&["notes:admin"]))
        .build()
        .unwrap();
    let r = ask(
        &server,
        "tools/call",
        json!({"name": "write", "arguments": {}}),
    )
    .await;
    assert_eq!(r["result"]["content"][0]["text"], "ran", "{r}");
    let r = ask(&server, "resources/read", json!({"uri": "notes://7"})).await;
    assert_ne!(
        r["error"]["code"], INSUFFICIENT_SCOPE,
        "notes:read through notes:write: {r}"
    );
    let r = ask(&server, "prompts/get", json!({"name": "review"})).await;
    assert_eq!(
        r["error"]["data"]["missingScopes"],
        json!(["notes:review"]),
        "outside the hierarchy: {r}"
    );

    let server = hierarchy()
        .principal(holder(&["notes:read"]))
        .build()
        .unwrap();
    let r = ask(
        &server,
        "tools/call",
        json!({"name": "write", "arguments": {}}),
    )
    .await;
    assert_eq!(r["error"]["code"], INSUFFICIENT_SCOPE, "never upwards: {r}");

    let names = |r: &Value| -> Vec<String> {
        r["result"]["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["name"].as_str().unwrap().to_owned())
            .collect()
    };
    let server = hierarchy()
        .principal(holder(&["notes:admin"]))
        .hide_unauthorized(true)
        .build()
        .unwrap();
    assert_eq!(
        names(&ask(&server, "tools/list", json!({})).await),
        ["read", "write"]
    );

    let server = builder()
        .principal(holder(&["notes:admin"]))
        .build()
        .unwrap();
    let r = ask(
        &server,
        "tools/call",
        json!({"name": "write", "arguments": {}}),
    )
    .await;
    assert_eq!(
        r["error"]["code"], INSUFFICIENT_SCOPE,
        "no hierarchy unless declared: {r}"
    );

    let Err(e) = builder()
        .scope_implies("a", ["b"])
        .scope_implies("b", ["a"])
        .build()
    else {
        panic!("a cycle was accepted")
    };
    assert!(e.to_string().contains("cycle"), "{e}");
}
