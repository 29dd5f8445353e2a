//! The manifest sections besides `tools`: `resources`, `resourceTemplates`
//! and `prompts`, each exactly the list of its `*/list` result (so a
//! server's `resources/list`, `resources/templates/list` and
//! `prompts/list` output pastes in), with mcpgen's settings under
//! `x-mcpgen` (`complete`: the prompt arguments or template variables
//! that offer completion; `scopes`: the OAuth scopes a caller needs;
//! removed before the item is served).
//!
//! [`check_surface`] reports, each with file, pointer and line:column:
//! items that are not objects or lack their key members, duplicate names
//! and URIs, URI templates that are not valid RFC 6570, completion
//! declarations that name no argument or variable (or one twice), bad
//! prompt argument names, and argument or variable names two Rust fields
//! would share. Method and type names that items would share with each
//! other or with the tools are resolved by [`naming::surface_names`];
//! type names a tool's nested types already have are reported by
//! `codegen::surface::type_clashes`.

use std::collections::BTreeMap;

use mcpgen_runtime::uri_template::UriTemplate;
use serde_json::Value;

use super::format::SETTINGS_KEY;
use super::Manifest;
use crate::error::Error;
use crate::naming;

/// The three sections, as (manifest key, what one item is called).
pub const SECTIONS: [(&str, &str); 3] = [
    ("resources", "resource"),
    ("resourceTemplates", "resource template"),
    ("prompts", "prompt"),
];

/// One declared resource, resource template or prompt.
#[derive(Debug, Clone, PartialEq)]
pub struct Declared {
    /// Index in its section.
    pub index: usize,
    /// JSON pointer of the item (`/prompts/2`).
    pub pointer: String,
    /// `name` (empty when missing; `check` reports it).
    pub name: String,
    /// What identifies it on the wire: `uri`, `uriTemplate` or `name`.
    pub key: String,
    /// The item as served: every member as declared, `x-mcpgen` removed.
    pub declared: Value,
    /// `x-mcpgen.complete`: arguments or variables with completion.
    pub complete: Vec<String>,
    /// `x-mcpgen.scopes`: the OAuth scopes a caller needs to get or read it.
    pub scopes: Vec<String>,
}

impl Declared {
    /// A prompt's declared arguments: `(name, required)`.
    pub fn arguments(&self) -> Vec<(String, bool)> {
        let list = self.declared.get("arguments").and_then(Value::as_array);
        list.into_iter()
            .flatten()
            .map(|a| {
                let name = a
                    .get("name")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_owned();
                (
                    name,
                    a.get("required").and_then(Value::as_bool).unwrap_or(false),
                )
            })
            .collect()
    }

    /// A template's variables: `(name, required)` (variables of `{#…}`,
    /// `{;…}`, `{?…}` and `{&…}` may be left out of a URI).
    pub fn variables(&self) -> Vec<(String, bool)> {
        match UriTemplate::parse(&self.key) {
            Ok(t) => t
                .variables()
                .map(|v| (v.name.clone(), !v.operator.optional()))
                .collect(),
            Err(_) => Vec::new(),
        }
    }

    /// The `description`, if any.
    pub fn description(&self) -> Option<&str> {
        self.declared.get("description").and_then(Value::as_str)
    }
}

/// Reads one section of a manifest document (`key` as in [`SECTIONS`]).
pub fn read_section(document: &serde_json::Map<String, Value>, key: &str) -> Vec<Declared> {
    let member = match key {
        "resources" => "uri",
        "resourceTemplates" => "uriTemplate",
        _ => "name",
    };
    let Some(list) = document.get(key).and_then(Value::as_array) else {
        return Vec::new();
    };
    list.iter()
        .enumerate()
        .map(|(index, raw)| {
            let mut declared = raw.clone();
            let settings = declared
                .as_object_mut()
                .and_then(|o| o.shift_remove(SETTINGS_KEY));
            let strings = |key: &str| -> Vec<String> {
                settings
                    .as_ref()
                    .and_then(|s| s.get(key))
                    .and_then(Value::as_array)
                    .map(|a| {
                        a.iter()
                            .filter_map(Value::as_str)
                            .map(str::to_owned)
                            .collect()
                    })
                    .unwrap_or_default()
            };
            let (complete, scopes) = (strings("complete"), strings("scopes"));
            let text = |k: &str| {
                raw.get(k)
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_owned()
            };
            Declared {
                index,
                pointer: format!("/{key}/{index}"),
                name: text("name"),
                key: text(member),
                declared,
                complete,
                scopes,
            }
        })
        .collect()
}

