//! The runtime's top-level modules depend on each other one way only: no
//! module imports one that imports it back (directly or through others).
//! Read from the sources: every `crate::NAME` path outside comments and
//! unit tests is an edge from the module of the file to `NAME`.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

fn rust_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The code of a file without comments and without its unit tests.
fn code_of(text: &str) -> String {
    let text = text.split("#[cfg(test)]").next().unwrap_or("");
    text.lines().filter(|l| !l.trim_start().starts_with("//")).collect::<Vec<_>>().join("\n")
}

fn graph() -> BTreeMap<String, BTreeSet<String>> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for file in files {
        let rel = file.strip_prefix(&src).unwrap();
        let top = rel.components().next().unwrap().as_os_str().to_string_lossy().trim_end_matches(".rs").to_owned();
        if top == "lib" {
            continue;
        }
        let code = code_of(&std::fs::read_to_string(&file).unwrap());
        let deps = graph.entry(top.clone()).or_default();
        for (i, _) in code.match_indices("crate::") {
            let name: String = code[i + 7..].chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
            if !name.is_empty() && name != top && name.chars().next().is_some_and(|c| c.is_ascii_lowercase()) {
                deps.insert(name);
            }
        }
    }
    graph
}

#[test]
fn top_level_modules_have_no_import_cycle() {
    let graph = graph();
    assert!(graph.contains_key("server") && graph.contains_key("revision"), "{graph:?}");
    // Depth-first search from every module for a path back to it.
    for start in graph.keys() {
        let mut stack = vec![(start.clone(), vec![start.clone()])];
        let mut seen = BTreeSet::new();
        while let Some((node, path)) = stack.pop() {
            for dep in graph.get(&node).into_iter().flatten() {
                assert!(dep != start, "import cycle: {} -> {dep}", path.join(" -> "));
                if seen.insert(dep.clone()) {
                    let mut next = path.clone();
                    next.push(dep.clone());
                    stack.push((dep.clone(), next));
                }
            }
        }
    }
}

#[test]
fn the_revision_table_is_a_leaf_everybody_reads() {
    let graph = graph();
    assert!(graph["revision"].is_empty(), "revision depends on {:?}", graph["revision"]);
    for reader in ["server", "client", "validate"] {
        assert!(graph[reader].contains("revision"), "{reader} does not read the revision table");
    }
}
