//! The server process around the handlers: logging to stderr, the
//! environment knobs (see `main.rs`), hooks, and serving on stdio. Shared by
//! both binaries; `crate::server` is whichever revision the binary includes.

use std::process::ExitCode;

use serde_json::Value;
use tracing::level_filters::LevelFilter;

fn env(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.is_empty())
}

/// `WEATHER_SPIN_US`: how long the stdio reader tries stdin before sleeping.
fn spin() -> Option<std::time::Duration> {
    env("WEATHER_SPIN_US")
        .and_then(|us| us.parse().ok())
        .map(std::time::Duration::from_micros)
}

/// Logs to stderr at `WEATHER_LOG`'s level; with the `otel` feature and an
/// OTLP endpoint in the environment (`OTEL_EXPORTER_OTLP_ENDPOINT`), request
/// spans and metrics are exported too, until the returned guard is dropped.
fn init_logging() -> Option<Telemetry> {
    use tracing_subscriber::filter::Targets;
    use tracing_subscriber::layer::SubscriberExt;
    use tracing_subscriber::util::SubscriberInitExt;
    #[cfg(feature = "otel")]
    use tracing_subscriber::Layer;

    let level = match env("WEATHER_LOG").as_deref().unwrap_or("info") {
        "off" => LevelFilter::OFF,
        "error" => LevelFilter::ERROR,
        "warn" => LevelFilter::WARN,
        "debug" => LevelFilter::DEBUG,
        "trace" => LevelFilter::TRACE,
        _ => LevelFilter::INFO,
    };
    // The request spans are for the exporter: the log lines stay as they are.
    let logged = Targets::new()
        .with_default(level)
        .with_target("mcpgen::otel", LevelFilter::OFF);
    // (A macro: the layer's type depends on where it goes.)
    macro_rules! log {
        () => {
            tracing_subscriber::fmt::layer()
                .with_writer(std::io::stderr)
                .with_ansi(false)
        };
    }
    let telemetry = start_telemetry();
    #[cfg(feature = "otel")]
    if let Some(exporting) = &telemetry {
        // The request spans whatever the log level; other spans and
        // events (attached to the spans) as logged.
        let traced = Targets::new()
            .with_default(level)
            .with_target("mcpgen::otel", LevelFilter::INFO);
        tracing_subscriber::registry()
            .with(log!().with_filter(logged))
            .with(exporting.layer().with_filter(traced))
            .init();
        return telemetry;
    }
    // No exporter: one global filter, which costs less per event than a
    // filter per layer, and keeps the request spans off.
    tracing_subscriber::registry()
        .with(logged)
        .with(log!())
        .init();
    telemetry
}

#[cfg(feature = "otel")]
type Telemetry = mcpgen_runtime::otel::Telemetry;
/// Without the `otel` feature there is nothing to export.
#[cfg(not(feature = "otel"))]
struct Telemetry;

/// Exports the spans and metrics still buffered.
fn flush(telemetry: Option<Telemetry>) {
    #[cfg(feature = "otel")]
    if let Some(Err(e)) = telemetry.map(Telemetry::shutdown) {
        eprintln!("weather-server: {e}");
    }
    #[cfg(not(feature = "otel"))]
    let _ = telemetry;
}

/// The OTLP exporters, when the environment names an endpoint.
fn start_telemetry() -> Option<Telemetry> {
    #[cfg(feature = "otel")]
    if Telemetry::configured() {
        match Telemetry::otlp("weather-server") {
            Ok(telemetry) => return Some(telemetry),
            Err(e) => eprintln!("weather-server: telemetry is off: {e}"),
        }
    }
    None
}

fn redact(value: &mut Value, word: &str) {
    let Some(blocks) = value.get_mut("content").and_then(Value::as_array_mut) else {
        return;
    };
    for block in blocks {
        if let Some(Value::String(text)) = block.get_mut("text") {
            if text.contains(word) {
                *text = text.replace(word, "[redacted]");
            }
        }
    }
}

