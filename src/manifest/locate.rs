//! Source positions of JSON values: maps each JSON pointer of a document to
//! the 1-based line and column where its value starts in the source text.
//!
//! JSON text is located by a small scanner written for already-parsed
//! (hence valid) JSON; YAML positions come from `yaml.rs`, which fills the
//! same [`Positions`] table while it builds the value.

use std::collections::HashMap;

use std::fmt::Write as _;

/// Pointer → (line, column), both 1-based, columns counted in characters.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Positions {
    map: HashMap<String, (usize, usize)>,
    duplicates: Vec<String>,
    /// Where each repeated member's second name starts.
    repeated_names: HashMap<String, (usize, usize)>,
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

    /// Records a member name that appears twice in one object: the
    /// pointer of the second occurrence's value, and where its name starts.
    pub fn insert_duplicate(&mut self, pointer: String, line: usize, column: usize) {
        self.repeated_names
            .entry(pointer.clone())
            .or_insert((line, column));
        self.duplicates.push(pointer);
    }

    /// Where the name of the repeated member at `pointer` (one of
    /// [`Self::duplicates`]) starts.
    pub fn duplicate_name_at(&self, pointer: &str) -> Option<(usize, usize)> {
        self.repeated_names.get(pointer).copied()
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
        bytes: text.as_bytes(),
        text,
        at: 0,
        line: 1,
        col: 1,
    };
    let mut out = Positions::new();
    scanner.skip_ws();
    if scanner.value(&mut String::new(), &mut out).is_none() {
        return Positions::new();
    }
    out
}

/// Appends `name` to `pointer` as one reference token (`~` and `/`
/// escaped).
fn push_token(pointer: &mut String, name: &str) {
    for c in name.chars() {
        match c {
            '~' => pointer.push_str("~0"),
            '/' => pointer.push_str("~1"),
            c => pointer.push(c),
        }
    }
}

/// Walks the text byte by byte: every byte JSON's structure is made of is
/// ASCII, and a byte that continues a UTF-8 character does not count as a
/// column.
struct Scanner<'a> {
    bytes: &'a [u8],
    text: &'a str,
    at: usize,
    line: usize,
    col: usize,
}

impl Scanner<'_> {
    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.at).copied()
    }

    fn bump(&mut self) -> Option<u8> {
        let b = *self.bytes.get(self.at)?;
        self.at += 1;
        if b == b'\n' {
            self.line += 1;
            self.col = 1;
        } else if b & 0xC0 != 0x80 {
            self.col += 1;
        }
        Some(b)
    }

    fn skip_ws(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.bump();
        }
    }

    fn expect(&mut self, want: u8) -> Option<()> {
        self.skip_ws();
        (self.bump()? == want).then_some(())
    }

    /// Scans one value starting at the current (non-blank) character and
    /// records it and its descendants under `pointer` (a buffer each
    /// child's pointer is built in, and left as it came).
    fn value(&mut self, pointer: &mut String, out: &mut Positions) -> Option<()> {
        out.insert(pointer.clone(), self.line, self.col);
        let len = pointer.len();
        match self.peek()? {
            b'{' => {
                self.bump();
                self.skip_ws();
                if self.peek() == Some(b'}') {
                    self.bump();
                    return Some(());
                }
                loop {
                    self.skip_ws();
                    let (line, col) = (self.line, self.col);
                    let key = self.string()?;
                    self.expect(b':')?;
                    self.skip_ws();
                    pointer.push('/');
                    push_token(pointer, &key);
                    // Pointers are unique per member name: one already
                    // there is this object's member given twice.
                    if out.map.contains_key(pointer.as_str()) {
                        out.insert_duplicate(pointer.clone(), line, col);
                    }
                    self.value(pointer, out)?;
                    pointer.truncate(len);
                    self.skip_ws();
                    match self.bump()? {
                        b',' => continue,
                        b'}' => return Some(()),
                        _ => return None,
                    }
                }
            }
            b'[' => {
                self.bump();
                self.skip_ws();
                if self.peek() == Some(b']') {
                    self.bump();
                    return Some(());
                }
                let mut index = 0usize;
                loop {
                    self.skip_ws();
                    let _ = write!(pointer, "/{index}");
                    self.value(pointer, out)?;
                    pointer.truncate(len);
                    index += 1;
                    self.skip_ws();
                    match self.bump()? {
                        b',' => continue,
                        b']' => return Some(()),
                        _ => return None,
                    }
                }
            }
            b'"' => self.skip_string().map(|_| ()),
            _ => {
                while matches!(self.peek(), Some(b) if !matches!(b, b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r'))
                {
                    self.bump();
                }
                Some(())
            }
        }
    }

    /// Scans a string literal; the byte range of it, quotes included, and
    /// whether it has escapes.
    fn skip_string(&mut self) -> Option<(usize, usize, bool)> {
        let start = self.at;
        if self.bump()? != b'"' {
            return None;
        }
        let mut escapes = false;
        loop {
            match self.bump()? {
                b'\\' => {
                    escapes = true;
                    self.bump()?;
                }
                b'"' => return Some((start, self.at, escapes)),
                _ => {}
            }
        }
    }

    /// Scans a string literal and returns its decoded text.
    fn string(&mut self) -> Option<String> {
        let (start, end, escapes) = self.skip_string()?;
        if escapes {
            serde_json::from_str(&self.text[start..end]).ok()
        } else {
            Some(self.text[start + 1..end - 1].to_owned())
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
        // Columns count characters, not bytes.
        let p = locate_json("{\"a\": \"üü\\\\\", \"b\": 1}");
        assert_eq!(p.get("/b"), Some((1, 20)));
    }

    #[test]
    fn records_repeated_members() {
        let p = locate_json("{\"t\": {\"name\": \"a\",\n \"name\": \"b\"}}");
        assert_eq!(p.duplicates(), ["/t/name"]);
        assert_eq!(p.duplicate_name_at("/t/name"), Some((2, 2)));
    }
}
