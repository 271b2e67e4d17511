//! Development endpoints, mounted only with `DEMO=1`. Plain JSON, not the
//! member request layer. Until the accounts issue brings sessions, the
//! client shell reads the demo member's balance here.

use axum::extract::State;
use axum::routing::get;
use axum::{Json, Router};
use domain::Currency;
use serde::Serialize;

use crate::app::AppState;
use crate::error::{ok, ApiError, Envelope};

pub fn router() -> Router<AppState> {
    Router::new().route("/api/dev/balance", get(balance))
}

/// The `getbalance` shape (spec 001 section 7.2), money as decimal strings.
#[derive(Debug, Serialize)]
pub struct BalanceView {
    pub balance: String,
    pub bonus_balance: String,
    pub bonus_win_balance: String,
    pub frozen_balance: String,
    pub currency: String,
    pub username: String,
}

async fn balance(State(state): State<AppState>) -> Result<Json<Envelope<BalanceView>>, ApiError> {
    let demo = &state.config.demo;
    let currency: Currency = demo
        .currency
        .parse()
        .map_err(|e| ApiError::Internal(format!("demo.currency: {e}")))?;
    let row = projections::balances::get(&state.db.any, &demo.member, currency.code()).await?;
    let ledger = row.map(|r| r.ledger).unwrap_or_default();
    let money = |amount| currency.round(amount).to_string();
    Ok(ok(BalanceView {
        balance: money(ledger.balances.main),
        bonus_balance: money(ledger.balances.bonus),
        bonus_win_balance: money(ledger.balances.bonus_win),
        frozen_balance: money(ledger.balances.frozen),
        currency: currency.code().to_string(),
        username: demo.member.clone(),
    }))
}
