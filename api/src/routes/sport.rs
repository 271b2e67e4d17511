//! Sportsbook calls on the main API: the sport search (spec 001 section
//! 2.11). Live data itself travels over `/swarm`.

use axum::extract::State;
use axum::routing::post;
use axum::{Json, Router};
use serde::Deserialize;

use crate::app::AppState;
use crate::error::{ok, ApiError, Envelope};
use crate::transport::{Payload, ReadRoutes};

pub fn router() -> Router<AppState> {
    Router::new().read_route("/api/sport/search", post(search).get(search))
}

#[derive(Deserialize, utoipa::ToSchema)]
struct SearchBody {
    #[serde(default)]
    term: String,
    #[serde(default)]
    language: String,
}

/// Games grouped by sport; too short a term (spaces ignored) finds nothing.
#[utoipa::path(post, path = "/api/sport/search", operation_id = "sport_search", tag = crate::openapi::MEMBER, request_body = SearchBody, responses(crate::openapi::MemberAnswers))]
async fn search(
    State(state): State<AppState>,
    Payload(body): Payload<SearchBody>,
) -> Result<Json<Envelope<Vec<domain::catalogue::SearchGroup>>>, ApiError> {
    let language = if body.language.is_empty() {
        "zhh"
    } else {
        body.language.as_str()
    };
    let groups = state
        .live
        .read(|catalogue| domain::catalogue::search(catalogue, &body.term, language));
    Ok(ok(groups))
}

/// This module's part of the OpenAPI description (`crate::openapi`).
pub(crate) fn doc() -> utoipa::openapi::OpenApi {
    #[derive(utoipa::OpenApi)]
    #[openapi(paths(search))]
    struct Doc;
    #[allow(unused_mut)]
    let mut doc = <Doc as utoipa::OpenApi>::openapi();
    crate::openapi::get_alias(&mut doc, "/api/sport/search");
    doc
}
