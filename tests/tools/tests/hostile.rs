//! The tool types of hostile manifests (`manifests/hostile.json` and the
//! one `build.rs` makes) compile with warnings denied (that is the crate
//! building at all) and behave: colliding, keyword, punctuation-only and
//! non-ASCII property names are distinct fields that keep their wire
//! names; 100,000-character names are bounded fields or live in `extra`;
//! deep and long-chained schemas are types rustc can prove `Send` for;
//! integers beyond `i64` round-trip.

use mcpgen_tools_tests::{hostile, hostile_big, reports};
use serde_json::{json, Value};

/// What the generated server needs of a tool input or output type.
fn usable<
    T: Send
        + Sync
        + serde::de::DeserializeOwned
        + serde::Serialize
        + Clone
        + PartialEq
        + std::fmt::Debug
        + 'static,
>() {
}

fn round_trip<T: serde::de::DeserializeOwned + serde::Serialize>(v: Value) -> Value {
    let typed: T = serde_json::from_value(v).expect("deserialises");
    serde_json::to_value(typed).expect("serialises")
}

#[test]
fn every_hostile_type_is_usable_by_the_server() {
    usable::<hostile::CollideInput>();
    usable::<hostile::MergedInput>();
    usable::<hostile::TaggedInput>();
    usable::<hostile::BigNumbersInput>();
    usable::<hostile::AnchoredInput>();
    usable::<hostile::TypeInput>();
    usable::<hostile::SelfOutput>();
    usable::<hostile_big::LongNamesInput>();
    usable::<hostile_big::DeepInput>();
    usable::<hostile_big::ChainsInput>();
}

#[test]
fn names_that_collide_once_cased_are_distinct_fields() {
    let v = json!({
        "fooBar": "a", "foo_bar": "b", "foo-bar": 3,
        "self": "s", "Self": 4,
        "!": true, "@": false, "#": true,
        "città": "c", "日本": "j", "a_zmcpgen12345678": "m", "extra": "e",
        "Missing-Name": 1, "missing_name": 2,
        "other": 5
    });
    assert_eq!(round_trip::<hostile::CollideInput>(v.clone()), v);
    let typed: hostile::CollideInput = serde_json::from_value(v).unwrap();
    assert_eq!(
        (
            typed.foo_bar_3.as_str(),
            typed.foo_bar.as_deref(),
            typed.foo_bar_2
        ),
        ("a", Some("b"), Some(3))
    );
    assert_eq!((typed.self_2.as_deref(), typed.self_), (Some("s"), Some(4)));
    assert_eq!(
        (typed.field, typed.field_3, typed.field_2),
        (Some(true), Some(false), Some(true))
    );
    assert_eq!(
        (typed.citt.as_deref(), typed.field_4.as_deref()),
        (Some("c"), Some("j"))
    );
    assert_eq!(typed.a_zmcpgen12345678.as_deref(), Some("m"));
    // The typed `extra` property and the additional-properties map differ.
    assert_eq!(typed.extra_2.as_deref(), Some("e"));
    assert_eq!(typed.extra.get("other"), Some(&5));
    assert_eq!(
        (typed.missing_name_2.clone(), typed.missing_name.clone()),
        (json!(1), json!(2))
    );
}

#[test]
fn defaults_are_found_under_renamed_fields() {
    let cfg = hostile::CollideInputCfg::default();
    assert_eq!((cfg.max_items_2, cfg.max_items), (Some(7), Some(8)));
    let merged: hostile::MergedInput =
        serde_json::from_value(json!({"itemCount": 2, "item_count": "two"})).unwrap();
    assert_eq!(
        (merged.item_count_2, merged.item_count.as_deref()),
        (2, Some("two"))
    );
}

#[test]
fn tags_named_after_properties_keep_their_wire_names() {
    for v in [
        json!({"action": {"startJob": "x"}}),
        json!({"action": {"stop-job": 3}}),
    ] {
        assert_eq!(round_trip::<hostile::TaggedInput>(v.clone()), v);
    }
    assert!(matches!(
        serde_json::from_value::<hostile::TaggedInput>(json!({"action": {"startJob": "x"}}))
            .unwrap()
            .action,
        hostile::TaggedInputAction::StartJob(_)
    ));
}

