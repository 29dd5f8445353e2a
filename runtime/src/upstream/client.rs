//! [`Upstream`], the client a generated server calls its HTTP API with,
//! and its [`UpstreamBuilder`]: made once from the generated bindings
//! text, then [`Upstream::call`] per tool call.

use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::time::Duration;

use serde_json::Value;

use super::auth::{self, Plan, Sources};
use super::binding::{HttpBinding, ServerUrl};
use super::error::UpstreamError;
use super::net::{Limits, Net};
use super::request;
use super::response::{self, ApiResponse};
use crate::server::handler::context::RequestContext;
use crate::server::handler::tool_error::ToolError;
use crate::server::tools::tool::ToolOutput;
use crate::transport::http::HttpOptions;

/// The variable whose URL replaces every binding's server URL.
pub const UPSTREAM_URL_VAR: &str = "MCP_UPSTREAM_URL";

/// How long one tool's request may take unless set: connecting, sending,
/// retries and their waits, redirects and reading the answer.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);

/// The largest answer read unless set.
pub const DEFAULT_MAX_RESPONSE_BYTES: usize = 8 * 1024 * 1024;

/// How often an idempotent request is retried unless set.
pub const DEFAULT_MAX_RETRIES: u32 = 2;

/// The future of [`Upstream::answer`]: a tool's result, boxed.
pub type Answer<'a> = Pin<Box<dyn Future<Output = Result<ToolOutput, ToolError>> + Send + 'a>>;

/// One tool's binding, ready.
#[derive(Debug)]
struct Tool {
    binding: HttpBinding,
    base: String,
    plan: Plan,
}

/// Calls an HTTP API on behalf of the tools bound to it: builds each
/// request from a call's arguments, sends it with the configured
/// credentials, and turns the answer into the tool's result.
///
/// Cheap to share (`Arc` it); connections are kept alive per origin.
///
/// ```no_run
/// use mcpgen_runtime::upstream::Upstream;
/// use mcpgen_runtime::serde_json::json;
///
/// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
/// // What the generator writes: one entry per tool, `null` for a tool
/// // without a binding.
/// let bindings = r#"[{"operationId": "getPet", "method": "GET", "path": "/pets/{id}",
///   "servers": [{"url": "https://petstore.example.com/v1"}],
///   "parameters": [{"argument": "id", "name": "id", "in": "path",
///                   "style": "simple", "explode": false, "required": true}]}]"#;
/// let upstream = Upstream::from_env(bindings)?;
/// let result = upstream.call(0, &json!({"id": 7})).await;
/// # let _ = result;
/// # Ok(())
/// # }
/// ```
pub struct Upstream {
    tools: Vec<Option<Tool>>,
    /// [`HttpOptions::headers`]: sent to the API's origin only.
    extra_headers: http::HeaderMap,
    net: Net,
    limits: Limits,
}

/// Where the builder reads variables.
type EnvLookup = dyn Fn(&str) -> Option<String> + Send + Sync;

/// Settings of an [`Upstream`]; see [`Upstream::builder`].
pub struct UpstreamBuilder {
    bindings: String,
    base_url: Option<String>,
    values: HashMap<String, String>,
    clients: HashMap<String, (String, String)>,
    env: Option<Box<EnvLookup>>,
    http: HttpOptions,
    limits: Limits,
}

impl std::fmt::Debug for Upstream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Header names only: the values may be credentials.
        let extra: Vec<&str> = self.extra_headers.keys().map(|k| k.as_str()).collect();
        f.debug_struct("Upstream")
            .field("tools", &self.tools)
            .field("extra_headers", &extra)
            .field("net", &self.net)
            .field("limits", &self.limits)
            .finish()
    }
}

impl std::fmt::Debug for UpstreamBuilder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Scheme names only: the values are credentials.
        f.debug_struct("UpstreamBuilder")
            .field("base_url", &self.base_url)
            .field("credentials", &self.values.keys().collect::<Vec<_>>())
            .field(
                "client_credentials",
                &self.clients.keys().collect::<Vec<_>>(),
            )
            .field("env", &self.env.is_some())
            .field("http", &self.http)
            .field("limits", &self.limits)
            .finish()
    }
}

