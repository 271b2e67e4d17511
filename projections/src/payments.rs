//! Read models of payments:
//! - `money_orders`: one row per deposit order and withdrawal, from the
//!   Deposit and Withdrawal events (money orders, progress pages, the
//!   finance queues, the reconciliation view).
//! - `wallet_movements`: every wallet movement with its kind, the signed
//!   change of the spendable balance and the balances after it (the
//!   account change report, the flow breakdown, the member report).

use std::collections::HashMap;

use domain::payment::deposit::DepositEvent;
use domain::payment::withdrawal::WithdrawalEvent;
use domain::wallet::{MovementKind, Pot, WalletEvent, WalletId};
use futures::future::BoxFuture;
use rust_decimal::Decimal;
use serde_json::{json, Value};
use sqlx::{AnyConnection, Executor, Row};

use crate::runner::{Projection, ProjectionError};
use store::stream::StoredEvent;

pub const ORDERS: &str = "money_orders";
pub const MOVEMENTS: &str = "wallet_movements";

#[derive(Debug, Clone, Default)]
struct OrderRow {
    order_id: String,
    member_id: String,
    kind: String,
    channel: String,
    currency: String,
    amount: String,
    credited_amount: String,
    status: String,
    flagged: i64,
    note: String,
    provider_tx_id: String,
    detail: Value,
    hidden: i64,
    created_ms: i64,
    updated_ms: i64,
}

pub struct MoneyOrdersProjection;

impl Projection for MoneyOrdersProjection {
    fn name(&self) -> &'static str {
        ORDERS
    }

    fn tables(&self) -> &'static [&'static str] {
        &["money_orders"]
    }

    fn aggregate_types(&self) -> &'static [&'static str] {
        &["Deposit", "Withdrawal"]
    }

    fn apply<'a>(
        &'a self,
        conn: &'a mut AnyConnection,
        events: &'a [StoredEvent],
    ) -> BoxFuture<'a, Result<(), ProjectionError>> {
        Box::pin(async move {
            let orders = |e: &&StoredEvent| {
                e.payload.is_some() && matches!(e.aggregate_type.as_str(), "Deposit" | "Withdrawal")
            };
            let mut ids: Vec<&str> = events
                .iter()
                .filter(orders)
                .map(|e| e.aggregate_id.as_str())
                .collect();
            ids.sort_unstable();
            ids.dedup();
            let mut rows = load_orders(conn, &ids).await?;
            for event in events.iter().filter(orders) {
                let payload = event.payload.as_deref().unwrap_or("null");
                let row = rows.entry(event.aggregate_id.clone()).or_default();
                if event.aggregate_type == "Deposit" {
                    let parsed: DepositEvent = serde_json::from_str(payload)
                        .map_err(|e| ProjectionError::bad_event(event, e))?;
                    fold_deposit(row, parsed);
                } else {
                    let parsed: WithdrawalEvent = serde_json::from_str(payload)
                        .map_err(|e| ProjectionError::bad_event(event, e))?;
                    fold_withdrawal(row, parsed);
                }
            }
            let rows: Vec<&OrderRow> = rows.values().filter(|r| !r.order_id.is_empty()).collect();
            for chunk in rows.chunks(ORDER_CHUNK) {
                upsert_orders(conn, chunk).await?;
            }
            Ok(())
        })
    }

    fn reset<'a>(
        &'a self,
        conn: &'a mut AnyConnection,
    ) -> BoxFuture<'a, Result<(), ProjectionError>> {
        Box::pin(async move {
            conn.execute("DELETE FROM money_orders").await?;
            Ok(())
        })
    }
}

