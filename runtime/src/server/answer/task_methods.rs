//! The engine's side of tasks (see [`crate::server::tasks`]): which `tools/call`
//! may become a task (the tool's `execution.taskSupport` against what the
//! client supports: the extension in the request's capabilities in
//! 2026-07-28, `params.task` in 2025-11-25), running such a call (inline
//! first in 2026-07-28, where the server decides; a task at once in
//! 2025-11-25, where the client asked), driving a task's handler to its
//! end (renewing its lease, seeing a cancellation or an answer that
//! reached another replica, telling a 2025-11-25 session of each change of
//! status) and the `tasks/*` methods of each revision, every one bound to
//! the owner that created the task.

use std::future::Future;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::pin::Pin;
use std::sync::Arc;
use std::task::Poll;
use std::time::Duration;

use serde_json::{json, Map, Value};

use crate::jsonrpc::{self, RpcError};
use crate::revision::codes;
use crate::server::handler::cancel::CancellationToken;
use crate::server::handler::context::Sink;
use crate::server::tasks::{
    self, now_ms, wire, Audience, Running, TaskLink, TaskRecord, TaskStatus, TaskSupport, Tasks,
    EXTENSION,
};
use crate::server::tools::catch::panic_message;

use crate::server::answer::call::{self, CallRequest};
use crate::server::answer::methods::Core;
use crate::server::request::handled::{Handled, Pending};
use crate::server::request::reply::Reply;
use crate::server::request::route::{self, stateful_has_tasks};
use crate::server::request::scope::Scope;
use crate::server::session::Session;

type Run = Pin<Box<dyn Future<Output = Option<Reply>> + Send>>;

/// Whether the request declared the extension in its capabilities.
fn negotiated(scope: &Scope) -> bool {
    scope
        .client
        .as_deref()
        .and_then(|c| c.capabilities.get("extensions"))
        .and_then(|e| e.get(EXTENSION))
        .is_some_and(|v| !v.is_null())
}

/// `-32021` naming the extension.
fn missing_extension(what: &str) -> RpcError {
    RpcError::new(
        codes::MISSING_CLIENT_CAPABILITY,
        format!("{what} needs the {EXTENSION} extension: declare it in _meta.io.modelcontextprotocol/clientCapabilities.extensions"),
    )
    .with_data(json!({ "requiredCapabilities": { "extensions": { EXTENSION: {} } } }))
}

/// Who a task belongs to: the authenticated subject, or the anonymous owner.
fn owner(scope: &Scope) -> String {
    scope
        .extras
        .principal()
        .map(|p| p.subject.clone())
        .unwrap_or_default()
}

/// Whether `call` may become a task; the error when the tool and the
/// client disagree (`-32021` for a required task without the extension,
/// `-32601` in 2025-11-25 as that revision says).
pub(in crate::server) fn eligible(
    core: &Core,
    scope: &Scope,
    call: &CallRequest,
) -> Result<bool, RpcError> {
    if core.tasks.is_none() {
        return Ok(false);
    }
    let call::Tool::Index(index) = call.tool else {
        return Ok(false);
    };
    let entry = core.tools.get(index);
    let support = TaskSupport::of(&entry.declared);
    if scope.modern {
        return match (support, negotiated(scope)) {
            (TaskSupport::Forbidden, _) | (TaskSupport::Optional, false) => Ok(false),
            (TaskSupport::Required, false) => {
                Err(missing_extension(&format!("tool {}", entry.name)))
            }
            (_, true) => Ok(true),
        };
    }
    if !stateful_has_tasks(scope) {
        return Ok(false);
    }
    let asked = call.task.as_ref().is_some_and(Value::is_object);
    match (support, asked) {
        (TaskSupport::Forbidden, true) => Err(RpcError::new(
            jsonrpc::METHOD_NOT_FOUND,
            format!("tool {} does not run as a task (its execution.taskSupport is forbidden); call it without \"task\"", entry.name),
        )),
        (TaskSupport::Required, false) => Err(RpcError::new(
            jsonrpc::METHOD_NOT_FOUND,
            format!("tool {} runs only as a task (execution.taskSupport is required); call it with \"task\": {{}}", entry.name),
        )),
        (_, asked) => Ok(asked),
    }
}

