//! YAML to JSON by the YAML 1.2 core schema (feature `yaml`): the scalar
//! resolution the generator's manifest reader uses, and a reader of small
//! documents (a skill's `SKILL.md` frontmatter) into a `serde_json::Value`.
//!
//! Plain scalars are null (`~`, `null`, empty), booleans (`true`, `False`,
//! …), integers (decimal, `0x`, `0o`) or floats; quoted scalars are
//! strings; `!!str`, `!!int`, `!!float`, `!!bool` and `!!null` tags are
//! honoured and any other tag is an error. So `version: 1.10` is the
//! number 1.1, `date: 2024-01-01` and `yes` stay strings, as a YAML 1.2
//! reader in another language reads them.

use std::collections::HashMap;

use saphyr_parser::{Event, Parser, ScalarStyle, Tag};
use serde_json::{Map, Number, Value};

/// Most values (aliases counted as what they expand to) in a document
/// read by [`document`].
pub const MAX_VALUES: usize = 10_000;

/// Most arrays and objects nested in one another in a document read by
/// [`document`].
pub const MAX_NESTING: usize = 64;

/// Resolves one scalar by the YAML 1.2 core schema.
pub fn scalar(text: &str, style: ScalarStyle, tag: Option<&Tag>) -> Result<Value, String> {
    if let Some(tag) = tag {
        if tag.handle == "tag:yaml.org,2002:" || tag.handle == "!!" {
            return match tag.suffix.as_str() {
                "str" => Ok(Value::String(text.to_owned())),
                "null" => Ok(Value::Null),
                "bool" => plain(text)
                    .filter(Value::is_boolean)
                    .ok_or_else(|| format!("`{text}` is not a boolean")),
                "int" => plain(text)
                    .filter(|v| v.is_i64() || v.is_u64())
                    .ok_or_else(|| format!("`{text}` is not an integer")),
                "float" => plain(text)
                    .filter(Value::is_number)
                    .ok_or_else(|| format!("`{text}` is not a number")),
                other => Err(format!("unsupported YAML tag `!!{other}`")),
            };
        }
        return Err(format!(
            "unsupported YAML tag `{}{}`",
            tag.handle, tag.suffix
        ));
    }
    if style != ScalarStyle::Plain {
        return Ok(Value::String(text.to_owned()));
    }
    Ok(plain(text).unwrap_or_else(|| Value::String(text.to_owned())))
}

/// The non-string value a plain scalar denotes, if any.
fn plain(text: &str) -> Option<Value> {
    match text {
        "" | "~" | "null" | "Null" | "NULL" => return Some(Value::Null),
        "true" | "True" | "TRUE" => return Some(Value::Bool(true)),
        "false" | "False" | "FALSE" => return Some(Value::Bool(false)),
        _ => {}
    }
    let digits = |s: &str, radix: u32| !s.is_empty() && s.chars().all(|c| c.is_digit(radix));
    if let Some(hex) = text.strip_prefix("0x") {
        return digits(hex, 16)
            .then(|| u64::from_str_radix(hex, 16).ok().map(Value::from))
            .flatten();
    }
    if let Some(oct) = text.strip_prefix("0o") {
        return digits(oct, 8)
            .then(|| u64::from_str_radix(oct, 8).ok().map(Value::from))
            .flatten();
    }
    let unsigned = text.strip_prefix(['-', '+']).unwrap_or(text);
    if digits(unsigned, 10) {
        if let Ok(i) = text.parse::<i64>() {
            return Some(Value::from(i));
        }
        if let Ok(u) = text.trim_start_matches('+').parse::<u64>() {
            return Some(Value::from(u));
        }
    }
    let float_like = unsigned
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_digit() || c == '.')
        && unsigned
            .chars()
            .all(|c| c.is_ascii_digit() || matches!(c, '.' | 'e' | 'E' | '-' | '+'))
        && unsigned.chars().any(|c| c.is_ascii_digit());
    if float_like {
        if let Ok(f) = text.parse::<f64>() {
            return Number::from_f64(f).map(Value::Number);
        }
    }
    None
}

/// Reads the first document of a small YAML text (at most [`MAX_VALUES`]
/// values, [`MAX_NESTING`] levels) into JSON; an empty text is `null`.
/// Mapping keys must be scalars and appear once. Errors say where
/// (line:column, from 1).
pub fn document(text: &str) -> Result<Value, String> {
    let mut reader = Reader {
        events: Parser::new_from_str(text),
        anchors: HashMap::new(),
        values: 0,
    };
    loop {
        match reader.next()? {
            (Event::StreamStart | Event::Nothing | Event::DocumentStart(_), _) => {}
            (Event::StreamEnd, _) => return Ok(Value::Null),
            (event, at) => return reader.value(event, at, 0),
        }
    }
}

struct Reader<'a> {
    events: Parser<'a, saphyr_parser::StrInput<'a>>,
    anchors: HashMap<usize, (Value, usize)>,
    values: usize,
}

/// `line:column` of an event, both from 1.
type At = (usize, usize);

