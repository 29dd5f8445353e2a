//! The runtime's modules depend on each other one way only, at every level:
//! inside each folder (the crate root included), no file or sub-folder
//! imports one that imports it back, directly or through others. The graph
//! is read from the sources (see `module_graph/graph.rs`, shared with the
//! generator's test).

#[path = "module_graph/graph.rs"]
mod graph;
#[path = "module_graph/impls.rs"]
mod impls;

use std::path::Path;

fn edges() -> graph::Edges {
    graph::read(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src"))
}

#[test]
fn no_folder_has_an_import_cycle() {
    let edges = edges();
    // The reader sees the folders it checks: a file deep in one and its
    // import of a sibling.
    assert!(
        edges["client::http::shared"].contains("transport::http::headers"),
        "{:?}",
        edges["client::http::shared"]
    );
    assert!(
        edges.contains_key("server::session") && edges.contains_key("revision"),
        "{edges:?}"
    );
    let cycles = graph::cycles(&edges);
    assert!(
        cycles.is_empty(),
        "import cycles (folder: members):\n{}",
        cycles.join("\n")
    );
}

#[test]
fn the_revision_table_is_a_leaf_everybody_reads() {
    let edges = edges();
    let revision = graph::top_level_deps(&edges, "revision");
    assert!(revision.is_empty(), "revision depends on {revision:?}");
    for reader in ["server", "client", "schema"] {
        assert!(
            graph::top_level_deps(&edges, reader).contains("revision"),
            "{reader} does not read the revision table"
        );
    }
}

#[test]
fn every_inherent_impl_is_in_its_types_file() {
    let (stray, seen) = impls::stray(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src"));
    assert!(seen > 20, "the reader saw only {seen} inherent impls");
    assert!(
        stray.is_empty(),
        "inherent impls away from the file defining their type:\n{}",
        stray.join("\n")
    );
}

/// The modules `from` reaches through its imports, directly or through
/// others.
fn reached(edges: &graph::Edges, from: &str) -> std::collections::BTreeSet<String> {
    let mut seen = std::collections::BTreeSet::new();
    let mut todo = vec![from.to_owned()];
    while let Some(module) = todo.pop() {
        for next in edges.get(&module).into_iter().flatten() {
            if seen.insert(next.clone()) {
                todo.push(next.clone());
            }
        }
    }
    seen
}

#[test]
fn the_server_the_client_and_the_transports_keep_to_their_roles() {
    let edges = edges();
    let inside =
        |module: &str, side: &str| module == side || module.starts_with(&format!("{side}::"));
    // Both sides share the transports, never each other; the transports
    // (outbound HTTP included) belong to neither side.
    let rules = [
        ("server", &["client"][..]),
        ("client", &["server"][..]),
        ("transport", &["server", "client"][..]),
    ];
    for (side, others) in rules {
        let modules: Vec<&String> = edges.keys().filter(|m| inside(m, side)).collect();
        assert!(
            modules.len() > 5,
            "the reader saw only {modules:?} in {side}"
        );
        for module in modules {
            let crossing: Vec<String> = reached(&edges, module)
                .into_iter()
                .filter(|m| others.iter().any(|other| inside(m, other)))
                .collect();
            assert!(crossing.is_empty(), "{module} reaches {crossing:?}");
        }
    }
}

/// The source files under `dir`, with their text.
fn sources(dir: &Path, out: &mut Vec<(std::path::PathBuf, String)>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            let text = std::fs::read_to_string(&path).unwrap();
            out.push((path, text));
        }
    }
}

#[test]
fn method_names_are_spelt_only_in_the_method_table() {
    use mcpgen_runtime::revision::method::Method;
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let table = src.join("revision").join("method.rs");
    let mut files = Vec::new();
    sources(&src, &mut files);
    assert!(
        files.len() > 100,
        "the reader saw only {} files",
        files.len()
    );
    let spelt = |line: &str| {
        Method::ALL
            .iter()
            .any(|m| line.contains(&format!("\"{}\"", m.name())))
    };
    // The reader finds the names where they belong: one per method.
    let in_table = std::fs::read_to_string(&table).unwrap();
    assert_eq!(
        in_table.lines().filter(|l| spelt(l)).count(),
        Method::ALL.len()
    );
    let mut stray = Vec::new();
    for (path, text) in &files {
        // The code, not its unit tests (which speak the wire as it is),
        // whether in a `tests` module or a `tests.rs` of their own.
        if *path == table || path.file_name().is_some_and(|f| f == "tests.rs") {
            continue;
        }
        let code = text.split("#[cfg(test)]").next().unwrap_or("");
        for (n, line) in code.lines().enumerate() {
            if line.trim_start().starts_with("//") {
                continue;
            }
            if spelt(line) {
                stray.push(format!("{}:{}: {}", path.display(), n + 1, line.trim()));
            }
        }
    }
    assert!(
        stray.is_empty(),
        "method names spelt outside revision/method.rs (use `Method`):\n{}",
        stray.join("\n")
    );
}

#[test]
fn the_server_rooms_read_only_the_rooms_below() {
    let edges = edges();
    let server = &graph::folders(&edges)["server"];
    // Bottom up: each room, and every sibling in `server/` it may read.
    let rooms: [(&str, &[&str]); 5] = [
        ("handler", &[]),
        ("request", &["handler"]),
        ("access", &["handler"]),
        ("tools", &["handler"]),
        (
            "answer",
            &[
                "handler", "request", "access", "tools", "config", "session", "surface", "tasks",
                "search", "skills",
            ],
        ),
    ];
    for (room, below) in rooms {
        let reads = server.get(room).cloned().unwrap_or_default();
        let stray: Vec<&String> = reads
            .iter()
            .filter(|r| !below.contains(&r.as_str()))
            .collect();
        assert!(
            stray.is_empty(),
            "server/{room} reads {stray:?} (all: {reads:?})"
        );
    }
    // The reader sees the rooms: each of the upper rooms reads `handler`.
    for room in ["request", "access", "tools", "answer"] {
        assert!(
            server.get(room).is_some_and(|r| r.contains("handler")),
            "server/{room}: {:?}",
            server.get(room)
        );
    }
    // And nothing in the rooms reads the engine or its drivers.
    for (room, _) in rooms {
        for above in ["engine", "builder", "http", "stream"] {
            assert!(
                !server.get(room).is_some_and(|r| r.contains(above)),
                "server/{room} reads {above}"
            );
        }
    }
}
