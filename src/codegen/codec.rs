//! The generated server's decoders and encoders (`mod codec` in
//! `server.rs`): one plain function per type that a tool's arguments,
//! output, or a prompt's or template's parameters and result are decoded
//! into or encoded from, each calling the runtime's generic decoder or
//! encoder.
//!
//! Why: the router is generic over the user's `Handler`, so the code in
//! its match arms is compiled in the crate that implements the handler.
//! Called there directly, `decode_arguments::<SomeInput>` would compile
//! serde's whole decoder of every tool input into that crate, again after
//! every edit of a handler. A plain function is compiled once, where it
//! is defined: in the bindings, which a handler edit does not rebuild.

use std::collections::BTreeMap;

use heck::ToSnakeCase;
use proc_macro2::TokenStream;
use quote::{format_ident, quote};

/// The functions of `mod codec`, named `decode_<type>` or `encode_<type>` and
/// each written once however many arms call it.
#[derive(Debug, Default)]
pub struct Codecs {
    /// By runtime function and type: the function's name.
    names: BTreeMap<(&'static str, String), String>,
    /// By name: the function.
    functions: BTreeMap<String, TokenStream>,
}

/// One of the runtime's generic decoders or encoders, with the shape of
/// its plain wrapper.
#[derive(Debug, Clone, Copy)]
pub enum Runtime {
    /// `decode_arguments(Value) -> Result<T, CallFailure>`: tool arguments.
    DecodeArguments,
    /// `encode_output(&T) -> Result<ToolOutput, CallFailure>`: a tool's typed output.
    EncodeOutput,
    /// `encode_content(&[T]) -> Result<ToolOutput, CallFailure>`: a tool's content blocks.
    EncodeContent,
    /// `decode_params(Map) -> Result<T, HandlerError>`: prompt arguments, template variables.
    DecodeParams,
    /// `encode_result(&T) -> Result<Value, HandlerError>`: a prompt's, a read's or a completion's result.
    EncodeResult,
}

impl Runtime {
    /// What the plain function's name starts with.
    fn verb(self) -> &'static str {
        match self {
            Self::DecodeArguments | Self::DecodeParams => "decode",
            Self::EncodeOutput | Self::EncodeContent | Self::EncodeResult => "encode",
        }
    }

    fn name(self) -> &'static str {
        match self {
            Self::DecodeArguments => "decode_arguments",
            Self::EncodeOutput => "encode_output",
            Self::EncodeContent => "encode_content",
            Self::DecodeParams => "decode_params",
            Self::EncodeResult => "encode_result",
        }
    }
}

impl Codecs {
    /// The path (`codec::<name>`) of the plain function that applies
    /// `runtime` to `ty`, a type given by its path from the server module
    /// (`tools::X`, `protocol::Y`, or a runtime type) and
    /// named `name` in the function's name.
    pub fn function(&mut self, runtime: Runtime, ty: &TokenStream, name: &str) -> TokenStream {
        let key = (runtime.name(), ty.to_string());
        if let Some(known) = self.names.get(&key) {
            let ident = format_ident!("{known}");
            return quote!(codec::#ident);
        }
        // Two types whose names differ only in case (`HTTPServer`,
        // `HttpServer`) get the same snake-case name: the later one is
        // told apart by a suffix.
        let base = format!(
            "{}_{}",
            runtime.verb(),
            name.trim_start_matches("r#").to_snake_case()
        );
        let mut fn_name = base.clone();
        let mut n = 2;
        while self.functions.contains_key(&fn_name) {
            fn_name = format!("{base}_{n}");
            n += 1;
        }
        let ident = format_ident!("{fn_name}");
        let generic = format_ident!("{}", runtime.name());
        let function = match runtime {
            Runtime::DecodeArguments => quote! {
                pub(super) fn #ident(arguments: Value) -> Result<#ty, CallFailure> {
                    #generic(arguments)
                }
            },
            Runtime::EncodeOutput => quote! {
                pub(super) fn #ident(output: &#ty) -> Result<ToolOutput, CallFailure> {
                    #generic(output)
                }
            },
            Runtime::EncodeContent => quote! {
                pub(super) fn #ident(content: &[#ty]) -> Result<ToolOutput, CallFailure> {
                    #generic(content)
                }
            },
            Runtime::DecodeParams => quote! {
                pub(super) fn #ident(values: Map<String, Value>) -> Result<#ty, HandlerError> {
                    #generic(values)
                }
            },
            Runtime::EncodeResult => quote! {
                pub(super) fn #ident(value: &#ty) -> Result<Value, HandlerError> {
                    #generic(value)
                }
            },
        };
        self.functions.insert(fn_name.clone(), function);
        self.names.insert(key, fn_name);
        quote!(codec::#ident)
    }

    /// `mod codec` with every function asked for, in name order (nothing
    /// when none was).
    pub fn module(&self) -> TokenStream {
        if self.functions.is_empty() {
            return TokenStream::new();
        }
        let functions: TokenStream = self.functions.values().cloned().collect();
        let siblings = crate::codegen::siblings::nested_uses(&functions);
        quote! {
            /// Decoding of what each handler method takes and encoding of
            /// what it returns, as plain functions: compiled here, once,
            /// rather than in the crate that implements [`Handler`].
            mod codec {
                use mcpgen_runtime::codegen::*;
                #siblings

                #functions
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_function_per_type_and_names_told_apart() {
        let mut codecs = Codecs::default();
        let input = quote!(tools::HttpServerInput);
        let first = codecs.function(Runtime::DecodeArguments, &input, "HttpServerInput");
        let again = codecs.function(Runtime::DecodeArguments, &input, "HttpServerInput");
        assert_eq!(first.to_string(), again.to_string());
        assert_eq!(first.to_string(), "codec :: decode_http_server_input");
        // Same snake-case name, another type: a suffix tells them apart.
        let other = codecs.function(
            Runtime::DecodeArguments,
            &quote!(tools::HTTPServerInput),
            "HTTPServerInput",
        );
        assert_eq!(other.to_string(), "codec :: decode_http_server_input_2");
        // The same type encoded: another function.
        let encode = codecs.function(Runtime::EncodeOutput, &input, "HttpServerInput");
        assert_eq!(encode.to_string(), "codec :: encode_http_server_input");
        let module = codecs.module().to_string();
        assert_eq!(module.matches("pub (super) fn").count(), 3, "{module}");
        assert!(
            module.contains("-> Result < tools :: HttpServerInput , CallFailure >"),
            "{module}"
        );
        // Sibling files named inside other types too, and imported once.
        let messages = codecs.function(
            Runtime::EncodeResult,
            &quote!(Vec<protocol::PromptMessage>),
            "PromptMessages",
        );
        assert_eq!(messages.to_string(), "codec :: encode_prompt_messages");
        let module = codecs.module().to_string();
        assert!(
            module.contains("value : & Vec < protocol :: PromptMessage >"),
            "{module}"
        );
        assert!(
            module.contains("use super :: super :: { protocol , tools } ;"),
            "{module}"
        );
        // Absolute paths and the runtime's names are kept.
        let content = codecs.function(
            Runtime::EncodeContent,
            &quote!(::serde_json::Value),
            "Values",
        );
        assert_eq!(content.to_string(), "codec :: encode_values");
        assert!(codecs
            .module()
            .to_string()
            .contains("content : & [:: serde_json :: Value]"));
    }

    #[test]
    fn no_module_without_functions() {
        assert!(Codecs::default().module().is_empty());
    }
}
