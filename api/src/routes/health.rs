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
