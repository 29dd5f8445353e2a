//! Interop with the official TypeScript SDK: its `Client` connects to the
//! generated example server over stdio, lists the tools, calls each one
//! (and the failure paths), and this test checks what the SDK saw.
//!
//! Needs node and `@modelcontextprotocol/sdk` in the interop folder
//! (`bash scripts/setup-interop.sh` installs it into `.interop/`; the
//! folder can be moved with `MCPGEN_INTEROP_DIR`). Without them the test
//! is skipped, except under `CI=true`, where it fails.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The interop folder with the SDK installed, or why it is not usable.
fn interop_dir() -> Result<PathBuf, String> {
    let dir = std::env::var_os("MCPGEN_INTEROP_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo_root().join(".interop"));
    let sdk = dir.join("node_modules/@modelcontextprotocol/sdk/package.json");
    if !sdk.is_file() {
        return Err(format!(
            "{} is missing; run `bash scripts/setup-interop.sh`",
            sdk.display()
        ));
    }
    match Command::new("node").arg("--version").output() {
        Ok(out) if out.status.success() => Ok(dir),
        _ => Err("node is not installed".into()),
    }
}

/// Runs a node script (copied into the interop folder so it resolves the
/// SDK from there) and returns its stdout.
fn run_node(script: &str, args: &[&str]) -> Option<String> {
    let dir = match interop_dir() {
        Ok(dir) => dir,
        Err(why) => {
            if std::env::var("CI").is_ok_and(|v| v == "true") {
                panic!("interop test cannot run under CI=true: {why}");
            }
            eprintln!("skipping the TypeScript SDK interop test: {why}");
            return None;
        }
    };
    let source = repo_root().join("tests/interop").join(script);
    let copy = dir.join(script);
    std::fs::copy(&source, &copy).unwrap_or_else(|e| panic!("copy {}: {e}", source.display()));
    let mut child = Command::new("node")
        .arg(&copy)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("node starts");
    // A hung client must fail the test rather than hang it (not a timing assertion).
    let deadline = Instant::now() + Duration::from_secs(120);
    while child.try_wait().unwrap().is_none() {
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("{script} did not finish");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{script} failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    Some(String::from_utf8(out.stdout).unwrap())
}

fn text(result: &Value) -> &str {
    result["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("no text block: {result}"))
}

#[test]
fn typescript_sdk_client_uses_the_generated_server() {
    let server = env!("CARGO_BIN_EXE_weather-server");
    let Some(stdout) = run_node("ts-client.mjs", &[server]) else {
        return;
    };
    let summary: Value =
        serde_json::from_str(stdout.trim()).unwrap_or_else(|e| panic!("{e}: {stdout}"));

    assert_eq!(summary["serverInfo"]["name"], "weather-server");
    assert_eq!(
        summary["capabilities"]["tools"],
        json!({ "listChanged": false })
    );
    assert!(summary["instructions"]
        .as_str()
        .unwrap()
        .contains("fails on purpose"));

    // The tools as the SDK parsed them: the manifest's, in order.
    let manifest: Value = serde_json::from_str(
        &std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("tools.json")).unwrap(),
    )
    .unwrap();
    let declared: Vec<&str> = manifest["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    let listed: Vec<&str> = summary["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(listed, declared);
    assert_eq!(
        summary["tools"][0]["outputSchema"],
        manifest["tools"][0]["outputSchema"]
    );

    let calls = &summary["calls"];
    // The SDK validated structuredContent against outputSchema itself.
    let forecast = &calls["get_forecast"];
    assert_eq!(forecast["structuredContent"]["city"], "Oslo");
    assert_eq!(forecast["structuredContent"]["units"], "imperial");
    assert_eq!(
        forecast["structuredContent"]["days"]
            .as_array()
            .unwrap()
            .len(),
        2
    );
    let echoed: Value = serde_json::from_str(text(forecast)).unwrap();
    assert_eq!(echoed, forecast["structuredContent"]);

    assert_eq!(
        text(&calls["convert_temperature"]),
        "100 celsius = 212.00 °F"
    );
    assert_eq!(calls["plan_trip"]["structuredContent"]["total_nights"], 3);
    assert!(text(&calls["get_alerts"]).starts_with("North Sea: Gale warning"));
    assert!(text(&calls["watch_radar"]).contains("3 sweeps"));
    // The SDK drops progress that arrives after it handled the response,
    // so at least the first notifications must have reached its callback.
    let progress = summary["progress"].as_array().unwrap();
    assert!(
        !progress.is_empty() && progress[0]["progress"] == 1 && progress[0]["total"] == 3,
        "{progress:?}"
    );

    assert_eq!(calls["simulate_failure"]["isError"], true);
    assert_eq!(
        text(&calls["simulate_failure"]),
        "weather station offline: sensor 7 not responding"
    );
    assert_eq!(calls["invalid_arguments"]["isError"], true);
    assert!(text(&calls["invalid_arguments"]).contains("/city"));
    assert_eq!(calls["bad_output"]["code"], -32603);
    assert_eq!(calls["panic"]["code"], -32603);
    assert_eq!(calls["unknown_tool"]["code"], -32602);
    assert_eq!(summary["ping"], json!({}));
}
