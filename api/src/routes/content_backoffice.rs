//! The marketing desk of the back office (role marketing or admin,
//! `Duty::Marketing`): notices, banners, covers, popups, news and help
//! pages (list, create, update, delete, preview), campaign messages to
//! segments, and the audit of every change with the staff id.

use axum::extract::rejection::JsonRejection;
use axum::extract::{Path, Query, State};
use axum::routing::{get, post};
use axum::{Json, Router};
use commands::engagement::content::{ContentFailure, ContentRow};
use domain::content::{validate, ContentKind};
use domain::staff::Duty;
use serde::Deserialize;
use serde_json::{json, Value};

use crate::app::AppState;
use crate::routes::backoffice::{done, BoError, StaffAuth};

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/api/backoffice/content/{kind}", get(list).post(create))
        .route("/api/backoffice/content/{kind}/preview", post(preview))
        .route("/api/backoffice/content/{kind}/{id}", post(update))
        .route("/api/backoffice/content/{kind}/{id}/delete", post(delete))
        .route("/api/backoffice/campaigns", get(campaigns).post(send))
        .route("/api/backoffice/content-audit", get(audit))
}

type Answer = Result<Json<Value>, BoError>;

impl From<ContentFailure> for BoError {
    fn from(e: ContentFailure) -> Self {
        match e {
            ContentFailure::Invalid(e) => BoError::bad(domain::Code::BAD_PARAMETERS.0, e.0),
            ContentFailure::NotFound => BoError::not_found("Item"),
            ContentFailure::Internal(detail) => BoError::internal(detail),
        }
    }
}

fn kind_of(name: &str) -> Result<ContentKind, BoError> {
    ContentKind::parse(name).ok_or_else(|| BoError::not_found("Content kind"))
}

fn body_of(body: Result<Json<Value>, JsonRejection>) -> Result<Value, BoError> {
    body.map(|Json(v)| v).map_err(|e| {
        BoError::bad(
            domain::Code::BAD_PARAMETERS.0,
            format!("Invalid request parameters: {}", e.body_text()),
        )
    })
}

fn id_of(text: &str) -> Result<i64, BoError> {
    text.parse::<i64>()
        .ok()
        .filter(|id| *id > 0)
        .ok_or_else(|| BoError::not_found("Item"))
}

#[utoipa::path(get, path = "/api/backoffice/content/{kind}", operation_id = "content_backoffice_list", tag = crate::openapi::BACK_OFFICE, params(("kind" = String, Path)), responses(crate::openapi::StaffAnswers))]
async fn list(State(state): State<AppState>, auth: StaffAuth, Path(kind): Path<String>) -> Answer {
    auth.may(Duty::Marketing)?;
    let rows = state.content.all(kind_of(&kind)?).await?;
    Ok(done(json!({ "list": rows })))
}

#[utoipa::path(post, path = "/api/backoffice/content/{kind}", operation_id = "content_backoffice_create", tag = crate::openapi::BACK_OFFICE, params(("kind" = String, Path)), responses(crate::openapi::StaffAnswers))]
async fn create(
    State(state): State<AppState>,
    auth: StaffAuth,
    Path(kind): Path<String>,
    body: Result<Json<Value>, JsonRejection>,
) -> Answer {
    auth.may(Duty::Marketing)?;
    let kind = kind_of(&kind)?;
    let body = body_of(body)?;
    let row = state
        .content
        .save(&auth.staff.id, kind, None, &body)
        .await?;
    Ok(done(json!(row)))
}

#[utoipa::path(post, path = "/api/backoffice/content/{kind}/{id}", operation_id = "content_backoffice_update", tag = crate::openapi::BACK_OFFICE, params(("kind" = String, Path), ("id" = String, Path)), responses(crate::openapi::StaffAnswers))]
async fn update(
    State(state): State<AppState>,
    auth: StaffAuth,
    Path((kind, id)): Path<(String, String)>,
    body: Result<Json<Value>, JsonRejection>,
) -> Answer {
    auth.may(Duty::Marketing)?;
    let kind = kind_of(&kind)?;
    let id = id_of(&id)?;
    let body = body_of(body)?;
    let row = state
        .content
        .save(&auth.staff.id, kind, Some(id), &body)
        .await?;
    Ok(done(json!(row)))
}

