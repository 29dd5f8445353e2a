//! `mcpgen new`: scaffold a server crate (see `mcpgen::scaffold`).

use std::path::PathBuf;

use mcpgen::{store, Error, Result};

use super::Outcome;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Directory of the new crate; its last component is the crate name.
    name: PathBuf,
    /// Tool manifest the server implements.
    #[arg(long, value_name = "FILE")]
    manifest: PathBuf,
    /// Protocol revision.
    #[arg(long, value_name = "REV", default_value = store::DEFAULT_REVISION)]
    protocol: String,
    /// Overwrite an existing directory.
    #[arg(long)]
    force: bool,
}

pub fn run(_args: Args) -> Result<Outcome> {
    Err(Error::new("`mcpgen new` is not implemented yet"))
}
