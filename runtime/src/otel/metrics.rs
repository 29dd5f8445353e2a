//! Request durations as OpenTelemetry histograms, in the global meter
//! provider, recorded once [`enable_metrics`] was called (by
//! [`Telemetry::otlp`](super::Telemetry::otlp) or by an application that
//! set its own provider).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::OnceLock;
use std::time::Instant;

use opentelemetry::metrics::Histogram;
use opentelemetry::KeyValue;

static ENABLED: AtomicBool = AtomicBool::new(false);
static SERVER: OnceLock<Histogram<f64>> = OnceLock::new();
static CLIENT: OnceLock<Histogram<f64>> = OnceLock::new();

/// The bucket bounds, in seconds, the MCP semantic conventions advise.
const BOUNDARIES: [f64; 14] = [
    0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0,
];

/// Records request durations from now on, in the meter provider set with
/// `opentelemetry::global::set_meter_provider` (set it first: instruments
/// are made on first use).
pub fn enable_metrics() {
    ENABLED.store(true, Ordering::Relaxed);
}

fn histogram(name: &'static str, description: &'static str) -> Histogram<f64> {
    opentelemetry::global::meter(super::TARGET)
        .f64_histogram(name)
        .with_unit("s")
        .with_description(description)
        .with_boundaries(BOUNDARIES.to_vec())
        .build()
}

/// Which side a duration is recorded for.
#[derive(Clone, Copy)]
pub(crate) enum Side {
    Server,
    Client,
}

/// The histogram of `side`, when metrics are on.
pub(crate) fn of(side: Side) -> Option<&'static Histogram<f64>> {
    if !ENABLED.load(Ordering::Relaxed) {
        return None;
    }
    Some(match side {
        Side::Server => SERVER.get_or_init(|| {
            histogram(
                "mcp.server.operation.duration",
                "How long the server took to answer a request",
            )
        }),
        Side::Client => CLIENT.get_or_init(|| {
            histogram(
                "mcp.client.operation.duration",
                "How long the client waited for the answer to a request",
            )
        }),
    })
}

/// One request's measurement: started when the request was, recorded with
/// the labels it gathered.
pub(crate) struct Timing {
    histogram: &'static Histogram<f64>,
    started: Instant,
    pub(crate) labels: Vec<KeyValue>,
}

impl Timing {
    /// A measurement starting now, when metrics are on.
    pub(crate) fn start(side: Side, labels: impl FnOnce() -> Vec<KeyValue>) -> Option<Self> {
        of(side).map(|histogram| Self {
            histogram,
            started: Instant::now(),
            labels: labels(),
        })
    }

    /// Records the duration, with `error.type` when it failed.
    pub(crate) fn record(mut self, error: Option<&str>) {
        if let Some(error) = error {
            self.labels
                .push(KeyValue::new("error.type", error.to_owned()));
        }
        self.histogram
            .record(self.started.elapsed().as_secs_f64(), &self.labels);
    }
}
