//! Snapshot tests of `codegen::tools` on small manifests, one schema rule
//! each, plus determinism and the bindings handed to the server and client
//! generators.

use mcpgen::codegen::tools::{generate, ToolsOutput};
use mcpgen::manifest::Manifest;
use serde_json::{json, Value};

fn manifest(tools: Value) -> Manifest {
    let text = serde_json::to_string_pretty(&json!({ "tools": tools })).unwrap();
    Manifest::from_str(&text, "snapshot.json").unwrap()
}

fn run(tools: Value) -> ToolsOutput {
    generate(&manifest(tools)).unwrap()
}

/// The generated code without typify's shared `error` module (the same in
/// every snapshot).
fn code(out: &ToolsOutput) -> String {
    let mut file: syn::File = syn::parse2(out.tokens.clone()).unwrap();
    file.items.retain(|item| !matches!(item, syn::Item::Mod(m) if m.ident == "error"));
    prettyplease::unparse(&file)
}

fn one(input: Value) -> String {
    code(&run(json!([{ "name": "demo", "inputSchema": input }])))
}

#[test]
fn enum_values_with_spaces() {
    insta::assert_snapshot!(one(json!({
        "type": "object",
        "properties": {"state": {"type": "string", "enum": ["in progress", "done", "won't fix"]}},
        "required": ["state"]
    })));
}

#[test]
fn defaults() {
    insta::assert_snapshot!(one(json!({
        "type": "object",
        "properties": {
            "limit": {"type": "integer", "minimum": 1, "default": 30},
            "ratio": {"type": "number", "default": 0.5},
            "order": {"type": "string", "enum": ["asc", "desc"], "default": "desc"},
            "verbose": {"type": "boolean", "default": false}
        }
    })));
}

#[test]
fn optional_versus_nullable() {
    insta::assert_snapshot!(one(json!({
        "type": "object",
        "properties": {
            "optional": {"type": "string"},
            "nullable": {"type": ["string", "null"]},
            "required": {"type": "string"}
        },
        "required": ["nullable", "required"]
    })));
}

#[test]
fn maps() {
    insta::assert_snapshot!(one(json!({
        "type": "object",
        "properties": {
            "counts": {"type": "object", "additionalProperties": {"type": "integer"}},
            "anything": {"type": "object"}
        },
        "required": ["counts"]
    })));
}

#[test]
fn integer_versus_number() {
    insta::assert_snapshot!(one(json!({
        "type": "object",
        "properties": {
            "count": {"type": "integer"},
            "page": {"type": "integer", "minimum": 0},
            "score": {"type": "number"}
        },
        "required": ["count", "page", "score"]
    })));
}

#[test]
fn recursive_refs() {
    insta::assert_snapshot!(one(json!({
        "type": "object",
        "$defs": {"node": {
            "type": "object",
            "properties": {"name": {"type": "string"}, "children": {"type": "array", "items": {"$ref": "#/$defs/node"}}},
            "required": ["name"]
        }},
        "properties": {"root": {"$ref": "#/$defs/node"}, "next": {"$ref": "#"}},
        "required": ["root"]
    })));
}

#[test]
fn tuples_of_both_dialects() {
    let out = run(json!([{ "name": "demo", "inputSchema": {
        "type": "object",
        "properties": {
            "pair": {"type": "array", "prefixItems": [{"type": "string"}, {"type": "integer"}], "items": false, "minItems": 2, "maxItems": 2},
            "legacy": {"type": "array", "items": [{"type": "number"}, {"type": "boolean"}], "additionalItems": false, "minItems": 2, "maxItems": 2}
        },
        "required": ["pair", "legacy"]
    }}]));
    assert!(out.warnings.is_empty(), "{:?}", out.warnings);
    insta::assert_snapshot!(code(&out));
}

