//! `mcpgen introspect`: a manifest from a live stdio server.
//!
//! Starts the command, performs the handshake (offering the newest
//! `initialize`-based revision and accepting any older one), pages through
//! the lists the server declares (see [`LISTS`]: `tools/list`,
//! `resources/list`, `resources/templates/list`, `prompts/list`) and
//! returns a manifest: every item exactly as served, in the server's order
//! (unknown fields kept), under the manifest's section names (`tools`,
//! `resources`, `resourceTemplates`, `prompts`), and a `server` object from
//! the server's `serverInfo` and `instructions`. The server's stderr is
//! captured and quoted when something goes wrong. The client engine's
//! limits apply (message size, pages and items of each list), so a server
//! that writes without end or pages forever fails with an error naming the
//! limit and the method, not with memory exhaustion.
//!
//! With a URL ([`IntrospectUrl`], `mcpgen introspect --url`) it talks to a
//! Streamable HTTP endpoint instead, in whichever era the server speaks:
//! `server/discover` (2026-07-28) first, else `initialize`.

use std::path::Path;
use std::time::Duration;

use mcpgen_runtime::client::{
    CallOptions, Client, ClientError, ClientOptions, ConnectErrorKind, GarbagePolicy,
};
use mcpgen_runtime::transport::http::HttpOptions;
use mcpgen_runtime::transport::{ChildTransport, StderrMode};
use serde_json::{json, Map, Value};

use crate::error::{Error, Result};

/// Revisions introspection speaks, newest first.
pub const REVISIONS: &[&str] = &["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"];

/// What to introspect.
#[derive(Debug, Clone)]
pub struct Introspect {
    /// The server program.
    pub command: String,
    /// Its arguments.
    pub args: Vec<String>,
    /// Limit for the whole operation (start, handshake, every page).
    pub timeout: Duration,
}

/// A manifest read from a live server.
#[derive(Debug, Clone, PartialEq)]
pub struct Introspected {
    /// The manifest document (`server`, `tools` and the other sections
    /// the server declared).
    pub manifest: Value,
    /// The negotiated protocol revision.
    pub protocol_version: String,
}

impl Introspected {
    /// The manifest as pretty JSON with a final newline.
    pub fn to_json(&self) -> String {
        let mut text = serde_json::to_string_pretty(&self.manifest).unwrap_or_default();
        text.push('\n');
        text
    }

    /// Number of tools.
    pub fn tool_count(&self) -> usize {
        self.count("tools")
    }

    /// Number of items in manifest section `key` (`tools`, `resources`,
    /// `resourceTemplates`, `prompts`; 0 when absent).
    pub fn count(&self, key: &str) -> usize {
        self.manifest[key].as_array().map_or(0, Vec::len)
    }

    /// What was found, for the summary line: `3 tool(s)`, followed by the
    /// other sections the server declared (`2 resource(s), 1 resource
    /// template(s), 2 prompt(s)`).
    pub fn summary(&self) -> String {
        let mut parts = vec![format!("{} tool(s)", self.tool_count())];
        for (key, what) in crate::manifest::surface::SECTIONS {
            if self.manifest.get(key).is_some() {
                parts.push(format!("{} {what}(s)", self.count(key)));
            }
        }
        parts.join(", ")
    }
}

/// The lists introspection reads: (method, manifest section = the
/// result's array member, the server capability that declares it). Tools
/// are read unless the server declares other capabilities but not
/// `tools`; the others only when their capability is declared.
pub const LISTS: [(&str, &str, &str); 4] = [
    ("tools/list", "tools", "tools"),
    ("resources/list", "resources", "resources"),
    ("resources/templates/list", "resourceTemplates", "resources"),
    ("prompts/list", "prompts", "prompts"),
];

