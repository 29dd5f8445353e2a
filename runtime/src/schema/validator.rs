//! Compiled JSON Schema validators for tool inputs and outputs.
//!
//! Each tool's `inputSchema` and `outputSchema` is compiled once, when the
//! server starts, with mcpgen's own validator ([`crate::schema`]). The
//! dialect is the schema's own `$schema` when it names one, else the
//! protocol revision's default: draft-07 before 2025-11-25 and 2020-12 from
//! it on. Validation reports every failing field with its instance path (a
//! JSON pointer) and why.

use std::sync::Arc;

use serde_json::Value;

use super::doc::{self, Doc};
use super::{first_problem, Draft, FieldError, Schema};

/// The default dialect of schemas without `$schema` in a protocol revision
/// (from the revision table; an unknown revision takes the one before it).
pub fn default_draft(revision: &str) -> Draft {
    Draft::from_uri(crate::revision::nearest(revision).default_schema).unwrap_or(Draft::Draft202012)
}

/// A compiled schema.
#[derive(Debug, Clone)]
pub struct SchemaValidator {
    inner: Schema,
    /// A direct check of [`Doc`]s for schemas of the common keywords only.
    plan: Option<Arc<doc::Plan>>,
}

impl SchemaValidator {
    /// Compiles `schema`, in its own `$schema` dialect or else `default`;
    /// the error names the first problem of the schema and where it is.
    pub fn compile(schema: &Value, default: Draft) -> Result<Self, String> {
        let inner =
            Schema::compile(schema, default).map_err(|problems| first_problem(&problems))?;
        let plan = match inner.draft() {
            Draft::Draft4 => None,
            _ => doc::Plan::compile(schema).map(Arc::new),
        };
        Ok(Self { inner, plan })
    }

    /// Whether `doc` satisfies the schema: the same answer as
    /// [`SchemaValidator::validate`] on `Doc::to_value`, without the value
    /// for schemas of the common keywords.
    pub fn is_valid_doc(&self, doc: &Doc) -> bool {
        // The plan only ever confirms validity; anything else is decided
        // on the value.
        self.plan.as_ref().is_some_and(|plan| plan.accepts(doc))
            || self.inner.is_valid(&doc.to_value())
    }

    /// Checks `instance`; on failure lists every failing field.
    pub fn validate(&self, instance: &Value) -> Result<(), Vec<FieldError>> {
        self.inner.validate(instance)
    }
}