fn fold_deposit(row: &mut OrderRow, event: DepositEvent) {
    use DepositEvent::*;
    match event {
        DepositCreated(order) => {
            *row = OrderRow {
                order_id: order.order_id.clone(),
                member_id: order.member_id.clone(),
                kind: "deposit".into(),
                channel: order.channel.name().into(),
                currency: order.currency.code().into(),
                amount: order.amount.to_string(),
                credited_amount: "0".into(),
                status: "created".into(),
                detail: json!({
                    "provider": order.provider,
                    "expires_ms": order.expires_ms,
                    "quote": order.quote,
                }),
                created_ms: order.created_ms,
                updated_ms: order.created_ms,
                ..OrderRow::default()
            };
        }
        DepositConfirmed { at_ms } => row.set("confirmed", at_ms),
        DepositPaid {
            provider_tx_id,
            at_ms,
            ..
        } => {
            row.provider_tx_id = provider_tx_id;
            row.flagged = 0;
            row.set("paid", at_ms);
        }
        DepositCredited {
            amount,
            credited_at,
            ..
        } => {
            row.credited_amount = amount.to_string();
            row.set("credited", credited_at);
        }
        DepositFlagged {
            provider_tx_id,
            reason,
            amount,
            currency,
            at_ms,
            ..
        } => {
            row.flagged = 1;
            row.note = reason;
            row.detail["received"] = json!({"amount": amount.to_string(), "currency": currency,
                "provider_tx_id": provider_tx_id});
            if !matches!(row.status.as_str(), "paid" | "credited") {
                row.provider_tx_id = provider_tx_id;
                row.set("flagged", at_ms);
            } else {
                row.updated_ms = at_ms;
            }
        }
        DepositFailed { at_ms, .. } => row.set("failed", at_ms),
        DepositReversed {
            taken,
            amount,
            at_ms,
            ..
        } => {
            row.detail["reversal"] = json!({"taken": taken, "amount": amount.to_string()});
            if row.status == "credited" && !taken {
                row.flagged = 1;
                row.note = "reversed but the balance could not cover it".into();
            }
            row.set("reversed", at_ms);
        }
        DepositReversalReported { at_ms, .. } => row.updated_ms = at_ms,
        DepositReportIgnored { .. } => {}
        DepositRequoted {
            rate,
            usdt_amount,
            expires_ms,
            at_ms,
        } => {
            if row.detail["quote"].is_object() {
                row.detail["quote"]["rate"] = json!(rate.to_string());
                row.detail["quote"]["usdt_amount"] = json!(usdt_amount.to_string());
                row.detail["quote"]["expires_ms"] = json!(expires_ms);
            }
            row.detail["requoted"] = json!(true);
            row.updated_ms = at_ms;
        }
        ChainTransferSeen {
            tx_hash,
            usdt_amount,
            confirmations,
            at_ms,
        } => {
            row.detail["chain_tx"] = json!({"tx_hash": tx_hash,
                "usdt_amount": usdt_amount.to_string(), "confirmations": confirmations});
            row.updated_ms = at_ms;
        }
        DepositCancelled { at_ms } => row.set("cancelled", at_ms),
        DepositExpired { at_ms } => row.set("expired", at_ms),
        DepositReviewed {
            staff_id,
            credit,
            reason,
            at_ms,
        } => {
            row.flagged = 0;
            row.note = reason.clone();
            row.detail["review"] =
                json!({"staff_id": staff_id, "credit": credit, "reason": reason});
            if !credit {
                row.set("rejected", at_ms);
            }
        }
    }
}