/// The lists of [`LISTS`] a server with `capabilities` serves.
fn declared_lists(capabilities: &Value) -> Vec<(&'static str, &'static str)> {
    let has = |c: &str| capabilities.get(c).is_some_and(|v| !v.is_null());
    let surface = has("resources") || has("prompts");
    LISTS
        .iter()
        .filter(|(_, _, cap)| {
            if *cap == "tools" {
                has("tools") || !surface
            } else {
                has(cap)
            }
        })
        .map(|(method, key, _)| (*method, *key))
        .collect()
}

/// Reads every list the server declares, recording the method under way
/// in `phase`; returns the manifest sections in [`LISTS`] order (`tools`
/// always, empty when the server declares no tools).
async fn read_lists(
    client: &Client,
    capabilities: &Value,
    phase: &std::sync::Mutex<&'static str>,
) -> std::result::Result<Map<String, Value>, ClientError> {
    let mut sections = Map::new();
    sections.insert("tools".into(), Value::Array(Vec::new()));
    for (method, key) in declared_lists(capabilities) {
        *phase.lock().unwrap_or_else(|e| e.into_inner()) = method;
        let items = client.list_all(method, key, &CallOptions::new()).await?;
        sections.insert(key.into(), Value::Array(items));
    }
    *phase.lock().unwrap_or_else(|e| e.into_inner()) = "tools/call";
    read_search_catalog(client, &mut sections).await?;
    Ok(sections)
}

/// A server with mcpgen's search tool surface lists only its pinned tools
/// and `search_tools`/`call_tool`: the whole catalog is read through
/// `search_tools` (the query `*`, page by page) and the manifest keeps the
/// surface (`x-mcpgen.toolSurface`, the pinned tools), so a server
/// generated from it serves the same. A server whose search tool does not
/// answer `*` (another implementation) keeps what it listed.
async fn read_search_catalog(
    client: &Client,
    sections: &mut Map<String, Value>,
) -> std::result::Result<(), ClientError> {
    use mcpgen_runtime::server::search::{CALL_TOOL, EVERY_TOOL, MAX_RESULTS, SEARCH_TOOLS};
    let listed = sections["tools"].as_array().cloned().unwrap_or_default();
    let named = |name: &str| listed.iter().find(|t| t["name"] == name);
    let searches = named(SEARCH_TOOLS).is_some_and(|t| {
        t.pointer("/inputSchema/properties/offset").is_some()
            && t.pointer("/inputSchema/properties/query").is_some()
    });
    if !searches || named(CALL_TOOL).is_none() {
        return Ok(());
    }
    let mut catalog: Vec<Value> = Vec::new();
    loop {
        let arguments = json!({"query": EVERY_TOOL, "limit": MAX_RESULTS, "offset": catalog.len()});
        let result = client
            .call_tool(SEARCH_TOOLS, arguments, &CallOptions::new())
            .await?;
        let page = result
            .pointer("/structuredContent/result")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        let last = page.len() < MAX_RESULTS;
        catalog.extend(page);
        if last || catalog.len() >= MAX_CATALOG {
            break;
        }
    }
    if catalog.is_empty() {
        return Ok(());
    }
    let pinned: Vec<Value> = listed
        .iter()
        .filter(|t| t["name"] != SEARCH_TOOLS && t["name"] != CALL_TOOL)
        .map(|t| t["name"].clone())
        .collect();
    let mut settings = Map::new();
    settings.insert("toolSurface".into(), Value::from("search"));
    if !pinned.is_empty() {
        settings.insert("pinnedTools".into(), Value::Array(pinned));
    }
    let mut reordered = Map::new();
    reordered.insert(
        crate::manifest::SETTINGS_KEY.into(),
        Value::Object(settings),
    );
    reordered.insert("tools".into(), Value::Array(catalog));
    for (key, value) in std::mem::take(sections) {
        if key != "tools" {
            reordered.insert(key, value);
        }
    }
    *sections = reordered;
    Ok(())
}

/// The most tools read through a search surface (as many as a manifest of
/// the scale tests, ten times over).
const MAX_CATALOG: usize = 10_000;

