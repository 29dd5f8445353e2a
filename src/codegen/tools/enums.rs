//! String enums whose values typify cannot name well.
//!
//! typify names a variant after its value with punctuation dropped, so
//! `"reactions-+1"` and `"reactions--1"` (both in github.json) would both
//! be `Reactions1`, and typify panics; a 100,000-character value would be
//! a 100,000-character variant, and a non-ASCII one a non-ASCII variant.
//! Such an enum (or string `const`) is hoisted out of its schema into a
//! definition that typify is told to treat as an existing type
//! (`with_replacement`), and mcpgen writes the enum itself, naming signs
//! (`+` → `Plus`, a `-` before a digit → `Minus`), bounding names with
//! [`naming::bounded`] and making them unique with [`Scope`]. Serde
//! renames keep the wire values.

use std::collections::BTreeSet;

use proc_macro2::{Span, TokenStream};
use quote::quote;
use serde_json::{json, Value};

use crate::naming::{self, pascal, words, Scope};

/// An enum mcpgen writes itself.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct OwnEnum {
    /// Type name.
    pub name: String,
    /// Wire values, in schema order.
    pub values: Vec<String>,
    /// Doc text.
    pub description: Option<String>,
}

/// Replaces every string enum of `schema` whose variants typify would name
/// alike by a `$ref` to a definition named after its place (`context` +
/// property names); returns the enums to write. `scope` keeps names unique.
pub(crate) fn hoist(schema: &mut Value, context: &str, scope: &mut Scope, out: &mut Vec<OwnEnum>) {
    let Some(obj) = schema.as_object_mut() else {
        return;
    };
    if let Some(values) = own_string_enum(obj) {
        let name = scope.unique(context);
        let description = obj
            .get("description")
            .and_then(Value::as_str)
            .map(str::to_owned);
        let mut replacement = json!({ "$ref": format!("#/definitions/{name}") });
        if let Some(d) = &description {
            replacement["description"] = Value::String(d.clone());
        }
        *schema = replacement;
        out.push(OwnEnum {
            name,
            values,
            description,
        });
        return;
    }
    for (key, child) in obj.iter_mut() {
        match key.as_str() {
            "properties" => {
                if let Some(props) = child.as_object_mut() {
                    for (prop, s) in props.iter_mut() {
                        hoist(
                            s,
                            &format!("{context}{}", naming::type_part(prop)),
                            scope,
                            out,
                        );
                    }
                }
            }
            "items" | "additionalProperties" => {
                hoist(child, &format!("{context}{}", pascal(key)), scope, out)
            }
            "anyOf" | "oneOf" | "allOf" => {
                if let Some(list) = child.as_array_mut() {
                    for s in list {
                        hoist(s, context, scope, out);
                    }
                }
            }
            _ => {}
        }
    }
}

/// The values of a string enum (or string `const`) that mcpgen writes
/// itself: typify's variant names would collide, be longer than
/// [`naming::MAX_NAME`], or not be ASCII.
fn own_string_enum(obj: &serde_json::Map<String, Value>) -> Option<Vec<String>> {
    if obj.get("type").is_some_and(|t| t != "string") {
        return None;
    }
    let values = match (obj.get("enum"), obj.get("const")) {
        (Some(Value::Array(values)), _) => values.clone(),
        (None, Some(c @ Value::String(_))) => vec![c.clone()],
        _ => return None,
    };
    let values: Vec<String> = values
        .iter()
        .map(|v| v.as_str().map(str::to_owned))
        .collect::<Option<_>>()?;
    let mut seen = BTreeSet::new();
    let collide = values
        .iter()
        .any(|v| !seen.insert(words(&v.replace('\'', "")).concat()));
    let unwieldy = values
        .iter()
        .any(|v| v.len() > naming::MAX_NAME || !v.is_ascii());
    (collide || unwieldy).then_some(values)
}

/// A variant name for a wire value: signs become words.
pub(crate) fn variant_name(value: &str) -> String {
    let chars: Vec<char> = value.chars().collect();
    let mut spelled = String::new();
    for (i, &c) in chars.iter().enumerate() {
        let next_digit = chars.get(i + 1).is_some_and(char::is_ascii_digit);
        let prev_alnum = i > 0 && chars[i - 1].is_alphanumeric();
        match c {
            '+' => spelled.push_str(" plus "),
            '-' if next_digit && !prev_alnum => spelled.push_str(" minus "),
            '\'' => {}
            c => spelled.push(c),
        }
    }
    pascal(&spelled)
}

