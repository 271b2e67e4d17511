//! Betting on the wire: `do_bet`, `get_max_bet` and `bet_history` over
//! `/swarm`, `report/betrecods` on the main API, and the settlement worker
//! that carries out the `settlement` projection's tasks.

use std::sync::Arc;
use std::time::Duration;

use commands::accounts::AccountService;
use commands::bets::{BetService, PlaceError};
use domain::bet::{BetRefusal, BetRequest};
use domain::Currency;
use projections::bets::HistoryQuery;
use serde::Deserialize;
use serde_json::{json, Value};
use tokio::sync::watch;

pub struct Betting {
    pub bets: Arc<BetService>,
    pub accounts: Arc<AccountService>,
    pub pool: sqlx::AnyPool,
}

/// The refusal as `do_bet` answers it.
fn refusal(refusal: &BetRefusal) -> Value {
    let details = match refusal {
        BetRefusal::OddsChanged { details } => json!(details),
        BetRefusal::Conflict { event_ids } => json!({ "conflicts": event_ids }),
        BetRefusal::EventNotAvailable { event_id }
        | BetRefusal::EventBlocked { event_id }
        | BetRefusal::GameStarted { event_id }
        | BetRefusal::WrongCoefficient { event_id }
        | BetRefusal::SpNotAvailable { event_id }
        | BetRefusal::EachWayNotAvailable { event_id }
        | BetRefusal::SingleOnly { event_id } => json!({ "event_id": event_id }),
        BetRefusal::BelowMin { min } => json!({ "min": min }),
        BetRefusal::AboveMax { max } => json!({ "max": max }),
        BetRefusal::MemberLimit { limit } => json!({ "max": limit }),
        BetRefusal::OddsLimit { odds, limit } => json!({ "odds": odds, "limit": limit }),
        _ => Value::Null,
    };
    json!({ "result": refusal.code().0, "result_text": refusal.to_string(), "details": details })
}

impl Betting {
    async fn currency(&self, user_id: &str) -> Result<Currency, String> {
        let account = self
            .accounts
            .load(user_id)
            .await
            .map_err(|e| e.to_string())?;
        Ok(account.profile.map(|p| p.currency).unwrap_or(Currency::Cny))
    }

    /// `do_bet`: the bet's own result inside `data`.
    pub async fn do_bet(&self, user_id: &str, params: &Value) -> Result<Value, String> {
        let request: BetRequest =
            serde_json::from_value(params.clone()).map_err(|e| format!("invalid params: {e}"))?;
        let currency = self.currency(user_id).await?;
        match self.bets.place(user_id, currency, &request).await {
            Ok(placed) => {
                let bet = &placed.bet;
                let events: Vec<Value> = bet
                    .legs
                    .iter()
                    .map(|leg| {
                        let n = &leg.names;
                        json!({
                            "event_id": leg.event_id,
                            "game_id": leg.game_id,
                            "event_name": projections::bets::named(&n.event_name, &n.team1, n.team2.as_deref()),
                            "market_name": n.market_name,
                            "home_team": n.team1,
                            "away_team": n.team2,
                            "start_date": leg.start_ts,
                            "price": leg.price,
                            "base": leg.base,
                        })
                    })
                    .collect();
                Ok(json!({"result": "OK", "result_text": null, "details": {
                    "bet_id": placed.bet_id.parse::<i64>().unwrap_or_default(),
                    "type": bet.bet_type.code(),
                    "amount": currency.round(bet.stake).to_string(),
                    "k": bet.odds,
                    "possible_win": bet.possible_win.map(|w| currency.round(w).to_string()),
                    "currency": currency.code(),
                    "events": events,
                }}))
            }
            Err(PlaceError::Refused(r)) => Ok(refusal(&r)),
            Err(PlaceError::Internal(e)) => {
                tracing::error!(user_id, error = %e, "bet placement failed");
                Ok(
                    json!({"result": -1, "result_text": domain::Code::INTERNAL.message(), "details": null}),
                )
            }
        }
    }

