//! The method table: every request method the server answers, in both
//! eras, and the module that serves it. The engine routes each request
//! once, here; the modules it hands off to match on the typed route,
//! never on the method's name again.

use super::scope::Scope;

/// The first revision with tasks (experimental, client-requested).
pub(super) const FIRST_TASK_REVISION: &str = "2025-11-25";

/// Whether a stateful revision has tasks.
pub(super) fn stateful_has_tasks(scope: &Scope) -> bool {
    &*scope.version >= FIRST_TASK_REVISION
}

/// Where a request goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Route {
    /// `tools/call`: `call` (or `tasking` when it becomes a task).
    ToolsCall,
    /// Answered at once by `Core::handle_inline`.
    Inline(Inline),
    /// `resources/read`, `prompts/get`, `completion/complete`: `reads`,
    /// through the user's `Surface`.
    Read(Read),
    /// `tasks/*`: `tasking`.
    Task(Task),
    /// `subscriptions/listen` (stateless era): `notify`.
    Listen,
    /// No such method in the request's revision.
    NotFound,
}

/// Requests `Core::handle_inline` answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Inline {
    /// `initialize` (stateful era).
    Initialize,
    /// `ping` (stateful era).
    Ping,
    /// `logging/setLevel` (stateful era).
    SetLevel,
    /// `resources/subscribe` (stateful era).
    Subscribe,
    /// `resources/unsubscribe` (stateful era).
    Unsubscribe,
    /// `server/discover` (stateless era).
    Discover,
    /// `tools/list`.
    ToolsList,
    /// `resources/list`.
    ResourcesList,
    /// `resources/templates/list`.
    TemplatesList,
    /// `prompts/list`.
    PromptsList,
    /// The Skills extension's methods, and `resources/read` of a skill
    /// file (answered by `skills` when the server serves skills).
    Skills(SkillsRequest),
}

/// The requests of the Skills extension.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SkillsRequest {
    /// `skills/list`.
    List,
    /// `skills/get`.
    Get,
    /// `resources/directory/read`.
    Directory,
    /// `resources/read` of a `skill://` file the server serves.
    Read,
}

/// Requests served through the user's `Surface`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Read {
    /// `resources/read`.
    Resource,
    /// `prompts/get`.
    Prompt,
    /// `completion/complete`.
    Complete,
}

/// The tasks methods.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Task {
    /// `tasks/get`.
    Get,
    /// `tasks/result` (2025-11-25).
    Result,
    /// `tasks/list` (2025-11-25).
    List,
    /// `tasks/update` (the tasks extension, stateless era).
    Update,
    /// `tasks/cancel`.
    Cancel,
}

impl Read {
    /// The method's name.
    pub(crate) fn method(self) -> &'static str {
        match self {
            Self::Resource => "resources/read",
            Self::Prompt => "prompts/get",
            Self::Complete => "completion/complete",
        }
    }
}

impl Task {
    /// The method's name.
    pub(crate) fn method(self) -> &'static str {
        match self {
            Self::Get => "tasks/get",
            Self::Result => "tasks/result",
            Self::List => "tasks/list",
            Self::Update => "tasks/update",
            Self::Cancel => "tasks/cancel",
        }
    }
}

/// The route of `method` in the era and revision of `scope`. Tasks
/// methods exist from 2025-11-25 in the stateful era and with the tasks
/// extension in the stateless one (which `tasking` checks: a client that
/// did not negotiate it is told so, not answered "not found").
pub(crate) fn route(scope: &Scope, method: &str) -> Route {
    use Route::{Inline as I, Read as R, Task as T};
    let modern = scope.modern;
    let tasks = modern || stateful_has_tasks(scope);
    match (modern, method) {
        (_, "tools/call") => Route::ToolsCall,
        (false, "initialize") => I(Inline::Initialize),
        (false, "ping") => I(Inline::Ping),
        (false, "logging/setLevel") => I(Inline::SetLevel),
        (false, "resources/subscribe") => I(Inline::Subscribe),
        (false, "resources/unsubscribe") => I(Inline::Unsubscribe),
        (true, "server/discover") => I(Inline::Discover),
        (true, "subscriptions/listen") => Route::Listen,
        (_, "tools/list") => I(Inline::ToolsList),
        (_, "resources/list") => I(Inline::ResourcesList),
        (_, "resources/templates/list") => I(Inline::TemplatesList),
        (_, "prompts/list") => I(Inline::PromptsList),
        (_, "skills/list") => I(Inline::Skills(SkillsRequest::List)),
        (_, "skills/get") => I(Inline::Skills(SkillsRequest::Get)),
        (_, "resources/directory/read") => I(Inline::Skills(SkillsRequest::Directory)),
        (_, "resources/read") => R(Read::Resource),
        (_, "prompts/get") => R(Read::Prompt),
        (_, "completion/complete") => R(Read::Complete),
        (_, "tasks/get") if tasks => T(Task::Get),
        (_, "tasks/cancel") if tasks => T(Task::Cancel),
        (false, "tasks/result") if tasks => T(Task::Result),
        (false, "tasks/list") if tasks => T(Task::List),
        (true, "tasks/update") => T(Task::Update),
        _ => Route::NotFound,
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::revision;
    use crate::server::extras::Extras;

    fn scope(version: &str, modern: bool) -> Scope {
        Scope {
            revision: revision::nearest(version),
            version: version.into(),
            modern,
            client: None,
            meta: None,
            meta_log_level: None,
            extras: Extras::map(Arc::default()),
        }
    }

    #[test]
    fn each_era_routes_its_own_methods() {
        let stateful = scope("2025-11-25", false);
        let older = scope("2025-06-18", false);
        let stateless = scope(revision::LATEST, true);
        let cases: &[(&str, Route, Route, Route)] = &[
            (
                "tools/call",
                Route::ToolsCall,
                Route::ToolsCall,
                Route::ToolsCall,
            ),
            (
                "initialize",
                Route::Inline(Inline::Initialize),
                Route::Inline(Inline::Initialize),
                Route::NotFound,
            ),
            (
                "ping",
                Route::Inline(Inline::Ping),
                Route::Inline(Inline::Ping),
                Route::NotFound,
            ),
            (
                "server/discover",
                Route::NotFound,
                Route::NotFound,
                Route::Inline(Inline::Discover),
            ),
            (
                "subscriptions/listen",
                Route::NotFound,
                Route::NotFound,
                Route::Listen,
            ),
            (
                "resources/subscribe",
                Route::Inline(Inline::Subscribe),
                Route::Inline(Inline::Subscribe),
                Route::NotFound,
            ),
            (
                "prompts/get",
                Route::Read(Read::Prompt),
                Route::Read(Read::Prompt),
                Route::Read(Read::Prompt),
            ),
            (
                "tasks/get",
                Route::Task(Task::Get),
                Route::NotFound,
                Route::Task(Task::Get),
            ),
            (
                "tasks/list",
                Route::Task(Task::List),
                Route::NotFound,
                Route::NotFound,
            ),
            (
                "tasks/update",
                Route::NotFound,
                Route::NotFound,
                Route::Task(Task::Update),
            ),
            (
                "sampling/createMessage",
                Route::NotFound,
                Route::NotFound,
                Route::NotFound,
            ),
        ];
        for (method, in_stateful, in_older, in_stateless) in cases {
            assert_eq!(
                route(&stateful, method),
                *in_stateful,
                "{method} in 2025-11-25"
            );
            assert_eq!(route(&older, method), *in_older, "{method} in 2025-06-18");
            assert_eq!(
                route(&stateless, method),
                *in_stateless,
                "{method} stateless"
            );
        }
    }
}
