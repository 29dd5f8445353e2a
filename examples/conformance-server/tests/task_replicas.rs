//! Tasks across replicas with real infrastructure: two `conformance-server`
//! replicas sharing a `redis-server` task store behind `nginx` (round
//! robin, so consecutive requests go to alternate replicas). A task started
//! through the proxy is polled, answered and cancelled through it; a task
//! whose replica is killed is reported failed by the other once its lease
//! has passed. A missing `nginx` or `redis-server` skips the test, except
//! under `CI=true`, where it fails.

#[path = "../../weather-server/tests/infra/services.rs"]
mod services;

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use mcpgen_runtime::client::http::HttpTransport;
use mcpgen_runtime::client::{CallOptions, Client, ClientHandlers, ClientOptions, ToolStart};
use mcpgen_runtime::server::tasks::{RedisTaskStore, TaskRecord, TaskStatus, TaskStore, EXTENSION};
use serde_json::{json, Value};
use services::{require, Nginx, Process, Redis, PATIENCE};

/// A replica with its tasks in Redis at `store` and a one-second lease.
struct Replica {
    process: Process,
    url: String,
    addr: String,
}

impl Replica {
    fn start(store: &str) -> Self {
        let mut child = Command::new(env!("CARGO_BIN_EXE_conformance-server"))
            .args([
                "--http",
                "127.0.0.1:0",
                "--task-store",
                store,
                "--task-lease-ms",
                "1000",
            ])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("conformance-server starts");
        let stderr = child.stderr.take().expect("stderr piped");
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                if let Some(url) = line.strip_prefix("MCP endpoint: ") {
                    let _ = tx.send(url.trim().to_owned());
                }
            }
        });
        let url = rx
            .recv_timeout(PATIENCE)
            .expect("the replica prints its endpoint");
        let addr = url
            .trim_start_matches("http://")
            .trim_end_matches("/mcp")
            .to_owned();
        Self {
            process: Process(Some(child)),
            url,
            addr,
        }
    }
}

async fn client(url: &str) -> Client {
    let handlers = ClientHandlers::new().on_elicitation(|_| async {
        Ok(json!({"action": "accept", "content": {"confirm": true}}))
    });
    let mut options = ClientOptions::new(["2026-07-28"])
        .timeout(Duration::from_secs(20))
        .handlers(handlers);
    options.capabilities = json!({"elicitation": {}, "extensions": { EXTENSION: {} }});
    Client::connect(HttpTransport::new(url).expect("a URL"), options)
        .await
        .expect("connect")
}

async fn get(client: &Client, id: &str) -> Value {
    client
        .request(
            "tasks/get",
            Some(json!({"taskId": id})),
            &CallOptions::new(),
        )
        .await
        .expect("tasks/get")
}

