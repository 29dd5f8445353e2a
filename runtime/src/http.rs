//! Streamable HTTP, both sides (cargo feature `streamable-http`): the
//! server's endpoint ([`HttpService`], [`serve`], sessions and their
//! stores, the OAuth bearer gate in [`auth`]), the client's transport
//! ([`client::HttpTransport`]) and its OAuth 2.1 authorization
//! ([`oauth_client`]), and what both use ([`HttpOptions`], the `Mcp-*`
//! headers). The code lives with its side: `server/http`, `client/http`,
//! `client/oauth` and `transport/http`.

pub use crate::server::http::*;
pub use crate::transport::http::{
    param_headers, parse_header, ClientCertificate, HttpOptions, ParamHeader, ProxyOptions,
    TlsOptions, DEFAULT_CONNECT_TIMEOUT,
};

/// The client's Streamable HTTP transport.
pub mod client {
    pub use crate::client::http::*;
}

/// The client's OAuth 2.1 authorization.
pub mod oauth_client {
    pub use crate::client::oauth::*;
}
