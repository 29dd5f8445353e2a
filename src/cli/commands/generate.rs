//! `mcpgen generate`: run the pipeline and write (or `--check`) the four
//! generated files (and, with `--tool-parts N`, the N part files of the
//! tool types).

use std::path::{Path, PathBuf};

use crate::{emit, store, Builder, ProtocolTypes, Result};

use crate::cli::Outcome;

#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// Protocol revision.
    #[arg(long, value_name = "REV", default_value = store::DEFAULT_REVISION)]
    protocol: String,
    /// Use this schema file instead of the pinned revision (may be unpinned).
    #[arg(long, value_name = "FILE")]
    schema: Option<PathBuf>,
    /// Tool manifest (JSON or YAML); without it only protocol types are generated.
    #[arg(long, value_name = "FILE")]
    manifest: Option<PathBuf>,
    /// Output directory.
    #[arg(long, value_name = "DIR", default_value = "generated")]
    out: PathBuf,
    /// Do not generate the server.
    #[arg(long)]
    no_server: bool,
    /// Do not generate the client.
    #[arg(long)]
    no_client: bool,
    /// Leave out Streamable HTTP (server `http_service`/`serve_http`, client
    /// `connect_http`), so the code builds against mcpgen-runtime without
    /// its `streamable-http` feature.
    #[arg(long)]
    no_http: bool,
    /// Which protocol types protocol.rs holds: `used` (with a manifest, those
    /// the generated code names and what they contain) or `all` (every type
    /// of the revision, with the method table).
    #[arg(long, value_name = "WHICH", value_enum, default_value_t = Which::Used)]
    protocol_types: Which,
    /// Also generate this protocol type (and what it contains) with
    /// `--protocol-types used`; repeat for more.
    #[arg(long, value_name = "TYPE")]
    keep_protocol_type: Vec<String>,
    /// Split the tool types over N files, `tools_part_1.rs` … and what
    /// several parts use in `tools.rs`, for N crates that compile in
    /// parallel, each in a fraction of the memory (see docs/build-step.md).
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u16).range(1..))]
    tool_parts: u16,
    /// Write nothing; exit 1 with a unified diff when the files in --out are stale.
    #[arg(long)]
    check: bool,
}

/// `--protocol-types`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum Which {
    /// The types the generated code names, and what they contain.
    Used,
    /// Every type of the revision, with the method table.
    All,
}

pub(crate) fn run(args: Args) -> Result<Outcome> {
    let mut builder = Builder::new()
        .protocol(&args.protocol)
        .server(!args.no_server)
        .client(!args.no_client)
        .http(!args.no_http)
        .protocol_types(match args.protocol_types {
            Which::All => ProtocolTypes::All,
            Which::Used => ProtocolTypes::Used,
        })
        .out_dir(&args.out)
        .tool_parts(usize::from(args.tool_parts))
        .cargo_directives(false);
    for name in &args.keep_protocol_type {
        builder = builder.keep_protocol_type(name);
    }
    if let Some(m) = &args.manifest {
        builder = builder.manifest(m);
    }
    if let Some(s) = &args.schema {
        builder = builder.schema_file(s);
    }
    let generated = builder.generate()?;
    eprintln!("{}", generated.schema.describe());
    for w in &generated.warnings {
        eprintln!("warning: {w}");
    }
    let leftover = leftover_parts(&args.out, &generated.files);
    if args.check {
        let stale = emit::check(&args.out, &generated.files);
        for name in &leftover {
            eprintln!(
                "error: {} is a part of an earlier split that this one no longer makes",
                args.out.join(name).display()
            );
        }
        if stale.is_none() && !leftover.is_empty() {
            eprintln!(
                "help: delete it (and its crate), or generate with the same --tool-parts as before"
            );
            return Ok(Outcome::Failed);
        }
        return Ok(match stale {
            None => {
                eprintln!(
                    "{}: up to date ({} files)",
                    args.out.display(),
                    generated.files.len()
                );
                Outcome::Ok
            }
            Some(diff) => {
                crate::cli::out(&diff)?;
                eprintln!(
                    "error: the generated files in {} are stale; run `mcpgen generate` with the same options (without --check) to update them",
                    args.out.display()
                );
                Outcome::Failed
            }
        });
    }
    let report = emit::write_all(&args.out, &generated.files)?;
    eprintln!(
        "wrote {} file(s) to {} ({} unchanged)",
        report.written.len(),
        args.out.display(),
        report.unchanged.len()
    );
    for name in &leftover {
        eprintln!(
            "warning: {} is a part of an earlier split that this one no longer makes; delete it (and its crate)",
            args.out.join(name).display()
        );
    }
    Ok(Outcome::Ok)
}

/// The files in `dir` that an earlier `--tool-parts` wrote and `files`
/// no longer has: `tools_part_<N>.rs` starting with mcpgen's marker. They
/// are left in place (the writer touches only what it writes), but named,
/// and `--check` counts them as stale.
fn leftover_parts(dir: &Path, files: &[(String, String)]) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut found: Vec<String> = entries
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|name| {
            name.strip_prefix("tools_part_")
                .and_then(|rest| rest.strip_suffix(".rs"))
                .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
        })
        .filter(|name| !files.iter().any(|(f, _)| f == name))
        .filter(|name| generated_by_mcpgen(&dir.join(name)))
        .collect();
    found.sort();
    found
}

/// Whether `path` is a file that starts with mcpgen's marker (read no
/// further than the marker).
fn generated_by_mcpgen(path: &Path) -> bool {
    use std::io::Read;
    let marker = emit::GENERATED_MARKER.as_bytes();
    let mut head = vec![0; marker.len()];
    // Only a file is opened: a pipe of that name would block.
    std::fs::metadata(path).is_ok_and(|m| m.is_file())
        && std::fs::File::open(path)
            .and_then(|mut f| f.read_exact(&mut head))
            .is_ok_and(|()| head == marker)
}
