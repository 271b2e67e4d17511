//! VIP levels, valid turnover, rebates, salary and gifts (spec 001 sections
//! 3, 4, 9.1, 9.2; issue 11). Pure rules; the projection and the reward job
//! live in `projections::vip` and `commands::engagement::vip`.

mod aggregate;
mod tables;
#[cfg(test)]
mod tests;

pub use aggregate::*;
pub use tables::*;

use rust_decimal::Decimal;

use crate::Currency;

/// The daily rebate: `rate` percent of `turnover`, rounded to the
/// currency's places (half away from zero); never negative.
pub fn rebate(turnover: Decimal, rate_percent: Decimal, currency: Currency) -> Decimal {
    if turnover <= Decimal::ZERO || rate_percent <= Decimal::ZERO {
        return Decimal::ZERO;
    }
    currency.round(turnover * rate_percent / Decimal::ONE_HUNDRED)
}

/// M currency earned for `turnover` (2 places, rounded down).
pub fn points_for(turnover: Decimal, per_unit: Decimal) -> Decimal {
    (turnover * per_unit).round_dp_with_strategy(2, rust_decimal::RoundingStrategy::ToZero)
}
