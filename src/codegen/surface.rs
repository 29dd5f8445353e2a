//! Generated code for the manifest's `resources`, `resourceTemplates` and
//! `prompts`, in three parts that the other generators splice in:
//!
//! - [`types`] (into `tools.rs`): per prompt `<Prompt>Args` (required
//!   arguments are `String`, optional ones `Option<String>`), per resource
//!   template `<Template>Params` (the URI's variables), and the
//!   `StaticResource` enum of the static resources' URIs;
//! - [`server`] (into `server.rs`): the `Handler` methods (`prompt_<name>`
//!   returning typed messages, `read_<template>`, `read_resource`, and
//!   `complete_<item>_<argument>` with a default that suggests nothing)
//!   and the `Surface` implementation the runtime dispatches to by index;
//! - [`client`] (into `client.rs`): `get_<prompt>(args)`,
//!   `read_<template>(params)`, `read_resource(resource)`,
//!   `complete_<item>_<argument>(value)` and the list helpers.

use proc_macro2::{Ident, Literal, TokenStream};
use quote::{format_ident, quote};
use serde_json::Value;

use crate::error::{Error, Result};
use crate::manifest::{Declared, Manifest};
use crate::naming;

/// Rust names of one declared item.
struct Item<'a> {
    declared: &'a Declared,
    /// `snake_case` of the name (methods).
    snake: String,
    /// `PascalCase` of the name (types, variants).
    pascal: String,
    /// `(wire name, field, required)` of arguments or variables.
    fields: Vec<(String, Ident, bool)>,
}

fn items(list: &[Declared], variables: bool) -> Vec<Item<'_>> {
    let mut taken = std::collections::BTreeSet::new();
    list.iter()
        .map(|d| {
            let base = if d.name.is_empty() { format!("item_{}", d.index) } else { d.name.clone() };
            let mut snake = naming::snake(&base);
            let mut n = 2;
            while !taken.insert(snake.clone()) {
                snake = format!("{}_{n}", naming::snake(&base));
                n += 1;
            }
            let pascal = naming::pascal(&snake);
            let wires = if variables { d.variables() } else { d.arguments() };
            let names: Vec<&str> = wires.iter().map(|(w, _)| w.as_str()).collect();
            let fields = naming::field_names(&names, &[]);
            let fields = wires.iter().zip(fields).map(|((w, r), f)| (w.clone(), naming::ident(&f), *r)).collect();
            Item { declared: d, snake, pascal, fields }
        })
        .collect()
}

fn docs(d: &Declared, what: &str) -> Vec<String> {
    let mut lines = vec![format!(" {what} `{}`.", if d.name.is_empty() { &d.key } else { &d.name })];
    if let Some(text) = d.description() {
        lines.push(String::new());
        lines.extend(text.lines().map(|l| format!(" {}", l.trim_end())));
    }
    lines
}

/// A params/args struct.
fn params_struct(name: &Ident, doc: &[String], fields: &[(String, Ident, bool)], descriptions: &[Option<String>]) -> TokenStream {
    let members = fields.iter().zip(descriptions).map(|((wire, field, required), description)| {
        let doc = description.as_deref().map(|d| format!(" {d}")).unwrap_or_else(|| format!(" `{wire}`."));
        if *required {
            quote! {
                #[doc = #doc]
                #[serde(rename = #wire)]
                pub #field: ::std::string::String,
            }
        } else {
            quote! {
                #[doc = #doc]
                #[serde(rename = #wire, default, skip_serializing_if = "::std::option::Option::is_none")]
                pub #field: ::std::option::Option<::std::string::String>,
            }
        }
    });
    quote! {
        #(#[doc = #doc])*
        #[derive(::serde::Deserialize, ::serde::Serialize, Clone, Debug, Default, PartialEq, Eq)]
        pub struct #name {
            #(#members)*
        }
    }
}