impl Upstream {
    /// The client of `bindings_json` (a JSON array, one entry per tool in
    /// tool order: an `x-mcpgen.http` binding or `null`), configured from
    /// the environment: `MCP_UPSTREAM_URL` (replaces the bindings' server
    /// URLs) and each security scheme's variable. Fails, naming the
    /// variables to set, when a tool's API has no absolute URL or a tool's
    /// credentials are missing.
    pub fn from_env(bindings_json: &str) -> Result<Upstream, UpstreamError> {
        Self::builder(bindings_json).read_env().build()
    }

    /// A builder of the client of `bindings_json`, which reads nothing
    /// from the environment unless told to ([`UpstreamBuilder::read_env`]).
    pub fn builder(bindings_json: &str) -> UpstreamBuilder {
        UpstreamBuilder {
            bindings: bindings_json.to_owned(),
            base_url: None,
            values: HashMap::new(),
            clients: HashMap::new(),
            env: None,
            http: HttpOptions::default(),
            limits: Limits {
                timeout: DEFAULT_TIMEOUT,
                max_bytes: DEFAULT_MAX_RESPONSE_BYTES,
                max_retries: DEFAULT_MAX_RETRIES,
            },
        }
    }

    /// The whole default handler of tool number `tool`: its request from
    /// `arguments`, sent, and the answer as the tool's result. Every
    /// failure (a bad argument, the network, a timeout, an error status)
    /// is a [`ToolError`], answered with `isError: true`.
    pub async fn call(&self, tool: usize, arguments: &Value) -> Result<ToolOutput, ToolError> {
        let response = self.send(tool, arguments).await?;
        self.output(tool, response)
    }

    /// What the generated handler method of tool number `tool` does
    /// unless a handler overrides it: the call's arguments as the client
    /// sent them ([`RequestContext::arguments`]; the typed input may keep
    /// less of them), else `input` written out, then [`call`](Self::call).
    ///
    /// The future is boxed so that a generated `Handler` names one plain
    /// type per default method: proving an `async` block's own type `Send`
    /// in a trait of hundreds of methods cost the compiler about 8 s of an
    /// 800-tool crate's build (`docs/performance.md`). One allocation per
    /// call is nothing beside the HTTP request it makes.
    pub fn answer<T: serde::Serialize>(
        &self,
        tool: usize,
        input: &T,
        ctx: RequestContext,
    ) -> Answer<'_> {
        // The arguments as the client sent them, else the input written out.
        let arguments = match ctx.arguments() {
            Some(sent) => Ok(sent.clone()),
            None => serde_json::to_value(input)
                .map_err(|e| ToolError::new(format!("cannot encode the tool's input: {e}"))),
        };
        self.answer_with(tool, arguments)
    }

    /// [`answer`](Self::answer) once the arguments are known (not
    /// generic, so compiled once).
    fn answer_with(&self, tool: usize, arguments: Result<Value, ToolError>) -> Answer<'_> {
        Box::pin(async move { self.call(tool, &arguments?).await })
    }

    /// [`send`](Self::send) with a tool's typed input, as the generated
    /// request functions (`server::requests::*`) call it.
    pub async fn send_input<T: serde::Serialize>(
        &self,
        tool: usize,
        input: &T,
    ) -> Result<ApiResponse, ToolError> {
        let arguments = serde_json::to_value(input)
            .map_err(|e| ToolError::new(format!("cannot encode the tool's input: {e}")))?;
        self.send(tool, &arguments).await
    }

    /// The request of tool number `tool` alone: built from `arguments`,
    /// sent with the credentials, the answer read whatever its status
    /// (for a handler that wants the generated request but its own
    /// mapping). `Err` when no answer came.
    pub async fn send(&self, tool: usize, arguments: &Value) -> Result<ApiResponse, ToolError> {
        let t = self.tool(tool)?;
        let applies = match &t.plan {
            Plan::Use(applies) => applies,
            Plan::Unusable(why) => return Err(ToolError::new(why.clone())),
        };
        let out = request::build(&t.binding, &t.base, arguments)
            .map_err(|e| ToolError::new(format!("{}: {e}", t.binding.operation_id)))?;
        let mut secrets = auth::secrets(applies, &self.net, self.limits)
            .await
            .map_err(ToolError::new)?;
        secrets.extra = self.extra_headers.clone();
        let response = self
            .net
            .send(&out, &secrets, self.limits)
            .await
            .map_err(ToolError::new)?;
        if response.status == http::StatusCode::UNAUTHORIZED {
            auth::refused(applies).await;
        }
        Ok(response)
    }

    /// The answer of tool number `tool`'s API as the tool's result (see
    /// the module documentation of `upstream::response`): structured
    /// output, content blocks, or a [`ToolError`] for an error status.
    pub fn output(&self, tool: usize, response: ApiResponse) -> Result<ToolOutput, ToolError> {
        let t = self.tool(tool)?;
        response::to_output(t.binding.output.as_ref(), response)
    }

    /// The binding of tool number `tool`, if it has one.
    pub fn binding(&self, tool: usize) -> Option<&HttpBinding> {
        self.tools.get(tool)?.as_ref().map(|t| &t.binding)
    }

    fn tool(&self, tool: usize) -> Result<&Tool, ToolError> {
        self.tools
            .get(tool)
            .and_then(Option::as_ref)
            .ok_or_else(|| ToolError::new(format!("tool number {tool} has no HTTP binding")))
    }
}

