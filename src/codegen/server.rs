//! The generated server (`server.rs`): a service trait with one async method
//! per tool, in the spirit of tonic's service traits, and the glue that
//! plugs an implementation into the runtime's engine
//! (`mcpgen_runtime::server`): the tool table as declared, dispatch by tool
//! index with typed decoding of the arguments and encoding of the output
//! (plain functions of `mod codec`, compiled in the bindings: see
//! `codegen::codec`), the manifest's server information and rate limits,
//! `serve_stdio`, and `http_service` / `serve_http` for Streamable HTTP.
//!
//! What the generated code looks like, for a tool `get_weather`:
//!
//! ```text
//! pub trait Handler: Send + Sync + 'static {
//!     fn get_weather(&self, input: tools::GetWeatherInput, ctx: RequestContext)
//!         -> impl Future<Output = Result<tools::GetWeatherOutput, ToolError>> + Send;
//! }
//! pub fn builder<H: Handler>(handler: H) -> ServerBuilder;
//! pub async fn serve_stdio<H: Handler>(handler: H) -> std::io::Result<()>;
//! ```
//!
//! A tool without `outputSchema` returns `Vec<protocol::C>` where `C`
//! is the revision's content block type.

use proc_macro2::{Ident, Literal, TokenStream};
use quote::{format_ident, quote, ToTokens};
use serde_json::{json, Value};

use crate::codegen::codec::{Codecs, Runtime};
use crate::codegen::tools::ToolBinding;
use crate::error::Result;
use crate::manifest::Manifest;
use crate::spec::Spec;

/// The revisions a generated server serves by default, oldest first: every
/// revision of the runtime's table, in both eras, whatever revision its
/// types were generated for (the tool call wire format is compatible across
/// them). `ServerBuilder::supported_revisions` narrows the list.
pub fn served_revisions() -> Vec<&'static str> {
    mcpgen_runtime::revision::REVISIONS
        .iter()
        .map(|r| r.name)
        .collect()
}

