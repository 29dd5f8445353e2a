//! How the HTTP client reaches a server: [`HttpOptions`] (extra headers
//! such as a static bearer token, the connect timeout, [`TlsOptions`] and
//! [`ProxyOptions`]). Plain settings, read when the transport starts; the
//! connector (`connect.rs`) turns them into sockets.

use std::fmt;
use std::path::PathBuf;
use std::time::Duration;

use http::header::{HeaderName, HeaderValue, InvalidHeaderValue, AUTHORIZATION};
use http::HeaderMap;

/// The connect timeout unless set: TCP, a proxy's tunnel and the TLS
/// handshake together.
pub const DEFAULT_CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// Settings of the HTTP client's connections; see
/// [`HttpTransport::options`](crate::client::http::HttpTransport::options) and
/// `ClientOptions::http`.
///
/// ```
/// use mcpgen_runtime::transport::http::HttpOptions;
///
/// let options = HttpOptions::new()
///     .bearer_token("secret-token").expect("a token of visible ASCII")
///     .add_ca_file("/etc/mcp/ca.pem")
///     .proxy("http://proxy.internal:3128");
/// ```
#[derive(Clone)]
pub struct HttpOptions {
    /// Sent on every request (e.g. `Authorization`, an API key). Values
    /// are marked sensitive and never logged.
    pub headers: HeaderMap,
    /// How long connecting may take: TCP, a proxy's `CONNECT` and the TLS
    /// handshake together (default 10 s). How long each request may take
    /// is the client's `ClientOptions::default_timeout` (60 s) or the
    /// call's `CallOptions::timeout`.
    pub connect_timeout: Duration,
    /// Certificates: which roots are trusted, extra CAs, a client certificate.
    pub tls: TlsOptions,
    /// Which proxy, if any.
    pub proxy: ProxyOptions,
}

impl Default for HttpOptions {
    fn default() -> Self {
        Self {
            headers: HeaderMap::new(),
            connect_timeout: DEFAULT_CONNECT_TIMEOUT,
            tls: TlsOptions::default(),
            proxy: ProxyOptions::default(),
        }
    }
}

impl fmt::Debug for HttpOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Header names only: values are credentials.
        let headers: Vec<&str> = self.headers.keys().map(HeaderName::as_str).collect();
        f.debug_struct("HttpOptions")
            .field("headers", &headers)
            .field("connect_timeout", &self.connect_timeout)
            .field("tls", &self.tls)
            .field("proxy", &self.proxy)
            .finish()
    }
}

impl HttpOptions {
    /// The defaults: no extra headers, 10 s to connect, Mozilla's roots
    /// (webpki-roots), the proxy of the environment.
    pub fn new() -> Self {
        Self::default()
    }

    /// Sends `name: value` on every request; the value is marked sensitive.
    pub fn header(mut self, name: HeaderName, mut value: HeaderValue) -> Self {
        value.set_sensitive(true);
        self.headers.append(name, value);
        self
    }

    /// Sends `Authorization: Bearer TOKEN` on every request (a static
    /// token or API key). Fails when the token holds characters a header
    /// cannot.
    pub fn bearer_token(self, token: &str) -> Result<Self, InvalidHeaderValue> {
        let value = HeaderValue::from_str(&format!("Bearer {token}"))?;
        Ok(self.header(AUTHORIZATION, value))
    }

    /// Sets how long connecting may take (TCP, proxy and TLS handshake).
    pub fn connect_timeout(mut self, timeout: Duration) -> Self {
        self.connect_timeout = timeout;
        self
    }

    /// Trusts the CA certificates of a PEM file too (read when the
    /// transport starts).
    pub fn add_ca_file(mut self, path: impl Into<PathBuf>) -> Self {
        self.tls.ca_files.push(path.into());
        self
    }

    /// Trusts the CA certificates of PEM text too.
    pub fn add_ca_pem(mut self, pem: impl Into<Vec<u8>>) -> Self {
        self.tls.ca_pems.push(pem.into());
        self
    }

    /// Trusts the platform's roots (the system store, `SSL_CERT_FILE`)
    /// instead of the compiled-in Mozilla roots.
    pub fn native_roots(mut self) -> Self {
        self.tls.native_roots = true;
        self.tls.webpki_roots = false;
        self
    }

    /// Presents a client certificate (mutual TLS): the certificate chain
    /// and its private key, PEM files.
    pub fn client_identity(
        mut self,
        cert_chain: impl Into<PathBuf>,
        key: impl Into<PathBuf>,
    ) -> Self {
        self.tls.identity = Some(ClientCertificate {
            cert_chain: cert_chain.into(),
            key: key.into(),
        });
        self
    }

    /// Sends every request through this HTTP proxy
    /// (`http://[USER:PASSWORD@]HOST:PORT`), whatever the environment says.
    pub fn proxy(mut self, url: impl Into<String>) -> Self {
        self.proxy = ProxyOptions::Url {
            url: url.into(),
            no_proxy: String::new(),
        };
        self
    }

    /// Hosts reached without the explicit [`proxy`](Self::proxy), in
    /// `NO_PROXY` syntax (`example.com, .internal, 10.0.0.0/8, *`).
    pub fn no_proxy(mut self, list: impl Into<String>) -> Self {
        if let ProxyOptions::Url { no_proxy, .. } = &mut self.proxy {
            *no_proxy = list.into();
        }
        self
    }

