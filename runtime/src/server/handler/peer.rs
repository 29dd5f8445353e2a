//! Requests a handler makes of the client while it works, typed:
//! [`RequestContext::sample`] (`sampling/createMessage`),
//! [`RequestContext::elicit`] (`elicitation/create`, form mode from a type
//! implementing [`ElicitForm`], or URL mode) and
//! [`RequestContext::list_roots`] (`roots/list`).
//!
//! In the stateful era the request goes to the client on the request's
//! own stream (the connection over stdio, the POST's SSE stream over HTTP)
//! and the handler waits for the response, up to a timeout. In the
//! stateless era (2026-07-28) the same call becomes an input request of an
//! `InputRequiredResult` (see [`crate::server::handler::mrtr`]): the handler is run again
//! when the client retries with its answers. Either way a request the
//! client declared no capability for is refused with
//! [`PeerError::MissingCapability`], which a tool answers as `-32021`.
//!
//! [`RequestContext::sample`]: crate::RequestContext::sample
//! [`RequestContext::elicit`]: crate::RequestContext::elicit
//! [`RequestContext::list_roots`]: crate::RequestContext::list_roots

use std::time::Duration;

use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::{json, Map, Value};

use crate::jsonrpc;
use crate::revision::method::Method;
use crate::server::handler::cancel::CancellationToken;
pub(crate) use crate::server::handler::outbound::Channel;
use crate::server::handler::sink::Sink;
use crate::server::handler::tool_error::ToolError;

#[cfg(all(test, feature = "schemars"))]
mod form_tests {
    use super::*;

    /// A status.
    #[derive(schemars::JsonSchema)]
    #[allow(dead_code)]
    enum Status {
        Active,
        Inactive,
    }

    #[derive(schemars::JsonSchema)]
    #[allow(dead_code)]
    struct Form {
        /// Who you are
        name: String,
        age: Option<u32>,
        status: Status,
        maybe_status: Option<Status>,
    }

    #[test]
    fn a_form_schema_is_flat_with_refs_inlined_and_options_optional() {
        let schema = form_schema::<Form>();
        assert_eq!(schema["type"], "object");
        assert!(
            schema.get("$schema").is_none()
                && schema.get("definitions").is_none()
                && schema.get("title").is_none()
        );
        let props = &schema["properties"];
        assert_eq!(
            props["name"],
            json!({"type": "string", "description": "Who you are"})
        );
        assert_eq!(props["age"]["type"], "integer");
        assert_eq!(props["status"]["enum"], json!(["Active", "Inactive"]));
        assert_eq!(props["status"]["type"], "string");
        assert_eq!(props["maybe_status"]["enum"], json!(["Active", "Inactive"]));
        assert!(!schema.to_string().contains("$ref"), "{schema}");
        assert!(!schema.to_string().contains("null"), "{schema}");
        assert_eq!(schema["required"], json!(["name", "status"]));
    }
}

/// The client capabilities a handler's requests need (`sampling`,
/// `elicitation`, `roots`): a client that declared none of them is asked
/// nothing (see `ask`).
pub(crate) const ASKED_THROUGH: [&str; 3] = ["sampling", "elicitation", "roots"];

/// Why a request to the client gave no usable answer.
#[derive(Debug, Clone, PartialEq)]
pub enum PeerError {
    /// The client did not declare the capability (`sampling`,
    /// `elicitation`, `elicitation.url`, `roots`).
    MissingCapability(&'static str),
    /// No response within the timeout.
    Timeout(Duration),
    /// The client cannot be reached: the connection or stream closed, the
    /// request is answered as plain JSON, or the context is detached.
    Disconnected,
    /// The client answered with a JSON-RPC error.
    Rejected {
        /// The error code.
        code: i64,
        /// The error message.
        message: String,
    },
    /// The client's answer does not have the expected shape.
    InvalidResponse(String),
}

impl std::fmt::Display for PeerError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PeerError::MissingCapability(name) => {
                write!(f, "the client did not declare the {name} capability")
            }
            PeerError::Timeout(after) => write!(
                f,
                "the client did not answer within {} s",
                after.as_secs_f64()
            ),
            PeerError::Disconnected => f.write_str("the client cannot be reached for requests"),
            PeerError::Rejected { code, message } => {
                write!(f, "the client refused the request: {message} ({code})")
            }
            PeerError::InvalidResponse(why) => {
                write!(f, "the client's answer is not usable: {why}")
            }
        }
    }
}

