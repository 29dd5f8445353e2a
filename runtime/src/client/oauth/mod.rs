//! OAuth 2.1 authorization of the Streamable HTTP client, as the MCP
//! specification describes it (2025-11-25 and 2026-07-28 authorization
//! pages): what the HTTP transport does when a request comes back `401`
//! (or `403 insufficient_scope`).
//!
//! Layout, one job per module:
//! - `challenge`: the `WWW-Authenticate` header (`resource_metadata`,
//!   `scope`, `error`);
//! - `fetch`: the small HTTP client the flow uses for metadata,
//!   registration and token requests (size-capped, timed out, redirects
//!   never followed, `http://` only on loopback);
//! - `discovery`: RFC 9728 protected resource metadata and RFC 8414 /
//!   OpenID Connect authorization server metadata, checked;
//! - `pkce`: the PKCE S256 verifier and challenge, and `state`;
//! - `registration`: client identity (pre-registered, Client ID Metadata
//!   Document, RFC 7591 dynamic registration) and token endpoint
//!   authentication;
//! - `token`: token and refresh requests;
//! - `grant`: the grants ([`OAuth::new`]'s authorization code, and the
//!   ones without a browser: [`OAuth::client_credentials`],
//!   [`OAuth::jwt_bearer`], [`OAuth::enterprise`]);
//! - `dpop`: RFC 9449 keys and proofs (feature `oauth`);
//! - `assertion`: tokens from elsewhere ([`Assertion`]) and the
//!   `private_key_jwt` key ([`ClientKey`], feature `oauth`);
//! - `store`: where tokens and client registrations are kept
//!   ([`TokenStore`], [`MemoryTokenStore`], [`FileTokenStore`]);
//! - `redirect`: how the authorization code comes back
//!   ([`RedirectReceiver`], [`LoopbackRedirect`], [`HeadlessRedirect`]);
//! - `flow`: the [`Authorizer`] that ties them together.
//!
//! A client enables it with [`HttpTransport::oauth`](crate::client::http::HttpTransport::oauth):
//!
//! ```no_run
//! # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
//! use mcpgen_runtime::client::oauth::{FileTokenStore, LoopbackRedirect, OAuth};
//! use mcpgen_runtime::client::http::HttpTransport;
//!
//! let oauth = OAuth::new(LoopbackRedirect::bind(0)?).store(FileTokenStore::new("tokens.json"));
//! let transport = HttpTransport::new("http://127.0.0.1:8080/mcp")?.oauth(oauth);
//! # Ok(()) }
//! ```

mod assertion;
mod challenge;
pub(crate) mod discovery;
pub(crate) mod dpop;
mod fetch;
mod flow;
mod grant;
mod pkce;
mod redirect;
mod registration;
mod store;
pub(crate) mod token;

use std::fmt;
use std::sync::Arc;

pub use assertion::Assertion;
#[cfg(feature = "oauth")]
pub use assertion::ClientKey;
pub use challenge::Challenge;
#[cfg(feature = "oauth")]
pub use dpop::DpopKey;
pub use flow::Authorizer;
pub use grant::IdentityProvider;
pub use redirect::{
    Callback, HeadlessRedirect, LoopbackRedirect, RedirectFuture, RedirectReceiver,
};
pub use registration::ClientCredentials;
pub use store::{FileTokenStore, MemoryTokenStore, StoredAuth, TokenStore};

/// The most authorization attempts for one request before it fails (a
/// server that keeps answering `403 insufficient_scope` ends here).
pub const MAX_ATTEMPTS: usize = 3;

/// How a client authorizes itself: the grant (a user at a browser, or a
/// machine on its own), its identity and where tokens are kept. Hand it to
/// [`HttpTransport::oauth`](crate::client::http::HttpTransport::oauth).
#[derive(Clone)]
pub struct OAuth {
    pub(crate) credentials: Option<ClientCredentials>,
    pub(crate) metadata_url: Option<String>,
    pub(crate) client_name: String,
    pub(crate) scopes: Option<Vec<String>>,
    pub(crate) store: Arc<dyn TokenStore>,
    pub(crate) grant: grant::Grant,
    /// DPoP: `Some(true)` always, `Some(false)` never, `None` when the
    /// authorization server supports ES256 proofs and the MCP server
    /// asks for DPoP.
    pub(crate) dpop: Option<bool>,
}

impl fmt::Debug for OAuth {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OAuth")
            .field("credentials", &self.credentials)
            .field("metadata_url", &self.metadata_url)
            .field("client_name", &self.client_name)
            .field("scopes", &self.scopes)
            .field("grant", &self.grant.name())
            .finish_non_exhaustive()
    }
}

