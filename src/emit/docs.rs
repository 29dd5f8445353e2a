//! Doc text on its way into generated files: one cleaning for every
//! comment ([`doc_text`]), and the pass over a token stream that applies
//! it to every doc attribute and sets long runs of doc lines aside while
//! the code is parsed and formatted ([`DocPass`]).

use proc_macro2::{Delimiter, Group, Literal, TokenStream, TokenTree};

/// Text as rustc accepts it in a comment and as a reader sees it: line
/// breaks become `\n` (a lone carriage return too), and characters that
/// are invisible or change how text is displayed (other control
/// characters, bidirectional embeddings, overrides and isolates, line and
/// paragraph separators) are written as the visible text `\u{…}`. Tabs
/// stay. Text without such characters is returned as it is.
pub fn doc_text(text: &str) -> String {
    if !text.chars().any(|c| c == '\r' || is_hidden(c)) {
        return text.to_owned();
    }
    let mut out = String::with_capacity(text.len() + 16);
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\r' => {
                if chars.peek() != Some(&'\n') {
                    out.push('\n');
                }
            }
            c if is_hidden(c) => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
            c => out.push(c),
        }
    }
    out
}

/// Characters [`doc_text`] writes as escapes: control characters other
/// than line feed and tab, bidirectional controls, line and paragraph
/// separators.
fn is_hidden(c: char) -> bool {
    (c.is_control() && c != '\n' && c != '\t' && c != '\r')
        || matches!(c, '\u{061C}' | '\u{200E}' | '\u{200F}' | '\u{2028}' | '\u{2029}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
}

/// Runs of at least this many doc lines are set aside while the code is
/// parsed and formatted (see [`DocPass`]).
const LONG_RUN: usize = 64;

/// The text of the placeholder doc line that stands for run `N`.
const RUN_MARK: &str = "\u{1}mcpgen-doc-run-";

/// What happens to doc attributes on the way to prettyplease.
///
/// Every doc text is passed through [`doc_text`]. A long run of one-line
/// doc attributes (one per line of a description, as generators write
/// them) is replaced by one placeholder attribute and its lines are kept
/// here as plain strings, then put back into the formatted text as the
/// `///` lines prettyplease would have printed: a 10 MB description costs
/// its size, not a syntax tree node per line.
#[derive(Default)]
pub(super) struct DocPass {
    runs: Vec<Vec<String>>,
}

impl DocPass {
    /// `tokens` with doc attributes cleaned and long runs set aside;
    /// `None` when nothing changes, so that clean output is not copied.
    pub(super) fn stream(&mut self, tokens: &TokenStream) -> Option<TokenStream> {
        let tts: Vec<TokenTree> = tokens.clone().into_iter().collect();
        let mut out: Vec<TokenTree> = Vec::with_capacity(tts.len());
        let mut changed = false;
        let mut i = 0;
        while i < tts.len() {
            // A run of outer doc attributes with one-line text.
            let mut run: Vec<String> = Vec::new();
            let mut j = i;
            while let Some(text) = outer_doc_at(&tts, j) {
                let clean = doc_text(&text);
                if clean.contains('\n') || clean.starts_with('/') {
                    break;
                }
                run.push(clean);
                j += 2;
            }
            if run.len() >= LONG_RUN {
                let mark = format!("{RUN_MARK}{}", self.runs.len());
                out.extend(quote::quote!(#[doc = #mark]));
                self.runs.push(run);
                changed = true;
                i = j;
                continue;
            }
            let tt = &tts[i];
            let replacement = match tt {
                TokenTree::Group(g) => {
                    let is_attr = i > 0
                        && g.delimiter() == Delimiter::Bracket
                        && match &tts[i - 1] {
                            TokenTree::Punct(p) if p.as_char() == '#' => true,
                            TokenTree::Punct(p) if p.as_char() == '!' => {
                                i > 1
                                    && matches!(&tts[i - 2], TokenTree::Punct(q) if q.as_char() == '#')
                            }
                            _ => false,
                        };
                    if is_attr {
                        clean_doc_attribute(g)
                    } else {
                        self.stream(&g.stream()).map(|inner| {
                            let mut ng = Group::new(g.delimiter(), inner);
                            ng.set_span(g.span());
                            ng
                        })
                    }
                }
                _ => None,
            };
            match replacement {
                Some(ng) => {
                    out.push(TokenTree::Group(ng));
                    changed = true;
                }
                None => out.push(tt.clone()),
            }
            i += 1;
        }
        changed.then(|| out.into_iter().collect())
    }

    /// Formatted text with each placeholder line replaced by its run, as
    /// prettyplease prints a one-line doc attribute: `///` and the text
    /// without trailing spaces, at the placeholder's indentation.
    pub(super) fn expand(&self, body: String) -> String {
        if self.runs.is_empty() {
            return body;
        }
        let extra: usize = self.runs.iter().flatten().map(|l| l.len() + 8).sum();
        let mut out = String::with_capacity(body.len() + extra);
        for line in body.split_inclusive('\n') {
            let trimmed = line.trim_start_matches(' ');
            let run = trimmed
                .strip_prefix("///")
                .and_then(|t| t.trim_end_matches('\n').strip_prefix(RUN_MARK))
                .and_then(|n| n.parse::<usize>().ok())
                .and_then(|n| self.runs.get(n));
            match run {
                Some(lines) => {
                    let indent = &line[..line.len() - trimmed.len()];
                    for text in lines {
                        out.push_str(indent);
                        out.push_str("///");
                        out.push_str(text.trim_end_matches(' '));
                        out.push('\n');
                    }
                }
                None => out.push_str(line),
            }
        }
        out
    }
}

/// Whether a doc attribute of `file` has text that [`doc_text`] changes.
pub(super) fn needs_cleaning(file: &syn::File) -> bool {
    struct Find(bool);
    impl syn::visit::Visit<'_> for Find {
        fn visit_attribute(&mut self, attr: &syn::Attribute) {
            self.0 = self.0 || doc_value(attr).is_some_and(|text| doc_text(&text) != text);
        }
    }
    let mut find = Find(false);
    syn::visit::Visit::visit_file(&mut find, file);
    find.0
}

/// `file` with the text of every doc attribute passed through
/// [`doc_text`].
pub(super) fn cleaned(file: &syn::File) -> syn::File {
    struct Clean;
    impl syn::visit_mut::VisitMut for Clean {
        fn visit_attribute_mut(&mut self, attr: &mut syn::Attribute) {
            let Some(text) = doc_value(attr) else { return };
            let clean = doc_text(&text);
            if let syn::Meta::NameValue(nv) = &mut attr.meta {
                if clean != text {
                    let span = proc_macro2::Span::call_site();
                    nv.value = syn::Expr::Lit(syn::ExprLit {
                        attrs: Vec::new(),
                        lit: syn::Lit::Str(syn::LitStr::new(&clean, span)),
                    });
                }
            }
        }
    }
    let mut file = file.clone();
    syn::visit_mut::VisitMut::visit_file_mut(&mut Clean, &mut file);
    file
}

/// The text of a doc attribute `#[doc = "…"]`.
fn doc_value(attr: &syn::Attribute) -> Option<String> {
    let syn::Meta::NameValue(nv) = &attr.meta else {
        return None;
    };
    if !nv.path.is_ident("doc") {
        return None;
    }
    match &nv.value {
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Str(s),
            ..
        }) => literal_text(&s.token()),
        _ => None,
    }
}

