//! Member notifications (spec 001 section 3, winning tips): types 1000
//! deposit result, 1001 withdrawal result, 1002 and 1010 text, 1003
//! activity, 1004 win, 1005 warm tip. Written to `notifications` by the
//! process that decides them; every process delivers new rows to the
//! sockets it holds, so a member hears about a win wherever connected.

use serde_json::Value;
use sqlx::{AnyPool, Row};

use crate::platform::clock::SharedClock;

pub const DEPOSIT_RESULT: i64 = 1000;
pub const WITHDRAWAL_RESULT: i64 = 1001;
pub const TEXT: i64 = 1002;
pub const ACTIVITY: i64 = 1003;
pub const WIN: i64 = 1004;
pub const WARM_TIP: i64 = 1005;
pub const TEXT_2: i64 = 1010;

#[derive(Debug, Clone, PartialEq)]
pub struct Notification {
    pub id: i64,
    pub user_id: String,
    pub kind: i64,
    pub body: Value,
    pub at_ms: i64,
}

pub struct Notifications {
    pool: AnyPool,
    clock: SharedClock,
    postgres: bool,
}

/// A reader's place in the notifications: the last row read and (Postgres)
/// its transaction id.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cursor {
    pub tx: i64,
    pub id: i64,
}

impl Cursor {
    /// Before every notification.
    pub const BEGINNING: Cursor = Cursor { tx: 0, id: 0 };
}

impl Notifications {
    pub fn new(pool: AnyPool, clock: SharedClock, postgres: bool) -> Self {
        Self {
            pool,
            clock,
            postgres,
        }
    }

    pub async fn send(&self, user_id: &str, kind: i64, body: &Value) -> Result<i64, sqlx::Error> {
        sqlx::query_scalar("INSERT INTO notifications (user_id, kind, body, at_ms) VALUES ($1, $2, $3, $4) RETURNING id")
            .bind(user_id)
            .bind(kind)
            .bind(body.to_string())
            .bind(self.clock.now_ms())
            .fetch_one(&self.pool)
            .await
    }

    /// Where a new process starts delivering from: after everything
    /// committed so far.
    pub async fn start(&self) -> Result<Cursor, sqlx::Error> {
        if self.postgres {
            let tx: i64 =
                sqlx::query_scalar("SELECT pg_snapshot_xmin(pg_current_snapshot())::text::bigint")
                    .fetch_one(&self.pool)
                    .await?;
            // Rows of transactions still running (tx >= xmin) are read once
            // they commit; everything older has been delivered or is past.
            return Ok(Cursor {
                tx: tx - 1,
                id: i64::MAX,
            });
        }
        let id: Option<i64> = sqlx::query_scalar("SELECT max(id) FROM notifications")
            .fetch_one(&self.pool)
            .await?;
        Ok(Cursor {
            tx: 0,
            id: id.unwrap_or(0),
        })
    }

    /// Notifications after `cursor` in commit order, oldest first, and the
    /// cursor after them. On Postgres only rows of transactions older than
    /// every running one are read (`pg_snapshot_xmin`), in `(tx_id, id)`
    /// order, so a row whose transaction commits late is never passed over;
    /// SQLite commits one writer at a time, so `id` is commit order.
    pub async fn after(
        &self,
        cursor: &Cursor,
        limit: i64,
    ) -> Result<(Vec<Notification>, Cursor), sqlx::Error> {
        let rows = if self.postgres {
            sqlx::query(
                "SELECT tx_id::text::bigint AS tx, id, user_id, kind, body, at_ms FROM notifications
                 WHERE (tx_id, id) > ($1::text::xid8, $2)
                   AND tx_id < pg_snapshot_xmin(pg_current_snapshot())
                 ORDER BY tx_id, id LIMIT $3",
            )
            .bind(cursor.tx.to_string())
            .bind(cursor.id)
            .bind(limit)
            .fetch_all(&self.pool)
            .await?
        } else {
            sqlx::query(
                "SELECT 0 AS tx, id, user_id, kind, body, at_ms FROM notifications
                 WHERE id > $1 ORDER BY id LIMIT $2",
            )
            .bind(cursor.id)
            .bind(limit)
            .fetch_all(&self.pool)
            .await?
        };
        let mut next = *cursor;
        let mut out = Vec::with_capacity(rows.len());
        for r in &rows {
            let body: String = r.try_get("body")?;
            let n = Notification {
                id: r.try_get("id")?,
                user_id: r.try_get("user_id")?,
                kind: r.try_get("kind")?,
                body: serde_json::from_str(&body).unwrap_or(Value::Null),
                at_ms: r.try_get("at_ms")?,
            };
            next = Cursor {
                tx: r.try_get("tx")?,
                id: n.id,
            };
            out.push(n);
        }
        Ok((out, next))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::platform::clock::SystemClock;
    use store::db::testing;

    #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
    async fn a_reader_never_passes_over_a_notification_that_commits_late() {
        let db = testing::fresh_postgres().await;
        let notes = Notifications::new(db.any.clone(), std::sync::Arc::new(SystemClock), true);
        let start = notes.start().await.unwrap();
        // A writer takes the lower id and commits last.
        let mut slow = db.any.begin().await.unwrap();
        sqlx::query(
            "INSERT INTO notifications (user_id, kind, body, at_ms) VALUES ('m1', 1004, '{}', 1)",
        )
        .execute(&mut *slow)
        .await
        .unwrap();
        notes.send("m2", 1004, &Value::Null).await.unwrap();
        let (early, cursor) = notes.after(&start, 100).await.unwrap();
        assert!(
            early.is_empty(),
            "nothing past a running transaction: {early:?}"
        );
        slow.commit().await.unwrap();
        // Other tests' transactions in the database hold the horizon back
        // for a moment: the rows come once it passes them, both, in order.
        // A transaction of another test may hold it between the two rows,
        // so the reader may get m1 first and m2 on a later read.
        let mut users = Vec::new();
        let mut cursor = cursor;
        for _ in 0..400 {
            let (some, next) = notes.after(&cursor, 100).await.unwrap();
            users.extend(some.iter().map(|n| n.user_id.clone()));
            cursor = next;
            if users.len() >= 2 {
                break;
            }
            tokio::time::sleep(std::time::Duration::from_millis(25)).await;
        }
        assert_eq!(users, ["m1", "m2"]);
    }
}
