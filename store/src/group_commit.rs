//! Group commit: concurrent appends share one database transaction.
//!
//! Every command still decides on its own aggregates (loaded, cached,
//! locked by its turn) and hands the rows it decided, with the request id
//! it claims, to [`GroupCommit::append`]. Appends that arrive while a group
//! is being written wait and go together in the next one: on Postgres one
//! statement (one round trip, one transaction) that claims every request
//! id and inserts every event row whose claim was won; on SQLite one write
//! transaction. The caller's answer waits for the commit.
//!
//! A group either commits whole or not at all. When it fails (another
//! writer took a sequence one of its commands decided on, or anything
//! else), each of its appends is written again alone, so a conflicting
//! command fails alone and the others commit; the conflicting one is
//! retried by its caller from a fresh load as before.
//!
//! The group is written by a spawned task, never by a caller's future: a
//! request dropped by its client cannot cut a group's commit in half or
//! leave the other callers without an answer.

use std::sync::{Arc, Mutex};

use cqrs_es::persist::PersistenceError;
use tokio::sync::oneshot;

use crate::db::StorePool;
use crate::events::{append_rows_alone, archive_sql, archives, Appended, Claim, EventRow, Extra};

/// At most this many event rows in one group (a command's rows are never
/// split between groups).
const MAX_GROUP_ROWS: usize = 4_000;

/// Groups being written at once. One on Postgres too: the next group
/// fills while one commits, and larger groups cost less a bet (BENCHMARKS.md,
/// "One shared read a pass on both stores, one group in flight": 8-10% less
/// CPU a bet, and a lower half-peak tail, than two in flight on an EPYC
/// host; `GROUP_COMMIT_IN_FLIGHT` overrides). SQLite has a single writer.
const POSTGRES_IN_FLIGHT: usize = 1;
const SQLITE_IN_FLIGHT: usize = 1;

type Reply = oneshot::Sender<Result<Appended, PersistenceError>>;

struct Job {
    rows: Vec<EventRow>,
    claim: Option<Claim>,
    /// Statements of the same transaction: such a job is a group alone.
    extras: Vec<Extra>,
    reply: Reply,
}

#[derive(Default)]
struct Queue {
    pending: Vec<Job>,
    in_flight: usize,
}

/// The store's group committer (one per [`crate::Db`], shared by its
/// clones and by every aggregate type).
#[derive(Clone)]
pub struct GroupCommit {
    inner: Arc<Inner>,
}

struct Inner {
    pool: StorePool,
    queue: Mutex<Queue>,
    stats: Stats,
    writer: Option<WriterLock>,
    /// Groups written at once (`GROUP_COMMIT_IN_FLIGHT` overrides).
    in_flight: usize,
}

/// SQLite has one writer at a time. Writers of this process that take
/// their turn here (the group committer, the projection runner, and the
/// other writers through [`crate::db::writer_turn`]) queue instead of
/// meeting in SQLite's busy handler, whose back-off sleeps (up to 100 ms a
/// try) made the tail of bet placement; the group committer's turns go
/// before the background writers' (see [`crate::writer`]).
pub type WriterLock = crate::writer::WriterLock;

/// How groups have gone since start (tests read it to see appends share groups).
#[derive(Default)]
pub struct Stats {
    pub groups: std::sync::atomic::AtomicU64,
    pub appends: std::sync::atomic::AtomicU64,
    pub regrouped: std::sync::atomic::AtomicU64,
}

impl std::fmt::Debug for GroupCommit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GroupCommit").finish_non_exhaustive()
    }
}

