//! Payments: deposits through a provider port (the sandbox provider stands
//! in for a real one), bank transfers and USDT; withdrawals reviewed by
//! finance; bank cards and USDT addresses; transfers to game wallets.
//!
//! Every money movement is a wallet command with a reference derived from
//! the order (`deposit:{id}`, `withdrawal:{id}:freeze|unfreeze|paid`,
//! `transfer:{id}:out|in`), so a step repeated after a crash, a repeated
//! callback or a second node moves nothing twice. The steps of one order
//! run in a fixed order and each is idempotent: a repeat of the whole
//! sequence finishes what an interrupted one left.
//!
//! Layout
//! - `settings`: `[payments]` configuration and the withdrawal-limits port.
//! - `deposits`: orders, provider reports, credits, reversals, expiry, USDT.
//! - `provider`: the provider port, callback signatures, the sandbox.
//! - `withdrawals`: requests, fund password, finance decisions.
//! - `cards`: bank cards and USDT addresses.
//! - `transfers`: the main wallet and the game providers' wallets.
//! - `reports`: queries of the read models for the report pages.

pub mod cards;
pub mod deposits;
pub mod payouts;
pub mod provider;
pub mod reports;
pub mod settings;
pub mod transfers;
pub mod withdrawals;

use std::collections::HashMap;
use std::sync::Arc;

use domain::payment::{Deposit, PaymentRefusal, Withdrawal};
use sqlx::AnyPool;

use crate::accounts::AccountService;
use crate::engagement::notify::Notifications;
use crate::platform::clock::SharedClock;
use crate::platform::ids::IdBlocks;
use crate::platform::limits::RateLimit;
use crate::wallet::WalletService;
use store::db::Db;
use store::events::StoreOptions;
use store::framework::{CommandError, Framework, RetryPolicy};
use store::metrics::CommandMetrics;

pub use settings::{
    ConfigWithdrawalLimits, MemberWithdrawalLimits, PaymentSettings, WithdrawalLimits,
};

/// Why a payment call did not go through.
#[derive(Debug, thiserror::Error)]
pub enum PaymentFailure {
    /// A rule: its code and message, for the member or the staff.
    #[error("{0}")]
    Refused(#[from] PaymentRefusal),
    #[error("{0}")]
    Internal(String),
}

impl PaymentFailure {
    pub fn refused(code: i32, msg: impl Into<String>) -> Self {
        PaymentFailure::Refused(PaymentRefusal::new(code, msg))
    }

    pub fn internal(e: impl std::fmt::Display) -> Self {
        PaymentFailure::Internal(e.to_string())
    }
}

impl From<crate::platform::lease::LeaseError> for PaymentFailure {
    fn from(e: crate::platform::lease::LeaseError) -> Self {
        PaymentFailure::Internal(e.to_string())
    }
}

impl From<sqlx::Error> for PaymentFailure {
    fn from(e: sqlx::Error) -> Self {
        PaymentFailure::Internal(e.to_string())
    }
}

pub type PaymentResult<T> = Result<T, PaymentFailure>;

fn command_failure<E: std::error::Error>(
    e: CommandError<E>,
    code: impl Fn(&E) -> i32,
) -> PaymentFailure {
    match e {
        CommandError::Rejected(refusal) => {
            PaymentFailure::refused(code(&refusal), refusal.to_string())
        }
        other => PaymentFailure::internal(other),
    }
}

/// The payment services share one of these.
pub struct Payments {
    pub(crate) pool: AnyPool,
    pub(crate) deposits: Framework<Deposit>,
    pub(crate) withdrawals: Framework<Withdrawal>,
    pub(crate) wallets: Arc<WalletService>,
    pub(crate) accounts: Arc<AccountService>,
    pub(crate) notifications: Arc<Notifications>,
    pub(crate) clock: SharedClock,
    pub(crate) settings: PaymentSettings,
    pub(crate) limits: Arc<dyn WithdrawalLimits>,
    /// The members' limits and exclusions: decided with every deposit
    /// order and every transfer to a game wallet.
    pub(crate) safer: Arc<crate::compliance::safer::Safeguards>,
    pub(crate) deposit_ids: IdBlocks,
    pub(crate) withdrawal_ids: IdBlocks,
    pub(crate) account_ids: IdBlocks,
    pub(crate) transfer_ids: IdBlocks,
    pub(crate) fund_password_failures: RateLimit,
    /// Where the sandbox provider delivers its callbacks (this node's own
    /// address when `[payments.sandbox] callback_url` is empty).
    pub(crate) callback_url: std::sync::OnceLock<String>,
}

impl Payments {
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        db: &Db,
        store: StoreOptions,
        retry: RetryPolicy,
        metrics: CommandMetrics,
        on_commit: Option<Arc<tokio::sync::Notify>>,
        wallets: Arc<WalletService>,
        accounts: Arc<AccountService>,
        notifications: Arc<Notifications>,
        clock: SharedClock,
        settings: PaymentSettings,
        safer: Arc<crate::compliance::safer::Safeguards>,
    ) -> Self {
        let pool = db.any.clone();
        let limits: Arc<dyn WithdrawalLimits> = Arc::new(ConfigWithdrawalLimits::new(
            settings.clone(),
            accounts.clone(),
        ));
        Self {
            deposits: Framework::new(db, store, (), retry, metrics.clone(), on_commit.clone()),
            withdrawals: Framework::new(db, store, (), retry, metrics, on_commit),
            wallets,
            accounts,
            notifications,
            clock,
            limits,
            safer,
            deposit_ids: IdBlocks::new(pool.clone(), "deposit", 20),
            withdrawal_ids: IdBlocks::new(pool.clone(), "withdrawal", 20),
            account_ids: IdBlocks::new(pool.clone(), "payacct", 20),
            transfer_ids: IdBlocks::new(pool.clone(), "transfer", 20),
            fund_password_failures: RateLimit::new(pool.clone(), "fund_password", 5, 15 * 60_000),
            callback_url: std::sync::OnceLock::new(),
            pool,
            settings,
        }
    }

