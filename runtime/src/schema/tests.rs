//! The validator keyword by keyword, in each dialect where it differs, and
//! what it says about bad instances and bad schemas.

use serde_json::{json, Value};

use super::*;

/// `schema` in `draft` accepts every one of `good` and refuses every one of
/// `bad`, and `errors` agrees with `is_valid`.
fn check(draft: Draft, schema: Value, good: &[Value], bad: &[Value]) {
    let s = Schema::compile(&schema, draft)
        .unwrap_or_else(|e| panic!("{schema} does not compile: {e:?}"));
    for v in good {
        assert!(s.is_valid(v), "{schema} refuses {v}: {:?}", s.errors(v));
        assert!(s.errors(v).is_empty(), "{schema}: errors for valid {v}");
    }
    for v in bad {
        assert!(!s.is_valid(v), "{schema} accepts {v}");
        assert!(
            !s.errors(v).is_empty(),
            "{schema}: no error for invalid {v}"
        );
    }
}

use Draft::*;

#[test]
fn types_and_values() {
    check(
        Draft202012,
        json!({"type": "integer"}),
        &[json!(1), json!(1.0), json!(-5)],
        &[json!(1.5), json!("1"), json!(null)],
    );
    check(
        Draft4,
        json!({"type": "integer"}),
        &[json!(1)],
        &[json!(1.0)],
    );
    check(
        Draft7,
        json!({"type": ["string", "null"]}),
        &[json!("a"), json!(null)],
        &[json!(1), json!([])],
    );
    check(
        Draft7,
        json!({"type": "number"}),
        &[json!(1), json!(2.5)],
        &[json!("2")],
    );
    check(
        Draft7,
        json!({"enum": [1, "a", {"b": [2]}]}),
        &[json!(1.0), json!("a"), json!({"b": [2.0]})],
        &[json!(2), json!({"b": []})],
    );
    check(
        Draft6,
        json!({"const": {"a": 1}}),
        &[json!({"a": 1.0})],
        &[json!({"a": 2}), json!({"a": 1, "b": 1})],
    );
    check(Draft7, json!(true), &[json!(1), json!(null)], &[]);
    check(Draft7, json!(false), &[], &[json!(1), json!({})]);
    check(
        Draft7,
        json!({"not": {"type": "string"}}),
        &[json!(1)],
        &[json!("a")],
    );
}

#[test]
fn numbers() {
    check(
        Draft7,
        json!({"minimum": 1, "maximum": 3.5}),
        &[json!(1), json!(3.5), json!("x")],
        &[json!(0.99), json!(3.6)],
    );
    check(
        Draft7,
        json!({"exclusiveMinimum": 1, "exclusiveMaximum": 3}),
        &[json!(2), json!(1.01)],
        &[json!(1), json!(3)],
    );
    check(
        Draft4,
        json!({"minimum": 1, "exclusiveMinimum": true}),
        &[json!(1.5)],
        &[json!(1)],
    );
    check(
        Draft4,
        json!({"maximum": 1, "exclusiveMaximum": false}),
        &[json!(1)],
        &[json!(2)],
    );
    check(
        Draft7,
        json!({"multipleOf": 0.01}),
        &[json!(0.07), json!(19.99), json!(3)],
        &[json!(0.075)],
    );
    check(
        Draft7,
        json!({"multipleOf": 2}),
        &[json!(4), json!(4.0)],
        &[json!(3), json!(4.5)],
    );
    check(
        Draft7,
        json!({"maximum": 18446744073709551615u64}),
        &[json!(18446744073709551615u64)],
        &[json!(1.9e19)],
    );
}