#[utoipa::path(post, path = "/api/backoffice/content/{kind}/{id}/delete", operation_id = "content_backoffice_delete", tag = crate::openapi::BACK_OFFICE, params(("kind" = String, Path), ("id" = String, Path)), responses(crate::openapi::StaffAnswers))]
async fn delete(
    State(state): State<AppState>,
    auth: StaffAuth,
    Path((kind, id)): Path<(String, String)>,
) -> Answer {
    auth.may(Duty::Marketing)?;
    let kind = kind_of(&kind)?;
    state
        .content
        .delete(&auth.staff.id, kind, id_of(&id)?)
        .await?;
    Ok(done(Value::Null))
}

/// What members would get for this input, without saving it.
#[utoipa::path(post, path = "/api/backoffice/content/{kind}/preview", operation_id = "content_backoffice_preview", tag = crate::openapi::BACK_OFFICE, params(("kind" = String, Path)), responses(crate::openapi::StaffAnswers))]
async fn preview(
    auth: StaffAuth,
    Path(kind): Path<String>,
    body: Result<Json<Value>, JsonRejection>,
) -> Answer {
    auth.may(Duty::Marketing)?;
    let kind = kind_of(&kind)?;
    let item = validate(kind, &body_of(body)?).map_err(ContentFailure::from)?;
    let row = ContentRow {
        id: 0,
        kind: kind.name().into(),
        lang: item.lang,
        slug: item.slug,
        title: item.title,
        body: item.body,
        sort: item.sort,
        active: item.active,
        starts_ms: item.starts_ms,
        ends_ms: item.ends_ms,
        created_ms: 0,
        updated_ms: 0,
        updated_by: auth.staff.id.clone(),
    };
    Ok(done(row.public()))
}

#[utoipa::path(get, path = "/api/backoffice/campaigns", operation_id = "content_backoffice_campaigns", tag = crate::openapi::BACK_OFFICE, responses(crate::openapi::StaffAnswers))]
async fn campaigns(State(state): State<AppState>, auth: StaffAuth) -> Answer {
    auth.may(Duty::Marketing)?;
    Ok(done(json!({ "list": state.content.campaigns().await? })))
}

#[utoipa::path(post, path = "/api/backoffice/campaigns", operation_id = "content_backoffice_send", tag = crate::openapi::BACK_OFFICE, responses(crate::openapi::StaffAnswers))]
async fn send(
    State(state): State<AppState>,
    auth: StaffAuth,
    body: Result<Json<Value>, JsonRejection>,
) -> Answer {
    auth.may(Duty::Marketing)?;
    let body = body_of(body)?;
    let sent = state.content.send_campaign(&auth.staff.id, &body).await?;
    Ok(done(json!(sent)))
}

#[derive(Deserialize, Default)]
struct AuditParams {
    kind: Option<String>,
    /// Text, so that a bad number is the desk's -70009 and not axum's
    /// plain-text rejection.
    limit: Option<String>,
}

#[utoipa::path(get, path = "/api/backoffice/content-audit", operation_id = "content_backoffice_audit", tag = crate::openapi::BACK_OFFICE, responses(crate::openapi::StaffAnswers))]
async fn audit(
    State(state): State<AppState>,
    auth: StaffAuth,
    Query(p): Query<AuditParams>,
) -> Answer {
    auth.may(Duty::Marketing)?;
    let kind = p.kind.as_deref().filter(|k| k.len() <= 16);
    let limit = match p.limit.as_deref().map(str::trim) {
        None | Some("") => 100,
        Some(text) => text.parse::<i64>().map_err(|_| {
            BoError::bad(
                domain::Code::BAD_PARAMETERS.0,
                "Invalid request parameters: limit",
            )
        })?,
    };
    let rows = state.content.audit_rows(kind, limit).await?;
    Ok(done(json!({ "list": rows })))
}

/// This module's part of the OpenAPI description (`crate::openapi`).
pub(crate) fn doc() -> utoipa::openapi::OpenApi {
    #[derive(utoipa::OpenApi)]
    #[openapi(paths(list, create, preview, update, delete, campaigns, send, audit,))]
    struct Doc;
    <Doc as utoipa::OpenApi>::openapi()
}
