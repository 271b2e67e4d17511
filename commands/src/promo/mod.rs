//! Promotions, the rewards half (docs/promotions.md): daily sign-in and
//! daily / novice tasks (`tasks`), the prize draw (`draw`), the points shop
//! (`shop`).
//!
//! Exactly once, on one Postgres shared by several processes: every reward,
//! draw and purchase is a row keyed by what must happen once (member and
//! day, member and draw period, reference) inserted with ON CONFLICT DO
//! NOTHING in the same transaction as its `Promotion` event (stream id =
//! the reference, sequence 1); stock is taken by conditional updates
//! (`taken < stock`), which lock the row, so concurrent draws and purchases
//! on any process never oversell. The wallet credit follows the commit
//! under the same reference: a repeat (or a retry after a crash between
//! commit and credit) re-sends it and the wallet moves money once.
//!
//! Staff changes are `PromotionConfig` events carrying the staff id.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use domain::promo::events::{PromotionEvent, AGGREGATE, CONFIG_AGGREGATE};
use domain::wallet::{MovementKind, Pot, WalletAction, WalletCommand, WalletId};
use domain::Currency;
use rust_decimal::Decimal;
use serde::de::DeserializeOwned;
use serde::Serialize;
use sqlx::{AnyConnection, AnyPool, Row};
use store::stream::Backend;

use crate::clock::SharedClock;
use crate::vip::VipService;
use crate::wallet::WalletService;

/// Runs `$body` in a transaction `$tx`, again (bounded, with a growing
/// pause) when the database reports a conflict or a busy store; a refusal
/// rolls back and is answered.
macro_rules! transaction {
    ($self:ident, $tx:ident, $body:block) => {{
        let mut attempt: u64 = 0;
        loop {
            attempt += 1;
            let mut $tx = $self.pool.begin().await?;
            let result: Result<_, $crate::promo::PromoFailure> = async { $body }.await;
            let result = match result {
                Ok(v) => $tx
                    .commit()
                    .await
                    .map(|_| v)
                    .map_err($crate::promo::PromoFailure::from),
                Err(e) => {
                    let _ = $tx.rollback().await;
                    Err(e)
                }
            };
            match result {
                Ok(v) => break Ok::<_, $crate::promo::PromoFailure>(v),
                Err(e) if $crate::promo::retryable(&e) && attempt < 30 => {
                    $self.pause(attempt).await;
                }
                Err(e) => break Err(e),
            }
        }
    }};
}

pub mod activities;
pub mod draw;
pub mod referrals;
pub mod shop;
pub mod tasks;

#[derive(Debug, thiserror::Error)]
pub enum PromoFailure {
    /// A rule: its code and message.
    #[error("{1}")]
    Refused(i32, String),
    #[error("{0}")]
    Internal(String),
}

impl PromoFailure {
    pub fn refused(code: i32, msg: impl Into<String>) -> Self {
        PromoFailure::Refused(code, msg.into())
    }
}

impl From<crate::lease::LeaseError> for PromoFailure {
    fn from(e: crate::lease::LeaseError) -> Self {
        PromoFailure::Internal(e.to_string())
    }
}

impl From<sqlx::Error> for PromoFailure {
    fn from(e: sqlx::Error) -> Self {
        PromoFailure::Internal(e.to_string())
    }
}

pub(crate) fn retryable(e: &PromoFailure) -> bool {
    let PromoFailure::Internal(text) = e else {
        return false;
    };
    let text = text.to_lowercase();
    text.contains("unique")
        || text.contains("duplicate")
        || text.contains("locked")
        || text.contains("busy")
        || text.contains("serializ")
        || text.contains("deadlock")
}

pub struct Promotions {
    pub(crate) pool: AnyPool,
    backend: Backend,
    pub(crate) wallets: Arc<WalletService>,
    pub(crate) vip: Arc<VipService>,
    pub(crate) clock: SharedClock,
}

