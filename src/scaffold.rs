//! `mcpgen new`: a new server crate from the handlebars templates in
//! `templates/new/` — `Cargo.toml`, a `build.rs` that regenerates from the
//! manifest with [`crate::Builder`], `src/main.rs` serving over stdio with
//! one "not implemented yet" handler per tool, a README and an
//! integration test that checks `tools/list`.
//!
//! The templates are compiled into the binary. The crate depends on
//! `mcpgen` and `mcpgen-runtime` by path when this mcpgen's source tree is
//! on disk (or [`DepSource::Path`] names one), else by version.

use std::path::{Path, PathBuf};

use handlebars::Handlebars;
use serde::Serialize;

use crate::codegen;
use crate::emit;
use crate::error::{Error, Result};
use crate::manifest::Manifest;
use crate::spec::Spec;
use crate::store::Store;

/// `(output path, template text)`; output paths ending in `.hbs` lose it.
const TEMPLATES: &[(&str, &str)] = &[
    ("Cargo.toml", include_str!("../templates/new/Cargo.toml.hbs")),
    ("build.rs", include_str!("../templates/new/build.rs.hbs")),
    ("src/main.rs", include_str!("../templates/new/src/main.rs.hbs")),
    ("tests/tools_list.rs", include_str!("../templates/new/tests/tools_list.rs.hbs")),
    ("README.md", include_str!("../templates/new/README.md.hbs")),
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

/// What to scaffold.
#[derive(Debug, Clone)]
pub struct NewCrate {
    /// The crate directory; its last component is the package name.
    pub dir: PathBuf,
    /// The manifest; copied into the crate under its own file name.
    pub manifest: PathBuf,
    /// Protocol revision.
    pub protocol: String,
    /// Replace files of an existing directory.
    pub force: bool,
    /// Where the dependencies come from.
    pub deps: DepSource,
    /// Schema lookup (only used to name the content type of tools without
    /// an output schema).
    pub store: Store,
}

#[derive(Serialize)]
struct ToolView {
    name: String,
    method: String,
    input: String,
    output_type: String,
    summary: String,
}

#[derive(Serialize)]
struct View {
    crate_name: String,
    manifest_file: String,
    protocol: String,
    tool_count: usize,
    tools: Vec<ToolView>,
    mcpgen_dep: String,
    runtime_dep: String,
}

/// A package name for a directory: its last component, checked.
pub fn crate_name(dir: &Path) -> Result<String> {
    let name = dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .ok_or_else(|| Error::new(format!("{} has no last component to name the crate after", dir.display())))?;
    let valid = name.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
    if !valid {
        return Err(Error::new(format!("`{name}` is not a valid crate name"))
            .with_hint("use letters, digits, `-` and `_`, starting with a letter"));
    }
    Ok(name)
}

fn toml_str(s: &str) -> String {
    // TOML basic strings share JSON's escapes for the characters that can
    // occur in a path.
    serde_json::to_string(s).unwrap_or_else(|_| format!("\"{s}\""))
}

/// One line for a doc comment: the first sentence-ish line of a
/// description, whitespace collapsed.
fn summary(tool: &serde_json::Value) -> String {
    let text = tool.get("description").and_then(|d| d.as_str()).unwrap_or_default();
    let line = text.lines().map(str::trim).find(|l| !l.is_empty()).unwrap_or_default();
    let mut out: String = line.split_whitespace().collect::<Vec<_>>().join(" ");
    if out.chars().count() > 160 {
        out = out.chars().take(157).collect::<String>() + "...";
    }
    out
}

/// The rendered crate.
#[derive(Debug, Clone)]
pub struct Rendered {
    /// `(relative path, contents)` of every file.
    pub files: Vec<(String, String)>,
    /// Non-fatal problems of the tool types (a property typed as JSON
    /// because its schema could not be converted), with file and pointer.
    pub warnings: Vec<Error>,
}

/// Renders every file of the new crate in memory.
pub fn render(new: &NewCrate) -> Result<Rendered> {
    let crate_name = crate_name(&new.dir)?;
    let manifest_text =
        std::fs::read_to_string(&new.manifest).map_err(|e| Error::io("read manifest", &new.manifest, e))?;
    let manifest_file = new
        .manifest
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .ok_or_else(|| Error::new(format!("{} is not a file", new.manifest.display())))?;
    let manifest = Manifest::from_str(&manifest_text, &new.manifest.display().to_string())?;
    let problems = crate::manifest::check(&manifest, &new.protocol);
    if let Some(first) = problems.first() {
        let mut e = first.clone();
        e.hint = Some(format!(
            "{} problem(s) in the manifest; see them all with `mcpgen manifest check {}`",
            problems.len(),
            new.manifest.display()
        ));
        return Err(e);
    }
    let tools = codegen::tools::generate(&manifest)?;
    let schema = new.store.resolve(&new.protocol, None)?;
    let spec = Spec::from_json(&schema.json, &schema.revision)?;
    let content: String = codegen::protocol::tool_content_type(&spec).to_string().split_whitespace().collect();

    let tool_views = tools
        .tools
        .iter()
        .map(|b| ToolView {
            name: b.name.clone(),
            method: b.method.clone(),
            input: b.input.clone(),
            output_type: match &b.output {
                Some(o) => format!("tools::{o}"),
                None if content.starts_with("::") => format!("Vec<{content}>"),
                None => format!("Vec<protocol::{content}>"),
            },
            summary: summary(&b.tool),
        })
        .collect();
    let (mcpgen_dep, runtime_dep) = match &new.deps {
        DepSource::Path(root) => (
            format!("path = {}", toml_str(&root.display().to_string())),
            format!("path = {}", toml_str(&root.join("runtime").display().to_string())),
        ),
        DepSource::Version(v) => (format!("version = {}", toml_str(v)), format!("version = {}", toml_str(v))),
    };
    let view = View {
        crate_name,
        manifest_file: manifest_file.clone(),
        protocol: new.protocol.clone(),
        tool_count: manifest.tools.len(),
        tools: tool_views,
        mcpgen_dep,
        runtime_dep,
    };

    let mut hb = Handlebars::new();
    hb.set_strict_mode(true);
    hb.register_escape_fn(handlebars::no_escape);
    let mut files = Vec::new();
    for (path, template) in TEMPLATES {
        let text = hb
            .render_template(template, &view)
            .map_err(|e| Error::new(format!("template for {path}: {e}")).with_hint("this is a bug in mcpgen"))?;
        files.push((path.to_string(), text));
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
    Ok(Rendered { files, warnings: tools.warnings })
}

/// Scaffolds the crate: refuses an existing directory unless `force`;
/// writes all files atomically.
pub fn create(new: &NewCrate) -> Result<Rendered> {
    if new.dir.exists() && !new.force {
        return Err(Error::new(format!("{} already exists", new.dir.display()))
            .with_hint("choose another name, or pass --force to overwrite the scaffolded files in it"));
    }
    let rendered = render(new)?;
    emit::write_all(&new.dir, &rendered.files)?;
    Ok(rendered)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stitch() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/manifests/stitch.json")
    }

    fn job(dir: &Path) -> NewCrate {
        NewCrate {
            dir: dir.to_path_buf(),
            manifest: stitch(),
            protocol: "2025-11-25".into(),
            force: false,
            deps: DepSource::detect(),
            store: Store {
                cache_dir: dir.with_extension("cache"),
                mirror: Some(Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/mcp-spec")),
                fetch: None,
            },
        }
    }

    #[test]
    fn renders_every_file_with_one_handler_per_tool() {
        let tmp = tempfile::tempdir().unwrap();
        let files = render(&job(&tmp.path().join("stitch-server"))).unwrap().files;
        let names: Vec<&str> = files.iter().map(|(p, _)| p.as_str()).collect();
        for want in ["Cargo.toml", "build.rs", "src/main.rs", "tests/tools_list.rs", "README.md", "stitch.json"] {
            assert!(names.contains(&want), "{names:?}");
        }
        let main = &files.iter().find(|(p, _)| p == "src/main.rs").unwrap().1;
        assert_eq!(main.matches("is not implemented yet").count(), 8, "{main}");
        assert!(main.contains("async fn create_project("));
        assert!(main.contains("tools::CreateProjectInput"));
        let cargo = &files[0].1;
        assert!(cargo.contains("name = \"stitch-server\""));
        assert!(cargo.contains("mcpgen-runtime = { path = "), "{cargo}");
        let build = &files.iter().find(|(p, _)| p == "build.rs").unwrap().1;
        assert!(build.contains(".manifest(\"stitch.json\")"));
        assert!(build.contains(".protocol(\"2025-11-25\")"));
    }

    #[test]
    fn version_dependencies_when_asked() {
        let tmp = tempfile::tempdir().unwrap();
        let mut j = job(&tmp.path().join("s"));
        j.deps = DepSource::Version("0.1".into());
        let files = render(&j).unwrap().files;
        assert!(files[0].1.contains("mcpgen = { version = \"0.1\" }"), "{}", files[0].1);
        assert!(!files.iter().any(|(p, _)| p == "Cargo.lock"));
    }

    #[test]
    fn refuses_an_existing_dir_unless_forced() {
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
        assert_eq!(std::fs::read_to_string(dir.join("keep.txt")).unwrap(), "mine");
    }

    #[test]
    fn bad_crate_names_are_refused() {
        assert!(crate_name(Path::new("/tmp/9lives")).is_err());
        assert!(crate_name(Path::new("/tmp/a b")).is_err());
        assert_eq!(crate_name(Path::new("x/my_server-2")).unwrap(), "my_server-2");
    }
}