/// The manifest: `server`, then the sections.
fn manifest_of(
    session: &mcpgen_runtime::client::Negotiated,
    sections: Map<String, Value>,
) -> Value {
    let mut manifest = Map::new();
    if let Some(server) = server_object(&session.server_info, session.instructions.as_deref()) {
        manifest.insert("server".into(), server);
    }
    manifest.extend(sections);
    Value::Object(manifest)
}

fn shown(command: &str, args: &[String]) -> String {
    std::iter::once(command)
        .chain(args.iter().map(String::as_str))
        .collect::<Vec<_>>()
        .join(" ")
}

/// The `server` object of the manifest: the fields the manifest format
/// knows (name, version, title, instructions).
fn server_object(info: &Value, instructions: Option<&str>) -> Option<Value> {
    let name = info.get("name")?.as_str()?;
    let mut server = Map::new();
    server.insert("name".into(), json!(name));
    server.insert(
        "version".into(),
        info.get("version")
            .cloned()
            .unwrap_or_else(|| json!("0.0.0")),
    );
    if let Some(title) = info.get("title").filter(|t| t.is_string()) {
        server.insert("title".into(), title.clone());
    }
    if let Some(text) = instructions {
        server.insert("instructions".into(), json!(text));
    }
    Some(Value::Object(server))
}

fn explain(err: ClientError, what: &str, timeout: Duration) -> Error {
    match err {
        ClientError::Io(e) => Error::new(e.to_string())
            .with_hint("check the command after `--`: it must exist and be executable (or be on PATH)"),
        ClientError::Garbage { line } => Error::new(format!(
            "{what} does not speak MCP over stdio: it wrote {line:?} to stdout"
        ))
        .with_hint("the command must be an MCP server using the stdio transport (JSON-RPC on stdout, logs on stderr)"),
        ClientError::Timeout { method, .. } => Error::new(format!(
            "{what} did not answer `{method}` within {timeout:?}"
        ))
        .with_hint("is it an MCP stdio server? If it is slow to start, raise --timeout"),
        ClientError::Closed { reason } => {
            Error::new(format!("{what} ended before introspection finished: {reason}"))
                .with_hint("run the command by hand to see why it exits")
        }
        other => Error::new(format!("introspecting {what} failed: {other}")),
    }
}

impl Introspect {
    /// Introspects inside an existing Tokio runtime.
    pub async fn run_async(&self) -> Result<Introspected> {
        let what = format!("`{}`", shown(&self.command, &self.args));
        let transport = ChildTransport::spawn(
            &self.command,
            &self.args,
            std::iter::empty::<(&str, &str)>(),
            StderrMode::Capture,
        )
        .map_err(|e| explain(ClientError::Io(e), &what, self.timeout))?;
        let stderr = transport.stderr();
        let options = ClientOptions::new(REVISIONS.iter().copied())
            .client_info("mcpgen-introspect", env!("CARGO_PKG_VERSION"))
            .timeout(self.timeout)
            .garbage(GarbagePolicy::FailPending);
        // The method under way, for the error when the overall limit hits.
        let phase = std::sync::Mutex::<&'static str>::new("initialize");
        let work = async {
            let client = Client::connect(transport, options).await?;
            let session = client.session().cloned().expect("connected");
            let sections = read_lists(&client, &session.capabilities, &phase).await?;
            Ok::<_, ClientError>((session, sections))
        };
        let outcome = match tokio::time::timeout(self.timeout, work).await {
            Ok(r) => r,
            Err(_) => {
                let method = *phase.lock().unwrap_or_else(|e| e.into_inner());
                Err(ClientError::Timeout {
                    method: method.into(),
                    id: 0,
                    after: self.timeout,
                })
            }
        };
        let (session, sections) = outcome.map_err(|e| {
            let mut err = explain(e, &what, self.timeout);
            if let Some(text) = stderr
                .as_ref()
                .map(|s| s.text())
                .filter(|t| !t.trim().is_empty())
            {
                if !err.message.contains("stderr ends with") {
                    let tail: Vec<&str> = text
                        .lines()
                        .rev()
                        .take(10)
                        .collect::<Vec<_>>()
                        .into_iter()
                        .rev()
                        .collect();
                    err.message
                        .push_str("\n  server stderr (last lines):\n    ");
                    err.message.push_str(&tail.join("\n    "));
                }
            }
            err
        })?;
        Ok(Introspected {
            manifest: manifest_of(&session, sections),
            protocol_version: session.protocol_version,
        })
    }

