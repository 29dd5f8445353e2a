//! `mcpgen diff`: what changed between two protocol revisions (see
//! `mcpgen::diff`).

use std::path::PathBuf;

use mcpgen::manifest::Manifest;
use mcpgen::spec::Spec;
use mcpgen::store::Store;
use mcpgen::{diff, Error, Result};

use super::Outcome;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The older revision.
    from: String,
    /// The newer revision.
    to: String,
    /// Also say what changes for the code generated from this manifest.
    #[arg(long, value_name = "FILE")]
    manifest: Option<PathBuf>,
    /// Machine-readable output.
    #[arg(long)]
    json: bool,
}

pub fn run(args: Args) -> Result<Outcome> {
    let store = Store::from_env();
    let load = |rev: &str| -> Result<Spec> {
        let schema = store.resolve(rev, None)?;
        Spec::from_json(&schema.json, &schema.revision).map_err(|e| e.in_file(&schema.path))
    };
    let (a, b) = (load(&args.from)?, load(&args.to)?);
    let mut report = diff::compare(&args.from, &a, &args.to, &b);
    if let Some(path) = &args.manifest {
        let manifest = Manifest::load(path)?;
        report = diff::with_manifest(report, &a, &b, &manifest);
    }
    if args.json {
        let text = serde_json::to_string_pretty(&report)
            .map_err(|e| Error::new(format!("cannot serialise the report: {e}")))?;
        super::out(format!("{text}\n"))?;
    } else {
        super::out(&report)?;
    }
    Ok(Outcome::Ok)
}