impl<'a> Reader<'a> {
    fn next(&mut self) -> Result<(Event<'a>, At), String> {
        match self.events.next() {
            Some(Ok((event, span))) => Ok((event, (span.start.line(), span.start.col() + 1))),
            Some(Err(e)) => {
                let m = e.marker();
                Err(format!(
                    "invalid YAML at {}:{}: {}",
                    m.line(),
                    m.col() + 1,
                    e.info()
                ))
            }
            None => Err("unexpected end of the YAML text".into()),
        }
    }

    fn grow(&mut self, values: usize, at: At) -> Result<(), String> {
        self.values += values;
        if self.values > MAX_VALUES {
            return Err(format!(
                "YAML at {}:{}: more than {MAX_VALUES} values",
                at.0, at.1
            ));
        }
        Ok(())
    }

    /// The value that starts with `event`, inside `depth` collections;
    /// also how many values it holds.
    fn value(&mut self, event: Event<'a>, at: At, depth: usize) -> Result<Value, String> {
        self.sized(event, at, depth).map(|(value, _)| value)
    }

    fn sized(&mut self, event: Event<'a>, at: At, depth: usize) -> Result<(Value, usize), String> {
        let nested = |depth: usize| {
            if depth >= MAX_NESTING {
                Err(format!(
                    "YAML at {}:{}: nested deeper than {MAX_NESTING} levels",
                    at.0, at.1
                ))
            } else {
                Ok(())
            }
        };
        let (value, count, anchor) = match event {
            Event::Scalar(text, style, anchor, tag) => {
                let value = scalar(&text, style, tag.as_deref())
                    .map_err(|m| format!("YAML at {}:{}: {m}", at.0, at.1))?;
                self.grow(1, at)?;
                (value, 1, anchor)
            }
            Event::Alias(id) => {
                let Some((value, count)) = self.anchors.get(&id).cloned() else {
                    return Err(format!(
                        "YAML at {}:{}: alias to an unknown anchor",
                        at.0, at.1
                    ));
                };
                self.grow(count, at)?;
                return Ok((value, count));
            }
            Event::SequenceStart(anchor, _) => {
                nested(depth)?;
                self.grow(1, at)?;
                let (mut items, mut count) = (Vec::new(), 1);
                loop {
                    let (event, at) = self.next()?;
                    if matches!(event, Event::SequenceEnd) {
                        break;
                    }
                    let (item, n) = self.sized(event, at, depth + 1)?;
                    count += n;
                    items.push(item);
                }
                (Value::Array(items), count, anchor)
            }
            Event::MappingStart(anchor, _) => {
                nested(depth)?;
                self.grow(1, at)?;
                let (mut map, mut count) = (Map::new(), 1);
                loop {
                    let (key, key_at) = match self.next()? {
                        (Event::MappingEnd, _) => break,
                        (Event::Scalar(text, ..), at) => (text.into_owned(), at),
                        (_, at) => {
                            return Err(format!(
                                "YAML at {}:{}: mapping keys must be plain strings",
                                at.0, at.1
                            ))
                        }
                    };
                    if map.contains_key(&key) {
                        return Err(format!(
                            "YAML at {}:{}: duplicate key `{key}`",
                            key_at.0, key_at.1
                        ));
                    }
                    let (event, at) = self.next()?;
                    let (member, n) = self.sized(event, at, depth + 1)?;
                    count += n;
                    map.insert(key, member);
                }
                (Value::Object(map), count, anchor)
            }
            _ => return Err(format!("YAML at {}:{}: unexpected event", at.0, at.1)),
        };
        if anchor > 0 {
            self.anchors.insert(anchor, (value.clone(), count));
        }
        Ok((value, count))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn core_schema_scalars_resolve_as_yaml_1_2() {
        let text = "name: pdf\nversion: 1.10\ndate: 2024-01-01\nyes: yes\nnone: ~\n\
                    n: 0x1f\nq: '12'\nlist: [a, 2, true]\n";
        assert_eq!(
            document(text).unwrap(),
            json!({"name": "pdf", "version": 1.1, "date": "2024-01-01", "yes": "yes",
                   "none": null, "n": 31, "q": "12", "list": ["a", 2, true]})
        );
    }

    #[test]
    fn aliases_expand_within_the_value_limit() {
        assert_eq!(
            document("a: &x [1, 2]\nb: *x\n").unwrap(),
            json!({"a": [1, 2], "b": [1, 2]})
        );
        let mut laughs = String::from("a: &a [x, x, x, x, x, x, x, x, x, x]\n");
        for (i, name) in ["b", "c", "d", "e", "f"].iter().enumerate() {
            let prev = ["a", "b", "c", "d", "e"][i];
            laughs.push_str(&format!(
                "{name}: &{name} [*{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}]\n"
            ));
        }
        let error = document(&laughs).unwrap_err();
        assert!(error.contains("more than 10000 values"), "{error}");
    }

    #[test]
    fn bad_documents_say_where() {
        assert!(document("a: 1\na: 2\n")
            .unwrap_err()
            .contains("2:1: duplicate key `a`"));
        assert!(document(&"[".repeat(100)).unwrap_err().contains("nested"));
        assert!(document("a: !!int x\n")
            .unwrap_err()
            .contains("not an integer"));
        assert_eq!(document("").unwrap(), Value::Null);
    }
}
