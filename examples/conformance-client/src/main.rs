//! `conformance-client`: the client side of the official MCP conformance
//! suite, as an mcpgen-generated client (bindings from `tools.json`).
//!
//! The suite runs it as `conformance-client URL` (its `client --command`
//! mode appends the mock server's URL), naming the scenario in
//! `MCP_CONFORMANCE_SCENARIO`, the revision its mock server speaks in
//! `MCP_CONFORMANCE_PROTOCOL_VERSION` and scenario data (the tool calls of
//! `http-custom-headers`) in `MCP_CONFORMANCE_CONTEXT`. `--scenario NAME`
//! overrides the first. The client connects over Streamable HTTP offering
//! that revision (with 2025-11-25 behind a modern one, so a dual-era
//! handshake is what runs), makes the calls the scenario expects and prints
//! one line per step; any failure exits 1.

#![deny(warnings)]

mcpgen_runtime::include_generated!();

mod scenarios;

use std::process::ExitCode;

/// What the suite tells the client.
pub struct Invocation {
    /// The scenario's name.
    pub scenario: String,
    /// The mock server's MCP endpoint.
    pub url: String,
    /// The revision the mock server speaks.
    pub revision: String,
    /// `MCP_CONFORMANCE_CONTEXT`, when set.
    pub context: Option<serde_json::Value>,
}

fn invocation() -> Result<Invocation, String> {
    let mut scenario = std::env::var("MCP_CONFORMANCE_SCENARIO").ok();
    let mut url = None;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--scenario" => scenario = Some(args.next().ok_or("--scenario needs a name")?),
            _ if arg.starts_with("--") => return Err(format!("unknown option {arg}")),
            _ => url = Some(arg),
        }
    }
    let scenario =
        scenario.ok_or("no scenario: set MCP_CONFORMANCE_SCENARIO or pass --scenario NAME")?;
    let url = url.ok_or("no server URL (the last argument)")?;
    let revision = std::env::var("MCP_CONFORMANCE_PROTOCOL_VERSION")
        .unwrap_or_else(|_| client::PROTOCOL_VERSION.to_owned());
    let context = match std::env::var("MCP_CONFORMANCE_CONTEXT") {
        Ok(text) => Some(
            serde_json::from_str(&text)
                .map_err(|e| format!("MCP_CONFORMANCE_CONTEXT is not JSON: {e}"))?,
        ),
        Err(_) => None,
    };
    Ok(Invocation {
        scenario,
        url,
        revision,
        context,
    })
}

fn main() -> ExitCode {
    let invocation = match invocation() {
        Ok(i) => i,
        Err(e) => {
            eprintln!("conformance-client: {e}\nusage: conformance-client [--scenario NAME] URL");
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
            eprintln!("conformance-client: {e}");
            return ExitCode::FAILURE;
        }
    };
    match runtime.block_on(scenarios::run(&invocation)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("conformance-client: scenario {}: {e}", invocation.scenario);
            ExitCode::FAILURE
        }
    }
}
