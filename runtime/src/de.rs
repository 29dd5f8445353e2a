//! Decoding and encoding helpers for generated protocol types.
//!
//! Generated structs decode from a JSON object through [`FromObject`]:
//! required and optional properties are taken out one by one, constants
//! are checked, and what is left over is kept (open objects) or refused
//! (closed ones). Generated unions pick their variant with
//! [`dispatch`] (a constant discriminator such as `type` or `method`) or
//! [`best_match`] (no discriminator: the variant that decodes and explains
//! most of the object's properties). Errors name the type, the property
//! and what was expected, so a bad message says what is wrong with it.
//! Generated tool types decode their structs through [`members`].

use std::fmt;

pub mod members;

use serde::de::{DeserializeOwned, Deserializer, Error as _};
use serde::ser::{Serialize, Serializer};
use serde_json::{Map, Value};

/// A JSON object.
pub type Object = Map<String, Value>;

/// Why a value does not decode into a protocol type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DecodeError(String);

impl DecodeError {
    /// An error with the given message.
    pub fn new(message: impl Into<String>) -> Self {
        Self(message.into())
    }

    fn in_property(ty: &str, key: &str, inner: impl fmt::Display) -> Self {
        Self(format!("{ty}.{key}: {inner}"))
    }
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for DecodeError {}

/// A type that decodes from a JSON object it owns.
pub trait FromObject: Sized {
    /// Decodes `object`, consuming the properties it knows.
    fn from_object(object: Object) -> Result<Self, DecodeError>;
}

/// The body of a generated `Deserialize` impl for an object type.
pub fn deserialize_object<'de, D, T>(deserializer: D, ty: &str) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: FromObject,
{
    match Value::deserialize(deserializer)? {
        Value::Object(object) => T::from_object(object).map_err(D::Error::custom),
        other => Err(D::Error::custom(format!(
            "{ty}: expected an object, found {}",
            kind(&other)
        ))),
    }
}

use serde::Deserialize as _;

/// The JSON kind of a value, for error messages.
pub fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(n) if n.is_f64() => "a number",
        Value::Number(_) => "an integer",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// Takes a required property out of `object` and decodes it.
pub fn required<T: DeserializeOwned>(
    object: &mut Object,
    ty: &str,
    key: &str,
) -> Result<T, DecodeError> {
    match object.shift_remove(key) {
        Some(value) => T::deserialize(value).map_err(|e| DecodeError::in_property(ty, key, e)),
        None => Err(DecodeError(format!(
            "{ty}: missing required property `{key}`"
        ))),
    }
}

/// Takes an optional property out of `object` and decodes it. A present
/// `null` is decoded as `T` (so `Option<Option<_>>` tells absent from null).
pub fn optional<T: DeserializeOwned>(
    object: &mut Object,
    ty: &str,
    key: &str,
) -> Result<Option<T>, DecodeError> {
    match object.shift_remove(key) {
        Some(value) => T::deserialize(value)
            .map(Some)
            .map_err(|e| DecodeError::in_property(ty, key, e)),
        None => Ok(None),
    }
}

/// A constant a property is fixed to by the schema.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Const {
    /// A string constant (`"type": "text"`, `"method": "tools/call"`).
    Str(&'static str),
    /// An integer constant (`"code": -32700`).
    Int(i64),
    /// A boolean constant.
    Bool(bool),
}

impl Const {
    /// Whether `value` is this constant.
    pub fn matches(&self, value: &Value) -> bool {
        match (self, value) {
            (Const::Str(s), Value::String(v)) => s == v,
            (Const::Int(i), Value::Number(n)) => n.as_i64() == Some(*i),
            (Const::Bool(b), Value::Bool(v)) => b == v,
            _ => false,
        }
    }
}

impl fmt::Display for Const {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Const::Str(s) => write!(f, "{s:?}"),
            Const::Int(i) => write!(f, "{i}"),
            Const::Bool(b) => write!(f, "{b}"),
        }
    }
}

impl Serialize for Const {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Const::Str(s) => serializer.serialize_str(s),
            Const::Int(i) => serializer.serialize_i64(*i),
            Const::Bool(b) => serializer.serialize_bool(*b),
        }
    }
}

/// Whether a constant property must be there.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Presence {
    /// Its absence is an error.
    Required,
    /// It may be left out.
    Optional,
}

