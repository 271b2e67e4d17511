//! The member inbox (`user/messages`, spec 001 section 7.2) and the process
//! manager that writes it from the platform's own events: deposit and
//! withdrawal results, season-task claims approved, rewards paid
//! (`domain::content::inbox_draft` decides which events and what text; the
//! text is in the member's market language, from the VIP read model).
//!
//! Exactly once: a pass locks its checkpoint row (`projection_checkpoints`,
//! name `inbox`; passes of several processes take turns), reads the global
//! stream after it, and per source event inserts a tracking record
//! (`inbox_tracked`, ON CONFLICT DO NOTHING) in the same transaction as the
//! message, its winning tip (a `notifications` row, pushed over /ws by
//! every process) and the new checkpoint. An event whose record exists (a
//! pass repeated after a crash, a checkpoint reset, two processes) writes
//! nothing.

use std::sync::Arc;
use std::time::Duration;

use domain::content::{inbox_draft, owner_from_id, Draft, INBOX_SOURCES};
use serde::Serialize;
use serde_json::Value;
use sqlx::{Any, AnyPool, Row, Transaction};
use store::stream::{self, Backend};
use tokio::sync::watch;

use crate::platform::clock::SharedClock;
use crate::platform::lease::{run_leased, Lease};

pub const INBOX_LEASE: &str = "inbox";
/// The process manager's checkpoint (a row of `projection_checkpoints`).
pub const INBOX_CHECKPOINT: &str = "inbox";
/// Events a batch of the inbox pass reads at most.
const BATCH: usize = 500;

pub const INBOX_EVERY: Duration = Duration::from_millis(500);
/// Messages a member sees (newest first).
pub const PAGE: i64 = 100;

#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct InboxError(pub String);

impl From<crate::platform::lease::LeaseError> for InboxError {
    fn from(e: crate::platform::lease::LeaseError) -> Self {
        InboxError(e.to_string())
    }
}

impl From<sqlx::Error> for InboxError {
    fn from(e: sqlx::Error) -> Self {
        InboxError(e.to_string())
    }
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct InboxMessage {
    pub id: i64,
    #[serde(rename = "type")]
    pub kind: i64,
    pub title: String,
    pub content: String,
    pub created: i64,
    pub read: bool,
}

pub struct Inbox {
    pool: AnyPool,
    backend: Backend,
    clock: SharedClock,
}

fn retryable(e: &InboxError) -> bool {
    let text = e.0.to_lowercase();
    [
        "unique",
        "duplicate",
        "locked",
        "busy",
        "serializ",
        "deadlock",
    ]
    .iter()
    .any(|w| text.contains(w))
}

impl Inbox {
    pub fn new(pool: AnyPool, backend: Backend, clock: SharedClock) -> Self {
        Self {
            pool,
            backend,
            clock,
        }
    }

    // ------------------------------------------------------------ member

    /// The member's messages (newest first, at most PAGE) and the unread
    /// count over all of them; deleted ones are left out.
    pub async fn list(&self, user_id: &str) -> Result<(Vec<InboxMessage>, i64), InboxError> {
        let rows = sqlx::query(
            "SELECT id, kind, title, content, created_ms, read FROM member_messages
             WHERE user_id = $1 AND deleted = 0 ORDER BY id DESC LIMIT $2",
        )
        .bind(user_id)
        .bind(PAGE)
        .fetch_all(&self.pool)
        .await?;
        let list = rows
            .iter()
            .map(|r| {
                Ok(InboxMessage {
                    id: r.try_get("id")?,
                    kind: r.try_get("kind")?,
                    title: r.try_get("title")?,
                    content: r.try_get("content")?,
                    created: r.try_get("created_ms")?,
                    read: r.try_get::<i64, _>("read")? != 0,
                })
            })
            .collect::<Result<Vec<_>, sqlx::Error>>()?;
        Ok((list, self.unread(user_id).await?))
    }

    pub async fn unread(&self, user_id: &str) -> Result<i64, InboxError> {
        Ok(sqlx::query_scalar(
            "SELECT count(*) FROM member_messages WHERE user_id = $1 AND read = 0 AND deleted = 0",
        )
        .bind(user_id)
        .fetch_one(&self.pool)
        .await?)
    }

