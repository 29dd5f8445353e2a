//! Protocol types of one revision: a Rust type for every named type of the
//! [`Spec`], plus the method table (`McpRequest`, `McpNotification`,
//! `MethodResult`); or only the types a crate uses ([`used`], [`generate_only`]).
//!
//! Structs, unions and their serde impls are written here rather than
//! derived, so that constants are checked and written by serialisation
//! instead of being fields, unions dispatch on their discriminator or pick
//! the most specific member, unknown members of open objects survive, and
//! absent optional properties stay absent. The impls call the helpers of
//! `mcpgen_runtime::de`.

use std::collections::{BTreeMap, BTreeSet};

use proc_macro2::{Ident, Literal, TokenStream, TokenTree};
use quote::{format_ident, quote};

use crate::error::Result;
use crate::naming::{self, Scope};
use crate::spec::{
    Additional, ConstValue, Kind, MethodKind, PropValue, Spec, Struct, Ty, TypeDef, Union,
};

/// The protocol types of `spec`, as the body of a module.
pub fn generate(spec: &Spec) -> Result<TokenStream> {
    generate_only(spec, None)
}

/// The protocol types of `spec` named in `only` (all of them, with the
/// method table, when `None`), in the spec's order.
pub fn generate_only(spec: &Spec, only: Option<&BTreeSet<String>>) -> Result<TokenStream> {
    let mut items = TokenStream::new();
    for def in spec.types.values() {
        if only.is_some_and(|keep| !keep.contains(&def.name)) {
            continue;
        }
        items.extend(match &def.kind {
            Kind::Struct(s) => struct_item(spec, def, s),
            Kind::Union(u) => union_item(spec, def, u),
            Kind::Enum(values) => enum_item(def, values),
            Kind::Alias(ty) => {
                let name = type_ident(&def.name);
                let doc = doc_attr(def.doc.as_deref());
                let ty = ty_tokens(ty);
                quote! { #doc pub type #name = #ty; }
            }
        });
    }
    if only.is_none() {
        items.extend(method_table(spec));
    }
    Ok(items)
}

/// The spec's names of the types `code` refers to as `protocol::<Type>`
/// or in `protocol::{…}` (whatever comes before `protocol`), in every
/// group.
pub fn mentioned(spec: &Spec, code: &[&TokenStream]) -> BTreeSet<String> {
    let by_ident: BTreeMap<String, &str> = spec
        .types
        .values()
        .map(|def| (type_ident(&def.name).to_string(), def.name.as_str()))
        .collect();
    let mut found = BTreeSet::new();
    let mut stack: Vec<TokenStream> = code.iter().map(|t| (*t).clone()).collect();
    while let Some(tokens) = stack.pop() {
        let tts: Vec<TokenTree> = tokens.into_iter().collect();
        for (i, tt) in tts.iter().enumerate() {
            match tt {
                TokenTree::Group(g) => stack.push(g.stream()),
                TokenTree::Ident(id) if id == "protocol" => {
                    let path = matches!(tts.get(i + 1), Some(TokenTree::Punct(p)) if p.as_char() == ':')
                        && matches!(tts.get(i + 2), Some(TokenTree::Punct(p)) if p.as_char() == ':');
                    let named: Vec<String> = match (path, tts.get(i + 3)) {
                        (true, Some(TokenTree::Ident(ty))) => vec![ty.to_string()],
                        // `protocol::{A, B}`: every name in the list.
                        (true, Some(TokenTree::Group(list))) => list
                            .stream()
                            .into_iter()
                            .filter_map(|t| match t {
                                TokenTree::Ident(ty) => Some(ty.to_string()),
                                _ => None,
                            })
                            .collect(),
                        _ => Vec::new(),
                    };
                    for ty in named {
                        if let Some(name) = by_ident.get(&ty) {
                            found.insert((*name).to_owned());
                        }
                    }
                }
                _ => {}
            }
        }
    }
    found
}

/// `roots` and every type they contain, all the way down: what
/// [`generate_only`] must write for the roots to compile.
pub fn used(spec: &Spec, roots: impl IntoIterator<Item = String>) -> BTreeSet<String> {
    let mut seen = BTreeSet::new();
    let mut todo: Vec<String> = roots.into_iter().collect();
    while let Some(name) = todo.pop() {
        let Some(def) = spec.types.get(&name) else {
            continue;
        };
        if !seen.insert(name) {
            continue;
        }
        let mut contains: Vec<&Ty> = Vec::new();
        match &def.kind {
            Kind::Struct(s) => {
                for p in &s.properties {
                    if let PropValue::Ty(ty) = &p.value {
                        contains.push(ty);
                    }
                }
                if let Additional::Typed(ty) = &s.additional {
                    contains.push(ty);
                }
            }
            Kind::Union(u) => contains.extend(u.variants.iter().map(|v| &v.ty)),
            Kind::Alias(ty) => contains.push(ty),
            Kind::Enum(_) => {}
        }
        todo.extend(
            contains
                .into_iter()
                .flat_map(Ty::names)
                .filter(|n| !seen.contains(*n))
                .map(str::to_owned),
        );
    }
    seen
}

/// The type (relative to the protocol module) of one item of
/// `CallToolResult.content` in this revision.
pub fn tool_content_type(spec: &Spec) -> TokenStream {
    match spec.tool_content_item() {
        Some(ty) => ty_tokens(ty),
        None => quote!(::serde_json::Value),
    }
}

/// The Rust type of a value of IR type `ty`.
pub fn ty_tokens(ty: &Ty) -> TokenStream {
    match ty {
        Ty::Any => quote!(::serde_json::Value),
        Ty::Null => quote!(()),
        Ty::Bool => quote!(bool),
        Ty::Integer => quote!(i64),
        Ty::Number => quote!(::serde_json::Number),
        Ty::String => quote!(String),
        Ty::Array(t) => {
            let t = ty_tokens(t);
            quote!(Vec<#t>)
        }
        Ty::Map(t) => {
            let t = ty_tokens(t);
            quote!(::std::collections::BTreeMap<String, #t>)
        }
        Ty::Object => quote!(::serde_json::Map<String, ::serde_json::Value>),
        Ty::Named(n) => {
            let n = type_ident(n);
            quote!(#n)
        }
        Ty::Nullable(t) => {
            let t = ty_tokens(t);
            quote!(Option<#t>)
        }
    }
}

/// The Rust name of a schema type. A name the prelude has (the schema's
/// `Result`) gets an `Mcp` prefix: kept as it is, it would shadow the
/// standard one for every line of the module and its users' glob imports,
/// and the generated code writes the prelude's names short.
pub fn type_ident(name: &str) -> Ident {
    const PRELUDE: &[&str] = &[
        "Result", "Option", "String", "Vec", "Box", "Default", "From", "Into", "Ok", "Err", "Some",
        "None",
    ];
    if PRELUDE.contains(&name) {
        naming::ident(&format!("Mcp{name}"))
    } else {
        naming::ident(name)
    }
}

fn doc_attr(doc: Option<&str>) -> TokenStream {
    crate::codegen::docs::doc_attrs(doc)
}

fn const_tokens(c: &ConstValue) -> TokenStream {
    match c {
        ConstValue::Str(s) => quote!(::mcpgen_runtime::de::Const::Str(#s)),
        ConstValue::Int(i) => {
            let lit = Literal::i64_unsuffixed(*i);
            quote!(::mcpgen_runtime::de::Const::Int(#lit))
        }
        ConstValue::Bool(b) => quote!(::mcpgen_runtime::de::Const::Bool(#b)),
    }
}

/// How one property of a struct is stored.
enum FieldKind {
    /// A field holding the value (`Option` when not required).
    Value { ty: Ty, boxed: bool },
    /// A required constant: no field at all.
    Const(ConstValue),
    /// An optional constant: a `bool` saying whether it is written.
    OptionalConst(ConstValue),
}

struct Field<'a> {
    wire: &'a str,
    /// The Rust field; a required constant has none.
    ident: Option<Ident>,
    doc: Option<&'a str>,
    required: bool,
    kind: FieldKind,
}

fn fields<'a>(spec: &Spec, owner: &str, s: &'a Struct) -> (Vec<Field<'a>>, Option<Ident>) {
    let mut scope = Scope::new();
    let mut out = Vec::new();
    for p in &s.properties {
        let kind = match &p.value {
            PropValue::Const(c) if p.required => FieldKind::Const(c.clone()),
            PropValue::Const(c) => FieldKind::OptionalConst(c.clone()),
            PropValue::Ty(ty) => FieldKind::Value {
                ty: ty.clone(),
                boxed: spec.is_recursive(owner, ty),
            },
        };
        let ident = match kind {
            FieldKind::Const(_) => None,
            _ => Some(naming::ident(&scope.unique(&naming::snake(&p.wire)))),
        };
        out.push(Field {
            wire: &p.wire,
            ident,
            doc: p.doc.as_deref(),
            required: p.required,
            kind,
        });
    }
    let extra = match s.additional {
        Additional::Closed => None,
        _ => Some(naming::ident(&scope.unique("extra"))),
    };
    (out, extra)
}

fn struct_item(spec: &Spec, def: &TypeDef, s: &Struct) -> TokenStream {
    let name = type_ident(&def.name);
    let name_str = def.name.as_str();
    let doc = doc_attr(def.doc.as_deref());
    let (fields, extra) = fields(spec, &def.name, s);

    let mut decls = Vec::new();
    let mut decode = Vec::new();
    let mut checks = Vec::new();
    let mut encode = Vec::new();
    let mut ctor_args = Vec::new();
    let mut ctor_fields = Vec::new();
    let mut all_optional = true;
    for f in &fields {
        let wire = f.wire;
        let ident = &f.ident;
        let fdoc = doc_attr(f.doc);
        // `ident` is `Some` for every kind but `Const`, which uses none.
        match &f.kind {
            FieldKind::Const(c) => {
                let c = const_tokens(c);
                checks.push(quote! { ::mcpgen_runtime::de::constant(&mut object, #name_str, #wire, #c, ::mcpgen_runtime::de::Presence::Required)?; });
                encode.push(quote! { map.serialize_entry(#wire, &#c)?; });
            }
            FieldKind::OptionalConst(c) => {
                let note =
                    format!(" Whether the optional constant `{wire}` (always {c}) is written.");
                let ct = const_tokens(c);
                decls.push(quote! { #fdoc #[doc = ""] #[doc = #note] pub #ident: bool, });
                decode.push(quote! { #ident: ::mcpgen_runtime::de::constant(&mut object, #name_str, #wire, #ct, ::mcpgen_runtime::de::Presence::Optional)?, });
                encode.push(quote! { if self.#ident { map.serialize_entry(#wire, &#ct)?; } });
                ctor_fields.push(quote! { #ident: true, });
            }
            FieldKind::Value { ty, boxed } => {
                let mut t = ty_tokens(ty);
                if *boxed {
                    t = quote!(Box<#t>);
                }
                if f.required {
                    all_optional = false;
                    decls.push(quote! { #fdoc pub #ident: #t, });
                    decode.push(quote! { #ident: ::mcpgen_runtime::de::required(&mut object, #name_str, #wire)?, });
                    encode.push(quote! { map.serialize_entry(#wire, &self.#ident)?; });
                    ctor_args.push(quote! { #ident: impl Into<#t> });
                    ctor_fields.push(quote! { #ident: #ident.into(), });
                } else {
                    decls.push(quote! { #fdoc pub #ident: Option<#t>, });
                    decode.push(quote! { #ident: ::mcpgen_runtime::de::optional(&mut object, #name_str, #wire)?, });
                    encode.push(quote! { if let Option::Some(value) = &self.#ident { map.serialize_entry(#wire, value)?; } });
                    ctor_fields.push(quote! { #ident: Option::None, });
                }
            }
        }
    }
    let mut finish = quote! { Result::Ok(value) };
    match (&s.additional, &extra) {
        (Additional::Any, Some(extra)) => {
            decls.push(quote! {
                #[doc = " Members the schema does not declare, kept as they came."]
                pub #extra: ::serde_json::Map<String, ::serde_json::Value>,
            });
            decode.push(quote! { #extra: object, });
            encode.push(
                quote! { for (key, value) in &self.#extra { map.serialize_entry(key, value)?; } },
            );
            ctor_fields.push(quote! { #extra: Default::default(), });
        }
        (Additional::Typed(t), Some(extra)) => {
            let t = ty_tokens(t);
            decls.push(quote! {
                #[doc = " Members the schema does not declare by name."]
                pub #extra: ::std::collections::BTreeMap<String, #t>,
            });
            decode.push(quote! { #extra: ::mcpgen_runtime::de::additional(object, #name_str)?, });
            encode.push(
                quote! { for (key, value) in &self.#extra { map.serialize_entry(key, value)?; } },
            );
            ctor_fields.push(quote! { #extra: Default::default(), });
        }
        _ => {
            finish = quote! {
                ::mcpgen_runtime::de::closed(object, #name_str)?;
                Result::Ok(value)
            };
        }
    }
    let has_optional_const = fields
        .iter()
        .any(|f| matches!(f.kind, FieldKind::OptionalConst(_)));

    // `Default` where nothing is required (and no optional constant would
    // default to absent); otherwise `new` taking the required fields.
    let derive_default = all_optional && !has_optional_const;
    let derives = if derive_default {
        quote!(#[derive(Debug, Clone, PartialEq, Eq, Default)])
    } else {
        quote!(#[derive(Debug, Clone, PartialEq, Eq)])
    };
    let ctor = if derive_default {
        TokenStream::new()
    } else {
        let ctor_doc = format!(
            " {} `{name_str}` with the given required fields and every optional one absent.",
            crate::naming::article(name_str)
        );
        let allow = if ctor_args.len() > 7 {
            quote!(#[allow(clippy::too_many_arguments)])
        } else {
            TokenStream::new()
        };
        quote! {
            impl #name {
                #[doc = #ctor_doc]
                #allow
                pub fn new(#(#ctor_args),*) -> Self {
                    Self { #(#ctor_fields)* }
                }
            }
        }
    };
    let use_map = if encode.is_empty() {
        TokenStream::new()
    } else {
        quote!(
            use ::serde::ser::SerializeMap as _;
        )
    };
    // A type that writes nothing of its own leaves the map unused.
    let map_binding = if encode.is_empty() {
        quote!(_map)
    } else {
        quote!(map)
    };
    let object_binding = if decode.is_empty() && checks.is_empty() && extra.is_none() {
        quote!(object)
    } else {
        quote!(mut object)
    };
    quote! {
        #doc
        #derives
        pub struct #name { #(#decls)* }

        #ctor

        impl ::mcpgen_runtime::de::FromObject for #name {
            fn from_object(#object_binding: ::mcpgen_runtime::de::Object) -> Result<Self, ::mcpgen_runtime::de::DecodeError> {
                #(#checks)*
                let value = Self { #(#decode)* };
                #finish
            }
        }

        impl ::serde::Serialize for #name {
            fn serialize<S: ::serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                ::mcpgen_runtime::de::serialize_object(serializer, |#map_binding| {
                    #use_map
                    #(#encode)*
                    Result::Ok(())
                })
            }
        }

        impl<'de> ::serde::Deserialize<'de> for #name {
            fn deserialize<D: ::serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                ::mcpgen_runtime::de::deserialize_object(deserializer, #name_str)
            }
        }
    }
}

fn union_item(spec: &Spec, def: &TypeDef, u: &Union) -> TokenStream {
    let name = type_ident(&def.name);
    let name_str = def.name.as_str();
    let doc = doc_attr(def.doc.as_deref());

    let mut variants = Vec::new();
    let mut encode = Vec::new();
    let mut tagged = Vec::new();
    let mut fallback = quote!(Option::None);
    let mut untagged = Vec::new();
    let mut tag_arms = Vec::new();
    let mut from_impls = Vec::new();
    let mut tag_values = Vec::new();
    for v in &u.variants {
        let vname = naming::ident(&v.name);
        let vdoc = match &v.ty {
            Ty::Named(n) => format!(" The `{n}` member."),
            other => format!(" A member of type {}.", other.describe()),
        };
        if v.ty == Ty::Null {
            variants.push(quote! { #[doc = #vdoc] #vname, });
            encode.push(quote! { Self::#vname => serializer.serialize_unit(), });
            untagged.push(quote! {
                ::mcpgen_runtime::de::Candidate {
                    name: stringify!(#vname),
                    properties: &[],
                    required: &[],
                    decode: |value| <() as ::serde::Deserialize>::deserialize(value).map(|()| Self::#vname),
                },
            });
            continue;
        }
        let mut t = ty_tokens(&v.ty);
        let boxed = spec.is_recursive(&def.name, &v.ty);
        let wrap = if boxed {
            t = quote!(Box<#t>);
            quote!(|inner| Self::#vname(Box::new(inner)))
        } else {
            quote!(Self::#vname)
        };
        let inner_ty = ty_tokens(&v.ty);
        variants.push(quote! { #[doc = #vdoc] #vname(#t), });
        encode.push(
            quote! { Self::#vname(value) => ::serde::Serialize::serialize(value, serializer), },
        );
        let decode = quote! {
            |value: &::serde_json::Value| <#inner_ty as ::serde::Deserialize>::deserialize(value).map(#wrap)
        };
        match &v.tag {
            Some((c, required)) => {
                let ct = const_tokens(c);
                if !*required {
                    fallback = quote!(Option::Some(#decode));
                }
                tagged.push(quote! { (#ct, #decode), });
                if let ConstValue::Str(s) = c {
                    tag_arms.push(quote! { Self::#vname(_) => #s, });
                    tag_values.push(s.clone());
                }
            }
            None => {
                let props = &v.properties;
                let required = &v.required;
                untagged.push(quote! {
                    ::mcpgen_runtime::de::Candidate {
                        name: stringify!(#vname),
                        properties: &[#(#props),*],
                        required: &[#(#required),*],
                        decode: #decode,
                    },
                });
            }
        }
        let same_type = u.variants.iter().filter(|w| w.ty == v.ty).count();
        if same_type == 1 && !boxed {
            from_impls.push(quote! {
                impl From<#inner_ty> for #name {
                    fn from(value: #inner_ty) -> Self { Self::#vname(value) }
                }
            });
        }
    }

    let body = match &u.discriminator {
        Some(prop) if untagged.is_empty() => quote! {
            ::mcpgen_runtime::de::dispatch(&value, #name_str, #prop, &[#(#tagged)*], #fallback)
        },
        Some(prop) => quote! {
            if value.is_object() {
                ::mcpgen_runtime::de::dispatch(&value, #name_str, #prop, &[#(#tagged)*], #fallback)
            } else {
                ::mcpgen_runtime::de::best_match(&value, #name_str, &[#(#untagged)*])
            }
        },
        None => quote! {
            ::mcpgen_runtime::de::best_match(&value, #name_str, &[#(#untagged)*])
        },
    };

    let tag_impl = match &u.discriminator {
        Some(prop) if tag_arms.len() == u.variants.len() => {
            let d_doc = " The property whose constant value tells the members apart.".to_string();
            let v_doc = format!(" The values `{prop}` takes, one per member.");
            let f_doc = format!(" The value of `{prop}` for this member.");
            quote! {
                impl #name {
                    #[doc = #d_doc]
                    pub const DISCRIMINATOR: &'static str = #prop;
                    #[doc = #v_doc]
                    pub const VALUES: &'static [&'static str] = &[#(#tag_values),*];
                    #[doc = #f_doc]
                    pub fn discriminator_value(&self) -> &'static str {
                        match self { #(#tag_arms)* }
                    }
                }
            }
        }
        _ => TokenStream::new(),
    };

    // Members are protocol messages of very different sizes that are decoded
    // once and matched by value: never boxed, and allowed to be large where
    // they are (`emit` decides, from their sizes).
    quote! {
        #doc
        #[derive(Debug, Clone, PartialEq, Eq)]
        pub enum #name { #(#variants)* }

        #tag_impl
        #(#from_impls)*

        impl ::serde::Serialize for #name {
            fn serialize<S: ::serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                match self { #(#encode)* }
            }
        }

        impl<'de> ::serde::Deserialize<'de> for #name {
            fn deserialize<D: ::serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                let value = <::serde_json::Value as ::serde::Deserialize>::deserialize(deserializer)?;
                let decoded: Result<Self, ::mcpgen_runtime::de::DecodeError> = #body;
                decoded.map_err(<D::Error as ::serde::de::Error>::custom)
            }
        }
    }
}

fn enum_item(def: &TypeDef, values: &[String]) -> TokenStream {
    let name = type_ident(&def.name);
    let doc = doc_attr(def.doc.as_deref());
    let mut scope = Scope::new();
    let variants = values.iter().map(|v| {
        let ident = naming::ident(&scope.unique(&naming::pascal(v)));
        let vdoc = format!(" `{v:?}`");
        quote! { #[doc = #vdoc] #[serde(rename = #v)] #ident, }
    });
    quote! {
        #doc
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, ::serde::Serialize, ::serde::Deserialize)]
        pub enum #name { #(#variants)* }
    }
}

/// `McpRequest` / `McpNotification` impls for every method, and
/// `MethodResult`, the result of any request typed by its method.
fn method_table(spec: &Spec) -> TokenStream {
    let mut scope = Scope::new();
    for name in spec.types.keys() {
        scope.reserve(name);
    }
    let request_trait = format_ident!("{}", scope.unique("McpRequest"));
    let notification_trait = format_ident!("{}", scope.unique("McpNotification"));
    let result_enum = format_ident!("{}", scope.unique("MethodResult"));

    let params_of = |p: &Option<Ty>| match p {
        Some(t) => ty_tokens(t),
        None => quote!(()),
    };
    let mut impls = Vec::new();
    let mut variants = Vec::new();
    let mut decode_arms = Vec::new();
    let mut encode_arms = Vec::new();
    let mut method_arms = Vec::new();
    let mut seen = std::collections::BTreeSet::new();
    let mut vscope = Scope::new();
    for m in &spec.methods {
        let message = type_ident(&m.message);
        let method = &m.name;
        let params = params_of(&m.params);
        match m.kind {
            MethodKind::Notification => impls.push(quote! {
                impl #notification_trait for #message {
                    const METHOD: &'static str = #method;
                    type Params = #params;
                }
            }),
            MethodKind::Request => {
                let result = ty_tokens(m.result.as_ref().unwrap_or(&Ty::Any));
                impls.push(quote! {
                    impl #request_trait for #message {
                        const METHOD: &'static str = #method;
                        type Params = #params;
                        type Result = #result;
                    }
                });
                if !seen.insert(method.clone()) {
                    continue;
                }
                let stem = m.message.strip_suffix("Request").unwrap_or(&m.message);
                let vname = naming::ident(&vscope.unique(&naming::type_name(stem)));
                let vdoc = format!(" The result of `{method}`.");
                variants.push(quote! { #[doc = #vdoc] #vname(#result), });
                decode_arms.push(quote! {
                    #method => <#result as ::serde::Deserialize>::deserialize(value)
                        .map(Self::#vname)
                        .map_err(|e| ::mcpgen_runtime::de::DecodeError::new(::std::format!("result of `{}`: {}", method, e))),
                });
                encode_arms.push(quote! { Self::#vname(value) => ::serde::Serialize::serialize(value, serializer), });
                method_arms.push(quote! { Self::#vname(_) => #method, });
            }
        }
    }
    let result_impl = if variants.is_empty() {
        TokenStream::new()
    } else {
        quote! {
            #[doc = " The result of any request of this revision, typed by the method that was called."]
            #[derive(Debug, Clone, PartialEq, Eq)]
            pub enum #result_enum { #(#variants)* }

            impl #result_enum {
                #[doc = " Decodes the `result` of a response to a request of method `method`."]
                pub fn decode(method: &str, value: &::serde_json::Value) -> Result<Self, ::mcpgen_runtime::de::DecodeError> {
                    match method {
                        #(#decode_arms)*
                        other => Result::Err(::mcpgen_runtime::de::DecodeError::new(::std::format!("unknown method `{}`", other))),
                    }
                }

                #[doc = " The method whose result this is."]
                pub fn method(&self) -> &'static str {
                    match self { #(#method_arms)* }
                }
            }

            impl ::serde::Serialize for #result_enum {
                fn serialize<S: ::serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                    match self { #(#encode_arms)* }
                }
            }
        }
    };
    quote! {
        #[doc = " A request of this revision: its method and the types of its params and result."]
        pub trait #request_trait {
            #[doc = " The `method` of the request."]
            const METHOD: &'static str;
            #[doc = " The type of `params`."]
            type Params;
            #[doc = " The type of the `result` of a successful response."]
            type Result;
        }

        #[doc = " A notification of this revision: its method and the type of its params."]
        pub trait #notification_trait {
            #[doc = " The `method` of the notification."]
            const METHOD: &'static str;
            #[doc = " The type of `params`."]
            type Params;
        }

        #(#impls)*
        #result_impl
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec() -> Spec {
        let schema = crate::shared_data::schema_file("2025-11-25");
        Spec::load(&schema).unwrap()
    }

    #[test]
    fn the_types_code_names_are_found_in_paths_and_lists_and_closed_over() {
        let spec = spec();
        let code = quote! {
            fn f(x: super::protocol::TextContent) {}
            mod m { use crate::protocol::{Role, NotAType}; }
            struct S { protocol: ::std::string::String }
        };
        let named = mentioned(&spec, &[&code]);
        assert_eq!(
            named.into_iter().collect::<Vec<_>>(),
            ["Role", "TextContent"]
        );
        let used = used(&spec, ["CallToolResult".to_owned()]);
        for name in [
            "CallToolResult",
            "ContentBlock",
            "TextContent",
            "EmbeddedResource",
            "Annotations",
            "Role",
        ] {
            assert!(used.contains(name), "{name} missing from {used:?}");
        }
        assert!(!used.contains("InitializeRequest"), "{used:?}");
    }
}