impl UpstreamBuilder {
    /// The API's URL for every tool, replacing the bindings' server URLs
    /// (each operation's path is appended to it); what `MCP_UPSTREAM_URL`
    /// sets.
    pub fn base_url(mut self, url: impl Into<String>) -> Self {
        self.base_url = Some(url.into());
        self
    }

    /// The credential of the security scheme `scheme` (its name in the
    /// API description): an API key, a bearer or OAuth access token, or
    /// `user:password` for HTTP Basic. Wins over the environment.
    pub fn credential(mut self, scheme: impl Into<String>, value: impl Into<String>) -> Self {
        self.values.insert(scheme.into(), value.into());
        self
    }

    /// The client id and secret of the OAuth 2 scheme `scheme` with a
    /// `tokenUrl` (client-credentials grant). Wins over the environment.
    pub fn client_credentials(
        mut self,
        scheme: impl Into<String>,
        client_id: impl Into<String>,
        client_secret: impl Into<String>,
    ) -> Self {
        self.clients
            .insert(scheme.into(), (client_id.into(), client_secret.into()));
        self
    }

    /// Reads `MCP_UPSTREAM_URL` and the schemes' variables from the
    /// process environment for what was not set explicitly.
    pub fn read_env(self) -> Self {
        self.env(|name| std::env::var(name).ok())
    }

    /// Reads variables through `lookup` instead of the process
    /// environment (tests, a secrets store).
    pub fn env(mut self, lookup: impl Fn(&str) -> Option<String> + Send + Sync + 'static) -> Self {
        self.env = Some(Box::new(lookup));
        self
    }

    /// How connections are made: TLS roots and client certificate, proxy,
    /// connect timeout. Its `headers` are sent on the API's requests, to
    /// the API's own origin only, like credentials (not to a token
    /// endpoint).
    pub fn http_options(mut self, options: HttpOptions) -> Self {
        self.http = options;
        self
    }

