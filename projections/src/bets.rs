//! Read model `bets`: the bet history (report/betrecods, the right panel's
//! 24-hour records, open bets), one row per bet with the bet record of spec
//! 001 section 3 ready to answer.

use std::collections::BTreeMap;

use domain::bet::{BetEvent, BetStatus, ValidBet};
use domain::result::SelectionOutcome;
use domain::Currency;
use futures::future::BoxFuture;
use rust_decimal::Decimal;
use serde_json::{json, Value};
use sqlx::{AnyConnection, Executor, Row};

use crate::runner::{Projection, ProjectionError};
use crate::stream::StoredEvent;

pub const NAME: &str = "bets";

pub struct BetHistoryProjection;

/// A selection's outcome as the bet record shows it: 3 is "not settled yet"
/// (spec 000 section 3); the others are platform-defined.
pub fn leg_outcome_code(outcome: Option<SelectionOutcome>) -> i64 {
    match outcome {
        None => 3,
        Some(SelectionOutcome::Lost) => 0,
        Some(SelectionOutcome::Won) => 1,
        Some(SelectionOutcome::Returned) => 2,
        Some(SelectionOutcome::HalfWon) => 4,
        Some(SelectionOutcome::HalfLost) => 5,
    }
}

/// W1/W2/Team 1/Team 2/Home/Away in a selection's name become team names.
pub fn named(name: &str, team1: &str, team2: Option<&str>) -> String {
    let team2 = team2.unwrap_or_default();
    let mut out = name.to_string();
    for (placeholder, team) in [
        ("Team 1", team1),
        ("Team 2", team2),
        ("W1", team1),
        ("W2", team2),
        ("Home", team1),
        ("Away", team2),
    ] {
        if !team.is_empty() {
            out = out.replace(placeholder, team);
        }
    }
    out
}

fn money(currency: Currency, amount: Decimal) -> String {
    currency.round(amount).to_string()
}

/// The bet record of a placed bet in its current state.
pub fn record(
    bet_id: &str,
    bet: &ValidBet,
    currency: Currency,
    date_time: i64,
    status: BetStatus,
    payout: Decimal,
    bonus: Decimal,
    outcomes: &BTreeMap<u64, SelectionOutcome>,
) -> Value {
    let events: Vec<Value> = bet
        .legs
        .iter()
        .map(|leg| {
            let n = &leg.names;
            json!({
                "competition_name": n.competition_name,
                "team1": n.team1,
                "team2": n.team2,
                "sport_name": n.sport_name,
                "region_name": n.region_name,
                "game_name": match &n.team2 { Some(t2) => format!("{} - {}", n.team1, t2), None => n.team1.clone() },
                "market_name": named(&n.market_name, &n.team1, n.team2.as_deref()),
                "event_name": named(&n.event_name, &n.team1, n.team2.as_deref()),
                "coeficient": leg.price.to_string(),
                "base": leg.base.map(|b| b.to_string()),
                "sport_index": n.sport_id,
                "sport_id": n.sport_id,
                "game_id": leg.game_id,
                "selection_id": leg.event_id,
                "start_date": leg.start_ts,
                "banker": leg.banker,
                "outcome": leg_outcome_code(outcomes.get(&leg.event_id).copied()),
            })
        })
        .collect();
    let id: i64 = bet_id.parse().unwrap_or_default();
    json!({
        "id": id,
        "BetId": id,
        "type": bet.bet_type.code(),
        "system_min_count": bet.sys_bet,
        "date_time": date_time,
        "amount": money(currency, bet.stake),
        "bonus_bet_amount": money(currency, Decimal::ZERO),
        "bonus": money(currency, bonus),
        "Bonus": money(currency, bonus),
        "k": bet.odds.map(|k| k.to_string()),
        "possible_win": bet.possible_win.map(|w| money(currency, w)),
        "payout": money(currency, payout),
        "outcome": status.code(),
        "cash_out": false,
        "is_super_bet": bet.super_bet,
        "super_bet_id": if bet.super_bet { Some(id) } else { None },
        "super_bet_status": if bet.super_bet { Some(0) } else { None },
        "client_bonus_id": bet.bonus_id,
        "currency": currency.code(),
        "each_way": bet.each_way,
        "events": events,
    })
}

struct Row2 {
    member_id: String,
    record: Value,
}

