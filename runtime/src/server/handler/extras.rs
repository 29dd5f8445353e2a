//! [`Extras`]: what a transport knows about a request besides its message
//! (over HTTP: method, URI, headers, the authenticated [`Principal`] and
//! what middleware put into the request's extensions), shared by the engine
//! and the request's handler.
//!
//! Handlers and hooks see it as an `http::Extensions` map. Over HTTP that
//! map is built the first time one of them asks: building it costs a hash
//! map and a box per entry, and most requests never look.

use std::sync::{Arc, OnceLock};

#[cfg(feature = "streamable-http")]
use http::HeaderMap;
use serde_json::Value;

/// An authenticated caller, as an authentication hook puts it into a
/// request's extensions; the access-control hook and handlers read it back
/// with `extensions().get::<Principal>()`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Principal {
    /// Who it is (a user id, a client id, a key name).
    pub subject: String,
    /// What it may do (OAuth scopes, roles).
    pub scopes: Vec<String>,
    /// Anything else the hook wants to pass on (a verified token's claims).
    pub claims: Value,
    /// The OAuth client the token was issued to (`client_id`), when known.
    pub client_id: Option<String>,
    /// When the credential stops being valid (a token's `exp`), when known.
    pub expires_at: Option<std::time::SystemTime>,
}

/// A request's transport details (see the module docs); shared behind an
/// `Arc` by everything handling the request.
#[derive(Debug)]
pub(crate) struct Extras {
    from: From,
    /// The map handlers read, made on first use (HTTP only).
    #[cfg_attr(not(feature = "streamable-http"), allow(dead_code))]
    map: OnceLock<http::Extensions>,
}

// Always behind the `Arc` of an `Extras`: boxing the HTTP parts would be a
// second allocation per request.
#[allow(clippy::large_enum_variant)]
#[derive(Debug)]
enum From {
    /// A map the caller made (the stdio server's empty one, or a custom
    /// transport's through [`crate::Server::handle`]).
    Map(Arc<http::Extensions>),
    /// An HTTP request's parts.
    #[cfg(feature = "streamable-http")]
    Http(HttpParts),
}

#[cfg(feature = "streamable-http")]
#[derive(Debug)]
struct HttpParts {
    /// The request without its body; its extensions hold what tower
    /// layers inserted (a [`Principal`] among them, perhaps).
    parts: http::request::Parts,
    /// The caller the authentication hook named (over a layer's).
    authenticated: OnceLock<Arc<Principal>>,
}

impl Extras {
    /// The details of a request that came with the map `map`.
    pub(crate) fn map(map: Arc<http::Extensions>) -> Arc<Self> {
        Arc::new(Self {
            from: From::Map(map),
            map: OnceLock::new(),
        })
    }

    /// An HTTP request's parts (moved, not copied).
    #[cfg(feature = "streamable-http")]
    pub(crate) fn http(parts: http::request::Parts) -> Arc<Self> {
        Arc::new(Self {
            from: From::Http(HttpParts {
                parts,
                authenticated: OnceLock::new(),
            }),
            map: OnceLock::new(),
        })
    }

    /// The HTTP request's parts (for the authentication hook).
    #[cfg(feature = "streamable-http")]
    pub(crate) fn parts(&self) -> Option<&http::request::Parts> {
        match &self.from {
            From::Map(_) => None,
            From::Http(http) => Some(&http.parts),
        }
    }

    /// Names the caller the authentication hook found (before the
    /// request is handled; only the first is kept).
    #[cfg(feature = "streamable-http")]
    pub(crate) fn authenticate(&self, principal: Arc<Principal>) {
        if let From::Http(http) = &self.from {
            let _ = http.authenticated.set(principal);
        }
    }

