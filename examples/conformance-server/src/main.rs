//! `conformance-server`: the fixtures the official MCP conformance suite
//! calls, as an mcpgen-generated server. Streamable HTTP at `/mcp` with
//! `--http 127.0.0.1:PORT` (both protocol eras), stdio otherwise; tasks in
//! Redis with `--task-store redis://HOST:PORT`, or tasks and 2025-era
//! sessions together with `--session-store redis://HOST:PORT` (the one
//! store replicas share); the skills of a directory with `--skills DIR`
//! (the Skills extension; `skills/` here holds the ones the suite's skills
//! scenarios read). Bearer tokens (JWT) are required over HTTP when
//! `MCP_RESOURCE_URL`, `MCP_AUTH_ISSUER` and `MCP_AUTH_JWKS_URI` are set
//! (`docs/authorization.md`).

#![deny(warnings)]

mcpgen_runtime::include_generated!();

mod asks;
mod fixtures;
mod jobs;
mod surface;

use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use mcpgen_runtime::server::http::auth::BearerAuth;
use mcpgen_runtime::server::http::{HttpConfig, RedisStore};
use mcpgen_runtime::server::tasks::{RedisTaskStore, TaskOptions};

const USAGE: &str = "usage: conformance-server [--http ADDR [--session-store redis://HOST:PORT]] [--task-store redis://HOST:PORT] [--task-lease-ms N] [--skills DIR]";

/// The command line (see [`USAGE`]).
struct Args {
    http: Option<String>,
    skills: Option<String>,
    task_store: Option<String>,
    session_store: Option<String>,
    task_lease: Option<Duration>,
}

fn args() -> Result<Args, String> {
    let mut parsed = Args {
        http: None,
        skills: None,
        task_store: None,
        session_store: None,
        task_lease: None,
    };
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        let value = args.next().ok_or_else(|| format!("{flag} needs a value"))?;
        match flag.as_str() {
            "--http" => parsed.http = Some(value),
            "--task-store" => parsed.task_store = Some(value),
            "--session-store" => parsed.session_store = Some(value),
            "--skills" => parsed.skills = Some(value),
            "--task-lease-ms" => {
                let ms = value
                    .parse()
                    .map_err(|_| format!("--task-lease-ms needs milliseconds, got {value:?}"))?;
                parsed.task_lease = Some(Duration::from_millis(ms));
            }
            other => return Err(format!("unknown argument {other:?}")),
        }
    }
    if parsed.session_store.is_some() && parsed.http.is_none() {
        return Err("--session-store goes with --http".into());
    }
    Ok(parsed)
}

/// Task settings: tasks in Redis at `--task-store` (or else
/// `--session-store`; replicas sharing it serve each other's tasks), a
/// shorter lease for the replica tests.
fn task_options(args: &Args) -> Result<TaskOptions, String> {
    let mut options = TaskOptions::default();
    if let Some(url) = args.task_store.as_ref().or(args.session_store.as_ref()) {
        options.store = Arc::new(RedisTaskStore::new(url).map_err(|e| e.to_string())?);
    }
    if let Some(lease) = args.task_lease {
        options.lease = lease;
    }
    Ok(options)
}

/// The HTTP transport's settings: 2025-era sessions in Redis at `store`,
/// bearer tokens when the environment configures them.
fn http_config(store: Option<&str>) -> Result<HttpConfig, String> {
    let mut config = HttpConfig::default();
    if let Some(url) = store {
        config = config.session_store(RedisStore::new(url).map_err(|e| e.to_string())?);
    }
    if let Some(gate) = BearerAuth::jwt_from_env(&[])? {
        config = config.bearer_auth(gate);
    }
    Ok(config)
}

fn main() -> ExitCode {
    let args = match args() {
        Ok(args) => args,
        Err(why) => {
            eprintln!("conformance-server: {why}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    let tasks = match task_options(&args) {
        Ok(options) => options,
        Err(e) => {
            eprintln!("conformance-server: {e}");
            return ExitCode::from(2);
        }
    };
    let http = match args
        .http
        .map(|addr| http_config(args.session_store.as_deref()).map(|c| (addr, c)))
    {
        None => None,
        Some(Ok(http)) => Some(http),
        Some(Err(e)) => {
            eprintln!("conformance-server: {e}");
            return ExitCode::from(2);
        }
    };
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("conformance-server: {e}");
            return ExitCode::FAILURE;
        }
    };
    // The trigger fixtures change the lists at run time: announce it.
    let mut builder = server::builder(fixtures::Fixtures)
        .list_changed(true)
        .tasks(tasks);
    if let Some(dir) = &args.skills {
        match mcpgen_runtime::server::Skills::from_dir(dir) {
            Ok(skills) => builder = builder.skills(skills),
            Err(e) => {
                eprintln!("conformance-server: {e}");
                return ExitCode::from(2);
            }
        }
    }
    let built = builder.build();
    let server = match built {
        Ok(server) => server,
        Err(e) => {
            eprintln!("conformance-server: {e}");
            return ExitCode::FAILURE;
        }
    };
    let result = runtime.block_on(async move {
        match http {
            Some((addr, config)) => {
                let service = mcpgen_runtime::server::http::HttpService::new(server, config);
                mcpgen_runtime::server::http::bind_and_serve(addr, service, "/mcp").await
            }
            None => server.serve(mcpgen_runtime::transport::stdio()).await,
        }
    });
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("conformance-server: {e}");
            ExitCode::FAILURE
        }
    }
}
