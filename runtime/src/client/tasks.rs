//! Tool calls that may run as tasks, client side:
//! [`Client::start_tool`](super::Client::start_tool) calls a tool and
//! gives either its result or a [`ToolTask`] handle,
//! which polls (`tasks/get`, honouring the server's poll interval),
//! supplies input (`tasks/update`, 2026-07-28), cancels, and awaits the
//! final `CallToolResult`. In 2025-11-25 the client asks for a task with
//! `params.task`; from 2026-07-28 it declares the extension (in
//! [`ClientOptions::capabilities`](super::ClientOptions::capabilities)`.extensions`)
//! and the server decides. A 2025-11-25 server may also tell of each
//! change of status (`notifications/tasks/status`):
//! [`ToolTask::next_status`] takes them as they come and polls only when
//! none came within the poll interval.

use std::time::Duration;

use serde_json::{json, Map, Value};
use tokio::sync::watch;

use super::engine::Shared;
use super::error::ClientError;
use super::options::CallOptions;
use super::schemas::ToolSchemas;
use crate::revision::method::Method;

/// What starting a tool call gave.
#[derive(Debug)]
pub enum ToolStart<'c> {
    /// The server answered at once: the `CallToolResult`.
    Done(Value),
    /// The server made the call a task.
    Task(ToolTask<'c>),
}

/// A tool call running as a task on the server.
#[derive(Debug)]
pub struct ToolTask<'c> {
    shared: &'c Shared,
    tool: String,
    id: String,
    stateless: bool,
    /// The last state the server reported.
    last: Value,
    /// The states the server notifies (2025-11-25).
    notified: Option<watch::Receiver<Option<Value>>>,
}

impl Drop for ToolTask<'_> {
    fn drop(&mut self) {
        if self.notified.is_some() {
            self.shared
                .statuses
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .unwatch(&self.id);
        }
    }
}

/// Whether a task in `status` is done.
fn is_terminal(status: &str) -> bool {
    matches!(status, "completed" | "failed" | "cancelled")
}

/// The polling interval when the server suggests none.
const DEFAULT_POLL: Duration = Duration::from_millis(500);

/// Calls the tool `name` so that it may run as a task
/// ([`Client::start_tool`](super::Client::start_tool)): asks for one
/// (2025-11-25) and makes a [`ToolTask`] of the answer when it is one.
pub(super) async fn start_tool<'c>(
    shared: &'c Shared,
    name: &str,
    arguments: Value,
    ttl: Option<Duration>,
) -> Result<ToolStart<'c>, ClientError> {
    let stateless = shared.session.get().is_some_and(|s| s.stateless);
    let mut params = json!({ "name": name, "arguments": arguments });
    if !stateless {
        let mut task = Map::new();
        if let Some(ttl) = ttl {
            task.insert(
                "ttl".into(),
                Value::from(u64::try_from(ttl.as_millis()).unwrap_or(u64::MAX)),
            );
        }
        params["task"] = Value::Object(task);
    }
    let result = shared
        .request(Method::ToolsCall.name(), Some(params), &CallOptions::new())
        .await?;
    let task = match (stateless, result.get("resultType").and_then(Value::as_str)) {
        (true, Some("task")) => result,
        (false, _) if result.get("task").is_some_and(Value::is_object) => result["task"].clone(),
        _ => return Ok(ToolStart::Done(result)),
    };
    let Some(id) = task
        .get("taskId")
        .and_then(Value::as_str)
        .map(str::to_owned)
    else {
        return Err(ClientError::unexpected(format!(
            "tool `{name}` answered with a task without a string taskId: {task}"
        )));
    };
    let notified = (!stateless).then(|| {
        shared
            .statuses
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .watch(&id)
    });
    Ok(ToolStart::Task(ToolTask {
        shared,
        tool: name.to_owned(),
        id,
        stateless,
        last: task,
        notified,
    }))
}

