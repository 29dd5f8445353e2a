//! The fixtures that ask the client for something while they work
//! (`tools-call-sampling`, `tools-call-elicitation`,
//! `elicitation-sep1034-defaults`, `elicitation-sep1330-enums`, the
//! `input-required-result-*` family) or announce changes
//! (`test_trigger_*_change`). The same handler code serves both eras: live
//! requests to the client in the stateful era, input-required results in
//! the stateless one.

use mcpgen_runtime::{ElicitForm, Elicitation, PeerError, RequestContext, SampleRequest};
use serde::Deserialize;
use serde_json::{json, Value};

/// What `test_elicitation` asks for; its form is generated from the type.
#[derive(Debug, Deserialize, serde::Serialize, schemars::JsonSchema)]
pub struct Contact {
    /// User's response
    username: String,
    /// User's email address
    email: String,
}

impl ElicitForm for Contact {
    fn requested_schema() -> Value {
        mcpgen_runtime::server::form_schema::<Self>()
    }
}

/// A form with a default for every primitive type (SEP-1034).
#[derive(Debug, Deserialize, serde::Serialize)]
pub struct Defaults {
    name: Option<String>,
    age: Option<i64>,
    score: Option<f64>,
    status: Option<String>,
    verified: Option<bool>,
}

impl ElicitForm for Defaults {
    fn requested_schema() -> Value {
        json!({
            "type": "object",
            "properties": {
                "name": {"type": "string", "title": "Name", "default": "John Doe"},
                "age": {"type": "integer", "title": "Age", "default": 30},
                "score": {"type": "number", "title": "Score", "default": 95.5},
                "status": {"type": "string", "title": "Status", "enum": ["active", "inactive", "pending"], "default": "active"},
                "verified": {"type": "boolean", "title": "Verified", "default": true}
            }
        })
    }
}

/// Every enum shape of SEP-1330.
pub fn enum_schema() -> Value {
    let titled = |pairs: &[(&str, &str)]| {
        pairs
            .iter()
            .map(|(v, t)| json!({"const": v, "title": t}))
            .collect::<Vec<_>>()
    };
    json!({
        "type": "object",
        "properties": {
            "untitledSingle": {"type": "string", "title": "Untitled single", "enum": ["option1", "option2", "option3"]},
            "titledSingle": {
                "type": "string",
                "title": "Titled single",
                "oneOf": titled(&[("value1", "First Option"), ("value2", "Second Option"), ("value3", "Third Option")])
            },
            "legacyEnum": {
                "type": "string",
                "title": "Legacy titled",
                "enum": ["opt1", "opt2", "opt3"],
                "enumNames": ["Option One", "Option Two", "Option Three"]
            },
            "untitledMulti": {
                "type": "array",
                "title": "Untitled multi",
                "items": {"type": "string", "enum": ["option1", "option2", "option3"]}
            },
            "titledMulti": {
                "type": "array",
                "title": "Titled multi",
                "items": {"anyOf": titled(&[("value1", "First Choice"), ("value2", "Second Choice"), ("value3", "Third Choice")])}
            }
        }
    })
}

/// `{"type":"object","properties":{NAME:{"type":TYPE}},"required":[NAME]}`.
fn one_field(name: &str, kind: &str) -> Value {
    json!({"type": "object", "properties": {name: {"type": kind}}, "required": [name]})
}

/// `Elicitation completed: action=…, content={…}`.
pub fn completed<T: serde::Serialize>(answer: Elicitation<T>, prefix: &str) -> String {
    let action = answer.action();
    let content = answer
        .accepted()
        .map(|c| serde_json::to_value(c).unwrap_or(Value::Null))
        .unwrap_or(json!({}));
    format!("{prefix}: action={action}, content={content}")
}

/// `test_sampling`: the model's answer to `prompt`.
pub async fn sampling(ctx: &RequestContext, prompt: &str) -> Result<String, PeerError> {
    let answer = ctx.sample(SampleRequest::new(100).user(prompt)).await?;
    Ok(format!(
        "LLM response: {}",
        answer.text().unwrap_or("(no text)")
    ))
}

/// `test_input_required_result_elicitation`: the user's name.
pub async fn greeting(ctx: &RequestContext) -> Result<String, PeerError> {
    let answer: Elicitation<Value> = ctx
        .keyed("user_name")
        .elicit_with("What is your name?", one_field("name", "string"))
        .await?;
    Ok(match answer {
        Elicitation::Accept(content) => {
            format!("Hello, {}!", content["name"].as_str().unwrap_or("stranger"))
        }
        other => format!("No name given ({})", other.action()),
    })
}