impl GroupCommit {
    /// `writer`: the database's writer turn (SQLite; see
    /// [`crate::db::sqlite_writer`]), `None` on Postgres.
    pub fn new(pool: StorePool, writer: Option<WriterLock>) -> Self {
        let writer = match pool {
            StorePool::Postgres(_) => None,
            StorePool::Sqlite(_) => Some(writer.unwrap_or_default()),
        };
        let in_flight = std::env::var("GROUP_COMMIT_IN_FLIGHT")
            .ok()
            .and_then(|v| v.parse::<usize>().ok())
            .map(|n| n.max(1))
            .unwrap_or(match pool {
                StorePool::Postgres(_) => POSTGRES_IN_FLIGHT,
                StorePool::Sqlite(_) => SQLITE_IN_FLIGHT,
            });
        Self {
            inner: Arc::new(Inner {
                pool,
                queue: Mutex::new(Queue::default()),
                stats: Stats::default(),
                writer,
                in_flight,
            }),
        }
    }

    /// The turn SQLite writers of this process take (none on Postgres).
    pub fn writer_lock(&self) -> Option<WriterLock> {
        self.inner.writer.clone()
    }

    pub fn stats(&self) -> &Stats {
        &self.inner.stats
    }

    fn queue(&self) -> std::sync::MutexGuard<'_, Queue> {
        self.inner.queue.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn in_flight_limit(&self) -> usize {
        self.inner.in_flight
    }

    /// Appends `rows` (and claims `claim`) with whatever else is being
    /// appended at the same time; answers once the group committed (or this
    /// append, written alone after the group failed, committed or failed).
    pub async fn append(
        &self,
        rows: Vec<EventRow>,
        claim: Option<Claim>,
    ) -> Result<Appended, PersistenceError> {
        self.append_with(rows, claim, Vec::new()).await
    }

    /// As [`Self::append`], with statements that commit in the same
    /// transaction (such an append is written as a group of its own).
    pub async fn append_with(
        &self,
        rows: Vec<EventRow>,
        claim: Option<Claim>,
        extras: Vec<Extra>,
    ) -> Result<Appended, PersistenceError> {
        if rows.is_empty() && claim.is_none() && extras.is_empty() {
            return Ok(Appended::Done);
        }
        let (reply, answer) = oneshot::channel();
        let start = {
            let mut queue = self.queue();
            queue.pending.push(Job {
                rows,
                claim,
                extras,
                reply,
            });
            if queue.in_flight < self.in_flight_limit() {
                queue.in_flight += 1;
                Some(take_group(&mut queue.pending))
            } else {
                None
            }
        };
        if let Some(group) = start {
            let this = self.clone();
            tokio::spawn(async move { this.write_groups(group).await });
        }
        answer.await.unwrap_or_else(|_| {
            Err(PersistenceError::UnknownError(
                "the group commit task ended without an answer".into(),
            ))
        })
    }

    /// Writes `group`, then the groups that queued meanwhile, until none is
    /// left.
    async fn write_groups(self, mut group: Vec<Job>) {
        let mut slot = Slot {
            commit: self.clone(),
            released: false,
        };
        // Postgres: one connection while groups keep coming (sqlx checks a
        // connection with a round trip each time it goes back to the pool).
        let mut held = None;
        loop {
            self.write_group(group, &mut held).await;
            let mut queue = self.queue();
            if queue.pending.is_empty() {
                queue.in_flight -= 1;
                slot.released = true;
                return;
            }
            group = take_group(&mut queue.pending);
        }
    }

