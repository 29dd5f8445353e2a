//! `rmcp-weather --http ADDR`: the `get_forecast` tool of the mcpgen example
//! server (examples/weather-server), written against rmcp, the official Rust
//! MCP SDK, the way its documentation shows: `#[tool_router]` /
//! `#[tool]` / `#[tool_handler]`, typed `Parameters<T>` in, `Json<T>` out,
//! served by rmcp's `StreamableHttpService` (local session manager) on a
//! hyper 1 HTTP/1.1 connection per client.
//!
//! The answer is the example's, byte for byte in `structuredContent` and in
//! the text block: the same deterministic made-up weather (FNV-1a of the
//! lower-cased city name and the day number) and the same key order: the
//! example answers with its keys sorted, which is what rmcp's `Json<T>`
//! (through `serde_json::Value`, without `preserve_order`) gives too.
//!
//! The advertised `inputSchema` and `outputSchema` are the example's
//! (read from examples/weather-server/tools.json at compile time). rmcp
//! does not validate arguments against `inputSchema`, so the handler checks
//! what the schema says by hand (unknown fields, `city` length, `days`
//! range, `units` enum), as an rmcp user serving this schema would.
//!
//! Configuration: `legacy_session_mode` stays on (rmcp's default: clients
//! of 2025-11-25 and earlier get `initialize` and an `Mcp-Session-Id`;
//! requests carrying 2026-07-28 `_meta` are served statelessly anyway) and
//! `json_response` is on, so a stateless request that emits nothing before
//! its reply is answered with `application/json` rather than SSE. (In
//! session mode rmcp always answers a POST with an SSE stream.)
//! `JSON_RESPONSE=0` turns JSON responses off. `WORKERS=n` sets the tokio
//! worker threads (default 2, like `weather-server --http`).

use std::sync::{Arc, OnceLock};

use hyper_util::rt::TokioIo;
use hyper_util::service::TowerToHyperService;
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::{Json, Parameters};
use rmcp::model::{Implementation, JsonObject, ServerCapabilities, ServerConfig};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{tool, tool_handler, tool_router, ErrorData, ServerHandler};
use serde::{Deserialize, Serialize};

const TOOLS_JSON: &str = include_str!("../../../../examples/weather-server/tools.json");

