//! What the two merges of `tools.rs` share — [`super::dedupe`] (identical
//! types) and [`super::default_fns`] (identical default functions): finding
//! groups of items with the same shape, the name a group gets, and
//! renaming what points at the merged-away items.

use std::collections::HashMap;
use std::hash::Hash;

use proc_macro2::{TokenStream, TokenTree};

/// The indices of items whose keys are equal, each group in order of first
/// appearance; only groups of two or more.
pub(super) fn groups<K: Hash + Eq>(keys: impl IntoIterator<Item = (usize, K)>) -> Vec<Vec<usize>> {
    // Keys are whole shapes, long and alike at the start: hashed once
    // rather than compared at each level of a tree. The groups keep the
    // order of `keys`.
    let mut members: Vec<Vec<usize>> = Vec::new();
    let mut index: HashMap<K, usize> = HashMap::new();
    for (i, key) in keys {
        let next = members.len();
        let at = *index.entry(key).or_insert(next);
        if at == next {
            members.push(Vec::new());
        }
        members[at].push(i);
    }
    members.into_iter().filter(|m| m.len() > 1).collect()
}

/// The trailing words all `names` share (as `split` divides each into
/// words), without a leading `input` or `output` word (in any case) when
/// more follow: the members of a tool's input and output share that word,
/// which says where they sit and not what they are (`InputLocation` and
/// `OutputLocation` give `Location`, `a_input_units` and `b_input_units`
/// give `units`). Empty when they share no word.
pub(super) fn shared_words<'a>(
    names: &'a [String],
    split: impl Fn(&'a str) -> Vec<&'a str>,
) -> Vec<&'a str> {
    let split: Vec<Vec<&str>> = names.iter().map(|n| split(n)).collect();
    let Some(shortest) = split.iter().map(Vec::len).min() else {
        return Vec::new();
    };
    let first = &split[0];
    let mut n = 0;
    while n < shortest
        && split
            .iter()
            .all(|w| w[w.len() - 1 - n] == first[first.len() - 1 - n])
    {
        n += 1;
    }
    let mut words = &first[first.len() - n..];
    if words.len() > 1
        && (words[0].eq_ignore_ascii_case("input") || words[0].eq_ignore_ascii_case("output"))
    {
        words = &words[1..];
    }
    words.to_vec()
}

/// `tokens` with every leaf for which `replace` gives a replacement
/// replaced, at any depth; `replace` sees the leaf and the trees before
/// it in its group.
pub(super) fn rewrite(
    tokens: TokenStream,
    replace: &dyn Fn(&TokenTree, &[TokenTree]) -> Option<TokenTree>,
) -> TokenStream {
    let mut trees: Vec<TokenTree> = tokens.into_iter().collect();
    rewrite_trees(&mut trees, replace);
    trees.into_iter().collect()
}

/// [`rewrite`] of the trees of one group, in place; whether anything
/// changed. Most streams have nothing to replace: their leaves are not
/// copied, and their groups are taken apart and put back, not copied.
fn rewrite_trees(
    trees: &mut [TokenTree],
    replace: &dyn Fn(&TokenTree, &[TokenTree]) -> Option<TokenTree>,
) -> bool {
    // `replace` sees the leaves as they were: new ones are put in place
    // once every tree has been seen. (It looks at leaves only, so a group
    // is rewritten and put back at once.)
    let mut new: Vec<(usize, TokenTree)> = Vec::new();
    let mut changed = false;
    for i in 0..trees.len() {
        if let TokenTree::Group(_) = &trees[i] {
            let mut group = super::Taken::from_slot(trees, i);
            let mut inner: Vec<TokenTree> = std::mem::take(&mut group.stream).into_iter().collect();
            changed |= rewrite_trees(&mut inner, replace);
            trees[i] = group.rebuild(inner.into_iter().collect());
        } else if let Some(tree) = replace(&trees[i], &trees[..i]) {
            new.push((i, tree));
        }
    }
    changed |= !new.is_empty();
    for (i, tree) in new {
        trees[i] = tree;
    }
    changed
}

