//! One type for identical inline enums across tools. A `units` property
//! declared as `{"enum": ["metric", "imperial"]}` in three schemas gives
//! typify three enums (`GetForecastInputUnits`, `GetForecastOutputUnits`,
//! ...) that a handler would have to convert between by hand. Enums whose
//! variants and attributes are the same (doc comments and which variant is
//! the default aside) become one, named after what their names share (the
//! common trailing words: `Units`); enums that share no trailing word
//! (`from` and `to`), or whose shared name is taken or would shadow a
//! standard name, stay apart. The kept enum derives
//! `Default` when any of them had a default, provided they agree on it;
//! enums with different defaults stay apart.

use std::collections::{BTreeMap, BTreeSet};

use proc_macro2::{Ident, TokenStream, TokenTree};
use quote::ToTokens;
use syn::punctuated::Punctuated;
use syn::Token;

/// Names a merged enum never gets: they would shadow a name that
/// generated code or its users write unqualified.
const RESERVED: &[&str] = &[
    "Box", "Clone", "Copy", "Debug", "Default", "Display", "Eq", "Err", "Error", "From", "FromStr", "Hash", "Into",
    "Iterator", "Map", "None", "Ok", "Option", "Ord", "PartialEq", "PartialOrd", "Result", "Self", "Send", "Sized",
    "Some", "String", "Sync", "ToString", "TryFrom", "Value", "Vec",
];

