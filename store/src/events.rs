//! Our `EventStore`: postgres-es / sqlite-es repositories for reading and
//! appending events, plus snapshots and an aggregate cache done right.
//!
//! cqrs-es 0.5.0's `PersistedEventStore` applies each new event twice when it
//! snapshots: `EventSink::write` already applied it to the context's
//! aggregate during `handle`, then `update_snapshot_with_events` applies it
//! again before serialising. Here the context's aggregate (events applied
//! exactly once) is what gets snapshotted and cached.
//!
//! Loading is "cached or snapshotted state + the events after it", so a
//! stale cache (another process appended) only means reading more events.

use std::collections::HashMap;
use std::sync::Mutex;

use cqrs_es::persist::{
    EventUpcaster, PersistedEventRepository, PersistenceError, SerializedEvent,
};
use cqrs_es::{Aggregate, AggregateContext, AggregateError, EventEnvelope, EventStore};
use postgres_es::PostgresEventRepository;
use sqlite_es::SqliteEventRepository;

use crate::db::{Db, StorePool};

/// How a store keeps aggregates quick to load.
#[derive(Debug, Clone, Copy)]
pub struct StoreOptions {
    /// Write a snapshot every this many events (`None`: never).
    pub snapshot_every: Option<usize>,
    /// Keep up to this many aggregates in memory (0: no cache).
    pub cache_capacity: usize,
    /// Decide commands on the cached aggregate without reading newer
    /// events. Safe only where a decision that writes nothing is right
    /// whatever another process appended meanwhile (the wallet: such a
    /// decision is a repeated reference, and references only accumulate);
    /// a decision that writes collides on its sequence and is retried.
    pub trust_cache: bool,
}

impl Default for StoreOptions {
    fn default() -> Self {
        Self {
            snapshot_every: Some(200),
            cache_capacity: 100_000,
            trust_cache: false,
        }
    }
}

enum Repo {
    Postgres(PostgresEventRepository),
    Sqlite(SqliteEventRepository),
}

impl Repo {
    async fn events_after<A: Aggregate>(
        &self,
        id: &str,
        sequence: usize,
    ) -> Result<Vec<SerializedEvent>, PersistenceError> {
        match self {
            Repo::Postgres(r) => r.get_last_events::<A>(id, sequence).await,
            Repo::Sqlite(r) => r.get_last_events::<A>(id, sequence).await,
        }
    }

    async fn snapshot<A: Aggregate>(
        &self,
        id: &str,
    ) -> Result<Option<cqrs_es::persist::SerializedSnapshot>, PersistenceError> {
        match self {
            Repo::Postgres(r) => r.get_snapshot::<A>(id).await,
            Repo::Sqlite(r) => r.get_snapshot::<A>(id).await,
        }
    }
}

/// An aggregate as loaded: its state, the last sequence applied and the last
/// snapshot written.
#[derive(Clone)]
pub struct Loaded<A> {
    pub aggregate_id: String,
    pub aggregate: A,
    pub sequence: usize,
    snapshot_number: usize,
    snapshot_sequence: usize,
}

impl<A: Aggregate> AggregateContext<A> for Loaded<A> {
    fn aggregate(&mut self) -> &mut A {
        &mut self.aggregate
    }
}

/// Cheap to clone: clones share the repositories and the cache.
pub struct Store<A: Aggregate> {
    inner: std::sync::Arc<Inner<A>>,
}

impl<A: Aggregate> Clone for Store<A> {
    fn clone(&self) -> Self {
        Self {
            inner: self.inner.clone(),
        }
    }
}

impl<A: Aggregate> std::ops::Deref for Store<A> {
    type Target = Inner<A>;

    fn deref(&self) -> &Inner<A> {
        &self.inner
    }
}

pub struct Inner<A: Aggregate> {
    repo: Repo,
    pool: StorePool,
    group: crate::group_commit::GroupCommit,
    options: StoreOptions,
    /// Boxed: growing the map moves pointers, not aggregates.
    cache: Mutex<HashMap<String, Box<Loaded<A>>>>,
    upcasters: Vec<Box<dyn EventUpcaster>>,
}

impl<A: Aggregate + Clone> Store<A> {
    pub fn new(db: &Db, options: StoreOptions) -> Self {
        Self::with_upcasters(db, options, Vec::new())
    }

