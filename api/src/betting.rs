//! Betting on the wire: `do_bet`, `get_max_bet`, `bet_history` and the
//! cash-out commands over `/swarm`, `report/betrecods` on the main API.
//! Decoding, a call into `commands`, encoding: the settlement worker,
//! placement recovery and the auto cash-out watcher are process managers
//! in `commands` (`settlement`, `autocashout`).

use std::sync::Arc;

use commands::accounts::AccountService;
use commands::sportsbook::bets::{BetService, PlaceError};
use commands::sportsbook::cashout::CashOutAnswer;
use domain::bet::BetError;
use domain::bet::{BetRefusal, BetRequest, RequestId, REQUEST_ID_MAX};
use domain::Currency;
use projections::bets::HistoryQuery;
use rust_decimal::Decimal;
use serde::Deserialize;
use serde_json::{json, Value};

pub struct Betting {
    pub bets: Arc<BetService>,
    pub accounts: Arc<AccountService>,
    pub pool: sqlx::AnyPool,
    /// Members' currencies: fixed at registration, so remembered.
    pub currencies: std::sync::Mutex<std::collections::HashMap<String, Currency>>,
    /// Bets placed and refused by this process (`/metrics`).
    pub metrics: crate::business_metrics::BusinessMetrics,
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
        // 1510_sb: the client may send the same bet again as a super bet.
        BetRefusal::MemberLimit { limit } => json!({ "max": limit, "super_bet": true }),
        BetRefusal::OddsLimit { odds, limit } => json!({ "odds": odds, "limit": limit }),
        BetRefusal::Safer(e) => e.details(),
        _ => Value::Null,
    };
    json!({ "result": refusal.code().0, "result_text": refusal.to_string(), "details": details })
}

impl Betting {
    async fn currency(&self, user_id: &str) -> Result<Currency, String> {
        let known = self
            .currencies
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(user_id)
            .copied();
        if let Some(currency) = known {
            return Ok(currency);
        }
        let account = self
            .accounts
            .load(user_id)
            .await
            .map_err(|e| e.to_string())?;
        let currency = account.profile.map(|p| p.currency).unwrap_or(Currency::Cny);
        let mut known = self.currencies.lock().unwrap_or_else(|p| p.into_inner());
        if known.len() > 100_000 {
            known.clear();
        }
        known.insert(user_id.to_string(), currency);
        Ok(currency)
    }

