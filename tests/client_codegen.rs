//! Properties of the generated client for a small manifest (its text is
//! the golden `goldens/manifests/client_helpers.client.rs`):
//! deterministic, parses as Rust, method names safe.

mod shared_data;

use mcpgen::codegen;
use mcpgen::manifest::Manifest;
use mcpgen::spec::Spec;

/// The manifest, also a golden input: `goldens/manifests/client_helpers.json`
/// beside the client generated from it (`client_helpers.client.rs`), which
/// `tests/goldens.rs` compares and the `goldens/` crate compiles.
fn manifest() -> Manifest {
    Manifest::load(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/goldens/manifests/client_helpers.json"
    ))
    .unwrap()
}

fn spec() -> Spec {
    Spec::load(&shared_data::schema_file("2025-11-25")).expect("the official schema 2025-11-25")
}

fn generated() -> String {
    let manifest = manifest();
    let tools = codegen::tools::generate(&manifest).unwrap();
    let tokens = codegen::client::generate(&tools.tools, &spec(), "2025-11-25", true).unwrap();
    prettyplease::unparse(&syn::parse2(tokens).expect("generated client parses as a file"))
}

#[test]
fn generated_client_is_deterministic_with_safe_method_names() {
    let code = generated();
    assert_eq!(code, generated(), "generation is deterministic");
    assert!(
        code.contains("pub async fn call_connect("),
        "helper collision renamed"
    );
    assert!(code.contains("pub async fn get_time_with("));
    assert!(
        !code.contains("#!["),
        "no inner attributes in an include!d file"
    );
}
