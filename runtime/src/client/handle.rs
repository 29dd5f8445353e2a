//! [`Client`], the handle applications and generated clients hold, with
//! every method it has, in one `impl`. Short methods do their work here
//! over the connection engine (`engine`); the longer ones hand it to the
//! module whose topic it is: `handshake` (version negotiation), `tools`
//! (`tools/call`, paged lists), `tasks` (tool calls as tasks) and
//! `subscription` (`subscriptions/listen`). Those modules take the engine,
//! never the handle, so they import nothing from here.

use std::sync::Arc;
use std::time::Duration;

use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::{json, Map, Value};

use super::drift::Drift;
use super::engine::{Negotiated, Shared, Tasks};
use super::error::ClientError;
use super::options::{CallOptions, ClientOptions};
use super::schemas::{content_result, serialise_input, structured_result, ToolSchemas};
use super::subscription::Subscription;
use super::surface::decode;
use super::tasks::{ResultDecoder, TaskStart, ToolStart};
use super::{handshake, subscription, tasks, tools};
use crate::revision::method::Method;
use crate::transport::Transport;

/// A client connection over any [`Transport`]. Cheap to clone; the
/// connection (and a child server process) ends when the last clone is
/// dropped. Must be created inside a Tokio runtime.
#[derive(Clone)]
pub struct Client {
    shared: Arc<Shared>,
    tasks: Arc<Tasks>,
}

impl std::fmt::Debug for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Client")
            .field("session", &self.shared.session.get())
            .finish_non_exhaustive()
    }
}

impl Client {
    /// Starts the engine over a transport. No message is sent; call
    /// [`Client::initialize`] (or use [`Client::connect`]) next.
    pub fn start<T: Transport>(transport: T, options: ClientOptions) -> Self {
        let (shared, tasks) = Shared::spawn(transport, options);
        Client {
            shared,
            tasks: Arc::new(tasks),
        }
    }

    /// Starts the engine and performs the handshake.
    pub async fn connect<T: Transport>(
        transport: T,
        options: ClientOptions,
    ) -> Result<Self, ClientError> {
        let client = Self::start(transport, options);
        client.initialize().await?;
        Ok(client)
    }

    /// Negotiates the protocol revision (see the module docs) and records
    /// the [`Negotiated`]. Calling it twice is an error.
    pub async fn initialize(&self) -> Result<&Negotiated, ClientError> {
        handshake::initialize(&self.shared).await
    }

    /// The handshake's outcome, once done.
    pub fn session(&self) -> Option<&Negotiated> {
        self.shared.session.get()
    }

    /// The connection's options.
    pub fn options(&self) -> &ClientOptions {
        &self.shared.options
    }

    /// Why the connection closed, if it has.
    pub fn closed_reason(&self) -> Option<String> {
        self.shared.closed_reason()
    }

    /// Sends a request and waits for its result, under the client's default
    /// timeout unless `options` overrides it. On timeout (or when the
    /// returned future is dropped before the answer) the request is
    /// cancelled with `notifications/cancelled`.
    ///
    /// A stateless server's `InputRequiredResult` is answered with the
    /// client's [`ClientHandlers`](super::ClientHandlers) and the request
    /// retried with `inputResponses` and the `requestState`, as often as the
    /// server asks (up to 16 rounds); without handlers the
    /// `InputRequiredResult` is returned as the result.
    pub async fn request(
        &self,
        method: &str,
        params: Option<Value>,
        options: &CallOptions,
    ) -> Result<Value, ClientError> {
        self.shared.request(method, params, options).await
    }

    /// Sends a notification.
    pub fn notify(&self, method: &str, params: Option<Value>) -> Result<(), ClientError> {
        self.shared.notify(method, params)
    }

