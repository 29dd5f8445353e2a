//! Doc comments of generated items, one way for every generator: text in
//! paragraphs becomes `#[doc = " line"]` attributes, a blank doc line
//! between paragraphs, each line after a space and without trailing
//! blanks; empty paragraphs are left out. (Cleaning of characters a
//! comment cannot hold happens once, for the whole file, in
//! `emit::docs`.)

use proc_macro2::TokenStream;
use quote::quote;

/// The doc attributes of `paragraphs`, in order.
pub fn doc_attrs<'a>(paragraphs: impl IntoIterator<Item = &'a str>) -> TokenStream {
    let mut lines: Vec<String> = Vec::new();
    for paragraph in paragraphs.into_iter().filter(|p| !p.trim().is_empty()) {
        if !lines.is_empty() {
            lines.push(String::new());
        }
        lines.extend(paragraph.lines().map(|l| format!(" {}", l.trim_end())));
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
                    syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Str(s), .. }) => s.value(),
                    _ => panic!("a doc attribute holds a string"),
                },
                _ => panic!("only doc attributes"),
            })
            .collect()
    }

    #[test]
    fn paragraphs_are_separated_and_empty_ones_left_out() {
        let docs = doc_attrs(["Title", "  ", "Line one  \nline two", "Tool `x`."]);
        assert_eq!(lines(docs), [" Title", "", " Line one", " line two", "", " Tool `x`."]);
        assert!(doc_attrs(["", " \n "]).is_empty());
    }
}
