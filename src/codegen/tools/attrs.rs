//! Reading the attributes of the tool types' items: their `#[serde(…)]`
//! arguments and derives, shared by [`super::polish`] and
//! [`super::decode`].

use proc_macro2::Ident;
use syn::punctuated::Punctuated;
use syn::{Attribute, Token};

/// The arguments of the `#[serde(…)]` attributes among `attrs`, in
/// order: each key with its string value (`rename = "x"` gives `x`), or
/// none (`default`, `flatten`, or a value that is no string).
pub(super) fn serde_args(attrs: &[Attribute]) -> Vec<(String, Option<String>)> {
    let mut args = Vec::new();
    for a in attrs.iter().filter(|a| a.path().is_ident("serde")) {
        let _ = a.parse_nested_meta(|meta| {
            let key = meta
                .path
                .get_ident()
                .map(Ident::to_string)
                .unwrap_or_default();
            let mut value = None;
            if meta.input.peek(Token![=]) {
                if let syn::Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Str(s),
                    ..
                }) = meta.value()?.parse::<syn::Expr>()?
                {
                    value = Some(s.value());
                }
            } else if meta.input.peek(syn::token::Paren) {
                let _ = meta.parse_nested_meta(|_| Ok(()));
            }
            args.push((key, value));
            Ok(())
        });
    }
    args
}

/// Whether `ty` is `Option<…>` (by any path to it).
pub(super) fn is_option(ty: &syn::Type) -> bool {
    matches!(ty, syn::Type::Path(p) if p.qself.is_none() && p.path.segments.last().is_some_and(|s| s.ident == "Option"))
}

/// Whether a `#[derive(…)]` of `attrs` names the trait `name` (by any path).
pub(super) fn derives(attrs: &[Attribute], name: &str) -> bool {
    attrs
        .iter()
        .filter(|a| a.path().is_ident("derive"))
        .any(|a| {
            a.parse_args_with(Punctuated::<syn::Path, Token![,]>::parse_terminated)
                .is_ok_and(|paths| {
                    paths
                        .iter()
                        .any(|p| p.segments.last().is_some_and(|s| s.ident == name))
                })
        })
}

/// The property a field stands for: its `rename`, else its name.
pub(super) fn wire_name(f: &syn::Field, ident: &Ident) -> String {
    wire_name_in(&serde_args(&f.attrs), ident)
}

/// [`wire_name`] from the field's [`serde_args`], already read.
pub(super) fn wire_name_in(args: &[(String, Option<String>)], ident: &Ident) -> String {
    let renamed = args
        .iter()
        .find_map(|(k, v)| v.as_ref().filter(|_| k == "rename"));
    match renamed {
        Some(name) => name.clone(),
        None => ident.to_string().trim_start_matches("r#").to_owned(),
    }
}
