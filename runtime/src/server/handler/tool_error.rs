//! [`ToolError`]: the failure a tool handler reports, answered as a tool
//! result with `isError: true` (or, for missing client capabilities, as the
//! protocol error `-32021`). A leaf module: the context and the dispatch
//! seam both use it.

use serde_json::Value;

/// A failure a tool handler reports. It is answered as a tool result with
/// `isError: true` and the message as text, so the model can read it.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolError {
    message: String,
    required_capabilities: Option<Value>,
}

impl ToolError {
    /// A tool error with this message.
    pub fn new(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
            required_capabilities: None,
        }
    }

    /// The call needs client capabilities the caller did not declare
    /// (`{"sampling": {}}`): answered with the protocol error `-32021`
    /// (MissingRequiredClientCapability) instead of a tool result.
    pub fn missing_capabilities(required: Value) -> Self {
        let names: Vec<&str> = required
            .as_object()
            .map(|o| o.keys().map(String::as_str).collect())
            .unwrap_or_default();
        Self {
            message: format!(
                "the client did not declare the capabilities this tool needs: {}",
                names.join(", ")
            ),
            required_capabilities: Some(required),
        }
    }

    /// The missing capabilities, for an error made by
    /// [`ToolError::missing_capabilities`].
    pub fn required_capabilities(&self) -> Option<&Value> {
        self.required_capabilities.as_ref()
    }

    /// The message sent to the caller.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl std::fmt::Display for ToolError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for ToolError {}

impl From<String> for ToolError {
    fn from(message: String) -> Self {
        Self::new(message)
    }
}

impl From<&str> for ToolError {
    fn from(message: &str) -> Self {
        Self::new(message)
    }
}

impl From<std::io::Error> for ToolError {
    fn from(err: std::io::Error) -> Self {
        Self::new(err.to_string())
    }
}

impl From<serde_json::Error> for ToolError {
    fn from(err: serde_json::Error) -> Self {
        Self::new(err.to_string())
    }
}
