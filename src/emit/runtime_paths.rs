//! Generated code reaches serde and serde_json through `mcpgen_runtime`'s
//! re-exports, so a crate of generated bindings depends on
//! `mcpgen-runtime` alone and always gets the serde_json features the
//! runtime is built with (`preserve_order`, `float_roundtrip`).
//!
//! Every writer (typify and the passes around it, the protocol, server
//! and client generators) spells `serde::…` and `::serde_json::…`; this
//! last pass over the syntax tree, run once per file before it is
//! printed, moves each such path under `::mcpgen_runtime` — in code, in
//! `use` items, in attributes (`#[derive(::serde::Serialize)]`, a
//! `skip_serializing_if = "::serde_json::Map::is_empty"`) and in macro
//! input — and tells serde's derives where their crate is
//! (`#[serde(crate = "::mcpgen_runtime::serde")]`), since they otherwise
//! name a `serde` the generated crate does not have.

use proc_macro2::{Group, Ident, Literal, Punct, Spacing, Span, TokenStream, TokenTree};
use syn::visit_mut::{self, VisitMut};
use syn::{Attribute, Meta};

/// The crates generated code names only through the runtime.
const RE_EXPORTED: [&str; 2] = ["serde", "serde_json"];

/// The runtime crate that re-exports them.
const RUNTIME: &str = "mcpgen_runtime";

/// The value of the `crate` argument every serde derive gets.
const SERDE_CRATE: &str = "::mcpgen_runtime::serde";

/// Rewrites `file` in place: see the module doc.
pub(super) fn reroute(file: &mut syn::File) {
    Reroute.visit_file_mut(file);
}

struct Reroute;

impl Reroute {
    /// A path that may start with `<T>` or `<T as Trait>`.
    fn qualified(&mut self, qself: &mut Option<syn::QSelf>, path: &mut syn::Path) {
        match qself {
            // `<T>::serde::…` continues from `T`; in `<T as ::serde::X>::y`
            // the path starts with the trait's.
            Some(qself) if qself.position == 0 => {
                self.visit_qself_mut(qself);
                path.segments
                    .iter_mut()
                    .for_each(|s| self.visit_path_segment_mut(s));
            }
            Some(qself) => {
                self.visit_qself_mut(qself);
                let before = path.segments.len();
                self.visit_path_mut(path);
                // The trait's part of the path grew by what was put in front.
                qself.position += path.segments.len() - before;
            }
            None => self.visit_path_mut(path),
        }
    }
}

impl VisitMut for Reroute {
    fn visit_path_mut(&mut self, path: &mut syn::Path) {
        if path
            .segments
            .first()
            .is_some_and(|s| RE_EXPORTED.iter().any(|name| s.ident == name))
        {
            path.leading_colon = Some(Default::default());
            path.segments.insert(
                0,
                syn::PathSegment::from(Ident::new(RUNTIME, Span::call_site())),
            );
        }
        visit_mut::visit_path_mut(self, path);
    }

    fn visit_item_use_mut(&mut self, item: &mut syn::ItemUse) {
        if let syn::UseTree::Path(first) = &item.tree {
            if RE_EXPORTED.iter().any(|name| first.ident == name) {
                let rest = item.tree.clone();
                item.leading_colon = Some(Default::default());
                item.tree = syn::UseTree::Path(syn::UsePath {
                    ident: Ident::new(RUNTIME, Span::call_site()),
                    colon2_token: Default::default(),
                    tree: Box::new(rest),
                });
            }
        }
    }

    fn visit_attribute_mut(&mut self, attr: &mut Attribute) {
        // Only the arguments: the attribute's own path (`serde`, `derive`)
        // names a macro, not the crate.
        if let Meta::List(list) = &mut attr.meta {
            list.tokens = tokens(std::mem::take(&mut list.tokens), true);
        }
    }

    fn visit_type_path_mut(&mut self, ty: &mut syn::TypePath) {
        self.qualified(&mut ty.qself, &mut ty.path);
    }

    fn visit_expr_path_mut(&mut self, expr: &mut syn::ExprPath) {
        expr.attrs
            .iter_mut()
            .for_each(|a| self.visit_attribute_mut(a));
        self.qualified(&mut expr.qself, &mut expr.path);
    }

    fn visit_macro_mut(&mut self, mac: &mut syn::Macro) {
        mac.tokens = tokens(std::mem::take(&mut mac.tokens), false);
        visit_mut::visit_macro_mut(self, mac);
    }

    fn visit_item_struct_mut(&mut self, item: &mut syn::ItemStruct) {
        name_serde_crate(&mut item.attrs);
        visit_mut::visit_item_struct_mut(self, item);
    }

    fn visit_item_enum_mut(&mut self, item: &mut syn::ItemEnum) {
        name_serde_crate(&mut item.attrs);
        visit_mut::visit_item_enum_mut(self, item);
    }
}

