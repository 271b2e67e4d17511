//! Rate limits shared by every `api` process (DESIGN.md "Scale-out"): the
//! window of a key lives in the store's `rate_windows`, so a client that
//! spreads its tries over several processes behind a load balancer meets
//! the same limit as on one.
//!
//! A key's window starts at its first hit and lasts `window_ms`; within it
//! at most `limit` hits pass, and a refused hit says how many seconds are
//! left. One conditional upsert counts a hit and answers the window, so
//! concurrent hits from several processes are counted exactly.

use std::sync::atomic::{AtomicU64, Ordering};

use sqlx::{AnyPool, Row};

pub struct RateLimit {
    pool: AnyPool,
    /// Prefix of the keys (one table holds every limit).
    name: &'static str,
    limit: i64,
    window_ms: i64,
    calls: AtomicU64,
}

/// Seconds until `started + window`, at least 1.
fn wait_seconds(started: i64, window_ms: i64, now_ms: i64) -> i64 {
    ((window_ms - (now_ms - started)) + 999)
        .div_euclid(1000)
        .max(1)
}

impl RateLimit {
    pub fn new(pool: AnyPool, name: &'static str, limit: usize, window_ms: i64) -> Self {
        Self {
            pool,
            name,
            limit: limit as i64,
            window_ms,
            calls: AtomicU64::new(0),
        }
    }

    fn key(&self, key: &str) -> String {
        format!("{}:{key}", self.name)
    }

    /// `Some(seconds to wait)` when `key` is at its limit, without counting.
    pub async fn full(&self, key: &str, now_ms: i64) -> Result<Option<i64>, sqlx::Error> {
        let row = sqlx::query("SELECT started_ms, hits FROM rate_windows WHERE key = $1")
            .bind(self.key(key))
            .fetch_optional(&self.pool)
            .await?;
        let Some(row) = row else { return Ok(None) };
        let started: i64 = row.try_get("started_ms")?;
        let hits: i64 = row.try_get("hits")?;
        let open = now_ms - started < self.window_ms;
        Ok((open && hits >= self.limit).then(|| wait_seconds(started, self.window_ms, now_ms)))
    }

    /// Counts a hit for `key`; `Ok(Err(seconds to wait))` when over the limit.
    pub async fn hit(&self, key: &str, now_ms: i64) -> Result<Result<(), i64>, sqlx::Error> {
        self.sweep_now_and_then(now_ms).await;
        let row = sqlx::query(
            "INSERT INTO rate_windows (key, started_ms, hits) VALUES ($1, $2, 1)
             ON CONFLICT (key) DO UPDATE SET
               started_ms = CASE WHEN rate_windows.started_ms <= $3 THEN $2
                                 ELSE rate_windows.started_ms END,
               hits = CASE WHEN rate_windows.started_ms <= $3 THEN 1
                           ELSE rate_windows.hits + 1 END
             RETURNING started_ms, hits",
        )
        .bind(self.key(key))
        .bind(now_ms)
        .bind(now_ms - self.window_ms)
        .fetch_one(&self.pool)
        .await?;
        let started: i64 = row.try_get("started_ms")?;
        let hits: i64 = row.try_get("hits")?;
        if hits > self.limit {
            return Ok(Err(wait_seconds(started, self.window_ms, now_ms)));
        }
        Ok(Ok(()))
    }

    /// Forgets `key`'s window (a success that clears past failures).
    pub async fn clear(&self, key: &str) -> Result<(), sqlx::Error> {
        sqlx::query("DELETE FROM rate_windows WHERE key = $1")
            .bind(self.key(key))
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    /// Every 1,000th hit drops this limit's windows that have ended.
    async fn sweep_now_and_then(&self, now_ms: i64) {
        if self.calls.fetch_add(1, Ordering::Relaxed) % 1_000 != 999 {
            return;
        }
        let prefix = format!("{}:%", self.name);
        let swept = sqlx::query("DELETE FROM rate_windows WHERE key LIKE $1 AND started_ms <= $2")
            .bind(prefix)
            .bind(now_ms - self.window_ms)
            .execute(&self.pool)
            .await;
        if let Err(e) = swept {
            tracing::warn!(limit = self.name, error = %e, "rate window sweep failed");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use store::db::testing;
    use store::StoreKind;

    async fn hits_beyond_the_limit_wait_for_the_window(kind: StoreKind) {
        let db = testing::fresh(kind).await;
        let limit = RateLimit::new(db.any.clone(), "t", 3, 60_000);
        for t in 0..3 {
            assert_eq!(limit.hit("ip:1", t).await.unwrap(), Ok(()));
        }
        assert_eq!(limit.full("ip:1", 10_000).await.unwrap(), Some(50));
        assert_eq!(limit.hit("ip:1", 10_000).await.unwrap(), Err(50));
        assert_eq!(limit.hit("ip:2", 10_000).await.unwrap(), Ok(()));
        assert_eq!(limit.hit("ip:1", 60_001).await.unwrap(), Ok(()));
        assert_eq!(limit.full("ip:1", 60_002).await.unwrap(), None);
    }

    async fn two_processes_share_one_limit_even_when_hitting_at_once(kind: StoreKind) {
        let db = testing::fresh(kind).await;
        // Two limits on one store stand for two processes.
        let a = std::sync::Arc::new(RateLimit::new(db.any.clone(), "login", 10, 60_000));
        let b = std::sync::Arc::new(RateLimit::new(db.any.clone(), "login", 10, 60_000));
        let mut tasks = Vec::new();
        for i in 0..40 {
            let limit = if i % 2 == 0 { a.clone() } else { b.clone() };
            tasks.push(tokio::spawn(async move {
                limit.hit("ip:9", 1_000).await.unwrap()
            }));
        }
        let mut passed = 0;
        for task in tasks {
            if task.await.unwrap().is_ok() {
                passed += 1;
            }
        }
        assert_eq!(passed, 10);
    }

    store::on_both_stores!(
        hits_beyond_the_limit_wait_for_the_window,
        two_processes_share_one_limit_even_when_hitting_at_once,
    );
}
