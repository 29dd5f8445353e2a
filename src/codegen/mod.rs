//! Code generators. Each returns a `proc_macro2::TokenStream` and does no
//! I/O; `emit` formats and writes what they return.

pub mod client;
pub mod codec;
pub mod dispatch;
pub mod docs;
pub mod protocol;
pub mod search;
pub mod server;
pub mod siblings;
pub mod surface;
pub mod tools;