    async fn write_group(
        &self,
        group: Vec<Job>,
        held: &mut Option<sqlx::pool::PoolConnection<sqlx::Postgres>>,
    ) {
        use std::sync::atomic::Ordering::Relaxed;
        let stats = &self.inner.stats;
        stats.groups.fetch_add(1, Relaxed);
        stats.appends.fetch_add(group.len() as u64, Relaxed);
        let _writer = match &self.inner.writer {
            Some(lock) => Some(lock.first_turn().await),
            None => None,
        };
        // SQLite writes a lone append alone (no statement to share). On
        // Postgres it takes the group's one statement too: one round trip
        // where BEGIN, the claim, the rows and COMMIT took four (a failure
        // is written again alone below, which reports the conflict).
        // A job with extra statements is always alone (see `take_group`).
        if group.len() == 1
            && (matches!(self.inner.pool, StorePool::Sqlite(_)) || !group[0].extras.is_empty())
        {
            let job = group.into_iter().next().expect("one job");
            let outcome =
                append_rows_alone(&self.inner.pool, &job.rows, job.claim.as_ref(), &job.extras)
                    .await;
            let _ = job.reply.send(outcome);
            return;
        }
        let outcome = match &self.inner.pool {
            StorePool::Postgres(pool) => {
                let conn = match held.take() {
                    Some(conn) => Ok(conn),
                    None => pool.acquire().await,
                };
                match conn {
                    Ok(mut conn) => {
                        let written = write_postgres(&mut conn, &group).await;
                        // A connection that failed may be what failed.
                        if written.is_ok() {
                            *held = Some(conn);
                        }
                        written
                    }
                    Err(e) => Err(e),
                }
            }
            StorePool::Sqlite(pool) => write_sqlite(pool, &group).await,
        };
        match outcome {
            Ok(claimed) => {
                for (job, won) in group.into_iter().zip(claimed) {
                    let _ = job.reply.send(Ok(if won {
                        Appended::Done
                    } else {
                        Appended::Claimed
                    }));
                }
            }
            Err(error) => {
                // Nothing of the group was written: each append alone, so
                // the one that conflicts fails by itself.
                tracing::debug!(appends = group.len(), %error, "group failed, appending alone");
                stats.regrouped.fetch_add(1, Relaxed);
                for job in group {
                    let outcome = append_rows_alone(
                        &self.inner.pool,
                        &job.rows,
                        job.claim.as_ref(),
                        &job.extras,
                    )
                    .await;
                    let _ = job.reply.send(outcome);
                }
            }
        }
    }
}

/// A writer's place among the groups in flight. Given back when the
/// writer ends; if its task is dropped instead (its runtime shut down), the
/// place is given back and the appends still queued are answered with an
/// error rather than left waiting for a writer that will not come.
struct Slot {
    commit: GroupCommit,
    released: bool,
}

impl Drop for Slot {
    fn drop(&mut self) {
        if !self.released {
            let mut queue = self.commit.queue();
            queue.in_flight = queue.in_flight.saturating_sub(1);
            if queue.in_flight == 0 {
                queue.pending.clear();
            }
        }
    }
}

/// The next group from the front of `pending`: appends in arrival order up
/// to the row budget, at most one per claimed request id (a second append
/// claiming the same id waits for the next group, where it finds the claim
/// taken).
fn take_group(pending: &mut Vec<Job>) -> Vec<Job> {
    let mut group = Vec::new();
    let mut rest = Vec::new();
    let mut rows = 0;
    let mut claims = std::collections::HashSet::new();
    for job in pending.drain(..) {
        // A job with extra statements goes alone (written by
        // `append_rows_alone`), first when it is first, else next time.
        if !job.extras.is_empty() || group.first().is_some_and(|j: &Job| !j.extras.is_empty()) {
            if group.is_empty() {
                rows += job.rows.len();
                group.push(job);
            } else {
                rest.push(job);
            }
            continue;
        }
        let same_claim = job
            .claim
            .as_ref()
            .is_some_and(|c| !claims.insert((c.scope.clone(), c.request_id.clone())));
        let full = !group.is_empty() && rows + job.rows.len() > MAX_GROUP_ROWS;
        if same_claim || full {
            rest.push(job);
        } else {
            rows += job.rows.len();
            group.push(job);
        }
    }
    *pending = rest;
    group
}

