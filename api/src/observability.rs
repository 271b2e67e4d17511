//! Request ids and log spans: every HTTP request gets an `x-request-id`
//! (the caller's, if it sent one of at most 64 safe characters, else a new
//! one), answered back in the same header and carried by the request's log
//! span, so every line a handler, the request layer or a service logs for
//! it (JSON logs with `LOG_FORMAT=json`) names the request. Swarm messages
//! and background jobs get their own spans (`swarm` with session and rid,
//! `job` with its name).

use axum::extract::Request as AxumRequest;
use axum::http::{HeaderValue, Request};
use axum::middleware::Next;
use axum::response::Response;
use tower_http::request_id::{MakeRequestId, RequestId};

pub const HEADER: &str = "x-request-id";

/// New ids: 16 random hex digits.
#[derive(Clone, Copy, Default)]
pub struct NewRequestId;

impl MakeRequestId for NewRequestId {
    fn make_request_id<B>(&mut self, request: &Request<B>) -> Option<RequestId> {
        // A well-formed id from the caller (a load balancer's) is kept.
        if let Some(given) = request.headers().get(HEADER) {
            let ok = given.len() <= 64
                && given
                    .as_bytes()
                    .iter()
                    .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'));
            if ok && !given.is_empty() {
                return Some(RequestId::new(given.clone()));
            }
        }
        let id = format!("{:016x}", rand::random::<u64>());
        HeaderValue::from_str(&id).ok().map(RequestId::new)
    }
}

/// Sets the request's `x-request-id` (replacing a malformed one), so the
/// span and the answer carry it.
pub async fn set_request_id(mut request: AxumRequest, next: Next) -> Response {
    if let Some(id) = NewRequestId.make_request_id(&request) {
        request
            .headers_mut()
            .insert(HEADER, id.header_value().clone());
        request.extensions_mut().insert(id);
    }
    next.run(request).await
}

/// The span of one HTTP request: method, route or path, request id.
pub fn http_span<B>(request: &Request<B>) -> tracing::Span {
    let id = request
        .extensions()
        .get::<RequestId>()
        .and_then(|id| id.header_value().to_str().ok())
        .unwrap_or("-");
    tracing::info_span!(
        "http",
        method = %request.method(),
        path = %request.uri().path(),
        request_id = %id,
    )
}
