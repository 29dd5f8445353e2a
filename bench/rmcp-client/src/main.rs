//! `rmcp-client URL CALLS [--cacert FILE] [--no-pool]`: rmcp's Streamable
//! HTTP client (reqwest, rustls) connects to URL with rmcp's default
//! handshake and calls `get_forecast` CALLS times one after another, each
//! timed after 50 untimed ones, and prints the line bench/client-http
//! prints with `--stats`:
//! `calls=N secs=S calls_per_s=R p50_us=P p99_us=Q`.
//!
//! The reqwest client is reqwest's default (idle connections kept),
//! trusting only the CA of `--cacert`. `--no-pool` keeps no idle
//! connection, as the client of rmcp's own
//! `StreamableHttpClientTransport::from_uri` does.

use std::time::{Duration, Instant};

use rmcp::model::CallToolRequestParams;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::ServiceExt;

const USAGE: &str = "usage: rmcp-client URL CALLS [--cacert FILE] [--no-pool]";

const WARM_UP: usize = 50;

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let mut args = std::env::args().skip(1);
    let url = args.next().expect(USAGE);
    let calls: usize = args.next().and_then(|n| n.parse().ok()).expect(USAGE);
    let mut http = reqwest::Client::builder();
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--cacert" => {
                let pem = std::fs::read(args.next().expect(USAGE)).expect("the CA file");
                http = http.tls_certs_only([reqwest::Certificate::from_pem(&pem).expect("a PEM certificate")]);
            }
            "--no-pool" => http = http.pool_max_idle_per_host(0),
            _ => panic!("{USAGE}"),
        }
    }
    let http = http.build().expect("a reqwest client");
    let transport = StreamableHttpClientTransport::with_client(http, StreamableHttpClientTransportConfig::with_uri(url));
    let client = ().serve(transport).await.expect("connect");
    let arguments = serde_json::json!({"city": "Oslo"}).as_object().cloned().expect("an object");
    let call = || async {
        let params = CallToolRequestParams::new("get_forecast").with_arguments(arguments.clone());
        let result = client.call_tool(params).await.expect("call");
        assert!(result.structured_content.is_some(), "{result:?}");
    };
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
