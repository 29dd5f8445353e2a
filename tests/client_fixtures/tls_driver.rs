// Driver for tests/client_tls.rs: the generated client (example manifest,
// 2025-11-25 bindings) connecting with `Client::connect_http_with` to an
// https:// endpoint and calling `get_forecast`.
//
// `driver URL [--cacert FILE] [--cert FILE --key FILE] [--proxy URL]
// [--no-env-proxy] [--bearer TOKEN]`. Prints `ok connect <revision>` and
// `ok get_forecast <days>` and exits 0; a connection error prints
// `connect-error <kind> host=<host> proxy=<proxy> status=<status>` then the
// error's text and exits 3; any other error prints `error <text>`, exits 4.

use std::num::NonZeroU64;
use std::process::ExitCode;

use client::{Client, ClientError, ClientOptions};
use mcpgen_runtime::transport::http::HttpOptions;
use tools::*;

#[tokio::main(flavor = "current_thread")]
async fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let url = args.next().expect("usage: driver URL [options]");
    let mut http = HttpOptions::new();
    let mut cert = None;
    while let Some(flag) = args.next() {
        let mut value = || args.next().unwrap_or_else(|| panic!("{flag} takes a value"));
        http = match flag.as_str() {
            "--cacert" => http.add_ca_file(value()),
            "--cert" => {
                cert = Some(value());
                http
            }
            "--key" => http.client_identity(cert.take().expect("--cert before --key"), value()),
            "--proxy" => http.proxy(value()),
            "--no-env-proxy" => http.no_env_proxy(),
            "--bearer" => http.bearer_token(&value()).expect("a valid token"),
            other => panic!("unknown flag {other}"),
        };
    }
    let options = ClientOptions::new(["2026-07-28", client::PROTOCOL_VERSION]).http(http);
    let outcome = async {
        let c = Client::connect_http_with(&url, options).await?;
        println!("ok connect {}", c.session().map(|s| s.protocol_version.clone()).unwrap_or_default());
        let input =
            GetForecastInput { city: "Oslo".parse().unwrap(), days: NonZeroU64::new(2).unwrap(), units: Units::Metric };
        let forecast = c.get_forecast(input).await?;
        println!("ok get_forecast {}", forecast.days.len());
        Ok::<_, ClientError>(())
    };
    match outcome.await {
        Ok(()) => ExitCode::SUCCESS,
        Err(ClientError::Connect(e)) => {
            println!(
                "connect-error {:?} host={} proxy={} status={}",
                e.kind(),
                e.host().unwrap_or("-"),
                e.proxy().unwrap_or("-"),
                e.status().map_or("-".to_owned(), |s| s.to_string())
            );
            println!("{e}");
            ExitCode::from(3)
        }
        Err(e) => {
            println!("error {e}");
            ExitCode::from(4)
        }
    }
}
