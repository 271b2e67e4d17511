//! One `Framework` per aggregate type, over our `Store`: its services, its
//! retry policy (bounded, jittered retries of optimistic-lock conflicts,
//! invariant 7: two commands racing on one aggregate both succeed when
//! both can), and this process's turns per aggregate. A command on one
//! aggregate alone (`execute`) is a unit of work of one decision.
//!
//! Within one process, commands on the same aggregate first queue on a
//! striped lock, so they rarely conflict at all (no wasted loads and
//! appends); conflicts then come only from other processes sharing the
//! store, and those are retried.

use std::collections::hash_map::DefaultHasher;
use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::time::Duration;

use std::sync::Arc;

use cqrs_es::Aggregate;
use rand::Rng;
use tokio::sync::Notify;

use crate::db::Db;
use crate::events::{Store, StoreOptions};
use crate::metrics::CommandMetrics;
use crate::unit::{Failed, UnitError, UnitOfWork};

/// How conflicts are retried: at least `attempts` tries, and on after
/// that until `budget` has passed since the first (a command that can
/// succeed must not fail because other processes kept winning the race),
/// sleeping a random time below `base * 2^n` (capped at `cap`) between them.
#[derive(Debug, Clone, Copy)]
pub struct RetryPolicy {
    pub attempts: u32,
    pub base: Duration,
    pub cap: Duration,
    pub budget: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        Self {
            attempts: 30,
            base: Duration::from_millis(1),
            cap: Duration::from_millis(40),
            budget: Duration::from_secs(10),
        }
    }
}

impl RetryPolicy {
    /// Whether a command that conflicted on try `attempt` (counting from
    /// 1) since `started` gets another try.
    pub fn again(&self, attempt: u32, started: std::time::Instant) -> bool {
        attempt < self.attempts || started.elapsed() < self.budget
    }

    pub fn delay(&self, attempt: u32) -> Duration {
        let ceiling = self
            .base
            .saturating_mul(1u32 << attempt.min(16))
            .min(self.cap);
        let micros = ceiling.as_micros().max(1) as u64;
        Duration::from_micros(rand::rng().random_range(0..=micros))
    }
}

/// Why a command did not go through.
#[derive(Debug, thiserror::Error)]
pub enum CommandError<E: std::error::Error> {
    /// The aggregate refused it: a business answer with a catalogue code.
    #[error("{0}")]
    Rejected(E),
    /// Still conflicting after every retry (heavy contention).
    #[error("the command kept conflicting with concurrent commands")]
    Contended,
    /// The store failed; the command may or may not have been applied, so a
    /// caller retries with the same reference.
    #[error("event store failure: {0}")]
    Store(String),
}

pub struct Framework<A: Aggregate + Clone> {
    services: A::Services,
    store: Store<A>,
    retry: RetryPolicy,
    metrics: CommandMetrics,
    stripes: Vec<tokio::sync::Mutex<()>>,
    on_commit: Option<Arc<Notify>>,
}

const STRIPES: usize = 1024;

impl<A> Framework<A>
where
    A: Aggregate + Clone,
    A::Command: Clone,
{
    /// `on_commit` is told after events commit (the projection runner
    /// wakes on it instead of waiting for its next poll).
    pub fn new(
        db: &Db,
        options: StoreOptions,
        services: A::Services,
        retry: RetryPolicy,
        metrics: CommandMetrics,
        on_commit: Option<Arc<Notify>>,
    ) -> Self {
        let store = Store::new(db, options);
        Self {
            services,
            store,
            retry,
            metrics,
            stripes: (0..STRIPES).map(|_| tokio::sync::Mutex::new(())).collect(),
            on_commit,
        }
    }

    /// Whoever waits on this framework's commits (the projection runner).
    pub fn on_commit(&self) -> Option<&Arc<Notify>> {
        self.on_commit.as_ref()
    }

    /// This process's turn on `aggregate_id` (the unit of work
    /// takes several in order).
    pub fn stripe_of(&self, aggregate_id: &str) -> &tokio::sync::Mutex<()> {
        self.stripe(aggregate_id)
    }

    fn stripe(&self, aggregate_id: &str) -> &tokio::sync::Mutex<()> {
        let mut hasher = DefaultHasher::new();
        aggregate_id.hash(&mut hasher);
        &self.stripes[hasher.finish() as usize % STRIPES]
    }

    pub fn store(&self) -> &Store<A> {
        &self.store
    }

    /// What this aggregate's commands are given.
    pub fn services(&self) -> &A::Services {
        &self.services
    }

    pub fn retry(&self) -> RetryPolicy {
        self.retry
    }

    pub fn metrics(&self) -> &CommandMetrics {
        &self.metrics
    }

    /// Executes `command` on `aggregate_id` alone, as a unit of work of one
    /// decision (`crate::unit`): conflicts retried as the policy allows, a
    /// refusal on a trusted cache given only on the store's state.
    pub async fn execute(
        &self,
        aggregate_id: &str,
        command: A::Command,
        metadata: HashMap<String, String>,
    ) -> Result<(), CommandError<A::Error>>
    where
        A: 'static,
    {
        let uow = UnitOfWork::new(self.retry).counted(&self.metrics, A::TYPE);
        let done: Result<(), UnitError<A::Error>> = crate::unit_of_work!(uow, |unit| {
            unit.metadata(metadata.clone());
            unit.decide(self, aggregate_id, command.clone(), &self.services)
                .await?
                .map_err(Failed::Refused)?;
            Ok(())
        });
        match done {
            Ok(()) => Ok(()),
            Err(UnitError::Refused(e)) => Err(CommandError::Rejected(e)),
            Err(UnitError::Contended) => Err(CommandError::Contended),
            Err(other) => {
                tracing::error!(aggregate = A::TYPE, aggregate_id, error = %other, "command failed in the store");
                Err(CommandError::Store(other.to_string()))
            }
        }
    }
}
