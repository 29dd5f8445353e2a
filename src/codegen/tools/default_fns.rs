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

use proc_macro2::{Ident, Literal, TokenTree};
use quote::ToTokens;

/// The module typify writes default functions into.
const MODULE: &str = "defaults";

/// `file` (the body of `tools.rs`) with identical default functions
/// merged; the file unchanged (as `Err`) when there are none.
pub(crate) fn merge(mut file: syn::File) -> Result<syn::File, syn::File> {
    let Some(items) = file.items.iter_mut().find_map(|item| match item {
        syn::Item::Mod(m) if m.ident == MODULE => m.content.as_mut().map(|(_, items)| items),
        _ => None,
    }) else {
        return Err(file);
    };

    // Plain functions (no generics, no arguments) by signature and body.
    let groups =
        super::shared::groups(items.iter().enumerate().filter_map(|(i, item)| match item {
            syn::Item::Fn(f) if f.sig.generics.params.is_empty() && f.sig.inputs.is_empty() => {
                Some((
                    i,
                    format!(
                        "{} {}",
                        f.sig.output.to_token_stream(),
                        f.block.to_token_stream()
                    ),
                ))
            }
            _ => None,
        }));
    let name_of = |item: &syn::Item| match item {
        syn::Item::Fn(f) => Some(f.sig.ident.to_string()),
        _ => None,
    };
    let mut taken: BTreeSet<String> = items.iter().filter_map(name_of).collect();
    let mut renames: BTreeMap<String, String> = BTreeMap::new();
    let mut removed: BTreeSet<usize> = BTreeSet::new();
    for members in &groups {
        let names: Vec<String> = members.iter().filter_map(|&i| name_of(&items[i])).collect();
        let name = shared_name(&names)
            .filter(|n| !taken.contains(n))
            .unwrap_or_else(|| names[0].clone());
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
        return Err(file);
    }
    let kept = std::mem::take(items)
        .into_iter()
        .enumerate()
        .filter(|(i, _)| !removed.contains(i))
        .map(|(_, item)| item);
    *items = kept.collect();
    // One walk over the tree renames both.
    let mut visitor = DefaultPaths {
        renames: &renames,
        opaque: super::shared::InPlace {
            ident: &|_| None,
            opaque: &|tree, before| rename_tree(tree, before, &renames),
        },
    };
    syn::visit_mut::VisitMut::visit_file_mut(&mut visitor, &mut file);
    Ok(file)
}

/// Renames the last segment of every `defaults::old` path of the tree
/// (`defaults::old()` in an impl), and with `opaque` the paths and
/// strings in the token streams syn leaves unparsed.
struct DefaultPaths<'a> {
    renames: &'a BTreeMap<String, String>,
    opaque: super::shared::InPlace<'a>,
}

impl syn::visit_mut::VisitMut for DefaultPaths<'_> {
    fn visit_path_mut(&mut self, p: &mut syn::Path) {
        let n = p.segments.len();
        if n >= 2 && p.segments[n - 2].ident == MODULE {
            if let Some(new) = self.renames.get(&p.segments[n - 1].ident.to_string()) {
                p.segments[n - 1].ident = Ident::new(new, p.segments[n - 1].ident.span());
            }
        }
        syn::visit_mut::visit_path_mut(self, p);
    }

    fn visit_meta_list_mut(&mut self, m: &mut syn::MetaList) {
        self.visit_path_mut(&mut m.path);
        self.opaque.visit_meta_list_tokens(m);
    }

    fn visit_macro_mut(&mut self, m: &mut syn::Macro) {
        self.visit_path_mut(&mut m.path);
        self.opaque.visit_macro_tokens(m);
    }
}

/// The trailing `_`-separated words all names share
/// ([`super::shared::shared_words`]: `a_input_units` gives `units`);
/// `None` when they share none or that is no function name.
fn shared_name(names: &[String]) -> Option<String> {
    let name = super::shared::shared_words(names, |n: &str| n.split('_').collect()).join("_");
    // `type` from `…_input_type` would be no function name at all.
    (name.starts_with(|c: char| c.is_ascii_lowercase()) && !crate::naming::is_keyword(&name))
        .then_some(name)
}

/// A `defaults::old` path's last identifier, or a `"defaults::old"`
/// string, renamed (in token streams syn leaves unparsed).
fn rename_tree(
    tree: &TokenTree,
    before: &[TokenTree],
    renames: &BTreeMap<String, String>,
) -> Option<TokenTree> {
    match tree {
        TokenTree::Ident(ident) if after_module_path(before) => renames
            .get(&ident.to_string())
            .map(|new| TokenTree::Ident(Ident::new(new, ident.span()))),
        TokenTree::Literal(literal) => {
            let text = literal.to_string();
            let old = text
                .strip_prefix(&format!("\"{MODULE}::"))?
                .strip_suffix('"')?;
            let mut lit = Literal::string(&format!("{MODULE}::{}", renames.get(old)?));
            lit.set_span(literal.span());
            Some(TokenTree::Literal(lit))
        }
        _ => None,
    }
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
    use proc_macro2::TokenStream;
    use quote::quote;

    /// The merged file as tokens, `None` when nothing merged.
    fn merge(tokens: &TokenStream) -> Option<TokenStream> {
        super::merge(syn::parse2(tokens.clone()).unwrap())
            .ok()
            .map(|f| f.into_token_stream())
    }

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
        assert!(
            out.contains("# [serde (default = \"defaults::units\")]"),
            "{out}"
        );
        assert!(out.contains("units : defaults :: units ()"), "{out}");
        assert!(out.contains("pub fn units () -> super :: Units"), "{out}");
        assert!(
            !out.contains("a_input_units") && !out.contains("b_input_units"),
            "{out}"
        );
        assert!(
            out.contains("b_input_days") && out.contains("c_input_days"),
            "different bodies stay: {out}"
        );
        assert!(out.contains("default_bool"), "{out}");
        assert!(
            merge(&out.parse().unwrap()).is_none(),
            "nothing left to merge"
        );
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
        assert!(
            out.contains("pub fn units () -> i64 { 1 }")
                && out.contains("pub fn a_units () -> i64 { 2 }"),
            "{out}"
        );
        assert!(!out.contains("b_units"), "{out}");
    }
}
