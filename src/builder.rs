//! [`Builder`]: the generation pipeline as a library call, for `build.rs`
//! (in the style of `prost-build` / `tonic-build`) and for `mcpgen
//! generate`, which uses the same code.
//!
//! Pipeline: `store::resolve` → `spec::Spec::from_json` →
//! `codegen::{protocol, tools, server, client}` → `emit::format` →
//! `emit::write_all` (or `emit::check`). Four files are always produced:
//! `protocol.rs`, `tools.rs`, `server.rs` and `client.rs`, each a module
//! body; a part that is not generated is an empty body under its header.
//! With [`Builder::tool_parts`], the tool types are split over more files.
//!
//! ```no_run
//! // build.rs
//! fn main() -> Result<(), Box<dyn std::error::Error>> {
//!     mcpgen::Builder::new()
//!         .protocol("2025-11-25")
//!         .manifest("tools.json")
//!         .compile()?;
//!     Ok(())
//! }
//! ```
//!
//! and in the crate: `mcpgen_runtime::include_generated!();`, which makes
//! the modules `protocol`, `tools`, `server` and `client`.

use std::path::{Path, PathBuf};

use crate::emit::{self, Header, WriteReport};
use crate::error::{stage, Error, ErrorKind, Result};
pub use crate::generator::FILES;
use crate::generator::{Generator, ProtocolTypes};
use crate::manifest::Manifest;
use crate::spec::Spec;
use crate::store::{self, ResolvedSchema, Store};

/// Configures and runs code generation.
#[derive(Debug, Clone)]
pub struct Builder {
    protocol: String,
    manifest: Option<PathBuf>,
    /// An OpenAPI document imported into the manifest instead.
    openapi: Option<PathBuf>,
    schema_file: Option<PathBuf>,
    server: bool,
    client: bool,
    http: bool,
    out_dir: Option<PathBuf>,
    cargo_directives: bool,
    store: Option<Store>,
    protocol_types: ProtocolTypes,
    keep_protocol_types: Vec<String>,
    tool_parts: usize,
}

impl Default for Builder {
    fn default() -> Self {
        Self::new()
    }
}

/// The output of [`Builder::generate`], not yet written.
#[derive(Debug, Clone)]
pub struct Generated {
    /// `(file name, contents)` for each of [`FILES`], then for each part
    /// of the tool types ([`Builder::tool_parts`]).
    pub files: Vec<(String, String)>,
    /// The schema used.
    pub schema: ResolvedSchema,
    /// Non-fatal problems (e.g. a tool property typed as JSON because its
    /// schema could not be converted).
    pub warnings: Vec<Error>,
}

impl Builder {
    /// Protocol revision 2025-11-25, no manifest, server and client on,
    /// the protocol types the generated code uses, output to `$OUT_DIR`.
    pub fn new() -> Self {
        Self {
            protocol: store::DEFAULT_REVISION.to_owned(),
            manifest: None,
            openapi: None,
            schema_file: None,
            server: true,
            client: true,
            http: true,
            out_dir: None,
            cargo_directives: true,
            store: None,
            protocol_types: ProtocolTypes::Used,
            keep_protocol_types: Vec::new(),
            tool_parts: 1,
        }
    }

    /// The protocol revision (`2025-11-25`, …).
    pub fn protocol(mut self, revision: impl Into<String>) -> Self {
        self.protocol = revision.into();
        self
    }

    /// The tool manifest (JSON or YAML). Without one, only protocol types
    /// are generated.
    pub fn manifest(mut self, path: impl AsRef<Path>) -> Self {
        self.openapi = None;
        self.manifest = Some(path.as_ref().to_path_buf());
        self
    }

    /// An OpenAPI document (Swagger 2.0, OpenAPI 3.0 or 3.1; JSON or
    /// YAML) instead of a manifest: it is imported as `mcpgen import
    /// openapi` imports it (every operation a tool), and each tool's
    /// generated handler calls the API unless the `Handler` overrides it.
    pub fn openapi(mut self, path: impl AsRef<Path>) -> Self {
        self.manifest = None;
        self.openapi = Some(path.as_ref().to_path_buf());
        self
    }

