//! Where task state lives: [`TaskRecord`] (one task, serialisable so that
//! any store can keep it as one JSON document), the [`TaskStore`] trait
//! (create with a per-owner bound, read, atomic read-modify-write, list by
//! owner) and [`MemoryTaskStore`], the default. A store forgets a record
//! once its time-to-live has passed.

use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::Mutex;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// What a store operation gives back.
pub type TaskFuture<'a, T> = Pin<Box<dyn Future<Output = Result<T, TaskStoreError>> + Send + 'a>>;

/// Why a store operation failed (unreachable, timed out, bad data).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TaskStoreError(pub String);

impl std::fmt::Display for TaskStoreError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "task store: {}", self.0)
    }
}

impl std::error::Error for TaskStoreError {}

/// A task's status (the same five in both revisions).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TaskStatus {
    /// The handler is running.
    Working,
    /// The handler waits for answers to its input requests.
    InputRequired,
    /// The handler returned (a tool error included): `result` holds its `CallToolResult`.
    Completed,
    /// A protocol-level failure: `error` holds the JSON-RPC error.
    Failed,
    /// Cancelled by the client.
    Cancelled,
}

impl TaskStatus {
    /// The wire name (`"input_required"`).
    pub fn as_str(self) -> &'static str {
        match self {
            TaskStatus::Working => "working",
            TaskStatus::InputRequired => "input_required",
            TaskStatus::Completed => "completed",
            TaskStatus::Failed => "failed",
            TaskStatus::Cancelled => "cancelled",
        }
    }

    /// Whether nothing changes it any more.
    pub fn is_terminal(self) -> bool {
        matches!(
            self,
            TaskStatus::Completed | TaskStatus::Failed | TaskStatus::Cancelled
        )
    }
}

/// One task, as stored.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TaskRecord {
    /// The server-minted, unguessable id.
    pub id: String,
    /// Who created it (the authenticated subject, or the anonymous owner):
    /// nobody else may read, update or cancel it.
    pub owner: String,
    /// Served in the stateless era (the extension's wire shape) or not.
    pub modern: bool,
    /// The current status.
    pub status: TaskStatus,
    /// A message about the current status.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status_message: Option<String>,
    /// Creation time, milliseconds since the Unix epoch.
    pub created_ms: u64,
    /// Last change, milliseconds since the Unix epoch.
    pub updated_ms: u64,
    /// How long after creation the task is kept; `None`: unlimited.
    pub ttl_ms: Option<u64>,
    /// The suggested polling interval.
    pub poll_ms: u64,
    /// The tool's `CallToolResult` once completed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<Value>,
    /// The JSON-RPC error object once failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<Value>,
    /// Requests to the client waiting for an answer, by key.
    #[serde(default)]
    pub input_requests: Map<String, Value>,
    /// Answers delivered by `tasks/update` the handler has not taken yet.
    #[serde(default)]
    pub input_responses: Map<String, Value>,
    /// `tasks/cancel` arrived (the replica running it stops the handler).
    #[serde(default)]
    pub cancel_requested: bool,
    /// The replica running the handler.
    pub replica: String,
    /// Until when that replica vouches for the task (it renews the lease
    /// while the handler runs); a running task past it is marked failed.
    pub lease_ms: u64,
}

impl TaskRecord {
    /// A task of `owner` that `replica` starts at `now_ms`: `working`, in
    /// the 2025-11-25 era's shape, kept without limit, polled every
    /// second, its lease ending at `now_ms` (set `lease_ms`, `ttl_ms`,
    /// `poll_ms` and `modern` with struct update syntax). A store's own
    /// tests build their records from it.
    pub fn working(id: String, owner: String, replica: String, now_ms: u64) -> Self {
        TaskRecord {
            id,
            owner,
            modern: false,
            status: TaskStatus::Working,
            status_message: None,
            created_ms: now_ms,
            updated_ms: now_ms,
            ttl_ms: None,
            poll_ms: 1000,
            result: None,
            error: None,
            input_requests: Map::new(),
            input_responses: Map::new(),
            cancel_requested: false,
            replica,
            lease_ms: now_ms,
        }
    }

    /// Records a change made at `now_ms`: `updated_ms` grows by at least
    /// one millisecond with every change, so it orders a task's changes (a
    /// record read before a change has a smaller one, even within one
    /// millisecond).
    pub fn touch(&mut self, now_ms: u64) {
        self.updated_ms = now_ms.max(self.updated_ms.saturating_add(1));
    }

