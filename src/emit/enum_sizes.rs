//! `#[allow(clippy::large_enum_variant)]` exactly where a generated enum
//! may need it.
//!
//! A union's members are as large as their schemas make them; boxing one
//! would change the type a handler matches on, so a large member is
//! allowed rather than boxed. Which enums need the allow is decided here,
//! once for every writer (the protocol types, the tool types), from an
//! upper estimate of each member's size in bytes on a 64-bit target: the
//! size of a standard type, of a type the same file defines (its fields,
//! each rounded up to 8 bytes, or its largest member plus a tag), `None`
//! for a type the file cannot see. Clippy lints when the largest member
//! is more than 200 bytes larger than the next; the allow is written when
//! the estimate comes within 80 bytes of that, or cannot be made.

use std::collections::{BTreeMap, BTreeSet};

use syn::{Fields, Item, Type};

/// Clippy's default `enum-variant-size-threshold`, less the margin the
/// estimate keeps.
const LARGE: usize = 200 - 80;

/// Adds the allow to each enum of `file` (at any depth of modules) whose
/// members may differ by clippy's threshold; an enum that has it keeps it.
pub(super) fn allow_large_members(file: &mut syn::File) {
    let mut defined = BTreeMap::new();
    let mut twice = BTreeSet::new();
    collect(&file.items, &mut defined, &mut twice);
    for name in &twice {
        defined.remove(name);
    }
    let sizes = Sizes {
        defined,
        known: Default::default(),
    };
    mark(&mut file.items, &sizes);
}

/// What each name the file defines once is.
#[derive(Clone)]
enum Shape {
    Struct(Fields),
    Enum(Vec<Fields>),
    Alias(Type),
}

fn collect(items: &[Item], defined: &mut BTreeMap<String, Shape>, twice: &mut BTreeSet<String>) {
    for item in items {
        let (name, shape) = match item {
            Item::Struct(s) => (s.ident.to_string(), Shape::Struct(s.fields.clone())),
            Item::Enum(e) => (
                e.ident.to_string(),
                Shape::Enum(e.variants.iter().map(|v| v.fields.clone()).collect()),
            ),
            Item::Type(t) => (t.ident.to_string(), Shape::Alias((*t.ty).clone())),
            Item::Mod(m) => {
                if let Some((_, items)) = &m.content {
                    collect(items, defined, twice);
                }
                continue;
            }
            _ => continue,
        };
        if defined.insert(name.clone(), shape).is_some() {
            twice.insert(name);
        }
    }
}

