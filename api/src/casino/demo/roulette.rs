//! The demo live table: European roulette, one wheel shared by every
//! player at the table (several players' bets in each round). A round
//! lasts `roulette_round_seconds` (30 s): round N runs from N x period to
//! (N + 1) x period; bets close 3 s before the spin; the number comes from
//! the seeded RNG (seed and N), so every process knows it without asking.
//!
//! Real-mode bets go through the seamless wallet at once (round
//! `roulette-N`); at the spin the background pass (under a lease) pays each
//! confirmed bet's win (0 when it lost), closing each player's round with
//! their last win, and rolls back bets never confirmed.
//!
//! - `GET /demo-provider/api/roulette/state?session=..|token=..`
//! - `POST /demo-provider/api/roulette/bet {player | fun_session, picks}`

use std::collections::BTreeMap;

use axum::extract::{Query, State};
use axum::routing::{get, post};
use axum::{Json, Router};
use domain::casino::roulette::Pick;
use domain::casino::wire::to_units;
use rand::{Rng, SeedableRng};
use rust_decimal::Decimal;
use serde::Deserialize;
use serde_json::{json, Value};
use sqlx::Row;

use super::play::{new_id, BetOutcome, Player};
use super::slot::{money, refusal, stake_of};
use super::{DemoProvider, PassError};
use crate::app::AppState;

pub const CLOSE_BEFORE_SPIN_MS: i64 = 3_000;
pub const MAX_PICKS: usize = 20;

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/demo-provider/api/roulette/state", get(state))
        .route("/demo-provider/api/roulette/bet", post(bet))
}

#[derive(Debug, Clone, Deserialize, serde::Serialize)]
pub struct PickStake {
    #[serde(flatten)]
    pub pick: Pick,
    pub amount: String,
}

#[derive(Deserialize, utoipa::ToSchema)]
struct BetBody {
    player: Option<Player>,
    fun_session: Option<String>,
    /// Each pick (`type` and its numbers) with its `amount`.
    #[schema(value_type = Vec<Object>)]
    picks: Vec<PickStake>,
}

impl DemoProvider {
    pub fn round_at(&self, now_ms: i64) -> i64 {
        now_ms.div_euclid(self.round_ms)
    }

    /// The number round `n` spins (seeded: the same in every process).
    pub fn number(&self, n: i64) -> u8 {
        let mut rng = rand::rngs::StdRng::seed_from_u64(
            self.seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ n as u64,
        );
        rng.random_range(0..=36)
    }

    fn payout(picks: &[PickStake], number: u8) -> Decimal {
        picks
            .iter()
            .map(|p| p.pick.payout(number, p.amount.parse().unwrap_or_default()))
            .sum()
    }

