//! The handler's side of a task: [`TaskLink`], what the engine and a
//! task-supporting tool's handler share, and the work behind the handler's
//! [`crate::server::TaskContext`] (`ctx.task()`, through [`TaskPort`]). The engine runs such a
//! call inline at first; the call becomes a task when its handler waits
//! for anything but input of the request itself (multi round-trip input
//! gathered before the task exists still answers the call), or when it
//! asks for task input or the task's id. Input asked through the task
//! parks it as `input_required` with the request under its key until
//! `tasks/update` delivers the answer (2026-07-28); in 2025-11-25 the task
//! is `input_required` while a request of the session, tied to the task by
//! `_meta` `io.modelcontextprotocol/related-task`, waits for the client's
//! answer. The call's response has gone by then: such requests, and the
//! `notifications/tasks/status` of each change of status, go on the
//! session's stream for messages outside requests (the connection over
//! stdio, the GET stream over HTTP). In 2026-07-28 each change of status
//! is `notifications/tasks` to the owner's `subscriptions/listen` requests
//! that name the task ([`Audience`]).

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use serde_json::{json, Value};

use super::{now_ms, wire, TaskRecord, TaskStatus, Tasks, RELATED_TASK};
use crate::revision::method::Method;
use crate::server::handler::context::{PortFuture, RequestContext, TaskPort};
use crate::server::handler::notifier::{Change, Listeners};
use crate::server::handler::outbound::Channel;
use crate::server::handler::peer::{request_live, PeerError};
use crate::server::handler::sink::StreamOf;

/// Who hears of a task's changes of status.
pub(crate) enum Audience {
    /// 2025-11-25: the session that created it, on its stream for messages
    /// outside requests.
    Session(StreamOf),
    /// 2026-07-28: its owner's `subscriptions/listen` requests that name it.
    Listeners(Arc<Listeners>),
}

/// What the engine and a task's handler share.
#[derive(Default)]
pub(crate) struct TaskLink {
    /// Set once the call became a task.
    started: OnceLock<Started>,
    /// Wakes the handler: the task started, or an answer arrived.
    wake: tokio::sync::Notify,
    /// Requests of a 2025-11-25 task waiting for the client's answer.
    asking: AtomicUsize,
}

struct Started {
    id: String,
    tasks: Arc<Tasks>,
    /// Who hears of its changes of status (and, 2025-11-25, gets its
    /// requests).
    audience: Option<Audience>,
    /// The newest record announced; held while its notification is
    /// queued, so notifications leave in the order of the changes.
    announced: Mutex<Announced>,
}

/// What the client last learnt of a task.
struct Announced {
    /// Its status (at first `working`, in the answer that created it).
    status: TaskStatus,
    /// The `updated_ms` of the newest record seen: an older record (read
    /// before a change another caller announced) is stale.
    updated_ms: u64,
}

impl std::fmt::Debug for TaskLink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TaskLink")
            .field("task", &self.started.get().map(|s| &s.id))
            .finish_non_exhaustive()
    }
}

impl TaskLink {
    /// The call is now the task `id`, which `audience` hears of.
    pub(crate) fn start(&self, id: String, tasks: Arc<Tasks>, audience: Option<Audience>) {
        let _ = self.started.set(Started {
            id,
            tasks,
            audience,
            announced: Mutex::new(Announced {
                status: TaskStatus::Working,
                updated_ms: 0,
            }),
        });
        self.wake.notify_waiters();
    }

    /// Tells the task's audience its new status, once per change of
    /// status: the session that created it (2025-11-25) with
    /// `notifications/tasks/status` (the whole task, without the
    /// related-task `_meta`, as the revision says; nothing while the
    /// session has no stream open), or the listening requests of its owner
    /// that name it (2026-07-28) with `notifications/tasks` (the detailed
    /// task, as `tasks/get` gives it). Polling stays the client's way to be
    /// sure: a notification may be missed.
    pub(crate) fn announce(&self, record: &TaskRecord) {
        let Some(started) = self.started.get() else {
            return;
        };
        let Some(audience) = &started.audience else {
            return;
        };
        // Decided and queued under one lock: a record read before the
        // newest one seen (a lease renewal racing a change) is dropped,
        // and two changes are never queued in the opposite order.
        let mut last = started.announced.lock().unwrap_or_else(|p| p.into_inner());
        if record.updated_ms <= last.updated_ms {
            return;
        }
        last.updated_ms = record.updated_ms;
        if last.status == record.status {
            return;
        }
        last.status = record.status;
        let stream = match audience {
            Audience::Session(stream) => stream,
            Audience::Listeners(listeners) => {
                let change = Change::Task {
                    id: record.id.clone(),
                    owner: record.owner.clone(),
                    task: wire::detailed(record),
                };
                listeners.try_deliver_everywhere(&change);
                return;
            }
        };
        let Some(sink) = stream() else { return };
        let params = Value::Object(wire::task(record));
        if !sink.try_send(crate::jsonrpc::notification(
            Method::TaskStatus.name(),
            &params,
        )) {
            tracing::debug!(task = %record.id, "a task status notification was dropped: the session's stream is full or closed");
        }
    }

