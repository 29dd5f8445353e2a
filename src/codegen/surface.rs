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
use quote::quote;
use serde_json::Value;

use crate::codegen::codec::{Codecs, Runtime};
use crate::codegen::dispatch::{dispatch, Fallback};
use crate::error::{Error, Result};
use crate::manifest::{Declared, Manifest};
use crate::naming;

/// Rust names of one declared item.
struct Item<'a> {
    declared: &'a Declared,
    /// Its names ([`naming::surface_names`]).
    names: naming::SurfaceItem,
    /// `(wire name, field, required)` of arguments or variables.
    fields: Vec<(String, Ident, bool)>,
}

/// The prompts and templates with their names, and the other names.
struct Surface<'a> {
    prompts: Vec<Item<'a>>,
    templates: Vec<Item<'a>>,
    names: naming::SurfaceNames,
}

/// `(wire name, field, required)` of each argument or variable.
fn fields_of(d: &Declared, variables: bool) -> Vec<(String, Ident, bool)> {
    let wires = if variables {
        d.variables()
    } else {
        d.arguments()
    };
    let names: Vec<&str> = wires.iter().map(|(w, _)| w.as_str()).collect();
    let fields = naming::field_names(&names, &[]);
    wires
        .iter()
        .zip(fields)
        .map(|((w, r), f)| (w.clone(), naming::ident(&f), *r))
        .collect()
}

/// The names the tools of `m` take in the `Handler`, the `Client` and
/// `tools.rs`, as `codegen::tools` and `codegen::client` give them.
fn taken_by_tools(m: &Manifest) -> (Vec<String>, Vec<String>, Vec<String>) {
    let requests: Vec<(&str, Option<&str>)> = m
        .tools
        .iter()
        .map(|t| (t.name.as_str(), t.settings.rust_name.as_deref()))
        .collect();
    let tools = naming::tool_names(&requests);
    let server: Vec<String> = tools.iter().map(|t| t.method.clone()).collect();
    let mut client: Vec<String> = crate::codegen::client::HELPERS
        .iter()
        .map(|h| (*h).to_owned())
        .collect();
    for method in crate::codegen::client::client_method_names(server.iter().map(String::as_str)) {
        client.push(format!("{method}_with"));
        client.push(method);
    }
    let types = tools
        .iter()
        .flat_map(|t| {
            [
                format!("{}Input", t.type_base),
                format!("{}Output", t.type_base),
            ]
        })
        .collect();
    (server, client, types)
}

/// The arguments or variables of `d` with completion: `(wire name,
/// field)`, each once, in the order declared (unknown names are left to
/// `manifest check`).
fn completed<'f>(d: &Declared, fields: &'f [(String, Ident, bool)]) -> Vec<(&'f str, String)> {
    let mut out: Vec<(&str, String)> = Vec::new();
    for arg in &d.complete {
        if let Some((wire, field, _)) = fields.iter().find(|(w, _, _)| w == arg) {
            if !out.iter().any(|(w, _)| w == wire) {
                out.push((
                    wire.as_str(),
                    field.to_string().trim_start_matches("r#").to_owned(),
                ));
            }
        }
    }
    out
}

/// `(stem, completed fields)` of each item, borrowed.
fn section<'s>(stems: &'s [String], completes: &'s [Vec<String>]) -> Vec<(&'s str, Vec<&'s str>)> {
    stems
        .iter()
        .zip(completes)
        .map(|(s, c)| (s.as_str(), c.iter().map(String::as_str).collect()))
        .collect()
}

fn build<'a>(
    list: &'a [Declared],
    fields: Vec<Vec<(String, Ident, bool)>>,
    named: &[naming::SurfaceItem],
) -> Vec<Item<'a>> {
    list.iter()
        .zip(fields)
        .zip(named)
        .map(|((declared, fields), names)| Item {
            declared,
            names: names.clone(),
            fields,
        })
        .collect()
}

