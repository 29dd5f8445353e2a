//! Generates the protocol types of every pinned revision (the build-step
//! path of mcpgen), plus a test-only registry that looks types, unions and
//! methods up by name so the round-trip tests can walk the examples.

use std::path::PathBuf;

use mcpgen::naming;
use mcpgen::spec::{Kind, MethodKind, Spec, Ty};
use proc_macro2::TokenStream;
use quote::quote;

const REVISIONS: &[&str] = &[
    "2024-11-05",
    "2025-03-26",
    "2025-06-18",
    "2025-11-25",
    "2026-07-28",
];

fn main() {
    let root = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap());
    // The shared mirror beside the repository, unless told otherwise.
    if std::env::var_os("MCPGEN_SCHEMA_MIRROR").is_none() {
        std::env::set_var(
            "MCPGEN_SCHEMA_MIRROR",
            root.join("../../../shared/mcp-spec"),
        );
    }
    println!("cargo:rerun-if-env-changed=MCPGEN_SCHEMA_MIRROR");
    let out = PathBuf::from(std::env::var("OUT_DIR").unwrap());
    for rev in REVISIONS {
        // Pinned, sha256-checked resolution: cache, mirror, then download.
        let schema = mcpgen::store::resolve(rev, None).unwrap_or_else(|e| panic!("{e}"));
        println!("cargo:rerun-if-changed={}", schema.path.display());
        let spec = Spec::from_json(&schema.json, rev).unwrap_or_else(|e| panic!("{e}"));
        let types = mcpgen::codegen::protocol::generate(&spec).unwrap_or_else(|e| panic!("{e}"));
        let registry = registry(&spec);
        // Formatted as every generated file is (serde through the runtime,
        // large union members allowed where they are).
        let text = mcpgen::emit::format(
            quote! { #types pub mod registry { use super::*; #registry } },
            &mcpgen::Header::new(),
        )
        .unwrap_or_else(|e| panic!("generated code for {rev}: {e}"));
        std::fs::write(out.join(format!("{rev}.rs")), text).unwrap();
    }
}