/// `test_input_required_result_sampling`.
pub async fn capital(ctx: &RequestContext) -> Result<String, PeerError> {
    let request = SampleRequest::new(100).user("What is the capital of France?");
    let answer = ctx.keyed("capital_question").sample(request).await?;
    Ok(format!(
        "The model says: {}",
        answer.text().unwrap_or("(no text)")
    ))
}

/// `test_input_required_result_list_roots`.
pub async fn roots(ctx: &RequestContext) -> Result<String, PeerError> {
    let roots = ctx.keyed("client_roots").list_roots().await?;
    let list: Vec<&str> = roots.iter().map(|r| r.uri.as_str()).collect();
    Ok(format!("Client roots: {}", list.join(", ")))
}

/// `test_input_required_result_request_state` and `_tampered_state`: a
/// confirmation, reporting whether the retry's state was verified.
pub async fn confirm(ctx: &RequestContext) -> Result<String, PeerError> {
    let answer: Elicitation<Value> = ctx
        .keyed("confirm")
        .elicit_with("Please confirm", one_field("ok", "boolean"))
        .await?;
    let state = if ctx.is_resumed() {
        "state-ok"
    } else {
        "no requestState"
    };
    Ok(format!("{state}: confirmation {}", answer.action()))
}

/// `test_input_required_result_multiple_inputs`: three requests in one round.
pub async fn everything(ctx: &RequestContext) -> Result<String, PeerError> {
    let (name, greeting, roots) = tokio::join!(
        ctx.keyed("user_name")
            .elicit_with::<Value>("What is your name?", one_field("name", "string")),
        ctx.keyed("greeting")
            .sample(SampleRequest::new(50).user("Generate a greeting")),
        ctx.keyed("client_roots").list_roots(),
    );
    let name = name?
        .accepted()
        .and_then(|c| c["name"].as_str().map(str::to_owned))
        .unwrap_or_default();
    Ok(format!(
        "{} {name} ({} roots)",
        greeting?.text().unwrap_or("Hello"),
        roots?.len()
    ))
}

/// `test_input_required_result_multi_round`: a name, then a colour.
pub async fn two_rounds(ctx: &RequestContext) -> Result<String, PeerError> {
    let field = |answer: Elicitation<Value>, name: &str| {
        answer
            .accepted()
            .and_then(|c| c[name].as_str().map(str::to_owned))
    };
    let name = ctx
        .keyed("step1")
        .elicit_with("Step 1: What is your name?", one_field("name", "string"))
        .await?;
    let color = ctx
        .keyed("step2")
        .elicit_with(
            "Step 2: What is your favorite color?",
            one_field("color", "string"),
        )
        .await?;
    Ok(format!(
        "{} likes {}",
        field(name, "name").unwrap_or_default(),
        field(color, "color").unwrap_or_default()
    ))
}

/// `test_input_required_result_capabilities`: asks only for what the
/// client declared.
pub async fn declared_only(ctx: &RequestContext) -> Result<String, PeerError> {
    let has = |name: &str| ctx.client().is_some_and(|c| c.has_capability(name));
    let (sampled, elicited, roots) = tokio::join!(
        async {
            match has("sampling") {
                true => Some(
                    ctx.keyed("sampling")
                        .sample(SampleRequest::new(20).user("Say hi"))
                        .await,
                ),
                false => None,
            }
        },
        async {
            match has("elicitation") {
                true => Some(
                    ctx.keyed("elicitation")
                        .elicit_with::<Value>("Anything to add?", one_field("note", "string"))
                        .await,
                ),
                false => None,
            }
        },
        async {
            match has("roots") {
                true => Some(ctx.keyed("roots").list_roots().await),
                false => None,
            }
        },
    );
    let mut used = Vec::new();
    if let Some(answer) = sampled {
        answer?;
        used.push("sampling");
    }
    if let Some(answer) = elicited {
        answer?;
        used.push("elicitation");
    }
    if let Some(answer) = roots {
        answer?;
        used.push("roots");
    }
    Ok(format!(
        "Asked for: {}",
        if used.is_empty() {
            "nothing".into()
        } else {
            used.join(", ")
        }
    ))
}

/// `test_input_required_result_prompt`: the context the prompt should use.
pub async fn prompt_context(ctx: &RequestContext) -> Result<String, PeerError> {
    let schema = one_field("context", "string");
    let answer: Elicitation<Value> = ctx
        .keyed("user_context")
        .elicit_with("What context should the prompt use?", schema)
        .await?;
    let context = answer
        .accepted()
        .and_then(|c| c["context"].as_str().map(str::to_owned))
        .unwrap_or_else(|| "none".into());
    Ok(format!("Answer using this context: {context}"))
}
