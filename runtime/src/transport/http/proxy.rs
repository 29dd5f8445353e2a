//! Proxies of the HTTP client: which proxy, if any, an endpoint is reached
//! through ([`ProxyOptions`]; the environment is read by hyper-util's
//! matcher, the way curl and reqwest read it), and the `CONNECT` tunnel an
//! `https://` endpoint takes through it. (An `http://` endpoint is
//! forwarded instead: the request goes to the proxy in absolute form.)

use http::header::HeaderValue;
use http::Uri;
use hyper_util::client::proxy::matcher::Matcher;
#[cfg(feature = "tls")]
use tokio::io::{AsyncReadExt, AsyncWriteExt};
#[cfg(feature = "tls")]
use tokio::net::TcpStream;

use super::options::ProxyOptions;
use crate::transport::{ConnectError, ConnectErrorKind};

/// The longest proxy answer head to `CONNECT` read.
#[cfg(feature = "tls")]
const MAX_HEAD: usize = 16 << 10;

/// The proxy an endpoint is reached through.
#[derive(Clone)]
pub(crate) struct Proxy {
    /// Host to connect to (without IPv6 brackets).
    pub(crate) host: String,
    pub(crate) port: u16,
    /// `Proxy-Authorization` from the proxy URL's credentials.
    pub(crate) auth: Option<HeaderValue>,
    /// The proxy's URL without credentials, for messages.
    pub(crate) shown: String,
}

impl Proxy {
    /// The proxy for the endpoint `scheme://authority` under `options`;
    /// `None` to connect directly.
    pub(crate) fn choose(
        options: &ProxyOptions,
        scheme: &str,
        authority: &str,
        url: &str,
    ) -> Result<Option<Self>, ConnectError> {
        let config = |message: String| {
            ConnectError::new(ConnectErrorKind::Config, url, message)
                .with_hint("give the proxy as http://[USER:PASSWORD@]HOST:PORT")
        };
        let matcher = match options {
            ProxyOptions::Direct => return Ok(None),
            ProxyOptions::FromEnv => Matcher::from_env(),
            ProxyOptions::Url {
                url: proxy,
                no_proxy,
            } => {
                // The matcher ignores a URL it cannot use; an explicit one is checked.
                let uri: Uri = proxy
                    .parse()
                    .map_err(|e| config(format!("the proxy URL {proxy:?}: {e}")))?;
                if uri.authority().is_none() {
                    return Err(config(format!("the proxy URL {proxy:?} names no host")));
                }
                Matcher::builder()
                    .all(proxy.clone())
                    .no(no_proxy.clone())
                    .build()
            }
        };
        let dst: Uri = format!("{scheme}://{authority}/")
            .parse()
            .map_err(|e| config(format!("the endpoint {url:?} as a URI: {e}")))?;
        let Some(intercept) = matcher.intercept(&dst) else {
            return Ok(None);
        };
        let proxy = intercept.uri();
        let shown = format!(
            "{}://{}",
            proxy.scheme_str().unwrap_or("http"),
            proxy.authority().map_or("", |a| a.as_str())
        );
        if proxy.scheme_str() != Some("http") {
            return Err(config(format!(
                "the proxy {shown} is not an http:// proxy; only HTTP proxies (CONNECT) are supported"
            )));
        }
        let host = proxy
            .host()
            .unwrap_or("")
            .trim_start_matches('[')
            .trim_end_matches(']')
            .to_owned();
        Ok(Some(Self {
            host,
            port: proxy.port_u16().unwrap_or(80),
            auth: intercept.basic_auth().cloned(),
            shown,
        }))
    }

