//! Swarm long-poll sessions, shared by every `api` process (DESIGN.md
//! "Scale-out"): behind a load balancer without stickiness each poll may
//! reach another process, so the session (language, login), its
//! subscriptions and the data last delivered for each live in the store.
//! The process a `whats_up` reaches runs each subscription's query on its
//! own copy of the catalogue (every process applies the same catalogue
//! log) and answers the diff from the stored data, which it then replaces.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use sqlx::{AnyPool, Row};
use tokio::sync::oneshot;

/// A long-poll session not polled for this long is lost (code 5).
pub const POLL_SESSION_TTL_MS: i64 = 60_000;
/// A poll marks its session as seen at most this often.
pub const TOUCH_EVERY_MS: i64 = 5_000;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PollSession {
    pub sid: String,
    pub language: String,
    pub user_id: Option<String>,
    /// `sessions::token_hash` of the main API token restored with.
    pub token_hash: Option<String>,
    /// When that main API session expires, read with this row (`None`:
    /// no token, or its session is gone), so that a request checks the
    /// login without a second read.
    pub login_expires_ms: Option<i64>,
}

/// One subscription of a poll session.
#[derive(Debug, Clone)]
pub struct PollSubscription {
    pub subid: String,
    /// The `get` params it was made with (JSON text).
    pub params: String,
    /// The data last delivered (JSON text).
    pub data: String,
}

#[derive(Clone)]
pub struct PollSessions {
    pool: AnyPool,
    /// SQLite's writer turn (`store::db::sqlite_writer`).
    writer: Option<store::group_commit::WriterLock>,
    /// Connections kept for `touch`, the read of every poll.
    hot: Arc<store::db::Hot>,
    /// `touch` reads waiting for the next shared statement (Postgres).
    reads: Arc<Mutex<Reads>>,
}

/// Connections `touch` keeps between polls.
const HOT_CONNECTIONS: usize = 2;

/// Sessions one shared `touch` read asks for at most. The statement's
/// `IN` list is padded to a power of two up to this (so a connection
/// prepares seven statements, not one a size).
const READ_BATCH: usize = 64;

/// A session row as `touch` reads it.
#[derive(Clone)]
struct SessionRow {
    session: PollSession,
    last_seen_ms: i64,
}

type ReadReply = oneshot::Sender<Result<Option<SessionRow>, String>>;

/// The `touch` reads of this process on Postgres: each poll (each bet)
/// reads its session, and concurrent ones share one statement, a round
/// trip to Postgres and back instead of one each. The first read runs at
/// once; those that come while it runs wait for it and go together in the
/// next one.
#[derive(Default)]
struct Reads {
    waiting: Vec<(String, ReadReply)>,
    reading: bool,
    /// Shared statements run since start (tests read it).
    statements: u64,
}

impl PollSessions {
    pub fn new(pool: AnyPool) -> Self {
        let writer = store::db::sqlite_writer(&pool);
        // SQLite's connections are few and local (no round trip to save).
        let keep = if writer.is_some() { 0 } else { HOT_CONNECTIONS };
        let hot = Arc::new(store::db::Hot::new(pool.clone(), keep));
        Self {
            pool,
            writer,
            hot,
            reads: Arc::default(),
        }
    }

    pub async fn open(&self, sid: &str, language: &str, now_ms: i64) -> Result<(), sqlx::Error> {
        sqlx::query(
            "INSERT INTO swarm_poll_sessions (sid, language, last_seen_ms) VALUES ($1, $2, $3)",
        )
        .bind(sid)
        .bind(language)
        .bind(now_ms)
        .execute(&mut *store::db::write_conn(&self.pool, &self.writer).await?)
        .await?;
        Ok(())
    }

