//! Example strings for JSON Schema `pattern`s: a small reader of the
//! common regular-expression syntax (literals, escapes, classes, groups,
//! alternation, quantifiers, anchors) that writes one string the pattern
//! matches. Lookaround, backreferences and other rare syntax give `None`;
//! the caller checks every example with the real validator anyway.

/// One piece of a pattern.
#[derive(Debug, Clone)]
enum Node {
    /// A character to write.
    Char(char),
    /// Writes nothing (anchors, word boundaries, flag groups).
    Empty,
    /// Alternatives, each a sequence; the first one is written.
    Group(Vec<Vec<Node>>),
    /// `node{min,max}`.
    Repeat(Box<Node>, usize, Option<usize>),
}

/// A string that `pattern` matches, with every quantifier repeated `extra`
/// times more than its minimum (within its maximum), or `None` when the
/// pattern uses syntax this reader does not know.
pub(crate) fn example(pattern: &str, extra: usize) -> Option<String> {
    let mut reader = Reader {
        chars: pattern.chars().collect(),
        at: 0,
    };
    let alternatives = reader.alternatives()?;
    if reader.at != reader.chars.len() {
        return None; // an unbalanced `)`
    }
    let mut out = String::new();
    write(&Node::Group(alternatives), extra, &mut out);
    Some(out)
}

fn write(node: &Node, extra: usize, out: &mut String) {
    match node {
        Node::Char(c) => out.push(*c),
        Node::Empty => {}
        Node::Group(alternatives) => {
            for n in alternatives.first().into_iter().flatten() {
                write(n, extra, out);
            }
        }
        Node::Repeat(inner, min, max) => {
            let count = max.map_or(min + extra, |max| (min + extra).min(max));
            for _ in 0..count {
                write(inner, extra, out);
            }
        }
    }
}

/// Inclusive character ranges of a class.
type Ranges = Vec<(char, char)>;

struct Reader {
    chars: Vec<char>,
    at: usize,
}

impl Reader {
    fn peek(&self) -> Option<char> {
        self.chars.get(self.at).copied()
    }

    fn next(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.at += 1;
        Some(c)
    }

    fn eat(&mut self, c: char) -> bool {
        if self.peek() == Some(c) {
            self.at += 1;
            true
        } else {
            false
        }
    }

    /// `a|b|…` up to a `)` or the end.
    fn alternatives(&mut self) -> Option<Vec<Vec<Node>>> {
        let mut alternatives = vec![Vec::new()];
        loop {
            match self.peek() {
                None | Some(')') => return Some(alternatives),
                Some('|') => {
                    self.at += 1;
                    alternatives.push(Vec::new());
                }
                Some(_) => {
                    let atom = self.atom()?;
                    let node = self.quantified(atom)?;
                    alternatives.last_mut()?.push(node);
                }
            }
        }
    }

    fn quantified(&mut self, atom: Node) -> Option<Node> {
        let (min, max) = match self.peek() {
            Some('{') => match self.braces() {
                Some(bounds) => bounds,
                None => return Some(atom),
            },
            Some(c @ ('*' | '+' | '?')) => {
                self.at += 1;
                match c {
                    '*' => (0, None),
                    '+' => (1, None),
                    _ => (0, Some(1)),
                }
            }
            _ => return Some(atom),
        };
        // Lazy and possessive forms match the same strings.
        if !self.eat('?') {
            self.eat('+');
        }
        Some(Node::Repeat(Box::new(atom), min, max))
    }

    /// `{n}`, `{n,}` or `{n,m}` at the cursor, consumed; `None` (nothing
    /// consumed) when the brace is not a quantifier.
    fn braces(&mut self) -> Option<(usize, Option<usize>)> {
        let start = self.at;
        let mut text = String::new();
        self.at += 1;
        loop {
            match self.next() {
                Some('}') => break,
                Some(c) if c.is_ascii_digit() || c == ',' => text.push(c),
                _ => {
                    self.at = start;
                    return None;
                }
            }
        }
        let parsed = match text.split_once(',') {
            None => text.parse().ok().map(|n| (n, Some(n))),
            Some((lo, "")) => lo.parse().ok().map(|n| (n, None)),
            Some((lo, hi)) => match (lo.parse(), hi.parse()) {
                (Ok(lo), Ok(hi)) if lo <= hi => Some((lo, Some(hi))),
                _ => None,
            },
        };
        if parsed.is_none() {
            self.at = start;
        }
        parsed
    }