    /// Event-schema changes: upcasters turn old payloads into current ones.
    pub fn with_upcasters(
        db: &Db,
        options: StoreOptions,
        upcasters: Vec<Box<dyn EventUpcaster>>,
    ) -> Self {
        let repo = match &db.pool {
            StorePool::Postgres(p) => Repo::Postgres(PostgresEventRepository::new(p.clone())),
            StorePool::Sqlite(p) => Repo::Sqlite(SqliteEventRepository::new(p.clone())),
        };
        let inner = Inner {
            repo,
            pool: db.pool.clone(),
            group: db.group.clone(),
            options,
            cache: Mutex::new(HashMap::new()),
            upcasters,
        };
        Self {
            inner: std::sync::Arc::new(inner),
        }
    }

    /// The committer that appends this store's transactions together with
    /// the other commands' (see [`crate::group_commit`]).
    pub fn group(&self) -> &crate::group_commit::GroupCommit {
        &self.group
    }

    /// Drops the in-memory copies (tests use it to force a load from the store).
    pub fn clear_cache(&self) {
        self.cache_lock().clear();
    }

    fn cache_lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Box<Loaded<A>>>> {
        self.cache.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Whether commands decide on the cached aggregate as it is
    /// ([`StoreOptions::trust_cache`]).
    pub fn trusts_cache(&self) -> bool {
        self.options.trust_cache
    }

    /// A new aggregate `id`, read from nowhere (an id just handed out).
    pub fn fresh(&self, id: &str) -> Result<Loaded<A>, AggregateError<A::Error>> {
        Ok(Loaded {
            aggregate_id: id.to_string(),
            aggregate: A::default(),
            sequence: 0,
            snapshot_number: 0,
            snapshot_sequence: 0,
        })
    }

    /// Whether this process holds `id` in its cache.
    pub fn is_cached(&self, id: &str) -> bool {
        self.cache_lock().contains_key(id)
    }

    fn cached(&self, id: &str) -> Option<Loaded<A>> {
        self.cache_lock().get(id).map(|loaded| (**loaded).clone())
    }

    fn remember(&self, loaded: Loaded<A>) {
        if self.options.cache_capacity == 0 {
            return;
        }
        let mut cache = self.cache_lock();
        let full =
            cache.len() >= self.options.cache_capacity && !cache.contains_key(&loaded.aggregate_id);
        // Crude but bounded: drop everything, the store is the truth.
        let dropped = full.then(|| std::mem::take(&mut *cache));
        let replaced = cache.insert(loaded.aggregate_id.clone(), Box::new(loaded));
        drop(cache);
        // What goes is freed after the lock, so other commands do not wait
        // for it: the state replaced (a wallet's shared maps), or a full
        // cache (up to `cache_capacity` aggregates).
        drop(replaced);
        drop(dropped);
    }

    fn forget(&self, id: &str) {
        self.cache_lock().remove(id);
    }

    async fn load_snapshot(&self, id: &str) -> Result<Loaded<A>, AggregateError<A::Error>> {
        let mut loaded = Loaded {
            aggregate_id: id.to_string(),
            aggregate: A::default(),
            sequence: 0,
            snapshot_number: 0,
            snapshot_sequence: 0,
        };
        if self.options.snapshot_every.is_none() {
            return Ok(loaded);
        }
        if let Some(snapshot) = self.repo.snapshot::<A>(id).await? {
            // An unreadable snapshot (an old shape) is ignored: replay instead.
            match serde_json::from_value(snapshot.aggregate) {
                Ok(aggregate) => {
                    loaded.aggregate = aggregate;
                    loaded.sequence = snapshot.current_sequence;
                    loaded.snapshot_sequence = snapshot.current_sequence;
                }
                Err(e) => {
                    tracing::warn!(aggregate_id = id, error = %e, "ignoring unreadable snapshot")
                }
            }
            loaded.snapshot_number = snapshot.current_snapshot;
        }
        Ok(loaded)
    }

    /// The aggregate as the store has it now: cached or snapshotted state
    /// plus every event after it (reads use this, never the bare cache).
    pub async fn load_current(
        &self,
        aggregate_id: &str,
    ) -> Result<Loaded<A>, AggregateError<A::Error>> {
        let mut loaded = match self.cached(aggregate_id) {
            Some(loaded) => loaded,
            None => self.load_snapshot(aggregate_id).await?,
        };
        let newer = self
            .repo
            .events_after::<A>(aggregate_id, loaded.sequence)
            .await
            .map_err(to_aggregate_error)?;
        for event in newer {
            let envelope = self.decode(event).map_err(to_aggregate_error)?;
            loaded.sequence = envelope.sequence;
            loaded.aggregate.apply(envelope.payload);
        }
        Ok(loaded)
    }

    fn decode(&self, event: SerializedEvent) -> Result<EventEnvelope<A>, PersistenceError> {
        let event = self.upcasters.iter().fold(event, |event, upcaster| {
            if upcaster.can_upcast(&event.event_type, &event.event_version) {
                upcaster.upcast(event)
            } else {
                event
            }
        });
        EventEnvelope::try_from(event)
    }

    async fn write_snapshot(&self, loaded: &Loaded<A>) -> Result<(), sqlx::Error> {
        let payload = serde_json::to_string(&loaded.aggregate)
            .map_err(|e| sqlx::Error::Encode(Box::new(e)))?;
        let sql = |cast: &str| {
            format!(
                "INSERT INTO snapshots (aggregate_type, aggregate_id, last_sequence, current_snapshot, payload)
                 VALUES ($1, $2, $3, $4, $5{cast})
                 ON CONFLICT (aggregate_type, aggregate_id) DO UPDATE
                 SET last_sequence = excluded.last_sequence,
                     current_snapshot = excluded.current_snapshot,
                     payload = excluded.payload
                 WHERE snapshots.last_sequence < excluded.last_sequence"
            )
        };
        let (sequence, number) = (loaded.sequence as i64, loaded.snapshot_number as i64);
        match &self.pool {
            StorePool::Postgres(pool) => {
                sqlx::query(&sql("::json"))
                    .bind(A::TYPE)
                    .bind(&loaded.aggregate_id)
                    .bind(sequence)
                    .bind(number)
                    .bind(payload)
                    .execute(pool)
                    .await?;
            }
            StorePool::Sqlite(pool) => {
                let _turn = crate::db::writer_turn(&self.group.writer_lock()).await;
                sqlx::query(&sql(""))
                    .bind(A::TYPE)
                    .bind(&loaded.aggregate_id)
                    .bind(sequence)
                    .bind(number)
                    .bind(payload)
                    .execute(pool)
                    .await?;
            }
        }
        Ok(())
    }

    fn snapshot_due(&self, loaded: &Loaded<A>) -> bool {
        match self.options.snapshot_every {
            Some(every) if every > 0 => loaded.sequence / every > loaded.snapshot_sequence / every,
            _ => false,
        }
    }
}

/// Whether an append failed only because another writer got there first (or
/// the database asked us to try again): nothing was written, so the command
/// can be retried from a fresh load.
pub fn is_retryable(error: &PersistenceError) -> bool {
    match error {
        PersistenceError::OptimisticLockError => true,
        PersistenceError::UnknownError(e) | PersistenceError::ConnectionError(e) => e
            .downcast_ref::<sqlx::Error>()
            .and_then(|e| e.as_database_error())
            .and_then(|e| e.code())
            .is_some_and(|code| {
                // Postgres: unique violation, serialization failure, deadlock.
                // SQLite: primary key / unique constraint, busy, locked.
                matches!(
                    code.as_ref(),
                    "23505" | "40001" | "40P01" | "1555" | "2067" | "5" | "517" | "6"
                )
            }),
        PersistenceError::DeserializationError(_) => false,
    }
}

fn to_aggregate_error<E: std::error::Error>(error: PersistenceError) -> AggregateError<E> {
    if is_retryable(&error) {
        AggregateError::AggregateConflict
    } else {
        error.into()
    }
}

impl<A: Aggregate + Clone> EventStore<A> for Store<A> {
    type AC = Loaded<A>;

