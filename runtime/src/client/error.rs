//! The error type of the client engine and of generated clients: what went
//! wrong with a call, and what the caller can do about it.

use std::fmt;
use std::time::Duration;

use serde::de::DeserializeOwned;
use serde_json::Value;

pub use crate::transport::{ConnectError, ConnectErrorKind};

/// One problem found by a JSON Schema validator: where in the value (an RFC
/// 6901 JSON pointer) and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SchemaProblem {
    /// JSON pointer into the validated value ("" is the whole value).
    pub pointer: String,
    /// What is wrong there.
    pub message: String,
}

impl fmt::Display for SchemaProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let at = if self.pointer.is_empty() {
            "/"
        } else {
            self.pointer.as_str()
        };
        write!(f, "at {at}: {}", self.message)
    }
}

/// Why a client call failed.
#[derive(Debug)]
pub enum ClientError {
    /// The server answered with a JSON-RPC error.
    Protocol {
        /// The method that was called.
        method: String,
        /// JSON-RPC error code (e.g. -32602 invalid params).
        code: i64,
        /// The server's message.
        message: String,
        /// The server's `data`, when it sent one (boxed to keep the error small).
        data: Option<Box<Value>>,
    },
    /// The tool ran and reported failure (`isError: true`).
    Tool {
        /// The tool's wire name.
        tool: String,
        /// The result's `content` blocks, as sent.
        content: Vec<Value>,
        /// The result's `structuredContent`, when sent (boxed to keep the error small).
        structured_content: Option<Box<Value>>,
        /// The result's `_meta`, when sent: for a refusal over a rate
        /// limit, the wait ([`ClientError::retry_after`]).
        meta: Option<Box<Value>>,
    },
    /// The input did not match the tool's `inputSchema`; nothing was sent.
    InvalidInput {
        /// The tool's wire name.
        tool: String,
        /// Every problem the validator found.
        problems: Vec<SchemaProblem>,
    },
    /// The server's answer did not match what the tool declares
    /// (`outputSchema`, or the shape of a `tools/call` result).
    InvalidOutput {
        /// The tool's wire name.
        tool: String,
        /// Every problem found.
        problems: Vec<SchemaProblem>,
    },
    /// No answer arrived in time; `notifications/cancelled` was sent.
    Timeout {
        /// The method that was called.
        method: String,
        /// The request id that was cancelled.
        id: i64,
        /// How long the client waited.
        after: Duration,
    },
    /// The connection is gone (the server exited or closed its output).
    Closed {
        /// What happened, with the exit status and stderr when known.
        reason: String,
    },
    /// The server wrote something that is not a JSON-RPC message to the
    /// protocol stream (stdout for a child process).
    Garbage {
        /// The offending text (truncated).
        line: String,
    },
    /// Version negotiation failed.
    Version {
        /// What the client offered.
        offered: String,
        /// What the server answered (or supports).
        server: String,
        /// Every revision the client can speak.
        supported: Vec<String>,
    },
    /// A result or message that does not have the shape the protocol
    /// requires, or a tool the client does not know.
    Unexpected {
        /// What was expected and what came.
        message: String,
    },
    /// A skill file did not match what the skill's entry promised (size,
    /// digest or frontmatter; the Skills extension): its content was
    /// dropped unused.
    Unverified {
        /// The file's URI.
        uri: String,
        /// What did not match.
        reason: String,
    },
    /// Starting the server or another local I/O operation failed.
    Io(std::io::Error),
    /// The network connection to the server could not be made (HTTP
    /// transport): refused, reset, timed out, a certificate not trusted,
    /// a proxy refusing; [`ConnectError::kind`] tells which.
    Connect(ConnectError),
}

impl ClientError {
    /// For [`ClientError::Tool`], its content blocks decoded as `T`
    /// (typically the generated `protocol` content block type).
    pub fn tool_content<T: DeserializeOwned>(&self) -> Option<Result<Vec<T>, serde_json::Error>> {
        match self {
            ClientError::Tool { content, .. } => Some(
                content
                    .iter()
                    .map(|block| serde_json::from_value(block.clone()))
                    .collect(),
            ),
            _ => None,
        }
    }

    /// The text of the `text` content blocks of a tool error, joined by
    /// newlines; `None` for other errors.
    pub fn tool_text(&self) -> Option<String> {
        match self {
            ClientError::Tool { content, .. } => Some(
                content
                    .iter()
                    .filter_map(|b| b.get("text").and_then(Value::as_str))
                    .collect::<Vec<_>>()
                    .join("\n"),
            ),
            _ => None,
        }
    }

