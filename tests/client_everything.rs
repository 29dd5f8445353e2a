//! Against the official reference server `@modelcontextprotocol/server-everything`
//! (installed into `.interop/` by `scripts/setup-interop.sh`): `mcpgen
//! introspect` writes its manifest (tools, resources, resource templates
//! and prompts), a client is generated from it and
//! compiled as a user crate, and the driver
//! (`client_fixtures/everything_driver.rs`) calls several tools with typed
//! inputs — one with structured output, one that returns an error, one
//! with progress. Skips when node or the install is missing, except under
//! CI=true, where it fails instead.

mod client_support;

use std::path::PathBuf;
use std::process::Command;

use client_support::*;

fn server_script() -> PathBuf {
    interop_dir().join("node_modules/@modelcontextprotocol/server-everything/dist/index.js")
}

fn node_works() -> bool {
    Command::new("node")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

#[test]
fn introspect_generate_compile_and_call_server_everything() {
    if !prerequisite(node_works(), "node")
        || !prerequisite(server_script().is_file(), "server-everything")
    {
        return;
    }
    let tmp = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("client-everything");
    std::fs::create_dir_all(&tmp).unwrap();
    let manifest = tmp.join("everything.json");
    let _ = std::fs::remove_file(&manifest);
    let script = server_script();
    let out = Command::new(env!("CARGO_BIN_EXE_mcpgen"))
        .args(["introspect", "--out"])
        .arg(&manifest)
        .args(["--timeout", "60", "--", "node"])
        .arg(&script)
        .arg("stdio")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "introspect failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );

    let text = std::fs::read_to_string(&manifest).unwrap();
    let doc: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(doc["server"]["name"], "mcp-servers/everything");
    let names: Vec<&str> = doc["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    for expected in [
        "echo",
        "get-sum",
        "get-structured-content",
        "simulate-research-query",
    ] {
        assert!(
            names.contains(&expected),
            "{expected} missing from {names:?}"
        );
    }
    let structured = doc["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "get-structured-content")
        .unwrap();
    assert!(structured["outputSchema"].is_object());
    // Unknown fields of the served tools are kept.
    assert!(structured.get("annotations").is_some());
    // The server declares resources and prompts: their lists are captured too.
    for key in ["resources", "resourceTemplates", "prompts"] {
        assert!(
            doc[key].as_array().is_some_and(|a| !a.is_empty()),
            "no {key} in the introspected manifest"
        );
    }
    // The manifest passes mcpgen's own check.
    let parsed = mcpgen::manifest::Manifest::from_str(&text, "everything.json").unwrap();
    let problems = mcpgen::check::check_in(&shared_data::store(), &parsed, "2025-11-25");
    assert!(problems.is_empty(), "{problems:?}");

    // Bindings of the server's revision, and of 2026-07-28, which fall back
    // to it and decode its results into the later revision's types.
    for revision in ["2025-11-25", "2026-07-28"] {
        let generated = tmp.join(format!("generated-{revision}"));
        generate(&manifest, revision, &generated);
        let driver = build_driver(
            &format!("client_everything_driver_{}", revision.replace('-', "_")),
            &generated,
            include_str!("client_fixtures/everything_driver.rs"),
            false,
        );
        let out = run(&driver, &["node", script.to_str().unwrap(), "stdio"]);
        for step in [
            "echo",
            "get_sum",
            "get_structured_content",
            "tool_error",
            "get_tiny_image",
            "progress",
            "prompt",
            "resources",
            "drift",
        ] {
            assert!(
                out.lines().any(|l| l == format!("ok {step}")),
                "{revision}: step {step} missing:\n{out}"
            );
        }
        assert!(
            out.lines().any(|l| l.starts_with("ok initialize 2025-")),
            "{revision}: {out}"
        );
    }
}
