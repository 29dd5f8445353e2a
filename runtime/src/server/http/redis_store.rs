//! [`RedisStore`] (feature `redis`): stateful sessions shared by replicas
//! through Redis. A session is one string key (`{prefix}session:{id}`, the
//! [`StoredSession`] as JSON) whose time-to-live is the idle expiry; events
//! go over one pub/sub channel (`{prefix}events`) every replica listens
//! to. One multiplexed connection serves the commands and is made again
//! after a failure; every operation has a time limit, so a Redis that is
//! down or gone makes operations fail, never wait.
//!
//! It is also a [`RateLimitStore`]: each bucket one hash
//! (`{prefix}limit:{tool}\0{scope key}`: tokens and the time of the last
//! take, by Redis's clock), taken from by one script, atomically, with an
//! expiry once it would be full again.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures_util::StreamExt;
use redis::aio::MultiplexedConnection;
use serde::{Deserialize, Serialize};
use tokio::sync::mpsc;

use super::store::{
    bounded, Events, SessionEvent, SessionStore, StoreError, StoreFuture, StoredSession,
};
use crate::server::tools::limits::{LimitFuture, LimitStoreError, RateLimit, RateLimitStore};

/// The longest wait between attempts to listen to events again.
const MAX_BACKOFF: Duration = Duration::from_secs(2);

/// A [`SessionStore`] in Redis; cheap to clone (clones share the connection).
#[derive(Clone)]
pub struct RedisStore {
    inner: Arc<Inner>,
}

struct Inner {
    client: redis::Client,
    prefix: String,
    timeout: Duration,
    connection: Mutex<Option<MultiplexedConnection>>,
}

impl std::fmt::Debug for RedisStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisStore")
            .field("prefix", &self.inner.prefix)
            .field("timeout", &self.inner.timeout)
            .finish()
    }
}

/// One event on the channel.
#[derive(Serialize, Deserialize)]
struct Envelope {
    session: String,
    event: SessionEvent,
}

fn failed(e: impl std::fmt::Display) -> StoreError {
    StoreError(e.to_string())
}

impl RedisStore {
    /// A store at `url` (`redis://host:port/db`); connects on first use.
    pub fn new(url: &str) -> Result<Self, StoreError> {
        let client = redis::Client::open(url).map_err(|e| StoreError(format!("{url}: {e}")))?;
        Ok(Self {
            inner: Arc::new(Inner {
                client,
                prefix: "mcpgen:".into(),
                timeout: Duration::from_secs(1),
                connection: Mutex::new(None),
            }),
        })
    }

    /// Prefixes every key and the channel with `prefix` (default
    /// `mcpgen:`), e.g. to keep several servers apart in one Redis.
    pub fn prefix(mut self, prefix: impl Into<String>) -> Self {
        if let Some(inner) = Arc::get_mut(&mut self.inner) {
            inner.prefix = prefix.into();
        }
        self
    }

    /// Sets the time limit of each Redis command, connecting included
    /// (default 1 s).
    pub fn timeout(mut self, limit: Duration) -> Self {
        if let Some(inner) = Arc::get_mut(&mut self.inner) {
            inner.timeout = limit;
        }
        self
    }

    fn key(&self, id: &str) -> String {
        format!("{}session:{id}", self.inner.prefix)
    }

    fn channel(&self) -> String {
        format!("{}events", self.inner.prefix)
    }

    async fn connection(&self) -> Result<MultiplexedConnection, StoreError> {
        if let Some(open) = self
            .inner
            .connection
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
        {
            return Ok(open);
        }
        let open = bounded(self.inner.timeout, async {
            self.inner
                .client
                .get_multiplexed_async_connection()
                .await
                .map_err(failed)
        })
        .await?;
        *self
            .inner
            .connection
            .lock()
            .unwrap_or_else(|p| p.into_inner()) = Some(open.clone());
        Ok(open)
    }

    /// Runs one command; a failure drops the connection (the next command
    /// connects again).
    async fn run<T: redis::FromRedisValue>(&self, command: redis::Cmd) -> Result<T, StoreError> {
        let result = bounded(self.inner.timeout, async {
            let mut connection = self.connection().await?;
            command
                .query_async::<T>(&mut connection)
                .await
                .map_err(failed)
        })
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
}

/// Takes one call from the bucket `KEYS[1]` (`ARGV`: calls per second,
/// burst) by Redis's clock: 0 when taken, else the milliseconds until one
/// would be, -1 for never.
const TAKE: &str = r"
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local rate = tonumber(ARGV[1])
local burst = tonumber(ARGV[2])
local state = redis.call('HMGET', KEYS[1], 'tokens', 'at')
local tokens = tonumber(state[1])
local at = tonumber(state[2])
if tokens == nil or at == nil then
  tokens = burst
  at = now
end
tokens = math.min(burst, tokens + math.max(0, now - at) / 1000000 * rate)
local wait = 0
if tokens >= 1 then
  tokens = tokens - 1
elseif rate > 0 then
  wait = math.max(1, math.ceil((1 - tokens) / rate * 1000))
else
  wait = -1
end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'at', tostring(math.max(now, at)))
if rate > 0 then
  redis.call('PEXPIRE', KEYS[1], math.ceil(burst / rate * 1000) + 1000)
