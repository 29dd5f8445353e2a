//! One default function for identical ones. typify writes a function in
//! `mod defaults` for each property default (`get_forecast_input_units()
//! -> super::Units { super::Units::Metric }`) and names it in the field's
//! `#[serde(default = "defaults::…")]`, so two tools with the same default
//! get two functions, and two otherwise identical structs differ in that
//! attribute alone. Functions whose signature (name aside) and body are
//! the same become one, named after the trailing words their names share
//! without a leading `input`/`output` (`units`), or the first one's name
//! when that is taken; every `defaults::old` path and attribute string
//! follows. [`super::dedupe`] runs this before each round of merging
//! types, so structs whose defaults merged can merge too.

use std::collections::{BTreeMap, BTreeSet};

use proc_macro2::{Ident, Literal, TokenStream, TokenTree};
use quote::ToTokens;

/// The module typify writes default functions into.
const MODULE: &str = "defaults";

/// `tokens` (the body of `tools.rs`) with identical default functions
/// merged, or `None` when there are none.
pub fn merge(tokens: &TokenStream) -> Option<TokenStream> {
    let mut file = syn::parse2::<syn::File>(tokens.clone()).ok()?;
    let items = file.items.iter_mut().find_map(|item| match item {
        syn::Item::Mod(m) if m.ident == MODULE => m.content.as_mut().map(|(_, items)| items),
        _ => None,
    })?;

    // Plain functions (no generics, no arguments) by signature and body.
    let mut groups: Vec<(String, Vec<usize>)> = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let syn::Item::Fn(f) = item else { continue };
        if !f.sig.generics.params.is_empty() || !f.sig.inputs.is_empty() {
            continue;
        }
        let key = format!("{} {}", f.sig.output.to_token_stream(), f.block.to_token_stream());
        match groups.iter_mut().find(|(k, _)| *k == key) {
            Some((_, members)) => members.push(i),
            None => groups.push((key, vec![i])),
        }
    }
    let name_of = |item: &syn::Item| match item {
        syn::Item::Fn(f) => Some(f.sig.ident.to_string()),
        _ => None,
    };
    let mut taken: BTreeSet<String> = items.iter().filter_map(name_of).collect();
    let mut renames: BTreeMap<String, String> = BTreeMap::new();
    let mut removed: BTreeSet<usize> = BTreeSet::new();
    for (_, members) in groups.iter().filter(|(_, m)| m.len() > 1) {
        let names: Vec<String> = members.iter().filter_map(|&i| name_of(&items[i])).collect();
        let name = shared_name(&names).filter(|n| !taken.contains(n)).unwrap_or_else(|| names[0].clone());
        taken.insert(name.clone());
        for old in &names {
            if *old != name {
                renames.insert(old.clone(), name.clone());
            }
        }
        if let syn::Item::Fn(f) = &mut items[members[0]] {
            f.sig.ident = Ident::new(&name, f.sig.ident.span());
        }
        removed.extend(members[1..].iter().copied());
    }
    if renames.is_empty() {
        return None;
    }
    let kept = std::mem::take(items).into_iter().enumerate().filter(|(i, _)| !removed.contains(i)).map(|(_, item)| item);
    *items = kept.collect();
    Some(rename(file.into_token_stream(), &renames))
}

/// The trailing `_`-separated words all names share, without a leading
/// `input` or `output` when more follow; `None` when they share none.
fn shared_name(names: &[String]) -> Option<String> {
    let split: Vec<Vec<&str>> = names.iter().map(|n| n.split('_').collect()).collect();
    let shortest = split.iter().map(Vec::len).min()?;
    let mut n = 0;
    while n < shortest && split.iter().all(|w| w[w.len() - 1 - n] == split[0][split[0].len() - 1 - n]) {
        n += 1;
    }
    let mut words = &split[0][split[0].len() - n..];
    if words.len() > 1 && matches!(words[0], "input" | "output") {
        words = &words[1..];
    }
    let name = words.join("_");
    // `type` from `…_input_type` would be no function name at all.
    (name.starts_with(|c: char| c.is_ascii_lowercase()) && !crate::naming::is_keyword(&name)).then_some(name)
}

