//! `mcpgen diff OLD NEW` with two manifests (say the committed one and
//! what `mcpgen introspect` reads from the live server): tools, resources,
//! resource templates and prompts added, removed or changed (members
//! added, removed or with another value; prompt arguments added, removed,
//! made required or optional), and the items of the generated server and
//! client that appear, disappear or change signature (`get_<prompt>`,
//! `read_<template>`, `Handler::prompt_<name>`, …) for one revision.
//!
//! Items are matched by what identifies them on the wire: tools and
//! prompts by `name`, resources by `uri`, templates by `uriTemplate`.

use std::collections::BTreeMap;
use std::fmt;

use serde::Serialize;
use serde_json::Value;

use super::GeneratedChange;
use crate::manifest::Manifest;
use crate::spec::Spec;

/// The differences between two manifests.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ManifestDiff {
    /// The older manifest file.
    pub from: String,
    /// The newer manifest file.
    pub to: String,
    /// The revision the generated items are compared for.
    pub revision: String,
    /// Items added, removed or changed, by section, in section order.
    pub items: Vec<ItemChange>,
    /// Generated items that appear, disappear or change.
    pub generated: Vec<GeneratedChange>,
}

/// One tool, resource, template or prompt that differs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ItemChange {
    /// The manifest section (`tools`, `resources`, `resourceTemplates`, `prompts`).
    pub section: &'static str,
    /// Its name, URI or URI template.
    pub key: String,
    /// `added`, `removed` or `changed`.
    pub change: &'static str,
    /// For `changed`: what changed, one line each.
    pub details: Vec<String>,
}

/// The sections as (key, what one item is called).
const SECTIONS: [(&str, &str); 4] = [
    ("tools", "tool"),
    ("resources", "resource"),
    ("resourceTemplates", "resource template"),
    ("prompts", "prompt"),
];

/// A section's items as served (`x-mcpgen` removed), keyed by identity, in order.
fn section(manifest: &Manifest, key: &str) -> Vec<(String, Value)> {
    match key {
        "tools" => manifest
            .tools
            .iter()
            .map(|t| (t.name.clone(), t.declared.clone()))
            .collect(),
        "resources" => manifest
            .resources
            .iter()
            .map(|d| (d.key.clone(), d.declared.clone()))
            .collect(),
        "resourceTemplates" => manifest
            .resource_templates
            .iter()
            .map(|d| (d.key.clone(), d.declared.clone()))
            .collect(),
        _ => manifest
            .prompts
            .iter()
            .map(|d| (d.key.clone(), d.declared.clone()))
            .collect(),
    }
}

/// A value for a one-line message: compact JSON, at most 60 characters.
fn short(value: &Value) -> String {
    let text = value.to_string();
    match text.char_indices().nth(60) {
        Some((i, _)) => format!("{}…", &text[..i]),
        None => text,
    }
}

/// A prompt's arguments by name: (required, the argument object).
fn arguments(prompt: &Value) -> Vec<(String, bool, Value)> {
    let list = prompt.get("arguments").and_then(Value::as_array);
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
                a.clone(),
            )
        })
        .collect()
}

fn argument_changes(a: &Value, b: &Value, out: &mut Vec<String>) {
    let (aa, ab) = (arguments(a), arguments(b));
    let optional = |r: bool| if r { "required" } else { "optional" };
    for (name, required, old) in &aa {
        match ab.iter().find(|(n, ..)| n == name) {
            None => out.push(format!("- argument `{name}`")),
            Some((_, now, new)) => {
                if required != now {
                    out.push(format!(
                        "~ argument `{name}`: {} → {}",
                        optional(*required),
                        optional(*now)
                    ));
                }
                member_changes(
                    old,
                    new,
                    &format!("argument `{name}` "),
                    &["name", "required"],
                    out,
                );
            }
        }
    }
    for (name, required, _) in ab.iter().filter(|(n, ..)| !aa.iter().any(|(m, ..)| m == n)) {
        out.push(format!("+ argument `{name}` ({})", optional(*required)));
    }
}

