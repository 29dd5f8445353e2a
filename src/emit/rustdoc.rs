//! Doc comments that rustdoc reads without a warning. Descriptions come
//! from schemas, manifests and API documents, and rustdoc reads them as
//! Markdown: a bare `https://…` gets `rustdoc::bare_urls`, and `<branch>`
//! (a placeholder, to its author) is an HTML tag that is never closed
//! (`rustdoc::invalid_html_tags`) and that a browser would hide. On the
//! formatted text of a generated file, in every doc comment (`///`, `//!`,
//! `/** … */`, `/*! … */`), outside code spans and fenced code blocks:
//!
//! - a bare `http://` or `https://` URL becomes an autolink (`<https://…>`),
//!   sentence punctuation after it left out;
//! - a `<` that would open an HTML tag, comment or declaration is escaped
//!   (`\<`), so the text shows as written and no markup from a document
//!   reaches the rendered page. Autolinks stay as they are;
//! - a `[` of bracketed text that is no link (`[FILE]`, `["#4ECDC4"]`),
//!   which rustdoc would try to resolve as an item, is escaped (`\[`):
//!   Markdown shows such text as written either way.
//!
//! URLs that are already a link's destination or text, code and
//! everything outside doc comments are left alone. The pass reads lines:
//! a line of code never starts with a doc comment's marker, and the only
//! string literals that span lines in generated files are pretty JSON,
//! whose lines start with a value or a member, never with `/`.

/// `text` (a formatted Rust file) with its doc comments cleaned.
pub(super) fn clean(text: String) -> String {
    if !text.contains("//") && !text.contains("/*") {
        return text;
    }
    let mut out = String::with_capacity(text.len() + 64);
    let mut block = false;
    let mut fence = Fence::default();
    // The indentation and marker of the `///` or `//!` lines being read.
    let mut doc_lines: Option<(usize, &str)> = None;
    for line in text.split_inclusive('\n') {
        if block {
            let (content, rest) = split_block_end(line);
            out.push_str(&fence.line(content));
            out.push_str(rest);
            block = rest.is_empty();
            continue;
        }
        let body = line.trim_start_matches(' ');
        let indent = line.len() - body.len();
        let marker = ["///", "//!", "/**", "/*!"]
            .into_iter()
            .find(|m| body.starts_with(m));
        let marker = match marker {
            Some("///") if body.starts_with("////") => None,
            Some("/**") if body.starts_with("/***") || body.starts_with("/**/") => None,
            other => other,
        };
        let Some(marker) = marker else {
            doc_lines = None;
            out.push_str(line);
            continue;
        };
        let (head, content) = line.split_at(indent + marker.len());
        out.push_str(head);
        if marker.starts_with("/*") {
            fence = Fence::default();
            doc_lines = None;
            let (content, rest) = split_block_end(content);
            out.push_str(&fence.line(content));
            out.push_str(rest);
            block = rest.is_empty();
        } else {
            if doc_lines != Some((indent, marker)) {
                fence = Fence::default();
                doc_lines = Some((indent, marker));
            }
            out.push_str(&fence.line(content));
        }
    }
    out
}

/// A line of a block doc comment split before its closing `*/` (the
/// whole line and "" when it has none).
fn split_block_end(line: &str) -> (&str, &str) {
    match line.find("*/") {
        Some(at) => line.split_at(at),
        None => (line, ""),
    }
}

/// Whether the lines read so far of one doc comment are in a fenced code
/// block, and the fence that closes it.
#[derive(Default)]
struct Fence {
    open: Option<(char, usize)>,
}

impl Fence {
    /// One line of doc text, cleaned unless it is code.
    fn line(&mut self, text: &str) -> String {
        let trimmed = text.trim_start_matches([' ', '\t']);
        let run = |c: char| trimmed.chars().take_while(|&x| x == c).count();
        let fence = ['`', '~']
            .into_iter()
            .map(|c| (c, run(c)))
            .find(|&(_, n)| n >= 3);
        match (self.open, fence) {
            (None, Some(open)) => {
                self.open = Some(open);
                text.to_owned()
            }
            (Some((c, n)), Some((d, m))) if c == d && m >= n => {
                self.open = None;
                text.to_owned()
            }
            (Some(_), _) => text.to_owned(),
            (None, None) => clean_text(text),
        }
    }
}

