//! Audits: a bet's full event history with the state replayed after each
//! event and the member's wallet movements around it; and the replay of
//! every bet from the store, compared with the bet history read model.

use cqrs_es::Aggregate;
use domain::bet::{Bet, BetEvent};
use domain::wallet::{Wallet, WalletEvent, WalletId};
use serde::Serialize;
use serde_json::{json, Value};
use sqlx::Row;
use store::db::StorePool;

use crate::app::AppState;

/// Wallet movements from this long before the bet.
const WALLET_WINDOW_MS: i64 = 3_600_000;

struct Row_ {
    sequence: i64,
    event_type: String,
    payload: String,
    metadata: String,
    recorded_ms: i64,
}

/// Milliseconds since the epoch of `recorded_at`, in each store's dialect.
fn recorded_ms_sql(pool: &StorePool) -> &'static str {
    match pool {
        StorePool::Postgres(_) => "CAST(EXTRACT(EPOCH FROM recorded_at) * 1000 AS BIGINT)",
        StorePool::Sqlite(_) => "CAST((julianday(recorded_at) - 2440587.5) * 86400000 AS INTEGER)",
    }
}

/// A JSON column as text (Postgres stores `json`, SQLite text).
fn text_sql(pool: &StorePool, column: &str) -> String {
    match pool {
        StorePool::Postgres(_) => format!("{column}::text AS {column}"),
        StorePool::Sqlite(_) => column.to_string(),
    }
}

async fn events_of(
    state: &AppState,
    aggregate_type: &str,
    aggregate_id: &str,
) -> Result<Vec<Row_>, sqlx::Error> {
    let pool = &state.db.pool;
    let sql = format!(
        "SELECT sequence, event_type, {}, {}, {} AS recorded_ms FROM events
         WHERE aggregate_type = $1 AND aggregate_id = $2 ORDER BY sequence",
        text_sql(pool, "payload"),
        text_sql(pool, "metadata"),
        recorded_ms_sql(pool)
    );
    let rows = sqlx::query(&sql)
        .bind(aggregate_type)
        .bind(aggregate_id)
        .fetch_all(&state.db.any)
        .await?;
    rows.iter()
        .map(|r| {
            Ok(Row_ {
                sequence: r.try_get("sequence")?,
                event_type: r.try_get("event_type")?,
                payload: r.try_get("payload")?,
                metadata: r.try_get("metadata")?,
                recorded_ms: r.try_get("recorded_ms")?,
            })
        })
        .collect()
}

fn parse(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or(Value::Null)
}

/// The audit trail of `bet_id`, or `None` for a bet never placed.
pub async fn trail(state: &AppState, bet_id: &str) -> Result<Option<Value>, String> {
    let rows = events_of(state, "Bet", bet_id)
        .await
        .map_err(|e| e.to_string())?;
    if rows.is_empty() {
        return Ok(None);
    }
    let mut bet = Bet::default();
    let mut events = Vec::with_capacity(rows.len());
    for row in &rows {
        let event: BetEvent = serde_json::from_str(&row.payload)
            .map_err(|e| format!("bet {bet_id} event {}: {e}", row.sequence))?;
        bet.apply(event);
        events.push(json!({
            "sequence": row.sequence,
            "event_type": row.event_type,
            "recorded_at": row.recorded_ms,
            "payload": parse(&row.payload),
            "metadata": parse(&row.metadata),
            "state": serde_json::to_value(&bet).unwrap_or(Value::Null),
        }));
    }
    let Some(placed) = bet.placement.as_ref() else {
        return Ok(Some(
            json!({"bet_id": bet_id, "events": events, "wallet": []}),
        ));
    };
    let wallet_id = WalletId::new(&placed.member_id, placed.currency);
    let from = rows.first().map(|r| r.recorded_ms).unwrap_or_default() - WALLET_WINDOW_MS;
    let to = rows.last().map(|r| r.recorded_ms).unwrap_or_default();
    let mine = format!("bet:{bet_id}");
    let mut wallet = Wallet::default();
    let mut movements = Vec::new();
    for row in events_of(state, "Wallet", &wallet_id.to_string())
        .await
        .map_err(|e| e.to_string())?
    {
        let event: WalletEvent = serde_json::from_str(&row.payload)
            .map_err(|e| format!("wallet {wallet_id} event {}: {e}", row.sequence))?;
        let reference = event.reference().unwrap_or_default().to_string();
        let mine_too = |r: &str| r == mine || r.starts_with(&format!("{mine}:"));
        // A free bet's stake is held under the free bet's reference; its
        // take (`bet:{id}:take`) names the bet.
        let of_this_bet = mine_too(&reference) || event.also_reference().is_some_and(mine_too);
        wallet.apply(event);
        if of_this_bet || (row.recorded_ms >= from && row.recorded_ms <= to) {
            movements.push(json!({
                "sequence": row.sequence,
                "event_type": row.event_type,
                "recorded_at": row.recorded_ms,
                "reference": reference,
                "of_this_bet": of_this_bet,
                "payload": parse(&row.payload),
                "balances": serde_json::to_value(wallet.balances()).unwrap_or(Value::Null),
            }));
        }
    }
    Ok(Some(json!({
        "bet_id": bet_id,
        "user_id": placed.member_id,
        "wallet_id": wallet_id.to_string(),
        "events": events,
        "wallet": movements,
    })))
}

