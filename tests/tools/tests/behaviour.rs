//! The generated tool types behave as their schemas say: wire names,
//! enums, defaults, optional vs nullable, maps, integer vs number,
//! recursion, keyword fields, tool naming, and the fallbacks.

#[path = "../../shared_data/data.rs"]
mod shared_data;

use mcpgen_tools_tests::{fallbacks, refs, reports, rules, rules_yaml, shapes};
#[cfg(shared_manifests)]
use mcpgen_tools_tests::{github, stitch};
use serde_json::{json, Value};

/// Deserialises `v` as `T` and serialises it back.
fn round_trip<T: serde::de::DeserializeOwned + serde::Serialize>(v: Value) -> Value {
    let typed: T = serde_json::from_value(v).expect("deserialises");
    serde_json::to_value(typed).expect("serialises")
}

fn tool_lines(report: &str) -> Vec<&str> {
    report.lines().filter(|l| l.starts_with("tool ")).collect()
}

fn warning_lines(report: &str) -> Vec<&str> {
    report
        .lines()
        .filter(|l| l.starts_with("warning "))
        .collect()
}

/// Without `../shared/manifests` (outside CI) the three tests of the real
/// manifests are not compiled: they are recorded as skipped.
#[cfg(not(shared_manifests))]
#[test]
fn the_real_manifests_are_missing() {
    let test = "behaviour::{every_shared_tool_is_generated_without_fallbacks, github_types_keep_wire_names_and_enum_values, stitch_output_with_nested_defs_round_trips}";
    shared_data::skip(
        test,
        "needs ../shared/manifests, which is not beside the repository",
    );
}

#[cfg(shared_manifests)]
#[test]
fn every_shared_tool_is_generated_without_fallbacks() {
    assert_eq!(tool_lines(reports::GITHUB).len(), 117);
    assert_eq!(tool_lines(reports::STITCH).len(), 8);
    assert_eq!(warning_lines(reports::GITHUB), Vec::<&str>::new());
    assert_eq!(warning_lines(reports::STITCH), Vec::<&str>::new());
    assert!(reports::GITHUB.contains("tool actions_get actions_get ActionsGetInput -\n"));
    assert!(reports::STITCH.contains("tool generate_screen_from_text generate_screen_from_text GenerateScreenFromTextInput GenerateScreenFromTextOutput\n"));
}

#[cfg(shared_manifests)]
#[test]
fn github_types_keep_wire_names_and_enum_values() {
    let args =
        json!({"method": "get_workflow_run", "owner": "o", "repo": "r", "resource_id": "42"});
    assert_eq!(round_trip::<github::ActionsGetInput>(args.clone()), args);
    let typed: github::ActionsGetInput = serde_json::from_value(args).unwrap();
    assert_eq!(typed.method, github::ActionsGetInputMethod::GetWorkflowRun);
    let bad = json!({"method": "nope", "owner": "o", "repo": "r", "resource_id": "42"});
    assert!(serde_json::from_value::<github::ActionsGetInput>(bad).is_err());
    // Values typify cannot name apart are written by mcpgen.
    assert_eq!(
        github::SearchIssuesInputSort::ReactionsPlus1.to_string(),
        "reactions-+1"
    );
    assert_eq!(
        "reactions--1"
            .parse::<github::SearchIssuesInputSort>()
            .unwrap(),
        github::SearchIssuesInputSort::ReactionsMinus1
    );
}

#[cfg(shared_manifests)]
#[test]
fn stitch_output_with_nested_defs_round_trips() {
    let out = json!({
        "outputComponents": [
            {"design": {"screens": [{"groupId": "g", "htmlCode": {"name": "f"}}], "title": "T", "deviceType": "MOBILE"}},
            {"text": "done"}
        ],
        "projectId": "p",
        "sessionId": "s"
    });
    assert_eq!(
        round_trip::<stitch::GenerateScreenFromTextOutput>(out.clone()),
        out
    );
}

