//! Choosing and opening the store: `DATABASE_URL` unset means the embedded
//! SQLite file `data/betting.db`; `sqlite://PATH` another SQLite file;
//! `postgres://...` Postgres. Anything else is refused with a clear message.

use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::time::Duration;

use sqlx::any::AnyPoolOptions;
use sqlx::postgres::{PgConnectOptions, PgPoolOptions};
use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePoolOptions, SqliteSynchronous};
use sqlx::{AnyPool, PgPool, SqlitePool};

/// A few connections of a pool kept between the statements of a hot path
/// (a read on every request): sqlx pings every connection it takes back,
/// a round trip to the database after each use; a connection kept here
/// skips that. `keep` connections at most; one kept over
/// `PING_WHEN_IDLE` goes back to the pool (whose ping checks it) instead
/// of being used. A `HotConn` dropped without `keep()` (an error, a
/// cancelled request: the connection may hold an unread answer) goes back
/// to the pool the usual way. A kept connection counts against the pool's
/// size while it waits here.
pub struct Hot {
    pool: AnyPool,
    kept: std::sync::Mutex<Vec<(sqlx::pool::PoolConnection<sqlx::Any>, std::time::Instant)>>,
    keep: usize,
}

impl Hot {
    pub fn new(pool: AnyPool, keep: usize) -> Self {
        Hot {
            pool,
            kept: std::sync::Mutex::new(Vec::new()),
            keep,
        }
    }

    pub async fn acquire(&self) -> Result<HotConn<'_>, sqlx::Error> {
        loop {
            let popped = self.kept.lock().unwrap_or_else(|p| p.into_inner()).pop();
            match popped {
                Some((conn, since)) if since.elapsed() < PING_WHEN_IDLE => {
                    return Ok(HotConn {
                        conn: Some(conn),
                        home: self,
                    })
                }
                Some((stale, _)) => drop(stale),
                None => break,
            }
        }
        Ok(HotConn {
            conn: Some(self.pool.acquire().await?),
            home: self,
        })
    }

    /// How many connections are kept now.
    pub fn kept(&self) -> usize {
        self.kept.lock().unwrap_or_else(|p| p.into_inner()).len()
    }
}

/// A connection from `Hot::acquire`.
pub struct HotConn<'a> {
    conn: Option<sqlx::pool::PoolConnection<sqlx::Any>>,
    home: &'a Hot,
}

impl HotConn<'_> {
    /// The statement ran to its end: keep the connection for the next.
    pub fn keep(mut self) {
        if let Some(conn) = self.conn.take() {
            let mut kept = self.home.kept.lock().unwrap_or_else(|p| p.into_inner());
            if kept.len() < self.home.keep {
                kept.push((conn, std::time::Instant::now()));
            }
        }
    }
}

impl std::ops::Deref for HotConn<'_> {
    type Target = sqlx::AnyConnection;
    fn deref(&self) -> &sqlx::AnyConnection {
        self.conn.as_ref().expect("held until kept or dropped")
    }
}

impl std::ops::DerefMut for HotConn<'_> {
    fn deref_mut(&mut self) -> &mut sqlx::AnyConnection {
        self.conn.as_mut().expect("held until kept or dropped")
    }
}

/// The embedded store's file when `DATABASE_URL` is unset.
pub const DEFAULT_SQLITE_PATH: &str = "data/betting.db";

/// Every SQLite connection's settings beside the journal and sync modes:
/// statement journals (a multi-row insert's, an upsert's) in memory rather
/// than in temporary files, written with a system call a page; a page
/// cache of 32 MiB a connection (SQLite's default of 2 MiB re-read the
/// bet and movement indexes from the OS a batch); reads of the database
/// file through a memory map of up to 256 MiB (no read call a page).
const SQLITE_PRAGMAS: &[(&str, &str)] = &[
    ("temp_store", "MEMORY"),
    ("cache_size", "-32768"),
    ("mmap_size", "268435456"),
];

/// A pooled connection idle at least this long is pinged before it is
/// handed out (one round trip; a dead one is closed and another taken).
pub const PING_WHEN_IDLE: Duration = Duration::from_secs(1);

/// sqlx pings every connection it hands out by default: a round trip to the
/// database (and a wake of its backend) before each acquire's first
/// statement, on every request and every projection pass. Here only a
/// connection that sat idle for `PING_WHEN_IDLE` is checked; one in steady
/// use has just proved itself (a connection that dies in between fails its
/// next statement, which the caller sees as any lost connection).
fn pinged_when_idle<DB: sqlx::Database>(
    options: sqlx::pool::PoolOptions<DB>,
) -> sqlx::pool::PoolOptions<DB> {
    options
        .test_before_acquire(false)
        .before_acquire(|conn, meta| {
            Box::pin(async move {
                if meta.idle_for >= PING_WHEN_IDLE {
                    use sqlx::Connection;
                    conn.ping().await?;
                }
                Ok(true)
            })
        })
}

