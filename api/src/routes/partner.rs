//! Partner (iframe) mode: the partner's server opens a one-hour session for
//! one of our members and hands the client `AuthToken` and `UserId` in the
//! URL (spec 000 section 4). Plain JSON, authenticated with the partner key.

use axum::extract::State;
use axum::http::HeaderMap;
use axum::routing::post;
use axum::{Json, Router};
use serde::Deserialize;
use serde_json::{json, Value};

use crate::app::AppState;
use crate::error::{ok, ApiError, Envelope};
use crate::transport::crypto::secret_matches;

pub fn router() -> Router<AppState> {
    Router::new().route("/api/partner/session", post(open_session))
}

#[derive(Deserialize, utoipa::ToSchema)]
struct SessionBody {
    user_id: String,
}

#[utoipa::path(post, path = "/api/partner/session", operation_id = "partner_open_session", tag = crate::openapi::PARTNER, request_body = SessionBody, responses(crate::openapi::PlainAnswers))]
async fn open_session(
    State(state): State<AppState>,
    headers: HeaderMap,
    Json(body): Json<SessionBody>,
) -> Result<Json<Envelope<Value>>, ApiError> {
    let key = &state.config.partner.key;
    let presented = headers
        .get("X-Partner-Key")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default();
    if key.is_empty() || !secret_matches(key, presented.trim()) {
        return Err(ApiError::Code(domain::Code::NOT_LOGGED_IN));
    }
    state.accounts.load(&body.user_id).await?;
    let lifetime = state.config.partner.session_lifetime_ms;
    let issued = state
        .accounts
        .sessions
        .open(&body.user_id, "partner", Some(lifetime))
        .await
        .map_err(|e| ApiError::Internal(e.to_string()))?;
    Ok(ok(json!({
        "AuthToken": issued.auth_token,
        "UserId": issued.user_id,
        "expires": issued.expires,
        "session": issued.session,
    })))
}

/// This module's part of the OpenAPI description (`crate::openapi`).
pub(crate) fn doc() -> utoipa::openapi::OpenApi {
    #[derive(utoipa::OpenApi)]
    #[openapi(paths(open_session))]
    struct Doc;
    #[allow(unused_mut)]
    let mut doc = <Doc as utoipa::OpenApi>::openapi();
    doc
}