/// One line of Markdown text with its bare URLs linked and its HTML
/// openers escaped; code spans, escapes, autolinks and links as they are.
fn clean_text(text: &str) -> String {
    if !text.contains('<') && !text.contains("http") && !text.contains('[') {
        return text.to_owned();
    }
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len() + 8);
    // Open `[` of link texts, and whether the last `]` closed one.
    let mut brackets = 0usize;
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        match c {
            '`' => {
                let end = code_span_end(&chars, i);
                out.extend(&chars[i..end]);
                i = end;
                continue;
            }
            '\\' => {
                out.extend(&chars[i..(i + 2).min(chars.len())]);
                i += 2;
                continue;
            }
            '<' => {
                if let Some(end) = autolink_end(&chars, i) {
                    out.extend(&chars[i..end]);
                    i = end;
                    continue;
                }
                if chars
                    .get(i + 1)
                    .is_some_and(|&n| n.is_ascii_alphabetic() || matches!(n, '/' | '!' | '?'))
                {
                    out.push('\\');
                }
            }
            '[' if is_shortcut(&chars, i) => out.push('\\'),
            '[' => brackets += 1,
            ']' => brackets = brackets.saturating_sub(1),
            'h' if brackets == 0 && starts_url(&chars, i) => {
                // `[text](https://…)` and `[label]: https://…`.
                let destination = (i >= 2 && chars[i - 2..i] == [']', '('])
                    || (i >= 3 && chars[i - 3..i] == [']', ':', ' ']);
                let end = url_end(&chars, i);
                if destination {
                    out.extend(&chars[i..end]);
                } else {
                    out.push('<');
                    out.extend(&chars[i..end]);
                    out.push('>');
                }
                i = end;
                continue;
            }
            _ => {}
        }
        out.push(c);
        i += 1;
    }
    out
}

/// Whether the `[` at `start` is to be escaped: rustdoc would take what
/// it opens for a link to an item (`[FILE]`, `[a](ref:block)`,
/// `[,mobile][,touch]`) and warn that none resolves. Kept are the links
/// generated code writes, ``[`Name`]``; links to a URL or a fragment
/// (`[text](https://…)`, `[text](#section)`); and a reference's
/// definition at the start of a line (`[label]: https://…`). Markdown
/// shows what is escaped as written, as it shows a link that goes nowhere.
fn is_shortcut(chars: &[char], start: usize) -> bool {
    let mut depth = 0usize;
    let mut i = start;
    let close = loop {
        match chars.get(i) {
            None => return false,
            Some('`') => {
                i = code_span_end(chars, i);
                continue;
            }
            Some('\\') => i += 1,
            Some('[') => depth += 1,
            Some(']') => {
                depth -= 1;
                if depth == 0 {
                    break i;
                }
            }
            Some(_) => {}
        }
        i += 1;
    };
    match chars.get(close + 1) {
        Some('(') => {
            let destination: String = chars[close + 2..]
                .iter()
                .take_while(|&&c| c != ')' && !c.is_whitespace())
                .collect();
            !(destination.contains("://")
                || destination.starts_with('#')
                || destination.starts_with("mailto:"))
        }
        Some(':') if chars[..start].iter().all(|c| c.is_whitespace()) => false,
        _ => !(chars[start + 1] == '`' && code_span_end(chars, start + 1) == close),
    }
}

/// Where the code span that starts with the backticks at `start` ends:
/// after the next run of as many backticks; after the opening run when
/// there is none (the backticks are then plain text).
fn code_span_end(chars: &[char], start: usize) -> usize {
    let run = |at: usize| chars[at..].iter().take_while(|&&c| c == '`').count();
    let n = run(start);
    let mut i = start + n;
    while i < chars.len() {
        if chars[i] == '`' {
            let m = run(i);
            if m == n {
                return i + m;
            }
            i += m;
        } else {
            i += 1;
        }
    }
    start + n
}

/// Where the autolink `<scheme:…>` starting at `start` ends, if it is one.
fn autolink_end(chars: &[char], start: usize) -> Option<usize> {
    let scheme = chars[start + 1..]
        .iter()
        .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '.' | '-'))
        .count();
    if !(2..=32).contains(&scheme)
        || !chars[start + 1].is_ascii_alphabetic()
        || chars.get(start + 1 + scheme) != Some(&':')
    {
        return None;
    }
    let rest = start + 2 + scheme;
    let close = chars[rest..]
        .iter()
        .position(|&c| c == '>' || c == '<' || c.is_whitespace())?;
    (chars[rest + close] == '>').then_some(rest + close + 1)
}

/// Whether `http://` or `https://` starts at `i`, at the start of a word.
fn starts_url(chars: &[char], i: usize) -> bool {
    let at = |s: &str| {
        s.chars()
            .enumerate()
            .all(|(k, c)| chars.get(i + k) == Some(&c))
    };
    (at("https://") || at("http://")) && (i == 0 || !chars[i - 1].is_alphanumeric())
}

