//! The unit of work: the one way a command commits.
//!
//! A command decides on any number of aggregates (of any types), adds the
//! wallet moves it needs (decisions of the `Wallet` aggregate like any
//! other), a request-id claim and extra rows of the same transaction, and
//! commits all of it as one through the group commit, or nothing. When
//! another writer got to one of its aggregates first (a sequence taken),
//! the whole unit is decided again from the store, bounded and with
//! jitter ([`RetryPolicy`]); the caller never sees a conflict for a command
//! that can succeed (invariant 7).
//!
//! ```ignore
//! let placed = unit_of_work!(UnitOfWork::new(bets.retry()), |unit| {
//!     let bet = unit.decide(&bets, &bet_id, command.clone(), &()).await?
//!         .map_err(Failed::Refused)?;
//!     let bet = bet.state.clone();
//!     wallets.move_in(unit, &wallet, reference, action).await?...;
//!     unit.claim(claim.clone());
//!     Ok(bet)
//! })?;
//! ```
//!
//! What the unit takes care of:
//! - **Turns**: this process's turn on each aggregate it decides
//!   ([`Framework::stripe_of`]), held until the unit ends, so commands of one
//!   process on one aggregate queue instead of colliding. Turns are taken
//!   as the work asks for aggregates; one asked for out of the process-wide
//!   order that is not free at once makes the unit give back every turn
//!   and take them again in order, so two units never wait on each other.
//! - **Stale caches**: stores that decide on their cached aggregate
//!   (`trust_cache`: the wallet, casino rounds) may refuse on a copy
//!   another process has overtaken. A refusal is only given on what the
//!   store holds now: the unit starts again on current state first
//!   ([`Abort::Current`]), which does not count as a retry.
//! - **New aggregates**: [`Unit::decide_new`] decides an id just handed out
//!   without reading it (the first attempt only).
//! - **Caches after the commit**: committed aggregates go to their caches
//!   and snapshots; after a failure they are forgotten.

use std::collections::HashMap;
use std::time::Instant;

use cqrs_es::event_sink::EventSink;
use cqrs_es::persist::PersistenceError;
use cqrs_es::{Aggregate, AggregateError, EventEnvelope};
use futures::future::BoxFuture;

use crate::events::{is_retryable, Appended, Claim, Decided, EventRow, Extra, Store};
use crate::framework::{Framework, RetryPolicy};
use crate::group_commit::GroupCommit;
use crate::metrics::CommandMetrics;

/// Why an attempt stopped before its commit, for the unit to handle: the
/// work passes it on with `?` and never needs to look inside.
#[derive(Debug)]
pub enum Abort {
    /// Another writer took a sequence: decide everything again.
    Conflict,
    /// A refusal on possibly stale state: decide again on the store's.
    Current,
    /// A turn was asked for out of order: take every turn in order first.
    Reorder,
    /// The store failed; the command may be retried by its caller with the
    /// same reference.
    Store(String),
}

/// How the work of one attempt ended, short of committing.
#[derive(Debug)]
pub enum Failed<E> {
    /// The command is refused: nothing commits, the caller gets `E`.
    Refused(E),
    /// The unit's business (see [`Abort`]).
    Abort(Abort),
}

impl<E> From<Abort> for Failed<E> {
    fn from(abort: Abort) -> Self {
        Failed::Abort(abort)
    }
}

/// Why a unit of work did not commit.
#[derive(Debug, thiserror::Error)]
pub enum UnitError<E: std::fmt::Display> {
    #[error("{0}")]
    Refused(E),
    /// The request id was claimed by an earlier request: nothing was
    /// written; the caller answers what that claim recorded.
    #[error("the request id was claimed by an earlier request")]
    Claimed,
    /// The guard of the extra statement of this index (in the order they
    /// were added) did not hold: nothing was written.
    #[error("a condition of the transaction no longer holds")]
    Unmet(usize),
    #[error("the transaction kept conflicting with concurrent commands")]
    Contended,
    #[error("event store failure: {0}")]
    Store(String),
}

