//! A tool call's arguments made into the request its binding describes:
//! the path template expanded (`{name}` by each path parameter's style,
//! percent-encoded), query parameters appended in binding order, header
//! parameters (`simple`), cookie parameters (`form`) gathered for one
//! `Cookie` header, and the body (`body.rs`). A parameter declared with
//! `content` (`contentType`) is its value's JSON text written as one
//! string. An argument absent from the call is not sent; an absent path
//! parameter is an error.

use http::header::{HeaderName, HeaderValue, CONTENT_TYPE};
use http::{HeaderMap, Method};
use serde_json::Value;
use url::Url;

use super::binding::{HttpBinding, Location, Parameter};
use super::body;
use super::net::Outgoing;
use super::style;

/// The request of `binding` for `arguments`, against `base` (the server
/// URL the operation's path is appended to); `Err` says which argument is
/// wrong.
pub(crate) fn build(
    binding: &HttpBinding,
    base: &str,
    arguments: &Value,
) -> Result<Outgoing, String> {
    let empty = serde_json::Map::new();
    let args = match arguments {
        Value::Object(members) => members,
        Value::Null => &empty,
        _ => return Err("the arguments must be an object".into()),
    };
    let method = Method::from_bytes(binding.method.to_ascii_uppercase().as_bytes())
        .map_err(|_| format!("{:?} is not an HTTP method", binding.method))?;
    let value_of = |p: &Parameter| -> Option<Value> {
        let v = args.get(&p.argument)?;
        Some(match &p.content_type {
            Some(_) => Value::String(v.to_string()),
            None => v.clone(),
        })
    };
    let path = expand_path(binding, &value_of)?;
    let mut url = Url::parse(&format!("{}{path}", base.trim_end_matches('/')))
        .map_err(|e| format!("the request URL is not valid: {e}"))?;
    let mut query: Vec<String> = url.query().map(str::to_owned).into_iter().collect();
    let mut headers = HeaderMap::new();
    let mut cookies = Vec::new();
    for p in &binding.parameters {
        let Some(value) = value_of(p) else { continue };
        match p.location {
            Location::Path => {}
            Location::Query => query.extend(style::query(
                p.style,
                p.explode,
                p.allow_reserved,
                &p.name,
                &value,
            )),
            Location::Header => {
                let name = HeaderName::from_bytes(p.name.as_bytes())
                    .map_err(|_| format!("{:?} is not a header name", p.name))?;
                let text = style::header(p.explode, &value);
                let value = HeaderValue::from_str(&text).map_err(|_| {
                    format!(
                        "the argument {:?} holds characters a header cannot (line breaks, control characters)",
                        p.argument
                    )
                })?;
                headers.append(name, value);
            }
            Location::Cookie => {
                cookies.extend(style::query(p.style, p.explode, false, &p.name, &value))
            }
        }
    }
    url.set_query(None);
    if !query.is_empty() {
        url.set_query(Some(&query.join("&")));
    }
    let mut body_bytes = None;
    if let Some(b) = &binding.body {
        if let Some(value) = args.get(&b.argument) {
            let encoded = body::encode(b, value)?;
            headers.insert(
                CONTENT_TYPE,
                HeaderValue::from_str(&encoded.content_type)
                    .map_err(|_| format!("{:?} is not a media type", encoded.content_type))?,
            );
            body_bytes = Some(encoded.bytes.into());
        }
    }
    Ok(Outgoing {
        method,
        url,
        headers,
        cookies,
        body: body_bytes,
    })
}

/// The path template with each `{name}` replaced by its parameter's value.
fn expand_path(
    binding: &HttpBinding,
    value_of: &dyn Fn(&Parameter) -> Option<Value>,
) -> Result<String, String> {
    let mut out = String::new();
    let mut rest = binding.path.as_str();
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let close = rest[open..]
            .find('}')
            .map(|c| open + c)
            .ok_or_else(|| format!("the path template {:?} has an unclosed '{{'", binding.path))?;
        let name = &rest[open + 1..close];
        let parameter = binding
            .parameters
            .iter()
            .find(|p| p.location == Location::Path && p.name == name)
            .ok_or_else(|| format!("no path parameter {name:?} in the binding"))?;
        let value = value_of(parameter).ok_or_else(|| {
            format!(
                "the argument {:?} is required (it is part of the path)",
                parameter.argument
            )
        })?;
        let segment = style::path(parameter.style, parameter.explode, &parameter.name, &value);
        // `.` and `..` would move the request elsewhere once the URL is
        // normalised (`%2E` too, as URL parsers read it).
        if matches!(
            segment.to_ascii_lowercase().as_str(),
            "." | ".." | "%2e" | "%2e%2e" | ".%2e" | "%2e."
        ) {
            return Err(format!(
                "the argument {:?} cannot be {segment:?}: it would change the path",
                parameter.argument
            ));
        }
        out.push_str(&segment);
        rest = &rest[close + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn binding(value: Value) -> HttpBinding {
        serde_json::from_value(value).unwrap()
    }

    #[test]
    fn arguments_go_where_the_binding_says() {
        let b = binding(json!({
            "operationId": "x", "method": "get", "path": "/items/{id}{v}/{tags}",
            "parameters": [
                {"argument": "id", "name": "id", "in": "path", "style": "simple", "explode": false},
                {"argument": "v", "name": "v", "in": "path", "style": "matrix", "explode": false},
                {"argument": "tags", "name": "tags", "in": "path", "style": "label", "explode": true},
                {"argument": "q", "name": "q", "in": "query", "style": "form", "explode": true},
                {"argument": "filter", "name": "filter", "in": "query", "style": "form", "explode": true, "contentType": "application/json"},
                {"argument": "absent", "name": "absent", "in": "query", "style": "form", "explode": true},
                {"argument": "trace", "name": "X-Trace", "in": "header", "style": "simple", "explode": false},
                {"argument": "session", "name": "session", "in": "cookie", "style": "form", "explode": true}
            ]
        }));
        let out = build(
            &b,
            "http://api.test/v1/",
            &json!({"id": "a/b", "v": 2, "tags": ["x", "y"], "q": "hi there", "filter": {"a": 1},
                    "trace": ["t1", "t2"], "session": "s 1"}),
        )
        .unwrap();
        assert_eq!(out.method, Method::GET);
        assert_eq!(
            out.url.as_str(),
            "http://api.test/v1/items/a%2Fb;v=2/{tags}".replace("{tags}", ".x.y")
                + "?q=hi%20there&filter=%7B%22a%22%3A1%7D"
        );
        assert_eq!(out.headers["x-trace"], "t1,t2");
        assert_eq!(out.cookies, ["session=s%201"]);
        assert!(out.body.is_none());
        assert!(build(&b, "http://api.test", &json!({"id": "..", "v": 1}))
            .unwrap_err()
            .contains("change the path"));
        assert!(build(&b, "http://api.test", &json!({"v": 1, "tags": []}))
            .unwrap_err()
            .contains("\"id\""));
    }
}