    /// Introspects on a runtime of its own (for the CLI).
    pub fn run(&self) -> Result<Introspected> {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| Error::new(format!("cannot start the async runtime: {e}")))?;
        rt.block_on(self.run_async())
    }
}

/// The `mcpgen introspect` command: writes the manifest to `out` (or
/// stdout) and a one-line summary to stderr.
pub fn command(out: Option<&Path>, timeout_secs: u64, command_line: &[String]) -> Result<()> {
    let Some((command, args)) = command_line.split_first() else {
        return Err(Error::new("no server command given").with_hint(
            "usage: mcpgen introspect [--out FILE] [--timeout SECS] -- COMMAND [ARGS...]",
        ));
    };
    let job = Introspect {
        command: command.clone(),
        args: args.to_vec(),
        timeout: Duration::from_secs(timeout_secs),
    };
    let found = job.run()?;
    let text = found.to_json();
    match out {
        Some(path) => {
            if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
                std::fs::create_dir_all(dir).map_err(|e| Error::io("create", dir, e))?;
            }
            std::fs::write(path, &text).map_err(|e| Error::io("write", path, e))?;
        }
        None => print!("{text}"),
    }
    eprintln!(
        "mcpgen introspect: {} from `{}` (protocol {}){}",
        found.summary(),
        shown(command, args),
        found.protocol_version,
        out.map(|p| format!(", written to {}", p.display()))
            .unwrap_or_default()
    );
    Ok(())
}

/// Revisions introspection speaks over Streamable HTTP, newest first: the
/// stateless 2026-07-28 (tried first, with `server/discover`) and the
/// stateful revisions of that transport (2024-11-05 used HTTP+SSE).
pub const HTTP_REVISIONS: &[&str] = &["2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26"];

/// What to introspect over Streamable HTTP.
#[derive(Debug, Clone)]
pub struct IntrospectUrl {
    /// The MCP endpoint (`https://HOST/mcp`, `http://HOST:PORT/mcp`).
    pub url: String,
    /// Limit for the whole operation (handshake and every page).
    pub timeout: Duration,
    /// Headers, CA files, client certificate, proxy.
    pub http: HttpOptions,
    /// Log in with OAuth when the server asks (`--oauth`): the
    /// authorization URL is printed, the browser's redirect awaited on a
    /// loopback port, tokens cached in [`token_cache`] and reused.
    pub oauth: bool,
    /// A client registered beforehand (`--client-id`): with a secret or a
    /// key it logs in without a browser (client credentials grant).
    pub client: Option<ClientArgs>,
}

/// The connection settings of `mcpgen introspect --url`.
#[derive(Debug, Clone, Default)]
pub struct HttpArgs {
    /// `--header 'NAME: VALUE'`, repeatable.
    pub headers: Vec<String>,
    /// `--cacert FILE`, repeatable: further CAs to trust.
    pub cacerts: Vec<std::path::PathBuf>,
    /// `--cert FILE` and `--key FILE`: a client certificate.
    pub cert: Option<std::path::PathBuf>,
    /// The key of `--cert`.
    pub key: Option<std::path::PathBuf>,
    /// `--proxy URL`: this proxy instead of the environment's.
    pub proxy: Option<String>,
    /// `--oauth`: log in with OAuth when the server asks.
    pub oauth: bool,
    /// `--client-id` and its secret or key.
    pub client: Option<ClientArgs>,
}