    /// Places `picks` for `player` (or a fun session) in the open round.
    pub async fn roulette_bet(
        &self,
        player: Option<&Player>,
        fun: Option<&str>,
        picks: &[PickStake],
    ) -> Result<Value, sqlx::Error> {
        if picks.is_empty()
            || picks.len() > MAX_PICKS
            || picks
                .iter()
                .any(|p| !p.pick.is_valid() || stake_of(&p.amount).is_none())
        {
            return Ok(
                json!({"status": "refused", "reason": "1 to 20 valid picks of 0.10 to 1000.00"}),
            );
        }
        let total: Decimal = picks
            .iter()
            .map(|p| stake_of(&p.amount).unwrap_or_default())
            .sum();
        let now = self.clock.now_ms();
        let round = self.round_at(now);
        if now >= (round + 1) * self.round_ms - CLOSE_BEFORE_SPIN_MS {
            return Ok(json!({"status": "refused", "reason": "no more bets"}));
        }
        let tx = new_id("bet");
        let picks_json = serde_json::to_string(picks).unwrap_or_default();
        let (token, member, currency, is_fun) = match (player, fun) {
            (Some(p), _) => (p.token.clone(), p.user.clone(), p.currency.clone(), 0),
            (None, Some(session)) => (session.to_string(), String::new(), "FUN".to_string(), 1),
            _ => return Ok(json!({"status": "refused", "reason": "no player and no fun session"})),
        };
        if is_fun == 1 {
            match self.fun_move(&token, -total).await? {
                Some(_) => {}
                None => return Ok(json!({"status": "refused", "reason": "not enough play money"})),
            }
        }
        let game = player.map(|p| p.game.clone()).unwrap_or_default();
        sqlx::query("INSERT INTO demo_roulette_bets (round_id, transaction_uuid, token, member, currency, fun, picks, amount, state, game) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)")
            .bind(round)
            .bind(&tx)
            .bind(&token)
            .bind(&member)
            .bind(&currency)
            .bind(is_fun)
            .bind(&picks_json)
            .bind(total.to_string())
            .bind(if is_fun == 1 { "confirmed" } else { "placed" })
            .bind(game)
            .execute(&self.pool)
            .await?;
        let Some(player) = player else {
            return Ok(json!({"status": "ok", "round": round, "transaction": tx}));
        };
        let outcome = self
            .bet(
                player,
                &tx,
                &format!("roulette-{round}"),
                to_units(total),
                false,
            )
            .await;
        let (state, answer) = match outcome {
            BetOutcome::Confirmed { balance } => (
                "confirmed",
                json!({"status": "ok", "round": round, "transaction": tx, "balance": money(balance), "currency": player.currency}),
            ),
            BetOutcome::Refused { status, balance } => (
                "refused",
                json!({"status": "refused", "reason": status, "balance": money(balance), "currency": player.currency}),
            ),
            BetOutcome::Unconfirmed => (
                "rolled_back",
                json!({"status": "error", "reason": "the bet could not be confirmed and was rolled back"}),
            ),
        };
        sqlx::query("UPDATE demo_roulette_bets SET state = $1 WHERE round_id = $2 AND transaction_uuid = $3 AND state = 'placed'")
            .bind(state)
            .bind(round)
            .bind(&tx)
            .execute(&self.pool)
            .await?;
        Ok(answer)
    }

    /// Settles every round whose spin has come: wins (0 for losers) close
    /// each player's round; unconfirmed bets are rolled back.
    pub async fn settle_due(&self) -> Result<usize, PassError> {
        let now = self.clock.now_ms();
        let current = self.round_at(now);
        let rows = sqlx::query("SELECT round_id, transaction_uuid, token, member, currency, game, fun, picks, state FROM demo_roulette_bets WHERE state IN ('placed', 'confirmed') AND round_id < $1 ORDER BY round_id, member, transaction_uuid LIMIT 500")
            .bind(current)
            .fetch_all(&self.pool)
            .await?;
        // Per round and player: their bets in order (the last closes).
        let mut groups: BTreeMap<(i64, String, String), Vec<sqlx::any::AnyRow>> = BTreeMap::new();
        for row in rows {
            let key = (
                row.get::<i64, _>("round_id"),
                row.get::<String, _>("member"),
                row.get::<String, _>("token"),
            );
            groups.entry(key).or_default().push(row);
        }
        let mut settled = 0;
        for ((round, member, token), bets) in groups {
            let number = self.number(round);
            let wallet_round = format!("roulette-{round}");
            // Wins go in order; one stuck in the outbox holds the rest back.
            if !member.is_empty() && self.waiting(&member, &wallet_round).await? {
                continue;
            }
            let last = bets.len() - 1;
            let mut held = false;
            for (i, row) in bets.iter().enumerate() {
                let tx: String = row.get("transaction_uuid");
                let picks: Vec<PickStake> =
                    serde_json::from_str(&row.get::<String, _>("picks")).unwrap_or_default();
                let payout = Self::payout(&picks, number);
                let state: String = row.get("state");
                let fun = row.get::<i64, _>("fun") == 1;
                let new_state = if fun {
                    self.fun_move(&token, payout).await?;
                    "won"
                } else {
                    let player = Player {
                        token: token.clone(),
                        user: member.clone(),
                        currency: row.get("currency"),
                        game: row.get("game"),
                    };
                    let answered = if state == "placed" {
                        self.rollback(&player, &tx, &wallet_round, i == last).await
                    } else {
                        self.win(&player, &tx, &wallet_round, to_units(payout), i == last)
                            .await
                    };
                    if answered.is_none() {
                        held = true;
                    }
                    if state == "placed" {
                        "rolled_back"
                    } else {
                        "won"
                    }
                };
                sqlx::query("UPDATE demo_roulette_bets SET state = $1, payout = $2 WHERE round_id = $3 AND transaction_uuid = $4")
                    .bind(new_state)
                    .bind(payout.to_string())
                    .bind(round)
                    .bind(&tx)
                    .execute(&self.pool)
                    .await?;
                settled += 1;
                if held {
                    break;
                }
            }
        }
        Ok(settled)
    }