#[test]
fn strings() {
    check(
        Draft7,
        json!({"minLength": 2, "maxLength": 3}),
        &[json!("ab"), json!("日本語"), json!(5)],
        &[json!("a"), json!("abcd"), json!("日本語x")],
    );
    check(
        Draft7,
        json!({"pattern": "^[a-z]+\\d?$"}),
        &[json!("abc1"), json!(7)],
        &[json!("ABC"), json!("abc12")],
    );
    // ECMA-262 unicode mode: a Unicode property class, not the text "p{L}".
    check(
        Draft202012,
        json!({"pattern": "^\\p{L}+$"}),
        &[json!("héllo"), json!("Ωmega")],
        &[json!("p{L}"), json!("a1")],
    );
    check(
        Draft7,
        json!({"patternProperties": {"^\\d+$": {"type": "integer"}}}),
        &[json!({"12": 1, "١٢": "x"})],
        &[json!({"12": "x"})],
    );
    check(
        Draft7,
        json!({"pattern": "b"}),
        &[json!("abc")],
        &[json!("xyz")],
    );
    check(
        Draft7,
        json!({"pattern": "^(?!x)\\w+(?<=z)$"}),
        &[json!("abz")],
        &[json!("xbz"), json!("aby")],
    );
}

#[test]
fn formats_assert_up_to_draft_7_and_annotate_after() {
    let schema = json!({"format": "date-time"});
    check(
        Draft7,
        schema.clone(),
        &[json!("2025-01-01T00:00:00Z"), json!(3)],
        &[json!("yesterday")],
    );
    check(Draft202012, schema.clone(), &[json!("yesterday")], &[]);
    let strict = Schema::options(Draft202012)
        .formats(true)
        .compile(&schema)
        .unwrap();
    assert!(!strict.is_valid(&json!("yesterday")));
    let loose = Schema::options(Draft7)
        .formats(false)
        .compile(&schema)
        .unwrap();
    assert!(loose.is_valid(&json!("yesterday")));
    // Unknown formats are annotations.
    check(
        Draft7,
        json!({"format": "x-color"}),
        &[json!("anything")],
        &[],
    );
    let e = strict.errors(&json!("yesterday"));
    assert_eq!(
        e,
        vec![FieldError::new("", "\"yesterday\" is not a \"date-time\"")]
    );
}

#[test]
fn arrays() {
    check(
        Draft7,
        json!({"items": {"type": "integer"}, "minItems": 1, "maxItems": 2}),
        &[json!([1]), json!([1, 2])],
        &[json!([]), json!([1, "a"]), json!([1, 2, 3])],
    );
    check(
        Draft7,
        json!({"items": [{"type": "integer"}, {"type": "string"}], "additionalItems": false}),
        &[json!([1]), json!([1, "a"])],
        &[json!(["a"]), json!([1, "a", 2])],
    );
    check(
        Draft202012,
        json!({"prefixItems": [{"type": "integer"}], "items": {"type": "string"}}),
        &[json!([1, "a", "b"])],
        &[json!([1, 2]), json!(["a"])],
    );
    check(
        Draft7,
        json!({"uniqueItems": true}),
        &[json!([1, 2, {"a": 1}, {"a": 2}])],
        &[json!([1, 1.0]), json!([{"a": 1, "b": 2}, {"b": 2, "a": 1}])],
    );
    let many: Vec<u32> = (0..100).collect();
    let mut repeated = many.clone();
    repeated.push(50);
    check(
        Draft7,
        json!({"uniqueItems": true}),
        &[json!(many)],
        &[json!(repeated)],
    );
    check(
        Draft7,
        json!({"contains": {"const": 3}}),
        &[json!([1, 3])],
        &[json!([1, 2]), json!([])],
    );
    check(
        Draft201909,
        json!({"contains": {"const": 3}, "minContains": 2, "maxContains": 3}),
        &[json!([3, 3]), json!([3, 1, 3, 3])],
        &[json!([3]), json!([3, 3, 3, 3])],
    );
    check(
        Draft202012,
        json!({"contains": {"type": "string"}, "minContains": 0}),
        &[json!([]), json!([1])],
        &[],
    );
}

