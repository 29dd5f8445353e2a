//! `anyOf` and `oneOf` in the shape typify turns into a type that accepts
//! every valid member, with variants named after what tells them apart.
//!
//! typify types an `anyOf` of objects as a struct of flattened optional
//! `subtype_N` parts, and names the variants of a union `Variant0`,
//! `Variant1`… as soon as one member has no title, `$ref` or plain type
//! of its own, or two share one. So, after a schema's members are
//! rewritten, [`arrange`]:
//!
//! - collapses a union whose members are all plain strings (or all
//!   booleans) into that type: `anyOf` of two string schemas is a
//!   `String` (the validator still checks each member's constraints);
//! - leaves out a union whose members only assert which properties are
//!   present (`anyOf: [{"required": ["phone"]}, {"required": ["email"]}]`):
//!   the object around it, with those properties optional, holds every
//!   valid value;
//! - reads an `anyOf` as a `oneOf`: an untagged enum accepts a value when
//!   any member decodes it, which is what `anyOf` asks;
//! - orders the members so that none shadows a later one: objects with
//!   more required properties first, closed objects before open ones,
//!   plain values after objects, and a member that accepts anything last
//!   (an untagged enum takes the first member that decodes);
//! - gives each member without a title a name ([`member_name`]) from the
//!   constant that tells it apart (`"type": {"const": "page_id"}` →
//!   `PageId`), else its required properties, else its type; names that
//!   would still clash get a property only that member declares, else the
//!   keywords that set them apart.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use crate::naming;

/// What a union becomes for typify.
#[derive(Debug, PartialEq)]
pub(crate) enum Arranged {
    /// Its members all stand for this one type (`"string"`, `"boolean"`).
    Collapsed(&'static str),
    /// The members, ordered and titled, for a `oneOf`.
    Members(Vec<Value>),
    /// The members only assert (which properties are present, how many):
    /// the type around them holds every value, so the union is left out.
    Assertions,
}

/// The rewritten union of the `original` members: one type when the
/// members collapse, else the members ordered and titled. `prefix` goes
/// before every title given (nested titles carry the tool's name).
pub(crate) fn arrange(original: &[Value], rewritten: Vec<Value>, prefix: &str) -> Arranged {
    if let Some(single) = collapse(original) {
        return Arranged::Collapsed(single);
    }
    if original.iter().all(asserts_only) {
        return Arranged::Assertions;
    }
    let names = member_names(original);
    let mut members: Vec<(Rank, Value)> = rewritten
        .into_iter()
        .zip(original)
        .zip(names)
        .map(|((mut member, declared), name)| {
            // typify drops a member's string `const` (`Asc(String)` would
            // take "desc"); as a one-value `enum` the member matches only it.
            if let Value::Object(m) = &mut member {
                if matches!(m.get("const"), Some(Value::String(_))) && !m.contains_key("enum") {
                    if let Some(c) = m.remove("const") {
                        m.insert("enum".into(), Value::Array(vec![c]));
                    }
                }
            }
            if let (Value::Object(m), Some(name)) = (&mut member, name) {
                if !m.contains_key("title") && !m.contains_key("$ref") {
                    m.insert(
                        "title".into(),
                        Value::String(format!("{prefix}{}", naming::type_part(&name))),
                    );
                }
            }
            (rank(declared), member)
        })
        .collect();
    members.sort_by_key(|(r, _)| *r);
    Arranged::Members(members.into_iter().map(|(_, m)| m).collect())
}

/// The one type a union of plain strings or plain booleans stands for.
fn collapse(members: &[Value]) -> Option<&'static str> {
    let kind = |m: &Value| -> Option<&str> {
        let o = m.as_object()?;
        if o.contains_key("enum") || o.contains_key("const") {
            return None;
        }
        match o.get("type")?.as_str()? {
            "string" => Some("string"),
            "boolean" => Some("boolean"),
            _ => None,
        }
    };
    let first = kind(members.first()?)?;
    (members.len() > 1 && members.iter().all(|m| kind(m) == Some(first))).then_some(first)
}

/// Whether a member only says which properties (or how many) an object
/// has, and shapes no type: `{"required": ["phone"]}`.
fn asserts_only(member: &Value) -> bool {
    member.as_object().is_some_and(|o| {
        o.keys().all(|k| {
            matches!(
                k.as_str(),
                "required"
                    | "minProperties"
                    | "maxProperties"
                    | "description"
                    | "title"
                    | "$comment"
            )
        })
    })
}

/// Sort key: lower goes first (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct Rank {
    /// 0 objects, 1 plain values and arrays, 2 schemas accepting anything.
    group: u8,
    /// Fewer is later: `usize::MAX - required`.
    required: usize,
    /// Open objects after closed ones.
    open: bool,
}