/// Takes a constant property out of `object` and checks its value; whether
/// it was there. An absent optional constant is accepted; it is written
/// back on encoding only when it was there.
pub fn constant(
    object: &mut Object,
    ty: &str,
    key: &str,
    expected: Const,
    presence: Presence,
) -> Result<bool, DecodeError> {
    let required = presence == Presence::Required;
    match object.shift_remove(key) {
        Some(value) if expected.matches(&value) => Ok(true),
        Some(value) => Err(DecodeError(format!(
            "{ty}.{key}: expected {expected}, found {}",
            show(&value)
        ))),
        None if required => Err(DecodeError(format!(
            "{ty}: missing required property `{key}` (always {expected})"
        ))),
        None => Ok(false),
    }
}

/// Refuses left-over properties of a closed object.
pub fn closed(object: Object, ty: &str) -> Result<(), DecodeError> {
    match object.keys().next() {
        None => Ok(()),
        Some(key) => Err(DecodeError(format!("{ty}: unknown property `{key}`"))),
    }
}

/// Decodes each left-over property of an object whose additional
/// properties have a schema.
pub fn additional<T: DeserializeOwned>(
    object: Object,
    ty: &str,
) -> Result<std::collections::BTreeMap<String, T>, DecodeError> {
    object
        .into_iter()
        .map(|(k, v)| match T::deserialize(v) {
            Ok(t) => Ok((k, t)),
            Err(e) => Err(DecodeError::in_property(ty, &k, e)),
        })
        .collect()
}

fn show(value: &Value) -> String {
    let text = value.to_string();
    if text.len() > 60 {
        format!(
            "{}…",
            &text[..text.char_indices().nth(57).map_or(text.len(), |(i, _)| i)]
        )
    } else {
        text
    }
}

/// Decodes one member of a union from a borrowed value.
pub type Decoder<T> = fn(&Value) -> Result<T, serde_json::Error>;

/// One variant of a union: its Rust name, the properties its type
/// declares (for scoring) and how to decode it.
pub struct Candidate<T> {
    /// The variant's name, for error messages.
    pub name: &'static str,
    /// The properties the variant's type declares.
    pub properties: &'static [&'static str],
    /// The properties the variant's type requires.
    pub required: &'static [&'static str],
    /// Decodes the value as this variant.
    pub decode: Decoder<T>,
}

impl<T> fmt::Debug for Candidate<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Candidate")
            .field("name", &self.name)
            .field("properties", &self.properties)
            .field("required", &self.required)
            .finish_non_exhaustive()
    }
}

/// Decodes a union told apart by the constant property `property`:
/// `variants` pairs each constant with its decoder. `fallback` is the
/// variant that applies when the property is absent (a member where it is
/// optional), if any.
pub fn dispatch<T>(
    value: &Value,
    ty: &str,
    property: &str,
    variants: &[(Const, Decoder<T>)],
    fallback: Option<Decoder<T>>,
) -> Result<T, DecodeError> {
    let Value::Object(object) = value else {
        return Err(DecodeError(format!(
            "{ty}: expected an object, found {}",
            kind(value)
        )));
    };
    let decode = match object.get(property) {
        Some(found) => match variants.iter().find(|(c, _)| c.matches(found)) {
            Some((_, decode)) => *decode,
            None => {
                let allowed: Vec<String> = variants.iter().map(|(c, _)| c.to_string()).collect();
                return Err(DecodeError(format!(
                    "{ty}: unknown `{property}` {}; expected one of {}",
                    show(found),
                    allowed.join(", ")
                )));
            }
        },
        None => match fallback {
            Some(decode) => decode,
            None => {
                return Err(DecodeError(format!(
                    "{ty}: missing the discriminating property `{property}`"
                )))
            }
        },
    };
    decode(value).map_err(|e| DecodeError(format!("{ty}: {e}")))
}

/// Decodes a union without a discriminator: among the variants that
/// decode, the one whose type declares the most of the value's properties
/// wins; on a tie the one that requires more of them (the more
/// constrained type), then the first listed. So a specific result is never
/// taken for a generic look-alike.
pub fn best_match<T>(
    value: &Value,
    ty: &str,
    candidates: &[Candidate<T>],
) -> Result<T, DecodeError> {
    let keys: Vec<&str> = match value {
        Value::Object(object) => object.keys().map(String::as_str).collect(),
        _ => Vec::new(),
    };
    let mut best: Option<((usize, usize), T)> = None;
    let mut errors = Vec::new();
    for candidate in candidates {
        match (candidate.decode)(value) {
            Ok(decoded) => {
                let declared = keys
                    .iter()
                    .filter(|k| candidate.properties.contains(k))
                    .count();
                let score = (declared, candidate.required.len());
                if best.as_ref().is_none_or(|(s, _)| score > *s) {
                    best = Some((score, decoded));
                }
            }
            Err(e) => errors.push(format!("{}: {e}", candidate.name)),
        }
    }
    match best {
        Some((_, decoded)) => Ok(decoded),
        None => Err(DecodeError(format!(
            "{ty}: the value matches none of the variants ({})",
            errors.join("; ")
        ))),
    }
}

