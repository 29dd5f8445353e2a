//! The generated files name each other as `tools::X` and `protocol::Y`
//! (never `super::tools::X`): each generated module that does imports the
//! sibling files it names, and only those, so nothing is left unused.

use std::collections::BTreeSet;

use proc_macro2::{Ident, TokenStream, TokenTree};
use quote::quote;

/// The sibling files of the generated code.
const SIBLINGS: [&str; 2] = ["protocol", "tools"];

/// A generated file (`server.rs`, `client.rs`) with its imports: the
/// runtime's prelude for generated code, then the siblings `body` names.
pub fn file(body: TokenStream) -> TokenStream {
    let siblings = uses(&body);
    quote! {
        use mcpgen_runtime::codegen::*;
        #siblings

        #body
    }
}

/// `use super::{…};` for the siblings the items of a generated file
/// (`body`) name at the start of a path, nothing when they name none; the
/// modules nested in it are not counted (each imports its own, see
/// [`nested_uses`]).
pub fn uses(body: &TokenStream) -> TokenStream {
    import(body, quote!(super))
}

/// The same for the items of a module nested in a generated file:
/// `use super::super::{…};`.
pub fn nested_uses(body: &TokenStream) -> TokenStream {
    import(body, quote!(super::super))
}

fn import(body: &TokenStream, parent: TokenStream) -> TokenStream {
    let mut named = BTreeSet::new();
    collect(body.clone(), &mut named);
    if named.is_empty() {
        return TokenStream::new();
    }
    let named = named
        .into_iter()
        .map(|n| Ident::new(n, proc_macro2::Span::call_site()));
    quote!(use #parent::{#(#named),*};)
}

/// Adds to `named` each sibling that starts a path in `tokens`.
fn collect(tokens: TokenStream, named: &mut BTreeSet<&'static str>) {
    let tokens: Vec<TokenTree> = tokens.into_iter().collect();
    for (i, token) in tokens.iter().enumerate() {
        match token {
            // A nested module's body (`mod name { … }`) is its own.
            TokenTree::Group(_)
                if i >= 2 && matches!(&tokens[i - 2], TokenTree::Ident(k) if k == "mod") =>
            {
                continue;
            }
            TokenTree::Group(group) => collect(group.stream(), named),
            TokenTree::Ident(ident) => {
                let Some(sibling) = SIBLINGS.iter().find(|s| ident == *s) else {
                    continue;
                };
                let before = |back: usize| i.checked_sub(back).map(|p| &tokens[p]);
                let colon = |t: Option<&TokenTree>| matches!(t, Some(TokenTree::Punct(p)) if p.as_char() == ':');
                // Not after `::` (a path through it), `.` (a field) or
                // `fn`/`mod` (an item of that name).
                let through = colon(before(1)) && colon(before(2));
                let field = matches!(before(1), Some(TokenTree::Punct(p)) if p.as_char() == '.');
                let item = matches!(
                    before(1),
                    Some(TokenTree::Ident(k)) if k == "mod" || k == "fn"
                );
                let starts_path = !(through || field || item);
                let then_path = matches!(
                    tokens.get(i + 1),
                    Some(TokenTree::Punct(p)) if p.as_char() == ':'
                );
                if starts_path && then_path {
                    named.insert(sibling);
                }
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_siblings_named_are_imported() {
        let body = quote! {
            fn f(input: tools::GreetInput) -> Vec<protocol::ContentBlock> { todo!() }
        };
        assert_eq!(
            uses(&body).to_string(),
            quote!(
                use super::{protocol, tools};
            )
            .to_string()
        );
        let body = quote! { pub use tools::TOOLS_JSON; };
        assert_eq!(
            uses(&body).to_string(),
            quote!(
                use super::{tools};
            )
            .to_string()
        );
        // A path through them, a method or a field of that name is not one.
        let body = quote! {
            fn tools(&self) {}
            let x = a::tools::B;
            let y = self.protocol;
        };
        assert!(uses(&body).is_empty());
        // A nested module's paths are its own.
        let body = quote! { mod codec { fn f(x: tools::A) {} } };
        assert!(uses(&body).is_empty());
        assert_eq!(
            nested_uses(&quote! { fn f(x: tools::A) {} }).to_string(),
            quote!(
                use super::super::{tools};
            )
            .to_string()
        );
    }
}
