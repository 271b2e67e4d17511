//! Durable read models. A runner reads the store's global event stream in
//! commit order and hands each projection batches of events; the
//! projection's read-model change and its checkpoint commit in one
//! transaction (invariant 6), so a crash never loses or repeats an update,
//! and any projection can be rebuilt from zero.
//!
//! Layout
//! - `stream`: reading the global stream gap-free on Postgres (xid8 +
//!   snapshot horizon) and SQLite (single writer, position order).
//! - `runner`: the `Projection` trait, checkpoints, catch-up, rebuild, lag.
//! - `balances`: the balance per member and currency.
//! - `seal`, `verify`: the hash chain over the event log and its check.
//! - `shadow`: shadow copies for rebuilds without a gap for readers.
//! - `payments`: money orders (deposits, withdrawals) and wallet movements.

pub mod autocashout;
pub mod balances;
pub mod bets;
pub mod payments;
pub mod replay;
pub mod runner;
pub mod seal;
pub mod settlement;
pub mod shadow;
pub mod stream;
pub mod verify;
pub mod vip;

/// `($1, $2, ...), ($n+1, ...)`: the VALUES list of a multi-row statement
/// of `count` rows of `width` parameters each.
pub(crate) fn placeholders(count: usize, width: usize) -> String {
    (0..count)
        .map(|r| {
            let cols: Vec<String> = (1..=width).map(|c| format!("${}", r * width + c)).collect();
            format!("({})", cols.join(", "))
        })
        .collect::<Vec<_>>()
        .join(", ")
}

pub use runner::{Projection, ProjectionError, ProjectionMetrics, Runner};
pub use stream::{Backend, Checkpoint, StoredEvent};