/// Serialises an object type: the generated `Serialize` impls call this
/// with a closure that writes each present property.
pub fn serialize_object<S, F>(serializer: S, write: F) -> Result<S::Ok, S::Error>
where
    S: Serializer,
    F: FnOnce(&mut S::SerializeMap) -> Result<(), S::Error>,
{
    use serde::ser::SerializeMap;
    let mut map = serializer.serialize_map(None)?;
    write(&mut map)?;
    map.end()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn required_optional_and_constants() {
        let mut o = json!({"type": "text", "text": "hi", "n": null})
            .as_object()
            .unwrap()
            .clone();
        assert!(constant(
            &mut o,
            "TextContent",
            "type",
            Const::Str("text"),
            Presence::Required
        )
        .unwrap());
        let t: String = required(&mut o, "TextContent", "text").unwrap();
        assert_eq!(t, "hi");
        let n: Option<Option<i64>> = optional(&mut o, "TextContent", "n").unwrap();
        assert_eq!(n, Some(None));
        let m: Option<i64> = optional(&mut o, "TextContent", "missing").unwrap();
        assert_eq!(m, None);
        assert!(o.is_empty());
        let err = required::<String>(&mut o, "TextContent", "text").unwrap_err();
        assert_eq!(
            err.to_string(),
            "TextContent: missing required property `text`"
        );
    }

    #[test]
    fn wrong_constant_names_property_and_values() {
        let mut o = json!({"type": "image"}).as_object().unwrap().clone();
        let err = constant(
            &mut o,
            "TextContent",
            "type",
            Const::Str("text"),
            Presence::Required,
        )
        .unwrap_err();
        assert_eq!(
            err.to_string(),
            "TextContent.type: expected \"text\", found \"image\""
        );
        let mut o = json!({"code": -32600}).as_object().unwrap().clone();
        assert!(constant(
            &mut o,
            "ParseError",
            "code",
            Const::Int(-32700),
            Presence::Required
        )
        .is_err());
    }

    #[test]
    fn dispatch_names_unknown_values() {
        let variants: [(Const, Decoder<u8>); 2] =
            [(Const::Str("a"), |_| Ok(1)), (Const::Str("b"), |_| Ok(2))];
        assert_eq!(
            dispatch(&json!({"k": "b"}), "U", "k", &variants, None).unwrap(),
            2
        );
        let err = dispatch(&json!({"k": "c"}), "U", "k", &variants, None).unwrap_err();
        assert_eq!(
            err.to_string(),
            "U: unknown `k` \"c\"; expected one of \"a\", \"b\""
        );
        assert!(dispatch(&json!({}), "U", "k", &variants, None).is_err());
        assert_eq!(
            dispatch(&json!({}), "U", "k", &variants, Some(|_| Ok(9))).unwrap(),
            9
        );
    }

    #[test]
    fn best_match_prefers_the_most_specific_variant() {
        let candidates = [
            Candidate {
                name: "Generic",
                properties: &["_meta"],
                required: &[],
                decode: |_| Ok("generic"),
            },
            Candidate {
                name: "Specific",
                properties: &["_meta", "content"],
                required: &[],
                decode: |_| Ok("specific"),
            },
            Candidate {
                name: "Failing",
                properties: &["content", "model"],
                required: &[],
                decode: |_| Err(serde_json::Error::custom("no")),
            },
            Candidate {
                name: "Strict",
                properties: &["_meta"],
                required: &["_meta"],
                decode: |v| match v.get("_meta") {
                    Some(_) => Ok("strict"),
                    None => Err(serde_json::Error::custom("missing _meta")),
                },
            },
        ];
        assert_eq!(
            best_match(&json!({"content": []}), "R", &candidates).unwrap(),
            "specific"
        );
        assert_eq!(best_match(&json!({}), "R", &candidates).unwrap(), "generic");
        assert_eq!(
            best_match(&json!({"_meta": {}}), "R", &candidates).unwrap(),
            "strict"
        );
    }
}
