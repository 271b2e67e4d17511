//! Projection `auto_cashout`: the auto cash-out rules waiting for a price
//! move, one row per bet. The watcher (`commands::sportsbook::cashout`) reads this
//! small table instead of every open bet; the Bet aggregate stays the
//! judge of whether a rule still holds when it fires.

use std::collections::BTreeMap;

use domain::bet::BetEvent;
use futures::future::BoxFuture;
use sqlx::{AnyConnection, Executor, Row};

use crate::runner::{Projection, ProjectionError};
use store::stream::StoredEvent;

pub const NAME: &str = "auto_cashout";

pub struct AutoCashoutProjection;

/// Rules per keyed delete or multi-row upsert.
const CHUNK: usize = 500;

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
            // The last word on each bet in the batch, then one multi-row
            // upsert and one keyed delete per chunk.
            let mut last: BTreeMap<&str, Option<(String, Option<String>)>> = BTreeMap::new();
            for stored in events {
                if stored.payload.is_none() {
                    continue;
                }
                let bet_id = stored.aggregate_id.as_str();
                let event = stored.bet_event()?;
                match &*event {
                    BetEvent::AutoCashoutSet {
                        min_amount,
                        partial_amount,
                        ..
                    } => {
                        last.insert(
                            bet_id,
                            Some((
                                min_amount.to_string(),
                                partial_amount.map(|p| p.to_string()),
                            )),
                        );
                    }
                    BetEvent::AutoCashoutCancelled { .. }
                    | BetEvent::BetCashedOut { by_rule: true, .. }
                    | BetEvent::BetCashedOut { full: true, .. }
                    | BetEvent::BetSettled { .. }
                    | BetEvent::BetDeclined { .. } => {
                        // Spent, cancelled, or the bet no longer runs.
                        last.insert(bet_id, None);
                    }
                    _ => {}
                }
            }
            let set: Vec<(&str, &(String, Option<String>))> = last
                .iter()
                .filter_map(|(id, rule)| rule.as_ref().map(|r| (*id, r)))
                .collect();
            let gone: Vec<&str> = last
                .iter()
                .filter(|(_, rule)| rule.is_none())
                .map(|(id, _)| *id)
                .collect();
            for chunk in gone.chunks(CHUNK) {
                let list: Vec<String> = (1..=chunk.len()).map(|i| format!("${i}")).collect();
                let sql = format!(
                    "DELETE FROM auto_cashout_rules WHERE bet_id IN ({})",
                    list.join(", ")
                );
                let sql = store::marks::for_conn(&*conn, &sql);
                let mut query = sqlx::query(&sql);
                for id in chunk {
                    query = query.bind(*id);
                }
                query.execute(&mut *conn).await?;
            }
            for chunk in set.chunks(CHUNK) {
                let values: Vec<String> = (0..chunk.len())
                    .map(|i| format!("(${}, ${}, ${})", i * 3 + 1, i * 3 + 2, i * 3 + 3))
                    .collect();
                let sql = format!(
                    "INSERT INTO auto_cashout_rules (bet_id, min_amount, partial) VALUES {}
                     ON CONFLICT (bet_id) DO UPDATE SET min_amount = excluded.min_amount, partial = excluded.partial",
                    values.join(", ")
                );
                let sql = store::marks::for_conn(&*conn, &sql);
                let mut query = sqlx::query(&sql);
                for (id, (min, partial)) in chunk {
                    query = query.bind(*id).bind(min.clone()).bind(partial.clone());
                }
                query.execute(&mut *conn).await?;
            }
            Ok(())
        })
    }

    fn tables(&self) -> &'static [&'static str] {
        &["auto_cashout_rules"]
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