/// Merges identical enums of the body of `tools.rs`.
pub fn dedupe(tokens: TokenStream) -> TokenStream {
    let Ok(mut file) = syn::parse2::<syn::File>(tokens.clone()) else { return tokens };

    // Enums by shape, in order of first appearance.
    let mut groups: Vec<(String, Vec<usize>)> = Vec::new();
    for (i, item) in file.items.iter().enumerate() {
        let syn::Item::Enum(e) = item else { continue };
        let key = shape(e);
        match groups.iter_mut().find(|(k, _)| *k == key) {
            Some((_, members)) => members.push(i),
            None => groups.push((key, vec![i])),
        }
    }

    let mut renames: BTreeMap<String, String> = BTreeMap::new();
    let mut used: BTreeSet<String> = file.items.iter().filter_map(item_name).collect();
    let mut keep_default: BTreeMap<usize, String> = BTreeMap::new();
    let mut gone: BTreeSet<String> = BTreeSet::new();
    for (_, members) in groups.iter().filter(|(_, m)| m.len() > 1) {
        let enums: Vec<&syn::ItemEnum> = members
            .iter()
            .filter_map(|&i| match &file.items[i] {
                syn::Item::Enum(e) => Some(e),
                _ => None,
            })
            .collect();
        let defaults: BTreeSet<String> = enums.iter().filter_map(|e| default_variant(e)).collect();
        if defaults.len() > 1 {
            continue;
        }
        let names: Vec<String> = enums.iter().map(|e| e.ident.to_string()).collect();
        let common = common_suffix(&names);
        // Uses that share no trailing name (`from` and `to`) stay apart, as
        // do those whose shared name is taken.
        let name = match common {
            Some(c) if !used.contains(&c) && !RESERVED.contains(&c.as_str()) => c,
            _ => continue,
        };
        used.insert(name.clone());
        for old in &names {
            if *old != name {
                renames.insert(old.clone(), name.clone());
            }
        }
        if let Some(variant) = defaults.into_iter().next() {
            keep_default.insert(members[0], variant);
        }
        // The first stays (renamed below); the others go with their impls.
        gone.extend(names[1..].iter().cloned());
        if let syn::Item::Enum(e) = &mut file.items[members[0]] {
            e.attrs.retain(|a| !a.path().is_ident("doc"));
            let doc = format!("`{name}`: the same values in several places of the tools' schemas.");
            e.attrs.insert(0, syn::parse_quote!(#[doc = #doc]));
        }
        for &i in &members[1..] {
            if let syn::Item::Enum(e) = &mut file.items[i] {
                e.ident = Ident::new("__mcpgen_removed", e.ident.span());
            }
        }
    }
    if renames.is_empty() {
        return tokens;
    }
    file.items.retain(|item| match item {
        syn::Item::Enum(e) => e.ident != "__mcpgen_removed",
        // The impls of the members that go; the kept one's are renamed below.
        syn::Item::Impl(imp) => !self_name(imp).is_some_and(|n| gone.contains(&n)),
        _ => true,
    });
    for (i, variant) in keep_default {
        if let Some(syn::Item::Enum(e)) = file.items.get_mut(i) {
            add_default(e, &variant);
        }
    }
    rename(file.into_token_stream(), &renames)
}

fn item_name(item: &syn::Item) -> Option<String> {
    match item {
        syn::Item::Enum(e) => Some(e.ident.to_string()),
        syn::Item::Struct(s) => Some(s.ident.to_string()),
        syn::Item::Type(t) => Some(t.ident.to_string()),
        syn::Item::Mod(m) => Some(m.ident.to_string()),
        syn::Item::Const(c) => Some(c.ident.to_string()),
        _ => None,
    }
}

/// The enum without its name, doc comments, `Default` derive and
/// `#[default]` marks, as text.
fn shape(e: &syn::ItemEnum) -> String {
    let mut e = e.clone();
    e.ident = Ident::new("Shape", e.ident.span());
    e.attrs.retain(|a| !a.path().is_ident("doc"));
    for a in &mut e.attrs {
        if a.path().is_ident("derive") {
            let paths = a.parse_args_with(Punctuated::<syn::Path, Token![,]>::parse_terminated);
            if let Ok(paths) = paths {
                let kept = paths.into_iter().filter(|p| !p.is_ident("Default"));
                *a = syn::parse_quote!(#[derive(#(#kept),*)]);
            }
        }
    }
    for v in &mut e.variants {
        v.attrs.retain(|a| !a.path().is_ident("doc") && !a.path().is_ident("default"));
    }
    e.to_token_stream().to_string()
}

fn default_variant(e: &syn::ItemEnum) -> Option<String> {
    e.variants.iter().find(|v| v.attrs.iter().any(|a| a.path().is_ident("default"))).map(|v| v.ident.to_string())
}

/// Gives `e` `#[derive(Default)]` and `#[default]` on `variant` when it
/// lacks them.
fn add_default(e: &mut syn::ItemEnum, variant: &str) {
    if default_variant(e).is_some() {
        return;
    }
    e.attrs.push(syn::parse_quote!(#[derive(Default)]));
    if let Some(v) = e.variants.iter_mut().find(|v| v.ident == variant) {
        v.attrs.push(syn::parse_quote!(#[default]));
    }
}

fn self_name(imp: &syn::ItemImpl) -> Option<String> {
    match &*imp.self_ty {
        syn::Type::Path(p) if p.qself.is_none() && p.path.segments.len() == 1 => {
            Some(p.path.segments[0].ident.to_string())
        }
        _ => None,
    }
}

/// The words of a PascalCase name: each starts at an upper-case letter.
fn words(name: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    for (i, c) in name.char_indices().skip(1) {
        if c.is_ascii_uppercase() {
            out.push(&name[start..i]);
            start = i;
        }
    }
    out.push(&name[start..]);
    out
}

/// The trailing words all names share, joined; `None` when there are none
/// or the result does not start with a letter.
fn common_suffix(names: &[String]) -> Option<String> {
    let split: Vec<Vec<&str>> = names.iter().map(|n| words(n)).collect();
    let shortest = split.iter().map(Vec::len).min()?;
    let mut n = 0;
    while n < shortest && split.iter().all(|w| w[w.len() - 1 - n] == split[0][split[0].len() - 1 - n]) {
        n += 1;
    }
    let first = &split[0];
    let joined: String = first[first.len() - n..].concat();
    joined.chars().next().filter(|c| c.is_ascii_alphabetic()).map(|_| joined)
}

/// Every identifier in `renames` replaced, at any depth.
fn rename(tokens: TokenStream, renames: &BTreeMap<String, String>) -> TokenStream {
    tokens
        .into_iter()
        .map(|t| match t {
            TokenTree::Ident(i) => match renames.get(&i.to_string()) {
                Some(new) => TokenTree::Ident(Ident::new(new, i.span())),
                None => TokenTree::Ident(i),
            },
            TokenTree::Group(g) => {
                let mut group = proc_macro2::Group::new(g.delimiter(), rename(g.stream(), renames));
                group.set_span(g.span());
                TokenTree::Group(group)
            }
            other => other,
        })
        .collect()
}
