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

async fn run() -> Result<(), Box<dyn std::error::Error>> {
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
    tracing::info!(protocol = crate::server::PROTOCOL_VERSION, "weather-server serving on stdio");
    server.serve(mcpgen_runtime::stdio::stdio()).await?;
    Ok(())
}

/// Runs the server until stdin closes.
pub fn main() -> ExitCode {
    init_logging();
    let workers: usize = env("WEATHER_WORKERS").and_then(|w| w.parse().ok()).unwrap_or(0);
    let runtime = if workers == 0 {
        tokio::runtime::Builder::new_current_thread().enable_all().build()
    } else {
        tokio::runtime::Builder::new_multi_thread().worker_threads(workers).enable_all().build()
    };
    let result = match runtime {
        Ok(rt) => rt.block_on(run()),
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
