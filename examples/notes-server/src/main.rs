//! `notes-server`: serves [`notes_server::Notes`] over stdio, or over
//! Streamable HTTP at `/mcp` with `--http ADDR` (e.g.
//! `notes-server --http 127.0.0.1:8080`). Logs go to stderr.

#![deny(warnings)]

use std::process::ExitCode;

#[tokio::main(flavor = "current_thread")]
async fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.as_slice() {
        [] => notes_server::server::serve_stdio(notes_server::Notes).await,
        [flag, addr] if flag == "--http" => notes_server::server::serve_http(notes_server::Notes, addr.as_str()).await,
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
