//! What both sides of Streamable HTTP use (cargo feature
//! `streamable-http`): outbound connections with their settings
//! ([`HttpOptions`]: TLS, proxies, timeouts; `connect`, `tls`, `proxy`),
//! one bounded HTTPS exchange (`fetch`: the OAuth client's requests and the
//! bearer gate's JWKS and introspection calls), the `Mcp-*` request
//! headers of the stateless era (`headers`, read in one pass by `scan`),
//! and the names of the DPoP headers (RFC 9449) that the OAuth client
//! writes and the bearer gate reads.

pub(crate) mod connect;
pub(crate) mod fetch;
pub(crate) mod headers;
mod options;
mod proxy;
pub(crate) mod scan;
#[cfg(feature = "tls")]
mod tls;

/// RFC 9449 §4.1: the header that carries a DPoP proof.
pub(crate) const DPOP: http::HeaderName = http::HeaderName::from_static("dpop");
/// RFC 9449 §8: the header of a server's nonce for the next proof.
pub(crate) const DPOP_NONCE: http::HeaderName = http::HeaderName::from_static("dpop-nonce");

pub use headers::{param_headers, ParamHeader};
pub use options::{
    parse_header, ClientCertificate, HttpOptions, ProxyOptions, TlsOptions, DEFAULT_CONNECT_TIMEOUT,
};