async fn load(conn: &mut AnyConnection, bet_id: &str) -> Result<Option<Row2>, sqlx::Error> {
    let row = sqlx::query("SELECT member_id, record FROM bets WHERE bet_id = $1")
        .bind(bet_id)
        .fetch_optional(&mut *conn)
        .await?;
    row.map(|r| {
        let text: String = r.try_get("record")?;
        Ok(Row2 {
            member_id: r.try_get("member_id")?,
            record: serde_json::from_str(&text).unwrap_or(Value::Null),
        })
    })
    .transpose()
}

#[allow(clippy::too_many_arguments)]
async fn save(
    conn: &mut AnyConnection,
    bet_id: &str,
    member_id: &str,
    record: &Value,
    sequence: i64,
    settled_at: i64,
) -> Result<(), sqlx::Error> {
    sqlx::query(
        "INSERT INTO bets (bet_id, member_id, bet_type, status, amount, payout, currency, date_time, settled_at, record, last_sequence)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
         ON CONFLICT (bet_id) DO UPDATE SET status = excluded.status, payout = excluded.payout,
           settled_at = excluded.settled_at, record = excluded.record, last_sequence = excluded.last_sequence",
    )
    .bind(bet_id)
    .bind(member_id)
    .bind(record["type"].as_i64().unwrap_or_default())
    .bind(record["outcome"].as_i64().unwrap_or_default())
    .bind(record["amount"].as_str().unwrap_or("0").to_string())
    .bind(record["payout"].as_str().unwrap_or("0").to_string())
    .bind(record["currency"].as_str().unwrap_or("").to_string())
    .bind(record["date_time"].as_i64().unwrap_or_default())
    .bind(settled_at)
    .bind(record.to_string())
    .bind(sequence)
    .execute(&mut *conn)
    .await?;
    Ok(())
}

fn apply_settlement(
    record: &mut Value,
    status: BetStatus,
    payout: Decimal,
    bonus: Decimal,
    outcomes: &BTreeMap<u64, SelectionOutcome>,
) {
    let currency: Currency = record["currency"]
        .as_str()
        .unwrap_or("CNY")
        .parse()
        .unwrap_or(Currency::Cny);
    record["outcome"] = json!(status.code());
    record["payout"] = json!(money(currency, payout));
    record["bonus"] = json!(money(currency, bonus));
    record["Bonus"] = json!(money(currency, bonus));
    if let Some(events) = record["events"].as_array_mut() {
        for event in events {
            let id = event["selection_id"].as_u64().unwrap_or_default();
            event["outcome"] = json!(leg_outcome_code(outcomes.get(&id).copied()));
        }
    }
}

impl Projection for BetHistoryProjection {
    fn name(&self) -> &'static str {
        NAME
    }

    fn aggregate_types(&self) -> &'static [&'static str] {
        &["Bet"]
    }

    fn apply<'a>(
        &'a self,
        conn: &'a mut AnyConnection,
        events: &'a [StoredEvent],
    ) -> BoxFuture<'a, Result<(), ProjectionError>> {
        Box::pin(async move {
            for stored in events.iter().filter(|e| e.aggregate_type == "Bet") {
                let payload = stored.payload.as_deref().unwrap_or("null");
                let event: BetEvent = serde_json::from_str(payload)
                    .map_err(|e| ProjectionError::bad_event(stored, e))?;
                let bet_id = stored.aggregate_id.as_str();
                let at_s = |at_ms: i64| at_ms / 1000;
                match event {
                    BetEvent::BetPlaced {
                        member_id,
                        currency,
                        bet,
                        status,
                        date_time,
                        ..
                    } => {
                        let record = record(
                            bet_id,
                            &bet,
                            currency,
                            date_time,
                            status,
                            Decimal::ZERO,
                            Decimal::ZERO,
                            &BTreeMap::new(),
                        );
                        save(conn, bet_id, &member_id, &record, stored.sequence, 0).await?;
                    }
                    other => {
                        let Some(mut row) = load(conn, bet_id).await? else {
                            return Err(ProjectionError::bad_event(
                                stored,
                                "bet event before its BetPlaced",
                            ));
                        };
                        let settled_at = match other {
                            BetEvent::BetAccepted { .. } => {
                                row.record["outcome"] = json!(BetStatus::Unsettled.code());
                                row.record["super_bet_status"] = json!(1);
                                0
                            }
                            BetEvent::BetDeclined { at_ms, .. } => {
                                row.record["outcome"] = json!(BetStatus::Declined.code());
                                if row.record["is_super_bet"] == json!(true) {
                                    row.record["super_bet_status"] = json!(-1);
                                }
                                at_s(at_ms)
                            }
                            BetEvent::BetSettled {
                                status,
                                payout,
                                bonus,
                                outcomes,
                                at_ms,
                                ..
                            }
                            | BetEvent::BetResettled {
                                status,
                                payout,
                                bonus,
                                outcomes,
                                at_ms,
                                ..
                            } => {
                                apply_settlement(&mut row.record, status, payout, bonus, &outcomes);
                                at_s(at_ms)
                            }
                            BetEvent::BetPlaced { .. } => 0,
                        };
                        save(
                            conn,
                            bet_id,
                            &row.member_id,
                            &row.record,
                            stored.sequence,
                            settled_at,
                        )
                        .await?;
                    }
                }
            }
            Ok(())
        })
    }

    fn reset<'a>(
        &'a self,
        conn: &'a mut AnyConnection,
    ) -> BoxFuture<'a, Result<(), ProjectionError>> {
        Box::pin(async move {
            conn.execute("DELETE FROM bets").await?;
            Ok(())
        })
    }
}

