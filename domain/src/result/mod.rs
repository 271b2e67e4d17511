//! Game results: how each selection of a game ended, recorded as events so
//! that bets are settled from them (and re-settled when a result is
//! corrected).
//!
//! `rules` computes a selection's outcome from the final score for the
//! market types the feed offers; quarter lines settle in two halves
//! (half won, half lost). The `GameResult` aggregate records a game's
//! result once and each later correction.

mod aggregate;
pub mod rules;
#[cfg(test)]
mod tests;

pub use aggregate::{GameResult, ResultCommand, ResultError, ResultEvent, SelectionResult};
pub use rules::{settle, FinalScore, SelectionOutcome};