impl std::error::Error for PeerError {}

impl From<PeerError> for ToolError {
    /// A missing capability becomes `-32021` naming it; anything else a
    /// tool error with the reason.
    fn from(err: PeerError) -> Self {
        match err {
            PeerError::MissingCapability(name) => {
                let top = name.split('.').next().unwrap_or(name);
                let inner = match name.split_once('.') {
                    Some((_, sub)) => json!({ sub: {} }),
                    None => json!({}),
                };
                ToolError::missing_capabilities(json!({ top: inner }))
            }
            other => ToolError::new(other.to_string()),
        }
    }
}

/// A `sampling/createMessage` request.
#[derive(Debug, Clone, PartialEq)]
pub struct SampleRequest {
    params: Map<String, Value>,
}

impl SampleRequest {
    /// A request for at most `max_tokens` tokens, with no messages yet.
    pub fn new(max_tokens: u32) -> Self {
        let mut params = Map::new();
        params.insert("messages".into(), Value::Array(Vec::new()));
        params.insert("maxTokens".into(), Value::from(max_tokens));
        Self { params }
    }

    /// The request from a generated `CreateMessageRequestParams` (or any
    /// value of that shape).
    pub fn from_params(params: impl Serialize) -> Result<Self, serde_json::Error> {
        match serde_json::to_value(params)? {
            Value::Object(params) => Ok(Self { params }),
            other => Err(serde::de::Error::custom(format!(
                "sampling params must be an object, got {}",
                jsonrpc::kind(&other)
            ))),
        }
    }

    /// Adds a user message with one text block.
    pub fn user(self, text: impl Into<String>) -> Self {
        self.message("user", json!({ "type": "text", "text": text.into() }))
    }

    /// Adds an assistant message with one text block.
    pub fn assistant(self, text: impl Into<String>) -> Self {
        self.message("assistant", json!({ "type": "text", "text": text.into() }))
    }

    /// Adds a message with any content (a block or an array of blocks).
    pub fn message(mut self, role: &str, content: Value) -> Self {
        let messages = self
            .params
            .entry("messages")
            .or_insert_with(|| Value::Array(Vec::new()));
        if let Value::Array(list) = messages {
            list.push(json!({ "role": role, "content": content }));
        }
        self
    }

    /// Sets the system prompt.
    pub fn system_prompt(self, text: impl Into<String>) -> Self {
        self.set("systemPrompt", text.into())
    }

    /// Sets any other parameter (`modelPreferences`, `temperature`,
    /// `stopSequences`, `includeContext`, ...).
    pub fn set(mut self, name: &str, value: impl Serialize) -> Self {
        if let Ok(value) = serde_json::to_value(value) {
            self.params.insert(name.into(), value);
        }
        self
    }

    /// The params as sent.
    pub fn params(&self) -> &Map<String, Value> {
        &self.params
    }
}

/// The client's `CreateMessageResult`.
#[derive(Debug, Clone, PartialEq)]
pub struct SampleResponse {
    /// `assistant` (or `user`).
    pub role: String,
    /// The content: a block, or an array of blocks.
    pub content: Value,
    /// The model that answered.
    pub model: String,
    /// Why sampling stopped (`endTurn`, `maxTokens`, ...).
    pub stop_reason: Option<String>,
    /// The whole result, as sent.
    pub raw: Value,
}

impl SampleResponse {
    /// The text of the first text block.
    pub fn text(&self) -> Option<&str> {
        fn first_text(block: &Value) -> Option<&str> {
            (block.get("type")? == "text")
                .then(|| block.get("text")?.as_str())
                .flatten()
        }
        match &self.content {
            Value::Array(blocks) => blocks.iter().find_map(first_text),
            block => first_text(block),
        }
    }

