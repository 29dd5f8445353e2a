//! Escaping of text that `mcpgen new` pastes into the files it writes: one
//! function per syntactic context, so that a value from outside (a file
//! name, a path, a tool description) stays a value in every file and can
//! never end a string, a comment or a line and add code, tables or markup.
//!
//! | context | function | result |
//! | --- | --- | --- |
//! | TOML basic string (`Cargo.toml`) | [`toml_str`] | `"…"`, quotes included |
//! | Rust string literal | [`rust_str`] | `"…"`, quotes included |
//! | Rust raw string literal, when it can hold the text | [`rust_raw_str`] | `r#"…"#`, else [`rust_str`] |
//! | one-line `//` comment | [`line_comment`] | one line of text |
//! | Rust doc comment (`///`, `//!`; Markdown) | [`doc_text`], [`doc_code`] | one line of text / a code span |
//! | Markdown inline text (README) | [`markdown_text`], [`markdown_code`] | one line of text / a code span |
//! | JSON string (README snippets) | [`json_str`] | `"…"`, quotes included |
//! | POSIX shell word (README commands) | [`shell_word`] | the text, single-quoted unless plain |
//!
//! Characters that are invisible or change how a line is displayed (ASCII
//! and C1 controls, line and paragraph separators, bidirectional overrides
//! and isolates, zero-width characters) are written as escapes in every
//! context: in strings as the language's escape, in comments and Markdown
//! as the visible text `\u{…}`. Text that must stay on one line (comments,
//! doc comments, Markdown) therefore never holds a line break.
//!
//! Handlebars' own HTML escaping is switched off for the templates; each
//! template value is escaped here, for the context it is used in.

use std::fmt::Write as _;

/// Whether `c` is a control character, a line or paragraph separator, a
/// bidirectional control or an invisible zero-width character: characters
/// that end a line or change how the text around them reads.
pub fn is_invisible(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{061C}'                     // arabic letter mark
            | '\u{200B}'..='\u{200F}'      // zero-width space/joiners, LRM, RLM
            | '\u{2028}' | '\u{2029}'      // line and paragraph separators
            | '\u{202A}'..='\u{202E}'      // bidi embeddings and overrides
            | '\u{2060}'..='\u{2064}'      // word joiner, invisible operators
            | '\u{2066}'..='\u{2069}'      // bidi isolates
            | '\u{FEFF}' // zero-width no-break space (BOM)
        )
}