fn fold_withdrawal(row: &mut OrderRow, event: WithdrawalEvent) {
    use WithdrawalEvent::*;
    let decided = |row: &mut OrderRow, status: &str, staff: &str, reason: &str, at: i64| {
        row.note = reason.to_string();
        if !staff.is_empty() {
            row.detail[status] = json!({"staff_id": staff, "reason": reason, "at_ms": at});
        }
        row.set(status, at);
    };
    match event {
        WithdrawalRequested(new) => {
            *row = OrderRow {
                order_id: new.withdrawal_id.clone(),
                member_id: new.member_id.clone(),
                kind: "withdrawal".into(),
                channel: new.destination.kind.clone(),
                currency: new.currency.code().into(),
                amount: new.amount.to_string(),
                credited_amount: "0".into(),
                status: "requested".into(),
                detail: json!({"destination": new.destination}),
                created_ms: new.requested_ms,
                updated_ms: new.requested_ms,
                ..OrderRow::default()
            };
        }
        WithdrawalApproved {
            staff_id,
            reason,
            at_ms,
        } => decided(row, "approved", &staff_id, &reason, at_ms),
        WithdrawalRejected {
            staff_id,
            reason,
            at_ms,
        } => decided(row, "rejected", &staff_id, &reason, at_ms),
        WithdrawalCancelled { at_ms } => row.set("cancelled", at_ms),
        WithdrawalPaid {
            amount,
            credited_at,
            staff_id,
            payout_reference,
            ..
        } => {
            row.credited_amount = amount.to_string();
            row.detail["paid"] =
                json!({"staff_id": staff_id, "payout_reference": payout_reference});
            row.set("paid", credited_at);
        }
        WithdrawalFailed {
            staff_id,
            reason,
            at_ms,
        } => decided(row, "failed", &staff_id, &reason, at_ms),
        WithdrawalHidden { at_ms } => {
            row.hidden = 1;
            row.updated_ms = at_ms;
        }
    }
}

impl OrderRow {
    fn set(&mut self, status: &str, at_ms: i64) {
        self.status = status.to_string();
        self.updated_ms = at_ms;
    }
}

const ORDER_COLUMNS: &str = "order_id, member_id, kind, channel, currency, amount, credited_amount, status, flagged, note, provider_tx_id, detail, hidden, created_ms, updated_ms";

/// Rows per multi-row statement (15 parameters each; SQLite allows 32,766).
const ORDER_CHUNK: usize = 500;

/// The `money_orders` rows of `ids`, in one statement per chunk.
async fn load_orders(
    conn: &mut AnyConnection,
    ids: &[&str],
) -> Result<HashMap<String, OrderRow>, sqlx::Error> {
    let mut found = HashMap::with_capacity(ids.len());
    let sql = format!("SELECT {ORDER_COLUMNS} FROM money_orders WHERE order_id IN ({{}})");
    for r in crate::rows_in(conn, &sql, ids).await? {
        let detail: String = r.try_get("detail")?;
        let row = OrderRow {
            order_id: r.try_get("order_id")?,
            member_id: r.try_get("member_id")?,
            kind: r.try_get("kind")?,
            channel: r.try_get("channel")?,
            currency: r.try_get("currency")?,
            amount: r.try_get("amount")?,
            credited_amount: r.try_get("credited_amount")?,
            status: r.try_get("status")?,
            flagged: r.try_get::<i32, _>("flagged")? as i64,
            note: r.try_get("note")?,
            provider_tx_id: r.try_get("provider_tx_id")?,
            detail: serde_json::from_str(&detail).unwrap_or(Value::Null),
            hidden: r.try_get::<i32, _>("hidden")? as i64,
            created_ms: r.try_get("created_ms")?,
            updated_ms: r.try_get("updated_ms")?,
        };
        found.insert(row.order_id.clone(), row);
    }
    Ok(found)
}

async fn upsert_orders(conn: &mut AnyConnection, rows: &[&OrderRow]) -> Result<(), sqlx::Error> {
    let sql = format!(
        "INSERT INTO money_orders ({ORDER_COLUMNS}) VALUES {}
         ON CONFLICT (order_id) DO UPDATE SET credited_amount = excluded.credited_amount,
           status = excluded.status, flagged = excluded.flagged, note = excluded.note,
           provider_tx_id = excluded.provider_tx_id, detail = excluded.detail,
           hidden = excluded.hidden, updated_ms = excluded.updated_ms",
        crate::placeholders(rows.len(), 15)
    );
    let sql = store::marks::for_conn(&*conn, &sql);
    let mut query = sqlx::query(&sql);
    for row in rows {
        query = query
            .bind(row.order_id.as_str())
            .bind(row.member_id.as_str())
            .bind(row.kind.as_str())
            .bind(row.channel.as_str())
            .bind(row.currency.as_str())
            .bind(row.amount.as_str())
            .bind(row.credited_amount.as_str())
            .bind(row.status.as_str())
            .bind(row.flagged as i32)
            .bind(row.note.as_str())
            .bind(row.provider_tx_id.as_str())
            .bind(row.detail.to_string())
            .bind(row.hidden as i32)
            .bind(row.created_ms)
            .bind(row.updated_ms);
    }
    query.execute(&mut *conn).await?;
    Ok(())
}

