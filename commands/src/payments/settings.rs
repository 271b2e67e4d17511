//! `[payments]` configuration, with the defaults the docs state, and the
//! withdrawal-limits port.

use std::collections::HashMap;
use std::sync::Arc;

use domain::payment::{AmountLimits, Channel};
use domain::Currency;
use rust_decimal::Decimal;
use serde::Deserialize;

use crate::accounts::AccountService;

#[derive(Debug, Clone, Deserialize)]
#[serde(default)]
pub struct PaymentSettings {
    /// Minutes an unpaid provider or bank order stays open.
    pub order_minutes: i64,
    /// Open (unpaid) deposit orders a member may hold at once.
    pub max_open_orders: i64,
    /// Per channel ("provider", "bank", "usdt"), per currency: [min, max].
    pub deposit_limits: HashMap<String, HashMap<String, [Decimal; 2]>>,
    /// Quick amounts the deposit page offers, per currency.
    pub quick_amounts: HashMap<String, Vec<Decimal>>,
    /// Default withdrawal limits until the VIP levels provide them.
    pub withdraw_times_per_day: u32,
    /// Per currency: [min, max] of one withdrawal.
    pub withdraw_limits: HashMap<String, [Decimal; 2]>,
    /// Whether a member may cancel a withdrawal still waiting for review
    /// (UK rules forbid reversing withdrawals: set false there).
    pub member_may_cancel_withdrawal: bool,
    /// Bank cards / USDT addresses a member may bind.
    pub max_cards: i64,
    pub max_usdt_addresses: i64,
    /// Card numbers and addresses nobody may bind (besides the table
    /// finance keeps).
    pub blacklist: Vec<String>,
    /// Usernames or member ids of special general agents: they cannot
    /// withdraw (spec 001 section 6).
    pub special_general_agents: Vec<String>,
    /// Turnover a deposit needs before withdrawal (times its amount), and
    /// a bonus (spec 001 section 9: bonus withdrawable at double turnover).
    pub deposit_turnover_multiple: Decimal,
    pub bonus_turnover_multiple: Decimal,
    /// Game providers whose transfer wallets members can move money to.
    pub game_wallets: Vec<String>,
    /// Who pays approved withdrawals out: "sandbox" (the sandbox payout
    /// provider reports paid or failed; DEMO only) or "manual" (finance
    /// marks them paid or failed). Outside DEMO it is always "manual".
    pub payouts: String,
    pub bank: BankAccount,
    pub usdt: UsdtSettings,
    pub sandbox: SandboxSettings,
}

/// The platform account bank transfers go to.
#[derive(Debug, Clone, Deserialize)]
#[serde(default)]
pub struct BankAccount {
    pub bank_name: String,
    pub account: String,
    pub holder: String,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(default)]
pub struct UsdtSettings {
    pub confirmations_trc20: u32,
    pub confirmations_erc20: u32,
    pub quote_minutes: i64,
    /// Currency units per USDT, the rate source's starting values.
    pub rates: HashMap<String, Decimal>,
    /// Secret the deposit addresses are derived from.
    pub address_secret: String,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(default)]
pub struct SandboxSettings {
    /// HMAC key of the callbacks (development value; `PAYMENTS_SANDBOX_SECRET`).
    pub secret: String,
    /// Where callbacks go; empty: this node's own address.
    pub callback_url: String,
    /// Copies of each callback the sandbox sends (providers repeat).
    pub repeats: u32,
    /// Seconds a callback's timestamp may be away from now.
    pub tolerance_s: i64,
    /// Milliseconds the sandbox takes to report a payout.
    pub payout_delay_ms: i64,
}

impl Default for PaymentSettings {
    fn default() -> Self {
        let d = |s: &str| s.parse::<Decimal>().unwrap_or_default();
        let per_currency = |usd: [&str; 2], thb: [&str; 2], cny: [&str; 2]| {
            HashMap::from([
                ("USD".to_string(), [d(usd[0]), d(usd[1])]),
                ("THB".to_string(), [d(thb[0]), d(thb[1])]),
                ("CNY".to_string(), [d(cny[0]), d(cny[1])]),
            ])
        };
        let deposit = per_currency(["10", "10000"], ["300", "300000"], ["50", "50000"]);
        Self {
            order_minutes: 30,
            max_open_orders: 5,
            deposit_limits: HashMap::from([
                ("provider".to_string(), deposit.clone()),
                ("bank".to_string(), deposit.clone()),
                ("usdt".to_string(), deposit),
            ]),
            quick_amounts: HashMap::from([
                (
                    "USD".to_string(),
                    ["10", "50", "100", "500", "1000"].map(d).to_vec(),
                ),
                (
                    "THB".to_string(),
                    ["300", "1000", "3000", "10000", "30000"].map(d).to_vec(),
                ),
                (
                    "CNY".to_string(),
                    ["100", "500", "1000", "5000", "10000"].map(d).to_vec(),
                ),
            ]),
            withdraw_times_per_day: 5,
            withdraw_limits: per_currency(["10", "50000"], ["300", "1500000"], ["100", "300000"]),
            member_may_cancel_withdrawal: true,
            max_cards: 5,
            max_usdt_addresses: 5,
            blacklist: vec![],
            special_general_agents: vec![],
            deposit_turnover_multiple: d("1"),
            bonus_turnover_multiple: d("2"),
            game_wallets: vec!["demo".to_string()],
            payouts: "sandbox".to_string(),
            bank: BankAccount::default(),
            usdt: UsdtSettings::default(),
            sandbox: SandboxSettings::default(),
        }
    }
}

