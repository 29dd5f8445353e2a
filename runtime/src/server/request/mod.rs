//! A message's way through the engine, as data: the envelope
//! ([`message`], [`params`]), the era, revision and caller it is served as
//! ([`scope`]), its route by the method table ([`route`]), pagination
//! cursors ([`cursor`]), and what handling it produced ([`handled`],
//! [`reply`]). Reads only `handler`.

pub(crate) mod cursor;
pub(in crate::server) mod handled;
pub(in crate::server) mod message;
pub(in crate::server) mod params;
pub(in crate::server) mod reply;
pub(in crate::server) mod route;
pub(in crate::server) mod scope;
