//! A crate's module graph read from its sources, and the layering rule
//! checked on it: inside every folder (the crate root included), the files
//! and sub-folders — each taken with everything below it — import each other
//! one way only. Shared by the runtime's `tests/module_graph.rs` and the
//! generator's (`#[path]`), so both crates keep the same rule.
//!
//! Every file is a node, named by its module path (`http::scan`; `""` for
//! `lib.rs`/`main.rs`). Edges come from the paths in its code outside
//! comments, string literals and `#[cfg(test)]` items: `crate::…`,
//! `super::…`, `self::…` and paths starting with a child module's name,
//! resolved to the deepest module that exists, and followed through `pub
//! use` re-exports (so `use super::Type`, re-exported by the parent, counts
//! as an edge to the file that defines `Type`). A `pub use` is a name, not
//! a use: it adds no edge of its own (an item moved elsewhere may keep its
//! old path that way), but an import through it lands on the defining
//! file. `tests.rs` files (unit tests kept beside their module) are left
//! out.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Module path → the module paths its file imports.
pub(crate) type Edges = BTreeMap<String, BTreeSet<String>>;

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Ident(String),
    PathSep,
    Punct(char),
}

fn lex(text: &str) -> Vec<Tok> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            let mut depth = 0;
            while i < chars.len() {
                if chars[i] == '/' && chars.get(i + 1) == Some(&'*') {
                    depth += 1;
                    i += 2;
                } else if chars[i] == '*' && chars.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
        } else if c == '"' {
            i = skip_string(&chars, i + 1);
        } else if (c == 'r' || c == 'b') && raw_string_start(&chars, i).is_some() {
            let (hashes, body) = raw_string_start(&chars, i).unwrap();
            i = body;
            loop {
                if i >= chars.len() {
                    break;
                }
                if chars[i] == '"' && (0..hashes).all(|k| chars.get(i + 1 + k) == Some(&'#')) {
                    i += 1 + hashes;
                    break;
                }
                i += 1;
            }
        } else if c == 'b' && next == Some('"') {
            i = skip_string(&chars, i + 2);
        } else if c == '\'' {
            // A char literal ('x', '\n', '\u{..}') or a lifetime ('a).
            if next == Some('\\') {
                i += 2;
                while i < chars.len() && chars[i] != '\'' {
                    i += 1;
                }
                i += 1;
            } else if chars.get(i + 2) == Some(&'\'') {
                i += 3;
            } else {
                i += 1;
                while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                    i += 1;
                }
            }
        } else if c.is_alphabetic() || c == '_' {
            let start = i;
            while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            let word: String = chars[start..i].iter().collect();
            // `r#type`: a raw identifier.
            if word == "r" && chars.get(i) == Some(&'#') {
                i += 1;
                continue;
            }
            out.push(Tok::Ident(word));
        } else if c.is_ascii_digit() {
            while i < chars.len()
                && (chars[i].is_alphanumeric() || chars[i] == '_' || chars[i] == '.')
            {
                i += 1;
            }
        } else if c == ':' && next == Some(':') {
            out.push(Tok::PathSep);
            i += 2;
        } else {
            if !c.is_whitespace() {
                out.push(Tok::Punct(c));
            }
            i += 1;
        }
    }
    out
}

/// The index after the closing quote of a string whose body starts at `i`.
fn skip_string(chars: &[char], mut i: usize) -> usize {
    while i < chars.len() {
        match chars[i] {
            '\\' => i += 2,
            '"' => return i + 1,
            _ => i += 1,
        }
    }
    i
}

