//! VIP service (issue 11; docs/vip.md): turns the `vip` read model into Vip
//! aggregate events (levels reached, honour decay) and pays rewards (upgrade
//! gifts, monthly salary, daily rebates) to the bonus pot.
//!
//! Every reward is a Vip command keyed by kind and key (level, month, day
//! and product): a repeat answers the first grant and grants nothing. The
//! wallet credit that follows carries the grant's reference, so it happens
//! once however often it is retried; a credit that failed after its grant
//! was recorded is made by the next attempt (the job or a claim), which
//! always re-issues the credit of the recorded grant.
//!
//! The reward job runs under the lease `vip-rewards`; every step is
//! idempotent, so two passes at once (a stalled holder, two processes) pay
//! nothing twice.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use cqrs_es::EventStore;
use domain::account::Date;
use domain::vip::{
    rebate, reward_reference, DecaySkip, Grant, Product, RewardKind, Vip, VipAction, VipCommand,
    VipError, VipReceipt, VipTables,
};
use domain::wallet::{MovementKind, Pot, WalletAction, WalletCommand, WalletId};
use domain::Currency;
use projections::vip::{self as model, VipMember};
use rust_decimal::Decimal;
use sqlx::AnyPool;
use tokio::sync::{watch, Notify};

use crate::platform::clock::SharedClock;
use crate::platform::lease::{run_leased, Lease, LeaseError};
use crate::wallet::WalletService;
use store::db::Db;
use store::events::StoreOptions;
use store::framework::{CommandError, Framework, RetryPolicy};
use store::metrics::CommandMetrics;

/// The lease of the reward job.
pub const VIP_REWARDS_LEASE: &str = "vip-rewards";

/// Days after a calendar season end within which its decay is applied (a
/// newly deployed calendar never decays for seasons long past).
pub const DECAY_WINDOW_DAYS: i64 = 7;

const PAGE: i64 = 500;

#[derive(Debug, thiserror::Error)]
pub enum VipFailure {
    #[error("{0}")]
    Refused(VipError),
    #[error("{0}")]
    Internal(String),
}

impl From<sqlx::Error> for VipFailure {
    fn from(e: sqlx::Error) -> Self {
        VipFailure::Internal(e.to_string())
    }
}

impl From<LeaseError> for VipFailure {
    fn from(e: LeaseError) -> Self {
        VipFailure::Internal(e.to_string())
    }
}

impl From<CommandError<VipError>> for VipFailure {
    fn from(e: CommandError<VipError>) -> Self {
        match e {
            CommandError::Rejected(r) => VipFailure::Refused(r),
            other => VipFailure::Internal(other.to_string()),
        }
    }
}

/// A reward as its claimant sees it.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Paid {
    pub grant: Grant,
    /// Granted before (this call paid nothing new).
    pub duplicate: bool,
}

/// The withdrawal limits of a member's level (the payments issue's
/// `WithdrawalLimits` port reads this).
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct WithdrawalLimits {
    pub level: u8,
    /// Withdrawals allowed per day.
    pub withdrawtimes: u32,
    /// The most that may be withdrawn per day, in the member's currency.
    pub withdrawlimits: Decimal,
}

/// What one pass of the job did.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
pub struct PassReport {
    pub promoted: usize,
    pub rebates: usize,
    pub salaries: usize,
    pub decayed: usize,
}

pub struct VipService {
    framework: Framework<Vip>,
    wallets: Arc<WalletService>,
    pool: AnyPool,
    clock: SharedClock,
    tables: Arc<VipTables>,
}

fn currency_of(member: &VipMember) -> Currency {
    member.currency.parse().unwrap_or(Currency::Cny)
}

pub fn today(now_ms: i64) -> Date {
    Date::from_epoch_ms(now_ms)
}

pub fn yesterday(now_ms: i64) -> Date {
    Date::from_days_since_epoch(Date::from_epoch_ms(now_ms).days_since_epoch() - 1)
}

/// `YYYY-MM` of the month before the one `now_ms` falls in.
pub fn previous_month(now_ms: i64) -> String {
    let d = Date::from_epoch_ms(now_ms);
    let (y, m) = if d.month() == 1 {
        (d.year() - 1, 12)
    } else {
        (d.year(), d.month() - 1)
    };
    format!("{y:04}-{m:02}")
}

