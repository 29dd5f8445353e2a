//! Long-running tool calls as tasks, in both revisions that have them:
//! the experimental tasks of 2025-11-25 (`basic/utilities/tasks.mdx`: the
//! client asks with `params.task`, `tasks/get`, `tasks/result`,
//! `tasks/list`, `tasks/cancel`) and the official extension
//! `io.modelcontextprotocol/tasks` of 2026-07-28 (SEP-2663: the server
//! decides, `tasks/get` inlines the result, `tasks/update` carries the
//! client's answers, `tasks/cancel`).
//!
//! This module owns what does not depend on the engine: the tool's
//! declaration ([`TaskSupport`]), the settings ([`TaskOptions`]), task
//! state behind [`TaskStore`] (in memory by default, in Redis with the
//! feature `redis`), each revision's wire
//! shape of a task (`wire`) and the handler's side ([`TaskContext`]).
//! The engine's side (when a call becomes a task, the `tasks/*` methods)
//! is `server::answer::task_methods`.

mod link;
#[cfg(feature = "redis")]
mod redis;
mod store;
pub(crate) mod wire;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde_json::Value;

pub use crate::server::handler::context::TaskContext;
pub(crate) use link::{Audience, TaskLink};
#[cfg(feature = "redis")]
pub use redis::RedisTaskStore;
pub use store::{
    MemoryTaskStore, TaskChange, TaskFuture, TaskRecord, TaskStatus, TaskStore, TaskStoreError,
};

use crate::server::handler::cancel::CancellationToken;

/// The extension's identifier (2026-07-28).
pub const EXTENSION: &str = "io.modelcontextprotocol/tasks";

/// The `_meta` key that ties a message to a task (2025-11-25).
pub const RELATED_TASK: &str = "io.modelcontextprotocol/related-task";

/// How a tool runs as a task: its `execution.taskSupport`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum TaskSupport {
    /// Never as a task (the default).
    #[default]
    Forbidden,
    /// As a task when the client supports tasks, otherwise inline.
    Optional,
    /// Only as a task: a client without task support gets an error.
    Required,
}

impl TaskSupport {
    /// The declaration of a `Tool` object (`execution.taskSupport`); a
    /// value [`TaskSupport::check`] refuses counts as forbidden.
    pub fn of(tool: &Value) -> Self {
        Self::check(tool).unwrap_or_default()
    }

    /// The declaration, or what is wrong with it.
    pub fn check(tool: &Value) -> Result<Self, String> {
        let Some(execution) = tool.get("execution") else {
            return Ok(TaskSupport::Forbidden);
        };
        match execution.get("taskSupport") {
            _ if !execution.is_object() => Err("`execution` must be an object".into()),
            None => Ok(TaskSupport::Forbidden),
            Some(Value::String(v)) if v == "forbidden" => Ok(TaskSupport::Forbidden),
            Some(Value::String(v)) if v == "optional" => Ok(TaskSupport::Optional),
            Some(Value::String(v)) if v == "required" => Ok(TaskSupport::Required),
            Some(other) => Err(format!(
                "`taskSupport` must be \"forbidden\", \"optional\" or \"required\", not {other}"
            )),
        }
    }
}

/// Settings of a server's tasks.
#[derive(Clone)]
pub struct TaskOptions {
    /// How long a task is kept after its creation (`None`: unlimited).
    /// Default one hour. A 2025-11-25 client's requested `ttl` may shorten it.
    pub ttl: Option<Duration>,
    /// The polling interval suggested to clients. Default 500 ms.
    pub poll_interval: Duration,
    /// Unfinished tasks one owner may have at once. Default 16.
    pub max_per_owner: usize,
    /// How long a replica vouches for the tasks it runs; it renews the
    /// lease every third of it. Default 15 s.
    pub lease: Duration,
    /// Where task state lives. Default: this process's memory.
    pub store: Arc<dyn TaskStore>,
}

impl Default for TaskOptions {
    fn default() -> Self {
        Self {
            ttl: Some(Duration::from_secs(3600)),
            poll_interval: Duration::from_millis(500),
            max_per_owner: 16,
            lease: Duration::from_secs(15),
            store: Arc::new(MemoryTaskStore::new()),
        }
    }
}

impl std::fmt::Debug for TaskOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TaskOptions")
            .field("ttl", &self.ttl)
            .field("poll_interval", &self.poll_interval)
            .field("max_per_owner", &self.max_per_owner)
            .field("lease", &self.lease)
            .finish_non_exhaustive()
    }
}

/// A server's tasks: the settings, the store, this replica's name and the
/// tasks whose handlers run here.
pub(crate) struct Tasks {
    pub(crate) options: TaskOptions,
    /// This replica, as written into the records it runs.
    pub(crate) replica: String,
    /// Handlers running in this process, by task id.
    running: Mutex<HashMap<String, Running>>,
}

/// A handler running here: how to stop it and wake it.
#[derive(Clone)]
pub(crate) struct Running {
    pub(crate) cancel: CancellationToken,
    pub(crate) link: Arc<TaskLink>,
}

impl Tasks {
    pub(crate) fn new(options: TaskOptions) -> Result<Self, crate::random::RandomError> {
        Ok(Self {
            options,
            replica: new_id()?,
            running: Mutex::default(),
        })
    }

    pub(crate) fn store(&self) -> &dyn TaskStore {
        &*self.options.store
    }