/// `r"`, `r#"`, `br#"`: the number of `#` and where the body starts.
fn raw_string_start(chars: &[char], i: usize) -> Option<(usize, usize)> {
    let mut j = i;
    if chars.get(j) == Some(&'b') {
        j += 1;
    }
    if chars.get(j) != Some(&'r') {
        return None;
    }
    // Not the tail of an identifier such as `bar"`.
    if i > 0 && (chars[i - 1].is_alphanumeric() || chars[i - 1] == '_') {
        return None;
    }
    j += 1;
    let mut hashes = 0;
    while chars.get(j) == Some(&'#') {
        hashes += 1;
        j += 1;
    }
    (chars.get(j) == Some(&'"')).then_some((hashes, j + 1))
}

/// The tokens without `#[cfg(test)]` items (unit tests, test helpers).
fn without_tests(toks: Vec<Tok>) -> Vec<Tok> {
    let test_attr = [
        Tok::Punct('#'),
        Tok::Punct('['),
        Tok::Ident("cfg".into()),
        Tok::Punct('('),
        Tok::Ident("test".into()),
        Tok::Punct(')'),
        Tok::Punct(']'),
    ];
    let mut out = Vec::new();
    let mut i = 0;
    while i < toks.len() {
        if toks[i..].starts_with(&test_attr) {
            i += test_attr.len();
            // Skip the item: up to a `;` or the `}` closing its first block.
            let mut depth = 0usize;
            while i < toks.len() {
                match toks[i] {
                    Tok::Punct('{') => depth += 1,
                    Tok::Punct('}') => {
                        depth = depth.saturating_sub(1);
                        if depth == 0 {
                            i += 1;
                            break;
                        }
                    }
                    Tok::Punct(';') if depth == 0 => {
                        i += 1;
                        break;
                    }
                    _ => {}
                }
                i += 1;
            }
        } else {
            out.push(toks[i].clone());
            i += 1;
        }
    }
    out
}

/// One file: its module path and the paths it names.
struct File {
    module: Vec<String>,
    /// Paths as written (`use` trees flattened), first segment unresolved.
    paths: Vec<Vec<String>>,
    /// `pub use` items: the name they are known by → the path they name.
    exports: BTreeMap<String, Vec<String>>,
}

fn ident(t: Option<&Tok>) -> Option<&str> {
    match t {
        Some(Tok::Ident(s)) => Some(s),
        _ => None,
    }
}

/// Parses the use tree at `toks[*i]` with `prefix`, pushing (path, name) pairs.
fn use_tree(
    toks: &[Tok],
    i: &mut usize,
    prefix: Vec<String>,
    out: &mut Vec<(Vec<String>, String)>,
) {
    let mut path = prefix;
    loop {
        match toks.get(*i) {
            Some(Tok::Ident(s)) if s == "as" => {
                *i += 1;
                let alias = ident(toks.get(*i)).unwrap_or("_").to_owned();
                *i += 1;
                out.push((path, alias));
                return;
            }
            Some(Tok::Ident(s)) => {
                path.push(s.clone());
                *i += 1;
            }
            Some(Tok::PathSep) => *i += 1,
            Some(Tok::Punct('{')) => {
                *i += 1;
                loop {
                    match toks.get(*i) {
                        Some(Tok::Punct('}')) => {
                            *i += 1;
                            return;
                        }
                        Some(Tok::Punct(',')) => *i += 1,
                        None => return,
                        _ => use_tree(toks, i, path.clone(), out),
                    }
                }
            }
            Some(Tok::Punct('*')) => {
                *i += 1;
                out.push((path, "*".into()));
                return;
            }
            _ => {
                let name = path.last().cloned().unwrap_or_default();
                out.push((path, name));
                return;
            }
        }
    }
}