#[test]
fn objects() {
    let schema = json!({
        "type": "object",
        "properties": {"a": {"type": "integer"}, "b~/c": {"type": "string"}},
        "patternProperties": {"^x-": {"type": "boolean"}},
        "additionalProperties": false,
        "required": ["a"],
        "minProperties": 1,
        "maxProperties": 3
    });
    check(
        Draft7,
        schema,
        &[json!({"a": 1}), json!({"a": 1, "b~/c": "s", "x-y": true})],
        &[
            json!({}),
            json!({"a": "1"}),
            json!({"a": 1, "z": 1}),
            json!({"a": 1, "x-y": 1}),
            json!({"a": 1, "b~/c": "s", "x-y": true, "x-z": false}),
        ],
    );
    check(
        Draft7,
        json!({"additionalProperties": {"type": "string"}}),
        &[json!({"a": "b"})],
        &[json!({"a": 1})],
    );
    check(
        Draft7,
        json!({"propertyNames": {"maxLength": 2}}),
        &[json!({"ab": 1})],
        &[json!({"abc": 1})],
    );
    check(
        Draft7,
        json!({"dependencies": {"a": ["b"], "c": {"required": ["d"]}}}),
        &[
            json!({"a": 1, "b": 1}),
            json!({"c": 1, "d": 1}),
            json!({"b": 1}),
        ],
        &[json!({"a": 1}), json!({"c": 1})],
    );
    check(
        Draft202012,
        json!({"dependentRequired": {"a": ["b"]}, "dependentSchemas": {"c": {"required": ["d"]}}}),
        &[json!({"a": 1, "b": 1})],
        &[json!({"a": 1}), json!({"c": 1})],
    );
}

#[test]
fn applicators() {
    check(
        Draft7,
        json!({"allOf": [{"type": "integer"}, {"minimum": 2}]}),
        &[json!(2)],
        &[json!(1), json!(2.5)],
    );
    check(
        Draft7,
        json!({"anyOf": [{"type": "integer"}, {"type": "string"}]}),
        &[json!(1), json!("a")],
        &[json!(null)],
    );
    check(
        Draft7,
        json!({"oneOf": [{"type": "integer"}, {"minimum": 2}]}),
        &[json!(1), json!(2.5)],
        &[json!(3), json!(0.5)],
    );
    check(
        Draft7,
        json!({"if": {"minimum": 10}, "then": {"multipleOf": 10}, "else": {"maximum": 5}}),
        &[json!(20), json!(4)],
        &[json!(15), json!(7)],
    );
    check(
        Draft6,
        json!({"if": {"minimum": 10}, "then": false}),
        &[json!(20)],
        &[],
    );
}

#[test]
fn references() {
    let tree = json!({
        "$defs": {"node": {"type": "object", "properties": {"value": {"type": "integer"}, "children": {"type": "array", "items": {"$ref": "#/$defs/node"}}}, "required": ["value"]}},
        "$ref": "#/$defs/node"
    });
    check(
        Draft202012,
        tree,
        &[json!({"value": 1, "children": [{"value": 2, "children": []}]})],
        &[json!({"value": 1, "children": [{"children": []}]})],
    );
    // Up to draft-07 `$ref` replaces its siblings; from 2019-09 both apply.
    let sibling = json!({"definitions": {"s": {"type": "string"}}, "$ref": "#/definitions/s", "maxLength": 1});
    check(Draft7, sibling.clone(), &[json!("long")], &[json!(1)]);
    check(Draft202012, sibling, &[json!("a")], &[json!("long")]);
    // `$id` bases, anchors, escaped pointers.
    let ids = json!({
        "$id": "https://example.com/root.json",
        "$defs": {
            "a": {"$id": "nested/a.json", "type": "integer"},
            "b": {"$anchor": "bee", "type": "string"},
            "c/d": {"type": "boolean"},
            "e f": {"type": "null"}
        },
        "properties": {
            "a": {"$ref": "https://example.com/nested/a.json"},
            "a2": {"$ref": "nested/a.json"},
            "b": {"$ref": "#bee"},
            "c": {"$ref": "#/$defs/c~1d"},
            "e": {"$ref": "#/$defs/e%20f"}
        }
    });
    check(
        Draft202012,
        ids,
        &[json!({"a": 1, "a2": 2, "b": "x", "c": true, "e": null})],
        &[
            json!({"a": "1"}),
            json!({"a2": "1"}),
            json!({"b": 1}),
            json!({"c": 1}),
            json!({"e": 1}),
        ],
    );
    check(
        Draft7,
        json!({"definitions": {"x": {"$id": "#ex", "type": "integer"}}, "$ref": "#ex"}),
        &[json!(1)],
        &[json!("1")],
    );
    check(
        Draft4,
        json!({"definitions": {"x": {"id": "#ex", "type": "integer"}}, "properties": {"p": {"$ref": "#ex"}}}),
        &[json!({"p": 1})],
        &[json!({"p": "1"})],
    );
    // A pointer into a place that is not a keyword.
    check(
        Draft202012,
        json!({"x-lib": {"int": {"type": "integer"}}, "$ref": "#/x-lib/int"}),
        &[json!(1)],
        &[json!("1")],
    );
}

