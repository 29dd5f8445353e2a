//! The method table: every MCP method, request or notification, with who
//! sends it, the eras and revisions it exists in, the member of its params
//! that names what it is about, and whether the Streamable HTTP
//! `Mcp-Name` header mirrors that member.
//!
//! Routing, scopes and `hide_unauthorized`, the HTTP mirror headers (server
//! and client), telemetry and the engines read method names through
//! [`Method`]; no other module matches a method's name as a string.

use super::Era;

/// Whether a method is a request (answered) or a notification (not).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    /// A request: it carries an `id` and is answered.
    Request,
    /// A notification: no `id`, never answered.
    Notification,
}

/// Who sends a method.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Sender {
    /// The client, to the server.
    Client,
    /// The server, to the client.
    Server,
    /// Either side.
    Either,
}

/// What a request is about, named by a member of its params.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Target {
    /// A tool, by `name`.
    Tool,
    /// A prompt, by `name`.
    Prompt,
    /// A resource, by `uri`.
    Resource,
    /// A task, by `taskId`.
    Task,
    /// A prompt or a resource, by the `ref` object of a completion
    /// (`{"type": "ref/prompt", "name"}` or `{"type": "ref/resource", "uri"}`).
    Reference,
}

impl Target {
    /// The member of the params that names the target.
    pub const fn member(self) -> &'static str {
        match self {
            Target::Tool | Target::Prompt => "name",
            Target::Resource => "uri",
            Target::Task => "taskId",
            Target::Reference => "ref",
        }
    }
}

/// How the `Mcp-Name` header of a Streamable HTTP request (2026-07-28)
/// mirrors the method's target.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum McpName {
    /// The method has no `Mcp-Name` header.
    None,
    /// The header is required and must equal the target's member.
    Required,
    /// The header may be left out; when sent it must equal the member.
    IfSent,
}

/// Declares [`Method`] and its table, one line per method.
macro_rules! methods {
    ($(
        $(#[$doc:meta])*
        $variant:ident = $name:literal, $kind:ident, $sender:ident,
            stateful $since:expr, stateless $stateless:literal,
            target $target:expr, mcp_name $mcp_name:ident;
    )*) => {
        /// An MCP method.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum Method {
            $( $(#[$doc])* $variant, )*
        }

        impl Method {
            /// Every method, in the table's order.
            pub const ALL: &'static [Method] = &[$(Method::$variant),*];

            /// The method named `name`, if MCP has one by that name.
            pub fn of(name: &str) -> Option<Method> {
                match name {
                    $( $name => Some(Method::$variant), )*
                    _ => None,
                }
            }

            /// The method's name on the wire (`tools/call`).
            pub const fn name(self) -> &'static str {
                match self {
                    $( Method::$variant => $name, )*
                }
            }

            /// Request or notification.
            pub const fn kind(self) -> Kind {
                match self {
                    $( Method::$variant => Kind::$kind, )*
                }
            }

            /// Who sends it.
            pub const fn sender(self) -> Sender {
                match self {
                    $( Method::$variant => Sender::$sender, )*
                }
            }

            /// The first stateful revision with the method (`None`: the
            /// stateful era has none).
            pub const fn stateful_since(self) -> Option<&'static str> {
                match self {
                    $( Method::$variant => $since, )*
                }
            }

            /// Whether the stateless era (2026-07-28 on) has the method.
            pub const fn stateless(self) -> bool {
                match self {
                    $( Method::$variant => $stateless, )*
                }
            }

            /// What the request is about, if it names something.
            pub const fn target(self) -> Option<Target> {
                match self {
                    $( Method::$variant => $target, )*
                }
            }

            /// How the `Mcp-Name` header mirrors the target.
            pub const fn mcp_name(self) -> McpName {
                match self {
                    $( Method::$variant => McpName::$mcp_name, )*
                }
            }
        }
    };
}

/// The first revision.
const FIRST: Option<&str> = Some("2024-11-05");
/// The first revision with elicitation.
const ELICITATION: Option<&str> = Some("2025-06-18");
/// The first revision with tasks (experimental, client-requested).
const TASKS: Option<&str> = Some("2025-11-25");