    fn atom(&mut self) -> Option<Node> {
        match self.next()? {
            '(' => {
                if self.eat('?') {
                    match self.next()? {
                        ':' => {}
                        '<' if !matches!(self.peek(), Some('=' | '!')) => self.skip_name('>')?,
                        'P' if self.eat('<') => self.skip_name('>')?,
                        // Inline flags: `(?i)` writes nothing, `(?i:…)` is a group.
                        c if c.is_ascii_alphabetic() || c == '-' => {
                            while self
                                .peek()
                                .is_some_and(|c| c.is_ascii_alphabetic() || c == '-')
                            {
                                self.at += 1;
                            }
                            if self.eat(')') {
                                return Some(Node::Empty);
                            }
                            if !self.eat(':') {
                                return None;
                            }
                        }
                        // Lookaround and the rest.
                        _ => return None,
                    }
                }
                let alternatives = self.alternatives()?;
                self.eat(')').then_some(Node::Group(alternatives))
            }
            '[' => self.class(),
            '.' => Some(Node::Char('a')),
            '^' | '$' => Some(Node::Empty),
            '\\' => self.escape(),
            '*' | '+' | '?' | ')' | '|' => None,
            c => Some(Node::Char(c)),
        }
    }

    fn skip_name(&mut self, end: char) -> Option<()> {
        while self.next()? != end {}
        Some(())
    }

    /// After a `\` outside a class.
    fn escape(&mut self) -> Option<Node> {
        let c = self.next()?;
        let node = match c {
            'd' => Node::Char('0'),
            'w' | 'D' | 'S' => Node::Char('a'),
            's' => Node::Char(' '),
            'W' => Node::Char('-'),
            'b' | 'B' | 'A' | 'z' | 'Z' | 'G' => Node::Empty,
            'p' | 'P' => Node::Char(self.property(c == 'P')?.0),
            '1'..='9' | 'k' => return None,
            _ => Node::Char(self.literal_escape(c)?),
        };
        Some(node)
    }

    /// The character of `\c` that stands for one character (`\n`, `\x41`,
    /// `\u{263A}`, `\.`), after the `c`.
    fn literal_escape(&mut self, c: char) -> Option<char> {
        Some(match c {
            'n' => '\n',
            't' => '\t',
            'r' => '\r',
            'f' => '\u{c}',
            'v' => '\u{b}',
            '0' => '\0',
            'x' => self.hex(2)?,
            'u' => self.hex(4)?,
            c if c.is_ascii_alphanumeric() => return None,
            c => c,
        })
    }

    /// `HH…` (exactly `digits` hex digits) or `{H…}`.
    fn hex(&mut self, digits: usize) -> Option<char> {
        let mut text = String::new();
        if self.eat('{') {
            loop {
                match self.next()? {
                    '}' => break,
                    c => text.push(c),
                }
            }
        } else {
            for _ in 0..digits {
                text.push(self.next()?);
            }
        }
        char::from_u32(u32::from_str_radix(&text, 16).ok()?)
    }

    /// `\p{…}` / `\P{…}` after the letter: a range of the property, for the
    /// letter and digit properties.
    fn property(&mut self, negated: bool) -> Option<(char, char)> {
        let name: String = if self.eat('{') {
            let mut name = String::new();
            loop {
                match self.next()? {
                    '}' => break,
                    c => name.push(c),
                }
            }
            name
        } else {
            self.next()?.to_string()
        };
        let letter = matches!(
            name.as_str(),
            "L" | "Letter" | "Alpha" | "Alphabetic" | "Ll" | "Latin" | "Script=Latin"
        );
        let digit = matches!(
            name.as_str(),
            "N" | "Nd" | "Number" | "Digit" | "Decimal_Number"
        );
        match (letter, digit, negated) {
            (true, _, false) | (_, true, true) => Some(('a', 'z')),
            (_, true, false) | (true, _, true) => Some(('0', '9')),
            _ => None,
        }
    }

