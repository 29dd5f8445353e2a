//! TLS for the HTTP client (feature `tls`): a rustls client configuration
//! (the `ring` provider) built once from [`TlsOptions`], the handshake over
//! a connected stream, and handshake failures turned into
//! [`ConnectError`]s a person can act on (which host name, which roots were
//! trusted, what to pass).

use std::io;
use std::path::Path;
use std::sync::Arc;

use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer, ServerName};
use rustls::{CertificateError, ClientConfig, RootCertStore};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio_rustls::client::TlsStream;
use tokio_rustls::TlsConnector;

use super::options::TlsOptions;
use crate::transport::{ConnectError, ConnectErrorKind};

/// The hint of a certificate not trusted.
const TRUST_HINT: &str = "if the server's certificate comes from a private CA, trust that CA: `--cacert FILE` \
     (mcpgen introspect) or `HttpOptions::add_ca_file`; `HttpOptions::native_roots` trusts the system's store";

/// A rustls client configuration and what it trusts (for messages).
#[derive(Clone)]
pub(crate) struct Tls {
    connector: TlsConnector,
    /// The roots trusted, in words: "Mozilla's roots (webpki-roots), ca.pem".
    trusted: String,
}

impl Tls {
    /// Reads the roots, CA files and client identity of `options`.
    pub(crate) fn new(options: &TlsOptions, url: &str) -> Result<Self, ConnectError> {
        let config_error = |message: String| {
            ConnectError::new(ConnectErrorKind::Config, url, message)
                .with_hint("check the TLS settings (--cacert, HttpOptions::add_ca_file, HttpOptions::client_identity)")
        };
        let mut roots = RootCertStore::empty();
        let mut trusted = Vec::new();
        if options.webpki_roots {
            roots.extend(webpki_roots::TLS_SERVER_ROOTS.iter().cloned());
            trusted.push("Mozilla's roots (webpki-roots)".to_owned());
        }
        if options.native_roots {
            let found = rustls_native_certs::load_native_certs();
            if found.certs.is_empty() {
                let why = found
                    .errors
                    .iter()
                    .map(ToString::to_string)
                    .collect::<Vec<_>>()
                    .join("; ");
                return Err(config_error(format!(
                    "the platform's root certificates cannot be read: {why}"
                )));
            }
            let (added, _) = roots.add_parsable_certificates(found.certs);
            trusted.push(format!("the platform's roots ({added})"));
        }
        for path in &options.ca_files {
            let certs = read_certs(path)
                .map_err(|why| config_error(format!("the CA file {}: {why}", path.display())))?;
            add_all(&mut roots, certs)
                .map_err(|why| config_error(format!("the CA file {}: {why}", path.display())))?;
            trusted.push(path.display().to_string());
        }
        for (i, pem) in options.ca_pems.iter().enumerate() {
            let certs: Vec<_> = CertificateDer::pem_slice_iter(pem)
                .collect::<Result<_, _>>()
                .map_err(|e| config_error(format!("CA PEM text {}: {e}", i + 1)))?;
            if certs.is_empty() {
                return Err(config_error(format!(
                    "CA PEM text {} holds no certificate",
                    i + 1
                )));
            }
            add_all(&mut roots, certs)
                .map_err(|why| config_error(format!("CA PEM text {}: {why}", i + 1)))?;
            trusted.push(format!("CA PEM text {}", i + 1));
        }
        if trusted.is_empty() {
            return Err(config_error(
                "no root certificate is trusted (webpki and native roots off, no CA file)".into(),
            ));
        }
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let builder = ClientConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .map_err(|e| config_error(format!("TLS protocol versions: {e}")))?
            .with_root_certificates(roots);
        let mut config = match &options.identity {
            None => builder.with_no_client_auth(),
            Some(identity) => {
                let chain = read_certs(&identity.cert_chain).map_err(|why| {
                    config_error(format!(
                        "the client certificate {}: {why}",
                        identity.cert_chain.display()
                    ))
                })?;
                let key = PrivateKeyDer::from_pem_file(&identity.key).map_err(|e| {
                    config_error(format!(
                        "the client key {}: {}",
                        identity.key.display(),
                        pem_problem(&e)
                    ))
                })?;
                builder.with_client_auth_cert(chain, key).map_err(|e| {
                    config_error(format!(
                        "the client certificate {} and key {} cannot be used together: {e}",
                        identity.cert_chain.display(),
                        identity.key.display()
                    ))
                })?
            }
        };
        config.alpn_protocols = vec![b"http/1.1".to_vec()];
        Ok(Self {
            connector: TlsConnector::from(Arc::new(config)),
            trusted: trusted.join(", "),
        })
    }

    /// The TLS handshake with `host` over `stream`.
    pub(crate) async fn handshake<S>(
        &self,
        host: &str,
        stream: S,
        url: &str,
    ) -> Result<TlsStream<S>, ConnectError>
    where
        S: AsyncRead + AsyncWrite + Unpin,
    {
        let name = ServerName::try_from(host.to_owned()).map_err(|_| {
            ConnectError::new(
                ConnectErrorKind::Config,
                url,
                format!("{host:?} is not a host name TLS can check"),
            )
        })?;
        self.connector
            .connect(name, stream)
            .await
            .map_err(|e| self.explain(e, host, url))
    }

