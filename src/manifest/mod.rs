//! Tool manifests: a JSON or YAML file whose core is a `tools/list` result
//! (`{ "tools": [Tool, …] }`), with an optional `server` object,
//! per-tool settings under `"x-mcpgen"`, and optional `resources`,
//! `resourceTemplates` and `prompts` lists (see [`surface`]).
//!
//! [`Manifest`] keeps every tool as the raw JSON object it was declared as
//! (unknown fields included, `x-mcpgen` removed), so a server can serve it
//! back unchanged, and keeps the source position of every value so that
//! [`crate::check`] can report each problem with file, JSON pointer and
//! line:column. Loading fails only when the file cannot be read or parsed
//! at all; everything else is reported by [`crate::check`].

mod check;
pub mod conform;
mod format;
pub mod locate;
pub mod refs;
mod scopes;
pub mod surface;
pub(crate) mod yaml;

use std::path::{Path, PathBuf};

use serde_json::Value;

pub use check::{check_declarations, dialect_for, Draft};
pub use format::{
    manifest_schema, LimitScope, ManifestFile, RateLimit, ServerInfo, ServerSettings, ToolDecl,
    ToolSettings, ToolSurface, SETTINGS_KEY,
};
pub use locate::Positions;
pub use refs::{resolve_ref as resolve_local_ref, RefIndex};
pub use surface::Declared;
pub use yaml::{MAX_ALIAS_TEXT, MAX_NESTING, MAX_VALUES};

use crate::error::{stage, Error, ErrorKind, Result};

/// Default protocol revision when none is given.
pub const DEFAULT_REVISION: &str = "2025-11-25";

/// The source syntax of a manifest.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// JSON text.
    Json,
    /// YAML text.
    Yaml,
}

/// A parsed manifest.
#[derive(Debug, Clone)]
pub struct Manifest {
    /// The file name used in messages.
    pub file: PathBuf,
    /// JSON or YAML.
    pub format: Format,
    /// The whole document as parsed.
    pub document: Value,
    /// The `server` object, when present and well-formed.
    pub server: Option<ServerInfo>,
    /// The tools in declaration order.
    pub tools: Vec<Tool>,
    /// The static resources (`resources`), in declaration order.
    pub resources: Vec<Declared>,
    /// The resource templates (`resourceTemplates`), in declaration order.
    pub resource_templates: Vec<Declared>,
    /// The prompts (`prompts`), in declaration order.
    pub prompts: Vec<Declared>,
    /// Server-wide settings from the top-level `x-mcpgen` (defaults when
    /// absent or invalid; `check` reports invalid ones).
    pub settings: ServerSettings,
    positions: Positions,
}

/// One declared tool.
#[derive(Debug, Clone, PartialEq)]
pub struct Tool {
    /// Index in the manifest's `tools` array.
    pub index: usize,
    /// JSON pointer of the tool object (`/tools/3`).
    pub pointer: String,
    /// Wire name (empty when missing or not a string; `check` reports it).
    pub name: String,
    /// The tool object as served: every member as declared, in order,
    /// except the `x-mcpgen` settings.
    pub declared: Value,
    /// mcpgen settings from `x-mcpgen` (defaults when absent or invalid;
    /// `check` reports invalid ones).
    pub settings: ToolSettings,
}

impl Tool {
    /// The tool's `inputSchema`, when present.
    pub fn input_schema(&self) -> Option<&Value> {
        self.declared.get("inputSchema")
    }

    /// The tool's `outputSchema`, when present.
    pub fn output_schema(&self) -> Option<&Value> {
        self.declared.get("outputSchema")
    }
}

impl Manifest {
    /// Reads and parses a manifest file; `.yaml`/`.yml` files are YAML,
    /// everything else JSON.
    pub fn load(path: impl AsRef<Path>) -> Result<Self> {
        let path = path.as_ref();
        let text =
            std::fs::read_to_string(path).map_err(|e| Error::io("read manifest", path, e))?;
        Self::from_str(&text, &path.display().to_string())
    }

    /// Parses manifest text. `file_name` is used in messages and decides
    /// the syntax: names ending in `.yaml`/`.yml` are YAML, others JSON.
    #[allow(clippy::should_implement_trait)]
    pub fn from_str(text: &str, file_name: &str) -> Result<Self> {
        stage(Self::parse(text, file_name), ErrorKind::Manifest)
    }