    async fn load_events(
        &self,
        aggregate_id: &str,
    ) -> Result<Vec<EventEnvelope<A>>, AggregateError<A::Error>> {
        let events = self
            .repo
            .events_after::<A>(aggregate_id, 0)
            .await
            .map_err(to_aggregate_error)?;
        events
            .into_iter()
            .map(|e| self.decode(e).map_err(to_aggregate_error))
            .collect()
    }

    /// For commands: a cached aggregate is used as it is. If another
    /// process appended meanwhile, the append of this command collides on
    /// its sequence number, the cache entry is dropped and the command is
    /// retried from the store, so a stale cache can never commit.
    async fn load_aggregate(
        &self,
        aggregate_id: &str,
    ) -> Result<Loaded<A>, AggregateError<A::Error>> {
        match self.cached(aggregate_id) {
            Some(loaded) if self.options.trust_cache => Ok(loaded),
            _ => self.load_current(aggregate_id).await,
        }
    }

    async fn commit(
        &self,
        events: Vec<A::Event>,
        mut loaded: Loaded<A>,
        metadata: HashMap<String, String>,
    ) -> Result<Vec<EventEnvelope<A>>, AggregateError<A::Error>> {
        if events.is_empty() {
            self.remember(loaded);
            return Ok(Vec::new());
        }
        let envelopes: Vec<EventEnvelope<A>> = events
            .into_iter()
            .zip(loaded.sequence + 1..)
            .map(|(payload, sequence)| EventEnvelope {
                aggregate_id: loaded.aggregate_id.clone(),
                sequence,
                payload,
                metadata: metadata.clone(),
            })
            .collect();
        let serialized = envelopes
            .iter()
            .map(EventRow::try_from)
            .collect::<Result<Vec<_>, _>>()
            .map_err(to_aggregate_error)?;
        if let Err(error) = self.group.append(serialized, None).await {
            self.forget(&loaded.aggregate_id);
            return Err(to_aggregate_error(error));
        }
        // `handle` applied the events to `loaded.aggregate` through the sink:
        // it is now exactly the state after the last new event.
        loaded.sequence += envelopes.len();
        if self.snapshot_due(&loaded) {
            loaded.snapshot_number += 1;
            match self.write_snapshot(&loaded).await {
                Ok(()) => loaded.snapshot_sequence = loaded.sequence,
                // A snapshot is only a shortcut; the events are committed.
                Err(e) => {
                    tracing::warn!(aggregate_id = %loaded.aggregate_id, error = %e, "snapshot not written")
                }
            }
        }
        self.remember(loaded);
        Ok(envelopes)
    }
}

/// Events decided on one aggregate, not yet committed: its part of a unit
/// of work (`crate::unit`).
#[derive(Clone)]
pub struct Decided<A: Aggregate> {
    loaded: Loaded<A>,
    envelopes: Vec<EventEnvelope<A>>,
}

impl<A: Aggregate> Decided<A> {
    /// Nothing decided yet on `loaded`.
    pub fn from_loaded(loaded: Loaded<A>) -> Self {
        Decided {
            loaded,
            envelopes: Vec::new(),
        }
    }

