//! Business metrics on `/metrics` beside the technical ones
//! (docs/operations.md):
//!
//! - counted by this process as it answers (sum them over the nodes):
//!   `bets_placed{currency}`, `bet_stakes{currency}` (amount staked),
//!   `bets_refused{code}` (the `do_bet` result code);
//! - read from the read models every `[metrics] business_refresh_s`
//!   (every node reports the same figures: take `max` over the nodes):
//!   `bets{currency,status}` and their `bets_staked`/`bets_paid_out`
//!   amounts (status: open, on_hold, declined, lost, returned, won,
//!   cashed_out), `open_liability{currency}` (possible wins of open bets),
//!   `money_orders{kind,status,currency}` and `money_orders_amount{...}`
//!   (deposits and withdrawals by state), `casino_rounds{status}` (opened,
//!   closed, bets, wins, rollbacks).
//!
//! Projection lag and parked events per projection, commands by aggregate
//! and outcome (bets, cash-outs, casino rounds, wallets) come from the
//! runner and the command frameworks.

use std::sync::atomic::AtomicU64;
use std::time::Duration;

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::registry::Registry;
use rust_decimal::prelude::ToPrimitive;
use sqlx::{AnyPool, Row};
use tokio::sync::watch;

use store::StoreKind;

type Amount = Gauge<f64, AtomicU64>;

