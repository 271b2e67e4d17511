//! Selection outcomes from a final score.
//!
//! | market_type | event types | rule |
//! |---|---|---|
//! | P1XP2, FirstHalfP1XP2 | P1, X, P2 | full time (first half) result |
//! | P1P2 | P1, P2 | winner; a draw returns the stake |
//! | DoubleChance | 1X, 12, X2 | two of the three results |
//! | AsianHandicap, FirstHalfAsianHandicap | Home, Away (each with its own line) | score + line vs the other side |
//! | OverUnder, AsianTotal, CornerOverUnder | Over, Under | total (goals, points, games, corners) vs the line |
//! | BothTeamsToScore | Yes, No | both scored |
//!
//! A line of x.5 never pushes; x.0 pushes on a tie (Returned); x.25 and
//! x.75 are two half bets on the neighbouring lines.

use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};

use crate::catalogue::split_quarter;

/// How a game ended, as far as the markets need to know.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct FinalScore {
    pub team1: u32,
    pub team2: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_half: Option<(u32, u32)>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub corners: Option<u32>,
}

/// A selection's result (bet statuses: won 3, lost 1, returned 2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SelectionOutcome {
    Won,
    Lost,
    Returned,
    HalfWon,
    HalfLost,
    /// Did not win but finished within the market's each-way places
    /// (racing): lost for a win bet and the win part of an each-way bet,
    /// won for the place part. A winner is `Won` (it places too); a
    /// runner outside the places is `Lost`.
    Placed,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Half {
    Win,
    Push,
    Lose,
}

fn compare(value: Decimal) -> Half {
    if value > Decimal::ZERO {
        Half::Win
    } else if value < Decimal::ZERO {
        Half::Lose
    } else {
        Half::Push
    }
}

/// Settles a line bet whose margin over `line` is `margin(line)`.
fn on_line(line: Decimal, margin: impl Fn(Decimal) -> Decimal) -> SelectionOutcome {
    let halves = match split_quarter(line) {
        Some((a, b)) => (compare(margin(a)), compare(margin(b))),
        None => {
            let whole = compare(margin(line));
            (whole, whole)
        }
    };
    use Half::*;
    match halves {
        (Win, Win) => SelectionOutcome::Won,
        (Lose, Lose) => SelectionOutcome::Lost,
        (Push, Push) => SelectionOutcome::Returned,
        (Win, Push) | (Push, Win) => SelectionOutcome::HalfWon,
        (Lose, Push) | (Push, Lose) => SelectionOutcome::HalfLost,
        // Two neighbouring half lines cannot go opposite ways.
        (Win, Lose) | (Lose, Win) => SelectionOutcome::Returned,
    }
}

fn result(team1: u32, team2: u32) -> &'static str {
    match team1.cmp(&team2) {
        std::cmp::Ordering::Greater => "P1",
        std::cmp::Ordering::Equal => "X",
        std::cmp::Ordering::Less => "P2",
    }
}

fn won(yes: bool) -> SelectionOutcome {
    if yes {
        SelectionOutcome::Won
    } else {
        SelectionOutcome::Lost
    }
}

/// The outcome of selection `event_type` (with its own `base` line) of a
/// `market_type` market, or `None` when the score cannot settle it (an
/// unknown market, or a half-time market without a half-time score).
pub fn settle(
    market_type: &str,
    event_type: &str,
    base: Option<Decimal>,
    score: &FinalScore,
) -> Option<SelectionOutcome> {
    let (t1, t2) = (score.team1, score.team2);
    let line = base.unwrap_or_default();
    let total = |n: u32| Decimal::from(n);
    Some(match market_type {
        "P1XP2" => won(result(t1, t2) == event_type),
        "FirstHalfP1XP2" => {
            let (h1, h2) = score.first_half?;
            won(result(h1, h2) == event_type)
        }
        "P1P2" => match result(t1, t2) {
            "X" => SelectionOutcome::Returned,
            winner => won(winner == event_type),
        },
        "DoubleChance" => won(event_type.contains(match result(t1, t2) {
            "P1" => '1',
            "X" => 'X',
            _ => '2',
        })),
        "AsianHandicap" | "FirstHalfAsianHandicap" => {
            let (a, b) = if market_type == "AsianHandicap" {
                (t1, t2)
            } else {
                score.first_half?
            };
            let (mine, theirs) = match event_type {
                "Home" => (a, b),
                "Away" => (b, a),
                _ => return None,
            };
            on_line(line, |l| total(mine) + l - total(theirs))
        }
        "OverUnder" | "AsianTotal" | "CornerOverUnder" => {
            let sum = if market_type == "CornerOverUnder" {
                score.corners?
            } else {
                t1 + t2
            };
            match event_type {
                "Over" => on_line(line, |l| total(sum) - l),
                "Under" => on_line(line, |l| l - total(sum)),
                _ => return None,
            }
        }
        "BothTeamsToScore" => match event_type {
            "Yes" => won(t1 > 0 && t2 > 0),
            "No" => won(t1 == 0 || t2 == 0),
            _ => return None,
        },
        _ => return None,
    })
}
