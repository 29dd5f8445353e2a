//! `pattern` and `patternProperties`: ECMA-262 regular expressions, read
//! in unicode mode, matched in time linear in the text whenever the pattern
//! allows it.
//!
//! Which reading: a pattern is compiled as `new RegExp(source, "u")` would
//! (ECMA-262's unicode mode: `\p{L}`, `\p{Letter}`, `\p{Script=Greek}` and
//! `\P{…}` are Unicode property classes, `.` and classes match whole code
//! points, `\u{1F600}` names a code point). A pattern that is invalid in
//! unicode mode but valid without it (`\-` or `\_` outside a class, a lone
//! `{`, `\p` meaning the letter `p`) is read as `new RegExp(source)` reads
//! it. Either way `\d` is `[0-9]`, `\w` is `[A-Za-z0-9_]` and `\b` is
//! their boundary (ASCII, as ECMA-262 has them), `\s` is ECMA-262's white
//! space and line terminators, and `.` matches anything but `\n`, `\r`,
//! U+2028 and U+2029.
//!
//! How it is matched: the pattern is checked by regress (an ECMA-262
//! engine) and then, if it only uses what regex-lite can express (no
//! look-around, no back-references), translated to regex-lite's syntax
//! with the meanings above spelled out (`\p{…}` becomes the class of its
//! code point ranges, taken from regex-syntax's Unicode tables) and
//! searched by regex-lite, which never backtracks: `^(a+)+$` against a
//! long string of `a`s costs microseconds, not years. Only the patterns
//! that need look-around or back-references are matched by regress's
//! backtracking, as an ECMA-262 engine must; their authors chose them.

use regex_syntax::hir::{Class, HirKind};

/// A compiled pattern and its text.
#[derive(Debug)]
pub(super) struct Pattern {
    pub source: String,
    engine: Engine,
}

#[derive(Debug)]
enum Engine {
    /// Linear-time search.
    Lite(regex_lite::Regex),
    /// ECMA-262 backtracking, for look-around and back-references.
    Ecma(regress::Regex),
}

/// ECMA-262's `\s`: white space and line terminators (as class items).
const SPACE: &str =
    r"\t\n\x0B\x0C\r \xA0\x{1680}\x{2000}-\x{200A}\x{2028}\x{2029}\x{202F}\x{205F}\x{3000}\x{FEFF}";

impl Pattern {
    /// Compiles `source`, which must be a valid ECMA-262 pattern (in
    /// unicode mode, or else without it).
    pub(crate) fn compile(source: &str) -> Result<Pattern, String> {
        let (ecma, unicode) = match regress::Regex::with_flags(source, "u") {
            Ok(re) => (re, true),
            Err(u_error) => match regress::Regex::new(source) {
                Ok(re) => (re, false),
                Err(_) => return Err(u_error.to_string()),
            },
        };
        let engine = match translate(source, unicode).and_then(|t| regex_lite::Regex::new(&t).ok())
        {
            Some(lite) => Engine::Lite(lite),
            None => Engine::Ecma(ecma),
        };
        Ok(Pattern {
            source: source.to_owned(),
            engine,
        })
    }

    /// Whether the pattern matches somewhere in `s`.
    pub(crate) fn matches(&self, s: &str) -> bool {
        match &self.engine {
            Engine::Lite(re) => re.is_match(s),
            Engine::Ecma(re) => re.find(s).is_some(),
        }
    }

    /// Whether matching never backtracks.
    #[cfg(test)]
    pub(crate) fn is_linear(&self) -> bool {
        matches!(self.engine, Engine::Lite(_))
    }
}

