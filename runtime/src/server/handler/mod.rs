//! What a handler sees and gives back: the request context ([`context`])
//! and where its messages go ([`sink`]), the transport's extras and the
//! principal ([`extras`]), requests to the client in both eras ([`peer`],
//! [`outbound`], [`mrtr`] for multi round-trip input), cancellation
//! ([`cancel`]), run-time change notifications ([`notifier`]) and a tool's
//! error ([`tool_error`]). The bottom room: it reads no other room.

pub(crate) mod cancel;
pub(crate) mod context;
pub(crate) mod extras;
pub(crate) mod mrtr;
pub(crate) mod notifier;
pub(crate) mod outbound;
pub(crate) mod peer;
pub(crate) mod sink;
pub(crate) mod tool_error;
