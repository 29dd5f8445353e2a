//! What a manifest declares, checked: every problem at once, each with
//! file, JSON pointer and line:column (`mcpgen manifest check` adds the
//! generated names on top, in [`crate::check`]).
//!
//! Checked: the document shape, tool names (1–128 characters of
//! `A-Za-z0-9_.-`, unique), `inputSchema`/`outputSchema` roots of
//! `type: object`, each schema compiled as a generated server compiles it
//! (in its `$schema` dialect, else the protocol revision's default:
//! draft-07 before 2025-11-25 and 2020-12 from it), which checks every
//! keyword as the dialect's meta-schema would, every pattern as ECMA-262
//! and every `$ref` resolvable inside its schema; the `server` object,
//! the `x-mcpgen` settings, members repeated in one JSON object (YAML
//! rejects those when parsing), and the `resources`, `resourceTemplates`
//! and `prompts` sections ([`super::surface::check_surface`]).
//!
//! The compile is the very one a generated server runs at start-up
//! ([`mcpgen_runtime::schema`]), so what it refuses is reported here, not
//! when the server starts. The Rust names the tools would get are not
//! checked here: that takes the code generator, which reads manifests, so
//! [`crate::check`] runs it after this module.

use std::collections::BTreeMap;

use mcpgen_runtime::schema::default_draft;
use mcpgen_runtime::schema::Schema;
use serde_json::Value;

use super::format::{ServerInfo, ServerSettings, ToolSettings, ToolSurface, SETTINGS_KEY};
use super::refs::{collect_refs, RefIndex};
use super::Manifest;
use crate::error::{pointer_token, Error};
use crate::naming;

/// A JSON Schema dialect (the validator's own: a generated server
/// compiles tool schemas with it).
pub use mcpgen_runtime::schema::Draft;

/// The default dialect of tool schemas without `$schema` for a protocol
/// revision: draft-07 before 2025-11-25, 2020-12 from it on, as the
/// runtime's revision table says (the server compiles schemas in it).
pub fn dialect_for(revision: &str) -> Draft {
    default_draft(revision)
}

