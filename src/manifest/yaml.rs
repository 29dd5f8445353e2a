//! YAML manifests: builds a `serde_json::Value` from the event stream of
//! `saphyr-parser` and records where each value starts, so YAML problems
//! are reported with line:column like JSON ones.
//!
//! Scalars are resolved by the YAML 1.2 core schema (null, booleans,
//! integers, floats; quoted scalars are strings; `!!str`, `!!int`, … tags
//! are honoured). Anchors and aliases are expanded. Mapping keys must be
//! scalars; only the first document of a stream is read.

use std::collections::HashMap;

use saphyr_parser::{Event, Parser, ScalarStyle, Span, Tag};
use serde_json::{Map, Number, Value};

use super::locate::Positions;
use crate::error::{pointer_token, Error, Result};

/// Parses YAML text into a JSON value and the position of every value.
pub fn parse(text: &str, file: &str) -> Result<(Value, Positions)> {
    let mut builder = Builder {
        events: Parser::new_from_str(text),
        file,
        anchors: HashMap::new(),
        positions: Positions::new(),
    };
    builder.document()
}

struct Builder<'a> {
    events: Parser<'a, saphyr_parser::StrInput<'a>>,
    file: &'a str,
    anchors: HashMap<usize, Value>,
    positions: Positions,
}

/// Nesting limit, the same as serde_json's for JSON manifests.
const MAX_DEPTH: usize = 128;

fn pos(span: &Span) -> (usize, usize) {
    (span.start.line(), span.start.col() + 1)
}

impl<'a> Builder<'a> {
    fn error(&self, message: impl Into<String>, at: (usize, usize)) -> Error {
        Error::new(message).in_file(self.file).at_line_col(at.0, at.1)
    }

    fn next(&mut self) -> Result<(Event<'a>, Span)> {
        match self.events.next() {
            Some(Ok(ev)) => Ok(ev),
            Some(Err(e)) => {
                let m = e.marker();
                Err(Error::new(format!("invalid YAML: {}", e.info()))
                    .in_file(self.file)
                    .at_line_col(m.line(), m.col() + 1)
                    .with_hint("fix the YAML syntax at this position"))
            }
            None => Err(Error::new("unexpected end of YAML input").in_file(self.file)),
        }
    }

    fn document(&mut self) -> Result<(Value, Positions)> {
        loop {
            let (ev, span) = self.next()?;
            match ev {
                Event::StreamStart | Event::Nothing => continue,
                Event::DocumentStart(_) => break,
                Event::StreamEnd => {
                    return Err(self
                        .error("the YAML file is empty", pos(&span))
                        .with_hint("a manifest is an object with a `tools` list"))
                }
                _ => return Err(self.error("unexpected YAML event", pos(&span))),
            }
        }
        let (ev, span) = self.next()?;
        let value = self.value(ev, span, String::new())?;
        // Anything after the first document is ignored, but a second
        // document is most likely a mistake: report it.
        loop {
            match self.events.next() {
                Some(Ok((Event::DocumentStart(_), span))) => {
                    return Err(self
                        .error("a manifest must be a single YAML document", pos(&span))
                        .with_hint("remove the second `---` document"))
                }
                Some(Ok(_)) => continue,
                Some(Err(e)) => {
                    let m = e.marker();
                    return Err(Error::new(format!("invalid YAML: {}", e.info()))
                        .in_file(self.file)
                        .at_line_col(m.line(), m.col() + 1));
                }
                None => break,
            }
        }
        Ok((value, std::mem::take(&mut self.positions)))
    }

