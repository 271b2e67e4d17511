//! The wallet service: every money movement of the platform goes through it.

use std::collections::HashMap;
use std::sync::Arc;

use tokio::sync::Notify;

use cqrs_es::EventStore;
use domain::wallet::{
    BookAnswer, Outcome, Receipt, ReferenceBook, Wallet, WalletAction, WalletCommand, WalletError,
    WalletEvent, WalletId, WalletServices,
};
use store::unit::{Abort, Unit};

use store::db::{Db, StorePool};
use store::events::StoreOptions;
use store::framework::{CommandError, Framework, RetryPolicy};
use store::metrics::CommandMetrics;

pub type WalletResult = Result<Receipt, CommandError<WalletError>>;

pub struct WalletService {
    framework: Framework<Wallet>,
    services: WalletServices,
    book: Arc<StoredReferences>,
}

/// The wallets' reference book: table `wallet_references`, filled with a
/// wallet's forgotten generation in the transaction that makes it forget
/// it (`store::events::archives`).
struct StoredReferences {
    pool: StorePool,
}

const REFERENCE_SQL: &str =
    "SELECT outcome FROM wallet_references WHERE wallet_id = $1 AND reference = $2";

impl ReferenceBook for StoredReferences {
    fn outcome<'a>(&'a self, wallet_id: &'a str, reference: &'a str) -> BookAnswer<'a> {
        Box::pin(async move {
            let code: Option<i32> = match &self.pool {
                StorePool::Postgres(pool) => {
                    sqlx::query_scalar(REFERENCE_SQL)
                        .bind(wallet_id)
                        .bind(reference)
                        .fetch_optional(pool)
                        .await
                }
                StorePool::Sqlite(pool) => {
                    sqlx::query_scalar(REFERENCE_SQL)
                        .bind(wallet_id)
                        .bind(reference)
                        .fetch_optional(pool)
                        .await
                }
            }
            .map_err(|e| e.to_string())?;
            Ok(code.map(|code| match code {
                0 => Outcome::Accepted,
                code => Outcome::Rejected(code),
            }))
        })
    }
}

impl WalletService {
    pub fn new(
        db: &Db,
        options: StoreOptions,
        retry: RetryPolicy,
        metrics: CommandMetrics,
    ) -> Self {
        Self::build(db, options, retry, metrics, None)
    }

    fn build(
        db: &Db,
        options: StoreOptions,
        retry: RetryPolicy,
        metrics: CommandMetrics,
        on_commit: Option<Arc<Notify>>,
    ) -> Self {
        let book = Arc::new(StoredReferences {
            pool: db.pool.clone(),
        });
        let services = WalletServices::with_book(book.clone());
        Self {
            framework: Framework::new(
                db,
                StoreOptions {
                    trust_cache: true,
                    ..options
                },
                services.clone(),
                retry,
                metrics,
                on_commit,
            ),
            services,
            book,
        }
    }

    /// As `new`, telling `on_commit` whenever events commit.
    pub fn notifying(
        db: &Db,
        options: StoreOptions,
        retry: RetryPolicy,
        metrics: CommandMetrics,
        on_commit: Arc<Notify>,
    ) -> Self {
        Self::build(db, options, retry, metrics, Some(on_commit))
    }

    /// What the wallet's commands are given (its reference book), for
    /// transactions that decide on the wallet themselves.
    pub fn services(&self) -> &WalletServices {
        &self.services
    }

    /// The first outcome of `reference` on `wallet` as the store has it
    /// now, `None` if the wallet never used it: remembered by the wallet,
    /// or looked up in the book when the wallet has forgotten some.
    pub async fn reference_outcome(
        &self,
        wallet: &WalletId,
        reference: &str,
    ) -> Result<Option<Outcome>, CommandError<WalletError>> {
        let loaded = self.load(wallet).await?;
        self.reference_outcome_in(&loaded, wallet, reference).await
    }

    /// As `reference_outcome`, on `loaded`, the wallet as just loaded
    /// (several references of one wallet read it once).
    pub async fn reference_outcome_in(
        &self,
        loaded: &Wallet,
        wallet: &WalletId,
        reference: &str,
    ) -> Result<Option<Outcome>, CommandError<WalletError>> {
        if let Some(outcome) = loaded.remembered(reference) {
            return Ok(Some(outcome));
        }
        if !loaded.forgot_refs() {
            return Ok(None);
        }
        self.book
            .outcome(&wallet.to_string(), reference)
            .await
            .map_err(CommandError::Store)
    }

    /// Runs one wallet command; a repeated reference answers its first outcome.
    pub async fn execute(&self, command: WalletCommand) -> WalletResult {
        self.execute_with(command, HashMap::new()).await
    }

