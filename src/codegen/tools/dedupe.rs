//! One type for identical inline shapes across tools. A `units` property
//! declared as `{"enum": ["metric", "imperial"]}` in three schemas gives
//! typify three enums (`GetForecastInputUnits`, `GetForecastOutputUnits`,
//! ...) that a handler would have to convert between by hand; a `location`
//! object repeated in two tools gives two structs. Enums whose variants and
//! attributes are the same, and structs whose fields and attributes are
//! the same (doc comments aside; for enums, which variant is the default
//! aside), become one, named after what their names share (the common
//! trailing words: `Units`, `Location`). Merging repeats until nothing
//! changes, so structs that become the same once their members merged
//! merge too. A tool's own `…Input` and `…Output` types are never merged;
//! types that share no trailing word (`from` and `to`), or whose shared
//! name is taken or would shadow a standard name, stay apart. A kept enum
//! derives `Default` when any of them had a default, provided they agree
//! on it; enums with different defaults stay apart.

use std::cell::{Cell, RefCell};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt::Write;

use proc_macro2::{Ident, TokenStream, TokenTree};
use quote::ToTokens;
use syn::punctuated::Punctuated;
use syn::Token;

use super::mentions::Mentions;
use super::shared::impl_self_name;
use super::sources;

/// Names a merged type never gets: they would shadow a name that
/// generated code or its users write unqualified.
const RESERVED: &[&str] = &[
    "Box",
    "Clone",
    "Copy",
    "Debug",
    "Default",
    "Display",
    "Eq",
    "Err",
    "Error",
    "From",
    "FromStr",
    "Hash",
    "Into",
    "Iterator",
    "Map",
    "None",
    "Ok",
    "Option",
    "Ord",
    "PartialEq",
    "PartialOrd",
    "Result",
    "Self",
    "Send",
    "Sized",
    "Some",
    "String",
    "Sync",
    "ToString",
    "TryFrom",
    "Value",
    "Vec",
];

/// Merges identical enums and structs of the body of `tools.rs`, except
/// the types named in `roots` (each tool's input and output); the merged
/// file, parsed once per round, or the tokens when they do not parse.
pub(crate) fn dedupe(
    tokens: TokenStream,
    roots: &BTreeSet<String>,
) -> Result<syn::File, TokenStream> {
    let mut file = syn::parse2::<syn::File>(tokens.clone()).map_err(|_| tokens)?;
    let mut shapes = Shapes::default();
    // Each round merges at least one group, so this ends; the bound is a
    // guard against a shape that renames back and forth.
    for _ in 0..64 {
        let items = file.items.len();
        file = match super::default_fns::merge(file) {
            Ok(merged) => {
                // Fields name the merged functions in their attributes. The
                // merge changes only inside `mod defaults` and renames
                // functions, which no type merge renames: which items name
                // which types stays known while the items stay the same.
                shapes.clear();
                if merged.items.len() != items {
                    shapes.mentions = None;
                }
                merged
            }
            Err(unchanged) => match merge_once(unchanged, roots, &mut shapes) {
                Ok(merged) => merged,
                Err(unchanged) => return Ok(unrepeat(unchanged, roots, &mut shapes)),
            },
        };
    }
    Ok(unrepeat(file, roots, &mut shapes))
}

/// The file with every type whose name ends with the same words twice
/// (`ReadMediaFileTypeResourceResource`: a `resource` property of the
/// `resource` member) named with them once, where that name is free; the
/// types in `roots` keep their names. Only the items that name a renamed
/// type are visited, when `shapes` knows which.
fn unrepeat(mut file: syn::File, roots: &BTreeSet<String>, shapes: &mut Shapes) -> syn::File {
    let names: BTreeSet<String> = file.items.iter().filter_map(item_name).collect();
    let mut taken = names.clone();
    let mut renames = BTreeMap::new();
    for name in names.iter().filter(|n| !roots.contains(*n)) {
        let w = words(name);
        let len = w.len();
        let Some(k) = (1..=len / 2)
            .rev()
            .find(|&k| w[len - 2 * k..len - k] == w[len - k..])
        else {
            continue;
        };
        let short = w[..len - k].concat();
        if !taken.contains(&short) && !RESERVED.contains(&short.as_str()) {
            taken.insert(short.clone());
            renames.insert(name.clone(), short);
        }
    }
    rename_in(&mut file, &renames, shapes);
    file
}