/// Filters of report/betrecods.
#[derive(Debug, Clone, Default)]
pub struct HistoryQuery {
    pub member_id: String,
    pub from_date: i64,
    pub to_date: i64,
    pub outcome: Option<i64>,
    pub bet_type: Option<i64>,
    pub bet_id: Option<String>,
    /// Only unsettled (0) or only settled bets.
    pub settled: Option<bool>,
    pub limit: i64,
}

/// A member's bet records, newest first, and how many matched.
pub async fn history(
    pool: &sqlx::AnyPool,
    q: &HistoryQuery,
) -> Result<(Vec<Value>, i64), sqlx::Error> {
    let mut sql =
        String::from("FROM bets WHERE member_id = $1 AND date_time >= $2 AND date_time <= $3");
    let mut binds: Vec<Bind> = vec![
        Bind::Text(q.member_id.clone()),
        Bind::Int(q.from_date),
        Bind::Int(q.to_date),
    ];
    if let Some(outcome) = q.outcome {
        binds.push(Bind::Int(outcome));
        sql.push_str(&format!(" AND status = ${}", binds.len()));
    }
    if let Some(bet_type) = q.bet_type {
        binds.push(Bind::Int(bet_type));
        sql.push_str(&format!(" AND bet_type = ${}", binds.len()));
    }
    if let Some(bet_id) = &q.bet_id {
        binds.push(Bind::Text(bet_id.clone()));
        sql.push_str(&format!(" AND bet_id = ${}", binds.len()));
    }
    match q.settled {
        Some(true) => sql.push_str(" AND status NOT IN (0, -5)"),
        Some(false) => sql.push_str(" AND status IN (0, -5)"),
        None => {}
    }
    let count_sql = format!("SELECT count(*) {sql}");
    let list_sql = format!(
        "SELECT record {sql} ORDER BY date_time DESC, bet_id DESC LIMIT {}",
        q.limit.clamp(1, 1000)
    );
    let mut count = sqlx::query_scalar::<_, i64>(&count_sql);
    let mut list = sqlx::query(&list_sql);
    for b in &binds {
        match b {
            Bind::Text(t) => {
                count = count.bind(t.clone());
                list = list.bind(t.clone());
            }
            Bind::Int(i) => {
                count = count.bind(*i);
                list = list.bind(*i);
            }
        }
    }
    let total = count.fetch_one(pool).await?;
    let rows = list.fetch_all(pool).await?;
    let records = rows
        .iter()
        .map(|r| {
            let text: String = r.try_get("record")?;
            Ok(serde_json::from_str(&text).unwrap_or(Value::Null))
        })
        .collect::<Result<Vec<_>, sqlx::Error>>()?;
    Ok((records, total))
}

enum Bind {
    Text(String),
    Int(i64),
}

/// Every row (rebuild comparisons).
pub async fn all(pool: &sqlx::AnyPool) -> Result<Vec<(String, String)>, sqlx::Error> {
    let rows = sqlx::query("SELECT bet_id, record FROM bets ORDER BY bet_id")
        .fetch_all(pool)
        .await?;
    rows.iter()
        .map(|r| Ok((r.try_get("bet_id")?, r.try_get("record")?)))
        .collect()
}