    pub(crate) fn aggregate_mut(&mut self) -> &mut A {
        &mut self.loaded.aggregate
    }

    /// Events decided so far.
    pub fn len(&self) -> usize {
        self.envelopes.len()
    }

    pub fn envelopes(&self) -> &[EventEnvelope<A>] {
        &self.envelopes
    }

    /// Adds events a command decided (already applied to the aggregate).
    pub(crate) fn push(&mut self, events: Vec<A::Event>, metadata: &HashMap<String, String>) {
        let next = self.loaded.sequence + self.envelopes.len() + 1;
        for (payload, sequence) in events.into_iter().zip(next..) {
            self.envelopes.push(EventEnvelope {
                aggregate_id: self.loaded.aggregate_id.clone(),
                sequence,
                payload,
                metadata: metadata.clone(),
            });
        }
    }

    /// The aggregate as it will be once the events commit.
    pub fn aggregate(&self) -> &A {
        &self.loaded.aggregate
    }

    pub fn events(&self) -> impl Iterator<Item = &A::Event> {
        self.envelopes.iter().map(|e| &e.payload)
    }

    pub fn is_empty(&self) -> bool {
        self.envelopes.is_empty()
    }

    pub(crate) fn serialized(&self) -> Result<Vec<EventRow>, PersistenceError> {
        self.envelopes.iter().map(EventRow::try_from).collect()
    }
}

impl<A: Aggregate + Clone> Store<A> {
    /// After the transaction that held `decided` committed: the cache and
    /// snapshots catch up. Returns the committed envelopes.
    pub async fn committed(&self, decided: Decided<A>) -> Vec<EventEnvelope<A>> {
        let Decided {
            mut loaded,
            envelopes,
        } = decided;
        loaded.sequence += envelopes.len();
        if !envelopes.is_empty() && self.snapshot_due(&loaded) {
            loaded.snapshot_number += 1;
            match self.write_snapshot(&loaded).await {
                Ok(()) => loaded.snapshot_sequence = loaded.sequence,
                Err(e) => {
                    tracing::warn!(aggregate_id = %loaded.aggregate_id, error = %e, "snapshot not written")
                }
            }
        }
        self.remember(loaded);
        envelopes
    }