/// `source` (valid ECMA-262, read in unicode mode if `unicode`) in
/// regex-lite's syntax with the same meaning, if regex-lite can say it.
fn translate(source: &str, unicode: bool) -> Option<String> {
    let chars: Vec<char> = source.chars().collect();
    let mut out = String::with_capacity(source.len() + 8);
    let mut i = 0;
    let mut in_class = false;
    while i < chars.len() {
        let c = chars[i];
        match c {
            '\\' => {
                let e = *chars.get(i + 1)?;
                i += 2;
                match e {
                    'd' | 'D' | 'w' | 'W' | 'n' | 'r' | 't' | 'f' => {
                        out.push('\\');
                        out.push(e);
                    }
                    'v' => out.push_str(r"\x0B"),
                    'b' | 'B' if !in_class => {
                        out.push('\\');
                        out.push(e);
                    }
                    // A backspace inside a class.
                    'b' => out.push_str(r"\x08"),
                    's' | 'S' => {
                        let open = match (in_class, e == 'S') {
                            (true, false) => "",
                            (_, true) => "[^",
                            (false, false) => "[",
                        };
                        out.push_str(open);
                        out.push_str(SPACE);
                        if !open.is_empty() {
                            out.push(']');
                        }
                    }
                    'p' | 'P' if unicode => {
                        if chars.get(i) != Some(&'{') {
                            return None;
                        }
                        let close = chars[i..].iter().position(|c| *c == '}')? + i;
                        let name: String = chars[i + 1..close].iter().collect();
                        i = close + 1;
                        let ranges = property(e == 'P', &name)?;
                        if !in_class {
                            out.push('[');
                        }
                        for (lo, hi) in ranges {
                            push_char(&mut out, lo);
                            if hi != lo {
                                out.push('-');
                                push_char(&mut out, hi);
                            }
                        }
                        if !in_class {
                            out.push(']');
                        }
                    }
                    'u' => {
                        let code = if unicode && chars.get(i) == Some(&'{') {
                            let close = chars[i..].iter().position(|c| *c == '}')? + i;
                            let hex: String = chars[i + 1..close].iter().collect();
                            i = close + 1;
                            u32::from_str_radix(&hex, 16).ok()?
                        } else {
                            let hex: String = chars.get(i..i + 4)?.iter().collect();
                            i += 4;
                            u32::from_str_radix(&hex, 16).ok()?
                        };
                        // Surrogates (halves of a pair) are not characters here.
                        push_char(&mut out, char::from_u32(code)?);
                    }
                    'x' => {
                        let hex: String = chars.get(i..i + 2)?.iter().collect();
                        i += 2;
                        push_char(
                            &mut out,
                            char::from_u32(u32::from_str_radix(&hex, 16).ok()?)?,
                        );
                    }
                    // Escaped syntax characters mean themselves.
                    c if "^$\\.*+?()[]{}|/-".contains(c) => push_char(&mut out, c),
                    // Back-references, `\k<name>`, `\c`, `\0`, identity
                    // escapes: left to regress.
                    _ => return None,
                }
                continue;
            }
            '[' if in_class => out.push_str(r"\["),
            '[' => {
                // `[]` and `[^]` mean nothing and anything in ECMA-262.
                match (chars.get(i + 1), chars.get(i + 2)) {
                    (Some(']'), _) | (Some('^'), Some(']')) => return None,
                    _ => {}
                }
                in_class = true;
                out.push('[');
                if chars.get(i + 1) == Some(&'^') {
                    out.push('^');
                    i += 1;
                }
            }
            ']' if in_class => {
                in_class = false;
                out.push(']');
            }
            // Set operators in regex-lite, plain characters in ECMA-262.
            '&' | '~' if in_class => {
                out.push('\\');
                out.push(c);
            }
            '.' if !in_class => out.push_str(r"[^\n\r\x{2028}\x{2029}]"),
            '(' if chars.get(i + 1) == Some(&'?') => match (chars.get(i + 2), chars.get(i + 3)) {
                (Some(':'), _) => {
                    out.push_str("(?:");
                    i += 2;
                }
                (Some('<'), Some(c)) if c.is_alphabetic() || *c == '_' || *c == '$' => {
                    out.push_str("(?<");
                    i += 2;
                }
                // Look-around.
                _ => return None,
            },
            // `{,n}` is literal text in ECMA-262.
            '{' if !in_class && chars.get(i + 1) == Some(&',') => return None,
            c => out.push(c),
        }
        i += 1;
    }
    Some(out)
}

/// A character as a regex-lite class item or atom.
fn push_char(out: &mut String, c: char) {
    use std::fmt::Write as _;
    if c.is_ascii_alphanumeric() || c == '_' {
        out.push(c);
    } else {
        let _ = write!(out, "\\x{{{:X}}}", c as u32);
    }
}

