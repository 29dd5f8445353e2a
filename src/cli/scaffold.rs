//! `mcpgen new`: a new server crate from the handlebars templates in
//! `templates/new/` — a workspace of the server and its bindings: the
//! bindings crate (`bindings/`) has the `build.rs` that regenerates from
//! the manifest with [`crate::Builder`], so that editing a handler does not
//! rebuild them; the server's `Cargo.toml`, `src/main.rs` serving over stdio or
//! Streamable HTTP ([`Transport`]) with one "not implemented yet" handler
//! per tool, a README saying how to connect a client, and an integration
//! test that talks to the server over its transport: `tools/list`, every
//! tool called with valid arguments, one call with invalid ones.
//!
//! The templates are compiled into the binary. The crate depends on
//! `mcpgen` and `mcpgen-runtime` by path when this mcpgen's source tree is
//! on disk (or [`DepSource::Path`] names one), else by version.

use std::path::{Path, PathBuf};

use handlebars::Handlebars;
use serde::Serialize;

use crate::cli::synth;
use crate::codegen;
use crate::emit;
use crate::error::{stage, Error, ErrorKind, Result};
use crate::escape;
use crate::manifest::Manifest;
use crate::spec::Spec;
use crate::store::Store;

/// `(output path, template text)`; output paths ending in `.hbs` lose it.
const TEMPLATES: &[(&str, &str)] = &[
    (
        "Cargo.toml",
        include_str!("../../templates/new/Cargo.toml.hbs"),
    ),
    (
        "bindings/Cargo.toml",
        include_str!("../../templates/new/bindings/Cargo.toml.hbs"),
    ),
    (
        "bindings/build.rs",
        include_str!("../../templates/new/bindings/build.rs.hbs"),
    ),
    (
        "bindings/src/lib.rs",
        include_str!("../../templates/new/bindings/src/lib.rs.hbs"),
    ),
    (
        "src/main.rs",
        include_str!("../../templates/new/src/main.rs.hbs"),
    ),
    (
        "tests/tools_list.rs",
        include_str!("../../templates/new/tests/tools_list.rs.hbs"),
    ),
    (
        "README.md",
        include_str!("../../templates/new/README.md.hbs"),
    ),
];

/// The shared crate's files when the tool types are split
/// ([`NewCrate::tool_parts`]); the bindings then have no `build.rs`.
const SHARED_TEMPLATES: &[(&str, &str)] = &[
    (
        "bindings/shared/Cargo.toml",
        include_str!("../../templates/new/bindings/shared/Cargo.toml.hbs"),
    ),
    (
        "bindings/shared/build.rs",
        include_str!("../../templates/new/bindings/shared/build.rs.hbs"),
    ),
    (
        "bindings/shared/src/lib.rs",
        include_str!("../../templates/new/bindings/shared/src/lib.rs.hbs"),
    ),
];

/// Each part crate's files (under `bindings/part-N/`), rendered with `part`.
const PART_TEMPLATES: &[(&str, &str)] = &[
    (
        "Cargo.toml",
        include_str!("../../templates/new/bindings/part/Cargo.toml.hbs"),
    ),
    (
        "src/lib.rs",
        include_str!("../../templates/new/bindings/part/src/lib.rs.hbs"),
    ),
];

/// How many tools a part crate of the bindings holds, about, when
/// [`NewCrate::tool_parts`] is not given: 800 distinct real tools build in
/// four parts, the largest compiler process at 0.9 GB instead of 2.9 GB
/// in one crate (`docs/performance.md`).
pub const TOOLS_PER_PART: usize = 200;

/// Files the scaffold writes besides the templates', its directories, and
/// `build.rs`, which cargo would run as the server's build script (the
/// manifest keeps its own name, which must not be one of these).
const OTHER_FILES: &[&str] = &[
    "Cargo.lock",
    ".gitignore",
    "build.rs",
    "src",
    "tests",
    "bindings",
];

/// Where the new crate gets `mcpgen` and `mcpgen-runtime` from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DepSource {
    /// Path dependencies on the mcpgen workspace at this directory (the
    /// one holding mcpgen's `Cargo.toml`, with `runtime/` inside).
    Path(PathBuf),
    /// Registry dependencies of this version requirement.
    Version(String),
}

impl DepSource {
    /// Path dependencies on this mcpgen's own source tree when it exists
    /// on disk, else the version of this mcpgen.
    pub fn detect() -> Self {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        if root.join("runtime/Cargo.toml").is_file() {
            DepSource::Path(root.to_path_buf())
        } else {
            DepSource::Version(env!("CARGO_PKG_VERSION").to_owned())
        }
    }
}

/// How the scaffolded server is reached.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Transport {
    /// stdin/stdout: the client starts the server (desktop clients, the
    /// Inspector with a command).
    #[default]
    Stdio,
    /// Streamable HTTP at `http://ADDR/mcp` (`--listen ADDR`, default
    /// [`DEFAULT_LISTEN`]).
    Http,
}

/// The address an HTTP scaffold listens on without `--listen`.
pub const DEFAULT_LISTEN: &str = "127.0.0.1:8080";

/// What to scaffold.
#[derive(Debug, Clone)]
pub struct NewCrate {
    /// The crate directory; its last component is the package name.
    pub dir: PathBuf,
    /// What the server offers: a manifest, or an OpenAPI document.
    pub source: ToolSource,
    /// Protocol revision.
    pub protocol: String,
    /// Replace files of an existing directory.
    pub force: bool,
    /// Where the dependencies come from.
    pub deps: DepSource,
    /// stdio or Streamable HTTP.
    pub transport: Transport,
    /// OAuth 2.1 bearer tokens (JWT access tokens, configured from the
    /// environment); Streamable HTTP only.
    pub auth_jwt: bool,
    /// The tool surface to set in the crate's manifest (`x-mcpgen.toolSurface`);
    /// `None` keeps the manifest's own.
    pub tool_surface: Option<crate::manifest::ToolSurface>,
    /// Schema lookup (only used to name the content type of tools without
    /// an output schema).
    pub store: Store,
    /// Over how many crates the tool types are split (`bindings/part-N/`,
    /// beside `bindings/shared/` for what several parts use); `None`: one
    /// per [`TOOLS_PER_PART`] tools. One keeps them in the bindings crate.
    pub tool_parts: Option<usize>,
}

/// Where a new crate's tools come from.
#[derive(Debug, Clone)]
pub enum ToolSource {
    /// A manifest, copied into the crate under its own file name.
    Manifest(PathBuf),
    /// An OpenAPI document, imported (`mcpgen import openapi`) into the
    /// crate's manifest [`IMPORTED_MANIFEST`]: every operation a tool whose
    /// generated handler calls the API.
    OpenApi(PathBuf, crate::openapi::ImportOptions),
}

/// The file name of the manifest imported from an OpenAPI document.
pub const IMPORTED_MANIFEST: &str = "tools.json";

/// The manifest imported from the OpenAPI document at `path`, as JSON
/// text; its warnings are printed, its first error returned with the
/// count of the others.
fn imported_manifest(path: &Path, options: &crate::openapi::ImportOptions) -> Result<String> {
    match crate::openapi::import(path, options) {
        Ok(imported) => {
            for w in &imported.warnings {
                eprintln!("warning: {w}");
            }
            let mut text = serde_json::to_string_pretty(&imported.manifest)
                .map_err(|e| Error::new(format!("cannot write the imported manifest: {e}")))?;
            text.push('\n');
            Ok(text)
        }
        Err(errors) => {
            for e in errors.iter().skip(1) {
                eprintln!("error: {e}");
            }
            let count = errors.len();
            let mut first = errors
                .into_iter()
                .next()
                .unwrap_or_else(|| Error::new("the OpenAPI document could not be imported"));
            if count > 1 {
                first.hint = Some(format!(
                    "{count} problems in the document (the others are printed above)"
                ));
            }
            Err(first)
        }
    }
}

/// A text from outside (a file name, a tool description, ...) escaped for
/// each context a template may paste it into (see [`crate::escape`]). The
/// templates name the context: `{{manifest_file.rust}}` in a Rust string
/// literal, `{{manifest_file.doc_code}}` in a doc comment, ...; there is no
/// unescaped form.
#[derive(Serialize)]
struct Text {
    /// A TOML basic string, quotes included.
    toml: String,
    /// A Rust string literal, quotes included.
    rust: String,
    /// Text for a `//` comment.
    comment: String,
    /// Text for a doc comment.
    doc: String,
    /// A code span for a doc comment.
    doc_code: String,
    /// Markdown inline text.
    md: String,
    /// A Markdown code span.
    md_code: String,
    /// A JSON string, quotes included.
    json: String,
    /// A shell word.
    sh: String,
}