    /// Use this schema file instead of the pinned revision (it may be a
    /// draft that is not pinned).
    pub fn schema_file(mut self, path: impl AsRef<Path>) -> Self {
        self.schema_file = Some(path.as_ref().to_path_buf());
        self
    }

    /// Which of the revision's types `protocol.rs` holds. Default
    /// [`ProtocolTypes::Used`]: with a manifest, the types the generated
    /// code names and what they contain, plus those kept with
    /// [`keep_protocol_type`](Self::keep_protocol_type).
    pub fn protocol_types(mut self, which: ProtocolTypes) -> Self {
        self.protocol_types = which;
        self
    }

    /// Generates the protocol type `name` (as `protocol.rs` names it, e.g.
    /// `"CallToolResult"`), and what it contains, even when no generated
    /// code uses it: for handlers that build protocol values of their own.
    /// A name the revision does not have is an error.
    pub fn keep_protocol_type(mut self, name: impl Into<String>) -> Self {
        self.keep_protocol_types.push(name.into());
        self
    }

    /// Whether to generate the server (needs a manifest). Default true.
    pub fn server(mut self, yes: bool) -> Self {
        self.server = yes;
        self
    }

    /// Whether to generate the client (needs a manifest). Default true.
    pub fn client(mut self, yes: bool) -> Self {
        self.client = yes;
        self
    }

    /// Whether the server gets `http_service`/`serve_http` and the client
    /// `connect_http`/`connect_http_with` (Streamable HTTP). Default true.
    /// Without them the generated code builds against mcpgen-runtime with
    /// `default-features = false`, which leaves out hyper: a stdio-only
    /// server compiles 11 crates fewer.
    pub fn http(mut self, yes: bool) -> Self {
        self.http = yes;
        self
    }

    /// Splits the tool types over `count` crates besides a shared one, so
    /// that no one compiler process holds them all: a catalog of hundreds
    /// of tools then builds in a fraction of the memory, and faster on
    /// several cores. Default 1 (no split).
    ///
    /// Tools are cut in manifest order into `count` parts. `tools.rs`
    /// keeps what tools of several parts use (and the rest of the
    /// module); `tools_part_1.rs` … `tools_part_N.rs` hold the rest, each
    /// naming only its own items and the shared ones. [`compile`](Self::compile)
    /// also writes `include.rs`, which the shared crate (the one whose
    /// `build.rs` calls this) includes after its `tools` module:
    ///
    /// ```text
    /// // shared crate's lib.rs
    /// pub mod tools { include!(concat!(env!("OUT_DIR"), "/tools.rs")); }
    /// include!(concat!(env!("OUT_DIR"), "/include.rs"));
    /// // each part's crate (N = 1, 2, …), depending on the shared crate
    /// shared::include_tool_part!(N);
    /// // the crate the server uses, depending on all of them
    /// shared::include_bindings!(part_1, part_2);
    /// ```
    ///
    /// `mcpgen new` lays a large catalog's bindings out this way.
    pub fn tool_parts(mut self, count: usize) -> Self {
        self.tool_parts = count;
        self
    }

    /// Where [`compile`](Self::compile) writes. Default `$OUT_DIR`.
    pub fn out_dir(mut self, dir: impl AsRef<Path>) -> Self {
        self.out_dir = Some(dir.as_ref().to_path_buf());
        self
    }

    /// Whether [`compile`](Self::compile) prints `cargo:rerun-if-changed`
    /// lines (default true; the CLI turns them off).
    pub fn cargo_directives(mut self, yes: bool) -> Self {
        self.cargo_directives = yes;
        self
    }

    /// Resolve schemas through this store instead of
    /// [`Store::from_env`].
    pub fn store(mut self, store: Store) -> Self {
        self.store = Some(store);
        self
    }

