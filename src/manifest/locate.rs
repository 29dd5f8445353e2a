//! Source positions of JSON values: maps each JSON pointer of a document to
//! the 1-based line and column where its value starts in the source text.
//!
//! JSON text is located by a small scanner written for already-parsed
//! (hence valid) JSON; YAML positions come from `yaml.rs`, which fills the
//! same [`Positions`] table while it builds the value.

use std::collections::HashMap;

use crate::error::pointer_token;

/// Pointer → (line, column), both 1-based, columns counted in characters.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Positions {
    map: HashMap<String, (usize, usize)>,
    duplicates: Vec<String>,
}

impl Positions {
    /// An empty table.
    pub fn new() -> Self {
        Self::default()
    }

    /// Records where the value at `pointer` starts.
    pub fn insert(&mut self, pointer: String, line: usize, column: usize) {
        self.map.entry(pointer).or_insert((line, column));
    }

    /// Where the value at `pointer` starts, when known exactly.
    pub fn get(&self, pointer: &str) -> Option<(usize, usize)> {
        self.map.get(pointer).copied()
    }

    /// Where the value at `pointer` starts or, when the pointer names
    /// something absent (a missing member), where its nearest existing
    /// ancestor starts.
    pub fn nearest(&self, pointer: &str) -> Option<(usize, usize)> {
        let mut p = pointer;
        loop {
            if let Some(pos) = self.map.get(p) {
                return Some(*pos);
            }
            match p.rfind('/') {
                Some(i) => p = &p[..i],
                None => return None,
            }
        }
    }

    /// Records a member name that appears twice in one object (the
    /// pointer of the second occurrence's value).
    pub fn insert_duplicate(&mut self, pointer: String) {
        self.duplicates.push(pointer);
    }

    /// Pointers of repeated members, in document order. JSON parsers keep
    /// only one of them, so each is reported by `manifest check`.
    pub fn duplicates(&self) -> &[String] {
        &self.duplicates
    }

    /// Number of located values.
    pub fn len(&self) -> usize {
        self.map.len()
    }

    /// Whether nothing was located.
    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }
}

/// Locates every value of a valid JSON text. Returns an empty table when
/// the text turns out not to be JSON (callers parse it first).
pub fn locate_json(text: &str) -> Positions {
    let mut scanner = Scanner {
        chars: text.char_indices().peekable(),
        text,
        line: 1,
        col: 1,
    };
    let mut out = Positions::new();
    scanner.skip_ws();
    if scanner.value(String::new(), &mut out).is_none() {
        return Positions::new();
    }
    out
}

struct Scanner<'a> {
    chars: std::iter::Peekable<std::str::CharIndices<'a>>,
    text: &'a str,
    line: usize,
    col: usize,
}

impl Scanner<'_> {
    fn peek(&mut self) -> Option<char> {
        self.chars.peek().map(|&(_, c)| c)
    }

    fn bump(&mut self) -> Option<(usize, char)> {
        let (i, c) = self.chars.next()?;
        if c == '\n' {
            self.line += 1;
            self.col = 1;
        } else {
            self.col += 1;
        }
        Some((i, c))
    }

    fn skip_ws(&mut self) {
        while matches!(self.peek(), Some(' ' | '\t' | '\n' | '\r')) {
            self.bump();
        }
    }

    fn expect(&mut self, want: char) -> Option<()> {
        self.skip_ws();
        match self.bump() {
            Some((_, c)) if c == want => Some(()),
            _ => None,
        }
    }

    /// Scans one value starting at the current (non-blank) character and
    /// records it and its descendants under `pointer`.
    fn value(&mut self, pointer: String, out: &mut Positions) -> Option<()> {
        out.insert(pointer.clone(), self.line, self.col);
        match self.peek()? {
            '{' => {
                self.bump();
                self.skip_ws();
                if self.peek() == Some('}') {
                    self.bump();
                    return Some(());
                }
                let mut seen = std::collections::HashSet::new();
                loop {
                    self.skip_ws();
                    let (line, col) = (self.line, self.col);
                    let key = self.string()?;
                    self.expect(':')?;
                    self.skip_ws();
                    let child = format!("{pointer}/{}", pointer_token(&key));
                    if !seen.insert(key) {
                        // Point at the repeated name itself.
                        out.map.insert(format!("{child}#key"), (line, col));
                        out.insert_duplicate(child.clone());
                    }
                    self.value(child, out)?;
                    self.skip_ws();
                    match self.bump()?.1 {
                        ',' => continue,
                        '}' => return Some(()),
                        _ => return None,
                    }
                }
            }
            '[' => {
                self.bump();
                self.skip_ws();
                if self.peek() == Some(']') {
                    self.bump();
                    return Some(());
                }
                let mut index = 0usize;
                loop {
                    self.skip_ws();
                    self.value(format!("{pointer}/{index}"), out)?;
                    index += 1;
                    self.skip_ws();
                    match self.bump()?.1 {
                        ',' => continue,
                        ']' => return Some(()),
                        _ => return None,
                    }
                }
            }
            '"' => self.string().map(|_| ()),
            _ => {
                while matches!(self.peek(), Some(c) if !matches!(c, ',' | '}' | ']' | ' ' | '\t' | '\n' | '\r'))
                {
                    self.bump();
                }
                Some(())
            }
        }
    }

    /// Scans a string literal and returns its decoded text.
    fn string(&mut self) -> Option<String> {
        let (start, c) = self.bump()?;
        if c != '"' {
            return None;
        }
        let mut escaped = false;
        loop {
            let (i, c) = self.bump()?;
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                return serde_json::from_str(&self.text[start..=i]).ok();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn locates_members_elements_and_escaped_keys() {
        let text = "{\n  \"a\": [1, {\"b\": true}],\n  \"c/d\": \"x\\\"y\",\n  \"é\": null\n}";
        let p = locate_json(text);
        assert_eq!(p.get(""), Some((1, 1)));
        assert_eq!(p.get("/a"), Some((2, 8)));
        assert_eq!(p.get("/a/0"), Some((2, 9)));
        assert_eq!(p.get("/a/1"), Some((2, 12)));
        assert_eq!(p.get("/a/1/b"), Some((2, 18)));
        assert_eq!(p.get("/c~1d"), Some((3, 10)));
        assert_eq!(p.get("/é"), Some((4, 8)));
        assert_eq!(p.nearest("/a/1/missing"), Some((2, 12)));
        assert!(p.duplicates().is_empty());
    }

    #[test]
    fn records_repeated_members() {
        let p = locate_json("{\"t\": {\"name\": \"a\",\n \"name\": \"b\"}}");
        assert_eq!(p.duplicates(), ["/t/name"]);
        assert_eq!(p.get("/t/name#key"), Some((2, 2)));
    }
}