    /// For a tool error refusing a call over the tool's rate limit, how
    /// long to wait before a retry can succeed (the result's
    /// `_meta["mcpgen/retryAfterMs"]`, which mcpgen servers send);
    /// `None` for other errors, or when the server said nothing.
    pub fn retry_after(&self) -> Option<Duration> {
        match self {
            ClientError::Tool {
                meta: Some(meta), ..
            } => meta
                .get(crate::revision::meta::RETRY_AFTER_MS)
                .and_then(Value::as_u64)
                .map(Duration::from_millis),
            _ => None,
        }
    }

    /// A `CallToolResult` of `tool` with `isError: true`, as an error: its
    /// content blocks, `structuredContent` and `_meta`.
    pub(crate) fn from_tool_result(
        tool: &str,
        result: &mut serde_json::Map<String, Value>,
    ) -> Self {
        let content = match result.remove("content") {
            Some(Value::Array(blocks)) => blocks,
            _ => Vec::new(),
        };
        ClientError::Tool {
            tool: tool.to_owned(),
            content,
            structured_content: result.remove("structuredContent").map(Box::new),
            meta: result.remove("_meta").map(Box::new),
        }
    }

    pub(crate) fn unexpected(message: impl Into<String>) -> Self {
        ClientError::Unexpected {
            message: message.into(),
        }
    }
}

fn write_problems(f: &mut fmt::Formatter<'_>, problems: &[SchemaProblem]) -> fmt::Result {
    for p in problems {
        write!(f, "\n  - {p}")?;
    }
    Ok(())
}

impl fmt::Display for ClientError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ClientError::Protocol { method, code, message, data } => {
                write!(f, "the server refused `{method}` with JSON-RPC error {code}: {message}")?;
                if let Some(data) = data {
                    write!(f, " (data: {data})")?;
                }
                Ok(())
            }
            ClientError::Tool { tool, content, .. } => {
                write!(f, "tool `{tool}` reported an error")?;
                let text: Vec<&str> =
                    content.iter().filter_map(|b| b.get("text").and_then(Value::as_str)).collect();
                if !text.is_empty() {
                    write!(f, ": {}", text.join(" "))?;
                }
                Ok(())
            }
            ClientError::InvalidInput { tool, problems } => {
                write!(f, "input for tool `{tool}` does not match its inputSchema; nothing was sent")?;
                write_problems(f, problems)
            }
            ClientError::InvalidOutput { tool, problems } => {
                write!(f, "the answer of tool `{tool}` does not match what the tool declares")?;
                write_problems(f, problems)?;
                write!(f, "\n  help: the server and the manifest disagree; run the drift check")
            }
            ClientError::Timeout { method, id, after } => write!(
                f,
                "`{method}` (request {id}) got no answer within {after:?}; \
                 notifications/cancelled was sent\n  help: raise the timeout \
                 (ClientOptions::default_timeout or CallOptions::timeout) if the server is slow"
            ),
            ClientError::Closed { reason } => write!(f, "the connection to the server is closed: {reason}"),
            ClientError::Garbage { line } => write!(
                f,
                "the server sent something that is not a JSON-RPC message: {line:?}\n  \
                 help: over stdio, a server must log to stderr, never stdout; over HTTP, check that \
                 the URL is the MCP endpoint"
            ),
            ClientError::Version { offered, server, supported } => write!(
                f,
                "protocol version mismatch: the client offered {offered}, the server answered {server}; \
                 this client supports {}\n  help: generate the client for a revision the server speaks",
                supported.join(", ")
            ),
            ClientError::Unexpected { message } => f.write_str(message),
            ClientError::Unverified { uri, reason } => write!(
                f,
                "{uri} does not match its skill's entry ({reason}); its content was not used\n  \
                 help: the server changed the skill or something altered it in transit; list \
                 the skills again (skills/get) before loading it"
            ),
            ClientError::Io(e) => write!(f, "{e}"),
            ClientError::Connect(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for ClientError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ClientError::Io(e) => Some(e),
            ClientError::Connect(e) => Some(e),
            _ => None,
        }
    }
}

impl From<std::io::Error> for ClientError {
    /// An I/O error carrying a [`ConnectError`] becomes [`ClientError::Connect`].
    fn from(e: std::io::Error) -> Self {
        match ConnectError::from_io(&e) {
            Some(connect) => ClientError::Connect(connect.clone()),
            None => ClientError::Io(e),
        }
    }
}