    /// The session, marked as polled now, with its login's expiry;
    /// `None` when unknown or lost. The mark is written only when the last
    /// one is over `TOUCH_EVERY_MS` old, so a busy session costs one
    /// indexed read per request, shared with the other requests of the
    /// moment on Postgres.
    pub async fn touch(&self, sid: &str, now_ms: i64) -> Result<Option<PollSession>, sqlx::Error> {
        let row = if self.writer.is_some() {
            let mut conn = self.hot.acquire().await?;
            let rows = read_sessions(&mut conn, &[sid]).await?;
            conn.keep();
            rows.into_iter().next().map(|(_, row)| row)
        } else {
            self.read_shared(sid).await?
        };
        let Some(row) = row.filter(|row| row.last_seen_ms > now_ms - POLL_SESSION_TTL_MS) else {
            return Ok(None);
        };
        if now_ms - row.last_seen_ms > TOUCH_EVERY_MS {
            sqlx::query(
                "UPDATE swarm_poll_sessions SET last_seen_ms = $2 WHERE sid = $1 AND last_seen_ms < $2",
            )
            .bind(sid)
            .bind(now_ms)
            .execute(&mut *store::db::write_conn(&self.pool, &self.writer).await?)
            .await?;
        }
        Ok(Some(row.session))
    }

    /// How many shared session reads (statements) this process has run:
    /// fewer than its polls when they came together (Postgres; SQLite
    /// reads each alone and counts none).
    pub fn shared_reads(&self) -> u64 {
        self.reads
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .statements
    }

    /// `sid`'s row, read by the next shared statement.
    async fn read_shared(&self, sid: &str) -> Result<Option<SessionRow>, sqlx::Error> {
        let (reply, answer) = oneshot::channel();
        let lead = {
            let mut reads = self.reads.lock().unwrap_or_else(|p| p.into_inner());
            reads.waiting.push((sid.to_string(), reply));
            !std::mem::replace(&mut reads.reading, true)
        };
        if lead {
            // A task of its own: a request dropped by its client cannot
            // leave the others waiting.
            tokio::spawn(read_waiting(self.hot.clone(), self.reads.clone()));
        }
        match answer.await {
            Ok(Ok(row)) => Ok(row),
            Ok(Err(error)) => Err(sqlx::Error::Io(std::io::Error::other(error))),
            Err(_) => Err(sqlx::Error::Io(std::io::Error::other(
                "the shared session read stopped",
            ))),
        }
    }

    /// Records who is logged in on the session (`None`: logged out).
    pub async fn set_login(
        &self,
        sid: &str,
        user_id: Option<&str>,
        token_hash: Option<&str>,
    ) -> Result<(), sqlx::Error> {
        sqlx::query("UPDATE swarm_poll_sessions SET user_id = $2, token_hash = $3 WHERE sid = $1")
            .bind(sid)
            .bind(user_id)
            .bind(token_hash)
            .execute(&mut *store::db::write_conn(&self.pool, &self.writer).await?)
            .await?;
        Ok(())
    }