#[test]
fn a_schema_that_only_refers_to_itself_constrains_nothing() {
    // Only references, round in a loop: nothing is asked of the value,
    // as the reference validators read it.
    for schema in [
        json!({"$ref": "#"}),
        json!({"$defs": {"x": {"$ref": "#/$defs/y"}, "y": {"$ref": "#/$defs/x"}}, "properties": {"a": {"$ref": "#/$defs/x"}}}),
    ] {
        let s = Schema::compile(&schema, Draft202012).unwrap();
        assert!(
            s.is_valid(&json!(1)) && s.is_valid(&json!({"a": [null]})),
            "{schema}"
        );
    }
}

#[test]
fn a_schema_that_recurses_without_end_fails_instead_of_overflowing() {
    let s = Schema::compile(&json!({"allOf": [{"$ref": "#"}]}), Draft202012).unwrap();
    assert!(!s.is_valid(&json!(1)));
    assert!(s.errors(&json!(1))[0].message.contains("deep"));
}

#[test]
fn unevaluated_keywords_see_what_in_place_subschemas_evaluated() {
    let schema = json!({
        "type": "object",
        "properties": {"kind": {"type": "string"}},
        "allOf": [{"properties": {"a": true}}],
        "anyOf": [{"properties": {"b": true}, "required": ["b"]}, {"properties": {"c": true}, "required": ["c"]}],
        "if": {"properties": {"kind": {"const": "x"}}}, "then": {"properties": {"x": true}},
        "unevaluatedProperties": false
    });
    check(
        Draft202012,
        schema,
        &[
            json!({"kind": "x", "a": 1, "b": 1, "x": 1}),
            json!({"kind": "y", "c": 1}),
        ],
        &[
            json!({"kind": "y", "b": 1, "x": 1}),
            json!({"b": 1, "z": 1}),
        ],
    );
    let items = json!({"prefixItems": [{"type": "integer"}], "allOf": [{"prefixItems": [true, true]}], "unevaluatedItems": false});
    check(Draft202012, items, &[json!([1, 2])], &[json!([1, 2, 3])]);
    let contains = json!({"contains": {"type": "string"}, "unevaluatedItems": {"type": "integer"}});
    check(
        Draft202012,
        contains,
        &[json!(["a", 1, "b"])],
        &[json!(["a", 1.5])],
    );
    let nested = json!({"$ref": "#/$defs/base", "$defs": {"base": {"properties": {"a": true}}}, "properties": {"b": true}, "unevaluatedProperties": false});
    check(
        Draft201909,
        nested,
        &[json!({"a": 1, "b": 2})],
        &[json!({"a": 1, "c": 2})],
    );
}