impl ToolTask<'_> {
    /// The task's id.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// The last state the server reported (`status`, `statusMessage`, …).
    pub fn last(&self) -> &Value {
        &self.last
    }

    /// The status last reported (`working`, `input_required`, …).
    pub fn status(&self) -> &str {
        self.last
            .get("status")
            .and_then(Value::as_str)
            .unwrap_or("working")
    }

    /// The polling interval the server suggested.
    pub fn poll_interval(&self) -> Duration {
        let key = if self.stateless {
            "pollIntervalMs"
        } else {
            "pollInterval"
        };
        self.last
            .get(key)
            .and_then(Value::as_u64)
            .map_or(DEFAULT_POLL, Duration::from_millis)
    }

    /// Asks the server for the task's state (`tasks/get`) and keeps it.
    pub async fn poll(&mut self) -> Result<&Value, ClientError> {
        self.last = self
            .shared
            .request(
                Method::TasksGet.name(),
                Some(json!({ "taskId": self.id })),
                &CallOptions::new(),
            )
            .await?;
        Ok(&self.last)
    }

    /// Waits for the task's next state and keeps it: the next
    /// `notifications/tasks/status` the server sends (2025-11-25), or,
    /// when none comes within the poll interval (and always in
    /// 2026-07-28, which has none), the state `tasks/get` gives. A task
    /// that ended is returned at once.
    pub async fn next_status(&mut self) -> Result<&Value, ClientError> {
        if is_terminal(self.status()) {
            return Ok(&self.last);
        }
        let interval = self.poll_interval();
        match &mut self.notified {
            Some(rx) => {
                tokio::select! {
                    changed = rx.changed() => {
                        let state = if changed.is_ok() { rx.borrow_and_update().clone() } else { None };
                        if let Some(state) = state {
                            self.last = state;
                            return Ok(&self.last);
                        }
                    }
                    () = tokio::time::sleep(interval) => {}
                }
            }
            None => tokio::time::sleep(interval).await,
        }
        self.poll().await
    }

    /// Answers input requests of the task by key (`tasks/update`, 2026-07-28).
    pub async fn supply(&self, responses: Map<String, Value>) -> Result<(), ClientError> {
        let params = json!({ "taskId": self.id, "inputResponses": responses });
        self.shared
            .request(
                Method::TasksUpdate.name(),
                Some(params),
                &CallOptions::new(),
            )
            .await
            .map(drop)
    }

    /// Cancels the task (`tasks/cancel`).
    pub async fn cancel(&self) -> Result<(), ClientError> {
        self.shared
            .request(
                Method::TasksCancel.name(),
                Some(json!({ "taskId": self.id })),
                &CallOptions::new(),
            )
            .await
            .map(drop)
    }

    /// Waits for the task's `CallToolResult`: polls at the server's
    /// interval and answers its input requests with the client's
    /// [`ClientHandlers`](super::ClientHandlers) (2026-07-28), or waits in
    /// `tasks/result` (2025-11-25). A tool error becomes
    /// [`ClientError::Tool`]; a failed task [`ClientError::Protocol`].
    pub async fn result(mut self) -> Result<Value, ClientError> {
        if !self.stateless {
            let result = self
                .shared
                .request(
                    Method::TasksResult.name(),
                    Some(json!({ "taskId": self.id })),
                    &CallOptions::new(),
                )
                .await?;
            return self.finish(result);
        }
        loop {
            match self.status() {
                "completed" => {
                    let result = self
                        .last
                        .get("result")
                        .cloned()
                        .unwrap_or_else(|| json!({}));
                    return self.finish(result);
                }
                "failed" => {
                    let error = self.last.get("error").cloned().unwrap_or_default();
                    return Err(ClientError::Protocol {
                        method: Method::ToolsCall.name().into(),
                        code: error
                            .get("code")
                            .and_then(Value::as_i64)
                            .unwrap_or(crate::jsonrpc::INTERNAL_ERROR),
                        message: error
                            .get("message")
                            .and_then(Value::as_str)
                            .unwrap_or("the task failed")
                            .to_owned(),
                        data: error.get("data").cloned().map(Box::new),
                    });
                }
                "cancelled" => {
                    return Err(ClientError::unexpected(format!(
                        "the task {} of tool `{}` was cancelled",
                        self.id, self.tool
                    )))
                }
                "input_required" => {
                    let requests = self
                        .last
                        .get("inputRequests")
                        .and_then(Value::as_object)
                        .cloned()
                        .unwrap_or_default();
                    let Some(handlers) = self.shared.options.handlers.clone() else {
                        return Err(ClientError::unexpected(format!(
                            "the task {} of tool `{}` asks for input and the client has no handlers to answer it",
                            self.id, self.tool
                        )));
                    };
                    let responses = handlers.answer_all(&requests).await.map_err(|e| {
                        ClientError::Protocol {
                            method: Method::TasksUpdate.name().into(),
                            code: e.code,
                            message: format!(
                                "cannot answer the task's input request: {}",
                                e.message
                            ),
                            data: e.data.map(Box::new),
                        }
                    })?;
                    self.supply(responses).await?;
                }
                _ => tokio::time::sleep(self.poll_interval()).await,
            }
            self.poll().await?;
        }
    }

    /// A `CallToolResult`, or the tool's error.
    fn finish(&self, result: Value) -> Result<Value, ClientError> {
        tool_result(&self.tool, result)
    }

    /// The tool this task runs.
    pub fn tool(&self) -> &str {
        &self.tool
    }
}