    /// Whether it is unfinished and its replica stopped vouching for it
    /// before `now_ms` (its lease passed): the replica died, and the task
    /// is failed at its next reading.
    pub fn orphaned(&self, now_ms: u64) -> bool {
        !self.status.is_terminal() && self.lease_ms < now_ms
    }

    /// Whether it counts against its owner's bound of unfinished tasks at
    /// `now_ms`: running, and vouched for. An orphan does not (a replica
    /// that died, or a creation whose answer was lost on the way from the
    /// store, must not hold a place until the task's time-to-live ends).
    pub fn unfinished(&self, now_ms: u64) -> bool {
        !self.status.is_terminal() && !self.orphaned(now_ms)
    }

    /// Whether its time-to-live has passed at `now_ms`.
    pub fn expired(&self, now_ms: u64) -> bool {
        self.ttl_ms
            .is_some_and(|ttl| self.created_ms.saturating_add(ttl) <= now_ms)
    }
}

/// A change applied atomically by [`TaskStore::update`]; `false` leaves the
/// record as it was.
pub type TaskChange<'a> = &'a (dyn Fn(&mut TaskRecord) -> bool + Send + Sync);

/// Task state shared by the replicas of a server (or kept by one).
pub trait TaskStore: Send + Sync + 'static {
    /// Stores `record` unless its owner already has `limit` unfinished
    /// tasks ([`TaskRecord::unfinished`] at `record.created_ms`: an orphan
    /// does not count); `false` when refused for that reason.
    fn create<'a>(&'a self, record: &'a TaskRecord, limit: usize) -> TaskFuture<'a, bool>;

    /// The record `id`, unless unknown or expired.
    fn get<'a>(&'a self, id: &'a str) -> TaskFuture<'a, Option<TaskRecord>>;

    /// Applies `change` to the record `id` atomically and gives the record
    /// after it; `None` when unknown or expired.
    fn update<'a>(
        &'a self,
        id: &'a str,
        change: TaskChange<'a>,
    ) -> TaskFuture<'a, Option<TaskRecord>>;

    /// The records of `owner`, oldest first.
    fn list<'a>(&'a self, owner: &'a str) -> TaskFuture<'a, Vec<TaskRecord>>;
}

/// Tasks in this process's memory: the default store.
#[derive(Debug, Default)]
pub struct MemoryTaskStore {
    records: Mutex<HashMap<String, TaskRecord>>,
}

impl MemoryTaskStore {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }

    fn locked(&self) -> std::sync::MutexGuard<'_, HashMap<String, TaskRecord>> {
        let mut map = self.records.lock().unwrap_or_else(|p| p.into_inner());
        let now = super::now_ms();
        map.retain(|_, r| !r.expired(now));
        map
    }
}

impl TaskStore for MemoryTaskStore {
    fn create<'a>(&'a self, record: &'a TaskRecord, limit: usize) -> TaskFuture<'a, bool> {
        Box::pin(async move {
            let mut map = self.locked();
            let running = map
                .values()
                .filter(|r| r.owner == record.owner && r.unfinished(record.created_ms))
                .count();
            if running >= limit {
                return Ok(false);
            }
            map.insert(record.id.clone(), record.clone());
            Ok(true)
        })
    }

    fn get<'a>(&'a self, id: &'a str) -> TaskFuture<'a, Option<TaskRecord>> {
        Box::pin(async move { Ok(self.locked().get(id).cloned()) })
    }

    fn update<'a>(
        &'a self,
        id: &'a str,
        change: TaskChange<'a>,
    ) -> TaskFuture<'a, Option<TaskRecord>> {
        Box::pin(async move {
            let mut map = self.locked();
            let Some(record) = map.get_mut(id) else {
                return Ok(None);
            };
            let mut changed = record.clone();
            if change(&mut changed) {
                *record = changed;
            }
            Ok(Some(record.clone()))
        })
    }

    fn list<'a>(&'a self, owner: &'a str) -> TaskFuture<'a, Vec<TaskRecord>> {
        Box::pin(async move {
            let mut list: Vec<TaskRecord> = self
                .locked()
                .values()
                .filter(|r| r.owner == owner)
                .cloned()
                .collect();
            list.sort_by(|a, b| (a.created_ms, &a.id).cmp(&(b.created_ms, &b.id)));
            Ok(list)
        })
    }
}
