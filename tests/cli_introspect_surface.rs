//! `mcpgen introspect` captures resources, resource templates and prompts
//! besides tools: examples/notes-server introspected over stdio and
//! Streamable HTTP (either era) gives back its manifest's sections as
//! served; `manifest check` passes on the output; a client generated from
//! it compiles warning-free and reads and gets them from the server. A
//! scripted server shows that only the declared lists are requested and
//! that each is followed through its pages.

mod cli_support;
mod client_support;

use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use cli_support::{mcpgen, run};
use client_support::{build_driver, generate, root, workspace_bin};
use serde_json::{json, Value};

/// The notes example's manifest as served: `x-mcpgen` settings removed.
fn served_manifest() -> Value {
    let text = std::fs::read_to_string(root().join("examples/notes-server/manifest.json")).unwrap();
    let mut manifest: Value = serde_json::from_str(&text).unwrap();
    for key in ["tools", "resources", "resourceTemplates", "prompts"] {
        for item in manifest[key].as_array_mut().unwrap() {
            item.as_object_mut().unwrap().shift_remove("x-mcpgen");
        }
    }
    manifest
}

/// `notes-server --http` on a free loopback port; killed when dropped.
struct HttpServer {
    child: Child,
    url: String,
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn http_server(bin: &std::path::Path) -> HttpServer {
    http_server_with(bin, &[])
}

/// The server `bin --http` with extra environment variables.
fn http_server_with(bin: &std::path::Path, env: &[(&str, &str)]) -> HttpServer {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let addr = format!("127.0.0.1:{port}");
    let child = Command::new(bin)
        .args(["--http", &addr])
        .envs(env.iter().copied())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let server = HttpServer {
        child,
        url: format!("http://{addr}/mcp"),
    };
    let deadline = Instant::now() + Duration::from_secs(60);
    while TcpStream::connect(&addr).is_err() {
        assert!(
            Instant::now() < deadline,
            "{} --http {addr} did not start listening",
            bin.display()
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    server
}

#[test]
fn introspect_notes_server_check_generate_and_read_back() {
    let bin = workspace_bin("notes-server", "notes-server", false);
    let tmp = tempfile::tempdir().unwrap();
    let expected = served_manifest();

    // stdio.
    let out = tmp.path().join("notes.json");
    let r = run(mcpgen(tmp.path())
        .args(["introspect", "--timeout", "30", "--out"])
        .arg(&out)
        .arg("--")
        .arg(&bin));
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stderr.contains("mcpgen introspect: 2 tool(s), 2 resource(s), 1 resource template(s), 2 prompt(s) from `")
            && r.stderr.contains("(protocol 2025-11-25)"),
        "{}",
        r.stderr
    );
    let manifest: Value = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    assert_eq!(manifest, expected);
    let keys: Vec<&String> = manifest.as_object().unwrap().keys().collect();
    assert_eq!(
        keys,
        [
            "server",
            "tools",
            "resources",
            "resourceTemplates",
            "prompts"
        ]
    );

    // What introspection writes passes mcpgen's own check, in both eras.
    for revision in ["2025-11-25", "2026-07-28"] {
        let check = run(mcpgen(tmp.path())
            .args(["manifest", "check", "--protocol", revision])
            .arg(&out));
        assert_eq!(
            check.code, 0,
            "{revision}: {}{}",
            check.stdout, check.stderr
        );
    }

    // Streamable HTTP: the stateless era first, the same manifest.
    let server = http_server(&bin);
    let r = run(mcpgen(tmp.path()).args(["introspect", "--timeout", "30", "--url", &server.url]));
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stderr.contains(&format!(
            "mcpgen introspect: 2 tool(s), 2 resource(s), 1 resource template(s), 2 prompt(s) from {} (protocol 2026-07-28)",
            server.url
        )),
        "{}",
        r.stderr
    );
    let over_http: Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(over_http, expected);
    drop(server);

    // A client generated from the introspected manifest compiles under
    // #![deny(warnings)] and reads and gets everything from the server.
    let generated = tmp.path().join("generated");
    generate(&out, "2025-11-25", &generated);
    let client_rs = std::fs::read_to_string(generated.join("client.rs")).unwrap();
    for method in [
        "fn get_summarize_note",
        "fn get_daily_review",
        "fn read_note",
        "fn read_resource",
    ] {
        assert!(
            client_rs.contains(method),
            "{method} missing from the generated client"
        );
    }
    // Completion is a manifest setting, not on the wire: none is generated.
    assert!(
        !client_rs.contains("fn complete_"),
        "completion methods from an introspected manifest"
    );
    let driver = build_driver(
        "introspected_notes_driver",
        &generated,
        include_str!("client_fixtures/notes_driver.rs"),
        false,
    );
    let stdout = client_support::run(&driver, &[bin.to_str().unwrap()]);
    for step in ["static", "template", "prompts", "tool"] {
        assert!(
            stdout.lines().any(|l| l == format!("ok {step}")),
            "step {step} missing:\n{stdout}"
        );
    }

    // The same driver on bindings of 2026-07-28, whose result types
    // require `resultType`: the server speaks the stateless era to them.
    let modern = tmp.path().join("generated-2026");
    generate(&out, "2026-07-28", &modern);
    let driver = build_driver(
        "introspected_notes_driver_2026",
        &modern,
        include_str!("client_fixtures/notes_driver.rs"),
        false,
    );
    let stdout = client_support::run(&driver, &[bin.to_str().unwrap()]);
    for step in ["static", "template", "prompts", "tool"] {
        assert!(
            stdout.lines().any(|l| l == format!("ok {step}")),
            "2026-07-28: step {step} missing:\n{stdout}"
        );
    }
}

/// A scripted stdio server: answers `initialize` with `capabilities`, then
/// one line per later request from `answers`, logging every line it
/// receives to `log`.
fn scripted(capabilities: &str, answers: &[&str], log: &std::path::Path) -> Vec<String> {
    let init = format!(
        r#"{{"jsonrpc":"2.0","id":1,"result":{{"protocolVersion":"2025-11-25","capabilities":{capabilities},"serverInfo":{{"name":"scripted","version":"1"}}}}}}"#
    );
    let log = log.display();
    let mut script = format!(
        "read -r l; echo \"$l\" >>'{log}'; echo '{init}'; read -r l; echo \"$l\" >>'{log}'; "
    );
    for answer in answers {
        script.push_str(&format!(
            "read -r l; echo \"$l\" >>'{log}'; echo '{answer}'; "
        ));
    }
    script.push_str("cat >/dev/null");
    vec!["-c".into(), script]
}

fn methods(log: &std::path::Path) -> Vec<String> {
    std::fs::read_to_string(log)
        .unwrap()
        .lines()
        .map(|l| {
            serde_json::from_str::<Value>(l).unwrap()["method"]
                .as_str()
                .unwrap()
                .to_owned()
        })
        .collect()
}

fn introspect(args: Vec<String>) -> mcpgen::Result<mcpgen::cli::introspect::Introspected> {
    mcpgen::cli::introspect::Introspect {
        command: "sh".into(),
        args,
        timeout: Duration::from_secs(20),
    }
    .run()
}

#[test]
fn introspect_requests_only_declared_lists_and_follows_their_pages() {
    let tmp = tempfile::tempdir().unwrap();

    // Prompts only: no tools/list, no resources lists; two pages of prompts.
    let log = tmp.path().join("prompts.log");
    let page1 = r#"{"jsonrpc":"2.0","id":2,"result":{"prompts":[{"name":"b","x-extra":true}],"nextCursor":"c2"}}"#;
    let page2 = r#"{"jsonrpc":"2.0","id":3,"result":{"prompts":[{"name":"a","arguments":[{"name":"x","required":true}]}]}}"#;
    let found = introspect(scripted(r#"{"prompts":{}}"#, &[page1, page2], &log)).unwrap();
    assert_eq!(
        methods(&log),
        [
            "initialize",
            "notifications/initialized",
            "prompts/list",
            "prompts/list"
        ]
    );
    assert_eq!(
        found.manifest,
        json!({
            "server": {"name": "scripted", "version": "1"},
            "tools": [],
            "prompts": [{"name": "b", "x-extra": true}, {"name": "a", "arguments": [{"name": "x", "required": true}]}]
        })
    );
    assert_eq!(found.summary(), "0 tool(s), 2 prompt(s)");
    let cursor: Value = serde_json::from_str(
        std::fs::read_to_string(&log)
            .unwrap()
            .lines()
            .nth(3)
            .unwrap(),
    )
    .unwrap();
    assert_eq!(cursor["params"]["cursor"], "c2");
    mcpgen::manifest::Manifest::from_str(&found.to_json(), "introspected.json").unwrap();

    // Tools and resources: both resource lists, in the manifest's order.
    let log = tmp.path().join("resources.log");
    let tools = r#"{"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":"t","inputSchema":{"type":"object"}}]}}"#;
    let resources =
        r#"{"jsonrpc":"2.0","id":3,"result":{"resources":[{"uri":"a://1","name":"one"}]}}"#;
    let templates = r#"{"jsonrpc":"2.0","id":4,"result":{"resourceTemplates":[{"uriTemplate":"a://{n}","name":"n"}]}}"#;
    let found = introspect(scripted(
        r#"{"tools":{},"resources":{}}"#,
        &[tools, resources, templates],
        &log,
    ))
    .unwrap();
    assert_eq!(
        methods(&log),
        [
            "initialize",
            "notifications/initialized",
            "tools/list",
            "resources/list",
            "resources/templates/list"
        ]
    );
    assert_eq!(
        found.manifest["resources"],
        json!([{"uri": "a://1", "name": "one"}])
    );
    assert_eq!(
        found.manifest["resourceTemplates"],
        json!([{"uriTemplate": "a://{n}", "name": "n"}])
    );
    assert!(found.manifest.get("prompts").is_none());
    assert_eq!(
        found.summary(),
        "1 tool(s), 1 resource(s), 1 resource template(s)"
    );

    // A declared list the server does not answer properly names the method.
    let log = tmp.path().join("broken.log");
    let wrong = r#"{"jsonrpc":"2.0","id":2,"result":{"items":[]}}"#;
    let err = introspect(scripted(r#"{"prompts":{}}"#, &[wrong], &log)).unwrap_err();
    assert!(
        err.to_string()
            .contains("prompts/list result has no `prompts` array"),
        "{err}"
    );
}

/// A server with the search tool surface lists two tools; introspection
/// reads the whole catalog through `search_tools` and keeps the surface:
/// examples/weather-server with `--tool-surface search`, over stdio and
/// Streamable HTTP.
#[test]
fn introspect_reads_the_whole_catalog_of_a_search_surface() {
    let bin = workspace_bin("weather-server", "weather-server", false);
    let tmp = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(root().join("examples/weather-server/tools.json")).unwrap();
    let mut declared: Value = serde_json::from_str(&text).unwrap();
    for tool in declared["tools"].as_array_mut().unwrap() {
        tool.as_object_mut().unwrap().shift_remove("x-mcpgen");
    }
    let check = |manifest: &Value, how: &str| {
        assert_eq!(
            manifest["x-mcpgen"],
            json!({"toolSurface": "search"}),
            "{how}"
        );
        assert_eq!(
            manifest["tools"], declared["tools"],
            "{how}: every tool, as declared"
        );
    };
    let out = tmp.path().join("weather.json");
    let r = run(mcpgen(tmp.path())
        .args(["introspect", "--timeout", "30", "--out"])
        .arg(&out)
        .arg("--")
        .arg(&bin)
        .args(["--tool-surface", "search"]));
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stderr.contains("6 tool(s)"), "{}", r.stderr);
    let manifest: Value = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    check(&manifest, "stdio");
    let check_run = run(mcpgen(tmp.path()).args(["manifest", "check"]).arg(&out));
    assert_eq!(
        check_run.code, 0,
        "{}{}",
        check_run.stdout, check_run.stderr
    );

    let server = http_server_with(&bin, &[("WEATHER_TOOL_SURFACE", "search")]);
    let r = run(mcpgen(tmp.path()).args(["introspect", "--timeout", "30", "--url", &server.url]));
    assert_eq!(r.code, 0, "{}", r.stderr);
    let manifest: Value = serde_json::from_str(&r.stdout).unwrap();
    check(&manifest, "HTTP");
}