/// Members of two objects added, removed or with another value, except `skip`.
fn member_changes(a: &Value, b: &Value, prefix: &str, skip: &[&str], out: &mut Vec<String>) {
    let empty = serde_json::Map::new();
    let (ma, mb) = (
        a.as_object().unwrap_or(&empty),
        b.as_object().unwrap_or(&empty),
    );
    for (k, va) in ma.iter().filter(|(k, _)| !skip.contains(&k.as_str())) {
        match mb.get(k) {
            None => out.push(format!("- {prefix}member `{k}`")),
            Some(vb) if vb != va => out.push(format!(
                "~ {prefix}member `{k}`: {} → {}",
                short(va),
                short(vb)
            )),
            Some(_) => {}
        }
    }
    for k in mb
        .keys()
        .filter(|k| !skip.contains(&k.as_str()) && !ma.contains_key(*k))
    {
        out.push(format!("+ {prefix}member `{k}`: {}", short(&mb[k])));
    }
}

/// Compares two manifests; the generated items for `revision` (`spec`).
pub fn compare_manifests(
    from: &Manifest,
    to: &Manifest,
    spec: &Spec,
    revision: &str,
) -> ManifestDiff {
    let mut items = Vec::new();
    for (key, _) in SECTIONS {
        let (a, b) = (section(from, key), section(to, key));
        for (id, va) in &a {
            let change = match b.iter().find(|(k, _)| k == id) {
                None => ItemChange {
                    section: key,
                    key: id.clone(),
                    change: "removed",
                    details: Vec::new(),
                },
                Some((_, vb)) if vb != va => {
                    let mut details = Vec::new();
                    member_changes(va, vb, "", &["arguments"], &mut details);
                    argument_changes(va, vb, &mut details);
                    ItemChange {
                        section: key,
                        key: id.clone(),
                        change: "changed",
                        details,
                    }
                }
                Some(_) => continue,
            };
            items.push(change);
        }
        for (id, _) in b.iter().filter(|(k, _)| !a.iter().any(|(j, _)| j == k)) {
            items.push(ItemChange {
                section: key,
                key: id.clone(),
                change: "added",
                details: Vec::new(),
            });
        }
    }
    let generated = match (
        super::manifest_items(from, None, spec, revision),
        super::manifest_items(to, None, spec, revision),
    ) {
        (Ok(a), Ok(b)) => super::item_changes(&a, &b),
        (Err(e), _) | (_, Err(e)) => vec![GeneratedChange {
            item: format!("(the server and client could not be generated: {e})"),
            change: "changed",
            from: None,
            to: None,
        }],
    };
    ManifestDiff {
        from: from.file.display().to_string(),
        to: to.file.display().to_string(),
        revision: revision.to_owned(),
        items,
        generated,
    }
}

impl ManifestDiff {
    /// True when the manifests serve the same items and generate the same code.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty() && self.generated.is_empty()
    }

    fn count(&self, section: &str, change: &str) -> usize {
        self.items
            .iter()
            .filter(|i| i.section == section && i.change == change)
            .count()
    }
}

impl fmt::Display for ManifestDiff {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "Manifest {} → {} (generated for {})",
            self.from, self.to, self.revision
        )?;
        let counts: Vec<String> = SECTIONS
            .iter()
            .map(|(key, _)| {
                let n = |c| self.count(key, c);
                format!(
                    "{key}: {} added, {} removed, {} changed",
                    n("added"),
                    n("removed"),
                    n("changed")
                )
            })
            .collect();
        writeln!(f, "{}", counts.join("; "))?;
        let mut by_section: BTreeMap<usize, Vec<&ItemChange>> = BTreeMap::new();
        for item in &self.items {
            let at = SECTIONS
                .iter()
                .position(|(k, _)| *k == item.section)
                .unwrap_or(0);
            by_section.entry(at).or_default().push(item);
        }
        for (at, list) in by_section {
            let (key, what) = SECTIONS[at];
            writeln!(f, "\n{key}:")?;
            for item in list {
                let sign = match item.change {
                    "added" => '+',
                    "removed" => '-',
                    _ => '~',
                };
                writeln!(f, "  {sign} {what} `{}`", item.key)?;
                for d in &item.details {
                    writeln!(f, "      {d}")?;
                }
            }
        }
        if !self.generated.is_empty() {
            writeln!(f, "\nGenerated items that change:")?;
            for g in &self.generated {
                writeln!(f, "  {g}")?;
            }
        }
        if self.is_empty() {
            writeln!(f, "\nNo differences.")?;
        }
        Ok(())
    }
}
