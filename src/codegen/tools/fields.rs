//! Struct field names of tool types, decided by [`crate::naming`] rather
//! than by typify.
//!
//! typify names a field after its property with its own case conversion,
//! so `fooBar` and `foo_bar` (or `self` and `Self`, or `!` and `@`) become
//! the same field, and a 100,000-character property a 100,000-character
//! field. So before typify sees a schema, every property whose wire name is
//! not already its field name ([`naming::field_names`]) is renamed to a
//! *marker*: `<field>_zmcpgen<hash>`, a name typify keeps as it is and
//! that appears nowhere else. After typify, [`Renames::restore`] turns
//! each marker back into the field name (in identifiers typify composed
//! from it too: `ParentFooBarZmcpgen…` types, `parent_foo_bar_zmcpgen…`
//! default functions), gives the field `#[serde(rename = "<wire>")]`, and
//! turns marker strings (serde tags and renames typify wrote from the
//! property) back into the wire name.

use std::collections::BTreeMap;

use proc_macro2::{Delimiter, Group, Ident, Literal, TokenStream, TokenTree};
use quote::quote;

use super::levels::{Body, Level};
use crate::naming;

/// What marks a renamed property; never part of a field name mcpgen makes.
const MARK: &str = "zmcpgen";

/// Every property renamed for typify in one generation run.
#[derive(Debug, Clone, Default)]
pub struct Renames {
    /// By the hash in the marker.
    by_hash: BTreeMap<String, Rename>,
}

#[derive(Debug, Clone, PartialEq)]
struct Rename {
    wire: String,
    field: String,
    snake: String,
    pascal: String,
}

impl Renames {
    /// The marker of property `wire` whose field is `field` (the same
    /// marker for the same pair).
    pub fn marker(&mut self, wire: &str, field: &str) -> String {
        let stem = naming::words(field).join("_");
        for salt in 0u32.. {
            let hash = naming::short_hash(&format!("{wire}\u{0}{field}\u{0}{salt}"));
            let snake = format!("{stem}_{MARK}{hash}");
            let entry = Rename {
                wire: wire.to_owned(),
                field: field.to_owned(),
                pascal: naming::pascal(&snake),
                snake,
            };
            match self.by_hash.get(&hash) {
                Some(e) if *e == entry => return e.snake.clone(),
                Some(_) => continue,
                None => {
                    let snake = entry.snake.clone();
                    self.by_hash.insert(hash, entry);
                    return snake;
                }
            }
        }
        unreachable!("an unbounded range always yields a free hash")
    }

    /// The wire name of the property whose key is the marker `key`.
    pub fn wire_of(&self, key: &str) -> Option<&str> {
        self.by_hash
            .values()
            .find(|r| r.snake == key)
            .map(|r| r.wire.as_str())
    }

    /// Whether no property was renamed.
    pub fn is_empty(&self) -> bool {
        self.by_hash.is_empty()
    }

    /// typify's output with every marker replaced (see the module docs).
    pub fn restore(&self, tokens: TokenStream) -> TokenStream {
        if self.is_empty() {
            return tokens;
        }
        let mut text = String::new();
        let restore = &mut |tts, level: Level| self.restore_level(tts, level.body, &mut text);
        super::levels::each(tokens.into_iter().collect(), Level::TOP, restore)
            .into_iter()
            .collect()
    }

