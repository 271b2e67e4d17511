//! The demo slot ("Lucky Sevens", a stand-in): three reels of 20 stops,
//! one payline. The reel strip and paytable below give a return to player
//! of exactly 7664/8000 = 95.80% (every one of the 8,000 stop combinations
//! enumerated in `return_to_player`).
//!
//! | line | pays (x stake) |
//! |---|---|
//! | 7 7 7 | 200 |
//! | bell bell bell | 100 |
//! | plum plum plum | 50 |
//! | orange x3 | 25 |
//! | lemon x3 | 14 |
//! | cherry x3 | 10 |
//! | cherry cherry (reels 1-2) | 1 |

use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Symbol {
    Cherry,
    Lemon,
    Orange,
    Plum,
    Bell,
    Seven,
}

/// Stops on each reel (the same strip on all three).
pub const STOPS: usize = 20;

pub const STRIP: [Symbol; STOPS] = {
    use Symbol::*;
    [
        Cherry, Lemon, Orange, Cherry, Plum, Lemon, Cherry, Orange, Seven, Lemon, Cherry, Plum,
        Orange, Cherry, Lemon, Bell, Cherry, Orange, Plum, Lemon,
    ]
};

/// What a line of three symbols pays, as a multiple of the stake.
pub fn multiplier(line: [Symbol; 3]) -> u32 {
    use Symbol::*;
    match line {
        [a, b, c] if a == b && b == c => match a {
            Seven => 200,
            Bell => 100,
            Plum => 50,
            Orange => 25,
            Lemon => 14,
            Cherry => 10,
        },
        [Cherry, Cherry, _] => 1,
        _ => 0,
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Spin {
    pub stops: [usize; 3],
    pub line: [Symbol; 3],
    pub multiplier: u32,
    pub win: Decimal,
}

/// The outcome of a spin at `stops` (each below `STOPS`) for `stake`.
pub fn spin(stops: [usize; 3], stake: Decimal) -> Spin {
    let line = stops.map(|s| STRIP[s % STOPS]);
    let multiplier = multiplier(line);
    Spin {
        stops: stops.map(|s| s % STOPS),
        line,
        multiplier,
        win: stake * Decimal::from(multiplier),
    }
}

/// Total paid over every stop combination, and the number of combinations
/// (the return to player is their ratio).
pub fn return_to_player() -> (u64, u64) {
    let mut paid = 0u64;
    for a in STRIP {
        for b in STRIP {
            for c in STRIP {
                paid += u64::from(multiplier([a, b, c]));
            }
        }
    }
    (paid, (STOPS * STOPS * STOPS) as u64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rust_decimal_macros::dec;

    #[test]
    fn the_documented_return_to_player_is_exact() {
        assert_eq!(return_to_player(), (7664, 8000));
    }

    #[test]
    fn three_sevens_pay_two_hundred_times_the_stake() {
        let seven = STRIP.iter().position(|s| *s == Symbol::Seven).unwrap();
        let spin = spin([seven, seven, seven], dec!(1.50));
        assert_eq!(spin.win, dec!(300.00));
    }

    #[test]
    fn a_losing_line_pays_nothing() {
        let lemon = STRIP.iter().position(|s| *s == Symbol::Lemon).unwrap();
        let plum = STRIP.iter().position(|s| *s == Symbol::Plum).unwrap();
        assert_eq!(spin([lemon, plum, lemon], dec!(1)).win, dec!(0));
    }
}
