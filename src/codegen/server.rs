//! The generated server (`server.rs`): a service trait with one async method
//! per tool, in the spirit of tonic's service traits, and the glue that
//! plugs an implementation into the runtime's engine
//! (`mcpgen_runtime::server`): the tool table as declared, dispatch by tool
//! index with typed decoding of the arguments and encoding of the output,
//! the manifest's server information and rate limits, `serve_stdio`, and
//! `http_service` / `serve_http` for Streamable HTTP.
//!
//! What the generated code looks like, for a tool `get_weather`:
//!
//! ```text
//! pub trait Handler: Send + Sync + 'static {
//!     fn get_weather(&self, input: super::tools::GetWeatherInput, ctx: RequestContext)
//!         -> impl Future<Output = Result<super::tools::GetWeatherOutput, ToolError>> + Send;
//! }
//! pub fn builder<H: Handler>(handler: H) -> ServerBuilder;
//! pub async fn serve_stdio<H: Handler>(handler: H) -> std::io::Result<()>;
//! ```
//!
//! A tool without `outputSchema` returns `Vec<super::protocol::C>` where `C`
//! is the revision's content block type.

use proc_macro2::{Ident, Literal, TokenStream};
use quote::quote;
use serde_json::{json, Map, Value};

use crate::codegen::tools::ToolBinding;
use crate::error::Result;
use crate::manifest::Manifest;
use crate::spec::Spec;

/// The revisions a generated server serves by default, oldest first: every
/// revision of the runtime's table, in both eras, whatever revision its
/// types were generated for (the tool call wire format is compatible across
/// them). `ServerBuilder::supported_revisions` narrows the list.
pub fn served_revisions() -> Vec<&'static str> {
    mcpgen_runtime::revision::REVISIONS.iter().map(|r| r.name).collect()
}

