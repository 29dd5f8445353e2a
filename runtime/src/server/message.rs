//! One message decoded for the engine by a driver that needs to look at it
//! before handing it over (the HTTP service checks headers against the
//! method and params): a plain request or notification keeps its params as
//! the members the lean scanner read, without building a tree for them;
//! anything else is classified in full ([`Incoming`]).

use std::borrow::Cow;

use serde_json::Value;

use crate::jsonrpc::{self, Incoming};

use super::methods::Params;

/// A decoded message.
pub(crate) enum Message<'a> {
    /// A request: it expects exactly one response.
    Request {
        /// The request id.
        id: Value,
        /// The method name.
        method: Cow<'a, str>,
        /// The params, `_meta` included.
        params: Params<'a>,
    },
    /// A notification.
    Notification {
        /// The method name.
        method: Cow<'a, str>,
        /// The params, `_meta` included.
        params: Params<'a>,
    },
    /// A response, a batch or an invalid message (never a request or a
    /// notification).
    Other(Incoming),
}

// Read by the HTTP service only.
#[cfg_attr(not(feature = "streamable-http"), allow(dead_code))]
impl<'a> Message<'a> {
    /// Decodes one message's text: what [`jsonrpc::parse`] would say, with
    /// the params of a plain request or notification left as members.
    pub(crate) fn decode(text: &'a str) -> Self {
        if let Some(mut lean) = jsonrpc::parse_lean(text) {
            if lean.read_meta() {
                let params = lean.params.map_or(Params::Absent, Params::Members);
                return match lean.id {
                    Some(id) => Message::Request { id, method: lean.method, params },
                    None => Message::Notification { method: lean.method, params },
                };
            }
        }
        Message::from(jsonrpc::parse_full(text))
    }

    /// The params of a request or notification.
    pub(crate) fn params(&self) -> Option<&Params<'a>> {
        match self {
            Message::Request { params, .. } | Message::Notification { params, .. } => Some(params),
            Message::Other(_) => None,
        }
    }

    /// `params._meta.<name>` of a request or notification.
    pub(crate) fn meta(&self, name: &str) -> Option<&Value> {
        jsonrpc::member(self.params()?.get("_meta"), name)
    }
}

impl From<Incoming> for Message<'static> {
    fn from(incoming: Incoming) -> Self {
        match incoming {
            Incoming::Request { id, method, params } => {
                Message::Request { id, method: Cow::Owned(method), params: Params::from(params) }
            }
            Incoming::Notification { method, params } => {
                Message::Notification { method: Cow::Owned(method), params: Params::from(params) }
            }
            other => Message::Other(other),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_requests_keep_their_members_and_others_are_classified_in_full() {
        let text = r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"f","_meta":{"k":1}}}"#;
        let message = Message::decode(text);
        assert!(matches!(&message, Message::Request { params: Params::Members(_), .. }));
        assert!(matches!(&message, Message::Request { method, .. } if method == "tools/call"));
        assert_eq!(message.params().and_then(|p| p.get("name")), Some(&Value::from("f")));
        assert_eq!(message.meta("k"), Some(&Value::from(1)));

        // An escape in a member name is not lean: the full path decides,
        // with the same answer.
        let escaped = r#"{"jsonrpc":"2.0","method":"notifications/x","params":{"n\u0061me":"f"}}"#;
        let message = Message::decode(escaped);
        assert!(matches!(&message, Message::Notification { params: Params::Value(_), .. }));
        assert_eq!(message.params().and_then(|p| p.get("name")), Some(&Value::from("f")));

        for other in [r#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#, r#"{"jsonrpc":"2.0","id":1,"result":{}}"#, "{"] {
            let message = Message::decode(other);
            assert!(matches!(message, Message::Other(_)), "{other}");
            assert!(message.params().is_none());
        }
    }
}