#[test]
fn enums_with_spaces_keep_their_values() {
    let v = json!({"state": "won't fix", "note": null});
    let typed: rules::GetMe2Input = serde_json::from_value(v).unwrap();
    assert_eq!(typed.state, rules::GetMe2InputState::WontFix);
    assert_eq!(
        rules::GetMe2InputState::InProgress.to_string(),
        "in progress"
    );
    assert_eq!(
        serde_json::to_value(rules::GetMe2InputState::InProgress).unwrap(),
        json!("in progress")
    );
}

#[test]
fn defaults_fill_missing_fields() {
    let typed: rules::GetMe2Input =
        serde_json::from_value(json!({"state": "done", "note": null})).unwrap();
    assert_eq!(typed.limit.get(), 30);
    assert_eq!(typed.ratio, 0.5);
}

#[test]
fn optional_and_nullable_differ() {
    // `label` is optional: absent is None and is not written back.
    // `note` is required but nullable: it must be present, null is None
    // and is written back as null.
    let v = json!({"state": "done", "note": null});
    let back = round_trip::<rules::GetMe2Input>(v);
    assert_eq!(back.get("label"), None);
    assert_eq!(back.get("note"), Some(&Value::Null));
    assert!(serde_json::from_value::<rules::GetMe2Input>(json!({"state": "done"})).is_err());
    let typed: rules::GetMe2Input =
        serde_json::from_value(json!({"state": "done", "note": "n", "label": "l"})).unwrap();
    assert_eq!(
        (typed.note.as_deref(), typed.label.as_deref()),
        (Some("n"), Some("l"))
    );
}

/// The error of decoding `v` as `T`, as text.
fn decode_error<T: serde::de::DeserializeOwned + std::fmt::Debug>(v: Value) -> String {
    serde_json::from_value::<T>(v).unwrap_err().to_string()
}

