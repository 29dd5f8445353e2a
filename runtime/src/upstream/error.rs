//! [`UpstreamError`]: why the upstream client could not start (a binding
//! that does not parse, no usable base URL, missing credentials), with the
//! environment variables that would fix it. Never holds a credential.

use std::fmt;

/// Why [`Upstream::from_env`](super::Upstream::from_env) or
/// [`UpstreamBuilder::build`](super::UpstreamBuilder::build) failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UpstreamError {
    message: String,
    variables: Vec<String>,
}

impl UpstreamError {
    pub(crate) fn new(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
            variables: Vec::new(),
        }
    }

    pub(crate) fn with_variables(mut self, variables: Vec<String>) -> Self {
        self.variables = variables;
        self
    }

    /// What is wrong, and what to set.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The environment variables that would fix it (`MCP_UPSTREAM_URL`,
    /// `MCP_UPSTREAM_AUTH_…`), in the order the message names them.
    pub fn variables(&self) -> &[String] {
        &self.variables
    }
}

impl fmt::Display for UpstreamError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for UpstreamError {}
