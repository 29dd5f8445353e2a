//! How the structs of generated tool types decode: each reads its JSON
//! object once into [`Members`] and takes its fields from them, one line
//! per field, which compiles to far less code than serde's derive (the
//! generator writes such an impl for every plain struct; see its
//! `codegen/tools/decode.rs`).
//!
//! What decodes is what the derive accepts from an object: an absent
//! `Option` field is `None`, an absent field with a default is its
//! default, an absent required field is the error ``missing field `x` ``,
//! and a closed struct refuses any other member (and a member given
//! twice).

use serde::de::{Deserialize, DeserializeOwned, Deserializer, Error as _, MapAccess, Visitor};
use serde_json::Value;

/// The error of taking a field.
pub type Error = serde_json::Error;

/// The members of one JSON object, in order, and the first error of
/// taking a field from them.
#[derive(Debug)]
pub struct Members {
    members: Vec<(String, Value)>,
    first_error: Option<Error>,
}

/// Reads an object's members.
struct Collect;

impl<'de> Visitor<'de> for Collect {
    type Value = Members;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("an object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Members, A::Error> {
        let mut members = Vec::with_capacity(map.size_hint().unwrap_or(0).min(64));
        while let Some(member) = map.next_entry::<String, Value>()? {
            members.push(member);
        }
        Ok(Members {
            members,
            first_error: None,
        })
    }
}

/// Reads the object `deserializer` holds, then the struct `take` builds
/// from its members; with `known` (the struct's fields), any other member
/// is refused.
pub fn decode<'de, D: Deserializer<'de>, T>(
    deserializer: D,
    take: fn(&mut Members) -> Result<T, Error>,
    known: Option<&'static [&'static str]>,
) -> Result<T, D::Error> {
    let mut members = deserializer.deserialize_map(Collect)?;
    let value = take(&mut members).map_err(D::Error::custom)?;
    if let Some(known) = known {
        members.only(known).map_err(D::Error::custom)?;
    }
    Ok(value)
}

/// A unit variant of `T`, from its name (one of `names`).
pub fn unit<'de, D: Deserializer<'de>, T: std::str::FromStr>(
    deserializer: D,
    names: &'static [&'static str],
) -> Result<T, D::Error> {
    let name = String::deserialize(deserializer)?;
    name.parse()
        .map_err(|_| D::Error::unknown_variant(&name, names))
}

impl Members {
    /// The value of `key`, taken out (the last, if the object had it
    /// twice).
    fn take(&mut self, key: &str) -> Option<Value> {
        let at = self.members.iter().rposition(|(k, _)| k == key)?;
        Some(self.members.swap_remove(at).1)
    }

    /// `decoded`'s value; its error (saying which member it was) is kept,
    /// if it is the first, and gives `None`.
    fn keep<T>(&mut self, key: &str, decoded: Result<T, Error>) -> Option<T> {
        match decoded {
            Ok(value) => Some(value),
            Err(error) => self.fail(Error::custom(format_args!("{key}: {error}"))),
        }
    }

    /// Keeps `error` if it is the first.
    fn fail<T>(&mut self, error: Error) -> Option<T> {
        self.first_error.get_or_insert(error);
        None
    }

    /// The first error of taking a field.
    pub fn error(&mut self) -> Error {
        self.first_error
            .take()
            .unwrap_or_else(|| Error::custom("a field could not be decoded"))
    }

    /// A field that must be there.
    pub fn required<T: DeserializeOwned>(&mut self, key: &'static str) -> Option<T> {
        match self.take(key) {
            Some(value) => self.keep(key, T::deserialize(value)),
            None => self.fail(Error::missing_field(key)),
        }
    }

    /// An `Option` field: `None` when absent or `null`.
    pub fn optional<T: DeserializeOwned>(&mut self, key: &'static str) -> Option<Option<T>> {
        match self.take(key) {
            Some(value) => self.keep(key, Option::<T>::deserialize(value)),
            None => Some(None),
        }
    }