/// Runs a call that may become a task.
pub(in crate::server) fn call_as_task(
    core: &Arc<Core>,
    session: &Session,
    id: Value,
    mut call: Box<CallRequest>,
    scope: Scope,
    sink: &Sink,
) -> Handled {
    let Some(tasks) = core.tasks.clone() else {
        return Handled::Nothing;
    };
    let link = Arc::new(TaskLink::default());
    call.link = Some(Arc::clone(&link));
    let requested_ttl = call
        .task
        .as_ref()
        .and_then(|t| t.get("ttl"))
        .and_then(Value::as_u64);
    let core = Arc::clone(core);
    let stream = session.stream_of();
    let session = session.clone();
    let sink = sink.clone();
    let token = CancellationToken::new();
    Handled::Pending(Pending::boxed(async move {
        let run: Run = {
            let (core, scope, id, token) =
                (Arc::clone(&core), scope.clone(), id.clone(), token.clone());
            Box::pin(
                async move { call::run(&core, &session, &id, call, &scope, token, sink).await },
            )
        };
        let mut run = caught(run);
        if scope.modern {
            // The server decides: a call that finishes at once, or asks
            // the request for input, answers as usual.
            let first = std::future::poll_fn(|cx| Poll::Ready(run.as_mut().poll(cx))).await;
            if let Poll::Ready(outcome) = first {
                return outcome
                    .unwrap_or_else(|panic| Some(Reply::error(&id, &RpcError::internal(panic))));
            }
        }
        let now = now_ms();
        let options = &tasks.options;
        let ttl = options.ttl.map(millis);
        let ttl = match (ttl, requested_ttl) {
            (Some(limit), Some(asked)) => Some(limit.min(asked)),
            (None, asked) => asked,
            (limit, None) => limit,
        };
        let task_id = match tasks::new_id() {
            Ok(task_id) => task_id,
            Err(e) => return Some(Reply::error(&id, &RpcError::internal(e.to_string()))),
        };
        let record = TaskRecord {
            modern: scope.modern,
            ttl_ms: ttl,
            poll_ms: millis(options.poll_interval).max(1),
            lease_ms: now.saturating_add(millis(options.lease)),
            ..TaskRecord::working(task_id, owner(&scope), tasks.replica.clone(), now)
        };
        // Stored before it is announced: a tasks/get right behind the
        // answer finds it, on any replica.
        match tasks.store().create(&record, options.max_per_owner).await {
            Ok(true) => {}
            Ok(false) => {
                let error = RpcError::invalid_request(format!(
                    "too many unfinished tasks: at most {} per caller; wait for one to finish or cancel one",
                    options.max_per_owner
                ));
                return Some(Reply::error(&id, &error));
            }
            Err(e) => {
                tracing::error!(error = %e, "cannot create a task");
                return Some(Reply::error(
                    &id,
                    &RpcError::internal("the task could not be stored; retry later"),
                ));
            }
        }
        tasks.register(
            &record.id,
            Running {
                cancel: token.clone(),
                link: Arc::clone(&link),
            },
        );
        // A 2025-11-25 task reaches its session outside the call; a
        // 2026-07-28 one its owner's listening requests.
        let audience = match scope.modern {
            true => Some(Audience::Listeners(Arc::clone(&core.listeners))),
            false => stream.map(Audience::Session),
        };
        link.start(record.id.clone(), Arc::clone(&tasks), audience);
        tokio::spawn(drive(
            Arc::clone(&tasks),
            record.id.clone(),
            run,
            token,
            link,
        ));
        Some(core.reply(&id, &scope, wire::created(&record)))
    }))
}

