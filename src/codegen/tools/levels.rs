//! One walk over every group of typify's output for the passes that
//! repair it: [`Renames::restore`](super::Renames::restore), `fixup` and
//! `wide`. Each is a step over the trees of one group, which needs to know
//! only where that group sits ([`Level`]), and the walk rebuilds each
//! group once for all of them, after the groups inside it. (Each pass
//! used to walk and rebuild the whole stream on its own: a tenth of a
//! large generation's instructions.)

use proc_macro2::{Delimiter, TokenStream, TokenTree};

use super::fields::Body;
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

/// Where the trees of a group sit, as the steps need to know.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Level {
    /// What the group is the body of.
    pub(super) body: Body,
    /// Whether it is the body of typify's `mod defaults { … }`.
    pub(super) in_defaults: bool,
}

impl Level {
    /// The level of the items of a file.
    pub(super) const TOP: Level = Level {
        body: Body::Other,
        in_defaults: false,
    };

    /// The level of the trees of the group `tts[i]`, a tree at this level.
    fn of_group(self, tts: &[TokenTree], i: usize) -> Level {
        let ident = |back: usize, word: &str| matches!(i.checked_sub(back).map(|j| &tts[j]), Some(TokenTree::Ident(id)) if id == word);
        let brace = matches!(&tts[i], TokenTree::Group(g) if g.delimiter() == Delimiter::Brace);
        Level {
            body: Body::of_group(tts, i, self.body),
            in_defaults: brace && ident(1, "defaults") && ident(2, "mod"),
        }
    }
}

/// `step` applied to the trees of every group of `tts` (trees at
/// `level`), the groups inside a group before it, and last to `tts`.
pub(super) fn each(
    mut tts: Vec<TokenTree>,
    level: Level,
    step: &mut dyn FnMut(Vec<TokenTree>, Level) -> Vec<TokenTree>,
) -> Vec<TokenTree> {
    for i in 0..tts.len() {
        if let TokenTree::Group(_) = &tts[i] {
            let inner = level.of_group(&tts, i);
            let mut group = super::Taken::from_slot(&mut tts, i);
            let trees = std::mem::take(&mut group.stream).into_iter().collect();
            tts[i] = group.rebuild(each(trees, inner, step).into_iter().collect());
        }
    }
    step(tts, level)
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