fn surface(m: &Manifest) -> Surface<'_> {
    let prompt_fields: Vec<_> = m.prompts.iter().map(|d| fields_of(d, false)).collect();
    let template_fields: Vec<_> = m
        .resource_templates
        .iter()
        .map(|d| fields_of(d, true))
        .collect();
    let completes = |d: &Declared, fields: &[(String, Ident, bool)]| -> Vec<String> {
        completed(d, fields).into_iter().map(|(_, f)| f).collect()
    };
    let prompt_completes: Vec<Vec<String>> = m
        .prompts
        .iter()
        .zip(&prompt_fields)
        .map(|(d, f)| completes(d, f))
        .collect();
    let template_completes: Vec<Vec<String>> = m
        .resource_templates
        .iter()
        .zip(&template_fields)
        .map(|(d, f)| completes(d, f))
        .collect();
    let stem = |d: &Declared| {
        if d.name.is_empty() {
            format!("item_{}", d.index)
        } else {
            d.name.clone()
        }
    };
    let prompt_stems: Vec<String> = m.prompts.iter().map(stem).collect();
    let template_stems: Vec<String> = m.resource_templates.iter().map(stem).collect();
    let (server_taken, client_taken, types_taken) = taken_by_tools(m);
    let request = naming::SurfaceRequest {
        prompts: section(&prompt_stems, &prompt_completes),
        templates: section(&template_stems, &template_completes),
        statics: !m.resources.is_empty(),
        server_taken,
        client_taken,
        types_taken,
    };
    let names = naming::surface_names(&request);
    let prompts = build(&m.prompts, prompt_fields, &names.prompts);
    let templates = build(&m.resource_templates, template_fields, &names.templates);
    Surface {
        prompts,
        templates,
        names,
    }
}

fn docs(d: &Declared, what: &str) -> Vec<String> {
    let mut lines = vec![format!(
        " {what} `{}`.",
        if d.name.is_empty() { &d.key } else { &d.name }
    )];
    if let Some(text) = d.description() {
        lines.push(String::new());
        lines.extend(text.lines().map(|l| format!(" {}", l.trim_end())));
    }
    lines
}

/// `lines` with a paragraph `text` added (when there is one).
fn with_paragraph(mut lines: Vec<String>, text: Option<String>) -> Vec<String> {
    if let Some(text) = text {
        if !lines.is_empty() {
            lines.push(String::new());
        }
        lines.push(format!(" {text}"));
    }
    lines
}

/// One doc line per static resource that needs scopes, saying which
/// (`server`: for the handler, else for the client).
fn static_scope_lines(resources: &[Declared], server: bool) -> Vec<String> {
    let scoped: Vec<&Declared> = resources.iter().filter(|r| !r.scopes.is_empty()).collect();
    let mut lines = Vec::new();
    if scoped.is_empty() {
        return lines;
    }
    lines.push(String::new());
    lines.push(if server {
        " OAuth scopes callers need (checked before this method runs):".to_owned()
    } else {
        " OAuth scopes the server requires (over HTTP a token without them gets 403 `insufficient_scope`):".to_owned()
    });
    for r in scoped {
        let list: Vec<String> = r.scopes.iter().map(|s| format!("`{s}`")).collect();
        lines.push(format!(" - `{}`: {}", r.key, list.join(", ")));
    }
    lines
}

/// The struct of a prompt's arguments or a template's variables, written
/// as typify writes a tool's input (wire names renamed, optional members
/// `Option` and skipped when absent) so that the tool types' last pass
/// (`tools::polish`) gives it their look: derive order, short paths,
/// constructors.
fn params_struct(
    name: &Ident,
    doc: &[String],
    fields: &[(String, Ident, bool)],
    descriptions: &[Option<String>],
) -> TokenStream {
    let members = fields
        .iter()
        .zip(descriptions)
        .map(|((wire, field, required), description)| {
            let doc = description.iter().map(|d| format!(" {d}"));
            let rename = (field.to_string().trim_start_matches("r#") != wire)
                .then(|| quote!(#[serde(rename = #wire)]));
            if *required {
                quote! {
                    #(#[doc = #doc])*
                    #rename
                    pub #field: ::std::string::String,
                }
            } else {
                quote! {
                    #(#[doc = #doc])*
                    #rename
                    #[serde(default, skip_serializing_if = "::std::option::Option::is_none")]
                    pub #field: ::std::option::Option<::std::string::String>,
                }
            }
        });
    quote! {
        #(#[doc = #doc])*
        #[derive(::serde::Deserialize, ::serde::Serialize, Clone, Debug, PartialEq, Eq)]
        pub struct #name {
            #(#members)*
        }
    }
}

/// The types of the prompts' arguments and the resource templates'
/// variables, for `tools.rs`, where the tool types' last pass polishes
/// them with the tools' own (handed over as `tools::Joining`).
pub fn argument_types(manifest: &Manifest) -> TokenStream {
    let mut out = TokenStream::new();
    let surface = surface(manifest);
    for p in &surface.prompts {
        let name = naming::ident(&p.names.type_name);
        let descriptions: Vec<Option<String>> = p
            .declared
            .declared
            .get("arguments")
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .map(|arg| {
                        arg.get("description")
                            .and_then(Value::as_str)
                            .map(str::to_owned)
                    })
                    .collect()
            })
            .unwrap_or_default();
        let d = p.declared;
        let doc = vec![
            format!(
                " Arguments of the `{}` prompt.",
                if d.name.is_empty() { &d.key } else { &d.name }
            ),
            String::new(),
            format!(" Manifest: `{}/arguments`.", d.pointer),
        ];
        out.extend(params_struct(&name, &doc, &p.fields, &descriptions));
    }
    for t in &surface.templates {
        let name = naming::ident(&t.names.type_name);
        let doc = vec![
            format!(" Variables of the `{}` resource template.", t.declared.key),
            String::new(),
            format!(" Manifest: `{}/uriTemplate`.", t.declared.pointer),
        ];
        out.extend(params_struct(
            &name,
            &doc,
            &t.fields,
            &vec![None; t.fields.len()],
        ));
    }
    out
}