    /// The output directory: the configured one, else `$OUT_DIR`.
    pub fn resolved_out_dir(&self) -> Result<PathBuf> {
        if let Some(dir) = &self.out_dir {
            return Ok(dir.clone());
        }
        std::env::var_os("OUT_DIR")
            .map(PathBuf::from)
            .ok_or_else(|| {
                Error::new("no output directory: OUT_DIR is not set")
                    .with_kind(ErrorKind::Usage)
                    .with_hint("call Builder::compile from build.rs, or set one with .out_dir(dir)")
            })
    }

    /// Runs the pipeline in memory.
    pub fn generate(&self) -> Result<Generated> {
        let store = self.store.clone().unwrap_or_else(Store::from_env);
        let schema = stage(
            store.resolve(&self.protocol, self.schema_file.as_deref()),
            ErrorKind::Schema,
        )?;
        let source = match (&schema.source, schema.pinned) {
            (store::Source::Explicit, false) => file_name(&schema.path),
            _ => format!("MCP schema {}", schema.revision),
        };
        let spec = Spec::from_json(&schema.json, &source)
            .map_err(|e| with_file(e, &schema.path).or_kind(ErrorKind::Schema))?;

        let mut header = Header::new().input(format!(
            "protocol revision {} ({}schema sha256 {})",
            schema.revision,
            if schema.pinned { "" } else { "unpinned " },
            schema.sha256
        ));
        let source = self.manifest.as_ref().or(self.openapi.as_ref());
        let mut import_warnings = Vec::new();
        let manifest = match source {
            Some(path) => {
                let bytes = std::fs::read(path).map_err(|e| Error::io("read manifest", path, e))?;
                let what = if self.openapi.is_some() {
                    "openapi"
                } else {
                    "manifest"
                };
                header = header.input(format!(
                    "{what} {} (sha256 {})",
                    file_name(path),
                    store::sha256_hex(&bytes)
                ));
                Some(match &self.openapi {
                    Some(path) => {
                        let (manifest, warnings) = imported(path)?;
                        import_warnings = warnings;
                        manifest
                    }
                    None => stage(Manifest::load(path), ErrorKind::Manifest)?,
                })
            }
            None => None,
        };
        let mut generator = Generator::new(&spec, &schema.revision)
            .protocol_types(self.protocol_types)
            .keep_protocol_types(&self.keep_protocol_types)
            .server(self.server)
            .client(self.client)
            .http(self.http)
            .tool_parts(self.tool_parts);
        if let Some(m) = &manifest {
            generator = generator.manifest(m);
        }
        let header = &header;
        // `server.rs`, `client.rs` and the end of `tools.rs` need only the
        // tools' names: they are written on a second thread while this one
        // checks the manifest and makes its tool types. (Its panic, if any,
        // is raised only when the manifest passed the check; a manifest
        // with problems gets them reported.)
        let (files, off_spec) = std::thread::scope(|scope| {
            let sides = generator.side_work().map(|work| {
                scope.spawn(move || {
                    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| work.run(header)))
                })
            });
            let mut off_spec = Vec::new();
            let mut typed = None;
            if let (Some(path), Some(manifest)) = (source, &manifest) {
                // The check `mcpgen manifest check` runs, every problem at
                // once, before anything is generated. Items the revision
                // does not allow stop a server's generation (it would serve
                // them); a client (of someone else's server) is generated
                // with a warning for each.
                let report = crate::check::against(manifest, &schema);
                let mut problems = report.problems;
                if self.server {
                    problems.extend(report.off_spec);
                } else {
                    off_spec = report.off_spec;
                }
                if !problems.is_empty() {
                    let listed: Vec<String> = problems.iter().map(|p| p.to_string()).collect();
                    return Err(Error::new(format!(
                        "the manifest has {} problem(s):\n  {}",
                        problems.len(),
                        listed.join("\n  ")
                    ))
                    .in_file(path)
                    .with_kind(ErrorKind::Manifest)
                    .with_hint(
                        "fix them (`mcpgen manifest check FILE` lists the same) and generate again",
                    ));
                }
                typed = report.tools;
            }
            let sides = sides.map(|thread| {
                thread
                    .join()
                    .and_then(|caught| caught)
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
            });
            // Handed over, not lent: the tool types' syntax tree is then
            // formatted as it is, not copied.
            Ok((generator.files_with(header, sides, typed)?, off_spec))
        })?;
        let crate::generator::Files {
            files,
            mut warnings,
        } = files;
        warnings.splice(0..0, off_spec);
        warnings.splice(0..0, import_warnings);
        Ok(Generated {
            files,
            schema,
            warnings,
        })
    }

    /// Generates and writes the four files into the output directory,
    /// atomically; in a build script also prints `cargo:rerun-if-changed`
    /// for the manifest and the schema file and `cargo:warning` for each
    /// warning.
    pub fn compile(&self) -> Result<WriteReport> {
        let out_dir = self.resolved_out_dir()?;
        if self.cargo_directives {
            // Printed first so that a failed generation is retried when the
            // inputs change.
            if let Some(m) = self.manifest.as_ref().or(self.openapi.as_ref()) {
                println!("cargo:rerun-if-changed={}", m.display());
            }
            if let Some(s) = &self.schema_file {
                println!("cargo:rerun-if-changed={}", s.display());
            }
            for var in ["MCPGEN_SCHEMA_MIRROR", "MCPGEN_SCHEMA_CACHE"] {
                println!("cargo:rerun-if-env-changed={var}");
            }
        }
        let generated = self.generate()?;
        if self.cargo_directives {
            if self.schema_file.is_none() && generated.schema.path.exists() {
                println!("cargo:rerun-if-changed={}", generated.schema.path.display());
            }
            for w in &generated.warnings {
                println!("cargo:warning={}", w.to_string().replace('\n', " "));
            }
        }
        let mut files = generated.files;
        if self.tool_parts > 1 {
            let header = Header::new().input(format!("{} tool parts", self.tool_parts));
            files.push((
                crate::include::INCLUDE_FILE.to_owned(),
                crate::include::include_file(&out_dir, self.tool_parts, &header)?,
            ));
        }
        emit::write_all(&out_dir, &files)
    }

    /// [`Builder::compile`] for a build script's `main`: on failure the
    /// error goes to stderr (which cargo shows for a failed build script)
    /// and the process exits with status 1.
    pub fn compile_or_exit(&self) -> WriteReport {
        self.compile().unwrap_or_else(|e| {
            eprintln!("error: {e}");
            std::process::exit(1)
        })
    }
}

