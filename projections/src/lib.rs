//! Durable read models. A runner reads the store's global event stream in
//! commit order and hands each projection batches of events; the
//! projection's read-model change and its checkpoint commit in one
//! transaction (invariant 6), so a crash never loses or repeats an update,
//! and any projection can be rebuilt from zero.
//!
//! Layout
//! - `runner`: the `Projection` trait, the live pass, catch-up, rebuild,
//!   lag, parked events (the stream itself and checkpoints: `store`).
//! - `balances`: the balance per member and currency.
//! - `bets`: bet history and open bets.
//! - `settlement`: selections, results and the settlement tasks.
//! - `autocashout`: the active auto cash-out rules.
//! - `payments`: money orders (deposits, withdrawals) and wallet movements.
//! - `vip`: the VIP read model (levels, turnover, ledger).
//! - `seal`, `verify`: the hash chain over the event log and its check.
//! - `shadow`: shadow copies for rebuilds without a gap for readers.
//! - `replay`: `audit replay`, every read model rebuilt into a scratch
//!   schema with an independent money fold.

pub mod autocashout;
pub mod balances;
pub mod bets;
pub mod payments;
pub mod replay;
pub mod runner;
pub mod seal;
pub mod settlement;
pub mod shadow;
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

/// Keys per `IN` list of a keyed read (SQLite allows 32,766 parameters a
/// statement; 500 keeps the statement text short too).
pub(crate) const IN_CHUNK: usize = 500;

type AnyQuery<'q> = sqlx::query::Query<'q, sqlx::Any, sqlx::any::AnyArguments<'q>>;

/// A key a keyed read binds into its `IN` list.
pub(crate) trait InKey: Sync {
    fn bind_to<'q>(&'q self, query: AnyQuery<'q>) -> AnyQuery<'q>;
}

impl InKey for &str {
    fn bind_to<'q>(&'q self, query: AnyQuery<'q>) -> AnyQuery<'q> {
        query.bind(*self)
    }
}

impl InKey for String {
    fn bind_to<'q>(&'q self, query: AnyQuery<'q>) -> AnyQuery<'q> {
        query.bind(self.as_str())
    }
}

impl InKey for i64 {
    fn bind_to<'q>(&'q self, query: AnyQuery<'q>) -> AnyQuery<'q> {
        query.bind(*self)
    }
}

/// The rows of a keyed read: `sql`'s `IN ({})` takes the keys, one
/// statement per [`IN_CHUNK`] of them, so a batch's reads stay a few
/// statements whatever it holds.
pub(crate) async fn rows_in<K: InKey>(
    conn: &mut sqlx::AnyConnection,
    sql: &str,
    keys: &[K],
) -> Result<Vec<sqlx::any::AnyRow>, sqlx::Error> {
    let mut rows = Vec::new();
    for chunk in keys.chunks(IN_CHUNK) {
        let list: Vec<String> = (1..=chunk.len()).map(|i| format!("${i}")).collect();
        let sql = sql.replacen("IN ({})", &format!("IN ({})", list.join(", ")), 1);
        let sql = store::marks::for_conn(&*conn, &sql);
        let mut query = sqlx::query(&sql);
        for key in chunk {
            query = key.bind_to(query);
        }
        rows.extend(query.fetch_all(&mut *conn).await?);
    }
    Ok(rows)
}

pub use runner::{Projection, ProjectionError, ProjectionMetrics, Runner};
pub use store::stream::{Backend, Checkpoint, StoredEvent};
