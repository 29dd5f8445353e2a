//! [`PostAnswer`]: the reply to one POST read message by message — a JSON
//! body whole, or a Server-Sent Events stream through [`SseParser`] — under
//! the read cap, the connection given back to the pool once read to its
//! end; and [`classify`], which tells the request's own response from the
//! other messages of a stream.

use std::collections::VecDeque;

use bytes::Bytes;
use http::header::{CONTENT_TYPE, LOCATION};
use http::{Response, StatusCode};
use http_body_util::BodyExt;
use hyper::body::Incoming;
use serde::de::IgnoredAny;
use serde::{Deserialize, Deserializer};
use serde_json::Value;

use super::{ReadError, DEFAULT_RETRY, DRAIN_TIMEOUT};
use crate::client::http::pool::{self, Lease};
use crate::client::http::sse::SseParser;

/// The reply of one POST, message by message.
pub(super) struct PostAnswer {
    pub(super) status: StatusCode,
    pub(super) location: Option<String>,
    pub(super) body: Incoming,
    /// An SSE stream (else a whole body).
    pub(super) sse: bool,
    pub(super) parser: SseParser,
    /// Messages of a whole body, once read.
    pub(super) queue: VecDeque<String>,
    pub(super) read: bool,
    pub(super) max: usize,
    /// The answer's connection, back to the pool once the body has been
    /// read to its end (when the server keeps it open); dropped, and so
    /// closed, with the answer before that.
    pub(super) lease: Option<Lease>,
    pub(super) keep_alive: bool,
}

impl PostAnswer {
    /// How long to wait before resuming this SSE stream: its last `retry`,
    /// else [`DEFAULT_RETRY`].
    pub(super) fn retry_delay(&self) -> std::time::Duration {
        self.parser
            .retry
            .map_or(DEFAULT_RETRY, std::time::Duration::from_millis)
    }

    pub(super) fn new(response: Response<Incoming>, max: usize, lease: Lease) -> Self {
        let status = response.status();
        let keep_alive = pool::keeps_alive(&response);
        let media = response
            .headers()
            .get(CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("");
        let sse = status.is_success()
            && media
                .split(';')
                .next()
                .unwrap_or("")
                .trim()
                .eq_ignore_ascii_case("text/event-stream");
        let location = response
            .headers()
            .get(LOCATION)
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned);
        Self {
            status,
            location,
            body: response.into_body(),
            sse,
            parser: SseParser::new(max),
            queue: VecDeque::new(),
            read: false,
            max,
            lease: Some(lease),
            keep_alive,
        }
    }

    /// The body has been read to its end: the connection is free.
    pub(super) fn ended(&mut self) {
        if let Some(lease) = self.lease.take().filter(|_| self.keep_alive) {
            lease.release();
        }
    }

    /// After the response of an SSE answer: reads the rest of the stream,
    /// which the server should end now, so that the connection can serve
    /// another request; gives up (closing the connection) after
    /// [`DRAIN_TIMEOUT`] or at the size limit.
    pub(super) async fn drain(&mut self) {
        if !self.sse || self.lease.is_none() {
            return;
        }
        let mut left = self.max;
        let rest = async {
            while let Some(frame) = self.body.frame().await {
                let Ok(frame) = frame else { return false };
                let size = frame.data_ref().map_or(0, Bytes::len);
                if size > left {
                    return false;
                }
                left -= size;
            }
            true
        };
        if let Ok(true) = tokio::time::timeout(DRAIN_TIMEOUT, rest).await {
            self.ended();
        }
    }

    /// Whether a whole body is one JSON-RPC error `-32020` (HeaderMismatch).
    pub(super) fn is_header_mismatch(&self) -> bool {
        self.queue.iter().any(|text| {
            serde_json::from_str::<Value>(text)
                .ok()
                .and_then(|v| v.pointer("/error/code").and_then(Value::as_i64))
                == Some(crate::revision::codes::HEADER_MISMATCH)
        })
    }

    /// Reads a whole (non-SSE) body into the queue: one message, or the
    /// members of a batch.
    pub(super) async fn whole(&mut self) -> Result<(), ReadError> {
        if self.read || self.sse {
            return Ok(());
        }
        self.read = true;
        let mut bytes = Vec::new();
        while let Some(frame) = self.body.frame().await {
            let frame = frame.map_err(ReadError::Http)?;
            if let Ok(data) = frame.into_data() {
                if bytes.len() + data.len() > self.max {
                    return Err(ReadError::TooLarge);
                }
                bytes.extend_from_slice(&data);
            }
        }
        self.ended();
        let text = String::from_utf8_lossy(&bytes);
        if text.trim().is_empty() {
            return Ok(());
        }
        match serde_json::from_str::<Value>(&text) {
            Ok(Value::Array(batch)) if !batch.is_empty() => {
                self.queue.extend(batch.iter().map(Value::to_string))
            }
            _ => self.queue.push_back(text.into_owned()),
        }
        Ok(())
    }

