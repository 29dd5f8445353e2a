//! A scanner for the plain shape of a request: it reads the envelope
//! and the params object itself and hands each params member value to
//! `serde_json` (which checks it), so nothing is built for the
//! envelope. It gives up (`None`) on anything it does not read exactly
//! as `serde_json` would; the caller then takes the general path.

use std::borrow::Cow;

use serde::de::IgnoredAny;
use serde_json::Value;

use super::{Lean, Members, STRING_STOP};

/// Nesting the scanner leaves to the general path, well under
/// `serde_json`'s limit of 128 levels for the whole message.
const MAX_DEPTH: usize = 100;

pub(super) struct Scan<'a> {
    text: &'a str,
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Scan<'a> {
    pub(super) fn new(text: &'a str) -> Self {
        Self {
            text,
            bytes: text.as_bytes(),
            at: 0,
        }
    }

    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.at).copied()
    }

    /// Skips JSON whitespace.
    fn ws(&mut self) {
        // Compact JSON (the usual case) has none.
        if self.bytes.get(self.at).is_some_and(|&b| b > b' ') {
            return;
        }
        let rest = self.bytes.get(self.at..).unwrap_or_default();
        self.at += rest
            .iter()
            .position(|&b| !matches!(b, b' ' | b'\t' | b'\n' | b'\r'))
            .unwrap_or(rest.len());
    }

    fn eat(&mut self, b: u8) -> bool {
        self.ws();
        if self.peek() == Some(b) {
            self.at += 1;
            true
        } else {
            false
        }
    }

    /// Only whitespace is left.
    pub(super) fn at_end(&mut self) -> bool {
        self.ws();
        self.at == self.bytes.len()
    }

    /// A string without escapes (none of `\\`, control characters).
    fn plain_string(&mut self) -> Option<&'a str> {
        if !self.eat(b'"') {
            return None;
        }
        let start = self.at;
        let rest = self.bytes.get(start..)?;
        let len = rest.iter().position(|&b| STRING_STOP[usize::from(b)])?;
        if rest[len] != b'"' {
            return None; // an escape or a control character
        }
        self.at = start + len + 1;
        self.text.get(start..start + len)
    }

    /// An id: a string without escapes, or an integer in plain digits
    /// that fits in 64 bits (not `-0`, which `serde_json` reads as a float).
    fn id(&mut self) -> Option<Value> {
        self.ws();
        if self.peek() == Some(b'"') {
            return self.plain_string().map(|s| Value::String(s.to_owned()));
        }
        let negative = self.peek() == Some(b'-');
        if negative {
            self.at += 1;
        }
        let start = self.at;
        while let Some(b'0'..=b'9') = self.peek() {
            self.at += 1;
        }
        let digits = self.text.get(start..self.at)?;
        if digits.is_empty() || (digits.len() > 1 && digits.starts_with('0')) {
            return None;
        }
        if let Some(b'.' | b'e' | b'E') = self.peek() {
            return None;
        }
        let n: u64 = digits.parse().ok()?;
        if !negative {
            return Some(Value::from(n));
        }
        if n == 0 {
            return None;
        }
        // -(2^63) is the most negative i64.
        let n = i64::try_from(n)
            .map(|n| -n)
            .ok()
            .or((n == 1 << 63).then_some(i64::MIN))?;
        Some(Value::from(n))
    }

    /// The extent of one JSON value (not checked here: the caller has
    /// `serde_json` read it). `None` when too deep or unterminated.
    fn value_span(&mut self) -> Option<&'a str> {
        self.ws();
        let start = self.at;
        let mut depth = 0usize;
        loop {
            match self.peek()? {
                b'"' => {
                    self.at += 1;
                    loop {
                        let rest = self.bytes.get(self.at..)?;
                        self.at += memchr::memchr2(b'"', b'\\', rest)?;
                        if self.bytes[self.at] == b'"' {
                            break;
                        }
                        self.at += 2;
                    }
                    self.at += 1;
                }
                b'{' | b'[' => {
                    depth += 1;
                    if depth > MAX_DEPTH {
                        return None;
                    }
                    self.at += 1;
                }
                b'}' | b']' if depth > 0 => {
                    depth -= 1;
                    self.at += 1;
                }
                // The end of a scalar at the top of the value.
                b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r' if depth == 0 => break,
                _ => self.at += 1,
            }
            if depth == 0
                && matches!(
                    self.bytes.get(self.at.wrapping_sub(1)),
                    Some(b'"' | b'}' | b']')
                )
            {
                break;
            }
        }
        self.text.get(start..self.at)
    }

    /// A value, decoded and checked by `serde_json`.
    fn value(&mut self) -> Option<Value> {
        self.ws();
        let save = self.at;
        // The common cases without `serde_json`: a plain string, an
        // object of plain members (tool arguments, mostly).
        let simple = match self.peek() {
            Some(b'"') => self.plain_string().map(|s| Value::String(s.to_owned())),
            Some(b'{') => self.flat_object(),
            _ => None,
        };
        if simple.is_some() {
            return simple;
        }
        self.at = save;
        serde_json::from_str(self.value_span()?).ok()
    }

    /// An object whose member values are plain strings, integers in
    /// plain digits, `true`, `false` or `null`; `None` (position left
    /// anywhere) for anything else. Built as `serde_json` builds it.
    fn flat_object(&mut self) -> Option<Value> {
        if !self.eat(b'{') {
            return None;
        }
        if self.eat(b'}') {
            return Some(Value::Object(serde_json::Map::new()));
        }
        // Room for a few members without growing (tool arguments are
        // mostly small objects).
        let mut map = serde_json::Map::with_capacity(4);
        loop {
            let key = self.plain_string()?;
            if !self.eat(b':') {
                return None;
            }
            self.ws();
            let value = match self.peek()? {
                b'"' => Value::String(self.plain_string()?.to_owned()),
                b't' => self.literal("true", Value::Bool(true))?,
                b'f' => self.literal("false", Value::Bool(false))?,
                b'n' => self.literal("null", Value::Null)?,
                b'-' | b'0'..=b'9' => {
                    let start = self.at;
                    match self.id() {
                        Some(n) => n,
                        None => {
                            // Another number: `serde_json` reads the
                            // literal alone exactly as within a message.
                            self.at = start;
                            let len = self.bytes[start..]
                                .iter()
                                .position(|b| {
                                    !matches!(b, b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E')
                                })
                                .unwrap_or(self.bytes.len() - start);
                            let number: Value =
                                serde_json::from_str(self.text.get(start..start + len)?).ok()?;
                            self.at = start + len;
                            number
                        }
                    }
                }
                _ => return None,
            };
            map.insert(key.to_owned(), value);
            if self.eat(b',') {
                continue;
            }
            return self.eat(b'}').then_some(Value::Object(map));
        }
    }

    /// `word` (then a delimiter, checked by the caller) as `value`.
    fn literal(&mut self, word: &str, value: Value) -> Option<Value> {
        let end = self.at + word.len();
        (self.bytes.get(self.at..end)? == word.as_bytes()).then(|| {
            self.at = end;
            value
        })
    }

    /// The members of the params object, in order; `_meta` (at most
    /// once) is kept as text, its member holding `null`.
    fn params(&mut self, meta: &mut Option<&'a str>) -> Option<Members<'a>> {
        if !self.eat(b'{') {
            return None;
        }
        let mut members = Vec::with_capacity(4);
        if self.eat(b'}') {
            return Some(Members(members));
        }
        loop {
            let key = self.plain_string()?;
            if !self.eat(b':') {
                return None;
            }
            let value = if key == "_meta" {
                if meta.is_some() {
                    return None; // repeated: the general path
                }
                *meta = Some(self.value_span()?);
                Value::Null
            } else {
                self.value()?
            };
            members.push((Cow::Borrowed(key), value));
            if self.eat(b',') {
                continue;
            }
            return self.eat(b'}').then_some(Members(members));
        }
    }

    /// The whole message.
    pub(super) fn message(&mut self) -> Option<Lean<'a>> {
        if !self.eat(b'{') {
            return None;
        }
        let (mut version, mut id, mut method, mut params, mut meta) =
            (false, None, None, None, None);
        if self.eat(b'}') {
            return None; // no method
        }
        loop {
            let key = self.plain_string()?;
            if !self.eat(b':') {
                return None;
            }
            match key {
                "jsonrpc" => {
                    if self.plain_string()? != "2.0" {
                        return None;
                    }
                    version = true;
                }
                "id" => id = Some(self.id()?),
                "method" => method = Some(Cow::Borrowed(self.plain_string()?)),
                "params" => {
                    meta = None;
                    params = Some(self.params(&mut meta)?);
                }
                // A response, or something odd: the general path.
                "result" | "error" => return None,
                // Ignored, but it must be JSON.
                _ => {
                    serde_json::from_str::<IgnoredAny>(self.value_span()?).ok()?;
                }
            }
            if self.eat(b',') {
                continue;
            }
            if !self.eat(b'}') {
                return None;
            }
            break;
        }
        match method {
            Some(method) if version => Some(Lean {
                id,
                method,
                params,
                meta,
            }),
            _ => None,
        }
    }
}