    /// Asks the proxy, over `stream`, for a tunnel to `authority`
    /// (`HOST:PORT`); `Ok` once it answers 2xx.
    #[cfg(feature = "tls")]
    pub(crate) async fn tunnel(
        &self,
        stream: &mut TcpStream,
        authority: &str,
        url: &str,
    ) -> Result<(), ConnectError> {
        let error =
            |kind, message: String| ConnectError::new(kind, url, message).with_proxy(&self.shown);
        let mut head = format!("CONNECT {authority} HTTP/1.1\r\nHost: {authority}\r\n");
        if let Some(auth) = self.auth.as_ref().and_then(|a| a.to_str().ok()) {
            head.push_str("Proxy-Authorization: ");
            head.push_str(auth);
            head.push_str("\r\n");
        }
        head.push_str("\r\n");
        let broken = |e: std::io::Error| {
            error(
                ConnectErrorKind::Reset,
                format!("the proxy broke the connection while asked for a tunnel: {e}"),
            )
            .with_source(e)
        };
        stream.write_all(head.as_bytes()).await.map_err(broken)?;
        // Byte by byte up to the blank line: nothing of the tunnel is read.
        let mut answer = Vec::with_capacity(256);
        while !answer.ends_with(b"\r\n\r\n") {
            if answer.len() >= MAX_HEAD {
                return Err(error(
                    ConnectErrorKind::ProxyRefused,
                    "the proxy's answer to CONNECT has no end".into(),
                ));
            }
            match stream.read_u8().await {
                Ok(byte) => answer.push(byte),
                Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => {
                    return Err(error(
                        ConnectErrorKind::Reset,
                        "the proxy closed the connection without answering CONNECT".into(),
                    ))
                }
                Err(e) => return Err(broken(e)),
            }
        }
        let text = String::from_utf8_lossy(&answer);
        let status_line = text.lines().next().unwrap_or("");
        let status = status_line
            .strip_prefix("HTTP/1.")
            .and_then(|rest| rest.get(2..5))
            .and_then(|code| code.parse::<u16>().ok());
        match status {
            Some(200..=299) => Ok(()),
            Some(407) => Err(error(
                ConnectErrorKind::ProxyAuthRequired,
                format!("the proxy wants credentials ({})", status_line.trim()),
            )
            .with_status(407)
            .with_hint("give them in the proxy URL: http://USER:PASSWORD@HOST:PORT")),
            Some(code) => Err(error(
                ConnectErrorKind::ProxyRefused,
                format!("the proxy refused a tunnel to {authority} ({})", status_line.trim()),
            )
            .with_status(code)
            .with_hint("the proxy's rules do not allow this destination; reach it directly with NO_PROXY (or HttpOptions::no_proxy)")),
            None => Err(error(
                ConnectErrorKind::ProxyRefused,
                format!("the proxy's answer to CONNECT is not HTTP: {:?}", status_line.chars().take(80).collect::<String>()),
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn via(options: &ProxyOptions, scheme: &str, authority: &str) -> Option<(String, u16, bool)> {
        let url = format!("{scheme}://{authority}/mcp");
        Proxy::choose(options, scheme, authority, &url)
            .unwrap()
            .map(|p| (p.host, p.port, p.auth.is_some()))
    }

    #[test]
    fn an_explicit_proxy_applies_except_to_no_proxy_hosts() {
        let options = ProxyOptions::Url {
            url: "http://u:p@proxy.test:3128".into(),
            no_proxy: "internal, 10.0.0.0/8".into(),
        };
        assert_eq!(
            via(&options, "https", "mcp.example.com"),
            Some(("proxy.test".into(), 3128, true))
        );
        assert_eq!(
            via(&options, "http", "mcp.example.com:8080"),
            Some(("proxy.test".into(), 3128, true))
        );
        assert_eq!(via(&options, "https", "api.internal"), None);
        assert_eq!(via(&options, "https", "10.1.2.3:8443"), None);
        assert_eq!(via(&ProxyOptions::Direct, "https", "mcp.example.com"), None);
        let v6 = ProxyOptions::Url {
            url: "http://[::1]:8888".into(),
            no_proxy: String::new(),
        };
        assert_eq!(
            via(&v6, "https", "mcp.example.com"),
            Some(("::1".into(), 8888, false))
        );
    }

    #[test]
    fn unusable_proxies_are_configuration_errors() {
        for bad in [
            "socks5://proxy:1080",
            "https://proxy:443",
            "http://",
            "not a url",
        ] {
            let options = ProxyOptions::Url {
                url: bad.into(),
                no_proxy: String::new(),
            };
            let err = Proxy::choose(&options, "https", "h", "https://h/")
                .err()
                .unwrap_or_else(|| panic!("{bad}"));
            assert_eq!(err.kind(), ConnectErrorKind::Config, "{bad}: {err}");
        }
    }
}