/// The types of `tools.rs` for the static resources (the prompts' and
/// templates' are [`argument_types`]).
pub fn types(manifest: &Manifest) -> TokenStream {
    let mut out = TokenStream::new();
    let surface = surface(manifest);
    if !manifest.resources.is_empty() {
        let statics = &manifest.resources;
        let mut scope = naming::Scope::new();
        let variants: Vec<Ident> = statics
            .iter()
            .map(|s| {
                let name = if s.name.is_empty() {
                    format!("item_{}", s.index)
                } else {
                    s.name.clone()
                };
                naming::ident(&scope.unique(&naming::type_part(&name)))
            })
            .collect();
        let uris: Vec<&str> = statics.iter().map(|s| s.key.as_str()).collect();
        let indices: Vec<Literal> = (0..statics.len()).map(Literal::usize_unsuffixed).collect();
        let variant_docs: Vec<String> = statics
            .iter()
            .map(|s| {
                let list: Vec<String> = s.scopes.iter().map(|x| format!("`{x}`")).collect();
                if list.is_empty() {
                    format!(" `{}`", s.key)
                } else {
                    format!(" `{}` (OAuth scopes needed: {})", s.key, list.join(", "))
                }
            })
            .collect();
        let enum_name = naming::ident(&surface.names.static_enum);
        out.extend(quote! {
            /// The static resources of the manifest, by URI.
            #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
            pub enum #enum_name {
                #(#[doc = #variant_docs] #variants,)*
            }

            impl #enum_name {
                /// Every static resource, in manifest order.
                pub const ALL: &'static [Self] = &[#(Self::#variants),*];

                /// The resource's URI.
                pub fn uri(self) -> &'static str {
                    match self {
                        #(Self::#variants => #uris,)*
                    }
                }

                /// The resource with this URI.
                pub fn from_uri(uri: &str) -> ::std::option::Option<Self> {
                    Self::ALL.iter().copied().find(|r| r.uri() == uri)
                }

                /// The resource at this index of the manifest's `resources`.
                pub fn from_index(index: usize) -> ::std::option::Option<Self> {
                    match index {
                        #(#indices => ::std::option::Option::Some(Self::#variants),)*
                        _ => ::std::option::Option::None,
                    }
                }
            }
        });
    }
    out
}

/// The pieces of `server.rs`.
#[derive(Debug)]
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

/// Which declared item a [`HandlerMethod`] serves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ServedItem {
    /// `prompts/get` of one prompt.
    Prompt,
    /// `resources/read` of URIs matching one resource template.
    Template,
    /// `resources/read` of the static resources.
    StaticResources,
}

/// A `Handler` method without a default that the manifest's prompts,
/// resource templates and static resources ask for, named as [`server`]
/// names it: what `mcpgen new` writes a stub for.
#[derive(Debug, Clone)]
pub struct HandlerMethod<'a> {
    /// What it serves.
    pub kind: ServedItem,
    /// The prompt or template as declared (`None` for the static resources).
    pub declared: Option<&'a Declared>,
    /// The method's name (a Rust identifier, maybe raw).
    pub method: String,
    /// The type of its parameter in `tools.rs`: `<Prompt>Args`,
    /// `<Template>Params` or the static resources' enum.
    pub param_type: String,
}

