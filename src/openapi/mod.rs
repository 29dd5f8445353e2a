//! `mcpgen import openapi`: an OpenAPI document (Swagger 2.0, OpenAPI 3.0
//! or 3.1; JSON or YAML 1.2) made an mcpgen manifest, one tool per
//! operation, each carrying the `x-mcpgen.http` binding
//! ([`mcpgen_runtime::upstream::HttpBinding`]) that says how a call
//! becomes the HTTP request. From there it is an ordinary manifest.
//!
//! This module knows OpenAPI and nothing of Rust. Its parts: `document`
//! (parsing, version, located problems), `resolve` (local references),
//! `schema` (schemas to self-contained JSON Schema 2020-12), `params`,
//! `body`, `output`, `security`, `servers` (the parts of a binding),
//! `names` (tool, argument and `$defs` names), `filter` (`--include` /
//! `--exclude`) and `operation` (one tool).
//!
//! Every problem is reported at once, each with file, JSON pointer and
//! line:column; problems that are safe to work around are warnings and
//! the import goes on. Text from the document (names, descriptions, enum
//! values) is only ever data in the manifest.

mod body;
mod document;
mod filter;
mod names;
mod operation;
mod output;
mod params;
mod resolve;
mod schema;
mod security;
mod servers;

use std::collections::HashMap;
use std::path::Path;

use serde_json::{json, Map, Value};

pub use filter::Filter;

use crate::error::Error;
use document::{child, Diag, Document};
use names::{slug, tool_name, Unique, MAX_TOOL_NAME};
use operation::{Context, Operation};
use resolve::Resolver;

/// The HTTP methods of a path item, as OpenAPI spells them.
const METHODS: &[&str] = &[
    "get", "put", "post", "delete", "options", "head", "patch", "trace",
];

/// Longest `instructions` taken from `info.description`.
const MAX_INSTRUCTIONS: usize = 1000;

/// What to import.
#[derive(Debug, Clone, Default)]
pub struct ImportOptions {
    /// Import only operations any of these match (all when empty).
    pub include: Vec<Filter>,
    /// Never import operations any of these match.
    pub exclude: Vec<Filter>,
}

/// An imported document.
#[derive(Debug, Clone)]
pub struct Imported {
    /// The manifest: `{"server": {...}, "tools": [...]}`.
    pub manifest: Value,
    /// Problems worked around, each located in the document.
    pub warnings: Vec<Error>,
    /// Operations in the document (before filters).
    pub operations: usize,
}

/// Imports the OpenAPI document at `path`: the manifest, or every problem.
pub fn import(path: impl AsRef<Path>, options: &ImportOptions) -> Result<Imported, Vec<Error>> {
    let doc = document::load(path.as_ref()).map_err(|e| vec![e])?;
    import_document(&doc, options)
}

/// Imports document text; `file_name` names it in messages and picks the
/// syntax (`.yaml`/`.yml`: YAML; else JSON, or YAML when it is not JSON).
pub fn import_str(
    text: &str,
    file_name: &str,
    options: &ImportOptions,
) -> Result<Imported, Vec<Error>> {
    let doc = document::parse(text, file_name).map_err(|e| vec![e])?;
    import_document(&doc, options)
}

