//! Pure payment rules: channels, amount limits, card numbers and masks,
//! USDT chains and addresses, and the payment codes (spec 001 section 8:
//! 20, 20003, 20004, 20007; withdrawals -304xx, deposits -306xx; the
//! bank-card codes, which the spec names without numbers, are -305xx).

use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};

use crate::account::rules::Market;
use crate::Currency;

/// A refusal with its catalogue code and the member-facing message.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error, Serialize, Deserialize)]
#[error("{msg}")]
pub struct PaymentRefusal {
    pub code: i32,
    pub msg: String,
}

impl PaymentRefusal {
    pub fn new(code: i32, msg: impl Into<String>) -> Self {
        Self {
            code,
            msg: msg.into(),
        }
    }
}

/// The payment codes. Spec numbers first, platform-defined after.
pub mod codes {
    pub const BALANCE_LESS_THAN_WITHDRAWAL: i32 = 20;
    pub const BELOW_MIN: i32 = 20003;
    pub const ABOVE_MAX: i32 = 20004;
    pub const WITHDRAWAL_EXISTS: i32 = 20007;
    // Withdrawals (-304xx, platform-defined texts).
    pub const NO_FUND_PASSWORD: i32 = -30401;
    pub const WRONG_FUND_PASSWORD: i32 = -30402;
    pub const NO_PAYOUT_ACCOUNT: i32 = -30403;
    pub const AGENT_CANNOT_WITHDRAW: i32 = -30404;
    pub const DAILY_WITHDRAWALS_USED: i32 = -30405;
    pub const WITHDRAWAL_STATE: i32 = -30406;
    pub const UNKNOWN_WITHDRAWAL: i32 = -30407;
    pub const CANCEL_NOT_ALLOWED: i32 = -30408;
    pub const FUND_PASSWORD_LOCKED: i32 = -30409;
    // Bank cards and USDT addresses (-305xx, platform-defined).
    pub const CARD_NUMBER: i32 = -30501;
    pub const HOLDER_NOT_REAL_NAME: i32 = -30502;
    pub const ACCOUNT_LIMIT: i32 = -30503;
    pub const BLACKLISTED: i32 = -30504;
    pub const ALREADY_BOUND: i32 = -30505;
    pub const NO_REAL_NAME: i32 = -30506;
    pub const USDT_ADDRESS: i32 = -30507;
    pub const BANK_NAME: i32 = -30508;
    // Deposits (-306xx, platform-defined texts).
    pub const UNKNOWN_CHANNEL: i32 = -30601;
    pub const UNKNOWN_ORDER: i32 = -30602;
    pub const ORDER_STATE: i32 = -30603;
    pub const UNKNOWN_CHAIN: i32 = -30604;
    pub const QUOTE_EXPIRED: i32 = -30605;
    pub const OPEN_ORDERS: i32 = -30606;
    // Transfers between the main wallet and game wallets.
    pub const UNKNOWN_GAME_WALLET: i32 = -30701;
    pub const TRANSFER_BALANCE: i32 = -30702;
}

/// How a member pays in (`emaildeposit/*`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Channel {
    /// `chongzhi`: a payment provider's pay page (card-style).
    Provider,
    /// `bankchongzhi`: a bank transfer to a platform account, confirmed by
    /// the member with `confirmorder`.
    Bank,
    /// `virtualchongzhi`: USDT to the member's deposit address.
    Usdt,
}

impl Channel {
    pub const ALL: [Channel; 3] = [Channel::Provider, Channel::Bank, Channel::Usdt];

    pub fn name(self) -> &'static str {
        match self {
            Channel::Provider => "provider",
            Channel::Bank => "bank",
            Channel::Usdt => "usdt",
        }
    }

    pub fn parse(name: &str) -> Option<Channel> {
        match name.trim().to_ascii_lowercase().as_str() {
            "provider" | "chongzhi" | "online" | "card" => Some(Channel::Provider),
            "bank" | "bankchongzhi" => Some(Channel::Bank),
            "usdt" | "virtualchongzhi" | "virtual" => Some(Channel::Usdt),
            _ => None,
        }
    }
}

/// USDT chains.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum Chain {
    Trc20,
    Erc20,
}

impl Chain {
    pub const ALL: [Chain; 2] = [Chain::Trc20, Chain::Erc20];

    pub fn name(self) -> &'static str {
        match self {
            Chain::Trc20 => "TRC20",
            Chain::Erc20 => "ERC20",
        }
    }

    pub fn parse(name: &str) -> Option<Chain> {
        match name.trim().to_ascii_uppercase().as_str() {
            "TRC20" | "TRC-20" | "TRON" => Some(Chain::Trc20),
            "ERC20" | "ERC-20" | "ETH" => Some(Chain::Erc20),
            _ => None,
        }
    }

    /// Whether `address` has this chain's shape: TRC20 'T' + 33 base58
    /// characters, ERC20 '0x' + 40 hex digits.
    pub fn valid_address(self, address: &str) -> bool {
        const BASE58: &str = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";
        match self {
            Chain::Trc20 => {
                address.len() == 34
                    && address.starts_with('T')
                    && address.chars().all(|c| BASE58.contains(c))
            }
            Chain::Erc20 => {
                address.len() == 42
                    && address.starts_with("0x")
                    && address[2..].chars().all(|c| c.is_ascii_hexdigit())
            }
        }
    }
}