/// Generates the body of `server.rs` for the tools of `manifest` (their
/// `bindings` from `codegen::tools::generate`), for protocol `revision`
/// whose schema is `spec`.
pub fn generate(manifest: &Manifest, bindings: &[ToolBinding], spec: &Spec, revision: &str) -> Result<TokenStream> {
    let content = content_type(spec);
    let mut methods = Vec::with_capacity(bindings.len());
    let mut arms = Vec::with_capacity(bindings.len());
    let mut limits = Vec::new();
    let mut tools_json = Vec::with_capacity(bindings.len());

    for (index, binding) in bindings.iter().enumerate() {
        let pointer = format!("/tools/{index}");
        let method = ident(&binding.method, manifest, &pointer)?;
        let input = ident(&binding.input, manifest, &pointer)?;
        let docs = method_docs(binding);
        let (ret, encode) = match &binding.output {
            Some(output) => {
                let output = ident(output, manifest, &pointer)?;
                (quote! { super::tools::#output }, quote! { ::mcpgen_runtime::tool::encode_output(&output) })
            }
            None => (
                quote! { ::std::vec::Vec<#content> },
                quote! { ::mcpgen_runtime::tool::encode_content(&output) },
            ),
        };
        methods.push(quote! {
            #(#[doc = #docs])*
            fn #method(
                &self,
                input: super::tools::#input,
                ctx: ::mcpgen_runtime::RequestContext,
            ) -> impl ::core::future::Future<
                Output = ::core::result::Result<#ret, ::mcpgen_runtime::ToolError>,
            > + ::core::marker::Send;
        });
        let index_lit = Literal::usize_unsuffixed(index);
        arms.push(quote! {
            #index_lit => ::std::boxed::Box::pin(async move {
                let input: super::tools::#input = ::mcpgen_runtime::tool::decode_arguments(arguments)?;
                let output = handler.#method(input, ctx).await?;
                #encode
            }),
        });
        if let Some(limit) = manifest.tools.get(index).and_then(|t| t.settings.rate_limit) {
            let name = &binding.name;
            let calls = Literal::u32_suffixed(limit.calls);
            let seconds = Literal::u32_suffixed(limit.per_seconds);
            limits.push(quote! {
                .rate_limit(#name, ::mcpgen_runtime::RateLimit::calls_per_seconds(#calls, #seconds))
            });
        }
        tools_json.push(binding.tool.clone());
    }

    let tools_json = Value::Array(tools_json).to_string();
    // Resources, templates and prompts: see `codegen::surface`.
    let surface = crate::codegen::surface::server(manifest)?;
    let (surface_methods, surface_items, surface_calls) = (&surface.methods, &surface.items, &surface.builder_calls);
    let router_arg = if surface.any { quote!(::std::sync::Arc::clone(&router) as ::std::sync::Arc<dyn ::mcpgen_runtime::Dispatch>) } else { quote!(router) };
    let revision_lit = revision;
    let supported = served_revisions();
    let (server_info, instructions) = server_info(manifest);

    Ok(quote! {
        /// The protocol revision this server was generated for.
        pub const PROTOCOL_VERSION: &str = #revision_lit;

        /// Revisions the server serves by default: the stateful ones through
        /// `initialize`, the stateless ones through per-request `_meta`.
        pub const SUPPORTED_PROTOCOL_VERSIONS: &[&str] = &[#(#supported),*];

        /// The tools exactly as declared in the manifest, in order: what
        /// `tools/list` serves.
        pub const TOOLS_JSON: &str = #tools_json;

        /// The tools of this server: one async method per tool, typed input
        /// in, typed output (or content blocks) or a [`::mcpgen_runtime::ToolError`]
        /// out. Arguments are validated against `inputSchema` before a method
        /// is called; a typed output is validated against `outputSchema`
        /// before it is sent.
        pub trait Handler: ::core::marker::Send + ::core::marker::Sync + 'static {
            #(#methods)*
            #surface_methods
        }

        /// Dispatches calls by tool index to a [`Handler`].
        pub struct Router<H> {
            handler: ::std::sync::Arc<H>,
        }

        impl<H: Handler> Router<H> {
            /// Wraps a handler.
            pub fn new(handler: H) -> Self {
                Self { handler: ::std::sync::Arc::new(handler) }
            }
        }

        impl<H: Handler> ::mcpgen_runtime::Dispatch for Router<H> {
            fn call(
                &self,
                index: usize,
                arguments: ::mcpgen_runtime::serde_json::Value,
                ctx: ::mcpgen_runtime::RequestContext,
            ) -> ::mcpgen_runtime::tool::BoxFuture<
                ::core::result::Result<::mcpgen_runtime::ToolOutput, ::mcpgen_runtime::tool::CallFailure>,
            > {
                let handler = ::std::sync::Arc::clone(&self.handler);
                match index {
                    #(#arms)*
                    _ => ::std::boxed::Box::pin(async move {
                        let _ = (handler, arguments, ctx);
                        ::core::result::Result::Err(::mcpgen_runtime::tool::CallFailure::Tool(
                            ::mcpgen_runtime::ToolError::new("no tool at this index"),
                        ))
                    }),
                }
            }
        }

        #surface_items

        /// A server for `handler` configured from the manifest: its tools,
        /// server information and rate limits. Add hooks and settings, then
        /// `build()` and `serve(transport)`.
        pub fn builder<H: Handler>(handler: H) -> ::mcpgen_runtime::ServerBuilder {
            let tools = ::mcpgen_runtime::serde_json::from_str(TOOLS_JSON)
                .unwrap_or(::mcpgen_runtime::serde_json::Value::Null);
            let router = ::std::sync::Arc::new(Router::new(handler));
            let builder = ::mcpgen_runtime::ServerBuilder::new(PROTOCOL_VERSION, tools, #router_arg)
                .supported_revisions(SUPPORTED_PROTOCOL_VERSIONS.iter().copied())
                .server_info(#server_info)
                #instructions
                #(#limits)*
                #surface_calls;
            builder
        }

        /// Serves `handler` over stdin/stdout until stdin closes. Logs must
        /// go to stderr.
        pub async fn serve_stdio<H: Handler>(handler: H) -> ::std::io::Result<()> {
            let server = builder(handler).build().map_err(::std::io::Error::other)?;
            server.serve(::mcpgen_runtime::stdio::stdio()).await
        }

        /// The MCP endpoint for `handler` over Streamable HTTP, both eras, with
        /// the safe defaults (loopback `Host`/`Origin` allowlists, body and
        /// session limits): a `tower::Service` to mount, e.g. with axum's
        /// `Router::new().nest_service("/mcp", http_service(handler)?)`.
        pub fn http_service<H: Handler>(
            handler: H,
        ) -> ::core::result::Result<::mcpgen_runtime::http::HttpService, ::mcpgen_runtime::ServerError> {
            let server = builder(handler).build()?;
            ::core::result::Result::Ok(::mcpgen_runtime::http::HttpService::new(
                server,
                ::mcpgen_runtime::http::HttpConfig::default(),
            ))
        }

        /// Serves `handler` over Streamable HTTP at `http://ADDR/mcp` until
        /// Ctrl-C, then shuts down gracefully. Bind a loopback address unless
        /// the server is meant to be reached from elsewhere.
        pub async fn serve_http<H: Handler>(
            handler: H,
            addr: impl ::mcpgen_runtime::http::ToSocketAddrs,
        ) -> ::std::io::Result<()> {
            let service = http_service(handler).map_err(::std::io::Error::other)?;
            ::mcpgen_runtime::http::bind_and_serve(addr, service, "/mcp").await
        }
    })
}

/// A Rust identifier from a binding, or an error naming the tool.
fn ident(name: &str, manifest: &Manifest, pointer: &str) -> Result<Ident> {
    syn::parse_str::<Ident>(name).map_err(|_| {
        manifest
            .error_at(pointer, format!("`{name}` is not a Rust identifier"))
            .with_hint("set `x-mcpgen.rustName` to a snake_case name for this tool")
    })
}

/// Doc lines of a trait method: the tool's title and description.
fn method_docs(binding: &ToolBinding) -> Vec<String> {
    let mut lines = Vec::new();
    let title = binding.tool.get("title").and_then(Value::as_str);
    let description = binding.tool.get("description").and_then(Value::as_str);
    if let Some(title) = title {
        lines.push(format!(" {title}"));
    }
    if let Some(description) = description {
        if !lines.is_empty() {
            lines.push(String::new());
        }
        lines.extend(description.lines().map(|l| format!(" {}", l.trim_end())));
    }
    if !lines.is_empty() {
        lines.push(String::new());
    }
    lines.push(format!(" Tool `{}`.", binding.name));
    lines
}

/// The `serverInfo` expression and the `.instructions(...)` call.
fn server_info(manifest: &Manifest) -> (TokenStream, TokenStream) {
    match &manifest.server {
        Some(info) => {
            let mut obj = Map::new();
            obj.insert("name".into(), json!(info.name));
            obj.insert("version".into(), json!(info.version));
            if let Some(title) = &info.title {
                obj.insert("title".into(), json!(title));
            }
            // Other `Implementation` members (websiteUrl, icons, ...) as declared.
            for (key, value) in &info.extra {
                obj.entry(key.clone()).or_insert_with(|| value.clone());
            }
            let text = Value::Object(obj).to_string();
            let expr = quote! {
                ::mcpgen_runtime::serde_json::from_str(#text)
                    .unwrap_or(::mcpgen_runtime::serde_json::Value::Null)
            };
            let instructions = match &info.instructions {
                Some(text) => quote! { .instructions(#text) },
                None => TokenStream::new(),
            };
            (expr, instructions)
        }
        None => (
            quote! {
                ::mcpgen_runtime::serde_json::json!({
                    "name": env!("CARGO_PKG_NAME"),
                    "version": env!("CARGO_PKG_VERSION"),
                })
            },
            TokenStream::new(),
        ),
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
        quote! { super::protocol::#ty }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn servers_serve_every_revision_of_both_eras() {
        assert_eq!(served_revisions(), ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"]);
    }

    #[test]
    fn bad_identifiers_are_errors_not_panics() {
        let manifest = Manifest::from_str(r#"{"tools":[]}"#, "m.json").unwrap();
        let err = ident("not an ident", &manifest, "/tools/0").unwrap_err();
        assert!(err.to_string().contains("not a Rust identifier"), "{err}");
    }
}
