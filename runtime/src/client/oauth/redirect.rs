//! How the authorization code comes back to the client: a
//! [`RedirectReceiver`] names the `redirect_uri` and, given the
//! authorization URL, returns the parameters of the redirect.
//! [`LoopbackRedirect`] shows the URL to a person and waits for the
//! browser on a loopback port (command-line tools);
//! [`HeadlessRedirect`] requests the URL itself and reads the redirect
//! from the answer (authorization servers that answer at once: tests,
//! the conformance suite, machine users).

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};

use super::{fetch, AuthError};

/// A boxed future of a [`RedirectReceiver`].
pub type RedirectFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// The query parameters of the redirect back to the client.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct Callback {
    /// `code`.
    pub code: Option<String>,
    /// `state`, echoed.
    pub state: Option<String>,
    /// `iss` (RFC 9207).
    pub iss: Option<String>,
    /// `error`, when the authorization was refused.
    pub error: Option<String>,
    /// `error_description`.
    pub error_description: Option<String>,
}

impl std::fmt::Debug for Callback {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Callback")
            .field("code", &self.code.as_ref().map(|_| "<redacted>"))
            .field("state", &self.state)
            .field("iss", &self.iss)
            .field("error", &self.error)
            .field("error_description", &self.error_description)
            .finish()
    }
}

impl Callback {
    /// The parameters of a query string.
    pub fn from_query(query: &str) -> Self {
        let mut out = Self::default();
        for (k, v) in url::form_urlencoded::parse(query.as_bytes()) {
            let slot = match k.as_ref() {
                "code" => &mut out.code,
                "state" => &mut out.state,
                "iss" => &mut out.iss,
                "error" => &mut out.error,
                "error_description" => &mut out.error_description,
                _ => continue,
            };
            *slot = Some(v.into_owned());
        }
        out
    }
}

/// Brings the authorization response back to the client.
pub trait RedirectReceiver: Send + Sync {
    /// The `redirect_uri` to register and to send.
    fn redirect_uri(&self) -> String;
    /// Has the user (or the machine) visit `authorization_url` and returns
    /// the redirect's parameters.
    fn receive<'a>(
        &'a self,
        authorization_url: &'a str,
    ) -> RedirectFuture<'a, Result<Callback, AuthError>>;
}

/// Shows the authorization URL and waits for the browser's redirect on a
/// loopback port (`http://127.0.0.1:PORT/callback`).
pub struct LoopbackRedirect {
    listener: std::net::TcpListener,
    port: u16,
    show: Arc<dyn Fn(&str) + Send + Sync>,
    wait: Duration,
}

impl std::fmt::Debug for LoopbackRedirect {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LoopbackRedirect")
            .field("port", &self.port)
            .field("wait", &self.wait)
            .finish()
    }
}

impl LoopbackRedirect {
    /// Listens on `127.0.0.1:port` (0: any free port). The URL is printed
    /// on stderr; see [`LoopbackRedirect::show_with`].
    pub fn bind(port: u16) -> std::io::Result<Self> {
        let listener = std::net::TcpListener::bind(("127.0.0.1", port))?;
        listener.set_nonblocking(true)?;
        let port = listener.local_addr()?.port();
        let show: Arc<dyn Fn(&str) + Send + Sync> = Arc::new(|url: &str| {
            eprintln!("To authorize, open this URL in a browser:\n\n  {url}\n\nWaiting for the redirect...");
        });
        Ok(Self {
            listener,
            port,
            show,
            wait: Duration::from_secs(300),
        })
    }

    /// Shows the authorization URL with `show` instead of printing it.
    pub fn show_with(mut self, show: impl Fn(&str) + Send + Sync + 'static) -> Self {
        self.show = Arc::new(show);
        self
    }

    /// How long to wait for the browser (default 5 minutes).
    pub fn wait(mut self, wait: Duration) -> Self {
        self.wait = wait;
        self
    }

    async fn serve(&self) -> Result<Callback, AuthError> {
        let io = |e: std::io::Error| {
            AuthError::new(format!("the loopback redirect listener failed: {e}"))
        };
        let listener = tokio::net::TcpListener::from_std(self.listener.try_clone().map_err(io)?)
            .map_err(io)?;
        loop {
            let (mut stream, _) = listener.accept().await.map_err(io)?;
            let mut head = Vec::new();
            let mut buf = [0u8; 1024];
            while !head.windows(4).any(|w| w == b"\r\n\r\n") && head.len() < 16 << 10 {
                match tokio::time::timeout(Duration::from_secs(5), stream.read(&mut buf)).await {
                    Ok(Ok(n)) if n > 0 => head.extend_from_slice(&buf[..n]),
                    _ => break,
                }
            }
            let text = String::from_utf8_lossy(&head);
            let target = text
                .lines()
                .next()
                .and_then(|l| l.split(' ').nth(1))
                .unwrap_or("");
            let (path, query) = target.split_once('?').unwrap_or((target, ""));
            if path != "/callback" {
                let _ = stream
                    .write_all(
                        b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
                    )
                    .await;
                continue;
            }
            let callback = Callback::from_query(query);
            let page = if callback.error.is_some() {
                "Authorization was refused. You can close this window."
            } else {
                "Authorization complete. You can close this window and return to the terminal."
            };
            let answer = format!(
                "HTTP/1.1 200 OK\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{page}",
                page.len()
            );
            let _ = stream.write_all(answer.as_bytes()).await;
            return Ok(callback);
        }
    }
}

