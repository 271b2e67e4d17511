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

pub mod autocashout;
pub mod balances;
pub mod bets;
pub mod runner;
pub mod settlement;
pub mod stream;

pub use runner::{Projection, ProjectionError, ProjectionMetrics, Runner};
pub use stream::{Backend, Checkpoint, StoredEvent};
