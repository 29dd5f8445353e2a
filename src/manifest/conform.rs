//! Whether what a manifest declares is what the protocol revision allows:
//! every tool, static resource, resource template and prompt is checked
//! against the official schema's own definition of it (`Tool`,
//! `Resource`, `ResourceTemplate`, `Prompt`), formats included, because the
//! generated server serves each one exactly as declared. A `"size": "big"`
//! or a resource `uri` that is not a URI would otherwise reach every client
//! in `resources/list`, and a strict client rejects the whole list.
//!
//! A tool's `inputSchema` and `outputSchema` are left to the manifest's own
//! schema checks, which say more about what is wrong there, and so is any
//! value those checks already reported (a missing `uri`, a malformed URI
//! template): [`extend`] adds only what they did not find.

use mcpgen_runtime::schema::{first_problem, Draft, Schema};
use serde_json::Value;

use super::Manifest;
use crate::error::Error;

/// Adds to `problems` (what the manifest checks found) every value of `m`
/// that the official schema `spec` of `revision` rejects, one error per
/// failing value (file, JSON pointer, line:column), except where one of
/// `problems` already points (at the same value, inside it or around it).
pub fn extend(m: &Manifest, spec: &Value, revision: &str, problems: &mut Vec<Error>) {
    let reported: Vec<String> = problems
        .iter()
        .filter_map(|p| p.location.as_ref().and_then(|l| l.pointer.clone()))
        .collect();
    let overlaps = |e: &Error| {
        let Some(at) = e.location.as_ref().and_then(|l| l.pointer.as_deref()) else {
            return false;
        };
        reported.iter().any(|r| within(at, r) || within(r, at))
    };
    problems.extend(
        check(m, spec, revision)
            .into_iter()
            .filter(|e| !overlaps(e)),
    );
}

/// Whether pointer `inner` names `outer` or a value inside it.
fn within(inner: &str, outer: &str) -> bool {
    inner
        .strip_prefix(outer)
        .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
}

/// Every item of `m` that the official schema `spec` of `revision` rejects.
fn check(m: &Manifest, spec: &Value, revision: &str) -> Vec<Error> {
    let mut out = Vec::new();
    let defs_key = if spec.get("$defs").is_some() {
        "$defs"
    } else {
        "definitions"
    };
    // Each section with the definition its items must satisfy.
    let tools = m
        .tools
        .iter()
        .map(|t| (t.pointer.as_str(), &t.declared))
        .collect();
    let sections: [(&str, &str, Items); 4] = [
        ("tools", "Tool", tools),
        ("resources", "Resource", declared(&m.resources)),
        (
            "resourceTemplates",
            "ResourceTemplate",
            declared(&m.resource_templates),
        ),
        ("prompts", "Prompt", declared(&m.prompts)),
    ];
    // The official schema compiled once; each section checks against its
    // definition in it.
    let official = match Schema::options(Draft::Draft7).formats(true).compile(spec) {
        Ok(v) => v,
        Err(e) => {
            out.push(Error::new(format!(
                "the MCP {revision} schema does not compile: {}",
                first_problem(&e)
            )));
            return out;
        }
    };
    for (section, name, items) in sections {
        let Some(validator) = official.subschema(&format!("/{defs_key}/{name}")) else {
            continue;
        };
        if items.is_empty() {
            continue;
        }
        for (pointer, item) in items {
            if !item.is_object() {
                continue; // reported by the section checks
            }
            let first = out.len();
            for e in validator.errors(item) {
                let at = e.path;
                if section == "tools"
                    && (at.starts_with("/inputSchema") || at.starts_with("/outputSchema"))
                {
                    continue;
                }
                out.push(m.error_at(&format!("{pointer}{at}"), format!("not a valid MCP `{name}`: {}", e.message)).with_hint(format!(
                    "`{section}` items are served exactly as declared; make this one what the MCP {revision} schema allows"
                )));
            }
            // In the order they appear in the file.
            out[first..].sort_by_key(|e| e.location.as_ref().and_then(|l| l.line_col));
        }
    }
    out
}

/// Items of a section: JSON pointer and the item as served.
type Items<'a> = Vec<(&'a str, &'a Value)>;

fn declared(items: &[super::Declared]) -> Items<'_> {
    items
        .iter()
        .map(|d| (d.pointer.as_str(), &d.declared))
        .collect()
}