fn file_name(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| path.display().to_string())
}

fn with_file(mut e: Error, path: &Path) -> Error {
    let has_file = e.location.as_ref().is_some_and(|l| l.file.is_some());
    if !has_file {
        e = e.in_file(path);
    }
    e
}

/// The manifest imported from the OpenAPI document at `path` and the
/// import's warnings; every problem in the message when it cannot be
/// imported.
fn imported(path: &Path) -> Result<(Manifest, Vec<Error>)> {
    let imported = crate::openapi::import(path, &crate::openapi::ImportOptions::default())
        .map_err(|errors| {
            let listed: Vec<String> = errors.iter().map(|e| e.to_string()).collect();
            Error::new(format!(
                "the OpenAPI document has {} problem(s):\n  {}",
                errors.len(),
                listed.join("\n  ")
            ))
            .in_file(path)
            .with_kind(ErrorKind::Manifest)
        })?;
    let text = serde_json::to_string(&imported.manifest)
        .map_err(|e| Error::new(format!("cannot write the imported manifest: {e}")))?;
    let manifest = stage(
        Manifest::from_str(&text, &path.display().to_string()),
        ErrorKind::Manifest,
    )?;
    Ok((manifest, imported.warnings))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mirror_store(cache: &Path) -> Store {
        Store {
            cache_dir: cache.to_path_buf(),
            mirror: Some(crate::shared_data::mirror()),
            fetch: None,
        }
    }

    #[test]
    fn compile_writes_four_files_with_headers() {
        let tmp = tempfile::tempdir().unwrap();
        let out = tmp.path().join("out");
        let report = Builder::new()
            .protocol("2025-06-18")
            .store(mirror_store(&tmp.path().join("cache")))
            .out_dir(&out)
            .cargo_directives(false)
            .compile()
            .unwrap();
        assert_eq!(report.written, FILES);
        for f in FILES {
            let text = std::fs::read_to_string(out.join(f)).unwrap();
            assert!(text.starts_with(emit::GENERATED_MARKER), "{f}");
            assert!(
                text.contains("protocol revision 2025-06-18 (schema sha256 af845e7e"),
                "{f}"
            );
            assert!(!text.contains("//!"), "{f}");
        }
        let protocol = std::fs::read_to_string(out.join("protocol.rs")).unwrap();
        assert!(protocol.contains("pub struct CallToolResult"));
        // Same inputs, same bytes: nothing is rewritten.
        let again = Builder::new()
            .protocol("2025-06-18")
            .store(mirror_store(&tmp.path().join("cache")))
            .out_dir(&out)
            .cargo_directives(false)
            .compile()
            .unwrap();
        assert!(again.written.is_empty());
        assert_eq!(again.unchanged, FILES);
    }

    #[test]
    fn unknown_revision_writes_nothing() {
        let tmp = tempfile::tempdir().unwrap();
        let out = tmp.path().join("out");
        let err = Builder::new()
            .protocol("2030-01-01")
            .store(mirror_store(&tmp.path().join("cache")))
            .out_dir(&out)
            .cargo_directives(false)
            .compile()
            .unwrap_err();
        assert!(
            err.to_string().contains("unknown protocol revision"),
            "{err}"
        );
        assert_eq!(err.kind(), crate::ErrorKind::Schema);
        assert!(!out.exists());
    }

    #[test]
    fn errors_say_which_input_failed_and_keep_their_cause() {
        let tmp = tempfile::tempdir().unwrap();
        let builder = Builder::new().store(mirror_store(tmp.path()));
        // A manifest that is not there: an I/O error, with the io::Error
        // as its source.
        let err = builder
            .clone()
            .manifest(tmp.path().join("absent.json"))
            .generate()
            .unwrap_err();
        assert_eq!(err.kind(), crate::ErrorKind::Io, "{err}");
        let io = std::error::Error::source(&err).and_then(|s| s.downcast_ref::<std::io::Error>());
        assert_eq!(
            io.map(std::io::Error::kind),
            Some(std::io::ErrorKind::NotFound),
            "{err}"
        );
        // A manifest that does not parse, and one that parses with a problem.
        let broken = tmp.path().join("broken.json");
        std::fs::write(&broken, "{\"tools\": [").unwrap();
        let err = builder.clone().manifest(&broken).generate().unwrap_err();
        assert_eq!(err.kind(), crate::ErrorKind::Manifest, "{err}");
        assert!(std::error::Error::source(&err).is_none());
        let nameless = tmp.path().join("nameless.json");
        std::fs::write(
            &nameless,
            r#"{"tools": [{"inputSchema": {"type": "object"}}]}"#,
        )
        .unwrap();
        let err = builder.clone().manifest(&nameless).generate().unwrap_err();
        assert_eq!(err.kind(), crate::ErrorKind::Manifest, "{err}");
        // A schema file that is not JSON.
        let schema = tmp.path().join("schema.json");
        std::fs::write(&schema, "not json").unwrap();
        let err = builder.clone().schema_file(&schema).generate().unwrap_err();
        assert_eq!(err.kind(), crate::ErrorKind::Schema, "{err}");
        // The human form is unchanged by the kind.
        assert!(!err.to_string().contains("Schema"), "{err}");
    }

    #[test]
    fn manifest_adds_tool_types_and_its_hash_to_the_header() {
        let tmp = tempfile::tempdir().unwrap();
        let test = "builder::tests::manifest_adds_tool_types_and_its_hash_to_the_header";
        let Some(manifest) = crate::shared_data::shared_data("manifests/stitch.json", test) else {
            return;
        };
        let g = Builder::new()
            .manifest(&manifest)
            .store(mirror_store(tmp.path()))
            .generate()
            .unwrap();
        let tools = &g.files[1].1;
        assert!(
            tools.contains("// manifest stitch.json (sha256 "),
            "{}",
            &tools[..300]
        );
        assert!(
            tools.contains("pub struct CreateProjectInput"),
            "tools.rs lacks CreateProjectInput"
        );
        assert!(
            !tools.contains(env!("CARGO_MANIFEST_DIR")),
            "absolute paths make output machine-dependent"
        );
    }

    #[test]
    fn split_tool_types_go_to_part_files_and_the_include_macros() {
        let tmp = tempfile::tempdir().unwrap();
        let test = "builder::tests::split_tool_types_go_to_part_files_and_the_include_macros";
        let Some(manifest) = crate::shared_data::shared_data("manifests/stitch.json", test) else {
            return;
        };
        let out = tmp.path().join("out");
        let builder = Builder::new()
            .manifest(&manifest)
            .store(mirror_store(&tmp.path().join("cache")))
            .out_dir(&out)
            .cargo_directives(false);
        let whole = builder.generate().unwrap();
        let report = builder.clone().tool_parts(2).compile().unwrap();
        let mut expected: Vec<&str> = FILES.to_vec();
        expected.extend(["tools_part_1.rs", "tools_part_2.rs", "include.rs"]);
        assert_eq!(report.written, expected);
        let read = |f: &str| std::fs::read_to_string(out.join(f)).unwrap();
        // Every item of the whole `tools.rs` is in one file of the split,
        // the `use` lines in each.
        let items = |text: &str| -> Vec<String> {
            syn::parse_file(text)
                .unwrap()
                .items
                .iter()
                .filter(|i| !matches!(i, syn::Item::Use(_)))
                .map(|i| quote::quote!(#i).to_string())
                .collect()
        };
        let mut split: Vec<String> = ["tools.rs", "tools_part_1.rs", "tools_part_2.rs"]
            .iter()
            .flat_map(|f| items(&read(f)))
            .collect();
        let mut all = items(&whole.files[1].1);
        split.sort();
        all.sort();
        assert_eq!(split, all);
        // The first tool's input is in part 1, the last one's in part 2.
        assert!(read("tools_part_1.rs").contains("pub struct CreateProjectInput"));
        assert!(!read("tools.rs").contains("pub struct CreateProjectInput"));
        // Without a manifest the parts are there, empty.
        let none = Builder::new()
            .store(mirror_store(&tmp.path().join("cache")))
            .tool_parts(2)
            .generate()
            .unwrap();
        let names: Vec<&str> = none.files.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, expected[..6]);
        let include = read("include.rs");
        assert!(
            include.contains("macro_rules! include_tool_part"),
            "{include}"
        );
        assert!(
            include.contains("macro_rules! include_bindings"),
            "{include}"
        );
        let part = std::path::absolute(out.join("tools_part_2.rs")).unwrap();
        assert!(
            include.contains(&format!("include!({:?})", part.to_str().unwrap())),
            "{include}"
        );
    }

    #[test]
    fn missing_out_dir_outside_build_scripts_is_explained() {
        if std::env::var_os("OUT_DIR").is_some() {
            return;
        }
        let err = Builder::new().resolved_out_dir().unwrap_err();
        assert!(err.to_string().contains("OUT_DIR"));
        assert_eq!(err.kind(), crate::ErrorKind::Usage);
    }
}