/// The problems of what a manifest declares, found without generating
/// code: everything [`crate::check::check`] reports but the Rust names two tools would
/// share, which `codegen::tools::generate` reports itself (the Builder
/// runs this, then generates).
pub fn check_declarations(m: &Manifest, revision: &str) -> Vec<Error> {
    let mut out = Vec::new();
    if revision.len() != 10 || !revision.chars().all(|c| c.is_ascii_digit() || c == '-') {
        out.push(
            Error::new(format!("`{revision}` is not a protocol revision"))
                .with_hint("revisions are dates such as 2025-11-25"),
        );
    }
    for dup in m.positions().duplicates() {
        let name = dup
            .rsplit('/')
            .next()
            .unwrap_or_default()
            .replace("~1", "/")
            .replace("~0", "~");
        let mut e = Error::new(format!(
            "member `{name}` appears twice in one object; only the last one counts"
        ))
        .in_file(&m.file)
        .at_pointer(dup.as_str())
        .with_hint("remove or rename one of them");
        if let Some((l, c)) = m.positions().duplicate_name_at(dup) {
            e = e.at_line_col(l, c);
        }
        out.push(e);
    }
    if let Some(server) = m.document.get("server") {
        if let Err(e) = serde_json::from_value::<ServerInfo>(server.clone()) {
            out.push(
                m.error_at("/server", format!("invalid `server` object: {e}"))
                    .with_hint("`server` has `name` and `version` (strings), optional `title` and `instructions`"),
            );
        }
    }
    let default_dialect = dialect_for(revision);
    let mut first_by_name: BTreeMap<&str, &str> = BTreeMap::new();
    let mut first_by_rust_name: BTreeMap<String, String> = BTreeMap::new();
    let raw_tools = m
        .document
        .get("tools")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or(&[]);
    for (tool, raw) in m.tools.iter().zip(raw_tools) {
        let tp = &tool.pointer;
        let Some(obj) = raw.as_object() else {
            out.push(
                m.error_at(tp, "a tool must be an object")
                    .with_hint("write {\"name\": ..., \"inputSchema\": {...}}"),
            );
            continue;
        };
        // Name.
        match obj.get("name") {
            None => out.push(
                m.error_at(tp, "tool has no `name`")
                    .with_hint("add a `name` member"),
            ),
            Some(Value::String(name)) => {
                let np = format!("{tp}/name");
                if let Some(problem) = name_problem(name) {
                    out.push(m.error_at(&np, format!("tool name `{name}` {problem}")).with_hint(
                        "tool names are 1 to 128 characters of A-Z, a-z, 0-9, `_`, `-` and `.` (MCP 2025-11-25)",
                    ));
                }
                if let Some(first) = first_by_name.get(name.as_str()) {
                    let at = m
                        .line_col(&format!("{first}/name"))
                        .map(|(l, c)| format!(" (line {l}:{c})"))
                        .unwrap_or_default();
                    out.push(
                        m.error_at(
                            &np,
                            format!(
                                "duplicate tool name `{name}`, first declared at {first}/name{at}"
                            ),
                        )
                        .with_hint("tool names must be unique in a manifest; rename one of them"),
                    );
                } else {
                    first_by_name.insert(name, tp);
                }
            }
            Some(_) => out.push(m.error_at(&format!("{tp}/name"), "tool `name` must be a string")),
        }
        // Settings.
        if let Some(settings) = obj.get(SETTINGS_KEY) {
            let sp = format!("{tp}/{}", pointer_token(SETTINGS_KEY));
            match serde_json::from_value::<ToolSettings>(settings.clone()) {
                Err(e) => out.push(m.error_at(&sp, format!("invalid `{SETTINGS_KEY}` settings: {e}")).with_hint(
                    "known settings: `rustName` (snake_case identifier), `rateLimit` ({\"calls\": N, \"perSeconds\": S, \"scope\": \"global\" | \"principal\" | \"session\"}), `scopes` ([\"scope\", ...]), `http` (the HTTP binding `mcpgen import openapi` writes)",
                )),
                Ok(s) => {
                    if let Some(rn) = &s.rust_name {
                        let rp = format!("{sp}/rustName");
                        if !is_snake_ident(rn) {
                            out.push(m.error_at(&rp, format!("`rustName` `{rn}` is not a snake_case Rust identifier")).with_hint(
                                "use lower-case letters, digits and `_`, not starting with a digit, and not a Rust keyword",
                            ));
                        } else if let Some(first) = first_by_rust_name.get(rn) {
                            out.push(
                                m.error_at(&rp, format!("`rustName` `{rn}` is already used by the tool at {first}"))
                                    .with_hint("give each tool a different `rustName`"),
                            );
                        } else {
                            first_by_rust_name.insert(rn.clone(), tp.clone());
                        }
                    }
                    super::scopes::check_scopes(m, &s.scopes, &format!("{sp}/scopes"), &mut out);
                    if let Some(rl) = s.rate_limit {
                        if rl.calls == 0 || rl.per_seconds == 0 {
                            out.push(
                                m.error_at(&format!("{sp}/rateLimit"), "`rateLimit` needs `calls` and `perSeconds` of at least 1")
                                    .with_hint("remove the limit to allow unlimited calls"),
                            );
                        }
                    }
                }
            }
        }
        // Task support (`execution.taskSupport`, served in `tools/list`).
        if let Some(execution) = obj.get("execution") {
            let ep = format!("{tp}/execution");
            let hint = "write \"execution\": {\"taskSupport\": \"optional\"} (or \"required\", \"forbidden\"); see docs/tasks.md";
            match execution.as_object().map(|e| e.get("taskSupport")) {
                None => out.push(m.error_at(&ep, "`execution` must be an object").with_hint(hint)),
                Some(None) => {}
                Some(Some(Value::String(v))) if matches!(v.as_str(), "forbidden" | "optional" | "required") => {}
                Some(Some(other)) => out.push(
                    m.error_at(&format!("{ep}/taskSupport"), format!("`taskSupport` must be \"forbidden\", \"optional\" or \"required\", not {other}"))
                        .with_hint(hint),
                ),
            }
        }
        // Schemas.
        for (key, required) in [("inputSchema", true), ("outputSchema", false)] {
            let sp = format!("{tp}/{key}");
            match obj.get(key) {
                None if required => out
                    .push(m.error_at(tp, "tool has no `inputSchema`").with_hint(
                    "add `\"inputSchema\": {\"type\": \"object\"}` for a tool without arguments",
                )),
                None => {}
                Some(schema) => check_schema(m, schema, &sp, key, default_dialect, &mut out),
            }
        }
    }
    super::surface::check_surface(m, &mut out);
    check_server_settings(m, &mut out);
    out
}

/// The top-level `x-mcpgen`: well-formed, pinned tools declared, and no
/// declared tool named like the search surface's own.
fn check_server_settings(m: &Manifest, out: &mut Vec<Error>) {
    let Some(raw) = m.document.get(SETTINGS_KEY) else {
        return;
    };
    let sp = format!("/{}", pointer_token(SETTINGS_KEY));
    let settings = match serde_json::from_value::<ServerSettings>(raw.clone()) {
        Ok(settings) => settings,
        Err(e) => {
            out.push(
                m.error_at(&sp, format!("invalid server-wide `{SETTINGS_KEY}` settings: {e}"))
                    .with_hint("known settings: `toolSurface` (\"all\" or \"search\"), `pinnedTools` ([\"tool name\", ...])"),
            );
            return;
        }
    };
    let declared = |name: &str| m.tools.iter().find(|t| t.name == name);
    if settings.tool_surface == ToolSurface::Search {
        for own in [
            mcpgen_runtime::server::search::SEARCH_TOOLS,
            mcpgen_runtime::server::search::CALL_TOOL,
        ] {
            if let Some(tool) = declared(own) {
                out.push(
                    m.error_at(
                        &format!("{}/name", tool.pointer),
                        format!("the search tool surface serves a tool named `{own}` of its own"),
                    )
                    .with_hint("rename this tool, or set `\"toolSurface\": \"all\"`"),
                );
            }
        }
    } else if !settings.pinned_tools.is_empty() {
        out.push(
            m.error_at(
                &format!("{sp}/pinnedTools"),
                "`pinnedTools` applies only to the search tool surface",
            )
            .with_hint("set `\"toolSurface\": \"search\"`, or remove `pinnedTools`"),
        );
    }
    for (i, name) in settings.pinned_tools.iter().enumerate() {
        if declared(name).is_none() {
            out.push(
                m.error_at(
                    &format!("{sp}/pinnedTools/{i}"),
                    format!("the pinned tool `{name}` is not declared"),
                )
                .with_hint("pin tools by the `name` they have in `tools`"),
            );
        }
    }
}

