//! Request ids and log spans: every HTTP request gets an `x-request-id`
//! (the caller's, if it sent one of at most 64 safe characters, else a new
//! one), answered back in the same header and carried by the request's log
//! span, so every line a handler, the request layer or a service logs for
//! it (JSON logs with `LOG_FORMAT=json`) names the request. Swarm messages
//! and background jobs get their own spans (`swarm` with session and rid,
//! `job` with its name).

use std::time::Instant;

use axum::extract::{MatchedPath, Request as AxumRequest, State};
use axum::http::{HeaderValue, Request};
use axum::middleware::Next;
use axum::response::Response;
use tower_http::request_id::{MakeRequestId, RequestId};
use tracing::Instrument;

use crate::client_ip::{ClientIp, TrustedProxies};
use crate::metrics::HttpMetrics;

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

/// What [`observe`] needs: the metrics, the proxies trusted for the
/// client's address.
#[derive(Clone)]
pub struct Front {
    pub metrics: HttpMetrics,
    pub trusted: TrustedProxies,
}

/// One layer for what every request gets around its route (one
/// middleware where six stood: each cost an allocation or two and a boxed
/// future per request):
///
/// - its client address (`crate::client_ip`), worked out once, first;
/// - its `x-request-id` (the caller's if well formed, else a new one), set
///   on the request, carried by its log span, answered back unless the
///   handler set one;
/// - its log span (`http`: method, path, request id), with the request and
///   its answer at DEBUG and a 5xx answer at ERROR ("response failed");
/// - its count and latency in `/metrics` by method, matched route and
///   status (`static` for what no route matched);
/// - a bare refusal of the framework's (a body too large, a timeout, a
///   malformed parameter) answered as the envelope
///   (`crate::bounds::enveloped`).
pub async fn observe(State(front): State<Front>, mut request: AxumRequest, next: Next) -> Response {
    let ip = ClientIp::of(request.extensions(), request.headers(), &front.trusted);
    request.extensions_mut().insert(ip);
    let id = NewRequestId.make_request_id(&request);
    if let Some(id) = &id {
        request
            .headers_mut()
            .insert(HEADER, id.header_value().clone());
        request.extensions_mut().insert(id.clone());
    }
    let span = http_span(&request);
    let route = request
        .extensions()
        .get::<MatchedPath>()
        .map_or("static", |p| p.as_str())
        .to_string();
    let method = request.method().clone();
    let started = Instant::now();
    tracing::debug!(parent: &span, "started processing request");
    let mut response = crate::bounds::enveloped(next.run(request).instrument(span.clone()).await)
        .instrument(span.clone())
        .await;
    let latency = started.elapsed();
    let status = response.status();
    front
        .metrics
        .record(method.as_str(), route, status.as_u16(), latency);
    let latency_ms = latency.as_millis();
    if status.is_server_error() {
        tracing::error!(parent: &span, status = status.as_u16(), latency_ms, "response failed");
    } else {
        tracing::debug!(parent: &span, status = status.as_u16(), latency_ms, "finished processing request");
    }
    if let Some(id) = id {
        if !response.headers().contains_key(HEADER) {
            response
                .headers_mut()
                .insert(HEADER, id.header_value().clone());
        }
    }
    response
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
