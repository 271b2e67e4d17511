//! `GET /healthz` and `GET /metrics`.

use axum::extract::State;
use axum::http::StatusCode;
use axum::routing::get;
use axum::{Json, Router};
use serde_json::{json, Value};

use crate::app::AppState;
use crate::metrics;

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/healthz", get(healthz))
        .route("/metrics", get(metrics::render))
}

/// `{status, store}`: the health of the process and its store.
#[derive(utoipa::ToSchema)]
#[allow(dead_code)]
struct Health {
    /// "ok", or "unavailable" when the store does not answer.
    status: String,
    /// "sqlite" or "postgres".
    store: String,
}

pub(crate) fn doc() -> utoipa::openapi::OpenApi {
    #[derive(utoipa::OpenApi)]
    #[openapi(paths(healthz, metrics::render), components(schemas(Health)))]
    struct Doc;
    <Doc as utoipa::OpenApi>::openapi()
}

/// Whether this process and its store answer.
#[utoipa::path(get, path = "/healthz", tag = crate::openapi::HEALTH, responses(
    (status = 200, description = "The store answers", body = Health),
    (status = 503, description = "The store does not answer", body = Health)))]
async fn healthz(State(state): State<AppState>) -> (StatusCode, Json<Value>) {
    let store = state.db.kind().name();
    match sqlx::query("SELECT 1").execute(&state.db.any).await {
        Ok(_) => (
            StatusCode::OK,
            Json(json!({"status": "ok", "store": store})),
        ),
        Err(e) => {
            tracing::error!(error = %e, "health check: store unreachable");
            (
                StatusCode::SERVICE_UNAVAILABLE,
                Json(json!({"status": "unavailable", "store": store})),
            )
        }
    }
}
