//! One walk over every group of typify's output for the passes that
//! repair it: [`Renames::restore`](super::Renames::restore), `fixup` and
//! `wide`. Each is a step over the trees of one group, which needs to know
//! only where that group sits ([`Level`]), and the walk rebuilds each
//! group once for all of them, after the groups inside it. (Each pass
//! used to walk and rebuild the whole stream on its own: a tenth of a
//! large generation's instructions.)

use proc_macro2::{Delimiter, TokenTree};

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

/// What a group of generated tokens is the body of, for the passes that
/// touch field definitions ([`Renames::restore`], `wide`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Body {
    /// Field definitions: a struct's or a struct variant's.
    Fields,
    /// An enum's variants.
    Variants,
    /// Anything else (an expression, an impl, an attribute).
    Other,
}

impl Body {
    /// The body of the group `tts[i]`, in a group that is the body `outer`:
    /// `struct X {…}` and a variant's `{…}` hold fields, `enum X {…}`
    /// variants.
    pub(super) fn of_group(tts: &[TokenTree], i: usize, outer: Body) -> Body {
        let TokenTree::Group(g) = &tts[i] else {
            return Body::Other;
        };
        // Compared in place: a pass asks this of every group it meets.
        let ident_at = |back: usize, word: Option<&str>| {
            matches!(i.checked_sub(back).map(|j| &tts[j]),
                Some(TokenTree::Ident(id)) if word.is_none_or(|w| id == w))
        };
        if g.delimiter() != Delimiter::Brace || !ident_at(1, None) {
            return Body::Other;
        }
        if ident_at(2, Some("struct")) {
            Body::Fields
        } else if ident_at(2, Some("enum")) {
            Body::Variants
        } else if outer == Body::Variants {
            Body::Fields
        } else {
            Body::Other
        }
    }
}
