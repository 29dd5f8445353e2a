//! Results of prompts, resources and completion on the client side
//! (`prompts/get`, `resources/read`, `completion/complete`, sent by
//! [`Client`](super::Client)'s methods of those names), decoded into the
//! types the generated client names (the revision's `GetPromptResult` /
//! `ReadResourceResult`), whichever era the server and the bindings are.

use serde::de::DeserializeOwned;
use serde_json::Value;

use super::error::ClientError;

/// What a result of 2026-07-28 or later must carry and a stateful-era
/// server leaves out, with the value its absence means: such a result is
/// complete; a missing `ttlMs` is 0 (immediately stale, as the caching
/// page says); and with no scope given, the cautious one.
fn stateless_defaults() -> [(&'static str, Value); 3] {
    [
        ("resultType", Value::from("complete")),
        ("ttlMs", Value::from(0)),
        ("cacheScope", Value::from("private")),
    ]
}

/// Decodes a result, naming the method when it does not fit. The result is
/// decoded as the server sent it; when that fails and the server left out
/// members that result types of 2026-07-28 or later require (a server of
/// the stateful era answering modern bindings), it is decoded again with
/// [`stateless_defaults`] for those. Bindings of earlier revisions keep a
/// modern server's `resultType`, `ttlMs` and `cacheScope` in their `extra`.
pub(super) fn decode<R: DeserializeOwned>(
    method: &str,
    mut result: Value,
) -> Result<R, ClientError> {
    let first = match R::deserialize(&result) {
        Ok(decoded) => return Ok(decoded),
        Err(e) => e,
    };
    if let Value::Object(members) = &mut result {
        let mut added = false;
        for (key, value) in stateless_defaults() {
            if !members.contains_key(key) {
                members.insert(key.into(), value);
                added = true;
            }
        }
        if added {
            if let Ok(decoded) = R::deserialize(&result) {
                return Ok(decoded);
            }
        }
    }
    Err(ClientError::unexpected(format!(
        "the {method} result does not decode: {first}"
    )))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;
    use serde_json::{json, Map};

    /// A result type of 2026-07-28 or later: `resultType` is required.
    #[derive(Debug, Deserialize, PartialEq)]
    #[serde(rename_all = "camelCase")]
    struct Modern {
        messages: Vec<String>,
        result_type: String,
    }

    /// A cacheable one (`resources/read`): its caching hints too.
    #[derive(Debug, Deserialize, PartialEq)]
    #[serde(rename_all = "camelCase")]
    struct Cacheable {
        contents: Vec<String>,
        result_type: String,
        ttl_ms: u64,
        cache_scope: String,
    }

    /// A result type of an earlier revision: unknown members kept.
    #[derive(Debug, Deserialize, PartialEq)]
    struct Legacy {
        messages: Vec<String>,
        #[serde(flatten)]
        extra: Map<String, Value>,
    }

    #[test]
    fn results_decode_whichever_era_the_server_and_the_bindings_are() {
        let modern = json!({"messages": ["hi"], "resultType": "complete"});
        let legacy = json!({"messages": ["hi"]});
        // Modern bindings, modern server: the required member is kept.
        let m: Modern = decode("prompts/get", modern.clone()).unwrap();
        assert_eq!(
            m,
            Modern {
                messages: vec!["hi".into()],
                result_type: "complete".into()
            }
        );
        // Modern bindings, stateful-era server: its result is complete.
        let m: Modern = decode("prompts/get", legacy.clone()).unwrap();
        assert_eq!(m.result_type, "complete");
        // Caching hints a stateful-era server never sends: stale, private.
        let c: Cacheable = decode("resources/read", json!({"contents": ["x"]})).unwrap();
        assert_eq!(
            (c.result_type.as_str(), c.ttl_ms, c.cache_scope.as_str()),
            ("complete", 0, "private")
        );
        let c: Cacheable = decode(
            "resources/read",
            json!({"contents": [], "resultType": "complete", "ttlMs": 5, "cacheScope": "public"}),
        )
        .unwrap();
        assert_eq!((c.ttl_ms, c.cache_scope.as_str()), (5, "public"));
        // Earlier bindings: nothing is added; a modern member is kept aside.
        let l: Legacy = decode("prompts/get", legacy).unwrap();
        assert!(l.extra.is_empty(), "{l:?}");
        let l: Legacy = decode("prompts/get", modern).unwrap();
        assert_eq!(l.extra.get("resultType"), Some(&json!("complete")));
        // What fits no way names the method and the first reason.
        let e = decode::<Modern>("prompts/get", json!({"messages": 3})).unwrap_err();
        assert!(
            e.to_string()
                .contains("the prompts/get result does not decode: invalid type: integer `3`"),
            "{e}"
        );
    }
}