    pub(crate) fn decode(raw: Value) -> Result<Self, String> {
        let text = |name: &str| raw.get(name).and_then(Value::as_str).map(str::to_owned);
        let role = text("role").ok_or("a CreateMessageResult needs a string \"role\"")?;
        let model = text("model").ok_or("a CreateMessageResult needs a string \"model\"")?;
        let content = match raw.get("content") {
            Some(c @ (Value::Object(_) | Value::Array(_))) => c.clone(),
            _ => {
                return Err(
                    "a CreateMessageResult needs \"content\" (a block or an array of blocks)"
                        .into(),
                )
            }
        };
        let stop_reason = text("stopReason");
        Ok(Self {
            role,
            content,
            model,
            stop_reason,
            raw,
        })
    }
}

/// A type the client fills in through a form: its restricted JSON Schema
/// (a flat object of strings, numbers, integers, booleans and enums) is
/// `requestedSchema`, and an accepted answer decodes into it.
pub trait ElicitForm: DeserializeOwned {
    /// The `requestedSchema` of the form.
    fn requested_schema() -> Value;
}

/// The `requestedSchema` of a form, generated from a type deriving
/// `schemars::JsonSchema` (feature `schemars`): its object schema with
/// every `$ref` inlined, `Option` fields as their inner type (and not
/// required), doc comments as descriptions, and the draft and definition
/// members the restricted elicitation schema does not allow removed.
///
/// ```ignore
/// #[derive(serde::Deserialize, schemars::JsonSchema)]
/// struct Contact { /// Your name
///     name: String, email: Option<String> }
/// impl ElicitForm for Contact {
///     fn requested_schema() -> serde_json::Value { form_schema::<Self>() }
/// }
/// ```
#[cfg(feature = "schemars")]
pub fn form_schema<T: schemars::JsonSchema>() -> Value {
    let root = serde_json::to_value(schemars::schema_for!(T)).unwrap_or(Value::Null);
    let definitions = root.get("definitions").cloned().unwrap_or(Value::Null);
    let mut schema = inline(root, &definitions, 0);
    if let Value::Object(members) = &mut schema {
        for drop in ["$schema", "definitions", "title", "additionalProperties"] {
            members.remove(drop);
        }
    }
    schema
}

/// `value` with `$ref`s to `definitions` replaced by their target and
/// `"type": [T, "null"]` narrowed to `T` (bounded depth: forms are flat).
#[cfg(feature = "schemars")]
fn inline(value: Value, definitions: &Value, depth: usize) -> Value {
    match value {
        Value::Object(mut members) if depth < 16 => {
            if let Some(Value::String(target)) = members.get("$ref") {
                let name = target.rsplit('/').next().unwrap_or_default();
                if let Some(found) = definitions.get(name) {
                    let mut resolved = inline(found.clone(), definitions, depth + 1);
                    members.remove("$ref");
                    if let Value::Object(resolved_members) = &mut resolved {
                        // Members beside the `$ref` (a field's doc comment) win.
                        resolved_members.extend(members);
                    }
                    return resolved;
                }
            }
            // `Option<T>` as `allOf: [{$ref}]` or `anyOf: [{$ref}, {type: null}]`.
            for combinator in ["allOf", "anyOf"] {
                if let Some(Value::Array(parts)) = members.get(combinator) {
                    let real: Vec<&Value> = parts
                        .iter()
                        .filter(|p| p.get("type") != Some(&Value::from("null")))
                        .collect();
                    if real.len() == 1 {
                        let single = real[0].clone();
                        members.remove(combinator);
                        let mut resolved = inline(single, definitions, depth + 1);
                        if let Value::Object(resolved_members) = &mut resolved {
                            resolved_members.extend(members);
                        }
                        return resolved;
                    }
                }
            }
            if let Some(Value::Array(types)) = members.get("type") {
                let real: Vec<Value> = types
                    .iter()
                    .filter(|t| t.as_str() != Some("null"))
                    .cloned()
                    .collect();
                if real.len() == 1 {
                    members.insert("type".into(), real[0].clone());
                }
            }
            if let Some(Value::Array(options)) = members.get_mut("enum") {
                options.retain(|o| !o.is_null());
            }
            Value::Object(
                members
                    .into_iter()
                    .map(|(k, v)| (k, inline(v, definitions, depth + 1)))
                    .collect(),
            )
        }
        Value::Array(items) => Value::Array(
            items
                .into_iter()
                .map(|v| inline(v, definitions, depth + 1))
                .collect(),
        ),
        other => other,
    }
}