#[derive(Debug, thiserror::Error)]
pub enum DbError {
    #[error("unsupported DATABASE_URL '{0}': use nothing (embedded SQLite at data/betting.db), sqlite://PATH or postgres://USER@HOST:PORT/DB")]
    UnsupportedUrl(String),
    #[error("cannot open the database at {url}")]
    Unreachable {
        url: String,
        #[source]
        source: sqlx::Error,
    },
    #[error("cannot create the folder {0}: {1}")]
    Folder(PathBuf, std::io::Error),
    #[error("migrations failed: {0}")]
    Migrate(#[from] sqlx::migrate::MigrateError),
    #[error(transparent)]
    Sql(#[from] sqlx::Error),
}

/// Where the events live.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StoreKind {
    Sqlite,
    Postgres,
}

impl StoreKind {
    pub fn name(self) -> &'static str {
        match self {
            StoreKind::Sqlite => "sqlite",
            StoreKind::Postgres => "postgres",
        }
    }
}

/// A parsed `DATABASE_URL`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DbUrl {
    Sqlite(PathBuf),
    Postgres(String),
}

impl DbUrl {
    pub fn parse(url: Option<&str>) -> Result<Self, DbError> {
        let Some(url) = url.map(str::trim).filter(|u| !u.is_empty()) else {
            return Ok(DbUrl::Sqlite(PathBuf::from(DEFAULT_SQLITE_PATH)));
        };
        if url.starts_with("postgres://") || url.starts_with("postgresql://") {
            return Ok(DbUrl::Postgres(url.to_string()));
        }
        if let Some(path) = url
            .strip_prefix("sqlite://")
            .or(url.strip_prefix("sqlite:"))
        {
            if !path.is_empty() {
                return Ok(DbUrl::Sqlite(PathBuf::from(path)));
            }
        }
        Err(DbError::UnsupportedUrl(url.to_string()))
    }
}

/// The open store: the typed pool the event repositories need and an `Any`
/// pool over the same database for the read models, whose SQL is shared by
/// both stores.
#[derive(Clone, Debug)]
pub struct Db {
    pub pool: StorePool,
    pub any: AnyPool,
    /// Appends of concurrent commands share one transaction (shared by
    /// the clones of this `Db`).
    pub group: crate::group_commit::GroupCommit,
    /// Held by every clone: SQLite's background checkpointer stops when
    /// the last clone is dropped (or the pool is closed).
    _alive: std::sync::Arc<()>,
}

/// SQLite has one writer at a time. The writers of this process take
/// turns per database file ([`crate::writer`]: bets and the writes a
/// request waits for first, background passes after them); writers that
/// met in SQLite's busy handler instead slept in its back-off (1, 2, 5 ...
/// 100 ms a try) and lost to the group committer's back-to-back turns: a
/// stray write (an id block, a poll session's mark, a lease) waited up to
/// a second, and the bets behind it with it.
static SQLITE_WRITERS: std::sync::LazyLock<
    std::sync::Mutex<std::collections::HashMap<String, crate::group_commit::WriterLock>>,
> = std::sync::LazyLock::new(Default::default);

/// The writer turn of `pool`'s database: `Some` on SQLite (the one every
/// handle on that file in this process shares), `None` on Postgres.
pub fn sqlite_writer(pool: &AnyPool) -> Option<crate::group_commit::WriterLock> {
    let options = pool.connect_options();
    let url = options.database_url.as_str();
    if !url.starts_with("sqlite:") {
        return None;
    }
    let mut writers = SQLITE_WRITERS.lock().unwrap_or_else(|p| p.into_inner());
    Some(writers.entry(url.to_string()).or_default().clone())
}

/// Waits for `writer`'s turn (at once on Postgres, which has none), a
/// first turn: for a write a request waits for (an id block, a poll
/// session's mark, a snapshot) or a short one (a lease, a heartbeat). The
/// turn lasts as long as the guard. Take it around one write statement or
/// transaction, never around a call that takes it again.
pub async fn writer_turn(
    writer: &Option<crate::group_commit::WriterLock>,
) -> Option<crate::writer::Turn> {
    match writer {
        Some(lock) => Some(lock.first_turn().await),
        None => None,
    }
}

/// A background turn of `pool`'s database, for a process manager's pass:
/// it waits while bets go first (see [`crate::writer`]); held for
/// its transaction.
pub async fn turn_of(pool: &AnyPool) -> Option<crate::writer::Turn> {
    match sqlite_writer(pool) {
        Some(lock) => Some(lock.turn().await),
        None => None,
    }
}

