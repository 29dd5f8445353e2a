//! End-to-end tests of `mcpgen schema list|pull`, `mcpgen manifest
//! check|schema` and `mcpgen diff`.

mod cli_support;

use cli_support::*;

#[test]
fn list_then_pull_all_then_list() {
    let tmp = tempfile::tempdir().unwrap();
    let r = run(mcpgen(tmp.path()).args(["schema", "list"]));
    assert_eq!(r.code, 0);
    assert_eq!(r.stdout.matches("not cached").count(), 5, "{}", r.stdout);

    let r = run(mcpgen(tmp.path()).args(["schema", "pull", "--all"]));
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(
        r.stdout.matches("verified and cached").count(),
        5,
        "{}",
        r.stdout
    );
    for rev in [
        "2024-11-05",
        "2025-03-26",
        "2025-06-18",
        "2025-11-25",
        "2026-07-28",
    ] {
        assert!(tmp.path().join(rev).join("schema.json").is_file(), "{rev}");
    }

    let r = run(mcpgen(tmp.path()).args(["schema", "list"]));
    assert_eq!(
        r.stdout.matches("cached, verified").count(),
        5,
        "{}",
        r.stdout
    );

    let r = run(mcpgen(tmp.path()).args(["schema", "pull", "2025-06-18"]));
    assert!(
        r.stdout.contains("2025-06-18: already cached and verified"),
        "{}",
        r.stdout
    );

    // The cache now serves generation even without the mirror.
    let out = tmp.path().join("gen");
    let r = run(mcpgen(tmp.path())
        .env_remove("MCPGEN_SCHEMA_MIRROR")
        .args(["generate", "--out"])
        .arg(&out));
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stderr.contains("schema 2025-11-25 from cache"),
        "{}",
        r.stderr
    );
}

#[test]
fn pull_unknown_revision_fails() {
    let tmp = tempfile::tempdir().unwrap();
    let r = run(mcpgen(tmp.path()).args(["schema", "pull", "2000-01-01"]));
    assert_eq!(r.code, 1);
    assert!(
        r.stderr.contains("unknown protocol revision"),
        "{}",
        r.stderr
    );
    assert_eq!(std::fs::read_dir(tmp.path()).unwrap().count(), 0);
}

#[test]
fn offline_without_mirror_or_cache_says_what_to_do() {
    let tmp = tempfile::tempdir().unwrap();
    let r = run(mcpgen(tmp.path()).env_remove("MCPGEN_SCHEMA_MIRROR").args([
        "schema",
        "pull",
        "2025-11-25",
    ]));
    assert_eq!(r.code, 1);
    assert!(r.stderr.contains("not available offline"), "{}", r.stderr);
    assert!(r.stderr.contains("MCPGEN_SCHEMA_MIRROR"), "{}", r.stderr);
}

