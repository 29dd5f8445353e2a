//! Runs an [`HttpService`] on a TCP listener with hyper's HTTP/1.1 server:
//! the MCP endpoint at one path, `GET /healthz` for load balancers and
//! orchestrators, the OAuth protected resource metadata at its well-known
//! paths (when the service has a bearer gate), 404 elsewhere; a header read timeout against slow
//! clients; and a graceful shutdown (Ctrl-C, SIGTERM) that stops accepting, ends SSE streams
//! and lets requests in flight finish (up to a grace period).

use std::convert::Infallible;
use std::future::Future;
use std::io;
use std::time::Duration;

use http::{Request, Response, StatusCode};
use hyper::body::Incoming;
use hyper_util::rt::TokioIo;
use tokio::net::TcpListener;
pub use tokio::net::ToSocketAddrs;

use super::body::HttpBody;
use super::service::HttpService;
use super::timer::CoarseTimer;

/// How long requests in flight may finish once shutdown starts.
const GRACE: Duration = Duration::from_secs(10);

/// Binds `addr` and serves `service` at `endpoint` (e.g. `/mcp`) until
/// Ctrl-C; the address actually bound goes to the log (stderr).
pub async fn bind_and_serve(
    addr: impl ToSocketAddrs,
    service: HttpService,
    endpoint: &str,
) -> io::Result<()> {
    let listener = TcpListener::bind(addr).await?;
    let local = listener.local_addr()?;
    tracing::info!(address = %local, endpoint, "serving MCP over Streamable HTTP");
    eprintln!("MCP endpoint: http://{local}{endpoint}");
    serve(listener, service, endpoint).await
}

/// Serves `service` at `endpoint` (e.g. `/mcp`) on `listener` until the
/// process ends (Ctrl-C or, on Unix, SIGTERM as container orchestrators
/// send it, shuts down gracefully).
pub async fn serve(listener: TcpListener, service: HttpService, endpoint: &str) -> io::Result<()> {
    serve_with_shutdown(listener, service, endpoint, stop_signal()).await
}

/// Completes on Ctrl-C (SIGINT) or SIGTERM.
async fn stop_signal() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        if let Ok(mut term) = signal(SignalKind::terminate()) {
            tokio::select! {
                _ = tokio::signal::ctrl_c() => {}
                _ = term.recv() => {}
            }
            return;
        }
    }
    let _ = tokio::signal::ctrl_c().await;
}

/// Serves `service` at `endpoint` on `listener` until `shutdown` completes,
/// then shuts down gracefully.
pub async fn serve_with_shutdown(
    listener: TcpListener,
    service: HttpService,
    endpoint: &str,
    shutdown: impl Future<Output = ()>,
) -> io::Result<()> {
    let endpoint: std::sync::Arc<str> = endpoint.into();
    let graceful = hyper_util::server::graceful::GracefulShutdown::new();
    let (timer, header_read_timeout) = (CoarseTimer::start(), service.header_read_timeout());
    let mut shutdown = std::pin::pin!(shutdown);
    loop {
        tokio::select! {
            accepted = listener.accept() => {
                let (stream, _) = match accepted {
                    Ok(pair) => pair,
                    Err(e) => {
                        // Out of descriptors and the like: back off, keep serving.
                        tracing::warn!(error = %e, "accept failed");
                        tokio::time::sleep(Duration::from_millis(50)).await;
                        continue;
                    }
                };
                let _ = stream.set_nodelay(true);
                let service = service.clone();
                let endpoint = std::sync::Arc::clone(&endpoint);
                let routed = hyper::service::service_fn(move |request: Request<Incoming>| {
                    let service = service.clone();
                    let endpoint = std::sync::Arc::clone(&endpoint);
                    async move { Ok::<_, Infallible>(route(&service, &endpoint, request).await) }
                });
                let connection = hyper::server::conn::http1::Builder::new()
                    .timer(timer.clone())
                    .header_read_timeout(header_read_timeout)
                    .serve_connection(TokioIo::new(stream), routed);
                let connection = graceful.watch(connection);
                tokio::spawn(async move {
                    if let Err(e) = connection.await {
                        tracing::debug!(error = %e, "connection ended with an error");
                    }
                });
            }
            () = &mut shutdown => break,
        }
    }
    drop(listener);
    service.shutdown();
    if tokio::time::timeout(GRACE, graceful.shutdown())
        .await
        .is_err()
    {
        tracing::warn!("connections still open after the shutdown grace period");
    }
    Ok(())
}

async fn route(
    service: &HttpService,
    endpoint: &str,
    request: Request<Incoming>,
) -> Response<HttpBody> {
    let path = request.uri().path();
    if path == endpoint
        || (path.len() == endpoint.len() + 1 && path.starts_with(endpoint) && path.ends_with('/'))
    {
        return service.handle(request).await;
    }
    if request.method() == http::Method::GET {
        if let Some(response) = service.resource_metadata(path) {
            return response;
        }
    }
    let (status, body) = match path {
        "/healthz" => (StatusCode::OK, r#"{"status":"ok"}"#),
        _ => (
            StatusCode::NOT_FOUND,
            r#"{"error":"not found: the MCP endpoint is elsewhere"}"#,
        ),
    };
    let mut response = Response::new(HttpBody::full(body));
    *response.status_mut() = status;
    response.headers_mut().insert(
        http::header::CONTENT_TYPE,
        http::HeaderValue::from_static("application/json"),
    );
    response
}