    /// Ends the connection politely: closes the server's input (a stdio
    /// server exits on end of input) and waits up to `grace` for it to close
    /// its output. The process, if any, is killed when the client is dropped.
    pub async fn shutdown(self, grace: Duration) {
        // Ending the writer task drops its half, which closes the
        // server's input.
        self.tasks.stop_writing();
        let deadline = tokio::time::Instant::now() + grace;
        while tokio::time::Instant::now() < deadline && self.closed_reason().is_none() {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }

    // Tools on the raw JSON level.

    /// Calls a tool and returns its `CallToolResult` as JSON. A result with
    /// `isError: true` becomes [`ClientError::Tool`]; a JSON-RPC error
    /// becomes [`ClientError::Protocol`].
    pub async fn call_tool(
        &self,
        name: &str,
        arguments: Value,
        options: &CallOptions,
    ) -> Result<Value, ClientError> {
        tools::call_tool(&self.shared, name, arguments, options).await
    }

    /// Every tool of the server, in the server's order, following
    /// `nextCursor` until the last page.
    pub async fn list_all_tools(&self) -> Result<Vec<Value>, ClientError> {
        self.list_all_tools_with(&CallOptions::new()).await
    }

    /// [`Client::list_all_tools`] with a timeout per page.
    pub async fn list_all_tools_with(
        &self,
        options: &CallOptions,
    ) -> Result<Vec<Value>, ClientError> {
        self.list_all(Method::ToolsList.name(), "tools", options)
            .await
    }

    /// Asks a server with the search tool surface (`search_tools`) for
    /// the tools that fit `query`, best first, at most `limit` (1 to 50;
    /// the server's default, 5, when `None`): their full definitions, as
    /// `tools/list` would answer them. Call one by its name, as usual.
    pub async fn search_tools(
        &self,
        query: &str,
        limit: Option<u32>,
    ) -> Result<Vec<Value>, ClientError> {
        let tool = crate::revision::search_tools::SEARCH_TOOLS;
        let mut arguments = json!({ "query": query });
        if let Some(limit) = limit {
            arguments["limit"] = Value::from(limit);
        }
        let mut result = self.call_tool(tool, arguments, &CallOptions::new()).await?;
        match result
            .pointer_mut("/structuredContent/result")
            .map(Value::take)
        {
            Some(Value::Array(tools)) => Ok(tools),
            _ => Err(ClientError::InvalidOutput {
                tool: tool.to_owned(),
                problems: vec![super::error::SchemaProblem {
                    pointer: "/structuredContent/result".into(),
                    message: "a search_tools result holds its tools in an array here".into(),
                }],
            }),
        }
    }

    /// Every item of a paginated list (`tools/list` with key `tools`,
    /// `resources/list` with `resources`, `resources/templates/list` with
    /// `resourceTemplates`, `prompts/list` with `prompts`), following
    /// `nextCursor` within the same bounds as tools.
    pub async fn list_all(
        &self,
        method: &str,
        key: &str,
        options: &CallOptions,
    ) -> Result<Vec<Value>, ClientError> {
        tools::list_all(&self.shared, method, key, options).await
    }

    // Typed tool calls, checked against the tools' schemas.

    /// Serialises and validates `input`, then calls the tool.
    async fn call_checked<I: Serialize>(
        &self,
        schemas: &ToolSchemas,
        tool: &str,
        input: &I,
        options: &CallOptions,
    ) -> Result<Value, ClientError> {
        let arguments = serialise_input(tool, input)?;
        schemas.validate_input(tool, &arguments)?;
        self.call_tool(tool, arguments, options).await
    }

    /// Calls a tool that declares an `outputSchema`: validates the input,
    /// then validates `structuredContent` and decodes it as `O`.
    pub async fn call_structured<I: Serialize, O: DeserializeOwned>(
        &self,
        schemas: &ToolSchemas,
        tool: &str,
        input: &I,
        options: &CallOptions,
    ) -> Result<O, ClientError> {
        let result = self.call_checked(schemas, tool, input, options).await?;
        structured_result(schemas, tool, result)
    }

    /// Calls a tool without an `outputSchema`: validates the input, then
    /// decodes each content block as `C`.
    pub async fn call_content<I: Serialize, C: DeserializeOwned>(
        &self,
        schemas: &ToolSchemas,
        tool: &str,
        input: &I,
        options: &CallOptions,
    ) -> Result<Vec<C>, ClientError> {
        let result = self.call_checked(schemas, tool, input, options).await?;
        content_result(schemas, tool, result)
    }

    /// Compares the server's live tools with the tools of `schemas`.
    pub async fn check_drift(&self, schemas: &ToolSchemas) -> Result<Drift, ClientError> {
        let live = self.list_all_tools().await?;
        Ok(Drift::compare(schemas.tools(), &live))
    }

    // Tool calls that may run as tasks.

    /// Calls the tool `name` so that it may run as a task (see the module
    /// docs). `ttl` is the lifetime asked for (2025-11-25; the server may
    /// shorten it).
    pub async fn start_tool(
        &self,
        name: &str,
        arguments: Value,
        ttl: Option<Duration>,
    ) -> Result<ToolStart<'_>, ClientError> {
        tasks::start_tool(&self.shared, name, arguments, ttl).await
    }

