//! The generated client over Streamable HTTP (`Client::connect_http`,
//! `Client::connect_http_with`) against the example server
//! (examples/weather-server `--http 127.0.0.1:0`) in both eras: an
//! `initialize` session at the bindings' revision (2025-11-25) and stateless
//! 2026-07-28. The driver is `client_fixtures/http_driver.rs`, compiled as
//! a user crate would be.

mod client_support;

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use client_support::*;

/// The example server on an ephemeral loopback port; killed when dropped.
struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn weather_server() -> (Server, String) {
    let bin = workspace_bin("weather-server", "weather-server", false);
    let mut child = Command::new(bin)
        .args(["--http", "127.0.0.1:0"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start weather-server");
    let stderr = child.stderr.take().unwrap();
    let (tx, rx) = mpsc::channel();
    // Reads stderr to its end, so the server never blocks on a full pipe.
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            if let Some(url) = line.split("MCP endpoint: ").nth(1) {
                let _ = tx.send(url.trim().to_owned());
            }
        }
    });
    let url = rx.recv_timeout(Duration::from_secs(60)).expect("weather-server prints its endpoint on stderr");
    (Server(child), url)
}

#[test]
fn generated_client_over_http_in_both_eras() {
    let generated = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("client-http/generated");
    generate(&root().join("examples/weather-server/tools.json"), "2025-11-25", &generated);
    let driver = build_driver("client_http_driver", &generated, include_str!("client_fixtures/http_driver.rs"), false);
    let (_server, url) = weather_server();
    for (era, revision) in [("legacy", "2025-11-25"), ("modern", "2026-07-28")] {
        let out = run(&driver, &[&url, era]);
        for step in [
            format!("connect {revision}"),
            "get_forecast".into(),
            "convert_temperature".into(),
            "tool_error".into(),
            "progress".into(),
            "tools_list".into(),
            "concurrent".into(),
        ] {
            assert!(out.lines().any(|l| l == format!("ok {step}")), "{era}: step {step} missing:\n{out}");
        }
    }
}