/// The Rust enum for one [`OwnEnum`], in typify's style (derives,
/// `Display`, `FromStr`).
pub(crate) fn tokens(e: &OwnEnum) -> TokenStream {
    let name = proc_macro2::Ident::new(&e.name, Span::call_site());
    let mut scope = Scope::new();
    let idents: Vec<proc_macro2::Ident> = e
        .values
        .iter()
        .map(|v| {
            let name = naming::bounded(&variant_name(v), naming::MAX_NAME, v);
            proc_macro2::Ident::new(&scope.unique(&name), Span::call_site())
        })
        .collect();
    let values = &e.values;
    let doc = e
        .description
        .clone()
        .unwrap_or_else(|| format!("`{}`", e.name));
    quote! {
        #[doc = #doc]
        #[derive(::serde::Deserialize, ::serde::Serialize, Clone, Copy, Debug, Eq, Hash, Ord, PartialEq, PartialOrd)]
        pub enum #name {
            #( #[serde(rename = #values)] #idents, )*
        }
        impl ::std::fmt::Display for #name {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                match *self {
                    #( Self::#idents => f.write_str(#values), )*
                }
            }
        }
        impl ::std::str::FromStr for #name {
            type Err = self::error::ConversionError;
            fn from_str(value: &str) -> ::std::result::Result<Self, self::error::ConversionError> {
                match value {
                    #( #values => Ok(Self::#idents), )*
                    _ => Err("invalid value".into()),
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_signs_and_keeps_names_unique() {
        assert_eq!(variant_name("reactions-+1"), "ReactionsPlus1");
        assert_eq!(variant_name("reactions--1"), "ReactionsMinus1");
        assert_eq!(variant_name("-1"), "Minus1");
        assert_eq!(variant_name("won't fix"), "WontFix");
        assert_eq!(variant_name("a-1"), "A1");
    }

    #[test]
    fn hoists_only_colliding_enums() {
        let mut schema = json!({"type": "object", "properties": {
            "sort": {"type": "string", "description": "Sort.", "enum": ["reactions-+1", "reactions--1", "created"]},
            "fine": {"type": "string", "enum": ["a b", "c"]},
            "list": {"type": "array", "items": {"enum": ["x y", "x-y"]}}
        }});
        let mut scope = Scope::new();
        let mut out = Vec::new();
        hoist(&mut schema, "FooInput", &mut scope, &mut out);
        let names: Vec<&str> = out.iter().map(|e| e.name.as_str()).collect();
        assert_eq!(names, ["FooInputSort", "FooInputListItems"]);
        assert_eq!(
            schema["properties"]["sort"],
            json!({"$ref": "#/definitions/FooInputSort", "description": "Sort."})
        );
        assert_eq!(schema["properties"]["fine"]["enum"], json!(["a b", "c"]));
        let code = tokens(&out[1]).to_string();
        assert!(
            code.contains("# [serde (rename = \"x y\")] XY , # [serde (rename = \"x-y\")] XY2"),
            "{code}"
        );
    }

    #[test]
    fn hoists_long_and_non_ascii_values_with_bounded_variants() {
        let long = "Aaaa".repeat(10_000);
        let mut schema = json!({"type": "object", "properties": {
            "long": {"type": "string", "enum": [long.clone(), "b"]},
            "one": {"const": long.clone()},
            "cafe": {"enum": ["café", "cafe"]}
        }});
        let mut scope = Scope::new();
        let mut out = Vec::new();
        hoist(&mut schema, "FooInput", &mut scope, &mut out);
        let names: Vec<&str> = out.iter().map(|e| e.name.as_str()).collect();
        assert_eq!(names, ["FooInputLong", "FooInputOne", "FooInputCafe"]);
        let code = tokens(&out[0]).to_string();
        let variant = code
            .split("# [serde (rename = ")
            .nth(1)
            .unwrap()
            .split(", ")
            .next()
            .unwrap();
        assert!(
            variant.len() < long.len() + naming::MAX_NAME + 8,
            "the wire value is kept"
        );
        assert!(code.lines().all(|_| true));
        assert!(
            !code.contains(&format!("{long} ,")),
            "no unbounded identifier"
        );
        let cafe = tokens(&out[2]).to_string();
        assert!(
            cafe.contains("# [serde (rename = \"café\")] Caf ,"),
            "{cafe}"
        );
    }
}
