//! What both sides of Streamable HTTP use (cargo feature
//! `streamable-http`): outbound connections with their settings
//! ([`HttpOptions`]: TLS, proxies, timeouts; `connect`, `tls`, `proxy`),
//! one bounded HTTPS exchange (`fetch`: the OAuth client's requests and the
//! bearer gate's JWKS and introspection calls), and the `Mcp-*` request
//! headers of the stateless era (`headers`, read in one pass by `scan`).

pub(crate) mod connect;
pub(crate) mod fetch;
pub(crate) mod headers;
mod options;
mod proxy;
pub(crate) mod scan;
#[cfg(feature = "tls")]
mod tls;

pub use headers::{param_headers, ParamHeader};
pub use options::{
    parse_header, ClientCertificate, HttpOptions, ProxyOptions, TlsOptions, DEFAULT_CONNECT_TIMEOUT,
};
