//! The reality check: at each interval the member chose, a notice on /ws
//! (tip type 1020) with the session's time, stakes and net result.
//!
//! A pass reads the members who asked for one (`reality_checks`, written
//! with their `RealityCheckSet` event) with their newest live session, and
//! sends the notices that are due; the row remembers how many notices the
//! session had, moved on by a guarded update, so a pass on another node or
//! a repeated pass never sends one twice.

use std::sync::Arc;
use std::time::Duration;

use serde_json::json;
use sqlx::{AnyPool, Row};

use crate::compliance::safer::{Safeguards, SaferFailure};
use crate::engagement::notify::Notifications;
use crate::platform::clock::SharedClock;
use crate::platform::lease::{Lease, LeaseError};

/// The /ws tip type of a reality check.
pub const REALITY_CHECK: i64 = 1020;
pub const REALITY_CHECK_LEASE: &str = "reality_check";

#[derive(Debug, thiserror::Error)]
pub enum RealityError {
    #[error("{0}")]
    Store(String),
}

impl From<sqlx::Error> for RealityError {
    fn from(e: sqlx::Error) -> Self {
        RealityError::Store(e.to_string())
    }
}

impl From<SaferFailure> for RealityError {
    fn from(e: SaferFailure) -> Self {
        RealityError::Store(e.to_string())
    }
}

impl From<LeaseError> for RealityError {
    fn from(e: LeaseError) -> Self {
        RealityError::Store(e.to_string())
    }
}

pub struct RealityChecks {
    pool: AnyPool,
    safer: Arc<Safeguards>,
    notifications: Arc<Notifications>,
    clock: SharedClock,
}

impl RealityChecks {
    pub fn new(
        pool: AnyPool,
        safer: Arc<Safeguards>,
        notifications: Arc<Notifications>,
        clock: SharedClock,
    ) -> Self {
        Self {
            pool,
            safer,
            notifications,
            clock,
        }
    }

    /// Sends the notices due now; returns how many.
    pub async fn pass(&self) -> Result<usize, RealityError> {
        let now = self.clock.now_ms();
        let rows = sqlx::query(
            "SELECT r.user_id, r.minutes, r.session_hash AS noticed, r.notices, s.session_hash, s.created_ms
             FROM reality_checks r JOIN sessions s ON s.user_id = r.user_id
             WHERE r.minutes > 0 AND s.expires_ms > $1
             ORDER BY r.user_id, s.created_ms DESC",
        )
        .bind(now)
        .fetch_all(&self.pool)
        .await?;
        let mut sent = 0;
        let mut last_user = String::new();
        for row in rows {
            let user: String = row.try_get("user_id")?;
            // The newest live session of each member only.
            if user == last_user {
                continue;
            }
            last_user = user.clone();
            let minutes: i64 = row.try_get::<i64, _>("minutes")?.max(1);
            let noticed: String = row.try_get("noticed")?;
            let notices: i64 = row.try_get("notices")?;
            let session: String = row.try_get("session_hash")?;
            let started: i64 = row.try_get("created_ms")?;
            let had = if noticed == session { notices } else { 0 };
            let due = (now - started).max(0) / (minutes * 60_000);
            if due <= had {
                continue;
            }
            // Claim the notice first: another pass that got here loses.
            let claimed = sqlx::query(
                "UPDATE reality_checks SET session_hash = $1, notices = $2
                 WHERE user_id = $3 AND session_hash = $4 AND notices = $5",
            )
            .bind(&session)
            .bind(due)
            .bind(&user)
            .bind(&noticed)
            .bind(notices)
            .execute(&self.pool)
            .await?;
            if claimed.rows_affected() != 1 {
                continue;
            }
            let (stakes, net, currency) = self.safer.session_figures(&user, started).await?;
            let body = json!({
                "session_minutes": (now - started).max(0) / 60_000,
                "stakes": format!("{:.2}", stakes.round_dp(2)),
                "net": format!("{:.2}", net.round_dp(2)),
                "currency": currency,
            });
            self.notifications.send(&user, REALITY_CHECK, &body).await?;
            sent += 1;
        }
        Ok(sent)
    }

    /// Runs passes every `every` while this process holds `lease`.
    pub async fn run(
        self: Arc<Self>,
        lease: Lease,
        every: Duration,
        stop: tokio::sync::watch::Receiver<bool>,
    ) {
        crate::platform::lease::run_leased(lease, every, stop, || self.pass()).await
    }
}