/// One aggregate's decisions in a unit, whatever its type.
trait Held: Send + Sync {
    fn key(&self) -> (&'static str, &str);
    fn rows(&self) -> Result<Vec<EventRow>, PersistenceError>;
    fn as_any(&mut self) -> &mut dyn std::any::Any;
    fn as_any_ref(&self) -> &dyn std::any::Any;
    /// After the commit: the cache and snapshots catch up, and whoever
    /// waits on commits is told.
    fn committed(self: Box<Self>) -> BoxFuture<'static, ()>;
    fn abandoned(&self);
}

struct Part<A: Aggregate + Clone> {
    store: Store<A>,
    notify: Option<std::sync::Arc<tokio::sync::Notify>>,
    decided: Decided<A>,
    id: String,
}

impl<A> Held for Part<A>
where
    A: Aggregate + Clone + 'static,
{
    fn key(&self) -> (&'static str, &str) {
        (A::TYPE, &self.id)
    }

    fn rows(&self) -> Result<Vec<EventRow>, PersistenceError> {
        self.decided.serialized()
    }

    fn as_any(&mut self) -> &mut dyn std::any::Any {
        self
    }

    fn as_any_ref(&self) -> &dyn std::any::Any {
        self
    }

    fn committed(self: Box<Self>) -> BoxFuture<'static, ()> {
        Box::pin(async move {
            let Part {
                store,
                notify,
                decided,
                ..
            } = *self;
            let wrote = !decided.is_empty();
            store.committed(decided).await;
            if let (true, Some(notify)) = (wrote, notify) {
                notify.notify_one();
            }
        })
    }

    fn abandoned(&self) {
        self.store.abandoned(&self.id);
    }
}

fn part_mut<'p, A: Aggregate + Clone + 'static>(held: &'p mut (dyn Held + '_)) -> &'p mut Part<A> {
    held.as_any()
        .downcast_mut::<Part<A>>()
        .expect("a part of its own aggregate type")
}

fn is_part(held: &(dyn Held + '_), aggregate_type: &str, id: &str) -> bool {
    held.key() == (aggregate_type, id)
}

fn part_ref<'p, A: Aggregate + Clone + 'static>(held: &'p (dyn Held + '_)) -> &'p Part<A> {
    held.as_any_ref()
        .downcast_ref::<Part<A>>()
        .expect("a part of its own aggregate type")
}

/// A decision as the work sees it: the aggregate as it will be once the
/// unit commits, and the events this command added.
pub struct Decision<'u, A: Aggregate> {
    pub state: &'u A,
    pub events: Vec<&'u A::Event>,
}

type Stripe<'f> = &'f tokio::sync::Mutex<()>;

fn address(stripe: &tokio::sync::Mutex<()>) -> usize {
    stripe as *const tokio::sync::Mutex<()> as usize
}

/// One attempt's decisions, and the turns held across attempts.
pub struct Unit<'f> {
    group: Option<GroupCommit>,
    parts: Vec<Box<dyn Held + 'f>>,
    claim: Option<Claim>,
    extras: Vec<Extra>,
    rows: Vec<EventRow>,
    metadata: HashMap<String, String>,
    attempt: u32,
    current: bool,
    /// Turns held: taken in address order, or all again in that order.
    held: Vec<(Stripe<'f>, tokio::sync::MutexGuard<'f, ()>)>,
    wanted: Vec<Stripe<'f>>,
}

impl<'f> Unit<'f> {
    /// Which attempt this is, from 1 (work that reads something outside
    /// the unit, such as a claim, may look again on a later one).
    pub fn attempt(&self) -> u32 {
        self.attempt
    }

    /// Whether this attempt decides on the store's current state (after a
    /// refusal on a cached one).
    pub fn on_current_state(&self) -> bool {
        self.current
    }

    /// Metadata kept on every event this unit appends (who and why).
    pub fn metadata(&mut self, metadata: HashMap<String, String>) {
        self.metadata = metadata;
    }

    /// Claims a client's request id with the unit: a repeat of the request
    /// finds the claim; when another request claimed it first, nothing of
    /// this unit is written ([`UnitError::Claimed`]).
    pub fn claim(&mut self, claim: Claim) {
        self.claim = Some(claim);
    }

    /// Drops every decision of this attempt (the claim and extra rows
    /// stay): the unit commits only those, as when a refusal is recorded by
    /// its claim alone.
    pub fn forget_decisions(&mut self) {
        for part in self.parts.drain(..) {
            part.abandoned();
        }
    }

    /// An event row written as it is, for streams no aggregate type of
    /// the code decides (a promotion's record of a reward, a DEMO aid's
    /// synthetic event). Its sequence collides like any other, and a
    /// collision is retried like any other: the work must read the next
    /// sequence afresh on each attempt, or guard the row with an extra
    /// statement that finds the work done (extras run before the rows).
    pub fn event_row(&mut self, row: EventRow) {
        self.rows.push(row);
    }

