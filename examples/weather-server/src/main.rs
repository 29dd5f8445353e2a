//! `weather-server`: the mcpgen example server, generated from `tools.json`
//! by `build.rs`, served over stdio, or over Streamable HTTP with
//! `--http ADDR` (endpoint `/mcp`, e.g. `weather-server --http 127.0.0.1:8080`;
//! `--help` lists the HTTP options: allowed hosts and origins, and
//! `--session-store redis://…`, the store replicas share: 2025-era
//! sessions and the rate limits, which then hold across replicas).
//!
//! Logs (including the audit log of every tool call) go to stderr, never
//! stdout. Environment knobs, all optional:
//! - `WEATHER_LOG`: `error`, `warn`, `info` (default, includes the audit
//!   log), `debug`, `trace` or `off`;
//! - `WEATHER_AUDIT_ARGS=1`: include argument values in the audit log;
//! - `WEATHER_DENY_TOOLS=a,b`: the access-control hook refuses these tools;
//! - `WEATHER_REDACT=word`: the output hook replaces `word` in every text
//!   block of every result with `[redacted]`;
//! - `WEATHER_PAGE_SIZE=n`: tools per `tools/list` page (default 100);
//! - `WEATHER_WORKERS=n`: tokio worker threads; 0 (the default) runs one
//!   thread, which has the lowest latency on stdio (handlers still run
//!   concurrently); with `--http` the default is 2;
//! - `WEATHER_SPIN_US=n`: how long, in microseconds, the stdio reader keeps
//!   trying stdin before it sleeps (default 50; 0 sleeps at once).

#![deny(warnings)]

mcpgen_runtime::include_generated!();

mod app;
mod weather;

fn main() -> std::process::ExitCode {
    app::main()
}