/// The [`HandlerMethod`]s of `manifest`: prompts, then templates, then the
/// static resources' reader, as the `Handler` trait declares them.
pub fn handler_methods<'a>(manifest: &'a Manifest) -> Vec<HandlerMethod<'a>> {
    let Surface {
        prompts,
        templates,
        names,
    } = surface(manifest);
    let item = |kind, i: Item<'a>| HandlerMethod {
        kind,
        declared: Some(i.declared),
        method: i.names.server,
        param_type: i.names.type_name,
    };
    let mut out: Vec<HandlerMethod<'a>> = prompts
        .into_iter()
        .map(|p| item(ServedItem::Prompt, p))
        .collect();
    out.extend(templates.into_iter().map(|t| item(ServedItem::Template, t)));
    if !manifest.resources.is_empty() {
        out.push(HandlerMethod {
            kind: ServedItem::StaticResources,
            declared: None,
            method: names.read_resource.0,
            param_type: names.static_enum,
        });
    }
    out
}

/// `pub const NAME` with the items of `list` exactly as declared.
fn served(name: &str, docs: &[&str], list: &[Declared]) -> Result<TokenStream> {
    let values: Vec<&Value> = list.iter().map(|d| &d.declared).collect();
    crate::codegen::tools::json_const(name, docs, &values)
}

/// Completion methods: `(Handler method, Client method, target pattern,
/// argument, doc lines, ref, scopes of the prompt or template)`.
type CompletionMethod<'a> = (
    Ident,
    Ident,
    TokenStream,
    String,
    Vec<String>,
    TokenStream,
    &'a [String],
);

