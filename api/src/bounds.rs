//! Bounds every HTTP request meets (DESIGN.md "Scale-out and hardening"):
//! a body size limit on every route, a request timeout, and a catch-panic
//! layer that turns a handler's panic into a logged, counted 500 with a
//! generic message instead of a dropped connection. The refusals come as
//! the main API's JSON envelope (`{status, msg, data}`) with an HTTP
//! status that says what happened: 413, 408, 500 and 405.

use std::any::Any;
use std::time::Duration;

use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::{Json, Router};
use prometheus_client::metrics::counter::Counter;
use tower_http::catch_panic::CatchPanicLayer;
use tower_http::limit::RequestBodyLimitLayer;
use tower_http::timeout::TimeoutLayer;

use crate::error::Envelope;

/// Platform-defined statuses of these refusals (the HTTP status says it too).
pub const BODY_TOO_LARGE: i32 = -413;
pub const TIMED_OUT: i32 = -408;
pub const METHOD_NOT_ALLOWED: i32 = -405;

#[derive(Debug, Clone, Copy)]
pub struct HttpBounds {
    pub max_body_bytes: usize,
    pub request_timeout: Duration,
}

fn envelope(http: StatusCode, status: i32, msg: &str) -> Response {
    (
        http,
        Json(Envelope {
            status,
            msg: msg.to_string(),
            data: serde_json::Value::Null,
        }),
    )
        .into_response()
}

/// The text a panic carried, for the log.
pub fn panic_text(detail: &(dyn Any + Send)) -> &str {
    detail
        .downcast_ref::<String>()
        .map(String::as_str)
        .or_else(|| detail.downcast_ref::<&str>().copied())
        .unwrap_or("(not a string)")
}

/// The answer to a request whose handler panicked.
fn panicked(panics: &Counter, detail: Box<dyn Any + Send + 'static>) -> Response {
    let detail = panic_text(detail.as_ref());
    panics.inc();
    tracing::error!(panic = detail, "a request handler panicked");
    envelope(
        StatusCode::INTERNAL_SERVER_ERROR,
        domain::Code::INTERNAL.0,
        &domain::Code::INTERNAL.message(),
    )
}

/// The layers' own refusals (plain text or empty) as JSON envelopes, and
/// axum's extractor rejections (a path segment, query string or JSON body
/// of the wrong shape, a missing `Content-Type: application/json`: plain
/// text 400, 415 or 422) as HTTP 400 with -70009 and what is wrong, like
/// every other bad parameter (found by the schemathesis step,
/// docs/openapi.md). The server's front middleware
/// (`crate::observability::observe`) passes every answer through it.
pub(crate) async fn enveloped(response: Response) -> Response {
    let json = response
        .headers()
        .get(header::CONTENT_TYPE)
        .is_some_and(|v| v.as_bytes().starts_with(b"application/json"));
    if json {
        return response;
    }
    let text = response
        .headers()
        .get(header::CONTENT_TYPE)
        .is_some_and(|v| v.as_bytes().starts_with(b"text/plain"));
    if text
        && matches!(
            response.status(),
            StatusCode::BAD_REQUEST
                | StatusCode::UNSUPPORTED_MEDIA_TYPE
                | StatusCode::UNPROCESSABLE_ENTITY
        )
    {
        let detail = axum::body::to_bytes(response.into_body(), 4096)
            .await
            .map(|b| {
                String::from_utf8_lossy(&b)
                    .chars()
                    .take(300)
                    .collect::<String>()
            })
            .unwrap_or_default();
        return envelope(
            StatusCode::BAD_REQUEST,
            domain::Code::BAD_PARAMETERS.0,
            &format!("Invalid request parameters: {detail}"),
        );
    }
    match response.status() {
        StatusCode::PAYLOAD_TOO_LARGE => envelope(
            StatusCode::PAYLOAD_TOO_LARGE,
            BODY_TOO_LARGE,
            "Request body too large",
        ),
        StatusCode::REQUEST_TIMEOUT => envelope(
            StatusCode::REQUEST_TIMEOUT,
            TIMED_OUT,
            "The request took too long, please try again later.",
        ),
        _ => response,
    }
}

/// Wraps `router` with the body limit, the timeout and the panic catcher
/// (`panics` counts caught panics); the front middleware outside them
/// envelopes their refusals ([`enveloped`]).
pub fn apply_limits(router: Router, bounds: HttpBounds, panics: Counter) -> Router {
    router
        .layer(RequestBodyLimitLayer::new(bounds.max_body_bytes))
        .layer(TimeoutLayer::with_status_code(
            StatusCode::REQUEST_TIMEOUT,
            bounds.request_timeout,
        ))
        .layer(CatchPanicLayer::custom(move |detail| {
            panicked(&panics, detail)
        }))
}