    /// After the transaction that held `decided` failed: the cached copy
    /// may be stale, so the next command reads the store.
    pub fn abandoned(&self, aggregate_id: &str) {
        self.forget(aggregate_id);
    }
}

/// An event as its `events` row stores it, payload and metadata as JSON
/// text. cqrs-es's `SerializedEvent` holds them as `serde_json::Value`
/// trees, which an append then printed: serialising straight to text
/// builds no tree (the payload's keys come in the event type's field
/// order; readers parse it, the seal covers the text as stored).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EventRow {
    pub aggregate_type: String,
    pub aggregate_id: String,
    pub sequence: usize,
    pub event_type: String,
    pub event_version: String,
    pub payload: String,
    pub metadata: String,
}

impl<A: Aggregate> TryFrom<&EventEnvelope<A>> for EventRow {
    type Error = PersistenceError;

    fn try_from(envelope: &EventEnvelope<A>) -> Result<Self, Self::Error> {
        use cqrs_es::DomainEvent;
        let payload = serde_json::to_string(&envelope.payload)?;
        // Keys in order, as the JSON tree printed them (most metadata is
        // empty: "{}").
        let metadata = if envelope.metadata.is_empty() {
            "{}".to_string()
        } else {
            let sorted: std::collections::BTreeMap<_, _> = envelope.metadata.iter().collect();
            serde_json::to_string(&sorted)?
        };
        Ok(EventRow {
            aggregate_type: A::TYPE.to_string(),
            aggregate_id: envelope.aggregate_id.clone(),
            sequence: envelope.sequence,
            event_type: envelope.payload.event_type(),
            event_version: envelope.payload.event_version(),
            payload,
            metadata,
        })
    }
}

/// A request id claimed in the same transaction as the events it caused
/// (table `request_claims`): the first outcome of a request that may come
/// again.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Claim {
    /// Whose request ids these are, e.g. `do_bet:{member id}`.
    pub scope: String,
    pub request_id: String,
    /// What a repeat answers, e.g. the bet id.
    pub answer: String,
}

/// What [`append_claiming`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Appended {
    /// The events (and the claim) committed.
    Done,
    /// The request id was claimed already: nothing was written.
    Claimed,
    /// The extra statement of this index expected to change a number of
    /// rows and changed another: nothing was written.
    Unmet(usize),
}

/// A value bound to an [`Extra`] statement.
#[derive(Debug, Clone, PartialEq)]
pub enum Bind {
    Text(String),
    Int(i64),
    Null,
}

/// A statement that commits with a unit of work's events, in the same
/// transaction (a row of a table the command owns: an order's state, a
/// counter). Its SQL numbers parameters `$1, $2, ...` and casts JSON text
/// itself where Postgres needs it.
#[derive(Debug, Clone, PartialEq)]
pub struct Extra {
    pub sql: String,
    pub binds: Vec<Bind>,
    /// Rows it must change, or nothing of the unit commits
    /// ([`Appended::Unmet`]): a guard such as "still reserved".
    pub expect_rows: Option<u64>,
}

impl Extra {
    pub fn new(sql: impl Into<String>) -> Self {
        Extra {
            sql: sql.into(),
            binds: Vec::new(),
            expect_rows: None,
        }
    }

    pub fn text(mut self, value: impl Into<String>) -> Self {
        self.binds.push(Bind::Text(value.into()));
        self
    }

    pub fn int(mut self, value: i64) -> Self {
        self.binds.push(Bind::Int(value));
        self
    }

    pub fn opt_text(mut self, value: Option<impl Into<String>>) -> Self {
        self.binds
            .push(value.map_or(Bind::Null, |v| Bind::Text(v.into())));
        self
    }

    /// The statement must change exactly `rows` rows.
    pub fn expect(mut self, rows: u64) -> Self {
        self.expect_rows = Some(rows);
        self
    }