impl Text {
    fn new(text: &str) -> Self {
        Text {
            toml: escape::toml_str(text),
            rust: escape::rust_str(text),
            comment: escape::line_comment(text),
            doc: escape::doc_text(text),
            doc_code: escape::doc_code(text),
            md: escape::markdown_text(text),
            md_code: escape::markdown_code(text),
            json: escape::json_str(text),
            sh: escape::shell_word(text),
        }
    }
}

#[derive(Serialize)]
struct ToolView {
    name: Text,
    /// Rust identifiers and a type, checked with `syn` before rendering.
    method: String,
    input: String,
    output_type: String,
    summary: Option<Text>,
    /// The handler's error message, a Rust string literal.
    not_implemented: String,
    /// The tool calls an HTTP API (`x-mcpgen.http`): the generated default
    /// handler does, and `src/main.rs` writes no stub for it.
    bound: bool,
}

/// A `Handler` method of a prompt, a resource template or the static
/// resources, stubbed in `src/main.rs`.
#[derive(Serialize)]
struct SurfaceMethodView {
    /// `prompts/get` of one prompt (else `resources/read`).
    prompt: bool,
    /// The static resources' reader (its error names the URI read).
    statics: bool,
    /// What it serves, for its doc comment: `Prompt`, `Resource template`
    /// (followed by `name`) or a sentence about the static resources.
    what: &'static str,
    /// The prompt's or template's name.
    name: Option<Text>,
    summary: Option<Text>,
    /// Rust identifiers and a type, checked with `syn` before rendering.
    method: String,
    param_type: String,
    /// The parameter's name (`_args`, `_params`, `resource`).
    param: &'static str,
    /// The return type.
    output_type: &'static str,
    /// The handler's error message, a Rust string literal (a format
    /// string taking the URI for the static resources).
    not_implemented: String,
}

/// One prompt's entry in the scaffolded test: `prompts/get` with its
/// required arguments.
#[derive(Serialize)]
struct PromptCallView {
    name: Text,
    /// The arguments as JSON text in a Rust (raw) string literal.
    arguments: String,
}

/// One template read of the scaffolded test.
#[derive(Serialize)]
struct ReadView {
    /// The URI template as declared.
    declared: Text,
    /// The URI read (a template's with every variable `example`); `None`
    /// when the expansion does not match the template back.
    uri: Option<Text>,
}

/// A tool argument annotated with `x-mcp-header`, which a stateless HTTP
/// call mirrors in a header.
#[derive(Serialize)]
struct ParamHeaderView {
    tool: Text,
    /// The header's name (`mcp-param-region`).
    header: Text,
    /// The `properties` keys leading to the argument.
    path: Vec<Text>,
}

/// One tool's entry in the scaffolded test's table of calls.
#[derive(Serialize)]
struct CallView {
    name: Text,
    /// The arguments as JSON text in a Rust (raw) string literal.
    arguments: Option<String>,
    /// Why the tool is not called.
    skip: Option<Text>,
    /// Whether it runs only as a task (`execution.taskSupport: "required"`).
    task: bool,
    /// The tool calls an HTTP API: the test's stand-in API answers it.
    bound: bool,
}

/// The scaffolded test's call with invalid arguments.
#[derive(Serialize)]
struct InvalidView {
    name: Text,
    /// The arguments as JSON text in a Rust (raw) string literal.
    arguments: String,
    /// What makes them invalid.
    why: Text,
}

/// One part crate of split bindings.
#[derive(Serialize)]
struct PartView {
    /// From 1.
    number: usize,
    /// Package name, Rust name and description.
    name: Text,
    ident: String,
    description: Text,
    /// Its directory from the bindings crate (`part-1`) and from the
    /// workspace (`bindings/part-1`).
    dir: Text,
    member: Text,
}

#[derive(Serialize)]
struct View {
    crate_name: Text,
    description: Text,
    manifest_file: Text,
    protocol: Text,
    /// `CARGO_BIN_EXE_<crate>`.
    bin_env: Text,
    /// The bindings crate's package name (`<crate>-bindings`), its Rust
    /// name and description.
    bindings_name: Text,
    bindings_ident: String,
    bindings_description: Text,
    /// The manifest's path from the bindings crate (`../<file>`).
    manifest_from_bindings: Text,
    /// The build script that generates the bindings (`bindings/build.rs`).
    build_script: Text,
    /// The tool types are split over part crates (`parts`) and a shared
    /// crate (`shared_*`), whose build script generates every file.
    split: bool,
    part_count: usize,
    parts: Vec<PartView>,
    shared_name: Text,
    shared_ident: String,
    shared_description: Text,
    /// The manifest's path from the shared crate (`../../<file>`).
    manifest_from_shared: Text,
    /// The modules of the bindings `src/main.rs` uses (`protocol, server, tools`).
    modules: String,
    /// The `clientInfo.name` of the scaffolded test.
    client_name: Text,
    /// What the manifest offers, counted: `2 tools, 1 prompt and 3 static resources`.
    offers: String,
    /// What `src/main.rs` imports from `mcpgen_runtime` (fixed names).
    imports: String,
    tools: Vec<ToolView>,
    /// `Handler` methods of prompts, templates and static resources.
    surface: Vec<SurfaceMethodView>,
    /// Whether the manifest has prompts, templates or static resources.
    any_surface: bool,
    prompt_calls: Vec<PromptCallView>,
    /// The static resources' URIs.
    resource_reads: Vec<Text>,
    template_reads: Vec<ReadView>,
    calls: Vec<CallView>,
    invalid: Option<InvalidView>,
    /// Why the test has no call with invalid arguments.
    no_invalid: Text,
    /// `path = "…"` or `version = "…"`: TOML, already escaped.
    mcpgen_dep_toml: String,
    runtime_dep_toml: String,
    /// A client configuration entry (JSON, already escaped).
    client_config_json: String,
    /// Streamable HTTP rather than stdio.
    http: bool,
    /// JWT bearer tokens required (`--auth jwt`).
    auth_jwt: bool,
    /// The revision has no handshake: the test sends `server/discover`
    /// and `_meta` on every request (and over HTTP the mirrored headers).
    stateless: bool,
    /// Over HTTP in the stateless era: the annotated tool arguments.
    param_headers: Vec<ParamHeaderView>,
    /// `stdio` or `Streamable HTTP`, for prose.
    transport: &'static str,
    /// Some tool calls an HTTP API (`x-mcpgen.http`): the server holds an
    /// `Upstream` configured from the environment.
    upstream: bool,
    /// Every tool calls the HTTP API: `src/main.rs` has no stub to write.
    all_bound: bool,
    /// The variables naming each credential the API's tools use, sorted
    /// (`MCP_UPSTREAM_AUTH_*`), which the test sets to stand-in values.
    upstream_env: Vec<Text>,
    /// The default listen address, a Rust string literal and Markdown text.
    listen: Text,
    /// The endpoint URL at the default address.
    url: Text,
    /// The search tool surface: what `tools/list` shows (the pinned tools,
    /// `search_tools` and `call_tool`); `None` for every tool.
    search_listed: Option<Vec<Text>>,
}

/// Rust keywords of every edition, strict and reserved: not usable as
/// package names (cargo refuses them too).
const KEYWORDS: &[&str] = &[
    "Self", "abstract", "as", "async", "await", "become", "box", "break", "const", "continue",
    "crate", "do", "dyn", "else", "enum", "extern", "false", "final", "fn", "for", "gen", "if",
    "impl", "in", "let", "loop", "macro", "match", "mod", "move", "mut", "override", "priv", "pub",
    "ref", "return", "self", "static", "struct", "super", "trait", "true", "try", "type", "typeof",
    "unsafe", "unsized", "use", "virtual", "where", "while", "yield",
];