fn read_file(module: Vec<String>, text: &str) -> File {
    let toks = without_tests(lex(text));
    let mut paths = Vec::new();
    let mut exports = BTreeMap::new();
    let mut i = 0;
    while i < toks.len() {
        if ident(toks.get(i)) == Some("use") {
            // `pub use`, `pub(crate) use`, `pub(super) use`: a re-export.
            let public = i > 0
                && (ident(toks.get(i - 1)) == Some("pub")
                    || (toks.get(i - 1) == Some(&Tok::Punct(')'))
                        && toks[..i]
                            .iter()
                            .rev()
                            .nth(3)
                            .is_some_and(|t| *t == Tok::Ident("pub".into()))));
            i += 1;
            if toks.get(i) == Some(&Tok::PathSep) {
                i += 1; // `use ::std::…`
            }
            let mut items = Vec::new();
            use_tree(&toks, &mut i, Vec::new(), &mut items);
            for (path, name) in items {
                // `use a::b::{self, …}`: `self` names `a::b`.
                let path: Vec<String> = path
                    .into_iter()
                    .enumerate()
                    .filter(|(k, s)| *k == 0 || s != "self")
                    .map(|(_, s)| s)
                    .collect();
                let name = if name == "self" {
                    path.last().cloned().unwrap_or_default()
                } else {
                    name
                };
                if public {
                    if name != "*" {
                        exports.insert(name, path);
                    }
                } else {
                    paths.push(path);
                }
            }
            continue;
        }
        // A path in code: an identifier followed by `::`, not itself after `::`.
        if let Some(first) = ident(toks.get(i)) {
            let after_sep = i > 0 && toks[i - 1] == Tok::PathSep;
            if !after_sep && toks.get(i + 1) == Some(&Tok::PathSep) {
                let mut path = vec![first.to_owned()];
                let mut j = i + 1;
                while toks.get(j) == Some(&Tok::PathSep) {
                    match ident(toks.get(j + 1)) {
                        Some(s) => path.push(s.to_owned()),
                        None => break,
                    }
                    j += 2;
                }
                paths.push(path);
                i = j;
                continue;
            }
        }
        i += 1;
    }
    File {
        module,
        paths,
        exports,
    }
}

/// Every `.rs` file under `dir`.
pub(crate) fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

fn module_of(rel: &Path) -> Vec<String> {
    let mut parts: Vec<String> = rel
        .iter()
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    let last = parts.pop().unwrap();
    let stem = last.trim_end_matches(".rs");
    if !(stem == "mod" || (parts.is_empty() && (stem == "lib" || stem == "main"))) {
        parts.push(stem.to_owned());
    }
    parts
}

/// The graph of the crate whose sources are in `src`: every file's module
/// and the modules it imports (itself left out).
pub(crate) fn read(src: &Path) -> Edges {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    let files: Vec<File> = files
        .iter()
        .filter(|f| f.file_name().is_some_and(|n| n != "tests.rs"))
        .map(|f| {
            read_file(
                module_of(f.strip_prefix(src).unwrap()),
                &std::fs::read_to_string(f).unwrap(),
            )
        })
        .collect();
    let modules: BTreeMap<Vec<String>, &File> =
        files.iter().map(|f| (f.module.clone(), f)).collect();
    let mut edges = Edges::new();
    for file in &files {
        let from = file.module.join("::");
        let deps = edges.entry(from.clone()).or_default();
        for path in &file.paths {
            let Some(abs) = absolute(&file.module, path, &modules) else {
                continue;
            };
            let to = resolve(abs, &modules, 0).join("::");
            if to != from {
                deps.insert(to);
            }
        }
    }
    edges
}

/// A path as written in `module`, made absolute; `None` when it names
/// something outside the crate (std, a dependency, a local item).
fn absolute(
    module: &[String],
    path: &[String],
    modules: &BTreeMap<Vec<String>, &File>,
) -> Option<Vec<String>> {
    let mut base: Vec<String> = module.to_vec();
    let mut rest = path;
    match rest.first().map(String::as_str) {
        Some("crate") => {
            base.clear();
            rest = &rest[1..];
        }
        Some("self") => rest = &rest[1..],
        Some("super") => {
            while rest.first().map(String::as_str) == Some("super") {
                base.pop()?;
                rest = &rest[1..];
            }
        }
        Some(first) => {
            // A 2018 relative path: only a child module of this one counts.
            let mut child = base.clone();
            child.push(first.to_owned());
            if !modules.contains_key(&child) {
                return None;
            }
        }
        None => return None,
    }
    base.extend(rest.iter().cloned());
    Some(base)
}

