//! Member notifications (spec 001 section 3, winning tips): types 1000
//! deposit result, 1001 withdrawal result, 1002 and 1010 text, 1003
//! activity, 1004 win, 1005 warm tip. Written to `notifications` by the
//! process that decides them; every process delivers new rows to the
//! sockets it holds, so a member hears about a win wherever connected.

use serde_json::Value;
use sqlx::{AnyPool, Row};

use crate::clock::SharedClock;

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
}

impl Notifications {
    pub fn new(pool: AnyPool, clock: SharedClock) -> Self {
        Self { pool, clock }
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

    /// The newest id, where a new process starts delivering from.
    pub async fn last_id(&self) -> Result<i64, sqlx::Error> {
        Ok(
            sqlx::query_scalar::<_, Option<i64>>("SELECT max(id) FROM notifications")
                .fetch_one(&self.pool)
                .await?
                .unwrap_or(0),
        )
    }

    /// Notifications after `id`, oldest first.
    pub async fn after(&self, id: i64, limit: i64) -> Result<Vec<Notification>, sqlx::Error> {
        let rows = sqlx::query("SELECT id, user_id, kind, body, at_ms FROM notifications WHERE id > $1 ORDER BY id LIMIT $2")
            .bind(id)
            .bind(limit)
            .fetch_all(&self.pool)
            .await?;
        rows.iter()
            .map(|r| {
                let body: String = r.try_get("body")?;
                Ok(Notification {
                    id: r.try_get("id")?,
                    user_id: r.try_get("user_id")?,
                    kind: r.try_get("kind")?,
                    body: serde_json::from_str(&body).unwrap_or(Value::Null),
                    at_ms: r.try_get("at_ms")?,
                })
            })
            .collect()
    }
}
