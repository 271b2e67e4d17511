//! Which api processes are alive, and the clean-up of what a dead one held.
//!
//! Each process writes its row of `nodes` every `BEAT` (an upsert of its
//! clock's time). Rows kept for the sockets a process holds (realtime
//! bindings in `ws_bindings`, Swarm socket logins in `swarm_socket_logins`)
//! carry its node id; a process that closes a socket removes its row, and a
//! process that dies (kill -9, lost network) leaves them: any live process
//! removes the rows of every node not seen for `ttl`, then the node's row.
//! A process beats once before it serves, so its fresh rows are never
//! taken for a dead node's.

use std::sync::Arc;
use std::time::Duration;

use sqlx::AnyPool;
use tokio::sync::watch;

use crate::platform::clock::SharedClock;

/// How often a process writes that it is alive.
pub const BEAT: Duration = Duration::from_secs(5);
/// How long a process may go without beating before it counts as dead.
pub const DEFAULT_TTL: Duration = Duration::from_secs(30);

pub struct Nodes {
    pool: AnyPool,
    /// SQLite's writer turn (`store::db::sqlite_writer`).
    writer: Option<store::group_commit::WriterLock>,
    node_id: String,
    clock: SharedClock,
    ttl_ms: i64,
}

impl Nodes {
    pub fn new(pool: AnyPool, node_id: String, clock: SharedClock, ttl: Duration) -> Self {
        Self {
            writer: store::db::sqlite_writer(&pool),
            pool,
            node_id,
            clock,
            ttl_ms: ttl.as_millis() as i64,
        }
    }

    pub fn node_id(&self) -> &str {
        &self.node_id
    }

    /// Writes that this process is alive now.
    pub async fn beat(&self) -> Result<(), sqlx::Error> {
        // The time is read once the turn is ours: a beat that waited must
        // not write when it started waiting.
        let mut conn = store::db::write_conn(&self.pool, &self.writer).await?;
        sqlx::query(
            "INSERT INTO nodes (node_id, seen_ms) VALUES ($1, $2)
             ON CONFLICT (node_id) DO UPDATE SET seen_ms = excluded.seen_ms",
        )
        .bind(&self.node_id)
        .bind(self.clock.now_ms())
        .execute(&mut *conn)
        .await?;
        Ok(())
    }

    /// Removes the socket rows of processes not seen for the ttl, and their
    /// node rows; returns how many socket rows went.
    pub async fn sweep(&self) -> Result<u64, sqlx::Error> {
        let alive_since = self.clock.now_ms() - self.ttl_ms;
        let mut removed = 0;
        for table in ["ws_bindings", "swarm_socket_logins"] {
            removed += sqlx::query(&format!(
                "DELETE FROM {table} WHERE node_id NOT IN
                 (SELECT node_id FROM nodes WHERE seen_ms > $1)"
            ))
            .bind(alive_since)
            .execute(&mut *store::db::write_conn(&self.pool, &self.writer).await?)
            .await?
            .rows_affected();
        }
        sqlx::query("DELETE FROM nodes WHERE seen_ms <= $1")
            .bind(alive_since)
            .execute(&mut *store::db::write_conn(&self.pool, &self.writer).await?)
            .await?;
        Ok(removed)
    }

    /// Beats and sweeps every `BEAT` until `stop`; this process's own row
    /// goes when it stops cleanly (its sockets have closed by then).
    pub async fn run(self: Arc<Self>, mut stop: watch::Receiver<bool>) {
        loop {
            if let Err(e) = self.beat().await {
                tracing::warn!(error = %e, "node heartbeat not written");
            }
            match self.sweep().await {
                Ok(0) => {}
                Ok(n) => tracing::info!(rows = n, "removed the socket rows of stopped processes"),
                Err(e) => tracing::warn!(error = %e, "node sweep failed"),
            }
            tokio::select! {
                _ = tokio::time::sleep(BEAT) => {}
                _ = stop.changed() => {}
            }
            if *stop.borrow() {
                if let Ok(mut conn) = store::db::write_conn(&self.pool, &self.writer).await {
                    let _ = sqlx::query("DELETE FROM nodes WHERE node_id = $1")
                        .bind(&self.node_id)
                        .execute(&mut *conn)
                        .await;
                }
                return;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::platform::clock::ManualClock;
    use store::db::testing;
    use store::StoreKind;

    store::on_both_stores!(a_stopped_processes_socket_rows_are_removed_by_a_live_one);

    async fn count(pool: &AnyPool, table: &str, node: &str) -> i64 {
        sqlx::query_scalar(&format!("SELECT count(*) FROM {table} WHERE node_id = $1"))
            .bind(node)
            .fetch_one(pool)
            .await
            .unwrap()
    }

    async fn a_stopped_processes_socket_rows_are_removed_by_a_live_one(kind: StoreKind) {
        let db = testing::fresh(kind).await;
        let clock = ManualClock::at(1_000_000);
        let shared: SharedClock = Arc::new(clock.clone());
        let node =
            |id: &str| Nodes::new(db.any.clone(), id.to_string(), shared.clone(), DEFAULT_TTL);
        let (dead, live) = (node("dead"), node("live"));
        dead.beat().await.unwrap();
        live.beat().await.unwrap();
        for (who, n) in [("dead", 1), ("live", 2)] {
            sqlx::query("INSERT INTO ws_bindings (client_id, user_id, bound_ms, node_id) VALUES ($1, 'u', 0, $2)")
                .bind(format!("c{n}"))
                .bind(who)
                .execute(&db.any)
                .await
                .unwrap();
            sqlx::query(
                "INSERT INTO swarm_socket_logins (sid, user_id, node_id) VALUES ($1, 'u', $2)",
            )
            .bind(format!("s{n}"))
            .bind(who)
            .execute(&db.any)
            .await
            .unwrap();
        }
        // Both alive: nothing goes.
        assert_eq!(live.sweep().await.unwrap(), 0);
        // "dead" stops beating; "live" goes on.
        clock.advance(DEFAULT_TTL.as_millis() as i64 / 2);
        live.beat().await.unwrap();
        assert_eq!(live.sweep().await.unwrap(), 0, "not yet past the ttl");
        clock.advance(DEFAULT_TTL.as_millis() as i64 / 2 + 1);
        live.beat().await.unwrap();
        assert_eq!(live.sweep().await.unwrap(), 2);
        for table in ["ws_bindings", "swarm_socket_logins"] {
            assert_eq!(count(&db.any, table, "dead").await, 0, "{table}");
            assert_eq!(count(&db.any, table, "live").await, 1, "{table}");
        }
        // A process that comes back beats before it serves again.
        dead.beat().await.unwrap();
        let alive: i64 = sqlx::query_scalar("SELECT count(*) FROM nodes")
            .fetch_one(&db.any)
            .await
            .unwrap();
        assert_eq!(alive, 2);
    }
}
