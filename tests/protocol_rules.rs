//! Properties of the protocol generator's lowering that hold for every
//! schema: both dialects lower the same way, output is byte-identical run
//! to run, shared shapes and method tables are found, bad references are
//! errors. The output of one small schema per lowering rule is locked by
//! the compiled goldens in `goldens/protocol/` (see `tests/goldens.rs`).

mod shared_data;

use mcpgen::codegen::protocol;
use mcpgen::spec::{MethodKind, Spec, Ty};
use serde_json::{json, Value};

/// Wraps definitions in a 2020-12 schema document.
fn schema(defs: Value) -> Value {
    json!({ "$schema": "https://json-schema.org/draft/2020-12/schema", "$defs": defs })
}

fn generate(doc: &Value) -> String {
    let spec = Spec::from_json(doc, "test").expect("lowers");
    let tokens = protocol::generate(&spec).expect("generates");
    prettyplease::unparse(&syn::parse2(tokens).expect("parses"))
}

#[test]
fn shared_inline_shapes_are_one_type_named_by_their_uses() {
    let doc = schema(json!({
        "Result": { "type": "object", "properties": { "_meta": { "type": "object", "additionalProperties": {} } }, "additionalProperties": {} },
        "PingNotification": { "type": "object", "properties": {
            "method": { "const": "notifications/ping", "type": "string" },
            "params": { "type": "object", "properties": { "_meta": { "type": "object", "additionalProperties": {} } }, "additionalProperties": {} }
        }, "required": ["method"] },
        "PongNotification": { "type": "object", "properties": {
            "method": { "const": "notifications/pong", "type": "string" },
            "params": { "description": "other words, same shape", "type": "object", "properties": { "_meta": { "type": "object", "additionalProperties": {} } }, "additionalProperties": {} }
        }, "required": ["method"] }
    }));
    let spec = Spec::from_json(&doc, "test").unwrap();
    // Not the look-alike definition `Result`, and not two copies.
    let params: Vec<_> = spec
        .methods
        .iter()
        .map(|m| m.params.clone().unwrap())
        .collect();
    assert_eq!(params, vec![Ty::Named("NotificationParams".into()); 2]);
    assert!(spec
        .methods
        .iter()
        .all(|m| m.kind == MethodKind::Notification));
    let code = generate(&doc);
    assert_eq!(
        code.matches("pub struct NotificationParams").count(),
        1,
        "{code}"
    );
}

#[test]
fn request_methods_map_to_their_results() {
    let doc = schema(json!({
        "Result": { "type": "object", "additionalProperties": {} },
        "EmptyResult": { "$ref": "#/$defs/Result" },
        "CallToolRequest": { "type": "object", "properties": { "method": { "const": "tools/call", "type": "string" }, "params": { "type": "object", "properties": { "name": { "type": "string" } }, "required": ["name"] } }, "required": ["method", "params"] },
        "CallToolResult": { "type": "object", "properties": { "content": { "type": "array", "items": { "type": "string" } } }, "required": ["content"] },
        "PingRequest": { "type": "object", "properties": { "method": { "const": "ping", "type": "string" } }, "required": ["method"] }
    }));
    let spec = Spec::from_json(&doc, "test").unwrap();
    let table: Vec<(&str, Option<Ty>)> = spec
        .methods
        .iter()
        .map(|m| (m.name.as_str(), m.result.clone()))
        .collect();
    assert_eq!(
        table,
        vec![
            ("ping", Some(Ty::Named("EmptyResult".into()))),
            ("tools/call", Some(Ty::Named("CallToolResult".into())))
        ]
    );
    let code = generate(&doc);
    assert!(code.contains("pub struct CallToolResult"), "{code}");
}

#[test]
fn draft07_and_2020_12_lower_identically() {
    let defs = json!({
        "A": { "type": "object", "properties": { "b": { "$ref": "#/$defs/B" } } },
        "B": { "type": "string", "enum": ["x", "y"] }
    });
    let modern = schema(defs.clone());
    let draft07_text = defs.to_string().replace("#/$defs/", "#/definitions/");
    let draft07 = json!({ "$schema": "http://json-schema.org/draft-07/schema#", "definitions": serde_json::from_str::<Value>(&draft07_text).unwrap() });
    assert_eq!(generate(&modern), generate(&draft07));
}

#[test]
fn output_is_byte_identical_across_runs_for_every_revision() {
    let mirror = shared_data::mirror();
    for rev in [
        "2024-11-05",
        "2025-03-26",
        "2025-06-18",
        "2025-11-25",
        "2026-07-28",
    ] {
        let path = mirror.join(rev).join("schema.json");
        let first =
            generate(&serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap());
        let second =
            generate(&serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap());
        assert_eq!(first, second, "{rev}");
        assert!(
            !first.contains("Variant0") && !first.contains("subtype_"),
            "{rev}: generic names"
        );
    }
}

#[test]
fn bad_references_are_errors_with_a_pointer() {
    let err = Spec::from_json(&schema(json!({ "A": { "type": "object", "properties": { "b": { "$ref": "#/$defs/Missing" } } } })), "test")
        .unwrap_err();
    assert_eq!(
        err.location.unwrap().pointer.as_deref(),
        Some("/$defs/A/properties/b/$ref")
    );
    assert!(err.message.contains("Missing"));
    let err = Spec::from_json(&json!({ "type": "object" }), "test").unwrap_err();
    assert!(err.message.contains("$defs"), "{}", err.message);
}