    fn bound<'q, DB>(
        &'q self,
        mut query: sqlx::query::Query<'q, DB, <DB as sqlx::Database>::Arguments<'q>>,
    ) -> sqlx::query::Query<'q, DB, <DB as sqlx::Database>::Arguments<'q>>
    where
        DB: sqlx::Database,
        &'q str: sqlx::Encode<'q, DB> + sqlx::Type<DB>,
        i64: sqlx::Encode<'q, DB> + sqlx::Type<DB>,
        Option<&'q str>: sqlx::Encode<'q, DB> + sqlx::Type<DB>,
    {
        for bind in &self.binds {
            query = match bind {
                Bind::Text(v) => query.bind(v.as_str()),
                Bind::Int(v) => query.bind(*v),
                Bind::Null => query.bind(None::<&str>),
            };
        }
        query
    }
}

/// Rows already serialised, with their claim and extra statements, in a
/// transaction of their own (the group committer's path for a group of one,
/// for a unit with extra statements, and for each append of a group that
/// failed).
pub async fn append_rows_alone(
    pool: &StorePool,
    rows: &[EventRow],
    claim: Option<&Claim>,
    extras: &[Extra],
) -> Result<Appended, PersistenceError> {
    if rows.is_empty() && claim.is_none() && extras.is_empty() {
        return Ok(Appended::Done);
    }
    let mut sql = String::from(
        "INSERT INTO events (aggregate_type, aggregate_id, sequence, event_type, event_version, payload, metadata) VALUES ",
    );
    let cast = match pool {
        StorePool::Postgres(_) => "::json",
        StorePool::Sqlite(_) => "",
    };
    for i in 0..rows.len() {
        let b = i * 7;
        if i > 0 {
            sql.push_str(", ");
        }
        match pool {
            StorePool::Postgres(_) => sql.push_str(&format!(
                "(${}, ${}, ${}, ${}, ${}, ${}{cast}, ${}{cast})",
                b + 1,
                b + 2,
                b + 3,
                b + 4,
                b + 5,
                b + 6,
                b + 7
            )),
            // Bare markers: SQLite looks `$N` up by name (`crate::marks`).
            StorePool::Sqlite(_) => sql.push_str("(?, ?, ?, ?, ?, ?, ?)"),
        }
    }
    let unknown = |e: sqlx::Error| PersistenceError::UnknownError(Box::new(e));
    let archives = archives(rows.iter());
    macro_rules! insert {
        ($executor:expr) => {{
            if !rows.is_empty() {
                let mut query = sqlx::query(&sql);
                for row in rows {
                    query = query
                        .bind(row.aggregate_type.as_str())
                        .bind(row.aggregate_id.as_str())
                        .bind(row.sequence as i64)
                        .bind(row.event_type.as_str())
                        .bind(row.event_version.as_str())
                        .bind(row.payload.as_str())
                        .bind(row.metadata.as_str());
                }
                query.execute($executor).await.map_err(unknown)?;
            }
        }};
    }
    // The claim goes first: a concurrent claimer of the same id waits for
    // this transaction, then finds the row and writes nothing. A wallet
    // generation archived by these events goes in the same transaction.
    macro_rules! run {
        ($pool:expr) => {{
            if claim.is_none() && archives.is_empty() && extras.is_empty() {
                insert!($pool);
            } else {
                let mut tx = $pool.begin().await.map_err(unknown)?;
                if let Some(claim) = claim {
                    let claimed = sqlx::query(
                        "INSERT INTO request_claims (scope, request_id, answer) VALUES ($1, $2, $3) ON CONFLICT (scope, request_id) DO NOTHING",
                    )
                    .bind(&claim.scope)
                    .bind(&claim.request_id)
                    .bind(&claim.answer)
                    .execute(&mut *tx)
                    .await
                    .map_err(unknown)?
                    .rows_affected();
                    if claimed == 0 {
                        tx.rollback().await.map_err(unknown)?;
                        return Ok(Appended::Claimed);
                    }
                }
                // Extra statements before the events: a guard that finds
                // the work done already (a row keyed by what must happen
                // once) ends the unit before its events collide.
                for (index, extra) in extras.iter().enumerate() {
                    let affected = extra
                        .bound(sqlx::query(&extra.sql))
                        .execute(&mut *tx)
                        .await
                        .map_err(unknown)?
                        .rows_affected();
                    if extra.expect_rows.is_some_and(|n| n != affected) {
                        tx.rollback().await.map_err(unknown)?;
                        return Ok(Appended::Unmet(index));
                    }
                }
                insert!(&mut *tx);
                for (wallet, first, last) in &archives {
                    sqlx::query(archive_sql(matches!(pool, StorePool::Sqlite(_))))
                        .bind(*wallet)
                        .bind(*first)
                        .bind(*last)
                        .execute(&mut *tx)
                        .await
                        .map_err(unknown)?;
                }
                tx.commit().await.map_err(unknown)?;
            }
        }};
    }
    match pool {
        StorePool::Postgres(pool) => run!(pool),
        StorePool::Sqlite(pool) => run!(pool),
    }
    Ok(Appended::Done)
}

