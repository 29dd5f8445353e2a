//! The rule that a type's inherent methods live where the type does: an
//! `impl Type { … }` block (not `impl Trait for Type`) must be in the file
//! that defines `Type`, so a reader finds every method of a type in one
//! place. Shared by the runtime's and the generator's module-graph tests.
//!
//! Read line by line from the sources: a definition is a line starting
//! (after its visibility) with `struct`, `enum`, `union` or `trait` and a
//! name; an inherent impl is a line `impl<…> Path<…> {` with no `for`. A
//! type defined in no file of the crate is not checked (a macro's, say),
//! nor is code inside `quote! { … }` (what the generator writes).
//!
//! The one way out is a comment directly above the block (among its
//! attributes and doc comments) that starts
//! `// Inherent impl away from its type:` and says why — for a method a
//! higher layer adds to a lower layer's type, which the lower layer could
//! not name without importing the layer above it.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use super::graph::rust_files;

/// The marker that lets an inherent impl live away from its type.
const AWAY: &str = "// Inherent impl away from its type:";

/// The type a definition line defines, if it is one.
fn defined(line: &str) -> Option<&str> {
    let mut rest = line.trim_start();
    if let Some(after) = rest.strip_prefix("pub") {
        rest = after.trim_start();
        if rest.starts_with('(') {
            rest = &rest[rest.find(')')? + 1..];
        }
        rest = rest.trim_start();
    }
    let rest = ["struct ", "enum ", "union ", "trait "]
        .iter()
        .find_map(|k| rest.strip_prefix(k))?;
    let end = rest
        .find(|c: char| !(c.is_alphanumeric() || c == '_'))
        .unwrap_or(rest.len());
    (end > 0).then(|| &rest[..end])
}

/// `text` past the balanced `<…>` it starts with, if it starts with one.
fn skip_generics(text: &str) -> &str {
    if !text.starts_with('<') {
        return text;
    }
    let mut depth = 0;
    for (i, c) in text.char_indices() {
        match c {
            '<' => depth += 1,
            '>' => {
                depth -= 1;
                if depth == 0 {
                    return &text[i + 1..];
                }
            }
            _ => {}
        }
    }
    ""
}

/// The type an inherent impl line is for, if it is one.
fn inherent(line: &str) -> Option<&str> {
    let rest = line.trim_start().strip_prefix("impl")?;
    if !(rest.starts_with('<') || rest.starts_with(' ')) {
        return None;
    }
    let rest = skip_generics(rest).trim_start();
    let end = rest
        .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':'))
        .unwrap_or(rest.len());
    let path = &rest[..end];
    let tail = skip_generics(&rest[end..]).trim_start();
    if path.is_empty()
        || !(tail.starts_with('{') || tail.starts_with("where"))
        || tail.contains(" for ")
    {
        return None;
    }
    path.rsplit("::").next()
}

/// Whether the lines above `index` (attributes and comments) carry [`AWAY`].
fn excused(lines: &[&str], index: usize) -> bool {
    lines[..index]
        .iter()
        .rev()
        .map(|l| l.trim_start())
        .take_while(|l| l.starts_with("//") || l.starts_with("#["))
        .any(|l| l.starts_with(AWAY) && l.len() > AWAY.len() + 8)
}

/// Which lines are inside a `quote! { … }` (code the generator writes,
/// not code of the crate), by counting braces from the macro's opening one.
fn quoted(lines: &[&str]) -> Vec<bool> {
    let mut out = Vec::with_capacity(lines.len());
    let mut depth = 0usize;
    for line in lines {
        let inside = depth > 0;
        let counted = if depth == 0 {
            line.find("quote! {")
                .or_else(|| line.find("quote!{"))
                .map(|at| &line[at..])
        } else {
            Some(*line)
        };
        if let Some(text) = counted {
            for c in text.chars() {
                match c {
                    '{' => depth += 1,
                    '}' => depth = depth.saturating_sub(1),
                    _ => {}
                }
            }
        }
        out.push(inside);
    }
    out
}

/// Every inherent impl under `src` that is away from its type's file
/// without the marker, as `file: impl Type (defined in …)`; and how many
/// inherent impls were seen (so a caller can tell the reader saw some).
pub(crate) fn stray(src: &Path) -> (Vec<String>, usize) {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    files.sort();
    let texts: Vec<(String, String)> = files
        .iter()
        .map(|f| {
            (
                f.strip_prefix(src).unwrap().display().to_string(),
                std::fs::read_to_string(f).unwrap(),
            )
        })
        .collect();
    let mut homes: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    for (name, text) in &texts {
        let lines: Vec<&str> = text.lines().collect();
        let quoted = quoted(&lines);
        for (line, _) in lines.iter().zip(quoted).filter(|(_, q)| !q) {
            if let Some(ty) = defined(line) {
                homes.entry(ty).or_default().insert(name);
            }
        }
    }
    let mut found = Vec::new();
    let mut seen = 0;
    for (name, text) in &texts {
        let lines: Vec<&str> = text.lines().collect();
        let quoted = quoted(&lines);
        for (index, line) in lines.iter().enumerate() {
            if quoted[index] {
                continue;
            }
            let Some(ty) = inherent(line) else { continue };
            seen += 1;
            let Some(home) = homes.get(ty) else { continue };
            if !home.contains(name.as_str()) && !excused(&lines, index) {
                let home: Vec<&str> = home.iter().copied().collect();
                found.push(format!(
                    "{name}:{}: impl {ty} (defined in {})",
                    index + 1,
                    home.join(", ")
                ));
            }
        }
    }
    (found, seen)
}