    /// [`Renames::restore`] of the trees of one group, the body `body`
    /// (its own groups restored already). Each identifier and literal is
    /// written into `text` to be searched for markers (most have none).
    pub(super) fn restore_level(
        &self,
        mut tts: Vec<TokenTree>,
        body: Body,
        text: &mut String,
    ) -> Vec<TokenTree> {
        use std::fmt::Write;
        let mut out: Vec<TokenTree> = Vec::with_capacity(tts.len());
        for i in 0..tts.len() {
            let tt = &tts[i];
            match tt {
                // Looked back at: a copy (of a reference) goes out.
                TokenTree::Group(_) => out.push(tt.clone()),
                TokenTree::Ident(id) => {
                    text.clear();
                    let _ = write!(text, "{id}");
                    if !text.contains(MARK) && !text.contains("Zmcpgen") {
                        out.push(tt.clone());
                        continue;
                    }
                    // A field definition: `pub <marker> :` in a struct,
                    // `<marker> :` first, after a `,` or after an
                    // attribute in a struct variant.
                    let before = i.checked_sub(1).map(|j| &tts[j]);
                    let starts_field = match before {
                        Some(TokenTree::Ident(p)) => p == "pub",
                        _ if body != Body::Fields => false,
                        None => true,
                        Some(TokenTree::Punct(p)) => p.as_char() == ',',
                        Some(TokenTree::Group(g)) => g.delimiter() == Delimiter::Bracket,
                        Some(TokenTree::Literal(_)) => false,
                    };
                    let field_def = starts_field
                        && matches!(tts.get(i + 1), Some(TokenTree::Punct(p)) if p.as_char() == ':' && p.spacing() == proc_macro2::Spacing::Alone);
                    if field_def {
                        if let Some(r) = self.found_in(text).into_iter().find(|r| r.snake == *text)
                        {
                            add_rename(&mut out, &r.wire);
                        }
                    }
                    out.push(TokenTree::Ident(Ident::new(
                        &self.replace_in_ident(text),
                        id.span(),
                    )));
                }
                TokenTree::Literal(lit) => {
                    // Markers in strings: serde tags and renames, paths of
                    // default functions, type names in doc text.
                    text.clear();
                    let _ = write!(text, "{lit}");
                    if !text.contains("mcpgen") {
                        // A literal is looked at again only as no field
                        // name or `pub`: moved, not copied.
                        out.push(std::mem::replace(&mut tts[i], super::taken()));
                        continue;
                    }
                    match syn::Lit::new(lit.clone()) {
                        syn::Lit::Str(s) if !self.found_in(&s.value()).is_empty() => {
                            let value = s.value();
                            // A marker alone is a wire name (a serde tag or
                            // rename); inside a path it is part of a name.
                            let value = match self
                                .found_in(&value)
                                .into_iter()
                                .find(|r| r.snake == value)
                            {
                                Some(r) => r.wire.clone(),
                                None => self.replace_in_text(&value),
                            };
                            let mut new = Literal::string(&value);
                            new.set_span(lit.span());
                            out.push(TokenTree::Literal(new));
                        }
                        _ => out.push(tt.clone()),
                    }
                }
                TokenTree::Punct(_) => out.push(tt.clone()),
            }
        }
        out
    }

    /// The renames whose markers occur in `text` (by the hash after each
    /// `zmcpgen`/`Zmcpgen`).
    fn found_in(&self, text: &str) -> Vec<&Rename> {
        let mut found = Vec::new();
        for (i, _) in text.match_indices("mcpgen") {
            let hash = text.get(i + 6..i + 14).unwrap_or_default();
            if i > 0 && matches!(&text[i - 1..i], "z" | "Z") {
                if let Some(r) = self.by_hash.get(hash) {
                    found.push(r);
                }
            }
        }
        found
    }

    /// Text with each marker in a name in it replaced as in identifiers
    /// (words of letters, digits and `_` are treated one by one).
    fn replace_in_text(&self, text: &str) -> String {
        let mut out = String::with_capacity(text.len());
        let mut word = String::new();
        for c in text.chars() {
            if c.is_ascii_alphanumeric() || c == '_' {
                word.push(c);
                continue;
            }
            if !word.is_empty() {
                out.push_str(&self.replace_in_ident(&std::mem::take(&mut word)));
            }
            out.push(c);
        }
        if !word.is_empty() {
            out.push_str(&self.replace_in_ident(&word));
        }
        out
    }

