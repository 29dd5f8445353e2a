//! The manifest format as Rust types: what `mcpgen manifest schema` prints
//! (via schemars) and what the optional extras deserialise into.
//!
//! The core of a manifest is a `tools/list` result. mcpgen's own settings
//! for one tool live under the namespaced key [`SETTINGS_KEY`] inside that
//! tool; they are removed before the tool is served.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// The key, inside a tool, of mcpgen's per-tool generator settings.
pub const SETTINGS_KEY: &str = "x-mcpgen";

/// An mcpgen tool manifest: a `tools/list` result, optionally with server
/// information. Any `tools/list` response is a valid manifest.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[schemars(title = "mcpgen tool manifest")]
pub struct ManifestFile {
    /// Who the generated server says it is in its `initialize` result.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server: Option<ServerInfo>,
    /// The tools, in the order `tools/list` serves them.
    pub tools: Vec<ToolDecl>,
    /// mcpgen's server-wide settings (never served).
    #[serde(rename = "x-mcpgen", default, skip_serializing_if = "Option::is_none")]
    pub settings: Option<ServerSettings>,
    /// Other members are kept and ignored.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Server information (the MCP `Implementation` plus `instructions`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ServerInfo {
    /// Programmatic name of the server.
    pub name: String,
    /// Version of the server.
    pub version: String,
    /// Human-readable name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Instructions sent to clients in the `initialize` result.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instructions: Option<String>,
    /// Other `Implementation` members of newer revisions (`description`,
    /// `icons`, `websiteUrl`, …), kept as declared.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// One tool, exactly as `tools/list` serves it, plus mcpgen's settings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ToolDecl {
    /// The tool's wire name: 1 to 128 characters of `A-Z a-z 0-9 _ - .`.
    #[schemars(
        length(min = 1, max = 128),
        regex(pattern = r"^[A-Za-z0-9_.\-]{1,128}$")
    )]
    pub name: String,
    /// Human-readable name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What the tool does, for a model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// JSON Schema of the arguments; its root must be `type: object`.
    #[schemars(schema_with = "object_schema")]
    pub input_schema: Value,
    /// JSON Schema of `structuredContent`; its root must be `type: object`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "object_schema")]
    pub output_schema: Option<Value>,
    /// Tool annotations (`readOnlyHint`, …), served unchanged.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Map<String, Value>>,
    /// mcpgen's generator settings for this tool (never served).
    #[serde(rename = "x-mcpgen", default, skip_serializing_if = "Option::is_none")]
    pub settings: Option<ToolSettings>,
    /// Other members (`icons`, `_meta`, `execution`, …) are served unchanged.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// mcpgen's per-tool settings, under `"x-mcpgen"` inside a tool.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ToolSettings {
    /// Base of the Rust names for this tool: `snake_case` for the method,
    /// its PascalCase for `<Name>Input`/`<Name>Output`. Must be a Rust
    /// identifier in snake case (`[a-z_][a-z0-9_]*`, not a keyword).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(regex(pattern = r"^[a-z_][a-z0-9_]*$"))]
    pub rust_name: Option<String>,
    /// At most `calls` calls per `perSeconds` seconds, server-wide or per
    /// principal or session (`scope`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate_limit: Option<RateLimit>,
    /// OAuth scopes a caller's token must hold, every one of them, to call
    /// the tool (RFC 6749 scope tokens, e.g. `notes:write`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub scopes: Vec<String>,
    /// The HTTP operation this tool calls (written by `mcpgen import
    /// openapi`): the generated server's default handler sends the
    /// request it describes and answers with the API's answer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<Map<String, Value>>")]
    pub http: Option<mcpgen_runtime::upstream::HttpBinding>,
}

/// mcpgen's server-wide settings, under `"x-mcpgen"` at the top of a
/// manifest.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ServerSettings {
    /// How `tools/list` offers the catalog: every tool (`all`, the
    /// default) or, for a large catalog, the pinned tools plus
    /// `search_tools` and `call_tool` (`search`).
    #[serde(default, skip_serializing_if = "ToolSurface::is_all")]
    pub tool_surface: ToolSurface,
    /// With the `search` surface, tools `tools/list` still answers.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pinned_tools: Vec<String>,
}

/// How `tools/list` offers the catalog.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum ToolSurface {
    /// Every tool.
    #[default]
    All,
    /// The pinned tools plus `search_tools` (BM25 over the catalog, index
    /// built by the generator) and `call_tool`; every tool stays callable
    /// by its own name.
    Search,
}

impl ToolSurface {
    fn is_all(&self) -> bool {
        *self == ToolSurface::All
    }
}

/// A rate limit for one tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RateLimit {
    /// Calls allowed per window (at least 1).
    #[schemars(range(min = 1))]
    pub calls: u32,
    /// Window length in seconds (at least 1; default 1).
    #[serde(default = "one_second")]
    #[schemars(range(min = 1))]
    pub per_seconds: u32,
    /// Whose calls share the limit: every caller's (`global`, the
    /// default), each principal's, or each session's.
    #[serde(default, skip_serializing_if = "LimitScope::is_global")]
    pub scope: LimitScope,
}

/// Whose calls share a rate limit.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum LimitScope {
    /// Every caller's.
    #[default]
    Global,
    /// Each principal's (the OAuth subject; anonymous callers share one).
    Principal,
    /// Each stateful session's (stateless requests count as their
    /// principal's).
    Session,
}

impl LimitScope {
    fn is_global(&self) -> bool {
        *self == LimitScope::Global
    }
}

fn one_second() -> u32 {
    1
}

fn object_schema(_: &mut schemars::gen::SchemaGenerator) -> schemars::schema::Schema {
    let v = serde_json::json!({
        "type": "object",
        "description": "A JSON Schema object whose root has `\"type\": \"object\"`.",
        "required": ["type"],
        "properties": { "type": { "const": "object" } }
    });
    serde_json::from_value(v).expect("a static schema object is a valid schemars Schema")
}

/// The JSON Schema of the manifest format (draft-07, as schemars writes it).
pub fn manifest_schema() -> Value {
    let schema = schemars::schema_for!(ManifestFile);
    serde_json::to_value(schema).unwrap_or(Value::Null)
}
