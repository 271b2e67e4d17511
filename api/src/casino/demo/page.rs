//! The demo provider's game page (what the launch frame opens):
//! `GET /demo-provider/game?gameid&mode&token&username&currency&userid...`.
//! One self-contained HTML page per game (slot or roulette), clearly
//! labelled as a stand-in provider. After every balance change it tells
//! the page around the frame (`postMessage {type: "casino:balance"}`), so
//! the site's header follows.

use std::collections::HashMap;

use axum::extract::{Query, State};
use axum::http::header;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use serde_json::json;

use crate::app::AppState;

pub fn router() -> Router<AppState> {
    Router::new().route("/demo-provider/game", get(page))
}

#[utoipa::path(get, path = "/demo-provider/game", operation_id = "demo_page_page", tag = crate::openapi::DEMO_PROVIDER, responses((status = 200, description = "The game page", content_type = "text/html", body = String)))]
async fn page(State(state): State<AppState>, Query(q): Query<HashMap<String, String>>) -> Response {
    let get = |k: &str| {
        q.get(k)
            .map(|v| v.chars().take(200).collect::<String>())
            .unwrap_or_default()
    };
    let game = get("gameid");
    let mode = match get("mode").as_str() {
        "real" => "real",
        "view" => "view",
        _ => "fun",
    };
    let kind = if game.contains("roulette") {
        "roulette"
    } else {
        "slot"
    };
    let known = state
        .casino
        .catalogue
        .game_by_code("demo", &game)
        .await
        .ok()
        .flatten();
    let name = known
        .as_ref()
        .map(|g| g.name.clone())
        .unwrap_or_else(|| "Unknown game".into());
    let boot = json!({
        "game": game, "name": name, "mode": mode, "kind": kind, "known": known.is_some(),
        "token": get("token"), "user": get("userid"), "username": get("username"),
        "currency": get("currency"), "balance": get("balance"),
        "round_ms": state.casino.demo.round_ms,
    })
    .to_string()
    .replace('<', "\\u003c");
    let html = TEMPLATE.replace("/*BOOT*/null", &boot);
    (
        [
            (header::CONTENT_TYPE, "text/html; charset=utf-8"),
            (header::CACHE_CONTROL, "no-store"),
        ],
        html,
    )
        .into_response()
}

const TEMPLATE: &str = include_str!("page.html");

/// This module's part of the OpenAPI description (`crate::openapi`).
pub(crate) fn doc() -> utoipa::openapi::OpenApi {
    #[derive(utoipa::OpenApi)]
    #[openapi(paths(page))]
    struct Doc;
    #[allow(unused_mut)]
    let mut doc = <Doc as utoipa::OpenApi>::openapi();
    doc
}