/// The balances a movement row shows after it, and the wallet sequence of
/// the movement they follow (0: none yet).
#[derive(Debug, Clone, Copy, Default)]
struct Head {
    sequence: i64,
    balance: Decimal,
    frozen: Decimal,
}

pub struct WalletMovementsProjection;

impl Projection for WalletMovementsProjection {
    fn name(&self) -> &'static str {
        MOVEMENTS
    }

    fn tables(&self) -> &'static [&'static str] {
        &["wallet_movements", "wallet_heads"]
    }

    fn aggregate_types(&self) -> &'static [&'static str] {
        &["Wallet"]
    }

    fn apply<'a>(
        &'a self,
        conn: &'a mut AnyConnection,
        events: &'a [StoredEvent],
    ) -> BoxFuture<'a, Result<(), ProjectionError>> {
        Box::pin(async move {
            let wallet_events: Vec<&StoredEvent> = events
                .iter()
                .filter(|e| e.aggregate_type == "Wallet" && e.payload.is_some())
                .collect();
            if wallet_events.is_empty() {
                return Ok(());
            }
            let ids: Vec<&str> = {
                let mut ids: Vec<&str> = wallet_events
                    .iter()
                    .map(|e| e.aggregate_id.as_str())
                    .collect();
                ids.sort_unstable();
                ids.dedup();
                ids
            };
            let mut heads = load_heads(conn, &ids).await?;
            let mut rows: Vec<MovementRow> = Vec::with_capacity(wallet_events.len());
            for event in wallet_events {
                let id = &event.aggregate_id;
                let wallet: WalletId = id
                    .parse()
                    .map_err(|reason: String| ProjectionError::bad_event(event, reason))?;
                let parsed: WalletEvent =
                    serde_json::from_str(event.payload.as_deref().unwrap_or("null"))
                        .map_err(|e| ProjectionError::bad_event(event, e))?;
                let Some((reference, kind, change, frozen_change)) = movement(&parsed) else {
                    continue;
                };
                let head = heads.entry(id.clone()).or_default();
                head.sequence = event.sequence;
                head.balance += change;
                head.frozen += frozen_change;
                rows.push(MovementRow {
                    wallet_id: id.clone(),
                    sequence: event.sequence,
                    member_id: wallet.member_id,
                    currency: wallet.currency.code(),
                    reference: reference.to_string(),
                    event_type: event.event_type.clone(),
                    kind,
                    amount: change.to_string(),
                    balance_after: head.balance.to_string(),
                    frozen_after: head.frozen.to_string(),
                    at_ms: event.recorded_ms,
                });
            }
            // Only the heads this batch moved are written (one multi-row
            // upsert a chunk); a head never moves back.
            let moved: std::collections::HashSet<&str> =
                rows.iter().map(|r| r.wallet_id.as_str()).collect();
            let moved: Vec<(&String, &Head)> = heads
                .iter()
                .filter(|(id, _)| moved.contains(id.as_str()))
                .collect();
            for chunk in moved.chunks(500) {
                let sql = format!(
                    "INSERT INTO wallet_heads (wallet_id, sequence, balance_after, frozen_after)
                     VALUES {} ON CONFLICT (wallet_id) DO UPDATE SET sequence = excluded.sequence,
                        balance_after = excluded.balance_after, frozen_after = excluded.frozen_after
                     WHERE excluded.sequence > wallet_heads.sequence",
                    (0..chunk.len())
                        .map(|r| format!(
                            "(${}, ${}, ${}, ${})",
                            r * 4 + 1,
                            r * 4 + 2,
                            r * 4 + 3,
                            r * 4 + 4
                        ))
                        .collect::<Vec<_>>()
                        .join(", ")
                );
                let sql = store::marks::for_conn(&*conn, &sql);
                let mut query = sqlx::query(&sql);
                for (id, head) in chunk {
                    query = query
                        .bind(id.as_str())
                        .bind(head.sequence)
                        .bind(head.balance.to_string())
                        .bind(head.frozen.to_string());
                }
                query.execute(&mut *conn).await?;
            }
            // Multi-row inserts (11 parameters a row; both stores' limits
            // allow 2,000 rows and more).
            for chunk in rows.chunks(500) {
                let sql = format!(
                    "INSERT INTO wallet_movements (wallet_id, sequence, member_id, currency, reference, event_type, kind, amount, balance_after, frozen_after, at_ms)
                     VALUES {} ON CONFLICT (wallet_id, sequence) DO NOTHING",
                    (0..chunk.len())
                        .map(|r| {
                            let cols: Vec<String> = (1..=11).map(|c| format!("${}", r * 11 + c)).collect();
                            format!("({})", cols.join(", "))
                        })
                        .collect::<Vec<_>>()
                        .join(", ")
                );
                let sql = store::marks::for_conn(&*conn, &sql);
                let mut query = sqlx::query(&sql);
                for row in chunk {
                    query = query
                        .bind(row.wallet_id.clone())
                        .bind(row.sequence)
                        .bind(row.member_id.clone())
                        .bind(row.currency)
                        .bind(row.reference.clone())
                        .bind(row.event_type.clone())
                        .bind(row.kind)
                        .bind(row.amount.clone())
                        .bind(row.balance_after.clone())
                        .bind(row.frozen_after.clone())
                        .bind(row.at_ms);
                }
                query.execute(&mut *conn).await?;
            }
            Ok(())
        })
    }

    fn reset<'a>(
        &'a self,
        conn: &'a mut AnyConnection,
    ) -> BoxFuture<'a, Result<(), ProjectionError>> {
        Box::pin(async move {
            conn.execute("DELETE FROM wallet_movements").await?;
            conn.execute("DELETE FROM wallet_heads").await?;
            Ok(())
        })
    }
}

