//! `Member`: the logged-in member behind a request's `UserToken`.

use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use commands::accounts::sessions::SessionError;
use domain::Code;

use crate::app::AppState;
use crate::error::ApiError;
use crate::transport::RequestMeta;

pub struct Member {
    pub user_id: String,
    pub auth_token: String,
}

impl FromRequestParts<AppState> for Member {
    type Rejection = ApiError;

    async fn from_request_parts(
        parts: &mut Parts,
        state: &AppState,
    ) -> Result<Self, Self::Rejection> {
        let token = parts
            .extensions
            .get::<RequestMeta>()
            .and_then(|m| m.user_token.clone())
            .ok_or(ApiError::Code(Code::NOT_LOGGED_IN))?;
        match state.accounts.sessions.authenticate(&token).await {
            Ok(session) => Ok(Member {
                user_id: session.user_id,
                auth_token: token,
            }),
            Err(SessionError::Expired) => Err(ApiError::Code(Code(-601))),
            Err(SessionError::Store(detail)) => Err(ApiError::Internal(detail)),
        }
    }
}