methods! {
    /// `initialize`: opens a stateful session.
    Initialize = "initialize", Request, Client,
        stateful FIRST, stateless false, target None, mcp_name None;
    /// `ping`.
    Ping = "ping", Request, Either,
        stateful FIRST, stateless false, target None, mcp_name None;
    /// `server/discover`: what a stateless server offers.
    Discover = "server/discover", Request, Client,
        stateful None, stateless true, target None, mcp_name None;
    /// `tools/list`.
    ToolsList = "tools/list", Request, Client,
        stateful FIRST, stateless true, target None, mcp_name None;
    /// `tools/call`.
    ToolsCall = "tools/call", Request, Client,
        stateful FIRST, stateless true, target Some(Target::Tool), mcp_name Required;
    /// `resources/list`.
    ResourcesList = "resources/list", Request, Client,
        stateful FIRST, stateless true, target None, mcp_name None;
    /// `resources/templates/list`.
    TemplatesList = "resources/templates/list", Request, Client,
        stateful FIRST, stateless true, target None, mcp_name None;
    /// `resources/read`.
    ResourcesRead = "resources/read", Request, Client,
        stateful FIRST, stateless true, target Some(Target::Resource), mcp_name Required;
    /// `resources/subscribe`.
    Subscribe = "resources/subscribe", Request, Client,
        stateful FIRST, stateless false, target None, mcp_name None;
    /// `resources/unsubscribe`.
    Unsubscribe = "resources/unsubscribe", Request, Client,
        stateful FIRST, stateless false, target None, mcp_name None;
    /// `prompts/list`.
    PromptsList = "prompts/list", Request, Client,
        stateful FIRST, stateless true, target None, mcp_name None;
    /// `prompts/get`.
    PromptsGet = "prompts/get", Request, Client,
        stateful FIRST, stateless true, target Some(Target::Prompt), mcp_name Required;
    /// `completion/complete`.
    Complete = "completion/complete", Request, Client,
        stateful FIRST, stateless true, target Some(Target::Reference), mcp_name None;
    /// `logging/setLevel`.
    SetLevel = "logging/setLevel", Request, Client,
        stateful FIRST, stateless false, target None, mcp_name None;
    /// `subscriptions/listen`: the stateless era's stream of changes.
    Listen = "subscriptions/listen", Request, Client,
        stateful None, stateless true, target None, mcp_name None;
    /// `tasks/get`.
    TasksGet = "tasks/get", Request, Client,
        stateful TASKS, stateless true, target Some(Target::Task), mcp_name IfSent;
    /// `tasks/result` (2025-11-25).
    TasksResult = "tasks/result", Request, Client,
        stateful TASKS, stateless false, target Some(Target::Task), mcp_name None;
    /// `tasks/list` (2025-11-25).
    TasksList = "tasks/list", Request, Client,
        stateful TASKS, stateless false, target None, mcp_name None;
    /// `tasks/update` (the tasks extension, stateless era).
    TasksUpdate = "tasks/update", Request, Client,
        stateful None, stateless true, target Some(Target::Task), mcp_name IfSent;
    /// `tasks/cancel`.
    TasksCancel = "tasks/cancel", Request, Client,
        stateful TASKS, stateless true, target Some(Target::Task), mcp_name IfSent;
    /// `skills/list` (the Skills extension).
    SkillsList = "skills/list", Request, Client,
        stateful FIRST, stateless true, target None, mcp_name None;
    /// `skills/get` (the Skills extension).
    SkillsGet = "skills/get", Request, Client,
        stateful FIRST, stateless true, target Some(Target::Resource), mcp_name None;
    /// `resources/directory/read` (the Skills extension).
    DirectoryRead = "resources/directory/read", Request, Client,
        stateful FIRST, stateless true, target Some(Target::Resource), mcp_name None;
    /// `sampling/createMessage`.
    CreateMessage = "sampling/createMessage", Request, Server,
        stateful FIRST, stateless true, target None, mcp_name None;
    /// `elicitation/create`.
    Elicit = "elicitation/create", Request, Server,
        stateful ELICITATION, stateless true, target None, mcp_name None;
    /// `roots/list`.
    RootsList = "roots/list", Request, Server,
        stateful FIRST, stateless true, target None, mcp_name None;
    /// `notifications/initialized`.
    Initialized = "notifications/initialized", Notification, Client,
        stateful FIRST, stateless false, target None, mcp_name None;
    /// `notifications/cancelled`.
    Cancelled = "notifications/cancelled", Notification, Either,
        stateful FIRST, stateless true, target None, mcp_name None;
    /// `notifications/progress`.
    Progress = "notifications/progress", Notification, Either,
        stateful FIRST, stateless true, target None, mcp_name None;
    /// `notifications/message`: a log message.
    LogMessage = "notifications/message", Notification, Server,
        stateful FIRST, stateless true, target None, mcp_name None;
    /// `notifications/tools/list_changed`.
    ToolsChanged = "notifications/tools/list_changed", Notification, Server,
        stateful FIRST, stateless true, target None, mcp_name None;
    /// `notifications/prompts/list_changed`.
    PromptsChanged = "notifications/prompts/list_changed", Notification, Server,
        stateful FIRST, stateless true, target None, mcp_name None;
    /// `notifications/resources/list_changed`.
    ResourcesChanged = "notifications/resources/list_changed", Notification, Server,
        stateful FIRST, stateless true, target None, mcp_name None;
    /// `notifications/resources/updated`.
    ResourceUpdated = "notifications/resources/updated", Notification, Server,
        stateful FIRST, stateless true, target None, mcp_name None;
    /// `notifications/roots/list_changed`.
    RootsChanged = "notifications/roots/list_changed", Notification, Client,
        stateful FIRST, stateless false, target None, mcp_name None;
    /// `notifications/elicitation/complete`.
    ElicitationComplete = "notifications/elicitation/complete", Notification, Server,
        stateful TASKS, stateless true, target None, mcp_name None;
    /// `notifications/tasks/status`.
    TaskStatus = "notifications/tasks/status", Notification, Server,
        stateful TASKS, stateless false, target None, mcp_name None;
    /// `notifications/tasks`: a task changed (the tasks extension).
    TaskChanged = "notifications/tasks", Notification, Server,
        stateful None, stateless true, target None, mcp_name None;
    /// `notifications/subscriptions/acknowledged`: a `subscriptions/listen`
    /// stream is open.
    Acknowledged = "notifications/subscriptions/acknowledged", Notification, Server,
        stateful None, stateless true, target None, mcp_name None;
}

