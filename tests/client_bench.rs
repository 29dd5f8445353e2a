//! Client benchmark (ignored by default; prints figures, asserts nothing
//! timed): the generated Rust client and the official TypeScript SDK
//! client, in the same run, each calling `get_forecast` on the generated
//! example server (release build) over stdio.
//!
//! ```text
//! cargo test --release -p mcpgen --test client_bench -- --ignored --nocapture
//! ```
//! `MCPGEN_BENCH_CALLS` sets the number of calls per mode (default 10000).

mod client_support;

use std::process::Command;

use client_support::*;

fn field(line: &str, key: &str) -> Option<f64> {
    line.split_whitespace()
        .find_map(|kv| kv.strip_prefix(&format!("{key}="))?.parse().ok())
}

#[test]
#[ignore = "benchmark: run with --ignored --nocapture"]
fn client_round_trips_rust_vs_typescript() {
    let calls = std::env::var("MCPGEN_BENCH_CALLS").unwrap_or_else(|_| "10000".into());
    let tmp = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("client-bench");
    let generated = tmp.join("generated");
    generate(
        &root().join("examples/weather-server/tools.json"),
        "2025-11-25",
        &generated,
    );
    let driver = build_driver(
        "client_bench_driver",
        &generated,
        include_str!("client_fixtures/bench_driver.rs"),
        true,
    );
    let server = workspace_bin("weather-server", "weather-server", true);
    let server = server.to_str().unwrap();

    // The floor: H2's raw blocking JSON-RPC driver (no client engine).
    let raw = workspace_bin("weather-server", "mcp-bench", true);
    let floor = run(
        &raw,
        &["--calls", &calls, "--server", &format!("weather={server}")],
    );
    println!("raw blocking JSON-RPC loop (mcp-bench) -> weather-server (release):\n{floor}");

    let rust = run(&driver, &[server, &calls]);
    println!("generated Rust client  -> weather-server (release):\n{rust}");

    let sdk = interop_dir().join("node_modules/@modelcontextprotocol/sdk");
    if !prerequisite(sdk.is_dir(), "the TypeScript SDK in the interop folder") {
        return;
    }
    let script = interop_dir().join("client-bench.mjs");
    std::fs::write(&script, include_str!("client_fixtures/ts_bench_client.mjs")).unwrap();
    let out = Command::new("node")
        .arg(&script)
        .args([server, &calls])
        .output()
        .expect("node runs");
    let ts = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "TS client failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    println!("TypeScript SDK client -> weather-server (release):\n{ts}");
    for mode in ["sequential", "concurrent16"] {
        let pick = |text: &str| {
            text.lines()
                .find(|l| l.contains(&format!("mode={mode} ")))
                .and_then(|l| field(l, "rps"))
        };
        if let (Some(r), Some(t)) = (pick(&rust), pick(&ts)) {
            println!(
                "{mode}: Rust {r:.0} calls/s, TypeScript {t:.0} calls/s, ratio {:.1}x",
                r / t
            );
        }
    }
}
