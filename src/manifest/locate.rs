//! Source positions of JSON values: maps each JSON pointer of a document to
//! the 1-based line and column where its value starts in the source text.
//!
//! JSON text is located by a small scanner written for already-parsed
//! (hence valid) JSON; YAML positions come from `yaml.rs`, which fills the
//! same [`Positions`] table while it builds the value.
//!
//! A JSON table is made on its first look-up, which only an error or a
//! warning asks for: a manifest that checks clean (800 tools: 2.4 MB,
//! hundreds of thousands of values) never pays for one. The members an
//! object repeats are found when the text is read, in a pass that records
//! nothing else.

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
use std::sync::{Arc, OnceLock};

use std::fmt::Write as _;

/// Pointer → (line, column), both 1-based, columns counted in characters.
#[derive(Debug, Clone, Default)]
pub struct Positions {
    /// The table; for JSON text, made from `source` when first needed.
    map: OnceLock<HashMap<String, (usize, usize)>>,
    /// The JSON text the table is made from.
    source: Option<Arc<str>>,
    duplicates: Vec<String>,
    /// Where each repeated member's second name starts.
    repeated_names: HashMap<String, (usize, usize)>,
}

impl PartialEq for Positions {
    fn eq(&self, other: &Self) -> bool {
        self.table() == other.table()
            && self.duplicates == other.duplicates
            && self.repeated_names == other.repeated_names
    }
}

impl Eq for Positions {}

impl Positions {
    /// An empty table.
    pub fn new() -> Self {
        Self::default()
    }

    /// The table, made now from the JSON text when it was not yet.
    fn table(&self) -> &HashMap<String, (usize, usize)> {
        self.map.get_or_init(|| {
            let mut table = HashMap::new();
            if let Some(text) = &self.source {
                let mut scanner = Scanner::new(text, Some(&mut table));
                scanner.skip_ws();
                if scanner.value(&mut String::new()).is_none() {
                    table.clear();
                }
            }
            table
        })
    }

    /// Records where the value at `pointer` starts.
    pub fn insert(&mut self, pointer: String, line: usize, column: usize) {
        self.table();
        if let Some(map) = self.map.get_mut() {
            map.entry(pointer).or_insert((line, column));
        }
    }

    /// Where the value at `pointer` starts, when known exactly.
    pub fn get(&self, pointer: &str) -> Option<(usize, usize)> {
        self.table().get(pointer).copied()
    }

