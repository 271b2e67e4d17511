//! Promotions, the rewards half (docs/promotions.md): daily sign-in and
//! daily / novice tasks (`tasks`), the prize draw (`draw`), the points shop
//! (`shop`).
//!
//! Exactly once, on one Postgres shared by several processes: every reward,
//! draw and purchase is a row keyed by what must happen once (member and
//! day, member and draw period, reference) inserted with ON CONFLICT DO
//! NOTHING, a guard of the store's unit of work (`store::unit`) that must
//! insert one row, in the same transaction as its `Promotion` event
//! (stream id = the reference, sequence 1) and its wallet credit; stock is
//! taken by conditional updates (`taken < stock`), guards too, so
//! concurrent draws and purchases on any process never oversell, and a
//! reward is never recorded without its credit.
//!
//! Staff changes are `PromotionConfig` events carrying the staff id.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use domain::promo::events::{PromotionEvent, AGGREGATE, CONFIG_AGGREGATE};
use domain::wallet::{MovementKind, Pot, WalletAction, WalletId};
use domain::Currency;
use rust_decimal::Decimal;
use serde::de::DeserializeOwned;
use serde::Serialize;
use sqlx::{AnyPool, Row};
use store::events::{EventRow, Extra};
use store::stream::Backend;
use store::unit::{Abort, Failed, Unit, UnitError, UnitOfWork};

