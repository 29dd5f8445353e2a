//! Token-level repairs of typify's output so that it compiles without
//! warnings in a `#![deny(warnings)]` crate.
//!
//! - typify names the enum values `"+1"` and `"-1"` `plus1`/`minus1`,
//!   which `non_camel_case_types` rejects as variants: they become `Plus1`
//!   and `Minus1` where they are variants (definitions and `X::plus1`
//!   paths), and stay as they are where they are fields.
//! - typify writes every default helper of `mod defaults` as
//!   `pub(super) fn`, so helpers that no field uses are dead code: they
//!   become `pub fn`.
//! - typify implements `Default` for an enum with a default value by hand
//!   (`impl Default for E { fn default() -> Self { E::V } }`), which
//!   clippy's `derivable_impls` rejects: the impl is replaced by
//!   `#[derive(Default)]` on the enum and `#[default]` on the variant.
//! - typify writes an object schema without required properties or
//!   additional-property rules (the input of a tool without arguments) as
//!   a newtype of `serde_json::Map` without `Default`: it gets
//!   `#[derive(Default)]`, so `PingInput::default()` is the empty call.
//! - typify gives a newtype of a string newtype `TryFrom<&str>` and
//!   `TryFrom<String>` impls whose error is the inner type's `FromStr`
//!   error; when that is `Infallible` (all the way down a chain of
//!   aliases), clippy's `infallible_try_from` rejects them: they become
//!   `From` impls (and `TryFrom` still works, through the standard
//!   blanket impl).
//! - typify writes nested arrays and maps as nested generic types
//!   (`Vec<Vec<Vec<…>>>`), which past six levels clippy's
//!   `type_complexity` rejects: the struct or enum holding such a field
//!   gets `#[allow(clippy::type_complexity)]` (naming each level would
//!   change the types of ordinary schemas).
//! - typify composes names (`<Parent><Property>Item`, `<type>_<field>`
//!   default functions) that nested schemas can make as long as they
//!   like: every identifier longer than [`naming::MAX_IDENT`] is shortened
//!   the same way wherever it occurs ([`naming::bounded`]). Fields and enum
//!   variants, whose names serde reads, are bounded before typify runs.

use proc_macro2::{Delimiter, Group, Ident, TokenStream, TokenTree};

#[cfg(test)]
use super::levels::Level;
use crate::naming;

/// Applies every repair: [`level`] to every group, then [`top`].
#[cfg(test)]
pub(crate) fn fixup(tokens: TokenStream) -> TokenStream {
    let mut text = String::new();
    let step = &mut |tts, at: Level| level(tts, at, &mut text);
    top(super::levels::each(
        tokens.into_iter().collect(),
        Level::TOP,
        step,
    ))
    .into_iter()
    .collect()
}

/// The repairs made in the trees of every group (its own groups repaired
/// already): `plus1`/`minus1` variants renamed, `pub(super)` of the
/// default helpers made `pub`, [`boxed_options`], long identifiers
/// bounded. `text` is a buffer. (`levels::repair` makes the same steps
/// with the markers restored in between.)
#[cfg(test)]
fn level(tts: Vec<TokenTree>, at: Level, text: &mut String) -> Vec<TokenTree> {
    bound_idents(walk_level(tts, at.in_defaults), text)
}

/// The repairs of the top-level items, once every group is repaired. They
/// hand one another the trees, not a token stream (a collect per pass
/// cost more than some passes).
pub(super) fn top(tts: Vec<TokenTree>) -> Vec<TokenTree> {
    allow_complex_types(infallible_conversions(default_open_maps(derive_defaults(
        tts,
    ))))
}

/// The score above which clippy's `type_complexity` fires.
const CLIPPY_TYPE_COMPLEXITY: u64 = 250;

