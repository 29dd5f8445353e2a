//! The method table: every request method the server answers, in both
//! eras, and the module that serves it. The engine routes each request
//! once, here; the modules it hands off to match on the typed route,
//! never on the method's name again.

use crate::revision::method::{Kind, Method, Sender};
use crate::revision::Era;

use crate::server::request::scope::Scope;

/// Whether a stateful revision has tasks (from 2025-11-25, experimental).
pub(in crate::server) fn stateful_has_tasks(scope: &Scope) -> bool {
    Method::TasksGet.exists_in(Era::Stateful, &scope.version)
}

/// Where a request goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Route {
    /// `tools/call`: `call` (or `answer::task_methods` when it becomes a task).
    ToolsCall,
    /// Answered at once by `Core::handle_inline`.
    Inline(Inline),
    /// `resources/read`, `prompts/get`, `completion/complete`: `reads`,
    /// through the user's `Surface`.
    Read(Read),
    /// `tasks/*`: `answer::task_methods`.
    Task(Task),
    /// `subscriptions/listen` (stateless era): `answer::listen`.
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
    /// The method.
    pub(crate) fn method(self) -> Method {
        match self {
            Self::Resource => Method::ResourcesRead,
            Self::Prompt => Method::PromptsGet,
            Self::Complete => Method::Complete,
        }
    }
}

impl Task {
    /// The method.
    pub(crate) fn method(self) -> Method {
        match self {
            Self::Get => Method::TasksGet,
            Self::Result => Method::TasksResult,
            Self::List => Method::TasksList,
            Self::Update => Method::TasksUpdate,
            Self::Cancel => Method::TasksCancel,
        }
    }
}

/// The route of `method` in the era and revision of `scope`: a request a
/// client sends, in the era and from the revision the method table gives.
/// Tasks methods exist from 2025-11-25 in the stateful era and with the
/// tasks extension in the stateless one (which `answer::task_methods` checks: a client
/// that did not negotiate it is told so, not answered "not found").
pub(crate) fn route(scope: &Scope, method: &str) -> Route {
    use Route::{Inline as I, Read as R, Task as T};
    let era = if scope.modern {
        Era::Stateless
    } else {
        Era::Stateful
    };
    let Some(method) = Method::of(method).filter(|m| {
        m.kind() == Kind::Request
            && m.sender() != Sender::Server
            && m.exists_in(era, &scope.version)
    }) else {
        return Route::NotFound;
    };
    match method {
        Method::ToolsCall => Route::ToolsCall,
        Method::Initialize => I(Inline::Initialize),
        Method::Ping => I(Inline::Ping),
        Method::SetLevel => I(Inline::SetLevel),
        Method::Subscribe => I(Inline::Subscribe),
        Method::Unsubscribe => I(Inline::Unsubscribe),
        Method::Discover => I(Inline::Discover),
        Method::Listen => Route::Listen,
        Method::ToolsList => I(Inline::ToolsList),
        Method::ResourcesList => I(Inline::ResourcesList),
        Method::TemplatesList => I(Inline::TemplatesList),
        Method::PromptsList => I(Inline::PromptsList),
        Method::SkillsList => I(Inline::Skills(SkillsRequest::List)),
        Method::SkillsGet => I(Inline::Skills(SkillsRequest::Get)),
        Method::DirectoryRead => I(Inline::Skills(SkillsRequest::Directory)),
        Method::ResourcesRead => R(Read::Resource),
        Method::PromptsGet => R(Read::Prompt),
        Method::Complete => R(Read::Complete),
        Method::TasksGet => T(Task::Get),
        Method::TasksCancel => T(Task::Cancel),
        Method::TasksResult => T(Task::Result),
        Method::TasksList => T(Task::List),
        Method::TasksUpdate => T(Task::Update),
        _ => Route::NotFound,
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::revision;
    use crate::server::handler::extras::Extras;

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
