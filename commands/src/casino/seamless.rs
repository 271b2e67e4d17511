//! The seamless wallet game providers call (DESIGN.md "Casino and the
//! seamless wallet", Hub88's operator wallet API): bets, wins and rollbacks
//! move the member's one wallet, the same one the sportsbook uses.
//!
//! What it guarantees, and how:
//! - A `transaction_uuid` is processed at most once, in any process: the
//!   round's events, the wallet movement (reference
//!   `casino:{provider}:{transaction_uuid}`) and a claim of the uuid in
//!   `request_claims` (scope `casino:{provider}`) commit in one database
//!   transaction. The claim holds a fingerprint of the call (kind, user,
//!   amount, currency, round, game, referenced transaction) and the answer
//!   given: an identical repeat gets that answer; the same uuid with any of
//!   those different is `RS_ERROR_DUPLICATE_TRANSACTION`.
//! - Refusals that depend on state (not enough money, token expired, user
//!   disabled, unknown or rolled-back reference, closed round) are claimed
//!   too, so a repeat answers the same; refusals of the request itself
//!   (signature, syntax, unknown token, game or currency) are not.
//! - A rollback of a transaction never seen claims that transaction's uuid
//!   as rolled back ("tombstone"): a bet arriving late under it is refused
//!   with `RS_ERROR_TRANSACTION_ROLLED_BACK`, so a provider's rollback of a
//!   bet that timed out can never be overtaken by the bet.
//! - Wins and rollbacks are accepted after the token expired and for a
//!   disabled member (the money is theirs); bets are not.

use std::collections::HashMap;
use std::sync::Arc;

use cqrs_es::AggregateError;
use domain::casino::round::{RoundOpening, TxKind, TxRequest};
use domain::casino::wire::{from_units, to_units};
use domain::casino::{CasinoRound, RoundCommand, RoundError, RoundEvent, Status};
use domain::wallet::{
    MovementKind, Pot, Wallet, WalletAction, WalletCommand, WalletError, WalletId,
};
use domain::Currency;
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};
use sqlx::AnyPool;

use crate::accounts::AccountService;
use crate::casino::catalogue::Catalogue;
use crate::casino::tokens::Tokens;
use crate::clock::SharedClock;
use crate::db::Db;
use crate::framework::{Framework, RetryPolicy};
use crate::group_commit::GroupCommit;
use crate::metrics::CommandMetrics;
use crate::store::{is_retryable, Appended, Claim, Decided, StoreOptions};
use crate::wallet::WalletService;

/// Longest id (transaction, round, supplier transaction) accepted.
pub const MAX_ID_CHARS: usize = 100;

/// A bet, win or rollback as the provider sent it (signature checked,
/// JSON types checked).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TxCall {
    pub provider: String,
    pub kind: TxKind,
    pub user: String,
    pub token: String,
    pub game_code: String,
    pub currency: String,
    pub transaction_uuid: String,
    pub supplier_transaction_id: String,
    pub round: String,
    pub round_closed: bool,
    pub reference_transaction_uuid: Option<String>,
    /// Units of 1/100,000; 0 for rollbacks.
    pub amount: i64,
}

/// The answer's fields besides `request_uuid`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WalletAnswer {
    pub status: Status,
    pub user: String,
    pub currency: String,
    pub balance: i64,
}

/// What a claim of a transaction uuid records.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct Record {
    /// Empty for a tombstone.
    fp: String,
    #[serde(default)]
    tomb: bool,
    answer: Option<WalletAnswer>,
}

fn kind_name(kind: TxKind) -> &'static str {
    match kind {
        TxKind::Bet => "bet",
        TxKind::Win => "win",
        TxKind::Rollback => "rollback",
    }
}

impl TxCall {
    fn fingerprint(&self) -> String {
        format!(
            "{}|{}|{}|{}|{}|{}|{}",
            kind_name(self.kind),
            self.user,
            self.amount,
            self.currency,
            self.round,
            self.game_code,
            self.reference_transaction_uuid.as_deref().unwrap_or("")
        )
    }

    fn answer(&self, status: Status, balance: i64) -> WalletAnswer {
        WalletAnswer {
            status,
            user: self.user.clone(),
            currency: self.currency.clone(),
            balance,
        }
    }
}