impl Default for BankAccount {
    fn default() -> Self {
        Self {
            bank_name: "Sandbox Bank (stand-in)".into(),
            account: "6222000011112222333".into(),
            holder: "Platform Receiving Account".into(),
        }
    }
}

impl Default for UsdtSettings {
    fn default() -> Self {
        let d = |s: &str| s.parse::<Decimal>().unwrap_or_default();
        Self {
            confirmations_trc20: 19,
            confirmations_erc20: 64,
            quote_minutes: 15,
            rates: HashMap::from([
                ("USD".to_string(), d("1.00")),
                ("THB".to_string(), d("36.00")),
                ("CNY".to_string(), d("7.20")),
            ]),
            address_secret: "development-usdt-address-secret".into(),
        }
    }
}

impl Default for SandboxSettings {
    fn default() -> Self {
        Self {
            secret: "development-sandbox-secret-change-me".into(),
            callback_url: String::new(),
            repeats: 3,
            tolerance_s: 300,
            payout_delay_ms: 3_000,
        }
    }
}

impl PaymentSettings {
    pub fn deposit_limits(&self, channel: Channel, currency: Currency) -> Option<AmountLimits> {
        self.deposit_limits
            .get(channel.name())
            .and_then(|per| per.get(currency.code()))
            .map(|[min, max]| AmountLimits {
                min: *min,
                max: *max,
            })
    }

    pub fn confirmations(&self, chain: domain::payment::Chain) -> u32 {
        match chain {
            domain::payment::Chain::Trc20 => self.usdt.confirmations_trc20,
            domain::payment::Chain::Erc20 => self.usdt.confirmations_erc20,
        }
    }
}

/// What a member may withdraw: the VIP levels decide this per level
/// (`withdrawtimes`, `withdrawlimits`); until they do, the configured
/// defaults.
#[derive(Debug, Clone, PartialEq)]
pub struct MemberWithdrawalLimits {
    pub times_per_day: u32,
    pub amount: AmountLimits,
    /// False for special general agents.
    pub may_withdraw: bool,
}

/// The withdrawal-limits port.
#[async_trait::async_trait]
pub trait WithdrawalLimits: Send + Sync {
    async fn for_member(
        &self,
        member_id: &str,
        currency: Currency,
    ) -> Result<MemberWithdrawalLimits, String>;
}

/// The default: `[payments] withdraw_times_per_day`, `withdraw_limits`,
/// `special_general_agents`.
pub struct ConfigWithdrawalLimits {
    settings: PaymentSettings,
    accounts: Arc<AccountService>,
}

impl ConfigWithdrawalLimits {
    pub fn new(settings: PaymentSettings, accounts: Arc<AccountService>) -> Self {
        Self { settings, accounts }
    }
}

#[async_trait::async_trait]
impl WithdrawalLimits for ConfigWithdrawalLimits {
    async fn for_member(
        &self,
        member_id: &str,
        currency: Currency,
    ) -> Result<MemberWithdrawalLimits, String> {
        let [min, max] = self
            .settings
            .withdraw_limits
            .get(currency.code())
            .copied()
            .ok_or_else(|| format!("no withdrawal limits for {currency}"))?;
        let account = self
            .accounts
            .load(member_id)
            .await
            .map_err(|e| e.to_string())?;
        let username = account
            .profile
            .as_ref()
            .map(|p| p.username.as_str().to_string())
            .unwrap_or_default();
        let agent = self
            .settings
            .special_general_agents
            .iter()
            .any(|a| a == member_id || a.eq_ignore_ascii_case(&username));
        Ok(MemberWithdrawalLimits {
            times_per_day: self.settings.withdraw_times_per_day,
            amount: AmountLimits { min, max },
            may_withdraw: !agent,
        })
    }
}
