//! Transactions across a Bet and its member's wallet.
//!
//! A bet and the money it moves commit together: the Bet's events and the
//! wallet's events go into the store in one statement, so a crash can never
//! leave a stake held for a bet that does not exist, or a bet standing
//! whose stake was not taken. Both aggregates are decided on their loaded
//! state, then appended at once; a collision with another writer on either
//! aggregate retries the whole transaction from a fresh load.
//!
//! The append goes through the store's group committer
//! (`crate::group_commit`): concurrent bets share one transaction and one
//! round trip, each still decided on its own Bet and wallet, and one that
//! conflicts is written again alone.
//!
//! A command sent with a client's request id (`do_bet`) also claims that id
//! in the same transaction: a repeat of the
//! request, in this process or another, finds the claim and answers the
//! first outcome; a repeat racing the first loses on the claim and writes
//! nothing.

use std::collections::HashMap;

use cqrs_es::AggregateError;
use domain::bet::{Bet, BetCommand, BetError, BetEvent};
use domain::wallet::{Receipt, Wallet, WalletAction, WalletCommand, WalletError, WalletId};

use crate::framework::Framework;
use crate::store::{is_retryable, Appended, Claim, Decided};
use crate::wallet::WalletService;

/// Why a transaction did not commit.
#[derive(Debug, thiserror::Error)]
pub enum TxError {
    #[error("{0}")]
    Bet(BetError),
    #[error("{0}")]
    Wallet(WalletError),
    #[error("the wallet already made the move '{0}'")]
    Duplicate(String),
    #[error("the request id was claimed by an earlier request")]
    Claimed,
    #[error("the transaction kept conflicting with concurrent commands")]
    Contended,
    #[error("event store failure: {0}")]
    Store(String),
}

/// What committed: the Bet's new events and its state after them, and the
/// wallet's receipts in the order of the moves.
#[derive(Debug)]
pub struct Committed {
    pub events: Vec<BetEvent>,
    pub bet: Bet,
    pub receipts: Vec<Receipt>,
}

/// The wallet moves a Bet decision needs: (reference, action) pairs, in
/// order. Given the Bet as it will be and the events it decided.
pub type Moves<'a> = &'a (dyn Fn(&Bet, &[BetEvent]) -> Vec<(String, WalletAction)> + Sync);

enum Attempt {
    Done(Box<Committed>),
    Retry,
    /// The wallet refused on this process's cached state: decide again on
    /// what the store holds before refusing (another process may have paid
    /// the member meanwhile).
    RetryCurrent,
}

/// Decides `command` on the Bet `bet_id` and the wallet moves it needs on
/// `wallet`, and commits both or neither. `fresh`: the bet id was just
/// handed out, so the first attempt skips reading the Bet. `claim`: a
/// request id claimed with the events (`TxError::Claimed` when it was
/// claimed before).
#[allow(clippy::too_many_arguments)]
pub async fn bet_with_wallet(
    bets: &Framework<Bet>,
    wallet_service: &WalletService,
    bet_id: &str,
    command: BetCommand,
    metadata: HashMap<String, String>,
    wallet: &WalletId,
    moves: Moves<'_>,
    fresh: bool,
    claim: Option<&Claim>,
) -> Result<Committed, TxError> {
    let wallets = wallet_service.framework();
    let wallet_key = wallet.to_string();
    // Always the Bet's turn first, then the wallet's: one order, no cycles.
    let _bet_turn = bets.turn(bet_id).await;
    let _wallet_turn = wallets.turn(&wallet_key).await;
    let retry = bets.retry();
    let mut current_wallet = false;
    let mut attempt = 0;
    let started = std::time::Instant::now();
    while attempt == 0 || retry.again(attempt, started) {
        attempt += 1;
        match try_once(
            bets,
            wallet_service,
            bet_id,
            &command,
            &metadata,
            wallet,
            &wallet_key,
            moves,
            fresh && attempt == 1,
            current_wallet,
            claim,
        )
        .await
        {
            Ok(Attempt::RetryCurrent) => {
                current_wallet = true;
                attempt -= 1;
                continue;
            }
            Ok(Attempt::Done(done)) => {
                bets.metrics().handled("Bet", "ok");
                if !done.receipts.is_empty() {
                    wallets.metrics().handled("Wallet", "ok");
                }
                return Ok(*done);
            }
            Ok(Attempt::Retry) => {
                bets.metrics()
                    .conflicts_retried
                    .get_or_create(&crate::metrics::AggregateLabel { aggregate: "Bet" })
                    .inc();
                tokio::time::sleep(retry.delay(attempt - 1)).await;
            }
            Err(e) => {
                let outcome = match e {
                    TxError::Bet(_)
                    | TxError::Wallet(_)
                    | TxError::Duplicate(_)
                    | TxError::Claimed => "rejected",
                    _ => "error",
                };
                bets.metrics().handled("Bet", outcome);
                return Err(e);
            }
        }
    }
    bets.metrics().handled("Bet", "error");
    Err(TxError::Contended)
}

