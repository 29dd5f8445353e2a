//! A typed call of a tool that may run as a task: the input checked
//! against `inputSchema` ([`ToolSchemas`]), then started, its result read
//! when the task ends ([`TaskStart`]). It joins the two files it uses, so
//! neither imports the other back.

use serde::Serialize;

use super::engine::Client;
use super::error::ClientError;
use super::schemas::{serialise_input, ToolSchemas};
use super::tasks::{Decoder, TaskStart};

impl Client {
    /// Starts a tool that may run as a task, typed: the input checked
    /// against `inputSchema`, the result (at once or when the task ends)
    /// read by `decode` ([`structured_result`](super::structured_result) or [`content_result`](super::content_result)).
    pub async fn start_typed<'c, I: Serialize, O>(
        &'c self,
        schemas: &'c ToolSchemas,
        tool: &str,
        input: &I,
        ttl: Option<std::time::Duration>,
        decode: Decoder<O>,
    ) -> Result<TaskStart<'c, O>, ClientError> {
        let arguments = serialise_input(tool, input)?;
        schemas.validate_input(tool, &arguments)?;
        TaskStart::new(self.start_tool(tool, arguments, ttl).await?, tool, schemas, decode)
    }
}