#[test]
fn errors_name_every_failing_value_and_why() {
    let schema = json!({
        "type": "object",
        "properties": {
            "city": {"type": "string", "minLength": 2},
            "days": {"type": "array", "items": {"type": "integer", "maximum": 7}},
            "units": {"enum": ["metric", "imperial"]},
            "a/b": {"type": "boolean"}
        },
        "required": ["city", "when"],
        "additionalProperties": false
    });
    let s = Schema::compile(&schema, Draft202012).unwrap();
    let bad = json!({"city": "O", "days": [1, 9, "x"], "units": "kelvin", "a/b": 1, "extra": true});
    let errors = s.errors(&bad);
    assert_eq!(s.validate(&bad).unwrap_err(), errors);
    let got: Vec<(&str, &str)> = errors
        .iter()
        .map(|e| (e.path.as_str(), e.message.as_str()))
        .collect();
    assert_eq!(
        got,
        vec![
            ("", "required property \"when\" is missing"),
            ("/city", "\"O\" is shorter than 2 characters"),
            ("/days/1", "9 is greater than the maximum of 7"),
            ("/days/2", "\"x\" is not of type \"integer\""),
            (
                "/units",
                "\"kelvin\" is not one of [\"metric\",\"imperial\"]"
            ),
            ("/a~1b", "1 is not of type \"boolean\""),
            (
                "",
                "additional properties are not allowed (\"extra\" unexpected)"
            ),
        ]
    );
    // Count bounds say which side was missed, and by what.
    let counts = json!({"properties": {
        "few": {"minItems": 2}, "many": {"maxItems": 1},
        "thin": {"minProperties": 2}, "fat": {"maxProperties": 0}
    }});
    let s = Schema::compile(&counts, Draft202012).unwrap();
    let bad = json!({"few": [1], "many": [1, 2], "thin": {"a": 1}, "fat": {"a": 1}});
    let got: Vec<String> = s
        .errors(&bad)
        .iter()
        .map(|e| format!("{}: {}", e.path, e.message))
        .collect();
    assert_eq!(
        got,
        [
            "/few: [1] has fewer than 2 items",
            "/many: [1,2] has more than 1 items",
            "/thin: {\"a\":1} has fewer than 2 properties",
            "/fat: {\"a\":1} has more than 0 properties",
        ]
    );
    // Long values are cut in messages.
    let long = "x".repeat(500);
    let e = Schema::compile(&json!({"type": "integer"}), Draft7)
        .unwrap()
        .errors(&json!(long));
    assert!(e[0].message.len() < 100, "{}", e[0].message);
}

#[test]
fn bad_schemas_are_reported_where_they_are() {
    let schema = json!({
        "type": "object",
        "properties": {
            "n": {"type": "integer", "minimum": "zero"},
            "s": {"type": "text", "pattern": "[a-", "maxLength": -1},
            "l": {"items": 5, "required": "x"},
            "r": {"$ref": "#/$defs/missing"},
            "o": {"anyOf": []}
        }
    });
    let problems = Schema::compile(&schema, Draft7).unwrap_err();
    let got: Vec<(&str, &str)> = problems
        .iter()
        .map(|p| (p.pointer.as_str(), p.message.as_str()))
        .collect();
    let want = [
        (
            "/properties/l/items",
            "5 is not of type \"object\" or \"boolean\"",
        ),
        ("/properties/l/required", "\"x\" is not of type \"array\""),
        (
            "/properties/n/minimum",
            "\"zero\" is not of type \"number\"",
        ),
        ("/properties/o/anyOf", "[] has fewer than 1 item"),
        (
            "/properties/r/$ref",
            "reference \"#/$defs/missing\" does not resolve: nothing is at /$defs/missing",
        ),
        (
            "/properties/s/maxLength",
            "-1 is less than the minimum of 0",
        ),
    ];
    for (pointer, message) in want {
        assert!(
            got.contains(&(pointer, message)),
            "missing ({pointer}, {message}) in {got:#?}"
        );
    }
    assert!(
        got.iter().any(|(p, m)| *p == "/properties/s/pattern"
            && m.contains("not a valid ECMA-262 regular expression")),
        "{got:#?}"
    );
    assert!(
        got.iter().any(|(p, m)| *p == "/properties/s/type"
            && m.contains("\"text\" is not one of the type names")),
        "{got:#?}"
    );
    let remote = Schema::compile(
        &json!({"$ref": "https://example.com/other.json"}),
        Draft202012,
    )
    .unwrap_err();
    assert!(
        remote[0]
            .message
            .contains("remote schemas are never fetched"),
        "{remote:?}"
    );
    assert!(
        Schema::compile(&json!(true), Draft4).is_err(),
        "draft-04 has no boolean schemas"
    );
    assert!(Schema::compile(
        &json!({"$defs": {"x": {"$anchor": "a"}}, "$ref": "#b"}),
        Draft202012
    )
    .is_err());
}

