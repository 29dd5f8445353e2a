//! A lean `Deserialize` for the tool types' structs.
//!
//! serde's derive writes, for every struct, a field enum with its own
//! visitor and a struct visitor that decodes from a sequence as well as a
//! map. At gateway scale that code is most of what the compiler holds:
//! in the bindings of 800 tools, the derived `Deserialize` impls were 1.1
//! of the 1.8 GB the compiler's peak held for the tool types, and three
//! quarters of their compile time. So a plain struct (named fields, field
//! attributes that only rename, default or decode with a function) gets
//! a short impl instead: the object is read once into its members
//! (`mcpgen_runtime::de::members::Members`), and one line per field takes its value from
//! them. An enum of unit variants that implements `FromStr` decodes a
//! string through it. The rest (unions, flattened fields, newtypes) keep
//! the derive.
//!
//! What decodes is unchanged: an absent `Option` field is `None`, an
//! absent field with `default` is its default, an absent required field is
//! the error `missing field `x``, a field's decoder function is used as
//! before, and `deny_unknown_fields` refuses any other member, which is
//! how the members of an untagged union still tell themselves apart. The
//! only difference is that a struct no longer decodes from a JSON array of
//! its fields, which no object schema allows.

use std::collections::BTreeSet;

use proc_macro2::TokenStream;
use quote::quote;
use syn::punctuated::Punctuated;
use syn::{Fields, Token};

use super::attrs::{derives, is_option, serde_args, wire_name_in};