    /// Live sessions logged in as `user_id`, other than `except`: long-poll
    /// sessions still polled and sockets on live processes (a stopped
    /// process's rows go with `crate::platform::nodes`), each only while the main API
    /// login it was made with is alive (a logout, an expiry or a password
    /// change elsewhere frees its place at once).
    pub async fn logged_in(
        &self,
        user_id: &str,
        except: &str,
        now_ms: i64,
    ) -> Result<i64, sqlx::Error> {
        sqlx::query_scalar(
            "SELECT (SELECT count(*) FROM swarm_poll_sessions p
                     JOIN sessions s ON s.token_hash = p.token_hash AND s.expires_ms > $4
                     WHERE p.user_id = $1 AND p.sid <> $2 AND p.last_seen_ms > $3)
                  + (SELECT count(*) FROM swarm_socket_logins l
                     JOIN sessions s ON s.token_hash = l.token_hash AND s.expires_ms > $4
                     WHERE l.user_id = $1 AND l.sid <> $2)",
        )
        .bind(user_id)
        .bind(except)
        .bind(now_ms - POLL_SESSION_TTL_MS)
        .bind(now_ms)
        .fetch_one(&self.pool)
        .await
    }

    /// Records who is logged in on a Swarm socket session that the process
    /// `node_id` holds, with the `sessions::token_hash` of its main API
    /// login; `None` forgets it (logout, socket closed).
    pub async fn socket_login(
        &self,
        sid: &str,
        login: Option<(&str, &str)>,
        node_id: &str,
    ) -> Result<(), sqlx::Error> {
        match login {
            Some((user_id, token_hash)) => {
                sqlx::query(
                    "INSERT INTO swarm_socket_logins (sid, user_id, node_id, token_hash)
                     VALUES ($1, $2, $3, $4)
                     ON CONFLICT (sid) DO UPDATE
                     SET user_id = excluded.user_id, token_hash = excluded.token_hash",
                )
                .bind(sid)
                .bind(user_id)
                .bind(node_id)
                .bind(token_hash)
                .execute(&mut *store::db::write_conn(&self.pool, &self.writer).await?)
                .await?
            }
            None => {
                sqlx::query("DELETE FROM swarm_socket_logins WHERE sid = $1")
                    .bind(sid)
                    .execute(&mut *store::db::write_conn(&self.pool, &self.writer).await?)
                    .await?
            }
        };
        Ok(())
    }

    /// Adds (or renews) a subscription; false when the session already
    /// holds `max` others.
    pub async fn subscribe(
        &self,
        sid: &str,
        subid: &str,
        params: &str,
        data: &str,
        max: usize,
    ) -> Result<bool, sqlx::Error> {
        let held: i64 = sqlx::query_scalar(
            "SELECT count(*) FROM swarm_poll_subs WHERE sid = $1 AND subid <> $2",
        )
        .bind(sid)
        .bind(subid)
        .fetch_one(&self.pool)
        .await?;
        if held >= max as i64 {
            return Ok(false);
        }
        sqlx::query(
            "INSERT INTO swarm_poll_subs (sid, subid, params, data) VALUES ($1, $2, $3, $4)
             ON CONFLICT (sid, subid) DO UPDATE SET params = $3, data = $4",
        )
        .bind(sid)
        .bind(subid)
        .bind(params)
        .bind(data)
        .execute(&mut *store::db::write_conn(&self.pool, &self.writer).await?)
        .await?;
        Ok(true)
    }

    pub async fn unsubscribe(&self, sid: &str, subid: &str) -> Result<bool, sqlx::Error> {
        let gone = sqlx::query("DELETE FROM swarm_poll_subs WHERE sid = $1 AND subid = $2")
            .bind(sid)
            .bind(subid)
            .execute(&mut *store::db::write_conn(&self.pool, &self.writer).await?)
            .await?;
        Ok(gone.rows_affected() > 0)
    }

    pub async fn subscriptions(&self, sid: &str) -> Result<Vec<PollSubscription>, sqlx::Error> {
        let rows = sqlx::query(
            "SELECT subid, params, data FROM swarm_poll_subs WHERE sid = $1 ORDER BY subid",
        )
        .bind(sid)
        .fetch_all(&self.pool)
        .await?;
        rows.iter()
            .map(|r| {
                Ok(PollSubscription {
                    subid: r.try_get("subid")?,
                    params: r.try_get("params")?,
                    data: r.try_get("data")?,
                })
            })
            .collect()
    }

    /// Replaces the delivered data of a subscription, only if it is still
    /// `was` (two polls of one session at once deliver a change once).
    pub async fn delivered(
        &self,
        sid: &str,
        subid: &str,
        was: &str,
        now: &str,
    ) -> Result<bool, sqlx::Error> {
        let done = sqlx::query(
            "UPDATE swarm_poll_subs SET data = $4 WHERE sid = $1 AND subid = $2 AND data = $3",
        )
        .bind(sid)
        .bind(subid)
        .bind(was)
        .bind(now)
        .execute(&mut *store::db::write_conn(&self.pool, &self.writer).await?)
        .await?;
        Ok(done.rows_affected() == 1)
    }

    pub async fn close(&self, sid: &str) -> Result<(), sqlx::Error> {
        sqlx::query("DELETE FROM swarm_poll_subs WHERE sid = $1")
            .bind(sid)
            .execute(&mut *store::db::write_conn(&self.pool, &self.writer).await?)
            .await?;
        sqlx::query("DELETE FROM swarm_poll_sessions WHERE sid = $1")
            .bind(sid)
            .execute(&mut *store::db::write_conn(&self.pool, &self.writer).await?)
            .await?;
        Ok(())
    }

    /// Drops the sessions nobody polled within the TTL; returns how many
    /// live ones remain.
    pub async fn sweep(&self, now_ms: i64) -> Result<i64, sqlx::Error> {
        let horizon = now_ms - POLL_SESSION_TTL_MS;
        sqlx::query(
            "DELETE FROM swarm_poll_subs WHERE sid IN
             (SELECT sid FROM swarm_poll_sessions WHERE last_seen_ms <= $1)",
        )
        .bind(horizon)
        .execute(&mut *store::db::write_conn(&self.pool, &self.writer).await?)
        .await?;
        sqlx::query("DELETE FROM swarm_poll_sessions WHERE last_seen_ms <= $1")
            .bind(horizon)
            .execute(&mut *store::db::write_conn(&self.pool, &self.writer).await?)
            .await?;
        sqlx::query_scalar("SELECT count(*) FROM swarm_poll_sessions")
            .fetch_one(&self.pool)
            .await
    }
}