    /// Wakes a handler waiting for an answer.
    pub(crate) fn wake(&self) {
        self.wake.notify_waiters();
    }

    async fn started(&self) -> &Started {
        loop {
            let woken = self.wake.notified();
            if let Some(started) = self.started.get() {
                return started;
            }
            woken.await;
        }
    }
}

impl TaskPort for TaskLink {
    fn id(&self) -> Option<&str> {
        self.started.get().map(|s| s.id.as_str())
    }

    fn start(&self) -> PortFuture<'_, &str> {
        Box::pin(async move { self.started().await.id.as_str() })
    }

    fn status_message(&self, message: String) -> PortFuture<'_, ()> {
        Box::pin(async move {
            let Some(started) = self.started.get() else {
                return;
            };
            let change = move |r: &mut TaskRecord| {
                if r.status.is_terminal() {
                    return false;
                }
                r.status_message = Some(message.clone());
                r.touch(now_ms());
                true
            };
            if let Err(e) = started.tasks.store().update(&started.id, &change).await {
                tracing::warn!(task = %started.id, error = %e, "cannot record the task's status message");
            }
        })
    }

    /// 2026-07-28: parked in the task under `key`; 2025-11-25: a request
    /// of the session tied to the task.
    fn ask<'a>(
        &'a self,
        ctx: &'a RequestContext,
        key: &'a str,
        capability: &'static str,
        method: Method,
        params: Value,
    ) -> PortFuture<'a, Result<Value, PeerError>> {
        Box::pin(async move {
            if !ctx.client().is_some_and(|c| c.has_capability(capability)) {
                return Err(PeerError::MissingCapability(capability));
            }
            if crate::revision::era(ctx.revision()) == crate::revision::Era::Stateless {
                self.ask_parked(ctx, key, method, params).await
            } else {
                self.ask_session(ctx, method, params).await
            }
        })
    }
}

impl TaskLink {
    /// 2025-11-25: sends the request to the client on the session's
    /// stream, tied to the task, with the task `input_required` until the
    /// answer comes (back to `working` once no request waits).
    async fn ask_session(
        &self,
        ctx: &RequestContext,
        method: Method,
        mut params: Value,
    ) -> Result<Value, PeerError> {
        let Channel::Live { outbound, timeout } = ctx.channel().clone() else {
            return Err(PeerError::Disconnected);
        };
        let started = self.started().await;
        // The session's stream; for a driver that gave it none, the call's
        // own stream while it is open.
        let session = match &started.audience {
            Some(Audience::Session(stream)) => stream(),
            _ => None,
        };
        let own =
            || Some(ctx.sink().clone()).filter(crate::server::handler::sink::Sink::is_connected);
        let sink = session.or_else(own).ok_or(PeerError::Disconnected)?;
        let meta = &mut params["_meta"];
        if !meta.is_object() {
            *meta = json!({});
        }
        meta[RELATED_TASK] = json!({ "taskId": started.id });
        self.asking.fetch_add(1, Ordering::AcqRel);
        self.set_status(started, TaskStatus::Working, TaskStatus::InputRequired)
            .await;
        let answer = request_live(
            ctx.cancellation(),
            &sink,
            &outbound,
            timeout,
            method.name(),
            &params,
        )
        .await;
        if self.asking.fetch_sub(1, Ordering::AcqRel) == 1 {
            self.set_status(started, TaskStatus::InputRequired, TaskStatus::Working)
                .await;
        }
        answer
    }

    /// Moves the task from `from` to `to` (a task in another status stays)
    /// and tells the client.
    async fn set_status(&self, started: &Started, from: TaskStatus, to: TaskStatus) {
        let change = move |r: &mut TaskRecord| {
            if r.status != from {
                return false;
            }
            r.status = to;
            r.touch(now_ms());
            true
        };
        match started.tasks.store().update(&started.id, &change).await {
            Ok(Some(record)) => self.announce(&record),
            Ok(None) => {}
            Err(e) => {
                tracing::warn!(task = %started.id, error = %e, "cannot record the task's status")
            }
        }
    }

