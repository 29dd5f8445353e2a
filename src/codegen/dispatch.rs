//! The body of a generated dispatch method: a `match` from a request's
//! target (a tool's or prompt's index, a resource template, a completion
//! argument) to the handler method that serves it, with a fallback for
//! what matches nothing. Tools (`Dispatch::call` in `server`) and the
//! `Surface` methods (`surface`) share it, so that a manifest with none
//! of some kind still gives warning- and clippy-clean code.

use proc_macro2::TokenStream;
use quote::quote;

/// What a dispatch method does when no arm matches: discard the `unused`
/// bindings, then `body`.
#[derive(Debug)]
pub struct Fallback {
    /// The method's parameters the fallback does not use (`index, ctx`).
    pub unused: TokenStream,
    /// An expression of the method's return type.
    pub body: TokenStream,
}

/// The body of a dispatch method (`Dispatch::call` for tools, the
/// `Surface` methods): the fallback alone when there are no arms (a
/// `match` with only a wildcard arm is `clippy::match_single_binding`;
/// the parameters it leaves unused are named once), else `handler` cloned
/// from `self`, `setup`, and a match on `scrutinee` with the fallback
/// last.
pub fn dispatch(
    scrutinee: TokenStream,
    arms: TokenStream,
    fallback: Fallback,
    setup: TokenStream,
) -> TokenStream {
    let Fallback { unused, body } = fallback;
    if arms.is_empty() {
        return quote! {
            let _ = (#unused);
            #body
        };
    }
    quote! {
        let handler = Arc::clone(&self.handler);
        #setup
        match #scrutinee {
            #arms
            _ => #body
        }
    }
}