#[test]
fn structs_decode_each_field_and_say_which_one_failed() {
    // The structs' `Deserialize` is written out, not derived: the same
    // values decode, and each refusal names its field.
    assert_eq!(
        decode_error::<rules::GetMe2Input>(json!({"note": null})),
        "missing field `state`"
    );
    assert_eq!(
        decode_error::<rules::GetMe2Input>(json!({"state": "done", "note": 5})),
        "note: invalid type: integer `5`, expected a string"
    );
    assert!(
        decode_error::<rules::GetMe2Input>(json!({"state": "nope", "note": null}))
            .starts_with("state: unknown variant `nope`, expected one of"),
    );
    assert!(
        decode_error::<rules::GetMe2Input>(json!(["done", null])).contains("expected an object")
    );
    // From text as from a value; of a member given twice the last counts,
    // as `serde_json::Value` keeps it.
    let typed: rules::GetMe2Input =
        serde_json::from_str(r#"{"state": "open", "note": "a", "state": "done", "self": 3}"#)
            .unwrap();
    assert_eq!(typed.state, rules::GetMe2InputState::Done);
    assert_eq!((typed.self_, typed.note.as_deref()), (Some(3), Some("a")));
    // `additionalProperties: false`: another member is refused, and so is
    // a known one given twice; the struct's own members decode.
    let strict: shapes::ParentOrTextParentRequest =
        serde_json::from_value(json!({"page_id": "p"})).unwrap();
    assert_eq!(strict.page_id.as_deref(), Some("p"));
    assert_eq!(
        decode_error::<shapes::ParentOrTextParentRequest>(json!({"page_id": "p", "extra": 1})),
        "unknown field `extra`, expected `database_id` or `page_id`"
    );
    let twice = serde_json::from_str::<shapes::ParentOrTextParentRequest>(
        r#"{"page_id": "p", "page_id": "q"}"#,
    )
    .unwrap_err();
    assert!(
        twice.to_string().starts_with("duplicate field `page_id`"),
        "{twice}"
    );
}

#[test]
fn integers_and_numbers_are_distinct() {
    let ok: rules::GetMe2Input =
        serde_json::from_value(json!({"state": "done", "note": null, "limit": 5, "ratio": 2}))
            .unwrap();
    assert_eq!((ok.limit.get(), ok.ratio), (5, 2.0));
    assert!(serde_json::from_value::<rules::GetMe2Input>(
        json!({"state": "done", "note": null, "limit": 1.5})
    )
    .is_err());
    // minimum 1 makes the integer non-zero.
    assert!(serde_json::from_value::<rules::GetMe2Input>(
        json!({"state": "done", "note": null, "limit": 0})
    )
    .is_err());
}

#[test]
fn keyword_properties_keep_wire_names() {
    let v =
        json!({"state": "done", "note": null, "type": "t", "ref": "r", "match": true, "self": 3});
    let typed: rules::GetMe2Input = serde_json::from_value(v.clone()).unwrap();
    assert_eq!(typed.type_.as_deref(), Some("t"));
    assert_eq!(typed.ref_.as_deref(), Some("r"));
    assert_eq!(typed.match_, Some(true));
    assert_eq!(typed.self_, Some(3));
    let back = serde_json::to_value(&typed).unwrap();
    for key in ["type", "ref", "match", "self"] {
        assert_eq!(back[key], v[key], "{key}");
    }
}

#[test]
fn maps_are_ordered_and_formats_are_plain_strings() {
    let out = json!({"counts": {"b": 2, "a": 1}, "tags": {"x": "y"}, "when": "2025-01-01T00:00:00Z", "id": "ab-12"});
    let typed: rules::GetMeOutput = serde_json::from_value(out).unwrap();
    assert_eq!(typed.counts.keys().collect::<Vec<_>>(), ["a", "b"]);
    assert_eq!(typed.when.as_deref(), Some("2025-01-01T00:00:00Z"));
    assert_eq!(
        serde_json::to_string(&typed.counts).unwrap(),
        r#"{"a":1,"b":2}"#
    );
}

#[test]
fn recursive_refs_through_defs_and_the_root() {
    let v = json!({
        "root": {"name": "a", "children": [{"name": "b", "children": [{"name": "c"}]}]},
        "next": {"root": {"name": "z"}}
    });
    let typed: rules::TreeWalk2Input = serde_json::from_value(v).unwrap();
    assert_eq!(typed.root.children[0].children[0].name, "c");
    assert_eq!(typed.next.as_ref().unwrap().root.name, "z");
    // The other tool's `node` definition is a different type.
    let other: rules::TreeWalkInput =
        serde_json::from_value(json!({"root": "just a string"})).unwrap();
    assert_eq!(other.root.unwrap().to_string(), "just a string");
}

#[test]
fn string_constraints_are_checked() {
    assert!(serde_json::from_value::<rules::V2faVerifyInput>(json!({"code": "123456"})).is_ok());
    assert!(serde_json::from_value::<rules::V2faVerifyInput>(json!({"code": "12345"})).is_err());
}

#[test]
fn tool_names_become_distinct_identifiers() {
    assert_eq!(
        tool_lines(reports::RULES),
        [
            "tool get-me get_me_2 GetMe2Input -",
            "tool get_me get_me GetMeInput GetMeOutput",
            "tool tree.walk tree_walk_2 TreeWalk2Input -",
            "tool 2fa.Verify _2fa_verify V2faVerifyInput -",
            "tool type type_tool TypeInput -",
            "tool self self_tool SelfInput -",
            "tool LIST.Items list_items ListItemsInput -",
            "tool tree-walk tree_walk TreeWalkInput -",
        ]
    );
    let _: rules::TypeInput = serde_json::from_value(json!({"x": 1})).unwrap();
    let _: rules::SelfInput = serde_json::from_value(json!({})).unwrap();
    let _: rules::ListItemsInput = serde_json::from_value(json!({"page": 0})).unwrap();
}

#[test]
fn yaml_manifests_generate_the_same_tools() {
    assert_eq!(reports::RULES_YAML, reports::RULES);
    let v = json!({"state": "in progress", "note": "x"});
    assert_eq!(
        round_trip::<rules_yaml::GetMe2Input>(v.clone()),
        round_trip::<rules::GetMe2Input>(v)
    );
}

#[test]
fn unconvertible_properties_fall_back_to_json_values_with_warnings() {
    let warnings = warning_lines(reports::FALLBACKS);
    let at: Vec<&str> = warnings
        .iter()
        .map(|w| w.split(" at ").nth(1).unwrap().split(':').next().unwrap())
        .collect();
    assert_eq!(
        at,
        [
            "/tools/0/inputSchema/properties/not_text",
            "/tools/0/inputSchema/properties/mixed",
            "/tools/0/inputSchema/properties/bad_default",
            "/tools/0/outputSchema/properties/result",
        ]
    );
    assert!(
        warnings[0].contains("fallbacks.json:9:23"),
        "{}",
        warnings[0]
    );
    assert!(warnings
        .iter()
        .all(|w| w.contains("typed as `serde_json::Value`")));
    let v = json!({"fine": "f", "mixed": {"k": 1}, "not_text": 5});
    let typed: fallbacks::OddSchemasInput = serde_json::from_value(v.clone()).unwrap();
    assert_eq!(typed.fine, "f");
    assert_eq!(typed.mixed, json!({"k": 1}));
    assert_eq!(serde_json::to_value(&typed).unwrap(), v);
}

#[test]
fn every_shape_of_local_ref_generates_finite_types() {
    let at: Vec<&str> = warning_lines(reports::REFS)
        .iter()
        .map(|w| w.split(" at ").nth(1).unwrap().split(':').next().unwrap())
        .collect();
    assert_eq!(
        at,
        [
            "/tools/0/inputSchema/$defs/x",
            "/tools/1/inputSchema/allOf/0",
            "/tools/2/inputSchema/$defs/x",
            "/tools/2/inputSchema/$defs/y"
        ]
    );
    // Alias cycles accept any JSON instead of recursing forever.
    let v = json!({"a": {"deep": [1, 2]}});
    assert_eq!(round_trip::<refs::SelfAliasInput>(v.clone()), v);
    assert_eq!(round_trip::<refs::AliasCycleInput>(v.clone()), v);
    // A root merged into itself is just the root.
    assert_eq!(
        round_trip::<refs::RootAllOfInput>(json!({"k": "v"})),
        json!({"k": "v"})
    );
    // Pointers to properties, the root, legacy definitions, escaped names.
    let v = json!({"a": {"b": {"b": {}}}});
    assert_eq!(round_trip::<refs::PropertyPointerInput>(v.clone()), v);
    let v = json!({"n": 1, "a": {"n": 2, "a": null}});
    let typed: refs::NullableRootRefInput = serde_json::from_value(v).unwrap();
    assert_eq!(typed.a.unwrap().n, Some(2));
    // (An empty optional array is left out when written.)
    let v = json!({"items": [{"id": 1, "sub": [{"id": 2}]}]});
    assert_eq!(round_trip::<refs::LegacyDefinitionsInput>(v.clone()), v);
    assert_eq!(
        round_trip::<refs::PercentEncodedInput>(json!({"p": "x"})),
        json!({"p": "x"})
    );
    // Same definition name in inputSchema and outputSchema: two types.
    assert!(serde_json::from_value::<refs::SharedDefsInput>(json!({"n": 1})).is_ok());
    assert!(serde_json::from_value::<refs::SharedDefsOutput>(json!({"n": "s"})).is_ok());
    assert!(serde_json::from_value::<refs::SharedDefsOutput>(json!({"n": 1})).is_err());
}
