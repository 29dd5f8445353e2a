//! `rmcp-stdio-weather`: the reference point of `bench/callgrind.sh`
//! and `bench/stdio.sh`. The weather example's
//! `get_forecast` tool (same input schema, same deterministic computation,
//! same output: `structuredContent` plus the same JSON as a text block)
//! served over stdio by rmcp, the official Rust SDK.
//!
//! ```text
//! rmcp-stdio-weather                  # rmcp's default stdio transport, multi-thread runtime
//! rmcp-stdio-weather --current-thread # rmcp's pipe transport (stdio_pipes), current-thread runtime
//! ```

use rmcp::handler::server::wrapper::{Json, Parameters};
use rmcp::{tool, tool_router, ServiceExt};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Units {
    #[default]
    Metric,
    Imperial,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
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

fn three() -> u64 {
    3
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
struct ForecastInput {
    /// City name
    #[schemars(length(min = 1, max = 100))]
    city: String,
    /// Number of days
    #[serde(default = "three")]
    #[schemars(range(min = 1, max = 7))]
    days: u64,
    #[serde(default)]
    units: Units,
}

#[derive(Debug, Serialize, schemars::JsonSchema)]
struct ForecastDay {
    day: u64,
    high: f64,
    low: f64,
    conditions: Conditions,
}

#[derive(Debug, Serialize, schemars::JsonSchema)]
struct ForecastOutput {
    city: String,
    units: Units,
    days: Vec<ForecastDay>,
}

/// The example handler's weather: a stable seed per (lower-cased) city and day.
fn weather_of(city: &str, day: u64) -> (f64, f64, Conditions) {
    let mut seed: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in city.to_lowercase().bytes().chain(day.to_le_bytes()) {
        seed ^= u64::from(byte);
        seed = seed.wrapping_mul(0x0100_0000_01b3);
    }
    let high = 5.0 + (seed % 250) as f64 / 10.0;
    let low = high - 3.0 - ((seed >> 8) % 60) as f64 / 10.0;
    let conditions = match (seed >> 16) % 5 {
        0 => Conditions::Sunny,
        1 => Conditions::PartlyCloudy,
        2 => Conditions::Cloudy,
        3 => Conditions::Rain,
        _ if low < 2.0 => Conditions::Snow,
        _ => Conditions::Rain,
    };
    (high, low, conditions)
}

fn tenth(x: f64) -> f64 {
    (x * 10.0).round() / 10.0
}

#[derive(Debug, Clone, Default)]
struct Weather;

#[tool_router(server_handler)]
impl Weather {
    #[tool(name = "get_forecast", description = "Daily forecast for a city: high, low and conditions per day.")]
    async fn get_forecast(&self, Parameters(input): Parameters<ForecastInput>) -> Result<Json<ForecastOutput>, String> {
        if input.city.is_empty() || input.city.chars().count() > 100 || !(1..=7).contains(&input.days) {
            return Err("invalid arguments".into());
        }
        let imperial = input.units == Units::Imperial;
        let convert = |c: f64| tenth(if imperial { c * 9.0 / 5.0 + 32.0 } else { c });
        let days = (1..=input.days)
            .map(|day| {
                let (high, low, conditions) = weather_of(&input.city, day);
                ForecastDay { day, high: convert(high), low: convert(low), conditions }
            })
            .collect();
        Ok(Json(ForecastOutput { city: input.city, units: input.units, days }))
    }
}

async fn serve_default() -> Result<(), Box<dyn std::error::Error>> {
    let running = Weather.serve(rmcp::transport::stdio()).await?;
    running.waiting().await?;
    Ok(())
}

async fn serve_pipes() -> Result<(), Box<dyn std::error::Error>> {
    let running = Weather.serve(rmcp::transport::io::stdio_pipes()).await?;
    running.waiting().await?;
    Ok(())
}

fn main() -> std::process::ExitCode {
    let current_thread = std::env::args().skip(1).any(|a| a == "--current-thread");
    let result = if current_thread {
        tokio::runtime::Builder::new_current_thread().enable_all().build().map(|rt| rt.block_on(serve_pipes()))
    } else {
        tokio::runtime::Builder::new_multi_thread().enable_all().build().map(|rt| rt.block_on(serve_default()))
    };
    match result {
        Ok(Ok(())) => std::process::ExitCode::SUCCESS,
        Ok(Err(e)) => {
            eprintln!("rmcp-stdio-weather: {e}");
            std::process::ExitCode::FAILURE
        }
        Err(e) => {
            eprintln!("rmcp-stdio-weather: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}