const USAGE: &str = "usage: weather-server [--tool-surface all|search] [--http ADDR [--allow-host HOST]... [--allow-origin ORIGIN]... [--session-store redis://HOST:PORT]]
  (no --http: stdio)
  --tool-surface S       `all` (default): tools/list answers every tool; `search`: it answers
                         search_tools and call_tool, and every tool stays callable by name;
                         also WEATHER_TOOL_SURFACE
  --http ADDR            serve Streamable HTTP at http://ADDR/mcp (GET /healthz answers 200)
  --allow-host HOST      also answer requests whose Host is HOST (name or name:port; `*` for any);
                         needed when clients reach the server by a non-loopback name (containers)
  --allow-origin ORIGIN  also allow browser requests from ORIGIN (e.g. https://app.example.com)
  --session-store URL    the store replicas share, in Redis (redis://HOST:PORT): 2025-era sessions
                         and the tools' rate limits (a limit holds across all replicas; while Redis
                         cannot answer, limited calls are refused); also WEATHER_SESSION_STORE";

/// The command line.
#[derive(Default)]
struct Options {
    http: Option<String>,
    hosts: Vec<String>,
    origins: Vec<String>,
    session_store: Option<String>,
    /// `--tool-surface search`.
    search: bool,
}

/// Reads the command line; `Err` carries the message and the exit code.
fn options() -> Result<Options, (String, u8)> {
    let mut args = std::env::args().skip(1);
    let mut o = Options {
        session_store: env("WEATHER_SESSION_STORE"),
        ..Options::default()
    };
    let mut surface = env("WEATHER_TOOL_SURFACE");
    let value = |args: &mut dyn Iterator<Item = String>, flag: &str| {
        args.next()
            .ok_or((format!("{flag} needs a value\n{USAGE}"), 2))
    };
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--http" => o.http = Some(value(&mut args, "--http")?),
            "--allow-host" => o.hosts.push(value(&mut args, "--allow-host")?),
            "--allow-origin" => o.origins.push(value(&mut args, "--allow-origin")?),
            "--session-store" => o.session_store = Some(value(&mut args, "--session-store")?),
            "--tool-surface" => surface = Some(value(&mut args, "--tool-surface")?),
            "-h" | "--help" => return Err((USAGE.into(), 0)),
            other => return Err((format!("unknown argument {other:?}\n{USAGE}"), 2)),
        }
    }
    o.search = match surface.as_deref() {
        None | Some("all") => false,
        Some("search") => true,
        Some(other) => {
            return Err((
                format!("--tool-surface is `all` or `search`, not {other:?}\n{USAGE}"),
                2,
            ))
        }
    };
    if o.http.is_none()
        && (o.session_store.is_some() || !o.hosts.is_empty() || !o.origins.is_empty())
    {
        return Err((
            format!("--allow-host, --allow-origin and --session-store go with --http\n{USAGE}"),
            2,
        ));
    }
    Ok(o)
}

/// The HTTP transport's settings from the command line.
fn http_config(
    o: &Options,
    store: Option<mcpgen_runtime::server::http::RedisStore>,
) -> Result<mcpgen_runtime::server::http::HttpConfig, Box<dyn std::error::Error>> {
    let mut config = mcpgen_runtime::server::http::HttpConfig::default();
    if o.hosts.iter().any(|h| h == "*") {
        config = config.allow_any_host();
    } else {
        config = config.allow_hosts(o.hosts.iter().cloned());
    }
    config = config.allow_origins(o.origins.iter().cloned());
    // OAuth bearer tokens (JWT) when MCP_RESOURCE_URL, MCP_AUTH_ISSUER and
    // MCP_AUTH_JWKS_URI are set (docs/authorization.md); none otherwise.
    if let Some(gate) = mcpgen_runtime::server::http::auth::BearerAuth::jwt_from_env(&[])? {
        tracing::info!("bearer tokens required");
        config = config.bearer_auth(gate);
    }
    if let Some(store) = store {
        config = config.session_store(store);
    }
    Ok(config)
}