#[test]
fn integers_beyond_i64_fit() {
    let v = json!({"huge": 9223372036854775808u64, "roomy": 18446744073709551615u64, "signed": -1});
    assert_eq!(round_trip::<hostile::BigNumbersInput>(v.clone()), v);
    let defaulted: hostile::BigNumbersInput = serde_json::from_value(json!({})).unwrap();
    assert_eq!(defaulted.roomy.get(), u128::from(u64::MAX));
    // Beyond u64: serde_json reads 2^70 as a float, and the field takes it.
    let wide: hostile::BigNumbersInput =
        serde_json::from_str(r#"{"huge": 9223372036854775808, "roomy": 1180591620717411303424}"#)
            .unwrap();
    assert_eq!(wide.roomy.get(), 1u128 << 70);
    assert!(serde_json::from_value::<hostile::BigNumbersInput>(json!({"huge": 2})).is_err());
}

#[test]
fn bidi_controls_stay_values_and_keyword_tools_get_snake_methods() {
    assert_eq!(
        hostile::CollideInputKind::InSide.to_string(),
        "in\u{202e}side"
    );
    let lines: Vec<&str> = reports::HOSTILE
        .lines()
        .filter(|l| l.starts_with("tool "))
        .collect();
    assert!(
        lines.contains(&"tool type type_tool TypeInput -"),
        "{lines:?}"
    );
    assert!(
        lines.contains(&"tool self self_tool SelfInput SelfOutput"),
        "{lines:?}"
    );
    assert!(
        lines.contains(&"tool match match_tool MatchInput -"),
        "{lines:?}"
    );
}

#[test]
fn long_names_are_bounded_fields_or_extra_members() {
    let long = "p".repeat(100_000);
    let long_type = "Q".repeat(100_000);
    let value = format!("A{}", "a".repeat(100_000));
    let v = json!({
        long.clone(): "kept",
        long_type.clone(): {"x": 1},
        "pick": value.clone(),
        "titled": {"y": true},
        "defined": {"v": "w"}
    });
    let typed: hostile_big::LongNamesInput = serde_json::from_value(v.clone()).unwrap();
    assert_eq!(typed.extra.get(&long), Some(&json!("kept")));
    assert_eq!(typed.extra.get(&long_type), Some(&json!({"x": 1})));
    assert_eq!(typed.pick.as_deref(), Some(value.as_str()));
    assert_eq!(serde_json::to_value(&typed).unwrap(), v);
    let report = reports::HOSTILE_BIG;
    assert!(
        report.contains("is kept in the type's `extra` map"),
        "long property names are reported"
    );
    assert!(
        report.contains("are not a Rust enum"),
        "long enum values are reported"
    );
}

#[test]
fn deep_and_chained_schemas_are_cut_with_warnings() {
    let mut objects = json!("leaf");
    let mut arrays = json!("leaf");
    let mut maps = json!("leaf");
    for level in 0..60 {
        objects = json!({"c": objects});
        arrays = json!([arrays]);
        maps = json!({format!("k{level}"): maps});
    }
    let v = json!({"objects": objects, "arrays": arrays, "maps": maps});
    assert_eq!(round_trip::<hostile_big::DeepInput>(v.clone()), v);
    let mut link = json!("end");
    for _ in 0..200 {
        link = json!({"next": link});
    }
    let v = json!({"alias": "a string at the end of 200 aliases", "link": link});
    assert_eq!(round_trip::<hostile_big::ChainsInput>(v.clone()), v);
    let deep: Vec<&str> = reports::HOSTILE_BIG
        .lines()
        .filter(|l| l.contains("nested deeper than"))
        .collect();
    assert!(deep.len() >= 4, "{deep:?}");
    assert!(
        deep.iter()
            .all(|l| l.contains(" at /tools/") && l.contains("help: ")),
        "{deep:?}"
    );
}