fn completions<'a>(prompts: &[Item<'a>], templates: &[Item<'a>]) -> Vec<CompletionMethod<'a>> {
    let mut out = Vec::new();
    for (list, variant) in [(prompts, quote!(Prompt)), (templates, quote!(Template))] {
        for item in list {
            for ((arg, _), (server, client)) in completed(item.declared, &item.fields)
                .into_iter()
                .zip(&item.names.completions)
            {
                let index = index_name(&item.names.server);
                let (method, client) = (naming::ident(server), naming::ident(client));
                let target = quote!(CompletionRef::#variant(surface_index::#index));
                let what = if variant.to_string() == "Prompt" {
                    "prompt"
                } else {
                    "resource template"
                };
                let name = if item.declared.name.is_empty() {
                    item.declared.key.clone()
                } else {
                    item.declared.name.clone()
                };
                let reference = if what == "prompt" {
                    quote!(prompt_ref(#name))
                } else {
                    let uri = &item.declared.key;
                    quote!(template_ref(#uri))
                };
                let doc = vec![
                    format!(
                        " Completes `{arg}` of {what} `{name}`: `value` is what the user typed"
                    ),
                    " so far, `context` the other arguments given. By default nothing is"
                        .to_owned(),
                    " suggested.".to_owned(),
                ];
                let scopes = &item.declared.scopes[..];
                let doc = with_paragraph(doc, crate::codegen::docs::server_scopes(scopes));
                out.push((
                    method,
                    client,
                    target,
                    arg.to_owned(),
                    doc,
                    reference,
                    scopes,
                ));
            }
        }
    }
    out
}

/// The server parts.
pub fn server(manifest: &Manifest, codecs: &mut Codecs) -> Result<ServerParts> {
    let Surface {
        prompts,
        templates,
        names,
    } = surface(manifest);
    let any = !(prompts.is_empty() && templates.is_empty() && manifest.resources.is_empty());
    if !any {
        return Ok(ServerParts {
            methods: TokenStream::new(),
            items: TokenStream::new(),
            builder_calls: TokenStream::new(),
            any,
        });
    }
    let mut methods = TokenStream::new();
    let mut prompt_arms = TokenStream::new();
    let mut read_arms = TokenStream::new();
    let mut complete_arms = TokenStream::new();
    let mut indexes = TokenStream::new();
    let ctx_ty = quote!(RequestContext);
    let err_ty = quote!(HandlerError);

    for (i, p) in prompts.iter().enumerate() {
        let method = naming::ident(&p.names.server);
        let args = naming::ident(&p.names.type_name);
        let doc = with_paragraph(
            docs(p.declared, "Prompt"),
            crate::codegen::docs::server_scopes(&p.declared.scopes),
        );
        methods.extend(quote! {
            #(#[doc = #doc])*
            fn #method(
                &self,
                args: tools::#args,
                ctx: #ctx_ty,
            ) -> impl Future<
                Output = Result<Vec<protocol::PromptMessage>, #err_ty>,
            > + Send;
        });
        let index = index_name(&p.names.server);
        indexes.extend(index_const(
            &index,
            &format!(" Prompt `{}`.", p.declared.name),
            i,
        ));
        let decode = codecs.function(
            Runtime::DecodeParams,
            &quote!(tools::#args),
            &p.names.type_name,
        );
        let encode = codecs.function(
            Runtime::EncodeResult,
            &quote!(Vec<protocol::PromptMessage>),
            "PromptMessages",
        );
        prompt_arms.extend(quote! {
            surface_index::#index => Box::pin(async move {
                let args = #decode(arguments)?;
                let messages = handler.#method(args, ctx).await?;
                #encode(&messages)
            }),
        });
    }
    for (i, t) in templates.iter().enumerate() {
        let method = naming::ident(&t.names.server);
        let params = naming::ident(&t.names.type_name);
        let doc = with_paragraph(
            docs(t.declared, "Resource template"),
            crate::codegen::docs::server_scopes(&t.declared.scopes),
        );
        methods.extend(quote! {
            #(#[doc = #doc])*
            ///
            /// `uri` is the URI read; `params` its variables. Answer
            /// `HandlerError::not_found(uri)` when there is no such resource.
            fn #method(
                &self,
                uri: String,
                params: tools::#params,
                ctx: #ctx_ty,
            ) -> impl Future<
                Output = Result<protocol::ReadResourceResult, #err_ty>,
            > + Send;
        });
        let index = index_name(&t.names.server);
        indexes.extend(index_const(
            &index,
            &format!(" Resource template `{}`.", t.declared.key),
            i,
        ));
        let decode = codecs.function(
            Runtime::DecodeParams,
            &quote!(tools::#params),
            &t.names.type_name,
        );
        let encode = codecs.function(
            Runtime::EncodeResult,
            &quote!(protocol::ReadResourceResult),
            "ReadResourceResult",
        );
        read_arms.extend(quote! {
            ResourceTarget::Template(surface_index::#index, variables) => Box::pin(async move {
                let params = #decode(variables)?;
                let result = handler.#method(uri, params, ctx).await?;
                #encode(&result)
            }),
        });
    }
    if !manifest.resources.is_empty() {
        let read_resource = naming::ident(&names.read_resource.0);
        let enum_name = naming::ident(&names.static_enum);
        let scope_docs = static_scope_lines(&manifest.resources, true);
        methods.extend(quote! {
            /// Reads one of the static resources the manifest declares.
            #(#[doc = #scope_docs])*
            fn #read_resource(
                &self,
                resource: tools::#enum_name,
                ctx: #ctx_ty,
            ) -> impl Future<
                Output = Result<protocol::ReadResourceResult, #err_ty>,
            > + Send;
        });
        let encode = codecs.function(
            Runtime::EncodeResult,
            &quote!(protocol::ReadResourceResult),
            "ReadResourceResult",
        );
        read_arms.extend(quote! {
            ResourceTarget::Static(index) => Box::pin(async move {
                let Some(resource) = tools::#enum_name::from_index(index) else {
                    return Err(HandlerError::not_found(uri));
                };
                let result = handler.#read_resource(resource, ctx).await?;
                #encode(&result)
            }),
        });
    }
    let completions = completions(&prompts, &templates);
    for (method, _, target, arg, doc, _, _) in &completions {
        methods.extend(quote! {
            #(#[doc = #doc])*
            fn #method(
                &self,
                _value: String,
                _context: Map<String, Value>,
                _ctx: #ctx_ty,
            ) -> impl Future<
                Output = Result<Completion, #err_ty>,
            > + Send {
                async { Ok(Completion::default()) }
            }
        });
        let encode = codecs.function(Runtime::EncodeResult, &quote!(Completion), "Completion");
        complete_arms.extend(quote! {
            (#target, #arg) => Box::pin(async move {
                let completion = handler.#method(request.value, request.context, ctx).await?;
                #encode(&completion)
            }),
        });
    }

    let read = dispatch(
        &[
            ("target", quote!(ResourceTarget)),
            ("uri", quote!(String)),
            ("ctx", ctx_ty.clone()),
        ],
        quote!(target),
        read_arms,
        Fallback {
            unused: &["target", "ctx"],
            body: quote!(Box::pin(async move { Err(HandlerError::not_found(uri)) })),
        },
        TokenStream::new(),
    );
    let prompt = dispatch(
        &[
            ("index", quote!(usize)),
            ("arguments", quote!(Map<String, Value>)),
            ("ctx", ctx_ty.clone()),
        ],
        quote!(index),
        prompt_arms,
        Fallback {
            unused: &["index", "arguments", "ctx"],
            body: quote!(Box::pin(async move {
                Err(HandlerError::invalid_params("no prompt at this index"))
            })),
        },
        TokenStream::new(),
    );
    let complete = dispatch(
        &[
            ("request", quote!(CompletionRequest)),
            ("ctx", ctx_ty.clone()),
        ],
        quote!((request.target, argument.as_str())),
        complete_arms,
        Fallback {
            unused: &["request", "ctx"],
            body: quote!(Box::pin(async move { Ok(no_completion()) })),
        },
        quote!(let argument = request.argument.clone();),
    );
    let (read_params, read_body) = (read.params, read.body);
    let (prompt_params, prompt_body) = (prompt.params, prompt.body);
    let (complete_params, complete_body) = (complete.params, complete.body);
    let resources_json = served(
        "RESOURCES_JSON",
        &["The static resources exactly as declared: what `resources/list` serves."],
        &manifest.resources,
    )?;
    let templates_json = served(
        "RESOURCE_TEMPLATES_JSON",
        &[
            "The resource templates exactly as declared: what",
            "`resources/templates/list` serves.",
        ],
        &manifest.resource_templates,
    )?;
    let prompts_json = served(
        "PROMPTS_JSON",
        &["The prompts exactly as declared: what `prompts/list` serves."],
        &manifest.prompts,
    )?;
    let has_completions = !completions.is_empty();
    let index_module = if indexes.is_empty() {
        TokenStream::new()
    } else {
        quote! {
            /// Each prompt's index in [`PROMPTS_JSON`] and each template's in
            /// [`RESOURCE_TEMPLATES_JSON`], named after the `Handler` method
            /// it is dispatched to.
            mod surface_index {
                #indexes
            }
        }
    };
    let items = quote! {
        #index_module
        #resources_json
        #templates_json
        #prompts_json

        /// One of the lists above, as JSON values (mcpgen wrote each
        /// from the parsed manifest).
        fn declared_list(json: &str) -> Vec<Value> {
            serde_json::from_str(json).expect("a list mcpgen wrote as a JSON array")
        }

        impl<H: Handler> Surface for Router<H> {
            fn read(&self, #read_params) -> BoxFuture<Result<Value, #err_ty>> {
                #read_body
            }

            fn prompt(&self, #prompt_params) -> BoxFuture<Result<Value, #err_ty>> {
                #prompt_body
            }

            fn complete(&self, #complete_params) -> BoxFuture<Result<Value, #err_ty>> {
                #complete_body
            }
        }
    };
    let builder_calls = quote! {
        .resources(declared_list(RESOURCES_JSON))
        .resource_templates(declared_list(RESOURCE_TEMPLATES_JSON))
        .prompts(declared_list(PROMPTS_JSON))
        .completions(#has_completions)
        .surface(Arc::clone(&router) as Arc<dyn Surface>)
    };
    Ok(ServerParts {
        methods,
        items,
        builder_calls,
        any,
    })
}

