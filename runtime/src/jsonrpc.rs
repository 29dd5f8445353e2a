//! JSON-RPC 2.0 framing: classifying an incoming message, the standard error
//! codes, and building responses and notifications as text.
//!
//! Everything here works on `serde_json::Value`; nothing knows MCP methods.
//! A message that cannot be understood is turned into the error response the
//! JSON-RPC 2.0 specification prescribes (`-32700` for text that is not JSON,
//! `-32600` for JSON that is not a valid request), never into a failure of
//! the caller.
//!
//! Ids are echoed exactly as sent: a string, or an integer in plain digits
//! that fits in 64 bits (`serde_json` holds those exactly). Any other number
//! (`1.5`, `1e2`, `-0`, `18446744073709551616`) is refused with `-32600`
//! rather than answered under an id that would come back changed.
//!
//! A transport that cannot hand a message over as text (over its size
//! limit, not UTF-8) passes an [`Unreadable`] placeholder instead, which
//! [`parse`] answers with `-32700`.
//!
//! The fast scanner of plain requests is in `lean`; messages are written
//! as text in `write` (re-exported here).

use std::borrow::Cow;

use serde_json::{Map, Value};

/// Invalid JSON was received.
pub const PARSE_ERROR: i64 = -32700;
/// The JSON sent is not a valid request object.
pub const INVALID_REQUEST: i64 = -32600;
/// The method does not exist or is not available.
pub const METHOD_NOT_FOUND: i64 = -32601;
/// Invalid method parameters.
pub const INVALID_PARAMS: i64 = -32602;
/// Internal error of the receiver.
pub const INTERNAL_ERROR: i64 = -32603;

/// A JSON-RPC error object: code, message and optional data.
#[derive(Debug, Clone, PartialEq)]
pub struct RpcError {
    /// One of the codes above, or an application-defined code.
    pub code: i64,
    /// A short sentence saying what went wrong.
    pub message: String,
    /// Structured details (validation errors, the offending value, ...).
    pub data: Option<Value>,
}

impl RpcError {
    /// An error with a code and message.
    pub fn new(code: i64, message: impl Into<String>) -> Self {
        Self {
            code,
            message: message.into(),
            data: None,
        }
    }

    /// Attaches structured details.
    pub fn with_data(mut self, data: Value) -> Self {
        self.data = Some(data);
        self
    }

    /// `-32700`: the text is not JSON.
    pub fn parse_error(detail: impl std::fmt::Display) -> Self {
        Self::new(PARSE_ERROR, format!("Parse error: {detail}"))
    }

    /// `-32600`: the JSON is not a valid request.
    pub fn invalid_request(detail: impl std::fmt::Display) -> Self {
        Self::new(INVALID_REQUEST, format!("Invalid request: {detail}"))
    }

    /// `-32601`: nobody answers this method.
    pub fn method_not_found(method: &str) -> Self {
        Self::new(METHOD_NOT_FOUND, format!("Method not found: {method}"))
    }

    /// `-32602`: the parameters do not fit the method.
    pub fn invalid_params(detail: impl std::fmt::Display) -> Self {
        Self::new(INVALID_PARAMS, format!("Invalid params: {detail}"))
    }

    /// `-32603`: the receiver failed.
    pub fn internal(detail: impl std::fmt::Display) -> Self {
        Self::new(INTERNAL_ERROR, format!("Internal error: {detail}"))
    }

    /// The error object as JSON.
    pub fn to_value(&self) -> Value {
        let mut obj = Map::new();
        obj.insert("code".into(), Value::from(self.code));
        obj.insert("message".into(), Value::from(self.message.clone()));
        if let Some(data) = &self.data {
            obj.insert("data".into(), data.clone());
        }
        Value::Object(obj)
    }
}

impl std::fmt::Display for RpcError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} ({})", self.message, self.code)
    }
}

impl std::error::Error for RpcError {}

