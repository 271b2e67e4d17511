//! Read model `balances`: one row per member and currency, folded with the
//! same `Ledger` the Wallet aggregate uses.

use std::collections::HashMap;
use std::str::FromStr;

use domain::wallet::{Ledger, WalletEvent, WalletId};
use futures::future::BoxFuture;
use rust_decimal::Decimal;
use serde::Serialize;
use sqlx::any::AnyRow;
use sqlx::{AnyConnection, Executor, Row};

use crate::runner::{Projection, ProjectionError};
use store::stream::StoredEvent;

pub const NAME: &str = "balances";

/// A member's balance in one currency, as the client reads it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct BalanceRow {
    pub member_id: String,
    pub currency: String,
    pub ledger: Ledger,
    pub last_sequence: i64,
}

pub struct BalanceProjection;

/// Rows per multi-row upsert (8 parameters each; SQLite allows 32766).
const UPSERT_CHUNK: usize = 500;

impl Projection for BalanceProjection {
    fn name(&self) -> &'static str {
        NAME
    }

    fn aggregate_types(&self) -> &'static [&'static str] {
        &["Wallet"]
    }

    fn tables(&self) -> &'static [&'static str] {
        &["balances"]
    }

    fn apply<'a>(
        &'a self,
        conn: &'a mut AnyConnection,
        events: &'a [StoredEvent],
    ) -> BoxFuture<'a, Result<(), ProjectionError>> {
        Box::pin(async move {
            let mut touched: HashMap<&str, Vec<&StoredEvent>> = HashMap::new();
            for event in events.iter().filter(|e| e.aggregate_type == "Wallet") {
                touched.entry(&event.aggregate_id).or_default().push(event);
            }
            if touched.is_empty() {
                return Ok(());
            }
            let ids: Vec<&str> = touched.keys().copied().collect();
            let mut rows = load(conn, &ids).await?;
            for (id, events) in touched {
                let wallet = WalletId::from_str(id)
                    .map_err(|reason| ProjectionError::bad_event(events[0], reason))?;
                let row = rows.entry(id.to_string()).or_insert_with(|| BalanceRow {
                    member_id: wallet.member_id.clone(),
                    currency: wallet.currency.code().to_string(),
                    ledger: Ledger::default(),
                    last_sequence: 0,
                });
                for event in events {
                    // Already folded (a rebuild racing a live runner cannot
                    // happen under the checkpoint lock, but stay safe).
                    if event.sequence <= row.last_sequence {
                        continue;
                    }
                    let payload = event.payload.as_deref().unwrap_or("null");
                    let parsed: WalletEvent = serde_json::from_str(payload)
                        .map_err(|e| ProjectionError::bad_event(event, e))?;
                    row.ledger.apply(&parsed);
                    row.last_sequence = event.sequence;
                }
            }
            let rows: Vec<BalanceRow> = rows.into_values().collect();
            for chunk in rows.chunks(UPSERT_CHUNK) {
                upsert(conn, chunk).await?;
            }
            Ok(())
        })
    }

    fn reset<'a>(
        &'a self,
        conn: &'a mut AnyConnection,
    ) -> BoxFuture<'a, Result<(), ProjectionError>> {
        Box::pin(async move {
            conn.execute("DELETE FROM balances").await?;
            Ok(())
        })
    }
}

/// The rows of the wallets `ids` (`member:CURRENCY`), read by member id
/// (the primary key's first column) in chunks: one indexed statement per
/// chunk whatever the batch holds.
async fn load(
    conn: &mut AnyConnection,
    ids: &[&str],
) -> Result<HashMap<String, BalanceRow>, ProjectionError> {
    let mut found = HashMap::with_capacity(ids.len());
    let wanted: std::collections::HashSet<&str> = ids.iter().copied().collect();
    let mut members: Vec<&str> = ids
        .iter()
        .map(|id| id.rsplit_once(':').map(|(m, _)| m).unwrap_or(id))
        .collect();
    members.sort_unstable();
    members.dedup();
    let sql = format!("SELECT {COLUMNS} FROM balances WHERE member_id IN ({{}})");
    for row in crate::rows_in(conn, &sql, &members).await? {
        let row = decode(&row)?;
        let key = format!("{}:{}", row.member_id, row.currency);
        if wanted.contains(key.as_str()) {
            found.insert(key, row);
        }
    }
    Ok(found)
}

