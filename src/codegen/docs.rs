//! Doc comments of generated items, one way for every generator: text in
//! paragraphs becomes `#[doc = " line"]` attributes, a blank doc line
//! between paragraphs, each line after a space and without trailing
//! blanks; empty paragraphs are left out. Also the one wording of the
//! OAuth scopes an item needs, server side and client side. (Cleaning of characters a
//! comment cannot hold happens once, for the whole file, in
//! `emit::docs`.)

use proc_macro2::TokenStream;
use quote::quote;

/// The server-side doc paragraph naming the OAuth scopes an item needs
/// (`x-mcpgen.scopes`), if it needs any.
pub fn server_scopes(scopes: &[String]) -> Option<String> {
    (!scopes.is_empty()).then(|| {
        format!(
            "Callers need the OAuth scopes {} (checked before this method runs).",
            listed(scopes)
        )
    })
}

/// The client-side doc paragraph naming the OAuth scopes the server
/// requires for an item, if it requires any.
pub fn client_scopes(scopes: &[String]) -> Option<String> {
    (!scopes.is_empty()).then(|| {
        format!(
            "The server requires the OAuth scopes {}: over HTTP a token without them gets 403 \
             `insufficient_scope` (an OAuth transport then steps up).",
            listed(scopes)
        )
    })
}

/// `` `a`, `b` ``.
fn listed(scopes: &[String]) -> String {
    scopes
        .iter()
        .map(|s| format!("`{s}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The site the specification's own links are relative to.
const SPEC_SITE: &str = "https://modelcontextprotocol.io";

/// The doc attributes of `paragraphs`, in order. Links relative to the
/// specification's site (`](/specification/…)`, as the schema writes
/// them) become absolute, so that they work in rustdoc.
pub fn doc_attrs<'a>(paragraphs: impl IntoIterator<Item = &'a str>) -> TokenStream {
    let mut lines: Vec<String> = Vec::new();
    for paragraph in paragraphs.into_iter().filter(|p| !p.trim().is_empty()) {
        if !lines.is_empty() {
            lines.push(String::new());
        }
        lines.extend(paragraph.lines().map(|l| {
            format!(
                " {}",
                l.trim_end().replace("](/", &format!("]({SPEC_SITE}/"))
            )
        }));
    }
    quote! { #( #[doc = #lines] )* }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The text of each doc attribute.
    fn lines(docs: TokenStream) -> Vec<String> {
        let attrs = syn::parse::Parser::parse2(syn::Attribute::parse_outer, docs).unwrap();
        attrs
            .iter()
            .map(|a| match &a.meta {
                syn::Meta::NameValue(nv) => match &nv.value {
                    syn::Expr::Lit(syn::ExprLit {
                        lit: syn::Lit::Str(s),
                        ..
                    }) => s.value(),
                    _ => panic!("a doc attribute holds a string"),
                },
                _ => panic!("only doc attributes"),
            })
            .collect()
    }

    #[test]
    fn links_relative_to_the_specification_site_become_absolute() {
        let docs = lines(doc_attrs(["See [General fields](/specification/2025-11-25/basic/index#meta) and [x](https://e.org/a)."]));
        assert_eq!(
            docs,
            [" See [General fields](https://modelcontextprotocol.io/specification/2025-11-25/basic/index#meta) and [x](https://e.org/a)."]
        );
    }

    #[test]
    fn scopes_are_named_only_when_there_are_some() {
        assert_eq!(server_scopes(&[]), None);
        assert_eq!(client_scopes(&[]), None);
        let two = ["a:b".to_owned(), "c".to_owned()];
        assert_eq!(
            server_scopes(&two).unwrap(),
            "Callers need the OAuth scopes `a:b`, `c` (checked before this method runs)."
        );
        assert!(client_scopes(&two)
            .unwrap()
            .starts_with("The server requires the OAuth scopes `a:b`, `c`: "));
    }

    #[test]
    fn paragraphs_are_separated_and_empty_ones_left_out() {
        let docs = doc_attrs(["Title", "  ", "Line one  \nline two", "Tool `x`."]);
        assert_eq!(
            lines(docs),
            [" Title", "", " Line one", " line two", "", " Tool `x`."]
        );
        assert!(doc_attrs(["", " \n "]).is_empty());
    }
}
