//! `mcpgen diff`: what changed between two protocol revisions, or between
//! two manifests (see `crate::cli::diff`); `--check` exits 1 when anything did.

use std::path::PathBuf;

use crate::cli::diff;
use crate::manifest::Manifest;
use crate::spec::Spec;
use crate::store::Store;
use crate::{Error, Result};

use crate::cli::Outcome;

#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// The older revision, or the older manifest file (`.json`, `.yaml`).
    from: String,
    /// The newer revision, or the newer manifest file.
    to: String,
    /// Revisions: also say what changes for the code generated from this manifest.
    #[arg(long, value_name = "FILE")]
    manifest: Option<PathBuf>,
    /// Manifests: the revision the generated items are compared for.
    #[arg(long, value_name = "REV", default_value = crate::manifest::DEFAULT_REVISION)]
    protocol: String,
    /// Exit 1 when anything differs (for CI), 0 when nothing does.
    #[arg(long)]
    check: bool,
    /// Machine-readable output.
    #[arg(long)]
    json: bool,
}

/// Whether an argument names a manifest file rather than a revision.
fn is_manifest(arg: &str) -> bool {
    let lower = arg.to_ascii_lowercase();
    [".json", ".yaml", ".yml"]
        .iter()
        .any(|e| lower.ends_with(e))
        || std::path::Path::new(arg).is_file()
}

fn print<T: serde::Serialize + std::fmt::Display>(report: &T, json: bool) -> Result<()> {
    if json {
        let text = serde_json::to_string_pretty(report)
            .map_err(|e| Error::new(format!("cannot serialise the report: {e}")))?;
        crate::cli::out(format!("{text}\n"))
    } else {
        crate::cli::out(report)
    }
}

pub(crate) fn run(args: Args) -> Result<Outcome> {
    let store = Store::from_env();
    let load = |rev: &str| -> Result<Spec> {
        let schema = store.resolve(rev, None)?;
        Spec::from_json(&schema.json, &schema.revision).map_err(|e| e.in_file(&schema.path))
    };
    let differs = match (is_manifest(&args.from), is_manifest(&args.to)) {
        (true, true) => {
            if args.manifest.is_some() {
                return Err(Error::new("--manifest is for comparing two revisions")
                    .with_hint("to compare two manifests give both as arguments: mcpgen diff OLD.json NEW.json"));
            }
            let (a, b) = (Manifest::load(&args.from)?, Manifest::load(&args.to)?);
            let report = diff::compare_manifests(&a, &b, &load(&args.protocol)?, &args.protocol);
            print(&report, args.json)?;
            !report.is_empty()
        }
        (false, false) => {
            let (a, b) = (load(&args.from)?, load(&args.to)?);
            let mut report = diff::compare(&args.from, &a, &args.to, &b);
            if let Some(path) = &args.manifest {
                let manifest = Manifest::load(path)?;
                report = diff::with_manifest(report, &a, &b, &manifest);
            }
            print(&report, args.json)?;
            !report.is_empty() || report.manifest.as_ref().is_some_and(|m| !m.generated.is_empty())
        }
        _ => {
            return Err(Error::new(format!("cannot compare `{}` with `{}`", args.from, args.to)).with_hint(
                "give two revisions (mcpgen diff 2025-11-25 2026-07-28) or two manifest files (mcpgen diff OLD.json NEW.json)",
            ))
        }
    };
    Ok(if args.check && differs {
        Outcome::Failed
    } else {
        Outcome::Ok
    })
}
