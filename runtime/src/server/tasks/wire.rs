//! Each revision's wire shape of a task. 2025-11-25 names the durations
//! `ttl` and `pollInterval` and wraps a new task as `{"task": …}`; the
//! 2026-07-28 extension names them `ttlMs` and `pollIntervalMs`, answers a
//! call with the flat task and `resultType: "task"`, and inlines the
//! pending `inputRequests`, the `result` or the `error` in `tasks/get`.

use serde_json::{Map, Value};

use super::{iso8601, TaskRecord, TaskStatus};

/// The `Task` members common to both revisions, with each one's names.
pub(crate) fn task(record: &TaskRecord) -> Map<String, Value> {
    let (ttl, poll) = if record.modern {
        ("ttlMs", "pollIntervalMs")
    } else {
        ("ttl", "pollInterval")
    };
    let mut task = Map::new();
    task.insert("taskId".into(), Value::from(record.id.as_str()));
    task.insert("status".into(), Value::from(record.status.as_str()));
    if let Some(message) = &record.status_message {
        task.insert("statusMessage".into(), Value::from(message.as_str()));
    }
    task.insert("createdAt".into(), Value::from(iso8601(record.created_ms)));
    task.insert(
        "lastUpdatedAt".into(),
        Value::from(iso8601(record.updated_ms)),
    );
    task.insert(ttl.into(), record.ttl_ms.map_or(Value::Null, Value::from));
    task.insert(poll.into(), Value::from(record.poll_ms));
    task
}

/// The answer to the call that created the task: `{"task": Task}`
/// (2025-11-25), or the flat task with `resultType: "task"` (2026-07-28).
pub(crate) fn created(record: &TaskRecord) -> Value {
    if record.modern {
        let mut task = task(record);
        task.insert("resultType".into(), Value::from("task"));
        Value::Object(task)
    } else {
        let mut result = Map::new();
        result.insert("task".into(), Value::Object(task(record)));
        Value::Object(result)
    }
}

/// The `tasks/get` result: the task (2025-11-25), or the detailed task
/// with what its status carries inlined (2026-07-28).
pub(crate) fn detailed(record: &TaskRecord) -> Value {
    let mut task = task(record);
    if record.modern {
        match record.status {
            TaskStatus::InputRequired => {
                task.insert(
                    "inputRequests".into(),
                    Value::Object(record.input_requests.clone()),
                );
            }
            TaskStatus::Completed => {
                task.insert(
                    "result".into(),
                    record
                        .result
                        .clone()
                        .unwrap_or_else(|| Value::Object(Map::new())),
                );
            }
            TaskStatus::Failed => {
                task.insert(
                    "error".into(),
                    record
                        .error
                        .clone()
                        .unwrap_or_else(|| Value::Object(Map::new())),
                );
            }
            TaskStatus::Working | TaskStatus::Cancelled => {}
        }
    }
    Value::Object(task)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn record(modern: bool) -> TaskRecord {
        TaskRecord {
            modern,
            status: TaskStatus::Completed,
            updated_ms: 1000,
            ttl_ms: Some(60_000),
            poll_ms: 500,
            result: Some(json!({"content": []})),
            ..TaskRecord::working("t1".into(), String::new(), String::new(), 0)
        }
    }

    #[test]
    fn each_revision_names_the_durations_its_way() {
        let modern = created(&record(true));
        assert_eq!(modern["resultType"], "task");
        assert_eq!(modern["ttlMs"], 60_000);
        assert_eq!(modern["pollIntervalMs"], 500);
        assert!(
            modern.get("ttl").is_none()
                && modern.get("task").is_none()
                && modern.get("result").is_none()
        );
        let legacy = created(&record(false));
        assert_eq!(legacy["task"]["ttl"], 60_000);
        assert_eq!(legacy["task"]["pollInterval"], 500);
        assert_eq!(legacy["task"]["createdAt"], "1970-01-01T00:00:00.000Z");
    }

    #[test]
    fn the_extension_inlines_the_result_in_tasks_get() {
        assert_eq!(detailed(&record(true))["result"], json!({"content": []}));
        assert!(
            detailed(&record(false)).get("result").is_none(),
            "2025-11-25 has tasks/result for it"
        );
    }
}