/// A `CallToolResult` of `tool`, or the tool's error (`isError: true`).
fn tool_result(tool: &str, mut result: Value) -> Result<Value, ClientError> {
    if let Some(obj) = result.as_object_mut() {
        if obj.get("isError").and_then(Value::as_bool) == Some(true) {
            return Err(ClientError::from_tool_result(tool, obj));
        }
    }
    Ok(result)
}

/// How a typed task reads its tool's result: `structuredContent` decoded
/// ([`structured_result`](super::schemas::structured_result)) or the content
/// blocks ([`content_result`](super::schemas::content_result)).
pub type ResultDecoder<O> = fn(&ToolSchemas, &str, Value) -> Result<O, ClientError>;

/// What starting a typed tool call gave (the generated client's
/// `start_<tool>` methods).
#[derive(Debug)]
pub enum TaskStart<'c, O> {
    /// The server answered at once, with the typed result.
    Done(O),
    /// The server made the call a task.
    Task(TypedTask<'c, O>),
}

impl<'c, O> TaskStart<'c, O> {
    pub(super) fn new(
        start: ToolStart<'c>,
        tool: &str,
        schemas: &'c ToolSchemas,
        decode: ResultDecoder<O>,
    ) -> Result<Self, ClientError> {
        Ok(match start {
            ToolStart::Done(result) => {
                TaskStart::Done(decode(schemas, tool, tool_result(tool, result)?)?)
            }
            ToolStart::Task(task) => TaskStart::Task(TypedTask {
                task,
                schemas,
                decode,
            }),
        })
    }

    /// The typed result: at once, or when the task ends
    /// ([`TypedTask::result`]).
    pub async fn result(self) -> Result<O, ClientError> {
        match self {
            TaskStart::Done(output) => Ok(output),
            TaskStart::Task(task) => task.result().await,
        }
    }
}

/// A typed tool call running as a task: [`ToolTask`] whose result is the
/// tool's output type.
#[derive(Debug)]
pub struct TypedTask<'c, O> {
    task: ToolTask<'c>,
    schemas: &'c ToolSchemas,
    decode: ResultDecoder<O>,
}

impl<O> TypedTask<'_, O> {
    /// The untyped task (id, last state, status, poll interval).
    pub fn task(&self) -> &ToolTask<'_> {
        &self.task
    }

    /// Asks the server for the task's state (`tasks/get`).
    pub async fn poll(&mut self) -> Result<&Value, ClientError> {
        self.task.poll().await
    }

    /// Waits for the task's next state ([`ToolTask::next_status`]).
    pub async fn next_status(&mut self) -> Result<&Value, ClientError> {
        self.task.next_status().await
    }

    /// Answers the task's input requests by key (`tasks/update`, 2026-07-28).
    pub async fn supply(&self, responses: Map<String, Value>) -> Result<(), ClientError> {
        self.task.supply(responses).await
    }

    /// Cancels the task (`tasks/cancel`).
    pub async fn cancel(&self) -> Result<(), ClientError> {
        self.task.cancel().await
    }

    /// Waits for the task's result ([`ToolTask::result`]), typed.
    pub async fn result(self) -> Result<O, ClientError> {
        let tool = self.task.tool().to_owned();
        let result = self.task.result().await?;
        (self.decode)(self.schemas, &tool, result)
    }
}
