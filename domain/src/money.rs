//! Money is always `Decimal`, rounded per currency (invariant 1).

use std::fmt;
use std::str::FromStr;

use rust_decimal::{Decimal, RoundingStrategy};
use serde::{Deserialize, Serialize};

/// Places kept for odds (spec 000 section 1: odds rounding is 3 decimals).
pub const ODDS_PLACES: u32 = 3;

/// The currencies the platform offers (spec 000 section 1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, PartialOrd, Ord)]
#[serde(rename_all = "UPPERCASE")]
pub enum Currency {
    Usd,
    Thb,
    Cny,
}

impl Currency {
    pub const ALL: [Currency; 3] = [Currency::Usd, Currency::Thb, Currency::Cny];

    pub fn code(self) -> &'static str {
        match self {
            Currency::Usd => "USD",
            Currency::Thb => "THB",
            Currency::Cny => "CNY",
        }
    }

    /// Decimal places kept for amounts in this currency.
    pub fn places(self) -> u32 {
        2
    }

    /// Rounds a computed amount (a payout, a rebate) to this currency.
    pub fn round(self, amount: Decimal) -> Decimal {
        let mut rounded =
            amount.round_dp_with_strategy(self.places(), RoundingStrategy::MidpointAwayFromZero);
        rounded.rescale(self.places());
        rounded
    }

    /// An amount a caller asked to move: positive and already at this
    /// currency's precision (we never silently round a caller's amount).
    pub fn exact_amount(self, amount: Decimal) -> Option<Decimal> {
        if amount <= Decimal::ZERO || self.round(amount) != amount {
            return None;
        }
        Some(self.round(amount))
    }
}

impl fmt::Display for Currency {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.code())
    }
}

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[error("unknown currency '{0}' (accepted: USD, THB, CNY)")]
pub struct UnknownCurrency(pub String);

impl FromStr for Currency {
    type Err = UnknownCurrency;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.to_ascii_uppercase().as_str() {
            "USD" => Ok(Currency::Usd),
            "THB" => Ok(Currency::Thb),
            "CNY" => Ok(Currency::Cny),
            _ => Err(UnknownCurrency(s.to_string())),
        }
    }
}

/// Rounds odds to the platform's 3 places.
pub fn round_odds(odds: Decimal) -> Decimal {
    odds.round_dp_with_strategy(ODDS_PLACES, RoundingStrategy::MidpointAwayFromZero)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rust_decimal_macros::dec;

    #[test]
    fn amounts_round_to_two_places_per_currency() {
        for c in Currency::ALL {
            assert_eq!(c.round(dec!(1.005)), dec!(1.01));
            assert_eq!(c.round(dec!(2.344)), dec!(2.34));
            assert_eq!(c.round(dec!(7)).to_string(), "7.00");
        }
    }

    #[test]
    fn caller_amounts_must_be_positive_and_exact() {
        assert_eq!(Currency::Cny.exact_amount(dec!(10.5)), Some(dec!(10.50)));
        assert_eq!(Currency::Cny.exact_amount(dec!(10.005)), None);
        assert_eq!(Currency::Cny.exact_amount(dec!(0)), None);
        assert_eq!(Currency::Cny.exact_amount(dec!(-1)), None);
    }

    #[test]
    fn odds_keep_three_places() {
        assert_eq!(round_odds(dec!(1.23456)), dec!(1.235));
    }

    #[test]
    fn currency_codes_parse_case_insensitively() {
        assert_eq!("cny".parse::<Currency>(), Ok(Currency::Cny));
        assert!("EUR".parse::<Currency>().is_err());
    }
}
