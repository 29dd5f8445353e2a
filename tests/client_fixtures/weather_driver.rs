// Driver for tests/client_weather.rs: the generated client against the
// example weather server over stdio. Its manifest is the example's with
// one change (get_forecast's output allows at most 3 days), so a valid
// server answer can fail the client's outputSchema and the drift check has
// something to find. Prints "ok <step>" per passed step; panics otherwise.

use std::num::NonZeroU64;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use client::{CallOptions, Client, ClientError};
use mcpgen_runtime::transport::{ChildTransport, StderrMode};
use tools::*;

fn text(blocks: &[protocol::ContentBlock]) -> String {
    blocks
        .iter()
        .filter_map(|b| match b {
            protocol::ContentBlock::Text(t) => Some(t.text.as_str()),
            _ => None,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn forecast(city: &str, days: u64) -> GetForecastInput {
    GetForecastInput {
        city: city.parse().expect("valid city"),
        days: NonZeroU64::new(days).expect("non-zero"),
        units: Units::Metric,
    }
}

#[tokio::main]
async fn main() {
    let server = std::env::args().nth(1).expect("usage: driver SERVER");
    let transport = ChildTransport::spawn(
        &server,
        Vec::<String>::new(),
        [("WEATHER_LOG", "info"), ("WEATHER_PAGE_SIZE", "2")],
        StderrMode::Capture,
    )
    .expect("server starts");
    let stderr = transport.stderr().expect("captured");
    let c = Client::connect_with(transport, client::default_options().timeout(Duration::from_secs(30)))
        .await
        .expect("handshake");
    let session = c.session().expect("session");
    assert_eq!(session.protocol_version, client::PROTOCOL_VERSION);
    assert_eq!(session.server_info["name"], "weather-server");
    println!("ok initialize");

    // Every tool, typed in and out.
    let f = c.get_forecast(forecast("Oslo", 3)).await.expect("get_forecast");
    assert_eq!(f.city, "Oslo");
    assert_eq!(f.days.len(), 3);
    assert!(f.days.iter().all(|d| d.high >= d.low));
    println!("ok get_forecast");

    let blocks = c
        .convert_temperature(ConvertTemperatureInput::new(ConvertTemperatureFromOrTo::Celsius, ConvertTemperatureFromOrTo::Fahrenheit, 100.0))
        .await
        .expect("convert_temperature");
    assert!(text(&blocks).contains("212"), "{}", text(&blocks));
    println!("ok convert_temperature");

    let trip = c
        .plan_trip(PlanTripInput {
            traveler: PlanTripInputTraveler { name: "Ada".parse().unwrap(), age: Some(36) },
            stops: vec![
                PlanTripInputStopsItem { city: "Bergen".parse().unwrap(), nights: NonZeroU64::new(2).unwrap() },
                PlanTripInputStopsItem { city: "Tromsø".parse().unwrap(), nights: NonZeroU64::new(3).unwrap() },
            ],
            preferences: None,
        })
        .await
        .expect("plan_trip");
    assert_eq!(trip.traveler, "Ada");
    assert_eq!(trip.total_nights.get(), 5);
    assert_eq!(trip.itinerary.len(), 2);
    assert_eq!(trip.itinerary[1].arrive_on_night.get(), 3);
    println!("ok plan_trip");

    let alerts = c.get_alerts(GetAlertsInput { region: GetAlertsInputRegion::NorthSea }).await.expect("get_alerts");
    assert!(text(&alerts).contains("Gale"), "{}", text(&alerts));
    // Limited to 5 calls a minute: four more fit, the sixth is refused,
    // and the error says how long to wait as a number.
    for _ in 0..4 {
        c.get_alerts(GetAlertsInput { region: GetAlertsInputRegion::NorthSea }).await.expect("within the limit");
    }
    let err = c
        .get_alerts(GetAlertsInput { region: GetAlertsInputRegion::NorthSea })
        .await
        .expect_err("over the limit");
    let wait = err.retry_after().expect("a rate-limit refusal gives its wait");
    assert!(wait > Duration::from_secs(10) && wait <= Duration::from_secs(12), "{wait:?}");
    let said = err.tool_text().unwrap();
    assert!(said.ends_with(&format!("retry in {} s", wait.as_millis().div_ceil(1000))), "{said}");
    println!("ok get_alerts");

    let seen = Arc::new(Mutex::new(Vec::new()));
    let sink = seen.clone();
    let radar = c
        .watch_radar_with(
            WatchRadarInput { steps: NonZeroU64::new(4).unwrap(), step_ms: 1 },
            CallOptions::new().on_progress(move |p| sink.lock().unwrap().push((p.progress, p.total))),
        )
        .await
        .expect("watch_radar");
    assert!(text(&radar).contains("4 sweeps"), "{}", text(&radar));
    let seen = seen.lock().unwrap().clone();
    assert_eq!(seen.len(), 4, "{seen:?}");
    assert_eq!(seen[3], (4.0, Some(4.0)));
    println!("ok watch_radar progress");

    // A tool error, with its content.
    let err = c
        .simulate_failure(SimulateFailureInput { mode: SimulateFailureInputMode::ToolError })
        .await
        .expect_err("tool error");
    assert!(matches!(&err, ClientError::Tool { tool, .. } if tool == "simulate_failure"), "{err:?}");
    assert!(err.tool_text().unwrap().contains("sensor 7"));
    let typed: Vec<protocol::ContentBlock> = err.tool_content().unwrap().expect("content decodes");
    assert!(text(&typed).contains("sensor 7"));
    let err = c
        .convert_temperature(ConvertTemperatureInput::new(ConvertTemperatureFromOrTo::Celsius, ConvertTemperatureFromOrTo::Kelvin, -300.0))
        .await
        .expect_err("below absolute zero");
    assert!(err.tool_text().unwrap().contains("absolute zero"), "{err}");
    println!("ok tool_error");

    // The server refuses to send output that fails its own outputSchema:
    // that is a JSON-RPC error (internal error) for the client.
    let err = c
        .simulate_failure(SimulateFailureInput { mode: SimulateFailureInputMode::BadOutput })
        .await;
    match err {
        Err(ClientError::Protocol { code, .. }) => assert_eq!(code, -32603),
        // A server that lets it through: the client's own check catches it.
        Err(ClientError::InvalidOutput { .. }) => {}
        other => panic!("bad_output: expected an error, got {other:?}"),
    }
    println!("ok server_side_bad_output");

    // Invalid input is caught before sending: days is at most 7.
    let calls_before = stderr.text().matches("get_forecast").count();
    let err = c.get_forecast(forecast("Oslo", 9)).await.expect_err("days > 7");
    let ClientError::InvalidInput { tool, problems } = &err else { panic!("expected InvalidInput, got {err:?}") };
    assert_eq!(tool, "get_forecast");
    assert!(problems.iter().any(|p| p.pointer == "/days"), "{problems:?}");
    assert!(err.to_string().contains("/days"), "{err}");
    // Prove nothing was sent: a ping round trip orders after any call.
    c.engine().request("ping", None, &CallOptions::new()).await.expect("ping");
    assert_eq!(stderr.text().matches("get_forecast").count(), calls_before, "the invalid call reached the server");
    println!("ok invalid_input_client_side");

    // A valid server answer that fails the client's outputSchema (maxItems 3).
    let err = c.get_forecast(forecast("Oslo", 5)).await.expect_err("5 days > maxItems 3");
    let ClientError::InvalidOutput { problems, .. } = &err else { panic!("expected InvalidOutput, got {err:?}") };
    assert!(problems.iter().any(|p| p.pointer == "/structuredContent/days"), "{problems:?}");
    println!("ok output_fails_schema");

    // Timeout: cancellation reaches the server (its audit log says so).
    let err = c
        .watch_radar_with(
            WatchRadarInput { steps: NonZeroU64::new(1000).unwrap(), step_ms: 50 },
            CallOptions::new().timeout(Duration::from_millis(300)),
        )
        .await
        .expect_err("times out");
    assert!(matches!(&err, ClientError::Timeout { .. }), "{err:?}");
    let mut cancelled = false;
    for _ in 0..500 {
        if stderr.text().lines().any(|l| l.contains("watch_radar") && l.contains("cancelled")) {
            cancelled = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert!(cancelled, "server did not log a cancelled watch_radar:\n{}", stderr.text());
    println!("ok timeout_cancelled");

    // Paging (page size 2) and drift against the changed manifest.
    let live = c.list_all_tools().await.expect("tools/list");
    assert_eq!(live.len(), 6);
    let drift = c.check_drift().await.expect("drift");
    assert!(drift.missing.is_empty() && drift.extra.is_empty(), "{drift}");
    assert_eq!(drift.changed.len(), 1, "{drift}");
    assert_eq!(drift.changed[0].tool, "get_forecast");
    assert_eq!(drift.changed[0].kind, mcpgen_runtime::client::SchemaKind::Output);
    println!("ok drift");

    // Concurrent calls on one connection.
    let calls = (0..32).map(|i| {
        let c = c.clone();
        async move {
            let celsius_to_kelvin = ConvertTemperatureInput::new(ConvertTemperatureFromOrTo::Celsius, ConvertTemperatureFromOrTo::Kelvin, f64::from(i));
            c.convert_temperature(celsius_to_kelvin).await
        }
    });
    for (i, r) in futures_join(calls).await.into_iter().enumerate() {
        let t = text(&r.expect("concurrent call"));
        assert!(t.contains(&format!("{:.2}", 273.15 + i as f64)) || t.contains(&format!("{}", 273.15 + i as f64)), "{i}: {t}");
    }
    println!("ok concurrent");
}

async fn futures_join<F: std::future::Future + Send + 'static>(fs: impl Iterator<Item = F>) -> Vec<F::Output>
where
    F::Output: Send + 'static,
{
    let handles: Vec<_> = fs.map(tokio::spawn).collect();
    let mut out = Vec::new();
    for h in handles {
        out.push(h.await.expect("task"));
    }
    out
}
