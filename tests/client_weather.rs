//! The generated client against the generated example server
//! (examples/weather-server) end to end over stdio: every tool, progress,
//! a tool error, invalid input caught client-side, an answer failing the
//! client's outputSchema, a timeout whose cancellation reaches the server,
//! paging, drift and concurrent calls. The driver is
//! `client_fixtures/weather_driver.rs`, compiled as a user crate would be.

mod client_support;

use client_support::*;

#[test]
fn generated_client_against_example_server() {
    let tmp = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("client-weather");
    std::fs::create_dir_all(&tmp).unwrap();
    // The example manifest with get_forecast's output limited to 3 days.
    let original = root().join("examples/weather-server/tools.json");
    let mut manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&original).unwrap()).unwrap();
    let tools = manifest["tools"].as_array_mut().unwrap();
    let forecast = tools
        .iter_mut()
        .find(|t| t["name"] == "get_forecast")
        .expect("example has get_forecast");
    forecast["outputSchema"]["properties"]["days"]["maxItems"] = serde_json::json!(3);
    let path = tmp.join("tools.json");
    std::fs::write(&path, serde_json::to_string_pretty(&manifest).unwrap()).unwrap();

    let generated = tmp.join("generated");
    generate(&path, "2025-11-25", &generated);
    let driver = build_driver(
        "client_weather_driver",
        &generated,
        include_str!("client_fixtures/weather_driver.rs"),
        false,
    );
    let server = workspace_bin("weather-server", "weather-server", false);
    let out = run(&driver, &[server.to_str().unwrap()]);
    for step in [
        "initialize",
        "get_forecast",
        "convert_temperature",
        "plan_trip",
        "get_alerts",
        "watch_radar progress",
        "tool_error",
        "server_side_bad_output",
        "invalid_input_client_side",
        "output_fails_schema",
        "timeout_cancelled",
        "drift",
        "concurrent",
    ] {
        assert!(
            out.lines().any(|l| l == format!("ok {step}")),
            "step {step} missing:\n{out}"
        );
    }
}