    /// A statement of the same transaction (see [`Extra`]).
    pub fn extra(&mut self, extra: Extra) {
        self.extras.push(extra);
    }

    /// Decides `command` on aggregate `id`: loaded (cache, snapshot and
    /// newer events) the first time the unit meets it, on top of its
    /// earlier decisions after that. `Ok(Err(e))`: the aggregate refused on
    /// the store's current state.
    pub async fn decide<'u, A>(
        &'u mut self,
        framework: &'f Framework<A>,
        id: &str,
        command: A::Command,
        services: &A::Services,
    ) -> Result<Result<Decision<'u, A>, A::Error>, Abort>
    where
        A: Aggregate + Clone + 'static,
        A::Command: Clone,
    {
        self.decide_as(framework, id, command, services, false)
            .await
    }

    /// As [`Self::decide`], for an id just handed out that no one can have
    /// written: the first attempt reads nothing (should the id be taken
    /// after all, the commit collides and the next attempt reads it).
    pub async fn decide_new<'u, A>(
        &'u mut self,
        framework: &'f Framework<A>,
        id: &str,
        command: A::Command,
        services: &A::Services,
    ) -> Result<Result<Decision<'u, A>, A::Error>, Abort>
    where
        A: Aggregate + Clone + 'static,
        A::Command: Clone,
    {
        self.decide_as(framework, id, command, services, true).await
    }

    /// As [`Self::decide`], keeping the decision only when `keep` says so
    /// of the events it decided: otherwise the aggregate is left as it was
    /// before it (a refusal that the aggregate records as an event, such as
    /// the wallet's, which the unit must not commit). `None`: not kept.
    pub async fn decide_kept<'u, A>(
        &'u mut self,
        framework: &'f Framework<A>,
        id: &str,
        command: A::Command,
        services: &A::Services,
        keep: impl FnOnce(&[&A::Event]) -> bool,
    ) -> Result<Result<Option<Decision<'u, A>>, A::Error>, Abort>
    where
        A: Aggregate + Clone + 'static,
        A::Command: Clone,
    {
        let earlier = self
            .parts
            .iter()
            .position(|p| is_part(&**p, A::TYPE, id))
            .map(|index| {
                let part = part_mut::<A>(&mut *self.parts[index]);
                (index, part.decided.clone())
            });
        let kept = match self
            .decide_as(framework, id, command, services, false)
            .await?
        {
            Err(refusal) => return Ok(Err(refusal)),
            Ok(decision) => keep(&decision.events),
        };
        let index = self
            .parts
            .iter()
            .position(|p| is_part(&**p, A::TYPE, id))
            .expect("decided");
        if !kept {
            match earlier {
                Some((_, saved)) => {
                    let part = part_mut::<A>(&mut *self.parts[index]);
                    part.decided = saved;
                }
                None => {
                    let part = self.parts.remove(index);
                    part.abandoned();
                }
            }
            return Ok(Ok(None));
        }
        let part: &'u Part<A> = part_ref::<A>(&*self.parts[index]);
        let before = earlier.map_or(0, |(_, saved)| saved.len());
        Ok(Ok(Some(Decision {
            state: part.decided.aggregate(),
            events: part.decided.envelopes()[before..]
                .iter()
                .map(|e| &e.payload)
                .collect(),
        })))
    }

    async fn decide_as<'u, A>(
        &'u mut self,
        framework: &'f Framework<A>,
        id: &str,
        command: A::Command,
        services: &A::Services,
        new: bool,
    ) -> Result<Result<Decision<'u, A>, A::Error>, Abort>
    where
        A: Aggregate + Clone + 'static,
        A::Command: Clone,
    {
        self.turn(framework.stripe_of(id))?;
        self.take_turns().await;
        if self.group.is_none() {
            self.group = Some(framework.store().group().clone());
        }
        let store = framework.store();
        let found = self.parts.iter().position(|p| is_part(&**p, A::TYPE, id));
        let index = match found {
            Some(index) => index,
            None => {
                let fresh = new && self.attempt == 1 && !self.current;
                let loaded = if fresh {
                    store.fresh(id)
                } else if self.current {
                    store.load_current(id).await
                } else {
                    cqrs_es::EventStore::load_aggregate(store, id).await
                };
                let loaded = match loaded {
                    Ok(loaded) => loaded,
                    Err(AggregateError::AggregateConflict) => return Err(Abort::Conflict),
                    Err(e) => return Err(Abort::Store(e.to_string())),
                };
                self.parts.push(Box::new(Part {
                    store: store.clone(),
                    notify: framework.on_commit().cloned(),
                    decided: Decided::from_loaded(loaded),
                    id: id.to_string(),
                }));
                self.parts.len() - 1
            }
        };
        // A refusal may rest on state that is not the store's: a trusted
        // cache, or an id assumed new.
        let maybe_stale = !self.current && (store.trusts_cache() || new);
        let part = part_mut::<A>(&mut *self.parts[index]);
        let before = part.decided.len();
        let sink = EventSink::default();
        let handled = part
            .decided
            .aggregate_mut()
            .handle(command, services, &sink)
            .await;
        let events = sink.collect().await;
        if let Err(refusal) = handled {
            if maybe_stale {
                return Err(Abort::Current);
            }
            if !events.is_empty() {
                // The aggregate applied events and then refused: its state
                // in this unit is no longer what the store will hold.
                return Err(Abort::Store(format!(
                    "{} {id} refused after deciding events",
                    A::TYPE
                )));
            }
            return Ok(Err(refusal));
        }
        part.decided.push(events, &self.metadata);
        let part: &'u Part<A> = part_ref::<A>(&*self.parts[index]);
        Ok(Ok(Decision {
            state: part.decided.aggregate(),
            events: part.decided.envelopes()[before..]
                .iter()
                .map(|e: &EventEnvelope<A>| &e.payload)
                .collect(),
        }))
    }

    /// Asks for the turn `stripe`: taken at once when it comes after every
    /// turn held (or is free); otherwise the attempt starts again with every
    /// turn taken in order.
    fn turn(&mut self, stripe: Stripe<'f>) -> Result<(), Abort> {
        if self.held.iter().any(|(s, _)| std::ptr::eq(*s, stripe)) {
            return Ok(());
        }
        if self.held.iter().all(|(s, _)| address(s) < address(stripe)) {
            // In order: waited for in `take_turns`.
            self.wanted.push(stripe);
            return Ok(());
        }
        match stripe.try_lock() {
            Ok(guard) => {
                self.held.push((stripe, guard));
                Ok(())
            }
            Err(_) => {
                self.wanted.push(stripe);
                Err(Abort::Reorder)
            }
        }
    }

    /// Waits for the turn asked for in order.
    async fn take_turns(&mut self) {
        while let Some(stripe) = self.wanted.pop() {
            let guard = stripe.lock().await;
            self.held.push((stripe, guard));
        }
    }

    /// Gives back every turn and takes them again, with the one wanted, in
    /// address order.
    async fn reorder(&mut self) {
        let mut stripes: Vec<Stripe<'f>> = self.held.drain(..).map(|(s, _)| s).collect();
        stripes.append(&mut self.wanted);
        stripes.sort_by_key(|s| address(s));
        stripes.dedup_by(|a, b| std::ptr::eq(*a, *b));
        for stripe in stripes {
            let guard = stripe.lock().await;
            self.held.push((stripe, guard));
        }
    }

    fn reset(&mut self) {
        for part in self.parts.drain(..) {
            part.abandoned();
        }
        self.claim = None;
        self.extras.clear();
        self.rows.clear();
    }

    async fn commit(&mut self) -> Result<Appended, PersistenceError> {
        let mut rows = Vec::new();
        for part in &self.parts {
            rows.extend(part.rows()?);
        }
        rows.append(&mut self.rows);
        let Some(group) = &self.group else {
            // Nothing decided: only a claim or extra rows, which need the
            // store of a framework; a unit always decides or is given one.
            return Err(PersistenceError::UnknownError(
                "a unit of work without a store".into(),
            ));
        };
        group
            .append_with(rows, self.claim.take(), std::mem::take(&mut self.extras))
            .await
    }
}

