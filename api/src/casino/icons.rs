//! Game icons: generated placeholder art (SVG), labelled "DEMO ART", at
//! `/api/casino/icons/{game_id}/{n}.svg` (n = 1 or 2).

use axum::extract::{Path, State};
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;

use crate::app::AppState;

pub fn router() -> Router<AppState> {
    Router::new().route("/api/casino/icons/{game_id}/{file}", get(icon))
}

fn escape(text: &str) -> String {
    text.chars()
        .take(24)
        .map(|c| match c {
            '<' => "&lt;".to_string(),
            '>' => "&gt;".to_string(),
            '&' => "&amp;".to_string(),
            '"' => "&quot;".to_string(),
            c => c.to_string(),
        })
        .collect()
}

/// The placeholder for `name`: a colour from the name, the name, the label.
pub fn svg(name: &str, wide: bool) -> String {
    let hash = name.bytes().fold(2166136261u32, |h, b| {
        (h ^ u32::from(b)).wrapping_mul(16777619)
    });
    let hue = hash % 360;
    let (w, h) = if wide { (320, 180) } else { (200, 200) };
    format!(
        r##"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}"><defs><linearGradient id="g" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="hsl({hue},70%,45%)"/><stop offset="1" stop-color="hsl({h2},70%,25%)"/></linearGradient></defs><rect width="{w}" height="{h}" rx="16" fill="url(#g)"/><circle cx="{cx}" cy="{cy}" r="{r}" fill="rgba(255,255,255,0.15)"/><text x="50%" y="52%" text-anchor="middle" font-family="sans-serif" font-size="20" font-weight="bold" fill="#fff">{name}</text><text x="50%" y="{ly}" text-anchor="middle" font-family="sans-serif" font-size="11" fill="rgba(255,255,255,0.85)">DEMO ART</text></svg>"##,
        h2 = (hue + 40) % 360,
        cx = w / 2,
        cy = h / 2 - 10,
        r = h / 3,
        ly = h - 14,
        name = escape(name),
    )
}

#[utoipa::path(get, path = "/api/casino/icons/{game_id}/{file}", operation_id = "casino_icons_icon", tag = crate::openapi::MEMBER_OPEN, params(("game_id" = i64, Path), ("file" = String, Path, description = "1.svg (square) or 2.svg (wide)")), responses((status = 200, description = "Generated demo art", content_type = "image/svg+xml", body = String), (status = 400, description = "-70009: game_id is not a number", body = crate::openapi::Answer), (status = 404, description = "No such game or file"), (status = 503, description = "The catalogue cannot be read")))]
async fn icon(
    State(state): State<AppState>,
    Path((game_id, file)): Path<(i64, String)>,
) -> Response {
    let wide = match file.as_str() {
        "1.svg" => false,
        "2.svg" => true,
        _ => return StatusCode::NOT_FOUND.into_response(),
    };
    match state.casino.catalogue.game(game_id).await {
        Ok(Some(game)) => (
            [
                (header::CONTENT_TYPE, "image/svg+xml"),
                (header::CACHE_CONTROL, "public, max-age=3600"),
            ],
            svg(&game.name, wide),
        )
            .into_response(),
        Ok(None) => StatusCode::NOT_FOUND.into_response(),
        Err(_) => StatusCode::SERVICE_UNAVAILABLE.into_response(),
    }
}

/// This module's part of the OpenAPI description (`crate::openapi`).
pub(crate) fn doc() -> utoipa::openapi::OpenApi {
    #[derive(utoipa::OpenApi)]
    #[openapi(paths(icon))]
    struct Doc;
    #[allow(unused_mut)]
    let mut doc = <Doc as utoipa::OpenApi>::openapi();
    doc
}