/// Whether an ident is a serde derive's name.
fn is_serde_derive(ident: &Ident) -> bool {
    ident == "Serialize" || ident == "Deserialize"
}

/// Adds `crate = "::mcpgen_runtime::serde"` to the serde arguments of an
/// item that derives `Serialize` or `Deserialize`: to its first
/// `#[serde(…)]`, or as one of its own after the derive.
fn name_serde_crate(attrs: &mut Vec<Attribute>) {
    let derive_at = attrs.iter().position(|a| {
        a.path().is_ident("derive")
            && matches!(&a.meta, Meta::List(list) if list.tokens.clone().into_iter().any(
                |t| matches!(&t, TokenTree::Ident(i) if is_serde_derive(i))
            ))
    });
    let Some(derive_at) = derive_at else {
        return;
    };
    let crate_arg = {
        let value = Literal::string(SERDE_CRATE);
        quote::quote!(crate = #value)
    };
    let existing = attrs.iter_mut().find_map(|a| match &mut a.meta {
        Meta::List(list) if list.path.is_ident("serde") => Some(list),
        _ => None,
    });
    match existing {
        Some(list) => {
            if list
                .tokens
                .clone()
                .into_iter()
                .any(|t| matches!(&t, TokenTree::Ident(i) if i == "crate"))
            {
                return;
            }
            let mut tokens = std::mem::take(&mut list.tokens);
            if !tokens.is_empty() {
                tokens.extend([TokenTree::Punct(Punct::new(',', Spacing::Alone))]);
            }
            tokens.extend(crate_arg);
            list.tokens = tokens;
        }
        None => attrs.insert(derive_at + 1, syn::parse_quote!(#[serde(#crate_arg)])),
    }
}

/// `stream` with every path that starts at a re-exported crate moved
/// under the runtime, inside groups too, and in the string literals of an
/// attribute (`in_attribute`) that name a function by such a path.
fn tokens(stream: TokenStream, in_attribute: bool) -> TokenStream {
    let trees: Vec<TokenTree> = stream.into_iter().collect();
    let mut out = Vec::with_capacity(trees.len());
    for (at, tree) in trees.iter().enumerate() {
        match tree {
            TokenTree::Group(g) => {
                let mut group = Group::new(g.delimiter(), tokens(g.stream(), in_attribute));
                group.set_span(g.span());
                out.push(TokenTree::Group(group));
            }
            TokenTree::Ident(ident)
                if RE_EXPORTED.iter().any(|name| ident == name) && path_sep_at(&trees, at + 1) =>
            {
                let after_sep = at >= 2 && path_sep_at(&trees, at - 2);
                // `x::serde::…` and `<T>::serde::…` are paths elsewhere.
                let continued = after_sep
                    && at >= 3
                    && match &trees[at - 3] {
                        TokenTree::Ident(_) => true,
                        TokenTree::Punct(p) => p.as_char() == '>',
                        _ => false,
                    };
                if !continued {
                    if !after_sep {
                        out.extend(path_sep());
                    }
                    out.push(TokenTree::Ident(Ident::new(RUNTIME, Span::call_site())));
                    out.extend(path_sep());
                }
                out.push(tree.clone());
            }
            TokenTree::Literal(lit) if in_attribute && names_a_function(&trees, at) => {
                out.push(TokenTree::Literal(literal(lit)));
            }
            other => out.push(other.clone()),
        }
    }
    out.into_iter().collect()
}

/// Whether the literal at `at` is the value of a serde argument that
/// names a function (`with = "…"`, `skip_serializing_if = "…"`): never a
/// `rename`, whose text is a wire name from the input.
fn names_a_function(trees: &[TokenTree], at: usize) -> bool {
    const KEYS: [&str; 5] = [
        "with",
        "serialize_with",
        "deserialize_with",
        "skip_serializing_if",
        "default",
    ];
    at >= 2
        && matches!(&trees[at - 1], TokenTree::Punct(p) if p.as_char() == '=')
        && matches!(&trees[at - 2], TokenTree::Ident(key) if KEYS.iter().any(|k| key == k))
}

/// Whether `trees[at..]` starts with `::`.
fn path_sep_at(trees: &[TokenTree], at: usize) -> bool {
    matches!(
        (trees.get(at), trees.get(at + 1)),
        (Some(TokenTree::Punct(a)), Some(TokenTree::Punct(b)))
            if a.as_char() == ':' && a.spacing() == Spacing::Joint && b.as_char() == ':'
    )
}

fn path_sep() -> [TokenTree; 2] {
    [
        TokenTree::Punct(Punct::new(':', Spacing::Joint)),
        TokenTree::Punct(Punct::new(':', Spacing::Alone)),
    ]
}

/// A string literal naming a path under a re-exported crate
/// (`"::serde_json::Map::is_empty"`, a serde `with` or `skip` function)
/// moved under the runtime; any other literal as it is.
fn literal(lit: &Literal) -> Literal {
    let Ok(syn::Lit::Str(text)) = syn::parse2::<syn::Lit>(TokenTree::Literal(lit.clone()).into())
    else {
        return lit.clone();
    };
    let value = text.value();
    let bare = value.strip_prefix("::").unwrap_or(&value);
    let is_path = bare
        .chars()
        .all(|c| c == ':' || c == '_' || c.is_ascii_alphanumeric());
    let under = is_path
        && RE_EXPORTED.iter().any(|name| {
            bare.strip_prefix(name)
                .is_some_and(|rest| rest.starts_with("::"))
        });
    if !under {
        return lit.clone();
    }
    let mut moved = Literal::string(&format!("::{RUNTIME}::{bare}"));
    moved.set_span(lit.span());
    moved
}

#[cfg(test)]
mod tests {
    use super::*;
    use quote::quote;

    fn rerouted(tokens: TokenStream) -> String {
        let mut file: syn::File = syn::parse2(tokens).unwrap();
        reroute(&mut file);
        prettyplease::unparse(&file)
    }

    #[test]
    fn every_serde_path_goes_through_the_runtime() {
        let out = rerouted(quote! {
            use serde::Deserialize;
            use serde_json::{Map, Value};
            #[derive(Debug, ::serde::Serialize, Deserialize)]
            #[serde(deny_unknown_fields)]
            pub struct A {
                #[serde(skip_serializing_if = "::serde_json::Map::is_empty")]
                pub extra: ::serde_json::Map<String, ::serde_json::Value>,
            }
            impl ::serde::Serialize for B {
                fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                    let v = ::std::format!("{}", ::serde_json::to_string(&1).unwrap());
                let w = <String as ::serde::Deserialize>::deserialize;
                    ::serde::Serialize::serialize(&v, s)
                }
            }
        });
        assert!(
            out.contains("use ::mcpgen_runtime::serde::Deserialize;"),
            "{out}"
        );
        assert!(
            out.contains("use ::mcpgen_runtime::serde_json::{Map, Value};"),
            "{out}"
        );
        assert!(
            out.contains("#[derive(Debug, ::mcpgen_runtime::serde::Serialize, Deserialize)]"),
            "{out}"
        );
        assert!(
            out.contains(r#"#[serde(deny_unknown_fields, crate = "::mcpgen_runtime::serde")]"#),
            "{out}"
        );
        assert!(
            out.contains(r#""::mcpgen_runtime::serde_json::Map::is_empty""#),
            "{out}"
        );
        assert!(
            out.contains("impl ::mcpgen_runtime::serde::Serialize for B"),
            "{out}"
        );
        assert!(
            out.contains("S: ::mcpgen_runtime::serde::Serializer"),
            "{out}"
        );
        assert!(
            out.contains("<String as ::mcpgen_runtime::serde::Deserialize>::deserialize"),
            "{out}"
        );
        assert!(
            out.contains("::mcpgen_runtime::serde_json::to_string("),
            "{out}"
        );
        // Nothing names the crates directly any more.
        let bare = out
            .replace("::mcpgen_runtime::serde", "")
            .replace("\"::mcpgen_runtime", "");
        assert!(
            !bare.contains("serde::") && !bare.contains("serde_json::"),
            "{out}"
        );
    }

    #[test]
    fn a_derive_without_serde_arguments_gets_its_own() {
        let out = rerouted(quote! {
            #[derive(Debug, Clone, Serialize)]
            pub enum E { A }
            #[derive(Debug, Clone)]
            pub struct NotSerde;
        });
        assert!(
            out.contains(
                "#[derive(Debug, Clone, Serialize)]\n#[serde(crate = \"::mcpgen_runtime::serde\")]\npub enum E"
            ),
            "{out}"
        );
        assert_eq!(out.matches("crate =").count(), 1, "{out}");
    }

    #[test]
    fn paths_that_only_end_in_serde_and_other_literals_stay() {
        let out = rerouted(quote! {
            fn f() {
                let _ = other::serde::x();
                let _ = <T>::serde::y();
                let _ = "serde::not_a_path here";
                let _ = "serde_json";
                let _ = ::std::format!("serde::Value {}", 1);
            }
            #[serde(rename = "serde_json::Value", alias = "::serde::x", with = "serde::x y")]
            struct S;
        });
        assert!(out.contains("other::serde::x()"), "{out}");
        assert!(out.contains("<T>::serde::y()"), "{out}");
        assert!(out.contains("\"serde::not_a_path here\""), "{out}");
        assert!(out.contains("\"serde::Value {}\""), "{out}");
        assert!(out.contains("#[serde(rename = \"serde_json::Value\", alias = \"::serde::x\", with = \"serde::x y\")]"), "{out}");
        assert!(!out.contains("mcpgen_runtime"), "{out}");
    }
}