/// What [`UnitOfWork::settle`] made of an attempt.
pub enum Settled<T, E: std::fmt::Display> {
    /// The unit committed; the work's answer.
    Done(T),
    /// Decide again (see [`Abort`]).
    Again,
    /// The unit ends without committing.
    Failed(UnitError<E>),
}

/// A command's unit of work across its attempts: see the module's
/// documentation, and [`crate::unit_of_work!`], which runs the attempts.
pub struct UnitOfWork<'f> {
    retry: RetryPolicy,
    unit: Unit<'f>,
    started: Instant,
    conflicts: u32,
    reorders: u32,
    counted: Option<(&'f CommandMetrics, &'static str)>,
}

impl<'f> UnitOfWork<'f> {
    pub fn new(retry: RetryPolicy) -> Self {
        UnitOfWork {
            retry,
            unit: Unit {
                group: None,
                parts: Vec::new(),
                claim: None,
                extras: Vec::new(),
                rows: Vec::new(),
                metadata: HashMap::new(),
                attempt: 0,
                current: false,
                held: Vec::new(),
                wanted: Vec::new(),
            },
            started: Instant::now(),
            conflicts: 0,
            reorders: 0,
            counted: None,
        }
    }

    /// The store to commit to when the work may decide no aggregate (a
    /// refusal recorded by its claim alone).
    pub fn on(mut self, group: &GroupCommit) -> Self {
        self.unit.group = Some(group.clone());
        self
    }

