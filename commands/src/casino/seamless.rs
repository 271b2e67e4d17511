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

use std::sync::Arc;

use domain::casino::round::{RoundOpening, TxKind, TxRequest};
use domain::casino::wire::{from_units, to_units};
use domain::casino::{CasinoRound, RoundCommand, RoundError, RoundEvent, Status};
use domain::wallet::{MovementKind, Pot, WalletAction, WalletError, WalletId};
use domain::Currency;
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};
use sqlx::AnyPool;

use crate::accounts::AccountService;
use crate::casino::catalogue::Catalogue;
use crate::casino::tokens::Tokens;
use crate::compliance::safer::Safeguards;
use crate::platform::clock::SharedClock;
use crate::wallet::WalletService;
use store::db::Db;
use store::events::{Claim, StoreOptions};
use store::framework::{Framework, RetryPolicy};
use store::group_commit::GroupCommit;
use store::metrics::CommandMetrics;
use store::unit::{Abort, Failed, UnitError, UnitOfWork};

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
    /// The members' limits and exclusions, decided with every bet.
    safer: Arc<Safeguards>,
}

/// The transaction uuid was claimed (or its move made) by another
/// request: the answer comes from its claim.
#[derive(Debug)]
struct Seen;

impl std::fmt::Display for Seen {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("the transaction was claimed meanwhile")
    }
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
        safer: Arc<Safeguards>,
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
            safer,
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
        let found = store::events::claimed(&self.any, &Self::scope(provider), uuid).await?;
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
        self.claim_alone(claim)
            .await
            .map(|won| won.then_some(answer))
    }

    /// Commits `claim` alone (a refusal, a tombstone): whether it won.
    async fn claim_alone(&self, claim: Claim) -> Result<bool, Failure> {
        let uow = UnitOfWork::new(self.rounds.retry()).on(&self.group);
        let claimed: Result<(), UnitError<Failure>> = store::unit_of_work!(uow, |unit| {
            unit.claim(claim.clone());
            Ok(())
        });
        match claimed {
            Ok(()) => Ok(true),
            Err(UnitError::Claimed) => Ok(false),
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
        if !self.claim_alone(tomb).await? {
            // The transaction arrived meanwhile: roll it back for real.
            return Ok(None);
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

    /// The round's decision, its wallet moves and the claim of the
    /// transaction uuid, in one unit of work (`store::unit`). `None`: the
    /// uuid was claimed by another request meanwhile (answered from it).
    async fn commit(
        &self,
        call: &TxCall,
        wallet: &WalletId,
        command: RoundCommand,
    ) -> Result<Option<WalletAnswer>, Failure> {
        let round_id = format!("{}:{}:{}", call.provider, call.user, call.round);
        // A bet on a round this process has not seen is decided on a new
        // round without reading the store (most bets open their round);
        // should the round exist after all, the commit collides or the
        // decision refuses, and the next attempt reads it.
        let new_round = call.kind == TxKind::Bet && !self.rounds.store().is_cached(&round_id);
        let store_failure = |e: Failure| Failed::Abort(Abort::Store(e.to_string()));
        let uow = UnitOfWork::new(self.rounds.retry())
            .counted(self.rounds.metrics(), "CasinoRound")
            .on(&self.group);
        let outcome = store::unit_of_work!(uow, |unit| {
            // A claim written meanwhile (another process) decides.
            if unit.attempt() > 1
                && self
                    .record(&call.provider, &call.transaction_uuid)
                    .await
                    .map_err(store_failure)?
                    .is_some()
            {
                return Err(Failed::Refused(Seen));
            }
            let decided = if new_round {
                unit.decide_new(&self.rounds, &round_id, command.clone(), &())
                    .await?
            } else {
                unit.decide(&self.rounds, &round_id, command.clone(), &())
                    .await?
            };
            let events: Vec<RoundEvent> = match decided {
                Ok(decided) => decided.events.into_iter().cloned().collect(),
                // Refused on the store's round: claimed, so that a repeat
                // answers the same.
                Err(refusal) => {
                    let status = match refusal {
                        RoundError::Closed => Status::Unknown,
                        RoundError::TransactionDoesNotExist => Status::TransactionDoesNotExist,
                        RoundError::TransactionRolledBack => Status::TransactionRolledBack,
                        RoundError::LimitReached => Status::LimitReached,
                        RoundError::Mismatch => Status::WrongCurrency,
                    };
                    let balance = self.balance(wallet).await.map_err(store_failure)?;
                    let answer = call.answer(status, balance);
                    unit.forget_decisions();
                    unit.claim(self.claim(call, &answer));
                    return Ok(answer);
                }
            };
            // A stake passes the member's limits and exclusions first
            // (`RS_ERROR_USER_DISABLED`, `RS_ERROR_LIMIT_REACHED`), and is
            // counted with the round when a limit needs it.
            for event in &events {
                let RoundEvent::BetPlaced { amount, .. } = event else {
                    continue;
                };
                let reference = Self::reference(&call.provider, &call.transaction_uuid);
                let checked = self
                    .safer
                    .stake_in(unit, &wallet.member_id, &reference, *amount)
                    .await?;
                if let Err(refusal) = checked {
                    unit.forget_decisions();
                    let status = if refusal.is_exclusion() {
                        Status::UserDisabled
                    } else {
                        Status::LimitReached
                    };
                    let actual = self.balance(wallet).await.map_err(store_failure)?;
                    let answer = call.answer(status, actual);
                    unit.claim(self.claim(call, &answer));
                    return Ok(answer);
                }
            }
            let mut balance: Option<Decimal> = None;
            for (reference, action) in Self::moves(call, &events) {
                match self
                    .wallets
                    .move_in(unit, wallet, reference, action)
                    .await?
                {
                    // The wallet made this move before, under this very
                    // reference: the claim exists; answer from it.
                    Ok(receipt) if receipt.duplicate => return Err(Failed::Refused(Seen)),
                    Ok(receipt) => balance = Some(receipt.balances.main),
                    Err(WalletError::InsufficientBalance) => {
                        unit.forget_decisions();
                        let actual = self.balance(wallet).await.map_err(store_failure)?;
                        let answer = call.answer(Status::NotEnoughMoney, actual);
                        unit.claim(self.claim(call, &answer));
                        return Ok(answer);
                    }
                    Err(_) => {
                        unit.forget_decisions();
                        let actual = self.balance(wallet).await.map_err(store_failure)?;
                        return Ok(call.answer(Status::Unknown, actual));
                    }
                }
            }
            let balance = match balance {
                Some(b) => to_units(b),
                None => self.balance(wallet).await.map_err(store_failure)?,
            };
            let answer = call.answer(Status::Ok, balance);
            unit.claim(self.claim(call, &answer));
            Ok(answer)
        });
        match outcome {
            Ok(answer) => Ok(Some(answer)),
            Err(UnitError::Claimed | UnitError::Refused(Seen)) => Ok(None),
            Err(UnitError::Contended) => Err(Failure::Contended),
            Err(e) => Err(Failure::Store(e.to_string())),
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