/// One incoming message, classified.
#[derive(Debug, Clone, PartialEq)]
pub enum Incoming {
    /// A request: it has an id and expects exactly one response.
    Request {
        /// The request id (a string or a number), echoed in the response.
        id: Value,
        /// The method name.
        method: String,
        /// The parameters, when present (always an object here).
        params: Option<Value>,
    },
    /// A notification: no id, never answered.
    Notification {
        /// The method name.
        method: String,
        /// The parameters, when present (always an object here).
        params: Option<Value>,
    },
    /// A response to a request this side sent.
    Response {
        /// The id of the request answered.
        id: Value,
        /// `Ok(result)` or `Err(error object)`.
        outcome: Result<Value, Value>,
    },
    /// A non-empty JSON-RPC batch: an array of messages, each still to be
    /// classified with [`classify`]. Whether batches are allowed at all
    /// depends on the MCP revision; that is the receiver's decision.
    Batch(Vec<Value>),
    /// Something that must be answered with an error: `id` is the request's
    /// id when it could be read, else `null`.
    Invalid {
        /// Id to answer with.
        id: Value,
        /// The error to answer.
        error: RpcError,
    },
}

/// Classifies one message's text. A top-level array is a batch; an empty
/// one is invalid, as JSON-RPC 2.0 says.
pub fn parse(text: &str) -> Incoming {
    // The common case (a well-formed request or notification) without a
    // tree for the envelope; the same answer as the general path.
    if let Some(lean) = parse_lean(text).and_then(|mut l| l.read_meta().then_some(l)) {
        let method = lean.method.into_owned();
        let params = lean.params.map(Members::into_value);
        return match lean.id {
            Some(id) => Incoming::Request { id, method, params },
            None => Incoming::Notification { method, params },
        };
    }
    parse_full(text)
}

/// [`parse`] without its lean path: for text [`parse_lean`] refused.
pub(crate) fn parse_full(text: &str) -> Incoming {
    if let Some(unreadable) = Unreadable::from_placeholder(text) {
        return Incoming::Invalid {
            id: Value::Null,
            error: RpcError::parse_error(unreadable),
        };
    }
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Array(items)) if items.is_empty() => invalid(Value::Null, "an empty batch"),
        Ok(Value::Array(items)) => Incoming::Batch(items),
        Ok(value) => classify(value),
        Err(err) => Incoming::Invalid {
            id: Value::Null,
            error: RpcError::parse_error(err),
        },
    }
}

/// Classifies one already parsed message (a member of a batch, or the
/// whole text). An array here is invalid: batches do not nest.
pub fn classify(value: Value) -> Incoming {
    let mut obj = match value {
        Value::Object(obj) => obj,
        other => {
            return invalid(
                Value::Null,
                format!("expected a JSON object, got {}", kind(&other)),
            )
        }
    };
    // The id, when usable, is echoed even if the rest of the request is bad.
    let id = obj.remove("id");
    let id_problem = id.as_ref().and_then(id_problem);
    let id_ok = id.is_some() && id_problem.is_none();
    let echo = if id_ok {
        id.clone().unwrap_or(Value::Null)
    } else {
        Value::Null
    };

    match obj.get("jsonrpc") {
        Some(Value::String(v)) if v == "2.0" => {}
        Some(other) => {
            return invalid(echo, format!("\"jsonrpc\" must be \"2.0\", got {other}"));
        }
        None => return invalid(echo, "missing \"jsonrpc\": \"2.0\""),
    }

    let method = obj.remove("method");
    let params = obj.remove("params");
    match (method, id) {
        (Some(Value::String(method)), id) => {
            if let Some(p) = &params {
                if !p.is_object() {
                    return invalid(
                        echo,
                        format!("\"params\" must be an object, got {}", kind(p)),
                    );
                }
            }
            match id {
                None => Incoming::Notification { method, params },
                Some(id) if id_ok => Incoming::Request { id, method, params },
                Some(_) => invalid(Value::Null, id_problem.unwrap_or_default()),
            }
        }
        (Some(other), _) => invalid(
            echo,
            format!("\"method\" must be a string, got {}", kind(&other)),
        ),
        (None, Some(id)) if id_ok => {
            if let Some(result) = obj.remove("result") {
                Incoming::Response {
                    id,
                    outcome: Ok(result),
                }
            } else if let Some(error) = obj.remove("error") {
                Incoming::Response {
                    id,
                    outcome: Err(error),
                }
            } else {
                invalid(echo, "missing \"method\"")
            }
        }
        (None, Some(_)) if !obj.contains_key("result") && !obj.contains_key("error") => {
            invalid(echo, "missing \"method\"")
        }
        (None, Some(_)) => invalid(Value::Null, id_problem.unwrap_or_default()),
        (None, None) => invalid(echo, "missing \"method\""),
    }
}

