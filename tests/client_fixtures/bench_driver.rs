// Driver for tests/client_bench.rs: round trips of the generated client
// against the example weather server over stdio. Sequential calls give
// latency (p50/p99) and calls/s; then `CONCURRENCY` calls in flight give
// pipelined throughput. Prints one `key=value` line per mode.

use std::num::NonZeroU64;
use std::time::{Duration, Instant};

use client::Client;
use tools::*;

const CONCURRENCY: usize = 16;

fn input() -> GetForecastInput {
    GetForecastInput { city: "Oslo".parse().unwrap(), days: NonZeroU64::new(3).unwrap(), units: Units::Metric }
}

fn pct(sorted: &[Duration], p: f64) -> f64 {
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i].as_secs_f64() * 1e6
}

/// Runs `calls` round trips one after another and prints calls/s and the
/// p50/p99 latency under the label `mode`.
async fn sequential<F, Fut>(mode: &str, calls: usize, mut round_trip: F)
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = ()>,
{
    let mut lat = Vec::with_capacity(calls);
    let start = Instant::now();
    for _ in 0..calls {
        let t = Instant::now();
        round_trip().await;
        lat.push(t.elapsed());
    }
    let total = start.elapsed().as_secs_f64();
    lat.sort();
    println!(
        "mode={mode} calls={calls} rps={:.0} p50_us={:.1} p99_us={:.1}",
        calls as f64 / total,
        pct(&lat, 0.50),
        pct(&lat, 0.99)
    );
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let mut args = std::env::args().skip(1);
    let server = args.next().expect("usage: driver SERVER CALLS");
    let calls: usize = args.next().and_then(|n| n.parse().ok()).unwrap_or(10_000);
    // stderr discarded, as the other drivers of the comparison do.
    let transport = mcpgen_runtime::transport::ChildTransport::spawn(
        &server,
        Vec::<String>::new(),
        std::iter::empty::<(&str, &str)>(),
        mcpgen_runtime::transport::StderrMode::Null,
    )
    .expect("server starts");
    let c = Client::connect(transport).await.expect("connect");
    for _ in 0..calls / 10 {
        c.get_forecast(input()).await.expect("warmup");
    }
    sequential("sequential", calls, || async {
        let out = c.get_forecast(input()).await.expect("call");
        assert_eq!(out.days.len(), 3);
    })
    .await;
    // The engine alone (no typing, no validation): `ping` round trips.
    let opts = client::CallOptions::new();
    sequential("ping", calls, || async {
        c.engine().request("ping", None, &opts).await.expect("ping");
    })
    .await;
    // The same `tools/call` through the engine, untyped and unvalidated:
    // the difference to `sequential` is what typing costs in situ.
    let params = serde_json::json!({"name": "get_forecast", "arguments": serde_json::to_value(input()).expect("encode")});
    sequential("engine_call", calls, || async {
        c.engine().request("tools/call", Some(params.clone()), &opts).await.expect("call");
    })
    .await;
    // Client-side cost of one typed call: serialise + validate the input,
    // validate + decode a recorded answer (no I/O).
    let schemas = client::tool_schemas();
    let answer = serde_json::to_value(c.get_forecast(input()).await.expect("call")).expect("encode");
    let start = Instant::now();
    for _ in 0..calls {
        let args = serde_json::to_value(input()).expect("encode");
        schemas.validate_input("get_forecast", &args).expect("valid");
        schemas.validate_output("get_forecast", &answer).expect("valid");
        let _: GetForecastOutput = serde_json::from_value(answer.clone()).expect("decode");
    }
    println!("mode=typed_overhead_only per_call_us={:.2}", start.elapsed().as_secs_f64() * 1e6 / calls as f64);

    let start = Instant::now();
    let mut done = 0;
    while done < calls {
        let batch: Vec<_> = (0..CONCURRENCY.min(calls - done))
            .map(|_| {
                let c = c.clone();
                tokio::spawn(async move { c.get_forecast(input()).await })
            })
            .collect();
        for h in batch {
            h.await.expect("task").expect("call");
            done += 1;
        }
    }
    let total = start.elapsed().as_secs_f64();
    println!("mode=concurrent{CONCURRENCY} calls={calls} rps={:.0}", calls as f64 / total);
}