/// A batch of a process manager's pass (the inbox, referral links, season
/// progress): its transaction, holding the pass's checkpoint row locked,
/// the events it acts on, and `upto`, where its checkpoint moves once they
/// are applied (past the events of other kinds it skipped). On SQLite
/// `turn` is the writer turn, taken after the events were read and
/// released after the transaction (fields drop in order: a batch dropped
/// on an error drops its transaction, and sqlx queues its rollback on the
/// connection, before its turn); commit with `batch.tx.commit()`.
pub struct PassBatch {
    pub tx: sqlx::Transaction<'static, sqlx::Any>,
    pub events: Vec<crate::stream::StoredEvent>,
    pub upto: crate::stream::Checkpoint,
    pub turn: Option<crate::writer::Turn>,
}

/// The next batch of a pass: up to `limit` events of its kinds (`only`)
/// after its checkpoint, read in the database (a pass never receives the
/// bets and wallet movements it does not act on); `None` when the stream
/// has nothing after the checkpoint. A batch may hold no events and still
/// move the checkpoint over what it skipped. On SQLite the window is read
/// before the writer turn (a snapshot read beside the writer), so the turn
/// covers the pass's own lookups and writes; when the checkpoint moved
/// meanwhile (the pass of another process on the file) it is read again
/// in the transaction. A pass with nothing new takes no turn. On Postgres
/// the window is read after the row lock (the runner's `lock_checkpoint`:
/// `FOR UPDATE`, an upsert for a new row).
pub async fn pass_batch(
    pool: &AnyPool,
    backend: crate::stream::Backend,
    name: &str,
    only: crate::stream::Only<'_>,
    limit: i64,
) -> Result<Option<PassBatch>, sqlx::Error> {
    use crate::stream;
    let early = match sqlite_writer(pool) {
        Some(_) => {
            let mut conn = pool.acquire().await?;
            let at = crate::checkpoint::read_checkpoint(&mut conn, name).await?;
            let window = stream::read_window_of(&mut conn, backend, at, only, limit).await?;
            if window.upto <= at {
                return Ok(None);
            }
            Some((at, window))
        }
        None => None,
    };
    let turn = turn_of(pool).await;
    let mut tx = pool.begin().await?;
    let after = crate::checkpoint::lock_checkpoint(&mut tx, name).await?;
    let window = match early {
        Some((at, window)) if at == after => window,
        _ => stream::read_window_of(&mut tx, backend, after, only, limit).await?,
    };
    if window.upto <= after {
        tx.rollback().await?;
        return Ok(None);
    }
    Ok(Some(PassBatch {
        tx,
        events: window.events,
        upto: window.upto,
        turn,
    }))
}

/// Where the pass `name` stands (the stream's start before its first batch).
pub async fn pass_checkpoint(
    conn: &mut sqlx::AnyConnection,
    name: &str,
) -> Result<crate::stream::Checkpoint, sqlx::Error> {
    crate::checkpoint::read_checkpoint(conn, name).await
}

/// A pooled connection to write through, taken after the writer turn
/// (SQLite) and holding it as long as it lives: use it as
/// `.execute(&mut *write_conn(&pool, &writer).await?)`, a temporary gone at
/// the statement's end.
pub struct WriteConn {
    conn: sqlx::pool::PoolConnection<sqlx::Any>,
    _turn: Option<crate::writer::Turn>,
}

impl std::ops::Deref for WriteConn {
    type Target = sqlx::AnyConnection;
    fn deref(&self) -> &Self::Target {
        &self.conn
    }
}

impl std::ops::DerefMut for WriteConn {
    fn deref_mut(&mut self) -> &mut Self::Target {
        &mut self.conn
    }
}

/// The turn first, then the connection: a writer waiting for its turn
/// holds none of the pool's connections.
pub async fn write_conn(
    pool: &AnyPool,
    writer: &Option<crate::group_commit::WriterLock>,
) -> Result<WriteConn, sqlx::Error> {
    let turn = writer_turn(writer).await;
    Ok(WriteConn {
        conn: pool.acquire().await?,
        _turn: turn,
    })
}

/// How often the WAL is copied into the database file (SQLite).
pub const CHECKPOINT_EVERY: Duration = Duration::from_millis(500);
/// A WAL that a passive checkpoint could not empty is restarted (in the
/// writer turn, once no reader uses it) past this many pages.
pub const WAL_RESTART_PAGES: i64 = 16_384;
/// How many times a restart is tried before it backs off, and the pause
/// between tries (out of the writer turn).
const RESTART_TRIES: u32 = 50;
const RESTART_GAP: Duration = Duration::from_millis(2);

