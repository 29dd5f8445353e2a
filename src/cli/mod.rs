//! Command-line parsing and dispatch. Each subcommand lives in its own
//! module and calls into the library; this module only maps results to
//! exit codes: 0 success, 1 failure (printed as `error: …` on stderr),
//! 2 usage errors (clap's own). Panics are recorded, not printed (see
//! `install_panic_hook`); one that escapes a command is an internal error.

mod commands;
pub mod diff;
pub mod introspect;
pub mod scaffold;
pub mod synth;

use commands::{diff as diff_command, generate, import, manifest, new, schema};

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Mutex;

use clap::{Parser, Subcommand};

use crate::Error;

/// Generate typed Rust MCP protocol types, tool types, servers and clients
/// from the official MCP schema and a tool manifest.
#[derive(Debug, Parser)]
#[command(name = "mcpgen", version, about, propagate_version = true)]
pub(crate) struct Cli {
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
    /// Write a manifest from a running MCP server's tools/list (stdio, or Streamable HTTP with --url).
    #[command(
        override_usage = "mcpgen introspect [--out FILE] [--timeout SECS] (--url URL [--header 'NAME: VALUE']... [--cacert FILE]... [--cert FILE --key FILE] [--proxy URL] [--oauth] [--client-id ID [--client-secret SECRET | --client-key FILE]] | -- CMD [ARGS]...)"
    )]
    Introspect(IntrospectArgs),
    /// Scaffold a new server crate from a manifest.
    New(new::Args),
    /// Make a manifest from an API description (`mcpgen import openapi SPEC`).
    #[command(subcommand)]
    Import(import::Command),
    /// What changed between two protocol revisions, or between two manifests.
    Diff(diff_command::Args),
}

#[derive(Debug, clap::Args)]
struct IntrospectArgs {
    /// Write the manifest here instead of stdout.
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
    /// Give up after this many seconds.
    #[arg(long, value_name = "SECS", default_value_t = 30)]
    timeout: u64,
    /// Ask the Streamable HTTP endpoint at this URL (https://HOST/mcp, http://HOST:PORT/mcp) instead of starting a command.
    #[arg(long, value_name = "URL", conflicts_with = "command")]
    url: Option<String>,
    /// With --url: send this header on every request, e.g. 'Authorization: Bearer TOKEN' (repeatable; never logged).
    #[arg(
        long = "header",
        short = 'H',
        value_name = "NAME: VALUE",
        requires = "url"
    )]
    headers: Vec<String>,
    /// With --url: also trust the CA certificates of this PEM file (repeatable).
    #[arg(long = "cacert", value_name = "FILE", requires = "url")]
    cacerts: Vec<PathBuf>,
    /// With --url: present this client certificate (PEM; with --key).
    #[arg(long, value_name = "FILE", requires_all = ["url", "key"])]
    cert: Option<PathBuf>,
    /// The private key of --cert (PEM).
    #[arg(long, value_name = "FILE", requires = "cert")]
    key: Option<PathBuf>,
    /// With --url: go through this HTTP proxy (http://[USER:PASSWORD@]HOST:PORT) instead of HTTPS_PROXY/HTTP_PROXY.
    #[arg(long, value_name = "URL", requires = "url")]
    proxy: Option<String>,
    /// Log in with OAuth when the server asks: prints the authorization URL, waits for the
    /// browser's redirect on a loopback port, caches the tokens (config dir, mode 0600) and reuses them.
    #[arg(long, requires = "url")]
    oauth: bool,
    /// With --url: this client's id, registered beforehand with the server's authorization server.
    /// With --client-secret or --client-key it logs in without a browser (client credentials);
    /// with --oauth alone it is the id the browser login uses.
    #[arg(long, value_name = "ID", requires = "url")]
    client_id: Option<String>,
    /// The secret of --client-id (client credentials, client_secret_basic or _post as the server lists).
    #[arg(
        long,
        value_name = "SECRET",
        env = "MCPGEN_CLIENT_SECRET",
        hide_env_values = true,
        requires = "client_id",
        conflicts_with = "client_key"
    )]
    client_secret: Option<String>,
    /// The private key of --client-id (PEM): client credentials with private_key_jwt.
    #[arg(long, value_name = "FILE", requires = "client_id")]
    client_key: Option<PathBuf>,
    /// The JWS algorithm of --client-key.
    #[arg(
        long,
        value_name = "ALG",
        default_value = "ES256",
        requires = "client_key"
    )]
    client_key_alg: String,
    /// The server command and its arguments (after `--`).
    #[arg(last = true, required_unless_present = "url", value_name = "CMD")]
    command: Vec<String>,
}

