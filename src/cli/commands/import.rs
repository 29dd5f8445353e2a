//! `mcpgen import openapi SPEC [--out FILE]`: an OpenAPI document made a
//! manifest (`crate::openapi`). Warnings go to stderr; on any error
//! nothing is written. `--out` is written atomically (a temporary file in
//! the same directory, renamed into place).

use std::path::{Path, PathBuf};

use crate::openapi::{self, Filter, ImportOptions};
use crate::{Error, Result};

use crate::cli::Outcome;

#[derive(Debug, clap::Subcommand)]
pub(crate) enum Command {
    /// Make a manifest from an OpenAPI document (Swagger 2.0, OpenAPI 3.0 or 3.1; JSON or YAML),
    /// one tool per operation, each with its HTTP binding.
    Openapi(Args),
}

#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// The OpenAPI document.
    spec: PathBuf,
    /// Write the manifest here instead of stdout.
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
    /// Import only operations this matches: tag:GLOB, op:GLOB, path:GLOB or method:NAME
    /// (repeatable; any one suffices).
    #[arg(long, value_name = "FILTER")]
    include: Vec<Filter>,
    /// Leave out operations this matches (repeatable; wins over --include).
    #[arg(long, value_name = "FILTER")]
    exclude: Vec<Filter>,
}

pub(crate) fn run(cmd: Command) -> Result<Outcome> {
    let Command::Openapi(args) = cmd;
    let options = ImportOptions {
        include: args.include,
        exclude: args.exclude,
    };
    let imported = match openapi::import(&args.spec, &options) {
        Ok(i) => i,
        Err(problems) => {
            for p in &problems {
                crate::cli::report(p);
            }
            eprintln!(
                "{}: {} problem(s); nothing written",
                args.spec.display(),
                problems.len()
            );
            return Ok(Outcome::Failed);
        }
    };
    for w in &imported.warnings {
        eprintln!("warning: {w}");
    }
    let mut text = serde_json::to_string_pretty(&imported.manifest)
        .map_err(|e| Error::new(format!("cannot write the manifest: {e}")))?;
    text.push('\n');
    let tools = imported.manifest["tools"].as_array().map_or(0, Vec::len);
    match &args.out {
        Some(path) => {
            write_atomically(path, &text)?;
            eprintln!(
                "{}: {tools} tool(s) of {} operation(s)",
                path.display(),
                imported.operations
            );
        }
        None => crate::cli::out(text)?,
    }
    Ok(Outcome::Ok)
}

/// Writes `text` to `path` through a temporary file renamed into place.
fn write_atomically(path: &Path, text: &str) -> Result<()> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "manifest".into());
    let temp = dir.join(format!(".{name}.mcpgen-{}", std::process::id()));
    std::fs::write(&temp, text).map_err(|e| Error::io("write", &temp, e))?;
    std::fs::rename(&temp, path).map_err(|e| {
        let _ = std::fs::remove_file(&temp);
        Error::io("write", path, e)
    })
}