    /// `do_bet`: the bet's own result inside `data`.
    pub async fn do_bet(&self, user_id: &str, params: &Value) -> Result<Value, String> {
        let request: BetRequest = serde_json::from_value(crate::swarm::flags::normalized(params))
            .map_err(|e| format!("invalid params: {e}"))?;
        let request_id = request_id_of(params)?;
        let currency = self.currency(user_id).await?;
        match self
            .bets
            .place(user_id, currency, &request, request_id.as_ref())
            .await
        {
            Ok(placed) => {
                let bet = &placed.bet;
                if !placed.repeated {
                    let stake = bet.stake.to_string().parse().unwrap_or(0.0);
                    self.metrics.placed(currency.code(), stake);
                }
                let events: Vec<Value> = bet
                    .legs
                    .iter()
                    .map(|leg| {
                        let n = &leg.names;
                        json!({
                            "event_id": leg.event_id,
                            "selection_id": leg.event_id,
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
                    "status": if bet.super_bet { -5 } else { 0 },
                    "super_bet_status": if bet.super_bet { Some(0) } else { None },
                    "events": events,
                }}))
            }
            Err(PlaceError::Refused(r)) => {
                self.metrics.refused(i64::from(r.code().0));
                Ok(refusal(&r))
            }
            Err(PlaceError::Internal(e)) => {
                self.metrics.refused(i64::from(domain::Code::INTERNAL.0));
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
        let amount = currency.round(max);
        // `result` carries the amount as real Swarm clients read it.
        Ok(json!({
            "result": amount.to_string().parse::<f64>().unwrap_or_default(),
            "amount": amount.to_string(),
        }))
    }

    /// Swarm `bet_history`: the filters may come in `where` as well as at
    /// the top level (the top level wins), and `cash_out` is the bet's
    /// current cash-out amount (a number, 0 when none is offered).
    pub async fn swarm_history(&self, user_id: &str, params: &Value) -> Result<Value, String> {
        let params = crate::swarm::flags::history_filters(params)?;
        let (mut list, total) = self.history(user_id, &params).await?;
        for record in &mut list {
            let offered = record.get("cash_out").is_some_and(|c| {
                c.as_bool().unwrap_or(false) || c.as_f64().is_some_and(|n| n > 0.0)
            });
            let mut amount = 0.0;
            if offered {
                if let Some(bet_id) = record.get("id").and_then(id_of) {
                    if let Some(bet) = self
                        .bets
                        .own_bet(user_id, &bet_id)
                        .await
                        .map_err(|e| e.to_string())?
                    {
                        let outcomes = self.outcomes(&bet_id).await?;
                        amount = bet
                            .cashout_amount(&self.bets.live_prices(&bet), &outcomes)
                            .and_then(|a| a.to_string().parse::<f64>().ok())
                            .unwrap_or_default();
                    }
                }
            }
            record["cash_out"] = json!(amount);
        }
        Ok(json!({ "bets": list, "total": total }))
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
        // A filter given with the wrong type is refused, never ignored
        // (ignoring it would answer more than the member asked for).
        let number = |name: &str, v: &Option<Value>| -> Result<Option<i64>, String> {
            match v {
                None | Some(Value::Null) => Ok(None),
                Some(Value::String(s)) if s.trim().is_empty() => Ok(None),
                Some(Value::Number(n)) => n
                    .as_i64()
                    .map(Some)
                    .ok_or_else(|| format!("invalid params: {name} must be a whole number")),
                Some(Value::String(s)) => s
                    .trim()
                    .parse()
                    .map(Some)
                    .map_err(|_| format!("invalid params: {name} must be a whole number")),
                Some(_) => Err(format!("invalid params: {name} must be a whole number")),
            }
        };
        let limit = number("pn", &filter.pn)?.unwrap_or(1000);
        if !(1..=1000).contains(&limit) {
            return Err("invalid params: pn must be from 1 to 1000".into());
        }
        let query = HistoryQuery {
            member_id: user_id.to_string(),
            from_date: number("from_date", &filter.from_date)?.unwrap_or(now - 86_400),
            to_date: number("to_date", &filter.to_date)?.unwrap_or(now + 60),
            outcome: number("outcome", &filter.outcome)?,
            bet_type: number("bet_type", &filter.bet_type)?,
            bet_id: number("BetId", &filter.bet_id)?.map(|id| id.to_string()),
            settled: filter.settled,
            limit,
        };
        projections::bets::history(&self.pool, &query)
            .await
            .map_err(|e| e.to_string())
    }

    async fn outcomes(
        &self,
        bet_id: &str,
    ) -> Result<std::collections::BTreeMap<u64, domain::result::SelectionOutcome>, String> {
        projections::settlement::outcomes_of(&self.pool, bet_id)
            .await
            .map_err(|e| e.to_string())
    }

    /// `calculate_cashout_amount {bet_ids}`.
    pub async fn calculate_cashout(&self, user_id: &str, params: &Value) -> Result<Value, String> {
        let ids: Vec<String> = match params.get("bet_ids") {
            Some(Value::Array(ids)) => ids.iter().filter_map(id_of).collect(),
            Some(one) => id_of(one).into_iter().collect(),
            None => return Err("invalid params: bet_ids is required".into()),
        };
        if ids.len() > 100 {
            return Err("invalid params: at most 100 bet_ids".into());
        }
        let mut details = Vec::with_capacity(ids.len());
        for bet_id in ids {
            let Some(bet) = self
                .bets
                .own_bet(user_id, &bet_id)
                .await
                .map_err(|e| e.to_string())?
            else {
                continue;
            };
            let outcomes = self.outcomes(&bet_id).await?;
            let amount = bet.cashout_amount(&self.bets.live_prices(&bet), &outcomes);
            details.push(json!({
                "Id": bet_id.parse::<i64>().unwrap_or_default(),
                "CashoutAmount": amount.map(|a| a.to_string().parse::<f64>().unwrap_or_default()),
            }));
        }
        Ok(json!({ "result": 0, "details": details }))
    }

    /// `cashout {bet_id, price, partial_price?}`.
    pub async fn cashout(&self, user_id: &str, params: &Value) -> Result<Value, String> {
        let bet_id = params
            .get("bet_id")
            .and_then(id_of)
            .ok_or("invalid params: bet_id is required")?;
        let price = decimal_of(params.get("price")).ok_or("invalid params: price is required")?;
        let partial = match params.get("partial_price") {
            None | Some(Value::Null) => None,
            Some(v) => Some(decimal_of(Some(v)).ok_or("invalid params: partial_price")?),
        };
        if price <= Decimal::ZERO || partial.is_some_and(|p| p <= Decimal::ZERO) {
            return Ok(json!({"result": "Fail", "result_text": "Wrong amount", "details": null}));
        }
        let request_id = match params.get("request_id") {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) if !s.trim().is_empty() && s.len() <= 64 => {
                Some(s.trim().to_string())
            }
            Some(Value::Number(n)) => Some(n.to_string()),
            Some(_) => return Err("invalid params: request_id".into()),
        };
        let outcomes = self.outcomes(&bet_id).await?;
        let answer = self
            .bets
            .cash_out(
                user_id,
                &bet_id,
                price,
                partial,
                request_id.as_deref(),
                &outcomes,
            )
            .await
            .map_err(|e| e.to_string())?;
        Ok(match answer {
            CashOutAnswer::Ok {
                amount,
                remaining_stake,
                status,
            } => json!({"result": "Ok", "details": {
                "bet_id": bet_id.parse::<i64>().unwrap_or_default(),
                "cash_out_amount": format!("{:.2}", amount),
                "remaining_stake": format!("{:.2}", remaining_stake),
                "status": status.code(),
            }}),
            CashOutAnswer::Fail { new_price } => {
                let price = new_price.to_string().parse::<f64>().unwrap_or_default();
                json!({"result": "Fail", "result_text": "Cannot cash out", "details": {"new_price": price, "price": price}})
            }
            CashOutAnswer::NotAvailable => {
                json!({"result": "NotAvailable", "result_text": "The current game cannot be settled in advance!", "details": null})
            }
        })
    }

    /// `set_bet_auto_cashout {bet_id, min_amount, partial_amount?}`.
    pub async fn set_auto_cashout(&self, user_id: &str, params: &Value) -> Result<Value, String> {
        let bet_id = params
            .get("bet_id")
            .and_then(id_of)
            .ok_or("invalid params: bet_id is required")?;
        let min_amount =
            decimal_of(params.get("min_amount")).ok_or("invalid params: min_amount is required")?;
        let partial = match params.get("partial_amount") {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) if s.trim().is_empty() => None,
            Some(v) => Some(decimal_of(Some(v)).ok_or("invalid params: partial_amount")?),
        };
        let outcomes = self.outcomes(&bet_id).await?;
        let result = self
            .bets
            .set_auto_cashout(user_id, &bet_id, min_amount, partial, &outcomes)
            .await
            .map_err(|e| e.to_string())?;
        Ok(match result {
            Ok(()) => json!({"result": 0}),
            Err(BetError::WrongAutoCashout { min, max }) => json!({
                "result": domain::Code::WRONG_AMOUNT.0, "result_text": "Wrong amount",
                "details": {"min": format!("{min:.2}"), "max": format!("{max:.2}")}}),
            Err(BetError::NotAvailable) | Err(BetError::NotPlaced) => {
                json!({"result": "NotAvailable", "result_text": "The current game cannot be settled in advance!"})
            }
            Err(e) => json!({"result": e.code().0, "result_text": e.to_string()}),
        })
    }

