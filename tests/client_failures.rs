//! Failure paths of the client and of `mcpgen introspect` against small
//! fake stdio servers written in `sh`: a server that exits mid-call, one
//! that writes garbage to stdout, one that never answers, a command that
//! does not exist and one that does not speak MCP.

use std::time::Duration;

use mcpgen::cli::introspect::Introspect;
use mcpgen_runtime::client::{CallOptions, Client, ClientError, ClientOptions};
use mcpgen_runtime::transport::{ChildTransport, StderrMode};
use serde_json::json;

/// `sh -c` with a script that first answers `initialize` (request id 1,
/// the engine's first id) and reads `notifications/initialized`.
fn fake(after_handshake: &str) -> Vec<String> {
    let init = r#"{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"fake","version":"0.1"}}}"#;
    vec![
        "-c".into(),
        format!("read -r line; echo '{init}'; read -r line; {after_handshake}"),
    ]
}

async fn connect(
    script: &str,
    timeout: Duration,
) -> (Client, Option<mcpgen_runtime::transport::CapturedStderr>) {
    let t =
        ChildTransport::spawn("sh", fake(script), [("FAKE", "1")], StderrMode::Capture).unwrap();
    let stderr = t.stderr();
    let client = Client::connect(t, ClientOptions::new(["2025-11-25"]).timeout(timeout))
        .await
        .unwrap();
    (client, stderr)
}

#[tokio::test]
async fn server_exiting_mid_call_fails_the_call_with_status_and_stderr() {
    let (client, _) = connect(
        "read -r call; echo 'fatal: out of cheese' >&2; exit 3",
        Duration::from_secs(30),
    )
    .await;
    let err = client
        .call_tool("t", json!({}), &CallOptions::new())
        .await
        .unwrap_err();
    let ClientError::Closed { reason } = &err else {
        panic!("expected Closed, got {err:?}")
    };
    assert!(reason.contains("exit status: 3"), "{reason}");
    assert!(reason.contains("out of cheese"), "{reason}");
    // Every later call fails the same way, at once.
    let again = client
        .call_tool("t", json!({}), &CallOptions::new())
        .await
        .unwrap_err();
    assert!(matches!(again, ClientError::Closed { .. }));
}

#[tokio::test]
async fn garbage_on_stdout_fails_the_pending_call() {
    let (client, _) = connect(
        "read -r call; echo 'Server listening on 3000'; cat >/dev/null",
        Duration::from_secs(30),
    )
    .await;
    let err = client
        .call_tool("t", json!({}), &CallOptions::new())
        .await
        .unwrap_err();
    assert!(
        matches!(&err, ClientError::Garbage { line } if line == "Server listening on 3000"),
        "{err:?}"
    );
    assert!(
        err.to_string().contains("stderr"),
        "the message says where logs belong: {err}"
    );
}

#[tokio::test]
async fn never_answering_server_times_out() {
    let (client, _) = connect("cat >/dev/null", Duration::from_millis(200)).await;
    let err = client
        .call_tool("t", json!({}), &CallOptions::new())
        .await
        .unwrap_err();
    assert!(
        matches!(&err, ClientError::Timeout { method, .. } if method == "tools/call"),
        "{err:?}"
    );
    // A per-call override wins over the client default.
    let err = client
        .call_tool(
            "t",
            json!({}),
            &CallOptions::new().timeout(Duration::from_millis(10)),
        )
        .await
        .unwrap_err();
    assert!(
        matches!(&err, ClientError::Timeout { after, .. } if *after == Duration::from_millis(10))
    );
}

#[tokio::test]
async fn dropping_the_client_kills_the_child() {
    let t = ChildTransport::spawn(
        "sh",
        fake("sleep 600"),
        std::iter::empty::<(&str, &str)>(),
        StderrMode::Null,
    )
    .unwrap();
    let pid = t.id().unwrap();
    let client = Client::connect(t, ClientOptions::new(["2025-11-25"]))
        .await
        .unwrap();
    assert!(std::path::Path::new(&format!("/proc/{pid}")).exists());
    drop(client);
    // Killing is asynchronous; wait (bounded) until the process is gone or a zombie.
    let mut gone = false;
    for _ in 0..200 {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
        if stat.is_empty() || stat.split_whitespace().nth(2) == Some("Z") {
            gone = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert!(
        gone,
        "child {pid} still running after the client was dropped"
    );
}

fn introspect(
    command: &str,
    args: &[&str],
    secs: u64,
) -> mcpgen::Result<mcpgen::cli::introspect::Introspected> {
    Introspect {
        command: command.into(),
        args: args.iter().map(|s| s.to_string()).collect(),
        timeout: Duration::from_secs(secs),
    }
    .run()
}

#[test]
fn introspect_reports_a_missing_command() {
    let err = introspect("/nonexistent/mcp-server", &[], 5).unwrap_err();
    assert!(
        err.to_string()
            .contains("cannot start server command `/nonexistent/mcp-server`"),
        "{err}"
    );
    assert!(err.hint.is_some());
}

#[test]
fn introspect_reports_a_command_that_does_not_speak_mcp() {
    let err = introspect("sh", &["-c", "echo hello; cat >/dev/null"], 10).unwrap_err();
    assert!(err.to_string().contains("does not speak MCP"), "{err}");
    let err = introspect("sh", &["-c", "echo 'no such option' >&2; exit 2"], 10).unwrap_err();
    let text = err.to_string();
    assert!(
        text.contains("ended before introspection finished") && text.contains("no such option"),
        "{text}"
    );
}

#[test]
fn introspect_times_out_on_a_silent_command() {
    let err = introspect("sh", &["-c", "cat >/dev/null"], 1).unwrap_err();
    assert!(
        err.to_string().contains("did not answer `initialize`"),
        "{err}"
    );
}

#[test]
fn introspect_pages_and_keeps_unknown_fields() {
    let page1 = r#"{"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":"b","inputSchema":{"type":"object"},"x-extra":1}],"nextCursor":"p2"}}"#;
    let page2 = r#"{"jsonrpc":"2.0","id":3,"result":{"tools":[{"name":"a","title":"A","inputSchema":{"type":"object"},"outputSchema":{"type":"object"}}]}}"#;
    let script = fake(&format!(
        "read -r l; echo '{page1}'; read -r l; echo '{page2}'; cat >/dev/null"
    ));
    let args: Vec<&str> = script.iter().map(String::as_str).collect();
    let found = introspect("sh", &args, 10).unwrap();
    assert_eq!(found.protocol_version, "2025-11-25");
    assert_eq!(
        found.manifest,
        json!({
            "server": {"name":"fake","version":"0.1"},
            "tools": [
                {"name":"b","inputSchema":{"type":"object"},"x-extra":1},
                {"name":"a","title":"A","inputSchema":{"type":"object"},"outputSchema":{"type":"object"}}
            ]
        })
    );
    assert!(found.to_json().ends_with("}\n"));
    // The result is a manifest mcpgen accepts.
    mcpgen::manifest::Manifest::from_str(&found.to_json(), "introspected.json").unwrap();
}