    /// An identifier with each marker in it replaced by its field name
    /// (snake case) or the field's PascalCase.
    fn replace_in_ident(&self, text: &str) -> String {
        let mut s = text.to_owned();
        for r in self.found_in(text) {
            if s == r.snake {
                return r.field.clone();
            }
            // Inside a longer name the field needs no keyword escape.
            let stem = naming::words(&r.field).join("_");
            s = s
                .replace(&r.snake, &stem)
                .replace(&r.pascal, &naming::pascal(&r.field));
        }
        s
    }
}

/// Adds `rename = "<wire>"` to the field about to be pushed to `out`
/// (after its `pub`, if any): into the `#[serde(...)]` right before it,
/// or as a new attribute.
fn add_rename(out: &mut Vec<TokenTree>, wire: &str) {
    let pub_kw = match out.last() {
        Some(TokenTree::Ident(p)) if p == "pub" => out.pop(),
        _ => None,
    };
    let n = out.len();
    let serde_attr = n >= 2
        && matches!(&out[n - 2], TokenTree::Punct(p) if p.as_char() == '#')
        && matches!(&out[n - 1], TokenTree::Group(g) if g.delimiter() == Delimiter::Bracket
            && g.stream().into_iter().next().is_some_and(|t| matches!(t, TokenTree::Ident(i) if i == "serde")));
    if serde_attr {
        if let TokenTree::Group(attr) = &out[n - 1] {
            let inner: Vec<TokenTree> = attr.stream().into_iter().collect();
            if let [TokenTree::Ident(serde), TokenTree::Group(args)] = inner.as_slice() {
                let rest = args.stream();
                let args = quote!(rename = #wire, #rest);
                let new_attr = quote!(#serde(#args));
                out[n - 1] = TokenTree::Group(Group::new(Delimiter::Bracket, new_attr));
                out.extend(pub_kw);
                return;
            }
        }
    }
    out.extend(quote!(#[serde(rename = #wire)]));
    out.extend(pub_kw);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markers_become_fields_with_renames_and_types_with_field_names() {
        let mut renames = Renames::default();
        let m = renames.marker("fooBar", "foo_bar_2");
        assert!(m.starts_with("foo_bar_2_zmcpgen"), "{m}");
        assert_eq!(
            renames.marker("fooBar", "foo_bar_2"),
            m,
            "the same pair, the same marker"
        );
        let kw = renames.marker("type", "type_");
        let ident = |s: &str| Ident::new(s, proc_macro2::Span::call_site());
        let (field, kw_field) = (ident(&m), ident(&kw));
        let ty = ident(&format!("ParentFooBar2Zmcpgen{}", &m[m.len() - 8..]));
        let default_fn = ident(&format!("parent_{kw}"));
        let path = format!("defaults::parent_{kw}");
        let doc = format!("`{ty}`, see `defaults::parent_{kw}`.");
        let tokens = quote! {
            pub struct Parent {
                #[serde(default = #path)]
                pub #field: #ty,
                pub #kw_field: u8,
            }
            fn #default_fn() {}
            #[serde(tag = #m)] enum E {}
            #[doc = #doc] struct D;
        };
        let out = renames.restore(tokens).to_string();
        assert!(
            out.contains("# [serde (rename = \"fooBar\" , default = \"defaults::parent_type\")] pub foo_bar_2 : ParentFooBar2 ,"),
            "{out}"
        );
        assert!(
            out.contains("# [serde (rename = \"type\")] pub type_ : u8"),
            "{out}"
        );
        assert!(out.contains("fn parent_type ()"), "{out}");
        assert!(out.contains("tag = \"fooBar\""), "{out}");
        assert!(
            out.contains("doc = \"`ParentFooBar2`, see `defaults::parent_type`.\""),
            "{out}"
        );
        assert!(!out.contains(MARK), "{out}");
    }
}
