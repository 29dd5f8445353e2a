//! Server URLs of an operation: its own `servers`, else its path item's,
//! else the document's (OpenAPI 3), each with its variables' defaults;
//! Swagger 2.0: one URL per scheme from `schemes` (the operation's, else
//! the document's, else `https`), `host` and `basePath`, or `basePath`
//! alone (relative) when there is no host. Relative URLs are kept as they
//! are (they need `MCP_UPSTREAM_URL`).

use std::collections::BTreeMap;

use mcpgen_runtime::upstream::{ServerUrl, ServerVariable};
use serde_json::Value;

use super::document::Version;

/// The server URLs an operation is called at.
pub(crate) fn servers(
    root: &Value,
    path_item: &Value,
    op: &Value,
    version: Version,
) -> Vec<ServerUrl> {
    if version == Version::Swagger2 {
        return swagger(root, op);
    }
    let list = [op, path_item, root].into_iter().find_map(|v| {
        v.get("servers")
            .and_then(Value::as_array)
            .filter(|l| !l.is_empty())
    });
    let Some(list) = list else { return Vec::new() };
    list.iter()
        .filter_map(|s| {
            let url = s.get("url")?.as_str()?.to_owned();
            let mut variables = BTreeMap::new();
            if let Some(Value::Object(vars)) = s.get("variables") {
                for (name, v) in vars {
                    let default = match v.get("default") {
                        Some(Value::String(d)) => d.clone(),
                        Some(Value::Null) | None => String::new(),
                        Some(other) => other.to_string(),
                    };
                    variables.insert(name.clone(), ServerVariable { default });
                }
            }
            Some(ServerUrl { url, variables })
        })
        .collect()
}

fn swagger(root: &Value, op: &Value) -> Vec<ServerUrl> {
    let base = root.get("basePath").and_then(Value::as_str).unwrap_or("");
    let base = if base == "/" { "" } else { base };
    let Some(host) = root.get("host").and_then(Value::as_str) else {
        if base.is_empty() {
            return Vec::new();
        }
        return vec![ServerUrl {
            url: base.to_owned(),
            variables: BTreeMap::new(),
        }];
    };
    let schemes: Vec<String> = op
        .get("schemes")
        .or_else(|| root.get("schemes"))
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect()
        })
        .filter(|l: &Vec<String>| !l.is_empty())
        .unwrap_or_else(|| vec!["https".to_owned()]);
    schemes
        .into_iter()
        .map(|scheme| ServerUrl {
            url: format!("{scheme}://{host}{base}"),
            variables: BTreeMap::new(),
        })
        .collect()
}