#[derive(Debug, thiserror::Error)]
enum Failure {
    #[error("{0}")]
    Store(String),
    #[error("kept conflicting")]
    Contended,
}

impl From<sqlx::Error> for Failure {
    fn from(e: sqlx::Error) -> Self {
        Failure::Store(e.to_string())
    }
}

pub struct Seamless {
    rounds: Framework<CasinoRound>,
    wallets: Arc<WalletService>,
    accounts: Arc<AccountService>,
    pub tokens: Arc<Tokens>,
    pub catalogue: Arc<Catalogue>,
    group: GroupCommit,
    any: AnyPool,
    clock: SharedClock,
}

enum Attempt {
    Done(WalletAnswer),
    Retry,
    RetryCurrent,
}

impl Seamless {
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        db: &Db,
        options: StoreOptions,
        retry: RetryPolicy,
        metrics: CommandMetrics,
        on_commit: Option<Arc<tokio::sync::Notify>>,
        wallets: Arc<WalletService>,
        accounts: Arc<AccountService>,
        tokens: Arc<Tokens>,
        catalogue: Arc<Catalogue>,
        clock: SharedClock,
    ) -> Self {
        Self {
            // Rounds are decided on the cached round: a stale one collides
            // on its sequence when it writes, and a refusal is given only
            // on the store's current round (`Attempt::RetryCurrent`).
            rounds: Framework::new(
                db,
                StoreOptions {
                    trust_cache: true,
                    ..options
                },
                (),
                retry,
                metrics,
                on_commit,
            ),
            wallets,
            accounts,
            tokens,
            catalogue,
            group: db.group.clone(),
            any: db.any.clone(),
            clock,
        }
    }

    fn scope(provider: &str) -> String {
        format!("casino:{provider}")
    }

    /// The wallet reference of a provider transaction.
    pub fn reference(provider: &str, transaction_uuid: &str) -> String {
        format!("casino:{provider}:{transaction_uuid}")
    }

    async fn record(&self, provider: &str, uuid: &str) -> Result<Option<Record>, Failure> {
        let found = crate::store::claimed(&self.any, &Self::scope(provider), uuid).await?;
        Ok(found.and_then(|text| serde_json::from_str(&text).ok()))
    }

    async fn balance(&self, wallet: &WalletId) -> Result<i64, Failure> {
        let w = self
            .wallets
            .load(wallet)
            .await
            .map_err(|e| Failure::Store(e.to_string()))?;
        Ok(to_units(w.balances().main))
    }

    /// `user/balance` and `user/info`: the member's main balance in the
    /// token's currency (or the account's when no token is given).
    pub async fn user_balance(
        &self,
        provider: &str,
        user: &str,
        token: Option<&str>,
    ) -> WalletAnswer {
        let fail = |status| WalletAnswer {
            status,
            user: user.to_string(),
            currency: String::new(),
            balance: 0,
        };
        let currency = match token {
            Some(token) => match self.tokens.find(token).await {
                Ok(Some(t)) if t.member_id == user && t.provider == provider => {
                    if t.expires_ms <= self.clock.now_ms() {
                        return fail(Status::TokenExpired);
                    }
                    t.currency
                }
                Ok(_) => return fail(Status::InvalidToken),
                Err(_) => return fail(Status::Unknown),
            },
            None => match self.accounts.load(user).await {
                Ok(account) => match account.profile.as_ref() {
                    Some(p) => p.currency,
                    None => return fail(Status::InvalidToken),
                },
                Err(_) => return fail(Status::InvalidToken),
            },
        };
        match self.balance(&WalletId::new(user, currency)).await {
            Ok(balance) => WalletAnswer {
                status: Status::Ok,
                user: user.to_string(),
                currency: currency.code().to_string(),
                balance,
            },
            Err(_) => fail(Status::Unknown),
        }
    }

    /// A bet, win or rollback. Never fails: store trouble answers
    /// `RS_ERROR_UNKNOWN` (the provider retries the same transaction).
    pub async fn transaction(&self, call: &TxCall) -> WalletAnswer {
        match self.process(call).await {
            Ok(answer) => answer,
            Err(e) => {
                tracing::error!(provider = %call.provider, transaction = %call.transaction_uuid, error = %e, "seamless wallet transaction failed");
                call.answer(Status::Unknown, 0)
            }
        }
    }

    async fn process(&self, call: &TxCall) -> Result<WalletAnswer, Failure> {
        let ids_ok = |s: &str| !s.is_empty() && s.chars().count() <= MAX_ID_CHARS;
        let reference_ok = match (call.kind, &call.reference_transaction_uuid) {
            (TxKind::Bet, _) => true,
            (_, Some(r)) => ids_ok(r),
            (_, None) => false,
        };
        if !ids_ok(&call.transaction_uuid)
            || !ids_ok(&call.round)
            || call.supplier_transaction_id.chars().count() > MAX_ID_CHARS
            || !reference_ok
            || call.amount < 0
        {
            return Ok(call.answer(Status::WrongSyntax, 0));
        }
        // The common case is a first call: it goes straight to the commit,
        // whose claim finds a repeat (no read of the claims before).
        for _ in 0..3 {
            match self.first_time(call).await? {
                Some(answer) => return Ok(answer),
                // The uuid was claimed before (or meanwhile): answer from it.
                None => {
                    if let Some(answer) = self.repeat(call).await? {
                        return Ok(answer);
                    }
                }
            }
        }
        Err(Failure::Contended)
    }

    /// A refusal of the request itself, unless the uuid was seen before
    /// (then the repeat rules answer: the same uuid with another user,
    /// currency or game is a duplicate).
    async fn request_refusal(
        &self,
        call: &TxCall,
        status: Status,
        balance: i64,
    ) -> Result<Option<WalletAnswer>, Failure> {
        if self
            .record(&call.provider, &call.transaction_uuid)
            .await?
            .is_some()
        {
            return Ok(None);
        }
        Ok(Some(call.answer(status, balance)))
    }

    /// The answer to a transaction uuid seen before, if it was.
    async fn repeat(&self, call: &TxCall) -> Result<Option<WalletAnswer>, Failure> {
        let Some(record) = self.record(&call.provider, &call.transaction_uuid).await? else {
            return Ok(None);
        };
        if record.tomb {
            let status = if call.kind == TxKind::Bet {
                Status::TransactionRolledBack
            } else {
                Status::DuplicateTransaction
            };
            return Ok(Some(self.refusal_now(call, status).await));
        }
        if record.fp == call.fingerprint() {
            if let Some(answer) = record.answer {
                return Ok(Some(answer));
            }
        }
        Ok(Some(
            self.refusal_now(call, Status::DuplicateTransaction).await,
        ))
    }

    /// A refusal with the member's balance as it is now (0 when unknown).
    async fn refusal_now(&self, call: &TxCall, status: Status) -> WalletAnswer {
        let balance = match call.currency.parse::<Currency>() {
            Ok(currency) => self
                .balance(&WalletId::new(call.user.clone(), currency))
                .await
                .unwrap_or(0),
            Err(_) => 0,
        };
        call.answer(status, balance)
    }

    /// Processes a transaction uuid not seen before; `None` when another
    /// request claimed it meanwhile.
    async fn first_time(&self, call: &TxCall) -> Result<Option<WalletAnswer>, Failure> {
        let token = match self.tokens.find(&call.token).await? {
            Some(t) if t.member_id == call.user && t.provider == call.provider => t,
            _ => return self.request_refusal(call, Status::InvalidToken, 0).await,
        };
        let currency: Currency = match call.currency.parse() {
            Ok(c) if c == token.currency => c,
            _ => {
                let wallet = WalletId::new(call.user.clone(), token.currency);
                let balance = self.balance(&wallet).await?;
                return self
                    .request_refusal(call, Status::WrongCurrency, balance)
                    .await;
            }
        };
        let wallet = WalletId::new(call.user.clone(), currency);
        let Some(game) = self
            .catalogue
            .game_by_code(&call.provider, &call.game_code)
            .await?
        else {
            let balance = self.balance(&wallet).await?;
            return self
                .request_refusal(call, Status::InvalidGame, balance)
                .await;
        };
        let Some(amount) = from_units(call.amount, currency) else {
            let balance = self.balance(&wallet).await?;
            return self
                .request_refusal(call, Status::WrongSyntax, balance)
                .await;
        };
        let now = self.clock.now_ms();
        if call.kind == TxKind::Bet {
            if token.expires_ms <= now {
                return self.refuse(call, &wallet, Status::TokenExpired).await;
            }
            let disabled = match self.accounts.load(&call.user).await {
                Ok(account) => matches!(
                    account.is_locked_at(now),
                    Some(domain::account::LockKind::Staff)
                ),
                Err(_) => true,
            };
            if disabled {
                return self.refuse(call, &wallet, Status::UserDisabled).await;
            }
        }
        if call.kind == TxKind::Rollback {
            let reference = call.reference_transaction_uuid.as_deref().unwrap_or("");
            if self.record(&call.provider, reference).await?.is_none() {
                return self.tombstone(call, &wallet, reference).await;
            }
        }
        let command = RoundCommand {
            opening: RoundOpening {
                member_id: call.user.clone(),
                currency,
                provider: call.provider.clone(),
                game_code: call.game_code.clone(),
                game_id: game.id,
                product: game.product.clone(),
                round: call.round.clone(),
            },
            tx: TxRequest {
                kind: call.kind,
                transaction_uuid: call.transaction_uuid.clone(),
                supplier_transaction_id: call.supplier_transaction_id.clone(),
                reference_transaction_uuid: call.reference_transaction_uuid.clone(),
                amount,
                round_closed: call.round_closed,
                at_ms: now,
            },
        };
        self.commit(call, &wallet, command).await
    }

    /// Claims a refusal so that a repeat answers it again.
    async fn refuse(
        &self,
        call: &TxCall,
        wallet: &WalletId,
        status: Status,
    ) -> Result<Option<WalletAnswer>, Failure> {
        let answer = call.answer(status, self.balance(wallet).await?);
        let claim = self.claim(call, &answer);
        match self.group.append_parts(&[], Some(&claim)).await {
            Ok(Appended::Done) => Ok(Some(answer)),
            Ok(Appended::Claimed) => Ok(None),
            Err(e) => Err(Failure::Store(e.to_string())),
        }
    }

    fn claim(&self, call: &TxCall, answer: &WalletAnswer) -> Claim {
        let record = Record {
            fp: call.fingerprint(),
            tomb: false,
            answer: Some(answer.clone()),
        };
        Claim {
            scope: Self::scope(&call.provider),
            request_id: call.transaction_uuid.clone(),
            answer: serde_json::to_string(&record).unwrap_or_default(),
        }
    }

    /// A rollback of a transaction never seen: that transaction is claimed
    /// as rolled back, and the rollback answered
    /// `RS_ERROR_TRANSACTION_DOES_NOT_EXIST` (nothing to give back).
    async fn tombstone(
        &self,
        call: &TxCall,
        wallet: &WalletId,
        reference: &str,
    ) -> Result<Option<WalletAnswer>, Failure> {
        let tomb = Claim {
            scope: Self::scope(&call.provider),
            request_id: reference.to_string(),
            answer: serde_json::to_string(&Record {
                fp: String::new(),
                tomb: true,
                answer: None,
            })
            .unwrap_or_default(),
        };
        match self.group.append_parts(&[], Some(&tomb)).await {
            Ok(Appended::Done) => {}
            // The transaction arrived meanwhile: roll it back for real.
            Ok(Appended::Claimed) => return Ok(None),
            Err(e) => return Err(Failure::Store(e.to_string())),
        }
        self.refuse(call, wallet, Status::TransactionDoesNotExist)
            .await
    }

    /// The wallet moves a round decision needs.
    fn moves(call: &TxCall, events: &[RoundEvent]) -> Vec<(String, WalletAction)> {
        let reference = Self::reference(&call.provider, &call.transaction_uuid);
        events
            .iter()
            .filter_map(|e| match e {
                RoundEvent::BetPlaced { amount, .. } if !amount.is_zero() => {
                    Some(WalletAction::Debit {
                        amount: *amount,
                        pot: Pot::Main,
                        kind: MovementKind::GameDebit,
                    })
                }
                RoundEvent::WinPaid { amount, .. } | RoundEvent::BetRolledBack { amount, .. }
                    if !amount.is_zero() =>
                {
                    Some(WalletAction::Credit {
                        amount: *amount,
                        pot: Pot::Main,
                        kind: MovementKind::GameCredit,
                    })
                }
                _ => None,
            })
            .map(|action| (reference.clone(), action))
            .collect()
    }

    async fn commit(
        &self,
        call: &TxCall,
        wallet: &WalletId,
        command: RoundCommand,
    ) -> Result<Option<WalletAnswer>, Failure> {
        let round_id = format!("{}:{}:{}", call.provider, call.user, call.round);
        let wallet_key = wallet.to_string();
        // The round's turn first, then the wallet's (together.rs's order).
        let _round_turn = self.rounds.turn(&round_id).await;
        let _wallet_turn = self.wallets.framework().turn(&wallet_key).await;
        let retry = self.rounds.retry();
        let started = std::time::Instant::now();
        let mut current = false;
        let mut attempt = 0;
        while attempt == 0 || retry.again(attempt, started) {
            attempt += 1;
            // A bet on a round this process has not seen is decided on a
            // new round without reading the store (most bets open their
            // round); should the round exist after all, the append collides
            // or the decision refuses, and the next attempt reads it.
            let fresh = attempt == 1
                && !current
                && call.kind == TxKind::Bet
                && !self.rounds.store().is_cached(&round_id);
            match self
                .try_once(
                    call,
                    wallet,
                    &wallet_key,
                    &round_id,
                    &command,
                    current,
                    fresh,
                )
                .await?
            {
                Attempt::Done(answer) => {
                    self.rounds.metrics().handled("CasinoRound", "ok");
                    return Ok(Some(answer));
                }
                Attempt::RetryCurrent => {
                    current = true;
                    attempt -= 1;
                }
                Attempt::Retry => tokio::time::sleep(retry.delay(attempt - 1)).await,
            }
            // A claim written meanwhile (another process) decides.
            if self
                .record(&call.provider, &call.transaction_uuid)
                .await?
                .is_some()
            {
                return Ok(None);
            }
        }
        Err(Failure::Contended)
    }

    #[allow(clippy::too_many_arguments)]
    async fn try_once(
        &self,
        call: &TxCall,
        wallet: &WalletId,
        wallet_key: &str,
        round_id: &str,
        command: &RoundCommand,
        current: bool,
        fresh: bool,
    ) -> Result<Attempt, Failure> {
        let metadata = HashMap::new();
        let rounds = self.rounds.store();
        let decided_round = if current {
            rounds
                .decide_current(round_id, command.clone(), &(), &metadata)
                .await
        } else if fresh {
            rounds
                .decide_fresh(round_id, command.clone(), &(), &metadata)
                .await
        } else {
            rounds
                .decide(round_id, command.clone(), &(), &metadata)
                .await
        };
        let decided_round = match decided_round {
            Ok(d) => d,
            // Refused on a cached (or assumed new) round: decide again on
            // what the store holds before refusing.
            Err(AggregateError::UserError(_)) if !current => return Ok(Attempt::RetryCurrent),
            Err(AggregateError::UserError(e)) => {
                let status = match e {
                    RoundError::Closed => Status::Unknown,
                    RoundError::TransactionDoesNotExist => Status::TransactionDoesNotExist,
                    RoundError::TransactionRolledBack => Status::TransactionRolledBack,
                    RoundError::LimitReached => Status::LimitReached,
                    RoundError::Mismatch => Status::WrongCurrency,
                };
                return match self.refuse(call, wallet, status).await? {
                    Some(answer) => Ok(Attempt::Done(answer)),
                    None => Ok(Attempt::Retry),
                };
            }
            Err(AggregateError::AggregateConflict) => return Ok(Attempt::Retry),
            Err(e) => return Err(Failure::Store(e.to_string())),
        };
        let events: Vec<RoundEvent> = decided_round.events().cloned().collect();
        let mut decided_wallet: Option<Decided<Wallet>> = None;
        let mut balance: Option<Decimal> = None;
        for (reference, action) in Self::moves(call, &events) {
            let command = WalletCommand::new(wallet.clone(), reference, action);
            let reply = command.reply.clone();
            let store = self.wallets.framework().store();
            let decided = match decided_wallet.take() {
                None if current => {
                    store
                        .decide_current(wallet_key, command, self.wallets.services(), &metadata)
                        .await
                }
                None => {
                    store
                        .decide(wallet_key, command, self.wallets.services(), &metadata)
                        .await
                }
                Some(d) => {
                    store
                        .decide_more(d, command, self.wallets.services(), &metadata)
                        .await
                }
            };
            let decided = match decided {
                Ok(d) => d,
                // The reference book could not be read: a store failure.
                Err(AggregateError::UserError(WalletError::Unavailable(why))) => {
                    return Err(Failure::Store(why))
                }
                Err(AggregateError::UserError(_)) if !current => return Ok(Attempt::RetryCurrent),
                Err(AggregateError::UserError(_)) => {
                    return Ok(Attempt::Done(
                        call.answer(Status::Unknown, self.balance(wallet).await?),
                    ))
                }
                Err(AggregateError::AggregateConflict) => return Ok(Attempt::Retry),
                Err(e) => return Err(Failure::Store(e.to_string())),
            };
            match reply.take() {
                Some(Ok(receipt)) if receipt.duplicate => {
                    // The wallet made this move before, under this very
                    // reference: the claim must exist; answer from it.
                    rounds.abandoned(round_id);
                    return Ok(Attempt::Retry);
                }
                Some(Ok(receipt)) => balance = Some(receipt.balances.main),
                Some(Err(_)) if !current => return Ok(Attempt::RetryCurrent),
                Some(Err(WalletError::InsufficientBalance)) => {
                    let actual = to_units(decided.aggregate().balances().main);
                    let answer = call.answer(Status::NotEnoughMoney, actual);
                    let claim = self.claim(call, &answer);
                    return match self.group.append_parts(&[], Some(&claim)).await {
                        Ok(Appended::Done) => Ok(Attempt::Done(answer)),
                        Ok(Appended::Claimed) => Ok(Attempt::Retry),
                        Err(e) => Err(Failure::Store(e.to_string())),
                    };
                }
                Some(Err(_)) | None => {
                    return Ok(Attempt::Done(
                        call.answer(Status::Unknown, self.balance(wallet).await?),
                    ))
                }
            }
            decided_wallet = Some(decided);
        }
        let balance = match balance {
            Some(b) => to_units(b),
            None => self.balance(wallet).await?,
        };
        let answer = call.answer(Status::Ok, balance);
        let claim = self.claim(call, &answer);
        let appended = match &decided_wallet {
            Some(w) => {
                self.group
                    .append_parts(&[&decided_round, w], Some(&claim))
                    .await
            }
            None => {
                self.group
                    .append_parts(&[&decided_round], Some(&claim))
                    .await
            }
        };
        match appended {
            Ok(Appended::Done) => {
                rounds.committed(decided_round).await;
                if let Some(w) = decided_wallet {
                    self.wallets.framework().store().committed(w).await;
                    self.wallets.framework().committed();
                }
                self.rounds.committed();
                Ok(Attempt::Done(answer))
            }
            Ok(Appended::Claimed) => {
                rounds.abandoned(round_id);
                self.wallets.framework().store().abandoned(wallet_key);
                Ok(Attempt::Retry)
            }
            Err(e) => {
                rounds.abandoned(round_id);
                self.wallets.framework().store().abandoned(wallet_key);
                if is_retryable(&e) {
                    Ok(Attempt::Retry)
                } else {
                    Err(Failure::Store(e.to_string()))
                }
            }
        }
    }

    /// Every event of one round (audits, tests, the back office).
    pub async fn round_events(&self, round_id: &str) -> Result<Vec<RoundEvent>, String> {
        let events = cqrs_es::EventStore::load_events(self.rounds.store(), round_id)
            .await
            .map_err(|e| e.to_string())?;
        Ok(events.into_iter().map(|e| e.payload).collect())
    }
}