/// The user's answer to an elicitation.
#[derive(Debug, Clone, PartialEq)]
pub enum Elicitation<T> {
    /// Submitted, with the content.
    Accept(T),
    /// Explicitly declined.
    Decline,
    /// Dismissed without a choice.
    Cancel,
}

impl<T> Elicitation<T> {
    /// The content when accepted.
    pub fn accepted(self) -> Option<T> {
        match self {
            Elicitation::Accept(content) => Some(content),
            _ => None,
        }
    }

    /// `accept`, `decline` or `cancel`.
    pub fn action(&self) -> &'static str {
        match self {
            Elicitation::Accept(_) => "accept",
            Elicitation::Decline => "decline",
            Elicitation::Cancel => "cancel",
        }
    }
}

/// Decodes an `ElicitResult` with `content` of type `T`.
pub(crate) fn decode_elicitation<T: DeserializeOwned>(
    raw: Value,
    content_required: bool,
) -> Result<Elicitation<T>, String> {
    match raw.get("action").and_then(Value::as_str) {
        Some("decline") => Ok(Elicitation::Decline),
        Some("cancel") => Ok(Elicitation::Cancel),
        Some("accept") => {
            let content = match raw.get("content") {
                Some(c @ Value::Object(_)) => {
                    // A number field answered `5.0` is the integer 5.
                    let mut c = c.clone();
                    crate::integral::integral_numbers(&mut c);
                    c
                }
                None if !content_required => Value::Null,
                _ => {
                    return Err("an accepted form elicitation needs \"content\" (an object)".into())
                }
            };
            serde_json::from_value(content)
                .map(Elicitation::Accept)
                .map_err(|e| format!("the content does not fit the form: {e}"))
        }
        _ => Err("an ElicitResult needs \"action\": accept, decline or cancel".into()),
    }
}

/// A root the client exposes.
#[derive(Debug, Clone, PartialEq, serde::Deserialize)]
pub struct Root {
    /// The root's URI (`file:///...`).
    pub uri: String,
    /// Its display name.
    #[serde(default)]
    pub name: Option<String>,
}

fn decode_roots(raw: Value) -> Result<Vec<Root>, String> {
    let roots = raw
        .get("roots")
        .cloned()
        .ok_or("a ListRootsResult needs \"roots\"")?;
    serde_json::from_value(roots)
        .map_err(|e| format!("\"roots\" must be a list of {{uri, name?}}: {e}"))
}

/// The requests of [`RequestContext::keyed`]: the same calls, under a key
/// the handler chose for the stateless era's `inputRequests`.
///
/// [`RequestContext::keyed`]: crate::RequestContext::keyed
#[derive(Debug, Clone, Copy)]
pub struct Keyed<'a> {
    peer: Peer<'a>,
}

impl<'a> Keyed<'a> {
    /// The requests of `peer`, which carries the key.
    pub(crate) fn new(peer: Peer<'a>) -> Self {
        Self { peer }
    }

    /// [`RequestContext::sample`] under this key.
    ///
    /// [`RequestContext::sample`]: crate::RequestContext::sample
    pub async fn sample(self, request: SampleRequest) -> Result<SampleResponse, PeerError> {
        self.peer.sample(request).await
    }

    /// [`RequestContext::elicit`] under this key.
    ///
    /// [`RequestContext::elicit`]: crate::RequestContext::elicit
    pub async fn elicit<T: ElicitForm>(self, message: &str) -> Result<Elicitation<T>, PeerError> {
        self.peer.elicit(message, T::requested_schema()).await
    }

    /// [`RequestContext::elicit_with`] under this key.
    ///
    /// [`RequestContext::elicit_with`]: crate::RequestContext::elicit_with
    pub async fn elicit_with<T: DeserializeOwned>(
        self,
        message: &str,
        schema: Value,
    ) -> Result<Elicitation<T>, PeerError> {
        self.peer.elicit(message, schema).await
    }