/// `--client-id ID` with `--client-secret SECRET` or `--client-key FILE`
/// (`--client-key-alg ALG`): a client registered beforehand.
#[derive(Clone, Default)]
pub struct ClientArgs {
    /// `--client-id`.
    pub id: String,
    /// `--client-secret` (or `MCPGEN_CLIENT_SECRET`).
    pub secret: Option<String>,
    /// `--client-key`: a PEM private key for `private_key_jwt`.
    pub key: Option<std::path::PathBuf>,
    /// `--client-key-alg`.
    pub key_alg: String,
}

impl std::fmt::Debug for ClientArgs {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClientArgs")
            .field("id", &self.id)
            .field("secret", &self.secret.as_ref().map(|_| "<redacted>"))
            .field("key", &self.key)
            .field("key_alg", &self.key_alg)
            .finish()
    }
}

impl ClientArgs {
    /// Whether these credentials log in without a browser (a secret or a key).
    fn headless(&self) -> bool {
        self.secret.is_some() || self.key.is_some()
    }

    /// The credentials, the key read and parsed.
    fn credentials(&self) -> Result<mcpgen_runtime::client::oauth::ClientCredentials> {
        use mcpgen_runtime::client::oauth::{ClientCredentials, ClientKey};
        let mut credentials = ClientCredentials::new(&self.id);
        if let Some(secret) = &self.secret {
            credentials = credentials.secret(secret);
        }
        if let Some(path) = &self.key {
            let pem = std::fs::read(path).map_err(|e| Error::io("read", path, e))?;
            let key = ClientKey::from_pem(&pem, &self.key_alg).map_err(|e| {
                Error::new(format!("--client-key {}: {}", path.display(), e.message())).with_hint(
                    "give a PEM private key (PKCS#8) and its algorithm with --client-key-alg (ES256, RS256, PS256, EdDSA, ...)",
                )
            })?;
            credentials = credentials.private_key(key);
        }
        Ok(credentials)
    }
}

impl HttpArgs {
    /// The options these arguments make; an error names a bad header or a
    /// certificate without its key.
    pub fn options(&self) -> Result<HttpOptions> {
        let mut options = HttpOptions::new();
        for text in &self.headers {
            let (name, value) =
                mcpgen_runtime::transport::http::parse_header(text).map_err(|why| {
                    Error::new(format!("--header: {why}"))
                        .with_hint("write --header 'Authorization: Bearer TOKEN'")
                })?;
            options = options.header(name, value);
        }
        for file in &self.cacerts {
            options = options.add_ca_file(file);
        }
        match (&self.cert, &self.key) {
            (Some(cert), Some(key)) => options = options.client_identity(cert, key),
            (None, None) => {}
            _ => {
                return Err(Error::new("--cert and --key go together")
                    .with_hint("give the client certificate and its private key, both PEM files"))
            }
        }
        if let Some(proxy) = &self.proxy {
            options = options.proxy(proxy);
        }
        Ok(options)
    }
}

/// How long an interactive OAuth login may take.
const LOGIN_WAIT: Duration = Duration::from_secs(300);

/// Where `mcpgen introspect --oauth` keeps tokens: `mcpgen/tokens.json` in
/// the user's configuration directory (`$XDG_CONFIG_HOME`, else
/// `~/.config`; `%APPDATA%` on Windows), a file only its owner can read.
pub fn token_cache() -> Result<std::path::PathBuf> {
    let var = |k: &str| {
        std::env::var_os(k)
            .filter(|v| !v.is_empty())
            .map(std::path::PathBuf::from)
    };
    let base = if cfg!(windows) {
        var("APPDATA")
    } else {
        var("XDG_CONFIG_HOME").or_else(|| var("HOME").map(|h| h.join(".config")))
    };
    let base = base.ok_or_else(|| {
        Error::new("cannot find the configuration directory to cache OAuth tokens in")
            .with_hint("set XDG_CONFIG_HOME (or HOME)")
    })?;
    Ok(base.join("mcpgen").join("tokens.json"))
}