    /// Where the value at `pointer` starts or, when the pointer names
    /// something absent (a missing member), where its nearest existing
    /// ancestor starts.
    pub fn nearest(&self, pointer: &str) -> Option<(usize, usize)> {
        let table = self.table();
        let mut p = pointer;
        loop {
            if let Some(pos) = table.get(p) {
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
        self.table().len()
    }

    /// Whether nothing was located.
    pub fn is_empty(&self) -> bool {
        self.table().is_empty()
    }
}

/// Reads a valid JSON text for the members its objects repeat, and keeps
/// it to locate every value when a position is first asked for. Returns
/// an empty table when the text turns out not to be JSON (callers parse
/// it first).
pub fn locate_json(text: &str) -> Positions {
    let mut scanner = Scanner::new(text, None);
    scanner.skip_ws();
    if scanner.value(&mut String::new()).is_none() {
        return Positions::new();
    }
    let mut out = Positions::new();
    for (pointer, (line, column)) in scanner.repeated {
        out.insert_duplicate(pointer, line, column);
    }
    out.source = Some(Arc::from(text));
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

/// The member names of one object seen so far: compared one by one while
/// there are few, hashed beyond.
#[derive(Default)]
struct Seen<'a> {
    few: Vec<Cow<'a, str>>,
    many: HashSet<Cow<'a, str>>,
}

/// Member names an object may have before they are hashed.
const FEW_MEMBERS: usize = 16;

impl<'a> Seen<'a> {
    /// Whether `name` was seen before in this object; remembers it.
    fn repeated(&mut self, name: Cow<'a, str>) -> bool {
        if self.many.is_empty() {
            if self.few.contains(&name) {
                return true;
            }
            if self.few.len() < FEW_MEMBERS {
                self.few.push(name);
                return false;
            }
            self.many.extend(self.few.drain(..));
        }
        !self.many.insert(name)
    }
}

/// Walks the text byte by byte: every byte JSON's structure is made of is
/// ASCII, and a byte that continues a UTF-8 character does not count as a
/// column.
struct Scanner<'a, 't> {
    bytes: &'a [u8],
    text: &'a str,
    at: usize,
    line: usize,
    col: usize,
    /// Where each value starts, when the table is being made.
    table: Option<&'t mut HashMap<String, (usize, usize)>>,
    /// The repeated members: pointer, and where the second name starts.
    repeated: Vec<(String, (usize, usize))>,
}

impl<'a, 't> Scanner<'a, 't> {
    fn new(text: &'a str, table: Option<&'t mut HashMap<String, (usize, usize)>>) -> Self {
        Scanner {
            bytes: text.as_bytes(),
            text,
            at: 0,
            line: 1,
            col: 1,
            table,
            repeated: Vec::new(),
        }
    }

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

    /// Scans one value starting at the current (non-blank) character,
    /// records it and its descendants under `pointer` (a buffer each
    /// child's pointer is built in, and left as it came) when a table is
    /// being made, and notes the members an object repeats.
    fn value(&mut self, pointer: &mut String) -> Option<()> {
        if let Some(table) = self.table.as_deref_mut() {
            table
                .entry(pointer.clone())
                .or_insert((self.line, self.col));
        }
        let len = pointer.len();
        match self.peek()? {
            b'{' => {
                self.bump();
                self.skip_ws();
                if self.peek() == Some(b'}') {
                    self.bump();
                    return Some(());
                }
                let mut seen = Seen::default();
                loop {
                    self.skip_ws();
                    let (line, col) = (self.line, self.col);
                    let key = self.string()?;
                    self.expect(b':')?;
                    self.skip_ws();
                    pointer.push('/');
                    push_token(pointer, &key);
                    if seen.repeated(key) {
                        self.repeated.push((pointer.clone(), (line, col)));
                    }
                    self.value(pointer)?;
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
                    self.value(pointer)?;
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

    /// Scans a string literal and returns its decoded text (borrowed from
    /// the source when it has no escapes).
    fn string(&mut self) -> Option<Cow<'a, str>> {
        let (start, end, escapes) = self.skip_string()?;
        if escapes {
            serde_json::from_str(&self.text[start..end])
                .ok()
                .map(Cow::Owned)
        } else {
            Some(Cow::Borrowed(&self.text[start + 1..end - 1]))
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

    /// A repeated member is one finding, not one more for each member of
    /// its value; a name spelt with an escape is the same name; an object
    /// with many members is checked as well as a small one.
    #[test]
    fn repeated_members_in_objects_large_and_small() {
        let p = locate_json(r#"{"t": {"a": 1}, "t": {"a": 2}, "u\u0076": 0, "uv": 1}"#);
        assert_eq!(p.duplicates(), ["/t", "/uv"]);
        let mut text = String::from("{");
        for i in 0..40 {
            let _ = write!(text, "\"m{i}\": {i}, ");
        }
        text.push_str("\"m3\": 0}");
        let p = locate_json(&text);
        assert_eq!(p.duplicates(), ["/m3"]);
        assert_eq!(p.duplicate_name_at("/m3"), Some((1, text.len() - 7)));
        assert_eq!(p.get("/m39"), Some((1, text.rfind("39,").unwrap() + 1)));
    }

    /// Positions added to a table of JSON text (as the YAML reader adds
    /// them to an empty one) join those located in it.
    #[test]
    fn an_inserted_position_joins_the_located_ones() {
        let mut p = locate_json("{\"a\": 1}");
        p.insert("/b".to_owned(), 9, 9);
        assert_eq!(p.get("/a"), Some((1, 7)));
        assert_eq!(p.get("/b"), Some((9, 9)));
        assert_eq!(p.len(), 3);
    }
}
