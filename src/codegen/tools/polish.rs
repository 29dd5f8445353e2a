//! The last pass over the tool types: what makes typify's output read like
//! Rust a person would write, and decode every value a schema allows.
//!
//! - **Absent-tolerant optional fields.** An `Option` field decodes from
//!   an absent property only while serde uses its own decoder; a field
//!   with `deserialize_with` (or `with`) needs `default` as well. Every
//!   `Option` field of every struct and struct variant that has a decoder
//!   of its own and no `default` gets one here, whoever added the decoder.
//! - **One derive list, in one order**: `Debug, Clone, Copy, Default,
//!   PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize`, then
//!   any other.
//! - **Doc comments with a space** (`/// Who to greet.`), and no
//!   placeholder docs that only repeat the type's name.
//! - **Constructors**: a struct whose fields are all optional derives
//!   `Default` (unless it implements it); any other gets
//!   `new(required…)`; every optional field gets a `with_<field>` setter,
//!   so any value is built in one expression.
//! - **Member names**: the members of a union typify could only number
//!   (`Variant0`) are named after a property only they have.
//! - **Short paths**: `Option`, `String`, `Vec`, `Box`, `Result`,
//!   `BTreeMap`, `Serialize`, `Deserialize` without their crate path
//!   (through `use` where not in the prelude), unless the file defines a
//!   type of that name, which then keeps every use of the standard one
//!   qualified.

use std::collections::{BTreeMap, BTreeSet};

use proc_macro2::{Ident, Span, TokenStream, TokenTree};
use quote::{format_ident, quote, ToTokens};
use syn::punctuated::Punctuated;
use syn::{Attribute, Fields, Item, Token};

use super::attrs::{derives, is_option, serde_args, wire_name};
use super::decode;
use super::sources::{self, doc_of, Sources};