/// Answers a `tasks/*` request (`None` when the server has no tasks).
pub(in crate::server) fn method(
    core: &Arc<Core>,
    id: &Value,
    task: route::Task,
    params: Option<&Value>,
    scope: &Scope,
) -> Option<Handled> {
    let tasks = core.tasks.clone()?;
    if scope.modern && !negotiated(scope) {
        return Some(Handled::Reply(Reply::error(
            id,
            &missing_extension(task.method().name()),
        )));
    }
    let (core, id, params, scope) = (Arc::clone(core), id.clone(), params.cloned(), scope.clone());
    Some(Handled::Pending(Pending::boxed(async move {
        let answer = match task {
            route::Task::List => list(&tasks, &core, params.as_ref(), &scope).await,
            route::Task::Get | route::Task::Update | route::Task::Cancel | route::Task::Result => {
                match find(&tasks, params.as_ref(), &scope).await {
                    Ok(record) => one(&tasks, task, record, params.as_ref(), &scope, &id).await,
                    Err(error) => Err(error),
                }
            }
        };
        Some(match answer {
            Ok(TaskAnswer::Result(result)) => core.reply(&id, &scope, result),
            Ok(TaskAnswer::Reply(reply)) => reply,
            Err(error) => Reply::error(&id, &error),
        })
    })))
}

enum TaskAnswer {
    Result(Value),
    Reply(Reply),
}

fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

fn store_failed(e: tasks::TaskStoreError) -> RpcError {
    tracing::error!(error = %e, "task store");
    RpcError::internal("the task store is unavailable; retry later")
}

/// The caller's task `taskId` of `params` (`-32602` when missing, unknown,
/// expired, another caller's or another era's), with a running task whose
/// replica stopped renewing its lease marked failed.
async fn find(
    tasks: &Tasks,
    params: Option<&Value>,
    scope: &Scope,
) -> Result<TaskRecord, RpcError> {
    let Some(task_id) = params.and_then(|p| p.get("taskId")).and_then(Value::as_str) else {
        return Err(RpcError::invalid_params(
            "\"taskId\" must be a string naming a task this server created",
        ));
    };
    let unknown = || {
        RpcError::invalid_params(format!(
            "unknown task {task_id:?} (it never existed, expired, or belongs to another caller)"
        ))
    };
    let record = tasks
        .store()
        .get(task_id)
        .await
        .map_err(store_failed)?
        .ok_or_else(unknown)?;
    if record.owner != owner(scope) || record.modern != scope.modern {
        return Err(unknown());
    }
    let now = now_ms();
    if !record.orphaned(now) {
        return Ok(record);
    }
    let orphan = move |r: &mut TaskRecord| {
        if !r.orphaned(now) {
            return false;
        }
        r.status = TaskStatus::Failed;
        r.status_message = Some("the server replica running the task stopped".into());
        r.error = Some(
            RpcError::internal("the server replica running the task stopped before it finished")
                .to_value(),
        );
        r.input_requests.clear();
        r.touch(now);
        true
    };
    tasks
        .store()
        .update(task_id, &orphan)
        .await
        .map_err(store_failed)?
        .ok_or_else(unknown)
}

