//! The wallet service: every money movement of the platform goes through it.

use std::collections::HashMap;
use std::sync::Arc;

use tokio::sync::Notify;

use cqrs_es::EventStore;
use domain::wallet::{Receipt, Wallet, WalletCommand, WalletError, WalletId};

use crate::db::Db;
use crate::framework::{CommandError, Framework, RetryPolicy};
use crate::metrics::CommandMetrics;
use crate::store::StoreOptions;

pub type WalletResult = Result<Receipt, CommandError<WalletError>>;

pub struct WalletService {
    framework: Framework<Wallet>,
}

impl WalletService {
    pub fn new(
        db: &Db,
        options: StoreOptions,
        retry: RetryPolicy,
        metrics: CommandMetrics,
    ) -> Self {
        Self {
            framework: Framework::new(
                db,
                StoreOptions {
                    trust_cache: true,
                    ..options
                },
                (),
                retry,
                metrics,
                None,
            ),
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
        Self {
            framework: Framework::new(
                db,
                StoreOptions {
                    trust_cache: true,
                    ..options
                },
                (),
                retry,
                metrics,
                Some(on_commit),
            ),
        }
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
        self.framework.execute(&id, command, metadata).await?;
        match reply.take() {
            Some(Ok(receipt)) => Ok(receipt),
            Some(Err(refusal)) => Err(CommandError::Rejected(refusal)),
            None => Err(CommandError::Store("the wallet gave no outcome".into())),
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
