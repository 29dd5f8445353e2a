//! `mcpgen diff`: what changed between two protocol revisions (see
//! `mcpgen::diff`).

use std::path::PathBuf;

use mcpgen::{Error, Result};

use super::Outcome;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The older revision.
    from: String,
    /// The newer revision.
    to: String,
    /// Also say what changes for the generated code of this manifest.
    #[arg(long, value_name = "FILE")]
    manifest: Option<PathBuf>,
    /// Machine-readable output.
    #[arg(long)]
    json: bool,
}

pub fn run(_args: Args) -> Result<Outcome> {
    Err(Error::new("`mcpgen diff` is not implemented yet"))
}
