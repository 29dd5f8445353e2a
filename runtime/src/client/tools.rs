//! Tool calls on the raw JSON level: `tools/call` with its error mapping and
//! `tools/list` followed through every page.

use serde_json::{json, Value};

use super::engine::Client;
use super::error::ClientError;
use super::options::CallOptions;

/// Upper bound on `tools/list` pages, so a server that hands out cursors
/// forever cannot hold a client in a loop.
const MAX_PAGES: usize = 10_000;

impl Client {
    /// Calls a tool and returns its `CallToolResult` as JSON. A result with
    /// `isError: true` becomes [`ClientError::Tool`]; a JSON-RPC error
    /// becomes [`ClientError::Protocol`].
    pub async fn call_tool(&self, name: &str, arguments: Value, options: &CallOptions) -> Result<Value, ClientError> {
        let params = json!({ "name": name, "arguments": arguments });
        let mut result = self.request("tools/call", Some(params), options).await?;
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
            let content = match obj.remove("content") {
                Some(Value::Array(blocks)) => blocks,
                _ => Vec::new(),
            };
            return Err(ClientError::Tool {
                tool: name.to_owned(),
                content,
                structured_content: obj.remove("structuredContent").map(Box::new),
            });
        }
        Ok(result)
    }

    /// Every tool of the server, in the server's order, following
    /// `nextCursor` until the last page.
    pub async fn list_all_tools(&self) -> Result<Vec<Value>, ClientError> {
        self.list_all_tools_with(&CallOptions::new()).await
    }

    /// [`Client::list_all_tools`] with a timeout per page.
    pub async fn list_all_tools_with(&self, options: &CallOptions) -> Result<Vec<Value>, ClientError> {
        let mut tools = Vec::new();
        let mut cursor: Option<String> = None;
        let mut seen = std::collections::HashSet::new();
        for _ in 0..MAX_PAGES {
            let params = match &cursor {
                Some(c) => json!({ "cursor": c }),
                None => json!({}),
            };
            let mut page = self.request("tools/list", Some(params), options).await?;
            match page.get_mut("tools").map(Value::take) {
                Some(Value::Array(items)) => tools.extend(items),
                _ => {
                    return Err(ClientError::unexpected(format!(
                        "the server's tools/list result has no `tools` array (page {})",
                        seen.len() + 1
                    )))
                }
            }
            match page.get("nextCursor").and_then(Value::as_str) {
                Some(next) if !next.is_empty() => {
                    if !seen.insert(next.to_owned()) {
                        return Err(ClientError::unexpected(format!(
                            "the server repeated the tools/list cursor {next:?}; stopping to avoid a loop"
                        )));
                    }
                    cursor = Some(next.to_owned());
                }
                _ => return Ok(tools),
            }
        }
        Err(ClientError::unexpected(format!("tools/list did not end after {MAX_PAGES} pages")))
    }
}