/// Seconds between two reads of the read models.
pub const REFRESH_S: u64 = 15;

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct CurrencyLabel {
    pub currency: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct CodeLabel {
    pub code: i64,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct BetLabels {
    pub currency: String,
    pub status: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct OrderLabels {
    pub kind: String,
    pub status: String,
    pub currency: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct StatusLabel {
    pub status: String,
}

#[derive(Clone, Debug, Default)]
pub struct BusinessMetrics {
    pub bets_placed: Family<CurrencyLabel, Counter>,
    pub bet_stakes: Family<CurrencyLabel, Counter<f64, AtomicU64>>,
    pub bets_refused: Family<CodeLabel, Counter>,
    bets: Family<BetLabels, Gauge>,
    bets_staked: Family<BetLabels, Amount>,
    bets_paid_out: Family<BetLabels, Amount>,
    open_liability: Family<CurrencyLabel, Amount>,
    money_orders: Family<OrderLabels, Gauge>,
    money_orders_amount: Family<OrderLabels, Amount>,
    casino_rounds: Family<StatusLabel, Gauge>,
}

/// Names of the bet status codes (spec 000 section 3).
pub fn status_name(code: i64) -> &'static str {
    match code {
        -5 => "on_hold",
        -4 => "declined",
        0 => "open",
        1 => "lost",
        2 => "returned",
        3 => "won",
        5 => "cashed_out",
        _ => "other",
    }
}

impl BusinessMetrics {
    pub fn register(&self, registry: &mut Registry) {
        registry.register(
            "bets_placed",
            "Bets this process placed, by currency",
            self.bets_placed.clone(),
        );
        registry.register(
            "bet_stakes",
            "Amount this process took in stakes, by currency",
            self.bet_stakes.clone(),
        );
        registry.register(
            "bets_refused",
            "Bets this process refused, by do_bet result code",
            self.bets_refused.clone(),
        );
        registry.register(
            "bets",
            "Bets in the bet history read model, by currency and status",
            self.bets.clone(),
        );
        registry.register(
            "bets_staked",
            "Stakes of the bets in the read model, by currency and status",
            self.bets_staked.clone(),
        );
        registry.register(
            "bets_paid_out",
            "Payouts (cash-outs included) of the bets in the read model, by currency and status",
            self.bets_paid_out.clone(),
        );
        registry.register(
            "open_liability",
            "Possible wins of the open bets, by currency",
            self.open_liability.clone(),
        );
        registry.register(
            "money_orders",
            "Deposits and withdrawals by kind, status and currency",
            self.money_orders.clone(),
        );
        registry.register(
            "money_orders_amount",
            "Amounts of deposits and withdrawals by kind, status and currency",
            self.money_orders_amount.clone(),
        );
        registry.register(
            "casino_rounds",
            "Seamless-wallet casino round events: rounds opened and closed, bets, wins, rollbacks",
            self.casino_rounds.clone(),
        );
    }

    /// A bet placed by this process.
    pub fn placed(&self, currency: &str, stake: f64) {
        let label = CurrencyLabel {
            currency: currency.to_string(),
        };
        self.bets_placed.get_or_create(&label).inc();
        self.bet_stakes.get_or_create(&label).inc_by(stake);
    }

    /// A bet this process refused with `code`.
    pub fn refused(&self, code: i64) {
        self.bets_refused.get_or_create(&CodeLabel { code }).inc();
    }

    /// Reads the read models once and sets the gauges.
    pub async fn refresh(&self, pool: &AnyPool, kind: StoreKind) -> Result<(), sqlx::Error> {
        let num = match kind {
            StoreKind::Postgres => "numeric",
            StoreKind::Sqlite => "REAL",
        };
        // Bets by currency and status, and the possible wins of the open
        // ones (open, on hold): the few rows the bet-history projection
        // keeps with each batch, not an aggregate of the bet table.
        // A status whose last bet moved on reads 0, not its last figure.
        let mut conn = pool.acquire().await?;
        let mut totals = projections::bets::totals(&mut conn).await?;
        drop(conn);
        let currencies: std::collections::BTreeSet<String> = totals
            .keys()
            .map(|(currency, _)| currency.clone())
            .collect();
        for currency in &currencies {
            for status in [-5, -4, 0, 1, 2, 3, 5] {
                totals.entry((currency.clone(), status)).or_default();
            }
        }
        // Summed exactly; a gauge takes the total as a float.
        let mut liability: std::collections::BTreeMap<String, rust_decimal::Decimal> = currencies
            .into_iter()
            .map(|currency| (currency, rust_decimal::Decimal::ZERO))
            .collect();
        for ((currency, status), total) in totals {
            let labels = BetLabels {
                currency: currency.clone(),
                status: status_name(status).to_string(),
            };
            self.bets.get_or_create(&labels).set(total.bets);
            self.bets_staked
                .get_or_create(&labels)
                .set(total.staked.to_f64().unwrap_or(0.0));
            self.bets_paid_out
                .get_or_create(&labels)
                .set(total.paid.to_f64().unwrap_or(0.0));
            if matches!(status, 0 | -5) {
                *liability.entry(currency).or_default() += total.possible_win;
            }
        }
        for (currency, amount) in liability {
            self.open_liability
                .get_or_create(&CurrencyLabel { currency })
                .set(amount.to_f64().unwrap_or(0.0));
        }
        let sql = format!(
            "SELECT kind, status, currency, COUNT(*) AS n,
                    CAST(COALESCE(SUM(CAST(amount AS {num})), 0) AS TEXT) AS total
             FROM money_orders GROUP BY kind, status, currency"
        );
        for row in sqlx::query(&sql).fetch_all(pool).await? {
            let labels = OrderLabels {
                kind: row.try_get("kind")?,
                status: row.try_get("status")?,
                currency: row.try_get("currency")?,
            };
            self.money_orders
                .get_or_create(&labels)
                .set(row.try_get::<i64, _>("n")?);
            self.money_orders_amount
                .get_or_create(&labels)
                .set(number(&row, "total")?);
        }
        // Casino rounds are aggregates: their first events are their
        // openings, bets, wins and rollbacks (an index range of the events'
        // primary key, no table scan).
        let sql = "SELECT event_type, COUNT(*) AS n FROM events
                   WHERE aggregate_type = 'CasinoRound' GROUP BY event_type";
        for row in sqlx::query(sql).fetch_all(pool).await? {
            let event: String = row.try_get("event_type")?;
            let status = match event.as_str() {
                "CasinoRoundOpened" => "opened",
                "CasinoRoundClosed" => "closed",
                "CasinoBetPlaced" => "bets",
                "CasinoWinPaid" => "wins",
                "CasinoBetRolledBack" => "rollbacks",
                _ => continue,
            };
            self.casino_rounds
                .get_or_create(&StatusLabel {
                    status: status.to_string(),
                })
                .set(row.try_get::<i64, _>("n")?);
        }
        Ok(())
    }

    /// Refreshes every `every` until `stop`.
    pub async fn run(
        self,
        pool: AnyPool,
        kind: StoreKind,
        every: Duration,
        mut stop: watch::Receiver<bool>,
    ) {
        loop {
            if let Err(e) = self.refresh(&pool, kind).await {
                tracing::warn!(error = %e, "business metrics not refreshed");
            }
            tokio::select! {
                _ = tokio::time::sleep(every) => {}
                _ = stop.changed() => {}
            }
            if *stop.borrow() {
                return;
            }
        }
    }
}

fn number(row: &sqlx::any::AnyRow, column: &str) -> Result<f64, sqlx::Error> {
    let text: String = row.try_get(column)?;
    Ok(text.trim().parse().unwrap_or(0.0))
}
