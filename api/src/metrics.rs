//! `/metrics`: HTTP requests and latency per route, plus the command and
//! projection metrics of the other crates, in Prometheus text format.

use std::sync::Arc;
use std::time::Duration;

use axum::extract::State;
use axum::http::header::CONTENT_TYPE;
use axum::response::{IntoResponse, Response};
use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::histogram::Histogram;
use prometheus_client::registry::Registry;

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct RequestLabels {
    pub method: String,
    pub route: String,
    pub status: u16,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct RouteLabels {
    pub method: String,
    pub route: String,
}

#[derive(Clone)]
pub struct HttpMetrics {
    requests: Family<RequestLabels, Counter>,
    latency: Family<RouteLabels, Histogram>,
    /// Handler panics caught (HTTP, and Swarm requests on a socket).
    pub panics: Counter,
}

impl HttpMetrics {
    /// One answered request (`crate::observability::observe`).
    pub fn record(&self, method: &str, route: String, status: u16, latency: Duration) {
        let method = method.to_string();
        self.requests
            .get_or_create(&RequestLabels {
                method: method.clone(),
                route: route.clone(),
                status,
            })
            .inc();
        self.latency
            .get_or_create(&RouteLabels { method, route })
            .observe(latency.as_secs_f64());
    }

    pub fn new(registry: &mut Registry) -> Self {
        let latency = Family::<RouteLabels, Histogram>::new_with_constructor(|| {
            Histogram::new([
                0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5,
            ])
        });
        let requests = Family::default();
        registry.register(
            "http_requests",
            "HTTP requests by method, route and status",
            requests.clone(),
        );
        registry.register(
            "http_request_duration_seconds",
            "HTTP request latency by method and route",
            latency.clone(),
        );
        let panics = Counter::default();
        registry.register(
            "panics",
            "Request handler panics caught and answered with a generic error",
            panics.clone(),
        );
        Self {
            requests,
            latency,
            panics,
        }
    }
}

/// The process's metrics (OpenMetrics text).
#[utoipa::path(get, path = "/metrics", tag = crate::openapi::HEALTH, responses(
    (status = 200, description = "OpenMetrics text", content_type = "application/openmetrics-text", body = String)))]
pub async fn render(State(registry): State<Arc<Registry>>) -> Response {
    let mut text = String::new();
    if let Err(e) = prometheus_client::encoding::text::encode(&mut text, &registry) {
        tracing::error!(error = %e, "metrics encoding failed");
    }
    (
        [(
            CONTENT_TYPE,
            "application/openmetrics-text; version=1.0.0; charset=utf-8",
        )],
        text,
    )
        .into_response()
}
