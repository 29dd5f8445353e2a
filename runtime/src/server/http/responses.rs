//! The endpoint's HTTP responses: JSON and SSE bodies, bare statuses,
//! and the refusals of the transport's rules (Host and Origin, methods,
//! unknown sessions, authentication, overload).

use http::header::{
    HeaderValue, ALLOW, CACHE_CONTROL, CONTENT_TYPE, RETRY_AFTER, WWW_AUTHENTICATE,
};
use http::{Response, StatusCode};
use serde_json::Value;

use crate::jsonrpc::{self, RpcError};

use super::body::HttpBody;
use super::guard::Refusal;
use super::AuthRejection;
use crate::transport::http::DPOP_NONCE;

/// A JSON body with a status.
pub(super) fn json(status: StatusCode, text: String) -> Response<HttpBody> {
    let mut response = Response::new(HttpBody::full(text));
    *response.status_mut() = status;
    response
        .headers_mut()
        .insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    response
}

/// A JSON-RPC error without a request id, with a status.
pub(super) fn error(status: StatusCode, error: &RpcError) -> Response<HttpBody> {
    json(status, jsonrpc::error_response(&Value::Null, error))
}

pub(super) fn status_only(status: StatusCode) -> Response<HttpBody> {
    let mut response = Response::new(HttpBody::empty());
    *response.status_mut() = status;
    response
}

pub(super) fn refusal(r: Refusal) -> Response<HttpBody> {
    let (status, message) = match r {
        Refusal::Forbidden(m) => (StatusCode::FORBIDDEN, m),
        Refusal::NotAcceptable(m) => (StatusCode::NOT_ACCEPTABLE, m),
        Refusal::UnsupportedMediaType(m) => (StatusCode::UNSUPPORTED_MEDIA_TYPE, m),
    };
    error(status, &RpcError::invalid_request(message))
}

pub(super) fn method_not_allowed(allow: &'static str, why: &str) -> Response<HttpBody> {
    let mut response = error(
        StatusCode::METHOD_NOT_ALLOWED,
        &RpcError::invalid_request(why),
    );
    response
        .headers_mut()
        .insert(ALLOW, HeaderValue::from_static(allow));
    response
}

pub(super) fn session_not_found() -> Response<HttpBody> {
    error(
        StatusCode::NOT_FOUND,
        &RpcError::invalid_request(
            "Session not found: it expired or was ended; send initialize without a session id",
        ),
    )
}

pub(super) fn auth_refused(r: AuthRejection) -> Response<HttpBody> {
    let mut response = error(
        r.status,
        &RpcError::invalid_request(format!("authentication failed: {}", r.message)),
    );
    if r.status == StatusCode::SERVICE_UNAVAILABLE {
        response
            .headers_mut()
            .insert(RETRY_AFTER, HeaderValue::from_static("5"));
    }
    if let Some(challenge) = r
        .www_authenticate
        .and_then(|c| HeaderValue::from_str(&c).ok())
    {
        response.headers_mut().insert(WWW_AUTHENTICATE, challenge);
    }
    if let Some(nonce) = r.dpop_nonce.and_then(|n| HeaderValue::from_str(&n).ok()) {
        response.headers_mut().insert(DPOP_NONCE, nonce);
    }
    response
}

pub(super) fn sse_response(body: HttpBody) -> Response<HttpBody> {
    let mut response = Response::new(body);
    let h = response.headers_mut();
    h.insert(CONTENT_TYPE, HeaderValue::from_static("text/event-stream"));
    h.insert(CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    h.insert("x-accel-buffering", HeaderValue::from_static("no"));
    response
}

/// 503 with `Retry-After` (seconds) and a JSON-RPC error saying why.
pub(super) fn unavailable(why: &str, retry_after: &'static str) -> Response<HttpBody> {
    let mut response = error(StatusCode::SERVICE_UNAVAILABLE, &RpcError::internal(why));
    response
        .headers_mut()
        .insert(RETRY_AFTER, HeaderValue::from_static(retry_after));
    response
}