/// One statement: claim every request id of the group, insert the rows of
/// the appends that hold their claim (or claim nothing), in the group's
/// order, and archive the wallet generations they make their wallets forget
/// (from events stored before: a generation is never in the group that
/// archives it). Answers, per append, whether it won its claim.
async fn write_postgres(
    conn: &mut sqlx::PgConnection,
    group: &[Job],
) -> Result<Vec<bool>, sqlx::Error> {
    // The archive of a wallet generation comes with one append in about
    // 2,000 of a wallet's: groups without one run the statement without
    // that CTE (an INSERT in a CTE opens its table and indexes even when
    // it inserts nothing).
    const APPEND: &str = "
WITH claimed AS (
    INSERT INTO request_claims (scope, request_id, answer)
    SELECT * FROM UNNEST($1::text[], $2::text[], $3::text[])
    ON CONFLICT (scope, request_id) DO NOTHING
    RETURNING scope, request_id
), appended AS (
    INSERT INTO events (aggregate_type, aggregate_id, sequence, event_type, event_version, payload, metadata)
    SELECT r.aggregate_type, r.aggregate_id, r.sequence, r.event_type, r.event_version,
           r.payload::json, r.metadata::json
    FROM UNNEST($4::text[], $5::text[], $6::bigint[], $7::text[], $8::text[], $9::text[],
                $10::text[], $11::text[], $12::text[])
         WITH ORDINALITY AS r(aggregate_type, aggregate_id, sequence, event_type, event_version,
                              payload, metadata, claim_scope, claim_id, ord)
    WHERE r.claim_scope IS NULL
       OR EXISTS (SELECT 1 FROM claimed c
                  WHERE c.scope = r.claim_scope AND c.request_id = r.claim_id)
    ORDER BY r.ord
";
    const ARCHIVE: &str = "), archived AS (
    INSERT INTO wallet_references (wallet_id, reference, outcome)
    SELECT e.aggregate_id, r.reference, COALESCE(max((v.value ->> 'code')::integer), 0)
    FROM UNNEST($13::text[], $14::bigint[], $15::bigint[], $16::text[], $17::text[])
         AS a(wallet_id, first, last, claim_scope, claim_id)
    JOIN events e ON e.aggregate_type = 'Wallet' AND e.aggregate_id = a.wallet_id
                 AND e.sequence BETWEEN a.first AND a.last
    CROSS JOIN LATERAL json_each(e.payload) v
    CROSS JOIN LATERAL (VALUES (v.value ->> 'reference'), (v.value ->> 'taken_as')) r(reference)
    WHERE r.reference IS NOT NULL
      AND (a.claim_scope IS NULL
           OR EXISTS (SELECT 1 FROM claimed c
                      WHERE c.scope = a.claim_scope AND c.request_id = a.claim_id))
    GROUP BY e.aggregate_id, r.reference
    ON CONFLICT (wallet_id, reference) DO NOTHING
)";
    const ANSWER: &str = "
SELECT scope, request_id FROM claimed";
    let (mut c_scope, mut c_id, mut c_answer) = (Vec::new(), Vec::new(), Vec::new());
    let rows: usize = group.iter().map(|j| j.rows.len()).sum();
    let mut e_type = Vec::with_capacity(rows);
    let mut e_id = Vec::with_capacity(rows);
    let mut e_seq = Vec::with_capacity(rows);
    let mut e_event = Vec::with_capacity(rows);
    let mut e_version = Vec::with_capacity(rows);
    let mut e_payload = Vec::with_capacity(rows);
    let mut e_meta = Vec::with_capacity(rows);
    let mut e_scope: Vec<Option<&str>> = Vec::with_capacity(rows);
    let mut e_claim: Vec<Option<&str>> = Vec::with_capacity(rows);
    let (mut a_wallet, mut a_first, mut a_last) = (Vec::new(), Vec::new(), Vec::new());
    let (mut a_scope, mut a_claim): (Vec<Option<&str>>, Vec<Option<&str>>) =
        (Vec::new(), Vec::new());
    for job in group {
        for (wallet, first, last) in archives(job.rows.iter()) {
            a_wallet.push(wallet);
            a_first.push(first);
            a_last.push(last);
            a_scope.push(job.claim.as_ref().map(|c| c.scope.as_str()));
            a_claim.push(job.claim.as_ref().map(|c| c.request_id.as_str()));
        }
        if let Some(claim) = &job.claim {
            c_scope.push(claim.scope.as_str());
            c_id.push(claim.request_id.as_str());
            c_answer.push(claim.answer.as_str());
        }
        for row in &job.rows {
            e_type.push(row.aggregate_type.as_str());
            e_id.push(row.aggregate_id.as_str());
            e_seq.push(row.sequence as i64);
            e_event.push(row.event_type.as_str());
            e_version.push(row.event_version.as_str());
            e_payload.push(row.payload.as_str());
            e_meta.push(row.metadata.as_str());
            e_scope.push(job.claim.as_ref().map(|c| c.scope.as_str()));
            e_claim.push(job.claim.as_ref().map(|c| c.request_id.as_str()));
        }
    }
    let archiving = !a_wallet.is_empty();
    let sql = match archiving {
        true => format!("{APPEND}{ARCHIVE}{ANSWER}"),
        false => format!("{APPEND}){ANSWER}"),
    };
    let mut query = sqlx::query_as(&sql)
        .bind(&c_scope)
        .bind(&c_id)
        .bind(&c_answer)
        .bind(&e_type)
        .bind(&e_id)
        .bind(&e_seq)
        .bind(&e_event)
        .bind(&e_version)
        .bind(&e_payload)
        .bind(&e_meta)
        .bind(&e_scope)
        .bind(&e_claim);
    if archiving {
        query = query
            .bind(&a_wallet)
            .bind(&a_first)
            .bind(&a_last)
            .bind(&a_scope)
            .bind(&a_claim);
    }
    let won: Vec<(String, String)> = query.fetch_all(&mut *conn).await?;
    let won: std::collections::HashSet<(String, String)> = won.into_iter().collect();
    Ok(group
        .iter()
        .map(|job| match &job.claim {
            None => true,
            Some(c) => won.contains(&(c.scope.clone(), c.request_id.clone())),
        })
        .collect())
}