    /// [`RequestContext::elicit_url`] under this key.
    ///
    /// [`RequestContext::elicit_url`]: crate::RequestContext::elicit_url
    pub async fn elicit_url(
        self,
        message: &str,
        url: &str,
        elicitation_id: &str,
    ) -> Result<Elicitation<()>, PeerError> {
        self.peer.elicit_url(message, url, elicitation_id).await
    }

    /// [`RequestContext::list_roots`] under this key.
    ///
    /// [`RequestContext::list_roots`]: crate::RequestContext::list_roots
    pub async fn list_roots(self) -> Result<Vec<Root>, PeerError> {
        self.peer.list_roots().await
    }
}

/// A live request waiting for its answer: dropped before the answer
/// came, it sends the client `notifications/cancelled` for it.
struct Abandon<'a> {
    sink: &'a Sink,
    id: Value,
    reason: &'static str,
    armed: bool,
}

impl Drop for Abandon<'_> {
    fn drop(&mut self) {
        if !self.armed {
            return;
        }
        let cancel = json!({ "requestId": self.id, "reason": self.reason });
        let _ = self
            .sink
            .try_send(jsonrpc::notification(Method::Cancelled.name(), &cancel));
    }
}

/// The client as one request of a handler reaches it: how requests
/// travel, what the client declared, the revision, the request's
/// cancellation, and the key a request goes under in the stateless era
/// (`None`: `sampling_1`, `elicitation_2`… in call order). The request
/// context lends one out for each call ([`crate::RequestContext::sample`]
/// and its siblings).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Peer<'a> {
    pub(crate) channel: &'a Channel,
    pub(crate) sink: &'a Sink,
    /// The client's declared capabilities, `None` when it is unknown.
    pub(crate) capabilities: Option<&'a Value>,
    pub(crate) revision: &'a str,
    pub(crate) cancel: &'a CancellationToken,
    pub(crate) key: Option<&'a str>,
}

impl Peer<'_> {
    /// Asks the client's model for a completion (`sampling/createMessage`).
    pub(crate) async fn sample(self, request: SampleRequest) -> Result<SampleResponse, PeerError> {
        let params = Value::Object(request.params);
        self.ask(
            "sampling",
            "sampling",
            Method::CreateMessage.name(),
            params,
            SampleResponse::decode,
        )
        .await
    }

    /// Asks the user to fill in the form `schema` (`elicitation/create`,
    /// form mode); accepted content decodes into `T`.
    pub(crate) async fn elicit<T: DeserializeOwned>(
        self,
        message: &str,
        schema: Value,
    ) -> Result<Elicitation<T>, PeerError> {
        let mut params = Map::new();
        // `mode` is new in 2025-11-25; older revisions know form mode only.
        if self.revision >= "2025-11-25" {
            params.insert("mode".into(), Value::from("form"));
        }
        params.insert("message".into(), Value::from(message));
        params.insert("requestedSchema".into(), schema);
        let decode = |raw| decode_elicitation::<T>(raw, true);
        self.ask(
            "elicitation",
            "elicitation",
            Method::Elicit.name(),
            Value::Object(params),
            decode,
        )
        .await
    }

    /// Sends the user to `url` (`elicitation/create`, URL mode).
    pub(crate) async fn elicit_url(
        self,
        message: &str,
        url: &str,
        id: &str,
    ) -> Result<Elicitation<()>, PeerError> {
        let params = json!({ "mode": "url", "message": message, "url": url, "elicitationId": id });
        let decode = |raw| {
            decode_elicitation::<Option<Value>>(raw, false).map(|e| match e {
                Elicitation::Accept(_) => Elicitation::Accept(()),
                Elicitation::Decline => Elicitation::Decline,
                Elicitation::Cancel => Elicitation::Cancel,
            })
        };
        self.ask(
            "elicitation.url",
            "elicitation",
            Method::Elicit.name(),
            params,
            decode,
        )
        .await
    }

    /// The client's roots (`roots/list`).
    pub(crate) async fn list_roots(self) -> Result<Vec<Root>, PeerError> {
        self.ask(
            "roots",
            "roots",
            Method::RootsList.name(),
            json!({}),
            decode_roots,
        )
        .await
    }

    /// Whether the client declared `capability` (`elicitation.url`: the
    /// `url` member of `elicitation`).
    fn declared(&self, capability: &str) -> bool {
        let Some(declared) = self.capabilities else {
            return false;
        };
        let (top, sub) = match capability.split_once('.') {
            None => (capability, None),
            Some((top, sub)) => (top, Some(sub)),
        };
        let found = declared.get(top).filter(|c| !c.is_null());
        match sub {
            None => found.is_some(),
            Some(sub) => found.and_then(|c| c.get(sub)).is_some_and(|c| !c.is_null()),
        }
    }

    /// Sends one request and decodes its answer.
    async fn ask<T>(
        self,
        capability: &'static str,
        prefix: &str,
        method: &str,
        params: Value,
        decode: impl Fn(Value) -> Result<T, String>,
    ) -> Result<T, PeerError> {
        if !self.declared(capability) {
            return Err(PeerError::MissingCapability(capability));
        }
        match self.channel.clone() {
            Channel::None => Err(PeerError::Disconnected),
            Channel::Live { outbound, timeout } => {
                let result =
                    request_live(self.cancel, self.sink, &outbound, timeout, method, &params)
                        .await?;
                decode(result).map_err(PeerError::InvalidResponse)
            }
            Channel::Rounds(rounds) => {
                let key = self
                    .key
                    .map_or_else(|| rounds.auto_key(prefix), str::to_owned);
                if let Some(answer) = rounds.answer(&key) {
                    if let Ok(value) = decode(answer.clone()) {
                        rounds.use_answer(&key, answer);
                        return Ok(value);
                    }
                    // An unusable answer is asked for again.
                }
                rounds.request(key, method, params);
                // The engine answers with the input requests; this run
                // of the handler ends here.
                std::future::pending().await
            }
        }
    }
}