    fn value(&mut self, ev: Event<'a>, span: Span, pointer: String) -> Result<Value> {
        let at = pos(&span);
        if pointer.matches('/').count() > MAX_DEPTH {
            return Err(self
                .error(format!("YAML nested deeper than {MAX_DEPTH} levels"), at)
                .at_pointer(pointer)
                .with_hint("flatten the document; JSON manifests have the same limit"));
        }
        self.positions.insert(pointer.clone(), at.0, at.1);
        match ev {
            Event::Scalar(text, style, anchor, tag) => {
                let v = scalar(&text, style, tag.as_deref())
                    .map_err(|m| self.error(m, at).at_pointer(pointer.clone()))?;
                if anchor > 0 {
                    self.anchors.insert(anchor, v.clone());
                }
                Ok(v)
            }
            Event::Alias(id) => self.anchors.get(&id).cloned().ok_or_else(|| {
                self.error("alias to an unknown anchor", at).at_pointer(pointer.clone())
            }),
            Event::SequenceStart(anchor, _) => {
                let mut items = Vec::new();
                loop {
                    let (ev, span) = self.next()?;
                    if matches!(ev, Event::SequenceEnd) {
                        break;
                    }
                    let child = format!("{pointer}/{}", items.len());
                    items.push(self.value(ev, span, child)?);
                }
                let v = Value::Array(items);
                if anchor > 0 {
                    self.anchors.insert(anchor, v.clone());
                }
                Ok(v)
            }
            Event::MappingStart(anchor, _) => {
                let mut map = Map::new();
                loop {
                    let (ev, span) = self.next()?;
                    let key = match ev {
                        Event::MappingEnd => break,
                        Event::Scalar(text, ..) => text.into_owned(),
                        _ => {
                            return Err(self
                                .error("mapping keys must be plain strings", pos(&span))
                                .at_pointer(pointer.clone()))
                        }
                    };
                    if map.contains_key(&key) {
                        return Err(self
                            .error(format!("duplicate key `{key}`"), pos(&span))
                            .at_pointer(pointer.clone())
                            .with_hint("each key may appear once in a mapping"));
                    }
                    let (ev, span) = self.next()?;
                    let child = format!("{pointer}/{}", pointer_token(&key));
                    let v = self.value(ev, span, child)?;
                    map.insert(key, v);
                }
                let v = Value::Object(map);
                if anchor > 0 {
                    self.anchors.insert(anchor, v.clone());
                }
                Ok(v)
            }
            _ => Err(self.error("unexpected YAML event", at).at_pointer(pointer)),
        }
    }
}

/// Resolves one scalar by the YAML 1.2 core schema.
fn scalar(text: &str, style: ScalarStyle, tag: Option<&Tag>) -> std::result::Result<Value, String> {
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
        return Err(format!("unsupported YAML tag `{}{}`", tag.handle, tag.suffix));
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
        return digits(hex, 16).then(|| u64::from_str_radix(hex, 16).ok().map(Value::from)).flatten();
    }
    if let Some(oct) = text.strip_prefix("0o") {
        return digits(oct, 8).then(|| u64::from_str_radix(oct, 8).ok().map(Value::from)).flatten();
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
    let float_like = unsigned.chars().next().is_some_and(|c| c.is_ascii_digit() || c == '.')
        && unsigned.chars().all(|c| c.is_ascii_digit() || matches!(c, '.' | 'e' | 'E' | '-' | '+'))
        && unsigned.chars().any(|c| c.is_ascii_digit());
    if float_like {
        if let Ok(f) = text.parse::<f64>() {
            return Number::from_f64(f).map(Value::Number);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn builds_values_with_positions() {
        let text = "tools:\n  - name: a\n    n: 3\n    f: 1.5\n    s: '3'\n    b: true\n    z: ~\n    list: [x, 'y']\n";
        let (v, p) = parse(text, "m.yaml").unwrap();
        assert_eq!(
            v,
            json!({"tools": [{"name": "a", "n": 3, "f": 1.5, "s": "3", "b": true, "z": null, "list": ["x", "y"]}]})
        );
        assert_eq!(p.get("/tools"), Some((2, 3)));
        assert_eq!(p.get("/tools/0"), Some((2, 5)));
        assert_eq!(p.get("/tools/0/name"), Some((2, 11)));
        assert_eq!(p.get("/tools/0/list/1"), Some((8, 15)));
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_crash() {
        let err = parse(&format!("a: {}{}", "[".repeat(200), "]".repeat(200)), "deep.yaml").unwrap_err();
        assert!(err.message.contains("nested deeper than 128"), "{}", err.message);
        // The parser has its own limit for much deeper input.
        let err = parse(&format!("a: {}{}", "[".repeat(100_000), "]".repeat(100_000)), "deep.yaml").unwrap_err();
        assert!(err.location.unwrap().line_col.is_some());
        assert!(parse(&format!("a: {}{}", "[".repeat(100), "]".repeat(100)), "ok.yaml").is_ok());
    }

    #[test]
    fn anchors_expand_and_errors_have_positions() {
        let (v, _) = parse("a: &x {k: 1}\nb: *x\n", "m.yaml").unwrap();
        assert_eq!(v, json!({"a": {"k": 1}, "b": {"k": 1}}));
        let err = parse("a: [1, 2\nb: 3\n", "m.yaml").unwrap_err();
        assert!(err.location.unwrap().line_col.is_some());
        let err = parse("a: 1\na: 2\n", "m.yaml").unwrap_err();
        assert_eq!(err.message, "duplicate key `a`");
        assert_eq!(err.location.unwrap().line_col, Some((2, 1)));
    }
}