fn kind_name(kind: MovementKind) -> &'static str {
    match kind {
        MovementKind::Deposit => "deposit",
        MovementKind::Withdrawal => "withdrawal",
        MovementKind::Bonus => "bonus",
        MovementKind::Rebate => "rebate",
        MovementKind::Adjustment => "adjustment",
        MovementKind::GameDebit => "game_debit",
        MovementKind::GameCredit => "game_credit",
    }
}

/// (reference, kind, change of the spendable balance, change of frozen).
/// A stake taken changes neither (it left the balance when reserved); one
/// reserved and taken at once is the reservation's movement.
fn movement(event: &WalletEvent) -> Option<(&str, &'static str, Decimal, Decimal)> {
    use WalletEvent::*;
    let zero = Decimal::ZERO;
    Some(match event {
        Opened { .. } | Rejected { .. } | StakeTaken { .. } => return None,
        Credited {
            reference,
            amount,
            kind,
            pot,
        } => {
            let kind = if *pot == Pot::Bonus && *kind == MovementKind::Bonus {
                "bonus"
            } else {
                kind_name(*kind)
            };
            (reference, kind, *amount, zero)
        }
        Debited {
            reference,
            amount,
            kind,
            ..
        } => (reference, kind_name(*kind), -*amount, zero),
        StakeReserved {
            reference, amount, ..
        }
        | StakeReservedAndTaken {
            reference, amount, ..
        } => (reference, "bet", -*amount, zero),
        StakeReleased {
            reference, amount, ..
        } => (reference, "bet_refund", *amount, zero),
        PaidOut {
            reference, amount, ..
        } => (reference, "payout", *amount, zero),
        Frozen { reference, amount } => (reference, "freeze", -*amount, *amount),
        Unfrozen { reference, amount } => (reference, "unfreeze", *amount, -*amount),
    })
}

