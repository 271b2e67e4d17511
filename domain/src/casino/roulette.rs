//! The demo live table ("Demo Roulette", a stand-in): European single-zero
//! roulette. Straight bets pay 35:1, dozens and columns 2:1, even-money
//! bets 1:1; a zero loses every outside bet. Return to player 36/37
//! (97.30%) on every bet.

use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};

const RED: [u8; 18] = [
    1, 3, 5, 7, 9, 12, 14, 16, 18, 19, 21, 23, 25, 27, 30, 32, 34, 36,
];

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", content = "value", rename_all = "snake_case")]
pub enum Pick {
    Straight(u8),
    Red,
    Black,
    Odd,
    Even,
    Low,
    High,
    Dozen(u8),
    Column(u8),
}

impl Pick {
    pub fn is_valid(self) -> bool {
        match self {
            Pick::Straight(n) => n <= 36,
            Pick::Dozen(n) | Pick::Column(n) => (1..=3).contains(&n),
            _ => true,
        }
    }

    /// What a winning stake returns in all (stake included), as a multiple.
    fn returns(self) -> u32 {
        match self {
            Pick::Straight(_) => 36,
            Pick::Dozen(_) | Pick::Column(_) => 3,
            _ => 2,
        }
    }

    pub fn wins(self, number: u8) -> bool {
        if number == 0 {
            return self == Pick::Straight(0);
        }
        match self {
            Pick::Straight(n) => n == number,
            Pick::Red => RED.contains(&number),
            Pick::Black => !RED.contains(&number),
            Pick::Odd => !number.is_multiple_of(2),
            Pick::Even => number.is_multiple_of(2),
            Pick::Low => number <= 18,
            Pick::High => number >= 19,
            Pick::Dozen(d) => (number - 1) / 12 + 1 == d,
            Pick::Column(c) => (number - 1) % 3 + 1 == c,
        }
    }

    /// What `stake` on this pick returns when `number` comes up.
    pub fn payout(self, number: u8, stake: Decimal) -> Decimal {
        if self.wins(number) {
            stake * Decimal::from(self.returns())
        } else {
            Decimal::ZERO
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rust_decimal_macros::dec;

    #[test]
    fn every_pick_returns_thirty_six_in_thirty_seven() {
        let picks = [
            Pick::Straight(7),
            Pick::Red,
            Pick::Black,
            Pick::Odd,
            Pick::Even,
            Pick::Low,
            Pick::High,
            Pick::Dozen(2),
            Pick::Column(3),
        ];
        for pick in picks {
            let total: Decimal = (0..=36).map(|n| pick.payout(n, dec!(1))).sum();
            assert_eq!(total, dec!(36), "{pick:?}");
        }
    }

    #[test]
    fn zero_loses_outside_bets() {
        assert_eq!(Pick::Red.payout(0, dec!(10)), dec!(0));
        assert_eq!(Pick::Straight(0).payout(0, dec!(10)), dec!(360));
    }
}