impl OAuth {
    /// Authorization with tokens kept in memory and the code coming back
    /// through `redirect`. Without [`OAuth::credentials`] or
    /// [`OAuth::client_metadata_url`] the client registers itself
    /// dynamically (RFC 7591) with each authorization server it meets.
    pub fn new(redirect: impl RedirectReceiver + 'static) -> Self {
        Self::with_grant(grant::Grant::Code(Arc::new(redirect)))
    }

    /// A machine authorizing as itself with the client credentials grant
    /// (RFC 6749 §4.4): `credentials` registered beforehand, with a secret
    /// (`client_secret_basic` or `client_secret_post`, as the server
    /// lists) or a private key (`private_key_jwt`, feature `oauth`).
    pub fn client_credentials(credentials: ClientCredentials) -> Self {
        Self::with_grant(grant::Grant::ClientCredentials).credentials(credentials)
    }

    /// Workload identity federation: the JWT-bearer grant (RFC 7523 §2.1)
    /// presenting `assertion`, a token the platform issued for this
    /// workload (`Assertion::file` reads a rotated token again each time),
    /// as the client `credentials`. A refused grant is reported, never
    /// retried with another grant.
    pub fn jwt_bearer(credentials: ClientCredentials, assertion: Assertion) -> Self {
        Self::with_grant(grant::Grant::JwtBearer(assertion)).credentials(credentials)
    }

    /// Enterprise-managed authorization: the user's ID token is exchanged
    /// at the enterprise identity provider `idp` for an ID-JAG (RFC 8693),
    /// which the JWT-bearer grant presents to the MCP server's
    /// authorization server, where this client is `credentials`.
    pub fn enterprise(credentials: ClientCredentials, idp: IdentityProvider) -> Self {
        Self::with_grant(grant::Grant::Enterprise(idp)).credentials(credentials)
    }

    fn with_grant(grant: grant::Grant) -> Self {
        Self {
            credentials: None,
            metadata_url: None,
            client_name: "mcpgen-client".to_owned(),
            scopes: None,
            store: Arc::new(MemoryTokenStore::new()),
            grant,
            dpop: None,
        }
    }

    /// Uses credentials registered beforehand with the authorization server
    /// (preferred over every other kind of client identity).
    pub fn credentials(mut self, credentials: ClientCredentials) -> Self {
        self.credentials = Some(credentials);
        self
    }

    /// The `https://` URL of this client's Client ID Metadata Document,
    /// used as its `client_id` with authorization servers that advertise
    /// `client_id_metadata_document_supported`.
    pub fn client_metadata_url(mut self, url: impl Into<String>) -> Self {
        self.metadata_url = Some(url.into());
        self
    }

    /// The `client_name` sent in dynamic registrations.
    pub fn client_name(mut self, name: impl Into<String>) -> Self {
        self.client_name = name.into();
        self
    }

    /// Scopes to ask for instead of the ones the server's challenge or
    /// metadata name.
    pub fn scopes<I: IntoIterator<Item = S>, S: Into<String>>(mut self, scopes: I) -> Self {
        self.scopes = Some(scopes.into_iter().map(Into::into).collect());
        self
    }

    /// DPoP (RFC 9449): binds the tokens to a key of this client (ES256,
    /// made once per token store entry and kept there), so that a stolen
    /// token is useless without it. By default (`None` never set) DPoP is
    /// used when the authorization server lists ES256 in
    /// `dpop_signing_alg_values_supported` and the MCP server asks for it
    /// (a `DPoP` challenge, or `dpop_bound_access_tokens_required`);
    /// `true` always asks for bound tokens, `false` never. Feature `oauth`.
    #[cfg(feature = "oauth")]
    pub fn dpop(mut self, on: bool) -> Self {
        self.dpop = Some(on);
        self
    }

    /// Where tokens and registrations are kept (default: in memory).
    pub fn store(mut self, store: impl TokenStore + 'static) -> Self {
        self.store = Arc::new(store);
        self
    }
}

/// Why authorization failed. The message says what the server did and
/// what to do about it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuthError {
    message: String,
}

impl AuthError {
    /// An error saying `message` (for your own [`RedirectReceiver`] or
    /// [`TokenStore`]).
    pub fn new(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
        }
    }

    /// The message.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for AuthError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "authorization failed: {}", self.message)
    }
}

impl std::error::Error for AuthError {}
