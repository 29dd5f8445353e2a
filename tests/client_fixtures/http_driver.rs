// Driver for tests/client_http.rs: the generated client (example manifest,
// 2025-11-25 bindings) against the example weather server over Streamable
// HTTP. `driver URL legacy` connects with `Client::connect_http` (the
// bindings' revision, an `initialize` session); `driver URL modern` with
// `Client::connect_http_with` offering 2026-07-28 first (stateless, per
// request `_meta`). Prints "ok <step>" per passed step; panics otherwise.

use std::num::NonZeroU64;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use client::{CallOptions, Client, ClientError, ClientOptions};
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

fn celsius_to_kelvin(value: f64) -> ConvertTemperatureInput {
    ConvertTemperatureInput::new(ConvertTemperatureFromOrTo::Celsius, ConvertTemperatureFromOrTo::Kelvin, value)
}

#[tokio::main]
async fn main() {
    let mut args = std::env::args().skip(1);
    let (url, era) = (args.next().expect("usage: driver URL legacy|modern"), args.next().expect("era"));
    let c = match era.as_str() {
        "legacy" => Client::connect_http(&url).await.expect("connect_http"),
        "modern" => {
            let options = ClientOptions::new(["2026-07-28", client::PROTOCOL_VERSION]).timeout(Duration::from_secs(30));
            Client::connect_http_with(&url, options).await.expect("connect_http_with")
        }
        other => panic!("unknown era {other}"),
    };
    let session = c.session().expect("session");
    let (revision, stateless) = if era == "modern" { ("2026-07-28", true) } else { (client::PROTOCOL_VERSION, false) };
    assert_eq!(session.protocol_version, revision);
    assert_eq!(session.stateless, stateless);
    assert_eq!(session.server_info["name"], "weather-server");
    println!("ok connect {revision}");

    let f = c
        .get_forecast(GetForecastInput {
            city: "Oslo".parse().expect("valid city"),
            days: NonZeroU64::new(3).expect("non-zero"),
            units: Units::Metric,
        })
        .await
        .expect("get_forecast");
    assert_eq!(f.city, "Oslo");
    assert_eq!(f.days.len(), 3);
    println!("ok get_forecast");

    let blocks = c.convert_temperature(celsius_to_kelvin(0.0)).await.expect("convert_temperature");
    assert!(text(&blocks).contains("273.15"), "{}", text(&blocks));
    println!("ok convert_temperature");

    let err = c.convert_temperature(celsius_to_kelvin(-300.0)).await.expect_err("below absolute zero");
    assert!(matches!(&err, ClientError::Tool { .. }), "{err:?}");
    assert!(err.tool_text().unwrap().contains("absolute zero"), "{err}");
    println!("ok tool_error");

    // Progress arrives on the request's SSE stream.
    let seen = Arc::new(Mutex::new(Vec::new()));
    let sink = seen.clone();
    let radar = c
        .watch_radar_with(
            WatchRadarInput { steps: NonZeroU64::new(3).unwrap(), step_ms: 1 },
            CallOptions::new().on_progress(move |p| sink.lock().unwrap().push(p.progress)),
        )
        .await
        .expect("watch_radar");
    assert!(text(&radar).contains("3 sweeps"), "{}", text(&radar));
    assert_eq!(*seen.lock().unwrap(), [1.0, 2.0, 3.0]);
    println!("ok progress");

    let live = c.list_all_tools().await.expect("tools/list");
    let declared: Vec<serde_json::Value> = serde_json::from_str(client::TOOLS_JSON).unwrap();
    assert_eq!(live.len(), declared.len());
    let drift = c.check_drift().await.expect("drift");
    assert!(drift.missing.is_empty() && drift.extra.is_empty() && drift.changed.is_empty(), "{drift}");
    println!("ok tools_list");

    // Concurrent calls, each its own POST.
    let mut calls = tokio::task::JoinSet::new();
    for i in 0..16 {
        let c = c.clone();
        calls.spawn(async move { (i, c.convert_temperature(celsius_to_kelvin(f64::from(i))).await) });
    }
    while let Some(done) = calls.join_next().await {
        let (i, result) = done.expect("task");
        let blocks = result.expect("concurrent call");
        assert!(text(&blocks).contains(&format!("{:.2}", f64::from(i) + 273.15)), "{i}: {}", text(&blocks));
    }
    println!("ok concurrent");
}