impl Promotions {
    pub fn new(
        pool: AnyPool,
        backend: Backend,
        wallets: Arc<WalletService>,
        vip: Arc<VipService>,
        clock: SharedClock,
    ) -> Self {
        Self {
            pool,
            backend,
            wallets,
            vip,
            clock,
        }
    }

    pub fn now_ms(&self) -> i64 {
        self.clock.now_ms()
    }

    pub fn today(&self) -> i64 {
        domain::promo::day_of(self.now_ms())
    }

    /// A short pause before retrying a conflicting transaction.
    pub(crate) async fn pause(&self, attempt: u64) {
        let jitter = (self.now_ms().unsigned_abs() ^ attempt.wrapping_mul(7919)) % 10;
        tokio::time::sleep(Duration::from_millis(3 * attempt.min(20) + jitter)).await;
    }

    pub(crate) fn backend(&self) -> Backend {
        self.backend
    }

    fn json_cast(&self) -> &'static str {
        match self.backend {
            Backend::Postgres => "::json",
            Backend::Sqlite => "",
        }
    }

    /// Appends `event` as event `sequence` of stream (`aggregate`, `id`).
    pub(crate) async fn append(
        &self,
        conn: &mut AnyConnection,
        aggregate: &str,
        id: &str,
        sequence: i64,
        event: &PromotionEvent,
    ) -> Result<(), PromoFailure> {
        let cast = self.json_cast();
        let sql = format!(
            "INSERT INTO events (aggregate_type, aggregate_id, sequence, event_type, event_version, payload, metadata) VALUES ($1, $2, $3, $4, '1.0', $5{cast}, $6{cast})"
        );
        let payload =
            serde_json::to_string(event).map_err(|e| PromoFailure::Internal(e.to_string()))?;
        sqlx::query(&sql)
            .bind(aggregate)
            .bind(id)
            .bind(sequence)
            .bind(event.event_type())
            .bind(payload)
            .bind("{}")
            .execute(&mut *conn)
            .await?;
        Ok(())
    }

    /// The one event of a reward's stream (id = its reference).
    pub(crate) async fn record(
        &self,
        conn: &mut AnyConnection,
        reference: &str,
        event: &PromotionEvent,
    ) -> Result<(), PromoFailure> {
        self.append(conn, AGGREGATE, reference, 1, event).await
    }

    /// A staff change: the next event of the `PromotionConfig` stream `what`.
    pub(crate) async fn config_changed(
        &self,
        conn: &mut AnyConnection,
        what: &str,
        value: serde_json::Value,
        staff_id: &str,
    ) -> Result<(), PromoFailure> {
        let last: Option<i64> = sqlx::query_scalar(
            "SELECT MAX(sequence) FROM events WHERE aggregate_type = $1 AND aggregate_id = $2",
        )
        .bind(CONFIG_AGGREGATE)
        .bind(what)
        .fetch_one(&mut *conn)
        .await?;
        let event = PromotionEvent::ConfigChanged {
            what: what.to_string(),
            value,
            staff_id: staff_id.to_string(),
            at_ms: self.now_ms(),
        };
        self.append(conn, CONFIG_AGGREGATE, what, last.unwrap_or(0) + 1, &event)
            .await
    }

    /// The settings document `name`, or its default.
    pub(crate) async fn settings<T: DeserializeOwned + Default>(
        &self,
        name: &str,
    ) -> Result<T, PromoFailure> {
        let value: Option<String> =
            sqlx::query_scalar("SELECT value FROM promo_settings WHERE name = $1")
                .bind(name)
                .fetch_optional(&self.pool)
                .await?;
        match value {
            Some(v) => serde_json::from_str(&v).map_err(|e| PromoFailure::Internal(e.to_string())),
            None => Ok(T::default()),
        }
    }

    /// Staff save the settings document `name` (checked by the caller).
    pub(crate) async fn save_settings<T: Serialize + Sync>(
        &self,
        name: &str,
        value: &T,
        staff_id: &str,
    ) -> Result<(), PromoFailure> {
        let json =
            serde_json::to_value(value).map_err(|e| PromoFailure::Internal(e.to_string()))?;
        let text = json.to_string();
        let now = self.now_ms();
        transaction!(self, tx, {
            sqlx::query(
                    "INSERT INTO promo_settings (name, value, updated_by, updated_ms) VALUES ($1, $2, $3, $4)
                     ON CONFLICT (name) DO UPDATE SET value = excluded.value, updated_by = excluded.updated_by, updated_ms = excluded.updated_ms",
                )
                .bind(name)
                .bind(&text)
                .bind(staff_id)
                .bind(now)
                .execute(&mut *tx)
                .await?;
            self.config_changed(&mut tx, name, json.clone(), staff_id)
                .await
        })
    }

    /// Credits a promotion bonus to the member's bonus pot under
    /// `reference`, noting the turnover it requires before withdrawal. A
    /// repeated reference moves nothing.
    pub(crate) async fn pay(
        &self,
        member_id: &str,
        currency: Currency,
        reference: &str,
        amount: Decimal,
        turnover_required: Decimal,
        source: &str,
    ) -> Result<(), PromoFailure> {
        if amount <= Decimal::ZERO {
            return Ok(());
        }
        let credit = WalletCommand::new(
            WalletId::new(member_id, currency),
            reference.to_string(),
            WalletAction::Credit {
                amount,
                pot: Pot::Bonus,
                kind: MovementKind::Bonus,
            },
        );
        let mut meta = HashMap::new();
        meta.insert("promotion".to_string(), source.to_string());
        meta.insert(
            "turnover_required".to_string(),
            turnover_required.to_string(),
        );
        self.wallets
            .execute_with(credit, meta)
            .await
            .map_err(|e| PromoFailure::Internal(format!("crediting {reference}: {e}")))?;
        Ok(())
    }

    /// A member's deposits and valid turnover with `at_ms` in
    /// [`from`, `to`) from the VIP ledger (docs/vip.md: one row per source
    /// event). Returns (deposits, turnover).
    pub async fn activity_between(
        &self,
        member_id: &str,
        from: i64,
        to: i64,
    ) -> Result<(Decimal, Decimal), PromoFailure> {
        let rows = sqlx::query(
            "SELECT kind, money_delta, bets_delta FROM vip_ledger WHERE member_id = $1 AND at_ms >= $2 AND at_ms < $3",
        )
        .bind(member_id)
        .bind(from)
        .bind(to)
        .fetch_all(&self.pool)
        .await?;
        let mut deposits = Decimal::ZERO;
        let mut turnover = Decimal::ZERO;
        for row in rows {
            let kind: String = row.try_get("kind")?;
            let money: String = row.try_get("money_delta")?;
            let bets: String = row.try_get("bets_delta")?;
            if kind == "deposit" {
                deposits += money.parse::<Decimal>().unwrap_or_default();
            }
            if !matches!(kind.as_str(), "decay" | "spend") {
                turnover += bets.parse::<Decimal>().unwrap_or_default();
            }
        }
        Ok((deposits, turnover))
    }
}

/// The lease of the promotions job (shop orders left reserved).
pub const PROMO_JOBS_LEASE: &str = "promo_jobs";
pub const JOBS_EVERY: Duration = Duration::from_secs(10);
/// A reserved order older than this is finished or cancelled by the job.
pub const RESERVED_GRACE_MS: i64 = 60_000;

impl Promotions {
    /// One pass of the promotions job: orders a crash left reserved,
    /// referees to link, referrals due.
    pub async fn jobs_pass(&self) -> Result<usize, PromoFailure> {
        Ok(self.settle_reserved(RESERVED_GRACE_MS).await? + self.referral_pass().await?)
    }

    pub async fn run_jobs(
        self: Arc<Self>,
        lease: crate::lease::Lease,
        stop: tokio::sync::watch::Receiver<bool>,
    ) {
        crate::lease::run_leased(lease, JOBS_EVERY, stop, || self.jobs_pass()).await
    }
}

pub(crate) fn dec(text: &str) -> Decimal {
    text.parse().unwrap_or_default()
}
