//! The demo slot's endpoints (the provider's own API, plain JSON):
//! `POST /demo-provider/api/fun/session {}` opens a play-money session;
//! `POST /demo-provider/api/slot/spin {player | fun_session, stake}` spins:
//! in real mode a bet, the spin, then the win (0 when the line loses) that
//! closes the round, all through the seamless wallet.

use axum::extract::State;
use axum::routing::post;
use axum::{Json, Router};
use domain::casino::slot;
use domain::casino::wire::to_units;
use rand::Rng;
use rust_decimal::Decimal;
use serde::Deserialize;
use serde_json::{json, Value};
use sqlx::Row;

use super::play::{new_id, BetOutcome, Player};
use super::DemoProvider;
use crate::app::AppState;

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/demo-provider/api/fun/session", post(fun_session))
        .route("/demo-provider/api/slot/spin", post(spin))
}

#[derive(Deserialize, utoipa::ToSchema)]
pub struct SpinBody {
    pub player: Option<Player>,
    pub fun_session: Option<String>,
    pub stake: String,
}

pub fn refusal(reason: &str) -> Json<Value> {
    Json(json!({"status": "refused", "reason": reason}))
}

/// A stake as the game accepts it: 0.10 to 1,000.00, at most 2 places.
pub fn stake_of(text: &str) -> Option<Decimal> {
    let stake: Decimal = text.trim().parse().ok()?;
    let ok = stake >= Decimal::new(10, 2)
        && stake <= Decimal::new(1000, 0)
        && stake.round_dp(2) == stake;
    ok.then(|| stake.round_dp(2))
}

pub fn money(units: i64) -> String {
    let mut d = Decimal::from(units) / Decimal::from(domain::casino::UNITS_PER_CURRENCY_UNIT);
    d = d.round_dp(2);
    d.rescale(2);
    d.to_string()
}

impl DemoProvider {
    pub async fn open_fun(&self) -> Result<(String, Decimal), sqlx::Error> {
        let session = new_id("fun");
        sqlx::query(
            "INSERT INTO demo_provider_fun (session, balance, updated_ms) VALUES ($1, $2, $3)",
        )
        .bind(&session)
        .bind(self.fun_balance.to_string())
        .bind(self.clock.now_ms())
        .execute(&self.pool)
        .await?;
        Ok((session, self.fun_balance))
    }

    /// Moves play money: `delta` added (negative: taken) when the balance
    /// allows; the new balance, or `None` when unknown or short.
    pub async fn fun_move(
        &self,
        session: &str,
        delta: Decimal,
    ) -> Result<Option<Decimal>, sqlx::Error> {
        for _ in 0..5 {
            let Some(row) = sqlx::query("SELECT balance FROM demo_provider_fun WHERE session = $1")
                .bind(session)
                .fetch_optional(&self.pool)
                .await?
            else {
                return Ok(None);
            };
            let old: String = row.get("balance");
            let balance: Decimal = old.parse().unwrap_or_default();
            let new = balance + delta;
            if new < Decimal::ZERO {
                return Ok(None);
            }
            let changed = sqlx::query("UPDATE demo_provider_fun SET balance = $1, updated_ms = $2 WHERE session = $3 AND balance = $4")
                .bind(new.to_string())
                .bind(self.clock.now_ms())
                .bind(session)
                .bind(&old)
                .execute(&self.pool)
                .await?
                .rows_affected();
            if changed == 1 {
                return Ok(Some(new));
            }
        }
        Ok(None)
    }

    fn stops(&self) -> [usize; 3] {
        let mut rng = self.rng.lock().unwrap_or_else(|p| p.into_inner());
        [0; 3].map(|_| rng.random_range(0..slot::STOPS))
    }

    /// One real-mode spin for `player`.
    pub async fn spin_real(&self, player: &Player, stake: Decimal) -> Value {
        let round = new_id("slot");
        let bet_tx = new_id("bet");
        let amount = to_units(stake);
        match self.bet(player, &bet_tx, &round, amount, false).await {
            BetOutcome::Confirmed { .. } => {}
            BetOutcome::Refused { status, balance } => {
                return json!({"status": "refused", "reason": status, "balance": money(balance), "currency": player.currency})
            }
            BetOutcome::Unconfirmed => {
                return json!({"status": "error", "reason": "the bet could not be confirmed and was rolled back"})
            }
        }
        let outcome = slot::spin(self.stops(), stake);
        let paid = self
            .win(player, &bet_tx, &round, to_units(outcome.win), true)
            .await;
        json!({
            "status": "ok",
            "round": round,
            "stops": outcome.stops,
            "line": outcome.line,
            "multiplier": outcome.multiplier,
            "win": outcome.win.round_dp(2).to_string(),
            "balance": paid.map(money),
            "win_pending": paid.is_none(),
            "currency": player.currency,
        })
    }
}

#[utoipa::path(post, path = "/demo-provider/api/fun/session", operation_id = "demo_slot_fun_session", tag = crate::openapi::DEMO_PROVIDER, responses(crate::openapi::ProviderAnswers))]
async fn fun_session(State(state): State<AppState>) -> Json<Value> {
    match state.casino.demo.open_fun().await {
        Ok((session, balance)) => Json(
            json!({"status": "ok", "session": session, "balance": balance.to_string(), "currency": "FUN"}),
        ),
        Err(e) => {
            tracing::error!(error = %e, "demo provider: fun session");
            refusal("unavailable")
        }
    }
}

#[utoipa::path(post, path = "/demo-provider/api/slot/spin", operation_id = "demo_slot_spin", tag = crate::openapi::DEMO_PROVIDER, request_body = SpinBody, responses(crate::openapi::ProviderAnswers))]
async fn spin(State(state): State<AppState>, body: Option<Json<SpinBody>>) -> Json<Value> {
    let demo = &state.casino.demo;
    let Some(Json(body)) = body else {
        return refusal("bad request");
    };
    let Some(stake) = stake_of(&body.stake) else {
        return refusal("stake must be 0.10 to 1000.00");
    };
    if !demo.enabled {
        return refusal("the demo provider is not configured");
    }
    if let Some(player) = &body.player {
        if player.token.len() > 128 || player.user.len() > 64 || player.game.len() > 100 {
            return refusal("bad request");
        }
        return Json(demo.spin_real(player, stake).await);
    }
    let Some(session) = body.fun_session.as_deref().filter(|s| s.len() <= 64) else {
        return refusal("no player and no fun session");
    };
    match demo.fun_move(session, -stake).await {
        Ok(Some(_)) => {}
        Ok(None) => return refusal("not enough play money"),
        Err(_) => return refusal("unavailable"),
    }
    let outcome = slot::spin(demo.stops(), stake);
    match demo.fun_move(session, outcome.win).await {
        Ok(Some(balance)) => Json(json!({
            "status": "ok", "stops": outcome.stops, "line": outcome.line,
            "multiplier": outcome.multiplier, "win": outcome.win.round_dp(2).to_string(),
            "balance": balance.to_string(), "currency": "FUN",
        })),
        _ => refusal("unavailable"),
    }
}

/// This module's part of the OpenAPI description (`crate::openapi`).
pub(crate) fn doc() -> utoipa::openapi::OpenApi {
    #[derive(utoipa::OpenApi)]
    #[openapi(paths(fun_session, spin))]
    struct Doc;
    #[allow(unused_mut)]
    let mut doc = <Doc as utoipa::OpenApi>::openapi();
    doc
}