/// The constant naming an index in `surface_index`: the `Handler`
/// method's name in upper case (methods are unique, so are these).
fn index_name(method: &str) -> Ident {
    naming::ident(&method.trim_start_matches("r#").to_uppercase())
}

fn index_const(name: &Ident, doc: &str, index: usize) -> TokenStream {
    let index = Literal::usize_unsuffixed(index);
    quote! {
        #[doc = #doc]
        pub const #name: usize = #index;
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
    let Surface {
        prompts,
        templates,
        names,
    } = surface(manifest);
    let mut out = TokenStream::new();
    let err = quote!(ClientError);
    for p in &prompts {
        let method = naming::ident(&p.names.client);
        let args = naming::ident(&p.names.type_name);
        let name = &p.declared.name;
        let doc = with_paragraph(
            vec![format!(" Gets prompt `{name}`.")],
            crate::codegen::docs::client_scopes(&p.declared.scopes),
        );
        out.extend(quote! {
            #(#[doc = #doc])*
            pub async fn #method(
                &self,
                args: tools::#args,
            ) -> Result<protocol::GetPromptResult, #err> {
                self.inner.get_prompt(#name, &args, &CallOptions::new()).await
            }
        });
    }
    for t in &templates {
        let method = naming::ident(&t.names.client);
        let params = naming::ident(&t.names.type_name);
        let template = &t.declared.key;
        let doc = with_paragraph(
            vec![format!(
                " Reads the resource of template `{template}` with these variables."
            )],
            crate::codegen::docs::client_scopes(&t.declared.scopes),
        );
        out.extend(quote! {
            #(#[doc = #doc])*
            pub async fn #method(
                &self,
                params: tools::#params,
            ) -> Result<protocol::ReadResourceResult, #err> {
                self.inner.read_template(#template, &params, &CallOptions::new()).await
            }
        });
    }
    if !manifest.resources.is_empty() {
        let read_resource = naming::ident(&names.read_resource.1);
        let enum_name = naming::ident(&names.static_enum);
        let scope_docs = static_scope_lines(&manifest.resources, false);
        out.extend(quote! {
            /// Reads one of the static resources the manifest declares.
            #(#[doc = #scope_docs])*
            pub async fn #read_resource(
                &self,
                resource: tools::#enum_name,
            ) -> Result<protocol::ReadResourceResult, #err> {
                self.inner.read_resource(resource.uri(), &CallOptions::new()).await
            }
        });
    }
    for (_, method, _, arg, _, reference, scopes) in completions(&prompts, &templates) {
        let doc = vec![
            format!(" Asks the server to complete `{arg}`: `value` is what was typed so far,"),
            " `context` the other arguments.".to_owned(),
        ];
        let doc = with_paragraph(doc, crate::codegen::docs::client_scopes(scopes));
        out.extend(quote! {
            #(#[doc = #doc])*
            pub async fn #method(
                &self,
                value: &str,
                context: Map<String, Value>,
            ) -> Result<Completion, #err> {
                self.inner.complete(#reference, #arg, value, context, &CallOptions::new()).await
            }
        });
    }
    if !(prompts.is_empty() && templates.is_empty() && manifest.resources.is_empty()) {
        let lists = [
            ("resources/list", "resources"),
            ("resources/templates/list", "resourceTemplates"),
            ("prompts/list", "prompts"),
        ];
        for (method, (list, key)) in names.lists.iter().zip(lists) {
            let method = naming::ident(method);
            let doc = format!(" Every item of `{list}`, following `nextCursor`.");
            out.extend(quote! {
                #[doc = #doc]
                pub async fn #method(
                    &self,
                ) -> Result<Vec<Value>, #err> {
                    self.inner.list_all(#list, #key, &CallOptions::new()).await
                }
            });
        }
    }
    out
}