/// `inputSchema` or `outputSchema` (`which`) of `get_forecast` in the
/// example's manifest, parsed once: rmcp builds the tool router (and with
/// it the tool's metadata) for every stateless request.
fn forecast_schema(which: &str) -> Arc<JsonObject> {
    static SCHEMAS: OnceLock<(Arc<JsonObject>, Arc<JsonObject>)> = OnceLock::new();
    let (input, output) = SCHEMAS.get_or_init(|| {
        let manifest: serde_json::Value = serde_json::from_str(TOOLS_JSON).expect("tools.json is JSON");
        let tool = manifest["tools"]
            .as_array()
            .and_then(|tools| tools.iter().find(|t| t["name"] == "get_forecast"))
            .expect("tools.json declares get_forecast");
        let schema = |key: &str| match &tool[key] {
            serde_json::Value::Object(schema) => Arc::new(schema.clone()),
            _ => panic!("get_forecast has no {key}"),
        };
        (schema("inputSchema"), schema("outputSchema"))
    });
    Arc::clone(if which == "inputSchema" { input } else { output })
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Units {
    #[default]
    Metric,
    Imperial,
}

fn three() -> u64 {
    3
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
struct ForecastArgs {
    /// City name
    city: String,
    /// Number of days
    #[serde(default = "three")]
    days: u64,
    #[serde(default)]
    units: Units,
}

#[derive(Debug, Clone, Copy, Serialize, schemars::JsonSchema)]
enum Conditions {
    #[serde(rename = "sunny")]
    Sunny,
    #[serde(rename = "partly cloudy")]
    PartlyCloudy,
    #[serde(rename = "cloudy")]
    Cloudy,
    #[serde(rename = "rain")]
    Rain,
    #[serde(rename = "snow")]
    Snow,
}

#[derive(Debug, Serialize, schemars::JsonSchema)]
struct Day {
    day: u64,
    high: f64,
    low: f64,
    conditions: Conditions,
}

#[derive(Debug, Serialize, schemars::JsonSchema)]
struct Forecast {
    city: String,
    units: Units,
    days: Vec<Day>,
}

/// The example's weather for `city` on day `day`: a 64-bit FNV-1a hash of
/// the lower-cased name followed by the day's 8 little-endian bytes, cut
/// into a high (5.0 to 29.9 °C), a spread and a kind of sky.
fn weather_of(city: &str, day: u64) -> (f64, f64, Conditions) {
    const OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
    const PRIME: u64 = 0x0100_0000_01b3;
    let lower = city.to_lowercase();
    let mut hash = OFFSET;
    for byte in lower.as_bytes().iter().copied().chain(day.to_le_bytes()) {
        hash = (hash ^ u64::from(byte)).wrapping_mul(PRIME);
    }
    let high = 5.0 + (hash % 250) as f64 / 10.0;
    let low = high - 3.0 - ((hash >> 8) % 60) as f64 / 10.0;
    let sky = match (hash >> 16) % 5 {
        0 => Conditions::Sunny,
        1 => Conditions::PartlyCloudy,
        2 => Conditions::Cloudy,
        3 => Conditions::Rain,
        _ => {
            if low < 2.0 {
                Conditions::Snow
            } else {
                Conditions::Rain
            }
        }
    };
    (high, low, sky)
}

/// One decimal, as the example rounds.
fn tenth(x: f64) -> f64 {
    (x * 10.0).round() / 10.0
}

#[derive(Debug, Clone)]
struct WeatherServer {
    tool_router: ToolRouter<Self>,
}

#[tool_router]
impl WeatherServer {
    fn new() -> Self {
        Self { tool_router: Self::tool_router() }
    }

    #[tool(
        name = "get_forecast",
        title = "Daily forecast",
        description = "Daily forecast for a city: high, low and conditions per day.",
        input_schema = forecast_schema("inputSchema"),
        output_schema = forecast_schema("outputSchema")
    )]
    async fn get_forecast(&self, Parameters(args): Parameters<ForecastArgs>) -> Result<Json<Forecast>, ErrorData> {
        // What inputSchema says beyond the types serde already enforces.
        let chars = args.city.chars().count();
        if !(1..=100).contains(&chars) {
            return Err(ErrorData::invalid_params("city: must be 1 to 100 characters", None));
        }
        if !(1..=7).contains(&args.days) {
            return Err(ErrorData::invalid_params("days: must be 1 to 7", None));
        }
        let imperial = args.units == Units::Imperial;
        let mut days = Vec::with_capacity(args.days as usize);
        for day in 1..=args.days {
            let (high, low, conditions) = weather_of(&args.city, day);
            let shown = |celsius: f64| tenth(if imperial { celsius * 9.0 / 5.0 + 32.0 } else { celsius });
            days.push(Day { day, high: shown(high), low: shown(low), conditions });
        }
        Ok(Json(Forecast { city: args.city, units: args.units, days }))
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for WeatherServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("rmcp-weather", env!("CARGO_PKG_VERSION")))
    }
}

async fn serve(addr: String) -> std::io::Result<()> {
    let json_response = std::env::var("JSON_RESPONSE").map_or(true, |v| v != "0");
    let config = StreamableHttpServerConfig::default().with_json_response(json_response);
    let service: StreamableHttpService<WeatherServer, LocalSessionManager> =
        StreamableHttpService::new(|| Ok(WeatherServer::new()), Arc::new(LocalSessionManager::default()), config);
    let listener = tokio::net::TcpListener::bind(&addr).await?;
    eprintln!("MCP endpoint: http://{}/mcp (rmcp, json_response={json_response})", listener.local_addr()?);
    loop {
        let (stream, _) = match listener.accept().await {
            Ok(pair) => pair,
            Err(e) => {
                eprintln!("accept failed: {e}");
                tokio::time::sleep(std::time::Duration::from_millis(50)).await;
                continue;
            }
        };
        let _ = stream.set_nodelay(true);
        // rmcp's service does not look at the path; the benchmark only POSTs /mcp.
        let hyper_service = TowerToHyperService::new(service.clone());
        tokio::spawn(async move {
            let _ = hyper::server::conn::http1::Builder::new().serve_connection(TokioIo::new(stream), hyper_service).await;
        });
    }
}

fn main() -> std::process::ExitCode {
    let mut args = std::env::args().skip(1);
    let addr = match (args.next().as_deref(), args.next()) {
        (Some("--http"), Some(addr)) => addr,
        _ => {
            eprintln!("usage: rmcp-weather --http ADDR   (WORKERS=n worker threads, default 2; JSON_RESPONSE=0 for SSE replies)");
            return std::process::ExitCode::from(2);
        }
    };
    let workers = std::env::var("WORKERS").ok().and_then(|w| w.parse().ok()).unwrap_or(2usize).max(1);
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(workers).enable_all().build();
    match runtime.map(|rt| rt.block_on(serve(addr))) {
        Ok(Ok(())) => std::process::ExitCode::SUCCESS,
        Ok(Err(e)) | Err(e) => {
            eprintln!("rmcp-weather: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}