/// Applies a token-level rename to a parsed file in place, as [`rewrite`]
/// would to its tokens, without writing the file out and parsing it back
/// (which costs more than all the merging): `ident` renames every
/// identifier of the tree that it gives a new name for, and `opaque` is
/// applied with [`rewrite`] to the token streams syn leaves unparsed
/// (attribute arguments such as `#[serde(…)]`, macro bodies).
pub(super) struct InPlace<'a> {
    /// The new name of an identifier of the tree, if any.
    pub ident: &'a dyn Fn(&syn::Ident) -> Option<String>,
    /// What [`rewrite`] applies to the unparsed token streams.
    pub opaque: &'a dyn Fn(&TokenTree, &[TokenTree]) -> Option<TokenTree>,
}

impl syn::visit_mut::VisitMut for InPlace<'_> {
    fn visit_ident_mut(&mut self, i: &mut syn::Ident) {
        if let Some(new) = (self.ident)(i) {
            *i = syn::Ident::new(&new, i.span());
        }
    }

    fn visit_meta_list_mut(&mut self, m: &mut syn::MetaList) {
        syn::visit_mut::visit_path_mut(self, &mut m.path);
        self.visit_meta_list_tokens(m);
    }

    fn visit_macro_mut(&mut self, m: &mut syn::Macro) {
        syn::visit_mut::visit_path_mut(self, &mut m.path);
        self.visit_macro_tokens(m);
    }
}

impl InPlace<'_> {
    /// `opaque` applied to the arguments of an attribute.
    pub(super) fn visit_meta_list_tokens(&self, m: &mut syn::MetaList) {
        m.tokens = rewrite(std::mem::take(&mut m.tokens), self.opaque);
    }

    /// `opaque` applied to the body of a macro.
    pub(super) fn visit_macro_tokens(&self, m: &mut syn::Macro) {
        m.tokens = rewrite(std::mem::take(&mut m.tokens), self.opaque);
    }
}

/// The name of the type an impl is for (its last path segment).
pub(crate) fn impl_self_name(imp: &syn::ItemImpl) -> Option<String> {
    match &*imp.self_ty {
        syn::Type::Path(p) => p.path.segments.last().map(|s| s.ident.to_string()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(list: &[&str]) -> Vec<String> {
        list.iter().map(|n| (*n).to_owned()).collect()
    }

    #[test]
    fn groups_keep_first_appearance_order_and_drop_singletons() {
        let keys = [(0, "a"), (1, "b"), (2, "a"), (3, "c"), (4, "b"), (5, "a")]
            .map(|(i, k)| (i, k.to_owned()));
        assert_eq!(groups(keys), vec![vec![0, 2, 5], vec![1, 4]]);
    }

    /// PascalCase words, split by hand.
    fn pascal(name: &str) -> Vec<&str> {
        match name {
            "AInputLocation" => vec!["A", "Input", "Location"],
            "BInputLocation" => vec!["B", "Input", "Location"],
            _ => vec![name],
        }
    }

    #[test]
    fn shared_words_drop_a_leading_input_or_output() {
        let n = names(&["AInputLocation", "BInputLocation"]);
        assert_eq!(shared_words(&n, pascal), ["Location"]);
        let n = names(&["a_input_units", "b_output_units"]);
        assert_eq!(
            shared_words(&n, |n: &str| n.split('_').collect()),
            ["units"]
        );
        // `input` alone stays: nothing would be left.
        let n = names(&["a_input", "b_input"]);
        assert_eq!(
            shared_words(&n, |n: &str| n.split('_').collect()),
            ["input"]
        );
        let n = names(&["from", "to"]);
        assert!(shared_words(&n, |n: &str| n.split('_').collect()).is_empty());
    }
}
