//! Which items of `tools.rs` name which identifiers: the index that lets a
//! merge round of `dedupe` rename in the few items that name what it
//! renames, instead of walking the whole file every round.
//!
//! It sees the identifiers the renaming visitor (`shared::InPlace`) sees:
//! those of the syntax tree and those in the unparsed arguments of
//! attributes and bodies of macros. An item may stay listed under a name
//! it no longer has; an item that names an identifier is never missing
//! from its list.

use std::collections::{BTreeMap, HashMap};
use std::fmt::Write;

use proc_macro2::{Ident, TokenStream, TokenTree};
use syn::visit::Visit;

/// The identifiers of a file's items, each with the items that name it.
pub(super) struct Mentions {
    /// A stable id for each item of the file, in the file's order.
    ids: Vec<u32>,
    /// Each identifier, with the ids of the items that name it.
    by_ident: HashMap<String, Vec<u32>>,
}

impl Mentions {
    /// The index of `items`.
    pub(super) fn of(items: &[syn::Item]) -> Self {
        let mut mentions = Mentions {
            ids: Vec::with_capacity(items.len()),
            by_ident: HashMap::new(),
        };
        for (id, item) in (0u32..).zip(items) {
            mentions.ids.push(id);
            mentions.add(id, item);
        }
        mentions
    }

    /// Lists the item `id` under every identifier `item` names.
    fn add(&mut self, id: u32, item: &syn::Item) {
        let mut collect = Collect {
            by_ident: &mut self.by_ident,
            id,
            text: String::new(),
        };
        collect.visit_item(item);
    }

    /// The positions of the items that may name any of `names`, in order.
    pub(super) fn naming<'a>(&self, names: impl Iterator<Item = &'a String>) -> Vec<usize> {
        self.found(&self.positions(), names.map(String::as_str))
    }

    /// [`naming`](Self::naming) of each of `names` alone, with one index
    /// of positions for all of them.
    pub(super) fn naming_each(&self, names: &[&str]) -> Vec<Vec<usize>> {
        let positions = self.positions();
        names
            .iter()
            .map(|name| self.found(&positions, std::iter::once(*name)))
            .collect()
    }

    /// Each item's id with its position in the file.
    fn positions(&self) -> HashMap<u32, usize> {
        self.ids
            .iter()
            .enumerate()
            .map(|(at, &id)| (id, at))
            .collect()
    }

    /// The positions of the items naming any of `names`, in order.
    fn found<'a>(
        &self,
        positions: &HashMap<u32, usize>,
        names: impl Iterator<Item = &'a str>,
    ) -> Vec<usize> {
        let mut found: Vec<usize> = names
            .filter_map(|name| self.by_ident.get(name))
            .flatten()
            .filter_map(|id| positions.get(id).copied())
            .collect();
        found.sort_unstable();
        found.dedup();
        found
    }

    /// After every use of each old name was renamed: the items that named
    /// it name the new one.
    pub(super) fn renamed(&mut self, renames: &BTreeMap<String, String>) {
        for (old, new) in renames {
            if let Some(ids) = self.by_ident.remove(old) {
                self.by_ident.entry(new.clone()).or_default().extend(ids);
            }
        }
    }

    /// After the file kept only its items at the positions `kept`
    /// (ascending, positions before the change).
    pub(super) fn keep(&mut self, kept: &[usize]) {
        self.ids = kept.iter().map(|&at| self.ids[at]).collect();
    }

    /// After the item at `position` changed other than by a rename: it is
    /// listed under what it names now too.
    pub(super) fn changed(&mut self, position: usize, item: &syn::Item) {
        let id = self.ids[position];
        self.add(id, item);
    }
}

/// Lists one item under the identifiers it names.
struct Collect<'a> {
    by_ident: &'a mut HashMap<String, Vec<u32>>,
    id: u32,
    /// The identifier being looked up, written out.
    text: String,
}

impl Collect<'_> {
    fn note(&mut self, ident: &Ident) {
        self.text.clear();
        let _ = write!(self.text, "{ident}");
        match self.by_ident.get_mut(self.text.as_str()) {
            Some(ids) if ids.last() == Some(&self.id) => {}
            Some(ids) => ids.push(self.id),
            None => {
                self.by_ident.insert(self.text.clone(), vec![self.id]);
            }
        }
    }

    fn tokens(&mut self, tokens: &TokenStream) {
        for tree in tokens.clone() {
            match tree {
                TokenTree::Ident(ident) => self.note(&ident),
                TokenTree::Group(group) => self.tokens(&group.stream()),
                TokenTree::Punct(_) | TokenTree::Literal(_) => {}
            }
        }
    }
}

impl<'ast> Visit<'ast> for Collect<'_> {
    fn visit_ident(&mut self, ident: &'ast Ident) {
        self.note(ident);
    }

    fn visit_meta_list(&mut self, list: &'ast syn::MetaList) {
        self.visit_path(&list.path);
        self.tokens(&list.tokens);
    }

    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        self.visit_path(&mac.path);
        self.tokens(&mac.tokens);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use quote::quote;

    fn items(tokens: TokenStream) -> Vec<syn::Item> {
        syn::parse2::<syn::File>(tokens).unwrap().items
    }

    fn named(list: &[&str]) -> Vec<String> {
        list.iter().map(|n| (*n).to_owned()).collect()
    }

    #[test]
    fn items_are_found_by_the_names_in_their_code_attributes_and_macros() {
        let file = items(quote! {
            pub struct A { pub b: B }
            #[serde(with = "x", bound = C)]
            pub struct D(String);
            impl E { fn f() { g!(H::new()) } }
            pub enum I { J }
        });
        let m = Mentions::of(&file);
        assert_eq!(m.naming(named(&["B"]).iter()), vec![0]);
        assert_eq!(m.naming(named(&["C"]).iter()), vec![1]);
        assert_eq!(m.naming(named(&["H", "A"]).iter()), vec![0, 2]);
        assert_eq!(m.naming(named(&["J"]).iter()), vec![3]);
        assert!(m.naming(named(&["x", "Z"]).iter()).is_empty());
        // Each name alone, in one pass.
        assert_eq!(
            m.naming_each(&["H", "A", "Z", "B"]),
            vec![vec![2], vec![0], vec![], vec![0]]
        );
    }

    #[test]
    fn renames_and_removals_keep_the_index_right() {
        let file = items(quote! {
            pub struct A { pub b: B }
            pub struct C { pub b: B }
            pub struct D { pub e: E }
        });
        let mut m = Mentions::of(&file);
        m.renamed(&BTreeMap::from([("B".to_owned(), "F".to_owned())]));
        assert!(m.naming(named(&["B"]).iter()).is_empty());
        assert_eq!(m.naming(named(&["F"]).iter()), vec![0, 1]);
        // The first item goes: the others move up.
        m.keep(&[1, 2]);
        assert_eq!(m.naming(named(&["F"]).iter()), vec![0]);
        assert_eq!(m.naming(named(&["E"]).iter()), vec![1]);
        // What a changed item names now is found.
        let changed = items(quote! { pub struct D { pub e: E, pub g: G } });
        m.changed(1, &changed[0]);
        assert_eq!(m.naming(named(&["G"]).iter()), vec![1]);
    }
}
