//! Ids handed out in blocks: one database round trip per block, not per id.
//!
//! Each process reserves a block of `block` consecutive ids at a time from
//! the `id_blocks` table (one row per kind) and hands them out from memory.
//! Ids stay unique across processes and restarts; a restart leaves a gap.

use sqlx::AnyPool;
use tokio::sync::Mutex;

pub struct IdBlocks {
    pool: AnyPool,
    /// SQLite's writer turn (`store::db::sqlite_writer`).
    writer: Option<store::group_commit::WriterLock>,
    name: &'static str,
    block: i64,
    /// The next id to hand out and the end of the block (exclusive).
    range: Mutex<(i64, i64)>,
}

impl IdBlocks {
    pub fn new(pool: AnyPool, name: &'static str, block: i64) -> Self {
        Self {
            writer: store::db::sqlite_writer(&pool),
            pool,
            name,
            block: block.max(1),
            range: Mutex::new((0, 0)),
        }
    }

    pub async fn next(&self) -> Result<i64, sqlx::Error> {
        let mut range = self.range.lock().await;
        if range.0 >= range.1 {
            let end: i64 = sqlx::query_scalar(
                "UPDATE id_blocks SET next_id = next_id + $2 WHERE name = $1 RETURNING next_id",
            )
            .bind(self.name)
            .bind(self.block)
            .fetch_one(&mut *store::db::write_conn(&self.pool, &self.writer).await?)
            .await?;
            *range = (end - self.block, end);
        }
        let id = range.0;
        range.0 += 1;
        Ok(id)
    }
}