    /// Replaces the withdrawal-limits port (the VIP levels plug in here).
    pub fn with_limits(mut self, limits: Arc<dyn WithdrawalLimits>) -> Self {
        self.limits = limits;
        self
    }

    pub fn settings(&self) -> &PaymentSettings {
        &self.settings
    }

    /// This node's base URL (`http://host:port`), for the sandbox's
    /// callbacks when none is configured.
    pub fn set_local_base(&self, base: String) {
        let url = if self.settings.sandbox.callback_url.trim().is_empty() {
            format!("{base}/api/payments/callback/sandbox")
        } else {
            self.settings.sandbox.callback_url.trim().to_string()
        };
        let _ = self.callback_url.set(url);
    }

    /// Staff metadata on events: who and why.
    pub(crate) fn staff_metadata(staff_id: &str, reason: &str) -> HashMap<String, String> {
        [("staff_id", staff_id), ("reason", reason)]
            .into_iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    /// The member's wallet currency (from the profile).
    pub(crate) async fn member_currency(&self, member_id: &str) -> PaymentResult<domain::Currency> {
        let account = self
            .accounts
            .load(member_id)
            .await
            .map_err(PaymentFailure::internal)?;
        account
            .profile
            .as_ref()
            .map(|p| p.currency)
            .ok_or_else(|| PaymentFailure::refused(domain::Code::NOT_LOGGED_IN.0, "Not logged in"))
    }
}

impl Payments {
    /// Sends tip `kind` to the member once per `key`.
    pub(crate) async fn tip_once(
        &self,
        key: &str,
        member_id: &str,
        kind: i64,
        body: serde_json::Value,
    ) {
        let claimed = sqlx::query(
            "INSERT INTO payment_tips (tip_key, sent_ms) VALUES ($1, $2) ON CONFLICT (tip_key) DO NOTHING",
        )
        .bind(key)
        .bind(self.clock.now_ms())
        .execute(&self.pool)
        .await;
        match claimed {
            Ok(done) if done.rows_affected() == 1 => {
                if let Err(e) = self.notifications.send(member_id, kind, &body).await {
                    tracing::warn!(error = %e, key, "payment tip not sent");
                }
            }
            Ok(_) => {}
            Err(e) => tracing::warn!(error = %e, key, "payment tip not claimed"),
        }
    }
}

/// Start of the UTC day containing `now_ms`.
pub(crate) fn day_start(now_ms: i64) -> i64 {
    now_ms - now_ms.rem_euclid(86_400_000)
}