    /// Counts the unit's outcome (ok, rejected, error) and its retried
    /// conflicts under `aggregate` on `/metrics`.
    pub fn counted(mut self, metrics: &'f CommandMetrics, aggregate: &'static str) -> Self {
        self.counted = Some((metrics, aggregate));
        self
    }

    /// The unit for the next attempt, empty of decisions (the turns taken
    /// stay taken).
    pub fn next_attempt(&mut self) -> &mut Unit<'f> {
        self.unit.attempt += 1;
        &mut self.unit
    }

    fn count(&self, outcome: &'static str) {
        if let Some((metrics, aggregate)) = self.counted {
            metrics.handled(aggregate, outcome);
        }
    }

    /// Commits what the attempt decided, or says what comes next.
    pub async fn settle<T, E: std::fmt::Display>(
        &mut self,
        outcome: Result<T, Failed<E>>,
    ) -> Settled<T, E> {
        let unit = &mut self.unit;
        let abort = match outcome {
            Ok(value) => match unit.commit().await {
                Ok(Appended::Done) => {
                    for part in unit.parts.drain(..) {
                        part.committed().await;
                    }
                    self.count("ok");
                    return Settled::Done(value);
                }
                Ok(Appended::Claimed) => {
                    unit.reset();
                    self.count("rejected");
                    return Settled::Failed(UnitError::Claimed);
                }
                Ok(Appended::Unmet(index)) => {
                    unit.reset();
                    self.count("rejected");
                    return Settled::Failed(UnitError::Unmet(index));
                }
                Err(e) if is_retryable(&e) => Abort::Conflict,
                Err(e) => {
                    unit.reset();
                    self.count("error");
                    return Settled::Failed(UnitError::Store(e.to_string()));
                }
            },
            Err(Failed::Refused(refusal)) => {
                unit.reset();
                self.count("rejected");
                return Settled::Failed(UnitError::Refused(refusal));
            }
            Err(Failed::Abort(abort)) => abort,
        };
        unit.reset();
        match abort {
            Abort::Current => unit.current = true,
            Abort::Reorder => {
                self.reorders += 1;
                if !self.retry.again(self.reorders, self.started) {
                    self.count("error");
                    return Settled::Failed(UnitError::Contended);
                }
                unit.reorder().await
            }
            Abort::Store(why) => {
                self.count("error");
                return Settled::Failed(UnitError::Store(why));
            }
            Abort::Conflict => {
                self.conflicts += 1;
                if let Some((metrics, aggregate)) = self.counted {
                    metrics
                        .conflicts_retried
                        .get_or_create(&crate::metrics::AggregateLabel { aggregate })
                        .inc();
                }
                if !self.retry.again(self.conflicts, self.started) {
                    self.count("error");
                    return Settled::Failed(UnitError::Contended);
                }
                tokio::time::sleep(self.retry.delay(self.conflicts - 1)).await;
            }
        }
        Settled::Again
    }
}

/// Runs a unit of work's attempts until it commits, refuses or runs out of
/// retries: `unit_of_work!(UnitOfWork::new(retry), |unit| { ... Ok(x) })`
/// is `Result<x, UnitError<E>>`. The body is an attempt: it may run several
/// times, decides only from what `unit` loads, and ends with `Ok(answer)`
/// to commit or an `Err(Failed)` (`?` on [`Unit::decide`] passes the
/// unit's own aborts on). `return` in the body ends the attempt.
#[macro_export]
macro_rules! unit_of_work {
    ($uow:expr, |$unit:ident| $body:block) => {{
        let mut uow = $uow;
        loop {
            let $unit = uow.next_attempt();
            let outcome = async { $body }.await;
            match uow.settle(outcome).await {
                $crate::unit::Settled::Done(value) => break Ok(value),
                $crate::unit::Settled::Again => continue,
                $crate::unit::Settled::Failed(error) => break Err(error),
            }
        }
    }};
}