/// The generations of wallet references the appends of `rows` archive:
/// (wallet id, first sequence, last sequence), for each wallet event that
/// starts a generation (`domain::wallet::archived_by`). Table
/// `wallet_references` is the wallets' reference book
/// (`domain::wallet::ReferenceBook`): the references of a generation go in
/// it in the transaction that makes the wallet forget them, read from the
/// wallet's stored events by key.
pub(crate) fn archives<'a>(rows: impl Iterator<Item = &'a EventRow>) -> Vec<(&'a str, i64, i64)> {
    use domain::wallet::{archived_by, Wallet};
    rows.filter(|row| row.aggregate_type == Wallet::TYPE)
        .filter_map(|row| {
            let (first, last) = archived_by(row.sequence as u64)?;
            Some((row.aggregate_id.as_str(), first as i64, last as i64))
        })
        .collect()
}

/// Copies the references of one wallet's events `$2 ..= $3` into the
/// reference book (a reference recorded before keeps its first outcome);
/// an event's `taken_as` is a reference too.
pub(crate) fn archive_sql(sqlite: bool) -> &'static str {
    if sqlite {
        "INSERT OR IGNORE INTO wallet_references (wallet_id, reference, outcome)
         SELECT e.aggregate_id, r.value, COALESCE(max(json_extract(v.value, '$.code')), 0)
         FROM events e, json_each(e.payload) v,
              json_each(json_array(json_extract(v.value, '$.reference'), json_extract(v.value, '$.taken_as'))) r
         WHERE e.aggregate_type = 'Wallet' AND e.aggregate_id = ? AND e.sequence BETWEEN ? AND ?
           AND r.value IS NOT NULL
         GROUP BY e.aggregate_id, r.value"
    } else {
        "INSERT INTO wallet_references (wallet_id, reference, outcome)
         SELECT e.aggregate_id, r.reference, COALESCE(max((v.value ->> 'code')::integer), 0)
         FROM events e CROSS JOIN LATERAL json_each(e.payload) v
         CROSS JOIN LATERAL (VALUES (v.value ->> 'reference'), (v.value ->> 'taken_as')) r(reference)
         WHERE e.aggregate_type = 'Wallet' AND e.aggregate_id = $1 AND e.sequence BETWEEN $2 AND $3
           AND r.reference IS NOT NULL
         GROUP BY e.aggregate_id, r.reference
         ON CONFLICT (wallet_id, reference) DO NOTHING"
    }
}

/// Inserts `rows` inside a caller's transaction: for the process
/// managers whose pass commits its events with its checkpoint and tracking
/// rows in one transaction of their own (the season progress pass, the
/// referral link pass). Everything else commits through the unit of work.
pub async fn insert_rows_in(
    conn: &mut sqlx::AnyConnection,
    rows: &[EventRow],
) -> Result<(), sqlx::Error> {
    let postgres = conn.backend_name() == "PostgreSQL";
    let cast = if postgres { "::json" } else { "" };
    let sql = format!(
        "INSERT INTO events (aggregate_type, aggregate_id, sequence, event_type, event_version, payload, metadata) VALUES ($1, $2, $3, $4, $5, $6{cast}, $7{cast})"
    );
    for row in rows {
        sqlx::query(&sql)
            .bind(row.aggregate_type.as_str())
            .bind(row.aggregate_id.as_str())
            .bind(row.sequence as i64)
            .bind(row.event_type.as_str())
            .bind(row.event_version.as_str())
            .bind(row.payload.as_str())
            .bind(row.metadata.as_str())
            .execute(&mut *conn)
            .await?;
    }
    Ok(())
}

/// The answer recorded for a claimed request id, if any.
pub async fn claimed(
    pool: &sqlx::AnyPool,
    scope: &str,
    request_id: &str,
) -> Result<Option<String>, sqlx::Error> {
    sqlx::query_scalar("SELECT answer FROM request_claims WHERE scope = $1 AND request_id = $2")
        .bind(scope)
        .bind(request_id)
        .fetch_optional(pool)
        .await
}