/// Text naming each failing field and why, for a model to correct itself.
pub fn describe(tool: &str, errors: &[FieldError]) -> String {
    const HEAD: &str = "Invalid arguments for tool ";
    let size = errors
        .iter()
        .map(|e| e.path.len().max(6) + e.message.len() + 4)
        .sum::<usize>();
    let mut text = String::with_capacity(HEAD.len() + tool.len() + 1 + size);
    text.push_str(HEAD);
    text.push_str(tool);
    text.push(':');
    for e in errors {
        text.push_str("\n- ");
        let path = if e.path.is_empty() {
            "(root)"
        } else {
            e.path.as_str()
        };
        text.push_str(path);
        text.push_str(": ");
        text.push_str(&e.message);
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn schema() -> Value {
        json!({
            "type": "object",
            "properties": {
                "city": {"type": "string", "minLength": 1},
                "units": {"enum": ["metric", "imperial"]},
                "days": {"type": "integer", "minimum": 1, "maximum": 7}
            },
            "required": ["city"],
            "additionalProperties": false
        })
    }

    #[test]
    fn valid_instances_pass() {
        let v = SchemaValidator::compile(&schema(), Draft::Draft202012).unwrap();
        assert!(v
            .validate(&json!({"city": "Oslo", "units": "metric", "days": 3}))
            .is_ok());
    }

    #[test]
    fn every_failing_field_is_reported_with_its_path() {
        let v = SchemaValidator::compile(&schema(), Draft::Draft202012).unwrap();
        let errors = v
            .validate(&json!({"city": "", "units": "kelvin", "days": 9}))
            .unwrap_err();
        let paths: Vec<&str> = errors.iter().map(|e| e.path.as_str()).collect();
        assert!(paths.contains(&"/city"), "{errors:?}");
        assert!(paths.contains(&"/units"), "{errors:?}");
        assert!(paths.contains(&"/days"), "{errors:?}");
        let text = describe("get_weather", &errors);
        assert!(text.contains("/units: "), "{text}");
    }

    #[test]
    fn missing_required_is_reported_at_the_root() {
        let v = SchemaValidator::compile(&schema(), Draft::Draft7).unwrap();
        let errors = v.validate(&json!({})).unwrap_err();
        assert_eq!(errors.len(), 1);
        assert_eq!(errors[0].path, "");
        assert!(errors[0].message.contains("city"), "{errors:?}");
    }

    #[test]
    fn dialect_follows_schema_then_revision() {
        assert_eq!(default_draft("2025-06-18"), Draft::Draft7);
        assert_eq!(default_draft("2025-11-25"), Draft::Draft202012);
        for revision in crate::revision::REVISIONS {
            assert!(
                Draft::from_uri(revision.default_schema).is_some(),
                "{}: {}",
                revision.name,
                revision.default_schema
            );
        }
        // `prefixItems` only means something in 2020-12.
        let s = json!({"type": "array", "prefixItems": [{"type": "string"}]});
        let new = SchemaValidator::compile(&s, Draft::Draft202012).unwrap();
        assert!(new.validate(&json!([1])).is_err());
        let old = SchemaValidator::compile(&s, Draft::Draft7).unwrap();
        assert!(old.validate(&json!([1])).is_ok());
        // An explicit `$schema` wins over the revision default.
        let mut explicit = s.clone();
        explicit["$schema"] = json!("https://json-schema.org/draft/2020-12/schema");
        let v = SchemaValidator::compile(&explicit, Draft::Draft7).unwrap();
        assert!(v.validate(&json!([1])).is_err());
    }

    #[test]
    fn invalid_schemas_are_reported_not_panicked() {
        assert!(SchemaValidator::compile(&json!({"type": 12}), Draft::Draft202012).is_err());
    }

    mod docs {
        use std::collections::BTreeMap;

        use serde::ser::{SerializeMap, Serializer};
        use serde::Serialize;

        use super::*;

        #[derive(Serialize)]
        enum Shape {
            Unit,
            #[serde(rename = "new type")]
            Newtype(u8),
            Tuple(i32, String),
            Struct {
                a: Option<bool>,
                b: f32,
            },
        }

        #[derive(Serialize)]
        struct Everything {
            text: String,
            escaped: &'static str,
            chars: (char, char),
            small: i8,
            negative: i64,
            big: u64,
            wide: i128,
            floats: Vec<f64>,
            single: f32,
            none: Option<u8>,
            #[serde(skip_serializing_if = "Option::is_none")]
            skipped: Option<u8>,
            unit: (),
            shapes: Vec<Shape>,
            map: BTreeMap<String, Vec<u16>>,
            bytes: &'static [u8],
            value: Value,
            #[serde(flatten)]
            flat: BTreeMap<String, bool>,
        }

        fn everything() -> Everything {
            Everything {
                text: "Oslo".into(),
                escaped: "q\"b\\s\n\u{1}é😀",
                chars: ('x', '"'),
                small: -3,
                negative: i64::MIN,
                big: u64::MAX,
                wide: -5,
                floats: vec![0.1, -0.0, 1e300, f64::NAN, f64::INFINITY, 10.7, 3.0],
                single: 0.1,
                none: None,
                skipped: None,
                unit: (),
                shapes: vec![
                    Shape::Unit,
                    Shape::Newtype(7),
                    Shape::Tuple(-1, "t".into()),
                    Shape::Struct {
                        a: Some(true),
                        b: 2.5,
                    },
                ],
                map: BTreeMap::from([
                    ("k\"ey".to_owned(), vec![1, 2]),
                    ("empty".to_owned(), vec![]),
                ]),
                bytes: b"ab",
                value: json!({"z": 1, "a": [null, true, {"n": -1.5}], "": "s"}),
                flat: BTreeMap::from([("f".to_owned(), false)]),
            }
        }

        /// What the engine sent before: `to_value`, then its text.
        fn reference<T: Serialize>(v: &T) -> (Value, String) {
            let value = serde_json::to_value(v).unwrap();
            let text = serde_json::to_string(&value).unwrap();
            (value, text)
        }

        /// One case: what `Doc::encode` gives, and what serde_json gives.
        type Case = Box<dyn Fn() -> (Option<Doc>, (Value, String))>;

        #[test]
        fn a_doc_is_the_value_and_text_serde_json_gives() {
            let cases: Vec<Case> = vec![
                Box::new(|| (Doc::encode(&everything()), reference(&everything()))),
                Box::new(|| (Doc::encode(&5u8), reference(&5u8))),
                Box::new(|| (Doc::encode("top"), reference(&"top"))),
                Box::new(|| (Doc::encode(&Vec::<u8>::new()), reference(&Vec::<u8>::new()))),
                Box::new(|| (Doc::encode(&json!({})), reference(&json!({})))),
                Box::new(|| (Doc::encode(&f64::NAN), reference(&f64::NAN))),
                Box::new(|| (Doc::encode(&Shape::Unit), reference(&Shape::Unit))),
            ];
            for case in cases {
                let (doc, (value, text)) = case();
                let doc = doc.expect("encodable");
                assert_eq!(doc.json(), text);
                assert_eq!(doc.to_value(), value);
                let mut escaped = String::new();
                if doc.write_text(&mut escaped) {
                    let quoted = serde_json::to_string(&text).unwrap();
                    assert_eq!(escaped, quoted[1..quoted.len() - 1]);
                }
            }
            // Without strings that need escaping, the text is written from the spans.
            let plain = json!({"a": ["b", {"": "c", "d": 1}], "e": null});
            let mut escaped = String::new();
            assert!(Doc::encode(&plain).unwrap().write_text(&mut escaped));
            assert_eq!(
                escaped,
                r#"{\"a\":[\"b\",{\"\":\"c\",\"d\":1}],\"e\":null}"#
            );

            // Pieces of every length from 0 to 40 between the quotes, at the
            // start, in the middle and at the very end of the text, after
            // text already in the buffer.
            for n in 0..40usize {
                let word = "x".repeat(n);
                let number = 10u64.pow((n % 19) as u32);
                for doc in [
                    json!([word, number, word]),
                    json!({word.clone(): [number, word.clone()], "k": number}),
                    json!(word),
                ] {
                    let doc = Doc::encode(&doc).unwrap();
                    let mut escaped = String::from("head:");
                    assert!(doc.write_text(&mut escaped));
                    let quoted = serde_json::to_string(doc.json()).unwrap();
                    assert_eq!(
                        escaped,
                        format!("head:{}", &quoted[1..quoted.len() - 1]),
                        "n = {n}"
                    );
                }
            }
        }

        struct Repeated;

        impl Serialize for Repeated {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                let mut m = s.serialize_map(None)?;
                m.serialize_entry("a", &1)?;
                m.serialize_entry("b", &2)?;
                m.serialize_entry("a", &3)?;
                m.end()
            }
        }

        #[test]
        fn what_a_doc_cannot_hold_like_a_value_is_refused() {
            assert!(Doc::encode(&Repeated).is_none());
            assert!(Doc::encode(&BTreeMap::from([(1, 2)])).is_none());
            assert!(Doc::encode(&(u128::from(u64::MAX) + 1)).is_none());
            assert!(Doc::encode(&i128::MIN).is_none());
        }

        #[test]
        fn docs_validate_as_values_do() {
            let schema = json!({
                "type": "object",
                "properties": {
                    "city": {"type": "string", "minLength": 2, "maxLength": 5},
                    "units": {"enum": ["metric", "imperial"]},
                    "days": {"type": "array", "minItems": 1, "uniqueItems": true, "items": {
                        "type": "object",
                        "properties": {"day": {"type": "integer", "minimum": 1}, "high": {"type": "number", "maximum": 40}},
                        "required": ["day", "high"],
                        "additionalProperties": false
                    }},
                    "tag": {"const": {"a": [1, 2.0]}},
                    "code": {"type": "integer", "multipleOf": 3}
                },
                "required": ["city", "days"],
                "propertyNames": {"pattern": "^[a-z]+$"}
            });
            let instances = [
                json!({"city": "Oslo", "units": "metric", "days": [{"day": 1, "high": 10.5}]}),
                json!({"city": "Oslo", "days": [{"day": 1, "high": 10.5}, {"day": 1, "high": 10.5}]}),
                json!({"city": "O", "days": [{"day": 1, "high": 10.5}]}),
                json!({"city": "Oslo", "units": "kelvin", "days": [{"day": 1, "high": 10.5}]}),
                json!({"city": "Oslo", "days": []}),
                json!({"city": "Oslo", "days": [{"day": 0, "high": 50}]}),
                json!({"city": "Oslo", "days": [{"day": 1.0, "high": 1}]}),
                json!({"city": "Oslo", "days": [{"day": 1, "high": 1, "x": 2}]}),
                json!({"city": "Oslo", "days": [{"day": 1, "high": 1}], "tag": {"a": [1, 2]}}),
                json!({"city": "Oslo", "days": [{"day": 1, "high": 1}], "tag": {"a": [1, 3]}}),
                json!({"city": "Oslo", "days": [{"day": 1, "high": 1}], "code": 9}),
                json!({"city": "Oslo", "days": [{"day": 1, "high": 1}], "code": -4}),
                json!({"city": "Oslo", "days": [{"day": 1, "high": 1}], "Bad": 1}),
                json!({"city": "Oslo"}),
                json!([1]),
                json!("Oslo"),
            ];
            for draft in [Draft::Draft7, Draft::Draft202012] {
                let v = SchemaValidator::compile(&schema, draft).unwrap();
                for instance in &instances {
                    let doc = Doc::encode(instance).unwrap();
                    assert_eq!(
                        v.is_valid_doc(&doc),
                        v.validate(instance).is_ok(),
                        "{instance}"
                    );
                }
            }
        }

        #[test]
        fn a_plan_confirms_only_what_the_validator_accepts() {
            let schemas = [
                json!({
                    "type": "object",
                    "properties": {
                        "city": {"type": "string", "minLength": 2, "maxLength": 5, "description": "x"},
                        "units": {"type": "string", "enum": ["metric", "imperial"]},
                        "days": {"type": "array", "items": {
                            "type": "object",
                            "properties": {
                                "day": {"type": "integer", "minimum": 1},
                                "high": {"type": "number", "maximum": 40.5, "exclusiveMinimum": -10},
                                "low": {"type": ["number", "null"]}
                            },
                            "required": ["day", "high"],
                            "additionalProperties": false
                        }}
                    },
                    "required": ["city", "units", "days"]
                }),
                json!({"type": "integer", "maximum": 9007199254740993u64}),
                json!({"type": "number", "exclusiveMaximum": 0.5}),
                json!({"enum": ["a", "é"]}),
            ];
            let instances = [
                json!({"city": "Oslo", "units": "metric", "days": [{"day": 1, "high": 10.5, "low": null}]}),
                json!({"city": "Oslo", "units": "metric", "days": []}),
                json!({"city": "Oslo", "units": "metric", "days": [{"day": 1.0, "high": 1}]}),
                json!({"city": "Oslo", "units": "metric", "days": [{"day": 0, "high": 1}]}),
                json!({"city": "Oslo", "units": "metric", "days": [{"day": 1, "high": 40.6}]}),
                json!({"city": "Oslo", "units": "metric", "days": [{"day": 1, "high": -10}]}),
                json!({"city": "Oslo", "units": "metric", "days": [{"day": 1, "high": 1, "x": 1}]}),
                json!({"city": "Oslo", "units": "kelvin", "days": []}),
                json!({"city": "Ōslö", "units": "metric", "days": []}),
                json!({"city": "O", "units": "metric", "days": []}),
                json!({"city": "Oslo", "days": []}),
                json!(9007199254740993u64),
                json!(9007199254740994u64),
                json!(3.0),
                json!(-1),
                json!(0.25),
                json!(0.5),
                json!("é"),
                json!("b"),
                json!(null),
            ];
            for (n, schema) in schemas.iter().enumerate() {
                assert!(
                    doc::Plan::compile(schema).is_some(),
                    "schema {n} has a plan"
                );
                let v = SchemaValidator::compile(schema, Draft::Draft202012).unwrap();
                for instance in &instances {
                    let doc = Doc::encode(instance).unwrap();
                    let confirmed = doc::Plan::compile(schema).unwrap().accepts(&doc);
                    if confirmed {
                        assert!(
                            v.validate(instance).is_ok(),
                            "schema {n} confirms {instance} that the validator refuses"
                        );
                    }
                    assert_eq!(
                        v.is_valid_doc(&doc),
                        v.validate(instance).is_ok(),
                        "schema {n}, {instance}"
                    );
                }
            }
            // The common case is confirmed without the value.
            let plan = doc::Plan::compile(&schemas[0]).unwrap();
            assert!(plan.accepts(&Doc::encode(&instances[0]).unwrap()));
            assert!(
                !plan.accepts(&Doc::encode(&instances[2]).unwrap()),
                "a float day is left to the value check"
            );
            // What a plan does not cover leaves the schema without one.
            for schema in [
                json!({"format": "email"}),
                json!({"$ref": "#"}),
                json!({"items": [{}]}),
                json!({"enum": [1]}),
                json!(true),
            ] {
                assert!(doc::Plan::compile(&schema).is_none(), "{schema}");
            }
        }
    }
}