    /// As `execute`, with metadata kept on the command's events (who and
    /// why, for movements staff decide).
    pub async fn execute_with(
        &self,
        command: WalletCommand,
        metadata: HashMap<String, String>,
    ) -> WalletResult {
        let id = command.wallet.to_string();
        let reply = command.reply.clone();
        match self.framework.execute(&id, command, metadata).await {
            // The reference book could not be read: not a refusal (nothing
            // was decided), a failure the caller retries.
            Err(CommandError::Rejected(WalletError::Unavailable(why))) => {
                return Err(CommandError::Store(why))
            }
            other => other?,
        }
        match reply.take() {
            Some(Ok(receipt)) => Ok(receipt),
            Some(Err(WalletError::Unavailable(why))) => Err(CommandError::Store(why)),
            Some(Err(refusal)) => Err(CommandError::Rejected(refusal)),
            None => Err(CommandError::Store("the wallet gave no outcome".into())),
        }
    }

    /// Adds a move to `unit`: the wallet decides it on top of what the unit
    /// decided on it before. `Ok(Err(refusal))`: refused on the store's
    /// current state, and the refusal is not part of the unit (the wallet
    /// records refusals of calls made alone, not of a unit's moves).
    pub async fn move_in<'f>(
        &'f self,
        unit: &mut Unit<'f>,
        wallet: &WalletId,
        reference: String,
        action: WalletAction,
    ) -> Result<Result<Receipt, WalletError>, Abort> {
        let command = WalletCommand::new(wallet.clone(), reference, action);
        let reply = command.reply.clone();
        let kept = |events: &[&WalletEvent]| {
            !events
                .iter()
                .any(|e| matches!(e, WalletEvent::Rejected { .. }))
        };
        let decided = unit
            .decide_kept(
                &self.framework,
                &wallet.to_string(),
                command,
                &self.services,
                kept,
            )
            .await?;
        match decided {
            // The reference book could not be read: a store failure.
            Err(WalletError::Unavailable(why)) => return Err(Abort::Store(why)),
            Err(refusal) => return Ok(Err(refusal)),
            Ok(_) => {}
        }
        match reply.take() {
            Some(Ok(receipt)) => Ok(Ok(receipt)),
            Some(Err(WalletError::Unavailable(why))) => Err(Abort::Store(why)),
            // Refused on a cached wallet: only the store's state refuses.
            Some(Err(_)) if !unit.on_current_state() => Err(Abort::Current),
            Some(Err(refusal)) => Ok(Err(refusal)),
            None => Err(Abort::Store("the wallet gave no outcome".into())),
        }
    }

    /// The framework, for transactions that span the wallet and a Bet.
    pub fn framework(&self) -> &Framework<Wallet> {
        &self.framework
    }

    /// The wallet as this process last saw it (its cache), or as the store
    /// has it when not cached: good for a pre-check, never for a decision.
    pub async fn peek(&self, wallet: &WalletId) -> Result<Wallet, CommandError<WalletError>> {
        let loaded = self
            .framework
            .store()
            .load_aggregate(&wallet.to_string())
            .await
            .map_err(|e| CommandError::Store(e.to_string()))?;
        Ok(loaded.aggregate)
    }

    /// The wallet as the event store has it now (cache + newer events).
    pub async fn load(&self, wallet: &WalletId) -> Result<Wallet, CommandError<WalletError>> {
        let loaded = self
            .framework
            .store()
            .load_current(&wallet.to_string())
            .await
            .map_err(|e| CommandError::Store(e.to_string()))?;
        Ok(loaded.aggregate)
    }

    /// The wallet folded from every one of its events, ignoring snapshots
    /// and cache: what an auditor replays.
    pub async fn replay(&self, wallet: &WalletId) -> Result<Wallet, CommandError<WalletError>> {
        let mut aggregate = Wallet::default();
        for event in self.events(wallet).await? {
            cqrs_es::Aggregate::apply(&mut aggregate, event);
        }
        Ok(aggregate)
    }

    pub fn clear_cache(&self) {
        self.framework.store().clear_cache();
    }
}

impl WalletService {
    /// Every event of one wallet, in order (audits and tests).
    pub async fn events(
        &self,
        wallet: &WalletId,
    ) -> Result<Vec<domain::wallet::WalletEvent>, CommandError<WalletError>> {
        let events = self
            .framework
            .store()
            .load_events(&wallet.to_string())
            .await
            .map_err(|e| CommandError::Store(e.to_string()))?;
        Ok(events.into_iter().map(|e| e.payload).collect())
    }
}