/// A well-formed request or notification, decoded from text without a
/// tree for the envelope or the params object: `"jsonrpc": "2.0"`, a
/// string `method`, an id that is a string or an integer, params that are
/// an object (kept as its members, in order). What [`classify`] would turn
/// into a request or notification with the same id, method and params.
#[derive(Debug)]
pub(crate) struct Lean<'a> {
    /// The id; `None` for a notification.
    pub(crate) id: Option<Value>,
    /// The method name (borrowed from the text when it has no escapes).
    pub(crate) method: Cow<'a, str>,
    /// The members of `params`, when present.
    pub(crate) params: Option<Members<'a>>,
    /// The text of `params._meta`, not read yet: its member in `params`
    /// holds `null` until [`Lean::read_meta`] puts the value there.
    pub(crate) meta: Option<&'a str>,
}

impl Lean<'_> {
    /// Reads `params._meta` into its member; `false` when it is not JSON
    /// (the message then takes the general path).
    pub(crate) fn read_meta(&mut self) -> bool {
        let (Some(text), Some(params)) = (self.meta.take(), self.params.as_mut()) else {
            return true;
        };
        let Ok(value) = serde_json::from_str::<Value>(text) else {
            return false;
        };
        params.set("_meta", value);
        true
    }
}

/// The member `name` of an object: a small one (the usual `params` and
/// `_meta`) is searched by comparing names, cheaper than hashing the name
/// (the reserved `_meta` keys are long); a larger one by lookup.
pub(crate) fn field<'a>(object: &'a Map<String, Value>, name: &str) -> Option<&'a Value> {
    if object.len() <= 8 {
        object
            .iter()
            .find(|(k, _)| k.as_str() == name)
            .map(|(_, v)| v)
    } else {
        object.get(name)
    }
}

/// [`field`] of a value that may be an object.
pub(crate) fn member<'a>(value: Option<&'a Value>, name: &str) -> Option<&'a Value> {
    match value? {
        Value::Object(object) => field(object, name),
        _ => None,
    }
}

/// The members of a JSON object in the order sent, without a map: a
/// repeated name keeps its last value, as in a `serde_json` map.
#[derive(Debug, Default, Clone, PartialEq)]
pub(crate) struct Members<'a>(pub(crate) Vec<(Cow<'a, str>, Value)>);

impl<'a> Members<'a> {
    /// The value of `name` (the last one when repeated).
    pub(crate) fn get(&self, name: &str) -> Option<&Value> {
        self.0.iter().rev().find(|(k, _)| k == name).map(|(_, v)| v)
    }

    /// Sets the (only) member `name`.
    pub(crate) fn set(&mut self, name: &str, value: Value) {
        if let Some((_, v)) = self.0.iter_mut().rev().find(|(k, _)| k == name) {
            *v = value;
        }
    }

    /// Moves the value of `name` out, leaving `null` in its place (for
    /// params that are consumed).
    pub(crate) fn take_value(&mut self, name: &str) -> Option<Value> {
        let (_, value) = self.0.iter_mut().rev().find(|(k, _)| k == name)?;
        Some(std::mem::take(value))
    }

    /// The members as an object, exactly as `serde_json` would have built it.
    pub(crate) fn into_value(self) -> Value {
        let mut map = Map::with_capacity(self.0.len());
        for (k, v) in self.0 {
            map.insert(k.into_owned(), v);
        }
        Value::Object(map)
    }
}

/// The bytes that end the plain part of a JSON string, which is written
/// as it is between the quotes: `"`, `\` and control characters.
pub(crate) const STRING_STOP: [bool; 256] = {
    let mut table = [false; 256];
    let mut b = 0;
    while b < 0x20 {
        table[b] = true;
        b += 1;
    }
    table[b'"' as usize] = true;
    table[b'\\' as usize] = true;
    table
};

/// Decodes `text` when it is a well-formed request or notification (see
/// [`Lean`]); `None` for anything else (a batch, a response, a message
/// with a problem, or only unusual: escapes in member names or the method,
/// deep nesting), which [`parse`] then classifies in full.
pub(crate) fn parse_lean(text: &str) -> Option<Lean<'_>> {
    let mut scan = lean::Scan::new(text);
    let lean = scan.message()?;
    scan.at_end().then_some(lean)
}

mod lean;