/// Runs SQLite's WAL checkpoints beside the writer, on a connection of
/// its own (opened with `options`, never waiting in SQLite's busy
/// handler): a passive checkpoint every [`CHECKPOINT_EVERY`] copies what
/// no reader still needs into the file without taking the write lock;
/// when readers kept it from reaching the end and the WAL has grown past
/// [`WAL_RESTART_PAGES`], [`restart_wal`] starts the WAL over from its
/// beginning (if no moment without readers came, it backs off for ten
/// rounds). Stops when `alive` has no `Db` left or `pool` (the `Db`'s) is
/// closed.
pub fn checkpoint_in_background(
    options: SqliteConnectOptions,
    writer: Option<crate::group_commit::WriterLock>,
    pool: AnyPool,
    alive: std::sync::Weak<()>,
) {
    // SQLite's busy handler sleeps 1, 2, 5, 10 ... ms while a reader
    // finishes; in the writer turn those sleeps held every bet.
    let options = options.busy_timeout(Duration::ZERO);
    tokio::spawn(async move {
        use sqlx::ConnectOptions;
        let mut conn = None;
        let mut back_off = 0u32;
        loop {
            tokio::time::sleep(CHECKPOINT_EVERY).await;
            if alive.strong_count() == 0 || pool.is_closed() {
                return;
            }
            if conn.is_none() {
                match options.connect().await {
                    Ok(c) => conn = Some(c),
                    Err(e) => {
                        tracing::warn!(error = %e, "WAL checkpointer cannot connect");
                        continue;
                    }
                }
            }
            let c = conn.as_mut().expect("connected above");
            back_off = back_off.saturating_sub(1);
            match wal_checkpoint(c, "PASSIVE").await {
                Ok((_, log, done)) if log > WAL_RESTART_PAGES && done < log && back_off == 0 => {
                    match restart_wal(c, &writer).await {
                        Ok(true) => {}
                        Ok(false) => back_off = 10,
                        Err(e) => tracing::warn!(error = %e, "WAL restart failed"),
                    }
                }
                Ok(_) => {}
                Err(e) => {
                    tracing::warn!(error = %e, "WAL checkpoint failed");
                    conn = None;
                }
            }
        }
    });
}

/// Restarts the WAL: a `RESTART` checkpoint in the writer turn, on `conn`
/// (whose busy timeout is zero), tried up to [`RESTART_TRIES`] times with
/// [`RESTART_GAP`] between tries out of the turn; true once it went
/// through. The restart needs a moment when no reader uses the WAL: waiting
/// for one in SQLite's busy handler held the writer turn 20-67 ms every two
/// seconds at half of SQLite's peak, and every bet queued behind it.
pub async fn restart_wal(
    conn: &mut sqlx::SqliteConnection,
    writer: &Option<crate::group_commit::WriterLock>,
) -> Result<bool, sqlx::Error> {
    restart_wal_tries(conn, writer, RESTART_TRIES, RESTART_GAP).await
}

async fn restart_wal_tries(
    conn: &mut sqlx::SqliteConnection,
    writer: &Option<crate::group_commit::WriterLock>,
    tries: u32,
    gap: Duration,
) -> Result<bool, sqlx::Error> {
    for _ in 0..tries {
        // What can be copied now is copied (and synced) out of the turn.
        // A reader still on older pages stops that copy, and would stop
        // the restart too: no turn is taken for it (a restart copies
        // before it finds the reader, with the writer held).
        let (_, log, done) = wal_checkpoint(conn, "PASSIVE").await?;
        if done == log {
            let (busy, _, _) = {
                let _turn = writer_turn(writer).await;
                wal_checkpoint(conn, "RESTART").await?
            };
            if busy == 0 {
                return Ok(true);
            }
        }
        tokio::time::sleep(gap).await;
    }
    Ok(false)
}

/// `PRAGMA wal_checkpoint(mode)`: whether a reader or writer kept it from
/// finishing (1), the WAL's pages, and how many of them are now in the
/// database file.
async fn wal_checkpoint(
    conn: &mut sqlx::SqliteConnection,
    mode: &str,
) -> Result<(i64, i64, i64), sqlx::Error> {
    use sqlx::Row;
    let row = sqlx::query(&format!("PRAGMA wal_checkpoint({mode})"))
        .fetch_one(&mut *conn)
        .await?;
    Ok((row.try_get(0)?, row.try_get(1)?, row.try_get(2)?))
}

#[derive(Clone, Debug)]
pub enum StorePool {
    Postgres(PgPool),
    Sqlite(SqlitePool),
}

impl Db {
    /// The SQL dialect the global stream is read with.
    pub fn backend(&self) -> crate::stream::Backend {
        match self.kind() {
            StoreKind::Postgres => crate::stream::Backend::Postgres,
            StoreKind::Sqlite => crate::stream::Backend::Sqlite,
        }
    }