#[allow(clippy::too_many_arguments)]
async fn try_once(
    bets: &Framework<Bet>,
    wallet_service: &WalletService,
    bet_id: &str,
    command: &BetCommand,
    metadata: &HashMap<String, String>,
    wallet: &WalletId,
    wallet_key: &str,
    moves: Moves<'_>,
    fresh: bool,
    current_wallet: bool,
    claim: Option<&Claim>,
) -> Result<Attempt, TxError> {
    let wallets = wallet_service.framework();
    let services = wallet_service.services();
    let store = bets.store();
    let decided = if fresh {
        store
            .decide_fresh(bet_id, command.clone(), &(), metadata)
            .await
    } else {
        store.decide(bet_id, command.clone(), &(), metadata).await
    };
    let decided_bet = match decided {
        Ok(decided) => decided,
        Err(AggregateError::UserError(e)) => return Err(TxError::Bet(e)),
        Err(AggregateError::AggregateConflict) => return Ok(Attempt::Retry),
        Err(e) => return Err(TxError::Store(e.to_string())),
    };
    let events: Vec<BetEvent> = decided_bet.events().cloned().collect();
    let wanted = moves(decided_bet.aggregate(), &events);
    let mut decided_wallet: Option<Decided<Wallet>> = None;
    let mut receipts = Vec::with_capacity(wanted.len());
    for (reference, action) in wanted {
        let command = WalletCommand::new(wallet.clone(), reference, action);
        let reply = command.reply.clone();
        let decided = match decided_wallet.take() {
            None if current_wallet => {
                wallets
                    .store()
                    .decide_current(wallet_key, command, services, metadata)
                    .await
            }
            None => {
                wallets
                    .store()
                    .decide(wallet_key, command, services, metadata)
                    .await
            }
            Some(d) => {
                wallets
                    .store()
                    .decide_more(d, command, services, metadata)
                    .await
            }
        };
        match decided {
            Ok(d) => decided_wallet = Some(d),
            // The reference book could not be read: a store failure, not
            // a refusal.
            Err(AggregateError::UserError(WalletError::Unavailable(why))) => {
                return Err(TxError::Store(why))
            }
            Err(AggregateError::UserError(_)) if !current_wallet => {
                return Ok(Attempt::RetryCurrent)
            }
            Err(AggregateError::UserError(e)) => return Err(TxError::Wallet(e)),
            Err(AggregateError::AggregateConflict) => return Ok(Attempt::Retry),
            Err(e) => return Err(TxError::Store(e.to_string())),
        }
        match reply.take() {
            // A move already made under its reference (a free bet staked
            // before): this transaction must not stand on it.
            Some(Ok(receipt)) if receipt.duplicate => {
                return Err(TxError::Duplicate(receipt.reference))
            }
            Some(Ok(receipt)) => receipts.push(receipt),
            // A refusal on a possibly stale cache: decide again on the store.
            Some(Err(_)) if !current_wallet => return Ok(Attempt::RetryCurrent),
            // A refusal the wallet would record: nothing commits.
            Some(Err(refusal)) => return Err(TxError::Wallet(refusal)),
            None => return Err(TxError::Store("the wallet gave no outcome".into())),
        }
    }
    let appended = match &decided_wallet {
        Some(w) => store.group().append_parts(&[&decided_bet, w], claim).await,
        None => store.group().append_parts(&[&decided_bet], claim).await,
    };
    match appended {
        Ok(Appended::Claimed) => {
            bets.store().abandoned(bet_id);
            wallets.store().abandoned(wallet_key);
            Err(TxError::Claimed)
        }
        Ok(Appended::Done) => {
            let bet = decided_bet.aggregate().clone();
            let wrote =
                !events.is_empty() || decided_wallet.as_ref().is_some_and(|w| !w.is_empty());
            bets.store().committed(decided_bet).await;
            if let Some(w) = decided_wallet {
                wallets.store().committed(w).await;
            }
            if wrote {
                bets.committed();
                wallets.committed();
            }
            Ok(Attempt::Done(Box::new(Committed {
                events,
                bet,
                receipts,
            })))
        }
        Err(e) => {
            bets.store().abandoned(bet_id);
            wallets.store().abandoned(wallet_key);
            if is_retryable(&e) {
                Ok(Attempt::Retry)
            } else {
                Err(TxError::Store(e.to_string()))
            }
        }
    }
}
