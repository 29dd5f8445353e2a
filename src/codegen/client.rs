//! The generated client (`client.rs`): a `Client` type with one async
//! method per tool, typed in and out, over any transport.
//!
//! Each tool `foo` gets `foo(input)` and `foo_with(input, CallOptions)`
//! (timeout, progress). The input is validated against `inputSchema` before
//! anything is sent; with an `outputSchema`, `structuredContent` is
//! validated and decoded into `<Tool>Output`, otherwise the content blocks
//! are decoded into the revision's content block type. A tool that may
//! run as a task (`execution.taskSupport`) also gets `start_foo(input,
//! ttl)`, whose `TaskStart` is the typed result or a task to poll, give
//! input to, cancel and await. The work happens in
//! `mcpgen_runtime::client`; the generated code is thin glue plus the tool
//! list (as JSON) the validators and the drift check use.

use std::collections::BTreeSet;

use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use serde_json::Value;

use crate::codegen::docs;
use crate::codegen::tools::ToolBinding;
use crate::error::{Error, Result};
use crate::naming;

/// Methods of the generated `Client` that are not tools; a tool whose
/// method name collides with one is renamed `call_<name>`.
pub(crate) const HELPERS: &[&str] = &[
    "connect",
    "connect_with",
    "connect_http",
    "connect_http_with",
    "spawn",
    "spawn_with",
    "from_engine",
    "engine",
    "session",
    "list_all_tools",
    "check_drift",
    "clone",
    "fmt",
];

/// Inputs of the client generator.
#[derive(Debug, Clone)]
pub struct ClientInput<'a> {
    /// The tools, in manifest order (from `codegen::tools::generate`).
    pub tools: &'a [ToolBinding],
    /// Path, relative to the `protocol` module, of the content block type
    /// (`codegen::protocol::tool_content_type`).
    pub content_type: TokenStream,
    /// The protocol revision the bindings are generated for ("2025-11-25").
    pub revision: &'a str,
    /// Whether to generate `connect_http` and `connect_http_with` (they
    /// need mcpgen-runtime's `streamable-http` feature).
    pub http: bool,
}

/// Generates `client.rs` for the given tools and the revision's spec,
/// with the Streamable HTTP constructors when `http`.
pub fn generate(
    tools: &[ToolBinding],
    spec: &crate::spec::Spec,
    revision: &str,
    http: bool,
) -> Result<TokenStream> {
    let content_type = crate::codegen::protocol::tool_content_type(spec);
    generate_with(&ClientInput {
        tools,
        content_type,
        revision,
        http,
    })
}

/// Method names for each tool: the binding's method unless it collides with
/// a helper or with another tool's `<name>_with`.
fn method_names(tools: &[ToolBinding]) -> Vec<String> {
    client_method_names(tools.iter().map(|t| t.method.as_str()))
}

/// [`method_names`] from the tools' method names (`ToolBinding::method`).
pub(crate) fn client_method_names<'a>(methods: impl Iterator<Item = &'a str>) -> Vec<String> {
    let mut taken: BTreeSet<String> = HELPERS.iter().map(|s| (*s).to_owned()).collect();
    methods
        .map(|method| {
            let base = if HELPERS.contains(&method) {
                format!("call_{method}")
            } else {
                method.to_owned()
            };
            let mut n = 1;
            loop {
                let name = if n == 1 {
                    base.clone()
                } else {
                    format!("{base}_{n}")
                };
                let with = format!("{name}_with");
                if !taken.contains(&name) && !taken.contains(&with) {
                    taken.insert(name.clone());
                    taken.insert(with);
                    return name;
                }
                n += 1;
            }
        })
        .collect()
}

/// The tool's `execution.taskSupport` when it may run as a task
/// (`optional`, `required`).
fn task_support(tool: &Value) -> Option<&str> {
    match tool.get("execution")?.get("taskSupport")?.as_str()? {
        s @ ("optional" | "required") => Some(s),
        _ => None,
    }
}

/// `start_<method>` (or `start_<method>_task` when that name is taken).
fn task_method(method: &str, taken: &BTreeSet<String>) -> syn::Ident {
    let name = format!("start_{method}");
    let name = if taken.contains(&name) {
        format!("{name}_task")
    } else {
        name
    };
    naming::ident(&name)
}