    pub async fn max_bet(&self, user_id: &str) -> Result<Value, String> {
        let currency = self.currency(user_id).await?;
        let max = self
            .bets
            .max_bet(user_id, currency)
            .await
            .map_err(|e| e.to_string())?;
        Ok(json!({ "amount": currency.round(max).to_string() }))
    }

    pub async fn history(
        &self,
        user_id: &str,
        params: &Value,
    ) -> Result<(Vec<Value>, i64), String> {
        let filter: HistoryParams =
            serde_json::from_value(params.clone()).map_err(|e| format!("invalid params: {e}"))?;
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_secs() as i64)
            .unwrap_or_default();
        let number = |v: &Option<Value>| match v {
            Some(Value::Number(n)) => n.as_i64(),
            Some(Value::String(s)) => s.trim().parse().ok(),
            _ => None,
        };
        let query = HistoryQuery {
            member_id: user_id.to_string(),
            from_date: number(&filter.from_date).unwrap_or(now - 86_400),
            to_date: number(&filter.to_date).unwrap_or(now + 60),
            outcome: number(&filter.outcome),
            bet_type: number(&filter.bet_type),
            bet_id: number(&filter.bet_id).map(|id| id.to_string()),
            settled: filter.settled,
            limit: number(&filter.pn).unwrap_or(1000),
        };
        projections::bets::history(&self.pool, &query)
            .await
            .map_err(|e| e.to_string())
    }

    /// Carries out settlement tasks and recovers interrupted placements
    /// until `stop`.
    pub async fn run(self: Arc<Self>, mut stop: watch::Receiver<bool>) {
        let mut recovered_at = std::time::Instant::now();
        loop {
            tokio::select! {
                _ = tokio::time::sleep(Duration::from_millis(200)) => {}
                _ = stop.changed() => {}
            }
            if *stop.borrow() {
                return;
            }
            if let Err(e) = self.settle_open().await {
                tracing::warn!(error = %e, "settlement pass failed; retrying");
            }
            if recovered_at.elapsed() > Duration::from_secs(10) {
                recovered_at = std::time::Instant::now();
                if let Err(e) = self.bets.recover(commands::bets::RECOVER_AFTER_MS).await {
                    tracing::warn!(error = %e, "placement recovery failed; retrying");
                }
            }
        }
    }

    /// One pass over the open settlement tasks; returns how many it did.
    /// A task that fails is logged and retried on the next pass without
    /// holding up the others; a task whose selections' outcomes are not all
    /// known (a settlement projection being rebuilt) waits.
    pub async fn settle_open(&self) -> Result<usize, String> {
        let tasks = projections::settlement::open_tasks(&self.pool, 500)
            .await
            .map_err(|e| e.to_string())?;
        let mut done = 0;
        for (id, bet_id, version) in &tasks {
            let outcome = async {
                let legs = projections::settlement::legs_of(&self.pool, bet_id)
                    .await
                    .map_err(|e| e.to_string())?;
                let outcomes = projections::settlement::outcomes_of(&self.pool, bet_id)
                    .await
                    .map_err(|e| e.to_string())?;
                if legs == 0 || (outcomes.len() as i64) < legs {
                    return Ok(false);
                }
                self.bets
                    .settle(bet_id, *version as u64, outcomes)
                    .await
                    .map_err(|e| e.to_string())?;
                projections::settlement::finish_task(&self.pool, *id)
                    .await
                    .map_err(|e| e.to_string())?;
                Ok::<_, String>(true)
            }
            .await;
            match outcome {
                Ok(true) => done += 1,
                Ok(false) => {}
                Err(e) => {
                    tracing::warn!(bet_id, error = %e, "settlement task failed; retrying later")
                }
            }
        }
        Ok(done)
    }
}

#[derive(Deserialize, Default)]
struct HistoryParams {
    #[serde(default)]
    from_date: Option<Value>,
    #[serde(default)]
    to_date: Option<Value>,
    #[serde(default)]
    outcome: Option<Value>,
    #[serde(default)]
    bet_type: Option<Value>,
    #[serde(default, alias = "BetId")]
    bet_id: Option<Value>,
    #[serde(default)]
    pn: Option<Value>,
    #[serde(default)]
    settled: Option<bool>,
}
