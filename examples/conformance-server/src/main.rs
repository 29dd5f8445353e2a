//! `conformance-server`: the fixtures the official MCP conformance suite
//! calls, as an mcpgen-generated server. Streamable HTTP at `/mcp` with
//! `--http 127.0.0.1:PORT` (both protocol eras), stdio otherwise.

#![deny(warnings)]

mcpgen_runtime::include_generated!();

mod asks;
mod fixtures;
mod jobs;
mod surface;

use std::process::ExitCode;

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let http = match (args.next().as_deref(), args.next()) {
        (None, _) => None,
        (Some("--http"), Some(addr)) => Some(addr),
        _ => {
            eprintln!("usage: conformance-server [--http ADDR]");
            return ExitCode::from(2);
        }
    };
    let runtime = match tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build() {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("conformance-server: {e}");
            return ExitCode::FAILURE;
        }
    };
    // The trigger fixtures change the lists at run time: announce it.
    let built = server::builder(fixtures::Fixtures).list_changed(true).build();
    let server = match built {
        Ok(server) => server,
        Err(e) => {
            eprintln!("conformance-server: {e}");
            return ExitCode::FAILURE;
        }
    };
    let result = runtime.block_on(async move {
        match http {
            Some(addr) => {
                let service = mcpgen_runtime::http::HttpService::new(server, mcpgen_runtime::http::HttpConfig::default());
                mcpgen_runtime::http::bind_and_serve(addr, service, "/mcp").await
            }
            None => server.serve(mcpgen_runtime::stdio::stdio()).await,
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