impl VipService {
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        db: &Db,
        options: StoreOptions,
        retry: RetryPolicy,
        metrics: CommandMetrics,
        on_commit: Option<Arc<Notify>>,
        wallets: Arc<WalletService>,
        clock: SharedClock,
        tables: Arc<VipTables>,
    ) -> Self {
        Self {
            framework: Framework::new(db, options, (), retry, metrics, on_commit),
            wallets,
            pool: db.any.clone(),
            clock,
            tables,
        }
    }

    pub fn tables(&self) -> &Arc<VipTables> {
        &self.tables
    }

    async fn exec(&self, member_id: &str, action: VipAction) -> Result<VipReceipt, VipFailure> {
        let command = VipCommand::new(action);
        let reply = command.reply.clone();
        self.framework
            .execute(member_id, command, Default::default())
            .await?;
        match reply.take() {
            Some(Ok(receipt)) => Ok(receipt),
            Some(Err(e)) => Err(VipFailure::Refused(e)),
            None => Err(VipFailure::Internal(
                "the Vip aggregate gave no outcome".into(),
            )),
        }
    }

    /// The member's Vip aggregate as the store has it now.
    pub async fn state(&self, member_id: &str) -> Result<Vip, VipFailure> {
        let loaded = self
            .framework
            .store()
            .load_current(member_id)
            .await
            .map_err(|e| VipFailure::Internal(e.to_string()))?;
        Ok(loaded.aggregate)
    }

    /// Every event of one member's Vip aggregate (tests, audits).
    pub async fn events(&self, member_id: &str) -> Result<Vec<domain::vip::VipEvent>, VipFailure> {
        let events = self
            .framework
            .store()
            .load_events(member_id)
            .await
            .map_err(|e| VipFailure::Internal(e.to_string()))?;
        Ok(events.into_iter().map(|e| e.payload).collect())
    }

    /// Records `VipLevelReached` up to the read model's level.
    pub async fn promote(&self, member: &VipMember) -> Result<u8, VipFailure> {
        if member.level <= member.reached_level {
            return Ok(member.level);
        }
        let receipt = self
            .exec(
                &member.member_id,
                VipAction::Reach {
                    level: member.level,
                    market: member.market(),
                    currency: currency_of(member),
                    at_ms: self.clock.now_ms(),
                },
            )
            .await?;
        Ok(match receipt {
            VipReceipt::Level { level } => level,
            _ => member.level,
        })
    }

    /// The member's row, promoted first when the aggregate lags.
    pub async fn member(&self, member_id: &str) -> Result<Option<VipMember>, VipFailure> {
        let Some(member) = model::member(&self.pool, member_id).await? else {
            return Ok(None);
        };
        self.promote(&member).await?;
        Ok(Some(member))
    }

    pub async fn promote_all(&self) -> Result<usize, VipFailure> {
        let mut done = 0;
        for member in model::to_promote(&self.pool, PAGE).await? {
            self.promote(&member).await?;
            done += 1;
        }
        Ok(done)
    }

    /// Records the grant (or finds the first one) and credits its
    /// reference to the bonus pot.
    async fn pay(&self, member: &VipMember, grant: Grant) -> Result<Paid, VipFailure> {
        let receipt = self
            .exec(&member.member_id, VipAction::Grant(grant))
            .await?;
        let VipReceipt::Granted { grant, duplicate } = receipt else {
            return Err(VipFailure::Internal("unexpected Vip receipt".into()));
        };
        let kind = match grant.kind {
            RewardKind::Rebate => MovementKind::Rebate,
            _ => MovementKind::Bonus,
        };
        let credit = WalletCommand::new(
            WalletId::new(member.member_id.clone(), grant.currency),
            grant.reference.clone(),
            WalletAction::Credit {
                amount: grant.amount,
                pot: Pot::Bonus,
                kind,
            },
        );
        let mut meta = std::collections::HashMap::new();
        meta.insert("vip_reward".to_string(), grant.kind.code().to_string());
        meta.insert(
            "turnover_required".to_string(),
            grant.turnover_required.to_string(),
        );
        self.wallets
            .execute_with(credit, meta)
            .await
            .map_err(|e| VipFailure::Internal(format!("crediting {}: {e}", grant.reference)))?;
        Ok(Paid { grant, duplicate })
    }

    fn grant(
        &self,
        member: &VipMember,
        kind: RewardKind,
        key: String,
        level: u8,
        amount: Decimal,
    ) -> Grant {
        let currency = currency_of(member);
        Grant {
            reference: reward_reference(&member.member_id, kind, &key),
            kind,
            key,
            level,
            currency,
            amount: currency.round(amount),
            basis: Decimal::ZERO,
            rate: Decimal::ZERO,
            turnover_required: currency.round(amount * self.tables.reward_turnover_multiple),
            at_ms: self.clock.now_ms(),
        }
    }

    /// `getgrowgift`: the upgrade gift of `level`, or (none) of every level
    /// reached (those collected before answer their first grant).
    pub async fn claim_gifts(
        &self,
        member_id: &str,
        level: Option<u8>,
    ) -> Result<Vec<Paid>, VipFailure> {
        let Some(member) = self.member(member_id).await? else {
            return Err(VipFailure::Refused(if level.is_some() {
                VipError::NotReached
            } else {
                VipError::NothingToClaim
            }));
        };
        let table = self.tables.market(member.market());
        let levels: Vec<u8> = match level {
            Some(l) => vec![l],
            None => {
                let state = self.state(member_id).await?;
                // Every level reached with a gift: those collected before
                // answer their first grant, as a repeated claim does.
                state
                    .reached
                    .iter()
                    .copied()
                    .filter(|l| {
                        table.gift(*l) > Decimal::ZERO
                            || state
                                .grants
                                .contains_key(&(RewardKind::Gift, l.to_string()))
                    })
                    .collect()
            }
        };
        if levels.is_empty() {
            return Err(VipFailure::Refused(VipError::NothingToClaim));
        }
        let mut paid = vec![];
        for l in levels {
            let grant = self.grant(&member, RewardKind::Gift, l.to_string(), l, table.gift(l));
            paid.push(self.pay(&member, grant).await?);
        }
        Ok(paid)
    }

    /// The rebate of `day` per product at the member's current level.
    pub async fn pay_rebate(&self, member_id: &str, day: Date) -> Result<Vec<Paid>, VipFailure> {
        let Some(member) = self.member(member_id).await? else {
            return Ok(vec![]);
        };
        let table = self.tables.market(member.market());
        let currency = currency_of(&member);
        let turnover = model::daily(&self.pool, member_id, &day.to_string()).await?;
        let mut paid = vec![];
        for product in Product::ALL {
            let basis = turnover.get(&product).copied().unwrap_or_default();
            let rate = table.rate(member.level, product);
            let amount = rebate(basis, rate, currency);
            if amount <= Decimal::ZERO {
                continue;
            }
            let mut grant = self.grant(
                &member,
                RewardKind::Rebate,
                format!("{day}:{}", product.code()),
                member.level,
                amount,
            );
            grant.basis = basis;
            grant.rate = rate;
            paid.push(self.pay(&member, grant).await?);
        }
        Ok(paid)
    }

    /// What `getvipbonus` would pay now (yesterday's rebate per product).
    pub async fn rebate_preview(
        &self,
        member: &VipMember,
    ) -> Result<BTreeMap<Product, (Decimal, Decimal, Decimal)>, VipFailure> {
        let day = yesterday(self.clock.now_ms());
        let table = self.tables.market(member.market());
        let turnover = model::daily(&self.pool, &member.member_id, &day.to_string()).await?;
        let mut out = BTreeMap::new();
        for product in Product::ALL {
            let basis = turnover.get(&product).copied().unwrap_or_default();
            let rate = table.rate(member.level, product);
            out.insert(
                product,
                (basis, rate, rebate(basis, rate, currency_of(member))),
            );
        }
        Ok(out)
    }

    /// `getvipbonus`: yesterday's rebate now (the job pays it otherwise).
    pub async fn claim_rebate(&self, member_id: &str) -> Result<Vec<Paid>, VipFailure> {
        let paid = self
            .pay_rebate(member_id, yesterday(self.clock.now_ms()))
            .await?;
        if paid.is_empty() {
            return Err(VipFailure::Refused(VipError::NothingToClaim));
        }
        Ok(paid)
    }

    /// The salary of `month` (`YYYY-MM`) when its valid turnover reached the
    /// level's `cashflow`.
    pub async fn pay_salary(
        &self,
        member_id: &str,
        month: &str,
    ) -> Result<Option<Paid>, VipFailure> {
        let Some(member) = self.member(member_id).await? else {
            return Ok(None);
        };
        let table = self.tables.market(member.market());
        let salary = table.salary(member.level);
        if salary <= Decimal::ZERO {
            return Ok(None);
        }
        let turnover = model::month_turnover(&self.pool, member_id, month).await?;
        if turnover < table.cashflow(member.level) {
            return Ok(None);
        }
        let mut grant = self.grant(
            &member,
            RewardKind::Salary,
            month.to_string(),
            member.level,
            salary,
        );
        grant.basis = turnover;
        Ok(Some(self.pay(&member, grant).await?))
    }

    pub async fn pay_rebates_for(&self, day: Date) -> Result<usize, VipFailure> {
        let mut after = String::new();
        let mut n = 0;
        loop {
            let page = model::members_on(&self.pool, &day.to_string(), &after, PAGE).await?;
            let Some(last) = page.last().cloned() else {
                break;
            };
            for member in page {
                n += self.pay_rebate(&member, day).await?.len();
            }
            after = last;
        }
        Ok(n)
    }

    pub async fn pay_salaries_for(&self, month: &str) -> Result<usize, VipFailure> {
        let mut after = String::new();
        let mut n = 0;
        loop {
            let page = model::members_in_month(&self.pool, month, &after, PAGE).await?;
            let Some(last) = page.last().cloned() else {
                break;
            };
            for member in page {
                n += self.pay_salary(&member, month).await?.is_some() as usize;
            }
            after = last;
        }
        Ok(n)
    }

    /// Honour decay after a season: every member above level 1 goes one
    /// level down with the values reset to that level's start; once per
    /// `period`. `first_season`: the platform's first season (nobody
    /// decays under `decay_skip = "platform"`); `previous_end_ms`: when the
    /// season before ended (members registered after it are in their first
    /// season under `decay_skip = "member"`). The seasons issue calls this
    /// on `SeasonEnded`; until then the calendar in `[vip] season_ends`
    /// does.
    pub async fn season_ended(
        &self,
        period: &str,
        first_season: bool,
        previous_end_ms: Option<i64>,
    ) -> Result<usize, VipFailure> {
        if first_season && self.tables.decay_skip == DecaySkip::Platform {
            return Ok(0);
        }
        let mut after = String::new();
        let mut n = 0;
        loop {
            let page = model::above_level_one(&self.pool, &after, PAGE).await?;
            let Some(last) = page.last().map(|m| m.member_id.clone()) else {
                break;
            };
            for member in page {
                if self.tables.decay_skip == DecaySkip::Member
                    && (first_season
                        || previous_end_ms.is_some_and(|end| member.registered_ms > end))
                {
                    continue;
                }
                self.promote(&member).await?;
                let table = self.tables.market(member.market());
                let to = member.level - 1;
                let receipt = self
                    .exec(
                        &member.member_id,
                        VipAction::Decay {
                            period: period.to_string(),
                            money: table.money_needed(to),
                            bets: table.bets_needed(to),
                            at_ms: self.clock.now_ms(),
                        },
                    )
                    .await?;
                if matches!(receipt, VipReceipt::Decayed { level } if level < member.level) {
                    n += 1;
                }
            }
            after = last;
        }
        Ok(n)
    }

    /// Applies the calendar's season ends that passed within the window.
    pub async fn run_calendar(&self) -> Result<usize, VipFailure> {
        let now = self.clock.now_ms();
        let today = today(now).days_since_epoch();
        let mut dates: Vec<Date> = self
            .tables
            .season_ends
            .iter()
            .filter_map(|d| d.parse().ok())
            .collect();
        dates.sort();
        let mut n = 0;
        for (i, date) in dates.iter().enumerate() {
            let end = date.days_since_epoch() + 1;
            if today < end || today > end + DECAY_WINDOW_DAYS {
                continue;
            }
            let job = format!("decay:{date}");
            if self.done(&job).await? {
                continue;
            }
            let previous = (i > 0).then(|| (dates[i - 1].days_since_epoch() + 1) * 86_400_000);
            n += self
                .season_ended(&format!("season:{date}"), i == 0, previous)
                .await?;
            self.mark(&job).await?;
        }
        Ok(n)
    }

    async fn done(&self, job: &str) -> Result<bool, VipFailure> {
        let row = sqlx::query("SELECT done_ms FROM vip_jobs WHERE name = $1")
            .bind(job)
            .fetch_optional(&self.pool)
            .await?;
        Ok(row.is_some())
    }

    async fn mark(&self, job: &str) -> Result<(), VipFailure> {
        sqlx::query(
            "INSERT INTO vip_jobs (name, done_ms) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING",
        )
        .bind(job)
        .bind(self.clock.now_ms())
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    /// One pass of the job: levels reached, yesterday's rebates, last
    /// month's salaries, calendar decay. Safe to run twice at once.
    pub async fn pass(&self) -> Result<PassReport, VipFailure> {
        let now = self.clock.now_ms();
        let mut report = PassReport {
            promoted: self.promote_all().await?,
            ..PassReport::default()
        };
        let day = yesterday(now);
        let job = format!("rebate:{day}");
        if !self.done(&job).await? {
            report.rebates = self.pay_rebates_for(day).await?;
            self.mark(&job).await?;
        }
        let month = previous_month(now);
        let job = format!("salary:{month}");
        if !self.done(&job).await? {
            report.salaries = self.pay_salaries_for(&month).await?;
            self.mark(&job).await?;
        }
        report.decayed = self.run_calendar().await?;
        Ok(report)
    }

    /// Runs `pass` every `[vip] job_every_ms` while this process holds the
    /// lease, until `stop`.
    pub async fn run(self: Arc<Self>, lease: Lease, stop: watch::Receiver<bool>) {
        let every = Duration::from_millis(self.tables.job_every_ms.max(100));
        run_leased(lease, every, stop, || {
            let me = self.clone();
            async move { me.pass().await }
        })
        .await
    }

    /// `withdrawtimes` / `withdrawlimits` of the member's level (level 1
    /// for a member without activity).
    pub async fn withdrawal_limits(
        &self,
        member_id: &str,
        market: domain::account::Market,
    ) -> Result<WithdrawalLimits, VipFailure> {
        let (level, market) = match model::member(&self.pool, member_id).await? {
            Some(m) => (m.level, m.market()),
            None => (1, market),
        };
        let table = self.tables.market(market);
        Ok(WithdrawalLimits {
            level,
            withdrawtimes: table.withdraw_times(level),
            withdrawlimits: table.withdraw_limit(level),
        })
    }

    /// Spends M currency (the shop of the promotions issue): once per
    /// reference, never more than the member has.
    pub async fn spend_points(
        &self,
        member_id: &str,
        reference: &str,
        amount: Decimal,
    ) -> Result<VipReceipt, VipFailure> {
        let earned = model::member(&self.pool, member_id)
            .await?
            .map(|m| m.points_earned)
            .unwrap_or_default();
        self.exec(
            member_id,
            VipAction::SpendPoints {
                reference: reference.to_string(),
                amount,
                earned,
                at_ms: self.clock.now_ms(),
            },
        )
        .await
    }
}

