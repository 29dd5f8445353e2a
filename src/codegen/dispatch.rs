//! The body of a generated dispatch method: a `match` from a request's
//! target (a tool's or prompt's index, a resource template, a completion
//! argument) to the handler method that serves it, with a fallback for
//! what matches nothing. Tools (`Dispatch::call` in `server`) and the
//! `Surface` methods (`surface`) share it, so that a manifest with none
//! of some kind still gives warning- and clippy-clean code.

use proc_macro2::{Ident, Span, TokenStream};
use quote::quote;

/// What a dispatch method does when no arm matches.
#[derive(Debug)]
pub struct Fallback {
    /// The method's parameters the fallback does not use (`index`, `ctx`).
    pub unused: &'static [&'static str],
    /// An expression of the method's return type.
    pub body: TokenStream,
}

/// A dispatch method's parameter list and body.
#[derive(Debug)]
pub struct Dispatched {
    /// `name: Type, …`, for after `&self`.
    pub params: TokenStream,
    /// The statements of the method.
    pub body: TokenStream,
}

/// The parameters and body of a dispatch method (`Dispatch::call` for
/// tools, the `Surface` methods) taking `params` (name and type): the
/// fallback alone when there are no arms (a `match` with only a wildcard
/// arm is `clippy::match_single_binding`), the parameters it does not use
/// then named with a leading `_`; else `handler` cloned from `self`,
/// `setup`, and a match on `scrutinee` with the fallback last.
pub fn dispatch(
    params: &[(&str, TokenStream)],
    scrutinee: TokenStream,
    arms: TokenStream,
    fallback: Fallback,
    setup: TokenStream,
) -> Dispatched {
    let Fallback { unused, body } = fallback;
    let params = params.iter().map(|(name, ty)| {
        let name = if arms.is_empty() && unused.contains(name) {
            Ident::new(&format!("_{name}"), Span::call_site())
        } else {
            Ident::new(name, Span::call_site())
        };
        quote!(#name: #ty)
    });
    let params = quote!(#(#params),*);
    if arms.is_empty() {
        return Dispatched { params, body };
    }
    Dispatched {
        params,
        body: quote! {
            let handler = Arc::clone(&self.handler);
            #setup
            match #scrutinee {
                #arms
                _ => #body
            }
        },
    }
}