/// The type names of the prompts, templates and static resources that a
/// type of the tools (`defined`: the names their part of `tools.rs`
/// defines, as `codegen::tools::generate` made it) already has: a clash the naming
/// policy cannot resolve, since the tools' nested and `$defs` types are
/// named by typify after the surface names are chosen. Each is reported
/// at the item.
pub fn type_clashes(
    manifest: &Manifest,
    defined: &std::collections::BTreeSet<String>,
) -> Vec<Error> {
    let surface = surface(manifest);
    let mut out = Vec::new();
    for (items, what) in [
        (&surface.prompts, "prompt"),
        (&surface.templates, "resource template"),
    ] {
        for item in items {
            if defined.contains(&item.names.type_name) {
                out.push(
                    manifest
                        .error_at(
                            &format!("{}/name", item.declared.pointer),
                            format!("{what} {:?} would be the Rust type `{}`, which a tool's types already define", item.declared.name, item.names.type_name),
                        )
                        .with_hint("rename the item, or give the tool another `x-mcpgen.rustName`"),
                );
            }
        }
    }
    if !manifest.resources.is_empty() && defined.contains(&surface.names.static_enum) {
        out.push(
            manifest
                .error_at(
                    "/resources",
                    format!(
                        "the static resources' enum `{}` is a type a tool's types already define",
                        surface.names.static_enum
                    ),
                )
                .with_hint("give the tool another `x-mcpgen.rustName`"),
        );
    }
    out
}