#[test]
fn dialects_come_from_schema_uris() {
    assert_eq!(
        Draft::from_uri("http://json-schema.org/draft-07/schema#"),
        Some(Draft7)
    );
    assert_eq!(
        Draft::from_uri("https://json-schema.org/draft/2020-12/schema"),
        Some(Draft202012)
    );
    assert_eq!(Draft::from_uri("https://example.com/schema"), None);
    // The schema's own dialect wins over the default.
    let s = Schema::compile(
        &json!({"$schema": "http://json-schema.org/draft-04/schema#", "type": "integer"}),
        Draft202012,
    )
    .unwrap();
    assert_eq!(s.draft(), Draft4);
    assert!(!s.is_valid(&json!(1.0)));
}

/// Random schemas of real keywords holding random values (most of them
/// wrong), and random instances: compiling and validating never panics,
/// and `errors` is empty exactly when `is_valid` says so.
#[test]
fn arbitrary_schemas_and_instances_never_panic() {
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    let mut next = move |n: usize| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed % n as u64) as usize
    };
    const KEYWORDS: [&str; 44] = [
        "type",
        "enum",
        "const",
        "multipleOf",
        "maximum",
        "minimum",
        "exclusiveMaximum",
        "exclusiveMinimum",
        "maxLength",
        "minLength",
        "pattern",
        "items",
        "additionalItems",
        "prefixItems",
        "maxItems",
        "minItems",
        "uniqueItems",
        "contains",
        "minContains",
        "maxContains",
        "maxProperties",
        "minProperties",
        "required",
        "properties",
        "patternProperties",
        "additionalProperties",
        "dependencies",
        "dependentRequired",
        "dependentSchemas",
        "propertyNames",
        "allOf",
        "anyOf",
        "oneOf",
        "not",
        "if",
        "then",
        "else",
        "format",
        "$ref",
        "$defs",
        "definitions",
        "$id",
        "unevaluatedProperties",
        "unevaluatedItems",
    ];
    let atoms = [
        json!(null),
        json!(true),
        json!(false),
        json!(0),
        json!(-1),
        json!(2.5),
        json!(1e300),
        json!("a"),
        json!("string"),
        json!("#"),
        json!("#/$defs/a"),
        json!("(a+)+$"),
        json!("["),
        json!("date-time"),
        json!("%zz"),
        json!("http://x/y#"),
        json!([]),
        json!(["a", "b"]),
        json!({}),
    ];
    fn value(next: &mut impl FnMut(usize) -> usize, atoms: &[Value], depth: usize) -> Value {
        match next(if depth > 3 { 1 } else { 4 }) {
            0 => atoms[next(atoms.len())].clone(),
            1 => Value::Array(
                (0..next(3))
                    .map(|_| value(next, atoms, depth + 1))
                    .collect(),
            ),
            _ => schema(next, atoms, depth + 1),
        }
    }
    fn schema(next: &mut impl FnMut(usize) -> usize, atoms: &[Value], depth: usize) -> Value {
        let mut o = serde_json::Map::new();
        for _ in 0..next(4) {
            let key = if next(3) == 0 {
                ["a", "b", "x-y"][next(3)]
            } else {
                KEYWORDS[next(KEYWORDS.len())]
            };
            o.insert(key.to_owned(), value(next, atoms, depth));
        }
        Value::Object(o)
    }
    let (mut compiled, mut checked) = (0, 0);
    for round in 0..3000 {
        let s = schema(&mut next, &atoms, 0);
        let draft = [Draft4, Draft6, Draft7, Draft201909, Draft202012][round % 5];
        let Ok(v) = Schema::options(draft).formats(round % 2 == 0).compile(&s) else {
            continue;
        };
        compiled += 1;
        for _ in 0..5 {
            let instance = value(&mut next, &atoms, 0);
            let valid = v.is_valid(&instance);
            assert_eq!(v.errors(&instance).is_empty(), valid, "{s} on {instance}");
            checked += 1;
        }
    }
    assert!(
        compiled > 300 && checked > 1500,
        "{compiled} schemas compiled, {checked} instances"
    );
}