/// `--session-store`: the one Redis store of sessions and rate limits.
fn shared_store(
    o: &Options,
) -> Result<Option<mcpgen_runtime::server::http::RedisStore>, Box<dyn std::error::Error>> {
    let Some(url) = &o.session_store else {
        return Ok(None);
    };
    let store = mcpgen_runtime::server::http::RedisStore::new(url)?;
    tracing::info!(store = %url, "sessions and rate limits shared through Redis");
    Ok(Some(store))
}

async fn run(o: Options) -> Result<(), Box<dyn std::error::Error>> {
    let mut builder = crate::server::builder(crate::weather::Weather)
        .audit_arguments(env("WEATHER_AUDIT_ARGS").is_some_and(|v| v == "1"));
    if let Some(size) = env("WEATHER_PAGE_SIZE") {
        builder = builder.page_size(size.parse()?);
    }
    if let Some(list) = env("WEATHER_DENY_TOOLS") {
        let denied: Vec<String> = list.split(',').map(|s| s.trim().to_owned()).collect();
        builder = builder.access_control(move |call| {
            if denied.iter().any(|d| d == call.tool) {
                let who = call.client.and_then(|c| c.name()).unwrap_or("this client");
                Err(format!("{who} may not call {} on this server", call.tool))
            } else {
                Ok(())
            }
        });
    }
    if let Some(word) = env("WEATHER_REDACT") {
        builder = builder.output_hook(move |_tool, result| redact(result, &word));
    }
    // Rate limits in the shared store: a limit holds across replicas, and
    // one that cannot be checked (Redis down) refuses the call.
    let store = shared_store(&o)?;
    if let Some(store) = &store {
        builder =
            builder.rate_limit_store(store.clone(), mcpgen_runtime::server::OnStoreError::Refuse);
    }
    if o.search {
        // The manifest lists every tool; the index is computed once here.
        builder = builder.tool_search(mcpgen_runtime::server::search::ToolSearch::new());
    }
    let server = builder.build()?;
    match o.http.clone() {
        Some(addr) => {
            let service =
                mcpgen_runtime::server::http::HttpService::new(server, http_config(&o, store)?);
            mcpgen_runtime::server::http::bind_and_serve(addr, service, "/mcp").await?;
        }
        None => {
            tracing::info!(
                protocol = crate::server::PROTOCOL_VERSION,
                "weather-server serving on stdio"
            );
            let mut stdio = mcpgen_runtime::transport::stdio();
            if let Some(spin) = spin() {
                stdio = stdio.spin(spin);
            }
            server.serve(stdio).await?;
        }
    }
    Ok(())
}

/// Runs the server until stdin closes (stdio) or Ctrl-C (HTTP).
pub fn main() -> ExitCode {
    let telemetry = init_logging();
    let options = match options() {
        Ok(options) => options,
        Err((message, 0)) => {
            use std::io::Write;
            let _ = writeln!(std::io::stdout(), "{message}");
            return ExitCode::SUCCESS;
        }
        Err((message, code)) => {
            eprintln!("weather-server: {message}");
            return ExitCode::from(code);
        }
    };
    // stdio has the lowest latency on one thread; HTTP serves many clients.
    let default_workers = if options.http.is_some() { 2 } else { 0 };
    let workers: usize = env("WEATHER_WORKERS")
        .and_then(|w| w.parse().ok())
        .unwrap_or(default_workers);
    let runtime = if workers == 0 {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
    } else {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(workers)
            .enable_all()
            .build()
    };
    let result = match runtime {
        Ok(rt) => rt.block_on(run(options)),
        Err(e) => Err(e.into()),
    };
    if let Err(e) = &result {
        tracing::error!("{e}");
        eprintln!("weather-server: {e}");
    }
    flush(telemetry);
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(_) => ExitCode::FAILURE,
    }
}