fn check_schema(
    m: &Manifest,
    schema: &Value,
    sp: &str,
    key: &str,
    default: Draft,
    out: &mut Vec<Error>,
) {
    let Some(obj) = schema.as_object() else {
        out.push(
            m.error_at(sp, format!("`{key}` must be a JSON Schema object"))
                .with_hint("write {\"type\": \"object\", ...}"),
        );
        return;
    };
    if obj.get("type") != Some(&Value::String("object".into())) {
        let (p, what) = match obj.get("type") {
            None => (sp.to_owned(), "has no `type`".to_owned()),
            Some(t) => (format!("{sp}/type"), format!("has `type` {t}")),
        };
        out.push(
            m.error_at(
                &p,
                format!("the root of `{key}` {what}; it must be `\"type\": \"object\"`"),
            )
            .with_hint("MCP tool schemas describe an object of named arguments (or results)"),
        );
    }
    let dialect = match obj.get("$schema") {
        None => default,
        Some(Value::String(uri)) => match Draft::from_uri(uri) {
            Some(d) => d,
            None => {
                out.push(m.error_at(&format!("{sp}/$schema"), format!("unknown JSON Schema dialect `{uri}`")).with_hint(
                    "use https://json-schema.org/draft/2020-12/schema or http://json-schema.org/draft-07/schema#, or remove `$schema`",
                ));
                return;
            }
        },
        Some(_) => {
            out.push(m.error_at(&format!("{sp}/$schema"), "`$schema` must be a URI string"));
            return;
        }
    };
    // References, with what the manifest offers to resolve them.
    let mut refs = Vec::new();
    collect_refs(schema, String::new(), &mut refs);
    let index = RefIndex::new(schema);
    let unresolved: Vec<(String, Error)> = refs
        .into_iter()
        .filter_map(|(at, reference)| {
            let why = index.target(&reference).err()?;
            let e = m
                .error_at(&format!("{sp}{at}"), format!("unresolvable `$ref` `{reference}`: {why}"))
                .with_hint("refer to a definition inside the same schema, e.g. `#/$defs/Name`, and define it there");
            Some((at, e))
        })
        .collect();
    // The compile a generated server runs at start-up: every keyword the
    // dialect's meta-schema would refuse, every bad pattern, and any
    // reference the checks above let through.
    if let Err(problems) = Schema::compile(schema, dialect) {
        for p in problems
            .into_iter()
            .filter(|p| !unresolved.iter().any(|(at, _)| *at == p.pointer))
        {
            let hint = if p.message.starts_with("reference") {
                "generated servers resolve only references inside the tool's own schema (mcpgen never fetches remote \
                 schemas): define what it refers to under `$defs` and refer to it with `#/$defs/Name`"
                    .to_owned()
            } else {
                format!(
                    "fix the schema so it validates against the {} meta-schema",
                    dialect.name()
                )
            };
            let message = format!(
                "`{key}` is not a valid {} schema: {}",
                dialect.name(),
                p.message
            );
            out.push(
                m.error_at(&format!("{sp}{}", p.pointer), message)
                    .with_hint(hint),
            );
        }
    }
    out.extend(unresolved.into_iter().map(|(_, e)| e));
}

/// Why a tool name breaks the 2025-11-25 naming rules, if it does.
pub(crate) fn name_problem(name: &str) -> Option<String> {
    let n = name.chars().count();
    if n == 0 {
        return Some("is empty".into());
    }
    if n > 128 {
        return Some(format!("is {n} characters long (at most 128)"));
    }
    let bad: Vec<char> = name
        .chars()
        .filter(|c| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.')))
        .collect();
    if !bad.is_empty() {
        let mut shown: Vec<String> = bad.iter().map(|c| format!("{c:?}")).collect();
        shown.dedup();
        return Some(format!(
            "contains characters outside A-Za-z0-9_.- ({})",
            shown.join(", ")
        ));
    }
    None
}

fn is_snake_ident(s: &str) -> bool {
    s.chars()
        .next()
        .is_some_and(|c| c.is_ascii_lowercase() || c == '_')
        && s.chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
        && s != "_"
        && !naming::is_keyword(s)
}