    /// How long one request may take, retries and redirects included
    /// (default [`DEFAULT_TIMEOUT`]).
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.limits.timeout = timeout;
        self
    }

    /// The largest answer body read (default
    /// [`DEFAULT_MAX_RESPONSE_BYTES`]); a larger one is a tool error.
    pub fn max_response_bytes(mut self, bytes: usize) -> Self {
        self.limits.max_bytes = bytes;
        self
    }

    /// How often an idempotent request is sent again after `429`, `503`
    /// or a failed connection (default [`DEFAULT_MAX_RETRIES`]).
    pub fn max_retries(mut self, retries: u32) -> Self {
        self.limits.max_retries = retries;
        self
    }

    /// The client; fails when a binding does not parse, a tool has no
    /// absolute URL, or a tool's credentials are missing (all such tools
    /// in one error, with the variables to set).
    pub fn build(self) -> Result<Upstream, UpstreamError> {
        let entries: Vec<Option<HttpBinding>> = serde_json::from_str(&self.bindings)
            .map_err(|e| UpstreamError::new(format!("the upstream bindings do not parse: {e}")))?;
        let no_env = |_: &str| -> Option<String> { None };
        let env: &dyn Fn(&str) -> Option<String> = match &self.env {
            Some(lookup) => lookup.as_ref(),
            None => &no_env,
        };
        let base_override = self
            .base_url
            .clone()
            .or_else(|| env(UPSTREAM_URL_VAR).filter(|v| !v.is_empty()));
        if let Some(url) = &base_override {
            check_absolute(url).map_err(|why| {
                UpstreamError::new(format!(
                    "{UPSTREAM_URL_VAR} ({url:?}) is not an http:// or https:// URL: {why}"
                ))
                .with_variables(vec![UPSTREAM_URL_VAR.into()])
            })?;
        }
        let mut sources = Sources {
            values: &self.values,
            clients: &self.clients,
            env,
            tokens: HashMap::new(),
        };
        let mut problems = Vec::new();
        let mut variables: Vec<String> = Vec::new();
        let mut tools = Vec::with_capacity(entries.len());
        for (index, entry) in entries.into_iter().enumerate() {
            let Some(binding) = entry else {
                tools.push(None);
                continue;
            };
            let which = format!("tool #{index} ({})", binding.operation_id);
            let base = match &base_override {
                Some(url) => url.clone(),
                None => match server_url(binding.servers.first()) {
                    Ok(url) => url,
                    Err(why) => {
                        problems.push(format!(
                            "{which}: {why}; set {UPSTREAM_URL_VAR} to the API's URL"
                        ));
                        push_unique(&mut variables, UPSTREAM_URL_VAR);
                        String::new()
                    }
                },
            };
            let plan = match auth::choose(&binding.security, &mut sources) {
                Ok(plan) => plan,
                Err(missing) => {
                    let options: Vec<String> =
                        missing.iter().map(|vars| vars.join(" and ")).collect();
                    problems.push(format!(
                        "{which} needs credentials for its API: set {}",
                        options.join(", or set ")
                    ));
                    for var in missing.iter().flatten() {
                        // The name without a note on its value.
                        push_unique(&mut variables, var.split(' ').next().unwrap_or(var));
                    }
                    Plan::Use(Vec::new())
                }
            };
            tools.push(Some(Tool {
                binding,
                base,
                plan,
            }));
        }
        if !problems.is_empty() {
            return Err(UpstreamError::new(problems.join("\n")).with_variables(variables));
        }
        Ok(Upstream {
            tools,
            extra_headers: self.http.headers.clone(),
            net: Net::new(self.http),
            limits: self.limits,
        })
    }
}

fn push_unique(list: &mut Vec<String>, item: &str) {
    if !list.iter().any(|v| v == item) {
        list.push(item.to_owned());
    }
}

/// Why `url` is not an absolute `http(s)://` URL with a host, if it is not.
fn check_absolute(url: &str) -> Result<(), String> {
    let parsed = url::Url::parse(url).map_err(|e| e.to_string())?;
    if !matches!(parsed.scheme(), "http" | "https") || parsed.host_str().is_none() {
        return Err("not an http:// or https:// URL with a host".into());
    }
    Ok(())
}

/// The first server's URL with its variables' defaults.
fn server_url(server: Option<&ServerUrl>) -> Result<String, String> {
    let server = server.ok_or("the API description names no server")?;
    let mut url = server.url.clone();
    for (name, variable) in &server.variables {
        url = url.replace(&format!("{{{name}}}"), &variable.default);
    }
    check_absolute(&url).map_err(|_| format!("the server URL {url:?} is not absolute"))?;
    Ok(url)
}