/// Package names that are not keywords but still cannot be used, and why.
const RESERVED: &[(&str, &str)] = &[
    ("test", "it conflicts with Rust's built-in `test` library"),
    ("std", "it conflicts with Rust's standard library"),
    ("core", "it conflicts with Rust's `core` library"),
    ("alloc", "it conflicts with Rust's `alloc` library"),
    (
        "proc_macro",
        "it conflicts with Rust's `proc_macro` library",
    ),
    (
        "proc-macro",
        "it conflicts with Rust's `proc_macro` library",
    ),
    ("build", "cargo reserves it for its build directory"),
    ("deps", "cargo reserves it for its build directory"),
    ("examples", "cargo reserves it for its build directory"),
    ("incremental", "cargo reserves it for its build directory"),
    (
        "mcpgen",
        "the scaffolded crate depends on a crate of this name",
    ),
    (
        "mcpgen-runtime",
        "the scaffolded crate depends on a crate of this name",
    ),
    (
        "mcpgen_runtime",
        "the scaffolded crate depends on a crate of this name",
    ),
    (
        "serde",
        "the scaffolded crate depends on a crate of this name",
    ),
    (
        "serde_json",
        "the scaffolded crate depends on a crate of this name",
    ),
    (
        "tokio",
        "the scaffolded crate depends on a crate of this name",
    ),
];

/// A package name for a directory: its last component, checked: ASCII
/// letters, digits, `-` and `_`, starting with a letter; not a Rust
/// keyword, not a name cargo or Rust reserves, not a Windows device name,
/// not the name of one of the crate's dependencies.
pub fn crate_name(dir: &Path) -> Result<String> {
    let component = dir.file_name().ok_or_else(|| {
        Error::new(format!(
            "{} has no last component to name the crate after",
            dir.display()
        ))
    })?;
    let name = component.to_str().ok_or_else(|| {
        Error::new(format!(
            "the directory name {component:?} is not valid UTF-8, so it cannot name a crate"
        ))
        .with_hint("choose a directory name of ASCII letters, digits, `-` and `_`")
    })?;
    let suggestion = |name: &str| {
        format!(
            "the crate is named after the directory; choose another directory name, e.g. `mcpgen new {name}-server --manifest …`"
        )
    };
    let valid = name.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
    if !valid {
        return Err(Error::new(format!(
            "`{}` is not a valid crate name",
            escape::line_comment(name)
        ))
        .with_hint("use ASCII letters, digits, `-` and `_`, starting with a letter"));
    }
    // The binary target's Rust name has `_` for `-`.
    let ident = name.replace('-', "_");
    if KEYWORDS.contains(&name) || KEYWORDS.contains(&ident.as_str()) {
        return Err(Error::new(format!(
            "`{name}` cannot be the crate name: it is a Rust keyword"
        ))
        .with_hint(suggestion(name)));
    }
    if let Some((_, why)) = RESERVED.iter().find(|(r, _)| *r == name || *r == ident) {
        return Err(
            Error::new(format!("`{name}` cannot be the crate name: {why}"))
                .with_hint(suggestion(name)),
        );
    }
    let lower = name.to_ascii_lowercase();
    let device = matches!(lower.as_str(), "con" | "prn" | "aux" | "nul")
        || ((lower.starts_with("com") || lower.starts_with("lpt"))
            && lower.len() == 4
            && lower.as_bytes()[3].is_ascii_digit()
            && lower.as_bytes()[3] != b'0');
    if device {
        return Err(Error::new(format!(
            "`{name}` cannot be the crate name: it is a reserved device name on Windows"
        ))
        .with_hint(suggestion(name)));
    }
    Ok(name.to_owned())
}

/// The manifest's file name, which the crate copies it under and names in
/// its files: refused when it is not UTF-8, holds a control character
/// (cargo's line-based build script directives cannot carry a line break)
/// or an invisible or direction-changing one (which would hide what the
/// name says wherever it is shown), or collides with a scaffolded file.
fn manifest_file_name(manifest: &Path) -> Result<String> {
    let component = manifest
        .file_name()
        .ok_or_else(|| Error::new(format!("{} is not a file", manifest.display())))?;
    let rename = "rename the manifest file (e.g. to `tools.json` or `tools.yaml`) and run `mcpgen new` again";
    let name = component.to_str().ok_or_else(|| {
        Error::new(format!(
            "the manifest's file name {component:?} is not valid UTF-8"
        ))
        .with_hint(rename)
    })?;
    if let Some(c) = name.chars().find(|c| escape::is_invisible(*c)) {
        let what = if c.is_control() {
            "the control character"
        } else {
            "the invisible or direction-changing character"
        };
        return Err(Error::new(format!(
            "the manifest's file name {} holds {what} U+{:04X}, which the scaffolded crate cannot carry through \
             build.rs and the generated files",
            escape::rust_str(name),
            c as u32
        ))
        .with_hint(rename));
    }
    let taken = TEMPLATES
        .iter()
        .map(|(p, _)| *p)
        .chain(OTHER_FILES.iter().copied())
        .any(|p| p == name);
    if taken {
        return Err(Error::new(format!(
            "the manifest's file name `{name}` is also a file of the scaffolded crate"
        ))
        .with_hint(rename));
    }
    Ok(name.to_owned())
}

/// A path as text for a dependency, refused when it is not UTF-8.
fn utf8_path(path: &Path) -> Result<&str> {
    path.to_str().ok_or_else(|| {
        Error::new(format!(
            "the path {} is not valid UTF-8, so Cargo.toml cannot name it",
            path.display()
        ))
        .with_hint("move the mcpgen checkout to a UTF-8 path, or pass --mcpgen-version")
    })
}

/// One line for a doc comment: the first sentence-ish line of a
/// description, whitespace collapsed.
fn summary(tool: &serde_json::Value) -> String {
    let text = tool
        .get("description")
        .and_then(|d| d.as_str())
        .unwrap_or_default();
    let line = text
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or_default();
    let mut out: String = line.split_whitespace().collect::<Vec<_>>().join(" ");
    if out.chars().count() > 160 {
        out = out.chars().take(157).collect::<String>() + "...";
    }
    out
}

/// Checks that generated Rust names are what they claim to be, so that
/// they are safe to paste into code unescaped.
fn check_rust<T: syn::parse::Parse>(text: &str, what: &str) -> Result<()> {
    syn::parse_str::<T>(text).map(drop).map_err(|e| {
        Error::new(format!(
            "the generated {what} `{}` is not valid Rust: {e}",
            escape::line_comment(text)
        ))
        .with_hint("this is a bug in mcpgen")
    })
}

/// Checks that every rendered file parses as what it is (TOML, Rust), so
/// a value that escaped its context is caught here rather than by cargo.
fn check_rendered(path: &str, text: &str) -> Result<()> {
    let problem = if path.ends_with(".toml") {
        text.parse::<toml::Table>().err().map(|e| e.to_string())
    } else if path.ends_with(".rs") {
        syn::parse_file(text).err().map(|e| e.to_string())
    } else {
        None
    };
    match problem {
        Some(p) => Err(
            Error::new(format!("the scaffolded {path} does not parse: {p}"))
                .with_hint("this is a bug in mcpgen"),
        ),
        None => Ok(()),
    }
}

/// The rendered crate.
#[derive(Debug, Clone)]
pub struct Rendered {
    /// `(relative path, contents)` of every file.
    pub files: Vec<(String, String)>,
    /// Non-fatal problems of the tool types (a property typed as JSON
    /// because its schema could not be converted), with file and pointer.
    pub warnings: Vec<Error>,
    /// Tools the scaffolded test does not call because no arguments valid
    /// against their `inputSchema` were found: `(tool, why)`.
    pub skipped: Vec<(String, String)>,
}

/// What the scaffolded test calls.
struct Calls {
    /// One entry per tool, in manifest order.
    calls: Vec<CallView>,
    /// The call with invalid arguments, when one was found.
    invalid: Option<InvalidView>,
    /// Why there is none, when there is none.
    no_invalid: String,
    /// `(tool, why)` of the tools that are not called.
    skipped: Vec<(String, String)>,
}