/// One line of documentation from a tool description.
fn doc_line(tool: &Value) -> Option<String> {
    let text = tool.get("description").and_then(Value::as_str)?;
    let line = text.split_whitespace().collect::<Vec<_>>().join(" ");
    (!line.is_empty()).then_some(line)
}

fn type_path(name: &str) -> Result<TokenStream> {
    let ident: syn::Ident = syn::parse_str(name).map_err(|e| {
        Error::new(format!(
            "tool type name `{name}` is not a Rust identifier: {e}"
        ))
    })?;
    Ok(quote!(tools::#ident))
}

/// Generates `client.rs` from explicit inputs.
pub fn generate_with(input: &ClientInput<'_>) -> Result<TokenStream> {
    let revision = input.revision;
    let content = &input.content_type;
    let names = method_names(input.tools);

    let taken: BTreeSet<String> = names
        .iter()
        .flat_map(|m| [m.clone(), format!("{m}_with")])
        .chain(HELPERS.iter().map(|h| (*h).to_owned()))
        .collect();
    let mut methods = Vec::new();
    for (tool, method) in input.tools.iter().zip(&names) {
        let wire = &tool.name;
        let plain = naming::ident(method);
        let with = format_ident!("{}_with", method);
        let input_ty = type_path(&tool.input)?;
        let (output_ty, call) = match &tool.output {
            Some(out) => (type_path(out)?, quote!(call_structured)),
            None => (quote!(Vec<protocol::#content>), quote!(call_content)),
        };
        let summary = format!("Calls tool `{wire}`.");
        let detail = doc_line(&tool.tool).unwrap_or_default();
        let returns = if tool.output.is_some() {
            "Returns `structuredContent`, checked against the tool's `outputSchema`."
        } else {
            "Returns the result's content blocks."
        };
        let scopes = docs::client_scopes(&tool.scopes).unwrap_or_default();
        let docs = docs::doc_attrs([summary.as_str(), detail.as_str(), returns, scopes.as_str()]);
        let with_doc = docs::doc_attrs([format!(
            "Calls tool `{wire}` with per-call options (timeout, progress)."
        )
        .as_str()]);
        methods.push(quote! {
            #docs
            pub async fn #plain(&self, input: #input_ty) -> Result<#output_ty, ClientError> {
                self.#with(input, CallOptions::new()).await
            }

            #with_doc
            pub async fn #with(
                &self,
                input: #input_ty,
                options: CallOptions,
            ) -> Result<#output_ty, ClientError> {
                self.inner.#call(tool_schemas(), #wire, &input, &options).await
            }
        });
        if let Some(support) = task_support(&tool.tool) {
            let start = task_method(method, &taken);
            let decode = if tool.output.is_some() {
                quote!(structured_result)
            } else {
                quote!(content_result)
            };
            let docs = docs::doc_attrs([
                format!("Starts tool `{wire}` so that it may run as a task (`taskSupport`: {support}).").as_str(),
                "The server answers at once or with a task to poll, give input to, cancel and await \
                 (`TaskStart::result`); `ttl` is the lifetime asked for (2025-11-25).",
            ]);
            methods.push(quote! {
                #docs
                pub async fn #start(
                    &self,
                    input: #input_ty,
                    ttl: Option<std::time::Duration>,
                ) -> Result<TaskStart<'_, #output_ty>, ClientError> {
                    self.inner.start_typed(tool_schemas(), #wire, &input, ttl, #decode).await
                }
            });
        }
    }

    let http_methods = if input.http {
        quote! {
            /// Connects to a Streamable HTTP endpoint (`https://HOST/PATH` or
            /// `http://HOST:PORT/PATH`) with [`default_options`] and performs the handshake.
            pub async fn connect_http(url: &str) -> Result<Self, ClientError> {
                Self::connect_http_with(url, default_options()).await
            }

            /// [`Client::connect_http`] with the given options: list several revisions
            /// (newest first, e.g. `ClientOptions::new(["2026-07-28", PROTOCOL_VERSION])`)
            /// to speak to servers of either era; `options.http` carries headers (a
            /// bearer token: `ClientOptions::bearer_token`), CA files, a client
            /// certificate, the proxy and the connect timeout.
            pub async fn connect_http_with(
                url: &str,
                options: ClientOptions,
            ) -> Result<Self, ClientError> {
                let transport = HttpTransport::new(url)?;
                Self::connect_with(transport, options).await
            }
        }
    } else {
        TokenStream::new()
    };
    let body = quote! {
        pub use mcpgen_runtime::client::{CallOptions, ClientError, ClientOptions, Drift, Progress};

        /// The protocol revision this client was generated for.
        pub const PROTOCOL_VERSION: &str = #revision;

        /// The tools this client was generated from, as declared (JSON).
        pub use tools::TOOLS_JSON;

        /// The tools' schemas, each validator compiled on first use.
        pub fn tool_schemas() -> &'static ToolSchemas {
            static SCHEMAS: OnceLock<ToolSchemas> =
                OnceLock::new();
            SCHEMAS.get_or_init(|| ToolSchemas::from_json(TOOLS_JSON).for_revision(PROTOCOL_VERSION))
        }

        /// Client options for [`PROTOCOL_VERSION`]; adjust and pass to
        /// [`Client::connect_with`].
        pub fn default_options() -> ClientOptions {
            ClientOptions::new([PROTOCOL_VERSION])
        }

        /// Typed client: one async method per tool.
        #[derive(Debug, Clone)]
        pub struct Client {
            inner: ClientEngine,
        }

        impl Client {
            /// Connects over a transport with [`default_options`] and performs the handshake.
            pub async fn connect<T: Transport>(
                transport: T,
            ) -> Result<Self, ClientError> {
                Self::connect_with(transport, default_options()).await
            }

            /// Connects over a transport with the given options and performs the handshake.
            pub async fn connect_with<T: Transport>(
                transport: T,
                options: ClientOptions,
            ) -> Result<Self, ClientError> {
                let inner = ClientEngine::connect(transport, options).await?;
                Ok(Self { inner })
            }

            #http_methods

            /// Starts a stdio server process (stderr inherited) and connects to it.
            /// The process is killed when the client is dropped.
            pub async fn spawn<I, S>(program: &str, args: I) -> Result<Self, ClientError>
            where
                I: IntoIterator<Item = S>,
                S: AsRef<std::ffi::OsStr>,
            {
                Self::spawn_with(program, args, default_options()).await
            }

            /// [`Client::spawn`] with the given options.
            pub async fn spawn_with<I, S>(
                program: &str,
                args: I,
                options: ClientOptions,
            ) -> Result<Self, ClientError>
            where
                I: IntoIterator<Item = S>,
                S: AsRef<std::ffi::OsStr>,
            {
                let transport = ChildTransport::spawn(
                    program,
                    args,
                    std::iter::empty::<(&str, &str)>(),
                    StderrMode::Inherit,
                )?;
                Self::connect_with(transport, options).await
            }

            /// Wraps an engine that is already connected.
            pub fn from_engine(inner: ClientEngine) -> Self {
                Self { inner }
            }

            /// The untyped engine (raw requests, notifications, session).
            pub fn engine(&self) -> &ClientEngine {
                &self.inner
            }

            /// What the handshake settled.
            pub fn session(&self) -> Option<&Negotiated> {
                self.inner.session()
            }

            /// Every tool of the server, following `nextCursor`.
            pub async fn list_all_tools(
                &self,
            ) -> Result<Vec<Value>, ClientError> {
                self.inner.list_all_tools().await
            }

            /// Compares the server's live tools with the tools this client was generated from.
            pub async fn check_drift(&self) -> Result<Drift, ClientError> {
                self.inner.check_drift(tool_schemas()).await
            }

            #(#methods)*
        }
    };
    Ok(body)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn binding(name: &str, method: &str) -> ToolBinding {
        ToolBinding {
            name: name.into(),
            method: method.into(),
            input: "XInput".into(),
            output: None,
            tool: json!({ "name": name }),
            scopes: Vec::new(),
        }
    }

    #[test]
    fn helper_and_with_collisions_are_renamed() {
        let tools = [
            binding("connect", "connect"),
            binding("get", "get"),
            binding("get_with", "get_with"),
            binding("b", "get"),
        ];
        assert_eq!(
            method_names(&tools),
            ["call_connect", "get", "get_with_2", "get_2"]
        );
    }

    #[test]
    fn description_becomes_one_line() {
        assert_eq!(
            doc_line(&json!({"description": "Adds\n\n  two numbers.\n- a"})).as_deref(),
            Some("Adds two numbers. - a")
        );
        assert_eq!(doc_line(&json!({"description": "  "})), None);
    }
}
