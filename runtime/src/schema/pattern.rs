//! `pattern` and `patternProperties`: ECMA-262 regular expressions, matched
//! in time linear in the text whenever the pattern allows it.
//!
//! A pattern is checked against ECMA-262 (regress, the engine typify uses)
//! and then, if it is written in the syntax regex-lite shares with ECMA-262
//! (no look-around, no back-references, no inline flags), matched by
//! regex-lite, whose search never backtracks: `^(a+)+$` against a long
//! string of `a`s costs microseconds, not years. Only the patterns that
//! need what regex-lite lacks are matched by regress's backtracking, as an
//! ECMA-262 engine must; their authors chose them. What differs between
//! the two on shared syntax is small: regex-lite's `\s` and `.` are
//! ASCII-minded (`\s` does not match U+00A0, `.` does match `\r`).

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

impl Pattern {
    /// Compiles `source`, which must be a valid ECMA-262 pattern (as
    /// `new RegExp(source)` takes it, no flags).
    pub fn compile(source: &str) -> Result<Pattern, String> {
        let ecma = regress::Regex::new(source).map_err(|e| e.to_string())?;
        let engine = match shared_syntax(source)
            .then(|| regex_lite::Regex::new(source).ok())
            .flatten()
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
    pub fn matches(&self, s: &str) -> bool {
        match &self.engine {
            Engine::Lite(re) => re.is_match(s),
            Engine::Ecma(re) => re.find(s).is_some(),
        }
    }

    /// Whether matching never backtracks.
    #[cfg(test)]
    pub fn is_linear(&self) -> bool {
        matches!(self.engine, Engine::Lite(_))
    }
}

/// Whether `source` avoids the syntax whose meaning differs between
/// ECMA-262 and regex-lite (inline flags and `(?P<`, `\A`, `\z`, POSIX
/// classes, `{,n}`, octal and control escapes).
fn shared_syntax(source: &str) -> bool {
    let b = source.as_bytes();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'\\' => {
                match b.get(i + 1) {
                    // Escapes that mean the same in both.
                    Some(c) if b"dDwWsSbBnrtfv.*+?()[]{}|^$\\/-".contains(c) => {}
                    Some(b'u') => {
                        // `\uXXXX` only (not `\u{…}`, which ECMA reads differently without the u flag).
                        if !b
                            .get(i + 2..i + 6)
                            .is_some_and(|h| h.iter().all(u8::is_ascii_hexdigit))
                        {
                            return false;
                        }
                    }
                    Some(b'x') => {
                        if !b
                            .get(i + 2..i + 4)
                            .is_some_and(|h| h.iter().all(u8::is_ascii_hexdigit))
                        {
                            return false;
                        }
                    }
                    _ => return false,
                }
                i += 2;
                continue;
            }
            b'(' if b.get(i + 1) == Some(&b'?') => {
                // Only non-capturing groups and `(?<name>` groups.
                match b.get(i + 2) {
                    Some(b':') => {}
                    Some(b'<')
                        if b.get(i + 3)
                            .is_some_and(|c| c.is_ascii_alphabetic() || *c == b'_') => {}
                    _ => return false,
                }
            }
            b'[' if b.get(i + 1) == Some(&b':')
                || (b.get(i + 1) == Some(&b'^') && b.get(i + 2) == Some(&b']')) =>
            {
                return false;
            }
            b'[' if b.get(i + 1) == Some(&b'[') => return false,
            b'{' if b.get(i + 1) == Some(&b',') => return false,
            _ => {}
        }
        i += 1;
    }
    true
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
    fn a_pattern_that_backtracks_exponentially_elsewhere_is_searched_linearly() {
        // A backtracking engine needs about 2^n steps here; the search ends.
        let p = Pattern::compile("^(a+)+$").unwrap();
        assert!(p.is_linear());
        let text = format!("{}b", "a".repeat(100_000));
        assert!(!p.matches(&text));
        assert!(p.matches(&"a".repeat(100_000)));
    }
}
