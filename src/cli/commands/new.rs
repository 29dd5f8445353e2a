//! `mcpgen new`: scaffold a server crate (see `crate::cli::scaffold`).

use std::path::PathBuf;

use crate::cli::scaffold::{self, DepSource, NewCrate, ToolSource, Transport};
use crate::store::{self, Store};
use crate::Result;

use crate::cli::Outcome;

#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// Directory of the new crate; its last component is the crate name.
    name: PathBuf,
    /// Tool manifest the server implements (copied into the crate).
    #[arg(
        long,
        value_name = "FILE",
        required_unless_present = "openapi",
        conflicts_with = "openapi"
    )]
    manifest: Option<PathBuf>,
    /// An OpenAPI document (Swagger 2.0, OpenAPI 3.0 or 3.1; JSON or YAML):
    /// every operation becomes a tool whose generated handler calls the
    /// API (the imported manifest is written into the crate as tools.json).
    #[arg(long, value_name = "SPEC")]
    openapi: Option<PathBuf>,
    /// With --openapi: import only operations matching one of these
    /// (`tag:GLOB`, `op:GLOB`, `path:GLOB`, `method:NAME`; repeatable).
    #[arg(long, value_name = "FILTER", requires = "openapi")]
    include: Vec<crate::openapi::Filter>,
    /// With --openapi: leave out operations matching one of these (same forms as --include).
    #[arg(long, value_name = "FILTER", requires = "openapi")]
    exclude: Vec<crate::openapi::Filter>,
    /// Protocol revision.
    #[arg(long, value_name = "REV", default_value = store::DEFAULT_REVISION)]
    protocol: String,
    /// How clients reach the server: `stdio` (the client starts it) or
    /// `http` (Streamable HTTP at `http://ADDR/mcp`, `--listen ADDR`).
    #[arg(long, value_enum, default_value = "stdio")]
    transport: TransportArg,
    /// `jwt`: the server requires OAuth 2.1 bearer tokens (JWT access
    /// tokens checked against the authorization server's key set), set up
    /// from MCP_RESOURCE_URL, MCP_AUTH_ISSUER and MCP_AUTH_JWKS_URI at
    /// start; needs `--transport http`.
    #[arg(long, value_enum, default_value = "none")]
    auth: AuthArg,
    /// `search`: `tools/list` answers the manifest's pinned tools plus
    /// `search_tools` and `call_tool`, for a large catalog (sets
    /// `x-mcpgen.toolSurface` in the crate's manifest); `all`: every tool.
    #[arg(long, value_enum, value_name = "SURFACE")]
    tool_surface: Option<SurfaceArg>,
    /// Split the tool types over this many crates (`bindings/part-N/`,
    /// beside `bindings/shared/`), so that no one compiler process holds
    /// them all; default: one per 200 tools, 1 keeps them in `bindings/`.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
    tool_parts: Option<u16>,
    /// Write into an existing directory, replacing the scaffolded files.
    #[arg(long)]
    force: bool,
    /// Depend on mcpgen and mcpgen-runtime by path, at this mcpgen checkout
    /// (default: this mcpgen's own source tree when present).
    #[arg(long, value_name = "DIR", conflicts_with = "mcpgen_version")]
    mcpgen_path: Option<PathBuf>,
    /// Depend on mcpgen and mcpgen-runtime from the registry, this version.
    #[arg(long, value_name = "VERSION")]
    mcpgen_version: Option<String>,
}

#[derive(Debug, Clone, Copy, clap::ValueEnum)]
enum TransportArg {
    Stdio,
    Http,
}

#[derive(Debug, Clone, Copy, clap::ValueEnum)]
enum SurfaceArg {
    All,
    Search,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum AuthArg {
    None,
    Jwt,
}

pub(crate) fn run(args: Args) -> Result<Outcome> {
    let deps = match (args.mcpgen_path, args.mcpgen_version) {
        (Some(p), _) => DepSource::Path(std::path::absolute(&p).unwrap_or(p)),
        (None, Some(v)) => DepSource::Version(v),
        (None, None) => DepSource::detect(),
    };
    let job = NewCrate {
        dir: args.name.clone(),
        source: match (args.manifest, args.openapi) {
            (_, Some(spec)) => ToolSource::OpenApi(
                spec,
                crate::openapi::ImportOptions {
                    include: args.include,
                    exclude: args.exclude,
                },
            ),
            (Some(manifest), None) => ToolSource::Manifest(manifest),
            (None, None) => {
                return Err(crate::Error::new("give --manifest FILE or --openapi SPEC")
                    .with_kind(crate::ErrorKind::Usage))
            }
        },
        protocol: args.protocol,
        force: args.force,
        deps,
        transport: match args.transport {
            TransportArg::Stdio => Transport::Stdio,
            TransportArg::Http => Transport::Http,
        },
        auth_jwt: args.auth == AuthArg::Jwt,
        tool_surface: args.tool_surface.map(|s| match s {
            SurfaceArg::All => crate::manifest::ToolSurface::All,
            SurfaceArg::Search => crate::manifest::ToolSurface::Search,
        }),
        store: Store::from_env(),
        tool_parts: args.tool_parts.map(usize::from),
    };
    let rendered = scaffold::create(&job)?;
    for w in &rendered.warnings {
        eprintln!("warning: {w}");
    }
    for (tool, why) in &rendered.skipped {
        eprintln!(
            "note: the scaffolded test does not call tool `{}`: no arguments valid against its inputSchema were found: {}",
            crate::escape::line_comment(tool),
            crate::escape::line_comment(why)
        );
    }
    eprintln!(
        "created {} with {} files",
        args.name.display(),
        rendered.files.len()
    );
    eprintln!(
        "next: cd {} && cargo test   (then implement the tools in src/main.rs)",
        args.name.display()
    );
    Ok(Outcome::Ok)
}