/// `tasks/get`, `tasks/update`, `tasks/cancel`, `tasks/result` of the
/// task `record`.
async fn one(
    tasks: &Tasks,
    task: route::Task,
    record: TaskRecord,
    params: Option<&Value>,
    scope: &Scope,
    id: &Value,
) -> Result<TaskAnswer, RpcError> {
    match task {
        route::Task::Get => Ok(TaskAnswer::Result(wire::detailed(&record))),
        route::Task::Update => {
            let Some(Value::Object(responses)) = params.and_then(|p| p.get("inputResponses"))
            else {
                return Err(RpcError::invalid_params(
                    "\"inputResponses\" must be an object of answers by input request key",
                ));
            };
            let responses = responses.clone();
            let deliver = move |r: &mut TaskRecord| {
                if r.status.is_terminal() {
                    return false;
                }
                let mut changed = false;
                for (key, answer) in &responses {
                    // Answers to requests the task did not make are ignored.
                    if r.input_requests.remove(key).is_some() {
                        r.input_responses.insert(key.clone(), answer.clone());
                        changed = true;
                    }
                }
                if changed && r.input_requests.is_empty() && r.status == TaskStatus::InputRequired {
                    r.status = TaskStatus::Working;
                }
                if changed {
                    r.touch(now_ms());
                }
                changed
            };
            let after = tasks
                .store()
                .update(&record.id, &deliver)
                .await
                .map_err(store_failed)?;
            if let Some(running) = tasks.local(&record.id) {
                if let Some(after) = &after {
                    running.link.announce(after);
                }
                running.link.wake();
            }
            Ok(TaskAnswer::Result(json!({})))
        }
        route::Task::Cancel => {
            if record.status.is_terminal() {
                // The extension acknowledges again; 2025-11-25 refuses.
                return match scope.modern {
                    true => Ok(TaskAnswer::Result(json!({}))),
                    false => Err(RpcError::invalid_params(format!(
                        "task {} is already {} and cannot be cancelled",
                        record.id,
                        record.status.as_str()
                    ))),
                };
            }
            let cancel = |r: &mut TaskRecord| {
                if r.status.is_terminal() {
                    return false;
                }
                r.status = TaskStatus::Cancelled;
                r.cancel_requested = true;
                r.input_requests.clear();
                r.status_message = Some("cancelled by the client".into());
                r.touch(now_ms());
                true
            };
            let after = tasks
                .store()
                .update(&record.id, &cancel)
                .await
                .map_err(store_failed)?;
            if let Some(running) = tasks.local(&record.id) {
                if let Some(after) = &after {
                    running.link.announce(after);
                }
                running.cancel.cancel();
            }
            match (scope.modern, after) {
                (true, _) => Ok(TaskAnswer::Result(json!({}))),
                (false, Some(after)) => Ok(TaskAnswer::Result(wire::detailed(&after))),
                (false, None) => Err(RpcError::invalid_params(format!(
                    "unknown task {:?}",
                    record.id
                ))),
            }
        }
        // tasks/result (2025-11-25): waits for the end; tasks/list, which
        // names no task, is answered by `list`.
        route::Task::Result | route::Task::List => {
            let mut record = record;
            while !record.status.is_terminal() {
                tokio::time::sleep(Duration::from_millis(record.poll_ms.clamp(10, 250))).await;
                record = find(tasks, params, scope).await?;
            }
            let related = json!({ "taskId": record.id });
            match record.status {
                TaskStatus::Completed => {
                    let mut result = record.result.unwrap_or_else(|| json!({}));
                    if let Value::Object(members) = &mut result {
                        let meta = members.entry("_meta").or_insert_with(|| json!({}));
                        meta[tasks::RELATED_TASK] = related;
                    }
                    Ok(TaskAnswer::Result(result))
                }
                TaskStatus::Failed => {
                    let error = record
                        .error
                        .unwrap_or_else(|| RpcError::internal("the task failed").to_value());
                    let text = format!(
                        "{{\"jsonrpc\":\"2.0\",\"id\":{},\"error\":{}}}",
                        jsonrpc::json_text(id),
                        jsonrpc::json_text(&error)
                    );
                    let code = error.get("code").and_then(Value::as_i64);
                    Ok(TaskAnswer::Reply(Reply {
                        text,
                        error: code.or(Some(jsonrpc::INTERNAL_ERROR)),
                        rejected: false,
                        tool_error: false,
                    }))
                }
                _ => Err(RpcError::invalid_params(format!(
                    "task {} was cancelled and has no result",
                    record.id
                ))),
            }
        }
    }
}

/// `tasks/list` (2025-11-25): the caller's tasks, paginated.
async fn list(
    tasks: &Tasks,
    core: &Core,
    params: Option<&Value>,
    scope: &Scope,
) -> Result<TaskAnswer, RpcError> {
    let all = tasks
        .store()
        .list(&owner(scope))
        .await
        .map_err(store_failed)?;
    let all: Vec<&TaskRecord> = all.iter().filter(|r| !r.modern).collect();
    let offset = match params.and_then(|p| p.get("cursor")) {
        None | Some(Value::Null) => 0,
        Some(Value::String(c)) => {
            crate::server::request::cursor::decode(c, all.len()).ok_or_else(|| {
                RpcError::invalid_params(format!(
                    "invalid cursor {c:?}; pass a nextCursor this server returned"
                ))
            })?
        }
        Some(_) => return Err(RpcError::invalid_params("\"cursor\" must be a string")),
    };
    let size = core.config.page_size;
    let mut result = Map::new();
    result.insert(
        "tasks".into(),
        all.iter()
            .skip(offset)
            .take(size)
            .map(|r| wire::detailed(r))
            .collect(),
    );
    if offset + size < all.len() {
        result.insert(
            "nextCursor".into(),
            Value::from(crate::server::request::cursor::encode(offset + size)),
        );
    }
    Ok(TaskAnswer::Result(Value::Object(result)))
}