/// The scaffolded test's table of calls and its invalid call, from each
/// tool's `inputSchema` in the dialect the server uses for `protocol`.
fn calls(tools: &[codegen::tools::ToolBinding], manifest: &Manifest, protocol: &str) -> Calls {
    let draft = mcpgen_runtime::schema::default_draft(protocol);
    let mut out = Calls {
        calls: Vec::new(),
        invalid: None,
        no_invalid: String::new(),
        skipped: Vec::new(),
    };
    for (index, tool) in tools.iter().enumerate() {
        let bound = manifest
            .tools
            .get(index)
            .is_some_and(|t| t.settings.http.is_some());
        let schema = tool
            .tool
            .get("inputSchema")
            .cloned()
            .unwrap_or(serde_json::Value::Null);
        let valid = synth::valid_arguments(&schema, draft);
        let task = tool
            .tool
            .pointer("/execution/taskSupport")
            .and_then(serde_json::Value::as_str)
            == Some("required");
        // The invalid call goes to a tool that answers it at once.
        if out.invalid.is_none() && !task {
            if let Some((arguments, why)) =
                synth::invalid_arguments(&schema, draft, valid.as_ref().ok())
            {
                out.invalid = Some(InvalidView {
                    name: Text::new(&tool.name),
                    arguments: escape::rust_raw_str(&escape::json_text(&arguments)),
                    why: Text::new(&why),
                });
            }
        }
        out.calls.push(match valid {
            Ok(arguments) => CallView {
                name: Text::new(&tool.name),
                arguments: Some(escape::rust_raw_str(&escape::json_text(&arguments))),
                skip: None,
                task,
                bound,
            },
            Err(why) => {
                out.skipped.push((tool.name.clone(), why.clone()));
                CallView {
                    name: Text::new(&tool.name),
                    arguments: None,
                    skip: Some(Text::new(&why)),
                    task,
                    bound,
                }
            }
        });
    }
    out.no_invalid = if tools.is_empty() {
        "the manifest has no tools".to_owned()
    } else {
        "every inputSchema accepted each invalid object tried (missing, mistyped and undeclared properties)".to_owned()
    };
    out
}

/// `n` and `word`, with an `s` unless there is one.
fn counted(n: usize, word: &str) -> String {
    format!("{n} {word}{}", if n == 1 { "" } else { "s" })
}

/// What the manifest offers, counted, for prose: its tools (always) and
/// the prompts, templates and static resources it has.
fn offers(m: &Manifest) -> String {
    let mut parts = vec![counted(m.tools.len(), "tool")];
    for (n, word) in [
        (m.prompts.len(), "prompt"),
        (m.resource_templates.len(), "resource template"),
        (m.resources.len(), "static resource"),
    ] {
        if n > 0 {
            parts.push(counted(n, word));
        }
    }
    match parts.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
        _ => parts.concat(),
    }
}

/// The "not implemented yet" message of a stub: `what` (`tool `x``) and
/// the method to implement.
fn not_implemented(what: &str, method: &str) -> String {
    format!("{what} is not implemented yet: implement `Tools::{method}` in src/main.rs")
}

/// The stubs of the `Handler` methods for prompts, resource templates and
/// static resources, with the names the server generator gives them.
fn surface_methods(m: &Manifest) -> Result<Vec<SurfaceMethodView>> {
    use codegen::surface::ServedItem;
    let mut views = Vec::new();
    for h in codegen::surface::handler_methods(m) {
        check_rust::<syn::Ident>(&h.method, "method name")?;
        check_rust::<syn::Ident>(&h.param_type, "parameter type name")?;
        let name = h
            .declared
            .map(|d| {
                if d.name.is_empty() {
                    d.key.as_str()
                } else {
                    d.name.as_str()
                }
            })
            .unwrap_or_default();
        let summary = h.declared.map(|d| summary(&d.declared)).unwrap_or_default();
        let (what, param, output_type, not_implemented) = match h.kind {
            ServedItem::Prompt => (
                "Prompt",
                "_args",
                "Vec<protocol::PromptMessage>",
                escape::rust_str(&not_implemented(&format!("prompt `{name}`"), &h.method)),
            ),
            ServedItem::Template => (
                "Resource template",
                "_params",
                "protocol::ReadResourceResult",
                escape::rust_str(&not_implemented(
                    &format!("resource template `{name}`"),
                    &h.method,
                )),
            ),
            // A format string: the method is an identifier, so it holds no
            // brace besides the URI's `{}`.
            ServedItem::StaticResources => (
                "Reads one of the static resources.",
                "resource",
                "protocol::ReadResourceResult",
                escape::rust_str(&not_implemented("resource `{}`", &h.method)),
            ),
        };
        views.push(SurfaceMethodView {
            prompt: h.kind == ServedItem::Prompt,
            statics: h.kind == ServedItem::StaticResources,
            what,
            name: h.declared.map(|_| Text::new(name)),
            summary: (!summary.is_empty()).then(|| Text::new(&summary)),
            method: h.method,
            param_type: h.param_type,
            param,
            output_type,
            not_implemented,
        });
    }
    Ok(views)
}

/// What the scaffolded test asks of the prompts and resources: each
/// prompt with its required arguments (`example`), each static resource,
/// and each template expanded with every variable `example` (when that URI
/// matches the template back).
fn surface_calls(m: &Manifest) -> (Vec<PromptCallView>, Vec<Text>, Vec<ReadView>) {
    use mcpgen_runtime::uri_template::UriTemplate;
    let example =
        |names: Vec<(String, bool)>, all: bool| -> serde_json::Map<String, serde_json::Value> {
            names
                .into_iter()
                .filter(|(_, required)| all || *required)
                .map(|(n, _)| (n, "example".into()))
                .collect()
        };
    let prompts = m
        .prompts
        .iter()
        .map(|d| PromptCallView {
            name: Text::new(&d.name),
            arguments: escape::rust_raw_str(&escape::json_text(&serde_json::Value::Object(
                example(d.arguments(), false),
            ))),
        })
        .collect();
    let resources = m.resources.iter().map(|d| Text::new(&d.key)).collect();
    let templates = m
        .resource_templates
        .iter()
        .map(|d| {
            let uri = UriTemplate::parse(&d.key)
                .ok()
                .map(|t| (t.expand(&example(d.variables(), true)), t))
                .filter(|(uri, t)| t.matches(uri).is_some())
                .map(|(uri, _)| Text::new(&uri));
            ReadView {
                declared: Text::new(&d.key),
                uri,
            }
        })
        .collect();
    (prompts, resources, templates)
}

/// The JSON manifest `text` with its top-level `x-mcpgen.toolSurface` set
/// (other members and their order kept); a YAML manifest is left to its
/// author, with a hint.
fn with_tool_surface(
    text: &str,
    file: &str,
    surface: crate::manifest::ToolSurface,
) -> Result<String> {
    let lower = file.to_ascii_lowercase();
    if lower.ends_with(".yaml") || lower.ends_with(".yml") {
        return Err(Error::new(format!(
            "`--tool-surface` rewrites JSON manifests only; {file} is YAML"
        ))
        .with_hint(
            "write `x-mcpgen: {toolSurface: search}` at the top of the YAML manifest instead",
        ));
    }
    let mut document: serde_json::Value = serde_json::from_str(text.trim_start_matches('\u{feff}'))
        .map_err(|e| Error::new(format!("invalid JSON: {e}")).in_file(file))?;
    let Some(top) = document.as_object_mut() else {
        return Err(Error::new("a manifest must be an object with a `tools` array").in_file(file));
    };
    let settings = top
        .entry(crate::manifest::SETTINGS_KEY)
        .or_insert_with(|| serde_json::json!({}));
    let Some(settings) = settings.as_object_mut() else {
        return Err(Error::new("the top-level `x-mcpgen` must be an object")
            .in_file(file)
            .at_pointer("/x-mcpgen"));
    };
    settings.insert(
        "toolSurface".into(),
        serde_json::to_value(surface).unwrap_or_default(),
    );
    let mut out = serde_json::to_string_pretty(&document)
        .map_err(|e| Error::new(format!("cannot write the manifest: {e}")))?;
    out.push('\n');
    Ok(out)
}