/// One write transaction: each claim in turn (a claim taken before skips
/// that append's rows), then one multi-row INSERT of the rows kept.
async fn write_sqlite(pool: &sqlx::SqlitePool, group: &[Job]) -> Result<Vec<bool>, sqlx::Error> {
    let mut tx = pool.begin().await?;
    let mut won = Vec::with_capacity(group.len());
    for job in group {
        let Some(claim) = &job.claim else {
            won.push(true);
            continue;
        };
        let inserted = sqlx::query(
            "INSERT INTO request_claims (scope, request_id, answer) VALUES ($1, $2, $3) ON CONFLICT (scope, request_id) DO NOTHING",
        )
        .bind(&claim.scope)
        .bind(&claim.request_id)
        .bind(&claim.answer)
        .execute(&mut *tx)
        .await?
        .rows_affected();
        won.push(inserted > 0);
    }
    let kept: Vec<&EventRow> = group
        .iter()
        .zip(&won)
        .filter(|(_, won)| **won)
        .flat_map(|(job, _)| &job.rows)
        .collect();
    // SQLite binds at most 32,766 parameters per statement: 7 per row.
    for chunk in kept.chunks(4_000) {
        let mut sql = String::from(
            "INSERT INTO events (aggregate_type, aggregate_id, sequence, event_type, event_version, payload, metadata) VALUES ",
        );
        for i in 0..chunk.len() {
            if i > 0 {
                sql.push_str(", ");
            }
            sql.push_str("(?, ?, ?, ?, ?, ?, ?)");
        }
        let mut query = sqlx::query(&sql);
        for row in chunk {
            query = query
                .bind(row.aggregate_type.as_str())
                .bind(row.aggregate_id.as_str())
                .bind(row.sequence as i64)
                .bind(row.event_type.as_str())
                .bind(row.event_version.as_str())
                .bind(row.payload.as_str())
                .bind(row.metadata.as_str());
        }
        query.execute(&mut *tx).await?;
    }
    for (wallet, first, last) in archives(kept.iter().copied()) {
        sqlx::query(archive_sql(true))
            .bind(wallet)
            .bind(first)
            .bind(last)
            .execute(&mut *tx)
            .await?;
    }
    tx.commit().await?;
    Ok(won)
}
