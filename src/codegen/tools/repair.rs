//! All the repairs of typify's output in one walk ([`super::levels`]).

use proc_macro2::TokenStream;

use super::levels::{each, Level};
use super::{fixup, wide, Renames};

/// typify's output with every repair made: `fixup`'s repairs, each
/// marker of `renames` restored, `wide`'s attribute on each wide integer
/// field (and whether one got it), in one walk, then `fixup`'s passes over
/// the top-level items.
pub(super) fn repair(tokens: TokenStream, renames: &Renames) -> (TokenStream, bool) {
    let mut text = String::new();
    let mut wide_used = false;
    let trees = each(
        tokens.into_iter().collect(),
        Level::TOP,
        &mut |tts, level| {
            // Repaired before the markers are restored: a renamed field's
            // `#[serde(default)]` is still bare for `boxed_options` (the
            // rename joins the repaired attribute).
            let tts = fixup::walk_level(tts, level.in_defaults);
            let tts = match renames.is_empty() {
                true => tts,
                false => renames.restore_level(tts, level.body, &mut text),
            };
            // Names are bounded once the markers in them are restored.
            let tts = fixup::bound_idents(tts, &mut text);
            wide::step(tts, level.body, &mut wide_used)
        },
    );
    (fixup::top(trees).into_iter().collect(), wide_used)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::naming;
    use proc_macro2::{Ident, Span};
    use quote::quote;

    #[test]
    fn one_walk_makes_every_repair() {
        let mut renames = Renames::default();
        let marker = renames.marker("fooBar", "foo_bar");
        let field = Ident::new(&marker, Span::call_site());
        let long = Ident::new(&format!("Long{}", "Name".repeat(40)), Span::call_site());
        let tokens = quote! {
            #[derive(Clone, Debug)]
            pub struct Parent {
                #[serde(default)]
                pub #field: ::std::boxed::Box<::std::option::Option<#long>>,
                pub big: ::std::option::Option<u128>,
            }
            #[derive(Clone, Debug)]
            pub enum Reaction { plus1, minus1, Wide(i128), Nested { count: u128 } }
            impl ::std::default::Default for Reaction { fn default() -> Self { Reaction::plus1 } }
            pub struct #long(pub ::std::string::String);
            mod defaults { pub(super) fn parent_big() -> u128 { 0 } }
        };
        let (one, used) = repair(tokens, &renames);
        assert!(used);
        let text = one.to_string();
        let long = long.to_string();
        let long = naming::bounded(&long, naming::MAX_IDENT, &long);
        // A renamed recursive optional field is repaired as any other:
        // `Option<Box<…>>`, left out when absent, with its wire name.
        let boxed = format!(
            "# [serde (rename = \"fooBar\" , default , skip_serializing_if = \"::std::option::Option::is_none\")] \
             pub foo_bar : :: std :: option :: Option < :: std :: boxed :: Box < {long} >>"
        );
        for made in [
            boxed.as_str(),
            "# [default] Plus1",
            "(deserialize_with = \"wide::option\")] pub big",
            "(deserialize_with = \"wide::one\")] Wide (i128)",
            "(deserialize_with = \"wide::one\")] count",
            "mod defaults { pub fn parent_big",
        ] {
            assert!(text.contains(made), "{made} in {text}");
        }
        assert!(
            !text.contains("Zmcpgen") && !text.contains("zmcpgen"),
            "{text}"
        );
    }
}