/// A TOML basic string, quotes included: `"`, `\` and every character of
/// [`is_invisible`] are escaped (TOML forbids raw control characters in
/// basic strings, and the others would hide what the string holds).
pub fn toml_str(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if is_invisible(c) => {
                let _ = write!(out, "\\u{:04X}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// A Rust string literal, quotes included: `"`, `\` and every character of
/// [`is_invisible`] are escaped (a bare CR is a compile error in a string
/// literal, and bidirectional controls trip the deny-by-default
/// `text_direction_codepoint_in_literal` lint).
pub fn rust_str(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\0' => out.push_str("\\0"),
            c if is_invisible(c) => {
                let _ = write!(out, "\\u{{{:x}}}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// A Rust raw string literal (`r#"…"#`, with as many `#` as the text
/// needs) when the text has no character of [`is_invisible`] (which a raw
/// string cannot escape), else the [`rust_str`] literal. For JSON text in
/// tests, where raw strings read like the JSON they hold.
pub fn rust_raw_str(text: &str) -> String {
    if text.chars().any(is_invisible) {
        return rust_str(text);
    }
    raw_str(text)
}

/// [`rust_raw_str`] for text of several lines (generated code, not a
/// template): line feeds stay in the raw literal; other invisible
/// characters make it a [`rust_str`].
pub fn rust_raw_str_lines(text: &str) -> String {
    if text.chars().any(|c| c != '\n' && is_invisible(c)) {
        return rust_str(text);
    }
    raw_str(text)
}

/// A raw string literal of `text`, with as many `#` as it needs.
fn raw_str(text: &str) -> String {
    // The literal ends at `"` followed by the opening's number of `#`, so it
    // needs one `#` more than the longest run of `#` after any `"`.
    let mut longest = 0;
    let mut run: Option<usize> = None;
    for c in text.chars() {
        run = match (c, run) {
            ('"', _) => Some(0),
            ('#', Some(n)) => Some(n + 1),
            _ => None,
        };
        if let Some(n) = run {
            longest = longest.max(n);
        }
    }
    let hashes = "#".repeat(longest + 1);
    format!("r{hashes}\"{text}\"{hashes}")
}

/// A JSON string, quotes included, with every character of [`is_invisible`]
/// escaped as `\uXXXX` (serde_json leaves DEL, C1 controls and bidi
/// controls raw).
pub fn json_str(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if is_invisible(c) => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Compact JSON text of `value` with every character of [`is_invisible`]
/// escaped as `\uXXXX`. Such characters can only occur inside JSON strings
/// (serde_json's compact output has no whitespace), where `\uXXXX` is the
/// same character.
pub fn json_text(value: &serde_json::Value) -> String {
    let text = value.to_string();
    if !text.chars().any(is_invisible) {
        return text;
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        if is_invisible(c) {
            let _ = write!(out, "\\u{:04x}", c as u32);
        } else {
            out.push(c);
        }
    }
    out
}

/// Text on one line: every character of [`is_invisible`] written as the
/// visible text `\n`, `\r`, `\t` or `\u{…}`.
fn one_line(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if is_invisible(c) => {
                let _ = write!(out, "\\u{{{:x}}}", c as u32);
            }
            c => out.push(c),
        }
    }
    out
}

/// Text for a one-line `//` comment: stays on its line (line breaks and the
/// other characters of [`is_invisible`] are written as visible escapes,
/// which also keeps the deny-by-default `text_direction_codepoint_in_comment`
/// lint quiet).
pub fn line_comment(text: &str) -> String {
    one_line(text)
}

/// Markdown inline text that shows `text` literally: on one line (see
/// [`line_comment`]), with the punctuation that starts emphasis, code,
/// links, HTML, tables or strike-through backslash-escaped (`_` only where
/// it can, not inside a word), and a leading character that could start a
/// heading, list, quote or rule escaped too.
pub fn markdown_text(text: &str) -> String {
    let line = one_line(text);
    let chars: Vec<char> = line.chars().collect();
    let mut out = String::with_capacity(line.len() + 8);
    for (i, &c) in chars.iter().enumerate() {
        // `_` between letters or digits never starts or ends emphasis.
        let in_word = |j: Option<usize>| {
            j.and_then(|j| chars.get(j))
                .is_some_and(|c| c.is_alphanumeric())
        };
        let special = matches!(
            c,
            '\\' | '`' | '*' | '[' | ']' | '<' | '>' | '&' | '|' | '~'
        ) || (c == '_' && !(in_word(i.checked_sub(1)) && in_word(Some(i + 1))))
            || (i == 0 && matches!(c, '#' | '-' | '+' | '='));
        if special {
            out.push('\\');
        }
        out.push(c);
    }
    // `1.` or `1)` at the start of a line is an ordered list item.
    let digits = out.chars().take_while(char::is_ascii_digit).count();
    if digits > 0 && matches!(out[digits..].chars().next(), Some('.' | ')')) {
        out.insert(digits, '\\');
    }
    out
}

/// A Markdown code span showing `text` literally, backticks included: on
/// one line (see [`line_comment`]), delimited by one backtick more than
/// the longest run of backticks inside, padded with a space where the text
/// starts or ends with a backtick. Empty text gives an empty string.
pub fn markdown_code(text: &str) -> String {
    let line = one_line(text);
    if line.is_empty() {
        return String::new();
    }
    let mut longest = 0;
    let mut run = 0;
    for c in line.chars() {
        run = if c == '`' { run + 1 } else { 0 };
        longest = longest.max(run);
    }
    let fence = "`".repeat(longest + 1);
    let pad = if line.starts_with('`') || line.ends_with('`') {
        " "
    } else {
        ""
    };
    format!("{fence}{pad}{line}{pad}{fence}")
}

/// Text for a Rust doc comment line (`///`, `//!`), which rustdoc reads as
/// Markdown: [`markdown_text`], which is already one line.
pub fn doc_text(text: &str) -> String {
    markdown_text(text)
}

/// A code span for a Rust doc comment line: [`markdown_code`].
pub fn doc_code(text: &str) -> String {
    markdown_code(text)
}

/// One POSIX shell word: the text itself when it holds only characters no
/// shell treats specially, else single-quoted (`'` as `'\''`). Invisible
/// characters are refused upstream (file names) or absent (crate names,
/// URLs), so no escape for them is needed here.
pub fn shell_word(text: &str) -> String {
    let plain = |c: char| c.is_ascii_alphanumeric() || "_-./:@%+=,".contains(c);
    if !text.is_empty() && text.chars().all(plain) {
        return text.to_owned();
    }
    format!("'{}'", text.replace('\'', "'\\''"))
}

#[cfg(test)]
mod tests {
    #[test]
    fn shell_words() {
        use super::shell_word;
        assert_eq!(
            shell_word("http://127.0.0.1:8080/mcp"),
            "http://127.0.0.1:8080/mcp"
        );
        assert_eq!(shell_word("my_server-2"), "my_server-2");
        assert_eq!(shell_word(""), "''");
        assert_eq!(shell_word("a b"), "'a b'");
        assert_eq!(shell_word("it's $(x)"), "'it'\\''s $(x)'");
    }

    use super::*;

    const NASTY: &str = "a\"b\\c\nd\re\tf\u{202E}g\u{2028}h\u{0}i\u{7f}j`k*[l](m)<n>";

    #[test]
    fn toml_strings_parse_back_to_the_text() {
        for text in [
            NASTY,
            "",
            "plain.json",
            "\"\"\"",
            "x\"\n[dependencies.evil]\npath = \"/tmp\"\n#",
        ] {
            let doc = format!("key = {}\n", toml_str(text));
            let table: toml::Table = doc.parse().unwrap_or_else(|e| panic!("{doc}: {e}"));
            assert_eq!(table.len(), 1, "{doc}");
            assert_eq!(table["key"].as_str(), Some(text), "{doc}");
            assert_eq!(doc.lines().count(), 1, "{doc}");
        }
        assert_eq!(toml_str("a\"b"), "\"a\\\"b\"");
        assert_eq!(toml_str("\u{202E}"), "\"\\u202E\"");
    }

    #[test]
    fn rust_strings_parse_back_to_the_text() {
        for text in [
            NASTY,
            "",
            "tool `x` is not implemented yet",
            "\"); std::process::exit(1); (\"",
        ] {
            let literal = rust_str(text);
            let parsed: syn::LitStr =
                syn::parse_str(&literal).unwrap_or_else(|e| panic!("{literal}: {e}"));
            assert_eq!(parsed.value(), text, "{literal}");
            assert!(!literal.chars().any(is_invisible), "{literal}");
        }
        assert_eq!(rust_str("\u{2066}"), "\"\\u{2066}\"");
    }

    #[test]
    fn raw_strings_use_enough_hashes_or_fall_back() {
        for text in [r#"{"a":"b"}"#, "a\"#b", "\"##\"###", "", "plain"] {
            let literal = rust_raw_str(text);
            assert!(literal.starts_with('r'), "{literal}");
            let parsed: syn::LitStr =
                syn::parse_str(&literal).unwrap_or_else(|e| panic!("{literal}: {e}"));
            assert_eq!(parsed.value(), text);
        }
        assert_eq!(rust_raw_str("{}"), "r#\"{}\"#");
        assert_eq!(rust_raw_str("\"#"), "r##\"\"#\"##");
        let fallback = rust_raw_str("a\r\u{202E}b");
        assert!(fallback.starts_with('"'), "{fallback}");
        assert_eq!(
            syn::parse_str::<syn::LitStr>(&fallback).unwrap().value(),
            "a\r\u{202E}b"
        );
        // Lines stay lines in the multi-line form; other controls still fall back.
        let lines = rust_raw_str_lines("[\n  \"a\"#\n]");
        assert!(lines.starts_with("r##\"[\n"), "{lines}");
        assert_eq!(
            syn::parse_str::<syn::LitStr>(&lines).unwrap().value(),
            "[\n  \"a\"#\n]"
        );
        assert!(rust_raw_str_lines("a\r\nb").starts_with('"'));
    }

    #[test]
    fn json_strings_and_text_parse_back() {
        for text in [NASTY, "", "\u{85}\u{2029}"] {
            let literal = json_str(text);
            assert_eq!(
                serde_json::from_str::<String>(&literal).unwrap(),
                text,
                "{literal}"
            );
            assert!(!literal.chars().any(is_invisible), "{literal}");
        }
        let value = serde_json::json!({"k\u{202E}": [NASTY, 1, null]});
        let text = json_text(&value);
        assert!(!text.chars().any(is_invisible), "{text}");
        assert_eq!(
            serde_json::from_str::<serde_json::Value>(&text).unwrap(),
            value
        );
    }

    #[test]
    fn comments_stay_on_their_line() {
        let text = line_comment(NASTY);
        assert_eq!(text.lines().count(), 1, "{text}");
        assert!(!text.chars().any(is_invisible), "{text}");
        assert!(text.contains("\\n") && text.contains("\\u{202e}"), "{text}");
        // Parses as a comment followed by exactly the item after it.
        let file: syn::File = syn::parse_str(&format!("// {text}\nfn after() {{}}\n")).unwrap();
        assert_eq!(file.items.len(), 1);
        let file: syn::File =
            syn::parse_str(&format!("/// {}\nfn after() {{}}\n", doc_text(NASTY))).unwrap();
        assert_eq!(file.items.len(), 1);
        let file: syn::File =
            syn::parse_str(&format!("//! {}\nfn after() {{}}\n", doc_code(NASTY))).unwrap();
        assert_eq!(file.items.len(), 1);
        assert_eq!(file.attrs.len(), 1);
    }

    #[test]
    fn markdown_text_escapes_markup() {
        assert_eq!(markdown_text("my_tools*.json"), "my_tools\\*.json");
        assert_eq!(
            markdown_text("_em_ a_ _b snake_case_"),
            "\\_em\\_ a\\_ \\_b snake_case\\_"
        );
        assert_eq!(
            markdown_text("[x](http://e) <b> `c` a|b"),
            "\\[x\\](http://e) \\<b\\> \\`c\\` a\\|b"
        );
        assert_eq!(markdown_text("# title"), "\\# title");
        assert_eq!(markdown_text("- item"), "\\- item");
        assert_eq!(markdown_text("12. item"), "12\\. item");
        assert_eq!(markdown_text("a-b.json"), "a-b.json");
        assert_eq!(markdown_text("a\nb"), "a\\\\nb");
        assert_eq!(markdown_text("back\\slash"), "back\\\\slash");
    }

    #[test]
    fn markdown_code_spans_hold_backticks() {
        assert_eq!(markdown_code("tools.json"), "`tools.json`");
        assert_eq!(markdown_code("a`b"), "``a`b``");
        assert_eq!(markdown_code("`a``"), "``` `a`` ```");
        assert_eq!(markdown_code("a\nb"), "`a\\nb`");
        assert_eq!(markdown_code(""), "");
    }

    #[test]
    fn invisible_characters() {
        for c in [
            '\n', '\r', '\u{0}', '\u{7f}', '\u{85}', '\u{2028}', '\u{202E}', '\u{2067}',
            '\u{200B}', '\u{FEFF}',
        ] {
            assert!(is_invisible(c), "{c:?}");
        }
        for c in ['a', ' ', 'é', '中', '\u{1F600}'] {
            assert!(!is_invisible(c), "{c:?}");
        }
    }
}