    fn parse(text: &str, file_name: &str) -> Result<Self> {
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        let lower = file_name.to_ascii_lowercase();
        let format = if lower.ends_with(".yaml") || lower.ends_with(".yml") {
            Format::Yaml
        } else {
            Format::Json
        };
        let (document, positions) = match format {
            Format::Json => {
                let value: Value = serde_json::from_str(text).map_err(|e| {
                    Error::new(format!("invalid JSON: {e}"))
                        .in_file(file_name)
                        .at_line_col(e.line(), e.column())
                        .with_hint("fix the JSON syntax at this position")
                })?;
                (value, locate::locate_json(text))
            }
            Format::Yaml => yaml::parse(text, file_name)?,
        };
        Self::from_value(document, positions, file_name, format)
    }

    /// Builds a manifest from an already-parsed document (positions may be
    /// empty, e.g. for a `tools/list` result received from a server).
    pub fn from_value(
        document: Value,
        positions: Positions,
        file_name: &str,
        format: Format,
    ) -> Result<Self> {
        let mut m = Manifest {
            file: PathBuf::from(file_name),
            format,
            document: Value::Null,
            server: None,
            tools: Vec::new(),
            resources: Vec::new(),
            resource_templates: Vec::new(),
            prompts: Vec::new(),
            settings: ServerSettings::default(),
            positions,
        };
        let Some(obj) = document.as_object() else {
            return Err(m
                .error_at("", "a manifest must be an object with a `tools` array")
                .with_hint("write `{\"tools\": [...]}`: the result of a `tools/list` request"));
        };
        let has_surface = surface::SECTIONS
            .iter()
            .any(|(key, _)| obj.contains_key(*key));
        let no_tools = Vec::new();
        let tools = match obj.get("tools") {
            None if has_surface => Some(&no_tools),
            tools => tools.and_then(Value::as_array),
        };
        let Some(tools) = tools else {
            return Err(m
                .error_at(
                    if obj.contains_key("tools") {
                        "/tools"
                    } else {
                        ""
                    },
                    "a manifest needs a `tools` array",
                )
                .with_hint("write `{\"tools\": [...]}`: the result of a `tools/list` request"));
        };
        m.settings = obj
            .get(SETTINGS_KEY)
            .and_then(|s| serde_json::from_value(s.clone()).ok())
            .unwrap_or_default();
        m.server = obj
            .get("server")
            .and_then(|s| serde_json::from_value(s.clone()).ok());
        for (index, raw) in tools.iter().enumerate() {
            let mut declared = raw.clone();
            let settings_raw = declared
                .as_object_mut()
                .and_then(|o| o.shift_remove(SETTINGS_KEY));
            let settings = settings_raw
                .and_then(|s| serde_json::from_value(s).ok())
                .unwrap_or_default();
            let name = raw
                .get("name")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned();
            m.tools.push(Tool {
                index,
                pointer: format!("/tools/{index}"),
                name,
                declared,
                settings,
            });
        }
        m.resources = surface::read_section(obj, "resources");
        m.resource_templates = surface::read_section(obj, "resourceTemplates");
        m.prompts = surface::read_section(obj, "prompts");
        m.document = document;
        Ok(m)
    }

    /// Where the value at `pointer` starts (or its nearest located
    /// ancestor), 1-based.
    pub fn line_col(&self, pointer: &str) -> Option<(usize, usize)> {
        self.positions.nearest(pointer)
    }

    /// The position table.
    pub fn positions(&self) -> &Positions {
        &self.positions
    }

    /// An error located at `pointer` in this manifest: file, pointer and
    /// line:column.
    pub fn error_at(&self, pointer: &str, message: impl Into<String>) -> Error {
        let mut e = Error::new(message).in_file(&self.file).at_pointer(pointer);
        if let Some((l, c)) = self.line_col(pointer) {
            e = e.at_line_col(l, c);
        }
        e
    }

    /// The tools as served by `tools/list`: declared objects without
    /// mcpgen's settings, in manifest order.
    pub fn served_tools(&self) -> Vec<Value> {
        self.tools.iter().map(|t| t.declared.clone()).collect()
    }
}
