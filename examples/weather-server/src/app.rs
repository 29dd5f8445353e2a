//! The server process around the handlers: logging to stderr, the
//! environment knobs (see `main.rs`), hooks, and serving on stdio. Shared by
//! both binaries; `crate::server` is whichever revision the binary includes.

use std::process::ExitCode;

use serde_json::Value;
use tracing::level_filters::LevelFilter;

fn env(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.is_empty())
}

fn init_logging() {
    let level = match env("WEATHER_LOG").as_deref().unwrap_or("info") {
        "off" => LevelFilter::OFF,
        "error" => LevelFilter::ERROR,
        "warn" => LevelFilter::WARN,
        "debug" => LevelFilter::DEBUG,
        "trace" => LevelFilter::TRACE,
        _ => LevelFilter::INFO,
    };
    tracing_subscriber::fmt().with_writer(std::io::stderr).with_max_level(level).with_ansi(false).init();
}

fn redact(value: &mut Value, word: &str) {
    let Some(blocks) = value.get_mut("content").and_then(Value::as_array_mut) else { return };
    for block in blocks {
        if let Some(Value::String(text)) = block.get_mut("text") {
            if text.contains(word) {
                *text = text.replace(word, "[redacted]");
            }
        }
    }
}

/// `--http ADDR` from the command line: serve Streamable HTTP there.
fn http_address() -> Result<Option<String>, String> {
    let mut args = std::env::args().skip(1);
    let mut addr = None;
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--http" => addr = Some(args.next().ok_or("--http needs an address, e.g. --http 127.0.0.1:8080")?),
            "-h" | "--help" => {
                return Err("usage: weather-server [--http ADDR]   (stdio without --http; endpoint /mcp with it)".into())
            }
            other => return Err(format!("unknown argument {other:?}; usage: weather-server [--http ADDR]")),
        }
    }
    Ok(addr)
}

async fn run(http: Option<String>) -> Result<(), Box<dyn std::error::Error>> {
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
    let server = builder.build()?;
    match http {
        Some(addr) => {
            let service = mcpgen_runtime::http::HttpService::new(server, mcpgen_runtime::http::HttpConfig::default());
            mcpgen_runtime::http::bind_and_serve(addr, service, "/mcp").await?;
        }
        None => {
            tracing::info!(protocol = crate::server::PROTOCOL_VERSION, "weather-server serving on stdio");
            server.serve(mcpgen_runtime::stdio::stdio()).await?;
        }
    }
    Ok(())
}

/// Runs the server until stdin closes (stdio) or Ctrl-C (HTTP).
pub fn main() -> ExitCode {
    init_logging();
    let http = match http_address() {
        Ok(http) => http,
        Err(message) => {
            eprintln!("weather-server: {message}");
            return ExitCode::from(2);
        }
    };
    // stdio has the lowest latency on one thread; HTTP serves many clients.
    let default_workers = if http.is_some() { 2 } else { 0 };
    let workers: usize = env("WEATHER_WORKERS").and_then(|w| w.parse().ok()).unwrap_or(default_workers);
    let runtime = if workers == 0 {
        tokio::runtime::Builder::new_current_thread().enable_all().build()
    } else {
        tokio::runtime::Builder::new_multi_thread().worker_threads(workers).enable_all().build()
    };
    let result = match runtime {
        Ok(rt) => rt.block_on(run(http)),
        Err(e) => Err(e.into()),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            tracing::error!("{e}");
            eprintln!("weather-server: {e}");
            ExitCode::FAILURE
        }
    }
}