/// Polls until the task's status is `status` (at most a minute).
async fn until(client: &Client, id: &str, status: &str) -> Value {
    for _ in 0..600 {
        let task = get(client, id).await;
        if task["status"] == status {
            return task;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("task {id} never became {status}: {}", get(client, id).await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tasks_are_served_by_every_replica_and_a_dead_replicas_tasks_fail() {
    let (Some(nginx), Some(redis)) = (require("nginx"), require("redis-server")) else {
        return;
    };
    let redis = Redis::start(&redis);
    let (a, b) = (Replica::start(&redis.url), Replica::start(&redis.url));
    let proxy = Nginx::start(&nginx, &[&a.addr, &b.addr]);
    let through = client(&proxy.url).await;

    // Input asked on one replica, seen and answered through both.
    let ToolStart::Task(mut task) = through
        .start_tool("confirm_delete", json!({"filename": "a.txt"}), None)
        .await
        .unwrap()
    else {
        panic!("confirm_delete runs as a task")
    };
    let id = task.id().to_owned();
    let parked = until(&through, &id, "input_required").await;
    assert_eq!(
        parked["inputRequests"]["confirm"]["method"],
        "elicitation/create"
    );
    for _ in 0..4 {
        assert_eq!(
            task.poll().await.unwrap()["status"],
            "input_required",
            "every replica sees the task"
        );
    }
    let result = task.result().await.unwrap();
    assert_eq!(result["content"][0]["text"], "Deleted a.txt");

    // Cancelled through the proxy, whichever replica runs it.
    let ToolStart::Task(task) = through
        .start_tool("slow_compute", json!({"seconds": 60}), None)
        .await
        .unwrap()
    else {
        panic!("slow_compute runs as a task")
    };
    task.cancel().await.unwrap();
    for _ in 0..4 {
        assert_eq!(get(&through, task.id()).await["status"], "cancelled");
    }

    // A replica dies with a task running: the other reports it failed.
    let (on_a, on_b) = (client(&a.url).await, client(&b.url).await);
    let ToolStart::Task(task) = on_a
        .start_tool("slow_compute", json!({"seconds": 60}), None)
        .await
        .unwrap()
    else {
        panic!("slow_compute runs as a task")
    };
    let id = task.id().to_owned();
    assert_eq!(
        get(&on_b, &id).await["status"],
        "working",
        "the live replica's task is working"
    );
    let mut a = a;
    a.process.kill();
    let failed = until(&on_b, &id, "failed").await;
    assert!(
        failed["error"]["message"]
            .as_str()
            .unwrap_or_default()
            .contains("replica"),
        "{failed}"
    );
}

/// The Redis store's bound of unfinished tasks per owner counts only tasks
/// some replica vouches for: an orphan (its replica died, or the creation
/// timed out on the way back while Redis stored it, as the soak saw under
/// a slow disk) holds no place until its time-to-live ends.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_redis_stores_bound_ignores_orphaned_tasks() {
    let Some(redis) = require("redis-server") else {
        return;
    };
    let redis = Redis::start(&redis);
    let store = RedisTaskStore::new(&redis.url).expect("a store");
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64;
    let record = |id: &str, lease_ms: u64| TaskRecord {
        modern: true,
        ttl_ms: Some(60_000),
        poll_ms: 100,
        lease_ms,
        ..TaskRecord::working(id.into(), "alice".into(), "gone".into(), now)
    };
    assert!(store.create(&record("orphan", now - 1), 1).await.unwrap());
    assert!(
        store
            .create(&record("live", now + 60_000), 1)
            .await
            .unwrap(),
        "the orphan holds no place"
    );
    assert!(
        !store
            .create(&record("third", now + 60_000), 1)
            .await
            .unwrap(),
        "a live task does"
    );
    let finished = store
        .update("live", &|r| {
            r.status = TaskStatus::Completed;
            true
        })
        .await
        .unwrap();
    assert_eq!(finished.map(|r| r.status), Some(TaskStatus::Completed));
    assert!(
        store
            .create(&record("third", now + 60_000), 1)
            .await
            .unwrap(),
        "a finished task holds no place"
    );
    let listed: Vec<String> = store
        .list("alice")
        .await
        .unwrap()
        .into_iter()
        .map(|r| r.id)
        .collect();
    assert_eq!(listed.len(), 3, "every task is listed: {listed:?}");
    // The owner's sets live as long as their longest-lived task, no longer.
    for set in ["mcpgen:owner:alice", "mcpgen:open:alice"] {
        let left: i64 = redis.cli(&["PTTL", set]).trim().parse().unwrap();
        assert!(left > 50_000 && left <= 60_000, "{set}: {left} ms left");
    }
}

/// `tasks/list` of an owner with many tasks reads their records in a few
/// round trips (`MGET` in batches), not one `GET` per task, and lists them
/// in creation order, leaving out a task whose record is gone.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_redis_store_lists_many_tasks_in_few_round_trips() {
    let Some(redis) = require("redis-server") else {
        return;
    };
    let redis = Redis::start(&redis);
    let store = RedisTaskStore::new(&redis.url).expect("a store");
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64;
    for i in 0..600u64 {
        let record = TaskRecord {
            modern: true,
            ttl_ms: Some(60_000),
            poll_ms: 100,
            lease_ms: now + 60_000,
            ..TaskRecord::working(format!("t{i:03}"), "bob".into(), "slow".into(), now + i)
        };
        assert!(store.create(&record, 1000).await.unwrap());
    }
    // One record gone (expired) while its id is still in the owner's set.
    redis.cli(&["DEL", "mcpgen:task:t300"]);
    redis.cli(&["CONFIG", "RESETSTAT"]);
    let listed: Vec<String> = store
        .list("bob")
        .await
        .unwrap()
        .into_iter()
        .map(|r| r.id)
        .collect();
    let expected: Vec<String> = (0..600)
        .filter(|i| *i != 300)
        .map(|i| format!("t{i:03}"))
        .collect();
    assert_eq!(listed, expected);
    let stats = redis.cli(&["INFO", "commandstats"]);
    let calls = |command: &str| {
        stats
            .lines()
            .find_map(|l| l.strip_prefix(&format!("cmdstat_{command}:calls=")))
            .and_then(|rest| rest.split(',').next())
            .map_or(0, |n| n.parse::<u64>().unwrap())
    };
    assert_eq!(calls("get"), 0, "{stats}");
    assert_eq!(calls("mget"), 3, "600 ids in batches of 256: {stats}");
}