/// The types of `tools.rs` for the prompts, templates and static resources.
pub fn types(manifest: &Manifest) -> TokenStream {
    let mut out = TokenStream::new();
    for p in items(&manifest.prompts, false) {
        let name = format_ident!("{}Args", p.pascal);
        let descriptions: Vec<Option<String>> = p
            .declared
            .declared
            .get("arguments")
            .and_then(Value::as_array)
            .map(|a| a.iter().map(|arg| arg.get("description").and_then(Value::as_str).map(str::to_owned)).collect())
            .unwrap_or_default();
        let mut doc = docs(p.declared, "Arguments of prompt");
        doc.truncate(1);
        out.extend(params_struct(&name, &doc, &p.fields, &descriptions));
    }
    for t in items(&manifest.resource_templates, true) {
        let name = format_ident!("{}Params", t.pascal);
        let doc = vec![format!(" Variables of resource template `{}`.", t.declared.key)];
        out.extend(params_struct(&name, &doc, &t.fields, &vec![None; t.fields.len()]));
    }
    if !manifest.resources.is_empty() {
        let statics = items(&manifest.resources, false);
        let variants: Vec<Ident> = statics.iter().map(|s| naming::ident(&s.pascal)).collect();
        let uris: Vec<&str> = statics.iter().map(|s| s.declared.key.as_str()).collect();
        let indices: Vec<Literal> = (0..statics.len()).map(Literal::usize_unsuffixed).collect();
        let variant_docs: Vec<String> = statics.iter().map(|s| format!(" `{}`", s.declared.key)).collect();
        out.extend(quote! {
            /// The static resources of the manifest, by URI.
            #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
            pub enum StaticResource {
                #(#[doc = #variant_docs] #variants,)*
            }

            impl StaticResource {
                /// Every static resource, in manifest order.
                pub const ALL: &'static [StaticResource] = &[#(StaticResource::#variants),*];

                /// The resource's URI.
                pub fn uri(self) -> &'static str {
                    match self {
                        #(StaticResource::#variants => #uris,)*
                    }
                }

                /// The resource with this URI.
                pub fn from_uri(uri: &str) -> ::std::option::Option<Self> {
                    Self::ALL.iter().copied().find(|r| r.uri() == uri)
                }

                /// The resource at this index of the manifest's `resources`.
                pub fn from_index(index: usize) -> ::std::option::Option<Self> {
                    match index {
                        #(#indices => ::std::option::Option::Some(StaticResource::#variants),)*
                        _ => ::std::option::Option::None,
                    }
                }
            }
        });
    }
    out
}

/// The pieces of `server.rs`.
pub struct ServerParts {
    /// Methods of the `Handler` trait.
    pub methods: TokenStream,
    /// Constants and the `Surface` implementation for `Router<H>`.
    pub items: TokenStream,
    /// `ServerBuilder` calls, given a `router: Arc<Router<H>>` in scope.
    pub builder_calls: TokenStream,
    /// Whether there is anything (else the other parts are empty).
    pub any: bool,
}

fn served(list: &[Declared]) -> Result<String> {
    let values: Vec<&Value> = list.iter().map(|d| &d.declared).collect();
    serde_json::to_string(&values).map_err(|e| Error::new(format!("cannot serialise the declared list: {e}")))
}

/// Completion methods: `(method, target pattern, argument, doc, ref)`.
type CompletionMethod = (Ident, TokenStream, String, String, TokenStream);