/// The error of `introspect --url`, with a hint that fits the HTTP
/// transport and whether `--oauth` was given.
fn explain_http(err: ClientError, url: &str, timeout: Duration, oauth: bool) -> Error {
    use mcpgen_runtime::client::http::TRANSPORT_ERROR;
    match err {
        ClientError::Connect(e) => {
            let via = e.proxy().map(|p| format!(" through the proxy {p}")).unwrap_or_default();
            let error = Error::new(format!("cannot connect to {}{via}: {}", e.url(), e.message()));
            match e.kind() {
                ConnectErrorKind::CertificateNotTrusted => error.with_hint(
                    "if the server's certificate comes from a private CA, trust it: --cacert FILE (PEM)",
                ),
                ConnectErrorKind::Refused => {
                    error.with_hint("is the server running and listening there? --url takes the MCP endpoint, e.g. https://mcp.example.com/mcp")
                }
                _ => match e.hint() {
                    Some(hint) => error.with_hint(hint.to_owned()),
                    None => error,
                },
            }
        }
        ClientError::Closed { reason } => Error::new(format!("cannot introspect {url}: {reason}"))
            .with_hint("is the server running and listening there? --url takes the MCP endpoint, e.g. http://127.0.0.1:8080/mcp"),
        ClientError::Protocol { code: TRANSPORT_ERROR, method, message, .. }
            if message.contains("authorization failed") =>
        {
            Error::new(format!("{url} refused `{method}` and logging in failed: {message}"))
                .with_hint("the message names the step that failed (the server's resource metadata, the authorization server's metadata, registration or the token); check that server")
        }
        ClientError::Protocol { code: TRANSPORT_ERROR, method, message, .. }
            if message.contains("HTTP 401") =>
        {
            let error = Error::new(format!("{url} refused `{method}`: {message}"));
            if oauth {
                error.with_hint("the server refused the token of the login: check the scopes it asks for, or delete the cached tokens to log in afresh")
            } else {
                error.with_hint("the server requires authorization: pass --oauth to log in (tokens are cached and reused)")
            }
        }
        ClientError::Protocol { code: TRANSPORT_ERROR, method, message, .. } => {
            Error::new(format!("{url} did not answer `{method}` as an MCP endpoint: {message}"))
                .with_hint("check the URL, its path included (often /mcp)")
        }
        ClientError::Timeout { method, .. } => Error::new(format!("{url} did not answer `{method}` within {timeout:?}"))
            .with_hint("is it an MCP Streamable HTTP endpoint? If the server is slow, raise --timeout"),
        ClientError::Garbage { line } => Error::new(format!(
            "{url} answered with something that is not a JSON-RPC message: {line:?}"
        ))
        .with_hint("check that --url is the server's MCP endpoint; an answer must be a JSON-RPC message (JSON nested at most 128 levels deep)"),
        other => Error::new(format!("introspecting {url} failed: {other}")),
    }
}