/// Renders every file of the new crate in memory.
pub fn render(new: &NewCrate) -> Result<Rendered> {
    let crate_name = crate_name(&new.dir)?;
    if new.auth_jwt && new.transport != Transport::Http {
        return Err(Error::new(
            "`--auth jwt` needs `--transport http`: bearer tokens travel in HTTP headers",
        ));
    }
    let (manifest_file, manifest_text) = match &new.source {
        ToolSource::Manifest(path) => (
            manifest_file_name(path)?,
            std::fs::read_to_string(path).map_err(|e| Error::io("read manifest", path, e))?,
        ),
        ToolSource::OpenApi(path, options) => (
            IMPORTED_MANIFEST.to_owned(),
            imported_manifest(path, options)?,
        ),
    };
    let manifest_text = match new.tool_surface {
        Some(surface) => with_tool_surface(&manifest_text, &manifest_file, surface)?,
        None => manifest_text,
    };
    let manifest_path = match &new.source {
        ToolSource::Manifest(path) => path.display().to_string(),
        ToolSource::OpenApi(..) => manifest_file.clone(),
    };
    let manifest = Manifest::from_str(&manifest_text, &manifest_path)?;
    let schema = stage(new.store.resolve(&new.protocol, None), ErrorKind::Schema)?;
    // The check the crate's build script will run (`crate::check`).
    let report = crate::check::against(&manifest, &schema);
    let tools = match report.tools {
        Some(tools) if report.off_spec.is_empty() => tools,
        _ => {
            let problems = report.into_errors();
            let mut e = problems
                .first()
                .cloned()
                .unwrap_or_else(|| Error::new("the manifest has problems"));
            e.hint = Some(format!(
                "{} problem(s) in the manifest; see them all with `mcpgen manifest check {}`",
                problems.len(),
                manifest_path
            ));
            return Err(e);
        }
    };
    let spec = stage(
        Spec::from_json(&schema.json, &schema.revision),
        ErrorKind::Schema,
    )?;
    let content: String = codegen::protocol::tool_content_type(&spec)
        .to_string()
        .split_whitespace()
        .collect();

    let mut tool_views = Vec::new();
    for (index, b) in tools.tools.iter().enumerate() {
        let output_type = match &b.output {
            Some(o) => format!("tools::{o}"),
            None if content.starts_with("::") => format!("Vec<{content}>"),
            None => format!("Vec<protocol::{content}>"),
        };
        check_rust::<syn::Ident>(&b.method, "method name")?;
        check_rust::<syn::Ident>(&b.input, "input type name")?;
        check_rust::<syn::Type>(&output_type, "output type")?;
        let summary = summary(&b.tool);
        tool_views.push(ToolView {
            name: Text::new(&b.name),
            method: b.method.clone(),
            input: b.input.clone(),
            output_type,
            summary: (!summary.is_empty()).then(|| Text::new(&summary)),
            not_implemented: escape::rust_str(&not_implemented(
                &format!("tool `{}`", b.name),
                &b.method,
            )),
            bound: manifest
                .tools
                .get(index)
                .is_some_and(|t| t.settings.http.is_some()),
        });
    }
    let upstream = tool_views.iter().any(|t| t.bound);
    let all_bound = tool_views.iter().all(|t| t.bound);
    let mut upstream_env: Vec<String> = manifest
        .tools
        .iter()
        .filter_map(|t| t.settings.http.as_ref())
        .flat_map(|h| h.security.iter().flatten())
        .flat_map(|scheme| {
            let env = scheme.env.clone();
            match (scheme.kind, &scheme.token_url) {
                (mcpgen_runtime::upstream::SchemeKind::Oauth2, Some(_)) => {
                    vec![format!("{env}_CLIENT_ID"), format!("{env}_CLIENT_SECRET")]
                }
                (mcpgen_runtime::upstream::SchemeKind::Unsupported, _) => Vec::new(),
                _ => vec![env],
            }
        })
        .collect();
    upstream_env.sort();
    upstream_env.dedup();
    let surface_views = surface_methods(&manifest)?;
    let (prompt_calls, resource_reads, template_reads) = surface_calls(&manifest);
    let mut imports = Vec::new();
    if !surface_views.is_empty() {
        imports.push("HandlerError");
    }
    let stubs = tool_views.iter().any(|t| !t.bound);
    if stubs || !surface_views.is_empty() {
        imports.push("RequestContext");
    }
    if stubs {
        imports.push("ToolError");
    }
    if upstream {
        imports.push("upstream::Upstream");
    }
    let imports = imports.join(", ");
    let mut modules = Vec::new();
    if !surface_views.is_empty()
        || tool_views
            .iter()
            .any(|t| !t.bound && t.output_type.contains("protocol::"))
    {
        modules.push("protocol");
    }
    modules.push("server");
    if stubs || !surface_views.is_empty() {
        modules.push("tools");
    }
    let modules = modules.join(", ");
    let bindings_ident = format!("{}_bindings", crate_name.replace('-', "_"));
    check_rust::<syn::Ident>(&bindings_ident, "bindings crate name")?;
    let Calls {
        calls,
        invalid,
        no_invalid,
        skipped,
    } = calls(&tools.tools, &manifest, &new.protocol);
    let stateless = mcpgen_runtime::revision::nearest(&new.protocol).era
        == mcpgen_runtime::revision::Era::Stateless;
    let param_headers = tools
        .tools
        .iter()
        .flat_map(|b| {
            let schema = b.tool.get("inputSchema").cloned().unwrap_or_default();
            mcpgen_runtime::transport::http::param_headers(&schema)
                .into_iter()
                .map(move |p| ParamHeaderView {
                    tool: Text::new(&b.name),
                    header: Text::new(&p.header),
                    path: p.path.iter().map(|k| Text::new(k)).collect(),
                })
        })
        .collect();
    let (mcpgen_dep_toml, runtime_dep_toml) = match &new.deps {
        DepSource::Path(root) => (
            format!("path = {}", escape::toml_str(utf8_path(root)?)),
            format!(
                "path = {}",
                escape::toml_str(utf8_path(&root.join("runtime"))?)
            ),
        ),
        DepSource::Version(v) => (
            format!("version = {}", escape::toml_str(v)),
            format!("version = {}", escape::toml_str(v)),
        ),
    };
    // A stdio server leaves out the runtime's Streamable HTTP transport
    // (hyper); build.rs then generates no HTTP entry points either.
    // Tools that call an HTTP API need the runtime's HTTP client
    // (`upstream`), with TLS for `https://` APIs.
    let runtime_dep_toml = match (new.transport, upstream) {
        (Transport::Stdio, false) => format!("{runtime_dep_toml}, default-features = false"),
        (Transport::Stdio, true) => format!(
            "{runtime_dep_toml}, default-features = false, features = [\"upstream\", \"tls\"]"
        ),
        (Transport::Http, _) if new.auth_jwt => format!(
            "{runtime_dep_toml}, features = [\"oauth\"{}]",
            if upstream { ", \"upstream\"" } else { "" }
        ),
        (Transport::Http, true) => format!("{runtime_dep_toml}, features = [\"upstream\"]"),
        (Transport::Http, false) => runtime_dep_toml,
    };
    let url = format!("http://{DEFAULT_LISTEN}/mcp");
    let command = format!("/path/to/{crate_name}/target/release/{crate_name}");
    let (key, value) = match new.transport {
        Transport::Stdio => ("command", command),
        Transport::Http => ("url", url.clone()),
    };
    let client_config_json = format!(
        "{{\n  \"mcpServers\": {{\n    {}: {{\n      \"{key}\": {}\n    }}\n  }}\n}}",
        escape::json_str(&crate_name),
        escape::json_str(&value)
    );
    let part_count = new
        .tool_parts
        .unwrap_or_else(|| tools.tools.len().div_ceil(TOOLS_PER_PART))
        .clamp(1, tools.tools.len().max(1));
    let split = part_count > 1;
    let shared_ident = format!("{bindings_ident}_shared");
    check_rust::<syn::Ident>(&shared_ident, "shared crate name")?;
    let parts = if split {
        (1..=part_count)
            .map(|number| {
                let ident = format!("{bindings_ident}_part_{number}");
                check_rust::<syn::Ident>(&ident, "part crate name")?;
                Ok(PartView {
                    number,
                    name: Text::new(&format!("{crate_name}-bindings-part-{number}")),
                    ident,
                    description: Text::new(&format!(
                        "Part {number} of {part_count} of the generated tool types of {crate_name}"
                    )),
                    dir: Text::new(&format!("part-{number}")),
                    member: Text::new(&format!("bindings/part-{number}")),
                })
            })
            .collect::<Result<Vec<_>>>()?
    } else {
        Vec::new()
    };
    let view = View {
        crate_name: Text::new(&crate_name),
        description: Text::new(&format!(
            "MCP server for the tools of {manifest_file}, generated by mcpgen"
        )),
        manifest_file: Text::new(&manifest_file),
        protocol: Text::new(&new.protocol),
        bin_env: Text::new(&format!("CARGO_BIN_EXE_{crate_name}")),
        bindings_name: Text::new(&format!("{crate_name}-bindings")),
        bindings_ident,
        bindings_description: Text::new(&format!(
            "Generated MCP bindings of {crate_name} for the tools of {manifest_file}"
        )),
        manifest_from_bindings: Text::new(&format!("../{manifest_file}")),
        build_script: Text::new(if split {
            "bindings/shared/build.rs"
        } else {
            "bindings/build.rs"
        }),
        split,
        part_count,
        parts,
        shared_name: Text::new(&format!("{crate_name}-bindings-shared")),
        shared_ident,
        shared_description: Text::new(&format!(
            "Generated MCP tool types of {crate_name} shared by its parts, for the tools of {manifest_file}"
        )),
        manifest_from_shared: Text::new(&format!("../../{manifest_file}")),
        modules,
        client_name: Text::new(&format!("{crate_name}-test")),
        offers: offers(&manifest),
        imports,
        tools: tool_views,
        any_surface: !surface_views.is_empty(),
        surface: surface_views,
        prompt_calls,
        resource_reads,
        template_reads,
        calls,
        invalid,
        no_invalid: Text::new(&no_invalid),
        mcpgen_dep_toml,
        runtime_dep_toml,
        client_config_json,
        http: new.transport == Transport::Http,
        auth_jwt: new.auth_jwt,
        stateless,
        param_headers,
        transport: match new.transport {
            Transport::Stdio => "stdio",
            Transport::Http => "Streamable HTTP",
        },
        listen: Text::new(DEFAULT_LISTEN),
        url: Text::new(&url),
        upstream,
        all_bound,
        upstream_env: upstream_env.iter().map(|v| Text::new(v)).collect(),
        search_listed: (manifest.settings.tool_surface == crate::manifest::ToolSurface::Search)
            .then(|| {
                let own = [
                    mcpgen_runtime::server::search::SEARCH_TOOLS,
                    mcpgen_runtime::server::search::CALL_TOOL,
                ];
                let pinned = manifest.settings.pinned_tools.iter().map(String::as_str);
                pinned.chain(own).map(Text::new).collect()
            }),
    };

    let mut hb = Handlebars::new();
    hb.set_strict_mode(true);
    // Every value is escaped for its context beforehand (see `Text`);
    // handlebars' HTML escaping would be wrong in all of them.
    hb.register_escape_fn(handlebars::no_escape);
    let render = |path: &str, template: &str, data: &serde_json::Value| {
        let text = hb.render_template(template, data).map_err(|e| {
            Error::new(format!("template for {path}: {e}")).with_hint("this is a bug in mcpgen")
        })?;
        check_rendered(path, &text)?;
        Ok::<_, Error>((path.to_owned(), text))
    };
    let mut data = serde_json::to_value(&view).map_err(|e| {
        Error::new(format!("scaffold data: {e}")).with_hint("this is a bug in mcpgen")
    })?;
    let mut files = Vec::new();
    for (path, template) in TEMPLATES {
        // Split bindings are generated by the shared crate's build script.
        if !(split && *path == "bindings/build.rs") {
            files.push(render(path, template, &data)?);
        }
    }
    if split {
        for (path, template) in SHARED_TEMPLATES {
            files.push(render(path, template, &data)?);
        }
        for number in 1..=part_count {
            data["part"] = data["parts"][number - 1].clone();
            for (file, template) in PART_TEMPLATES {
                files.push(render(
                    &format!("bindings/part-{number}/{file}"),
                    template,
                    &data,
                )?);
            }
        }
    }
    files.push((manifest_file, manifest_text));
    if let DepSource::Path(root) = &new.deps {
        // The workspace's lock file pins the same dependency versions, so
        // the new crate builds offline from what is already downloaded.
        if let Ok(lock) = std::fs::read_to_string(root.join("Cargo.lock")) {
            files.push(("Cargo.lock".to_owned(), lock));
        }
    }
    files.push((".gitignore".to_owned(), "/target\n".to_owned()));
    Ok(Rendered {
        files,
        warnings: tools.warnings,
        skipped,
    })
}

