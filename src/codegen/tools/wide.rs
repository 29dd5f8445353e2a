//! Decoding of the `i128`/`u128` fields that [`super::integers`] gives
//! integer schemas beyond `i64`.
//!
//! serde's own `i128`/`u128` impls fail in two places a valid value
//! reaches: inside an untagged or internally tagged enum (serde buffers
//! the value and its buffer has no 128-bit integers: "i128 is not
//! supported"), and for values of 2^64 and above, which `serde_json`
//! reads as floats. So every field (and newtype variant) of type `i128`,
//! `u128`, `NonZeroU128`, or an `Option`, `Vec` or map of them, gets
//! `#[serde(deserialize_with = "wide::…")]`, and the generated file gets
//! the `wide` module ([`module`]), whose functions take any JSON integer
//! or float with a zero fraction that the type holds.

use proc_macro2::{Delimiter, TokenStream, TokenTree};
use quote::quote;

use super::levels::Body;

/// The generated code's field types this module handles, with the
/// function of `wide` that decodes each.
fn decoder(ty: &str) -> Option<&'static str> {
    let ty: String = ty.chars().filter(|c| !c.is_whitespace()).collect();
    let ty = [
        "::std::option::",
        "::std::vec::",
        "::std::collections::",
        "::std::string::",
        "::std::num::",
    ]
    .iter()
    .fold(ty, |t, p| t.replace(p, ""));
    let ty = ty.replace("NonZeroU128", "u128");
    Some(match ty.as_str() {
        "i128" | "u128" => "wide::one",
        "Option<i128>" | "Option<u128>" => "wide::option",
        "Vec<i128>" | "Vec<u128>" => "wide::vec",
        "BTreeMap<String,i128>" | "BTreeMap<String,u128>" => "wide::map",
        _ => return None,
    })
}

/// `tokens` with the attribute on every field and newtype variant of a
/// wide integer type, and whether there was one.
#[cfg(test)]
pub(crate) fn attach(tokens: TokenStream) -> (TokenStream, bool) {
    let mut used = false;
    let step = &mut |tts, level: super::levels::Level| step(tts, level.body, &mut used);
    let out = super::levels::each(
        tokens.into_iter().collect(),
        super::levels::Level::TOP,
        step,
    );
    (out.into_iter().collect(), used)
}