    pub fn kind(&self) -> StoreKind {
        match self.pool {
            StorePool::Postgres(_) => StoreKind::Postgres,
            StorePool::Sqlite(_) => StoreKind::Sqlite,
        }
    }

    /// Opens the store named by `url` (see the module docs).
    pub async fn connect(url: &DbUrl) -> Result<Db, DbError> {
        match url {
            DbUrl::Sqlite(path) => Self::open_sqlite(path).await,
            DbUrl::Postgres(url) => Self::open_postgres(url, None).await,
        }
    }

    async fn open_sqlite(path: &Path) -> Result<Db, DbError> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|e| DbError::Folder(dir.to_path_buf(), e))?;
        }
        let unreachable = |source| DbError::Unreachable {
            url: path.display().to_string(),
            source,
        };
        // FULL sync: a committed wallet movement survives a power cut.
        // No automatic checkpoints where a background task can run them:
        // the commit that crossed the WAL's limit ran the checkpoint
        // (copying the WAL into the file, with its fsync) while holding the
        // one writer, and every writer queued behind it;
        // `checkpoint_in_background` runs them beside the writer instead.
        let background = tokio::runtime::Handle::try_current().is_ok();
        let auto = if background { "0" } else { "1000" };
        let mut options = SqliteConnectOptions::new()
            .filename(path)
            .create_if_missing(true)
            .journal_mode(SqliteJournalMode::Wal)
            .synchronous(SqliteSynchronous::Full)
            .pragma("wal_autocheckpoint", auto)
            .busy_timeout(Duration::from_secs(30));
        for (pragma, value) in SQLITE_PRAGMAS {
            options = options.pragma(*pragma, *value);
        }
        let pool = pinged_when_idle(SqlitePoolOptions::new())
            .max_connections(8)
            .connect_with(options.clone())
            .await
            .map_err(unreachable)?;
        sqlx::any::install_default_drivers();
        let any = pinged_when_idle(AnyPoolOptions::new())
            .max_connections(4)
            .after_connect(move |conn, _| {
                Box::pin(async move {
                    use sqlx::Executor;
                    conn.execute(format!("PRAGMA wal_autocheckpoint = {auto}").as_str())
                        .await?;
                    for (pragma, value) in SQLITE_PRAGMAS {
                        conn.execute(format!("PRAGMA {pragma} = {value}").as_str())
                            .await?;
                    }
                    Ok(())
                })
            })
            .connect(&format!("sqlite://{}", path.display()))
            .await
            .map_err(unreachable)?;
        let alive = std::sync::Arc::new(());
        if background {
            // Its own connection (which never waits in the busy handler).
            checkpoint_in_background(
                options.clone(),
                sqlite_writer(&any),
                any.clone(),
                std::sync::Arc::downgrade(&alive),
            );
        }
        let writer = sqlite_writer(&any);
        let pool = StorePool::Sqlite(pool);
        Ok(Db {
            group: crate::group_commit::GroupCommit::new(pool.clone(), writer),
            pool,
            any,
            _alive: alive,
        })
    }

    /// Opens Postgres; `schema` puts every table of this handle in its own
    /// schema (tests run side by side that way).
    pub async fn open_postgres(url: &str, schema: Option<&str>) -> Result<Db, DbError> {
        let unreachable = |source| DbError::Unreachable {
            url: redact(url),
            source,
        };
        let mut options = PgConnectOptions::from_str(url).map_err(unreachable)?;
        // One direct connection first: its error says why (refused, auth,
        // no such database) where a pool would only report a timeout.
        use sqlx::Connection;
        sqlx::PgConnection::connect_with(&options)
            .await
            .map_err(unreachable)?
            .close()
            .await
            .map_err(unreachable)?;
        let mut any_url = url.to_string();
        if let Some(schema) = schema {
            options = options.options([("search_path", schema)]);
            let sep = if url.contains('?') { '&' } else { '?' };
            any_url = format!("{url}{sep}options=-csearch_path%3D{schema}");
        }
        let pool = pinged_when_idle(PgPoolOptions::new())
            .max_connections(32)
            .acquire_timeout(Duration::from_secs(10))
            .connect_with(options)
            .await
            .map_err(unreachable)?;
        sqlx::any::install_default_drivers();
        let any = pinged_when_idle(AnyPoolOptions::new())
            .max_connections(8)
            .acquire_timeout(Duration::from_secs(10))
            .connect(&any_url)
            .await
            .map_err(unreachable)?;
        let pool = StorePool::Postgres(pool);
        Ok(Db {
            group: crate::group_commit::GroupCommit::new(pool.clone(), None),
            pool,
            any,
            _alive: std::sync::Arc::new(()),
        })
    }

    /// Applies the migrations of this store (`api migrate`, and at start).
    pub async fn migrate(&self) -> Result<(), DbError> {
        match &self.pool {
            StorePool::Postgres(pool) => sqlx::migrate!("../migrations/postgres").run(pool).await?,
            StorePool::Sqlite(pool) => sqlx::migrate!("../migrations/sqlite").run(pool).await?,
        }
        Ok(())
    }

    pub async fn close(&self) {
        self.any.close().await;
        match &self.pool {
            StorePool::Postgres(p) => p.close().await,
            StorePool::Sqlite(p) => p.close().await,
        }
    }
}

