//! YAML manifests: builds a `serde_json::Value` from the event stream of
//! `saphyr-parser` and records where each value starts, so YAML problems
//! are reported with line:column like JSON ones.
//!
//! Scalars are resolved by the YAML 1.2 core schema (null, booleans,
//! integers, floats; quoted scalars are strings; `!!str`, `!!int`, … tags
//! are honoured). Mapping keys must be scalars; only the first document of
//! a stream is read.
//!
//! Anchors and aliases are expanded, within limits checked on the document
//! as expanded, so that a few hundred bytes of aliases (the "billion
//! laughs") cannot make a document of billions of values, and aliases
//! nested in aliases cannot make it deeper than a JSON manifest may be:
//!
//! - at most [`MAX_NESTING`] nested arrays and objects, the limit
//!   `serde_json` puts on JSON manifests (and on the tool table a
//!   generated server parses at start-up);
//! - at most [`MAX_VALUES`] values in the whole document;
//! - at most [`MAX_ALIAS_TEXT`] bytes of keys and strings copied by
//!   aliases.
//!
//! A breach is an error at the alias (or value) that crosses the limit,
//! with file, line:column, JSON pointer and the limit.

use std::collections::HashMap;

use mcpgen_runtime::yaml::scalar;
use saphyr_parser::{Event, Parser, Span};
use serde_json::{Map, Value};

use super::locate::Positions;
use crate::error::{pointer_token, Error, Result};

/// Most arrays and objects nested in one another, as for JSON manifests
/// (`serde_json` refuses a 128th level).
pub const MAX_NESTING: usize = 127;

/// Most values (scalars, arrays and objects) in a document, aliases
/// counted as the values they expand to.
pub const MAX_VALUES: usize = 1_000_000;

/// Most bytes of text (keys and string values) that aliases may copy.
pub const MAX_ALIAS_TEXT: usize = 16 * 1024 * 1024;

/// Parses YAML text into a JSON value and the position of every value.
pub(crate) fn parse(text: &str, file: &str) -> Result<(Value, Positions)> {
    let mut builder = Builder {
        events: Parser::new_from_str(text),
        file,
        anchors: HashMap::new(),
        positions: Positions::new(),
        values: 0,
        alias_text: 0,
    };
    builder.document()
}

/// A parsed value with what it costs when an alias copies it.
struct Built {
    value: Value,
    /// Values in it, itself included.
    values: usize,
    /// Arrays and objects nested in it, itself included (0 for a scalar).
    height: usize,
    /// Bytes of keys and strings in it.
    text: usize,
}

struct Builder<'a> {
    events: Parser<'a, saphyr_parser::StrInput<'a>>,
    file: &'a str,
    anchors: HashMap<usize, Built>,
    positions: Positions,
    /// Values built so far, aliases expanded.
    values: usize,
    /// Bytes of text copied by aliases so far.
    alias_text: usize,
}

fn pos(span: &Span) -> (usize, usize) {
    (span.start.line(), span.start.col() + 1)
}

