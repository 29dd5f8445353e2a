//! The generated client's typed task methods (`start_<tool>` → a typed
//! result or a task to poll, cancel, give input to and await) against the
//! generated conformance fixture server (examples/conformance-server), in
//! both eras (2025-11-25 tasks, the 2026-07-28 tasks extension) over stdio
//! and Streamable HTTP, with a task asking the client for input and the
//! status notifications of tasks in both eras. The
//! driver is `client_fixtures/tasks_driver.rs`,
//! compiled as a user crate would be.

mod client_support;

use client_support::*;

#[test]
fn typed_tasks_end_to_end_in_both_eras_over_stdio_and_http() {
    let generated =
        std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("client-tasks/generated");
    generate(
        &root().join("examples/conformance-server/tools.json"),
        "2025-11-25",
        &generated,
    );
    let driver = build_driver(
        "client_tasks_driver",
        &generated,
        include_str!("client_fixtures/tasks_driver.rs"),
        false,
    );
    let server_bin = workspace_bin("conformance-server", "conformance-server", false);
    let (_server, url) = http_server("conformance-server", "conformance-server");
    for (transport, target) in [
        ("stdio", server_bin.to_str().unwrap()),
        ("http", url.as_str()),
    ] {
        for (era, connect) in [
            ("legacy", "ok connect 2025-11-25"),
            ("modern", "ok connect 2026-07-28"),
        ] {
            let out = run(&driver, &[transport, target, era]);
            assert!(
                out.lines().any(|l| l.starts_with(connect)),
                "{transport} {era}: {out}"
            );
            for step in [
                "task result",
                "task tool error",
                "task cancel",
                "task input",
                "task status notifications",
            ] {
                assert!(
                    out.lines().any(|l| l == format!("ok {step}")),
                    "{transport} {era}: step {step} missing:\n{out}"
                );
            }
        }
    }
}