impl RedirectReceiver for LoopbackRedirect {
    fn redirect_uri(&self) -> String {
        format!("http://127.0.0.1:{}/callback", self.port)
    }

    fn receive<'a>(
        &'a self,
        authorization_url: &'a str,
    ) -> RedirectFuture<'a, Result<Callback, AuthError>> {
        Box::pin(async move {
            (self.show)(authorization_url);
            match tokio::time::timeout(self.wait, self.serve()).await {
                Ok(result) => result,
                Err(_) => Err(AuthError::new(format!(
                    "no authorization came back to {} within {:?}",
                    self.redirect_uri(),
                    self.wait
                ))),
            }
        })
    }
}

/// Requests the authorization URL itself and takes the redirect's
/// parameters from its `Location` header: for authorization servers that
/// answer at once, without a person (tests, the conformance suite).
#[derive(Debug, Clone)]
pub struct HeadlessRedirect {
    redirect_uri: String,
}

impl HeadlessRedirect {
    /// A receiver announcing `redirect_uri` (nothing listens there).
    pub fn new(redirect_uri: impl Into<String>) -> Self {
        Self {
            redirect_uri: redirect_uri.into(),
        }
    }
}

impl RedirectReceiver for HeadlessRedirect {
    fn redirect_uri(&self) -> String {
        self.redirect_uri.clone()
    }

    fn receive<'a>(
        &'a self,
        authorization_url: &'a str,
    ) -> RedirectFuture<'a, Result<Callback, AuthError>> {
        Box::pin(async move {
            let got = fetch::get(
                &crate::transport::http::HttpOptions::default(),
                authorization_url,
                "authorization endpoint",
            )
            .await?;
            let location = got
                .headers
                .get(http::header::LOCATION)
                .and_then(|v| v.to_str().ok());
            let Some(location) = location.filter(|_| (300..400).contains(&got.status)) else {
                return Err(AuthError::new(format!(
                    "the authorization endpoint answered HTTP {} without a redirect; headless authorization needs \
                     a server that redirects at once",
                    got.status
                )));
            };
            let (base, query) = location.split_once('?').unwrap_or((location, ""));
            if base != self.redirect_uri {
                return Err(AuthError::new(format!(
                    "the authorization endpoint redirected to {base}, not to the redirect URI {}",
                    self.redirect_uri
                )));
            }
            Ok(Callback::from_query(query.split('#').next().unwrap_or("")))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn callback_parameters_are_decoded() {
        let c = Callback::from_query("code=a%2Fb&state=s1&iss=http%3A%2F%2Flocalhost%3A1&other=x");
        assert_eq!(c.code.as_deref(), Some("a/b"));
        assert_eq!(c.state.as_deref(), Some("s1"));
        assert_eq!(c.iss.as_deref(), Some("http://localhost:1"));
        assert!(!format!("{c:?}").contains("a/b"));
    }

    #[tokio::test]
    async fn the_loopback_receiver_returns_the_browser_redirect() {
        let receiver = LoopbackRedirect::bind(0).unwrap().show_with(|_| {});
        let uri = receiver.redirect_uri();
        let port: u16 = uri
            .trim_start_matches("http://127.0.0.1:")
            .trim_end_matches("/callback")
            .parse()
            .unwrap();
        let browser = tokio::spawn(async move {
            for path in ["/favicon.ico", "/callback?code=c0de&state=st"] {
                let mut s = tokio::net::TcpStream::connect(("127.0.0.1", port))
                    .await
                    .unwrap();
                s.write_all(format!("GET {path} HTTP/1.1\r\nHost: x\r\n\r\n").as_bytes())
                    .await
                    .unwrap();
                let mut out = String::new();
                s.read_to_string(&mut out).await.unwrap();
            }
        });
        let c = receiver.receive("http://as/authorize").await.unwrap();
        browser.await.unwrap();
        assert_eq!(
            (c.code.as_deref(), c.state.as_deref()),
            (Some("c0de"), Some("st"))
        );
    }
}
