//! A request's [`Params`]: absent, a JSON value, or the members the lean
//! path decoded without building a map; read and changed alike.

use serde_json::Value;

use crate::jsonrpc::Members;

/// A request's params: absent, an object (from a classified message), or
/// the members of an object decoded without a map (the lean path).
pub(crate) enum Params<'a> {
    /// No `params`.
    Absent,
    /// `params` as a value (an object when the JSON-RPC layer classified it).
    Value(Value),
    /// The members of `params`, in order.
    Members(Members<'a>),
}

impl From<Option<Value>> for Params<'static> {
    fn from(params: Option<Value>) -> Self {
        params.map_or(Params::Absent, Params::Value)
    }
}

impl Params<'_> {
    /// The member `name`.
    pub(crate) fn get(&self, name: &str) -> Option<&Value> {
        match self {
            Params::Absent => None,
            Params::Value(v) => v.get(name),
            Params::Members(m) => m.get(name),
        }
    }

    /// Sets the member `name`, when the params have it.
    pub(crate) fn set(&mut self, name: &str, value: Value) {
        match self {
            Params::Absent => {}
            Params::Value(v) => {
                if let Some(slot) = v.get_mut(name) {
                    *slot = value;
                }
            }
            Params::Members(m) => m.set(name, value),
        }
    }

    /// Whether the params are an object.
    pub(in crate::server) fn is_object(&self) -> bool {
        match self {
            Params::Absent => false,
            Params::Value(v) => v.is_object(),
            Params::Members(_) => true,
        }
    }

    /// Moves the member `name` out, leaving `null` in its place (the
    /// params of a `tools/call` are consumed by it).
    pub(crate) fn take(&mut self, name: &str) -> Option<Value> {
        match self {
            Params::Absent => None,
            Params::Value(v) => v
                .as_object_mut()
                .and_then(|o| o.get_mut(name))
                .map(Value::take),
            Params::Members(m) => m.take_value(name),
        }
    }

    /// The params as a value.
    pub(crate) fn into_value(self) -> Option<Value> {
        match self {
            Params::Absent => None,
            Params::Value(v) => Some(v),
            Params::Members(m) => Some(m.into_value()),
        }
    }
}
