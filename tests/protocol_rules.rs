//! One small schema per lowering rule of the protocol generator, its
//! output locked by an insta snapshot, plus the properties that hold for
//! every schema: both dialects lower the same way, and output is
//! byte-identical run to run.

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
fn object_with_constant_optional_and_open_members() {
    insta::assert_snapshot!(generate(&schema(json!({
        "TextContent": {
            "description": "Text provided to or from an LLM.",
            "type": "object",
            "properties": {
                "type": { "type": "string", "const": "text" },
                "text": { "type": "string", "description": "The text." },
                "priority": { "type": "number" },
                "count": { "type": "integer" }
            },
            "required": ["type", "text"]
        }
    }))));
}

#[test]
fn closed_object_and_typed_additional_properties() {
    insta::assert_snapshot!(generate(&schema(json!({
        "Closed": { "type": "object", "properties": { "a": { "type": "boolean" } }, "additionalProperties": false },
        "Typed": { "type": "object", "properties": { "a": { "type": "string" } }, "additionalProperties": { "type": "integer" } }
    }))));
}

#[test]
fn union_discriminated_by_a_constant() {
    insta::assert_snapshot!(generate(&schema(json!({
        "A": { "type": "object", "properties": { "kind": { "const": "a", "type": "string" }, "x": { "type": "string" } }, "required": ["kind"] },
        "B": { "type": "object", "properties": { "kind": { "const": "b", "type": "string" } }, "required": ["kind"] },
        "AOrB": { "anyOf": [{ "$ref": "#/$defs/A" }, { "$ref": "#/$defs/B" }] }
    }))));
}

#[test]
fn union_with_an_optional_discriminator_falls_back_to_that_member() {
    insta::assert_snapshot!(generate(&schema(json!({
        "FormParams": { "type": "object", "properties": { "mode": { "const": "form", "type": "string" }, "message": { "type": "string" } }, "required": ["message"] },
        "UrlParams": { "type": "object", "properties": { "mode": { "const": "url", "type": "string" }, "url": { "type": "string" } }, "required": ["mode", "url"] },
        "Params": { "anyOf": [{ "$ref": "#/$defs/UrlParams" }, { "$ref": "#/$defs/FormParams" }] }
    }))));
}

#[test]
fn union_without_discriminator_scores_members() {
    insta::assert_snapshot!(generate(&schema(json!({
        "Result": { "type": "object", "properties": { "_meta": { "type": "object", "additionalProperties": {} } }, "additionalProperties": {} },
        "ListResult": { "type": "object", "properties": { "items": { "type": "array", "items": { "type": "string" } } }, "required": ["items"] },
        "AnyResult": { "anyOf": [{ "$ref": "#/$defs/Result" }, { "$ref": "#/$defs/ListResult" }] }
    }))));
}

#[test]
fn type_lists_nullable_and_string_enums() {
    insta::assert_snapshot!(generate(&schema(json!({
        "RequestId": { "type": ["string", "integer"] },
        "Level": { "type": "string", "enum": ["debug", "in progress", "error"] },
        "Task": { "type": "object", "properties": { "ttl": { "type": ["integer", "null"] }, "level": { "$ref": "#/$defs/Level" } }, "required": ["ttl"] }
    }))));
}

#[test]
fn all_of_merges_members_and_recursion_is_boxed() {
    insta::assert_snapshot!(generate(&schema(json!({
        "Base": { "type": "object", "properties": { "_meta": { "type": "object" } } },
        "Task": { "type": "object", "properties": { "taskId": { "type": "string" } }, "required": ["taskId"] },
        "TaskResult": { "allOf": [{ "$ref": "#/$defs/Base" }, { "$ref": "#/$defs/Task" }] },
        "Node": { "type": "object", "properties": { "next": { "$ref": "#/$defs/Node" }, "children": { "type": "array", "items": { "$ref": "#/$defs/Node" } } } }
    }))));
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
    let params: Vec<_> = spec.methods.iter().map(|m| m.params.clone().unwrap()).collect();
    assert_eq!(params, vec![Ty::Named("NotificationParams".into()); 2]);
    assert!(spec.methods.iter().all(|m| m.kind == MethodKind::Notification));
    insta::assert_snapshot!(generate(&doc));
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
    let table: Vec<(&str, Option<Ty>)> = spec.methods.iter().map(|m| (m.name.as_str(), m.result.clone())).collect();
    assert_eq!(
        table,
        vec![("ping", Some(Ty::Named("EmptyResult".into()))), ("tools/call", Some(Ty::Named("CallToolResult".into())))]
    );
    insta::assert_snapshot!(generate(&doc));
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
    let mirror = std::env::var_os("MCPGEN_SCHEMA_MIRROR")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/mcp-spec"));
    for rev in ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"] {
        let path = mirror.join(rev).join("schema.json");
        let first = generate(&serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap());
        let second = generate(&serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap());
        assert_eq!(first, second, "{rev}");
        assert!(!first.contains("Variant0") && !first.contains("subtype_"), "{rev}: generic names");
    }
}

#[test]
fn bad_references_are_errors_with_a_pointer() {
    let err = Spec::from_json(&schema(json!({ "A": { "type": "object", "properties": { "b": { "$ref": "#/$defs/Missing" } } } })), "test")
        .unwrap_err();
    assert_eq!(err.location.unwrap().pointer.as_deref(), Some("/$defs/A/properties/b/$ref"));
    assert!(err.message.contains("Missing"));
    let err = Spec::from_json(&json!({ "type": "object" }), "test").unwrap_err();
    assert!(err.message.contains("$defs"), "{}", err.message);
}
