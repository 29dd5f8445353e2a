//! `notes-server`: serves [`notes_server::Notes`] over stdio, or over
//! Streamable HTTP at `/mcp` with `--http ADDR` (e.g.
//! `notes-server --http 127.0.0.1:8080`). Logs go to stderr. Over HTTP,
//! `MCP_RESOURCE_URL`, `MCP_AUTH_ISSUER` and `MCP_AUTH_JWKS_URI` turn on
//! OAuth: every request needs a JWT access token of that issuer for that
//! resource, and the manifest's scopes are enforced (with the hierarchy
//! of [`notes_server::builder`]).

#![deny(warnings)]

use std::process::ExitCode;

#[tokio::main(flavor = "current_thread")]
async fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.as_slice() {
        [] => notes_server::server::serve_stdio(notes_server::Notes::default()).await,
        [flag, addr] if flag == "--http" => serve_http(addr).await,
        _ => {
            eprintln!("usage: notes-server [--http ADDR]");
            return ExitCode::from(2);
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("notes-server: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Serves over Streamable HTTP at `/mcp`, behind a JWT bearer gate when
/// the environment configures one.
async fn serve_http(addr: &str) -> std::io::Result<()> {
    use mcpgen_runtime::server::http::{auth::BearerAuth, bind_and_serve, HttpConfig, HttpService};
    let server = notes_server::builder(notes_server::Notes::default())
        .build()
        .map_err(std::io::Error::other)?;
    let mut config = HttpConfig::default();
    if let Some(gate) = BearerAuth::jwt_from_env(notes_server::server::SCOPES_SUPPORTED)
        .map_err(std::io::Error::other)?
    {
        eprintln!(
            "OAuth: tokens of {} for {}",
            gate.metadata().authorization_servers.join(", "),
            gate.metadata().resource
        );
        config = config.bearer_auth(gate);
    }
    bind_and_serve(addr, HttpService::new(server, config), "/mcp").await
}