async fn upsert(conn: &mut AnyConnection, rows: &[BalanceRow]) -> Result<(), sqlx::Error> {
    let sql = format!(
        "INSERT INTO balances ({COLUMNS}) VALUES {}
         ON CONFLICT (member_id, currency) DO UPDATE SET
           balance = excluded.balance, bonus_balance = excluded.bonus_balance,
           bonus_win_balance = excluded.bonus_win_balance, frozen_balance = excluded.frozen_balance,
           reserved = excluded.reserved, last_sequence = excluded.last_sequence",
        crate::placeholders(rows.len(), 8)
    );
    let sql = store::marks::for_conn(&*conn, &sql);
    let mut query = sqlx::query(&sql);
    for row in rows {
        let b = &row.ledger.balances;
        query = query
            .bind(row.member_id.clone())
            .bind(row.currency.clone())
            .bind(b.main.to_string())
            .bind(b.bonus.to_string())
            .bind(b.bonus_win.to_string())
            .bind(b.frozen.to_string())
            .bind(row.ledger.reserved.to_string())
            .bind(row.last_sequence);
    }
    query.execute(&mut *conn).await?;
    Ok(())
}

const COLUMNS: &str = "member_id, currency, balance, bonus_balance, bonus_win_balance, frozen_balance, reserved, last_sequence";

fn decode(row: &AnyRow) -> Result<BalanceRow, sqlx::Error> {
    let money = |name: &str| -> Result<Decimal, sqlx::Error> {
        let text: String = row.try_get(name)?;
        Decimal::from_str(&text).map_err(|e| sqlx::Error::Decode(Box::new(e)))
    };
    let mut ledger = Ledger::default();
    ledger.balances.main = money("balance")?;
    ledger.balances.bonus = money("bonus_balance")?;
    ledger.balances.bonus_win = money("bonus_win_balance")?;
    ledger.balances.frozen = money("frozen_balance")?;
    ledger.reserved = money("reserved")?;
    Ok(BalanceRow {
        member_id: row.try_get("member_id")?,
        currency: row.try_get("currency")?,
        ledger,
        last_sequence: row.try_get("last_sequence")?,
    })
}

/// One member's balance in one currency, if the wallet has any event yet.
pub async fn get(
    pool: &sqlx::AnyPool,
    member_id: &str,
    currency: &str,
) -> Result<Option<BalanceRow>, sqlx::Error> {
    let sql = format!("SELECT {COLUMNS} FROM balances WHERE member_id = $1 AND currency = $2");
    let row = sqlx::query(&sql)
        .bind(member_id)
        .bind(currency)
        .fetch_optional(pool)
        .await?;
    row.as_ref().map(decode).transpose()
}

/// As `get`, reading the member's own writes: the wallet events committed
/// after the row (the runner of some node has not applied them yet) are
/// folded onto it here, so a balance read right after a bet placed through
/// another node already shows the stake. One indexed query on top of `get`
/// (the wallet's stream after `last_sequence`, empty when caught up).
pub async fn get_current(
    pool: &sqlx::AnyPool,
    member_id: &str,
    currency: &str,
) -> Result<Option<BalanceRow>, sqlx::Error> {
    let row = get(pool, member_id, currency).await?;
    let after = row.as_ref().map_or(0, |r| r.last_sequence);
    let newer = sqlx::query(
        "SELECT sequence, CAST(payload AS TEXT) AS payload FROM events
         WHERE aggregate_type = 'Wallet' AND aggregate_id = $1 AND sequence > $2
         ORDER BY sequence",
    )
    .bind(format!("{member_id}:{currency}"))
    .bind(after)
    .fetch_all(pool)
    .await?;
    if newer.is_empty() {
        return Ok(row);
    }
    let mut row = row.unwrap_or_else(|| BalanceRow {
        member_id: member_id.to_string(),
        currency: currency.to_string(),
        ledger: Ledger::default(),
        last_sequence: 0,
    });
    for event in &newer {
        let payload: String = event.try_get("payload")?;
        let parsed: WalletEvent =
            serde_json::from_str(&payload).map_err(|e| sqlx::Error::Decode(Box::new(e)))?;
        row.ledger.apply(&parsed);
        row.last_sequence = event.try_get("sequence")?;
    }
    Ok(Some(row))
}

/// Every row, ordered (rebuild comparisons and audits).
pub async fn all(pool: &sqlx::AnyPool) -> Result<Vec<BalanceRow>, sqlx::Error> {
    let sql = format!("SELECT {COLUMNS} FROM balances ORDER BY member_id, currency");
    let rows = sqlx::query(&sql).fetch_all(pool).await?;
    rows.iter().map(decode).collect()
}