/// Why `id` cannot be a request id, or `None` when it can: a string, or an
/// integer that `serde_json` holds exactly (plain digits, 64 bits). Other
/// numbers arrive as `f64`, which would be echoed changed.
fn id_problem(id: &Value) -> Option<String> {
    match id {
        Value::String(_) => None,
        Value::Number(n) if n.is_i64() || n.is_u64() => None,
        Value::Number(n) => {
            let f = n.as_f64().unwrap_or(f64::NAN);
            Some(if f.is_finite() && f.fract() == 0.0 {
                format!(
                    "\"id\" must be a string or an integer written in plain digits between {} and {}, \
                     so that it can be echoed exactly; got a number with a fraction, an exponent, a minus zero \
                     or more than 64 bits (about {n})",
                    i64::MIN,
                    u64::MAX
                )
            } else {
                format!("\"id\" must be a string or an integer, got the number {n}")
            })
        }
        other => Some(format!(
            "\"id\" must be a string or an integer, got {}",
            kind(other)
        )),
    }
}

/// A message a transport could not hand over as text. The transport passes
/// [`Unreadable::placeholder`] in its place (a reader yields text, and
/// this keeps the engines' interface); [`parse`] answers it with `-32700`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unreadable {
    /// The message was longer than the reader's limit; the reader dropped
    /// it (and skips the rest of it) instead of buffering it.
    TooLarge {
        /// The limit in bytes.
        limit: usize,
    },
    /// The message is not UTF-8 (JSON text must be).
    NotUtf8 {
        /// Offset of the first invalid byte in the message.
        offset: usize,
    },
}

const TOO_LARGE_PREFIX: &str = "<unreadable message: longer than the limit of ";
const TOO_LARGE_SUFFIX: &str = " bytes, dropped>";
const NOT_UTF8_PREFIX: &str = "<unreadable message: not valid UTF-8 at byte ";
const NOT_UTF8_SUFFIX: &str = ">";

impl Unreadable {
    /// The text a reader hands over in place of the message. It is never
    /// valid JSON (it starts with `<`).
    pub fn placeholder(self) -> String {
        match self {
            Unreadable::TooLarge { limit } => {
                format!("{TOO_LARGE_PREFIX}{limit}{TOO_LARGE_SUFFIX}")
            }
            Unreadable::NotUtf8 { offset } => format!("{NOT_UTF8_PREFIX}{offset}{NOT_UTF8_SUFFIX}"),
        }
    }

    /// Recognises a placeholder made by [`Unreadable::placeholder`].
    pub fn from_placeholder(text: &str) -> Option<Self> {
        if !text.starts_with('<') {
            return None;
        }
        let number = |prefix: &str, suffix: &str| {
            text.strip_prefix(prefix)?
                .strip_suffix(suffix)?
                .parse()
                .ok()
        };
        if let Some(limit) = number(TOO_LARGE_PREFIX, TOO_LARGE_SUFFIX) {
            return Some(Unreadable::TooLarge { limit });
        }
        number(NOT_UTF8_PREFIX, NOT_UTF8_SUFFIX).map(|offset| Unreadable::NotUtf8 { offset })
    }
}

impl std::fmt::Display for Unreadable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Unreadable::TooLarge { limit } => write!(
                f,
                "the message is longer than the limit of {limit} bytes ({}); it was dropped unread",
                human_size(*limit)
            ),
            Unreadable::NotUtf8 { offset } => {
                write!(f, "the message is not valid UTF-8 (invalid byte at offset {offset}); JSON text must be UTF-8")
            }
        }
    }
}

/// A byte count for messages: `32 MiB`, `64 KiB`, `100 bytes`.
pub(crate) fn human_size(bytes: usize) -> String {
    match bytes {
        b if b >= 1 << 20 && b % (1 << 20) == 0 => format!("{} MiB", b >> 20),
        b if b >= 1 << 10 && b % (1 << 10) == 0 => format!("{} KiB", b >> 10),
        b => format!("{b} bytes"),
    }
}

fn invalid(id: Value, detail: impl std::fmt::Display) -> Incoming {
    Incoming::Invalid {
        id,
        error: RpcError::invalid_request(detail),
    }
}

/// The length of a value's compact JSON text, without building the text.
pub fn json_len(value: &Value) -> usize {
    struct Count(usize);
    impl std::io::Write for Count {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0 += buf.len();
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut count = Count(0);
    // Writing a `Value` to a writer that never fails cannot fail.
    let _ = serde_json::to_writer(&mut count, value);
    count.0
}

/// The JSON type name of a value, for messages.
pub fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

mod write;

pub use write::{error_response, json_text, notification, request, response, response_raw};
pub(crate) use write::{
    into_text, push_digits, push_json, push_json_str, push_json_string, response_head,
    response_head_text,
};

#[cfg(test)]
mod tests;
