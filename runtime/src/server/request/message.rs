//! One message decoded for the engine by a driver that needs to look at it
//! before handing it over (the HTTP service checks headers against the
//! method and params): a plain request or notification keeps its params as
//! the members the lean scanner read, without building a tree for them;
//! anything else is classified in full ([`Incoming`]). A request whose
//! `_meta` text is the one of a scope the driver kept ([`CachedScope`]) is
//! not read again: its `_meta` is the scope's.

use std::borrow::Cow;
use std::sync::Arc;

use serde_json::Value;

use crate::jsonrpc::{self, Incoming};

use crate::server::request::params::Params;
use crate::server::request::scope::CachedScope;

/// A decoded message.
pub(crate) enum Message<'a> {
    /// A request: it expects exactly one response.
    Request {
        /// The request id.
        id: Value,
        /// The method name.
        method: Cow<'a, str>,
        /// The params, `_meta` included unless `cached` is set (then its
        /// member holds `null`).
        params: Params<'a>,
        /// The text of `params._meta`, when the lean scanner read it.
        meta_text: Option<&'a str>,
        /// The kept scope whose `_meta` text this request repeats.
        cached: Option<Arc<CachedScope>>,
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
    /// the params of a plain request or notification left as members, and
    /// `_meta` taken from `kept` when a request's `_meta` text is the one
    /// it was made from.
    pub(crate) fn decode_with(text: &'a str, kept: Option<&Arc<CachedScope>>) -> Self {
        if let Some(mut lean) = jsonrpc::parse_lean(text) {
            let meta_text = lean.meta;
            let cached = match (&lean.id, meta_text, kept) {
                (Some(_), Some(meta), Some(kept)) if kept.text() == meta => Some(Arc::clone(kept)),
                _ => None,
            };
            if cached.is_some() || lean.read_meta() {
                let params = lean.params.map_or(Params::Absent, Params::Members);
                return match lean.id {
                    Some(id) => Message::Request {
                        id,
                        method: lean.method,
                        params,
                        meta_text,
                        cached,
                    },
                    None => Message::Notification {
                        method: lean.method,
                        params,
                    },
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
        match self {
            Message::Request {
                cached: Some(kept), ..
            } => jsonrpc::member(Some(kept.meta()), name),
            _ => jsonrpc::member(self.params()?.get("_meta"), name),
        }
    }
}

impl From<Incoming> for Message<'static> {
    fn from(incoming: Incoming) -> Self {
        match incoming {
            Incoming::Request { id, method, params } => Message::Request {
                id,
                method: Cow::Owned(method),
                params: Params::from(params),
                meta_text: None,
                cached: None,
            },
            Incoming::Notification { method, params } => Message::Notification {
                method: Cow::Owned(method),
                params: Params::from(params),
            },
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
        let message = Message::decode_with(text, None);
        assert!(matches!(
            &message,
            Message::Request {
                params: Params::Members(_),
                ..
            }
        ));
        assert!(matches!(&message, Message::Request { method, .. } if method == "tools/call"));
        assert_eq!(
            message.params().and_then(|p| p.get("name")),
            Some(&Value::from("f"))
        );
        assert_eq!(message.meta("k"), Some(&Value::from(1)));

        // An escape in a member name is not lean: the full path decides,
        // with the same answer.
        let escaped = r#"{"jsonrpc":"2.0","method":"notifications/x","params":{"n\u0061me":"f"}}"#;
        let message = Message::decode_with(escaped, None);
        assert!(matches!(
            &message,
            Message::Notification {
                params: Params::Value(_),
                ..
            }
        ));
        assert_eq!(
            message.params().and_then(|p| p.get("name")),
            Some(&Value::from("f"))
        );

        for other in [
            r#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#,
            r#"{"jsonrpc":"2.0","id":1,"result":{}}"#,
            "{",
        ] {
            let message = Message::decode_with(other, None);
            assert!(matches!(message, Message::Other(_)), "{other}");
            assert!(message.params().is_none());
        }
    }
}