    pub(crate) fn register(&self, id: &str, running: Running) {
        self.running
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(id.to_owned(), running);
    }

    pub(crate) fn unregister(&self, id: &str) {
        self.running
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(id);
    }

    /// The handler of `id`, when it runs in this process.
    pub(crate) fn local(&self, id: &str) -> Option<Running> {
        self.running
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(id)
            .cloned()
    }
}

/// Milliseconds since the Unix epoch.
pub(crate) fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

/// A new unguessable id: 128 random bits as 32 hex digits; an error when
/// the operating system's random source fails (never a guessable id).
pub(crate) fn new_id() -> Result<String, crate::random::RandomError> {
    let mut bytes = [0u8; 16];
    crate::random::fill(&mut bytes)?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

/// `ms` (since the Unix epoch) as an ISO 8601 UTC timestamp with
/// milliseconds, `2026-07-28T10:30:00.000Z`.
pub(crate) fn iso8601(ms: u64) -> String {
    let secs = ms / 1000;
    let days = i64::try_from(secs / 86_400).unwrap_or(0);
    let rem = secs % 86_400;
    // Days since 1970-01-01 to a proleptic Gregorian date, by 400-year eras.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{:03}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60,
        ms % 1000
    )
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A `working` task record of one replica, created and changed at
    /// `now` (tests set the members they look at).
    pub(crate) fn working_record(now: u64) -> TaskRecord {
        TaskRecord {
            modern: true,
            poll_ms: 100,
            lease_ms: 0,
            ..TaskRecord::working("t".into(), "alice".into(), "r".into(), now)
        }
    }

    #[test]
    fn timestamps_are_iso_8601_utc() {
        assert_eq!(iso8601(0), "1970-01-01T00:00:00.000Z");
        // 2000-02-29 (a leap day in a year divisible by 400) 12:34:56.789.
        assert_eq!(iso8601(951_827_696_789), "2000-02-29T12:34:56.789Z");
        assert_eq!(iso8601(1_785_234_600_000), "2026-07-28T10:30:00.000Z");
    }

    #[test]
    fn task_support_reads_execution() {
        let tool = |v: Value| serde_json::json!({"name": "t", "execution": {"taskSupport": v}});
        assert_eq!(
            TaskSupport::of(&tool("required".into())),
            TaskSupport::Required
        );
        assert_eq!(
            TaskSupport::of(&tool("optional".into())),
            TaskSupport::Optional
        );
        assert_eq!(
            TaskSupport::of(&tool("forbidden".into())),
            TaskSupport::Forbidden
        );
        assert_eq!(
            TaskSupport::of(&serde_json::json!({"name": "t"})),
            TaskSupport::Forbidden
        );
        assert!(TaskSupport::check(&tool("sometimes".into()))
            .unwrap_err()
            .contains("\"sometimes\""));
        assert!(TaskSupport::check(&serde_json::json!({"execution": true})).is_err());
    }

    #[tokio::test]
    async fn the_memory_store_bounds_owners_and_forgets_expired_tasks() {
        let store = MemoryTaskStore::new();
        let now = now_ms();
        let record = |id: &str, owner: &str, ttl: Option<u64>| TaskRecord {
            id: id.into(),
            owner: owner.into(),
            ttl_ms: ttl,
            lease_ms: now + 1000,
            ..working_record(now)
        };
        assert!(store.create(&record("a", "alice", None), 2).await.unwrap());
        assert!(store.create(&record("b", "alice", None), 2).await.unwrap());
        assert!(
            !store.create(&record("c", "alice", None), 2).await.unwrap(),
            "a third unfinished task is refused"
        );
        assert!(
            store.create(&record("d", "bob", None), 2).await.unwrap(),
            "the bound is per owner"
        );
        let done = store.update("a", &|r| {
            r.status = TaskStatus::Completed;
            true
        });
        assert_eq!(done.await.unwrap().unwrap().status, TaskStatus::Completed);
        assert!(
            store.create(&record("c", "alice", None), 2).await.unwrap(),
            "a finished task no longer counts"
        );
        assert_eq!(store.list("alice").await.unwrap().len(), 3);
        assert!(store
            .create(&record("e", "carol", Some(0)), 2)
            .await
            .unwrap());
        assert_eq!(
            store.get("e").await.unwrap(),
            None,
            "a task past its ttl is gone"
        );
    }

    /// A task whose replica stopped vouching for it (it died, or the
    /// creation's answer never reached it) does not hold its owner's place
    /// until its time-to-live ends: the soak's caller was locked out for
    /// the rest of the hour by 16 creations whose answers timed out.
    #[tokio::test]
    async fn orphans_do_not_count_against_the_owners_bound() {
        let store = MemoryTaskStore::new();
        let now = now_ms();
        let record = |id: &str, lease_ms: u64| TaskRecord {
            id: id.into(),
            lease_ms,
            ..working_record(now)
        };
        assert!(store.create(&record("orphan", now - 1), 1).await.unwrap());
        assert!(
            store.create(&record("live", now + 1000), 1).await.unwrap(),
            "the orphan holds no place"
        );
        assert!(
            !store.create(&record("third", now + 1000), 1).await.unwrap(),
            "a live task does"
        );
        assert!(record("orphan", now - 1).orphaned(now));
        assert!(!record("live", now + 1000).orphaned(now));
    }
}