/// A URL with its password hidden, for messages and logs.
pub fn redact(url: &str) -> String {
    match (url.find("://"), url.rfind('@')) {
        (Some(scheme), Some(at)) if at > scheme => {
            let userinfo = &url[scheme + 3..at];
            match userinfo.split_once(':') {
                Some((user, _)) => format!("{}{user}:***{}", &url[..scheme + 3], &url[at..]),
                None => url.to_string(),
            }
        }
        _ => url.to_string(),
    }
}

/// Declares each named `async fn(StoreKind)` as two tests, one per store:
/// `sqlite::name` and `postgres::name`.
#[macro_export]
macro_rules! on_both_stores {
    ($($name:ident),* $(,)?) => {
        mod sqlite {
            $(#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
            async fn $name() { super::$name($crate::StoreKind::Sqlite).await })*
        }
        mod postgres {
            $(#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
            async fn $name() { super::$name($crate::StoreKind::Postgres).await })*
        }
    };
}

/// Test support: a fresh store of each kind, isolated from every other test.
pub mod testing {
    use super::*;
    use std::cell::RefCell;

    /// What one test thread made: removed when the thread ends, whether the
    /// test passed or panicked (libtest runs each test on a thread of its
    /// own, and the test's runtime and pools are gone by then).
    #[derive(Default)]
    struct Made {
        schemas: Vec<String>,
        files: Vec<PathBuf>,
    }

    impl Drop for Made {
        fn drop(&mut self) {
            for path in self.files.drain(..) {
                for suffix in ["", "-wal", "-shm"] {
                    let mut name = path.clone().into_os_string();
                    name.push(suffix);
                    let _ = std::fs::remove_file(name);
                }
            }
            if self.schemas.is_empty() {
                return;
            }
            let schemas = std::mem::take(&mut self.schemas);
            // A thread of its own: this one is being torn down.
            let dropped = std::thread::spawn(move || drop_schemas(&schemas));
            let _ = dropped.join();
        }
    }

    fn drop_schemas(schemas: &[String]) {
        let Ok(runtime) = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
        else {
            return;
        };
        runtime.block_on(async {
            let Ok(admin) = PgPoolOptions::new()
                .max_connections(1)
                .acquire_timeout(Duration::from_secs(5))
                .connect(&postgres_url())
                .await
            else {
                return;
            };
            // A connection of the test that has not noticed its end yet may
            // hold a lock: give up after a while (scripts/test.sh sweeps).
            let _ = sqlx::query("SET lock_timeout = '5s'").execute(&admin).await;
            for schema in schemas {
                let _ = sqlx::query(&format!("DROP SCHEMA IF EXISTS {schema} CASCADE"))
                    .execute(&admin)
                    .await;
            }
            admin.close().await;
        });
    }

    thread_local! {
        static MADE: RefCell<Made> = RefCell::new(Made::default());
    }

    fn made(record: impl FnOnce(&mut Made)) {
        // During thread teardown there is nothing left to record into.
        let _ = MADE.try_with(|m| record(&mut m.borrow_mut()));
    }

    /// The Postgres tests use, unless `TEST_DATABASE_URL` says otherwise.
    pub fn postgres_url() -> String {
        std::env::var("TEST_DATABASE_URL")
            .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/test".to_string())
    }

    /// A migrated Postgres store in a new schema of its own.
    pub async fn fresh_postgres() -> Db {
        fresh_postgres_schema().await.0
    }

    /// Another connection pool on a schema `fresh_postgres_schema` made:
    /// a second process of the same deployment.
    pub async fn open_schema(schema: &str) -> Db {
        Db::open_postgres(&postgres_url(), Some(schema))
            .await
            .expect("open test schema")
    }

    /// As `fresh_postgres`, with the schema's name (to open it again).
    pub async fn fresh_postgres_schema() -> (Db, String) {
        let url = postgres_url();
        let schema = format!("t_{}", unique_suffix());
        let admin = PgPoolOptions::new()
            .max_connections(1)
            .connect(&url)
            .await
            .unwrap_or_else(|e| panic!("tests need Postgres at {url}: {e}"));
        sqlx::query(&format!("CREATE SCHEMA {schema}"))
            .execute(&admin)
            .await
            .expect("create test schema");
        admin.close().await;
        made(|m| m.schemas.push(schema.clone()));
        let db = Db::open_postgres(&url, Some(&schema))
            .await
            .expect("open test schema");
        db.migrate().await.expect("migrate test schema");
        (db, schema)
    }