/// The code point ranges of ECMA-262's `\p{name}` (or `\P{name}`).
pub(super) fn property(negated: bool, name: &str) -> Option<Vec<(char, char)>> {
    let text = format!("\\{}{{{name}}}", if negated { 'P' } else { 'p' });
    let hir = regex_syntax::ParserBuilder::new()
        .build()
        .parse(&text)
        .ok()?;
    match hir.kind() {
        HirKind::Class(Class::Unicode(class)) if !class.ranges().is_empty() => Some(
            class
                .ranges()
                .iter()
                .map(|r| (r.start(), r.end()))
                .collect(),
        ),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn common_patterns_match_in_linear_time_and_the_rest_as_ecma_262() {
        for (source, linear) in [
            ("^[a-z0-9_-]+$", true),
            ("^\\d{4}-\\d{2}-\\d{2}$", true),
            ("^(?:https?://)?[\\w.-]+$", true),
            ("^(?<year>\\d{4})$", true),
            ("(?<=\\$)\\d+", false),
            ("(a)\\1", false),
            ("(?<n>a)\\k<n>", false),
            ("[^]", false),
            ("a{,3}", false),
            ("\\cJ", false),
            ("^\\p{L}+$", true),
            ("^[\\p{Lu}\\d]+$", true),
            ("^\\-x$", true),
        ] {
            let p = Pattern::compile(source).unwrap_or_else(|e| panic!("{source}: {e}"));
            assert_eq!(p.is_linear(), linear, "{source}");
        }
        assert!(Pattern::compile("(unclosed").is_err());
        assert!(
            Pattern::compile("(?i)a").is_err(),
            "ECMA-262 has no inline flags"
        );
        let p = Pattern::compile("(?<=\\$)\\d+").unwrap();
        assert!(p.matches("cost $12") && !p.matches("12"));
        let p = Pattern::compile("(?<n>a)\\k<n>").unwrap();
        assert!(p.matches("xaax") && !p.matches("xax"));
    }

    #[test]
    fn patterns_have_their_ecma_262_unicode_mode_meanings() {
        let cases: &[(&str, &[&str], &[&str])] = &[
            (
                r"^\p{L}+$",
                &["héllo", "Hello", "π", "日本"],
                &["p{L}", "a1", ""],
            ),
            (r"^\p{Letter}+$", &["héllo"], &["p{Letter}"]),
            (r"^\P{L}+$", &["123 !"], &["a"]),
            (r"^\p{Script=Greek}+$", &["αβγ"], &["abc"]),
            (r"^[\p{Lu}\d]+$", &["ÀB12"], &["àb"]),
            // ASCII digits and word characters only.
            (r"^\d+$", &["0123456789"], &["١٢٣", "߀"]),
            (r"^\w+$", &["a_Z9"], &["é", "ß"]),
            // White space as ECMA-262 has it (U+00A0, U+FEFF).
            (r"^\s+$", &[" \t\u{a0}\u{feff}\u{2003}"], &["x"]),
            // `.` is one code point, never a line terminator.
            (r"^.$", &["🐲", "é"], &["\r", "\n", "\u{2028}", "ab"]),
            (r"^\u{1F432}$", &["🐲"], &["x"]),
            // Invalid in unicode mode, read as without it.
            (r"^\-\_$", &["-_"], &["x"]),
            (r"^a{$", &["a{"], &["a"]),
            (r"^[a&&b~~c]+$", &["a&b~c"], &["d"]),
        ];
        for (source, good, bad) in cases {
            let p = Pattern::compile(source).unwrap_or_else(|e| panic!("{source}: {e}"));
            for s in *good {
                assert!(p.matches(s), "{source} refuses {s:?}");
            }
            for s in *bad {
                assert!(!p.matches(s), "{source} accepts {s:?}");
            }
        }
    }

    #[test]
    fn a_pattern_that_backtracks_exponentially_elsewhere_is_searched_linearly() {
        // A backtracking engine needs about 2^n steps here; the search ends.
        let p = Pattern::compile("^(a+)+$").unwrap();
        assert!(p.is_linear());
        let text = format!("{}b", "a".repeat(100_000));
        assert!(!p.matches(&text));
        assert!(p.matches(&"a".repeat(100_000)));
    }
}