/// [`attach`] to the trees of one group, the body `body` (its own groups
/// done already); `used` is set when a field got the attribute.
pub(super) fn step(mut tts: Vec<TokenTree>, body: Body, used: &mut bool) -> Vec<TokenTree> {
    let mut out: Vec<TokenTree> = Vec::with_capacity(tts.len());
    let mut i = 0;
    while i < tts.len() {
        let tt = &tts[i];
        if let TokenTree::Group(g) = tt {
            // A newtype variant: `Name(<type>)`.
            let after_ident = i > 0 && matches!(tts[i - 1], TokenTree::Ident(_));
            if body == Body::Variants && g.delimiter() == Delimiter::Parenthesis && after_ident {
                if let Some(f) = decoder(&g.stream().to_string()) {
                    *used = true;
                    let at = out.len() - 1;
                    out.splice(at..at, quote!(#[serde(deserialize_with = #f)]));
                }
            }
            out.push(tt.clone());
            i += 1;
            continue;
        }
        // A field: `<name> : <type>` up to the `,` at this level.
        let colon = matches!(tts.get(i + 1), Some(TokenTree::Punct(p)) if p.as_char() == ':' && p.spacing() == proc_macro2::Spacing::Alone);
        if body == Body::Fields && matches!(tt, TokenTree::Ident(_)) && colon {
            // The `,` after the type, not one between generic arguments.
            let mut angle = 0i32;
            let end = (i + 2..tts.len())
                .find(|&j| match &tts[j] {
                    TokenTree::Punct(p) if p.as_char() == '<' => {
                        angle += 1;
                        false
                    }
                    TokenTree::Punct(p) if p.as_char() == '>' => {
                        angle -= 1;
                        false
                    }
                    TokenTree::Punct(p) => p.as_char() == ',' && angle == 0,
                    _ => false,
                })
                .unwrap_or(tts.len());
            // Most fields name no wide integer: only those that do are
            // written out to be matched.
            let wide = tts[i + 2..end].iter().any(|t| {
                matches!(t, TokenTree::Ident(id) if id == "i128" || id == "u128" || id == "NonZeroU128")
            });
            let ty = || tts[i + 2..end].iter().cloned().collect::<TokenStream>();
            if let Some(f) = wide.then(|| decoder(&ty().to_string())).flatten() {
                *used = true;
                // Whether an absent field decodes is not decided here:
                // `polish` gives every optional field `default` once,
                // whatever its decoder.
                let attr = quote!(#[serde(deserialize_with = #f)]);
                // Before `pub`, if the field has one.
                let at = if matches!(out.last(), Some(TokenTree::Ident(p)) if p == "pub") {
                    out.len() - 1
                } else {
                    out.len()
                };
                out.splice(at..at, attr);
            }
        }
        // A literal is looked at again only as no identifier: moved,
        // not copied.
        if matches!(tt, TokenTree::Literal(_)) {
            out.push(std::mem::replace(&mut tts[i], super::taken()));
        } else {
            out.push(tt.clone());
        }
        i += 1;
    }
    out
}

/// The `wide` module of a generated file that uses it.
pub(crate) fn module() -> TokenStream {
    quote! {
        /// Decoding of `i128`/`u128` fields: any JSON integer, or float with
        /// a zero fraction, that the type holds (serde's own impls fail
        /// inside untagged enums and for floats of 2^64 and above).
        pub mod wide {
            use ::serde::de::{Deserialize, Deserializer, Error as _};

            /// An integer type decoded here.
            pub trait Wide: Sized {
                /// The value `-magnitude` (when `negative`) or `magnitude`.
                fn from_parts(negative: bool, magnitude: u128) -> Option<Self>;
            }

            impl Wide for i128 {
                fn from_parts(negative: bool, magnitude: u128) -> Option<Self> {
                    if negative {
                        0_i128.checked_sub_unsigned(magnitude)
                    } else {
                        i128::try_from(magnitude).ok()
                    }
                }
            }

            impl Wide for u128 {
                fn from_parts(negative: bool, magnitude: u128) -> Option<Self> {
                    (!negative || magnitude == 0).then_some(magnitude)
                }
            }

            impl Wide for ::std::num::NonZeroU128 {
                fn from_parts(negative: bool, magnitude: u128) -> Option<Self> {
                    if negative {
                        None
                    } else {
                        Self::new(magnitude)
                    }
                }
            }

            struct Parts;

            impl ::serde::de::Visitor<'_> for Parts {
                type Value = (bool, u128);

                fn expecting(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                    f.write_str("an integer")
                }

                fn visit_i64<E: ::serde::de::Error>(self, v: i64) -> Result<Self::Value, E> {
                    Ok((v < 0, u128::from(v.unsigned_abs())))
                }

                fn visit_u64<E: ::serde::de::Error>(self, v: u64) -> Result<Self::Value, E> {
                    Ok((false, u128::from(v)))
                }

                fn visit_i128<E: ::serde::de::Error>(self, v: i128) -> Result<Self::Value, E> {
                    Ok((v < 0, v.unsigned_abs()))
                }

                fn visit_u128<E: ::serde::de::Error>(self, v: u128) -> Result<Self::Value, E> {
                    Ok((false, v))
                }

                fn visit_f64<E: ::serde::de::Error>(self, v: f64) -> Result<Self::Value, E> {
                    // 2^128: the first magnitude beyond `u128`.
                    if v.is_finite() && v.fract() == 0.0 && v.abs() < 340_282_366_920_938_463_463_374_607_431_768_211_456.0 {
                        Ok((v < 0.0, v.abs() as u128))
                    } else {
                        Err(E::invalid_value(::serde::de::Unexpected::Float(v), &self))
                    }
                }
            }

            /// One value of a wide integer type.
            pub struct Whole<T>(pub T);

            impl<'de, T: Wide> Deserialize<'de> for Whole<T> {
                fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                    let (negative, magnitude) = d.deserialize_any(Parts)?;
                    T::from_parts(negative, magnitude)
                        .map(Whole)
                        .ok_or_else(|| D::Error::custom(format_args!("{}{magnitude} is out of range", if negative { "-" } else { "" })))
                }
            }

            /// A field of type `i128` or `u128`.
            pub fn one<'de, D: Deserializer<'de>, T: Wide>(d: D) -> Result<T, D::Error> {
                Whole::deserialize(d).map(|Whole(v)| v)
            }

            /// A field of type `Option<i128>` or `Option<u128>`.
            pub fn option<'de, D: Deserializer<'de>, T: Wide>(d: D) -> Result<Option<T>, D::Error> {
                Ok(Option::<Whole<T>>::deserialize(d)?.map(|Whole(v)| v))
            }

            /// A field of type `Vec<i128>` or `Vec<u128>`.
            pub fn vec<'de, D: Deserializer<'de>, T: Wide>(d: D) -> Result<Vec<T>, D::Error> {
                Ok(Vec::<Whole<T>>::deserialize(d)?.into_iter().map(|Whole(v)| v).collect())
            }

            /// A field of type `BTreeMap<String, i128>` or `BTreeMap<String, u128>`.
            pub fn map<'de, D: Deserializer<'de>, T: Wide>(d: D) -> Result<::std::collections::BTreeMap<String, T>, D::Error> {
                Ok(::std::collections::BTreeMap::<String, Whole<T>>::deserialize(d)?.into_iter().map(|(k, Whole(v))| (k, v)).collect())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wide_fields_and_variants_get_the_decoder() {
        let tokens = quote! {
            pub struct S {
                #[serde(skip_serializing_if = "::std::option::Option::is_none")]
                pub a: ::std::option::Option<u128>,
                pub b: i128,
                #[serde(default = "defaults::c")]
                pub c: ::std::option::Option<i128>,
                pub d: i64,
                #[serde(flatten)]
                pub extra: ::std::collections::BTreeMap<::std::string::String, i128>,
            }
            pub enum E { Integer(i128), Text(::std::string::String), Pair { x: u128, y: bool } }
            impl S { fn f() -> Self { S { b: 1, d: 2 } } }
        };
        let (out, used) = attach(tokens);
        let out = out.to_string();
        assert!(used);
        // `default` is `polish`'s to add, for every decoder alike.
        assert!(
            out.contains("# [serde (deserialize_with = \"wide::option\")] pub a"),
            "{out}"
        );
        assert!(
            out.contains("# [serde (deserialize_with = \"wide::one\")] pub b"),
            "{out}"
        );
        assert!(
            out.contains("# [serde (deserialize_with = \"wide::option\")] pub c"),
            "{out}"
        );
        assert!(out.contains("pub d : i64"), "{out}");
        assert!(
            out.contains(
                "# [serde (flatten)] # [serde (deserialize_with = \"wide::map\")] pub extra"
            ),
            "{out}"
        );
        assert!(
            out.contains("# [serde (deserialize_with = \"wide::one\")] Integer (i128)"),
            "{out}"
        );
        assert!(
            out.contains("# [serde (deserialize_with = \"wide::one\")] x : u128"),
            "{out}"
        );
        assert!(out.contains("S { b : 1 , d : 2 }"), "{out}");
    }
}