    /// `get_bet_auto_cashout {bet_id}`.
    pub async fn get_auto_cashout(&self, user_id: &str, params: &Value) -> Result<Value, String> {
        let bet_id = params
            .get("bet_id")
            .and_then(id_of)
            .ok_or("invalid params: bet_id is required")?;
        let bet = self
            .bets
            .own_bet(user_id, &bet_id)
            .await
            .map_err(|e| e.to_string())?;
        let details = bet.and_then(|b| b.auto_cashout).map(|rule| {
            json!({
                "MinAmount": format!("{:.2}", rule.min_amount),
                "PartialAmount": rule.partial_amount.map(|p| format!("{p:.2}")),
            })
        });
        Ok(json!({"result": 0, "details": details}))
    }

    /// `cancel_bet_auto_cashout {bet_id}`.
    pub async fn cancel_auto_cashout(
        &self,
        user_id: &str,
        params: &Value,
    ) -> Result<Value, String> {
        let bet_id = params
            .get("bet_id")
            .and_then(id_of)
            .ok_or("invalid params: bet_id is required")?;
        let result = self
            .bets
            .cancel_auto_cashout(user_id, &bet_id)
            .await
            .map_err(|e| e.to_string())?;
        Ok(match result {
            Ok(()) => json!({"result": 0}),
            Err(e) => json!({"result": e.code().0, "result_text": e.to_string()}),
        })
    }