/// `run` with a panic in any poll turned into `Err(message)`.
fn caught(mut run: Run) -> Pin<Box<dyn Future<Output = Result<Option<Reply>, String>> + Send>> {
    Box::pin(std::future::poll_fn(move |cx| {
        match catch_unwind(AssertUnwindSafe(|| run.as_mut().poll(cx))) {
            Ok(Poll::Pending) => Poll::Pending,
            Ok(Poll::Ready(reply)) => Poll::Ready(Ok(reply)),
            Err(payload) => Poll::Ready(Err(panic_message(payload.as_ref()))),
        }
    }))
}

/// Runs a task's handler to its end: renews its lease meanwhile, stops it
/// when the task was cancelled (on any replica) or expired, wakes it when
/// an answer reached another replica, and stores how it ended.
async fn drive(
    tasks: Arc<Tasks>,
    id: String,
    mut run: Pin<Box<dyn Future<Output = Result<Option<Reply>, String>> + Send>>,
    token: CancellationToken,
    link: Arc<TaskLink>,
) {
    let lease = millis(tasks.options.lease);
    let every =
        (tasks.options.lease / 3).min(tasks.options.poll_interval.max(Duration::from_millis(100)));
    let outcome = loop {
        tokio::select! {
            outcome = &mut run => break outcome,
            _ = tokio::time::sleep(every) => {
                let renew = move |r: &mut TaskRecord| {
                    if r.status.is_terminal() {
                        return false;
                    }
                    r.lease_ms = now_ms().saturating_add(lease);
                    true
                };
                match tasks.store().update(&id, &renew).await {
                    Ok(Some(r)) => {
                        // A change made on another replica (a cancellation).
                        link.announce(&r);
                        if r.cancel_requested || r.status.is_terminal() {
                            token.cancel();
                        }
                        if !r.input_responses.is_empty() {
                            link.wake();
                        }
                    }
                    // Expired and forgotten: nobody can read its result.
                    Ok(None) => token.cancel(),
                    Err(e) => tracing::warn!(task = %id, error = %e, "cannot renew the task's lease"),
                }
            }
        }
    };
    let (status, result, error) = ended(outcome);
    let finish = move |r: &mut TaskRecord| {
        if r.status.is_terminal() {
            return false;
        }
        r.status = status;
        r.result = result.clone();
        r.error = error.clone();
        r.input_requests.clear();
        r.touch(now_ms());
        true
    };
    match tasks.store().update(&id, &finish).await {
        Ok(Some(record)) => link.announce(&record),
        Ok(None) => {}
        Err(e) => tracing::error!(task = %id, error = %e, "cannot store how the task ended"),
    }
    tasks.unregister(&id);
}

/// The status, result and error of a task whose call ended with `outcome`.
fn ended(outcome: Result<Option<Reply>, String>) -> (TaskStatus, Option<Value>, Option<Value>) {
    let failed = |message: String| {
        (
            TaskStatus::Failed,
            None,
            Some(RpcError::internal(message).to_value()),
        )
    };
    let reply = match outcome {
        Ok(Some(reply)) => reply,
        Ok(None) => return (TaskStatus::Cancelled, None, None),
        Err(panic) => {
            tracing::error!(panic = %panic, "task failed unexpectedly");
            return failed("the task failed unexpectedly".into());
        }
    };
    let Ok(Value::Object(mut response)) = serde_json::from_str::<Value>(&reply.text) else {
        return failed("the task's answer could not be read".into());
    };
    if let Some(error) = response.remove("error") {
        return (TaskStatus::Failed, None, Some(error));
    }
    let Some(Value::Object(mut result)) = response.remove("result") else {
        return failed("the task ended without a result".into());
    };
    if result
        .get("resultType")
        .and_then(Value::as_str)
        .is_some_and(|t| t != "complete")
    {
        return failed("the tool asked for input through its request after the call became a task; ask through ctx.task()".into());
    }
    result.remove("resultType");
    if let Some(Value::Object(meta)) = result.get_mut("_meta") {
        meta.remove(crate::revision::meta::SERVER_INFO);
        if meta.is_empty() {
            result.remove("_meta");
        }
    }
    (TaskStatus::Completed, Some(Value::Object(result)), None)
}