/// Adds `#[allow(clippy::type_complexity)]` before each top-level
/// `pub struct`/`pub enum` with a field type clippy finds too complex.
fn allow_complex_types(mut tts: Vec<TokenTree>) -> Vec<TokenTree> {
    let mut out: Vec<TokenTree> = Vec::with_capacity(tts.len());
    for i in 0..tts.len() {
        let tt = &tts[i];
        let item = matches!(tt, TokenTree::Ident(p) if p == "pub")
            && matches!(tts.get(i + 1), Some(TokenTree::Ident(k)) if k == "struct" || k == "enum");
        if item {
            let body = tts[i + 2..].iter().find_map(|t| match t {
                TokenTree::Group(g) if g.delimiter() != Delimiter::Bracket => Some(g.stream()),
                _ => None,
            });
            if body.is_some_and(|b| type_complexity(&b) > CLIPPY_TYPE_COMPLEXITY) {
                out.extend(quote::quote!(#[allow(clippy::type_complexity)]));
            }
        }
        // Only the trees after this one are looked at again: moved, not
        // copied (as in the passes below).
        out.push(std::mem::replace(&mut tts[i], super::taken()));
    }
    out
}

/// The highest clippy `type_complexity` score of the field types in a
/// struct or enum body: each path scores 10 times its generic nesting
/// level, summed per field (fields end at a `,` outside `<…>`).
fn type_complexity(body: &TokenStream) -> u64 {
    let tts: Vec<TokenTree> = body.clone().into_iter().collect();
    let (mut best, mut field, mut depth) = (0u64, 0u64, 0u64);
    for (i, tt) in tts.iter().enumerate() {
        match tt {
            TokenTree::Punct(p) if p.as_char() == '<' => depth += 1,
            TokenTree::Punct(p) if p.as_char() == '>' => depth = depth.saturating_sub(1),
            TokenTree::Punct(p) if p.as_char() == ',' && depth == 0 => {
                best = best.max(field);
                field = 0;
            }
            // The last segment of a path: not followed by `::` (nor, as a
            // field name is, by `:`).
            TokenTree::Ident(id) if id != "pub" && !is_punct(tts.get(i + 1), ':') => {
                field += 10 * (depth + 1)
            }
            TokenTree::Group(g) if g.delimiter() != Delimiter::Bracket => {
                best = best.max(type_complexity(&g.stream()))
            }
            _ => {}
        }
    }
    best.max(field)
}

/// `impl ::std::convert::TryFrom<&str | String> for X { … }` of types
/// whose `FromStr` cannot fail → `impl From<…> for X` (top-level items).
fn infallible_conversions(mut tts: Vec<TokenTree>) -> Vec<TokenTree> {
    let text = |t: &TokenTree| match t {
        TokenTree::Group(_) => "{}".to_owned(),
        other => other.to_string(),
    };
    // X → the type whose `FromStr` error X's is (`None`: `Infallible`).
    let mut errors: std::collections::BTreeMap<String, Option<String>> =
        std::collections::BTreeMap::new();
    let from_str = [
        "impl", ":", ":", "std", ":", ":", "str", ":", ":", "FromStr", "for",
    ];
    for i in 0..tts.len() {
        if i + 13 > tts.len() || !words_at(&tts, i, &from_str) {
            continue;
        }
        let (TokenTree::Ident(ty), TokenTree::Group(body)) = (&tts[i + 11], &tts[i + 12]) else {
            continue;
        };
        let body: Vec<String> = body.stream().into_iter().map(|t| text(&t)).collect();
        let err: Vec<&str> = body
            .iter()
            .skip(3)
            .take_while(|t| *t != ";")
            .map(String::as_str)
            .collect();
        if body.len() > 3 && body[..3] == ["type", "Err", "="] {
            let infallible = [":", ":", "std", ":", ":", "convert", ":", ":", "Infallible"];
            if err == infallible {
                errors.insert(ty.to_string(), None);
            } else if err.len() == 16
                && err[0] == "<"
                && err[2] == "as"
                && err[3..]
                    == [
                        ":", ":", "std", ":", ":", "str", ":", ":", "FromStr", ">", ":", ":", "Err",
                    ]
            {
                errors.insert(ty.to_string(), Some(err[1].to_owned()));
            }
        }
    }
    let infallible = |ty: &str| {
        let mut cur = ty.to_owned();
        for _ in 0..=errors.len() {
            match errors.get(&cur) {
                Some(None) => return true,
                Some(Some(next)) => cur = next.clone(),
                None => return false,
            }
        }
        false
    };
    let try_from = [
        "impl", ":", ":", "std", ":", ":", "convert", ":", ":", "TryFrom", "<",
    ];
    let mut out: Vec<TokenTree> = Vec::with_capacity(tts.len());
    let mut i = 0;
    while i < tts.len() {
        let head = words_at(&tts, i, &try_from);
        if head {
            // `& str > for X {…}` or `String > for X {…}`.
            let (source, rest) = match tts.get(i + 11).map(text).as_deref() {
                Some("&") if tts.get(i + 12).map(text).as_deref() == Some("str") => {
                    (quote::quote!(&str), i + 13)
                }
                Some("String") => (quote::quote!(String), i + 12),
                _ => (TokenStream::new(), 0),
            };
            let shape = rest > 0
                && tts.get(rest).map(text).as_deref() == Some(">")
                && tts.get(rest + 1).map(text).as_deref() == Some("for")
                && matches!(tts.get(rest + 3), Some(TokenTree::Group(g)) if g.delimiter() == Delimiter::Brace);
            if let (true, Some(TokenTree::Ident(ty))) = (shape, tts.get(rest + 2)) {
                if infallible(&ty.to_string()) {
                    out.extend(quote::quote! {
                        impl ::std::convert::From<#source> for #ty {
                            fn from(value: #source) -> Self {
                                match value.parse() {
                                    ::std::result::Result::Ok(v) => v,
                                    ::std::result::Result::Err(never) => match never {},
                                }
                            }
                        }
                    });
                    i = rest + 4;
                    continue;
                }
            }
        }
        out.push(std::mem::replace(&mut tts[i], super::taken()));
        i += 1;
    }
    out
}

/// Every identifier longer than [`naming::MAX_IDENT`] among the trees of
/// one group replaced by its bounded form, each written into `text` to be
/// measured.
pub(super) fn bound_idents(tts: Vec<TokenTree>, text: &mut String) -> Vec<TokenTree> {
    tts.into_iter().map(|tt| bound_ident(tt, text)).collect()
}

/// [`bound_idents`] of one tree.
fn bound_ident(tt: TokenTree, text: &mut String) -> TokenTree {
    use std::fmt::Write;
    match tt {
        TokenTree::Ident(id) => {
            text.clear();
            let _ = write!(text, "{id}");
            if text.len() > naming::MAX_IDENT {
                TokenTree::Ident(Ident::new(
                    &naming::bounded(text, naming::MAX_IDENT, text),
                    id.span(),
                ))
            } else {
                TokenTree::Ident(id)
            }
        }
        other => other,
    }
}

/// `#[serde(default)] pub f: ::std::boxed::Box<::std::option::Option<T>>`
/// → `#[serde(default, skip_serializing_if = …)] pub f:
/// ::std::option::Option<::std::boxed::Box<T>>`, in the trees of one
/// group whose own groups [`walk`] has repaired already.
fn boxed_options(mut tts: Vec<TokenTree>) -> Vec<TokenTree> {
    let head = [
        ":", ":", "std", ":", ":", "boxed", ":", ":", "Box", "<", ":", ":", "std", ":", ":",
        "option", ":", ":", "Option", "<",
    ];
    let mut out: Vec<TokenTree> = Vec::with_capacity(tts.len());
    let mut i = 0;
    while i < tts.len() {
        let matches_head = words_at(&tts, i, &head);
        // The field's `#[serde(default)]`: `# [..] pub name :` before the type.
        let attr_at = out.len().checked_sub(5);
        let attr_ok = matches_head && attr_at.is_some_and(|a| {
            is_punct(out.get(a), '#')
                && matches!(out.get(a + 1), Some(TokenTree::Group(g)) if g.stream().to_string() == "serde (default)")
                && is_punct(out.get(a + 4), ':')
        });
        if matches_head && attr_ok {
            // Find the end of T: the `>` that closes `Option<`.
            let start = i + head.len();
            let mut depth = 1usize;
            let mut end = start;
            while end < tts.len() {
                if is_punct(tts.get(end), '<') {
                    depth += 1;
                } else if is_punct(tts.get(end), '>') {
                    depth -= 1;
                    if depth == 0 {
                        break;
                    }
                }
                end += 1;
            }
            if end + 1 < tts.len() && is_punct(tts.get(end + 1), '>') {
                let inner: TokenStream = tts[start..end].iter().cloned().collect();
                let a = attr_at.unwrap_or_default() + 1;
                out[a] = TokenTree::Group(Group::new(
                    Delimiter::Bracket,
                    quote::quote!(serde(
                        default,
                        skip_serializing_if = "::std::option::Option::is_none"
                    )),
                ));
                out.extend(quote::quote!(::std::option::Option<::std::boxed::Box<#inner>>));
                i = end + 2;
                continue;
            }
        }
        // Only the trees from `i` on are looked at again: this one is
        // moved, not copied.
        out.push(std::mem::replace(&mut tts[i], super::taken()));
        i += 1;
    }
    out
}

/// Replaces hand-written `Default` impls of enums that return a unit
/// variant by `#[derive(Default)]` + `#[default]` (top-level items only,
/// which is where typify puts types).
fn derive_defaults(mut tts: Vec<TokenTree>) -> Vec<TokenTree> {
    // Pass 1: find and drop the impls, remembering enum → variant.
    let mut defaults: Vec<(String, String)> = Vec::new();
    let mut kept: Vec<TokenTree> = Vec::with_capacity(tts.len());
    let mut i = 0;
    while i < tts.len() {
        if let Some((ty, variant, len)) = default_impl_at(&tts[i..]) {
            defaults.push((ty, variant));
            i += len;
            continue;
        }
        kept.push(std::mem::replace(&mut tts[i], super::taken()));
        i += 1;
    }
    if defaults.is_empty() {
        return kept;
    }
    // Pass 2: patch the enums.
    let mut out = kept;
    let mut unpatched: Vec<(String, String)> = Vec::new();
    for (ty, variant) in defaults {
        let Some(pos) = (0..out.len().saturating_sub(2)).find(|&k| {
            matches!(&out[k], TokenTree::Ident(e) if e == "enum")
                && matches!(&out[k + 1], TokenTree::Ident(n) if *n == ty)
                && matches!(&out[k + 2], TokenTree::Group(g) if g.delimiter() == Delimiter::Brace)
        }) else {
            unpatched.push((ty, variant));
            continue;
        };
        let TokenTree::Group(body) = out[pos + 2].clone() else {
            continue;
        };
        let Some(new_body) = mark_default_variant(body.stream(), &variant) else {
            unpatched.push((ty, variant));
            continue;
        };
        if !add_derive(&mut out, pos, quote::quote!(Default)) {
            unpatched.push((ty, variant));
            continue;
        }
        let mut nb = Group::new(Delimiter::Brace, new_body);
        nb.set_span(body.span());
        out[pos + 2] = TokenTree::Group(nb);
    }
    // Anything that could not be patched keeps its hand-written impl.
    for (ty, variant) in unpatched {
        let (t, v) = (
            Ident::new(&ty, proc_macro2::Span::call_site()),
            Ident::new(&variant, proc_macro2::Span::call_site()),
        );
        out.extend(quote::quote! {
            impl ::std::default::Default for #t { fn default() -> Self { #t::#v } }
        });
    }
    out
}

/// Appends `derive` to the `#[derive(…)]` list of the item whose keyword
/// (`struct`, `enum`) is at `pos`; false when the item has none.
fn add_derive(out: &mut [TokenTree], pos: usize, derive: TokenStream) -> bool {
    let derive_at = (0..pos).rev().take_while(|&k| !is_punct(Some(&out[k]), ';') && !matches!(&out[k], TokenTree::Group(g) if g.delimiter() == Delimiter::Brace)).find(|&k| {
        matches!(&out[k], TokenTree::Group(g) if g.delimiter() == Delimiter::Bracket
            && g.stream().into_iter().next().is_some_and(|t| matches!(t, TokenTree::Ident(d) if d == "derive")))
    });
    let Some(derive_at) = derive_at else {
        return false;
    };
    let TokenTree::Group(attr) = &out[derive_at] else {
        return false;
    };
    let mut inner: Vec<TokenTree> = attr.stream().into_iter().collect();
    let Some(TokenTree::Group(list)) = inner.get(1) else {
        return false;
    };
    let mut list_ts = list.stream();
    list_ts.extend(quote::quote!(,));
    list_ts.extend(derive);
    inner[1] = TokenTree::Group(Group::new(Delimiter::Parenthesis, list_ts));
    out[derive_at] = TokenTree::Group(Group::new(Delimiter::Bracket, inner.into_iter().collect()));
    true
}

/// Gives `#[derive(Default)]` to the newtypes typify writes for an object
/// schema that declares nothing it requires (`{"type": "object",
/// "properties": {}}`, the usual input of a tool without arguments):
/// `pub struct X(pub ::serde_json::Map<String, Value>)`, so a call reads
/// `X::default()` (an empty map, which the schema accepts).
fn default_open_maps(mut out: Vec<TokenTree>) -> Vec<TokenTree> {
    // A type with a hand-written `Default` (from a schema `default`) keeps it.
    let with_impl: std::collections::BTreeSet<String> = out
        .windows(3)
        .filter_map(|w| match w {
            [TokenTree::Ident(d), TokenTree::Ident(f), TokenTree::Ident(n)]
                if d == "Default" && f == "for" =>
            {
                Some(n.to_string())
            }
            _ => None,
        })
        .collect();
    let positions: Vec<usize> = (0..out.len().saturating_sub(2))
        .filter(|&k| {
            matches!(&out[k], TokenTree::Ident(e) if e == "struct")
                && matches!(&out[k + 1], TokenTree::Ident(n) if !with_impl.contains(&n.to_string()))
                && matches!(&out[k + 2], TokenTree::Group(g) if g.delimiter() == Delimiter::Parenthesis && is_open_map(g.stream()))
        })
        .collect();
    for pos in positions {
        add_derive(&mut out, pos, quote::quote!(Default));
    }
    out
}

/// `pub ::serde_json::Map<::std::string::String, ::serde_json::Value>` (a
/// trailing comma allowed): the one field of an open-object newtype.
fn is_open_map(field: TokenStream) -> bool {
    let text = field.to_string().replace(' ', "");
    let text = text.strip_suffix(',').unwrap_or(&text);
    text == "pub::serde_json::Map<::std::string::String,::serde_json::Value>"
}

/// `impl :: std :: default :: Default for X { fn default () -> Self { X :: V } }`
/// at the start of `tts`: `(X, V, token count)`.
fn default_impl_at(tts: &[TokenTree]) -> Option<(String, String, usize)> {
    let head = [
        "impl", ":", ":", "std", ":", ":", "default", ":", ":", "Default", "for",
    ];
    if !words_at(tts, 0, &head) {
        return None;
    }
    let TokenTree::Ident(ty) = tts.get(11)? else {
        return None;
    };
    let TokenTree::Group(body) = tts.get(12)? else {
        return None;
    };
    let body: Vec<TokenTree> = body.stream().into_iter().collect();
    // fn default () -> Self { X :: V }
    let [TokenTree::Ident(f), TokenTree::Ident(d), TokenTree::Group(_), TokenTree::Punct(a), TokenTree::Punct(b), TokenTree::Ident(s), TokenTree::Group(block)] =
        body.as_slice()
    else {
        return None;
    };
    if f != "fn" || d != "default" || a.as_char() != '-' || b.as_char() != '>' || s != "Self" {
        return None;
    }
    let inner: Vec<TokenTree> = block.stream().into_iter().collect();
    let [TokenTree::Ident(t), TokenTree::Punct(c1), TokenTree::Punct(c2), TokenTree::Ident(v)] =
        inner.as_slice()
    else {
        return None;
    };
    if t != ty || c1.as_char() != ':' || c2.as_char() != ':' {
        return None;
    }
    Some((ty.to_string(), v.to_string(), 13))
}

/// The enum body with `#[default]` before the unit variant `variant`.
fn mark_default_variant(body: TokenStream, variant: &str) -> Option<TokenStream> {
    let tts: Vec<TokenTree> = body.into_iter().collect();
    let at = (0..tts.len()).find(|&k| {
        matches!(&tts[k], TokenTree::Ident(v) if v == variant)
            && (k + 1 == tts.len() || is_punct(tts.get(k + 1), ','))
            && (k == 0 || is_punct(tts.get(k - 1), ',') || matches!(&tts[k - 1], TokenTree::Group(g) if g.delimiter() == Delimiter::Bracket))
    })?;
    let mut out: Vec<TokenTree> = tts[..at].to_vec();
    out.extend(quote::quote!(#[default]));
    out.extend(tts[at..].iter().cloned());
    Some(out.into_iter().collect())
}

fn variant_rename(name: &Ident) -> Option<&'static str> {
    if name == "plus1" {
        Some("Plus1")
    } else if name == "minus1" {
        Some("Minus1")
    } else {
        None
    }
}

fn is_punct(t: Option<&TokenTree>, c: char) -> bool {
    matches!(t, Some(TokenTree::Punct(p)) if p.as_char() == c)
}

/// Whether the token is the identifier or one-character punctuation
/// `word`, compared without writing the token out.
fn is_word(t: &TokenTree, word: &str) -> bool {
    match t {
        TokenTree::Ident(id) => id == word,
        TokenTree::Punct(p) => {
            let mut chars = word.chars();
            chars.next() == Some(p.as_char()) && chars.next().is_none()
        }
        _ => false,
    }
}

/// Whether `words` (identifiers and punctuation) start at `tts[i]`.
fn words_at(tts: &[TokenTree], i: usize, words: &[&str]) -> bool {
    tts.get(i..i + words.len())
        .is_some_and(|s| s.iter().zip(words).all(|(t, w)| is_word(t, w)))
}

/// In the trees of one group: `plus1`/`minus1` variants renamed,
/// `pub(super)` of the default helpers made `pub`, then
/// [`boxed_options`].
pub(super) fn walk_level(mut tts: Vec<TokenTree>, in_defaults: bool) -> Vec<TokenTree> {
    let mut out: Vec<TokenTree> = Vec::with_capacity(tts.len());
    // The leaves kept as they are, `(place in out, place in tts)`: moved
    // into place at the end, since the pass looks back at them.
    let mut kept: Vec<(usize, usize)> = Vec::new();
    let mut i = 0;
    while i < tts.len() {
        let tt = &tts[i];
        match tt {
            TokenTree::Ident(id) if in_defaults && id == "pub" => {
                kept.push((out.len(), i));
                out.push(super::taken());
                // Drop the `(super)` of `pub(super)`.
                if let Some(TokenTree::Group(g)) = tts.get(i + 1) {
                    if g.delimiter() == Delimiter::Parenthesis && g.stream().to_string() == "super"
                    {
                        i += 1;
                    }
                }
            }
            TokenTree::Ident(id) => {
                let renamed = variant_rename(id).filter(|_| {
                    let after_path = is_punct(tts.get(i.wrapping_sub(1)), ':') && is_punct(tts.get(i.wrapping_sub(2)), ':');
                    let next = tts.get(i + 1);
                    let variant_def = next.is_none()
                        || is_punct(next, ',')
                        || matches!(next, Some(TokenTree::Group(g)) if g.delimiter() != Delimiter::Bracket);
                    let field_like = is_punct(tts.get(i.wrapping_sub(1)), '.')
                        || matches!(tts.get(i.wrapping_sub(1)), Some(TokenTree::Ident(p)) if p == "pub" || p == "fn" || p == "let");
                    after_path || (variant_def && !field_like)
                });
                match renamed {
                    Some(new) => out.push(TokenTree::Ident(Ident::new(new, id.span()))),
                    None => {
                        kept.push((out.len(), i));
                        out.push(super::taken());
                    }
                }
            }
            _ => {
                kept.push((out.len(), i));
                out.push(super::taken());
            }
        }
        i += 1;
    }
    for (at, from) in kept {
        out[at] = std::mem::replace(&mut tts[from], super::taken());
    }
    // `boxed_options` on the same trees: one walk over every group does
    // both.
    boxed_options(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use quote::quote;

    #[test]
    fn renames_plus_minus_variants_but_not_fields() {
        let input = quote! {
            pub enum Reaction { #[serde(rename = "+1")] plus1, #[serde(rename = "-1")] minus1, Laugh }
            impl X for Reaction { fn f(&self) { match *self { Self::plus1 => 1, Reaction::minus1 => 2 } } }
            pub struct Counts { #[serde(rename = "+1")] pub plus1: i64 }
            fn g(c: &Counts) -> i64 { c.plus1 }
        };
        let out = fixup(input).to_string();
        assert!(
            out.contains("Plus1 , # [serde (rename = \"-1\")] Minus1"),
            "{out}"
        );
        assert!(
            out.contains("Self :: Plus1 => 1 , Reaction :: Minus1"),
            "{out}"
        );
        assert!(out.contains("pub plus1 : i64"), "{out}");
        assert!(out.contains("c . plus1"), "{out}");
    }

    #[test]
    fn open_object_newtypes_derive_default() {
        let input = quote! {
            #[doc = "Arguments of the `ping` tool."]
            #[derive(::serde::Deserialize, ::serde::Serialize, Clone, Debug, PartialEq)]
            #[serde(transparent)]
            pub struct PingInput(pub ::serde_json::Map<::std::string::String, ::serde_json::Value>,);
            #[derive(Clone, Debug)]
            pub struct Name(::std::string::String);
            #[derive(Clone, Debug)]
            pub struct Pair(pub ::serde_json::Map<::std::string::String, ::serde_json::Value>, pub i64);
            #[derive(Clone, Debug)]
            pub struct Given(pub ::serde_json::Map<::std::string::String, ::serde_json::Value>);
            impl ::std::default::Default for Given { fn default() -> Self { Given(::serde_json::Map::new()) } }
        };
        let out = fixup(input).to_string();
        assert!(out.contains("# [derive (:: serde :: Deserialize , :: serde :: Serialize , Clone , Debug , PartialEq , Default)] # [serde (transparent)] pub struct PingInput"), "{out}");
        assert_eq!(
            out.matches("Default").count(),
            2,
            "only the open map without a Default impl gets it: {out}"
        );
    }

    #[test]
    fn default_impls_become_derives() {
        let input = quote! {
            #[doc = "State."]
            #[derive(::serde::Deserialize, Clone)]
            pub enum State { #[serde(rename = "open")] Open, Closed }
            impl ::std::default::Default for State { fn default() -> Self { State::Closed } }
            impl ::std::default::Default for Other { fn default() -> Self { Self { x: 1 } } }
        };
        let out = fixup(input).to_string();
        assert!(
            out.contains("# [derive (:: serde :: Deserialize , Clone , Default)]"),
            "{out}"
        );
        assert!(out.contains("Open , # [default] Closed"), "{out}");
        assert!(!out.contains("for State"), "{out}");
        assert!(out.contains("for Other"), "{out}");
    }

    #[test]
    fn boxed_options_become_optional_boxes() {
        let input = quote! {
            pub struct A {
                #[serde(default)]
                pub b: ::std::boxed::Box<::std::option::Option<A>>,
                pub c: ::std::option::Option<::std::vec::Vec<u8>>,
            }
        };
        let out = fixup(input).to_string();
        assert!(
            out.contains("# [serde (default , skip_serializing_if = \"::std::option::Option::is_none\")] pub b : :: std :: option :: Option < :: std :: boxed :: Box < A >> ,"),
            "{out}"
        );
        assert!(
            out.contains("pub c : :: std :: option :: Option < :: std :: vec :: Vec < u8 >>"),
            "{out}"
        );
    }

    #[test]
    fn infallible_try_from_impls_become_from_impls() {
        let input = quote! {
            impl ::std::str::FromStr for Inner { type Err = ::std::convert::Infallible; fn from_str(v: &str) -> R { todo!() } }
            impl ::std::str::FromStr for Outer { type Err = <Inner as ::std::str::FromStr>::Err; fn from_str(v: &str) -> R { todo!() } }
            impl ::std::convert::TryFrom<&str> for Outer { type Error = <Inner as ::std::str::FromStr>::Err; fn try_from(value: &str) -> R { value.parse() } }
            impl ::std::convert::TryFrom<String> for Outer { type Error = <Inner as ::std::str::FromStr>::Err; fn try_from(value: String) -> R { value.parse() } }
            impl ::std::str::FromStr for Checked { type Err = self::error::ConversionError; fn from_str(v: &str) -> R { todo!() } }
            impl ::std::convert::TryFrom<&str> for Checked { type Error = self::error::ConversionError; fn try_from(value: &str) -> R { value.parse() } }
        };
        let out = fixup(input).to_string();
        assert!(
            out.contains("impl :: std :: convert :: From < & str > for Outer"),
            "{out}"
        );
        assert!(
            out.contains("impl :: std :: convert :: From < String > for Outer"),
            "{out}"
        );
        assert!(
            out.contains("impl :: std :: convert :: TryFrom < & str > for Checked"),
            "{out}"
        );
        assert!(!out.contains("TryFrom < String > for Outer"), "{out}");
    }

    #[test]
    fn only_items_with_too_complex_field_types_allow_them() {
        let input = quote! {
            pub struct Fine { pub a: ::std::vec::Vec<::std::vec::Vec<::std::string::String>>, pub b: u8 }
            pub struct Deep { pub a: ::std::vec::Vec<::std::vec::Vec<::std::vec::Vec<::std::vec::Vec<::std::vec::Vec<::std::vec::Vec<::std::string::String>>>>>> }
            pub enum E { A(::std::vec::Vec<::std::vec::Vec<::std::vec::Vec<::std::vec::Vec<::std::vec::Vec<::std::vec::Vec<u8>>>>>>), B }
        };
        let out = fixup(input).to_string();
        assert_eq!(
            out.matches("# [allow (clippy :: type_complexity)]").count(),
            2,
            "{out}"
        );
        assert!(out.starts_with("pub struct Fine"), "{out}");
    }

    #[test]
    fn long_identifiers_are_bounded_alike_everywhere() {
        let long = Ident::new(
            &format!("Parent{}", "Child".repeat(100)),
            proc_macro2::Span::call_site(),
        );
        let out = fixup(quote! { pub struct #long; impl #long { fn f() -> #long { #long } } });
        let idents: Vec<String> = out
            .to_string()
            .split_whitespace()
            .filter(|w| w.starts_with("Parent"))
            .map(str::to_owned)
            .collect();
        assert_eq!(idents.len(), 4, "{out}");
        assert!(
            idents
                .iter()
                .all(|i| *i == idents[0] && i.len() == naming::MAX_IDENT),
            "{idents:?}"
        );
    }

    #[test]
    fn default_helpers_become_public() {
        let input = quote! {
            pub mod defaults { pub(super) fn default_u64<T, const V: u64>() -> T { todo!() } }
            pub(super) fn elsewhere() {}
        };
        let out = fixup(input).to_string();
        assert!(
            out.contains("pub mod defaults { pub fn default_u64"),
            "{out}"
        );
        assert!(out.contains("pub (super) fn elsewhere"), "{out}");
    }
}