    /// `super_bet_answer {bet_id, accept}`.
    pub async fn super_bet_answer(&self, user_id: &str, params: &Value) -> Result<Value, String> {
        let bet_id = params
            .get("bet_id")
            .and_then(id_of)
            .ok_or("invalid params: bet_id is required")?;
        let accept = match params.get("accept") {
            Some(Value::Bool(b)) => *b,
            Some(Value::Number(n)) => n.as_i64() == Some(1),
            Some(Value::String(s)) => matches!(s.as_str(), "true" | "1"),
            _ => return Err("invalid params: accept is required".into()),
        };
        let result = self
            .bets
            .answer_counter_offer(user_id, &bet_id, accept)
            .await
            .map_err(|e| e.to_string())?;
        Ok(match result {
            Ok(bet) => json!({"result": 0, "details": {
                "bet_id": bet_id.parse::<i64>().unwrap_or_default(),
                "status": bet.status.code(),
                "super_bet_status": bet.super_bet_status,
            }}),
            Err(e) => json!({"result": e.code().0, "result_text": e.to_string(), "details": null}),
        })
    }

    /// `get_free_bets`: the member's free bets that can be staked now.
    pub async fn free_bets(&self, user_id: &str) -> Result<Value, String> {
        let currency = self.currency(user_id).await?;
        let open = self.bets.free_bets.open(user_id, currency).await?;
        let details: Vec<Value> = open
            .iter()
            .map(|f| {
                json!({
                    "id": f.id.parse::<i64>().unwrap_or_default(),
                    "amount": format!("{:.2}", f.amount),
                    "currency": currency.code(),
                    "expires": f.expires_ms / 1000,
                })
            })
            .collect();
        Ok(json!({"result": 0, "details": details}))
    }

    /// Whether the member has a free bet to stake (`userinfo.has_free_bets`).
    pub async fn has_free_bets(&self, user_id: &str) -> Result<bool, String> {
        let currency = self.currency(user_id).await?;
        Ok(!self
            .bets
            .free_bets
            .open(user_id, currency)
            .await?
            .is_empty())
    }
}

/// The optional `request_id` (a string of up to 64 characters, or a
/// number).
fn request_id_of(params: &Value) -> Result<Option<RequestId>, String> {
    let bad = || format!("invalid params: request_id (1 to {REQUEST_ID_MAX} characters)");
    match params.get("request_id") {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => RequestId::parse(s).map(Some).ok_or_else(bad),
        Some(Value::Number(n)) => RequestId::parse(&n.to_string()).map(Some).ok_or_else(bad),
        Some(_) => Err(bad()),
    }
}

/// A bet id given as a number or a string.
fn id_of(value: &Value) -> Option<String> {
    match value {
        Value::Number(n) => n.as_i64().map(|n| n.to_string()),
        Value::String(s)
            if !s.trim().is_empty() && s.trim().chars().all(|c| c.is_ascii_digit()) =>
        {
            Some(s.trim().to_string())
        }
        _ => None,
    }
}

/// An amount given as a number or a string.
fn decimal_of(value: Option<&Value>) -> Option<Decimal> {
    let text = match value? {
        Value::Number(n) => n.to_string(),
        Value::String(s) => s.trim().to_string(),
        _ => return None,
    };
    Decimal::from_str_exact(&text)
        .or_else(|_| Decimal::from_scientific(&text))
        .ok()
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