/// How the build script of a crate scaffolded with the bindings inside
/// begins.
const OLD_BUILD_SCRIPT: &str =
    "//! Regenerates the protocol types, tool types and server of this crate from";

/// How the build script of unsplit bindings (`bindings/build.rs`) begins.
const BINDINGS_BUILD_SCRIPT: &str =
    "//! Regenerates the protocol types, tool types and server trait of the\n//! bindings from";

/// Scaffolds the crate: refuses an existing directory unless `force`;
/// writes all files atomically (and, with `force`, removes the build script
/// an earlier scaffold had at the top).
pub fn create(new: &NewCrate) -> Result<Rendered> {
    if new.dir.exists() && !new.force {
        return Err(
            Error::new(format!("{} already exists", new.dir.display())).with_hint(
                "choose another name, or pass --force to overwrite the scaffolded files in it",
            ),
        );
    }
    let rendered = render(new)?;
    emit::write_all(&new.dir, &rendered.files)?;
    // A crate scaffolded before the bindings had a crate of their own ran
    // its build script at the top; replaced, it would not build.
    let old_build = new.dir.join("build.rs");
    if std::fs::read_to_string(&old_build).is_ok_and(|t| t.starts_with(OLD_BUILD_SCRIPT)) {
        std::fs::remove_file(&old_build)
            .map_err(|e| Error::io("remove the old build script", &old_build, e))?;
    }
    // Bindings now split had their build script in `bindings/`; the
    // shared crate's replaces it.
    let bindings_build = new.dir.join("bindings/build.rs");
    let written = rendered.files.iter().any(|(p, _)| p == "bindings/build.rs");
    if !written
        && std::fs::read_to_string(&bindings_build)
            .is_ok_and(|t| t.starts_with(BINDINGS_BUILD_SCRIPT))
    {
        std::fs::remove_file(&bindings_build)
            .map_err(|e| Error::io("remove the old build script", &bindings_build, e))?;
    }
    Ok(rendered)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The shared stitch manifest, or `None` when `test` skips without it.
    fn stitch(test: &str) -> Option<PathBuf> {
        crate::shared_data::shared_data(
            "manifests/stitch.json",
            &format!("scaffold::tests::{test}"),
        )
    }

    fn job(dir: &Path) -> NewCrate {
        NewCrate {
            tool_surface: None,
            dir: dir.to_path_buf(),
            source: ToolSource::Manifest(
                crate::shared_data::shared().join("manifests/stitch.json"),
            ),
            protocol: "2025-11-25".into(),
            force: false,
            deps: DepSource::detect(),
            transport: Transport::Stdio,
            auth_jwt: false,
            tool_parts: None,
            store: Store {
                cache_dir: dir.with_extension("cache"),
                mirror: Some(crate::shared_data::mirror()),
                fetch: None,
            },
        }
    }

    #[test]
    fn renders_every_file_with_one_handler_per_tool() {
        let Some(_stitch) = stitch("renders_every_file_with_one_handler_per_tool") else {
            return;
        };
        let tmp = tempfile::tempdir().unwrap();
        let files = render(&job(&tmp.path().join("stitch-server")))
            .unwrap()
            .files;
        let names: Vec<&str> = files.iter().map(|(p, _)| p.as_str()).collect();
        for want in [
            "Cargo.toml",
            "bindings/Cargo.toml",
            "bindings/build.rs",
            "bindings/src/lib.rs",
            "src/main.rs",
            "tests/tools_list.rs",
            "README.md",
            "stitch.json",
        ] {
            assert!(names.contains(&want), "{names:?}");
        }
        let main = &files.iter().find(|(p, _)| p == "src/main.rs").unwrap().1;
        assert_eq!(main.matches("is not implemented yet").count(), 8, "{main}");
        assert!(main.contains("async fn create_project("));
        assert!(main.contains("tools::CreateProjectInput"));
        // Every stitch tool has an output type: no protocol type is named.
        assert!(
            main.contains("use stitch_server_bindings::{server, tools};"),
            "{main}"
        );
        let cargo = &files[0].1;
        assert!(cargo.contains("name = \"stitch-server\""));
        assert!(cargo.contains("mcpgen-runtime = { path = "), "{cargo}");
        assert!(
            cargo.contains("\"stitch-server-bindings\" = { path = \"bindings\" }"),
            "{cargo}"
        );
        let bindings = &files
            .iter()
            .find(|(p, _)| p == "bindings/Cargo.toml")
            .unwrap()
            .1;
        assert!(
            bindings.contains("name = \"stitch-server-bindings\""),
            "{bindings}"
        );
        let build = &files
            .iter()
            .find(|(p, _)| p == "bindings/build.rs")
            .unwrap()
            .1;
        assert!(build.contains(".manifest(\"../stitch.json\")"));
        assert!(build.contains(".protocol(\"2025-11-25\")"));
    }

    #[test]
    fn split_bindings_get_a_shared_crate_that_generates_and_a_crate_per_part() {
        let Some(_stitch) =
            stitch("split_bindings_get_a_shared_crate_that_generates_and_a_crate_per_part")
        else {
            return;
        };
        let tmp = tempfile::tempdir().unwrap();
        let file = |files: &[(String, String)], path: &str| {
            files
                .iter()
                .find(|(p, _)| p == path)
                .map(|(_, text)| text.clone())
                .unwrap_or_else(|| panic!("no {path}"))
        };
        let mut split = job(&tmp.path().join("stitch-server"));
        split.tool_parts = Some(2);
        let files = render(&split).unwrap().files;
        let names: Vec<&str> = files.iter().map(|(p, _)| p.as_str()).collect();
        assert!(!names.contains(&"bindings/build.rs"), "{names:?}");
        let build = file(&files, "bindings/shared/build.rs");
        assert!(
            build.contains(".manifest(\"../../stitch.json\")"),
            "{build}"
        );
        assert!(build.contains(".tool_parts(2)"), "{build}");
        let part = file(&files, "bindings/part-2/src/lib.rs");
        assert!(
            part.contains("stitch_server_bindings_shared::include_tool_part!(2);"),
            "{part}"
        );
        assert!(!names.contains(&"bindings/part-3/src/lib.rs"), "{names:?}");
        let part_cargo = file(&files, "bindings/part-1/Cargo.toml");
        assert!(
            part_cargo.contains("\"stitch-server-bindings-shared\" = { path = \"../shared\" }"),
            "{part_cargo}"
        );
        let lib = file(&files, "bindings/src/lib.rs");
        assert!(
            lib.contains(
                "include_bindings!(\n    stitch_server_bindings_part_1,\n    stitch_server_bindings_part_2,\n);"
            ),
            "{lib}"
        );
        let bindings = file(&files, "bindings/Cargo.toml");
        assert!(bindings.contains("build = false"), "{bindings}");
        assert!(!bindings.contains("[build-dependencies]"), "{bindings}");
        let workspace = file(&files, "Cargo.toml");
        assert!(
            workspace.contains(
                "members = [\"bindings\", \"bindings/shared\", \"bindings/part-1\", \"bindings/part-2\"]"
            ),
            "{workspace}"
        );
        let readme = file(&files, "README.md");
        assert!(readme.contains("`bindings/shared/build.rs`"), "{readme}");
        assert!(
            readme.contains("split over `bindings/shared/` and 2 part"),
            "{readme}"
        );
        // More parts than tools: one per tool. One part: no split.
        split.tool_parts = Some(99);
        let files = render(&split).unwrap().files;
        assert!(file(&files, "bindings/shared/build.rs").contains(".tool_parts(8)"));
        split.tool_parts = Some(1);
        let files = render(&split).unwrap().files;
        assert!(files.iter().any(|(p, _)| p == "bindings/build.rs"));
        assert!(!files.iter().any(|(p, _)| p.starts_with("bindings/shared/")));
    }

    #[test]
    fn offers_counts_what_the_manifest_declares() {
        let m = |text: &str| Manifest::from_str(text, "m.json").unwrap();
        assert_eq!(offers(&m(r#"{"tools": []}"#)), "0 tools");
        let one = r#"{"tools": [{"name": "a", "inputSchema": {"type": "object"}}], "prompts": [{"name": "p"}]}"#;
        assert_eq!(offers(&m(one)), "1 tool and 1 prompt");
        let all = r#"{"tools": [], "prompts": [{"name": "p"}, {"name": "q"}],
            "resourceTemplates": [{"uriTemplate": "a://{x}", "name": "t"}], "resources": [{"uri": "a://b", "name": "b"}]}"#;
        assert_eq!(
            offers(&m(all)),
            "0 tools, 2 prompts, 1 resource template and 1 static resource"
        );
    }

    #[test]
    fn stubs_every_prompt_template_and_the_static_resources() {
        let tmp = tempfile::tempdir().unwrap();
        let manifest = tmp.path().join("surface.json");
        std::fs::write(
            &manifest,
            r#"{"tools": [], "prompts": [{"name": "review", "arguments": [{"name": "code", "required": true}, {"name": "style"}]}],
                "resourceTemplates": [{"uriTemplate": "notes://{folder}/{name}", "name": "note"}],
                "resources": [{"uri": "notes://index", "name": "index"}]}"#,
        )
        .unwrap();
        let mut j = job(&tmp.path().join("s"));
        j.source = ToolSource::Manifest(manifest);
        let files = render(&j).unwrap().files;
        let file = |name: &str| files.iter().find(|(p, _)| p == name).unwrap().1.clone();
        let main = file("src/main.rs");
        assert!(
            main.contains("use mcpgen_runtime::{HandlerError, RequestContext};"),
            "{main}"
        );
        assert!(
            main.contains(
                "async fn prompt_review(\n        &self,\n        _args: tools::ReviewArgs,"
            ),
            "{main}"
        );
        assert!(
            main.contains("_uri: String,\n        _params: tools::NoteParams,"),
            "{main}"
        );
        assert!(main.contains("resource: tools::StaticResource,"), "{main}");
        assert_eq!(main.matches("is not implemented yet").count(), 3, "{main}");
        let test = file("tests/tools_list.rs");
        // Only the required argument; the template read at its expansion.
        assert!(
            test.contains(r##"("review", r#"{"code":"example"}"#),"##),
            "{test}"
        );
        assert!(
            test.contains(r#"("notes://{folder}/{name}", Some("notes://example/example")),"#),
            "{test}"
        );
        assert!(test.contains(r#"    "notes://index","#), "{test}");
    }

    #[test]
    fn version_dependencies_when_asked() {
        let Some(_stitch) = stitch("version_dependencies_when_asked") else {
            return;
        };
        let tmp = tempfile::tempdir().unwrap();
        let mut j = job(&tmp.path().join("s"));
        j.deps = DepSource::Version("0.1".into());
        let files = render(&j).unwrap().files;
        let bindings = &files
            .iter()
            .find(|(p, _)| p == "bindings/Cargo.toml")
            .unwrap()
            .1;
        assert!(
            bindings.contains("mcpgen = { version = \"0.1\", default-features = false }"),
            "{bindings}"
        );
        assert!(
            bindings.contains("mcpgen-runtime = { version = \"0.1\", default-features = false }"),
            "{bindings}"
        );
        assert!(!files.iter().any(|(p, _)| p == "Cargo.lock"));
    }

    #[test]
    fn refuses_an_existing_dir_unless_forced() {
        let Some(_stitch) = stitch("refuses_an_existing_dir_unless_forced") else {
            return;
        };
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("taken");
        std::fs::create_dir(&dir).unwrap();
        std::fs::write(dir.join("keep.txt"), "mine").unwrap();
        let err = create(&job(&dir)).unwrap_err();
        assert!(err.to_string().contains("already exists"), "{err}");
        assert!(err.to_string().contains("--force"), "{err}");
        assert!(!dir.join("Cargo.toml").exists());
        let mut forced = job(&dir);
        forced.force = true;
        create(&forced).unwrap();
        assert!(dir.join("Cargo.toml").exists());
        assert_eq!(
            std::fs::read_to_string(dir.join("keep.txt")).unwrap(),
            "mine"
        );
        // Forced again with the tool types split: the unsplit bindings'
        // build script goes, the shared crate's takes its place.
        assert!(dir.join("bindings/build.rs").is_file());
        forced.tool_parts = Some(2);
        create(&forced).unwrap();
        assert!(!dir.join("bindings/build.rs").exists());
        assert!(dir.join("bindings/shared/build.rs").is_file());
    }

    #[test]
    fn bad_crate_names_are_refused() {
        assert!(crate_name(Path::new("/tmp/9lives")).is_err());
        assert!(crate_name(Path::new("/tmp/a b")).is_err());
        assert!(crate_name(Path::new("/tmp/a\"b")).is_err());
        assert_eq!(
            crate_name(Path::new("x/my_server-2")).unwrap(),
            "my_server-2"
        );
        for (name, why) in [
            ("fn", "Rust keyword"),
            ("self", "Rust keyword"),
            ("Self", "Rust keyword"),
            ("async", "Rust keyword"),
            ("test", "built-in `test` library"),
            ("std", "standard library"),
            ("proc-macro", "`proc_macro`"),
            ("build", "cargo reserves"),
            ("serde_json", "depends on"),
            ("mcpgen-runtime", "depends on"),
            ("nul", "Windows"),
            ("COM1", "Windows"),
        ] {
            let err = crate_name(&Path::new("/tmp").join(name)).unwrap_err();
            assert!(err.message.contains(why), "{name}: {err}");
            assert!(err.message.contains(&format!("`{name}`")), "{name}: {err}");
            if why != "Windows" {
                assert!(
                    err.hint
                        .as_deref()
                        .unwrap_or_default()
                        .contains(&format!("mcpgen new {name}-server")),
                    "{err:?}"
                );
            }
        }
        for fine in ["fn-server", "tests", "selfish", "com0", "lpt", "console"] {
            assert_eq!(crate_name(&Path::new("/tmp").join(fine)).unwrap(), fine);
        }
        #[cfg(unix)]
        {
            use std::os::unix::ffi::OsStrExt;
            let dir = Path::new("/tmp").join(std::ffi::OsStr::from_bytes(b"bad\xff"));
            assert!(crate_name(&dir).unwrap_err().message.contains("UTF-8"));
        }
    }

    #[test]
    fn manifest_file_names_that_cannot_be_carried_are_refused() {
        assert_eq!(
            manifest_file_name(Path::new("/x/my \"tools\"\\.json")).unwrap(),
            "my \"tools\"\\.json"
        );
        for bad in [
            "a\nb.json",
            "a\rb.json",
            "tab\t.json",
            "nul\u{0}.json",
            "c1\u{85}.json",
            "\u{202E}nosj.exe",
            "zw\u{200B}.json",
        ] {
            let err = manifest_file_name(&Path::new("/x").join(bad)).unwrap_err();
            assert!(err.message.contains("character U+"), "{err}");
            assert!(
                err.hint.as_deref().unwrap_or_default().contains("rename"),
                "{err:?}"
            );
            assert!(!err.message.contains('\n'), "{err}");
        }
        for taken in [
            "Cargo.toml",
            "build.rs",
            "README.md",
            "Cargo.lock",
            ".gitignore",
            "bindings",
            "src",
        ] {
            let err = manifest_file_name(&Path::new("/x").join(taken)).unwrap_err();
            assert!(err.message.contains("also a file"), "{err}");
        }
        #[cfg(unix)]
        {
            use std::os::unix::ffi::OsStrExt;
            let path = Path::new("/x").join(std::ffi::OsStr::from_bytes(b"t\xffools.json"));
            assert!(manifest_file_name(&path)
                .unwrap_err()
                .message
                .contains("not valid UTF-8"));
        }
    }

    /// A manifest under a file name full of quotes, backslashes, `#`,
    /// brackets and backticks renders files that parse to exactly the
    /// intended tables and items.
    #[test]
    fn hostile_file_names_stay_values() {
        let Some(stitch) = stitch("hostile_file_names_stay_values") else {
            return;
        };
        let tmp = tempfile::tempdir().unwrap();
        let name = "x\" ] [dependencies.evil] path = \"tmp\" # \\\" `code` *[a](b)* <b> '''.json";
        let manifest = tmp.path().join(name);
        std::fs::copy(stitch, &manifest).unwrap();
        let mut j = job(&tmp.path().join("s"));
        j.source = ToolSource::Manifest(manifest);
        let files = render(&j).unwrap().files;
        let file = |p: &str| {
            files
                .iter()
                .find(|(f, _)| f == p)
                .map(|(_, t)| t.as_str())
                .unwrap()
        };

        let cargo: toml::Table = file("Cargo.toml").parse().unwrap();
        let keys: Vec<&str> = cargo.keys().map(String::as_str).collect();
        assert_eq!(keys, ["dependencies", "package", "profile", "workspace"]);
        let deps: Vec<&str> = cargo["dependencies"]
            .as_table()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        assert_eq!(
            deps,
            [
                "mcpgen-runtime",
                "s-bindings",
                "serde",
                "serde_json",
                "tokio"
            ]
        );
        let description = cargo["package"]["description"].as_str().unwrap();
        assert_eq!(
            description,
            format!("MCP server for the tools of {name}, generated by mcpgen")
        );
        let bindings: toml::Table = file("bindings/Cargo.toml").parse().unwrap();
        let keys: Vec<&str> = bindings.keys().map(String::as_str).collect();
        assert_eq!(keys, ["build-dependencies", "dependencies", "package"]);
        let description = bindings["package"]["description"].as_str().unwrap();
        assert_eq!(
            description,
            format!("Generated MCP bindings of s for the tools of {name}")
        );

        let build = syn::parse_file(file("bindings/build.rs")).unwrap();
        assert_eq!(build.items.len(), 1);
        assert!(file("bindings/build.rs").contains(&escape::rust_str(&format!("../{name}"))));
        let main = syn::parse_file(file("src/main.rs")).unwrap();
        assert_eq!(
            main.items.len(),
            5,
            "use of the bindings, use, struct, impl, main"
        );
        let test = syn::parse_file(file("tests/tools_list.rs")).unwrap();
        let fns = test
            .items
            .iter()
            .filter(|i| matches!(i, syn::Item::Fn(_)))
            .count();
        assert_eq!(
            fns, 6,
            "result_text, list_all, assert_lists and three tests"
        );
        assert!(
            file("README.md").contains("`x\" ] [dependencies.evil]"),
            "{}",
            file("README.md")
        );
        assert!(files.iter().any(|(p, _)| p == name));
    }

    #[test]
    fn http_transport_serves_and_tests_over_http() {
        let Some(_stitch) = stitch("http_transport_serves_and_tests_over_http") else {
            return;
        };
        let tmp = tempfile::tempdir().unwrap();
        let mut j = job(&tmp.path().join("s"));
        j.transport = Transport::Http;
        let files = render(&j).unwrap().files;
        let file = |p: &str| {
            files
                .iter()
                .find(|(f, _)| f == p)
                .map(|(_, t)| t.as_str())
                .unwrap()
        };
        assert!(
            file("src/main.rs").contains("server::serve_http(Tools, addr).await"),
            "{}",
            file("src/main.rs")
        );
        assert!(file("src/main.rs").contains("const DEFAULT_LISTEN: &str = \"127.0.0.1:8080\";"));
        assert!(file("tests/tools_list.rs").contains(".args([\"--listen\", \"127.0.0.1:0\"])"));
        assert!(
            file("README.md").contains("\"url\": \"http://127.0.0.1:8080/mcp\""),
            "{}",
            file("README.md")
        );
        assert!(
            !file("README.md").contains("cargo run --quiet"),
            "{}",
            file("README.md")
        );
    }

    #[test]
    fn the_test_calls_every_tool_with_valid_arguments() {
        let Some(_stitch) = stitch("the_test_calls_every_tool_with_valid_arguments") else {
            return;
        };
        let tmp = tempfile::tempdir().unwrap();
        let files = render(&job(&tmp.path().join("s"))).unwrap().files;
        let test = &files
            .iter()
            .find(|(p, _)| p == "tests/tools_list.rs")
            .unwrap()
            .1;
        assert!(test.contains("(\"create_project\", r#\"{}\"#),"), "{test}");
        assert!(
            test.contains("(\"list_screens\", r#\"{\"projectId\":\"example\"}\"#),"),
            "{test}"
        );
        assert!(
            test.contains("fn invalid_arguments_get_the_revision_validation_error()"),
            "{test}"
        );
    }
}
