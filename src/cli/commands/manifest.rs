//! `mcpgen manifest check` and `mcpgen manifest schema` (the check itself
//! is `crate::check`, the one the Builder runs).

use std::path::PathBuf;

use crate::{manifest, store, Result};

use crate::cli::Outcome;

#[derive(Debug, clap::Subcommand)]
pub(crate) enum Command {
    /// Report every problem of a manifest with file, JSON pointer and line:column.
    Check {
        /// The manifest (JSON or YAML).
        file: PathBuf,
        /// Protocol revision the manifest is for.
        #[arg(long, value_name = "REV", default_value = store::DEFAULT_REVISION)]
        protocol: String,
        /// Check against this schema file instead of the pinned revision
        /// (a draft or fork; may be unpinned).
        #[arg(long, value_name = "FILE")]
        schema: Option<PathBuf>,
    },
    /// Print the JSON Schema of the manifest format.
    Schema,
}

pub(crate) fn run(cmd: Command) -> Result<Outcome> {
    match cmd {
        Command::Check {
            file,
            protocol,
            schema,
        } => {
            let problems = match manifest::Manifest::load(&file) {
                // The check the Builder runs before generating (`crate::check`).
                Ok(m) => {
                    let resolved = store::Store::from_env().resolve(&protocol, schema.as_deref());
                    if let (Ok(r), Some(_)) = (&resolved, &schema) {
                        eprintln!("{}", r.describe());
                    }
                    crate::check::with_schema(&m, &protocol, resolved)
                }
                Err(e) => vec![e],
            };
            if problems.is_empty() {
                crate::cli::out(format!("{}: ok\n", file.display()))?;
                return Ok(Outcome::Ok);
            }
            for p in &problems {
                crate::cli::report(p);
            }
            eprintln!("{}: {} problem(s)", file.display(), problems.len());
            Ok(Outcome::Failed)
        }
        Command::Schema => {
            let text = serde_json::to_string_pretty(&manifest::manifest_schema())
                .map_err(|e| crate::Error::new(format!("cannot print the manifest schema: {e}")))?;
            crate::cli::out(format!("{text}\n"))?;
            Ok(Outcome::Ok)
        }
    }
}
