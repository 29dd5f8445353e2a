//! [`RedisTaskStore`] (feature `redis`): task state shared by replicas
//! through Redis, in the deployment of the session store. A task is one
//! string key (`{prefix}task:{id}`, the [`TaskRecord`] as JSON) that
//! expires with the task's time-to-live; an owner's task ids are a set
//! (`{prefix}owner:{owner}`, for `tasks/list`), and those not known to be
//! finished another (`{prefix}open:{owner}`); each set expires with its
//! longest-lived task. Creation checks the owner's bound and stores in
//! one script; an update is a compare-and-set of the record's
//! text, retried when another replica changed it in between.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use redis::aio::MultiplexedConnection;

use super::store::{TaskChange, TaskFuture, TaskRecord, TaskStore, TaskStoreError};

/// Creates a task unless its owner has `limit` unfinished ones (running
/// and vouched for: [`TaskRecord::unfinished`]). Only the owner's open set
/// is read, and the ids of tasks that finished or expired leave it there,
/// so a creation reads about `limit` records however many tasks the owner
/// made within the time-to-live (reading them all made Redis the soak's
/// busiest process). Each set expires with the longest-lived task in it.
/// KEYS: task key, owner set, open set. ARGV: record JSON, limit, ttl ms
/// (0: none), key prefix, task id, now (ms).
const CREATE: &str = r#"
local unfinished = 0
for _, id in ipairs(redis.call('SMEMBERS', KEYS[3])) do
  local text = redis.call('GET', ARGV[4] .. 'task:' .. id)
  local record = text and cjson.decode(text)
  local status = record and record['status']
  if status == 'working' or status == 'input_required' then
    if tonumber(record['lease_ms']) >= tonumber(ARGV[6]) then
      unfinished = unfinished + 1
    end
  else
    redis.call('SREM', KEYS[3], id)
  end
end
if unfinished >= tonumber(ARGV[2]) then return 0 end
local ttl = tonumber(ARGV[3])
if ttl > 0 then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ttl)
else
  redis.call('SET', KEYS[1], ARGV[1])
end
for i = 2, 3 do
  local fresh = redis.call('EXISTS', KEYS[i]) == 0
  redis.call('SADD', KEYS[i], ARGV[5])
  if ttl == 0 then
    redis.call('PERSIST', KEYS[i])
  else
    local left = redis.call('PTTL', KEYS[i])
    if fresh or (left >= 0 and left < ttl) then redis.call('PEXPIRE', KEYS[i], ttl) end
  end
end
return 1
"#;

/// Replaces the record when it is still the text read. KEYS: task key.
/// ARGV: old text, new text.
const SWAP: &str = r#"
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[2], 'KEEPTTL')
return 1
"#;

/// How often an update is tried again when the record changed under it.
const MAX_SWAPS: usize = 32;

/// Records `tasks/list` reads per `MGET`.
const LIST_BATCH: usize = 256;

/// A [`TaskStore`] in Redis; cheap to clone (clones share the connection).
#[derive(Clone)]
pub struct RedisTaskStore {
    inner: Arc<Inner>,
}

struct Inner {
    client: redis::Client,
    prefix: String,
    timeout: Duration,
    connection: Mutex<Option<MultiplexedConnection>>,
}

impl std::fmt::Debug for RedisTaskStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisTaskStore")
            .field("prefix", &self.inner.prefix)
            .field("timeout", &self.inner.timeout)
            .finish()
    }
}

fn failed(e: impl std::fmt::Display) -> TaskStoreError {
    TaskStoreError(e.to_string())
}

impl RedisTaskStore {
    /// A store at `url` (`redis://host:port/db`), keys prefixed `mcpgen:`;
    /// connects on first use.
    pub fn new(url: &str) -> Result<Self, TaskStoreError> {
        let client = redis::Client::open(url).map_err(|e| TaskStoreError(format!("{url}: {e}")))?;
        Ok(Self {
            inner: Arc::new(Inner {
                client,
                prefix: "mcpgen:".into(),
                timeout: Duration::from_secs(1),
                connection: Mutex::new(None),
            }),
        })
    }

    /// Prefixes every key with `prefix` (default `mcpgen:`).
    pub fn prefix(mut self, prefix: impl Into<String>) -> Self {
        if let Some(inner) = Arc::get_mut(&mut self.inner) {
            inner.prefix = prefix.into();
        }
        self
    }

    fn key(&self, id: &str) -> String {
        format!("{}task:{id}", self.inner.prefix)
    }

    fn owner_key(&self, owner: &str) -> String {
        format!("{}owner:{owner}", self.inner.prefix)
    }

    fn open_key(&self, owner: &str) -> String {
        format!("{}open:{owner}", self.inner.prefix)
    }

