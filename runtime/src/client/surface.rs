//! Prompts, resources and completion on the client side: `prompts/get`,
//! `resources/read` and `completion/complete`, decoded into the types the
//! generated client names (its `<Prompt>Args` in, the revision's
//! `GetPromptResult` / `ReadResourceResult` out); resource subscriptions.

use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::{json, Map, Value};

use super::engine::Client;
use super::error::ClientError;
use super::options::CallOptions;

/// Decodes a result, naming the method when it does not fit.
fn decode<R: DeserializeOwned>(method: &str, mut result: Value) -> Result<R, ClientError> {
    if let Value::Object(members) = &mut result {
        // Stateless-era result members no generated result type declares
        // are kept in its `extra`; `resultType` says nothing more here.
        members.remove("resultType");
    }
    serde_json::from_value(result).map_err(|e| ClientError::unexpected(format!("the {method} result does not decode: {e}")))
}

impl Client {
    /// Gets prompt `name` with `arguments` (an object of strings, e.g. a
    /// generated `<Prompt>Args`).
    pub async fn get_prompt<A: Serialize, R: DeserializeOwned>(
        &self,
        name: &str,
        arguments: &A,
        options: &CallOptions,
    ) -> Result<R, ClientError> {
        let arguments = serde_json::to_value(arguments)
            .map_err(|e| ClientError::unexpected(format!("cannot serialise the arguments of prompt {name}: {e}")))?;
        let params = json!({ "name": name, "arguments": arguments });
        decode("prompts/get", self.request("prompts/get", Some(params), options).await?)
    }

    /// Reads the resource at `uri`.
    pub async fn read_resource<R: DeserializeOwned>(&self, uri: &str, options: &CallOptions) -> Result<R, ClientError> {
        decode("resources/read", self.request("resources/read", Some(json!({ "uri": uri })), options).await?)
    }

    /// Reads the resource of URI template `template` (RFC 6570) with the
    /// variables `params` (an object, e.g. a generated `<Template>Params`).
    pub async fn read_template<P: Serialize, R: DeserializeOwned>(
        &self,
        template: &str,
        params: &P,
        options: &CallOptions,
    ) -> Result<R, ClientError> {
        let template = crate::uri_template::UriTemplate::parse(template)
            .map_err(|e| ClientError::unexpected(format!("invalid URI template {template:?}: {e}")))?;
        let values = match serde_json::to_value(params) {
            Ok(Value::Object(values)) => values,
            Ok(other) => return Err(ClientError::unexpected(format!("template variables must be an object, not {other}"))),
            Err(e) => return Err(ClientError::unexpected(format!("cannot serialise template variables: {e}"))),
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
        let mut params = json!({ "ref": reference, "argument": { "name": argument, "value": value } });
        if !context.is_empty() {
            params["context"] = json!({ "arguments": context });
        }
        let mut result = self.request("completion/complete", Some(params), options).await?;
        let completion = result.get_mut("completion").map(Value::take).unwrap_or(Value::Null);
        decode("completion/complete", completion)
    }

    /// Subscribes to updates of the resource at `uri` (stateful era): the
    /// server then sends `notifications/resources/updated` for it, which
    /// [`ClientOptions::on_notification`](super::ClientOptions::on_notification)
    /// receives.
    pub async fn subscribe_resource(&self, uri: &str, options: &CallOptions) -> Result<(), ClientError> {
        self.request("resources/subscribe", Some(json!({ "uri": uri })), options).await.map(drop)
    }

    /// Ends the subscription to `uri`.
    pub async fn unsubscribe_resource(&self, uri: &str, options: &CallOptions) -> Result<(), ClientError> {
        self.request("resources/unsubscribe", Some(json!({ "uri": uri })), options).await.map(drop)
    }
}
