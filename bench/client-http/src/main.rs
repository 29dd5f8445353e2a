//! `client-http URL CALLS [--cacert FILE] [--stats]`: connects the
//! runtime's client engine to the Streamable HTTP endpoint at URL
//! (`http://` or `https://`, stateless 2026-07-28) and calls
//! `get_forecast` CALLS times one after another, each answer checked.
//!
//! - Run twice under callgrind with different CALLS by
//!   bench/client-callgrind.sh: the difference over the difference
//!   of calls is the client's cost of one call.
//! - `--cacert FILE` trusts that CA for an `https://` URL;
//!   `--stats` times each call (after 50 untimed ones) and prints one line,
//!   `calls=N secs=S calls_per_s=R p50_us=P p99_us=Q`, as
//!   bench/client-https.sh reads it (the same line as
//!   bench/rmcp-client prints).

use std::time::{Duration, Instant};

use mcpgen_runtime::client::{CallOptions, Client, ClientOptions};
use mcpgen_runtime::client::http::HttpTransport;
use mcpgen_runtime::transport::http::HttpOptions;
use serde_json::json;

const USAGE: &str = "usage: client-http URL CALLS [--cacert FILE] [--stats]";

/// Untimed calls before the timed ones (with `--stats`).
const WARM_UP: usize = 50;

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let mut args = std::env::args().skip(1);
    let url = args.next().expect(USAGE);
    let calls: usize = args.next().and_then(|n| n.parse().ok()).expect(USAGE);
    let (mut cacert, mut stats) = (None, false);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--cacert" => cacert = Some(args.next().expect(USAGE)),
            "--stats" => stats = true,
            _ => panic!("{USAGE}"),
        }
    }
    let mut transport = HttpTransport::new(&url).expect("a valid URL");
    if let Some(ca) = cacert {
        transport = transport.options(HttpOptions::new().add_ca_file(ca));
    }
    let client = Client::connect(transport, ClientOptions::new(["2026-07-28"])).await.expect("connect");
    let options = CallOptions::new();
    let call = || async {
        let result = client.call_tool("get_forecast", json!({"city": "Oslo"}), &options).await.expect("call");
        assert!(result.get("structuredContent").is_some(), "{result}");
    };
    if !stats {
        for _ in 0..calls {
            call().await;
        }
        return;
    }
    for _ in 0..WARM_UP {
        call().await;
    }
    let mut times = Vec::with_capacity(calls);
    let start = Instant::now();
    for _ in 0..calls {
        let t = Instant::now();
        call().await;
        times.push(t.elapsed());
    }
    report(start.elapsed(), &mut times);
}

/// Prints the line bench/client-https.sh reads.
fn report(total: Duration, times: &mut [Duration]) {
    times.sort_unstable();
    let at = |q: f64| times[((times.len() as f64 * q) as usize).min(times.len() - 1)].as_secs_f64() * 1e6;
    println!(
        "calls={} secs={:.3} calls_per_s={:.1} p50_us={:.0} p99_us={:.0}",
        times.len(),
        total.as_secs_f64(),
        times.len() as f64 / total.as_secs_f64(),
        at(0.50),
        at(0.99)
    );
}
