//! [`Telemetry`]: the request spans and duration metrics exported over
//! OTLP/HTTP (protobuf) by the official exporter, configured by the
//! standard `OTEL_*` variables.

use opentelemetry::trace::TracerProvider as _;
use opentelemetry_sdk::metrics::SdkMeterProvider;
use opentelemetry_sdk::trace::{SdkTracer, SdkTracerProvider};
use opentelemetry_sdk::Resource;
use tracing_opentelemetry::OpenTelemetryLayer;
use tracing_subscriber::registry::LookupSpan;

/// Why telemetry could not start or stop.
#[derive(Debug)]
pub struct TelemetryError(String);

impl std::fmt::Display for TelemetryError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for TelemetryError {}

/// Traces and metrics exported over OTLP/HTTP.
///
/// ```no_run
/// use tracing_subscriber::layer::SubscriberExt;
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let telemetry = mcpgen_runtime::otel::Telemetry::otlp("my-server")?;
/// let subscriber = tracing_subscriber::registry().with(telemetry.layer());
/// tracing::subscriber::set_global_default(subscriber)?;
/// // … serve …
/// telemetry.shutdown()?; // exports what is still buffered
/// # Ok(()) }
/// ```
///
/// Where to: `OTEL_EXPORTER_OTLP_ENDPOINT` (default
/// `http://localhost:4318`; `/v1/traces` and `/v1/metrics` are appended),
/// or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` and
/// `OTEL_EXPORTER_OTLP_METRICS_ENDPOINT` in full; `OTEL_EXPORTER_OTLP_HEADERS`
/// for credentials. `OTEL_SERVICE_NAME` overrides the service name, and
/// `OTEL_BSP_*` and `OTEL_METRIC_EXPORT_INTERVAL` tune batching. The
/// exporter's client speaks plain HTTP: send to a collector on the host or
/// in the pod, which forwards over TLS.
pub struct Telemetry {
    traces: SdkTracerProvider,
    metrics: SdkMeterProvider,
    stopped: bool,
}

impl Telemetry {
    /// Whether the environment names an OTLP endpoint
    /// (`OTEL_EXPORTER_OTLP_ENDPOINT` or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`):
    /// a server can turn telemetry on only where it was asked for.
    pub fn configured() -> bool {
        [
            "OTEL_EXPORTER_OTLP_ENDPOINT",
            "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
        ]
        .iter()
        .any(|name| std::env::var_os(name).is_some_and(|v| !v.is_empty()))
    }

    /// Exporters of spans (batched) and metrics (periodic) to the
    /// endpoints the environment names (see above), installed as the
    /// global tracer and meter providers, with W3C trace context as the
    /// global propagator; request durations are recorded from now on.
    /// Spans reach the exporter through [`Telemetry::layer`].
    pub fn otlp(service_name: &str) -> Result<Self, TelemetryError> {
        Self::start(service_name, None)
    }

    /// [`Telemetry::otlp`] to the collector at `base` (such as
    /// `http://127.0.0.1:4318`), whatever the environment says.
    pub fn otlp_at(service_name: &str, base: &str) -> Result<Self, TelemetryError> {
        Self::start(service_name, Some(base.trim_end_matches('/')))
    }

    fn start(service_name: &str, base: Option<&str>) -> Result<Self, TelemetryError> {
        use opentelemetry_otlp::WithExportConfig;

        let failed = |what: &str, e: &dyn std::fmt::Display| {
            TelemetryError(format!("cannot start the OTLP {what} exporter: {e}"))
        };
        let mut resource = Resource::builder();
        if std::env::var_os("OTEL_SERVICE_NAME").is_none_or(|v| v.is_empty()) {
            resource = resource.with_service_name(service_name.to_owned());
        }
        let resource = resource.build();
        let mut spans = opentelemetry_otlp::SpanExporter::builder().with_http();
        let mut readings = opentelemetry_otlp::MetricExporter::builder().with_http();
        if let Some(base) = base {
            spans = spans.with_endpoint(format!("{base}/v1/traces"));
            readings = readings.with_endpoint(format!("{base}/v1/metrics"));
        }
        let spans = spans.build().map_err(|e| failed("span", &e))?;
        let readings = readings.build().map_err(|e| failed("metric", &e))?;
        let traces = SdkTracerProvider::builder()
            .with_batch_exporter(spans)
            .with_resource(resource.clone())
            .build();
        let metrics = SdkMeterProvider::builder()
            .with_periodic_exporter(readings)
            .with_resource(resource)
            .build();
        opentelemetry::global::set_tracer_provider(traces.clone());
        opentelemetry::global::set_meter_provider(metrics.clone());
        opentelemetry::global::set_text_map_propagator(
            opentelemetry_sdk::propagation::TraceContextPropagator::new(),
        );
        super::enable_metrics();
        Ok(Self {
            traces,
            metrics,
            stopped: false,
        })
    }

    /// The `tracing` layer that turns spans (the runtime's and the
    /// application's) into exported OpenTelemetry spans; add it to the
    /// subscriber. Source locations, threads, targets and busy/idle times are left
    /// out of the attributes.
    pub fn layer<S>(&self) -> OpenTelemetryLayer<S, SdkTracer>
    where
        S: tracing::Subscriber + for<'span> LookupSpan<'span>,
    {
        tracing_opentelemetry::layer()
            .with_tracer(self.traces.tracer(super::TARGET))
            .with_location(false)
            .with_threads(false)
            .with_tracked_inactivity(false)
            .with_target(false)
    }

    /// Exports what is buffered and stops both exporters (also done, with
    /// errors ignored, when it is dropped).
    pub fn shutdown(mut self) -> Result<(), TelemetryError> {
        self.stop()
    }

    fn stop(&mut self) -> Result<(), TelemetryError> {
        if std::mem::replace(&mut self.stopped, true) {
            return Ok(());
        }
        let traces = self.traces.shutdown();
        let metrics = self.metrics.shutdown();
        traces.map_err(|e| TelemetryError(format!("exporting the last spans failed: {e}")))?;
        metrics.map_err(|e| TelemetryError(format!("exporting the last metrics failed: {e}")))
    }
}

impl Drop for Telemetry {
    fn drop(&mut self) {
        let _ = self.stop();
    }
}

impl std::fmt::Debug for Telemetry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Telemetry")
            .field("stopped", &self.stopped)
            .finish_non_exhaustive()
    }
}
