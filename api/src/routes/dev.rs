//! Development endpoints, mounted only with `DEMO=1`. Plain JSON, not the
//! member request layer.
//!
//! - `GET /api/dev/balance`: the demo member's balance (the client shell
//!   shows it before anyone logs in).
//! - `GET /api/dev/outbox`: codes "sent" by SMS and e-mail and the captcha
//!   codes issued, newest first, so automated clients pass the human checks.

use axum::extract::State;
use axum::routing::get;
use axum::{Json, Router};
use serde::Serialize;

use crate::app::AppState;
use crate::error::{ok, ApiError, Envelope};
use crate::routes::user::{balance_of, BalanceView};

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/api/dev/balance", get(balance))
        .route("/api/dev/outbox", get(outbox))
}

#[derive(Serialize)]
struct DemoBalance {
    #[serde(flatten)]
    balance: BalanceView,
    username: String,
}

async fn balance(State(state): State<AppState>) -> Result<Json<Envelope<DemoBalance>>, ApiError> {
    let username = state.config.demo.member.clone();
    let user_id = state
        .accounts
        .find(&username)
        .await?
        .ok_or(ApiError::Code(domain::Code::NOT_LOGGED_IN))?;
    Ok(ok(DemoBalance {
        balance: balance_of(&state, &user_id).await?,
        username,
    }))
}

async fn outbox(
    State(state): State<AppState>,
) -> Result<Json<Vec<commands::codes::OutboxEntry>>, ApiError> {
    Ok(Json(commands::codes::outbox(&state.db.any, 100).await?))
}
