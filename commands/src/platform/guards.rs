//! Replay and duplicate-submission guards of the request layer, shared by
//! every `api` process through the store (DESIGN.md "Scale-out"): a
//! UniqueId is accepted once whichever process it reaches, and an identical
//! submission is refused while the first is in progress or just finished.

use std::sync::atomic::{AtomicU64, Ordering};

use sqlx::{AnyPool, Row};

use crate::platform::limits::RateLimit;

/// A `UniqueId` is valid this long after its timestamp.
pub const UNIQUE_ID_WINDOW_MS: i64 = 300_000;
/// ... and may run this far ahead of the server clock.
pub const UNIQUE_ID_SKEW_MS: i64 = 60_000;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IdError {
    Malformed,
    Expired,
    Reused,
}

/// The millisecond timestamp of a well-formed UniqueId
/// (13 digits + 6 letters or digits).
pub fn unique_id_time(id: &str) -> Result<i64, IdError> {
    let bytes = id.as_bytes();
    if bytes.len() != 19
        || !bytes[..13].iter().all(u8::is_ascii_digit)
        || !bytes[13..].iter().all(u8::is_ascii_alphanumeric)
    {
        return Err(IdError::Malformed);
    }
    id[..13].parse().map_err(|_| IdError::Malformed)
}

/// UniqueIds seen within their window (`request_ids`).
pub struct UniqueIds {
    pool: AnyPool,
    calls: AtomicU64,
}

impl UniqueIds {
    pub fn new(pool: AnyPool) -> Self {
        Self {
            pool,
            calls: AtomicU64::new(0),
        }
    }

    /// Checks freshness only (before the signature is verified).
    pub fn fresh(&self, id: &str, now_ms: i64) -> Result<(), IdError> {
        let at = unique_id_time(id)?;
        if now_ms - at > UNIQUE_ID_WINDOW_MS || at - now_ms > UNIQUE_ID_SKEW_MS {
            return Err(IdError::Expired);
        }
        Ok(())
    }

    /// Records the id; refuses one already used (by any process) within
    /// the window. `Err(None)` is a store failure.
    pub async fn claim(&self, id: &str, now_ms: i64) -> Result<Result<(), IdError>, sqlx::Error> {
        let at = match unique_id_time(id) {
            Ok(at) => at,
            Err(e) => return Ok(Err(e)),
        };
        if self.calls.fetch_add(1, Ordering::Relaxed) % 1_000 == 999 {
            let swept = sqlx::query("DELETE FROM request_ids WHERE expires_ms < $1")
                .bind(now_ms)
                .execute(&self.pool)
                .await;
            if let Err(e) = swept {
                tracing::warn!(error = %e, "request id sweep failed");
            }
        }
        let inserted = sqlx::query(
            "INSERT INTO request_ids (id, expires_ms) VALUES ($1, $2) ON CONFLICT (id) DO NOTHING",
        )
        .bind(id)
        .bind(at + UNIQUE_ID_WINDOW_MS + UNIQUE_ID_SKEW_MS)
        .execute(&self.pool)
        .await?;
        Ok(if inserted.rows_affected() == 1 {
            Ok(())
        } else {
            Err(IdError::Reused)
        })
    }
}

/// The -66666..-66668 refusals, with the seconds to wait.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    Repeated { wait: i64 },
    InProgress { wait: i64 },
    TooMany { wait: i64 },
}

impl Refusal {
    pub fn code(self) -> i32 {
        match self {
            Refusal::Repeated { .. } => -66666,
            Refusal::InProgress { .. } => -66667,
            Refusal::TooMany { .. } => -66668,
        }
    }

    pub fn wait(self) -> i64 {
        match self {
            Refusal::Repeated { wait }
            | Refusal::InProgress { wait }
            | Refusal::TooMany { wait } => wait,
        }
    }

    pub fn message(self) -> String {
        let template = match self {
            Refusal::Repeated { .. } => "Repeated submission, please wait {n} seconds.",
            Refusal::InProgress { .. } => {
                "Your previous request is still being processed, please wait {n} seconds."
            }
            Refusal::TooMany { .. } => "Too many submissions, please wait {n} seconds.",
        };
        template.replace("{n}", &self.wait().to_string())
    }
}

