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
        .route("/dev/outbox", get(outbox_page))
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

/// The outbox as a page a person can read during development.
async fn outbox_page(
    State(state): State<AppState>,
) -> Result<axum::response::Html<String>, ApiError> {
    let entries = commands::codes::outbox(&state.db.any, 100).await?;
    let escape = |s: &str| {
        s.replace('&', "&amp;")
            .replace('<', "&lt;")
            .replace('>', "&gt;")
    };
    let rows: String = entries
        .iter()
        .map(|e| {
            format!(
                "<tr><td>{}</td><td>{}</td><td><b>{}</b></td><td>{}</td><td>{}</td><td>{}</td></tr>",
                escape(&e.channel),
                escape(&e.to),
                escape(&e.code),
                e.kind,
                escape(&e.uid),
                e.at
            )
        })
        .collect();
    Ok(axum::response::Html(format!(
        "<!doctype html><meta charset=utf-8><meta name=viewport content='width=device-width'>\
         <title>Outbox (development stand-in)</title>\
         <style>body{{font:14px system-ui;margin:16px}}td,th{{padding:4px 8px;border-bottom:1px solid #ddd}}</style>\
         <h1>Outbox</h1><p>Development stand-in for the SMS and e-mail gateways (DEMO=1 only). Newest first.</p>\
         <table><tr><th>channel</th><th>to</th><th>code</th><th>type</th><th>uid</th><th>at (ms)</th></tr>{rows}</table>"
    )))
}
