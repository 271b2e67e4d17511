//! Odds formats (spec 000 section 1). Prices are stored as decimal odds at
//! 3 places; a member chooses how they are shown. Every conversion is done
//! in `Decimal`, never in floating point, so the client (which reads the
//! same vectors in testdata/odds_vectors.json) and the server agree to the
//! last digit.
//!
//! With d the decimal price:
//! - decimal: d at 2 places ("1.50").
//! - american: d > 2 gives "+" and 100(d-1); otherwise "-" and 100/(d-1)
//!   (so 2.00 is "-100", as the spec reads); whole numbers.
//! - hongkong: d-1 at 2 places.
//! - malay: d-1 when d <= 2, otherwise -1/(d-1); 2 places.
//! - indo: d-1 when d >= 2, otherwise -1/(d-1); 2 places.
//! - fractional: without a ladder, d-1 as the simplest exact fraction
//!   (1.333 is "333/1000"); with a ladder, the ladder entry nearest to d-1
//!   (a tie goes to the shorter odds, so a display never promises more
//!   than the price pays).
//!
//! Rounding is half away from zero (1.855 shows "1.86", 1.91 american is
//! -109.89 and shows "-110"). A negative malay or indo value that rounds
//! to zero keeps its sign ("-0.00" for malay 1000.00) because the sign is
//! what says which side of even money the price is. A price at or below
//! 1.00 pays nothing over the stake: decimal still shows it, every other
//! format shows "-".

mod ladder;
#[cfg(test)]
mod tests;

use std::fmt;
use std::str::FromStr;

use rust_decimal::{Decimal, RoundingStrategy};
use serde::{Deserialize, Serialize};

pub use ladder::{FractionalLadder, LadderError};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum OddsFormat {
    Decimal,
    Fractional,
    American,
    HongKong,
    Malay,
    Indo,
}

impl OddsFormat {
    pub const ALL: [OddsFormat; 6] = [
        OddsFormat::Decimal,
        OddsFormat::Fractional,
        OddsFormat::American,
        OddsFormat::HongKong,
        OddsFormat::Malay,
        OddsFormat::Indo,
    ];

    pub fn name(self) -> &'static str {
        match self {
            OddsFormat::Decimal => "decimal",
            OddsFormat::Fractional => "fractional",
            OddsFormat::American => "american",
            OddsFormat::HongKong => "hongkong",
            OddsFormat::Malay => "malay",
            OddsFormat::Indo => "indo",
        }
    }
}

impl fmt::Display for OddsFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "unknown odds format '{0}' (accepted: decimal, fractional, american, hongkong, malay, indo)"
)]
pub struct UnknownOddsFormat(pub String);

impl FromStr for OddsFormat {
    type Err = UnknownOddsFormat;

    /// Case-insensitive.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let lower = s.to_ascii_lowercase();
        OddsFormat::ALL
            .into_iter()
            .find(|f| f.name() == lower)
            .ok_or_else(|| UnknownOddsFormat(s.to_string()))
    }
}

/// The price as a member sees it in `format`. The ladder only matters for
/// fractional; `None` there means exact fractions.
pub fn display(price: Decimal, format: OddsFormat, ladder: Option<&FractionalLadder>) -> String {
    if format == OddsFormat::Decimal {
        return two_places(price);
    }
    if price <= Decimal::ONE {
        return "-".to_string();
    }
    let profit = price - Decimal::ONE;
    match format {
        OddsFormat::Decimal => unreachable!("handled above"),
        OddsFormat::Fractional => fractional(profit, ladder),
        OddsFormat::American => american(price, profit),
        OddsFormat::HongKong => two_places(profit),
        OddsFormat::Malay if price <= Decimal::TWO => two_places(profit),
        OddsFormat::Malay => two_places(-Decimal::ONE / profit),
        OddsFormat::Indo if price >= Decimal::TWO => two_places(profit),
        OddsFormat::Indo => two_places(-Decimal::ONE / profit),
    }
}

fn american(price: Decimal, profit: Decimal) -> String {
    let hundred = Decimal::ONE_HUNDRED;
    if price > Decimal::TWO {
        format!("+{}", whole(hundred * profit))
    } else {
        format!("-{}", whole(hundred / profit))
    }
}

fn fractional(profit: Decimal, ladder: Option<&FractionalLadder>) -> String {
    let (n, d) = match ladder {
        Some(ladder) => {
            let (n, d) = ladder.nearest(profit);
            (u128::from(n), u128::from(d))
        }
        None => simplest_fraction(profit),
    };
    format!("{n}/{d}")
}

/// `value` (non-negative) as numerator/denominator in lowest terms.
fn simplest_fraction(value: Decimal) -> (u128, u128) {
    let value = value.normalize();
    let numerator = value.mantissa().unsigned_abs();
    let denominator = 10u128.pow(value.scale());
    let g = gcd(numerator, denominator);
    (numerator / g, denominator / g)
}

fn gcd(a: u128, b: u128) -> u128 {
    if b == 0 {
        a.max(1)
    } else {
        gcd(b, a % b)
    }
}

fn round_half_away(value: Decimal, places: u32) -> Decimal {
    value.round_dp_with_strategy(places, RoundingStrategy::MidpointAwayFromZero)
}

fn whole(value: Decimal) -> Decimal {
    round_half_away(value, 0).normalize()
}

/// Always two places; a negative value rounding to zero keeps its sign.
fn two_places(value: Decimal) -> String {
    let mut rounded = round_half_away(value, 2);
    rounded.rescale(2);
    if rounded.is_zero() {
        let sign = if value.is_sign_negative() && !value.is_zero() {
            "-"
        } else {
            ""
        };
        return format!("{sign}0.00");
    }
    rounded.to_string()
}
