//! Projection `auto_cashout`: the auto cash-out rules waiting for a price
//! move, one row per bet. The watcher (`commands::cashout`) reads this
//! small table instead of every open bet; the Bet aggregate stays the
//! judge of whether a rule still holds when it fires.

use domain::bet::BetEvent;
use futures::future::BoxFuture;
use sqlx::{AnyConnection, Executor, Row};

use crate::runner::{Projection, ProjectionError};
use crate::stream::StoredEvent;

pub const NAME: &str = "auto_cashout";

pub struct AutoCashoutProjection;

/// A rule as the watcher sees it.
#[derive(Debug, Clone, PartialEq)]
pub struct Rule {
    pub bet_id: String,
    pub min_amount: String,
    pub partial: Option<String>,
}

impl Projection for AutoCashoutProjection {
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
            for stored in events {
                let Some(payload) = stored.payload.as_deref() else {
                    continue;
                };
                let bet_id = stored.aggregate_id.as_str();
                let event: BetEvent = serde_json::from_str(payload)
                    .map_err(|e| ProjectionError::bad_event(stored, e))?;
                match event {
                    BetEvent::AutoCashoutSet {
                        min_amount,
                        partial_amount,
                        ..
                    } => {
                        sqlx::query(
                            "INSERT INTO auto_cashout_rules (bet_id, min_amount, partial) VALUES ($1, $2, $3)
                             ON CONFLICT (bet_id) DO UPDATE SET min_amount = excluded.min_amount, partial = excluded.partial",
                        )
                        .bind(bet_id)
                        .bind(min_amount.to_string())
                        .bind(partial_amount.map(|p| p.to_string()))
                        .execute(&mut *conn)
                        .await?;
                    }
                    BetEvent::AutoCashoutCancelled { .. }
                    | BetEvent::BetCashedOut { by_rule: true, .. }
                    | BetEvent::BetCashedOut { full: true, .. }
                    | BetEvent::BetSettled { .. }
                    | BetEvent::BetDeclined { .. } => {
                        // Spent, cancelled, or the bet no longer runs.
                        sqlx::query("DELETE FROM auto_cashout_rules WHERE bet_id = $1")
                            .bind(bet_id)
                            .execute(&mut *conn)
                            .await?;
                    }
                    _ => {}
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
            conn.execute("DELETE FROM auto_cashout_rules").await?;
            Ok(())
        })
    }
}

/// Every active rule.
pub async fn active(pool: &sqlx::AnyPool) -> Result<Vec<Rule>, sqlx::Error> {
    let rows =
        sqlx::query("SELECT bet_id, min_amount, partial FROM auto_cashout_rules ORDER BY bet_id")
            .fetch_all(pool)
            .await?;
    rows.iter()
        .map(|row| {
            Ok(Rule {
                bet_id: row.try_get("bet_id")?,
                min_amount: row.try_get("min_amount")?,
                partial: row.try_get("partial")?,
            })
        })
        .collect()
}
