//! `mcpgen schema list` and `mcpgen schema pull`.

use crate::{store, Result};

use crate::cli::Outcome;

#[derive(Debug, clap::Subcommand)]
pub(crate) enum Command {
    /// Each pinned revision: cached? verified?
    List,
    /// Fetch pinned revisions (from $MCPGEN_SCHEMA_MIRROR or the network), verify and cache them.
    Pull(PullArgs),
}

#[derive(Debug, clap::Args)]
#[group(required = true, multiple = false)]
pub(crate) struct PullArgs {
    /// The revision to pull.
    #[arg(value_name = "REV")]
    revision: Option<String>,
    /// Pull every pinned revision.
    #[arg(long)]
    all: bool,
}

pub(crate) fn run(cmd: Command) -> Result<Outcome> {
    match cmd {
        Command::List => {
            let s = store::Store::from_env();
            crate::cli::out(format!("cache: {}\n", s.cache_dir.display()))?;
            for entry in s.list() {
                crate::cli::out(format!("{entry}\n"))?;
            }
            Ok(Outcome::Ok)
        }
        Command::Pull(args) => {
            let which = if args.all {
                None
            } else {
                args.revision.as_deref()
            };
            for outcome in store::pull(which)? {
                crate::cli::out(format!("{outcome}\n"))?;
            }
            Ok(Outcome::Ok)
        }
    }
}
