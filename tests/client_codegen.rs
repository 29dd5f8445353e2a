//! Snapshot of the generated client for a small manifest, and its
//! properties: deterministic, parses as Rust, method names safe.

use mcpgen::codegen;
use mcpgen::manifest::Manifest;
use mcpgen::spec::Spec;

const MANIFEST: &str = r#"{
  "tools": [
    {
      "name": "add",
      "description": "Adds two integers.\n\nBoth must be\n non-negative.",
      "inputSchema": {
        "type": "object",
        "properties": { "a": { "type": "integer", "minimum": 0 }, "b": { "type": "integer", "minimum": 0 } },
        "required": ["a", "b"]
      },
      "outputSchema": {
        "type": "object",
        "properties": { "sum": { "type": "integer" } },
        "required": ["sum"]
      }
    },
    {
      "name": "get-time",
      "inputSchema": { "type": "object", "properties": { "zone": { "type": "string" } } },
      "x-vendor": true
    },
    {
      "name": "connect",
      "description": "A tool whose name collides with a client helper.",
      "inputSchema": { "type": "object" }
    }
  ]
}"#;

fn spec() -> Spec {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/mcp-spec/2025-11-25/schema.json");
    Spec::load(std::path::Path::new(path)).expect("shared schema 2025-11-25")
}

fn generated() -> String {
    let manifest = Manifest::from_str(MANIFEST, "small.json").unwrap();
    let tools = codegen::tools::generate(&manifest).unwrap();
    let tokens = codegen::client::generate(&tools.tools, &spec(), "2025-11-25", true).unwrap();
    prettyplease::unparse(&syn::parse2(tokens).expect("generated client parses as a file"))
}

#[test]
fn generated_client_snapshot() {
    let code = generated();
    assert_eq!(code, generated(), "generation is deterministic");
    assert!(code.contains("pub async fn call_connect("), "helper collision renamed");
    assert!(code.contains("pub async fn get_time_with("));
    assert!(!code.contains("#!["), "no inner attributes in an include!d file");
    insta::assert_snapshot!(code);
}