impl Method {
    /// Whether the method exists in `version` of era `era` (for a stateful
    /// revision: from the revision that introduced it).
    pub fn exists_in(self, era: Era, version: &str) -> bool {
        match era {
            Era::Stateless => self.stateless(),
            Era::Stateful => self.stateful_since().is_some_and(|since| version >= since),
        }
    }
}

impl std::fmt::Display for Method {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_name_reads_back_as_its_method() {
        assert!(Method::ALL.len() > 35);
        for &method in Method::ALL {
            assert_eq!(Method::of(method.name()), Some(method), "{method}");
        }
        assert_eq!(Method::of("tools/calls"), None);
        assert_eq!(Method::of(""), None);
    }

    #[test]
    fn notifications_are_named_so_and_requests_are_not() {
        for &method in Method::ALL {
            let named = method.name().starts_with("notifications/");
            assert_eq!(named, method.kind() == Kind::Notification, "{method}");
        }
    }

    #[test]
    fn a_mirrored_header_has_a_member_to_mirror() {
        for &method in Method::ALL {
            if method.mcp_name() != McpName::None {
                assert!(method.target().is_some(), "{method}");
                assert!(
                    method.stateless(),
                    "{method}: the header is a 2026-07-28 one"
                );
            }
        }
    }

    #[test]
    fn eras_and_revisions() {
        assert!(Method::Initialize.exists_in(Era::Stateful, "2024-11-05"));
        assert!(!Method::Initialize.exists_in(Era::Stateless, "2026-07-28"));
        assert!(!Method::TasksGet.exists_in(Era::Stateful, "2025-06-18"));
        assert!(Method::TasksGet.exists_in(Era::Stateful, "2025-11-25"));
        assert!(Method::TasksUpdate.exists_in(Era::Stateless, "2026-07-28"));
        assert!(!Method::Elicit.exists_in(Era::Stateful, "2025-03-26"));
        for &method in Method::ALL {
            assert!(
                method.stateful_since().is_some() || method.stateless(),
                "{method} exists in no era"
            );
        }
    }
}