/// Every problem of the three sections.
pub fn check_surface(m: &Manifest, out: &mut Vec<Error>) {
    let Some(doc) = m.document.as_object() else {
        return;
    };
    for (key, what) in SECTIONS {
        match doc.get(key) {
            None => continue,
            Some(Value::Array(items)) => {
                for (i, item) in items.iter().enumerate() {
                    if !item.is_object() {
                        out.push(
                            m.error_at(
                                &format!("/{key}/{i}"),
                                format!("a {what} must be an object"),
                            )
                            .with_hint(format!(
                                "write the {what} as its `{key}` list result has it: an object"
                            )),
                        );
                    }
                }
            }
            Some(_) => {
                out.push(
                    m.error_at(&format!("/{key}"), format!("`{key}` must be an array"))
                        .with_hint(format!("paste the `{key}` array of the list result here")),
                );
                continue;
            }
        }
    }
    check_items(m, &m.resources, "uri", "resource", out);
    check_items(
        m,
        &m.resource_templates,
        "uriTemplate",
        "resource template",
        out,
    );
    check_items(m, &m.prompts, "name", "prompt", out);
    for t in &m.resource_templates {
        check_template(m, t, out);
    }
    for p in &m.prompts {
        check_prompt(m, p, out);
    }
    for r in &m.resources {
        if let Some(settings) = settings_of(m, r) {
            if settings.get("complete").is_some() {
                out.push(m.error_at(&format!("{}/{SETTINGS_KEY}/complete", r.pointer), "a static resource has nothing to complete")
                    .with_hint("declare completion on a resource template's variables or a prompt's arguments"));
            }
        }
    }
}

fn settings_of<'a>(m: &'a Manifest, item: &Declared) -> Option<&'a Value> {
    m.document
        .pointer(&item.pointer)
        .and_then(|v| v.get(SETTINGS_KEY))
}

/// Names, keys and Rust names of one section.
fn check_items(m: &Manifest, items: &[Declared], key: &str, what: &str, out: &mut Vec<Error>) {
    let mut keys: BTreeMap<&str, &str> = BTreeMap::new();
    let mut names: BTreeMap<&str, &str> = BTreeMap::new();
    for item in items {
        if !item.declared.is_object() {
            continue;
        }
        for member in ["name", key] {
            if !item.declared.get(member).is_some_and(Value::is_string) {
                out.push(
                    m.error_at(&item.pointer, format!("a {what} needs a string `{member}`"))
                        .with_hint(format!("add `\"{member}\": \"...\"`")),
                );
            }
        }
        if !item.key.is_empty() {
            if let Some(first) = keys.insert(&item.key, &item.pointer) {
                out.push(
                    m.error_at(
                        &format!("{}/{key}", item.pointer),
                        format!("duplicate {what} {key} {:?} (first at {first})", item.key),
                    )
                    .with_hint(format!(
                        "each {what} needs its own `{key}`; remove or change one"
                    )),
                );
            }
        }
        if !item.name.is_empty() && key != "name" {
            if let Some(first) = names.insert(&item.name, &item.pointer) {
                out.push(
                    m.error_at(
                        &format!("{}/name", item.pointer),
                        format!("duplicate {what} name {:?} (first at {first})", item.name),
                    )
                    .with_hint(format!("give each {what} its own `name`")),
                );
            }
        }
        if let Some(settings) = settings_of(m, item) {
            let complete = settings.get("complete");
            if !settings.is_object()
                || complete
                    .is_some_and(|c| !c.as_array().is_some_and(|a| a.iter().all(Value::is_string)))
            {
                out.push(m.error_at(
                    &format!("{}/{SETTINGS_KEY}", item.pointer),
                    format!("`{SETTINGS_KEY}` of a {what} is an object whose `complete` is an array of names"),
                ).with_hint(format!("write `\"{SETTINGS_KEY}\": {{\"complete\": [\"argument\"]}}`")));
            }
            match settings.get("scopes") {
                None => {}
                Some(Value::Array(list)) if list.iter().all(Value::is_string) => {
                    super::scopes::check_scopes(
                        m,
                        &item.scopes,
                        &format!("{}/{SETTINGS_KEY}/scopes", item.pointer),
                        out,
                    );
                }
                Some(_) => out.push(
                    m.error_at(
                        &format!("{}/{SETTINGS_KEY}/scopes", item.pointer),
                        "`scopes` is an array of OAuth scope strings",
                    )
                    .with_hint(format!(
                        "write `\"{SETTINGS_KEY}\": {{\"scopes\": [\"notes:read\"]}}`"
                    )),
                ),
            }
        }
    }
}