/// Min and max of one amount (a deposit channel or a withdrawal).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct AmountLimits {
    pub min: Decimal,
    pub max: Decimal,
}

/// What an amount limit is for: the messages differ (spec 000 section 5).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LimitOf {
    Deposit,
    Withdraw,
    Amount,
}

impl AmountLimits {
    /// 20003 'Min deposit is {1}' / 20004 'Max deposit is {1}' (and the
    /// withdraw and plain-amount forms).
    pub fn check(
        &self,
        amount: Decimal,
        currency: Currency,
        of: LimitOf,
    ) -> Result<(), PaymentRefusal> {
        let word = match of {
            LimitOf::Deposit => "deposit",
            LimitOf::Withdraw => "withdraw",
            LimitOf::Amount => "amount",
        };
        if amount < self.min {
            return Err(PaymentRefusal::new(
                codes::BELOW_MIN,
                format!("Min {word} is {}", currency.round(self.min)),
            ));
        }
        if amount > self.max {
            return Err(PaymentRefusal::new(
                codes::ABOVE_MAX,
                format!("Max {word} is {}", currency.round(self.max)),
            ));
        }
        Ok(())
    }
}

/// An amount as the member typed it: a positive decimal string at the
/// currency's precision, at most 18 characters (never a float).
pub fn parse_amount(text: &str, currency: Currency) -> Result<Decimal, PaymentRefusal> {
    let text = text.trim();
    let bad = || PaymentRefusal::new(crate::Code::WRONG_AMOUNT.0, "Wrong amount");
    if text.is_empty() || text.len() > 18 || !text.chars().all(|c| c.is_ascii_digit() || c == '.') {
        return Err(bad());
    }
    let amount: Decimal = text.parse().map_err(|_| bad())?;
    currency.exact_amount(amount).ok_or_else(bad)
}

/// A bank card number under the rules of spec 001 section 5: zhh 16 to 19
/// digits not starting with 0; other markets 10 to 18 digits. Spaces and
/// dashes the member typed are dropped.
pub fn parse_card_number(text: &str, market: Market) -> Result<String, PaymentRefusal> {
    let digits: String = text.chars().filter(|c| !matches!(c, ' ' | '-')).collect();
    let all_digits = !digits.is_empty() && digits.chars().all(|c| c.is_ascii_digit());
    let ok = all_digits
        && match market {
            Market::Zhh => (16..=19).contains(&digits.len()) && !digits.starts_with('0'),
            _ => (10..=18).contains(&digits.len()),
        };
    if ok {
        Ok(digits)
    } else {
        let rule = match market {
            Market::Zhh => "16 to 19 digits, not starting with 0",
            _ => "10 to 18 digits",
        };
        Err(PaymentRefusal::new(
            codes::CARD_NUMBER,
            format!("Invalid bank card number ({rule})"),
        ))
    }
}

/// The masked form a member and staff see: the bank-info mask of 11
/// characters, then the last four digits (spec 001 section 5).
pub fn mask_account(number: &str) -> String {
    let tail: String = number
        .chars()
        .rev()
        .take(4)
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .collect();
    format!("{}{tail}", "*".repeat(11))
}

/// A holder name compared with the member's real name: same letters,
/// whitespace and case ignored.
pub fn same_name(a: &str, b: &str) -> bool {
    let norm = |s: &str| -> String {
        s.chars()
            .filter(|c| !c.is_whitespace())
            .flat_map(|c| c.to_lowercase())
            .collect()
    };
    !norm(a).is_empty() && norm(a) == norm(b)
}

/// A USDT amount for `amount` of `currency` at `rate` (currency per USDT),
/// rounded up to 6 places (the member sends at least what is owed).
pub fn usdt_for(amount: Decimal, rate: Decimal) -> Option<Decimal> {
    if rate <= Decimal::ZERO {
        return None;
    }
    let usdt = amount.checked_div(rate)?;
    let mut usdt = usdt.round_dp_with_strategy(6, rust_decimal::RoundingStrategy::AwayFromZero);
    usdt.rescale(6);
    Some(usdt)
}

/// The currency amount `usdt` is worth at `rate`, rounded to the currency.
pub fn worth_of(usdt: Decimal, rate: Decimal, currency: Currency) -> Option<Decimal> {
    Some(currency.round(usdt.checked_mul(rate)?))
}