/// Test-only lookups by name over the generated types of one revision.
fn registry(spec: &Spec) -> TokenStream {
    let mut roundtrip = Vec::new();
    let mut unions_of = Vec::new();
    let mut decode_union = Vec::new();
    for def in spec.types.values() {
        let name = &def.name;
        let ident = mcpgen::codegen::protocol::type_ident(name);
        roundtrip.push(quote! { #name => Some(rt::<#ident>(value)), });
        if !def.definition {
            continue;
        }
        let containing: Vec<&str> = spec
            .types
            .values()
            .filter(|u| u.definition)
            .filter(|u| matches!(&u.kind, Kind::Union(un) if un.variants.iter().any(|v| v.ty == Ty::Named(name.clone()))))
            .map(|u| u.name.as_str())
            .collect();
        if !containing.is_empty() {
            unions_of.push(quote! { #name => &[#(#containing),*], });
        }
        if let Kind::Union(u) = &def.kind {
            let arms = u.variants.iter().map(|v| {
                let vi = naming::ident(&v.name);
                let inner = match &v.ty {
                    Ty::Named(n) => n.clone(),
                    other => other.describe(),
                };
                if v.ty == Ty::Null {
                    quote! { #ident::#vi => #inner, }
                } else {
                    quote! { #ident::#vi(_) => #inner, }
                }
            });
            decode_union.push(quote! {
                #name => Some(serde_json::from_value::<#ident>(value.clone()).map_err(|e| e.to_string()).and_then(|d| {
                    let member: &'static str = match &d { #(#arms)* };
                    serde_json::to_value(&d).map(|v| (member, v)).map_err(|e| e.to_string())
                })),
            });
        }
    }
    let mut methods = Vec::new();
    let mut params = Vec::new();
    let mut result_pointers = Vec::new();
    for m in &spec.methods {
        let method = &m.name;
        let message = &m.message;
        if let Some(Ty::Named(r)) = &m.result {
            if let Some(def) = spec.get(r) {
                let p = format!("#{}", def.pointer);
                result_pointers.push(quote! { #method => ::std::option::Option::Some(#p), });
            }
        }
        let kind = if m.kind == MethodKind::Request {
            "request"
        } else {
            "notification"
        };
        methods.push(quote! { #method => Some((#kind, #message)), });
        if let Some(p) = &m.params {
            let t = mcpgen::codegen::protocol::ty_tokens(p);
            params.push(quote! { #method => Some(rt::<#t>(value)), });
        }
    }
    let has_results = spec.methods.iter().any(|m| m.kind == MethodKind::Request);
    let result_fn = if has_results {
        quote! {
            pub fn result_roundtrip(method: &str, value: &serde_json::Value) -> ::std::result::Result<serde_json::Value, ::std::string::String> {
                let decoded = super::MethodResult::decode(method, value).map_err(|e| e.to_string())?;
                serde_json::to_value(&decoded).map_err(|e| e.to_string())
            }
        }
    } else {
        quote! {
            pub fn result_roundtrip(method: &str, _value: &serde_json::Value) -> ::std::result::Result<serde_json::Value, ::std::string::String> {
                Err(format!("no requests in this revision: {method}"))
            }
        }
    };
    let content = spec.tool_content_item().and_then(|t| match t {
        Ty::Named(n) => spec
            .get(n)
            .map(|d| (d.name.clone(), format!("#{}", d.pointer))),
        _ => None,
    });
    let content_const = match content {
        Some((n, p)) => quote! { pub const CONTENT_BLOCK: Option<(&str, &str)> = Some((#n, #p)); },
        None => quote! { pub const CONTENT_BLOCK: Option<(&str, &str)> = None; },
    };
    let type_names: Vec<&str> = spec.types.values().map(|d| d.name.as_str()).collect();
    quote! {
        /// The type of one content block of a tool result, and its schema pointer.
        #content_const
        /// Every definition of the revision, by name (what `roundtrip` knows).
        pub const TYPES: &[&str] = &[#(#type_names),*];
        fn rt<T: serde::Serialize + serde::de::DeserializeOwned>(value: &serde_json::Value) -> ::std::result::Result<serde_json::Value, ::std::string::String> {
            let decoded: T = serde_json::from_value(value.clone()).map_err(|e| e.to_string())?;
            serde_json::to_value(&decoded).map_err(|e| e.to_string())
        }
        /// Decodes `value` as the definition `ty` and encodes it again.
        pub fn roundtrip(ty: &str, value: &serde_json::Value) -> ::std::option::Option<::std::result::Result<serde_json::Value, ::std::string::String>> {
            match ty { #(#roundtrip)* _ => None }
        }
        /// The union definitions that list `ty` as a member.
        pub fn unions_of(ty: &str) -> &'static [&'static str] {
            match ty { #(#unions_of)* _ => &[] }
        }
        /// Decodes `value` through the union `union`: the type its variant wraps, and the value encoded again.
        pub fn decode_union(union: &str, value: &serde_json::Value) -> ::std::option::Option<::std::result::Result<(&'static str, serde_json::Value), String>> {
            match union { #(#decode_union)* _ => None }
        }
        /// The kind and message type of a method.
        pub fn method(method: &str) -> ::std::option::Option<(&'static str, &'static str)> {
            match method { #(#methods)* _ => None }
        }
        /// The schema pointer of the result type of `method`.
        pub fn result_pointer(method: &str) -> ::std::option::Option<&'static str> {
            match method { #(#result_pointers)* _ => ::std::option::Option::None }
        }
        /// Decodes `value` as the params of `method` and encodes it again.
        pub fn params_roundtrip(method: &str, value: &serde_json::Value) -> ::std::option::Option<::std::result::Result<serde_json::Value, ::std::string::String>> {
            match method { #(#params)* _ => None }
        }
        #result_fn
    }
}