    /// After a `[`: one character of the class.
    fn class(&mut self) -> Option<Node> {
        let negated = self.eat('^');
        let mut ranges: Ranges = Vec::new();
        let mut first = true;
        loop {
            let c = self.next()?;
            let start = match c {
                ']' if !first => break,
                '[' if self.peek() == Some(':') => return None, // POSIX classes
                '\\' => match self.next()? {
                    'd' => {
                        ranges.push(('0', '9'));
                        first = false;
                        continue;
                    }
                    'w' => {
                        ranges.extend([('a', 'z'), ('A', 'Z'), ('0', '9'), ('_', '_')]);
                        first = false;
                        continue;
                    }
                    's' => {
                        ranges.extend([(' ', ' '), ('\t', '\r')]);
                        first = false;
                        continue;
                    }
                    p @ ('p' | 'P') => {
                        ranges.push(self.property(p == 'P')?);
                        first = false;
                        continue;
                    }
                    'b' => '\u{8}',
                    'D' | 'W' | 'S' => return None,
                    e => self.literal_escape(e)?,
                },
                c => c,
            };
            first = false;
            // A range `a-z`, unless the `-` is last.
            if self.peek() == Some('-') && self.chars.get(self.at + 1).is_some_and(|&n| n != ']') {
                self.at += 1;
                let end = match self.next()? {
                    '\\' => {
                        let e = self.next()?;
                        self.literal_escape(e)?
                    }
                    e => e,
                };
                if end < start {
                    return None;
                }
                ranges.push((start, end));
            } else {
                ranges.push((start, start));
            }
        }
        let inside = |c: char| ranges.iter().any(|&(lo, hi)| lo <= c && c <= hi);
        let pick = if negated {
            ['a', 'x', 'Z', '0', '7', '_', '-', ' ', '.', '~']
                .into_iter()
                .find(|&c| !inside(c))?
        } else {
            // A letter or digit when the class has one, for readable examples.
            ranges
                .iter()
                .flat_map(|&(lo, hi)| [lo, hi])
                .chain(['a', '0', 'A'])
                .find(|&c| c.is_ascii_alphanumeric() && inside(c))
                .or_else(|| ranges.first().map(|r| r.0))?
        };
        Some(Node::Char(pick))
    }
}

#[cfg(test)]
mod tests {
    use super::example;

    #[test]
    fn common_patterns() {
        let cases = [
            ("^[a-z]+$", 0, "a"),
            ("^[a-z]+$", 2, "aaa"),
            (r"^\d{4}-\d{2}-\d{2}$", 0, "0000-00-00"),
            ("^(foo|bar)baz?$", 0, "fooba"),
            ("^[^/]+/[^/]+$", 0, "a/a"),
            (r"^[A-Z]{2,3}\.[0-9]*$", 0, "AA."),
            (r"^(?:https?)://\S+$", 0, "http://a"),
            (r"^(?<owner>[\w.-]+)$", 0, "a"),
            ("^x{2,}$", 1, "xxx"),
            ("a{,3}", 0, "a{,3}"),
            (r"^\p{L}+$", 0, "a"),
            (r"^[\u0041-\u005A]$", 0, "A"),
            ("^(?i)abc$", 0, "abc"),
            ("", 0, ""),
        ];
        for (pattern, extra, want) in cases {
            assert_eq!(example(pattern, extra).as_deref(), Some(want), "{pattern}");
        }
    }

    #[test]
    fn unsupported_syntax_gives_none() {
        for pattern in [
            r"^(a)\1$",
            "^(?=a)a$",
            "^(?!a)b$",
            "(unclosed",
            "closed)",
            "[[:alpha:]]",
            "*a",
            r"[\W]",
        ] {
            assert_eq!(example(pattern, 0), None, "{pattern}");
        }
    }
}