#[test]
fn manifest_check_and_schema() {
    let tmp = tempfile::tempdir().unwrap();
    let r = run(mcpgen(tmp.path())
        .args(["manifest", "check"])
        .arg(weather()));
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    assert!(r.stdout.contains("tools.json: ok"), "{}", r.stdout);

    let bad = tmp.path().join("bad.json");
    std::fs::write(
        &bad,
        "{\"tools\": [{\"name\": \"a b\", \"inputSchema\": {\"type\": \"object\"}}]}",
    )
    .unwrap();
    let r = run(mcpgen(tmp.path()).args(["manifest", "check"]).arg(&bad));
    assert_eq!(r.code, 1);
    assert!(r.stderr.contains("error: "), "{}", r.stderr);
    assert!(r.stderr.contains("bad.json"), "{}", r.stderr);

    // What the official schema of the revision rejects is reported too.
    let off_spec =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/off_spec.json");
    let r = run(mcpgen(tmp.path())
        .args(["manifest", "check", "--protocol", "2025-06-18"])
        .arg(&off_spec));
    assert_eq!(r.code, 1);
    assert!(
        r.stderr.contains("off_spec.json:7:51 at /resources/0/size: not a valid MCP `Resource`: \"big\" is not of type \"integer\""),
        "{}",
        r.stderr
    );
    assert!(
        r.stderr.contains("off_spec.json: 8 problem(s)"),
        "{}",
        r.stderr
    );

    // A revision that is not pinned: the hint names the option, and the
    // option checks against that file (here the 2026-07-28 schema, reformatted
    // so that it no longer matches any pin).
    let r = run(mcpgen(tmp.path())
        .args(["manifest", "check", "--protocol", "2099-01-01"])
        .arg(&off_spec));
    assert_eq!(r.code, 1);
    assert!(
        r.stderr.contains("unknown protocol revision `2099-01-01`"),
        "{}",
        r.stderr
    );
    assert!(
        r.stderr
            .contains("`mcpgen manifest check` take any other schema file with --schema FILE"),
        "{}",
        r.stderr
    );
    let official: serde_json::Value =
        serde_json::from_slice(&std::fs::read(mirror().join("2026-07-28/schema.json")).unwrap())
            .unwrap();
    let draft = tmp.path().join("draft.json");
    std::fs::write(&draft, serde_json::to_string(&official).unwrap()).unwrap();
    let args = ["manifest", "check", "--protocol", "2099-01-01", "--schema"];
    let r = run(mcpgen(tmp.path()).args(args).arg(&draft).arg(weather()));
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    assert!(r.stdout.contains("tools.json: ok"), "{}", r.stdout);
    assert!(r.stderr.contains("unpinned"), "{}", r.stderr);
    let r = run(mcpgen(tmp.path()).args(args).arg(&draft).arg(&off_spec));
    assert_eq!(r.code, 1);
    assert!(
        r.stderr
            .contains("/resources/0/size: not a valid MCP `Resource`"),
        "{}",
        r.stderr
    );

    let r = run(mcpgen(tmp.path()).args(["manifest", "schema"]));
    assert_eq!(r.code, 0);
    let schema: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    assert!(schema.get("properties").is_some(), "{schema}");
}

#[test]
fn diff_names_the_removed_handshake_and_server_discover() {
    let tmp = tempfile::tempdir().unwrap();
    let r = run(mcpgen(tmp.path()).args(["diff", "2025-11-25", "2026-07-28"]));
    assert_eq!(r.code, 0, "{}", r.stderr);
    for line in [
        "  - initialize (request InitializeRequest)",
        "  - notifications/initialized (notification InitializedNotification)",
        "  - ping (request PingRequest)",
        "  + server/discover (request",
    ] {
        assert!(r.stdout.contains(line), "missing {line:?} in\n{}", r.stdout);
    }
    assert!(
        r.stdout.contains("resultType"),
        "the new resultType field is reported"
    );

    let r = run(mcpgen(tmp.path())
        .args(["diff", "2025-11-25", "2026-07-28", "--json", "--manifest"])
        .arg(weather()));
    assert_eq!(r.code, 0, "{}", r.stderr);
    let json: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    let removed: Vec<&str> = json["methods_removed"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["name"].as_str().unwrap())
        .collect();
    assert!(
        removed.contains(&"initialize") && removed.contains(&"ping"),
        "{removed:?}"
    );
    assert!(json["methods_added"]
        .as_array()
        .unwrap()
        .iter()
        .any(|m| m["name"] == "server/discover"));
    assert!(!json["manifest"]["actions"].as_array().unwrap().is_empty());
}

#[test]
fn diff_of_unknown_revision_fails() {
    let tmp = tempfile::tempdir().unwrap();
    let r = run(mcpgen(tmp.path()).args(["diff", "2025-11-25", "1999-01-01"]));
    assert_eq!(r.code, 1);
    assert!(
        r.stderr.contains("unknown protocol revision `1999-01-01`"),
        "{}",
        r.stderr
    );
}

#[test]
fn a_closed_stdout_is_not_an_error() {
    // `mcpgen diff A B | head`: the reader goes away before the report is
    // written; mcpgen stops quietly with success.
    let tmp = tempfile::tempdir().unwrap();
    let mut child = mcpgen(tmp.path())
        .args(["diff", "2025-11-25", "2026-07-28"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let output = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    assert!(!stderr.contains("error"), "{stderr}");
}

/// The weather example's manifest.
fn weather() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/weather-server/tools.json")
}