/// Outcome of a command that did not fail outright.
pub(crate) enum Outcome {
    /// Exit 0.
    Ok,
    /// Exit 1 without a further message (the command printed why).
    Failed,
}

/// The message of the last panic, recorded by the hook of [`main`].
static LAST_PANIC: Mutex<Option<String>> = Mutex::new(None);

/// Records panics instead of printing them. Panics of third-party code
/// that the library catches (typify on an unusual tool schema) become
/// warnings and must not reach the terminal; a panic that escapes to
/// [`main`] is reported there as an internal error. `MCPGEN_DEBUG_PANICS=1`
/// prints every panic as it happens.
fn install_panic_hook() {
    let debug = std::env::var_os("MCPGEN_DEBUG_PANICS").is_some_and(|v| !v.is_empty() && v != "0");
    std::panic::set_hook(Box::new(move |info| {
        let payload = info.payload();
        let message = payload
            .downcast_ref::<&str>()
            .map(|s| (*s).to_owned())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown panic".to_owned());
        let at = info
            .location()
            .map(|l| format!(" at {}:{}", l.file(), l.line()))
            .unwrap_or_default();
        let text = format!("{message}{at}");
        if debug {
            eprintln!("panic: {text}");
        }
        if let Ok(mut last) = LAST_PANIC.lock() {
            *last = Some(text);
        }
    }));
}

/// Parses the arguments, runs the command and returns the exit code.
pub fn main() -> ExitCode {
    let cli = Cli::parse();
    install_panic_hook();
    match std::panic::catch_unwind(move || dispatch(cli)) {
        Ok(code) => code,
        Err(_) => {
            let text = LAST_PANIC
                .lock()
                .ok()
                .and_then(|mut l| l.take())
                .unwrap_or_else(|| "unknown panic".into());
            report(&Error::new(format!("internal error: {text}")).with_hint(
                "this is a bug in mcpgen; please report it with the command line and inputs (MCPGEN_DEBUG_PANICS=1 prints panics as they happen)",
            ));
            ExitCode::from(1)
        }
    }
}

fn dispatch(cli: Cli) -> ExitCode {
    let result = match cli.command {
        Command::Generate(args) => generate::run(args),
        Command::Schema(cmd) => schema::run(cmd),
        Command::Manifest(cmd) => manifest::run(cmd),
        Command::Introspect(args) => match &args.url {
            Some(url) => {
                let http = crate::cli::introspect::HttpArgs {
                    headers: args.headers.clone(),
                    cacerts: args.cacerts.clone(),
                    cert: args.cert.clone(),
                    key: args.key.clone(),
                    proxy: args.proxy.clone(),
                    oauth: args.oauth,
                    client: args
                        .client_id
                        .clone()
                        .map(|id| crate::cli::introspect::ClientArgs {
                            id,
                            secret: args.client_secret.clone(),
                            key: args.client_key.clone(),
                            key_alg: args.client_key_alg.clone(),
                        }),
                };
                crate::cli::introspect::command_url(args.out.as_deref(), args.timeout, url, &http)
            }
            None => {
                crate::cli::introspect::command(args.out.as_deref(), args.timeout, &args.command)
            }
        }
        .map(|()| Outcome::Ok),
        Command::New(args) => new::run(args),
        Command::Import(cmd) => import::run(cmd),
        Command::Diff(args) => diff_command::run(args),
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

/// Writes command output to stdout. A closed pipe (`mcpgen diff … | head`)
/// is not an error: the reader has what it wanted.
pub(crate) fn out(text: impl std::fmt::Display) -> crate::Result<()> {
    use std::io::Write;
    let mut stdout = std::io::stdout().lock();
    match write!(stdout, "{text}").and_then(|()| stdout.flush()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
            Err(Error::new(format!("cannot write to standard output: {e}")))
        }
        _ => Ok(()),
    }
}

/// Prints an error the way every command does.
pub(crate) fn report(e: &Error) {
    eprintln!("error: {e}");
}