/// Generates the body of `server.rs` for the tools of `manifest` (their
/// `bindings` from `codegen::tools::generate`), for protocol `revision`
/// whose schema is `spec`; with `http`, also `http_service` and
/// `serve_http` (which need mcpgen-runtime's `streamable-http` feature).
pub fn generate(
    manifest: &Manifest,
    bindings: &[ToolBinding],
    spec: &Spec,
    revision: &str,
    http: bool,
) -> Result<TokenStream> {
    let content = content_type(spec);
    let content_name = format!(
        "{}s",
        content
            .to_string()
            .rsplit("::")
            .next()
            .unwrap_or_default()
            .trim()
    );
    let mut methods = Vec::with_capacity(bindings.len());
    let mut arms = TokenStream::new();
    let mut limits = Vec::new();
    let mut indexes = Vec::with_capacity(bindings.len());
    let mut codecs = Codecs::default();
    let mut requests = Vec::new();
    let mut http_bindings = Vec::with_capacity(bindings.len());

    for (index, binding) in bindings.iter().enumerate() {
        let pointer = format!("/tools/{index}");
        let method = ident(&binding.method, manifest, &pointer)?;
        let input = ident(&binding.input, manifest, &pointer)?;
        let scopes = manifest
            .tools
            .get(index)
            .map_or(&[][..], |t| &t.settings.scopes[..]);
        let docs = method_docs(binding, scopes);
        let index_name =
            format_ident!("{}", binding.method.trim_start_matches("r#").to_uppercase());
        let upstream = manifest
            .tools
            .get(index)
            .and_then(|t| t.settings.http.as_ref());
        http_bindings.push(upstream);
        let index_lit = Literal::usize_unsuffixed(index);
        let index_doc = format!(" Tool `{}`.", binding.name);
        indexes.push(quote! {
            #[doc = #index_doc]
            pub const #index_name: usize = #index_lit;
        });
        let decode = codecs.function(
            Runtime::DecodeArguments,
            &quote! { tools::#input },
            &binding.input,
        );
        if let Some(http) = upstream {
            // A tool that calls an HTTP API: its method has a default body
            // (the generated request, then the API's answer as the result),
            // and its request function is public for a handler that
            // overrides it.
            let request_doc = format!(
                " Sends the request of tool `{}` (`{} {}`, operation `{}`) built from \
                 `input`, and returns the API's answer as it came.",
                binding.name, http.method, http.path, http.operation_id
            );
            let default_doc = format!(
                " By default, sends the tool's HTTP request ([`requests::{}`]) and \
                 answers with the API's answer.",
                binding.method.trim_start_matches("r#")
            );
            requests.push(quote! {
                #[doc = #request_doc]
                pub async fn #method(
                    upstream: &Upstream,
                    input: &tools::#input,
                ) -> Result<ApiResponse, ToolError> {
                    upstream.send_input(super::tool_index::#index_name, input).await
                }
            });
            methods.push(quote! {
                #docs
                #[doc = ""]
                #[doc = #default_doc]
                fn #method(
                    &self,
                    input: tools::#input,
                    ctx: RequestContext,
                ) -> impl Future<Output = Result<ToolOutput, ToolError>> + Send {
                    // A boxed future (see `Upstream::answer`): cheaper to
                    // check in a trait of many methods than an `async` block.
                    HttpApi::upstream(self).answer(tool_index::#index_name, &input, ctx)
                }
            });
            arms.extend(quote! {
                tool_index::#index_name => Box::pin(async move {
                    let ctx = ctx.with_arguments(arguments.clone());
                    let input = #decode(arguments)?;
                    Ok(handler.#method(input, ctx).await?)
                }),
            });
            push_limit(manifest, index, &binding.name, &mut limits);
            continue;
        }
        let (ret, encode) = match &binding.output {
            Some(output) => {
                let name = output.clone();
                let output = ident(output, manifest, &pointer)?;
                let ty = quote! { tools::#output };
                let encode = codecs.function(Runtime::EncodeOutput, &ty, &name);
                (ty, quote! { #encode(&output) })
            }
            None => {
                let encode = codecs.function(Runtime::EncodeContent, &content, &content_name);
                (quote! { Vec<#content> }, quote! { #encode(&output) })
            }
        };
        methods.push(quote! {
            #docs
            fn #method(
                &self,
                input: tools::#input,
                ctx: RequestContext,
            ) -> impl Future<
                Output = Result<#ret, ToolError>,
            > + Send;
        });
        arms.extend(quote! {
            tool_index::#index_name => Box::pin(async move {
                let input = #decode(arguments)?;
                let output = handler.#method(input, ctx).await?;
                #encode
            }),
        });
        push_limit(manifest, index, &binding.name, &mut limits);
    }

    let (scope_calls, scopes_supported) = scopes(manifest);

    // Resources, templates and prompts: see `codegen::surface`.
    let surface = crate::codegen::surface::server(manifest, &mut codecs)?;
    let (surface_methods, surface_items, surface_calls) =
        (&surface.methods, &surface.items, &surface.builder_calls);
    let router_arg = if surface.any {
        quote!(Arc::clone(&router) as Arc<dyn Dispatch>)
    } else {
        quote!(router)
    };
    let revision_lit = revision;
    let supported = served_revisions();
    let (server_info, instructions) = server_info(manifest);
    let (search_index, search_call) = crate::codegen::search::search(manifest);
    let http_items = if http {
        http_items()
    } else {
        TokenStream::new()
    };
    let codec_module = codecs.module();
    let (upstream_items, supertrait) = upstream_items(&http_bindings, &requests)?;
    let crate::codegen::dispatch::Dispatched {
        params: call_params,
        body: dispatch,
    } = crate::codegen::dispatch::dispatch(
        &[
            ("index", quote!(usize)),
            ("arguments", quote!(Value)),
            ("ctx", quote!(RequestContext)),
        ],
        quote!(index),
        arms,
        crate::codegen::dispatch::Fallback {
            unused: &["index", "arguments", "ctx"],
            body: quote!(Box::pin(async move {
                Err(CallFailure::Tool(ToolError::new("no tool at this index")))
            })),
        },
        TokenStream::new(),
    );

    let body = quote! {
        /// The protocol revision this server was generated for.
        pub const PROTOCOL_VERSION: &str = #revision_lit;

        /// Revisions the server serves by default: the stateful ones through
        /// `initialize`, the stateless ones through per-request `_meta`.
        pub const SUPPORTED_PROTOCOL_VERSIONS: &[&str] = &[#(#supported),*];

        /// The tools exactly as declared in the manifest, in order: what
        /// `tools/list` serves.
        pub use tools::TOOLS_JSON;

        /// Every OAuth scope the manifest's tools, prompts and resources
        /// require (`x-mcpgen.scopes`), sorted: the `scopes_supported` of
        /// the server's protected resource metadata.
        pub const SCOPES_SUPPORTED: &[&str] = &[#(#scopes_supported),*];

        /// Each tool's index in [`TOOLS_JSON`], as [`Dispatch::call`] receives it.
        mod tool_index {
            #(#indexes)*
        }

        /// The tools of this server: one async method per tool, typed input
        /// in, typed output (or content blocks) or a [`ToolError`]
        /// out. Arguments are validated against `inputSchema` before a method
        /// is called; a typed output is validated against `outputSchema`
        /// before it is sent.
        pub trait Handler: #supertrait Send + Sync + 'static {
            #(#methods)*
            #surface_methods
        }

        /// Dispatches calls by tool index to a [`Handler`].
        pub struct Router<H> {
            handler: Arc<H>,
        }

        impl<H: Handler> Router<H> {
            /// Wraps a handler.
            pub fn new(handler: H) -> Self {
                Self { handler: Arc::new(handler) }
            }

            /// The wrapped handler.
            pub fn handler(&self) -> &H {
                &self.handler
            }
        }

        impl<H: Handler> Dispatch for Router<H> {
            fn call(
                &self,
                #call_params
            ) -> BoxFuture<
                Result<ToolOutput, CallFailure>,
            > {
                #dispatch
            }
        }

        #surface_items

        #upstream_items

        #codec_module

        #server_info

        #search_index

        /// A server for `handler` configured from the manifest: its tools,
        /// server information and rate limits. Add hooks and settings, then
        /// `build()` and `serve(transport)`.
        pub fn builder<H: Handler>(handler: H) -> ServerBuilder {
            // mcpgen wrote TOOLS_JSON from the parsed manifest; a
            // generated-code test parses every such constant.
            let tools: Value = serde_json::from_str(TOOLS_JSON)
                .expect("TOOLS_JSON is the JSON array mcpgen wrote");
            let router = Arc::new(Router::new(handler));
            let builder = ServerBuilder::new(PROTOCOL_VERSION, tools, #router_arg)
                .supported_revisions(SUPPORTED_PROTOCOL_VERSIONS.iter().copied())
                .server_info(server_info())
                #instructions
                #(#limits)*
                #(#scope_calls)*
                #search_call
                #surface_calls;
            builder
        }

        /// Serves `handler` over stdin/stdout until stdin closes. Logs must
        /// go to stderr.
        pub async fn serve_stdio<H: Handler>(handler: H) -> std::io::Result<()> {
            let server = builder(handler).build().map_err(std::io::Error::other)?;
            server.serve(stdio()).await
        }

        #http_items
    };
    Ok(body)
}

/// The builder calls requiring the manifest's scopes (`x-mcpgen.scopes`
/// of tools, prompts, resources and templates; names and scopes are
/// string literals, so no manifest text becomes code) and every scope,
/// sorted and without repeats.
fn scopes(manifest: &Manifest) -> (Vec<TokenStream>, Vec<String>) {
    let mut calls = Vec::new();
    let mut all: Vec<String> = Vec::new();
    let mut add = |method: TokenStream, key: &str, scopes: &[String]| {
        if scopes.is_empty() {
            return;
        }
        all.extend(scopes.iter().cloned());
        calls.push(quote! { .#method(#key, [#(#scopes),*]) });
    };
    for tool in &manifest.tools {
        add(quote!(tool_scopes), &tool.name, &tool.settings.scopes);
    }
    for prompt in &manifest.prompts {
        add(quote!(prompt_scopes), &prompt.key, &prompt.scopes);
    }
    for item in manifest
        .resources
        .iter()
        .chain(&manifest.resource_templates)
    {
        add(quote!(resource_scopes), &item.key, &item.scopes);
    }
    all.sort();
    all.dedup();
    (calls, all)
}

/// `http_service` and `serve_http`.
fn http_items() -> TokenStream {
    quote! {
        /// The MCP endpoint for `handler` over Streamable HTTP, both eras, with
        /// the safe defaults (loopback `Host`/`Origin` allowlists, body and
        /// session limits): a `tower::Service` to mount, e.g. with axum's
        /// `Router::new().nest_service("/mcp", http_service(handler)?)`.
        pub fn http_service<H: Handler>(
            handler: H,
        ) -> Result<HttpService, ServerError> {
            let server = builder(handler).build()?;
            Ok(HttpService::new(
                server,
                HttpConfig::default(),
            ))
        }

        /// Serves `handler` over Streamable HTTP at `http://ADDR/mcp` until
        /// Ctrl-C, then shuts down gracefully. Bind a loopback address unless
        /// the server is meant to be reached from elsewhere.
        pub async fn serve_http<H: Handler>(
            handler: H,
            addr: impl ToSocketAddrs,
        ) -> std::io::Result<()> {
            let service = http_service(handler).map_err(std::io::Error::other)?;
            bind_and_serve(addr, service, "/mcp").await
        }
    }
}

/// The builder call of tool `index`'s rate limit, if it has one.
fn push_limit(manifest: &Manifest, index: usize, name: &str, limits: &mut Vec<TokenStream>) {
    let Some(limit) = manifest
        .tools
        .get(index)
        .and_then(|t| t.settings.rate_limit)
    else {
        return;
    };
    let calls = Literal::u32_suffixed(limit.calls);
    let seconds = Literal::u32_suffixed(limit.per_seconds);
    let scope = match limit.scope {
        crate::manifest::LimitScope::Global => quote! {},
        crate::manifest::LimitScope::Principal => quote! { .per(LimitScope::Principal) },
        crate::manifest::LimitScope::Session => quote! { .per(LimitScope::Session) },
    };
    limits.push(quote! {
        .rate_limit(#name, RateLimit::calls_per_seconds(#calls, #seconds)#scope)
    });
}

/// What a server whose tools call an HTTP API adds: the bindings as JSON
/// text (data, never code), the `HttpApi` trait the `Handler` builds on,
/// and the `requests` module; nothing when no tool has a binding.
fn upstream_items(
    bindings: &[Option<&mcpgen_runtime::upstream::HttpBinding>],
    requests: &[TokenStream],
) -> Result<(TokenStream, TokenStream)> {
    if bindings.iter().all(Option::is_none) {
        return Ok((TokenStream::new(), TokenStream::new()));
    }
    let text = serde_json::to_string(bindings).map_err(|e| {
        crate::error::Error::new(format!("cannot write the tools' HTTP bindings: {e}"))
    })?;
    let request_siblings =
        crate::codegen::siblings::nested_uses(&requests.iter().cloned().collect());
    let items = quote! {
        /// The HTTP binding of each tool (`x-mcpgen.http`), in the order
        /// of [`TOOLS_JSON`], `null` for a tool without one: what
        /// [`Upstream::from_env`] reads.
        pub const HTTP_BINDINGS: &str = #text;

        /// Where the tools that call the HTTP API send their requests.
        pub trait HttpApi: Send + Sync + 'static {
            /// The API client the default handlers send through, made once
            /// at start, e.g. `Upstream::from_env(server::HTTP_BINDINGS)?`
            /// (base URL from `servers` or `MCP_UPSTREAM_URL`, credentials
            /// from `MCP_UPSTREAM_AUTH_*`).
            fn upstream(&self) -> &Upstream;
        }

        /// The HTTP request of each tool that calls the API, built from
        /// its typed input: call one from a handler that overrides the
        /// default.
        pub mod requests {
            use mcpgen_runtime::codegen::*;
            #request_siblings

            /// Each tool's number, as [`Upstream::send`] and
            /// [`Upstream::output`] take it.
            pub use super::tool_index::*;

            #(#requests)*
        }
    };
    Ok((items, quote!(HttpApi+)))
}

/// A Rust identifier from a binding, or an error naming the tool.
fn ident(name: &str, manifest: &Manifest, pointer: &str) -> Result<Ident> {
    syn::parse_str::<Ident>(name).map_err(|_| {
        manifest
            .error_at(pointer, format!("`{name}` is not a Rust identifier"))
            .with_hint("set `x-mcpgen.rustName` to a snake_case name for this tool")
    })
}

/// Doc attributes of a trait method: the tool's title, description and
/// wire name, the scopes it needs and whether it may run as a task.
fn method_docs(binding: &ToolBinding, scopes: &[String]) -> TokenStream {
    let title = binding.tool.get("title").and_then(Value::as_str);
    let description = binding.tool.get("description").and_then(Value::as_str);
    let name = format!("Tool `{}`.", binding.name);
    let required = crate::codegen::docs::server_scopes(scopes);
    let task = binding
        .tool
        .get("execution")
        .and_then(|e| e.get("taskSupport"))
        .and_then(Value::as_str)
        .filter(|s| matches!(*s, "optional" | "required"))
        .map(|s| {
            format!(
                "Runs as a task when the client asks for one (`taskSupport`: {s}): `ctx.task()` is then the \
                 `TaskContext` (status, input requests, cancellation), and the output returned is the task's result."
            )
        });
    crate::codegen::docs::doc_attrs(
        title
            .into_iter()
            .chain(description)
            .chain([name.as_str()])
            .chain(required.as_deref())
            .chain(task.as_deref()),
    )
}

/// The `server_info()` function (the manifest's `server` as data: one
/// insert per member) and the `.instructions(...)` call.
fn server_info(manifest: &Manifest) -> (TokenStream, TokenStream) {
    let (members, instructions) = match &manifest.server {
        Some(info) => {
            let mut members = vec![
                ("name".to_owned(), json!(info.name)),
                ("version".to_owned(), json!(info.version)),
            ];
            if let Some(title) = &info.title {
                members.push(("title".to_owned(), json!(title)));
            }
            // Other `Implementation` members (websiteUrl, icons, ...) as declared.
            for (key, value) in &info.extra {
                if !members.iter().any(|(k, _)| k == key) {
                    members.push((key.clone(), value.clone()));
                }
            }
            let inserts: Vec<TokenStream> = members
                .iter()
                .map(|(key, value)| {
                    let value = match value {
                        Value::String(text) => quote!(#text.into()),
                        other => {
                            let data = json_tokens(other);
                            quote!(json!(#data))
                        }
                    };
                    quote!(info.insert(#key.into(), #value);)
                })
                .collect();
            let instructions = match &info.instructions {
                Some(text) => quote! { .instructions(#text) },
                None => TokenStream::new(),
            };
            (inserts, instructions)
        }
        None => (
            vec![
                quote!(info.insert("name".into(), env!("CARGO_PKG_NAME").into());),
                quote!(info.insert("version".into(), env!("CARGO_PKG_VERSION").into());),
            ],
            TokenStream::new(),
        ),
    };
    let function = quote! {
        /// Who the server says it is in its `initialize` result: the
        /// manifest's `server` (else the crate's name and version).
        pub fn server_info() -> Value {
            let mut info = Map::new();
            #(#members)*
            Value::Object(info)
        }
    };
    (function, instructions)
}

/// A JSON value as the tokens of a `json!` literal: server information
/// written as data, not a string parsed at run time.
fn json_tokens(value: &Value) -> TokenStream {
    match value {
        Value::Null => quote!(null),
        Value::Bool(b) => quote!(#b),
        Value::Number(n) => match (n.as_u64(), n.as_i64(), n.as_f64()) {
            (Some(u), _, _) => Literal::u64_unsuffixed(u).into_token_stream(),
            (None, Some(i), _) => {
                let magnitude = Literal::u64_unsuffixed(i.unsigned_abs());
                quote!(-#magnitude)
            }
            (None, None, Some(f)) if f < 0.0 => {
                let magnitude = Literal::f64_unsuffixed(-f);
                quote!(-#magnitude)
            }
            (None, None, f) => Literal::f64_unsuffixed(f.unwrap_or_default()).into_token_stream(),
        },
        Value::String(text) => quote!(#text),
        Value::Array(items) => {
            let items = items.iter().map(json_tokens);
            quote!([#(#items),*])
        }
        Value::Object(members) => {
            let members = members.iter().map(|(key, value)| {
                let value = json_tokens(value);
                quote!(#key: #value)
            });
            quote!({ #(#members),* })
        }
    }
}

/// The item type of `CallToolResult.content`, as seen from this module:
/// `codegen::protocol::tool_content_type` names it relative to the
/// protocol module (absolute paths such as `::serde_json::Value` stay).
fn content_type(spec: &Spec) -> TokenStream {
    let ty = crate::codegen::protocol::tool_content_type(spec);
    if ty.to_string().starts_with("::") {
        ty
    } else {
        quote! { protocol::#ty }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn servers_serve_every_revision_of_both_eras() {
        assert_eq!(
            served_revisions(),
            [
                "2024-11-05",
                "2025-03-26",
                "2025-06-18",
                "2025-11-25",
                "2026-07-28"
            ]
        );
    }

    #[test]
    fn bad_identifiers_are_errors_not_panics() {
        let manifest = Manifest::from_str(r#"{"tools":[]}"#, "m.json").unwrap();
        let err = ident("not an ident", &manifest, "/tools/0").unwrap_err();
        assert!(err.to_string().contains("not a Rust identifier"), "{err}");
    }
}
