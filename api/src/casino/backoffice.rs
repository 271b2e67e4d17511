//! The casino catalogue in the back office (admin role): list every game
//! (disabled ones too), add or replace one, enable/disable, delete, and
//! re-import a catalogue file's JSON. Plain JSON, bearer tokens.
//!
//! - `GET /api/backoffice/casino/games`
//! - `POST /api/backoffice/casino/games` (a game, as in the import file)
//! - `POST /api/backoffice/casino/games/{id}/enabled {enabled}`
//! - `DELETE /api/backoffice/casino/games/{id}`
//! - `POST /api/backoffice/casino/import` (`{providers, categories, games}`)

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{delete, get, post};
use axum::{Json, Router};
use commands::casino::catalogue::{CatalogueError, CatalogueFile, Filter, Game};
use domain::staff::Role;
use serde_json::{json, Value};

use crate::app::AppState;
use crate::routes::backoffice::StaffAuth;

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/api/backoffice/casino/games", get(games).post(save))
        .route("/api/backoffice/casino/games/{id}/enabled", post(enable))
        .route("/api/backoffice/casino/games/{id}", delete(remove))
        .route("/api/backoffice/casino/import", post(import))
}

fn refusal(http: StatusCode, status: i32, msg: impl Into<String>) -> Response {
    (
        http,
        Json(json!({"status": status, "msg": msg.into(), "data": null})),
    )
        .into_response()
}

#[allow(clippy::result_large_err)]
fn admin(auth: &StaffAuth) -> Result<(), Response> {
    if auth.staff.role == Role::Admin {
        Ok(())
    } else {
        Err(refusal(
            StatusCode::FORBIDDEN,
            -403,
            "Not allowed for your role",
        ))
    }
}

fn done(data: Value) -> Response {
    Json(json!({"status": 0, "msg": "OK", "data": data})).into_response()
}

fn failed(e: CatalogueError) -> Response {
    match e {
        CatalogueError::Invalid(msg) => refusal(
            StatusCode::BAD_REQUEST,
            domain::Code::BAD_PARAMETERS.0,
            format!("Invalid request parameters: {msg}"),
        ),
        CatalogueError::Store(e) => internal(e),
    }
}

fn internal(e: impl std::fmt::Display) -> Response {
    tracing::error!(error = %e, "casino back office request failed");
    refusal(
        StatusCode::INTERNAL_SERVER_ERROR,
        domain::Code::INTERNAL.0,
        domain::Code::INTERNAL.message(),
    )
}

#[allow(clippy::result_large_err)]
fn parse<T: serde::de::DeserializeOwned>(body: &Value) -> Result<T, Response> {
    serde_json::from_value(body.clone()).map_err(|e| {
        refusal(
            StatusCode::BAD_REQUEST,
            domain::Code::BAD_PARAMETERS.0,
            format!("Invalid request parameters: {e}"),
        )
    })
}

#[utoipa::path(get, path = "/api/backoffice/casino/games", operation_id = "casino_backoffice_games", tag = crate::openapi::BACK_OFFICE, responses(crate::openapi::StaffAnswers))]
async fn games(State(state): State<AppState>, auth: StaffAuth) -> Response {
    if let Err(r) = admin(&auth) {
        return r;
    }
    let filter = Filter {
        include_disabled: true,
        limit: 500,
        ..Filter::default()
    };
    match state.casino.catalogue.list(&filter).await {
        Ok((total, list)) => done(json!({"total_count": total, "list": list})),
        Err(e) => internal(e),
    }
}

#[utoipa::path(post, path = "/api/backoffice/casino/games", operation_id = "casino_backoffice_save", tag = crate::openapi::BACK_OFFICE, request_body = Object, responses(crate::openapi::StaffAnswers))]
async fn save(
    State(state): State<AppState>,
    auth: StaffAuth,
    body: Option<Json<Value>>,
) -> Response {
    if let Err(r) = admin(&auth) {
        return r;
    }
    let body = body.map(|b| b.0).unwrap_or(Value::Null);
    let game: Game = match parse(&body) {
        Ok(g) => g,
        Err(r) => return r,
    };
    match state.casino.catalogue.save_game(&game).await {
        Ok(()) => done(json!(game)),
        Err(e) => failed(e),
    }
}

#[utoipa::path(post, path = "/api/backoffice/casino/games/{id}/enabled", operation_id = "casino_backoffice_enable", tag = crate::openapi::BACK_OFFICE, params(("id" = String, Path)), request_body = Object, responses(crate::openapi::StaffAnswers))]
async fn enable(
    State(state): State<AppState>,
    auth: StaffAuth,
    Path(id): Path<i64>,
    body: Option<Json<Value>>,
) -> Response {
    if let Err(r) = admin(&auth) {
        return r;
    }
    let Some(enabled) = body
        .as_ref()
        .and_then(|b| b.0.get("enabled"))
        .and_then(Value::as_bool)
    else {
        return refusal(
            StatusCode::BAD_REQUEST,
            domain::Code::BAD_PARAMETERS.0,
            "Invalid request parameters: enabled is true or false",
        );
    };
    let catalogue = &state.casino.catalogue;
    let mut game = match catalogue.game(id).await {
        Ok(Some(g)) => g,
        Ok(None) => return refusal(StatusCode::NOT_FOUND, -404, "Game not found"),
        Err(e) => return internal(e),
    };
    game.enabled = enabled;
    match catalogue.save_game(&game).await {
        Ok(()) => done(json!(game)),
        Err(e) => failed(e),
    }
}

#[utoipa::path(delete, path = "/api/backoffice/casino/games/{id}", operation_id = "casino_backoffice_remove", tag = crate::openapi::BACK_OFFICE, params(("id" = String, Path)), responses(crate::openapi::StaffAnswers))]
async fn remove(State(state): State<AppState>, auth: StaffAuth, Path(id): Path<i64>) -> Response {
    if let Err(r) = admin(&auth) {
        return r;
    }
    match state.casino.catalogue.delete_game(id).await {
        Ok(true) => done(json!({"id": id})),
        Ok(false) => refusal(StatusCode::NOT_FOUND, -404, "Game not found"),
        Err(e) => failed(e),
    }
}

#[utoipa::path(post, path = "/api/backoffice/casino/import", operation_id = "casino_backoffice_import", tag = crate::openapi::BACK_OFFICE, request_body = Object, responses(crate::openapi::StaffAnswers))]
async fn import(
    State(state): State<AppState>,
    auth: StaffAuth,
    body: Option<Json<Value>>,
) -> Response {
    if let Err(r) = admin(&auth) {
        return r;
    }
    let body = body.map(|b| b.0).unwrap_or(Value::Null);
    let file: CatalogueFile = match parse(&body) {
        Ok(f) => f,
        Err(r) => return r,
    };
    match state.casino.catalogue.import(&file).await {
        Ok(n) => done(json!({"games": n})),
        Err(e) => failed(e),
    }
}

/// This module's part of the OpenAPI description (`crate::openapi`).
pub(crate) fn doc() -> utoipa::openapi::OpenApi {
    #[derive(utoipa::OpenApi)]
    #[openapi(paths(games, save, enable, remove, import))]
    struct Doc;
    #[allow(unused_mut)]
    let mut doc = <Doc as utoipa::OpenApi>::openapi();
    doc
}