impl IntrospectUrl {
    /// Introspects inside an existing Tokio runtime.
    pub async fn run_async(&self) -> Result<Introspected> {
        use mcpgen_runtime::client::http::HttpTransport;
        let mut transport = HttpTransport::new(&self.url)
            .map_err(|e| {
                Error::new(e.to_string()).with_hint(
                    "--url takes an https:// or http:// URL, e.g. http://127.0.0.1:8080/mcp",
                )
            })?
            .options(self.http.clone());
        let headless = self.client.as_ref().is_some_and(ClientArgs::headless);
        if let Some(client) = self.client.as_ref().filter(|_| !headless && !self.oauth) {
            return Err(Error::new(format!(
                "--client-id {} alone cannot log in",
                client.id
            ))
            .with_hint("add --client-secret or --client-key to log in as the client itself, or --oauth to log in at a browser"));
        }
        // An interactive login happens inside the request that was refused.
        let limit = if self.oauth && !headless {
            self.timeout + LOGIN_WAIT
        } else {
            self.timeout
        };
        if self.oauth || headless {
            use mcpgen_runtime::client::oauth::{FileTokenStore, LoopbackRedirect, OAuth};
            let path = token_cache()?;
            let oauth = match &self.client {
                Some(client) if headless => OAuth::client_credentials(client.credentials()?),
                _ => {
                    let redirect = LoopbackRedirect::bind(0)
                        .map_err(|e| {
                            Error::new(format!(
                                "cannot listen on a loopback port for the OAuth redirect: {e}"
                            ))
                        })?
                        .wait(LOGIN_WAIT);
                    let mut oauth = OAuth::new(redirect);
                    if let Some(client) = &self.client {
                        oauth = oauth.credentials(client.credentials()?);
                    }
                    oauth
                }
            }
            .client_name("mcpgen introspect")
            .store(FileTokenStore::new(&path));
            transport = transport.oauth(oauth).map_err(|e| {
                Error::new(e.to_string())
                    .with_hint(format!("delete {} to log in afresh", path.display()))
            })?;
        }
        let info = transport.info();
        let options = ClientOptions::new(HTTP_REVISIONS.iter().copied())
            .client_info("mcpgen-introspect", env!("CARGO_PKG_VERSION"))
            .timeout(limit);
        let phase = std::sync::Mutex::<&'static str>::new("server/discover");
        let work = async {
            let client = Client::connect(transport, options).await?;
            let session = client.session().cloned().expect("connected");
            let sections = read_lists(&client, &session.capabilities, &phase).await?;
            Ok::<_, ClientError>((session, sections))
        };
        let outcome = match tokio::time::timeout(limit, work).await {
            Ok(r) => r,
            Err(_) => {
                let method = *phase.lock().unwrap_or_else(|e| e.into_inner());
                Err(ClientError::Timeout {
                    method: method.into(),
                    id: 0,
                    after: limit,
                })
            }
        };
        // The client is gone: a stateful session ends with DELETE.
        let _ = tokio::time::timeout(Duration::from_secs(5), info.closed()).await;
        let (session, sections) = outcome
            .map_err(|e| explain_http(e, &self.url, self.timeout, self.oauth || headless))?;
        Ok(Introspected {
            manifest: manifest_of(&session, sections),
            protocol_version: session.protocol_version,
        })
    }

    /// Introspects on a runtime of its own (for the CLI).
    pub fn run(&self) -> Result<Introspected> {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| Error::new(format!("cannot start the async runtime: {e}")))?;
        rt.block_on(self.run_async())
    }
}

/// `mcpgen introspect --url URL`: as [`command`], for a Streamable HTTP endpoint.
/// With `--oauth`, logs in when the server asks (see [`IntrospectUrl::oauth`]).
pub fn command_url(
    out: Option<&Path>,
    timeout_secs: u64,
    url: &str,
    http: &HttpArgs,
) -> Result<()> {
    let found = IntrospectUrl {
        url: url.to_owned(),
        timeout: Duration::from_secs(timeout_secs),
        http: http.options()?,
        oauth: http.oauth,
        client: http.client.clone(),
    }
    .run()?;
    let text = found.to_json();
    match out {
        Some(path) => {
            if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
                std::fs::create_dir_all(dir).map_err(|e| Error::io("create", dir, e))?;
            }
            std::fs::write(path, &text).map_err(|e| Error::io("write", path, e))?;
        }
        None => print!("{text}"),
    }
    eprintln!(
        "mcpgen introspect: {} from {url} (protocol {}){}",
        found.summary(),
        found.protocol_version,
        out.map(|p| format!(", written to {}", p.display()))
            .unwrap_or_default()
    );
    Ok(())
}