/// Reads every waiting session, `READ_BATCH` a statement, until none waits.
async fn read_waiting(hot: Arc<store::db::Hot>, reads: Arc<Mutex<Reads>>) {
    /// Lets the next read lead if this task ends early (a panic); the
    /// replies it held are dropped, so their callers get an error.
    struct Done(Arc<Mutex<Reads>>);
    impl Drop for Done {
        fn drop(&mut self) {
            if std::thread::panicking() {
                self.0.lock().unwrap_or_else(|p| p.into_inner()).reading = false;
            }
        }
    }
    let done = Done(reads);
    loop {
        let batch: Vec<(String, ReadReply)> = {
            let mut reads = done.0.lock().unwrap_or_else(|p| p.into_inner());
            if reads.waiting.is_empty() {
                reads.reading = false;
                return;
            }
            let n = reads.waiting.len().min(READ_BATCH);
            reads.statements += 1;
            reads.waiting.drain(..n).collect()
        };
        let mut sids: Vec<&str> = batch.iter().map(|(sid, _)| sid.as_str()).collect();
        sids.sort_unstable();
        sids.dedup();
        let read = async {
            let mut conn = hot.acquire().await?;
            let rows = read_sessions(&mut conn, &sids).await?;
            conn.keep();
            Ok::<_, sqlx::Error>(rows)
        };
        match read.await {
            Ok(rows) => {
                for (sid, reply) in batch {
                    let _ = reply.send(Ok(rows.get(&sid).cloned()));
                }
            }
            Err(error) => {
                let error = error.to_string();
                for (_, reply) in batch {
                    let _ = reply.send(Err(error.clone()));
                }
            }
        }
    }
}

/// The rows of `sids` (at most `READ_BATCH`), by sid, with each login's
/// expiry; the `IN` list is padded to a power of two with the last sid.
async fn read_sessions(
    conn: &mut sqlx::AnyConnection,
    sids: &[&str],
) -> Result<HashMap<String, SessionRow>, sqlx::Error> {
    let Some(last) = sids.last() else {
        return Ok(HashMap::new());
    };
    let size = sids.len().next_power_of_two();
    let list: Vec<String> = (1..=size).map(|i| format!("${i}")).collect();
    let sql = format!(
        "SELECT p.sid, p.language, p.user_id, p.token_hash, p.last_seen_ms,
                s.expires_ms AS login_expires_ms
         FROM swarm_poll_sessions p LEFT JOIN sessions s ON s.token_hash = p.token_hash
         WHERE p.sid IN ({})",
        list.join(", ")
    );
    let mut query = sqlx::query(&sql);
    for i in 0..size {
        query = query.bind(*sids.get(i).unwrap_or(last));
    }
    let mut rows = HashMap::with_capacity(sids.len());
    for row in query.fetch_all(&mut *conn).await? {
        let session = PollSession {
            sid: row.try_get("sid")?,
            language: row.try_get("language")?,
            user_id: row.try_get("user_id")?,
            token_hash: row.try_get("token_hash")?,
            login_expires_ms: row.try_get("login_expires_ms")?,
        };
        let last_seen_ms = row.try_get("last_seen_ms")?;
        rows.insert(
            session.sid.clone(),
            SessionRow {
                session,
                last_seen_ms,
            },
        );
    }
    Ok(rows)
}
