//! Who may use what: OAuth scopes per tool, prompt and resource
//! ([`oauth_scopes`], checked and used to hide items by [`authz`]), and the
//! audit log of calls ([`audit`]). Reads only `handler`.

pub(crate) mod audit;
pub(in crate::server) mod authz;
pub(crate) mod oauth_scopes;