    /// A handshake failure as a [`ConnectError`].
    fn explain(&self, e: io::Error, host: &str, url: &str) -> ConnectError {
        let error = |kind, message: String| ConnectError::new(kind, url, message).with_host(host);
        let Some(tls) = e
            .get_ref()
            .and_then(|inner| inner.downcast_ref::<rustls::Error>())
            .cloned()
        else {
            return match e.kind() {
                io::ErrorKind::UnexpectedEof | io::ErrorKind::ConnectionReset | io::ErrorKind::BrokenPipe => error(
                    ConnectErrorKind::Reset,
                    format!("the connection to {host} closed during the TLS handshake ({e})"),
                )
                .with_hint("is it an https:// endpoint? A plain-HTTP server or a proxy may close TLS connections"),
                _ => error(ConnectErrorKind::Tls, format!("the TLS handshake with {host} failed: {e}")),
            }
            .with_source(e);
        };
        let made = match &tls {
            rustls::Error::InvalidCertificate(why) => match why {
                CertificateError::UnknownIssuer => error(
                    ConnectErrorKind::CertificateNotTrusted,
                    format!(
                        "the certificate of {host} is not trusted: it was not issued by a trusted certificate authority (trusted: {})",
                        self.trusted
                    ),
                )
                .with_hint(TRUST_HINT),
                CertificateError::NotValidForName => error(
                    ConnectErrorKind::CertificateNameMismatch,
                    format!("the certificate presented is not valid for the name {host}"),
                ),
                CertificateError::NotValidForNameContext { presented, .. } => error(
                    ConnectErrorKind::CertificateNameMismatch,
                    format!(
                        "the certificate presented is not valid for the name {host}: it names {}",
                        if presented.is_empty() {
                            "no host".to_owned()
                        } else {
                            presented.iter().map(|name| plain_name(name)).collect::<Vec<_>>().join(", ")
                        }
                    ),
                )
                .with_hint("connect with a name the certificate lists, or have the server's certificate name this one"),
                CertificateError::Expired
                | CertificateError::ExpiredContext { .. }
                | CertificateError::NotValidYet
                | CertificateError::NotValidYetContext { .. } => error(
                    ConnectErrorKind::CertificateExpired,
                    format!("the certificate of {host} is outside its validity period: {tls}"),
                )
                .with_hint("renew the server's certificate (or check this machine's clock)"),
                _ => error(ConnectErrorKind::CertificateInvalid, format!("the certificate of {host} is unusable: {tls}")),
            },
            rustls::Error::AlertReceived(alert) => error(
                ConnectErrorKind::Tls,
                format!("{host} ended the TLS handshake with the alert {alert:?}"),
            )
            .with_hint(
                "the server may require a client certificate (HttpOptions::client_identity) \
                 or a TLS version or cipher this client does not offer",
            ),
            rustls::Error::InvalidMessage(_) | rustls::Error::InappropriateMessage { .. } => error(
                ConnectErrorKind::Tls,
                format!("{host} did not answer the TLS handshake as a TLS server: {tls}"),
            )
            .with_hint("is it an https:// endpoint? For a plain-HTTP server use http://"),
            _ => error(ConnectErrorKind::Tls, format!("the TLS handshake with {host} failed: {tls}")),
        };
        made.with_source(tls)
    }
}

/// A name a certificate presents, as rustls shows it (`DnsName("a.example")`),
/// without the wrapping.
fn plain_name(shown: &str) -> &str {
    shown
        .strip_prefix("DnsName(\"")
        .and_then(|rest| rest.strip_suffix("\")"))
        .unwrap_or(shown)
}

/// Every certificate of a PEM file; an error when it holds none.
fn read_certs(path: &Path) -> Result<Vec<CertificateDer<'static>>, String> {
    let certs: Vec<_> = CertificateDer::pem_file_iter(path)
        .map_err(|e| pem_problem(&e))?
        .collect::<Result<_, _>>()
        .map_err(|e| pem_problem(&e))?;
    if certs.is_empty() {
        return Err("it holds no PEM certificate (-----BEGIN CERTIFICATE-----)".into());
    }
    Ok(certs)
}

fn pem_problem(e: &rustls::pki_types::pem::Error) -> String {
    use rustls::pki_types::pem::Error as E;
    match e {
        E::Io(io) => format!("cannot be read: {io}"),
        E::NoItemsFound => "it holds no PEM item of the expected kind".into(),
        other => format!("it is not valid PEM: {other:?}"),
    }
}

fn add_all(roots: &mut RootCertStore, certs: Vec<CertificateDer<'static>>) -> Result<(), String> {
    for (i, cert) in certs.into_iter().enumerate() {
        roots.add(cert).map_err(|e| {
            format!(
                "certificate {} cannot be used as a trust anchor: {e}",
                i + 1
            )
        })?;
    }
    Ok(())
}