/// Identical submissions within this window are refused.
pub const REPEAT_WINDOW_MS: i64 = 3_000;
/// A submission still unfinished after this is taken as lost.
pub const IN_PROGRESS_MS: i64 = 60_000;
/// At most this many submissions of one path per device ...
pub const BURST_LIMIT: usize = 10;
/// ... within this window.
pub const BURST_WINDOW_MS: i64 = 10_000;

fn seconds(ms: i64) -> i64 {
    ((ms + 999) / 1000).max(1)
}

/// The duplicate-submission guard (`submissions`, `rate_windows`).
pub struct Submissions {
    pool: AnyPool,
    bursts: RateLimit,
    calls: AtomicU64,
}

impl Submissions {
    pub fn new(pool: AnyPool) -> Self {
        Self {
            bursts: RateLimit::new(pool.clone(), "submit", BURST_LIMIT, BURST_WINDOW_MS),
            pool,
            calls: AtomicU64::new(0),
        }
    }

    fn key(device: &str, path: &str, digest: &str) -> String {
        format!("{device}|{path}|{digest}")
    }

    /// Admits a submission or says how long to wait. `finish` must follow.
    pub async fn begin(
        &self,
        device: &str,
        path: &str,
        digest: &str,
        now_ms: i64,
    ) -> Result<Result<(), Refusal>, sqlx::Error> {
        if self.calls.fetch_add(1, Ordering::Relaxed) % 1_000 == 999 {
            let swept = sqlx::query("DELETE FROM submissions WHERE started_ms < $1")
                .bind(now_ms - IN_PROGRESS_MS.max(REPEAT_WINDOW_MS))
                .execute(&self.pool)
                .await;
            if let Err(e) = swept {
                tracing::warn!(error = %e, "submission sweep failed");
            }
        }
        let key = Self::key(device, path, digest);
        // One statement admits it: a new key, or one whose earlier
        // submission finished more than 3 s ago (or was lost).
        let admitted = sqlx::query(
            "INSERT INTO submissions (key, started_ms, finished_ms) VALUES ($1, $2, NULL)
             ON CONFLICT (key) DO UPDATE SET started_ms = $2, finished_ms = NULL
             WHERE (submissions.finished_ms IS NULL AND submissions.started_ms <= $3)
                OR (submissions.finished_ms IS NOT NULL AND submissions.finished_ms <= $4)",
        )
        .bind(&key)
        .bind(now_ms)
        .bind(now_ms - IN_PROGRESS_MS)
        .bind(now_ms - REPEAT_WINDOW_MS)
        .execute(&self.pool)
        .await?;
        if admitted.rows_affected() == 0 {
            let row = sqlx::query("SELECT finished_ms FROM submissions WHERE key = $1")
                .bind(&key)
                .fetch_optional(&self.pool)
                .await?;
            let finished: Option<i64> = match row {
                Some(row) => row.try_get("finished_ms")?,
                None => None,
            };
            return Ok(Err(match finished {
                None => Refusal::InProgress {
                    wait: seconds(REPEAT_WINDOW_MS),
                },
                Some(done) => Refusal::Repeated {
                    wait: seconds(REPEAT_WINDOW_MS - (now_ms - done)),
                },
            }));
        }
        let burst = format!("{device}|{path}");
        if let Err(wait) = self.bursts.hit(&burst, now_ms).await? {
            // Not admitted after all: the identical guard must not hold it.
            sqlx::query("DELETE FROM submissions WHERE key = $1 AND started_ms = $2")
                .bind(&key)
                .bind(now_ms)
                .execute(&self.pool)
                .await?;
            return Ok(Err(Refusal::TooMany { wait }));
        }
        Ok(Ok(()))
    }

