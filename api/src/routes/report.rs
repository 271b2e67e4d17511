//! Reports on the main API: the bet history (spec 001 section 7.3).

use axum::extract::State;
use axum::routing::post;
use axum::{Json, Router};
use serde_json::{json, Value};

use crate::app::AppState;
use crate::error::{ok, ApiError, Envelope};
use crate::routes::auth::Member;
use crate::transport::{Payload, ReadRoutes};

pub fn router() -> Router<AppState> {
    Router::new().read_route("/api/report/betrecods", post(bet_records).get(bet_records))
}

/// `report/betrecods {from_date, to_date, pn, outcome, bet_type, BetId}`:
/// the member's bets, newest first (default: the last 24 hours).
#[utoipa::path(post, path = "/api/report/betrecods", operation_id = "report_bet_records", tag = crate::openapi::MEMBER, request_body = Object, responses(crate::openapi::MemberAnswers))]
async fn bet_records(
    State(state): State<AppState>,
    member: Member,
    Payload(params): Payload<Value>,
) -> Result<Json<Envelope<Value>>, ApiError> {
    let (list, total) = state
        .betting
        .history(&member.user_id, &params)
        .await
        .map_err(|e| ApiError::with_message(-70009, format!("Invalid request parameters: {e}")))?;
    Ok(ok(json!({ "list": list, "total": total })))
}

/// This module's part of the OpenAPI description (`crate::openapi`).
pub(crate) fn doc() -> utoipa::openapi::OpenApi {
    #[derive(utoipa::OpenApi)]
    #[openapi(paths(bet_records))]
    struct Doc;
    #[allow(unused_mut)]
    let mut doc = <Doc as utoipa::OpenApi>::openapi();
    crate::openapi::get_alias(&mut doc, "/api/report/betrecods");
    doc
}