/// The text of the outer doc attribute `#[doc = "…"]` starting at `i`.
fn outer_doc_at(tts: &[TokenTree], i: usize) -> Option<String> {
    let (TokenTree::Punct(pound), TokenTree::Group(g)) = (tts.get(i)?, tts.get(i + 1)?) else {
        return None;
    };
    if pound.as_char() != '#' || g.delimiter() != Delimiter::Bracket {
        return None;
    }
    let inner: Vec<TokenTree> = g.stream().into_iter().collect();
    let [TokenTree::Ident(name), TokenTree::Punct(eq), TokenTree::Literal(lit)] = inner.as_slice()
    else {
        return None;
    };
    if name != "doc" || eq.as_char() != '=' {
        return None;
    }
    literal_text(lit)
}

/// The value of a string literal.
fn literal_text(lit: &Literal) -> Option<String> {
    let repr = lit.to_string();
    // Plain ASCII without escapes is its own value.
    if repr.is_ascii()
        && !repr.contains('\\')
        && repr.len() >= 2
        && repr.starts_with('"')
        && repr.ends_with('"')
    {
        return Some(repr[1..repr.len() - 1].to_owned());
    }
    match syn::Lit::new(lit.clone()) {
        syn::Lit::Str(text) => Some(text.value()),
        _ => None,
    }
}

