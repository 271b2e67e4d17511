//! A Bet and its member's wallet in one unit of work (`store::unit`).
//!
//! A bet and the money it moves commit together: the Bet's events and the
//! wallet's events go into the store in one transaction, so a crash can
//! never leave a stake held for a bet that does not exist, or a bet
//! standing whose stake was not taken. A collision with another writer on
//! either aggregate decides the whole unit again from the store; the
//! commit goes through the group commit, so concurrent bets share one
//! transaction and one round trip.
//!
//! A command sent with a client's request id (`do_bet`) also claims that id
//! in the same transaction: a repeat of the
//! request, in this process or another, finds the claim and answers the
//! first outcome; a repeat racing the first loses on the claim and writes
//! nothing.

use std::collections::HashMap;

use domain::bet::{Bet, BetCommand, BetError, BetEvent};
use domain::safer::SaferError;
use domain::wallet::{Receipt, WalletAction, WalletError, WalletId};
use rust_decimal::Decimal;
use store::events::Claim;
use store::framework::Framework;
use store::unit::{Failed, UnitError, UnitOfWork};

use crate::compliance::safer::Safeguards;
use crate::wallet::WalletService;

/// A stake the member's safer-gambling rules must allow, decided in the
/// same unit as the bet and its money.
pub struct StakeCheck<'a> {
    pub safeguards: &'a Safeguards,
    pub member_id: &'a str,
    pub reference: String,
    pub amount: Decimal,
}

/// Why a transaction did not commit.
#[derive(Debug, thiserror::Error)]
pub enum TxError {
    #[error("{0}")]
    Bet(BetError),
    #[error("{0}")]
    Wallet(WalletError),
    #[error("{0}")]
    Safer(SaferError),
    #[error("the wallet already made the move '{0}'")]
    Duplicate(String),
    #[error("the request id was claimed by an earlier request")]
    Claimed,
    #[error("the transaction kept conflicting with concurrent commands")]
    Contended,
    #[error("event store failure: {0}")]
    Store(String),
}

impl From<UnitError<TxError>> for TxError {
    fn from(error: UnitError<TxError>) -> Self {
        match error {
            UnitError::Refused(e) => e,
            UnitError::Claimed => TxError::Claimed,
            UnitError::Contended => TxError::Contended,
            UnitError::Unmet(_) => TxError::Store("an unexpected guard".into()),
            UnitError::Store(why) => TxError::Store(why),
        }
    }
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

/// Decides `command` on the Bet `bet_id` and the wallet moves it needs on
/// `wallet`, and commits both or neither. `fresh`: the bet id was just
/// handed out, so the first attempt skips reading the Bet. `claim`: a
/// request id claimed with the events (`TxError::Claimed` when it was
/// claimed before). `stake`: the member's limits and exclusions decided
/// with it (a placement).
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
    stake: Option<&StakeCheck<'_>>,
) -> Result<Committed, TxError> {
    let uow = UnitOfWork::new(bets.retry()).counted(bets.metrics(), "Bet");
    let committed = store::unit_of_work!(uow, |unit| {
        unit.metadata(metadata.clone());
        let decided = if fresh {
            unit.decide_new(bets, bet_id, command.clone(), &()).await?
        } else {
            unit.decide(bets, bet_id, command.clone(), &()).await?
        };
        let decided = decided.map_err(|e| Failed::Refused(TxError::Bet(e)))?;
        let bet = decided.state.clone();
        let events: Vec<BetEvent> = decided.events.into_iter().cloned().collect();
        if let Some(check) = stake {
            check
                .safeguards
                .stake_in(unit, check.member_id, &check.reference, check.amount)
                .await?
                .map_err(|e| Failed::Refused(TxError::Safer(e)))?;
        }
        let wanted = moves(&bet, &events);
        let mut receipts = Vec::with_capacity(wanted.len());
        for (reference, action) in wanted {
            let receipt = wallet_service
                .move_in(unit, wallet, reference, action)
                .await?
                .map_err(|e| Failed::Refused(TxError::Wallet(e)))?;
            // A move already made under its reference (a free bet staked
            // before): this transaction must not stand on it.
            if receipt.duplicate {
                return Err(Failed::Refused(TxError::Duplicate(receipt.reference)));
            }
            receipts.push(receipt);
        }
        if let Some(claim) = claim {
            unit.claim(claim.clone());
        }
        Ok(Committed {
            events,
            bet,
            receipts,
        })
    })?;
    if !committed.receipts.is_empty() {
        wallet_service.framework().metrics().handled("Wallet", "ok");
    }
    Ok(committed)
}
