//! The tool-type generator on arbitrary input schemas (and a tool name
//! from the schema's `x-name`, when it has one): never a panic; whenever
//! it succeeds the output parses as Rust, no two items of the file share a
//! name, and each tool's input and output type, as the server and client
//! name them, is an item of the file.

#![no_main]

use std::collections::BTreeSet;

use libfuzzer_sys::fuzz_target;
use mcpgen::manifest::Manifest;
use serde_json::{json, Value};

fuzz_target!(|data: &[u8]| {
    let Ok(schema) = serde_json::from_slice::<Value>(data) else { return };
    let name = schema.get("x-name").and_then(Value::as_str).unwrap_or("fuzzed").to_owned();
    let manifest = json!({ "tools": [
        { "name": name, "inputSchema": schema.clone() },
        { "name": "fuzzed-out", "inputSchema": {"type": "object"}, "outputSchema": schema }
    ]});
    let Ok(manifest) = Manifest::from_str(&manifest.to_string(), "fuzz.json") else { return };
    let Ok(out) = mcpgen::codegen::tools::generate(&manifest) else { return };
    let file: syn::File = match syn::parse2(out.tokens.clone()) {
        Ok(file) => file,
        Err(e) => panic!("generated code does not parse: {e}"),
    };
    let mut names = BTreeSet::new();
    for item in &file.items {
        let name = match item {
            syn::Item::Struct(s) => s.ident.to_string(),
            syn::Item::Enum(e) => e.ident.to_string(),
            syn::Item::Type(t) => t.ident.to_string(),
            syn::Item::Const(c) => c.ident.to_string(),
            syn::Item::Fn(f) => f.sig.ident.to_string(),
            syn::Item::Mod(m) => m.ident.to_string(),
            _ => continue,
        };
        assert!(names.insert(name.clone()), "two items named {name}");
    }
    for tool in &out.tools {
        for ty in std::iter::once(&tool.input).chain(&tool.output) {
            assert!(names.contains(ty), "tool {:?}: its type {ty} is not in the file", tool.name);
        }
    }
});