/// The module an absolute path lands in: its deepest existing module,
/// followed through that module's `pub use` re-exports.
fn resolve(path: Vec<String>, modules: &BTreeMap<Vec<String>, &File>, depth: usize) -> Vec<String> {
    let mut n = path.len();
    while n > 0 && !modules.contains_key(&path[..n]) {
        n -= 1;
    }
    let module = path[..n].to_vec();
    if depth < 16 {
        if let (Some(name), Some(file)) = (path.get(n), modules.get(&module)) {
            if let Some(target) = file.exports.get(name) {
                if let Some(mut abs) = absolute(&module, target, modules) {
                    abs.extend(path[n + 1..].iter().cloned());
                    let landed = resolve(abs, modules, depth + 1);
                    // A re-export of something in a module of the crate.
                    if landed != module {
                        return landed;
                    }
                }
            }
        }
    }
    module
}

/// Every folder's graph: the folder's module → (child → children it imports),
/// from the file edges between two different children of that folder.
pub(crate) fn folders(edges: &Edges) -> BTreeMap<String, Edges> {
    let mut out: BTreeMap<String, Edges> = BTreeMap::new();
    for (from, tos) in edges {
        let f: Vec<&str> = if from.is_empty() {
            vec![]
        } else {
            from.split("::").collect()
        };
        for to in tos {
            let t: Vec<&str> = if to.is_empty() {
                vec![]
            } else {
                to.split("::").collect()
            };
            let common = f.iter().zip(&t).take_while(|(a, b)| a == b).count();
            // A file importing its own folder's module or a module below it
            // is a parent-child edge, not one between siblings.
            if common == f.len() || common == t.len() {
                continue;
            }
            out.entry(f[..common].join("::"))
                .or_default()
                .entry(f[common].to_owned())
                .or_default()
                .insert(t[common].to_owned());
        }
    }
    out
}

/// The import cycles among the children of each folder, each as its
/// members (a strongly connected set of two or more), e.g. `http: headers, scan`.
pub(crate) fn cycles(edges: &Edges) -> Vec<String> {
    let mut found = Vec::new();
    for (folder, graph) in folders(edges) {
        let reach = |start: &str| {
            let mut seen = BTreeSet::new();
            let mut stack = vec![start.to_owned()];
            while let Some(n) = stack.pop() {
                for d in graph.get(&n).into_iter().flatten() {
                    if seen.insert(d.clone()) {
                        stack.push(d.clone());
                    }
                }
            }
            seen
        };
        let reaches: BTreeMap<&String, BTreeSet<String>> =
            graph.keys().map(|k| (k, reach(k))).collect();
        let mut done = BTreeSet::new();
        for (node, r) in &reaches {
            if done.contains(*node) || !r.contains(*node) {
                continue;
            }
            let members: Vec<&String> = r
                .iter()
                .filter(|m| reaches.get(m).is_some_and(|back| back.contains(*node)))
                .collect();
            done.extend(members.iter().map(|m| (*m).clone()));
            let names: Vec<&str> = members.iter().map(|m| m.as_str()).collect();
            let folder = if folder.is_empty() {
                "crate"
            } else {
                folder.as_str()
            };
            found.push(format!("{folder}: {}", names.join(", ")));
        }
    }
    found
}

/// What the top-level module `name` (with everything below it) imports
/// from the other top-level modules.
pub(crate) fn top_level_deps(edges: &Edges, name: &str) -> BTreeSet<String> {
    folders(edges)
        .get("")
        .and_then(|g| g.get(name))
        .cloned()
        .unwrap_or_default()
}