    /// A field that is `absent()` when the object lacks it.
    pub fn or_else<T: DeserializeOwned>(
        &mut self,
        key: &'static str,
        absent: fn() -> T,
    ) -> Option<T> {
        match self.take(key) {
            Some(value) => self.keep(key, T::deserialize(value)),
            None => Some(absent()),
        }
    }

    /// A field that must be there, decoded by `decode`.
    pub fn with<T>(
        &mut self,
        key: &'static str,
        decode: fn(Value) -> Result<T, Error>,
    ) -> Option<T> {
        match self.take(key) {
            Some(value) => self.keep(key, decode(value)),
            None => self.fail(Error::missing_field(key)),
        }
    }

    /// A field decoded by `decode`, and `absent()` when the object lacks
    /// it.
    pub fn with_or_else<T>(
        &mut self,
        key: &'static str,
        decode: fn(Value) -> Result<T, Error>,
        absent: fn() -> T,
    ) -> Option<T> {
        match self.take(key) {
            Some(value) => self.keep(key, decode(value)),
            None => Some(absent()),
        }
    }

    /// Refuses a member left over once every field was taken: one of no
    /// field (`known` are the fields), or one the object had twice.
    fn only(&self, known: &'static [&'static str]) -> Result<(), Error> {
        match self.members.first() {
            None => Ok(()),
            Some((key, _)) if known.contains(&key.as_str()) => {
                Err(Error::custom(format_args!("duplicate field `{key}`")))
            }
            Some((key, _)) => Err(Error::unknown_field(key, known)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, PartialEq)]
    struct Point {
        x: i64,
        label: Option<String>,
        scale: f64,
    }

    fn take(members: &mut Members) -> Result<Point, Error> {
        let (Some(x), Some(label), Some(scale)) = (
            members.required("x"),
            members.optional("label"),
            members.or_else("scale", || 1.0),
        ) else {
            return Err(members.error());
        };
        Ok(Point { x, label, scale })
    }

    fn point(text: &str, closed: bool) -> Result<Point, String> {
        let known: &'static [&'static str] = &["x", "label", "scale"];
        let mut de = serde_json::Deserializer::from_str(text);
        decode(&mut de, take, closed.then_some(known)).map_err(|e| e.to_string())
    }

    #[test]
    fn fields_decode_as_the_derive_would() {
        assert_eq!(
            point(r#"{"x": 3}"#, true),
            Ok(Point {
                x: 3,
                label: None,
                scale: 1.0
            })
        );
        assert_eq!(
            point(r#"{"x": 3, "label": null, "scale": 2.5}"#, true),
            Ok(Point {
                x: 3,
                label: None,
                scale: 2.5
            })
        );
        assert!(point(r#"{"label": "a"}"#, true)
            .unwrap_err()
            .contains("missing field `x`"));
        assert!(point(r#"{"x": "three"}"#, true)
            .unwrap_err()
            .starts_with("x: invalid type"));
        assert!(point(r#"{"x": 1, "y": 2}"#, true)
            .unwrap_err()
            .contains("unknown field `y`"));
        assert!(point(r#"{"x": 1, "y": 2}"#, false).is_ok());
        assert!(point(r#"{"x": 1, "x": 2}"#, true)
            .unwrap_err()
            .contains("duplicate field `x`"));
        assert!(point("[1]", true).unwrap_err().contains("an object"));
    }

    #[test]
    fn a_unit_variant_reads_its_name() {
        #[derive(Debug, PartialEq)]
        struct Mode;
        impl std::str::FromStr for Mode {
            type Err = ();
            fn from_str(s: &str) -> Result<Self, ()> {
                (s == "fast").then_some(Mode).ok_or(())
            }
        }
        let names = &["fast"];
        let mut de = serde_json::Deserializer::from_str(r#""fast""#);
        assert_eq!(unit::<_, Mode>(&mut de, names).unwrap(), Mode);
        let mut de = serde_json::Deserializer::from_str(r#""slow""#);
        let error = unit::<_, Mode>(&mut de, names).unwrap_err().to_string();
        assert!(error.contains("unknown variant `slow`"), "{error}");
    }
}