fn check_template(m: &Manifest, t: &Declared, out: &mut Vec<Error>) {
    if t.key.is_empty() {
        return;
    }
    let template = match UriTemplate::parse(&t.key) {
        Ok(template) => template,
        Err(e) => {
            out.push(
                m.error_at(&format!("{}/uriTemplate", t.pointer), format!("{:?} is not an RFC 6570 URI template: {e}", t.key))
                    .with_hint("expressions are `{name}`, `{+name}`, `{/a,b}`, `{?q}`…; literal `{`, `}` and spaces are not allowed"),
            );
            return;
        }
    };
    if template.is_fixed() {
        out.push(
            m.error_at(
                &format!("{}/uriTemplate", t.pointer),
                format!("{:?} has no variables", t.key),
            )
            .with_hint("declare a fixed URI under `resources` instead"),
        );
    }
    let variables: Vec<&str> = template.variables().map(|v| v.name.as_str()).collect();
    check_fields(m, t, &variables, "variable", out);
    check_complete(m, t, &variables, "a variable of its URI template", out);
}

fn check_prompt(m: &Manifest, p: &Declared, out: &mut Vec<Error>) {
    let arguments = match p.declared.get("arguments") {
        None => Vec::new(),
        Some(Value::Array(list)) => list.clone(),
        Some(_) => {
            out.push(
                m.error_at(
                    &format!("{}/arguments", p.pointer),
                    "`arguments` must be an array of PromptArgument objects",
                )
                .with_hint("write `\"arguments\": [{\"name\": \"...\", \"required\": true}]`"),
            );
            return;
        }
    };
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    let mut names = Vec::new();
    for (i, arg) in arguments.iter().enumerate() {
        let at = format!("{}/arguments/{i}", p.pointer);
        let Some(name) = arg.get("name").and_then(Value::as_str) else {
            out.push(
                m.error_at(&at, "a prompt argument needs a string `name`")
                    .with_hint("add `\"name\": \"...\"`"),
            );
            continue;
        };
        if let Some(problem) = argument_name_problem(name) {
            out.push(
                m.error_at(
                    &format!("{at}/name"),
                    format!("prompt argument name {name:?} {problem}"),
                )
                .with_hint(
                    "argument names are 1 to 128 characters of A-Z, a-z, 0-9, `_`, `-` and `.`",
                ),
            );
        }
        if let Some(first) = seen.insert(name.to_owned(), i) {
            out.push(
                m.error_at(
                    &format!("{at}/name"),
                    format!(
                        "duplicate prompt argument {name:?} (first at {}/arguments/{first})",
                        p.pointer
                    ),
                )
                .with_hint("give each argument its own name"),
            );
        }
        if arg.get("required").is_some_and(|r| !r.is_boolean()) {
            out.push(
                m.error_at(
                    &format!("{at}/required"),
                    "`required` must be true or false",
                )
                .with_hint("write `\"required\": true` or leave it out"),
            );
        }
        names.push(name);
    }
    check_fields(m, p, &names, "argument", out);
    check_complete(m, p, &names, "an argument of the prompt", out);
}

/// Why a prompt argument name is not accepted, if it is not.
fn argument_name_problem(name: &str) -> Option<&'static str> {
    if name.is_empty() || name.len() > 128 {
        return Some("must have 1 to 128 characters");
    }
    if !name
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
    {
        return Some("may only hold A-Z, a-z, 0-9, `_`, `-` and `.`");
    }
    None
}

/// Argument or variable names two fields would share.
fn check_fields(m: &Manifest, item: &Declared, names: &[&str], what: &str, out: &mut Vec<Error>) {
    let mut fields: BTreeMap<String, &str> = BTreeMap::new();
    for name in names {
        let field = naming::field_name(name);
        if let Some(first) = fields.insert(field.clone(), name) {
            if first != *name {
                out.push(
                    m.error_at(
                        &item.pointer,
                        format!(
                            "{what}s {first:?} and {name:?} would both be the Rust field `{field}`"
                        ),
                    )
                    .with_hint(format!("rename one of the {what}s")),
                );
            }
        }
    }
}

fn check_complete(m: &Manifest, item: &Declared, names: &[&str], what: &str, out: &mut Vec<Error>) {
    for (i, c) in item.complete.iter().enumerate() {
        if item.complete[..i].contains(c) {
            out.push(
                m.error_at(
                    &format!("{}/{SETTINGS_KEY}/complete/{i}", item.pointer),
                    format!("{c:?} is listed twice"),
                )
                .with_hint("list each argument or variable once"),
            );
        } else if !names.contains(&c.as_str()) {
            out.push(
                m.error_at(
                    &format!("{}/{SETTINGS_KEY}/complete/{i}", item.pointer),
                    format!("{c:?} is not {what}"),
                )
                .with_hint(format!(
                    "completion can be declared for: {}",
                    names.join(", ")
                )),
            );
        }
    }
}