fn import_document(doc: &Document, options: &ImportOptions) -> Result<Imported, Vec<Error>> {
    let mut diag = Diag::new(doc);
    let Some(version) = document::version(doc, &mut diag) else {
        return Err(diag.errors);
    };
    let res = Resolver::new(&doc.root);
    let operations = collect(doc, &res, &mut diag);
    let cx = Context {
        root: &doc.root,
        version,
        res: &res,
    };
    let mut tools = Vec::new();
    let mut cut: Vec<&str> = Vec::new();
    let mut untyped: Vec<&str> = Vec::new();
    for op in &operations {
        let tags: Vec<&str> = op
            .value
            .get("tags")
            .and_then(Value::as_array)
            .map(|a| a.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let facts = filter::Facts {
            tags,
            id: &op.id,
            path: op.path,
            method: &op.method,
        };
        let included =
            options.include.is_empty() || options.include.iter().any(|f| f.matches(&facts));
        if !included || options.exclude.iter().any(|f| f.matches(&facts)) {
            continue;
        }
        let (tool, refs_cut, output_dropped) = operation::tool(op, &cx, &mut diag);
        if refs_cut > 0 {
            cut.push(&op.name);
        }
        if output_dropped {
            untyped.push(&op.name);
        }
        tools.push(tool);
    }
    if !untyped.is_empty() {
        let shown: Vec<&str> = untyped.iter().take(5).copied().collect();
        let more = if untyped.len() > shown.len() {
            ", …"
        } else {
            ""
        };
        diag.warn(
            "/paths",
            &format!(
                "the success schemas of {} tool(s) ({}{more}) are over {} KiB as JSON Schema; those tools get no outputSchema and answer with the API's JSON as text",
                untyped.len(),
                shown.join(", "),
                operation::MAX_OUTPUT_SCHEMA_BYTES / 1024
            ),
            "to type one of them, give it an outputSchema of your own in the manifest (and `\"output\": {}` in its binding)",
        );
    }
    if !cut.is_empty() {
        let shown: Vec<&str> = cut.iter().take(5).copied().collect();
        let more = if cut.len() > shown.len() { ", …" } else { "" };
        diag.warn(
            "/paths",
            &format!(
                "the schemas of {} tool(s) ({}{more}) reach more than {} definitions; references past them are left unconstrained (`{{}}`)",
                cut.len(),
                shown.join(", "),
                schema::MAX_DEFS
            ),
            "import fewer operations at a time (--include) or simplify the linked schemas if the full types are needed",
        );
    }
    if !diag.errors.is_empty() {
        return Err(diag.errors);
    }
    let mut manifest = Map::new();
    manifest.insert("server".into(), server_info(&doc.root));
    manifest.insert("tools".into(), Value::Array(tools));
    Ok(Imported {
        manifest: Value::Object(manifest),
        warnings: diag.warnings,
        operations: operations.len(),
    })
}

/// Every operation in document order, named; duplicate operationIds are
/// errors.
fn collect<'a>(doc: &'a Document, res: &Resolver<'a>, diag: &mut Diag) -> Vec<Operation<'a>> {
    let mut out = Vec::new();
    let Some(paths) = doc.root.get("paths") else {
        return out;
    };
    let Value::Object(paths) = paths else {
        diag.error(
            "/paths",
            "`paths` must be an object",
            "map each path template to its operations",
        );
        return out;
    };
    let mut first_id: HashMap<&str, String> = HashMap::new();
    let mut unique = Unique::default();
    for (path, raw) in paths {
        if path.starts_with("x-") {
            continue;
        }
        let raw_at = child("/paths", path);
        let (item, item_at) = match res.follow(raw, &raw_at) {
            Ok(found) => found,
            Err((p, (message, hint))) => {
                diag.error(&p, &message, hint);
                continue;
            }
        };
        let Value::Object(methods) = item else {
            continue;
        };
        for (key, value) in methods {
            if !METHODS.contains(&key.as_str()) || !value.is_object() {
                continue;
            }
            let at = child(&item_at, key);
            let method = key.to_ascii_uppercase();
            let op_id = value.get("operationId").and_then(Value::as_str);
            if let Some(id) = op_id {
                if let Some(first) = first_id.get(id) {
                    let line = doc
                        .positions
                        .nearest(first)
                        .map(|(l, c)| format!(" (line {l}:{c})"))
                        .unwrap_or_default();
                    diag.error(
                        &child(&at, "operationId"),
                        &format!("duplicate operationId `{id}`, first used at {first}{line}"),
                        "operationIds must be unique in a document; rename one of them",
                    );
                } else {
                    first_id.insert(id, child(&at, "operationId"));
                }
            }
            let id = match op_id {
                Some(id) => id.to_owned(),
                None => format!("{method} {path}"),
            };
            let name = unique.claim(&tool_name(op_id, &method, path), MAX_TOOL_NAME);
            out.push(Operation {
                path,
                method,
                value,
                at,
                path_item: item,
                path_at: item_at.clone(),
                id,
                name,
            });
        }
    }
    out
}

/// The manifest's `server` from the document's `info`.
fn server_info(root: &Value) -> Value {
    let info = root.get("info").cloned().unwrap_or(Value::Null);
    let text = |k: &str| match info.get(k) {
        Some(Value::String(s)) => Some(s.trim().to_owned()),
        Some(Value::Null) | None => None,
        Some(other) => Some(other.to_string()),
    };
    let title = text("title").filter(|t| !t.is_empty());
    let mut server = Map::new();
    server.insert(
        "name".into(),
        json!(slug(title.as_deref().unwrap_or_default())),
    );
    server.insert(
        "version".into(),
        json!(text("version")
            .filter(|v| !v.is_empty())
            .unwrap_or_else(|| "0.0.0".to_owned())),
    );
    if let Some(t) = title {
        server.insert("title".into(), json!(t));
    }
    if let Some(d) = text("description") {
        let first = d.split("\n\n").next().unwrap_or_default().trim();
        let short: String = if first.chars().count() > MAX_INSTRUCTIONS {
            let cut: String = first.chars().take(MAX_INSTRUCTIONS - 1).collect();
            format!("{cut}…")
        } else {
            first.to_owned()
        };
        if !short.is_empty() {
            server.insert("instructions".into(), json!(short));
        }
    }
    Value::Object(server)
}
