//! The generator's modules depend on each other one way only, at every
//! level: inside each folder (the crate root included), no file or
//! sub-folder imports one that imports it back. Manifests are read before
//! code is generated, so `manifest` never imports `codegen`. The graph is
//! read from the sources by the code the runtime's test uses.

#[path = "../runtime/tests/module_graph/graph.rs"]
mod graph;
#[path = "../runtime/tests/module_graph/impls.rs"]
mod impls;

use std::path::Path;

fn edges() -> graph::Edges {
    graph::read(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src"))
}

#[test]
fn no_folder_has_an_import_cycle() {
    let edges = edges();
    assert!(
        edges["codegen::tools::prepare"].contains("codegen::tools::depth"),
        "{:?}",
        edges["codegen::tools::prepare"]
    );
    let cycles = graph::cycles(&edges);
    assert!(
        cycles.is_empty(),
        "import cycles (folder: members):\n{}",
        cycles.join("\n")
    );
}

#[test]
fn manifests_are_read_without_the_code_generator() {
    let edges = edges();
    let manifest = graph::top_level_deps(&edges, "manifest");
    assert!(
        manifest.contains("error"),
        "the manifest reader is seen using the error type: {manifest:?}"
    );
    assert!(!manifest.contains("codegen"), "manifest imports codegen: {:?}",
        edges.iter().filter(|(f, t)| f.starts_with("manifest") && t.iter().any(|t| t.starts_with("codegen"))).collect::<Vec<_>>());
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
