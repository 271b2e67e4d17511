//! The event store: the one place that writes the `events` table.
//!
//! Everything between a decision and its rows in the database lives here:
//! choosing and opening the store, the aggregate repositories with their
//! snapshots and cache, the group commit that lets concurrent commands
//! share a transaction, the unit of work through which every command
//! commits, and, on the way back up, the global stream in commit order that
//! projections and process managers read.
//!
//! Layout
//! - `db`: `DATABASE_URL` to a store (SQLite file or Postgres), pools,
//!   migrations, SQLite's writer turns and checkpoints of the WAL, isolated
//!   stores for tests (`db::testing`, `both_stores!`).
//! - `events`: event rows, `Store<A>` (load with snapshot + cache +
//!   upcasters, decide without committing), request claims, the appends.
//! - `group_commit`: concurrent appends in one transaction and one round trip.
//! - `unit`: the unit of work: decide any number of aggregates, add wallet
//!   moves, a request claim and extra rows, commit as one or retry whole.
//! - `framework`: one `Framework` per aggregate type (store, services,
//!   bounded jittered retries, this process's turns per aggregate);
//!   `execute` is a unit of work of one decision.
//! - `metrics`: the command counters exported on `/metrics`.
//! - `stream`: reading the global stream gap-free (xid8 + snapshot horizon
//!   on Postgres, position order on SQLite).
//! - `checkpoint`: where each reader of the stream stands.
//! - `writer`: SQLite's writer turns (one writer, requests first).
//! - `marks`: bare `?` bind markers for SQLite's long statements.

pub mod checkpoint;
pub mod db;
pub mod events;
pub mod framework;
pub mod group_commit;
pub mod marks;
pub mod metrics;
pub mod stream;
pub mod unit;
pub mod writer;

pub use db::{Db, DbError, DbUrl, StoreKind, StorePool};
pub use events::{Claim, Store, StoreOptions};
pub use framework::{CommandError, Framework, RetryPolicy};
pub use metrics::CommandMetrics;
pub use stream::{Backend, Checkpoint, StoredEvent};
pub use unit::UnitOfWork;