#[test]
fn keyword_properties_and_output_types() {
    insta::assert_snapshot!(code(&run(json!([{
        "name": "type",
        "inputSchema": {"type": "object", "properties": {
            "type": {"type": "string"}, "ref": {"type": "string"}, "match": {"type": "string"}, "self": {"type": "string"}
        }},
        "outputSchema": {"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]}
    }]))));
}

#[test]
fn fallback_to_json_value() {
    let out = run(json!([{ "name": "odd", "inputSchema": {
        "type": "object", "properties": {"n": {"not": {"type": "string"}}, "s": {"type": "string"}}
    }}]));
    assert_eq!(out.warnings.len(), 1);
    let w = &out.warnings[0];
    let loc = w.location.clone().unwrap();
    assert_eq!(loc.pointer.as_deref(), Some("/tools/0/inputSchema/properties/n"));
    assert!(loc.line_col.is_some());
    assert!(w.message.contains("tool `odd`: property `n` is typed as `serde_json::Value`"), "{}", w.message);
    insta::assert_snapshot!(code(&out));
}

#[test]
fn a_root_typify_cannot_convert_becomes_a_json_map() {
    let out = run(json!([{ "name": "odd", "inputSchema": {"type": "object", "description": "Odd.", "not": {"required": ["x"]}} }]));
    assert_eq!(out.warnings.len(), 1, "{:?}", out.warnings);
    let w = &out.warnings[0];
    assert_eq!(w.location.clone().unwrap().pointer.as_deref(), Some("/tools/0/inputSchema"));
    assert!(w.message.starts_with("tool `odd`: `OddInput` is a JSON object map"), "{}", w.message);
    let code = code(&out);
    assert!(code.contains("pub struct OddInput(pub ::serde_json::Map<::std::string::String, ::serde_json::Value>);"), "{code}");
}

#[test]
fn bindings_name_every_tool_distinctly() {
    let out = run(json!([
        {"name": "get-me", "inputSchema": {"type": "object"}},
        {"name": "get_me", "inputSchema": {"type": "object"}, "outputSchema": {"type": "object"}},
        {"name": "getMe", "inputSchema": {"type": "object"}},
        {"name": "match", "inputSchema": {"type": "object"}},
        {"name": "9lives.v2", "inputSchema": {"type": "object"}},
        {"name": "renamed", "inputSchema": {"type": "object"}, "x-mcpgen": {"rustName": "chosen"}, "icons": []}
    ]));
    let rows: Vec<(String, String, String, Option<String>)> =
        out.tools.iter().map(|b| (b.name.clone(), b.method.clone(), b.input.clone(), b.output.clone())).collect();
    insta::assert_debug_snapshot!(rows);
    // The binding carries the tool as served: unknown fields kept,
    // mcpgen's settings removed.
    assert_eq!(out.tools[5].tool, json!({"name": "renamed", "inputSchema": {"type": "object"}, "icons": []}));
}

#[test]
fn output_is_deterministic_and_independent_of_tool_order() {
    let tools = json!([
        {"name": "a-b", "inputSchema": {"type": "object", "properties": {"m": {"type": "object", "additionalProperties": {"type": "string"}}}}},
        {"name": "a_b", "inputSchema": {"type": "object", "properties": {"e": {"enum": ["x y", "z"]}}}}
    ]);
    let first = code(&run(tools.clone()));
    assert_eq!(first, code(&run(tools.clone())));
    let mut reversed = tools.as_array().unwrap().clone();
    reversed.reverse();
    let out = run(Value::Array(reversed));
    let names: Vec<(&str, &str)> = out.tools.iter().map(|b| (b.name.as_str(), b.method.as_str())).collect();
    assert_eq!(names, [("a_b", "a_b"), ("a-b", "a_b_2")]);
}

#[test]
fn invalid_manifests_are_errors_not_panics() {
    let dup = generate(&manifest(json!([
        {"name": "x", "inputSchema": {"type": "object"}},
        {"name": "x", "inputSchema": {"type": "object"}}
    ])))
    .unwrap_err();
    assert!(dup.message.contains("duplicate tool name `x`"), "{}", dup.message);
    assert_eq!(dup.location.unwrap().pointer.as_deref(), Some("/tools/1/name"));
    let clash = generate(&manifest(json!([
        {"name": "a", "inputSchema": {"type": "object", "properties": {"x": {"type": "object", "properties": {"p": {"type": "string"}}}}}},
        {"name": "a_input", "inputSchema": {"type": "object", "$defs": {"x": {"type": "integer"}}, "properties": {"y": {"$ref": "#/$defs/x"}}}}
    ])))
    .unwrap_err();
    assert_eq!(clash.message, "tools `a` and `a_input` would both define a Rust type named `AInputX`");
    assert_eq!(clash.location.unwrap().pointer.as_deref(), Some("/tools/1"));
    assert!(clash.hint.unwrap().contains("rustName"));
    let missing = generate(&manifest(json!([{"name": "x"}]))).unwrap_err();
    assert!(missing.message.contains("no object `inputSchema`"), "{}", missing.message);
    assert!(missing.hint.unwrap().contains("mcpgen manifest check"));
}

/// The 2020-12 vocabulary of the conformance suite's `json_schema_2020_12_tool`:
/// `$defs` with `$anchor`, `allOf`/`anyOf` and `if`/`then`/`else` around
/// plain properties. The conditionals only narrow validity (the server's
/// validator checks them), so the arguments are typed without a warning.
#[test]
fn conditionals_and_composition_of_2020_12_keep_typed_arguments() {
    let out = run(json!([{ "name": "contact", "inputSchema": {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "$defs": {"address": {"$anchor": "addressDef", "type": "object", "properties": {"city": {"type": "string"}}}},
        "properties": {
            "address": {"$ref": "#/$defs/address"},
            "contactMethod": {"type": "string", "enum": ["phone", "email"]},
            "phone": {"type": "string"},
            "email": {"type": "string"}
        },
        "allOf": [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
        "if": {"properties": {"contactMethod": {"const": "phone"}}, "required": ["contactMethod"]},
        "then": {"required": ["phone"]},
        "else": {"required": ["email"]},
        "additionalProperties": false
    }}]));
    assert!(out.warnings.is_empty(), "{:?}", out.warnings);
    let code = code(&out);
    assert!(!code.contains("serde_json::Map"), "{code}");
    assert!(code.contains("pub struct ContactAddress"), "{code}");
    // The `anyOf` only says which of them is present: both are optional
    // fields of one struct, and the validator checks the rule.
    assert!(code.contains("pub phone: ::std::option::Option<::std::string::String>,"), "{code}");
    assert!(code.contains("pub email: ::std::option::Option<::std::string::String>,"), "{code}");
    assert!(code.contains("contact_method: ::std::option::Option<"), "{code}");
    assert!(!code.contains("enum ContactInput {"), "{code}");
}

/// Properties only a conditional branch declares are no fields: a warning
/// says so, at the branch. Properties named like the keywords stay fields.
#[test]
fn properties_only_a_branch_declares_are_reported() {
    let out = run(json!([{ "name": "cond", "inputSchema": {
        "type": "object",
        "properties": {"if": {"type": "string"}, "then": {"type": "integer"}},
        "if": {"required": ["if"]},
        "then": {"properties": {"extra": {"type": "string"}}},
        "else": {"properties": {"then": {"minimum": 1}}}
    }}]));
    assert_eq!(out.warnings.len(), 1, "{:?}", out.warnings);
    let w = &out.warnings[0];
    assert_eq!(w.location.clone().unwrap().pointer.as_deref(), Some("/tools/0/inputSchema/then"));
    assert!(w.message.contains("(extra)"), "{}", w.message);
    let code = code(&out);
    assert!(code.contains("pub if_: ::std::option::Option<::std::string::String>"), "{code}");
    assert!(code.contains("pub then: ::std::option::Option<i128>"), "{code}");
}

/// A property that fails on its own is reported under its declared name and
/// pointer, not the marker typify saw.
#[test]
fn a_renamed_property_is_reported_as_declared() {
    let out = run(json!([{ "name": "odd", "inputSchema": {
        "type": "object",
        "properties": {"Self": {"not": {"type": "string"}}, "n": {"type": "integer"}}
    }}]));
    assert_eq!(out.warnings.len(), 1, "{:?}", out.warnings);
    let w = &out.warnings[0];
    assert_eq!(w.location.clone().unwrap().pointer.as_deref(), Some("/tools/0/inputSchema/properties/Self"));
    assert!(w.message.contains("property `Self` is typed"), "{}", w.message);
    assert!(!w.message.contains("zmcpgen"), "{}", w.message);
}