/// The bracket group of an attribute, `doc = "…"` with clean text, when
/// it is a doc attribute whose text needs cleaning.
pub(super) fn clean_doc_attribute(g: &Group) -> Option<Group> {
    let inner: Vec<TokenTree> = g.stream().into_iter().collect();
    let [TokenTree::Ident(name), TokenTree::Punct(eq), TokenTree::Literal(lit)] = inner.as_slice()
    else {
        return None;
    };
    if name != "doc" || eq.as_char() != '=' {
        return None;
    }
    let value = literal_text(lit)?;
    let clean = doc_text(&value);
    if clean == value {
        return None;
    }
    let mut new_lit = Literal::string(&clean);
    new_lit.set_span(lit.span());
    let stream: TokenStream = [
        TokenTree::Ident(name.clone()),
        TokenTree::Punct(eq.clone()),
        TokenTree::Literal(new_lit),
    ]
    .into_iter()
    .collect();
    let mut ng = Group::new(Delimiter::Bracket, stream);
    ng.set_span(g.span());
    Some(ng)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::emit::{format, Header};
    use quote::quote;

    #[test]
    fn doc_text_removes_what_rustc_refuses_in_comments() {
        assert_eq!(
            doc_text("plain `code`\n\tindented"),
            "plain `code`\n\tindented"
        );
        assert_eq!(doc_text("a\r\nb\rc"), "a\nb\nc");
        assert_eq!(
            doc_text("x\u{202e}y\u{2066}z\u{0}"),
            "x\\u{202e}y\\u{2066}z\\u{0}"
        );
        let header = Header::new().input("manifest \u{202e}evil.json").render();
        assert!(header.contains("manifest \\u{202e}evil.json"), "{header}");
    }

    #[test]
    fn format_cleans_every_doc_attribute() {
        let text = "first\rsecond \u{202e}txt";
        let tokens = quote! {
            #[doc = #text]
            pub struct A { #[doc = #text] pub x: u32 }
            pub mod m { #![doc = #text] }
        };
        let out = format(tokens, &Header::new()).unwrap();
        assert!(!out.contains('\r') && !out.contains('\u{202e}'), "{out:?}");
        assert_eq!(out.matches("second \\u{202e}txt").count(), 3, "{out}");
        // Clean docs are left as they are.
        let same = quote! { #[doc = " Docs."] pub struct B; };
        assert!(format(same, &Header::new()).unwrap().contains("/// Docs."));
    }

    #[test]
    fn long_doc_runs_print_as_prettyplease_prints_them() {
        let lines: Vec<String> = (0..200)
            .map(|i| match i % 5 {
                0 => format!(" line {i}   "),
                1 => String::new(),
                2 => format!("\tTabbed {i}"),
                3 => "/ starts with a slash".to_owned(),
                _ => format!(" `code` {i} \u{202e}"),
            })
            .collect();
        let tokens = quote! {
            #(#[doc = #lines])*
            pub struct A {
                #(#[doc = #lines])*
                pub x: u32,
            }
            pub trait T {
                #(#[doc = #lines])*
                fn f(&self);
            }
        };
        let out = format(tokens.clone(), &Header::new()).unwrap();
        // What prettyplease prints without the runs set aside (items
        // spaced, as every generated file is).
        let file: syn::File = syn::parse2(clean(tokens)).unwrap();
        let expected = crate::emit::space_items(&format!(
            "{}\n{}",
            Header::new().render(),
            prettyplease::unparse(&file)
        ));
        assert_eq!(out, expected);
        assert!(!out.contains(RUN_MARK));
    }

    /// `tokens` with every doc text cleaned, no run set aside.
    fn clean(tokens: TokenStream) -> TokenStream {
        tokens
            .into_iter()
            .map(|tt| match tt {
                TokenTree::Group(g) => {
                    let inner = clean_doc_attribute(&g)
                        .map(|n| n.stream())
                        .unwrap_or_else(|| clean(g.stream()));
                    TokenTree::Group(Group::new(g.delimiter(), inner))
                }
                other => other,
            })
            .collect()
    }
}
