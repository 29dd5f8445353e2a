//! The `notifications/tasks/status` a 2025-11-25 server sends when one of
//! its tasks changes status, kept by task id for the [`ToolTask`] handles
//! waiting on them (see [`ToolTask::next_status`]).
//!
//! A notification may come before the handle exists (the task changed
//! status while the answer that created it was on its way, or came on
//! another stream): the latest state of a few such tasks is kept for the
//! handle to find. Nothing grows without bound: at most
//! [`MAX_UNCLAIMED`] tasks nobody waits on are kept, the oldest dropped.
//!
//! [`ToolTask`]: super::ToolTask
//! [`ToolTask::next_status`]: super::ToolTask::next_status

use std::collections::{HashMap, VecDeque};

use serde_json::Value;
use tokio::sync::watch;

/// Tasks with a notified state and no handle waiting, kept at most.
pub(crate) const MAX_UNCLAIMED: usize = 32;

/// The latest notified state of tasks, by id.
#[derive(Default)]
pub(crate) struct Statuses {
    /// Each task's latest state (`None` until one was notified).
    tasks: HashMap<String, watch::Sender<Option<Value>>>,
    /// Tasks kept without a handle, oldest first.
    unclaimed: VecDeque<String>,
}

impl Statuses {
    /// Keeps the task state a notification carried (its params).
    pub(crate) fn deliver(&mut self, params: &Value) {
        let Some(id) = params.get("taskId").and_then(Value::as_str) else {
            tracing::debug!(
                "mcp client: a task status notification without a string taskId dropped"
            );
            return;
        };
        if let Some(tx) = self.tasks.get(id) {
            tx.send_replace(Some(params.clone()));
            return;
        }
        if self.unclaimed.len() >= MAX_UNCLAIMED {
            if let Some(oldest) = self.unclaimed.pop_front() {
                self.tasks.remove(&oldest);
            }
        }
        self.tasks
            .insert(id.to_owned(), watch::Sender::new(Some(params.clone())));
        self.unclaimed.push_back(id.to_owned());
    }

    /// Watches task `id`: the receiver sees every state notified from now
    /// on, and one kept from before as not seen yet.
    pub(crate) fn watch(&mut self, id: &str) -> watch::Receiver<Option<Value>> {
        if let Some(at) = self.unclaimed.iter().position(|u| u == id) {
            self.unclaimed.remove(at);
        }
        let tx = self
            .tasks
            .entry(id.to_owned())
            .or_insert_with(|| watch::Sender::new(None));
        let mut rx = tx.subscribe();
        if rx.borrow().is_some() {
            rx.mark_changed();
        }
        rx
    }

    /// Stops keeping task `id` once no handle watches it.
    pub(crate) fn unwatch(&mut self, id: &str) {
        // The handle's receiver is dropped after this runs: one left is its own.
        if self
            .tasks
            .get(id)
            .is_some_and(|tx| tx.receiver_count() <= 1)
        {
            self.tasks.remove(id);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_state_notified_before_the_handle_is_found_by_it() {
        let mut statuses = Statuses::default();
        statuses.deliver(&json!({"taskId": "a", "status": "completed"}));
        let mut rx = statuses.watch("a");
        assert!(rx.has_changed().unwrap());
        assert_eq!(
            rx.borrow_and_update().as_ref().unwrap()["status"],
            "completed"
        );
        statuses.deliver(&json!({"taskId": "a", "status": "failed"}));
        assert!(rx.has_changed().unwrap());
        let mut fresh = statuses.watch("b");
        assert!(!fresh.has_changed().unwrap(), "nothing notified for b yet");
        statuses.deliver(&json!({"taskId": "b", "status": "working"}));
        assert_eq!(
            fresh.borrow_and_update().as_ref().unwrap()["status"],
            "working"
        );
        statuses.unwatch("b");
        drop(fresh);
        assert!(!statuses.tasks.contains_key("b"));
    }

    #[test]
    fn tasks_nobody_waits_on_are_bounded() {
        let mut statuses = Statuses::default();
        for n in 0..(MAX_UNCLAIMED + 10) {
            statuses.deliver(&json!({"taskId": format!("t{n}"), "status": "working"}));
        }
        assert_eq!(statuses.tasks.len(), MAX_UNCLAIMED);
        assert!(!statuses.tasks.contains_key("t0"), "the oldest went first");
        statuses.deliver(&json!({"status": "working"}));
        assert_eq!(statuses.tasks.len(), MAX_UNCLAIMED, "no id, nothing kept");
    }
}