    /// Parks the task as `input_required` with the request `key` until
    /// `tasks/update` brings its answer.
    async fn ask_parked(
        &self,
        ctx: &RequestContext,
        key: &str,
        method: Method,
        params: Value,
    ) -> Result<Value, PeerError> {
        let started = self.started().await;
        let store = started.tasks.store();
        let request = json!({ "method": method.name(), "params": params });
        let (key_owned, asked) = (key.to_owned(), request);
        let post = move |r: &mut TaskRecord| {
            if r.status.is_terminal() || r.input_responses.contains_key(&key_owned) {
                return false;
            }
            r.input_requests.insert(key_owned.clone(), asked.clone());
            r.status = TaskStatus::InputRequired;
            r.touch(now_ms());
            true
        };
        let fail = |e: super::TaskStoreError| PeerError::InvalidResponse(e.to_string());
        if let Some(record) = store.update(&started.id, &post).await.map_err(fail)? {
            self.announce(&record);
        }
        let poll = started.tasks.options.poll_interval;
        loop {
            let woken = self.wake.notified();
            let key_owned = key.to_owned();
            let take = move |r: &mut TaskRecord| r.input_responses.remove(&key_owned).is_some();
            // The record before the change tells whether the answer was there.
            let before = store.get(&started.id).await.map_err(fail)?;
            let Some(before) = before else {
                return Err(PeerError::Disconnected);
            };
            if before.status.is_terminal() {
                return Err(PeerError::Disconnected);
            }
            if let Some(answer) = before.input_responses.get(key).cloned() {
                store.update(&started.id, &take).await.map_err(fail)?;
                return Ok(answer);
            }
            // Woken by a local `tasks/update`; polled for one that reached
            // another replica.
            tokio::select! {
                _ = woken => {}
                _ = tokio::time::sleep(poll) => {}
                _ = ctx.cancelled() => return Err(PeerError::Disconnected),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::server::handler::sink::Sink;
    use crate::server::tasks::TaskOptions;

    /// A stored record of task `t` in `status`, changed at `updated_ms`.
    fn record(status: TaskStatus, updated_ms: u64) -> TaskRecord {
        TaskRecord {
            modern: false,
            status,
            created_ms: 1,
            updated_ms,
            ..crate::server::tasks::tests::working_record(1)
        }
    }

    /// The statuses of the `notifications/tasks/status` queued so far.
    fn statuses(rx: &mut tokio::sync::mpsc::Receiver<String>) -> Vec<String> {
        std::iter::from_fn(|| rx.try_recv().ok())
            .map(|text| {
                let message: Value = serde_json::from_str(&text).unwrap();
                message["params"]["status"].as_str().unwrap().to_owned()
            })
            .collect()
    }

    /// The race of a lease renewal with a change, in the order that lost
    /// updates: the renewal reads the record (`working`), the handler asks
    /// for input and announces `input_required`, then the renewal
    /// announces what it read. The stale `working` must not go out, and
    /// must not hide the real `working` once the input arrives.
    #[test]
    fn a_record_read_before_a_change_announces_nothing() {
        let (tx, mut rx) = tokio::sync::mpsc::channel(16);
        let sink = Sink::new(tx);
        let stream: StreamOf = Arc::new(move || Some(sink.clone()));
        let link = TaskLink::default();
        let tasks = Arc::new(Tasks::new(TaskOptions::default()).unwrap());
        link.start("t".into(), tasks, Some(Audience::Session(stream)));

        let created = record(TaskStatus::Working, 10);
        let mut asked = created.clone();
        asked.status = TaskStatus::InputRequired;
        asked.touch(10);
        let read_by_renewal = created.clone();
        link.announce(&asked);
        link.announce(&read_by_renewal);
        assert_eq!(statuses(&mut rx), ["input_required"]);

        // The answer arrives: the real `working` is announced, once.
        let mut answered = asked.clone();
        answered.status = TaskStatus::Working;
        answered.touch(10);
        link.announce(&answered);
        link.announce(&answered);
        assert_eq!(statuses(&mut rx), ["working"]);

        // A renewal reading the newest record repeats nothing.
        let mut renewed = answered.clone();
        renewed.lease_ms = 99;
        link.announce(&renewed);
        assert!(statuses(&mut rx).is_empty());
    }

    #[test]
    fn touch_orders_changes_within_one_millisecond() {
        let mut r = record(TaskStatus::Working, 500);
        r.touch(500);
        assert_eq!(r.updated_ms, 501);
        r.touch(400);
        assert_eq!(r.updated_ms, 502, "a clock that steps back still orders");
        r.touch(900);
        assert_eq!(r.updated_ms, 900);
    }
}