/// Every `defaults::old` path and `"defaults::old"` string replaced, at
/// any depth.
fn rename(tokens: TokenStream, renames: &BTreeMap<String, String>) -> TokenStream {
    let trees: Vec<TokenTree> = tokens.into_iter().collect();
    let mut out = Vec::with_capacity(trees.len());
    for (i, tree) in trees.iter().enumerate() {
        let renamed = match tree {
            TokenTree::Ident(ident) if after_module_path(&trees[..i]) => {
                renames.get(&ident.to_string()).map(|new| TokenTree::Ident(Ident::new(new, ident.span())))
            }
            TokenTree::Literal(literal) => {
                let text = literal.to_string();
                text.strip_prefix(&format!("\"{MODULE}::"))
                    .and_then(|rest| rest.strip_suffix('"'))
                    .and_then(|old| renames.get(old))
                    .map(|new| {
                        let mut lit = Literal::string(&format!("{MODULE}::{new}"));
                        lit.set_span(literal.span());
                        TokenTree::Literal(lit)
                    })
            }
            TokenTree::Group(group) => {
                let mut new = proc_macro2::Group::new(group.delimiter(), rename(group.stream(), renames));
                new.set_span(group.span());
                Some(TokenTree::Group(new))
            }
            _ => None,
        };
        out.push(renamed.unwrap_or_else(|| tree.clone()));
    }
    out.into_iter().collect()
}

/// Whether `before` ends in `defaults ::`.
fn after_module_path(before: &[TokenTree]) -> bool {
    match before {
        [.., TokenTree::Ident(m), TokenTree::Punct(a), TokenTree::Punct(b)] => {
            m == MODULE && a.as_char() == ':' && b.as_char() == ':'
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use quote::quote;

    #[test]
    fn identical_defaults_become_one_and_every_use_follows() {
        let tokens = quote! {
            pub struct AInput {
                #[serde(default = "defaults::a_input_units")]
                pub units: Units,
            }
            impl Default for BInput {
                fn default() -> Self { Self { units: defaults::b_input_units(), days: defaults::b_input_days() } }
            }
            pub mod defaults {
                pub fn default_bool<const V: bool>() -> bool { V }
                pub fn a_input_units() -> super::Units { super::Units::Metric }
                pub fn b_input_units() -> super::Units { super::Units::Metric }
                pub fn b_input_days() -> i64 { 3 }
                pub fn c_input_days() -> i64 { 7 }
            }
        };
        let out = merge(&tokens).unwrap().to_string();
        assert!(out.contains("# [serde (default = \"defaults::units\")]"), "{out}");
        assert!(out.contains("units : defaults :: units ()"), "{out}");
        assert!(out.contains("pub fn units () -> super :: Units"), "{out}");
        assert!(!out.contains("a_input_units") && !out.contains("b_input_units"), "{out}");
        assert!(out.contains("b_input_days") && out.contains("c_input_days"), "different bodies stay: {out}");
        assert!(out.contains("default_bool"), "{out}");
        assert!(merge(&out.parse().unwrap()).is_none(), "nothing left to merge");
    }

    /// Found by the `generate` fuzz target: a property named `type` in two
    /// tools gave the shared name `type`, and the file no longer parsed.
    #[test]
    fn a_keyword_is_never_the_shared_name() {
        let tokens = quote! {
            pub mod defaults {
                pub fn a_input_type() -> i64 { 2 }
                pub fn b_output_type() -> i64 { 2 }
            }
        };
        let out = merge(&tokens).unwrap();
        syn::parse2::<syn::File>(out.clone()).expect("still Rust");
        assert!(out.to_string().contains("pub fn a_input_type ()"), "{out}");
    }

    #[test]
    fn a_taken_shared_name_keeps_the_first_name() {
        let tokens = quote! {
            pub mod defaults {
                pub fn units() -> i64 { 1 }
                pub fn a_units() -> i64 { 2 }
                pub fn b_units() -> i64 { 2 }
            }
        };
        let out = merge(&tokens).unwrap().to_string();
        assert!(out.contains("pub fn units () -> i64 { 1 }") && out.contains("pub fn a_units () -> i64 { 2 }"), "{out}");
        assert!(!out.contains("b_units"), "{out}");
    }
}