/// Takes `Deserialize` off the derives of `s` and returns the impl that
/// replaces it; `None` (and `s` unchanged) for a struct the derive must
/// keep, or in a file that `defines` a type named like one of the
/// prelude's variants the impl uses.
pub(super) fn lean(s: &mut syn::ItemStruct, defined: &BTreeSet<String>) -> Option<TokenStream> {
    if ["Some", "None", "Ok", "Err"]
        .iter()
        .any(|v| defined.contains(*v))
    {
        return None;
    }
    let Fields::Named(named) = &s.fields else {
        return None;
    };
    if named.named.is_empty()
        || !s.generics.params.is_empty()
        || !derives(&s.attrs, "Deserialize")
        || !derives(&s.attrs, "Serialize")
    {
        return None;
    }
    let mut strict = false;
    for (key, _) in serde_args(&s.attrs) {
        match key.as_str() {
            "deny_unknown_fields" => strict = true,
            _ => return None,
        }
    }
    let mut keys = Vec::new();
    let mut binds = Vec::new();
    let mut takes = Vec::new();
    for f in &named.named {
        let ident = f.ident.as_ref()?;
        // The field's arguments are read once: its wire name is among them.
        let args = serde_args(&f.attrs);
        let key = wire_name_in(&args, ident);
        let mut decoder = None;
        let mut absent = None;
        for (arg, value) in args {
            match (arg.as_str(), value) {
                ("rename" | "skip_serializing_if", _) => {}
                ("default", None) => absent = Some(quote!(::std::default::Default::default)),
                ("default", Some(path)) => {
                    let path: syn::ExprPath = syn::parse_str(&path).ok()?;
                    absent = Some(quote!(#path));
                }
                ("deserialize_with", Some(path)) => {
                    let path: syn::ExprPath = syn::parse_str(&path).ok()?;
                    decoder = Some(path);
                }
                _ => return None,
            }
        }
        takes.push(match (decoder, absent) {
            (Some(decoder), Some(absent)) => quote!(members.with_or_else(#key, #decoder, #absent)),
            (Some(decoder), None) => quote!(members.with(#key, #decoder)),
            (None, Some(absent)) => quote!(members.or_else(#key, #absent)),
            (None, None) if is_option(&f.ty) => quote!(members.optional(#key)),
            (None, None) => quote!(members.required(#key)),
        });
        binds.push(ident.clone());
        keys.push(key);
    }
    drop_derive(&mut s.attrs, "Deserialize");
    let name = &s.ident;
    let known = if strict {
        quote!(Some(&[#(#keys),*]))
    } else {
        quote!(None)
    };
    // Every field is taken (a failed one as `None`, its error kept), then
    // one pattern checks them all: far less code than a `?` per field.
    Some(quote! {
        impl<'de> ::serde::Deserialize<'de> for #name {
            fn deserialize<D: ::serde::Deserializer<'de>>(
                deserializer: D,
            ) -> ::std::result::Result<Self, D::Error> {
                fn take(
                    members: &mut ::mcpgen_runtime::de::members::Members,
                ) -> ::std::result::Result<#name, ::mcpgen_runtime::de::members::Error> {
                    let (#(Some(#binds),)*) = (#(#takes,)*) else {
                        return Err(members.error());
                    };
                    Ok(#name { #(#binds),* })
                }
                ::mcpgen_runtime::de::members::decode(deserializer, take, #known)
            }
        }
    })
}

/// Takes `Deserialize` off the derives of `e`, an enum that implements
/// `FromStr`, and returns the impl that decodes a string through it;
/// `None` (and `e` unchanged) unless every variant is a unit one, with at
/// most a `rename`.
pub(super) fn lean_unit(e: &mut syn::ItemEnum) -> Option<TokenStream> {
    if !e.generics.params.is_empty()
        || e.variants.is_empty()
        || !serde_args(&e.attrs).is_empty()
        || !derives(&e.attrs, "Deserialize")
        || !derives(&e.attrs, "Serialize")
    {
        return None;
    }
    let mut names = Vec::new();
    for v in &e.variants {
        if !matches!(v.fields, Fields::Unit) {
            return None;
        }
        let mut name = v.ident.to_string().trim_start_matches("r#").to_owned();
        for (arg, value) in serde_args(&v.attrs) {
            match (arg.as_str(), value) {
                ("rename", Some(renamed)) => name = renamed,
                _ => return None,
            }
        }
        names.push(name);
    }
    drop_derive(&mut e.attrs, "Deserialize");
    let name = &e.ident;
    Some(quote! {
        impl<'de> ::serde::Deserialize<'de> for #name {
            fn deserialize<D: ::serde::Deserializer<'de>>(
                deserializer: D,
            ) -> ::std::result::Result<Self, D::Error> {
                ::mcpgen_runtime::de::members::unit(deserializer, &[#(#names),*])
            }
        }
    })
}

/// Removes `name` from the `#[derive(…)]` lists of `attrs` (a list left
/// empty goes).
fn drop_derive(attrs: &mut Vec<syn::Attribute>, name: &str) {
    attrs.retain_mut(|a| {
        if !a.path().is_ident("derive") {
            return true;
        }
        let Ok(paths) = a.parse_args_with(Punctuated::<syn::Path, Token![,]>::parse_terminated)
        else {
            return true;
        };
        let kept: Vec<&syn::Path> = paths
            .iter()
            .filter(|p| p.segments.last().is_none_or(|s| s.ident != name))
            .collect();
        if kept.is_empty() {
            return false;
        }
        *a = syn::parse_quote!(#[derive(#(#kept),*)]);
        true
    });
}

#[cfg(test)]
mod tests {
    use quote::ToTokens;

    use super::*;

    fn leaned(item: TokenStream, defined: &[&str]) -> (Option<String>, String) {
        let mut s: syn::ItemStruct = syn::parse2(item).unwrap();
        let defined = defined.iter().map(|d| d.to_string()).collect();
        let out = lean(&mut s, &defined).map(|t| t.to_string());
        (out, s.to_token_stream().to_string())
    }

    #[test]
    fn plain_structs_lose_the_derive_and_others_keep_it() {
        let plain = quote! {
            #[derive(Debug, Serialize, Deserialize)]
            #[serde(deny_unknown_fields)]
            pub struct A {
                #[serde(rename = "type")]
                pub type_: String,
                #[serde(default = "defaults::n")]
                pub n: u64,
                pub note: Option<String>,
                #[serde(deserialize_with = "wide::one")]
                pub big: u128,
            }
        };
        let (impl_, item) = leaned(plain.clone(), &[]);
        let impl_ = impl_.expect("a plain struct is leaned");
        assert!(item.contains("# [derive (Debug , Serialize)]"), "{item}");
        for take in [
            r#"members . required ("type")"#,
            r#"members . or_else ("n" , defaults :: n)"#,
            r#"members . optional ("note")"#,
            r#"members . with ("big" , wide :: one)"#,
            r#"Some (& ["type" , "n" , "note" , "big"])"#,
        ] {
            assert!(impl_.contains(take), "{take} in {impl_}");
        }
        // A file with a type named like a variant the impl uses keeps it.
        assert_eq!(leaned(plain, &["Some"]).0, None);
        for kept in [
            quote! { #[derive(Serialize, Deserialize)] pub struct B { #[serde(flatten)] pub rest: M } },
            quote! { #[derive(Serialize, Deserialize)] #[serde(transparent)] pub struct C { pub v: u8 } },
            quote! { #[derive(Serialize, Deserialize)] pub struct D(pub u8); },
            quote! { #[derive(Deserialize)] pub struct E { pub v: u8 } },
        ] {
            let (out, item) = leaned(kept, &[]);
            assert_eq!(out, None, "{item}");
            assert!(item.contains("Deserialize"), "{item}");
        }
    }
}
