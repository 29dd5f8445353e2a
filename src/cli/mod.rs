//! Command-line parsing and dispatch. Each subcommand lives in its own
//! module and calls into the library; this module only maps results to
//! exit codes: 0 success, 1 failure (printed as `error: …` on stderr),
//! 2 usage errors (clap's own).

mod diff;
mod generate;
mod manifest;
mod new;
mod schema;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

use mcpgen::Error;

/// Generate typed Rust MCP protocol types, tool types, servers and clients
/// from the official MCP schema and a tool manifest.
#[derive(Debug, Parser)]
#[command(name = "mcpgen", version, about, propagate_version = true)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Generate protocol.rs, tools.rs, server.rs and client.rs.
    Generate(generate::Args),
    /// Pinned official schema revisions: list the cache, pull into it.
    #[command(subcommand)]
    Schema(schema::Command),
    /// Tool manifests: check one, print the manifest format's JSON Schema.
    #[command(subcommand)]
    Manifest(manifest::Command),
    /// Write a manifest from a running stdio MCP server's tools/list.
    Introspect(IntrospectArgs),
    /// Scaffold a new server crate from a manifest.
    New(new::Args),
    /// What changed between two protocol revisions.
    Diff(diff::Args),
}

#[derive(Debug, clap::Args)]
struct IntrospectArgs {
    /// Write the manifest here instead of stdout.
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
    /// Give up after this many seconds.
    #[arg(long, value_name = "SECS", default_value_t = 30)]
    timeout: u64,
    /// The server command and its arguments (after `--`).
    #[arg(last = true, required = true, value_name = "CMD")]
    command: Vec<String>,
}

/// Outcome of a command that did not fail outright.
pub enum Outcome {
    /// Exit 0.
    Ok,
    /// Exit 1 without a further message (the command printed why).
    Failed,
}

/// Parses the arguments, runs the command and returns the exit code.
pub fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Generate(args) => generate::run(args),
        Command::Schema(cmd) => schema::run(cmd),
        Command::Manifest(cmd) => manifest::run(cmd),
        Command::Introspect(args) => {
            mcpgen::introspect::command(args.out.as_deref(), args.timeout, &args.command).map(|()| Outcome::Ok)
        }
        Command::New(args) => new::run(args),
        Command::Diff(args) => diff::run(args),
    };
    match result {
        Ok(Outcome::Ok) => ExitCode::SUCCESS,
        Ok(Outcome::Failed) => ExitCode::from(1),
        Err(e) => {
            report(&e);
            ExitCode::from(1)
        }
    }
}

/// Prints an error the way every command does.
pub fn report(e: &Error) {
    eprintln!("error: {e}");
}
