//! One function per client scenario of the conformance suite: the calls
//! its mock server expects, through the generated client's typed methods.

use std::time::Duration;

use mcpgen_runtime::client::http::HttpTransport;
use mcpgen_runtime::client::oauth::{
    Assertion, ClientCredentials, ClientKey, HeadlessRedirect, IdentityProvider, OAuth,
};
use mcpgen_runtime::client::RpcError;
use mcpgen_runtime::client::{is_stateless_revision, CallOptions, ClientHandlers, ToolSchemas};
use mcpgen_runtime::skills::{SkillEntry, SkillResources};
use serde_json::{json, Value};

use crate::client::{Client, ClientOptions};
use crate::protocol::ContentBlock;
use crate::tools::*;
use crate::Invocation;

/// Runs the named scenario.
pub async fn run(invocation: &Invocation) -> Result<(), String> {
    let c = connect(invocation).await?;
    match invocation.scenario.as_str() {
        "tools_call" => tools_call(&c).await,
        "request-metadata" => request_metadata(&c).await,
        "http-standard-headers" => standard_headers(&c).await,
        "http-custom-headers" => custom_headers(&c, invocation.context.as_ref()).await,
        "http-invalid-tool-headers" => invalid_tool_headers(&c).await,
        "json-schema-ref-no-deref" => ref_no_deref(&c).await,
        "json-schema-2020-12-preservation" => schema_preservation(&c).await,
        "elicitation-sep1034-client-defaults" => {
            call_listed(&c, "test_client_elicitation_defaults").await
        }
        "sse-retry" => call_listed(&c, "test_reconnection").await,
        "sep-2322-client-request-state" => request_state(&c).await,
        auth if auth.starts_with("auth/") => authorized_calls(&c).await,
        "sep-2640-client-no-prefetch" => skill_registry(&c).await.map(drop),
        verify if verify.starts_with("sep-2640-client-verify-") => load_first_skill(&c).await,
        other => Err(format!("this client does not know the scenario {other:?}")),
    }
}

/// Connects over Streamable HTTP offering the suite's revision first (and
/// the bindings' revision behind a modern one); the session must settle
/// on the suite's revision.
async fn connect(invocation: &Invocation) -> Result<Client, String> {
    let mut revisions = vec![invocation.revision.clone()];
    if is_stateless_revision(&invocation.revision) {
        revisions.push(crate::client::PROTOCOL_VERSION.to_owned());
    }
    let options = ClientOptions::new(revisions)
        .client_info("mcpgen-conformance-client", env!("CARGO_PKG_VERSION"))
        .timeout(Duration::from_secs(20))
        .handlers(
            ClientHandlers::new()
                .on_elicitation(|params| async move { Ok::<_, RpcError>(accept_form(&params)) }),
        );
    let mut transport =
        HttpTransport::new(&invocation.url).map_err(|e| format!("the server URL: {e}"))?;
    if invocation.scenario.starts_with("auth/") {
        transport = transport
            .oauth(oauth(&invocation.scenario, invocation.context.as_ref())?)
            .map_err(|e| format!("OAuth: {e}"))?;
    }
    let c = Client::connect_with(transport, options)
        .await
        .map_err(|e| format!("connecting: {e}"))?;
    let session = c.session().ok_or("no session after the handshake")?;
    println!(
        "connected: protocol {} ({}), server {}",
        session.protocol_version,
        if session.stateless {
            "stateless"
        } else {
            "session"
        },
        session.server_info
    );
    if session.protocol_version != invocation.revision {
        return Err(format!(
            "the handshake settled on {}, not on the suite's {}",
            session.protocol_version, invocation.revision
        ));
    }
    Ok(c)
}

/// Accepts an elicitation form as a user who changes nothing would: every
/// field that has a `default` in `requestedSchema` gets it (SEP-1034), a
/// boolean without one is confirmed.
fn accept_form(params: &Value) -> Value {
    let mut content = serde_json::Map::new();
    let properties = params
        .pointer("/requestedSchema/properties")
        .and_then(Value::as_object);
    for (name, schema) in properties.into_iter().flatten() {
        if let Some(default) = schema.get("default") {
            content.insert(name.clone(), default.clone());
        } else if schema.get("type").and_then(Value::as_str) == Some("boolean") {
            content.insert(name.clone(), Value::Bool(true));
        }
    }
    println!(
        "elicitation: {} -> {}",
        params.get("message").and_then(Value::as_str).unwrap_or(""),
        Value::Object(content.clone())
    );
    json!({"action": "accept", "content": content})
}