    /// The next message, `None` at the end of the answer.
    pub(super) async fn next(&mut self) -> Result<Option<String>, ReadError> {
        if !self.sse {
            self.whole().await?;
            return Ok(self.queue.pop_front());
        }
        loop {
            if let Some(event) = self.parser.next_event() {
                return Ok(Some(event));
            }
            if self.parser.ended {
                return Ok(None);
            }
            match self.body.frame().await {
                Some(Ok(frame)) => {
                    if let Ok(data) = frame.into_data() {
                        self.parser.feed(&data).map_err(|()| ReadError::TooLarge)?;
                    }
                }
                Some(Err(e)) => return Err(ReadError::Http(e)),
                None => {
                    self.ended();
                    self.parser.finish();
                }
            }
        }
    }
}

/// What a message of an answer is to the request.
pub(super) enum Kind {
    /// The response to it (`fill_id`: an error whose id is missing or null).
    Answer { fill_id: bool },
    /// A notification, a server request, or a response to something else.
    Other,
    /// Not a JSON-RPC message.
    NotJsonRpc,
}

fn present<'de, D: Deserializer<'de>>(d: D) -> Result<bool, D::Error> {
    IgnoredAny::deserialize(d).map(|_| true)
}

/// The members of a message that tell what it is, skipping the rest.
#[derive(Deserialize)]
struct Peek {
    #[serde(default)]
    id: Option<Value>,
    #[serde(default, deserialize_with = "present")]
    method: bool,
    #[serde(default, deserialize_with = "present")]
    result: bool,
    #[serde(default)]
    error: Option<Value>,
}

pub(super) fn classify(text: &str, id: &Value) -> Kind {
    if !text.trim_start().starts_with('{') {
        return Kind::NotJsonRpc;
    }
    let Ok(peek) = serde_json::from_str::<Peek>(text) else {
        return Kind::NotJsonRpc;
    };
    if peek.method {
        return Kind::Other;
    }
    // A JSON-RPC error is an object with an integer code; `{"error": "…"}`
    // from a proxy or a router is not one.
    let error = match &peek.error {
        None => false,
        Some(e) if e.get("code").is_some_and(|c| c.is_i64()) => true,
        Some(_) => return Kind::NotJsonRpc,
    };
    if !(peek.result || error) {
        return Kind::NotJsonRpc;
    }
    match &peek.id {
        Some(theirs) if theirs == id => Kind::Answer { fill_id: false },
        None if error => Kind::Answer { fill_id: true },
        _ => Kind::Other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn messages_are_classified_against_the_request_id() {
        let id = json!(3);
        assert!(matches!(
            classify(r#"{"jsonrpc":"2.0","id":3,"result":{}}"#, &id),
            Kind::Answer { fill_id: false }
        ));
        assert!(matches!(
            classify(
                r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32022}}"#,
                &id
            ),
            Kind::Answer { fill_id: true }
        ));
        assert!(matches!(
            classify(r#"{"jsonrpc":"2.0","error":{"code":-1}}"#, &id),
            Kind::Answer { fill_id: true }
        ));
        assert!(matches!(
            classify(r#"{"jsonrpc":"2.0","id":4,"result":null}"#, &id),
            Kind::Other
        ));
        assert!(matches!(
            classify(
                r#"{"jsonrpc":"2.0","method":"notifications/progress"}"#,
                &id
            ),
            Kind::Other
        ));
        assert!(matches!(
            classify(r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#, &id),
            Kind::Other
        ));
        assert!(matches!(classify("<html>", &id), Kind::NotJsonRpc));
        assert!(matches!(
            classify(r#"{"error":"not found"}"#, &id),
            Kind::NotJsonRpc
        ));
        assert!(matches!(
            classify(r#"{"id":3,"error":{"code":"x"}}"#, &id),
            Kind::NotJsonRpc
        ));
        assert!(matches!(
            classify(r#"{"status":"ok"}"#, &id),
            Kind::NotJsonRpc
        ));
        assert!(matches!(classify("[3]", &id), Kind::NotJsonRpc));
    }
}
