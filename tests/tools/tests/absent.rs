//! Leaving out an optional property is the most common call there is:
//! every optional field decodes when absent, whatever decoder the
//! generator gave it.
//!
//! `optional` (made by `build.rs`) has one property of every shape the
//! generator types differently — serde's own decoder, the wide integers'
//! `deserialize_with`, default functions, nullable and union types, maps
//! and nested objects — under a plain, a renamed and a keyword-like name,
//! each with no doc text and with doc text holding the words serde uses
//! as attribute keys (`default`, `flatten`, `with`). Then every tool of the
//! real manifests whose input has no required property is called with `{}`.

use mcpgen_tools_tests::{optional, real};
use serde_json::{json, Value};

#[path = "../../shared_data/data.rs"]
mod shared_data;

#[test]
fn every_optional_field_of_every_shape_decodes_when_absent() {
    for (tool, output) in [
        ("all_optional", false),
        ("all_optional", true),
        ("all_optional_closed", false),
    ] {
        let back = optional::roundtrip(tool, output, json!({})).expect("the tool has the type");
        let back =
            back.unwrap_or_else(|why| panic!("{tool} (output: {output}): `{{}}` refused: {why}"));
        // Only the properties with a default come back, as their defaults.
        let object = back.as_object().expect("an object");
        let with_default = |k: &String| {
            ["defaulted", "counted"]
                .iter()
                .any(|d| k.to_lowercase().contains(d))
        };
        assert!(object.keys().all(with_default), "{tool}: {back}");
        assert_eq!(object.len(), 18, "{tool}: {back}");
        assert_eq!(object.get("defaulted0"), Some(&json!("b")), "{back}");
        assert_eq!(object.get("counted1"), Some(&json!(10)), "{back}");
    }
}

#[test]
fn real_tools_without_required_arguments_take_an_empty_object() {
    if real::ALL.is_empty() {
        let test = "absent::real_tools_without_required_arguments_take_an_empty_object";
        shared_data::skip(
            test,
            "needs ../shared/manifests/real, which is not beside the repository",
        );
        return;
    }
    let mut called = 0;
    for (file, path, roundtrip) in real::ALL {
        let manifest: Value =
            serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        for tool in manifest["tools"].as_array().unwrap() {
            let required = tool["inputSchema"]["required"]
                .as_array()
                .is_some_and(|r| !r.is_empty());
            let combinators = ["anyOf", "oneOf", "allOf", "not", "minProperties"]
                .iter()
                .any(|k| tool["inputSchema"].get(k).is_some());
            if required || combinators {
                continue;
            }
            let name = tool["name"].as_str().unwrap();
            let back = roundtrip(name, false, json!({})).expect("every tool has an input type");
            assert!(back.is_ok(), "{file}: `{name}` refuses `{{}}`: {back:?}");
            called += 1;
        }
    }
    assert!(
        called > 20,
        "only {called} tools without required arguments"
    );
}