    pub async fn finish(
        &self,
        device: &str,
        path: &str,
        digest: &str,
        now_ms: i64,
    ) -> Result<(), sqlx::Error> {
        sqlx::query("UPDATE submissions SET finished_ms = $2 WHERE key = $1")
            .bind(Self::key(device, path, digest))
            .bind(now_ms)
            .execute(&self.pool)
            .await?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use store::db::testing;
    use store::StoreKind;

    const NOW: i64 = 1_800_000_000_000;

    fn id(at: i64) -> String {
        format!("{at}aB3dE9")
    }

    #[test]
    fn a_unique_id_is_a_millisecond_timestamp_and_six_characters() {
        assert_eq!(unique_id_time(&id(NOW)), Ok(NOW));
        for bad in [
            "",
            "123",
            "1800000000000abcde",
            "1800000000000abcde!",
            "180000000000Xabcdef",
        ] {
            assert_eq!(unique_id_time(bad), Err(IdError::Malformed), "{bad}");
        }
    }

    async fn unique_ids_older_than_five_minutes_or_far_ahead_are_expired(kind: StoreKind) {
        let ids = UniqueIds::new(testing::fresh(kind).await.any);
        assert_eq!(ids.fresh(&id(NOW - 300_000), NOW), Ok(()));
        assert_eq!(ids.fresh(&id(NOW - 300_001), NOW), Err(IdError::Expired));
        assert_eq!(ids.fresh(&id(NOW + 60_001), NOW), Err(IdError::Expired));
    }

    async fn a_unique_id_is_accepted_once_by_all_processes(kind: StoreKind) {
        let db = testing::fresh(kind).await;
        let a = UniqueIds::new(db.any.clone());
        let b = UniqueIds::new(db.any.clone());
        assert_eq!(a.claim(&id(NOW), NOW).await.unwrap(), Ok(()));
        assert_eq!(
            a.claim(&id(NOW), NOW + 5).await.unwrap(),
            Err(IdError::Reused)
        );
        assert_eq!(
            b.claim(&id(NOW), NOW + 5).await.unwrap(),
            Err(IdError::Reused)
        );
        assert_eq!(b.claim(&id(NOW + 1), NOW + 5).await.unwrap(), Ok(()));
    }

    async fn an_identical_submission_within_three_seconds_must_wait(kind: StoreKind) {
        let db = testing::fresh(kind).await;
        let s = Submissions::new(db.any.clone());
        let other_process = Submissions::new(db.any.clone());
        assert_eq!(s.begin("d", "/api/x", "h", NOW).await.unwrap(), Ok(()));
        assert_eq!(
            other_process
                .begin("d", "/api/x", "h", NOW + 10)
                .await
                .unwrap(),
            Err(Refusal::InProgress { wait: 3 })
        );
        s.finish("d", "/api/x", "h", NOW + 100).await.unwrap();
        let refusal = other_process
            .begin("d", "/api/x", "h", NOW + 1_100)
            .await
            .unwrap()
            .unwrap_err();
        assert_eq!(refusal, Refusal::Repeated { wait: 2 });
        assert_eq!(refusal.code(), -66666);
        assert_eq!(
            refusal.message(),
            "Repeated submission, please wait 2 seconds."
        );
        assert_eq!(
            s.begin("d", "/api/x", "h", NOW + 3_200).await.unwrap(),
            Ok(())
        );
        assert_eq!(
            s.begin("other", "/api/x", "h", NOW + 10).await.unwrap(),
            Ok(())
        );
    }

    async fn more_than_ten_submissions_of_a_path_in_ten_seconds_must_wait(kind: StoreKind) {
        let db = testing::fresh(kind).await;
        let s = Submissions::new(db.any.clone());
        let other_process = Submissions::new(db.any.clone());
        for i in 0..10 {
            let guard = if i % 2 == 0 { &s } else { &other_process };
            assert_eq!(
                guard
                    .begin("d", "/api/x", &i.to_string(), NOW + i)
                    .await
                    .unwrap(),
                Ok(())
            );
        }
        let refusal = s
            .begin("d", "/api/x", "new", NOW + 20)
            .await
            .unwrap()
            .unwrap_err();
        assert_eq!(refusal.code(), -66668);
        assert_eq!(refusal.wait(), 10);
        assert_eq!(
            s.begin("d", "/api/x", "new", NOW + 10_001).await.unwrap(),
            Ok(())
        );
    }

    store::on_both_stores!(
        unique_ids_older_than_five_minutes_or_far_ahead_are_expired,
        a_unique_id_is_accepted_once_by_all_processes,
        an_identical_submission_within_three_seconds_must_wait,
        more_than_ten_submissions_of_a_path_in_ten_seconds_must_wait,
    );
}