#[test]
fn a_definition_is_checked_on_its_own_within_one_compile() {
    let doc = json!({
        "$defs": {
            "Id": {"type": "integer", "minimum": 1},
            "Item": {"type": "object", "properties": {"id": {"$ref": "#/$defs/Id"}}, "required": ["id"]}
        },
        "type": "array"
    });
    let s = Schema::compile(&doc, Draft202012).unwrap();
    let item = s.subschema("/$defs/Item").unwrap();
    assert!(item.is_valid(&json!({"id": 3})));
    let e = item.errors(&json!({"id": 0}));
    assert_eq!(
        e,
        vec![FieldError::new("/id", "0 is less than the minimum of 1")]
    );
    assert!(
        !s.is_valid(&json!({"id": 3})),
        "the document itself still wants an array"
    );
    assert!(s.subschema("/$defs/Missing").is_none());
}

#[test]
fn meta_schemas_are_built_in_and_other_documents_are_given() {
    // A schema that is a draft's meta-schema by reference.
    check(
        Draft7,
        json!({"$ref": "http://json-schema.org/draft-07/schema#"}),
        &[json!({"type": "string"}), json!(true)],
        &[json!({"type": 1}), json!({"minLength": -1})],
    );
    check(
        Draft202012,
        json!({"$ref": "https://json-schema.org/draft/2020-12/schema"}),
        &[json!({"$defs": {"a": {"type": "array"}}})],
        &[json!({"$defs": {"a": {"type": "nope"}}})],
    );
    let other = json!({"$defs": {"id": {"type": "string", "minLength": 1}}});
    let s = Schema::options(Draft202012)
        .document("https://example.com/common.json", other)
        .compile(
            &json!({"properties": {"id": {"$ref": "https://example.com/common.json#/$defs/id"}}}),
        )
        .unwrap();
    assert!(s.is_valid(&json!({"id": "a"})) && !s.is_valid(&json!({"id": ""})));
}

#[test]
fn dynamic_references_follow_the_dynamic_scope() {
    // A generic list whose items an outer schema narrows to strings.
    let list = json!({
        "$id": "https://example.com/strings",
        "$ref": "list",
        "$defs": {
            "items": {"$dynamicAnchor": "item", "type": "string"},
            "list": {
                "$id": "list",
                "type": "array",
                "items": {"$dynamicRef": "#item"},
                "$defs": {"any": {"$dynamicAnchor": "item"}}
            }
        }
    });
    check(Draft202012, list, &[json!(["a", "b"])], &[json!(["a", 1])]);
    let tree = json!({
        "$id": "https://example.com/tree",
        "$recursiveAnchor": true,
        "type": "object",
        "properties": {"kids": {"type": "array", "items": {"$recursiveRef": "#"}}}
    });
    check(
        Draft201909,
        tree,
        &[json!({"kids": [{"kids": []}]})],
        &[json!({"kids": [{"kids": [1]}]})],
    );
}