fn mark(items: &mut [Item], sizes: &Sizes) {
    for item in items {
        match item {
            Item::Enum(e) if e.variants.len() > 1 && !allows_large(&e.attrs) => {
                let members: Option<Vec<usize>> = e
                    .variants
                    .iter()
                    .map(|v| sizes.fields(&v.fields, &mut BTreeSet::new()))
                    .collect();
                if members.is_none_or(|members| spread(&members) >= LARGE) {
                    e.attrs
                        .push(syn::parse_quote!(#[allow(clippy::large_enum_variant)]));
                }
            }
            Item::Mod(m) => {
                if let Some((_, items)) = &mut m.content {
                    mark(items, sizes);
                }
            }
            _ => {}
        }
    }
}

/// The largest member's size less the next largest's, as clippy measures.
fn spread(members: &[usize]) -> usize {
    let mut sorted = members.to_vec();
    sorted.sort_unstable_by(|a, b| b.cmp(a));
    sorted[0] - sorted.get(1).copied().unwrap_or(0)
}

fn allows_large(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|a| {
        a.path().is_ident("allow")
            && matches!(&a.meta, syn::Meta::List(l) if l.tokens.to_string().contains("large_enum_variant"))
    })
}

struct Sizes {
    defined: BTreeMap<String, Shape>,
    known: std::cell::RefCell<BTreeMap<String, Option<usize>>>,
}

impl Sizes {
    /// The upper estimate of a member's or struct's fields.
    fn fields(&self, fields: &Fields, seen: &mut BTreeSet<String>) -> Option<usize> {
        fields
            .iter()
            .map(|f| self.of(&f.ty, seen).map(|n| n.div_ceil(8) * 8))
            .sum()
    }

    /// The upper estimate of `ty`'s size; `None` when it cannot be made.
    fn of(&self, ty: &Type, seen: &mut BTreeSet<String>) -> Option<usize> {
        match ty {
            Type::Paren(p) => self.of(&p.elem, seen),
            Type::Group(g) => self.of(&g.elem, seen),
            Type::Tuple(t) => t
                .elems
                .iter()
                .map(|e| self.of(e, seen).map(|n| n.div_ceil(8) * 8))
                .sum(),
            Type::Reference(_) | Type::Ptr(_) => Some(16),
            Type::Path(p) if p.qself.is_none() => {
                let last = p.path.segments.last()?;
                let name = last.ident.to_string();
                let argument = match &last.arguments {
                    syn::PathArguments::AngleBracketed(a) => a.args.iter().find_map(|a| match a {
                        syn::GenericArgument::Type(t) => Some(t),
                        _ => None,
                    }),
                    _ => None,
                };
                if let Some(size) = standard(&name) {
                    return Some(size);
                }
                if name == "Option" {
                    return self.of(argument?, seen).map(|n| n + 8);
                }
                if p.path.segments.len() > 1 {
                    // A path into another crate or module the file does
                    // not show.
                    return None;
                }
                self.named(&name, seen)
            }
            _ => None,
        }
    }

    /// The estimate for a type the file defines.
    fn named(&self, name: &str, seen: &mut BTreeSet<String>) -> Option<usize> {
        if let Some(known) = self.known.borrow().get(name) {
            return *known;
        }
        // A type that holds itself other than through an indirection
        // does not compile; one seen again here is left unestimated.
        if !seen.insert(name.to_owned()) {
            return None;
        }
        let size = match self.defined.get(name)? {
            Shape::Struct(fields) => self.fields(fields, seen),
            Shape::Enum(members) => members
                .iter()
                .map(|m| self.fields(m, seen))
                .collect::<Option<Vec<_>>>()
                .map(|sizes| sizes.into_iter().max().unwrap_or(0) + 8),
            Shape::Alias(ty) => self.of(ty, seen),
        };
        seen.remove(name);
        self.known.borrow_mut().insert(name.to_owned(), size);
        size
    }
}

/// The size of a standard type whose size its arguments do not change.
fn standard(name: &str) -> Option<usize> {
    Some(match name {
        "bool" | "u8" | "i8" => 1,
        "u16" | "i16" => 2,
        "u32" | "i32" | "f32" | "char" => 4,
        "u64" | "i64" | "f64" | "usize" | "isize" | "NonZeroU64" | "NonZeroI64" | "NonZeroU32"
        | "NonZeroI32" | "Box" | "Arc" | "Rc" => 8,
        "u128" | "i128" => 16,
        "String" | "Vec" | "BTreeMap" | "BTreeSet" | "PathBuf" => 24,
        "HashMap" | "HashSet" => 48,
        // serde_json's insertion-ordered map, and the value that holds one.
        "Value" | "Map" => 80,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use quote::quote;

    fn allowed(tokens: proc_macro2::TokenStream) -> Vec<String> {
        let mut file: syn::File = syn::parse2(tokens).unwrap();
        allow_large_members(&mut file);
        let mut names = Vec::new();
        fn walk(items: &[Item], names: &mut Vec<String>) {
            for item in items {
                match item {
                    Item::Enum(e) if allows_large(&e.attrs) => names.push(e.ident.to_string()),
                    Item::Mod(m) => walk(&m.content.as_ref().unwrap().1, names),
                    _ => {}
                }
            }
        }
        walk(&file.items, &mut names);
        names
    }

    #[test]
    fn small_members_need_no_allow() {
        let names = allowed(quote! {
            pub enum IntegerOrString { Integer(i128), String(String) }
            pub enum Either { A(A), B(B) }
            pub struct A { pub a: Option<String>, pub b: ::serde_json::Value }
            pub struct B { pub c: Vec<A>, pub d: Option<Box<Either>> }
            pub enum Unit { X, Y }
            pub enum One { Only(Big) }
        });
        assert!(names.is_empty(), "{names:?}");
    }

    #[test]
    fn a_large_or_unseen_member_gets_the_allow_once() {
        let names = allowed(quote! {
            pub struct Big { a: Value, b: Value, c: Value }
            pub enum BigOrText { Big(Big), Text(String) }
            pub enum Elsewhere { Other(other::Type), Text(String) }
            #[allow(clippy::large_enum_variant)]
            pub enum Already { Big(Big), Text(String) }
            pub mod nested {
                pub enum Fields { Wide { a: super::Big }, Narrow { b: bool } }
            }
        });
        assert_eq!(names, ["BigOrText", "Elsewhere", "Already", "Fields"]);
    }
}
