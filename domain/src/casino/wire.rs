//! The seamless wallet's wire vocabulary (DESIGN.md "Casino and the
//! seamless wallet"): the RS_* statuses and amounts as integers in units
//! of 1/100,000 of the currency.

use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};

use crate::Currency;

/// 1 currency unit = 100,000 wire units (Hub88: $3.56 is 356000).
pub const UNITS_PER_CURRENCY_UNIT: i64 = 100_000;

/// What the operator answers in `status`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Status {
    #[serde(rename = "RS_OK")]
    Ok,
    #[serde(rename = "RS_ERROR_UNKNOWN")]
    Unknown,
    #[serde(rename = "RS_ERROR_INVALID_TOKEN")]
    InvalidToken,
    #[serde(rename = "RS_ERROR_INVALID_GAME")]
    InvalidGame,
    #[serde(rename = "RS_ERROR_WRONG_CURRENCY")]
    WrongCurrency,
    #[serde(rename = "RS_ERROR_NOT_ENOUGH_MONEY")]
    NotEnoughMoney,
    #[serde(rename = "RS_ERROR_USER_DISABLED")]
    UserDisabled,
    #[serde(rename = "RS_ERROR_INVALID_SIGNATURE")]
    InvalidSignature,
    #[serde(rename = "RS_ERROR_TOKEN_EXPIRED")]
    TokenExpired,
    #[serde(rename = "RS_ERROR_WRONG_SYNTAX")]
    WrongSyntax,
    #[serde(rename = "RS_ERROR_WRONG_TYPES")]
    WrongTypes,
    #[serde(rename = "RS_ERROR_DUPLICATE_TRANSACTION")]
    DuplicateTransaction,
    #[serde(rename = "RS_ERROR_TRANSACTION_DOES_NOT_EXIST")]
    TransactionDoesNotExist,
    #[serde(rename = "RS_ERROR_TRANSACTION_ROLLED_BACK")]
    TransactionRolledBack,
    #[serde(rename = "RS_ERROR_LIMIT_REACHED")]
    LimitReached,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        use Status::*;
        match self {
            Ok => "RS_OK",
            Unknown => "RS_ERROR_UNKNOWN",
            InvalidToken => "RS_ERROR_INVALID_TOKEN",
            InvalidGame => "RS_ERROR_INVALID_GAME",
            WrongCurrency => "RS_ERROR_WRONG_CURRENCY",
            NotEnoughMoney => "RS_ERROR_NOT_ENOUGH_MONEY",
            UserDisabled => "RS_ERROR_USER_DISABLED",
            InvalidSignature => "RS_ERROR_INVALID_SIGNATURE",
            TokenExpired => "RS_ERROR_TOKEN_EXPIRED",
            WrongSyntax => "RS_ERROR_WRONG_SYNTAX",
            WrongTypes => "RS_ERROR_WRONG_TYPES",
            DuplicateTransaction => "RS_ERROR_DUPLICATE_TRANSACTION",
            TransactionDoesNotExist => "RS_ERROR_TRANSACTION_DOES_NOT_EXIST",
            TransactionRolledBack => "RS_ERROR_TRANSACTION_ROLLED_BACK",
            LimitReached => "RS_ERROR_LIMIT_REACHED",
        }
    }

    pub fn parse(text: &str) -> Option<Status> {
        serde_json::from_value(serde_json::Value::String(text.to_string())).ok()
    }
}

/// A wire amount as money of `currency`: `None` when negative or finer
/// than the currency's precision (we never round a provider's amount).
pub fn from_units(units: i64, currency: Currency) -> Option<Decimal> {
    if units < 0 {
        return None;
    }
    let amount = Decimal::from(units) / Decimal::from(UNITS_PER_CURRENCY_UNIT);
    let rounded = currency.round(amount);
    (rounded == amount).then_some(rounded)
}

/// Money as wire units (balances are at the currency's precision, so this
/// is exact; saturates far beyond any real balance).
pub fn to_units(amount: Decimal) -> i64 {
    let units = amount * Decimal::from(UNITS_PER_CURRENCY_UNIT);
    i64::try_from(units.trunc()).unwrap_or(if units.is_sign_negative() {
        i64::MIN
    } else {
        i64::MAX
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use rust_decimal_macros::dec;

    #[test]
    fn amounts_are_integers_in_units_of_one_hundred_thousandth() {
        assert_eq!(to_units(dec!(3.56)), 356_000);
        assert_eq!(from_units(356_000, Currency::Usd), Some(dec!(3.56)));
        assert_eq!(from_units(0, Currency::Usd), Some(dec!(0.00)));
    }

    #[test]
    fn an_amount_finer_than_the_currency_or_negative_is_refused() {
        assert_eq!(from_units(356_001, Currency::Usd), None);
        assert_eq!(from_units(-100_000, Currency::Usd), None);
    }

    #[test]
    fn statuses_spell_as_the_api_does() {
        assert_eq!(Status::NotEnoughMoney.as_str(), "RS_ERROR_NOT_ENOUGH_MONEY");
        assert_eq!(
            serde_json::to_value(Status::DuplicateTransaction).unwrap(),
            "RS_ERROR_DUPLICATE_TRANSACTION"
        );
        assert_eq!(Status::parse("RS_OK"), Some(Status::Ok));
    }
}
