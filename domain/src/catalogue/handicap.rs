//! Quarter lines (spec 000 section 1: "Quarter-line handicaps are displayed
//! as two lines a / b"). A line of x.25 or x.75 is a bet split in halves on
//! the two neighbouring half lines; settlement settles each half on its own
//! line, and the display names both. The line nearer zero comes first:
//! 0.25 is "0 / 0.5", -0.75 is "-0.5 / -1". Other lines show as plain
//! numbers without trailing zeros and without a '+' sign.

use rust_decimal::Decimal;

const QUARTER: Decimal = Decimal::from_parts(25, 0, 0, false, 2);

/// The two half lines of a quarter line, nearer zero first; `None` for a
/// line that is not a quarter line.
pub fn split_quarter(base: Decimal) -> Option<(Decimal, Decimal)> {
    let quarters = base * Decimal::from(4);
    let is_quarter = quarters.fract().is_zero() && !(quarters % Decimal::TWO).is_zero();
    if !is_quarter {
        return None;
    }
    let toward_zero = if base.is_sign_negative() {
        QUARTER
    } else {
        -QUARTER
    };
    Some((
        (base + toward_zero).normalize(),
        (base - toward_zero).normalize(),
    ))
}

/// The line as shown: "a / b" for a quarter line, the plain value otherwise.
pub fn handicap_lines(base: Decimal) -> String {
    match split_quarter(base) {
        Some((near, far)) => format!("{near} / {far}"),
        None => base.normalize().to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rust_decimal_macros::dec;

    #[test]
    fn quarter_lines_show_both_half_lines_nearer_zero_first() {
        assert_eq!(handicap_lines(dec!(0.25)), "0 / 0.5");
        assert_eq!(handicap_lines(dec!(-0.75)), "-0.5 / -1");
        assert_eq!(handicap_lines(dec!(1.25)), "1 / 1.5");
        assert_eq!(handicap_lines(dec!(-0.25)), "0 / -0.5");
        assert_eq!(handicap_lines(dec!(0.75)), "0.5 / 1");
        assert_eq!(handicap_lines(dec!(2.750)), "2.5 / 3");
        assert_eq!(handicap_lines(dec!(-1.25)), "-1 / -1.5");
    }

    #[test]
    fn other_lines_show_plainly_without_trailing_zeros() {
        assert_eq!(handicap_lines(dec!(0)), "0");
        assert_eq!(handicap_lines(dec!(-0.00)), "0");
        assert_eq!(handicap_lines(dec!(1.50)), "1.5");
        assert_eq!(handicap_lines(dec!(-2)), "-2");
        assert_eq!(handicap_lines(dec!(2.5)), "2.5");
        assert_eq!(handicap_lines(dec!(0.1)), "0.1");
    }

    #[test]
    fn split_quarter_gives_the_settlement_halves() {
        assert_eq!(split_quarter(dec!(0.25)), Some((dec!(0), dec!(0.5))));
        assert_eq!(split_quarter(dec!(-0.75)), Some((dec!(-0.5), dec!(-1))));
        assert_eq!(split_quarter(dec!(0.5)), None);
        assert_eq!(split_quarter(dec!(1)), None);
        assert_eq!(split_quarter(dec!(0.125)), None);
    }
}
