//! Properties of the generated server for a small manifest (its text is
//! the golden `goldens/manifests/calc.server.rs`): deterministic, parses as a file without inner attributes,
//! the revision's content type for tools without `outputSchema`, the
//! manifest's server info and rate limits, and the supported revisions.

mod shared_data;

use mcpgen::codegen;
use mcpgen::manifest::Manifest;
use mcpgen::spec::Spec;

/// The manifest, also a golden input: `goldens/manifests/calc.json`
/// beside the server generated from it (`calc.server.rs`), which
/// `tests/goldens.rs` compares and the `goldens/` crate compiles.
fn manifest() -> Manifest {
    Manifest::load(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/goldens/manifests/calc.json"
    ))
    .unwrap()
}

fn spec(revision: &str) -> Spec {
    Spec::load(&shared_data::schema_file(revision)).expect("the official schema")
}

fn generated(revision: &str) -> String {
    let manifest = manifest();
    let tools = codegen::tools::generate(&manifest).unwrap();
    let tokens = codegen::siblings::file(
        codegen::server::generate(&manifest, &tools.tools, &spec(revision), revision, true)
            .unwrap(),
    );
    prettyplease::unparse(&syn::parse2(tokens).expect("generated server parses as a file"))
}

#[test]
fn generated_server_carries_the_manifest_and_revision() {
    let code = generated("2025-11-25");
    assert_eq!(code, generated("2025-11-25"), "generation is deterministic");
    assert!(
        !code.contains("#!["),
        "no inner attributes in an include!d file"
    );
    assert!(
        !code.contains("//!"),
        "no inner doc comments in an include!d file"
    );
    assert!(
        code.contains("Vec<protocol::ContentBlock>"),
        "content blocks for tools without outputSchema"
    );
    assert!(
        code.contains("tools::AddOutput,"),
        "typed output for tools with outputSchema"
    );
    assert!(code.contains("RateLimit::calls_per_seconds(10u32, 60u32)"));
    assert!(
        code.contains("pub use tools::TOOLS_JSON;"),
        "the tool list is emitted once, in tools.rs"
    );
    assert!(
        code.contains("use super::{protocol, tools};") && !code.contains("super::tools::"),
        "the sibling files are imported once and named short"
    );
    let manifest = manifest();
    let tools_json =
        codegen::tools::tools_json(&codegen::tools::generate(&manifest).unwrap().tools)
            .unwrap()
            .to_string();
    assert!(
        tools_json.contains("TOOLS_JSON : & str = r#\"[\n  {"),
        "pretty JSON in a raw string: {tools_json}"
    );
    assert!(
        !tools_json.contains("x-mcpgen"),
        "generator settings are not served"
    );
    assert!(
        tools_json.contains(r#""x-vendor": true"#),
        "unknown fields are served"
    );
    assert!(
        code.contains(r#"info.insert("websiteUrl".into(), "https://example.com/calc".into());"#),
        "serverInfo keeps other Implementation members, as data"
    );
    assert!(
        !code.contains("from_str(\"{"),
        "no server information parsed from a string at run time"
    );
    assert!(code.contains("tool_index::ADD =>"), "named dispatch arms");
}

#[test]
fn servers_of_any_revision_serve_both_eras() {
    let code = generated("2025-06-18");
    assert!(code.contains(r#"pub const PROTOCOL_VERSION: &str = "2025-06-18";"#));
    for revision in ["2024-11-05", "2025-11-25", "2026-07-28"] {
        assert!(
            code.contains(&format!("\"{revision}\"")),
            "{revision} served: {code}"
        );
    }
    assert!(
        code.contains("pub fn http_service<H: Handler>"),
        "Streamable HTTP service"
    );
    assert!(
        code.contains("pub async fn serve_http<H: Handler>"),
        "Streamable HTTP server"
    );
}

#[test]
fn every_shared_manifest_generates_a_server() {
    let test = "server_codegen::every_shared_manifest_generates_a_server";
    let Some(dir) = shared_data::shared_data("manifests", test) else {
        return;
    };
    for name in ["github.json", "stitch.json"] {
        let path = dir.join(name);
        let manifest = Manifest::load(&path).unwrap();
        let tools = codegen::tools::generate(&manifest).unwrap();
        let tokens = codegen::server::generate(
            &manifest,
            &tools.tools,
            &spec("2025-11-25"),
            "2025-11-25",
            true,
        )
        .unwrap();
        let file: syn::File = syn::parse2(tokens).unwrap();
        let methods = file
            .items
            .iter()
            .find_map(|item| match item {
                syn::Item::Trait(t) if t.ident == "Handler" => Some(t.items.len()),
                _ => None,
            })
            .unwrap();
        assert_eq!(methods, manifest.tools.len(), "{name}: one method per tool");
    }
}

/// Without HTTP (`Builder::http(false)`, what a stdio scaffold uses) the
/// server has no `http_service`/`serve_http` and the client no
/// `connect_http`: nothing that needs mcpgen-runtime's `streamable-http`.
#[test]
fn without_http_no_streamable_http_entry_points() {
    let manifest = manifest();
    let tools = codegen::tools::generate(&manifest).unwrap();
    let spec = spec("2025-11-25");
    let text = |tokens| prettyplease::unparse(&syn::parse2(tokens).unwrap());
    let with = text(
        codegen::server::generate(&manifest, &tools.tools, &spec, "2025-11-25", true).unwrap(),
    );
    let without = text(
        codegen::server::generate(&manifest, &tools.tools, &spec, "2025-11-25", false).unwrap(),
    );
    for name in [
        "fn http_service",
        "fn serve_http",
        "HttpService",
        "bind_and_serve",
    ] {
        assert!(with.contains(name), "{name} with HTTP");
        assert!(!without.contains(name), "{name} without HTTP");
    }
    assert!(without.contains("pub async fn serve_stdio"));
    let client_with =
        text(codegen::client::generate(&tools.tools, &spec, "2025-11-25", true).unwrap());
    let client_without =
        text(codegen::client::generate(&tools.tools, &spec, "2025-11-25", false).unwrap());
    assert!(
        client_with.contains("pub async fn connect_http(")
            && client_with.contains("HttpTransport::new")
    );
    assert!(!client_without.contains("connect_http") && !client_without.contains("HttpTransport"));
    assert!(client_without.contains("pub async fn spawn<"));
}