/// Lists the tools and calls `tool` (with no arguments).
async fn call_listed(c: &Client, tool: &str) -> Result<(), String> {
    if !list(c).await?.iter().any(|n| n == tool) {
        return Err(format!("the server did not list {tool}"));
    }
    let result = c
        .engine()
        .call_tool(tool, json!({}), &CallOptions::new())
        .await
        .map_err(|e| format!("{tool}: {e}"))?;
    println!("{tool}: {result}");
    Ok(())
}

/// Multi round-trip requests (SEP-2322): two tools that answer with an
/// `InputRequiredResult` (with and without `requestState`), called
/// together with an unrelated tool, then a result without `resultType`.
/// The engine answers the input requests with the elicitation handler and
/// retries; the mock server checks the retries.
async fn request_state(c: &Client) -> Result<(), String> {
    list(c).await?;
    let call = |tool: &'static str| async move {
        let result = c
            .engine()
            .call_tool(tool, json!({}), &CallOptions::new())
            .await
            .map_err(|e| format!("{tool}: {e}"))?;
        println!("{tool}: {result}");
        Ok::<(), String>(())
    };
    let (a, b, u) = tokio::join!(
        call("test_mrtr_echo_state"),
        call("test_mrtr_no_state"),
        call("test_mrtr_unrelated")
    );
    a?;
    b?;
    u?;
    call("test_mrtr_no_result_type").await
}

/// The Client ID Metadata Document URL the suite expects (`auth/basic-cimd`).
const CLIENT_METADATA_URL: &str = "https://conformance-test.local/client-metadata.json";

/// OAuth as the suite drives it: the authorization endpoint redirects at
/// once (headless), pre-registered credentials come in the context
/// (`client_id`, `client_secret`, `issuer`), and a Client ID Metadata
/// Document URL is offered to servers that support it.
fn oauth(scenario: &str, context: Option<&Value>) -> Result<OAuth, String> {
    let field = |k: &str| context.and_then(|c| c.get(k)).and_then(Value::as_str);
    let need = |k: &str| {
        field(k).ok_or_else(|| format!("MCP_CONFORMANCE_CONTEXT has no {k} for {scenario}"))
    };
    let credentials = field("client_id").map(|id| {
        let mut c = ClientCredentials::new(id);
        if let Some(secret) = field("client_secret") {
            c = c.secret(secret);
        }
        if let Some(issuer) = field("issuer") {
            c = c.issuer(issuer);
        }
        c
    });
    let registered = || {
        credentials
            .clone()
            .ok_or(format!("{scenario} needs a client_id"))
    };
    Ok(match scenario {
        "auth/client-credentials-basic" => OAuth::client_credentials(registered()?),
        "auth/client-credentials-jwt" => {
            let key = ClientKey::from_pem(
                need("private_key_pem")?.as_bytes(),
                field("signing_algorithm").unwrap_or("ES256"),
            )
            .map_err(|e| e.to_string())?;
            OAuth::client_credentials(registered()?.private_key(key))
        }
        "auth/wif-jwt-bearer" => {
            OAuth::jwt_bearer(registered()?, Assertion::new(need("valid_jwt")?))
        }
        "auth/enterprise-managed-authorization" => {
            let idp_client = ClientCredentials::new(need("idp_client_id")?);
            let idp = IdentityProvider::new(
                need("idp_token_endpoint")?,
                idp_client,
                Assertion::new(need("idp_id_token")?),
            )
            .issuer(need("idp_issuer")?);
            OAuth::enterprise(registered()?, idp)
        }
        _ => {
            let mut oauth = OAuth::new(HeadlessRedirect::new("http://localhost:3000/callback"))
                .client_name("mcpgen-conformance-client")
                .client_metadata_url(CLIENT_METADATA_URL);
            if let Some(c) = credentials {
                oauth = oauth.credentials(c);
            }
            oauth
        }
    })
}

/// An authorization scenario: the handshake, `tools/list` and a call of
/// every listed tool, each authorized as the server demands.
async fn authorized_calls(c: &Client) -> Result<(), String> {
    for name in list(c).await? {
        let result = c
            .engine()
            .call_tool(&name, json!({}), &CallOptions::new())
            .await
            .map_err(|e| format!("{name}: {e}"))?;
        println!("{name}: {result}");
    }
    Ok(())
}