fn completions(prompts: &[Item<'_>], templates: &[Item<'_>]) -> Vec<CompletionMethod> {
    let mut out = Vec::new();
    for (list, variant) in [(prompts, quote!(Prompt)), (templates, quote!(Template))] {
        for (i, item) in list.iter().enumerate() {
            for arg in &item.declared.complete {
                let Some((_, field, _)) = item.fields.iter().find(|(w, _, _)| w == arg) else { continue };
                let index = Literal::usize_unsuffixed(i);
                let method = format_ident!("complete_{}_{}", item.snake, field.to_string().trim_start_matches("r#"));
                let target = quote!(::mcpgen_runtime::surface::CompletionRef::#variant(#index));
                let what = if variant.to_string() == "Prompt" { "prompt" } else { "resource template" };
                let name = if item.declared.name.is_empty() { item.declared.key.clone() } else { item.declared.name.clone() };
                let reference = if what == "prompt" {
                    quote!(::mcpgen_runtime::serde_json::json!({ "type": "ref/prompt", "name": #name }))
                } else {
                    let uri = &item.declared.key;
                    quote!(::mcpgen_runtime::serde_json::json!({ "type": "ref/resource", "uri": #uri }))
                };
                out.push((method, target, arg.clone(), format!(" Completes `{arg}` of {what} `{name}` (what the user typed so far: `value`; other arguments given: `context`). By default nothing is suggested."), reference));
            }
        }
    }
    out
}

/// The server parts.
pub fn server(manifest: &Manifest) -> Result<ServerParts> {
    let prompts = items(&manifest.prompts, false);
    let templates = items(&manifest.resource_templates, true);
    let any = !(prompts.is_empty() && templates.is_empty() && manifest.resources.is_empty());
    if !any {
        return Ok(ServerParts { methods: TokenStream::new(), items: TokenStream::new(), builder_calls: TokenStream::new(), any });
    }
    let mut methods = TokenStream::new();
    let mut prompt_arms = TokenStream::new();
    let mut read_arms = TokenStream::new();
    let mut complete_arms = TokenStream::new();
    let ctx_ty = quote!(::mcpgen_runtime::RequestContext);
    let err_ty = quote!(::mcpgen_runtime::HandlerError);

    for (i, p) in prompts.iter().enumerate() {
        let method = format_ident!("prompt_{}", p.snake);
        let args = format_ident!("{}Args", p.pascal);
        let doc = docs(p.declared, "Prompt");
        methods.extend(quote! {
            #(#[doc = #doc])*
            fn #method(
                &self,
                args: super::tools::#args,
                ctx: #ctx_ty,
            ) -> impl ::core::future::Future<
                Output = ::core::result::Result<::std::vec::Vec<super::protocol::PromptMessage>, #err_ty>,
            > + ::core::marker::Send;
        });
        let index = Literal::usize_unsuffixed(i);
        prompt_arms.extend(quote! {
            #index => ::std::boxed::Box::pin(async move {
                let args: super::tools::#args = ::mcpgen_runtime::surface::decode_params(arguments)?;
                let messages = handler.#method(args, ctx).await?;
                ::mcpgen_runtime::surface::encode_result(&messages)
            }),
        });
    }
    for (i, t) in templates.iter().enumerate() {
        let method = format_ident!("read_{}", t.snake);
        let params = format_ident!("{}Params", t.pascal);
        let doc = docs(t.declared, "Resource template");
        methods.extend(quote! {
            #(#[doc = #doc])*
            ///
            /// `uri` is the URI read; `params` its variables. Answer
            /// `HandlerError::not_found(uri)` when there is no such resource.
            fn #method(
                &self,
                uri: ::std::string::String,
                params: super::tools::#params,
                ctx: #ctx_ty,
            ) -> impl ::core::future::Future<
                Output = ::core::result::Result<super::protocol::ReadResourceResult, #err_ty>,
            > + ::core::marker::Send;
        });
        let index = Literal::usize_unsuffixed(i);
        read_arms.extend(quote! {
            ::mcpgen_runtime::surface::ResourceTarget::Template(#index, variables) => ::std::boxed::Box::pin(async move {
                let params: super::tools::#params = ::mcpgen_runtime::surface::decode_params(variables)?;
                let result = handler.#method(uri, params, ctx).await?;
                ::mcpgen_runtime::surface::encode_result(&result)
            }),
        });
    }
    if !manifest.resources.is_empty() {
        methods.extend(quote! {
            /// Reads one of the static resources the manifest declares.
            fn read_resource(
                &self,
                resource: super::tools::StaticResource,
                ctx: #ctx_ty,
            ) -> impl ::core::future::Future<
                Output = ::core::result::Result<super::protocol::ReadResourceResult, #err_ty>,
            > + ::core::marker::Send;
        });
        read_arms.extend(quote! {
            ::mcpgen_runtime::surface::ResourceTarget::Static(index) => ::std::boxed::Box::pin(async move {
                let ::std::option::Option::Some(resource) = super::tools::StaticResource::from_index(index) else {
                    return ::core::result::Result::Err(::mcpgen_runtime::HandlerError::not_found(uri));
                };
                let result = handler.read_resource(resource, ctx).await?;
                ::mcpgen_runtime::surface::encode_result(&result)
            }),
        });
    }
    let completions = completions(&prompts, &templates);
    for (method, target, arg, doc, _) in &completions {
        methods.extend(quote! {
            #[doc = #doc]
            fn #method(
                &self,
                value: ::std::string::String,
                context: ::mcpgen_runtime::serde_json::Map<::std::string::String, ::mcpgen_runtime::serde_json::Value>,
                ctx: #ctx_ty,
            ) -> impl ::core::future::Future<
                Output = ::core::result::Result<::mcpgen_runtime::Completion, #err_ty>,
            > + ::core::marker::Send {
                let _ = (value, context, ctx);
                async { ::core::result::Result::Ok(::mcpgen_runtime::Completion::default()) }
            }
        });
        complete_arms.extend(quote! {
            (#target, #arg) => ::std::boxed::Box::pin(async move {
                let completion = handler.#method(request.value, request.context, ctx).await?;
                ::mcpgen_runtime::surface::encode_result(&completion)
            }),
        });
    }

    let read_body = dispatch(
        quote!(target),
        read_arms,
        quote! {
            let _ = (target, ctx);
            ::std::boxed::Box::pin(async move { ::core::result::Result::Err(::mcpgen_runtime::HandlerError::not_found(uri)) })
        },
        TokenStream::new(),
    );
    let prompt_body = dispatch(
        quote!(index),
        prompt_arms,
        quote! {
            let _ = (index, arguments, ctx);
            ::std::boxed::Box::pin(async move {
                ::core::result::Result::Err(::mcpgen_runtime::HandlerError::invalid_params("no prompt at this index"))
            })
        },
        TokenStream::new(),
    );
    let complete_body = dispatch(
        quote!((request.target, argument.as_str())),
        complete_arms,
        quote! {
            let _ = (request, ctx);
            ::std::boxed::Box::pin(async move { ::core::result::Result::Ok(::mcpgen_runtime::surface::no_completion()) })
        },
        quote!(let argument = request.argument.clone();),
    );
    let resources_json = served(&manifest.resources)?;
    let templates_json = served(&manifest.resource_templates)?;
    let prompts_json = served(&manifest.prompts)?;
    let has_completions = !completions.is_empty();
    let items = quote! {
        /// The static resources exactly as declared: what `resources/list` serves.
        pub const RESOURCES_JSON: &str = #resources_json;

        /// The resource templates exactly as declared: what
        /// `resources/templates/list` serves.
        pub const RESOURCE_TEMPLATES_JSON: &str = #templates_json;

        /// The prompts exactly as declared: what `prompts/list` serves.
        pub const PROMPTS_JSON: &str = #prompts_json;

        fn declared_list(json: &str) -> ::std::vec::Vec<::mcpgen_runtime::serde_json::Value> {
            ::mcpgen_runtime::serde_json::from_str(json).unwrap_or_default()
        }

        impl<H: Handler> ::mcpgen_runtime::Surface for Router<H> {
            fn read(
                &self,
                target: ::mcpgen_runtime::surface::ResourceTarget,
                uri: ::std::string::String,
                ctx: #ctx_ty,
            ) -> ::mcpgen_runtime::tool::BoxFuture<::core::result::Result<::mcpgen_runtime::serde_json::Value, #err_ty>> {
                #read_body
            }

            fn prompt(
                &self,
                index: usize,
                arguments: ::mcpgen_runtime::serde_json::Map<::std::string::String, ::mcpgen_runtime::serde_json::Value>,
                ctx: #ctx_ty,
            ) -> ::mcpgen_runtime::tool::BoxFuture<::core::result::Result<::mcpgen_runtime::serde_json::Value, #err_ty>> {
                #prompt_body
            }

            fn complete(
                &self,
                request: ::mcpgen_runtime::surface::CompletionRequest,
                ctx: #ctx_ty,
            ) -> ::mcpgen_runtime::tool::BoxFuture<::core::result::Result<::mcpgen_runtime::serde_json::Value, #err_ty>> {
                #complete_body
            }
        }
    };
    let builder_calls = quote! {
        .resources(declared_list(RESOURCES_JSON))
        .resource_templates(declared_list(RESOURCE_TEMPLATES_JSON))
        .prompts(declared_list(PROMPTS_JSON))
        .completions(#has_completions)
        .surface(::std::sync::Arc::clone(&router) as ::std::sync::Arc<dyn ::mcpgen_runtime::Surface>)
    };
    Ok(ServerParts { methods, items, builder_calls, any })
}