/// A method the path does not serve: HTTP 405 with the `Allow` header
/// axum sets, and the envelope.
pub async fn method_not_allowed() -> Response {
    envelope(
        StatusCode::METHOD_NOT_ALLOWED,
        METHOD_NOT_ALLOWED,
        "Method not allowed",
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::body::Body;
    use axum::extract::Request;
    use axum::middleware::Next;
    use axum::routing::{get, post};
    use tower::ServiceExt;

    async fn boom() -> &'static str {
        let limit: i32 = std::hint::black_box(1);
        if limit > 0 {
            panic!("rust_decimal: Multiplication overflowed");
        }
        "unreachable"
    }

    fn app(panics: Counter) -> Router {
        let router = Router::new()
            .route("/boom", get(boom))
            .route(
                "/slow",
                get(|| async {
                    tokio::time::sleep(Duration::from_secs(5)).await;
                    "late"
                }),
            )
            .route(
                "/echo",
                post(|body: axum::body::Bytes| async move { body.len().to_string() }),
            )
            .method_not_allowed_fallback(method_not_allowed);
        // The limits, and the front middleware's envelope outside them.
        apply_limits(
            router,
            HttpBounds {
                max_body_bytes: 1024,
                request_timeout: Duration::from_millis(200),
            },
            panics,
        )
        .layer(axum::middleware::from_fn(
            |request: Request, next: Next| async move { enveloped(next.run(request).await).await },
        ))
    }

    async fn call(app: Router, request: Request) -> (StatusCode, serde_json::Value) {
        let response = app.oneshot(request).await.unwrap();
        let status = response.status();
        let bytes = axum::body::to_bytes(response.into_body(), 1 << 20)
            .await
            .unwrap();
        (
            status,
            serde_json::from_slice(&bytes).unwrap_or(serde_json::Value::Null),
        )
    }

    #[tokio::test]
    async fn a_panicking_handler_answers_a_generic_500_and_is_counted() {
        let panics = Counter::default();
        let (status, body) = call(
            app(panics.clone()),
            Request::get("/boom").body(Body::empty()).unwrap(),
        )
        .await;
        assert_eq!(status, StatusCode::INTERNAL_SERVER_ERROR);
        assert_eq!(body["status"], -1);
        assert_eq!(
            body["msg"],
            "The server could not complete the request, please try again later."
        );
        assert!(!body.to_string().contains("overflowed"));
        assert_eq!(panics.get(), 1);
    }

    #[tokio::test]
    async fn a_body_over_the_limit_is_refused_with_413() {
        let (status, body) = call(
            app(Counter::default()),
            Request::post("/echo")
                .body(Body::from(vec![b'x'; 4096]))
                .unwrap(),
        )
        .await;
        assert_eq!(status, StatusCode::PAYLOAD_TOO_LARGE);
        assert_eq!(body["status"], BODY_TOO_LARGE);
        // Without a Content-Length (chunked), the limit holds as it streams.
        let stream = futures::stream::iter(
            (0..8).map(|_| Ok::<_, std::io::Error>(axum::body::Bytes::from(vec![b'x'; 512]))),
        );
        let response = app(Counter::default())
            .oneshot(
                Request::post("/echo")
                    .body(Body::from_stream(stream))
                    .unwrap(),
            )
            .await
            .unwrap();
        assert_eq!(response.status(), StatusCode::PAYLOAD_TOO_LARGE);
    }

    #[tokio::test]
    async fn a_request_over_the_time_limit_is_answered_408() {
        let (status, body) = call(
            app(Counter::default()),
            Request::get("/slow").body(Body::empty()).unwrap(),
        )
        .await;
        assert_eq!(status, StatusCode::REQUEST_TIMEOUT);
        assert_eq!(body["status"], TIMED_OUT);
    }

    #[tokio::test]
    async fn put_and_delete_answer_http_405() {
        for method in ["PUT", "DELETE"] {
            let (status, body) = call(
                app(Counter::default()),
                Request::builder()
                    .method(method)
                    .uri("/echo")
                    .body(Body::empty())
                    .unwrap(),
            )
            .await;
            assert_eq!(status, StatusCode::METHOD_NOT_ALLOWED, "{method}");
            assert_eq!(body["status"], METHOD_NOT_ALLOWED);
        }
    }
}
