//! The union and integer shapes of real servers' schemas
//! (`manifests/shapes.json`) decode into named, typed variants, through the
//! decoding path of generated servers.

use mcpgen_runtime::server::decode_arguments;
use mcpgen_tools_tests::shapes::*;
use serde_json::{json, Value};

fn decode<T: serde::de::DeserializeOwned>(v: Value) -> T {
    decode_arguments(v.clone()).unwrap_or_else(|e| panic!("{v} does not decode: {e:?}"))
}

#[test]
fn const_tagged_members_are_named_after_their_constant_and_keep_renames() {
    let v = json!({"parent": {"type": "page_id", "page_id": "p1", "outputMode": "md"}});
    let input: TaggedInput = decode(v.clone());
    match &input.parent {
        TaggedInputParent::PageId {
            page_id,
            output_mode,
        } => {
            assert_eq!(
                (page_id.as_str(), output_mode.as_deref()),
                ("p1", Some("md"))
            );
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(serde_json::to_value(&input).unwrap(), v);
    let input: TaggedInput =
        decode(json!({"parent": {"type": "database_id", "database_id": "d", "maxRows": 5.0}}));
    assert!(
        matches!(
            input.parent,
            TaggedInputParent::DatabaseId {
                max_rows: Some(5),
                ..
            }
        ),
        "{input:?}"
    );
}

#[test]
fn a_string_beside_tagged_objects_decodes_both_ways() {
    let text: TaggedOrTextInput = decode(json!({"target": "README.md"}));
    assert_eq!(
        text.target,
        TaggedOrTextInputTarget::String("README.md".into())
    );
    let file: TaggedOrTextInput = decode(json!({"target": {"kind": "file", "filePath": "/a"}}));
    assert!(
        matches!(&file.target, TaggedOrTextInputTarget::File { file_path, .. } if file_path == "/a"),
        "{file:?}"
    );
    let url: TaggedOrTextInput =
        decode(json!({"target": {"kind": "url", "href": "https://example.com"}}));
    assert!(
        matches!(url.target, TaggedOrTextInputTarget::Url { .. }),
        "{url:?}"
    );
    let parent: ParentOrTextInput = decode(json!({"parent": "p"}));
    assert_eq!(parent.parent, ParentOrTextInputParent::String("p".into()));
    let parent: ParentOrTextInput = decode(json!({"parent": {"page_id": "x"}}));
    assert!(
        matches!(parent.parent, ParentOrTextInputParent::ParentRequest(_)),
        "{parent:?}"
    );
}

#[test]
fn members_with_same_named_nested_objects_keep_their_own_types() {
    let mv: SameNestedNameInput =
        decode(json!({"action": {"method": "move", "params": {"x": 1, "y": 2.5}}}));
    assert_eq!(
        mv.action,
        SameNestedNameInputAction::Move { x: 1.0, y: 2.5 }
    );
    let ty: SameNestedNameInput =
        decode(json!({"action": {"method": "type", "params": {"text": "hi"}}}));
    assert_eq!(
        ty.action,
        SameNestedNameInputAction::Type { text: "hi".into() }
    );
}

#[test]
fn two_string_members_are_one_string_and_untitled_members_get_names() {
    let q: TwoStringsInput = decode(json!({"query": "short"}));
    assert_eq!(q.query, "short");
    let f: UntitledMembersInput =
        decode(json!({"filter": {"contains": "x", "caseSensitive": true}}));
    assert_eq!(
        f.filter,
        UntitledMembersInputFilter::Contains {
            contains: "x".into(),
            case_sensitive: Some(true)
        }
    );
    let f: UntitledMembersInput = decode(json!({"filter": {"equals": "y"}}));
    assert_eq!(
        f.filter,
        UntitledMembersInputFilter::Equals { equals: "y".into() }
    );
    let f: UntitledMembersInput = decode(json!({"filter": false}));
    assert_eq!(f.filter, UntitledMembersInputFilter::Boolean(false));
    let sort: SortSpecInput =
        decode(json!({"sort": {"a": 1, "b": -1, "c": "desc", "d": {"$meta": "textScore"}}}));
    assert!(
        matches!(sort.sort["c"], SortSpecInputSortValue::Desc(_)),
        "{sort:?}"
    );
    assert!(
        matches!(
            sort.sort["b"],
            SortSpecInputSortValue::ValueMinus1(_) | SortSpecInputSortValue::Value1(_)
        ),
        "{sort:?}"
    );
    assert_eq!(
        sort.sort["d"],
        SortSpecInputSortValue::Meta {
            meta: "textScore".into()
        }
    );
}

#[test]
fn integers_written_as_floats_and_beyond_i64_decode() {
    let i: IntegersInput = decode(
        json!({"plain": 5.0, "count": 1e3, "small": -5.0, "page": 10.0, "list": [1.0, 2], "by_name": {"a": 3.0}}),
    );
    assert_eq!(
        (i.plain, i.count, i.small, i.page.map(|p| p.get())),
        (5, Some(1000), Some(-5), Some(10))
    );
    assert_eq!((i.list, i.by_name["a"]), (vec![1, 2], 3));
    // 2^63 and u64::MAX arrive as integers, 2^70 as a float: all decode.
    let i: IntegersInput = decode(json!({"plain": 9223372036854775808u64, "count": u64::MAX}));
    assert_eq!((i.plain, i.count), (1 << 63, Some(u128::from(u64::MAX))));
    let i: IntegersInput = decode(
        serde_json::from_str(r#"{"plain": -1180591620717411303424, "either": 7.0}"#).unwrap(),
    );
    assert_eq!(
        (i.plain, i.either),
        (-(1 << 70), Some(IntegersInputEither::Integer(7)))
    );
    // A fraction is still no integer.
    assert!(decode_arguments::<IntegersInput>(json!({"plain": 5.5})).is_err());
}
