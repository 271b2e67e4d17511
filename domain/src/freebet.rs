//! Free-bet grants by staff: what a grant must meet before any money moves.
//! A grant is bounded (one grant, and all grants to one member within 24
//! hours) so that one support account cannot hand out unbounded bonus
//! money, and it carries a reason an auditor can read later.

use rust_decimal::Decimal;

use crate::{Code, Currency};

/// Longest reason kept with a grant, in characters.
pub const REASON_MAX: usize = 200;
/// How long a free bet may be valid, in days.
pub const DAYS: std::ops::RangeInclusive<i64> = 1..=365;

/// The caps, in the member's currency.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GrantLimits {
    pub per_grant: Decimal,
    /// Free bets granted to one member within 24 hours, this one included.
    pub per_member_per_day: Decimal,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GrantError {
    #[error("Wrong amount")]
    WrongAmount,
    #[error("Max amount is {max}")]
    AboveGrantMax { max: Decimal },
    #[error(
        "Max amount is {left} (free bets granted to this member in 24 hours: at most {daily})"
    )]
    AboveDailyMax { left: Decimal, daily: Decimal },
    #[error("Invalid request parameters: days: 1 to 365")]
    Days,
    #[error("Invalid request parameters: reason: Required")]
    ReasonRequired,
    #[error("Invalid request parameters: reason: Should be less than {} characters long.", REASON_MAX + 1)]
    ReasonTooLong,
}

impl GrantError {
    pub fn code(&self) -> Code {
        match self {
            GrantError::WrongAmount => Code::WRONG_AMOUNT,
            // Spec 001 section 8: 20004, amount above the maximum.
            GrantError::AboveGrantMax { .. } | GrantError::AboveDailyMax { .. } => Code(20004),
            GrantError::Days | GrantError::ReasonRequired | GrantError::ReasonTooLong => {
                Code::BAD_PARAMETERS
            }
        }
    }
}

/// Why staff granted a free bet: trimmed, 1 to `REASON_MAX` characters.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GrantReason(String);

impl GrantReason {
    pub fn parse(text: &str) -> Result<Self, GrantError> {
        let text = text.trim();
        if text.is_empty() {
            return Err(GrantError::ReasonRequired);
        }
        if text.chars().count() > REASON_MAX {
            return Err(GrantError::ReasonTooLong);
        }
        Ok(Self(text.to_string()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// Checks a grant of `amount` valid `days` days, given what the member was
/// granted in the last 24 hours.
pub fn check_grant(
    amount: Decimal,
    currency: Currency,
    days: i64,
    granted_last_24h: Decimal,
    limits: &GrantLimits,
) -> Result<(), GrantError> {
    if amount <= Decimal::ZERO || currency.round(amount) != amount {
        return Err(GrantError::WrongAmount);
    }
    if !DAYS.contains(&days) {
        return Err(GrantError::Days);
    }
    if amount > limits.per_grant {
        return Err(GrantError::AboveGrantMax {
            max: currency.round(limits.per_grant),
        });
    }
    let left = (limits.per_member_per_day - granted_last_24h).max(Decimal::ZERO);
    if amount > left {
        return Err(GrantError::AboveDailyMax {
            left: currency.round(left),
            daily: currency.round(limits.per_member_per_day),
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use rust_decimal_macros::dec;

    const LIMITS: GrantLimits = GrantLimits {
        per_grant: dec!(1000.00),
        per_member_per_day: dec!(2000.00),
    };

    #[test]
    fn a_grant_is_capped_per_grant_and_per_member_per_day() {
        let check = |amount, before| check_grant(amount, Currency::Cny, 7, before, &LIMITS);
        assert_eq!(check(dec!(1000.00), dec!(0)), Ok(()));
        assert_eq!(
            check(dec!(1000.01), dec!(0)),
            Err(GrantError::AboveGrantMax { max: dec!(1000.00) })
        );
        assert_eq!(check(dec!(100.00), dec!(1900.00)), Ok(()));
        let refused = check(dec!(100.01), dec!(1900.00)).unwrap_err();
        assert_eq!(refused.code(), Code(20004));
        assert_eq!(
            refused.to_string(),
            "Max amount is 100.00 (free bets granted to this member in 24 hours: at most 2000.00)"
        );
        assert_eq!(
            check(dec!(1), dec!(2500)),
            Err(GrantError::AboveDailyMax {
                left: dec!(0.00),
                daily: dec!(2000.00)
            })
        );
        assert_eq!(check(dec!(0), dec!(0)), Err(GrantError::WrongAmount));
        assert_eq!(check(dec!(1.005), dec!(0)), Err(GrantError::WrongAmount));
        assert_eq!(
            check_grant(dec!(1), Currency::Cny, 0, dec!(0), &LIMITS),
            Err(GrantError::Days)
        );
    }

    #[test]
    fn a_grant_needs_a_reason_of_at_most_200_characters() {
        assert_eq!(GrantReason::parse(" "), Err(GrantError::ReasonRequired));
        assert_eq!(
            GrantReason::parse(&"é".repeat(201)),
            Err(GrantError::ReasonTooLong)
        );
        assert_eq!(
            GrantReason::parse(&format!(" {} ", "é".repeat(200)))
                .unwrap()
                .as_str(),
            "é".repeat(200)
        );
        assert_eq!(
            GrantError::ReasonTooLong.to_string(),
            "Invalid request parameters: reason: Should be less than 201 characters long."
        );
    }
}