    pub async fn roulette_state(&self, who: &str) -> Result<Value, sqlx::Error> {
        let now = self.clock.now_ms();
        let round = self.round_at(now);
        let history: Vec<u8> = (1..=10).map(|k| self.number(round - k)).collect();
        let rows = sqlx::query("SELECT round_id, transaction_uuid, picks, amount, state, payout FROM demo_roulette_bets WHERE token = $1 AND round_id >= $2 ORDER BY round_id DESC, transaction_uuid LIMIT 40")
            .bind(who)
            .bind(round - 1)
            .fetch_all(&self.pool)
            .await?;
        let bets: Vec<Value> = rows
            .iter()
            .map(|r| {
                let state: String = r.get("state");
                json!({
                    "round": r.get::<i64, _>("round_id"),
                    "picks": serde_json::from_str::<Value>(&r.get::<String, _>("picks")).unwrap_or(Value::Null),
                    "amount": r.get::<String, _>("amount"),
                    "state": state,
                    "payout": if state == "won" { r.get::<Option<String>, _>("payout") } else { None },
                })
            })
            .collect();
        Ok(json!({
            "status": "ok",
            "round": round,
            "now": now,
            "bets_close_at": (round + 1) * self.round_ms - CLOSE_BEFORE_SPIN_MS,
            "spin_at": (round + 1) * self.round_ms,
            "last_number": history[0],
            "history": history,
            "bets": bets,
        }))
    }
}

#[derive(Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
struct StateQuery {
    session: Option<String>,
    token: Option<String>,
}

#[utoipa::path(get, path = "/demo-provider/api/roulette/state", operation_id = "demo_roulette_state", tag = crate::openapi::DEMO_PROVIDER, params(StateQuery), responses(crate::openapi::ProviderAnswers))]
async fn state(State(app): State<AppState>, Query(q): Query<StateQuery>) -> Json<Value> {
    let who = q.session.or(q.token).unwrap_or_default();
    if who.len() > 128 {
        return refusal("bad request");
    }
    match app.casino.demo.roulette_state(&who).await {
        Ok(v) => Json(v),
        Err(_) => refusal("unavailable"),
    }
}

#[utoipa::path(post, path = "/demo-provider/api/roulette/bet", operation_id = "demo_roulette_bet", tag = crate::openapi::DEMO_PROVIDER, request_body = BetBody, responses(crate::openapi::ProviderAnswers))]
async fn bet(State(app): State<AppState>, body: Option<Json<BetBody>>) -> Json<Value> {
    let Some(Json(body)) = body else {
        return refusal("bad request");
    };
    let demo = &app.casino.demo;
    if !demo.enabled {
        return refusal("the demo provider is not configured");
    }
    if body
        .player
        .as_ref()
        .is_some_and(|p| p.token.len() > 128 || p.user.len() > 64 || p.game.len() > 100)
        || body.fun_session.as_ref().is_some_and(|s| s.len() > 64)
    {
        return refusal("bad request");
    }
    match demo
        .roulette_bet(
            body.player.as_ref(),
            body.fun_session.as_deref(),
            &body.picks,
        )
        .await
    {
        Ok(v) => Json(v),
        Err(e) => {
            tracing::error!(error = %e, "demo roulette bet");
            refusal("unavailable")
        }
    }
}

/// This module's part of the OpenAPI description (`crate::openapi`).
pub(crate) fn doc() -> utoipa::openapi::OpenApi {
    #[derive(utoipa::OpenApi)]
    #[openapi(paths(state, bet))]
    struct Doc;
    #[allow(unused_mut)]
    let mut doc = <Doc as utoipa::OpenApi>::openapi();
    doc
}
