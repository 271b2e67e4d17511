//! The prize draw (spec 001 sections 2.12, 4, 7.4 aid 5, 8 -21404, 9: a
//! board of 8 prizes). Each prize has a weight and a weekly stock; one draw
//! per member per configured period.

use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};

use super::text::LangText;

pub const BOARD_SIZE: usize = 8;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PrizeKind {
    /// Cash to the bonus pot (with the board's turnover requirement).
    Cash,
    /// A physical prize: the fulfilment queue, to the member's address.
    Physical,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Prize {
    /// 1 to 8, the position on the board.
    pub slot: u32,
    /// Per language (an older single string loads as the same text in each).
    pub name: LangText,
    pub kind: PrizeKind,
    /// Cash prizes: the amount (member's currency).
    #[serde(default)]
    pub cash: Decimal,
    /// Relative chance among the prizes still in stock.
    pub weight: u32,
    /// How many can be won per week (Monday to Sunday, UTC).
    pub stock: u32,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DrawPeriod {
    Day,
    Week,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Board {
    pub prizes: Vec<Prize>,
    /// One draw per member per period.
    pub period: DrawPeriod,
    pub turnover_multiple: Decimal,
    /// Off: every draw answers -62003.
    #[serde(default = "yes")]
    pub open: bool,
}

fn yes() -> bool {
    true
}

impl Default for Board {
    fn default() -> Self {
        let cash = |slot, name: [&str; 3], cash, weight, stock| Prize {
            slot,
            name: LangText::new(name[0], name[1], name[2]),
            kind: PrizeKind::Cash,
            cash,
            weight,
            stock,
        };
        let gift = |slot, name: [&str; 3], weight, stock| Prize {
            slot,
            name: LangText::new(name[0], name[1], name[2]),
            kind: PrizeKind::Physical,
            cash: Decimal::ZERO,
            weight,
            stock,
        };
        Board {
            prizes: vec![
                cash(
                    1,
                    ["1元彩金", "1 yuan bonus", "โบนัส 1 หยวน"],
                    Decimal::from(1),
                    400,
                    5000,
                ),
                cash(
                    2,
                    ["3元彩金", "3 yuan bonus", "โบนัส 3 หยวน"],
                    Decimal::from(3),
                    250,
                    2000,
                ),
                cash(
                    3,
                    ["8元彩金", "8 yuan bonus", "โบนัส 8 หยวน"],
                    Decimal::from(8),
                    150,
                    1000,
                ),
                cash(
                    4,
                    ["18元彩金", "18 yuan bonus", "โบนัส 18 หยวน"],
                    Decimal::from(18),
                    80,
                    300,
                ),
                cash(
                    5,
                    ["58元彩金", "58 yuan bonus", "โบนัส 58 หยวน"],
                    Decimal::from(58),
                    40,
                    50,
                ),
                cash(
                    6,
                    ["188元彩金", "188 yuan bonus", "โบนัส 188 หยวน"],
                    Decimal::from(188),
                    10,
                    5,
                ),
                gift(7, ["充电宝", "Power bank", "พาวเวอร์แบงค์"], 50, 20),
                gift(8, ["球队球衣", "Team shirt", "เสื้อทีม"], 20, 10),
            ],
            period: DrawPeriod::Day,
            turnover_multiple: Decimal::from(1),
            open: true,
        }
    }
}

impl Board {
    pub fn check(&self) -> Result<(), String> {
        if self.prizes.len() != BOARD_SIZE {
            return Err(format!("the board has {BOARD_SIZE} prizes"));
        }
        for (i, p) in self.prizes.iter().enumerate() {
            if p.slot as usize != i + 1 {
                return Err("prizes are numbered 1 to 8 in order".into());
            }
            if !p.name.check_required(60) {
                return Err(format!(
                    "prize {}: name 1 to 60 characters in zhh, eng and tha",
                    p.slot
                ));
            }
            if p.weight > 1_000_000 || p.stock > 1_000_000 {
                return Err(format!(
                    "prize {}: weight and stock at most 1000000",
                    p.slot
                ));
            }
            let cash_ok =
                p.cash >= Decimal::ZERO && p.cash <= Decimal::from(100000) && p.cash.scale() <= 2;
            if !cash_ok || (p.kind == PrizeKind::Cash && p.cash.is_zero()) {
                return Err(format!("prize {}: cash above 0 up to 100000", p.slot));
            }
        }
        if self.turnover_multiple < Decimal::ZERO || self.turnover_multiple > Decimal::from(100) {
            return Err("turnover_multiple 0 to 100".into());
        }
        Ok(())
    }

    pub fn prize(&self, slot: u32) -> Option<&Prize> {
        self.prizes.iter().find(|p| p.slot == slot)
    }

    /// The draw period key of a day: "d{day}" or "w{week}".
    pub fn period_key(&self, day: i64) -> String {
        match self.period {
            DrawPeriod::Day => format!("d{day}"),
            DrawPeriod::Week => format!("w{}", super::week_of_day(day)),
        }
    }
}

/// Picks among `(slot, weight)` candidates with `roll` uniform in
/// 0..u64::MAX: slot with probability weight / total. None when nothing
/// has weight.
pub fn pick(candidates: &[(u32, u32)], roll: u64) -> Option<u32> {
    let total: u64 = candidates.iter().map(|(_, w)| *w as u64).sum();
    if total == 0 {
        return None;
    }
    let mut at = roll % total;
    for (slot, weight) in candidates {
        let w = *weight as u64;
        if at < w {
            return Some(*slot);
        }
        at -= w;
    }
    None
}

/// The draw's freshness token (`actRand`): stable within a member's draw
/// period, different in the next, so a page left open from an earlier
/// period cannot draw in this one without reloading.
pub fn act_rand(member_id: &str, period: &str) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in member_id.bytes().chain([b'/']).chain(period.bytes()) {
        h ^= b as u64;
        h = h.wrapping_mul(0x100_0000_01b3);
    }
    format!("{period}{h:016x}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_board_has_8_prizes_and_passes_its_check() {
        let b = Board::default();
        assert_eq!(b.prizes.len(), 8);
        b.check().unwrap();
    }

    #[test]
    fn a_board_of_7_prizes_is_refused() {
        let mut b = Board::default();
        b.prizes.pop();
        assert!(b.check().is_err());
    }

    #[test]
    fn picks_follow_the_weights_and_skip_weightless_prizes() {
        let c = [(1, 1), (2, 0), (3, 3)];
        let mut counts = [0; 4];
        for roll in 0..4000u64 {
            counts[pick(&c, roll).unwrap() as usize] += 1;
        }
        assert_eq!(counts, [0, 1000, 0, 3000]);
        assert_eq!(pick(&[(1, 0)], 7), None);
    }

    #[test]
    fn periods_and_tokens_change_with_the_day_or_week() {
        let mut b = Board::default();
        assert_ne!(b.period_key(100), b.period_key(101));
        b.period = DrawPeriod::Week;
        // day 4 (1970-01-05) was a Monday: days 4 to 10 are one week.
        assert_eq!(b.period_key(4), b.period_key(10));
        assert_ne!(b.period_key(10), b.period_key(11));
        assert_ne!(act_rand("m", "d1"), act_rand("m", "d2"));
    }
}