struct MovementRow {
    wallet_id: String,
    sequence: i64,
    member_id: String,
    currency: &'static str,
    reference: String,
    event_type: String,
    kind: &'static str,
    amount: String,
    balance_after: String,
    frozen_after: String,
    at_ms: i64,
}

/// [`load_heads`]'s read on Postgres (`IN ({})` takes the wallet ids).
#[doc(hidden)]
pub const HEADS_SQL_POSTGRES: &str =
    "SELECT w.wallet_id, w.sequence, w.balance_after, w.frozen_after
     FROM wallet_heads h CROSS JOIN LATERAL (
         SELECT m.wallet_id, m.sequence, m.balance_after, m.frozen_after
         FROM wallet_movements m
         WHERE m.wallet_id = h.wallet_id AND m.sequence >= h.sequence
         ORDER BY m.sequence DESC LIMIT 1) w
     WHERE h.wallet_id IN ({})";

/// The balances after each wallet's last movement, for the wallets of a
/// batch: the wallet's head, read by key, and any movement written past it
/// (a node of the version before `wallet_heads` still running in a rolling
/// upgrade writes movements without heads); a wallet without a head but
/// with movements (the same case) falls back to finding its newest one.
async fn load_heads(
    conn: &mut AnyConnection,
    ids: &[&str],
) -> Result<HashMap<String, Head>, ProjectionError> {
    let mut heads: HashMap<String, Head> = HashMap::with_capacity(ids.len());
    let keep = |heads: &mut HashMap<String, Head>,
                row: &sqlx::any::AnyRow|
     -> Result<(), ProjectionError> {
        let money = |name: &str| -> Result<Decimal, ProjectionError> {
            let text: String = row.try_get(name)?;
            text.parse().map_err(|e: rust_decimal::Error| {
                ProjectionError::Sql(sqlx::Error::Decode(Box::new(e)))
            })
        };
        let sequence: i64 = row.try_get("sequence")?;
        let head = heads.entry(row.try_get("wallet_id")?).or_default();
        if sequence > head.sequence {
            *head = Head {
                sequence,
                balance: money("balance_after")?,
                frozen: money("frozen_after")?,
            };
        }
        Ok(())
    };
    // Each wallet's newest movement at or past its head. On Postgres a
    // plain join let the planner hash all of `wallet_movements` (it
    // guesses a third of a wallet's movements past its head: 7 ms a batch
    // at 45,000 movements, and it grows with the table); the lateral
    // `LIMIT 1` is one backward probe of the key per wallet. SQLite's
    // planner takes the join as a probe of the key per head.
    let sql = if conn.backend_name() == "PostgreSQL" {
        HEADS_SQL_POSTGRES
    } else {
        "SELECT w.wallet_id, w.sequence, w.balance_after, w.frozen_after
         FROM wallet_heads h JOIN wallet_movements w
           ON w.wallet_id = h.wallet_id AND w.sequence >= h.sequence
         WHERE h.wallet_id IN ({})"
    };
    for row in crate::rows_in(conn, sql, ids).await? {
        keep(&mut heads, &row)?;
    }
    let headless: Vec<&str> = ids
        .iter()
        .copied()
        .filter(|id| !heads.contains_key(*id))
        .collect();
    if !headless.is_empty() {
        let sql = "SELECT w.wallet_id, w.sequence, w.balance_after, w.frozen_after FROM wallet_movements w
                   WHERE w.wallet_id IN ({}) AND w.sequence = (SELECT MAX(m.sequence) FROM wallet_movements m WHERE m.wallet_id = w.wallet_id)";
        for row in crate::rows_in(conn, sql, &headless).await? {
            keep(&mut heads, &row)?;
        }
    }
    Ok(heads)
}