/// The shapes computed so far. A round renames a few names in a few
/// items; only the shapes of those are computed again, and only those
/// items are visited to rename (found by `mentions`).
#[derive(Default)]
struct Shapes {
    /// Of the enums and structs, by type name.
    types: HashMap<String, String>,
    /// Of the newtypes' impls (their checks), all of one newtype's
    /// together, by its name.
    impls: HashMap<String, String>,
    /// Which items name which identifiers; made by the first round.
    /// Without it, a rename visits every item.
    mentions: Option<Mentions>,
}

impl Shapes {
    /// Forgets every shape (not which items name which identifiers).
    fn clear(&mut self) {
        self.types.clear();
        self.impls.clear();
    }

    /// Forgets what was computed of `name`, as a type or as the type its
    /// impls are for.
    fn forget(&mut self, name: &str) {
        self.types.remove(name);
        self.impls.remove(name);
    }
}

/// One round: the file with every group of identical types merged; the
/// file unchanged (as `Err`) when there is nothing to merge.
fn merge_once(
    mut file: syn::File,
    roots: &BTreeSet<String>,
    shapes: &mut Shapes,
) -> Result<syn::File, syn::File> {
    if shapes.mentions.is_none() {
        shapes.mentions = Some(Mentions::of(&file.items));
    }
    // Types by shape, in order of first appearance. A newtype's checks live
    // in its impls (`FromStr` with `minLength`…), which are its shape too.
    let newtypes: BTreeSet<String> = file
        .items
        .iter()
        .filter_map(|item| match item {
            syn::Item::Struct(s) if matches!(s.fields, syn::Fields::Unnamed(_)) => {
                Some(s.ident.to_string())
            }
            _ => None,
        })
        .collect();
    // Only the newtypes whose impls changed since are written out again.
    let mut fresh: BTreeMap<String, String> = BTreeMap::new();
    for item in &file.items {
        if let syn::Item::Impl(imp) = item {
            let name = impl_self_name(imp).unwrap_or_default();
            if newtypes.contains(&name) && !shapes.impls.contains_key(&name) {
                let text = fresh.entry(name.clone()).or_default();
                write_shape(imp.to_token_stream(), &name, text);
            }
        }
    }
    shapes.impls.extend(fresh);
    // Every shape computed first, then borrowed as the groups' keys.
    for item in &file.items {
        let (name, shape): (_, &dyn Fn() -> String) = match item {
            syn::Item::Enum(e) => (e.ident.to_string(), &|| enum_shape(e)),
            syn::Item::Struct(s) => (s.ident.to_string(), &|| struct_shape(s)),
            _ => continue,
        };
        if !roots.contains(&name) && !shapes.types.contains_key(&name) {
            shapes.types.insert(name, shape());
        }
    }
    let (types, impls) = (&shapes.types, &shapes.impls);
    let groups = super::shared::groups(file.items.iter().enumerate().filter_map(|(i, item)| {
        let (name, own) = match item {
            syn::Item::Enum(e) => (e.ident.to_string(), None),
            syn::Item::Struct(s) => {
                let name = s.ident.to_string();
                let own = impls.get(&name).map(String::as_str);
                (name, Some(own))
            }
            _ => return None,
        };
        // An enum's key has no impls part, so it never equals a struct's.
        types.get(&name).map(|shape| (i, (shape.as_str(), own)))
    }));
    let groups: Vec<Vec<usize>> = groups
        .into_iter()
        .flat_map(|g| by_last_word(&file, g))
        .collect();

    let mut renames: BTreeMap<String, String> = BTreeMap::new();
    let mut used: BTreeSet<String> = file.items.iter().filter_map(item_name).collect();
    let mut keep_default: BTreeMap<usize, String> = BTreeMap::new();
    let mut gone: BTreeSet<String> = BTreeSet::new();
    for members in &groups {
        let names: Vec<String> = members
            .iter()
            .filter_map(|&i| item_name(&file.items[i]))
            .collect();
        let defaults: BTreeSet<String> = members
            .iter()
            .filter_map(|&i| match &file.items[i] {
                syn::Item::Enum(e) => default_variant(e),
                _ => None,
            })
            .collect();
        if defaults.len() > 1 {
            continue;
        }
        // Uses that share no trailing name (`from` and `to`) stay apart, as
        // do those whose shared name is taken.
        let free = |n: &String| !used.contains(n) && !RESERVED.contains(&n.as_str());
        let Some(name) = merged_name(&names).into_iter().flatten().find(free) else {
            continue;
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
        // A doc comment all of them share stays; else one says what this is.
        // Either way the kept one names the places of all of them.
        let mut marks = String::new();
        let mut texts: BTreeSet<String> = BTreeSet::new();
        for &i in members {
            let mut attrs = attrs_of(&mut file.items[i]).cloned().unwrap_or_default();
            marks.extend(sources::take(&mut attrs).into_iter().map(sources::marker));
            texts.insert(
                attrs
                    .iter()
                    .filter(|a| a.path().is_ident("doc"))
                    .map(|a| a.to_token_stream().to_string())
                    .collect(),
            );
        }
        let shared_doc = texts.len() == 1 && texts.iter().all(|d| !d.is_empty());
        let what = if matches!(file.items[members[0]], syn::Item::Enum(_)) {
            "values"
        } else {
            "shape"
        };
        let Some(attrs) = attrs_of(&mut file.items[members[0]]) else {
            continue;
        };
        sources::take(attrs);
        if !shared_doc {
            attrs.retain(|a| !a.path().is_ident("doc"));
            let doc = format!("`{name}`: the same {what} in several places of the tools' schemas.");
            attrs.insert(0, syn::parse_quote!(#[doc = #doc]));
        }
        if !marks.is_empty() {
            let end = attrs
                .iter()
                .rposition(|a| a.path().is_ident("doc"))
                .map_or(0, |i| i + 1);
            attrs.insert(end, syn::parse_quote!(#[doc = #marks]));
        }
    }
    if renames.is_empty() {
        return Err(file);
    }
    let removed: BTreeSet<usize> = groups
        .iter()
        .flat_map(|m| m[1..].iter().copied())
        .filter(|&i| item_name(&file.items[i]).is_some_and(|n| gone.contains(&n)))
        .collect();
    for (i, variant) in keep_default {
        if let Some(syn::Item::Enum(e)) = file.items.get_mut(i) {
            add_default(e, &variant);
            if let Some(mentions) = &mut shapes.mentions {
                mentions.changed(i, &file.items[i]);
            }
        }
    }
    let items = std::mem::take(&mut file.items);
    let mut kept = Vec::with_capacity(items.len());
    file.items = items
        .into_iter()
        .enumerate()
        .filter(|(i, item)| match item {
            _ if removed.contains(i) => false,
            // The impls for or naming the members that go (`From<Gone> for
            // Value`); the kept one's are renamed below.
            syn::Item::Impl(imp) if names_any(imp, &gone) => {
                if let Some(name) = impl_self_name(imp) {
                    shapes.impls.remove(&name);
                }
                false
            }
            _ => true,
        })
        .map(|(i, item)| {
            kept.push(i);
            item
        })
        .collect();
    if let Some(mentions) = &mut shapes.mentions {
        mentions.keep(&kept);
    }
    rename_in(&mut file, &renames, shapes);
    Ok(file)
}

/// Appends `tokens` to `text` as the text of a shape: the identifier
/// `name` as `Shape`, each tree written so that different streams never
/// read the same (rather than renamed as tokens and printed, which cost
/// twice as much).
fn write_shape(tokens: TokenStream, name: &str, text: &mut String) {
    for tree in tokens {
        match tree {
            TokenTree::Group(g) => {
                let (open, close) = match g.delimiter() {
                    proc_macro2::Delimiter::Parenthesis => ("(", ")"),
                    proc_macro2::Delimiter::Brace => ("{", "}"),
                    proc_macro2::Delimiter::Bracket => ("[", "]"),
                    proc_macro2::Delimiter::None => ("\u{1}", "\u{2}"),
                };
                text.push_str(open);
                write_shape(g.stream(), name, text);
                text.push_str(close);
            }
            TokenTree::Ident(i) => {
                let start = text.len();
                let _ = write!(text, "{i}");
                if text[start..] == *name {
                    text.truncate(start);
                    text.push_str("Shape");
                }
                text.push(' ');
            }
            TokenTree::Punct(p) => {
                text.push(p.as_char());
                if p.spacing() == proc_macro2::Spacing::Alone {
                    text.push(' ');
                }
            }
            TokenTree::Literal(l) => {
                let _ = write!(text, "{l} ");
            }
        }
    }
}

/// The attributes of an enum or struct.
fn attrs_of(item: &mut syn::Item) -> Option<&mut Vec<syn::Attribute>> {
    match item {
        syn::Item::Enum(e) => Some(&mut e.attrs),
        syn::Item::Struct(s) => Some(&mut s.attrs),
        _ => None,
    }
}

/// A group of same-shaped types whose names share no trailing word (the
/// `rich_text` of a paragraph, a quote, a heading…) split into the
/// types that end in the same word, each of which can be named; the
/// group as it is when its names can be merged.
fn by_last_word(file: &syn::File, group: Vec<usize>) -> Vec<Vec<usize>> {
    let names: Vec<String> = group
        .iter()
        .filter_map(|&i| item_name(&file.items[i]))
        .collect();
    if names.len() != group.len() || merged_name(&names).is_some() {
        return vec![group];
    }
    let mut by_word: Vec<(&str, Vec<usize>)> = Vec::new();
    for (name, i) in names.iter().zip(group) {
        let last = words(name).last().copied().unwrap_or_default();
        match by_word.iter_mut().find(|(w, _)| *w == last) {
            Some((_, members)) => members.push(i),
            None => by_word.push((last, vec![i])),
        }
    }
    by_word
        .into_iter()
        .map(|(_, members)| members)
        .filter(|m| m.len() > 1)
        .collect()
}

/// The names for the merged type, best first: the trailing words the
/// names share ([`super::shared::shared_words`]: `InputLocation` gives
/// `Location`), said once when they end with the words they start with
/// (`VectorSearchVectorSearch` and `BulletedListItemBlockRequest
/// BulletedListItem`, the item of a `bulletedListItemBlockRequest`
/// definition, give `VectorSearch` and `BulletedListItem`), then as they
/// are; for names that share no trailing word, up to three properties of
/// one tool (`ConvertTemperatureInputFrom` and `…To`), the leading words
/// they share and their own last words (`ConvertTemperatureFromOrTo`).
/// `None` when that does not start with a letter. When every name is
/// taken the types stay apart rather than take a longer one, which beside
/// the other would read as a variant of it (`InputSort` beside `Sort`).
fn merged_name(names: &[String]) -> Option<Vec<String>> {
    let shared = super::shared::shared_words(names, words);
    let len = shared.len();
    let mut out = Vec::new();
    if let Some(k) = (1..len).rev().find(|&k| shared[len - k..] == shared[..k]) {
        out.push(shared[len - k..].concat());
    }
    if shared.is_empty() {
        out.push(alternatives(names)?);
    } else {
        out.push(shared.concat());
    }
    out.retain(|n| n.starts_with(|c: char| c.is_ascii_alphabetic()));
    (!out.is_empty()).then_some(out)
}

/// `<leading words><Tail>Or<Tail>…` for two or three names that share
/// their leading words (an `Input` or `Output` among them dropped) and
/// differ in one last word each.
fn alternatives(names: &[String]) -> Option<String> {
    if !(2..=3).contains(&names.len()) {
        return None;
    }
    let split: Vec<Vec<&str>> = names.iter().map(|n| words(n)).collect();
    let len = split[0].len();
    if len < 2
        || split
            .iter()
            .any(|w| w.len() != len || w[..len - 1] != split[0][..len - 1])
    {
        return None;
    }
    let lead: Vec<&str> = split[0][..len - 1]
        .iter()
        .copied()
        .filter(|w| *w != "Input" && *w != "Output")
        .collect();
    let tails: Vec<&str> = split.iter().map(|w| w[len - 1]).collect();
    (!lead.is_empty()).then(|| format!("{}{}", lead.concat(), tails.join("Or")))
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

/// The enum without its name, doc comments (its members' and their
/// fields' too), `Default` derive and
/// `#[default]` marks, as text.
fn enum_shape(e: &syn::ItemEnum) -> String {
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
        v.attrs
            .retain(|a| !a.path().is_ident("doc") && !a.path().is_ident("default"));
        for f in v.fields.iter_mut() {
            f.attrs.retain(|a| !a.path().is_ident("doc"));
        }
    }
    format!("enum {}", e.to_token_stream())
}

/// The struct without its name and doc comments, as text. Fields with a
/// serde default name their default function, which
/// [`super::default_fns`] has merged with identical ones by then.
fn struct_shape(s: &syn::ItemStruct) -> String {
    let mut s = s.clone();
    s.ident = Ident::new("Shape", s.ident.span());
    s.attrs.retain(|a| !a.path().is_ident("doc"));
    for f in s.fields.iter_mut() {
        f.attrs.retain(|a| !a.path().is_ident("doc"));
    }
    format!("struct {}", s.to_token_stream())
}

fn default_variant(e: &syn::ItemEnum) -> Option<String> {
    e.variants
        .iter()
        .find(|v| v.attrs.iter().any(|a| a.path().is_ident("default")))
        .map(|v| v.ident.to_string())
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

/// Whether the impl's header (its trait and type) names any of `names`:
/// the identifiers of its type and trait, read in the tree (writing the
/// header out as tokens for each impl of each round cost more).
fn names_any(imp: &syn::ItemImpl, names: &BTreeSet<String>) -> bool {
    use syn::visit::Visit;
    struct Finder<'a> {
        names: &'a BTreeSet<String>,
        text: String,
        found: bool,
    }
    impl<'ast> Visit<'ast> for Finder<'_> {
        fn visit_ident(&mut self, i: &'ast Ident) {
            if !self.found {
                self.text.clear();
                let _ = write!(self.text, "{i}");
                self.found = self.names.contains(&self.text);
            }
        }
    }
    let mut finder = Finder {
        names,
        text: String::new(),
        found: false,
    };
    finder.visit_type(&imp.self_ty);
    if let Some((path, _)) = &imp.trait_ {
        finder.visit_path(path);
    }
    finder.found
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

/// Renames every use of the names in `renames`, and forgets the shapes of
/// the types it renamed or renamed something in.
fn rename_in(file: &mut syn::File, renames: &BTreeMap<String, String>, shapes: &mut Shapes) {
    use syn::visit_mut::VisitMut;
    if renames.is_empty() {
        return;
    }
    let lookup: HashMap<&str, &str> = renames
        .iter()
        .map(|(old, new)| (old.as_str(), new.as_str()))
        .collect();
    // Most identifiers are not renamed: each is written into one buffer
    // to be looked up, not into a new string.
    let buffer = RefCell::new(String::new());
    let changed = Cell::new(false);
    let find = |i: &Ident| -> Option<&str> {
        let mut b = buffer.borrow_mut();
        b.clear();
        let _ = write!(b, "{i}");
        let new = lookup.get(b.as_str()).copied();
        changed.set(changed.get() || new.is_some());
        new
    };
    let mut visitor = super::shared::InPlace {
        ident: &|i| find(i).map(str::to_owned),
        opaque: &|tree, _| match tree {
            TokenTree::Ident(i) => find(i).map(|new| TokenTree::Ident(Ident::new(new, i.span()))),
            _ => None,
        },
    };
    for old in renames.keys() {
        shapes.forget(old);
    }
    for attr in &mut file.attrs {
        visitor.visit_attribute_mut(attr);
    }
    // The items that name an old name, when the index says which.
    let positions = match &shapes.mentions {
        Some(mentions) => mentions.naming(renames.keys()),
        None => (0..file.items.len()).collect(),
    };
    for at in positions {
        let item = &mut file.items[at];
        changed.set(false);
        visitor.visit_item_mut(item);
        if changed.get() {
            match item {
                syn::Item::Impl(imp) => {
                    if let Some(name) = impl_self_name(imp) {
                        shapes.impls.remove(&name);
                    }
                }
                _ => {
                    if let Some(name) = item_name(item) {
                        shapes.types.remove(&name);
                    }
                }
            }
        }
    }
    if let Some(mentions) = &mut shapes.mentions {
        mentions.renamed(renames);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use quote::quote;

    /// The merged file as tokens.
    fn dedupe(tokens: TokenStream, roots: &BTreeSet<String>) -> TokenStream {
        super::dedupe(tokens, roots).map_or_else(|t| t, |f| f.into_token_stream())
    }

    fn roots(names: &[&str]) -> BTreeSet<String> {
        names.iter().map(|n| (*n).to_owned()).collect()
    }

    fn names_of(tokens: &TokenStream) -> Vec<String> {
        let file: syn::File = syn::parse2(tokens.clone()).unwrap();
        file.items.iter().filter_map(item_name).collect()
    }

    /// Two tools' inputs with the same nested object whose enum member is
    /// also the same: the enums merge first, then the structs, which only
    /// became equal once their members did.
    #[test]
    fn structs_merge_once_their_members_merged() {
        let tokens = quote! {
            pub struct AInput { pub location: AInputLocation }
            pub struct BInput { pub location: BInputLocation }
            /// Where.
            pub struct AInputLocation { pub lat: f64, pub datum: AInputLocationDatum }
            /// Where.
            pub struct BInputLocation { pub lat: f64, pub datum: BInputLocationDatum }
            pub enum AInputLocationDatum { Wgs84 }
            pub enum BInputLocationDatum { Wgs84 }
            impl ::std::convert::From<&BInputLocation> for BInputLocation {
                fn from(value: &BInputLocation) -> Self { value.clone() }
            }
        };
        let out = dedupe(tokens, &roots(&["AInput", "BInput"]));
        assert_eq!(
            names_of(&out),
            ["AInput", "BInput", "Location", "LocationDatum"]
        );
        let text = out.to_string();
        assert!(text.contains("pub location : Location"), "{text}");
        assert!(
            !text.contains("BInputLocation"),
            "the impl of the merged-away struct goes: {text}"
        );
        assert!(
            text.contains("# [doc = r\" Where.\"] pub struct Location"),
            "a shared doc comment stays: {text}"
        );
        assert!(text.contains("`LocationDatum`: the same values"), "{text}");
    }

    /// Newtypes whose impls' bodies name two identical enums: once the
    /// enums are one, the impls are the same text, and the newtypes merge in the
    /// next round (the impls' shapes of the first round are not reused).
    #[test]
    fn newtypes_merge_once_their_impls_name_the_same_type() {
        let tokens = quote! {
            pub enum AInputLinkKind { Web }
            pub enum BInputLinkKind { Web }
            pub struct AInputLink(pub ::serde_json::Value);
            impl ::std::default::Default for AInputLink {
                fn default() -> Self { Self(AInputLinkKind::Web.into()) }
            }
            pub struct BInputLink(pub ::serde_json::Value);
            impl ::std::default::Default for BInputLink {
                fn default() -> Self { Self(BInputLinkKind::Web.into()) }
            }
        };
        let out = dedupe(tokens, &roots(&[]));
        let names: Vec<String> = names_of(&out);
        assert_eq!(names, ["LinkKind", "Link"], "{out}");
        assert!(
            out.to_string().contains("Self (LinkKind :: Web . into ())"),
            "{out}"
        );
    }

    /// typify's newtypes come with impls for other types that name them
    /// (`From<X> for Value`): those of the one that goes go too.
    #[test]
    fn impls_naming_a_merged_away_type_go_with_it() {
        let tokens = quote! {
            pub struct ALink(pub ::serde_json::Value);
            impl ::std::convert::From<ALink> for ::serde_json::Value { fn from(value: ALink) -> Self { value.0 } }
            impl ::std::ops::Deref for ALink { type Target = ::serde_json::Value; fn deref(&self) -> &::serde_json::Value { &self.0 } }
            pub struct BLink(pub ::serde_json::Value);
            impl ::std::convert::From<BLink> for ::serde_json::Value { fn from(value: BLink) -> Self { value.0 } }
            impl ::std::ops::Deref for BLink { type Target = ::serde_json::Value; fn deref(&self) -> &::serde_json::Value { &self.0 } }
        };
        let out = dedupe(tokens, &roots(&[]));
        let file: syn::File = syn::parse2(out.clone()).unwrap();
        // The kept newtype and its two impls.
        assert_eq!(file.items.len(), 3, "{out}");
        assert!(!out.to_string().contains("BLink"), "{out}");
    }

    /// Two nested objects that differ only in which (identical) default
    /// function their field names: the functions merge, then the structs.
    #[test]
    fn structs_merge_once_their_defaults_merged() {
        let tokens = quote! {
            pub struct AInput { pub page: AInputPage }
            pub struct BInput { pub page: BInputPage }
            pub struct AInputPage { #[serde(default = "defaults::a_input_page_size")] pub size: i64 }
            pub struct BInputPage { #[serde(default = "defaults::b_input_page_size")] pub size: i64 }
            pub mod defaults {
                pub fn a_input_page_size() -> i64 { 30 }
                pub fn b_input_page_size() -> i64 { 30 }
            }
        };
        let out = dedupe(tokens, &roots(&["AInput", "BInput"]));
        assert_eq!(names_of(&out), ["AInput", "BInput", "Page", "defaults"]);
        let text = out.to_string();
        assert!(text.contains("default = \"defaults::page_size\""), "{text}");
        assert_eq!(text.matches("pub fn page_size").count(), 1, "{text}");
    }

    #[test]
    fn a_tools_own_input_and_output_types_never_merge() {
        let tokens = quote! {
            pub struct GetAInput { pub city: String }
            pub struct GetBInput { pub city: String }
        };
        let out = dedupe(tokens.clone(), &roots(&["GetAInput", "GetBInput"]));
        assert_eq!(out.to_string(), tokens.to_string());
    }

    #[test]
    fn different_shapes_stay_apart_and_uses_without_a_shared_tail_are_named_by_each() {
        let tokens = quote! {
            pub struct ConvertInputFrom { pub at: String }
            pub struct ConvertInputTo { pub at: String }
            pub struct XPoint { pub lat: f64 }
            pub struct YPoint { pub lat: f32 }
        };
        let out = dedupe(tokens.clone(), &roots(&[]));
        assert_eq!(names_of(&out), ["ConvertFromOrTo", "XPoint", "YPoint"]);
    }

    #[test]
    fn newtypes_with_different_checks_stay_apart() {
        let tokens = quote! {
            pub struct StringsInputLong(String);
            impl std::str::FromStr for StringsInputLong {
                type Err = String;
                fn from_str(v: &str) -> Result<Self, String> { if v.len() < 20 { return Err("short".into()) } Ok(Self(v.into())) }
            }
            pub struct StringsInputShort(String);
            impl std::str::FromStr for StringsInputShort {
                type Err = String;
                fn from_str(v: &str) -> Result<Self, String> { if v.len() > 3 { return Err("long".into()) } Ok(Self(v.into())) }
            }
        };
        assert_eq!(
            names_of(&dedupe(tokens, &roots(&[]))),
            ["StringsInputLong", "StringsInputShort"]
        );
    }

    #[test]
    fn a_shared_name_said_twice_is_said_once() {
        let tokens = quote! {
            pub struct AggregateVectorSearchVectorSearch { pub at: String }
            pub struct FindVectorSearchVectorSearch { pub at: String }
        };
        assert_eq!(names_of(&dedupe(tokens, &roots(&[]))), ["VectorSearch"]);
    }

    #[test]
    fn a_taken_or_reserved_name_keeps_them_apart() {
        let tokens = quote! {
            pub struct Point { pub lat: f64 }
            pub struct XPoint { pub lat: f64 }
            pub struct YPoint { pub lat: f64 }
            pub enum AString { A }
            pub enum BString { A }
        };
        let out = dedupe(tokens, &roots(&[]));
        assert_eq!(
            names_of(&out),
            ["Point", "XPoint", "YPoint", "AString", "BString"]
        );
    }

    /// Same-shaped types whose names share no trailing word merge by the
    /// word they end with; a name that ends with the words it starts with
    /// says them once.
    #[test]
    fn same_shapes_without_a_shared_name_merge_by_their_last_word() {
        let tokens = quote! {
            pub struct AInput { pub a: ACommentParagraphBlockRequestParagraph, pub b: ACommentQuoteBlockRequestQuote }
            pub struct BInput { pub a: BPageParagraphBlockRequestParagraph, pub b: BPageQuoteBlockRequestQuote }
            pub struct ACommentParagraphBlockRequestParagraph { pub rich_text: Vec<String> }
            pub struct ACommentQuoteBlockRequestQuote { pub rich_text: Vec<String> }
            pub struct BPageParagraphBlockRequestParagraph { pub rich_text: Vec<String> }
            pub struct BPageQuoteBlockRequestQuote { pub rich_text: Vec<String> }
        };
        let out = dedupe(tokens, &roots(&["AInput", "BInput"]));
        assert_eq!(names_of(&out), ["AInput", "BInput", "Paragraph", "Quote"]);
    }

    #[test]
    fn a_name_ending_with_the_same_words_twice_says_them_once() {
        let tokens = quote! {
            pub struct ReadMediaFileInput { pub r: ReadMediaFileTypeResourceResource }
            pub struct ReadMediaFileTypeResourceResource { pub uri: String }
            pub struct TakenTwiceTwice { pub x: Taken }
            pub struct Taken { pub y: String }
            pub struct TakenTwice { pub z: String }
        };
        let out = dedupe(tokens, &roots(&["ReadMediaFileInput"]));
        assert_eq!(
            names_of(&out),
            [
                "ReadMediaFileInput",
                "ReadMediaFileTypeResource",
                "TakenTwiceTwice",
                "Taken",
                "TakenTwice"
            ]
        );
        assert!(
            out.to_string()
                .contains("pub r : ReadMediaFileTypeResource }"),
            "{out}"
        );
    }
}