    /// Marks one message (or, with None, every message) read.
    pub async fn mark_read(&self, user_id: &str, id: Option<i64>) -> Result<(), InboxError> {
        match id {
            Some(id) => {
                sqlx::query("UPDATE member_messages SET read = 1 WHERE user_id = $1 AND id = $2")
                    .bind(user_id)
                    .bind(id)
                    .execute(&self.pool)
                    .await?
            }
            None => {
                sqlx::query("UPDATE member_messages SET read = 1 WHERE user_id = $1 AND read = 0")
                    .bind(user_id)
                    .execute(&self.pool)
                    .await?
            }
        };
        Ok(())
    }

    /// Deletes one of the member's messages (another member's id changes
    /// nothing).
    pub async fn delete(&self, user_id: &str, id: i64) -> Result<(), InboxError> {
        sqlx::query(
            "UPDATE member_messages SET deleted = 1, read = 1 WHERE user_id = $1 AND id = $2",
        )
        .bind(user_id)
        .bind(id)
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    // ------------------------------------------------- process manager

    /// Batches until no event is left after the checkpoint; returns the
    /// messages written.
    pub async fn pass(&self) -> Result<usize, InboxError> {
        let mut written = 0;
        let mut attempts = 0;
        loop {
            match self.batch().await {
                // A short batch read everything visible: the pass ends
                // there rather than chasing each new commit batch by batch.
                Ok((read, n)) if read < BATCH => return Ok(written + n),
                Ok((_, n)) => written += n,
                Err(e) if retryable(&e) && attempts < 50 => {
                    attempts += 1;
                    tokio::time::sleep(Duration::from_millis(20)).await;
                }
                Err(e) => return Err(e),
            }
        }
    }

    /// Passes until every event in the store is behind the checkpoint, or
    /// `patience` runs out (tests; Postgres's xmin horizon is cluster-wide).
    pub async fn settle(&self, patience: Duration) -> Result<usize, InboxError> {
        let deadline = tokio::time::Instant::now() + patience;
        let mut written = 0;
        loop {
            written += self.pass().await?;
            let mut conn = self.pool.acquire().await?;
            let at = store::db::pass_checkpoint(&mut conn, INBOX_CHECKPOINT).await?;
            let left = stream::count_after(&mut conn, self.backend, at).await?;
            if left == 0 || tokio::time::Instant::now() >= deadline {
                return Ok(written);
            }
            drop(conn);
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    pub async fn run(self: Arc<Self>, lease: Lease, stop: watch::Receiver<bool>) {
        run_leased(lease, INBOX_EVERY, stop, || self.pass()).await
    }

    /// (events read, messages written)
    async fn batch(&self) -> Result<(usize, usize), InboxError> {
        let Some(mut batch) = store::db::pass_batch(
            &self.pool,
            self.backend,
            INBOX_CHECKPOINT,
            stream::Only::AggregateTypes(&INBOX_SOURCES),
            BATCH as i64,
        )
        .await?
        else {
            return Ok((0, 0));
        };
        let events = std::mem::take(&mut batch.events);
        let last = batch.upto;
        let mut written = 0;
        // One lookup of a member's language a batch (a read model this
        // pass does not write).
        let mut markets: std::collections::HashMap<String, String> = Default::default();
        for event in &events {
            let Some(payload) = &event.payload else {
                continue;
            };
            let value: Value = serde_json::from_str(payload).unwrap_or(Value::Null);
            let owner = match owner_from_id(&event.aggregate_type, &event.aggregate_id) {
                Some(owner) => Some(owner),
                None => {
                    first_member(&mut batch.tx, &event.aggregate_type, &event.aggregate_id).await?
                }
            };
            let lang = match owner
                .as_deref()
                .or_else(|| named_member(&value, &event.event_type))
            {
                Some(member) => match markets.get(member) {
                    Some(market) => market.clone(),
                    None => {
                        let market = market_of(&mut batch.tx, member).await?;
                        markets.insert(member.to_string(), market.clone());
                        market
                    }
                },
                None => DEFAULT_LANGUAGE.to_string(),
            };
            let Some(draft) = inbox_draft(
                &event.aggregate_type,
                &event.aggregate_id,
                &event.event_type,
                &value,
                owner.as_deref(),
                &lang,
            ) else {
                continue;
            };
            let source = format!(
                "{}/{}#{}",
                event.aggregate_type, event.aggregate_id, event.sequence
            );
            if self.write(&mut batch.tx, &source, &draft).await? {
                written += 1;
            }
        }
        sqlx::query(
            "UPDATE projection_checkpoints SET tx_id = $2, position = $3, updated_at = $4 WHERE name = $1",
        )
        .bind(INBOX_CHECKPOINT)
        .bind(last.tx_id)
        .bind(last.position)
        .bind(self.clock.now_ms().to_string())
        .execute(&mut *batch.tx)
        .await?;
        batch.tx.commit().await?;
        Ok((events.len(), written))
    }

    /// The tracking record, the message and its tip; false when the source
    /// event was handled before.
    async fn write(
        &self,
        tx: &mut Transaction<'static, Any>,
        source: &str,
        draft: &Draft,
    ) -> Result<bool, InboxError> {
        let now = self.clock.now_ms();
        let tracked = sqlx::query(
            "INSERT INTO inbox_tracked (source, member_id, tracked_ms) VALUES ($1, $2, $3) ON CONFLICT (source) DO NOTHING",
        )
        .bind(source)
        .bind(&draft.member_id)
        .bind(now)
        .execute(&mut **tx)
        .await?
        .rows_affected();
        if tracked == 0 {
            return Ok(false);
        }
        sqlx::query(
            "INSERT INTO member_messages (user_id, kind, title, content, created_ms, read) VALUES ($1, $2, $3, $4, $5, 0)",
        )
        .bind(&draft.member_id)
        .bind(draft.kind)
        .bind(&draft.title)
        .bind(&draft.content)
        .bind(now)
        .execute(&mut **tx)
        .await?;
        if let Some(tip) = &draft.tip {
            sqlx::query(
                "INSERT INTO notifications (user_id, kind, body, at_ms) VALUES ($1, $2, $3, $4)",
            )
            .bind(&draft.member_id)
            .bind(draft.kind)
            .bind(tip.to_string())
            .bind(now)
            .execute(&mut **tx)
            .await?;
        }
        Ok(true)
    }
}

/// The language of messages to members the VIP read model has not seen yet
/// (spec 000 section 1: simplified Chinese is the default).
pub const DEFAULT_LANGUAGE: &str = "zhh";

fn named_member<'a>(value: &'a Value, event_type: &str) -> Option<&'a str> {
    value
        .get(event_type)
        .unwrap_or(value)
        .get("member_id")
        .and_then(Value::as_str)
        .filter(|m| !m.is_empty())
}

/// The member's market (zhh, eng, tha), which the inbox's texts are
/// written in.
async fn market_of(conn: &mut sqlx::AnyConnection, member: &str) -> Result<String, InboxError> {
    let market: Option<String> =
        sqlx::query_scalar("SELECT market FROM vip_members WHERE member_id = $1")
            .bind(member)
            .fetch_optional(&mut *conn)
            .await?;
    Ok(market
        .filter(|m| !m.is_empty())
        .unwrap_or_else(|| DEFAULT_LANGUAGE.to_string()))
}

/// The member named by an aggregate's first event (DepositCreated,
/// WithdrawalRequested).
async fn first_member(
    conn: &mut sqlx::AnyConnection,
    aggregate_type: &str,
    aggregate_id: &str,
) -> Result<Option<String>, InboxError> {
    let payload: Option<String> = sqlx::query_scalar(
        "SELECT CAST(payload AS TEXT) FROM events WHERE aggregate_type = $1 AND aggregate_id = $2 AND sequence = 1",
    )
    .bind(aggregate_type)
    .bind(aggregate_id)
    .fetch_optional(&mut *conn)
    .await?;
    let value: Value = payload
        .and_then(|p| serde_json::from_str(&p).ok())
        .unwrap_or(Value::Null);
    let body = value
        .as_object()
        .and_then(|o| o.values().next())
        .cloned()
        .unwrap_or(Value::Null);
    Ok(body
        .get("member_id")
        .and_then(Value::as_str)
        .map(str::to_string))
}
