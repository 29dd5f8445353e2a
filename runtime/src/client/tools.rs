//! Tool calls on the raw JSON level: `tools/call` with its error mapping and
//! `tools/list` followed through every page.
//!
//! Paging is bounded whatever the server does: at most
//! [`ClientOptions::max_list_pages`](super::ClientOptions::max_list_pages)
//! pages, [`max_listed_tools`](super::ClientOptions::max_listed_tools)
//! tools and [`max_message_bytes`](super::ClientOptions::max_message_bytes)
//! of tools and cursors in all, and a cursor seen before ends it too.

use serde_json::{json, Value};

use crate::jsonrpc::json_len;
use crate::revision::method::Method;

use super::engine::Shared;
use super::error::ClientError;
use super::options::CallOptions;

/// `tools/call` ([`Client::call_tool`](super::Client::call_tool)): the
/// `CallToolResult`, or the tool's error as [`ClientError::Tool`].
pub(super) async fn call_tool(
    shared: &Shared,
    name: &str,
    arguments: Value,
    options: &CallOptions,
) -> Result<Value, ClientError> {
    let params = json!({ "name": name, "arguments": arguments });
    let mut result = shared
        .request(Method::ToolsCall.name(), Some(params), options)
        .await?;
    let Some(obj) = result.as_object_mut() else {
        return Err(ClientError::InvalidOutput {
            tool: name.to_owned(),
            problems: vec![super::SchemaProblem {
                pointer: String::new(),
                message: format!("a tools/call result must be an object, got {result}"),
            }],
        });
    };
    if obj.get("resultType").and_then(Value::as_str) == Some("input_required") {
        return Err(ClientError::unexpected(format!(
            "tool `{name}` asked the client for more input (resultType \"input_required\"), \
             which this client does not support"
        )));
    }
    if obj.get("isError").and_then(Value::as_bool) == Some(true) {
        return Err(ClientError::from_tool_result(name, obj));
    }
    Ok(result)
}

/// Every item of a paginated list, following `nextCursor` within the
/// bounds of the module docs ([`Client::list_all`](super::Client::list_all)).
pub(super) async fn list_all(
    shared: &Shared,
    method: &str,
    key: &str,
    options: &CallOptions,
) -> Result<Vec<Value>, ClientError> {
    let limits = &shared.options;
    let (max_pages, max_tools, max_bytes) = (
        limits.max_list_pages,
        limits.max_listed_tools,
        limits.max_message_bytes,
    );
    let mut tools = Vec::new();
    let mut cursor: Option<String> = None;
    let mut seen = std::collections::HashSet::new();
    let mut bytes = 0usize;
    for page_number in 1..=max_pages {
        let params = match &cursor {
            Some(c) => json!({ "cursor": c }),
            None => json!({}),
        };
        let mut page = shared.request(method, Some(params), options).await?;
        match page.get_mut(key).map(Value::take) {
            Some(Value::Array(items)) => {
                bytes = bytes.saturating_add(items.iter().map(json_len).sum());
                tools.extend(items);
            }
            _ => {
                return Err(ClientError::unexpected(format!(
                    "the server's {method} result has no `{key}` array (page {page_number})"
                )))
            }
        }
        let stop = |what: String| {
            ClientError::unexpected(format!(
                "{method} stopped after {page_number} page(s): {what}"
            ))
        };
        let next = page
            .get("nextCursor")
            .and_then(Value::as_str)
            .filter(|next| !next.is_empty());
        bytes = bytes.saturating_add(next.map_or(0, str::len));
        if tools.len() > max_tools {
            return Err(stop(format!(
                "the server listed more than {max_tools} {key} (ClientOptions::max_listed_tools)"
            )));
        }
        if bytes > max_bytes {
            return Err(stop(format!(
                "the {key} and cursors listed are longer than {max_bytes} bytes in all ({}, \
                 ClientOptions::max_message_bytes)",
                crate::jsonrpc::human_size(max_bytes)
            )));
        }
        let Some(next) = next else { return Ok(tools) };
        if !seen.insert(next.to_owned()) {
            return Err(stop(format!(
                "the server repeated the cursor {:?}, which would loop forever",
                truncated(next)
            )));
        }
        cursor = Some(next.to_owned());
    }
    Err(ClientError::unexpected(format!(
        "{method} did not end after {max_pages} pages (ClientOptions::max_list_pages); the server keeps \
         sending a nextCursor"
    )))
}

/// At most 100 characters of a cursor, for messages.
fn truncated(text: &str) -> String {
    match text.char_indices().nth(100) {
        Some((end, _)) => format!("{}…", &text[..end]),
        None => text.to_owned(),
    }
}