/// Sends one request to the client on `sink` (stateful era), as a request
/// of the session (`outbound`), and waits up to `timeout` for its result;
/// a request already cancelled (`cancel`) sends nothing.
pub(crate) async fn request_live(
    cancel: &CancellationToken,
    sink: &Sink,
    outbound: &std::sync::Arc<crate::server::handler::outbound::Outbound>,
    timeout: Duration,
    method: &str,
    params: &Value,
) -> Result<Value, PeerError> {
    if cancel.is_cancelled() {
        return Err(PeerError::Disconnected);
    }
    let waiter = outbound.register();
    let request_id = waiter.id();
    if !sink
        .send(jsonrpc::request(&request_id, method, params))
        .await
    {
        return Err(PeerError::Disconnected);
    }
    // Until the answer comes, giving up (a timeout, the call cancelled
    // and its future dropped) tells the client to stop.
    let mut abandon = Abandon {
        sink,
        id: request_id,
        reason: "the request that asked was cancelled",
        armed: true,
    };
    let outcome = match tokio::time::timeout(timeout, waiter.response()).await {
        Ok(Some(outcome)) => outcome,
        Ok(None) => return Err(PeerError::Disconnected),
        Err(_) => {
            abandon.reason = "timed out";
            return Err(PeerError::Timeout(timeout));
        }
    };
    abandon.armed = false;
    outcome.map_err(|error| PeerError::Rejected {
        code: error.get("code").and_then(Value::as_i64).unwrap_or(0),
        message: error
            .get("message")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned(),
    })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn accepted_forms_read_whole_floats_as_integers() {
        #[derive(Debug, PartialEq, serde::Deserialize)]
        struct Form {
            age: u8,
        }
        let raw = json!({"action": "accept", "content": {"age": 42.0}});
        assert_eq!(
            decode_elicitation::<Form>(raw, true).unwrap(),
            Elicitation::Accept(Form { age: 42 })
        );
        let raw = json!({"action": "accept", "content": {"age": 4.5}});
        assert!(decode_elicitation::<Form>(raw, true).is_err());
    }
}