fn rank(member: &Value) -> Rank {
    let Some(o) = member.as_object() else {
        return Rank {
            group: 2,
            required: usize::MAX,
            open: true,
        };
    };
    let required = o
        .get("required")
        .and_then(Value::as_array)
        .map_or(0, Vec::len);
    let objectish =
        o.get("type").and_then(Value::as_str) == Some("object") || o.contains_key("properties");
    let anything = !o
        .keys()
        .any(|k| !matches!(k.as_str(), "title" | "description" | "default" | "examples"));
    let group = if anything {
        2
    } else if objectish || o.contains_key("$ref") {
        0
    } else {
        1
    };
    let open = o.get("additionalProperties") != Some(&Value::Bool(false));
    Rank {
        group,
        required: usize::MAX - required,
        open,
    }
}

/// A name for each member that has neither a title nor a `$ref`, unique
/// among the members (see the module docs); `None` for the others.
fn member_names(members: &[Value]) -> Vec<Option<String>> {
    let tag = discriminator(members);
    let mut names: Vec<Option<String>> = members
        .iter()
        .map(|m| member_name(m, tag.as_deref()))
        .collect();
    let taken: Vec<String> = members.iter().filter_map(declared_name).collect();
    // Clashes (among the given names, or with a title or `$ref` name): add
    // the keywords that set a member apart.
    let mut count: BTreeMap<String, usize> = BTreeMap::new();
    for n in names.iter().flatten().chain(&taken) {
        *count.entry(n.clone()).or_default() += 1;
    }
    // The properties each member declares, to name a member by one only it has.
    let props: Vec<Vec<&str>> = members
        .iter()
        .map(|m| {
            m.get("properties")
                .and_then(Value::as_object)
                .map(|p| p.keys().map(String::as_str).collect())
                .unwrap_or_default()
        })
        .collect();
    for (i, (member, name)) in members.iter().zip(names.iter_mut()).enumerate() {
        if let Some(n) = name.as_mut() {
            if count[n.as_str()] > 1 {
                let own = props[i].iter().find(|p| {
                    props
                        .iter()
                        .enumerate()
                        .all(|(j, other)| j == i || !other.contains(p))
                });
                if let Some(own) = own {
                    n.push_str(&naming::pascal(own));
                    continue;
                }
                let extra: String = member
                    .as_object()
                    .into_iter()
                    .flat_map(|o| o.keys())
                    .filter(|k| {
                        !matches!(
                            k.as_str(),
                            "type" | "description" | "title" | "default" | "examples"
                        )
                    })
                    .map(|k| naming::pascal(k))
                    .collect();
                n.push_str(if extra.is_empty() { "Other" } else { &extra });
            }
        }
    }
    // Whatever still clashes is told apart by its rank among equals.
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    for n in names.iter_mut().flatten() {
        let k = seen.entry(n.clone()).or_default();
        *k += 1;
        if *k > 1 {
            n.push_str(&format!("Alt{k}"));
        }
    }
    names
}

/// The name typify takes from a member's own title or `$ref`.
fn declared_name(member: &Value) -> Option<String> {
    let o = member.as_object()?;
    if let Some(t) = o.get("title").and_then(Value::as_str) {
        return Some(naming::pascal(t));
    }
    let r = o.get("$ref")?.as_str()?;
    Some(naming::pascal(r.rsplit('/').next().unwrap_or(r)))
}

/// The property that holds a constant in every object member (the first
/// such in the first member's order), if any.
fn discriminator(members: &[Value]) -> Option<String> {
    let objects: Vec<&Map<String, Value>> = members
        .iter()
        .filter_map(Value::as_object)
        .filter(|o| o.contains_key("properties"))
        .collect();
    let first = objects.first()?;
    let props = first.get("properties")?.as_object()?;
    props
        .keys()
        .find(|k| {
            objects.iter().all(|o| {
                o.get("properties")
                    .and_then(|p| p.get(k.as_str()))
                    .and_then(constant)
                    .is_some()
            })
        })
        .cloned()
}

/// The constant a schema allows: `const`, or an `enum` of one value.
fn constant(schema: &Value) -> Option<&Value> {
    let o = schema.as_object()?;
    if let Some(c) = o.get("const") {
        return Some(c);
    }
    match o.get("enum")?.as_array()?.as_slice() {
        [only] => Some(only),
        _ => None,
    }
}