    /// A migrated SQLite store in a new temporary file.
    pub async fn fresh_sqlite() -> Db {
        let path = std::env::temp_dir().join(format!("betting-test-{}.db", unique_suffix()));
        made(|m| m.files.push(path.clone()));
        let db = Db::connect(&DbUrl::Sqlite(path))
            .await
            .expect("open sqlite");
        db.migrate().await.expect("migrate sqlite");
        db
    }

    /// Two handles (pools) on one fresh store: two processes sharing it.
    pub async fn fresh_pair(kind: StoreKind) -> (Db, Db) {
        match kind {
            StoreKind::Postgres => {
                let (first, schema) = fresh_postgres_schema().await;
                let second = Db::open_postgres(&postgres_url(), Some(&schema))
                    .await
                    .expect("open test schema again");
                (first, second)
            }
            StoreKind::Sqlite => {
                let path =
                    std::env::temp_dir().join(format!("betting-test-{}.db", unique_suffix()));
                made(|m| m.files.push(path.clone()));
                let first = Db::connect(&DbUrl::Sqlite(path.clone()))
                    .await
                    .expect("open sqlite");
                first.migrate().await.expect("migrate sqlite");
                let second = Db::connect(&DbUrl::Sqlite(path))
                    .await
                    .expect("open sqlite again");
                (first, second)
            }
        }
    }

    pub async fn fresh(kind: StoreKind) -> Db {
        match kind {
            StoreKind::Postgres => fresh_postgres().await,
            StoreKind::Sqlite => fresh_sqlite().await,
        }
    }

    fn unique_suffix() -> String {
        use rand::Rng;
        let n: u64 = rand::rng().random();
        format!("{}_{n:016x}", std::process::id())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs `make` on a thread of its own, as libtest runs a test.
    fn on_a_test_thread<T: Send + 'static>(
        make: impl FnOnce() -> std::pin::Pin<Box<dyn std::future::Future<Output = T>>> + Send + 'static,
    ) -> T {
        std::thread::spawn(move || {
            tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap()
                .block_on(make())
        })
        .join()
        .unwrap()
    }

    #[test]
    fn a_tests_sqlite_file_is_removed_when_its_thread_ends() {
        let path = on_a_test_thread(|| {
            Box::pin(async {
                let db = testing::fresh_sqlite().await;
                let path: String =
                    sqlx::query_scalar("SELECT file FROM pragma_database_list WHERE name = 'main'")
                        .fetch_one(&db.any)
                        .await
                        .unwrap();
                assert!(Path::new(&path).exists());
                db.any.close().await;
                path
            })
        });
        assert!(!Path::new(&path).exists(), "{path} left behind");
    }

    /// A WAL restart waits for a moment without readers out of the writer
    /// turn: while a reader keeps a snapshot in the WAL the turn is free
    /// for bets between its tries (it used to wait in SQLite's busy
    /// handler holding the turn), it gives up after its tries, and once
    /// the reader is done it goes through.
    #[tokio::test]
    async fn a_wal_restart_waits_for_readers_out_of_the_writer_turn() {
        use sqlx::{ConnectOptions, Connection};
        let db = testing::fresh_sqlite().await;
        let writer = sqlite_writer(&db.any);
        let path: String =
            sqlx::query_scalar("SELECT file FROM pragma_database_list WHERE name = 'main'")
                .fetch_one(&db.any)
                .await
                .unwrap();
        sqlx::query("CREATE TABLE filler (x TEXT)")
            .execute(&db.any)
            .await
            .unwrap();
        sqlx::query("INSERT INTO filler VALUES ('a')")
            .execute(&db.any)
            .await
            .unwrap();
        let mut reader = sqlx::SqliteConnection::connect(&format!("sqlite://{path}"))
            .await
            .unwrap();
        let mut snapshot = reader.begin().await.unwrap();
        let _: i64 = sqlx::query_scalar("SELECT count(*) FROM filler")
            .fetch_one(&mut *snapshot)
            .await
            .unwrap();
        // A commit after the snapshot: the reader holds pages of the WAL
        // the restart would have to wait for, whichever way it reads.
        sqlx::query("INSERT INTO filler VALUES ('b')")
            .execute(&db.any)
            .await
            .unwrap();
        let mut conn = SqliteConnectOptions::new()
            .filename(&path)
            .busy_timeout(Duration::ZERO)
            .connect()
            .await
            .unwrap();
        let restart = tokio::spawn({
            let writer = writer.clone();
            async move {
                // Five tries, 100 ms apart: half a second of trying.
                let done = restart_wal_tries(&mut conn, &writer, 5, Duration::from_millis(100))
                    .await
                    .unwrap();
                (done, conn)
            }
        });
        for _ in 0..5 {
            let turn = tokio::time::timeout(Duration::from_secs(2), writer_turn(&writer))
                .await
                .expect("the turn is free between the restart's tries");
            drop(turn);
            tokio::time::sleep(Duration::from_millis(3)).await;
        }
        assert!(
            !restart.is_finished(),
            "the turn was taken while the restart was still trying"
        );
        let (done, mut conn) = restart.await.unwrap();
        assert!(!done, "no moment without the reader");
        snapshot.commit().await.unwrap();
        assert!(
            restart_wal(&mut conn, &writer).await.unwrap(),
            "the restart goes through once the reader is done"
        );
    }

