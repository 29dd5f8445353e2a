//! `echo-floor --http ADDR`: the floor of the HTTP benchmark. A bare hyper 1
//! HTTP/1.1 server that reads each request's body to the end and answers
//! with one fixed, small JSON-RPC result, whatever the path, method or body.
//! No JSON parsing, no routing, no MCP: what is left is hyper, tokio and the
//! kernel's loopback, which every server in the comparison also pays.
//!
//! Same process shape as the other servers: a multi-thread tokio runtime
//! with `WORKERS` worker threads (default 2), `TCP_NODELAY` on every
//! accepted connection, one task per connection.
//!
//! `WORK_US=n` spins n µs on the CPU before each answer: the best rate any
//! server that spends n µs per request can reach on this machine, whatever
//! its code (on a VM, a client idle for more than a few µs may have its
//! vCPU halted, and waking it costs more than the server's work).
//!
//! `BLOCKING=1` serves without hyper or tokio: one OS thread per connection,
//! a blocking `read` until the head and `Content-Length` body are in, one
//! `write` of a fixed response. Two system calls per request, no epoll, no
//! other thread to wake: the floor of any HTTP/1.1 server over this
//! machine's loopback, whatever its library.

use std::convert::Infallible;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper::{Request, Response};
use hyper_util::rt::TokioIo;

const REPLY: &[u8] = br#"{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"ok"}]}}"#;

/// `WORK_US`, read once.
fn work() -> Duration {
    static WORK: OnceLock<Duration> = OnceLock::new();
    *WORK.get_or_init(|| Duration::from_micros(std::env::var("WORK_US").ok().and_then(|w| w.parse().ok()).unwrap_or(0)))
}

async fn answer(request: Request<Incoming>) -> Result<Response<Full<Bytes>>, Infallible> {
    // Read (and drop) the whole body, as a real endpoint must before replying.
    let _ = request.into_body().collect().await;
    let started = Instant::now();
    while started.elapsed() < work() {
        std::hint::spin_loop();
    }
    let mut response = Response::new(Full::new(Bytes::from_static(REPLY)));
    response
        .headers_mut()
        .insert(hyper::header::CONTENT_TYPE, hyper::header::HeaderValue::from_static("application/json"));
    Ok(response)
}

async fn serve(addr: String) -> std::io::Result<()> {
    let listener = tokio::net::TcpListener::bind(&addr).await?;
    eprintln!("MCP endpoint: http://{}/mcp", listener.local_addr()?);
    loop {
        let (stream, _) = match listener.accept().await {
            Ok(pair) => pair,
            Err(e) => {
                eprintln!("accept failed: {e}");
                tokio::time::sleep(std::time::Duration::from_millis(50)).await;
                continue;
            }
        };
        let _ = stream.set_nodelay(true);
        tokio::spawn(async move {
            let _ = hyper::server::conn::http1::Builder::new()
                .serve_connection(TokioIo::new(stream), hyper::service::service_fn(answer))
                .await;
        });
    }
}

/// The `Content-Length` of a request head (0 when absent or unreadable).
fn content_length(head: &[u8]) -> usize {
    let head = String::from_utf8_lossy(head);
    head.split("\r\n")
        .filter_map(|line| line.split_once(':'))
        .find(|(name, _)| name.trim().eq_ignore_ascii_case("content-length"))
        .and_then(|(_, value)| value.trim().parse().ok())
        .unwrap_or(0)
}

/// One keep-alive connection, served on its own thread until the peer
/// closes it or sends something that is not a request head within 64 KiB.
fn serve_blocking_connection(mut stream: std::net::TcpStream) {
    use std::io::{Read, Write};
    let response = format!(
        "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n{}",
        REPLY.len(),
        std::str::from_utf8(REPLY).unwrap_or_default()
    );
    let mut buf = vec![0u8; 65536];
    let mut filled = 0;
    loop {
        let head_end = loop {
            if let Some(p) = buf[..filled].windows(4).position(|w| w == b"\r\n\r\n") {
                break p + 4;
            }
            if filled == buf.len() {
                return;
            }
            match stream.read(&mut buf[filled..]) {
                Ok(0) | Err(_) => return,
                Ok(n) => filled += n,
            }
        };
        let Some(end) = head_end.checked_add(content_length(&buf[..head_end])).filter(|&end| end <= buf.len()) else {
            return;
        };
        while filled < end {
            match stream.read(&mut buf[filled..]) {
                Ok(0) | Err(_) => return,
                Ok(n) => filled += n,
            }
        }
        if stream.write_all(response.as_bytes()).is_err() {
            return;
        }
        buf.copy_within(end..filled, 0);
        filled -= end;
    }
}

fn serve_blocking(addr: String) -> std::io::Result<()> {
    let listener = std::net::TcpListener::bind(&addr)?;
    eprintln!("MCP endpoint: http://{}/mcp", listener.local_addr()?);
    for stream in listener.incoming() {
        let Ok(stream) = stream else { continue };
        let _ = stream.set_nodelay(true);
        std::thread::spawn(move || serve_blocking_connection(stream));
    }
    Ok(())
}

fn main() -> std::process::ExitCode {
    let mut args = std::env::args().skip(1);
    let addr = match (args.next().as_deref(), args.next()) {
        (Some("--http"), Some(addr)) => addr,
        _ => {
            eprintln!("usage: echo-floor --http ADDR   (WORKERS=n: tokio worker threads, default 2; WORK_US=n: spin n µs per request; BLOCKING=1: a thread per connection, no tokio)");
            return std::process::ExitCode::from(2);
        }
    };
    let served = if std::env::var("BLOCKING").is_ok_and(|b| b == "1") {
        serve_blocking(addr)
    } else {
        let workers = std::env::var("WORKERS").ok().and_then(|w| w.parse().ok()).unwrap_or(2usize).max(1);
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(workers)
            .enable_all()
            .build()
            .and_then(|rt| rt.block_on(serve(addr)))
    };
    match served {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("echo-floor: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}
