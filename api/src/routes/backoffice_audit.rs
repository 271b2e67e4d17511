//! Back office, audit and operations: poison events parked by the
//! projections (admin and auditor read them; admin retries or skips), and
//! the audit replay streamed as it runs (`application/x-ndjson`, one JSON
//! object a line) instead of one answer holding everything.
//! Contract: docs/audit.md.

use axum::body::Body;
use axum::extract::{Path, Query, State};
use axum::http::header;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use domain::staff::Duty;
use serde::Deserialize;
use serde_json::{json, Value};

use crate::app::AppState;
use crate::routes::backoffice::{done, BoError, StaffAuth};

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/api/backoffice/parked-events", get(parked))
        .route("/api/backoffice/parked-events/{id}/retry", post(retry))
        .route("/api/backoffice/parked-events/{id}/skip", post(skip))
        .route("/api/backoffice/audit/replay/stream", get(replay_stream))
}

#[derive(Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
struct ParkedParams {
    status: Option<String>,
}

/// Parked events, newest first (`?status=open|applied|skipped|all`).
#[utoipa::path(get, path = "/api/backoffice/parked-events", operation_id = "backoffice_audit_parked", tag = crate::openapi::BACK_OFFICE, params(ParkedParams), responses(crate::openapi::StaffAnswers))]
async fn parked(
    State(state): State<AppState>,
    auth: StaffAuth,
    Query(params): Query<ParkedParams>,
) -> Result<Json<Value>, BoError> {
    if !(auth.staff.role.may(Duty::Audit) || auth.staff.role.may(Duty::Projections)) {
        return Err(BoError::forbidden());
    }
    let status = match params.status.as_deref() {
        None | Some("open") => Some("open"),
        Some("all") => None,
        Some(s @ ("applied" | "skipped")) => Some(s),
        Some(other) => {
            return Err(BoError::bad(
                domain::Code::BAD_PARAMETERS.0,
                format!(
                    "Invalid request parameters: status '{other}' (open, applied, skipped or all)"
                ),
            ))
        }
    };
    let list = state
        .runner
        .parked(status, 500)
        .await
        .map_err(BoError::internal)?;
    Ok(done(json!(list)))
}

fn parked_id(id: &str) -> Result<i64, BoError> {
    id.parse().map_err(|_| BoError::not_found("Parked event"))
}

fn resolution(e: projections::ProjectionError) -> BoError {
    match e {
        projections::ProjectionError::NoParked(_) => BoError::not_found("Open parked event"),
        other => BoError::bad(
            domain::Code::INTERNAL.0,
            format!("The event still fails: {other}"),
        ),
    }
}

/// Applies a parked event again, after a fix (admin).
#[utoipa::path(post, path = "/api/backoffice/parked-events/{id}/retry", operation_id = "backoffice_audit_retry", tag = crate::openapi::BACK_OFFICE, params(("id" = String, Path)), responses(crate::openapi::StaffAnswers))]
async fn retry(
    State(state): State<AppState>,
    auth: StaffAuth,
    Path(id): Path<String>,
) -> Result<Json<Value>, BoError> {
    auth.may(Duty::Projections)?;
    let id = parked_id(&id)?;
    let by = format!("staff:{}", auth.staff.id);
    let row = state
        .runner
        .retry_parked(id, &by)
        .await
        .map_err(resolution)?;
    Ok(done(json!(row)))
}

/// Leaves a parked event out of its read model for good (admin).
#[utoipa::path(post, path = "/api/backoffice/parked-events/{id}/skip", operation_id = "backoffice_audit_skip", tag = crate::openapi::BACK_OFFICE, params(("id" = String, Path)), responses(crate::openapi::StaffAnswers))]
async fn skip(
    State(state): State<AppState>,
    auth: StaffAuth,
    Path(id): Path<String>,
) -> Result<Json<Value>, BoError> {
    auth.may(Duty::Projections)?;
    let id = parked_id(&id)?;
    let by = format!("staff:{}", auth.staff.id);
    let row = state
        .runner
        .skip_parked(id, &by)
        .await
        .map_err(resolution)?;
    Ok(done(json!(row)))
}