#[derive(Debug, Serialize)]
pub struct Difference {
    pub bet_id: String,
    pub field: String,
    pub store: Value,
    pub read_model: Value,
}

#[derive(Debug, Serialize)]
pub struct ReplayReport {
    pub checked: usize,
    pub differences: Vec<Difference>,
}

/// Replays every bet from the store (the Bet aggregate and the history
/// record folded from its events) and reports where the bet history read
/// model differs: a missing row, another status, amount or payout.
pub async fn replay_bets(state: &AppState) -> Result<ReplayReport, String> {
    let stored: std::collections::HashMap<String, String> = projections::bets::all(&state.db.any)
        .await
        .map_err(|e| e.to_string())?
        .into_iter()
        .collect();
    let sql = format!(
        "SELECT aggregate_id, {} FROM events WHERE aggregate_type = 'Bet' ORDER BY aggregate_id, sequence",
        text_sql(&state.db.pool, "payload")
    );
    let rows = sqlx::query(&sql)
        .fetch_all(&state.db.any)
        .await
        .map_err(|e| e.to_string())?;
    let mut report = ReplayReport {
        checked: 0,
        differences: Vec::new(),
    };
    let mut current: Option<(String, Bet, Option<projections::bets::BetRecord>)> = None;
    let finish = |done: Option<(String, Bet, Option<projections::bets::BetRecord>)>,
                  report: &mut ReplayReport| {
        let Some((bet_id, bet, record)) = done else {
            return;
        };
        report.checked += 1;
        let folded = record.as_ref().map(projections::bets::BetRecord::to_value);
        compare(&bet_id, &bet, folded.as_ref(), stored.get(&bet_id), report);
    };
    for row in rows {
        let bet_id: String = row.try_get("aggregate_id").map_err(|e| e.to_string())?;
        let payload: String = row.try_get("payload").map_err(|e| e.to_string())?;
        if current.as_ref().map(|c| &c.0) != Some(&bet_id) {
            finish(current.take(), &mut report);
            current = Some((bet_id.clone(), Bet::default(), None));
        }
        let Some((_, bet, record)) = current.as_mut() else {
            continue;
        };
        let event: BetEvent = match serde_json::from_str(&payload) {
            Ok(e) => e,
            Err(e) => {
                report.differences.push(Difference {
                    bet_id: bet_id.clone(),
                    field: "event".into(),
                    store: json!(format!("unreadable event: {e}")),
                    read_model: Value::Null,
                });
                continue;
            }
        };
        match record.as_mut() {
            None => *record = projections::bets::placed_record(&bet_id, &event).map(|(_, r)| r),
            Some(r) => {
                projections::bets::fold(r, &event);
            }
        }
        bet.apply(event);
    }
    finish(current.take(), &mut report);
    Ok(report)
}

fn compare(
    bet_id: &str,
    bet: &Bet,
    folded: Option<&Value>,
    stored: Option<&String>,
    report: &mut ReplayReport,
) {
    let mut differ = |field: &str, store: Value, read_model: Value| {
        report.differences.push(Difference {
            bet_id: bet_id.to_string(),
            field: field.to_string(),
            store,
            read_model,
        })
    };
    let Some(stored) = stored else {
        differ("row", json!("present"), json!("missing"));
        return;
    };
    let record: Value = serde_json::from_str(stored).unwrap_or(Value::Null);
    // The aggregate's own view: status.
    if record["outcome"] != json!(bet.status.code()) {
        differ(
            "outcome",
            json!(bet.status.code()),
            record["outcome"].clone(),
        );
    }
    // Every field of the record folded afresh from the events.
    if let Some(folded) = folded.and_then(Value::as_object) {
        for (field, value) in folded {
            if record.get(field) != Some(value) {
                differ(
                    field,
                    value.clone(),
                    record.get(field).cloned().unwrap_or(Value::Null),
                );
            }
        }
    }
}
