// Driver for tests/client_tasks.rs: the generated client's typed task
// methods (`start_<tool>`) against the conformance fixture server.
// `driver stdio SERVER_BIN ERA` spawns the server; `driver http URL ERA`
// connects over Streamable HTTP. ERA is `legacy` (2025-11-25, tasks asked
// for with `params.task`) or `modern` (2026-07-28, the tasks extension).
// Prints "ok <step>" per passed step; panics otherwise. The server also
// tells of each change of a task's status: `notifications/tasks/status` on
// the session (2025-11-25, recorded by the driver), `notifications/tasks`
// on a `subscriptions/listen` naming the task (2026-07-28).

use std::sync::{Arc, Mutex};
use std::time::Duration;

use client::{Client, ClientError, ClientOptions};
use mcpgen_runtime::client::{ClientHandlers, TaskStart};
use tools::*;

fn text(blocks: &[protocol::ContentBlock]) -> String {
    blocks
        .iter()
        .filter_map(|b| match b {
            protocol::ContentBlock::Text(t) => Some(t.text.as_str()),
            _ => None,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The task status notifications received, in order.
type Notified = Arc<Mutex<Vec<serde_json::Value>>>;

/// The statuses notified for task `id`, in order.
fn notified_for(notified: &Notified, id: &str) -> Vec<String> {
    let all = notified.lock().unwrap();
    all.iter().filter(|n| n["taskId"] == id).map(|n| n["status"].as_str().unwrap_or_default().to_owned()).collect()
}

/// The statuses notified for task `id` once its end was notified (they may
/// come after the answer that gave the result, on another stream); panics
/// when the end is not notified within 30 s.
async fn notified_until_end(notified: &Notified, id: &str) -> Vec<String> {
    for _ in 0..1500 {
        let seen = notified_for(notified, id);
        if seen.last().is_some_and(|s| matches!(s.as_str(), "completed" | "failed" | "cancelled")) {
            return seen;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("the end of task {id} was not notified: {:?}", notified_for(notified, id));
}

fn options(era: &str, notified: &Notified) -> ClientOptions {
    let revision = if era == "modern" { "2026-07-28" } else { "2025-11-25" };
    let handlers = ClientHandlers::new()
        .on_elicitation(|_| async { Ok(serde_json::json!({"action": "accept", "content": {"confirm": true}})) });
    let notified = Arc::clone(notified);
    let mut options = ClientOptions::new([revision])
        .timeout(Duration::from_secs(30))
        .handlers(handlers)
        .on_notification(move |method, params| {
            if method == "notifications/tasks/status" {
                notified.lock().unwrap().push(params.clone());
            }
        });
    options.capabilities = serde_json::json!({
        "elicitation": {},
        "tasks": {"requests": {"elicitation": {"create": {}}}},
        "extensions": {"io.modelcontextprotocol/tasks": {}}
    });
    options
}

#[tokio::main]
async fn main() {
    let mut args = std::env::args().skip(1);
    let (transport, target, era) = (
        args.next().expect("usage: driver stdio|http SERVER_BIN|URL legacy|modern"),
        args.next().expect("server"),
        args.next().expect("era"),
    );
    let notified = Notified::default();
    let c = match transport.as_str() {
        "stdio" => Client::spawn_with(&target, std::iter::empty::<&str>(), options(&era, &notified)).await.expect("spawn"),
        "http" => Client::connect_http_with(&target, options(&era, &notified)).await.expect("connect_http"),
        other => panic!("unknown transport {other}"),
    };
    let session = c.session().expect("session");
    println!("ok connect {} stateless={}", session.protocol_version, session.stateless);

    // A task that runs to its typed result.
    let start = c
        .start_slow_compute(SlowComputeInput { seconds: 0.2, label: Some("typed".into()) }, Some(Duration::from_secs(60)))
        .await
        .expect("start_slow_compute");
    let TaskStart::Task(mut task) = start else { panic!("slow_compute did not run as a task") };
    let id = task.task().id().to_owned();
    assert!(!id.is_empty());
    // Its states as they come: notified (2025-11-25) or polled.
    while task.next_status().await.expect("the task's next state")["status"] == "working" {}
    assert_eq!(task.task().status(), "completed");
    let blocks = task.result().await.expect("the task's result");
    assert_eq!(text(&blocks), "Computed typed after 0.2 s");
    println!("ok task result");
    if era == "legacy" {
        assert_eq!(notified_until_end(&notified, &id).await, ["completed"], "the end of the task is notified");
    }

    // A task whose tool fails: the tool's error, typed.
    let start = c.start_failing_job(FailingJobInput::default(), None).await.expect("start_failing_job");
    match start.result().await {
        Err(ClientError::Tool { tool, .. }) => assert_eq!(tool, "failing_job"),
        other => panic!("failing_job: {other:?}"),
    }
    println!("ok task tool error");

    // A task cancelled while it runs.
    let start = c
        .start_slow_compute(SlowComputeInput { seconds: 60.0, label: None }, None)
        .await
        .expect("start a long task");
    let TaskStart::Task(mut task) = start else { panic!("a long slow_compute did not run as a task") };
    task.cancel().await.expect("cancel");
    let state = task.poll().await.expect("poll after cancel").clone();
    assert_eq!(state["status"], "cancelled", "{state}");
    assert!(task.result().await.is_err(), "a cancelled task has no result");
    println!("ok task cancel");

    // A task that asks for input, answered by the client's handlers: with
    // `tasks/update` (2026-07-28), or a request of the session tied to the
    // task while it is `input_required` (2025-11-25).
    let start = c
        .start_confirm_delete(ConfirmDeleteInput { filename: "old.txt".into() }, None)
        .await
        .expect("start_confirm_delete");
    let id = match &start {
        TaskStart::Task(task) => task.task().id().to_owned(),
        TaskStart::Done(_) => panic!("confirm_delete did not run as a task"),
    };
    let blocks = start.result().await.expect("confirm_delete's result");
    assert_eq!(text(&blocks), "Deleted old.txt");
    println!("ok task input");
    if era == "legacy" {
        let seen = notified_until_end(&notified, &id).await;
        assert_eq!(seen, ["input_required", "working", "completed"], "each change of status is notified");
        println!("ok task status notifications");
        return;
    }

    // 2026-07-28: a task's changes of status on a subscription naming it.
    let start = c.start_slow_compute(SlowComputeInput { seconds: 60.0, label: None }, None).await.expect("start a long task");
    let TaskStart::Task(task) = start else { panic!("a long slow_compute did not run as a task") };
    let id = task.task().id().to_owned();
    let mut subscription = c.engine().listen(serde_json::json!({"taskIds": [id]})).await.expect("listen");
    assert_eq!(subscription.acknowledged()["taskIds"][0], id.as_str(), "{}", subscription.acknowledged());
    task.cancel().await.expect("cancel");
    let next = tokio::time::timeout(Duration::from_secs(30), subscription.next()).await.expect("a task notification");
    let notification = next.expect("the subscription is open");
    assert_eq!(notification.method, "notifications/tasks");
    assert_eq!(notification.params["taskId"], id.as_str());
    assert_eq!(notification.params["status"], "cancelled", "{}", notification.params);
    println!("ok task status notifications");
}