/// Where the URL starting at `start` ends: the characters rustdoc takes
/// as part of one, without the punctuation that ends a sentence.
fn url_end(chars: &[char], start: usize) -> usize {
    let mut end = start
        + chars[start..]
            .iter()
            .take_while(|c| c.is_ascii_alphanumeric() || "-@:%._+~#?&/=".contains(**c))
            .count();
    while end > start && matches!(chars[end - 1], '.' | ',' | ':' | ';' | '?' | '!') {
        end -= 1;
    }
    end
}

#[cfg(test)]
mod tests {
    use super::clean;

    fn cleaned(text: &str) -> String {
        clean(text.to_owned())
    }

    /// Each of `texts` comes through unchanged.
    fn kept(texts: &[&str]) {
        for text in texts {
            assert_eq!(cleaned(text), *text);
        }
    }

    #[test]
    fn bare_urls_become_autolinks_without_the_sentence_end() {
        assert_eq!(
            cleaned("/// As described in https://www.jsonrpc.org/specification#batch.\n"),
            "/// As described in <https://www.jsonrpc.org/specification#batch>.\n"
        );
        assert_eq!(
            cleaned("    //! See (http://example.com/a?b=1&c=2), then\n"),
            "    //! See (<http://example.com/a?b=1&c=2>), then\n"
        );
    }

    #[test]
    fn links_code_and_autolinks_stay() {
        kept(&[
            "/// [the spec](https://example.com/spec) and <https://example.com/x>.\n",
            "/// `https://HOST/PATH` and ``a ` https://b``\n",
            "/// [https://example.com](https://example.com)\n",
            "/// \\<not a tag> and 1 < 2 and a<-b\n",
            "let url = \"https://example.com\"; // https://example.com\n",
        ]);
    }

    #[test]
    fn bracketed_text_that_is_no_link_is_escaped() {
        assert_eq!(
            cleaned("/// Pass [FILE] or [\"#4ECDC4\", \"#A5D8FF\"] [ ] [a [b] c]\n"),
            "/// Pass \\[FILE] or \\[\"#4ECDC4\", \"#A5D8FF\"] \\[ ] \\[a \\[b] c]\n"
        );
        assert_eq!(
            cleaned("/// a [block](ref:block) or [,mobile][,touch] [`x`](path::x)\n"),
            "/// a \\[block](ref:block) or \\[,mobile]\\[,touch] \\[`x`](path::x)\n"
        );
        kept(&[
            "/// See [`GetForecastInput`] and [`Self::new`]: both.\n",
            "/// [text](https://x.io) [more](#section/a) [mail](mailto:a@b.c) [unclosed\n",
            "/// [ref]: https://x.io\n",
            "/// `[FILE]` and \\[done]\n",
        ]);
    }

    #[test]
    fn html_openers_show_as_text() {
        assert_eq!(
            cleaned("/// Use <branch> or <a href=\"https://x.io/p\">here</a> <!-- c -->\n"),
            "/// Use \\<branch> or \\<a href=\"<https://x.io/p>\">here\\</a> \\<!-- c -->\n"
        );
    }

    #[test]
    fn fenced_code_in_line_and_block_comments_stays() {
        let lines = "/// Text <b>\n/// ```html\n/// <b>https://x.io</b>\n/// ```\n/// after <i>\nfn f() {}\n";
        assert_eq!(
            cleaned(lines),
            "/// Text \\<b>\n/// ```html\n/// <b>https://x.io</b>\n/// ```\n/// after \\<i>\nfn f() {}\n"
        );
        let block = "/** Text <b>\n```\n<b>\n```\nhttps://x.io/a.*/\npub struct A;\n";
        assert_eq!(
            cleaned(block),
            "/** Text \\<b>\n```\n<b>\n```\n<https://x.io/a>.*/\npub struct A;\n"
        );
        // A fence left open ends with its comment.
        let open = "/// ```\n/// <b>\nfn f() {}\n/// <b>\n";
        assert_eq!(cleaned(open), "/// ```\n/// <b>\nfn f() {}\n/// \\<b>\n");
    }

    #[test]
    fn one_line_block_comments_and_other_comments() {
        assert_eq!(
            cleaned("/** See https://x.io */\n//// https://x.io\n/*** <b> */\n"),
            "/** See <https://x.io> */\n//// https://x.io\n/*** <b> */\n"
        );
    }
}