/// Applies every step to the body of `tools.rs`: its syntax tree, so that
/// formatting it needs no second parse of the whole; its tokens (as
/// `Err`) only when the code this pass writes does not parse (it always
/// should).
pub(crate) fn polish(mut file: syn::File, sources: &Sources) -> Result<syn::File, TokenStream> {
    let defined: BTreeSet<String> = file.items.iter().filter_map(item_name).collect();
    name_members(&mut file);
    let usage = usage_docs(&file);
    for item in &mut file.items {
        match item {
            Item::Struct(s) => {
                absent_tolerant(&mut s.fields);
                item_docs(&mut s.attrs, &s.ident.to_string(), &usage, sources);
                tidy_attrs(&mut s.attrs);
                for f in s.fields.iter_mut() {
                    tidy_docs(&mut f.attrs);
                }
            }
            Item::Enum(e) => {
                item_docs(&mut e.attrs, &e.ident.to_string(), &usage, sources);
                tidy_attrs(&mut e.attrs);
                for v in &mut e.variants {
                    absent_tolerant(&mut v.fields);
                    tidy_docs(&mut v.attrs);
                    for f in v.fields.iter_mut() {
                        tidy_docs(&mut f.attrs);
                    }
                }
            }
            Item::Mod(m) => tidy_docs(&mut m.attrs),
            _ => {}
        }
    }
    let defaults = implements_default(&file);
    let parsed = implementing(&file, "FromStr");
    let usable: Vec<&Short> = SHORT
        .iter()
        .filter(|(_, short, _)| !defined.contains(*short))
        .collect();
    let mut shorten_tree = Shorten {
        usable: &usable,
        nested: 0,
        used: BTreeSet::new(),
    };
    syn::visit_mut::VisitMut::visit_file_mut(&mut shorten_tree, &mut file);
    let mut used = shorten_tree.used;
    // Each struct's constructors right after it, written as tokens and
    // parsed alone (parsing them into the tree here costs what formatting
    // the whole file would spend on them anyway). Should they not parse,
    // the tree so far is written out as tokens and the rest follows as
    // tokens.
    let items = std::mem::take(&mut file.items);
    let mut tree = Ok(file);
    for mut item in items {
        let methods = match &mut item {
            Item::Struct(s) => {
                let decode = decode::lean(s, &defined);
                let methods = constructors(s, &defaults);
                match (decode, methods) {
                    (None, methods) => methods,
                    (Some(decode), methods) => Some(quote!(#methods #decode)),
                }
            }
            Item::Enum(e) if parsed.contains(&e.ident.to_string()) => decode::lean_unit(e),
            _ => None,
        };
        push_item(&mut tree, item);
        if let Some(methods) = methods {
            let methods = shorten(
                methods,
                &usable,
                Place {
                    top: true,
                    serde: false,
                },
                &mut used,
            );
            push_parsed(&mut tree, methods, false);
        }
    }
    push_parsed(&mut tree, uses(&usable, &used), true);
    tree
}

/// Adds `item` at the end of the tree being built, or of the tokens.
fn push_item(tree: &mut Result<syn::File, TokenStream>, item: Item) {
    match tree {
        Ok(file) => file.items.push(item),
        Err(tokens) => item.to_tokens(tokens),
    }
}

/// Adds the items of `tokens` to the tree being built (at its start with
/// `first`); a failure to parse turns the tree into tokens, which go to
/// the formatter, which reports it.
fn push_parsed(tree: &mut Result<syn::File, TokenStream>, tokens: TokenStream, first: bool) {
    let Ok(file) = tree else {
        if let Err(body) = tree {
            match first {
                true => *body = tokens.into_iter().chain(std::mem::take(body)).collect(),
                false => body.extend(tokens),
            }
        }
        return;
    };
    match syn::parse2::<syn::File>(tokens.clone()) {
        Ok(parsed) if first => {
            file.items.splice(0..0, parsed.items);
        }
        Ok(parsed) => file.items.extend(parsed.items),
        Err(_) => {
            let written = file.to_token_stream();
            *tree = Err(written);
            push_parsed(tree, tokens, first);
        }
    }
}

pub(crate) fn item_name(item: &Item) -> Option<String> {
    match item {
        Item::Enum(e) => Some(e.ident.to_string()),
        Item::Struct(s) => Some(s.ident.to_string()),
        Item::Type(t) => Some(t.ident.to_string()),
        Item::Mod(m) => Some(m.ident.to_string()),
        Item::Const(c) => Some(c.ident.to_string()),
        Item::Fn(f) => Some(f.sig.ident.to_string()),
        Item::Trait(t) => Some(t.ident.to_string()),
        _ => None,
    }
}

/// Gives `default` to every `Option` field that has a decoder of its own.
fn absent_tolerant(fields: &mut Fields) {
    let Fields::Named(named) = fields else { return };
    for f in named.named.iter_mut() {
        if !is_option(&f.ty) {
            continue;
        }
        let args = serde_args(&f.attrs);
        let has = |key: &str| args.iter().any(|(k, _)| k == key);
        // typify marks a required nullable property by decoding it with
        // `Option::deserialize`: it must be there (as `null` at least).
        let required_nullable = args.iter().any(|(k, v)| {
            k == "deserialize_with"
                && v.as_deref()
                    .is_some_and(|v| v.ends_with("Option::deserialize"))
        });
        let own_decoder = has("deserialize_with") || has("with");
        if own_decoder && !has("default") && !has("flatten") && !required_nullable {
            f.attrs.push(syn::parse_quote!(#[serde(default)]));
        }
        // A required nullable wide integer has two decoders: `wide`'s
        // (which reads `null` too, and without `default` still requires
        // the field) replaces typify's `Option::deserialize`.
        let decoders = args.iter().filter(|(k, _)| k == "deserialize_with").count();
        if required_nullable && decoders > 1 {
            drop_option_deserialize(&mut f.attrs);
        }
    }
    for f in named.named.iter_mut() {
        merge_serde(&mut f.attrs);
    }
}

/// The field's `#[serde(…)]` attributes without typify's
/// `deserialize_with = "…Option::deserialize"`.
fn drop_option_deserialize(attrs: &mut Vec<Attribute>) {
    use syn::punctuated::Punctuated;
    use syn::{Meta, Token};
    attrs.retain_mut(|a| {
        if !a.path().is_ident("serde") {
            return true;
        }
        let Ok(list) = a.parse_args_with(Punctuated::<Meta, Token![,]>::parse_terminated) else {
            return true;
        };
        let kept: Vec<&Meta> = list
            .iter()
            .filter(|m| {
                !matches!(m, Meta::NameValue(nv) if nv.path.is_ident("deserialize_with")
                    && quote::ToTokens::to_token_stream(&nv.value).to_string().ends_with("Option::deserialize\""))
            })
            .collect();
        if kept.is_empty() {
            return false;
        }
        *a = syn::parse_quote!(#[serde(#(#kept),*)]);
        true
    });
}

/// A field's `#[serde(…)]` attributes as one, where the first was.
fn merge_serde(attrs: &mut Vec<Attribute>) {
    let lists: Vec<TokenStream> = attrs
        .iter()
        .filter(|a| a.path().is_ident("serde"))
        .filter_map(|a| a.meta.require_list().ok().map(|l| l.tokens.clone()))
        .collect();
    if lists.len() < 2 {
        return;
    }
    let Some(first) = attrs.iter().position(|a| a.path().is_ident("serde")) else {
        return;
    };
    attrs.retain(|a| !a.path().is_ident("serde"));
    attrs.insert(
        first.min(attrs.len()),
        syn::parse_quote!(#[serde(#(#lists),*)]),
    );
}

/// Where a derive sorts: the standard traits in the usual order, then
/// serde's, then any other (in the order given).
fn derive_rank(path: &syn::Path) -> usize {
    const ORDER: &[&str] = &[
        "Debug",
        "Clone",
        "Copy",
        "Default",
        "PartialEq",
        "Eq",
        "PartialOrd",
        "Ord",
        "Hash",
        "Serialize",
        "Deserialize",
    ];
    let last = path
        .segments
        .last()
        .map(|s| s.ident.to_string())
        .unwrap_or_default();
    ORDER.iter().position(|o| *o == last).unwrap_or(ORDER.len())
}

/// Whether two paths are written the same (`::serde::Serialize` is not
/// `Serialize`), without printing them when they have no generics.
fn same_path(a: &syn::Path, b: &syn::Path) -> bool {
    let plain = |p: &syn::Path| p.segments.iter().all(|s| s.arguments.is_none());
    if !plain(a) || !plain(b) {
        return a.to_token_stream().to_string() == b.to_token_stream().to_string();
    }
    a.leading_colon.is_some() == b.leading_colon.is_some()
        && a.segments.len() == b.segments.len()
        && a.segments
            .iter()
            .zip(&b.segments)
            .all(|(x, y)| x.ident == y.ident)
}

/// One `#[derive]` in [`derive_rank`] order, placed where the first was;
/// docs tidied.
fn tidy_attrs(attrs: &mut Vec<Attribute>) {
    let mut derives: Vec<syn::Path> = Vec::new();
    let mut first = None;
    let mut kept = Vec::with_capacity(attrs.len());
    for a in attrs.drain(..) {
        if a.path().is_ident("derive") {
            if let Ok(paths) =
                a.parse_args_with(Punctuated::<syn::Path, Token![,]>::parse_terminated)
            {
                first.get_or_insert(kept.len());
                for p in paths {
                    if !derives.iter().any(|d| same_path(d, &p)) {
                        derives.push(p);
                    }
                }
                continue;
            }
        }
        kept.push(a);
    }
    derives.sort_by_key(derive_rank);
    if let Some(at) = first {
        kept.insert(at, syn::parse_quote!(#[derive(#(#derives),*)]));
    }
    *attrs = kept;
    tidy_docs(attrs);
}

/// The doc comment of a type: its schema's description, or where the type
/// is used when it has none (typify's placeholder, the type's own name in
/// backquotes, counts as none); then the places of the tools' schemas it
/// stands for, from the markers in its docs ([`super::sources`]).
fn item_docs(
    attrs: &mut Vec<Attribute>,
    type_name: &str,
    usage: &BTreeMap<String, String>,
    sources: &Sources,
) {
    let marks = sources::take(attrs);
    let placeholder = format!("`{type_name}`");
    attrs.retain(|a| doc_of(a).is_none_or(|d| d.trim() != placeholder));
    let mut end = attrs
        .iter()
        .rposition(|a| doc_of(a).is_some())
        .map_or(0, |i| i + 1);
    if end == 0 {
        if let Some(doc) = usage.get(type_name) {
            attrs.insert(0, syn::parse_quote!(#[doc = #doc]));
            end = 1;
        }
    }
    if let Some(paragraph) = sources.paragraph(&marks) {
        let mut lines: Vec<Attribute> = Vec::new();
        if end > 0 {
            lines.push(syn::parse_quote!(#[doc = ""]));
        }
        lines.push(syn::parse_quote!(#[doc = #paragraph]));
        attrs.splice(end..end, lines);
    }
}

/// For each type, where it is first used: `` `units` of [`GetForecastInput`].``
/// (the property's wire name, and the type or variant holding it).
fn usage_docs(file: &syn::File) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    let mut note = |holder: String, f: &syn::Field, ident: &Ident| {
        let wire = wire_name(f, ident);
        let mut names = BTreeSet::new();
        idents(f.ty.to_token_stream(), &mut names);
        let item = matches!(&f.ty, syn::Type::Path(p) if p.path.segments.last().is_some_and(|s| s.ident == "Vec"));
        for n in names {
            let what = if item { "An item of" } else { "The type of" };
            out.entry(n)
                .or_insert_with(|| format!(" {what} `{wire}` in [`{holder}`]."));
        }
    };
    for item in &file.items {
        match item {
            Item::Struct(s) => {
                for f in s.fields.iter() {
                    if let Some(i) = &f.ident {
                        note(s.ident.to_string(), f, i);
                    }
                }
            }
            Item::Enum(e) => {
                for v in &e.variants {
                    for f in v.fields.iter() {
                        if let Some(i) = &f.ident {
                            note(format!("{}::{}", e.ident, v.ident), f, i);
                        }
                    }
                }
            }
            _ => {}
        }
    }
    out
}

fn idents(tokens: TokenStream, out: &mut BTreeSet<String>) {
    for t in tokens {
        match t {
            TokenTree::Ident(i) => {
                out.insert(i.to_string());
            }
            TokenTree::Group(g) => idents(g.stream(), out),
            _ => {}
        }
    }
}

/// Every doc line starts with a space (`/// text`), as written by hand;
/// no markers of places ([`super::sources`]) are left.
fn tidy_docs(attrs: &mut Vec<Attribute>) {
    // Each line's text is read once: its markers go as with
    // `sources::take` (a line left empty by that goes too), and it gets
    // its space.
    // The literal is replaced in place: building a new attribute would
    // mean parsing one.
    attrs.retain_mut(|a| {
        let Some(text) = doc_of(a) else {
            return true;
        };
        let (kept, marks) = sources::split(&text);
        // Without markers the line stays as it was.
        let kept = if marks.is_empty() { text } else { kept };
        if !marks.is_empty() && kept.trim().is_empty() {
            return false;
        }
        let new = if !kept.is_empty() && !kept.starts_with(' ') {
            format!(" {kept}")
        } else if !marks.is_empty() {
            kept
        } else {
            return true;
        };
        if let syn::Meta::NameValue(syn::MetaNameValue {
            value:
                syn::Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Str(s),
                    ..
                }),
            ..
        }) = &mut a.meta
        {
            *s = syn::LitStr::new(&new, s.span());
        }
        true
    });
}

/// The types the file implements `Default` for, by derive or by hand.
fn implements_default(file: &syn::File) -> BTreeSet<String> {
    implementing(file, "Default")
}

/// The types of `file` that derive or implement the trait `name`.
fn implementing(file: &syn::File, name: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for item in &file.items {
        match item {
            Item::Struct(s) if derives(&s.attrs, name) => {
                out.insert(s.ident.to_string());
            }
            Item::Enum(e) if derives(&e.attrs, name) => {
                out.insert(e.ident.to_string());
            }
            Item::Impl(i) => {
                let implements = i
                    .trait_
                    .as_ref()
                    .is_some_and(|(p, _)| p.segments.last().is_some_and(|s| s.ident == name));
                if let (true, syn::Type::Path(p)) = (implements, &*i.self_ty) {
                    if let Some(last) = p.path.segments.last() {
                        out.insert(last.ident.to_string());
                    }
                }
            }
            _ => {}
        }
    }
    out
}

/// How an optional field is left when a constructor does not set it.
enum Unset {
    /// `None`.
    None,
    /// `Default::default()`.
    Default,
    /// The schema's default, through its function in `mod defaults`.
    Function(syn::Path),
}

/// What a field is to the constructors: required (a `new` argument) or
/// optional (a setter, and how it starts).
fn unset_of(f: &syn::Field) -> Option<Unset> {
    let mut unset = None;
    for (key, value) in serde_args(&f.attrs) {
        match (key.as_str(), value) {
            ("default", Some(path)) => {
                unset =
                    Some(syn::parse_str::<syn::Path>(&path).map_or(Unset::Default, Unset::Function))
            }
            ("default" | "flatten", None) => unset = Some(Unset::Default),
            _ => {}
        }
    }
    match unset {
        // An `Option` with a default function still starts as that value.
        Some(u) => Some(u),
        None if is_option(&f.ty) => Some(Unset::None),
        None => None,
    }
}

/// The inner type of `Option<T>`.
fn option_inner(ty: &syn::Type) -> Option<&syn::Type> {
    let syn::Type::Path(p) = ty else { return None };
    let last = p.path.segments.last()?;
    if last.ident != "Option" {
        return None;
    }
    match &last.arguments {
        syn::PathArguments::AngleBracketed(a) => a.args.iter().find_map(|g| match g {
            syn::GenericArgument::Type(t) => Some(t),
            _ => None,
        }),
        _ => None,
    }
}

fn is_string(ty: &syn::Type) -> bool {
    matches!(ty, syn::Type::Path(p) if p.qself.is_none() && p.path.segments.last().is_some_and(|s| s.ident == "String" && s.arguments.is_none()))
}

/// An argument of type `ty`: `impl Into<String>` for a string, so that a
/// literal does; the type itself otherwise (an integer literal must keep
/// its type's inference).
fn argument_type(ty: &syn::Type) -> TokenStream {
    if is_string(ty) {
        quote!(impl ::std::convert::Into<#ty>)
    } else {
        ty.to_token_stream()
    }
}

/// `impl X { new, with_* }` for a struct with named fields; `Default`
/// derived when every field is optional and `X` has none.
fn constructors(s: &mut syn::ItemStruct, defaults: &BTreeSet<String>) -> Option<TokenStream> {
    let Fields::Named(named) = &s.fields else {
        return None;
    };
    let name = &s.ident;
    let mut required = Vec::new();
    let mut starts = Vec::new();
    let mut setters = Vec::new();
    let mut plain_starts = true;
    let mut setter_names = BTreeSet::new();
    for f in &named.named {
        let ident = f.ident.as_ref()?;
        let ty = &f.ty;
        let bare = ident.to_string();
        let bare = bare.strip_prefix("r#").unwrap_or(&bare);
        match unset_of(f) {
            None => {
                let arg = argument_type(ty);
                required.push((ident.clone(), arg, is_string(ty)));
            }
            Some(unset) => {
                let start = match unset {
                    Unset::None | Unset::Default if is_option(ty) => quote!(None),
                    Unset::None => quote!(None),
                    Unset::Default => quote!(::std::default::Default::default()),
                    Unset::Function(path) => {
                        plain_starts = false;
                        quote!(#path())
                    }
                };
                starts.push(quote!(#ident: #start));
                let short = bare.trim_end_matches('_');
                let setter_name = if setter_names.contains(short) {
                    bare
                } else {
                    short
                };
                setter_names.insert(setter_name.to_owned());
                let setter = format_ident!("with_{}", setter_name);
                let doc = format!(" Sets `{short}`.");
                let setter_tokens = match option_inner(ty) {
                    Some(inner) => {
                        let arg = argument_type(inner);
                        let value = if is_string(inner) {
                            quote!(value.into())
                        } else {
                            quote!(value)
                        };
                        quote! {
                            #[doc = #doc]
                            #[must_use]
                            pub fn #setter(mut self, value: #arg) -> Self {
                                self.#ident = Some(#value);
                                self
                            }
                        }
                    }
                    None => {
                        let arg = argument_type(ty);
                        let value = if is_string(ty) {
                            quote!(value.into())
                        } else {
                            quote!(value)
                        };
                        quote! {
                            #[doc = #doc]
                            #[must_use]
                            pub fn #setter(mut self, value: #arg) -> Self {
                                self.#ident = #value;
                                self
                            }
                        }
                    }
                };
                setters.push(setter_tokens);
            }
        }
    }
    let mut default_impl = None;
    let new = if required.is_empty() {
        if !defaults.contains(&name.to_string()) {
            // Derived where it gives what decoding `{}` gives; else by hand.
            if plain_starts {
                s.attrs.push(syn::parse_quote!(#[derive(Default)]));
                tidy_attrs(&mut s.attrs);
            } else {
                default_impl = Some(quote! {
                    impl ::std::default::Default for #name {
                        fn default() -> Self {
                            Self { #(#starts,)* }
                        }
                    }
                });
            }
        }
        None
    } else {
        let params = required.iter().map(|(i, t, _)| quote!(#i: #t));
        let sets = required.iter().map(|(i, _, string)| {
            if *string {
                quote!(#i: #i.into())
            } else {
                quote!(#i)
            }
        });
        let names: Vec<String> = required
            .iter()
            .map(|(i, _, _)| format!("`{}`", i.to_string().trim_start_matches("r#")))
            .collect();
        let doc = format!(
            " {} `{name}` with its required {}: {}.",
            crate::naming::article(&name.to_string()),
            if names.len() == 1 { "field" } else { "fields" },
            names.join(", ")
        );
        let many = (required.len() > 7).then(|| quote!(#[allow(clippy::too_many_arguments)]));
        Some(quote! {
            #[doc = #doc]
            #many
            pub fn new(#(#params),*) -> Self {
                Self { #(#sets,)* #(#starts,)* }
            }
        })
    };
    if new.is_none() && setters.is_empty() {
        return default_impl;
    }
    // The lints the type is allowed (a field type too complex for clippy)
    // hold for the methods that take its fields.
    let allows = s.attrs.iter().filter(|a| a.path().is_ident("allow"));
    Some(quote! {
        #default_impl
        #(#allows)*
        impl #name {
            #new
            #(#setters)*
        }
    })
}

/// Names the members typify numbered (`Variant0`…) after a property that
/// only they have (`QueryVector`), or their one type; every path to them
/// follows.
fn name_members(file: &mut syn::File) {
    let mut renames: BTreeMap<(String, String), String> = BTreeMap::new();
    for item in &mut file.items {
        let Item::Enum(e) = item else { continue };
        if !e.variants.iter().any(|v| numbered(&v.ident.to_string())) {
            continue;
        }
        let props: Vec<BTreeSet<String>> = e.variants.iter().map(property_names).collect();
        let mut taken: BTreeSet<String> = e
            .variants
            .iter()
            .filter(|v| !numbered(&v.ident.to_string()))
            .map(|v| v.ident.to_string())
            .collect();
        for (i, v) in e.variants.iter_mut().enumerate() {
            let old = v.ident.to_string();
            if !numbered(&old) {
                continue;
            }
            let others: BTreeSet<&String> = props
                .iter()
                .enumerate()
                .filter(|(j, _)| *j != i)
                .flat_map(|(_, p)| p)
                .collect();
            let mut candidates: Vec<String> = required_first(v)
                .into_iter()
                .filter(|p| !others.contains(p))
                .map(|p| pascal(&p))
                .collect();
            candidates.push(type_word(v));
            let Some(new) = candidates.into_iter().find(|c| {
                !c.is_empty() && syn::parse_str::<Ident>(c).is_ok() && !taken.contains(c)
            }) else {
                continue;
            };
            taken.insert(new.clone());
            renames.insert((e.ident.to_string(), old), new.clone());
            v.ident = Ident::new(&new, v.ident.span());
        }
    }
    if renames.is_empty() {
        return;
    }
    let enums: BTreeSet<&String> = renames.keys().map(|(e, _)| e).collect();
    let mut visitor = RenameVariants {
        renames: &renames,
        enums: &enums,
        current: None,
    };
    syn::visit_mut::VisitMut::visit_file_mut(&mut visitor, file);
}

/// Renames `Enum::Old` (and `Self::Old` inside the enum's impls) to
/// `Enum::New` in the tree; in macro bodies, which syn leaves as tokens,
/// through [`rewrite_paths`].
struct RenameVariants<'a> {
    renames: &'a BTreeMap<(String, String), String>,
    enums: &'a BTreeSet<&'a String>,
    /// The renamed enum that `Self` is, inside its impls.
    current: Option<String>,
}

impl syn::visit_mut::VisitMut for RenameVariants<'_> {
    fn visit_item_impl_mut(&mut self, imp: &mut syn::ItemImpl) {
        let self_ty = super::shared::impl_self_name(imp);
        let outer = std::mem::replace(
            &mut self.current,
            self_ty.filter(|name| self.enums.contains(name)),
        );
        syn::visit_mut::visit_item_impl_mut(self, imp);
        self.current = outer;
    }

    fn visit_path_mut(&mut self, path: &mut syn::Path) {
        for i in 1..path.segments.len() {
            let owner = &path.segments[i - 1].ident;
            let owner = if owner == "Self" {
                self.current.clone()
            } else {
                Some(owner.to_string())
            };
            let Some(owner) = owner.filter(|o| self.enums.contains(o)) else {
                continue;
            };
            let variant = &mut path.segments[i].ident;
            if let Some(new) = self.renames.get(&(owner, variant.to_string())) {
                *variant = Ident::new(new, variant.span());
            }
        }
        syn::visit_mut::visit_path_mut(self, path);
    }

    fn visit_macro_mut(&mut self, m: &mut syn::Macro) {
        syn::visit_mut::visit_path_mut(self, &mut m.path);
        let mut current = self.current.clone();
        m.tokens = rewrite_paths(
            std::mem::take(&mut m.tokens),
            self.renames,
            self.enums,
            &mut current,
        );
    }
}

fn numbered(name: &str) -> bool {
    name.strip_prefix("Variant")
        .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}

/// The wire names of a struct variant's fields.
fn property_names(v: &syn::Variant) -> BTreeSet<String> {
    v.fields
        .iter()
        .filter_map(|f| f.ident.as_ref().map(|i| wire_name(f, i)))
        .collect()
}

/// A variant's field names, required ones first.
fn required_first(v: &syn::Variant) -> Vec<String> {
    let mut fields: Vec<(bool, String)> = v
        .fields
        .iter()
        .filter_map(|f| {
            f.ident
                .as_ref()
                .map(|i| (unset_of(f).is_some(), wire_name(f, i)))
        })
        .collect();
    fields.sort_by_key(|(optional, _)| *optional);
    fields.into_iter().map(|(_, n)| n).collect()
}

/// A name from a tuple variant's one type (`String`, `Vec` → `List`).
fn type_word(v: &syn::Variant) -> String {
    let Fields::Unnamed(u) = &v.fields else {
        return String::new();
    };
    let Some(f) = u.unnamed.first() else {
        return String::new();
    };
    let syn::Type::Path(p) = &f.ty else {
        return String::new();
    };
    let last = p
        .path
        .segments
        .last()
        .map(|s| s.ident.to_string())
        .unwrap_or_default();
    match last.as_str() {
        "Vec" => "List".into(),
        "BTreeMap" | "Map" => "Object".into(),
        "i64" | "u64" | "i128" | "u128" | "NonZeroU64" => "Integer".into(),
        "f64" => "Number".into(),
        "bool" => "Boolean".into(),
        other => other.to_owned(),
    }
}

/// `camelCase`, `snake_case` or `kebab-case` as `PascalCase`.
fn pascal(name: &str) -> String {
    heck::ToUpperCamelCase::to_upper_camel_case(name)
}

/// `Enum::Old` (and `Self::Old` after `impl Enum`) as `Enum::New` in tokens.
fn rewrite_paths(
    tokens: TokenStream,
    renames: &BTreeMap<(String, String), String>,
    enums: &BTreeSet<&String>,
    current: &mut Option<String>,
) -> TokenStream {
    let tts: Vec<TokenTree> = tokens.into_iter().collect();
    let mut out = Vec::with_capacity(tts.len());
    for (i, tt) in tts.iter().enumerate() {
        match tt {
            TokenTree::Group(g) => {
                let mut ng = proc_macro2::Group::new(
                    g.delimiter(),
                    rewrite_paths(g.stream(), renames, enums, current),
                );
                ng.set_span(g.span());
                out.push(TokenTree::Group(ng));
            }
            TokenTree::Ident(id) => {
                let name = id.to_string();
                // `impl E` or `impl … for E` sets the type that `Self` is
                // (the definitions were renamed in the syntax tree).
                if i > 0 && matches!(&tts[i - 1], TokenTree::Ident(k) if k == "for" || k == "impl")
                {
                    *current = enums.contains(&name).then(|| name.clone());
                }
                let owner = if i >= 3 && is_path_sep(&tts[i - 2], &tts[i - 1]) {
                    match &tts[i - 3] {
                        TokenTree::Ident(o) if o == "Self" => current.clone(),
                        TokenTree::Ident(o) => Some(o.to_string()),
                        _ => None,
                    }
                } else {
                    None
                };
                match owner.and_then(|o| renames.get(&(o, name.clone()))) {
                    Some(new) => out.push(TokenTree::Ident(Ident::new(new, id.span()))),
                    None => out.push(tt.clone()),
                }
            }
            _ => out.push(tt.clone()),
        }
    }
    out.into_iter().collect()
}

fn is_path_sep(a: &TokenTree, b: &TokenTree) -> bool {
    matches!((a, b), (TokenTree::Punct(x), TokenTree::Punct(y)) if x.as_char() == ':' && y.as_char() == ':')
}

/// The standard paths written short, with what makes each short name
/// resolve: the prelude's, or a `use` this adds.
type Short = (&'static [&'static str], &'static str, Option<&'static str>);

const SHORT: &[Short] = &[
    (&["std", "option", "Option"], "Option", None),
    (&["std", "string", "String"], "String", None),
    (&["std", "vec", "Vec"], "Vec", None),
    (&["std", "boxed", "Box"], "Box", None),
    (&["std", "result", "Result"], "Result", None),
    (&["std", "convert", "TryFrom"], "TryFrom", None),
    (&["std", "convert", "From"], "From", None),
    (&["std", "convert", "Into"], "Into", None),
    (&["std", "default", "Default"], "Default", None),
    (&["std", "string", "ToString"], "ToString", None),
    (
        &["std", "collections", "BTreeMap"],
        "BTreeMap",
        Some("std::collections::BTreeMap"),
    ),
    (
        &["serde", "Serialize"],
        "Serialize",
        Some("serde::Serialize"),
    ),
    (
        &["serde", "Deserialize"],
        "Deserialize",
        Some("serde::Deserialize"),
    ),
];

/// The `use` items the short names in `used` need.
fn uses(usable: &[&Short], used: &BTreeSet<&'static str>) -> TokenStream {
    let mut out = TokenStream::new();
    let mut uses: Vec<&str> = usable
        .iter()
        .filter(|(_, s, u)| u.is_some() && used.contains(s))
        .filter_map(|(_, _, u)| *u)
        .collect();
    uses.sort_unstable();
    for u in uses {
        let path: syn::Path = syn::parse_str(u).expect("a path of SHORT");
        out.extend(quote!(use #path;));
    }
    out
}

/// Writes every `::std::…` path of [`SHORT`] short in the tree, at the
/// top level of the file (and in serde's path strings and the derive
/// lists), where no item of the file takes the short name; nested modules
/// keep their paths, except for the prelude's names.
struct Shorten<'a> {
    usable: &'a [&'a Short],
    /// How many modules deep the visit is.
    nested: usize,
    /// The short names written.
    used: BTreeSet<&'static str>,
}

impl Shorten<'_> {
    fn path(&mut self, p: &mut syn::Path) {
        if p.leading_colon.is_none() {
            return;
        }
        for (segments, short, import) in self.usable.iter().copied() {
            if self.nested > 0 && import.is_some() {
                continue;
            }
            let n = segments.len();
            let matches = p.segments.len() >= n
                && p.segments
                    .iter()
                    .zip(segments.iter())
                    .all(|(s, w)| s.ident == *w)
                && p.segments.iter().take(n - 1).all(|s| s.arguments.is_none());
            if !matches {
                continue;
            }
            let mut kept: Punctuated<syn::PathSegment, Token![::]> = Punctuated::new();
            for (i, seg) in std::mem::take(&mut p.segments).into_iter().enumerate() {
                if i + 1 == n {
                    kept.push(syn::PathSegment {
                        ident: Ident::new(short, seg.ident.span()),
                        arguments: seg.arguments,
                    });
                } else if i >= n {
                    kept.push(seg);
                }
            }
            p.segments = kept;
            p.leading_colon = None;
            self.used.insert(short);
            return;
        }
    }

    /// A path behind a qualified self (`<T as ::std::convert::TryFrom<i64>>::Error`):
    /// the trait's own segments shrink with it.
    fn qualified(&mut self, q: &mut syn::QSelf, p: &mut syn::Path) {
        syn::visit_mut::VisitMut::visit_type_mut(self, &mut q.ty);
        let before = p.segments.len();
        self.path(p);
        q.position -= before - p.segments.len();
        for seg in p.segments.iter_mut() {
            syn::visit_mut::VisitMut::visit_path_arguments_mut(self, &mut seg.arguments);
        }
    }
}

impl syn::visit_mut::VisitMut for Shorten<'_> {
    fn visit_path_mut(&mut self, p: &mut syn::Path) {
        self.path(p);
        syn::visit_mut::visit_path_mut(self, p);
    }

    fn visit_type_path_mut(&mut self, t: &mut syn::TypePath) {
        match &mut t.qself {
            Some(q) => self.qualified(q, &mut t.path),
            None => syn::visit_mut::visit_type_path_mut(self, t),
        }
    }

    fn visit_expr_path_mut(&mut self, e: &mut syn::ExprPath) {
        match &mut e.qself {
            Some(q) => self.qualified(q, &mut e.path),
            None => syn::visit_mut::visit_expr_path_mut(self, e),
        }
    }

    fn visit_item_mod_mut(&mut self, m: &mut syn::ItemMod) {
        self.nested += 1;
        syn::visit_mut::visit_item_mod_mut(self, m);
        self.nested -= 1;
    }

    fn visit_attribute_mut(&mut self, a: &mut Attribute) {
        if a.path().is_ident("derive") {
            if let Ok(paths) =
                a.parse_args_with(Punctuated::<syn::Path, Token![,]>::parse_terminated)
            {
                let mut paths: Vec<syn::Path> = paths.into_iter().collect();
                for p in &mut paths {
                    self.path(p);
                }
                *a = syn::parse_quote!(#[derive(#(#paths),*)]);
            }
        } else if a.path().is_ident("serde") {
            if let syn::Meta::List(list) = &mut a.meta {
                let place = Place {
                    top: self.nested == 0,
                    serde: true,
                };
                list.tokens = shorten(list.tokens.clone(), self.usable, place, &mut self.used);
            }
        }
    }
}

/// Where [`shorten`] is: at the top level (where `use` items reach) or in
/// a nested module, and inside a `serde(…)` attribute (whose string
/// literals hold paths) or not.
#[derive(Clone, Copy)]
struct Place {
    top: bool,
    serde: bool,
}

fn shorten(
    tokens: TokenStream,
    usable: &[&Short],
    place: Place,
    used: &mut BTreeSet<&'static str>,
) -> TokenStream {
    let top = place.top;
    let mut tts: Vec<TokenTree> = tokens.into_iter().collect();
    let mut out: Vec<TokenTree> = Vec::with_capacity(tts.len());
    let mut i = 0;
    while i < tts.len() {
        // Entering `mod name { … }`: below it only the prelude's names.
        if let (TokenTree::Ident(k), Some(TokenTree::Ident(_)), Some(TokenTree::Group(_))) =
            (&tts[i], tts.get(i + 1), tts.get(i + 2))
        {
            if k == "mod" {
                out.push(tts[i].clone());
                out.push(tts[i + 1].clone());
                let mut group = super::Taken::from_slot(&mut tts, i + 2);
                let inner = shorten(
                    std::mem::take(&mut group.stream),
                    usable,
                    Place {
                        top: false,
                        serde: false,
                    },
                    used,
                );
                out.push(group.rebuild(inner));
                i += 3;
                continue;
            }
        }
        let path_start = matches!(&tts[i], TokenTree::Punct(p) if p.as_char() == ':' && p.spacing() == proc_macro2::Spacing::Joint);
        if let Some((len, short)) = path_start
            .then(|| match_path(&tts[i..], usable, top))
            .flatten()
        {
            used.insert(short);
            out.push(TokenTree::Ident(Ident::new(short, Span::call_site())));
            i += len;
            continue;
        }
        match &tts[i] {
            TokenTree::Group(_) => {
                let serde = place.serde
                    || (i > 0 && matches!(&tts[i - 1], TokenTree::Ident(s) if s == "serde"));
                let mut group = super::Taken::from_slot(&mut tts, i);
                let inner = shorten(
                    std::mem::take(&mut group.stream),
                    usable,
                    Place { top, serde },
                    used,
                );
                out.push(group.rebuild(inner));
            }
            TokenTree::Literal(l) if place.serde => {
                out.push(shorten_literal(l, usable, top, used).unwrap_or_else(|| tts[i].clone()))
            }
            other => out.push(other.clone()),
        }
        i += 1;
    }
    out.into_iter().collect()
}

/// `:: a :: b :: C` at the start of `tts` matching an entry: its length in
/// tokens and the short name.
fn match_path(tts: &[TokenTree], usable: &[&Short], top: bool) -> Option<(usize, &'static str)> {
    'entries: for (segments, short, import) in usable {
        if !top && import.is_some() {
            continue;
        }
        // `::` then `segment` (`::` `segment`)*.
        let mut at = 0;
        for (n, seg) in segments.iter().enumerate() {
            let (Some(TokenTree::Punct(a)), Some(TokenTree::Punct(b))) =
                (tts.get(at), tts.get(at + 1))
            else {
                continue 'entries;
            };
            if a.as_char() != ':' || b.as_char() != ':' {
                continue 'entries;
            }
            if n == 0 && a.spacing() != proc_macro2::Spacing::Joint {
                continue 'entries;
            }
            match tts.get(at + 2) {
                Some(TokenTree::Ident(id)) if id == seg => {}
                _ => continue 'entries,
            }
            at += 3;
        }
        return Some((at, short));
    }
    None
}

/// A string literal holding a path (serde's `skip_serializing_if =
/// "::std::option::Option::is_none"`) with its prefix shortened.
fn shorten_literal(
    l: &proc_macro2::Literal,
    usable: &[&Short],
    top: bool,
    used: &mut BTreeSet<&'static str>,
) -> Option<TokenTree> {
    // Only a plain string literal starting `"::` (a doc comment or a
    // number is left before it costs a parse).
    if !l.to_string().starts_with("\"::") {
        return None;
    }
    let lit: syn::LitStr = syn::parse2(TokenTree::Literal(l.clone()).into()).ok()?;
    let text = lit.value();
    for (segments, short, import) in usable {
        if !top && import.is_some() {
            continue;
        }
        let prefix = format!("::{}::", segments.join("::"));
        if let Some(rest) = text.strip_prefix(&prefix) {
            used.insert(short);
            let new = syn::LitStr::new(&format!("{short}::{rest}"), l.span());
            return Some(TokenTree::Literal(
                syn::parse_str::<proc_macro2::Literal>(&new.to_token_stream().to_string()).ok()?,
            ));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn polished(tokens: TokenStream) -> String {
        polish(syn::parse2(tokens).unwrap(), &Sources::default())
            .expect("the polished code parses")
            .to_token_stream()
            .to_string()
    }

    #[test]
    fn an_option_with_a_decoder_of_its_own_gets_default_whatever_its_docs_say() {
        let out = polished(quote! {
            pub struct A {
                #[doc = "Uses the default timeout, not flatten."]
                #[serde(skip_serializing_if = "::std::option::Option::is_none")]
                #[serde(deserialize_with = "wide::option")]
                pub timeout: ::std::option::Option<i128>,
                #[serde(default = "defaults::b")]
                pub b: i64,
            }
        });
        assert!(out.contains(r#"# [serde (skip_serializing_if = "Option::is_none" , deserialize_with = "wide::option" , default)]"#), "{out}");
        assert!(
            out.contains("# [doc = \" Uses the default timeout, not flatten.\"]"),
            "{out}"
        );
        // All optional, with a schema default: `Default` by hand, as `{}` decodes.
        assert!(out.contains("impl Default for A { fn default () -> Self { Self { timeout : None , b : defaults :: b () , } } }"), "{out}");
    }

    #[test]
    fn a_required_nullable_wide_integer_has_one_decoder() {
        // Lob's OpenAPI document has such a field: two `deserialize_with`
        // did not compile.
        let out = polished(quote! {
            pub struct A {
                #[serde(deserialize_with = "::std::option::Option::deserialize")]
                #[serde(deserialize_with = "wide::option")]
                pub big: ::std::option::Option<i128>,
            }
        });
        assert!(
            out.contains(r#"# [serde (deserialize_with = "wide::option")] pub big"#),
            "{out}"
        );
        assert!(!out.contains("Option::deserialize"), "{out}");
    }

    #[test]
    fn a_required_nullable_field_stays_required() {
        let out = polished(quote! {
            pub struct A {
                #[serde(deserialize_with = "::std::option::Option::deserialize")]
                pub note: ::std::option::Option<::std::string::String>,
            }
        });
        assert!(
            out.contains(r#"# [serde (deserialize_with = "Option::deserialize")] pub note"#),
            "{out}"
        );
    }

    #[test]
    fn required_fields_make_new_and_optional_ones_setters() {
        let out = polished(quote! {
            #[derive(::serde::Serialize, Clone, Debug, ::serde::Deserialize, PartialEq)]
            pub struct Q {
                pub name: ::std::string::String,
                pub n: u64,
                #[serde(skip_serializing_if = "::std::option::Option::is_none")]
                pub note: ::std::option::Option<::std::string::String>,
            }
        });
        // `Deserialize` is written out (`decode`), not derived.
        assert!(
            out.contains("# [derive (Debug , Clone , PartialEq , Serialize)] pub struct Q"),
            "{out}"
        );
        assert!(
            out.contains("impl < 'de > Deserialize < 'de > for Q"),
            "{out}"
        );
        assert!(out.contains("pub fn new (name : impl Into < String > , n : u64) -> Self { Self { name : name . into () , n , note : None , } }"), "{out}");
        assert!(
            out.contains("pub fn with_note (mut self , value : impl Into < String >) -> Self"),
            "{out}"
        );
        assert!(
            out.starts_with("use serde :: Deserialize ; use serde :: Serialize ;"),
            "{out}"
        );
    }

    #[test]
    fn a_type_named_like_a_standard_one_keeps_the_standard_one_qualified() {
        let out = polished(quote! {
            pub struct Result { pub ok: ::std::option::Option<bool> }
            pub fn f() -> ::std::result::Result<(), ()> { ::std::result::Result::Ok(()) }
        });
        assert!(
            out.contains(":: std :: result :: Result < () , () >"),
            "{out}"
        );
        assert!(out.contains("pub ok : Option < bool >"), "{out}");
    }

    #[test]
    fn numbered_members_are_named_after_a_property_only_they_have() {
        let out = polished(quote! {
            #[serde(untagged)]
            pub enum Search {
                Variant0 { index: ::std::string::String, #[serde(rename = "queryVector")] query_vector: ::std::vec::Vec<f64> },
                Variant1 { index: ::std::string::String, query: ::std::string::String },
                Variant2(::std::string::String),
            }
            impl ::std::convert::From<::std::string::String> for Search {
                fn from(value: ::std::string::String) -> Self { Self::Variant2(value) }
            }
        });
        assert!(
            out.contains("QueryVector {")
                && out.contains("Query {")
                && out.contains("String (String)"),
            "{out}"
        );
        assert!(out.contains("Self :: String (value)"), "{out}");
        assert!(!out.contains("Variant"), "{out}");
    }
}