impl<'a> Builder<'a> {
    fn error(&self, message: impl Into<String>, at: (usize, usize)) -> Error {
        Error::new(message)
            .in_file(self.file)
            .at_line_col(at.0, at.1)
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
        let value = self.value(ev, span, String::new(), 0)?.value;
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

    /// Counts `values` more values (and `text` more bytes copied by an
    /// alias) and fails when the document grows past a limit.
    fn grow(
        &mut self,
        values: usize,
        text: usize,
        at: (usize, usize),
        pointer: &str,
        alias: bool,
    ) -> Result<()> {
        self.values = self.values.saturating_add(values);
        self.alias_text = self.alias_text.saturating_add(text);
        let what = if alias {
            "with this alias expanded, "
        } else {
            ""
        };
        if self.values > MAX_VALUES {
            return Err(self
                .error(format!("{what}the YAML document holds more than {MAX_VALUES} values (the limit)"), at)
                .at_pointer(pointer)
                .with_hint("aliases are expanded: refer to a shared schema with `$ref` instead of repeating it with `*alias`"));
        }
        if self.alias_text > MAX_ALIAS_TEXT {
            return Err(self
                .error(
                    format!(
                        "{what}aliases copy more than {MAX_ALIAS_TEXT} bytes of text (the limit)"
                    ),
                    at,
                )
                .at_pointer(pointer)
                .with_hint(
                    "aliases are expanded: write the long text once, or refer to it with `$ref`",
                ));
        }
        Ok(())
    }

    /// Fails when a value `height` arrays and objects high, placed at
    /// `depth` (the number of arrays and objects around it), nests deeper
    /// than [`MAX_NESTING`].
    fn check_nesting(
        &self,
        depth: usize,
        height: usize,
        at: (usize, usize),
        pointer: &str,
        alias: bool,
    ) -> Result<()> {
        if depth + height <= MAX_NESTING {
            return Ok(());
        }
        let message = if alias {
            format!(
                "this alias expands to {height} nested levels here, {} in all: deeper than the limit of {MAX_NESTING} nested arrays and objects",
                depth + height
            )
        } else {
            format!("YAML nested deeper than the limit of {MAX_NESTING} nested arrays and objects")
        };
        Err(self
            .error(message, at)
            .at_pointer(pointer)
            .with_hint("flatten the document; JSON manifests have the same limit"))
    }

    /// Builds the value that starts with `ev`, at `pointer`, inside
    /// `depth` arrays and objects.
    fn value(&mut self, ev: Event<'a>, span: Span, pointer: String, depth: usize) -> Result<Built> {
        let at = pos(&span);
        self.positions.insert(pointer.clone(), at.0, at.1);
        let built = match ev {
            Event::Scalar(text, style, anchor, tag) => {
                let value = scalar(&text, style, tag.as_deref())
                    .map_err(|m| self.error(m, at).at_pointer(pointer.clone()))?;
                self.grow(1, 0, at, &pointer, false)?;
                let text = value.as_str().map_or(0, str::len);
                (
                    Built {
                        value,
                        values: 1,
                        height: 0,
                        text,
                    },
                    anchor,
                )
            }
            Event::Alias(id) => {
                let Some(target) = self.anchors.get(&id) else {
                    return Err(self
                        .error("alias to an unknown anchor", at)
                        .at_pointer(pointer));
                };
                let (values, height, text) = (target.values, target.height, target.text);
                self.check_nesting(depth, height, at, &pointer, true)?;
                self.grow(values, text, at, &pointer, true)?;
                let value = self.anchors[&id].value.clone();
                return Ok(Built {
                    value,
                    values,
                    height,
                    text,
                });
            }
            Event::SequenceStart(anchor, _) => {
                self.check_nesting(depth, 1, at, &pointer, false)?;
                self.grow(1, 0, at, &pointer, false)?;
                let mut items = Vec::new();
                let (mut values, mut height, mut text) = (1, 1, 0);
                loop {
                    let (ev, span) = self.next()?;
                    if matches!(ev, Event::SequenceEnd) {
                        break;
                    }
                    let child = format!("{pointer}/{}", items.len());
                    let item = self.value(ev, span, child, depth + 1)?;
                    values += item.values;
                    height = height.max(item.height + 1);
                    text += item.text;
                    items.push(item.value);
                }
                (
                    Built {
                        value: Value::Array(items),
                        values,
                        height,
                        text,
                    },
                    anchor,
                )
            }
            Event::MappingStart(anchor, _) => {
                self.check_nesting(depth, 1, at, &pointer, false)?;
                self.grow(1, 0, at, &pointer, false)?;
                let mut map = Map::new();
                let (mut values, mut height, mut text) = (1, 1, 0);
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
                    let member = self.value(ev, span, child, depth + 1)?;
                    values += member.values;
                    height = height.max(member.height + 1);
                    text += member.text + key.len();
                    map.insert(key, member.value);
                }
                (
                    Built {
                        value: Value::Object(map),
                        values,
                        height,
                        text,
                    },
                    anchor,
                )
            }
            _ => return Err(self.error("unexpected YAML event", at).at_pointer(pointer)),
        };
        let (sized, anchor) = built;
        if anchor > 0 {
            let copy = Built {
                value: sized.value.clone(),
                ..sized
            };
            self.anchors.insert(anchor, copy);
        }
        Ok(sized)
    }
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
        let nested = |n: usize| format!("a: {}{}", "[".repeat(n), "]".repeat(n));
        // The mapping is the first level: 126 more make the limit, 127 more pass it.
        assert!(parse(&nested(MAX_NESTING - 1), "ok.yaml").is_ok());
        let err = parse(&nested(MAX_NESTING), "deep.yaml").unwrap_err();
        assert!(
            err.message.contains("deeper than the limit of 127"),
            "{}",
            err.message
        );
        // The parser has its own limit for much deeper input.
        let err = parse(&nested(100_000), "deep.yaml").unwrap_err();
        assert!(err.location.unwrap().line_col.is_some());
    }

    #[test]
    fn billion_laughs_stop_at_the_value_limit() {
        let mut text = String::from("a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n");
        for (prev, name) in "abcdefgh".chars().zip("bcdefghi".chars()) {
            let items = vec![format!("*{prev}"); 9].join(", ");
            text.push_str(&format!("{name}: &{name} [{items}]\n"));
        }
        let err = parse(&text, "laughs.yaml").unwrap_err();
        assert!(
            err.message.contains("more than 1000000 values"),
            "{}",
            err.message
        );
        let loc = err.location.unwrap();
        assert_eq!(
            loc.file.as_deref(),
            Some(std::path::Path::new("laughs.yaml"))
        );
        assert_eq!(
            loc.line_col,
            Some((7, 8)),
            "the first alias of line 7 crosses the limit"
        );
        assert_eq!(loc.pointer.as_deref(), Some("/g/0"));
    }

    #[test]
    fn aliases_of_long_text_stop_at_the_text_limit() {
        let long = "x".repeat(1 << 20);
        let mut text = format!("s: &s {long}\nl:\n");
        for _ in 0..20 {
            text.push_str("  - *s\n");
        }
        let err = parse(&text, "text.yaml").unwrap_err();
        assert!(
            err.message.contains("aliases copy more than"),
            "{}",
            err.message
        );
        assert_eq!(err.location.unwrap().pointer.as_deref(), Some("/l/16"));
    }

    #[test]
    fn chained_aliases_cannot_nest_past_the_limit() {
        let mut text = String::from("x0: &x0 [1]\n");
        for i in 1..200 {
            text.push_str(&format!("x{i}: &x{i} [*x{}]\n", i - 1));
        }
        let err = parse(&text, "chain.yaml").unwrap_err();
        assert!(
            err.message
                .contains("this alias expands to 126 nested levels here, 128 in all"),
            "{}",
            err.message
        );
        let loc = err.location.unwrap();
        assert_eq!(loc.line_col, Some((127, 14)));
        assert_eq!(loc.pointer.as_deref(), Some("/x126/0"));
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
