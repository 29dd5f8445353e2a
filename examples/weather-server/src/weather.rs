//! The tool handlers: an implementation of the generated
//! `server::Handler` trait for a made-up, deterministic weather world
//! (forecasts are derived from the city name, so answers are stable).

use std::time::Duration;

use mcpgen_runtime::{RequestContext, ToolError};

use crate::protocol::{ContentBlock, TextContent};
use crate::server::Handler;
use crate::tools::*;

/// The weather service.
#[derive(Debug, Default)]
pub struct Weather;

/// Conditions of day `day` (1-based) in `city`.
fn conditions(city: &str, day: u64) -> (f64, f64, GetForecastOutputDaysItemConditions) {
    use GetForecastOutputDaysItemConditions as C;
    // FNV-1a of the lower-cased name: a stable seed per city.
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in city.to_lowercase().bytes().chain(day.to_le_bytes()) {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    let high = 5.0 + (h % 250) as f64 / 10.0; // 5.0 ..= 29.9 °C
    let low = high - 3.0 - ((h >> 8) % 60) as f64 / 10.0;
    let kind = match (h >> 16) % 5 {
        0 => C::Sunny,
        1 => C::PartlyCloudy,
        2 => C::Cloudy,
        3 => C::Rain,
        _ if low < 2.0 => C::Snow,
        _ => C::Rain,
    };
    (high, low, kind)
}

fn round1(x: f64) -> f64 {
    (x * 10.0).round() / 10.0
}

fn to_fahrenheit(celsius: f64) -> f64 {
    celsius * 9.0 / 5.0 + 32.0
}

fn text(text: impl Into<String>) -> Vec<ContentBlock> {
    vec![ContentBlock::Text(TextContent::new(text.into()))]
}

impl Handler for Weather {
    async fn get_forecast(
        &self,
        input: GetForecastInput,
        _ctx: RequestContext,
    ) -> Result<GetForecastOutput, ToolError> {
        let imperial = input.units == Units::Imperial;
        let convert = |c: f64| round1(if imperial { to_fahrenheit(c) } else { c });
        let days = (1..=input.days.get())
            .map(|day| {
                let (high, low, conditions) = conditions(&input.city, day);
                Ok(GetForecastOutputDaysItem {
                    day: std::num::NonZeroU64::new(day)
                        .ok_or("day numbers start at 1")?
                        .into(),
                    high: convert(high),
                    low: convert(low),
                    conditions,
                })
            })
            .collect::<Result<Vec<_>, ToolError>>()?;
        Ok(GetForecastOutput {
            city: input.city.to_string(),
            units: input.units,
            days,
        })
    }

    async fn convert_temperature(
        &self,
        input: ConvertTemperatureInput,
        _ctx: RequestContext,
    ) -> Result<Vec<ContentBlock>, ToolError> {
        use ConvertTemperatureFromOrTo as Unit;
        let celsius = match input.from {
            Unit::Celsius => input.value,
            Unit::Fahrenheit => (input.value - 32.0) * 5.0 / 9.0,
            Unit::Kelvin => input.value - 273.15,
        };
        if celsius < -273.15 {
            return Err(ToolError::new(format!(
                "{} {} is below absolute zero",
                input.value, input.from
            )));
        }
        let (value, unit) = match input.to {
            Unit::Celsius => (celsius, "°C"),
            Unit::Fahrenheit => (to_fahrenheit(celsius), "°F"),
            Unit::Kelvin => (celsius + 273.15, "K"),
        };
        Ok(text(format!(
            "{} {} = {:.2} {unit}",
            input.value, input.from, value
        )))
    }

    async fn plan_trip(
        &self,
        input: PlanTripInput,
        _ctx: RequestContext,
    ) -> Result<PlanTripOutput, ToolError> {
        let avoid: Vec<PlanTripInputPreferencesAvoidItem> = input
            .preferences
            .as_ref()
            .map(|p| p.avoid.clone())
            .unwrap_or_default();
        let mut night = std::num::NonZeroU128::MIN;
        let mut itinerary = Vec::with_capacity(input.stops.len());
        for stop in &input.stops {
            let (high, _, kind) =
                conditions(&stop.city, u64::try_from(night.get()).unwrap_or(u64::MAX));
            use GetForecastOutputDaysItemConditions as C;
            let mut pack = vec!["toothbrush".to_owned()];
            match kind {
                C::Rain => pack.push("umbrella".into()),
                C::Snow => pack.push("boots".into()),
                C::Sunny => pack.push("sunglasses".into()),
                C::PartlyCloudy | C::Cloudy => {}
            }
            if high < 12.0 {
                pack.push("warm jacket".into());
            }
            let avoided = match kind {
                C::Rain => avoid.contains(&PlanTripInputPreferencesAvoidItem::Rain),
                C::Snow => avoid.contains(&PlanTripInputPreferencesAvoidItem::Snow),
                _ => false,
            };
            itinerary.push(PlanTripOutputItineraryItem {
                arrive_on_night: night,
                city: stop.city.to_string(),
                nights: stop.nights.into(),
                pack,
                warning: avoided.then(|| format!("{kind} expected in {} on arrival", *stop.city)),
            });
            night = night.saturating_add(u128::from(stop.nights.get()));
        }
        Ok(PlanTripOutput {
            traveler: input.traveler.name.to_string(),
            total_nights: std::num::NonZeroU128::new(night.get() - 1)
                .ok_or("a trip has at least one night")?,
            itinerary,
        })
    }

    async fn get_alerts(
        &self,
        input: GetAlertsInput,
        _ctx: RequestContext,
    ) -> Result<Vec<ContentBlock>, ToolError> {
        let alerts = match input.region {
            GetAlertsInputRegion::NorthSea => {
                "Gale warning: west 8 to storm 10, decreasing 6 later."
            }
            GetAlertsInputRegion::BalticSea => "No active alerts.",
            GetAlertsInputRegion::SwissAlps => {
                "Avalanche danger level 3 (considerable) above 2000 m."
            }
        };
        Ok(text(format!("{}: {alerts}", input.region)))
    }

    async fn watch_radar(
        &self,
        input: WatchRadarInput,
        ctx: RequestContext,
    ) -> Result<Vec<ContentBlock>, ToolError> {
        let steps = input.steps.get();
        let step = Duration::from_millis(u64::try_from(input.step_ms).unwrap_or(0));
        for done in 1..=steps {
            tokio::select! {
                _ = ctx.cancelled() => return Err(ToolError::new("radar scan cancelled")),
                _ = tokio::time::sleep(step) => {}
            }
            ctx.progress(done as f64, Some(steps as f64), Some("scanning"))
                .await;
        }
        Ok(text(format!(
            "radar scan complete: {steps} sweeps, no precipitation cells nearby"
        )))
    }

    async fn simulate_failure(
        &self,
        input: SimulateFailureInput,
        _ctx: RequestContext,
    ) -> Result<SimulateFailureOutput, ToolError> {
        match input.mode {
            SimulateFailureInputMode::ToolError => Err(ToolError::new(
                "weather station offline: sensor 7 not responding",
            )),
            SimulateFailureInputMode::Panic => panic!("simulated handler panic"),
            // 150 is outside the declared 0..=99: the server must not send it as success.
            SimulateFailureInputMode::BadOutput => Ok(SimulateFailureOutput { code: 150 }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn forecasts_are_stable_and_plausible() {
        let a = conditions("Oslo", 1);
        assert_eq!(a, conditions("oslo", 1));
        assert!(a.0 > a.1, "high above low");
    }

    #[tokio::test]
    async fn conversion_and_failure_modes() {
        let w = Weather;
        let out = w
            .convert_temperature(
                ConvertTemperatureInput::new(
                    ConvertTemperatureFromOrTo::Celsius,
                    ConvertTemperatureFromOrTo::Fahrenheit,
                    100.0,
                ),
                RequestContext::detached("convert_temperature"),
            )
            .await
            .unwrap();
        assert_eq!(out, text("100 celsius = 212.00 °F"));
        let err = w
            .simulate_failure(
                SimulateFailureInput {
                    mode: SimulateFailureInputMode::ToolError,
                },
                RequestContext::detached("simulate_failure"),
            )
            .await
            .unwrap_err();
        assert!(err.message().contains("offline"));
    }
}
