//! OpenAPI parameter styles (RFC 6570 expansions) from JSON values: the
//! text of a path segment (`simple`, `label`, `matrix`), the `name=value`
//! pieces of a query string or form body (`form`, `spaceDelimited`,
//! `pipeDelimited`, `deepObject`), header values (`simple`, not
//! percent-encoded) and cookie pieces (`form`).
//!
//! Values: a string is written as it is; numbers, booleans and `null` as
//! their JSON text (`3`, `true`, an empty string for `null`); an array or
//! object nested inside the one being expanded as its JSON text, except in
//! `deepObject`, which nests: `a[b][c]=v`, and arrays by index,
//! `a[b][0]=v` (the way Stripe's API reads forms). Delimiters the style
//! adds (`,` `.` `;` `=` `[` `]`) are literal; `spaceDelimited` and
//! `pipeDelimited` join with `%20` and `%7C`. An empty array or object
//! is not sent at all.

use serde_json::Value;

use super::binding::Style;
use super::pct::encode;

/// A value seen as RFC 6570 sees it.
enum Shape {
    Scalar(String),
    List(Vec<String>),
    Map(Vec<(String, String)>),
}

/// The text of a scalar (or of a nested array or object: its JSON).
pub(crate) fn scalar_text(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

fn shape(value: &Value) -> Shape {
    match value {
        Value::Array(items) => Shape::List(items.iter().map(scalar_text).collect()),
        Value::Object(members) => Shape::Map(
            members
                .iter()
                .map(|(k, v)| (k.clone(), scalar_text(v)))
                .collect(),
        ),
        other => Shape::Scalar(scalar_text(other)),
    }
}

/// The expansion of a path parameter (`{name}` in the path template):
/// `simple` (`5`, `3,4,5`, `role,admin` / `role=admin`), `label` (`.5`,
/// `.3.4.5`) or `matrix` (`;id=5`, `;id=3;id=4`). Other styles are
/// written as `simple`.
pub(crate) fn path(style: Style, explode: bool, name: &str, value: &Value) -> String {
    let enc = |s: &str| encode(s, false);
    let name = enc(name);
    match (style, shape(value)) {
        (Style::Label, Shape::Scalar(s)) => format!(".{}", enc(&s)),
        (Style::Matrix, Shape::Scalar(s)) if s.is_empty() => format!(";{name}"),
        (Style::Matrix, Shape::Scalar(s)) => format!(";{name}={}", enc(&s)),
        (_, Shape::Scalar(s)) => enc(&s),
        (_, Shape::List(items)) if items.is_empty() => String::new(),
        (_, Shape::Map(members)) if members.is_empty() => String::new(),
        (Style::Label, Shape::List(items)) => {
            let sep = if explode { "." } else { "," };
            format!(".{}", join(items.iter().map(|s| enc(s)), sep))
        }
        (Style::Matrix, Shape::List(items)) if explode => {
            join(items.iter().map(|s| format!(";{name}={}", enc(s))), "")
        }
        (Style::Matrix, Shape::List(items)) => {
            format!(";{name}={}", join(items.iter().map(|s| enc(s)), ","))
        }
        (_, Shape::List(items)) => join(items.iter().map(|s| enc(s)), ","),
        (Style::Label, Shape::Map(members)) => {
            format!(
                ".{}",
                pairs(&members, explode, if explode { "." } else { "," }, false)
            )
        }
        (Style::Matrix, Shape::Map(members)) if explode => {
            format!(";{}", pairs(&members, true, ";", false))
        }
        (Style::Matrix, Shape::Map(members)) => {
            format!(";{name}={}", pairs(&members, false, ",", false))
        }
        (_, Shape::Map(members)) => pairs(&members, explode, ",", false),
    }
}

/// The `name=value` pieces of a query parameter or form member, each
/// already encoded, to be joined with `&`.
pub(crate) fn query(
    style: Style,
    explode: bool,
    allow_reserved: bool,
    name: &str,
    value: &Value,
) -> Vec<String> {
    let enc = |s: &str| encode(s, allow_reserved);
    if style == Style::DeepObject {
        let mut out = Vec::new();
        deep(&encode(name, false), value, allow_reserved, &mut out);
        return out;
    }
    let key = encode(name, false);
    let delimiter = match style {
        Style::SpaceDelimited => "%20",
        Style::PipeDelimited => "%7C",
        _ => ",",
    };
    match shape(value) {
        Shape::Scalar(s) => vec![format!("{key}={}", enc(&s))],
        Shape::List(items) if items.is_empty() => Vec::new(),
        Shape::Map(members) if members.is_empty() => Vec::new(),
        Shape::List(items) if explode => {
            items.iter().map(|s| format!("{key}={}", enc(s))).collect()
        }
        Shape::List(items) => vec![format!(
            "{key}={}",
            join(items.iter().map(|s| enc(s)), delimiter)
        )],
        Shape::Map(members) if explode => members
            .iter()
            .map(|(k, v)| format!("{}={}", encode(k, false), enc(v)))
            .collect(),
        Shape::Map(members) => vec![format!(
            "{key}={}",
            join(
                members.iter().flat_map(|(k, v)| [encode(k, false), enc(v)]),
                delimiter
            )
        )],
    }
}

/// `deepObject`: `prefix[key]=v` for each member, nested objects as
/// further `[key]`s and arrays by index.
fn deep(prefix: &str, value: &Value, allow_reserved: bool, out: &mut Vec<String>) {
    match value {
        Value::Object(members) => {
            for (k, v) in members {
                deep(
                    &format!("{prefix}[{}]", encode(k, false)),
                    v,
                    allow_reserved,
                    out,
                );
            }
        }
        Value::Array(items) => {
            for (i, v) in items.iter().enumerate() {
                deep(&format!("{prefix}[{i}]"), v, allow_reserved, out);
            }
        }
        scalar => out.push(format!(
            "{prefix}={}",
            encode(&scalar_text(scalar), allow_reserved)
        )),
    }
}

/// A header's value (`simple` style, not percent-encoded).
pub(crate) fn header(explode: bool, value: &Value) -> String {
    match shape(value) {
        Shape::Scalar(s) => s,
        Shape::List(items) => items.join(","),
        Shape::Map(members) => members
            .iter()
            .map(|(k, v)| {
                if explode {
                    format!("{k}={v}")
                } else {
                    format!("{k},{v}")
                }
            })
            .collect::<Vec<_>>()
            .join(","),
    }
}

/// `k=v` (exploded) or `k,v` pairs joined by `sep`, encoded.
fn pairs(members: &[(String, String)], explode: bool, sep: &str, allow_reserved: bool) -> String {
    join(
        members.iter().map(|(k, v)| {
            let (k, v) = (encode(k, false), encode(v, allow_reserved));
            if explode {
                format!("{k}={v}")
            } else {
                format!("{k},{v}")
            }
        }),
        sep,
    )
}

fn join(items: impl Iterator<Item = String>, sep: &str) -> String {
    items.collect::<Vec<_>>().join(sep)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    // The OpenAPI 3.1 style table: `color` as the string "blue", the
    // array ["blue","black","brown"] and the object {R:100,G:200,B:150}.
    fn values() -> (Value, Value, Value) {
        (
            json!("blue"),
            json!(["blue", "black", "brown"]),
            json!({"R": 100, "G": 200, "B": 150}),
        )
    }

    #[test]
    fn path_styles_follow_the_openapi_table() {
        let (s, a, o) = values();
        let p = |style, explode, v: &Value| path(style, explode, "color", v);
        assert_eq!(p(Style::Simple, false, &s), "blue");
        assert_eq!(p(Style::Simple, false, &a), "blue,black,brown");
        assert_eq!(p(Style::Simple, false, &o), "R,100,G,200,B,150");
        assert_eq!(p(Style::Simple, true, &a), "blue,black,brown");
        assert_eq!(p(Style::Simple, true, &o), "R=100,G=200,B=150");
        assert_eq!(p(Style::Label, false, &s), ".blue");
        assert_eq!(p(Style::Label, false, &a), ".blue,black,brown");
        assert_eq!(p(Style::Label, false, &o), ".R,100,G,200,B,150");
        assert_eq!(p(Style::Label, true, &a), ".blue.black.brown");
        assert_eq!(p(Style::Label, true, &o), ".R=100.G=200.B=150");
        assert_eq!(p(Style::Matrix, false, &s), ";color=blue");
        assert_eq!(p(Style::Matrix, false, &a), ";color=blue,black,brown");
        assert_eq!(p(Style::Matrix, false, &o), ";color=R,100,G,200,B,150");
        assert_eq!(
            p(Style::Matrix, true, &a),
            ";color=blue;color=black;color=brown"
        );
        assert_eq!(p(Style::Matrix, true, &o), ";R=100;G=200;B=150");
        // Empty values (RFC 6570 §3.2.7: `;name` for an empty string).
        assert_eq!(p(Style::Matrix, false, &json!("")), ";color");
        assert_eq!(p(Style::Label, false, &json!("")), ".");
        assert_eq!(p(Style::Simple, false, &json!([])), "");
    }

    #[test]
    fn path_values_encode_reserved_characters() {
        assert_eq!(
            path(Style::Simple, false, "id", &json!("a/b c?d#e")),
            "a%2Fb%20c%3Fd%23e"
        );
        assert_eq!(path(Style::Simple, false, "id", &json!(3)), "3");
        assert_eq!(path(Style::Simple, false, "id", &json!(true)), "true");
        assert_eq!(
            path(Style::Simple, false, "id", &json!(["a,b", "ü"])),
            "a%2Cb,%C3%BC"
        );
    }

    #[test]
    fn query_styles_follow_the_openapi_table() {
        let (s, a, o) = values();
        let q = |style, explode, v: &Value| query(style, explode, false, "color", v).join("&");
        assert_eq!(q(Style::Form, true, &s), "color=blue");
        assert_eq!(
            q(Style::Form, true, &a),
            "color=blue&color=black&color=brown"
        );
        assert_eq!(q(Style::Form, true, &o), "R=100&G=200&B=150");
        assert_eq!(q(Style::Form, false, &a), "color=blue,black,brown");
        assert_eq!(q(Style::Form, false, &o), "color=R,100,G,200,B,150");
        assert_eq!(
            q(Style::SpaceDelimited, false, &a),
            "color=blue%20black%20brown"
        );
        assert_eq!(
            q(Style::SpaceDelimited, false, &o),
            "color=R%20100%20G%20200%20B%20150"
        );
        assert_eq!(
            q(Style::PipeDelimited, false, &a),
            "color=blue%7Cblack%7Cbrown"
        );
        assert_eq!(
            q(Style::PipeDelimited, true, &a),
            "color=blue&color=black&color=brown"
        );
        assert_eq!(
            q(Style::DeepObject, true, &o),
            "color[R]=100&color[G]=200&color[B]=150"
        );
        assert_eq!(q(Style::Form, true, &json!([])), "");
        assert_eq!(q(Style::Form, true, &json!(null)), "color=");
    }

    #[test]
    fn deep_objects_nest_and_index_arrays() {
        let v = json!({"a": {"b": {"c": "v w"}}, "list": [1, {"x": true}], "n": null});
        assert_eq!(
            query(Style::DeepObject, true, false, "p", &v),
            [
                "p[a][b][c]=v%20w",
                "p[list][0]=1",
                "p[list][1][x]=true",
                "p[n]="
            ]
        );
    }

    #[test]
    fn allow_reserved_keeps_reserved_characters_in_values_only() {
        assert_eq!(
            query(Style::Form, true, true, "q r", &json!("a/b:c?d&e")),
            ["q%20r=a/b:c?d%26e"]
        );
        assert_eq!(
            query(Style::Form, true, false, "q", &json!("a/b")),
            ["q=a%2Fb"]
        );
    }

    #[test]
    fn headers_are_simple_and_unencoded() {
        let (s, a, o) = values();
        assert_eq!(header(false, &s), "blue");
        assert_eq!(header(false, &a), "blue,black,brown");
        assert_eq!(header(false, &o), "R,100,G,200,B,150");
        assert_eq!(header(true, &o), "R=100,G=200,B=150");
        assert_eq!(header(false, &json!("a b/c")), "a b/c");
    }
}