    async fn connection(&self) -> Result<MultiplexedConnection, TaskStoreError> {
        if let Some(open) = self
            .inner
            .connection
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
        {
            return Ok(open);
        }
        let open = tokio::time::timeout(
            self.inner.timeout,
            self.inner.client.get_multiplexed_async_connection(),
        )
        .await
        .map_err(|_| failed("no connection within the time limit"))?
        .map_err(failed)?;
        *self
            .inner
            .connection
            .lock()
            .unwrap_or_else(|p| p.into_inner()) = Some(open.clone());
        Ok(open)
    }

    /// Runs one command within the time limit; a failure drops the
    /// connection (the next command connects again).
    async fn run<T: redis::FromRedisValue>(
        &self,
        command: redis::Cmd,
    ) -> Result<T, TaskStoreError> {
        let result = async {
            let mut connection = self.connection().await?;
            match tokio::time::timeout(
                self.inner.timeout,
                command.query_async::<T>(&mut connection),
            )
            .await
            {
                Ok(answer) => answer.map_err(failed),
                Err(_) => Err(failed(format!(
                    "no answer within {} ms",
                    self.inner.timeout.as_millis()
                ))),
            }
        }
        .await;
        if result.is_err() {
            *self
                .inner
                .connection
                .lock()
                .unwrap_or_else(|p| p.into_inner()) = None;
        }
        result
    }

    async fn text(&self, id: &str) -> Result<Option<String>, TaskStoreError> {
        self.run(redis::cmd("GET").arg(self.key(id)).clone()).await
    }
}

fn decode(id: &str, text: &str) -> Result<TaskRecord, TaskStoreError> {
    serde_json::from_str(text).map_err(|e| TaskStoreError(format!("task {id}: {e}")))
}

impl TaskStore for RedisTaskStore {
    fn create<'a>(&'a self, record: &'a TaskRecord, limit: usize) -> TaskFuture<'a, bool> {
        Box::pin(async move {
            let text = serde_json::to_string(record).map_err(failed)?;
            let mut command = redis::cmd("EVAL");
            command
                .arg(CREATE)
                .arg(3)
                .arg(self.key(&record.id))
                .arg(self.owner_key(&record.owner))
                .arg(self.open_key(&record.owner));
            command
                .arg(text)
                .arg(limit)
                .arg(record.ttl_ms.unwrap_or(0))
                .arg(&self.inner.prefix)
                .arg(&record.id)
                .arg(record.created_ms);
            let created: i64 = self.run(command).await?;
            Ok(created == 1)
        })
    }

    fn get<'a>(&'a self, id: &'a str) -> TaskFuture<'a, Option<TaskRecord>> {
        Box::pin(async move {
            match self.text(id).await? {
                Some(text) => decode(id, &text).map(Some),
                None => Ok(None),
            }
        })
    }

    fn update<'a>(
        &'a self,
        id: &'a str,
        change: TaskChange<'a>,
    ) -> TaskFuture<'a, Option<TaskRecord>> {
        Box::pin(async move {
            for _ in 0..MAX_SWAPS {
                let Some(old) = self.text(id).await? else {
                    return Ok(None);
                };
                let mut record = decode(id, &old)?;
                if !change(&mut record) {
                    return Ok(Some(record));
                }
                let new = serde_json::to_string(&record).map_err(failed)?;
                let mut command = redis::cmd("EVAL");
                command.arg(SWAP).arg(1).arg(self.key(id)).arg(old).arg(new);
                let swapped: i64 = self.run(command).await?;
                if swapped == 1 {
                    return Ok(Some(record));
                }
            }
            Err(TaskStoreError(format!(
                "task {id} kept changing under {MAX_SWAPS} updates; retry"
            )))
        })
    }

    fn list<'a>(&'a self, owner: &'a str) -> TaskFuture<'a, Vec<TaskRecord>> {
        Box::pin(async move {
            let ids: Vec<String> = self
                .run(redis::cmd("SMEMBERS").arg(self.owner_key(owner)).clone())
                .await?;
            let mut list = Vec::with_capacity(ids.len());
            // A round trip per batch, not per task; an id whose task
            // expired reads as nil and is left out.
            for batch in ids.chunks(LIST_BATCH) {
                let mut command = redis::cmd("MGET");
                for id in batch {
                    command.arg(self.key(id));
                }
                let texts: Vec<Option<String>> = self.run(command).await?;
                for (id, text) in batch.iter().zip(texts) {
                    if let Some(text) = text {
                        list.push(decode(id, &text)?);
                    }
                }
            }
            list.sort_by(|a, b| (a.created_ms, &a.id).cmp(&(b.created_ms, &b.id)));
            Ok(list)
        })
    }
}