    /// Connects directly, ignoring `HTTPS_PROXY`, `HTTP_PROXY` and `ALL_PROXY`.
    pub fn no_env_proxy(mut self) -> Self {
        self.proxy = ProxyOptions::Direct;
        self
    }
}

/// Which certificates the client trusts and presents.
#[derive(Debug, Clone)]
pub struct TlsOptions {
    /// Trust Mozilla's roots compiled in (webpki-roots; default true).
    pub webpki_roots: bool,
    /// Trust the platform's roots (rustls-native-certs: the system store,
    /// `SSL_CERT_FILE`/`SSL_CERT_DIR`; default false).
    pub native_roots: bool,
    /// PEM files of further CA certificates to trust.
    pub ca_files: Vec<PathBuf>,
    /// PEM text of further CA certificates to trust.
    pub ca_pems: Vec<Vec<u8>>,
    /// A client certificate for mutual TLS.
    pub identity: Option<ClientCertificate>,
}

impl Default for TlsOptions {
    fn default() -> Self {
        Self {
            webpki_roots: true,
            native_roots: false,
            ca_files: Vec::new(),
            ca_pems: Vec::new(),
            identity: None,
        }
    }
}

/// A client certificate chain and its private key, PEM files.
#[derive(Debug, Clone)]
pub struct ClientCertificate {
    /// The certificate chain, the client's own certificate first.
    pub cert_chain: PathBuf,
    /// The private key (PKCS#8, PKCS#1 or SEC1).
    pub key: PathBuf,
}

/// Which proxy the client goes through.
#[derive(Debug, Clone, Default)]
pub enum ProxyOptions {
    /// As the environment says, the way curl and reqwest read it:
    /// `HTTPS_PROXY`/`https_proxy` for `https://` endpoints,
    /// `HTTP_PROXY`/`http_proxy` for `http://` ones, `ALL_PROXY` for both,
    /// and `NO_PROXY`/`no_proxy` for the hosts reached directly. The default.
    #[default]
    FromEnv,
    /// No proxy, whatever the environment says.
    Direct,
    /// This HTTP proxy for every endpoint except the hosts of `no_proxy`.
    Url {
        /// `http://[USER:PASSWORD@]HOST:PORT`.
        url: String,
        /// Hosts reached directly, in `NO_PROXY` syntax.
        no_proxy: String,
    },
}

/// Parses a header given as `NAME: VALUE` (as curl's `-H` takes it).
pub fn parse_header(text: &str) -> Result<(HeaderName, HeaderValue), String> {
    let Some((name, value)) = text.split_once(':') else {
        return Err(format!(
            "{:?} is not a header: expected NAME: VALUE",
            redact(text)
        ));
    };
    let name = name.trim();
    let name = HeaderName::from_bytes(name.as_bytes()).map_err(|_| {
        format!("{name:?} is not a valid header name (letters, digits and -!#$%&'*+.^_`|~ only)")
    })?;
    let mut value = HeaderValue::from_str(value.trim()).map_err(|_| {
        format!(
            "the value of the header {name} holds characters a header cannot (control characters)"
        )
    })?;
    value.set_sensitive(true);
    Ok((name, value))
}

/// The name part of a header for messages (the value may be a secret).
fn redact(text: &str) -> String {
    let mut cut = text.find(char::is_whitespace).unwrap_or(text.len()).min(40);
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    if cut == text.len() {
        text.to_owned()
    } else {
        format!("{}…", &text[..cut])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers_parse_as_curl_takes_them_and_values_stay_secret() {
        let (name, value) = parse_header("Authorization: Bearer abc.def").unwrap();
        assert_eq!(name, AUTHORIZATION);
        assert_eq!(value, "Bearer abc.def");
        assert!(value.is_sensitive());
        let (name, value) = parse_header("X-Api-Key:k1 ").unwrap();
        assert_eq!(
            (name.as_str(), value.to_str().unwrap()),
            ("x-api-key", "k1")
        );
        let err = parse_header("Authorization Bearer secret-value").unwrap_err();
        assert!(
            err.contains("NAME: VALUE") && !err.contains("secret-value"),
            "{err}"
        );
        assert!(parse_header("Bad Name: v")
            .unwrap_err()
            .contains("header name"));
        assert!(parse_header("X: a\nb").is_err());

        let options = HttpOptions::new().bearer_token("t0k3n").unwrap();
        let shown = format!("{options:?}");
        assert!(
            shown.contains("authorization") && !shown.contains("t0k3n"),
            "{shown}"
        );
        assert!(HttpOptions::new().bearer_token("bad\ntoken").is_err());
    }

    #[test]
    fn proxy_settings_compose() {
        let o = HttpOptions::new()
            .proxy("http://p:3128")
            .no_proxy("internal");
        assert!(
            matches!(&o.proxy, ProxyOptions::Url { url, no_proxy } if url == "http://p:3128" && no_proxy == "internal")
        );
        assert!(matches!(
            HttpOptions::new().no_env_proxy().proxy,
            ProxyOptions::Direct
        ));
        assert!(matches!(HttpOptions::new().proxy, ProxyOptions::FromEnv));
        let o = HttpOptions::new().native_roots().add_ca_file("/x.pem");
        assert!(o.tls.native_roots && !o.tls.webpki_roots && o.tls.ca_files.len() == 1);
    }
}
