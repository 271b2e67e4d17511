//! The fractional ladder (spec 000 section 1: "a configured ladder of
//! fractional values (100/1 down to 1/100 and more)"). Fractional prices
//! are traditionally quoted only at familiar steps (11/10, 6/4, 15/8 ...),
//! so with a ladder configured a price shows as the nearest step. Entries
//! keep the trade's spelling (6/4 and 4/6, not 3/2 and 2/3).

use std::str::FromStr;

use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};

/// Fractions ordered from the longest odds down, strictly decreasing.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "Vec<String>", into = "Vec<String>")]
pub struct FractionalLadder {
    steps: Vec<(u32, u32)>,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LadderError {
    #[error("a fractional ladder needs at least one step")]
    Empty,
    #[error("ladder step '{0}' is not a fraction n/d with n and d above zero")]
    BadStep(String),
    #[error("ladder steps must go from the longest odds down: '{0}' is out of order")]
    OutOfOrder(String),
}

#[rustfmt::skip]
const STANDARD: &[(u32, u32)] = &[
    (100, 1), (90, 1), (80, 1), (75, 1), (66, 1), (50, 1), (45, 1), (40, 1), (33, 1), (30, 1),
    (28, 1), (25, 1), (22, 1), (20, 1), (18, 1), (16, 1), (15, 1), (14, 1), (13, 1), (12, 1),
    (11, 1), (10, 1), (9, 1), (17, 2), (8, 1), (15, 2), (7, 1), (13, 2), (6, 1), (11, 2),
    (5, 1), (9, 2), (4, 1), (7, 2), (10, 3), (3, 1), (14, 5), (11, 4), (13, 5), (5, 2),
    (12, 5), (9, 4), (11, 5), (2, 1), (19, 10), (15, 8), (9, 5), (7, 4), (17, 10), (13, 8),
    (8, 5), (6, 4), (7, 5), (11, 8), (5, 4), (6, 5), (11, 10), (21, 20), (1, 1), (20, 21),
    (10, 11), (5, 6), (4, 5), (8, 11), (5, 7), (7, 10), (4, 6), (8, 13), (3, 5), (4, 7),
    (8, 15), (1, 2), (40, 85), (4, 9), (2, 5), (4, 11), (1, 3), (3, 10), (2, 7), (1, 4),
    (2, 9), (1, 5), (2, 11), (1, 6), (2, 13), (1, 7), (2, 15), (1, 8), (1, 9), (1, 10),
    (1, 11), (1, 12), (1, 14), (1, 16), (1, 20), (1, 25), (1, 33), (1, 50), (1, 66), (1, 80),
    (1, 100),
];

impl FractionalLadder {
    pub fn new(steps: Vec<(u32, u32)>) -> Result<Self, LadderError> {
        if steps.is_empty() {
            return Err(LadderError::Empty);
        }
        if let Some(&(n, d)) = steps.iter().find(|(n, d)| *n == 0 || *d == 0) {
            return Err(LadderError::BadStep(format!("{n}/{d}")));
        }
        if let Some(pair) = steps.windows(2).find(|w| value(w[1]) >= value(w[0])) {
            return Err(LadderError::OutOfOrder(format!(
                "{}/{}",
                pair[1].0, pair[1].1
            )));
        }
        Ok(FractionalLadder { steps })
    }

    /// The usual UK ladder, 100/1 down to 1/100 (101 steps).
    pub fn standard() -> Self {
        FractionalLadder {
            steps: STANDARD.to_vec(),
        }
    }

    pub fn steps(&self) -> &[(u32, u32)] {
        &self.steps
    }

    /// The step nearest to `profit` (decimal price minus one); on a tie
    /// the shorter odds. Compared exactly by cross-multiplying.
    pub fn nearest(&self, profit: Decimal) -> (u32, u32) {
        let mut best = self.steps[0];
        for &step in &self.steps[1..] {
            if distance_cmp(step, best, profit).is_le() {
                best = step;
            }
        }
        best
    }
}

fn value((n, d): (u32, u32)) -> Decimal {
    Decimal::from(n) / Decimal::from(d)
}

/// Orders |a - x| against |b - x| without dividing:
/// |n_a - x d_a| d_b against |n_b - x d_b| d_a.
fn distance_cmp(a: (u32, u32), b: (u32, u32), x: Decimal) -> std::cmp::Ordering {
    let off = |(n, d): (u32, u32)| (Decimal::from(n) - x * Decimal::from(d)).abs();
    (off(a) * Decimal::from(b.1)).cmp(&(off(b) * Decimal::from(a.1)))
}

fn parse_step(text: &str) -> Result<(u32, u32), LadderError> {
    let bad = || LadderError::BadStep(text.to_string());
    let (n, d) = text.trim().split_once('/').ok_or_else(bad)?;
    let n = u32::from_str(n.trim()).map_err(|_| bad())?;
    let d = u32::from_str(d.trim()).map_err(|_| bad())?;
    Ok((n, d))
}

/// Steps written as "n/d", as configuration holds them.
impl TryFrom<Vec<String>> for FractionalLadder {
    type Error = LadderError;

    fn try_from(texts: Vec<String>) -> Result<Self, Self::Error> {
        let steps = texts
            .iter()
            .map(|t| parse_step(t))
            .collect::<Result<_, _>>()?;
        FractionalLadder::new(steps)
    }
}

impl From<FractionalLadder> for Vec<String> {
    fn from(ladder: FractionalLadder) -> Self {
        ladder
            .steps
            .iter()
            .map(|(n, d)| format!("{n}/{d}"))
            .collect()
    }
}