/// The payments issue's withdrawal-limits port answered by the VIP levels:
/// withdrawals per day are the member's level's `withdrawtimes`, and one
/// withdrawal is at most the level's `withdrawlimits` (the day's limit; never
/// above `[payments] withdraw_limits`). Agents and the minimum stay as
/// `[payments]` configures them.
pub struct VipWithdrawalLimits {
    vip: Arc<VipService>,
    base: Arc<dyn crate::payments::WithdrawalLimits>,
}

impl VipWithdrawalLimits {
    pub fn new(vip: Arc<VipService>, base: Arc<dyn crate::payments::WithdrawalLimits>) -> Self {
        Self { vip, base }
    }
}

/// The market a member without a VIP row yet is read in.
fn market_of(currency: Currency) -> domain::account::Market {
    match currency {
        Currency::Cny => domain::account::Market::Zhh,
        Currency::Thb => domain::account::Market::Tha,
        Currency::Usd => domain::account::Market::Eng,
    }
}

#[async_trait::async_trait]
impl crate::payments::WithdrawalLimits for VipWithdrawalLimits {
    async fn for_member(
        &self,
        member_id: &str,
        currency: Currency,
    ) -> Result<crate::payments::MemberWithdrawalLimits, String> {
        let mut limits = self.base.for_member(member_id, currency).await?;
        let level = self
            .vip
            .withdrawal_limits(member_id, market_of(currency))
            .await
            .map_err(|e| e.to_string())?;
        limits.times_per_day = level.withdrawtimes;
        limits.amount.max = limits.amount.max.min(level.withdrawlimits);
        Ok(limits)
    }
}
