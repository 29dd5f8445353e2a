//! The generated client over Streamable HTTP (`Client::connect_http`,
//! `Client::connect_http_with`) against the example server
//! (examples/weather-server `--http 127.0.0.1:0`) in both eras: an
//! `initialize` session at the bindings' revision (2025-11-25) and stateless
//! 2026-07-28. The driver is `client_fixtures/http_driver.rs`, compiled as
//! a user crate would be.

mod client_support;

use client_support::*;

#[test]
fn generated_client_over_http_in_both_eras() {
    let generated = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("client-http/generated");
    generate(
        &root().join("examples/weather-server/tools.json"),
        "2025-11-25",
        &generated,
    );
    let driver = build_driver(
        "client_http_driver",
        &generated,
        include_str!("client_fixtures/http_driver.rs"),
        false,
    );
    let (_server, url) = http_server("weather-server", "weather-server");
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
            assert!(
                out.lines().any(|l| l == format!("ok {step}")),
                "{era}: step {step} missing:\n{out}"
            );
        }
    }
}