    /// A commit never runs SQLite's checkpoint (it held the one writer
    /// while it copied the WAL into the file): automatic checkpoints are
    /// off on every connection, and the background task copies committed
    /// pages into the file.
    #[tokio::test]
    async fn sqlite_commits_never_run_the_checkpoint_a_background_task_does() {
        let db = testing::fresh_sqlite().await;
        let auto: i64 = sqlx::query_scalar("PRAGMA wal_autocheckpoint")
            .fetch_one(&db.any)
            .await
            .unwrap();
        assert_eq!(auto, 0, "read-model connections");
        let StorePool::Sqlite(events) = &db.pool else {
            unreachable!()
        };
        let auto: i64 = sqlx::query_scalar("PRAGMA wal_autocheckpoint")
            .fetch_one(events)
            .await
            .unwrap();
        assert_eq!(auto, 0, "event store connections");
        let path: String =
            sqlx::query_scalar("SELECT file FROM pragma_database_list WHERE name = 'main'")
                .fetch_one(&db.any)
                .await
                .unwrap();
        let before = std::fs::metadata(&path).unwrap().len();
        sqlx::query("CREATE TABLE filler (x TEXT)")
            .execute(&db.any)
            .await
            .unwrap();
        // About 5 MB, past the 1,000 pages at which a commit used to
        // checkpoint.
        sqlx::query(
            "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 5000)
             INSERT INTO filler SELECT hex(randomblob(512)) FROM n",
        )
        .execute(&db.any)
        .await
        .unwrap();
        let mut grown = 0;
        for _ in 0..40 {
            grown = std::fs::metadata(&path).unwrap().len() - before;
            if grown >= 4_000_000 {
                break;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        assert!(
            grown >= 4_000_000,
            "the database file grew by {grown} bytes only"
        );
        db.close().await;
    }

    #[test]
    fn a_tests_postgres_schema_is_dropped_when_its_thread_ends() {
        let schema = on_a_test_thread(|| {
            Box::pin(async {
                let (db, schema) = testing::fresh_postgres_schema().await;
                db.any.close().await;
                schema
            })
        });
        let left: i64 = on_a_test_thread(move || {
            Box::pin(async move {
                let admin = PgPoolOptions::new()
                    .connect(&testing::postgres_url())
                    .await
                    .unwrap();
                sqlx::query_scalar("SELECT count(*) FROM pg_namespace WHERE nspname = $1")
                    .bind(schema)
                    .fetch_one(&admin)
                    .await
                    .unwrap()
            })
        });
        assert_eq!(left, 0, "the test schema was left behind");
    }

    #[test]
    fn an_unset_url_means_the_embedded_file() {
        assert_eq!(
            DbUrl::parse(None).unwrap(),
            DbUrl::Sqlite(PathBuf::from("data/betting.db"))
        );
        assert_eq!(
            DbUrl::parse(Some("")).unwrap(),
            DbUrl::Sqlite(PathBuf::from("data/betting.db"))
        );
    }

    #[test]
    fn postgres_and_sqlite_urls_are_accepted() {
        assert!(matches!(
            DbUrl::parse(Some("postgres://u@h/db")),
            Ok(DbUrl::Postgres(_))
        ));
        assert_eq!(
            DbUrl::parse(Some("sqlite:///tmp/x.db")).unwrap(),
            DbUrl::Sqlite(PathBuf::from("/tmp/x.db"))
        );
    }

    #[test]
    fn an_unknown_scheme_is_a_clear_error() {
        let err = DbUrl::parse(Some("mysql://root@localhost/db")).unwrap_err();
        let text = err.to_string();
        assert!(text.contains("mysql://root@localhost/db"), "{text}");
        assert!(text.contains("postgres://"), "{text}");
    }

    #[test]
    fn passwords_are_hidden_in_messages() {
        assert_eq!(
            redact("postgres://u:secret@h:5432/db"),
            "postgres://u:***@h:5432/db"
        );
        assert_eq!(redact("postgres://u@h/db"), "postgres://u@h/db");
    }
}