/// Lists the server's tools (which also teaches the HTTP transport their
/// `x-mcp-header` annotations); returns their names.
async fn list(c: &Client) -> Result<Vec<String>, String> {
    let tools = c
        .list_all_tools()
        .await
        .map_err(|e| format!("tools/list: {e}"))?;
    let names: Vec<String> = tools
        .iter()
        .filter_map(|t| t.get("name").and_then(Value::as_str))
        .map(str::to_owned)
        .collect();
    println!("tools/list: {}", names.join(", "));
    Ok(names)
}

fn text(blocks: &[ContentBlock]) -> String {
    blocks
        .iter()
        .filter_map(|b| match b {
            ContentBlock::Text(t) => Some(t.text.as_str()),
            _ => None,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn expect_text(tool: &str, blocks: &[ContentBlock], wanted: &str) -> Result<(), String> {
    let got = text(blocks);
    println!("{tool}: {got}");
    if got.contains(wanted) {
        Ok(())
    } else {
        Err(format!(
            "{tool} answered {got:?}, expected it to contain {wanted:?}"
        ))
    }
}

async fn tools_call(c: &Client) -> Result<(), String> {
    list(c).await?;
    let blocks = c
        .add_numbers(AddNumbersInput { a: 5.0, b: 3.0 })
        .await
        .map_err(|e| format!("add_numbers: {e}"))?;
    expect_text("add_numbers", &blocks, "The sum of 5 and 3 is 8")
}

/// The mock refuses the first request (`server/discover`) with -32022, so
/// the handshake retries with a listed version; then it checks `_meta` and
/// `MCP-Protocol-Version` on every request.
async fn request_metadata(c: &Client) -> Result<(), String> {
    list(c).await.map(drop)
}

async fn standard_headers(c: &Client) -> Result<(), String> {
    list(c).await?;
    let blocks = c
        .test_headers(TestHeadersInput::from(serde_json::Map::new()))
        .await
        .map_err(|e| format!("test_headers: {e}"))?;
    expect_text("test_headers", &blocks, "Headers test completed")?;
    let blocks = c
        .my_hyphenated_tool(MyHyphenatedToolInput::from(serde_json::Map::new()))
        .await
        .map_err(|e| format!("my-hyphenated-tool: {e}"))?;
    expect_text("my-hyphenated-tool", &blocks, "Headers test completed")
}

/// Makes the calls the scenario's context lists, each decoded into the
/// tool's generated input type.
async fn custom_headers(c: &Client, context: Option<&Value>) -> Result<(), String> {
    list(c).await?;
    let calls = context
        .and_then(|ctx| ctx.get("toolCalls"))
        .and_then(Value::as_array)
        .ok_or("MCP_CONFORMANCE_CONTEXT has no toolCalls")?;
    for call in calls {
        let name = call.get("name").and_then(Value::as_str).unwrap_or("");
        let arguments = call.get("arguments").cloned().unwrap_or_else(|| json!({}));
        let decode = |e: serde_json::Error| {
            format!("the arguments of {name} do not fit its input type: {e}")
        };
        let blocks = match name {
            "test_custom_headers" => {
                let input: TestCustomHeadersInput =
                    serde_json::from_value(arguments).map_err(decode)?;
                c.test_custom_headers(input).await
            }
            "test_custom_headers_null" => {
                let input: TestCustomHeadersNullInput =
                    serde_json::from_value(arguments).map_err(decode)?;
                c.test_custom_headers_null(input).await
            }
            other => {
                return Err(format!(
                    "the context names a tool this client was not generated for: {other:?}"
                ))
            }
        }
        .map_err(|e| format!("{name}: {e}"))?;
        expect_text(name, &blocks, "Custom headers test completed")?;
    }
    Ok(())
}

/// Calls every tool the server lists: the transport must have left out
/// each tool whose `x-mcp-header` annotations break the rules, so only
/// `valid_tool` (typed) remains. A tool it let through is called untyped,
/// which the scenario counts as a failure.
async fn invalid_tool_headers(c: &Client) -> Result<(), String> {
    let names = list(c).await?;
    if !names.iter().any(|n| n == "valid_tool") {
        return Err("tools/list lost valid_tool".into());
    }
    for name in &names {
        if name == "valid_tool" {
            let input = ValidToolInput {
                region: "us-west1".into(),
            };
            let blocks = c
                .valid_tool(input)
                .await
                .map_err(|e| format!("valid_tool: {e}"))?;
            expect_text("valid_tool", &blocks, "Tool call received")?;
        } else {
            c.engine()
                .call_tool(name, json!({}), &CallOptions::new())
                .await
                .map_err(|e| format!("{name}: {e}"))?;
            println!("{name}: called (the transport did not leave it out)");
        }
    }
    Ok(())
}

/// Lists the tools and compiles the live schema of `lookup_user`, whose
/// `profile` is a `$ref` to a network URL: validating against it must not
/// fetch that URL.
/// `json-schema-2020-12-preservation`: the focal tool's `inputSchema`,
/// as the client listed it, goes back verbatim as the echo tool's
/// `schema` argument; the mock server compares it with what it served
/// (`$schema`, `$defs` with `$anchor`, `additionalProperties`, `allOf`
/// and `anyOf`, `if`/`then`/`else`).
async fn schema_preservation(c: &Client) -> Result<(), String> {
    const FOCAL: &str = "json_schema_2020_12_tool";
    const ECHO: &str = "json_schema_echo";
    let live = c
        .list_all_tools()
        .await
        .map_err(|e| format!("tools/list: {e}"))?;
    let listed = |name: &str| {
        live.iter()
            .find(|t| t.get("name").and_then(Value::as_str) == Some(name))
    };
    let schema = listed(FOCAL)
        .and_then(|t| t.get("inputSchema"))
        .cloned()
        .ok_or_else(|| format!("the server did not list {FOCAL} with an inputSchema"))?;
    if listed(ECHO).is_none() {
        return Err(format!("the server did not list {ECHO}"));
    }
    let result = c
        .engine()
        .call_tool(ECHO, json!({ "schema": schema }), &CallOptions::new())
        .await
        .map_err(|e| format!("{ECHO}: {e}"))?;
    println!("{ECHO}: {result}");
    Ok(())
}

async fn ref_no_deref(c: &Client) -> Result<(), String> {
    let live = c
        .list_all_tools()
        .await
        .map_err(|e| format!("tools/list: {e}"))?;
    if !live
        .iter()
        .any(|t| t.get("name").and_then(Value::as_str) == Some("lookup_user"))
    {
        return Err("the server did not list lookup_user".into());
    }
    let drift = c.check_drift().await.map_err(|e| format!("drift: {e}"))?;
    println!(
        "drift against the manifest: {}",
        if drift.is_empty() {
            "none".to_owned()
        } else {
            drift.to_string()
        }
    );
    let session = c.session().ok_or("no session")?;
    let schemas = ToolSchemas::new(live).for_revision(&session.protocol_version);
    let outcome = schemas.validate_input(
        "lookup_user",
        &json!({"id": "ada-lovelace", "profile": {"displayName": "Ada"}}),
    );
    println!(
        "lookup_user arguments against the live schema: {}",
        match outcome {
            Ok(()) => "valid".to_owned(),
            Err(e) => e.to_string(),
        }
    );
    Ok(())
}

/// Lists the server's skills as a host builds its registry: names and
/// descriptions only, no skill file read.
async fn skill_registry(c: &Client) -> Result<Vec<SkillEntry>, String> {
    let skills = c
        .engine()
        .list_skills()
        .await
        .map_err(|e| format!("skills/list: {e}"))?;
    for skill in &skills {
        println!("skill: {} - {}", skill.name(), skill.description());
    }
    Ok(skills)
}

/// Loads the first listed skill (its SKILL.md, checked against the entry)
/// and only then reads its other files, each checked too; a file that
/// fails the check ends the scenario with an error, nothing more read.
async fn load_first_skill(c: &Client) -> Result<(), String> {
    let skills = skill_registry(c).await?;
    let entry = skills.first().ok_or("the server lists no skill")?;
    let engine = c.engine();
    let loaded = engine
        .load_skill(entry)
        .await
        .map_err(|e| format!("loading {}: {e}", entry.uri))?;
    println!(
        "loaded {}: {} bytes of instructions",
        entry.uri,
        loaded.body().len()
    );
    if let SkillResources::Listed(files) = &entry.resources {
        for file in files.iter().filter(|f| f.uri != entry.uri) {
            let bytes = engine
                .read_skill_file(entry, &file.uri)
                .await
                .map_err(|e| format!("reading {}: {e}", file.uri))?;
            println!("read {}: {} bytes, digest verified", file.uri, bytes.len());
        }
    }
    Ok(())
}