/// The body of a `Surface` method: the fallback alone when there are no
/// arms, else a match on `scrutinee` with the fallback last.
fn dispatch(scrutinee: TokenStream, arms: TokenStream, fallback: TokenStream, setup: TokenStream) -> TokenStream {
    if arms.is_empty() {
        return fallback;
    }
    quote! {
        let handler = ::std::sync::Arc::clone(&self.handler);
        #setup
        match #scrutinee {
            #arms
            _ => {
                let _ = handler;
                #fallback
            }
        }
    }
}

/// An `impl Client` block with [`client`]'s methods (empty when there are none).
pub fn client_impl(manifest: &Manifest) -> TokenStream {
    let methods = client(manifest);
    if methods.is_empty() {
        return methods;
    }
    quote! {
        /// Prompts, resources and completion of the manifest.
        impl Client {
            #methods
        }
    }
}

/// Methods of the generated `Client`.
pub fn client(manifest: &Manifest) -> TokenStream {
    let prompts = items(&manifest.prompts, false);
    let templates = items(&manifest.resource_templates, true);
    let mut out = TokenStream::new();
    let err = quote!(ClientError);
    for p in &prompts {
        let method = format_ident!("get_{}", p.snake);
        let args = format_ident!("{}Args", p.pascal);
        let name = &p.declared.name;
        let doc = format!(" Gets prompt `{name}`.");
        out.extend(quote! {
            #[doc = #doc]
            pub async fn #method(
                &self,
                args: super::tools::#args,
            ) -> ::std::result::Result<super::protocol::GetPromptResult, #err> {
                self.inner.get_prompt(#name, &args, &CallOptions::new()).await
            }
        });
    }
    for t in &templates {
        let method = format_ident!("read_{}", t.snake);
        let params = format_ident!("{}Params", t.pascal);
        let template = &t.declared.key;
        let doc = format!(" Reads the resource of template `{template}` with these variables.");
        out.extend(quote! {
            #[doc = #doc]
            pub async fn #method(
                &self,
                params: super::tools::#params,
            ) -> ::std::result::Result<super::protocol::ReadResourceResult, #err> {
                let template = ::mcpgen_runtime::uri_template::UriTemplate::parse(#template)
                    .map_err(|e| ClientError::unexpected(::std::format!("invalid URI template: {e}")))?;
                let values = match ::mcpgen_runtime::serde_json::to_value(&params) {
                    ::std::result::Result::Ok(::mcpgen_runtime::serde_json::Value::Object(values)) => values,
                    _ => ::mcpgen_runtime::serde_json::Map::new(),
                };
                self.inner.read_resource(&template.expand(&values), &CallOptions::new()).await
            }
        });
    }
    if !manifest.resources.is_empty() {
        out.extend(quote! {
            /// Reads one of the static resources the manifest declares.
            pub async fn read_resource(
                &self,
                resource: super::tools::StaticResource,
            ) -> ::std::result::Result<super::protocol::ReadResourceResult, #err> {
                self.inner.read_resource(resource.uri(), &CallOptions::new()).await
            }
        });
    }
    for (method, _, arg, _, reference) in completions(&prompts, &templates) {
        let doc = format!(" Asks the server to complete `{arg}` (typed so far: `value`; other arguments: `context`).");
        out.extend(quote! {
            #[doc = #doc]
            pub async fn #method(
                &self,
                value: &str,
                context: ::mcpgen_runtime::serde_json::Map<::std::string::String, ::mcpgen_runtime::serde_json::Value>,
            ) -> ::std::result::Result<::mcpgen_runtime::Completion, #err> {
                self.inner.complete(#reference, #arg, value, context, &CallOptions::new()).await
            }
        });
    }
    if !(prompts.is_empty() && templates.is_empty() && manifest.resources.is_empty()) {
        for (method, list, key) in [
            ("list_all_resources", "resources/list", "resources"),
            ("list_all_resource_templates", "resources/templates/list", "resourceTemplates"),
            ("list_all_prompts", "prompts/list", "prompts"),
        ] {
            let method = format_ident!("{method}");
            let doc = format!(" Every item of `{list}`, following `nextCursor`.");
            out.extend(quote! {
                #[doc = #doc]
                pub async fn #method(
                    &self,
                ) -> ::std::result::Result<::std::vec::Vec<::mcpgen_runtime::serde_json::Value>, #err> {
                    self.inner.list_all(#list, #key, &CallOptions::new()).await
                }
            });
        }
    }
    out
}
