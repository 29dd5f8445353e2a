//! Which crate each item of the tool types goes to when they are split
//! over several ([`crate::Builder::tool_parts`]), so that no one compiler
//! process holds them all: a first build of 800 distinct real tools
//! peaked at 2.9 GB in one crate, and at 0.92 GB split in four parts and
//! a shared crate (`docs/performance.md`).
//!
//! The tools are cut, in manifest order, into `count` parts of about as
//! many tools each. An item goes to the one part whose tools reach it
//! (through the types it names), or to the shared crate when tools of
//! several parts reach it, or none do (the helper modules). The shared
//! crate is closed under what it names, so it depends on no part; each
//! part depends on the shared crate only. An item and the impls of it go
//! together; `use` items go everywhere, allowed to be unused (a part may
//! not need what the whole file did).

use std::collections::{BTreeMap, VecDeque};

use syn::Item;

use super::mentions::Mentions;
use super::polish::item_name;
use super::shared::impl_self_name;
use super::ToolBinding;

/// `file` split over `count` parts for the tools of `bindings` (in
/// manifest order): the shared file (with `file`'s attributes), then one
/// file per part.
pub(crate) fn split_file(
    file: syn::File,
    bindings: &[ToolBinding],
    count: usize,
) -> (syn::File, Vec<syn::File>) {
    let roots: Vec<Vec<String>> = bindings
        .iter()
        .map(|b| {
            std::iter::once(b.input.clone())
                .chain(b.output.clone())
                .collect()
        })
        .collect();
    let mut file = file;
    let items = std::mem::take(&mut file.items);
    // A part's file: nothing but its items.
    let mut empty = file.clone();
    empty.shebang = None;
    empty.attrs.clear();
    let Split { shared, parts } = split(items, &roots, count);
    file.items = shared;
    let parts = parts
        .into_iter()
        .map(|items| syn::File {
            items,
            ..empty.clone()
        })
        .collect();
    (file, parts)
}

/// Where the items went: `shared` first, then one list per part, each in
/// the file's order.
pub(crate) struct Split {
    pub shared: Vec<Item>,
    pub parts: Vec<Vec<Item>>,
}

/// Splits `items` over `count` parts (at least one) given each tool's
/// root types (its input and output, in manifest order).
pub(crate) fn split(items: Vec<Item>, roots: &[Vec<String>], count: usize) -> Split {
    let count = count.max(1);
    let owners: Vec<Option<String>> = items.iter().map(owner).collect();
    // Each owner name and the positions of its items.
    let mut groups: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
    for (at, name) in owners.iter().enumerate() {
        if let Some(name) = name {
            groups.entry(name).or_default().push(at);
        }
    }
    // Who names whom: an owner names another when one of its items does.
    let mentions = Mentions::of(&items);
    let mut names: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    let keys: Vec<&str> = groups.keys().copied().collect();
    for (name, naming) in keys.iter().zip(mentions.naming_each(&keys)) {
        for at in naming {
            if let Some(by) = owners[at].as_deref() {
                if by != *name {
                    names.entry(by).or_default().push(name);
                }
            }
        }
    }
    // The parts reaching each owner, as a set of part numbers.
    let mut reached: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
    let per = roots.len().div_ceil(count).max(1);
    for (tool, tool_roots) in roots.iter().enumerate() {
        let part = tool / per;
        let mut queue: VecDeque<&str> = tool_roots
            .iter()
            .filter_map(|r| groups.get_key_value(r.as_str()).map(|(k, _)| *k))
            .collect();
        while let Some(name) = queue.pop_front() {
            let parts = reached.entry(name).or_default();
            if parts.contains(&part) {
                continue;
            }
            parts.push(part);
            queue.extend(names.get(name).into_iter().flatten().copied());
        }
    }
    // `None`: the shared crate.
    let mut place: BTreeMap<&str, Option<usize>> = groups
        .keys()
        .map(|name| {
            let only = match reached.get(name).map(Vec::as_slice) {
                Some([part]) => Some(*part),
                _ => None,
            };
            (*name, only)
        })
        .collect();
    // What the shared crate names is shared too.
    let mut queue: VecDeque<&str> = place
        .iter()
        .filter(|(_, p)| p.is_none())
        .map(|(n, _)| *n)
        .collect();
    while let Some(name) = queue.pop_front() {
        for named in names.get(name).into_iter().flatten() {
            if let Some(slot @ Some(_)) = place.get_mut(named) {
                *slot = None;
                queue.push_back(named);
            }
        }
    }
    let mut split = Split {
        shared: Vec::new(),
        parts: (0..count).map(|_| Vec::new()).collect(),
    };
    let places: Vec<Option<Option<usize>>> = owners
        .iter()
        .map(|o| o.as_deref().map(|n| place[n]))
        .collect();
    for (item, at) in items.into_iter().zip(places) {
        match at {
            // A `use`: every crate imports what it imports, and may not
            // need it.
            None => {
                let mut item = item;
                if let Item::Use(used) = &mut item {
                    used.attrs.push(syn::parse_quote!(#[allow(unused_imports)]));
                }
                for part in &mut split.parts {
                    part.push(item.clone());
                }
                split.shared.push(item);
            }
            Some(None) => split.shared.push(item),
            Some(Some(part)) => split.parts[part].push(item),
        }
    }
    split
}

/// The name an item belongs to: its own, or for an impl the type it is
/// for; `None` for a `use`.
fn owner(item: &Item) -> Option<String> {
    match item {
        Item::Impl(imp) => impl_self_name(imp),
        Item::Use(_) => None,
        other => item_name(other).or_else(|| Some(String::from("#other"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use quote::quote;

    fn names(items: &[Item]) -> Vec<String> {
        items
            .iter()
            .map(|i| match i {
                Item::Impl(imp) => format!("impl {}", impl_self_name(imp).unwrap()),
                Item::Use(_) => "use".to_owned(),
                other => item_name(other).unwrap(),
            })
            .collect()
    }

    #[test]
    fn each_item_goes_where_its_tools_are_and_the_shared_crate_is_closed() {
        let file: syn::File = syn::parse2(quote! {
            use std::collections::BTreeMap;
            pub struct AInput { pub x: Only, pub s: Both }
            pub struct BInput { pub s: Both }
            pub struct Only { pub n: i64 }
            impl Only { pub fn new(n: i64) -> Self { Self { n } } }
            pub struct Both { pub leaf: Leaf }
            pub struct Leaf(String);
            pub mod defaults { pub fn zero() -> i64 { 0 } }
        })
        .unwrap();
        let roots = vec![vec!["AInput".to_owned()], vec!["BInput".to_owned()]];
        let split = split(file.items, &roots, 2);
        assert_eq!(names(&split.shared), ["use", "Both", "Leaf", "defaults"]);
        assert_eq!(
            names(&split.parts[0]),
            ["use", "AInput", "Only", "impl Only"]
        );
        assert_eq!(names(&split.parts[1]), ["use", "BInput"]);
    }
}