    /// The map handlers see: over HTTP the request's `Method`, `Uri` and
    /// `HeaderMap`, its [`Principal`] when it has one, and whatever
    /// middleware inserted.
    pub(crate) fn extensions(&self) -> &http::Extensions {
        match &self.from {
            From::Map(map) => map,
            #[cfg(feature = "streamable-http")]
            From::Http(http) => self.map.get_or_init(|| {
                let parts = &http.parts;
                let mut map = parts.extensions.clone();
                map.insert(parts.headers.clone());
                map.insert(parts.method.clone());
                map.insert(parts.uri.clone());
                if let Some(p) = http.authenticated.get() {
                    map.insert(Principal::clone(p));
                }
                map
            }),
        }
    }

    /// The authenticated caller, without building the map.
    pub(crate) fn principal(&self) -> Option<&Principal> {
        match &self.from {
            From::Map(map) => map.get::<Principal>(),
            #[cfg(feature = "streamable-http")]
            From::Http(http) => http
                .authenticated
                .get()
                .map(|p| &**p)
                .or_else(|| http.parts.extensions.get::<Principal>()),
        }
    }

    /// The HTTP request's headers (empty for other transports).
    #[cfg(feature = "streamable-http")]
    pub(crate) fn headers(&self) -> &HeaderMap {
        static NONE: OnceLock<HeaderMap> = OnceLock::new();
        match &self.from {
            From::Map(map) => map
                .get::<HeaderMap>()
                .unwrap_or_else(|| NONE.get_or_init(HeaderMap::new)),
            #[cfg(feature = "streamable-http")]
            From::Http(http) => &http.parts.headers,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(feature = "streamable-http")]
    #[derive(Debug, Clone, PartialEq)]
    struct Tag(&'static str);

    #[cfg(feature = "streamable-http")]
    fn request() -> http::request::Parts {
        let mut request = http::Request::post("/mcp?x=1")
            .header("x-api-key", "k1")
            .body(())
            .unwrap();
        request.extensions_mut().insert(Tag("from a layer"));
        request.extensions_mut().insert(Principal {
            subject: "layer".into(),
            ..Principal::default()
        });
        request.into_parts().0
    }

    #[cfg(feature = "streamable-http")]
    #[test]
    fn an_http_requests_map_holds_its_parts_its_principal_and_what_layers_inserted() {
        use http::{Method, Uri};
        let extras = Extras::http(request());
        assert_eq!(
            extras.principal().map(|p| p.subject.as_str()),
            Some("layer"),
            "a layer's principal"
        );
        let alice = Principal {
            subject: "alice".into(),
            ..Principal::default()
        };
        extras.authenticate(Arc::new(alice.clone()));
        assert_eq!(
            extras.principal(),
            Some(&alice),
            "the authentication hook's comes first"
        );
        assert_eq!(extras.headers()["x-api-key"], "k1");
        assert_eq!(extras.parts().map(|p| p.method.clone()), Some(Method::POST));
        let map = extras.extensions();
        assert_eq!(map.get::<Method>(), Some(&Method::POST));
        assert_eq!(
            map.get::<Uri>().map(Uri::to_string).as_deref(),
            Some("/mcp?x=1")
        );
        assert_eq!(
            map.get::<HeaderMap>().map(|h| h["x-api-key"].clone()),
            Some(http::HeaderValue::from_static("k1"))
        );
        assert_eq!(map.get::<Principal>(), Some(&alice));
        assert_eq!(map.get::<Tag>(), Some(&Tag("from a layer")));
        // Built once: the second look is the same map.
        assert!(std::ptr::eq(map, extras.extensions()));
    }

    #[test]
    fn a_given_map_is_seen_as_it_is() {
        let mut map = http::Extensions::new();
        map.insert(Principal {
            subject: "bob".into(),
            ..Principal::default()
        });
        let extras = Extras::map(Arc::new(map));
        assert_eq!(extras.principal().map(|p| p.subject.as_str()), Some("bob"));
        #[cfg(feature = "streamable-http")]
        assert!(extras.headers().is_empty());
        assert!(extras.extensions().get::<http::Method>().is_none());
    }
}