end
return wait
";

impl RateLimitStore for RedisStore {
    fn take<'a>(&'a self, key: &'a str, limit: RateLimit) -> LimitFuture<'a> {
        Box::pin(async move {
            let wait: i64 = self
                .run(
                    redis::cmd("EVAL")
                        .arg(TAKE)
                        .arg(1)
                        .arg(format!("{}limit:{key}", self.inner.prefix))
                        .arg(limit.per_second)
                        .arg(limit.burst)
                        .clone(),
                )
                .await
                .map_err(|e| LimitStoreError(e.0))?;
            Ok(match wait {
                0 => Ok(()),
                w if w < 0 => Err(Duration::MAX),
                w => Err(Duration::from_millis(w.unsigned_abs())),
            })
        })
    }
}

fn millis(ttl: Duration) -> u64 {
    u64::try_from(ttl.as_millis()).unwrap_or(u64::MAX).max(1)
}

impl SessionStore for RedisStore {
    fn load<'a>(&'a self, id: &'a str) -> StoreFuture<'a, Option<StoredSession>> {
        Box::pin(async move {
            let text: Option<String> = self
                .run(redis::cmd("GET").arg(self.key(id)).clone())
                .await?;
            match text {
                Some(text) => serde_json::from_str(&text)
                    .map(Some)
                    .map_err(|e| StoreError(format!("session {id}: {e}"))),
                None => Ok(None),
            }
        })
    }

    fn save<'a>(
        &'a self,
        id: &'a str,
        session: &'a StoredSession,
        ttl: Duration,
    ) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            let text = serde_json::to_string(session).map_err(failed)?;
            self.run::<()>(
                redis::cmd("SET")
                    .arg(self.key(id))
                    .arg(text)
                    .arg("PX")
                    .arg(millis(ttl))
                    .clone(),
            )
            .await
        })
    }

    fn touch<'a>(&'a self, id: &'a str, ttl: Duration) -> StoreFuture<'a, bool> {
        Box::pin(async move {
            let set: i64 = self
                .run(
                    redis::cmd("PEXPIRE")
                        .arg(self.key(id))
                        .arg(millis(ttl))
                        .clone(),
                )
                .await?;
            Ok(set == 1)
        })
    }

    fn remove<'a>(&'a self, id: &'a str) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            self.run::<i64>(redis::cmd("DEL").arg(self.key(id)).clone())
                .await
                .map(|_| ())
        })
    }

    fn publish<'a>(&'a self, id: &'a str, event: &'a SessionEvent) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            let text = serde_json::to_string(&Envelope {
                session: id.to_owned(),
                event: event.clone(),
            })
            .map_err(failed)?;
            self.run::<i64>(redis::cmd("PUBLISH").arg(self.channel()).arg(text).clone())
                .await
                .map(|_| ())
        })
    }

    fn subscribe(&self) -> Events {
        let (tx, rx) = mpsc::channel(256);
        let (client, channel, limit) = (
            self.inner.client.clone(),
            self.channel(),
            self.inner.timeout,
        );
        tokio::spawn(async move {
            let mut backoff = Duration::from_millis(50);
            while !tx.is_closed() {
                let subscribed = bounded(limit, async {
                    let mut pubsub = client.get_async_pubsub().await.map_err(failed)?;
                    pubsub.subscribe(&channel).await.map_err(failed)?;
                    Ok(pubsub)
                })
                .await;
                match subscribed {
                    Ok(pubsub) => {
                        backoff = Duration::from_millis(50);
                        let mut messages = pubsub.into_on_message();
                        loop {
                            tokio::select! {
                                next = messages.next() => {
                                    let Some(message) = next else { break };
                                    let Ok(text) = message.get_payload::<String>() else { continue };
                                    match serde_json::from_str::<Envelope>(&text) {
                                        Ok(e) => {
                                            if tx.send((e.session, e.event)).await.is_err() {
                                                return;
                                            }
                                        }
                                        Err(e) => tracing::warn!(error = %e, "an event on the session channel is not understood"),
                                    }
                                }
                                () = tx.closed() => return,
                            }
                        }
                        tracing::warn!(
                            "session events: the Redis subscription ended; subscribing again"
                        );
                    }
                    Err(e) => tracing::debug!(error = %e, "session events: Redis unavailable"),
                }
                tokio::select! {
                    () = tokio::time::sleep(backoff) => {}
                    () = tx.closed() => return,
                }
                backoff = (backoff * 2).min(MAX_BACKOFF);
            }
        });
        rx
    }
}