use crate::engagement::vip::VipService;
use crate::platform::clock::SharedClock;
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
            let result: Result<_, $crate::engagement::promo::PromoFailure> = async { $body }.await;
            let result = match result {
                Ok(v) => $tx
                    .commit()
                    .await
                    .map(|_| v)
                    .map_err($crate::engagement::promo::PromoFailure::from),
                Err(e) => {
                    let _ = $tx.rollback().await;
                    Err(e)
                }
            };
            match result {
                Ok(v) => break Ok::<_, $crate::engagement::promo::PromoFailure>(v),
                Err(e) if $crate::engagement::promo::retryable(&e) && attempt < 30 => {
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

impl From<crate::platform::lease::LeaseError> for PromoFailure {
    fn from(e: crate::platform::lease::LeaseError) -> Self {
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
    /// No rewards while the member is self-excluded or in a time-out.
    pub(crate) safer: Arc<crate::compliance::safer::Safeguards>,
}

impl Promotions {
    pub fn new(
        pool: AnyPool,
        backend: Backend,
        wallets: Arc<WalletService>,
        vip: Arc<VipService>,
        clock: SharedClock,
        safer: Arc<crate::compliance::safer::Safeguards>,
    ) -> Self {
        Self {
            pool,
            backend,
            wallets,
            vip,
            clock,
            safer,
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

    /// Appends `event` as event `sequence` of stream (`aggregate`, `id`).
    /// `event` as the row `sequence` of stream `aggregate`/`id`.
    pub(crate) fn event_row(
        aggregate: &str,
        id: &str,
        sequence: i64,
        event: &PromotionEvent,
    ) -> Result<EventRow, PromoFailure> {
        Ok(EventRow {
            aggregate_type: aggregate.to_string(),
            aggregate_id: id.to_string(),
            sequence: sequence as usize,
            event_type: event.event_type().to_string(),
            event_version: "1.0".to_string(),
            payload: serde_json::to_string(event)
                .map_err(|e| PromoFailure::Internal(e.to_string()))?,
            metadata: "{}".to_string(),
        })
    }

    /// The one event of a reward's stream (id = its reference).
    pub(crate) fn record_row(
        reference: &str,
        event: &PromotionEvent,
    ) -> Result<EventRow, PromoFailure> {
        Self::event_row(AGGREGATE, reference, 1, event)
    }

    /// Commits, as one unit of work (`store::unit`), `guards` (statements
    /// keyed by what must happen once, or taking stock), the promotion's
    /// event rows and its credit. `Err(UnitError::Unmet(i))`: guard `i`
    /// did not hold, and nothing was written.
    pub(crate) async fn commit_once(
        &self,
        guards: &[Extra],
        rows: &[EventRow],
        credit: Option<&Credit<'_>>,
    ) -> Result<(), UnitError<PromoFailure>> {
        let uow = UnitOfWork::new(self.wallets.framework().retry()).on(self
            .wallets
            .framework()
            .store()
            .group());
        store::unit_of_work!(uow, |unit| {
            for guard in guards {
                unit.extra(guard.clone());
            }
            for row in rows {
                unit.event_row(row.clone());
            }
            if let Some(credit) = credit {
                self.credit_in(unit, credit).await?;
            }
            Ok(())
        })
    }

    /// A staff change with its row: the next event of the
    /// `PromotionConfig` stream `what` and `row` (the settings, goods or
    /// campaign it changes), in one unit of work.
    pub(crate) async fn config_changed(
        &self,
        row: Extra,
        what: &str,
        value: serde_json::Value,
        staff_id: &str,
    ) -> Result<(), PromoFailure> {
        let event = PromotionEvent::ConfigChanged {
            what: what.to_string(),
            value,
            staff_id: staff_id.to_string(),
            at_ms: self.now_ms(),
        };
        self.commit_next(row, CONFIG_AGGREGATE, what, &event)
            .await
            .map_err(unit_failure)
    }

    /// `row` and `event` as the next event of stream `aggregate`/`id`, in
    /// one unit of work (the next sequence read again on each attempt:
    /// another writer may have taken it). `Err(UnitError::Unmet(0))`:
    /// `row`'s guard did not hold.
    pub(crate) async fn commit_next(
        &self,
        row: Extra,
        aggregate: &str,
        id: &str,
        event: &PromotionEvent,
    ) -> Result<(), UnitError<PromoFailure>> {
        let uow = UnitOfWork::new(self.wallets.framework().retry()).on(self
            .wallets
            .framework()
            .store()
            .group());
        store::unit_of_work!(uow, |unit| {
            let last: Option<i64> = sqlx::query_scalar(
                "SELECT MAX(sequence) FROM events WHERE aggregate_type = $1 AND aggregate_id = $2",
            )
            .bind(aggregate)
            .bind(id)
            .fetch_one(&self.pool)
            .await
            .map_err(|e| Failed::Abort(Abort::Store(e.to_string())))?;
            let next = last.unwrap_or(0) + 1;
            let event_row = Self::event_row(aggregate, id, next, event).map_err(Failed::Refused)?;
            unit.extra(row.clone());
            unit.event_row(event_row);
            Ok(())
        })
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
        let row = Extra::new(
            "INSERT INTO promo_settings (name, value, updated_by, updated_ms) VALUES ($1, $2, $3, $4)
             ON CONFLICT (name) DO UPDATE SET value = excluded.value, updated_by = excluded.updated_by, updated_ms = excluded.updated_ms",
        )
        .text(name)
        .text(text)
        .text(staff_id)
        .int(self.now_ms());
        self.config_changed(row, name, json, staff_id).await
    }

    /// Adds `credit` to `unit` (nothing for no amount): the member's bonus
    /// pot, the turnover it requires noted on the wallet's event. A repeated
    /// reference moves nothing.
    pub(crate) async fn credit_in<'f>(
        &'f self,
        unit: &mut Unit<'f>,
        credit: &Credit<'_>,
    ) -> Result<(), Failed<PromoFailure>> {
        if credit.amount <= Decimal::ZERO {
            return Ok(());
        }
        // A self-excluded or timed-out member is paid no reward (nor is a
        // referral gift paid to them); the reward is not recorded either.
        self.safer
            .play_in(unit, credit.member_id)
            .await?
            .map_err(|e| Failed::Refused(PromoFailure::refused(e.code().0, e.to_string())))?;
        let mut meta = HashMap::new();
        meta.insert("promotion".to_string(), credit.source.to_string());
        meta.insert(
            "turnover_required".to_string(),
            credit.turnover_required.to_string(),
        );
        unit.metadata(meta);
        let moved = self
            .wallets
            .move_in(
                unit,
                &WalletId::new(credit.member_id, credit.currency),
                credit.reference.to_string(),
                WalletAction::Credit {
                    amount: credit.amount,
                    pot: Pot::Bonus,
                    kind: MovementKind::Bonus,
                },
            )
            .await?;
        unit.metadata(HashMap::new());
        moved.map_err(|e| {
            Failed::Refused(PromoFailure::Internal(format!(
                "crediting {}: {e}",
                credit.reference
            )))
        })?;
        Ok(())
    }

    /// Credits a promotion bonus alone (a credit lost after an earlier
    /// commit of the old code, healed on a repeat). A repeated reference
    /// moves nothing.
    pub(crate) async fn pay(
        &self,
        member_id: &str,
        currency: Currency,
        reference: &str,
        amount: Decimal,
        turnover_required: Decimal,
        source: &str,
    ) -> Result<(), PromoFailure> {
        let credit = Credit {
            member_id,
            currency,
            reference,
            amount,
            turnover_required,
            source,
        };
        self.commit_once(&[], &[], Some(&credit))
            .await
            .map_err(unit_failure)
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
        lease: crate::platform::lease::Lease,
        stop: tokio::sync::watch::Receiver<bool>,
    ) {
        crate::platform::lease::run_leased(lease, JOBS_EVERY, stop, || self.jobs_pass()).await
    }
}

/// A promotion's credit to a member's bonus pot.
pub(crate) struct Credit<'a> {
    pub member_id: &'a str,
    pub currency: Currency,
    pub reference: &'a str,
    pub amount: Decimal,
    pub turnover_required: Decimal,
    /// What paid it (`signin`, `task`, `draw`, ...), kept on the event.
    pub source: &'a str,
}

/// A unit of work that did not commit, as this area answers it.
pub(crate) fn unit_failure(error: UnitError<PromoFailure>) -> PromoFailure {
    match error {
        UnitError::Refused(failure) => failure,
        other => PromoFailure::Internal(other.to_string()),
    }
}

pub(crate) fn dec(text: &str) -> Decimal {
    text.parse().unwrap_or_default()
}