/// The name of a member without a title or `$ref`: the constant of the
/// discriminator `tag`, else its first required property, else its own
/// constant or type.
fn member_name(member: &Value, tag: Option<&str>) -> Option<String> {
    if declared_name(member).is_some() {
        return None;
    }
    let Some(o) = member.as_object() else {
        return Some("Any".into());
    };
    if let Some(c) = tag
        .and_then(|t| o.get("properties")?.get(t))
        .and_then(constant)
    {
        return Some(value_name(c));
    }
    if let Some(c) = constant(member) {
        return Some(value_name(c));
    }
    let required = o
        .get("required")
        .and_then(Value::as_array)
        .and_then(|r| r.first())
        .and_then(Value::as_str);
    let first_property = o
        .get("properties")
        .and_then(Value::as_object)
        .and_then(|p| p.keys().next());
    if let Some(p) = required.or(first_property.map(String::as_str)) {
        return Some(word_name(p, "Object"));
    }
    let name = match o.get("type") {
        Some(Value::String(t)) => type_name(t),
        Some(Value::Array(ts)) => ts
            .iter()
            .filter_map(Value::as_str)
            .map(type_name)
            .collect::<Vec<_>>()
            .join("Or"),
        _ if o.contains_key("enum") => "Choice".into(),
        _ => "Any".into(),
    };
    Some(name)
}

fn type_name(t: &str) -> String {
    match t {
        "string" => "String".into(),
        "integer" => "Integer".into(),
        "number" => "Number".into(),
        "boolean" => "Boolean".into(),
        "array" => "Array".into(),
        "object" => "Object".into(),
        "null" => "Null".into(),
        other => word_name(other, "Value"),
    }
}

/// A name for a constant: the PascalCase of a string, `Value1` and
/// `ValueMinus1` for numbers, `True`, `False`, `Null`.
fn value_name(v: &Value) -> String {
    match v {
        Value::String(s) => word_name(s, "Value"),
        Value::Number(n) => {
            let text: String = n
                .to_string()
                .chars()
                .map(|c| match c {
                    '-' => "Minus".to_owned(),
                    '.' => "Point".to_owned(),
                    c if c.is_ascii_alphanumeric() => c.to_ascii_uppercase().to_string(),
                    _ => String::new(),
                })
                .collect();
            format!("Value{text}")
        }
        Value::Bool(true) => "True".into(),
        Value::Bool(false) => "False".into(),
        Value::Null => "Null".into(),
        Value::Array(_) | Value::Object(_) => "Value".into(),
    }
}

/// PascalCase of `text`, or `fallback` + it when it has no letter to
/// start a name with.
fn word_name(text: &str, fallback: &str) -> String {
    let p = naming::pascal(text);
    if p.chars().next().is_some_and(|c| c.is_ascii_alphabetic()) {
        p
    } else {
        format!("{fallback}{p}")
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn titles(v: Value) -> Vec<Value> {
        let members = v.as_array().unwrap().clone();
        let Arranged::Members(out) = arrange(&members, members.clone(), "") else {
            panic!("collapsed")
        };
        out.iter()
            .map(|m| m.get("title").cloned().unwrap_or(Value::Null))
            .collect()
    }

    #[test]
    fn members_are_named_by_constant_required_property_or_type() {
        let tagged = json!([
            {"type": "object", "properties": {"type": {"const": "page_id"}, "page_id": {"type": "string"}}, "required": ["type", "page_id"]},
            {"type": "object", "properties": {"type": {"enum": ["database_id"]}}, "required": ["type"]},
            {"type": "string"}
        ]);
        assert_eq!(
            titles(tagged),
            [json!("PageId"), json!("DatabaseId"), json!("String")]
        );
        let untitled = json!([{"type": "boolean"}, {"properties": {"equals": {}}, "required": ["equals"]}, {"type": "number", "const": -1}]);
        assert_eq!(
            titles(untitled),
            [json!("Equals"), json!("Boolean"), json!("ValueMinus1")]
        );
    }

    #[test]
    fn clashing_names_get_the_keywords_that_differ() {
        let v = json!([{"type": "array", "maxItems": 2}, {"type": "array", "minItems": 5}, {"$ref": "#/definitions/X", "title": "T"}]);
        assert_eq!(
            titles(v),
            [json!("T"), json!("ArrayMaxItems"), json!("ArrayMinItems")]
        );
    }

    #[test]
    fn presence_only_unions_are_left_out() {
        let members = [
            json!({"required": ["phone"]}),
            json!({"required": ["email"], "description": "By mail."}),
        ];
        assert_eq!(
            arrange(&members, members.to_vec(), ""),
            Arranged::Assertions
        );
    }

    #[test]
    fn strings_collapse_and_objects_with_more_required_come_first() {
        let strings = [
            json!({"type": "string", "maxLength": 3}),
            json!({"type": "string"}),
        ];
        assert_eq!(arrange(&strings, vec![], ""), Arranged::Collapsed("string"));
        let members = vec![
            json!({"type": "object", "properties": {"a": {}}}),
            json!({"type": "object", "properties": {"b": {}}, "required": ["b"]}),
        ];
        let Arranged::Members(v) = arrange(&members, members.clone(), "T") else {
            panic!("collapsed")
        };
        assert_eq!(v[0]["title"], json!("TB"));
        assert_eq!(v[1]["title"], json!("TA"));
    }
}