fn line(value: Value) -> Result<String, std::convert::Infallible> {
    Ok(format!("{value}\n"))
}

/// The audit replay, streamed: `{"type":"progress",...}` lines as each
/// read model is replayed, a `{"type":"difference",...}` line per
/// difference with the rows or events that explain it, a `{"type":"result"}`
/// per read model and for the money fold, and `{"type":"done"}` last.
#[utoipa::path(get, path = "/api/backoffice/audit/replay/stream", operation_id = "backoffice_audit_replay_stream", tag = crate::openapi::BACK_OFFICE, responses(
    (status = 200, description = "One JSON object per line: progress, difference, result, error, done", content_type = "application/x-ndjson", body = String),
    (status = 401, description = "-401: no valid staff token", body = crate::openapi::Answer),
    (status = 403, description = "-403: the role may not audit", body = crate::openapi::Answer)))]
async fn replay_stream(
    State(state): State<AppState>,
    auth: StaffAuth,
) -> Result<Response, BoError> {
    auth.may(Duty::Audit)?;
    let (tx, rx) = tokio::sync::mpsc::channel::<Value>(64);
    tokio::spawn(async move {
        let send = |v: Value| {
            let tx = tx.clone();
            async move {
                let _ = tx.send(v).await;
            }
        };
        let mut differences = 0usize;
        for name in state.runner.names() {
            let progress_tx = tx.clone();
            let progress = move |done: u64, total: u64| {
                let _ = progress_tx.try_send(
                    json!({"type": "progress", "read_model": name, "done": done, "total": total}),
                );
            };
            match state.runner.replay_scratch(name, &progress).await {
                Ok(report) => {
                    for d in &report.differences {
                        differences += 1;
                        send(
                            json!({"type": "difference", "read_model": name, "table": d.table,
                            "only_in_replay": d.only_in_replay, "only_in_live": d.only_in_live,
                            "replay_rows": d.replay_rows, "live_rows": d.live_rows}),
                        )
                        .await;
                    }
                    send(
                        json!({"type": "result", "read_model": name, "events": report.events,
                        "position": report.position, "differences": report.differences.len()}),
                    )
                    .await;
                }
                Err(e) => {
                    send(json!({"type": "error", "read_model": name, "error": e.to_string()}))
                        .await;
                    return;
                }
            }
        }
        let progress_tx = tx.clone();
        let progress = move |done: u64, total: u64| {
            let _ = progress_tx.try_send(
                json!({"type": "progress", "read_model": "money", "done": done, "total": total}),
            );
        };
        match projections::replay::money(&state.db.any, state.runner.backend(), &progress).await {
            Ok(report) => {
                for d in &report.differences {
                    differences += 1;
                    send(json!({"type": "difference", "read_model": "money", "rule": d.rule,
                        "subject": d.subject, "expected": d.expected, "found": d.found, "events": d.events})).await;
                }
                send(json!({"type": "result", "read_model": "money", "events": report.events,
                    "wallets": report.wallets, "bets": report.bets, "differences": report.differences.len()})).await;
            }
            Err(e) => {
                send(json!({"type": "error", "read_model": "money", "error": e.to_string()})).await;
                return;
            }
        }
        send(json!({"type": "done", "differences": differences})).await;
    });
    let stream = futures::stream::unfold(rx, |mut rx| async move {
        rx.recv().await.map(|v| (line(v), rx))
    });
    Ok((
        [(header::CONTENT_TYPE, "application/x-ndjson")],
        Body::from_stream(stream),
    )
        .into_response())
}

/// This module's part of the OpenAPI description (`crate::openapi`).
pub(crate) fn doc() -> utoipa::openapi::OpenApi {
    #[derive(utoipa::OpenApi)]
    #[openapi(paths(parked, retry, skip, replay_stream))]
    struct Doc;
    #[allow(unused_mut)]
    let mut doc = <Doc as utoipa::OpenApi>::openapi();
    doc
}