    /// Starts a tool that may run as a task, typed: the input checked
    /// against `inputSchema`, the result (at once or when the task ends)
    /// read by `decode` ([`structured_result`](super::structured_result) or [`content_result`](super::content_result)).
    pub async fn start_typed<'c, I: Serialize, O>(
        &'c self,
        schemas: &'c ToolSchemas,
        tool: &str,
        input: &I,
        ttl: Option<std::time::Duration>,
        decode: ResultDecoder<O>,
    ) -> Result<TaskStart<'c, O>, ClientError> {
        let arguments = serialise_input(tool, input)?;
        schemas.validate_input(tool, &arguments)?;
        TaskStart::new(
            self.start_tool(tool, arguments, ttl).await?,
            tool,
            schemas,
            decode,
        )
    }

    // Prompts, resources and completion.

    /// Gets prompt `name` with `arguments` (an object of strings, e.g. a
    /// generated `<Prompt>Args`).
    pub async fn get_prompt<A: Serialize, R: DeserializeOwned>(
        &self,
        name: &str,
        arguments: &A,
        options: &CallOptions,
    ) -> Result<R, ClientError> {
        let arguments = serde_json::to_value(arguments).map_err(|e| {
            ClientError::unexpected(format!(
                "cannot serialise the arguments of prompt {name}: {e}"
            ))
        })?;
        let params = json!({ "name": name, "arguments": arguments });
        decode(
            Method::PromptsGet.name(),
            self.request(Method::PromptsGet.name(), Some(params), options)
                .await?,
        )
    }

    /// Reads the resource at `uri`.
    pub async fn read_resource<R: DeserializeOwned>(
        &self,
        uri: &str,
        options: &CallOptions,
    ) -> Result<R, ClientError> {
        decode(
            Method::ResourcesRead.name(),
            self.request(
                Method::ResourcesRead.name(),
                Some(json!({ "uri": uri })),
                options,
            )
            .await?,
        )
    }

    /// Reads the resource of URI template `template` (RFC 6570) with the
    /// variables `params` (an object, e.g. a generated `<Template>Params`).
    pub async fn read_template<P: Serialize, R: DeserializeOwned>(
        &self,
        template: &str,
        params: &P,
        options: &CallOptions,
    ) -> Result<R, ClientError> {
        let template = crate::uri_template::UriTemplate::parse(template).map_err(|e| {
            ClientError::unexpected(format!("invalid URI template {template:?}: {e}"))
        })?;
        let values = match serde_json::to_value(params) {
            Ok(Value::Object(values)) => values,
            Ok(other) => {
                return Err(ClientError::unexpected(format!(
                    "template variables must be an object, not {other}"
                )))
            }
            Err(e) => {
                return Err(ClientError::unexpected(format!(
                    "cannot serialise template variables: {e}"
                )))
            }
        };
        self.read_resource(&template.expand(&values), options).await
    }

    /// Asks for completions of `argument` (typed so far: `value`) of the
    /// prompt or template `reference` (`{"type": "ref/prompt", "name": …}`
    /// or `{"type": "ref/resource", "uri": template}`), with other
    /// arguments already given in `context`; returns the `completion`.
    pub async fn complete<R: DeserializeOwned>(
        &self,
        reference: Value,
        argument: &str,
        value: &str,
        context: Map<String, Value>,
        options: &CallOptions,
    ) -> Result<R, ClientError> {
        let mut params =
            json!({ "ref": reference, "argument": { "name": argument, "value": value } });
        if !context.is_empty() {
            params["context"] = json!({ "arguments": context });
        }
        let mut result = self
            .request(Method::Complete.name(), Some(params), options)
            .await?;
        let completion = result
            .get_mut("completion")
            .map(Value::take)
            .unwrap_or(Value::Null);
        decode(Method::Complete.name(), completion)
    }

    // Notifications of resource changes.

    /// Subscribes to updates of the resource at `uri` (stateful era): the
    /// server then sends `notifications/resources/updated` for it, which
    /// [`ClientOptions::on_notification`](super::ClientOptions::on_notification)
    /// receives.
    pub async fn subscribe_resource(
        &self,
        uri: &str,
        options: &CallOptions,
    ) -> Result<(), ClientError> {
        self.request(
            Method::Subscribe.name(),
            Some(json!({ "uri": uri })),
            options,
        )
        .await
        .map(drop)
    }

    /// Ends the subscription to `uri`.
    pub async fn unsubscribe_resource(
        &self,
        uri: &str,
        options: &CallOptions,
    ) -> Result<(), ClientError> {
        self.request(
            Method::Unsubscribe.name(),
            Some(json!({ "uri": uri })),
            options,
        )
        .await
        .map(drop)
    }

    /// Opens a subscription (2026-07-28) for the notifications named in
    /// `filter` (`toolsListChanged`, `promptsListChanged`,
    /// `resourcesListChanged`: booleans; `resourceSubscriptions`: URIs),
    /// once the server has acknowledged it, within the default timeout.
    /// A server without subscriptions answers with its error (`-32601`
    /// from a 2025-11-25 server: use `resources/subscribe` there).
    pub async fn listen(&self, filter: Value) -> Result<Subscription, ClientError> {
        subscription::listen(&self.shared, filter).await
    }

    // Skills (the Skills extension, feature `skills`); see `crate::skills`.

    /// Whether the server declares the Skills extension, and with it
    /// `resources/directory/read` (`directoryRead: true`).
    #[cfg(feature = "skills")]
    pub fn skills_declared(&self) -> (bool, bool) {
        super::skills::declared(&self.shared)
    }

    /// Every skill the server lists (`skills/list`, all pages, within the
    /// list bounds of [`ClientOptions`]). Reads no skill file: a host
    /// builds its registry from the entries alone.
    #[cfg(feature = "skills")]
    pub async fn list_skills(&self) -> Result<Vec<crate::skills::SkillEntry>, ClientError> {
        super::skills::list(&self.shared).await
    }

    /// One skill's entry by its `SKILL.md` URI (`skills/get`); an answer
    /// naming another skill is an error.
    #[cfg(feature = "skills")]
    pub async fn get_skill(&self, uri: &str) -> Result<crate::skills::SkillEntry, ClientError> {
        super::skills::get(&self.shared, uri).await
    }

    /// Loads a skill: reads its `SKILL.md` and checks its size, its
    /// digest and then its frontmatter, field by field, against `entry`.
    /// A mismatch is [`ClientError::Unverified`] and nothing of the file
    /// is returned.
    #[cfg(feature = "skills")]
    pub async fn load_skill(
        &self,
        entry: &crate::skills::SkillEntry,
    ) -> Result<super::LoadedSkill, ClientError> {
        super::skills::load(&self.shared, entry).await
    }

    /// Reads one file of a skill and, when the entry lists the skill's
    /// files, checks its size and digest ([`ClientError::Unverified`]
    /// otherwise). A URI outside the skill's directory, or one the entry
    /// does not list, is refused without a request.
    #[cfg(feature = "skills")]
    pub async fn read_skill_file(
        &self,
        entry: &crate::skills::SkillEntry,
        uri: &str,
    ) -> Result<Vec<u8>, ClientError> {
        super::skills::read_file(&self.shared, entry, uri).await
    }

    /// The direct children of a directory under `skill://`
    /// (`resources/directory/read`, all pages); refused without a request
    /// when the server does not declare `directoryRead`.
    #[cfg(feature = "skills")]
    pub async fn read_skill_directory(&self, uri: &str) -> Result<Vec<Value>, ClientError> {
        super::skills::read_directory(&self.shared, uri).await
    }
}
