//! Bet placement and settlement.
//!
//! Placement takes the stake exactly once, keyed by the bet id: the Bet's
//! `BetPlaced`, the wallet's stake reservation (`bet:{id}`) and, unless the
//! bet waits for support, the stake taken (`bet:{id}:take`) commit in one
//! transaction (`together::bet_with_wallet`), so no crash can separate
//! them. Ids come from `id_blocks`, a block of 100 per process.
//!
//! A `do_bet` sent with a request id claims it (`request_claims`, scope
//! `do_bet:{member}`) in the bet's own transaction: the same request again,
//! in any process, answers the bet the first one placed and places nothing.
//! A request that was refused claimed nothing, so sending it again is a new
//! attempt.
//!
//! Placements of earlier versions went step by step, recorded in
//! `bet_placements`; `recover` still finishes or undoes any such placement
//! a crash interrupted (a bet that exists gets its stake taken, a stake
//! held for a bet that does not exist is released).
//!
//! Settlement carries out the tasks of the `settlement` projection: the Bet
//! aggregate settles (or re-settles after a corrected result, with the
//! difference), and the wallet pays `bet:{id}:payout:{version}` (or takes
//! back `bet:{id}:adjust:{version}`) once per result version. A take-back
//! the member cannot cover is taken in part and the rest queued for
//! support (`shortfalls`).

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use cqrs_es::EventStore;
use domain::bet::{
    validate, Bet, BetCommand, BetEvent, BetLimits, BetRefusal, BetRequest, ExpressBonus, Quote,
    RequestId, ValidBet,
};
use domain::result::SelectionOutcome;
use domain::wallet::{MovementKind, Pot, WalletAction, WalletCommand, WalletError, WalletId};
use domain::Currency;
use rust_decimal::Decimal;
use serde_json::json;
use sqlx::{AnyPool, Row};

use crate::compliance::safer::Safeguards;
use crate::engagement::notify::{Notifications, WIN};
use crate::platform::clock::SharedClock;
use crate::platform::ids::IdBlocks;
use crate::sportsbook::live::LiveCatalogue;
use crate::sportsbook::together::{bet_with_wallet, StakeCheck, TxError};
use crate::wallet::WalletService;
use store::db::Db;
use store::events::{claimed, Claim, StoreOptions};
use store::framework::{CommandError, Framework, RetryPolicy};
use store::metrics::CommandMetrics;

/// Placements untouched this long are finished or undone by `recover`.
pub const RECOVER_AFTER_MS: i64 = 300_000;

/// Stakes and limits per currency.
#[derive(Debug, Clone)]
pub struct BetSettings {
    pub min_stake: Decimal,
    pub max_stake: Decimal,
    /// Total express odds maximum: 1000 (default) or the 10000 reading.
    pub max_express_odds: Decimal,
    pub express_bonus: ExpressBonus,
    /// Selections per bet and combinations per system bet.
    pub max_selections: usize,
    pub max_combinations: usize,
}

impl Default for BetSettings {
    fn default() -> Self {
        Self {
            min_stake: Decimal::ONE,
            max_stake: Decimal::from(50_000),
            max_express_odds: domain::bet::EXPRESS_ODDS_LIMIT,
            express_bonus: ExpressBonus::default(),
            max_selections: domain::bet::MAX_SELECTIONS,
            max_combinations: domain::bet::MAX_COMBINATIONS,
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum PlaceError {
    #[error("{0}")]
    Refused(BetRefusal),
    #[error("internal: {0}")]
    Internal(String),
}

impl From<sqlx::Error> for PlaceError {
    fn from(e: sqlx::Error) -> Self {
        PlaceError::Internal(e.to_string())
    }
}

/// An accepted bet, for the `do_bet` answer.
#[derive(Debug, Clone)]
pub struct Placed {
    pub bet_id: String,
    pub currency: Currency,
    pub bet: ValidBet,
    /// A repeat of a request id: the bet an earlier request placed.
    pub repeated: bool,
}

pub struct BetService {
    pub(crate) framework: Framework<Bet>,
    pub(crate) wallets: Arc<WalletService>,
    pub(crate) live: Arc<LiveCatalogue>,
    pool: AnyPool,
    ids: IdBlocks,
    pub(crate) clock: SharedClock,
    pub(crate) notifications: Arc<Notifications>,
    pub free_bets: Arc<crate::sportsbook::freebets::FreeBets>,
    /// Corrections the member could not cover (the support queue).
    pub shortfalls: Arc<crate::sportsbook::shortfalls::Shortfalls>,
    settings: BetSettings,
    /// The members' limits and exclusions, decided with every placement.
    pub safeguards: Arc<Safeguards>,
}

impl BetService {
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        db: &Db,
        options: StoreOptions,
        retry: RetryPolicy,
        metrics: CommandMetrics,
        wallets: Arc<WalletService>,
        live: Arc<LiveCatalogue>,
        clock: SharedClock,
        notifications: Arc<Notifications>,
        settings: BetSettings,
        safeguards: Arc<Safeguards>,
    ) -> Self {
        Self {
            safeguards,
            framework: Framework::new(db, options, (), retry, metrics, None),
            wallets: wallets.clone(),
            live,
            pool: db.any.clone(),
            ids: IdBlocks::new(db.any.clone(), "bet", 100),
            free_bets: Arc::new(crate::sportsbook::freebets::FreeBets::new(
                db.any.clone(),
                wallets.clone(),
                clock.clone(),
            )),
            shortfalls: Arc::new(crate::sportsbook::shortfalls::Shortfalls::new(
                db.any.clone(),
                wallets.clone(),
                clock.clone(),
            )),
            clock: clock.clone(),
            notifications,
            settings,
        }
    }

    fn limits(&self, currency: Currency) -> BetLimits {
        let mut limits = BetLimits::new(currency, self.settings.min_stake, self.settings.max_stake);
        limits.max_express_odds = self.settings.max_express_odds;
        limits.max_selections = self.settings.max_selections;
        limits.max_combinations = self.settings.max_combinations;
        limits
    }

    /// The largest stake the member could place now.
    pub async fn max_bet(
        &self,
        member_id: &str,
        currency: Currency,
    ) -> Result<Decimal, PlaceError> {
        // What the store holds now: this process's cache may not have seen
        // a win another process paid.
        let balance = self.balance(member_id, currency, true).await?;
        Ok(balance.min(self.settings.max_stake))
    }

    /// The main balance: as this process last saw it (`current` false: a
    /// pre-check that may be stale), or as the store holds it now.
    async fn balance(
        &self,
        member_id: &str,
        currency: Currency,
        current: bool,
    ) -> Result<Decimal, PlaceError> {
        let id = WalletId::new(member_id, currency);
        let wallet = if current {
            self.wallets.load(&id).await
        } else {
            self.wallets.peek(&id).await
        }
        .map_err(|e| PlaceError::Internal(e.to_string()))?;
        Ok(wallet.balances().main)
    }

    async fn wallet(
        &self,
        member_id: &str,
        currency: Currency,
        reference: String,
        action: WalletAction,
    ) -> Result<(), CommandError<WalletError>> {
        self.wallets
            .execute(WalletCommand::new(
                WalletId::new(member_id, currency),
                reference,
                action,
            ))
            .await
            .map(|_| ())
    }

    async fn step(&self, bet_id: &str, state: &str) -> Result<(), sqlx::Error> {
        sqlx::query("UPDATE bet_placements SET state = $2, updated_ms = $3 WHERE bet_id = $1")
            .bind(bet_id)
            .bind(state)
            .bind(self.clock.now_ms())
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    /// Whether the member has a super bet waiting for support: its stake is
    /// the only stake a wallet holds beyond its placement's transaction
    /// (`bet:{id}`, never taken yet).
    async fn holds_super_bet(
        &self,
        member_id: &str,
        currency: Currency,
    ) -> Result<bool, PlaceError> {
        let wallet = self
            .wallets
            .peek(&WalletId::new(member_id, currency))
            .await
            .map_err(|e| PlaceError::Internal(e.to_string()))?;
        Ok(wallet
            .reservations
            .keys()
            .any(|r| r.starts_with("bet:") && !r.ends_with(":offer")))
    }

    /// The bet a request id placed, as `place` answered it.
    async fn placed_before(&self, bet_id: &str) -> Result<Placed, PlaceError> {
        let bet = self.load(bet_id).await?;
        let placement = bet.placement.ok_or_else(|| {
            PlaceError::Internal(format!(
                "request claimed by bet {bet_id}, which is not placed"
            ))
        })?;
        Ok(Placed {
            bet_id: bet_id.to_string(),
            currency: placement.currency,
            bet: placement.bet,
            repeated: true,
        })
    }

    /// Validates a `do_bet` against the live catalogue and places it. With
    /// a `request_id` the member used before for a bet that was placed: that
    /// bet, and nothing placed.
    pub async fn place(
        &self,
        member_id: &str,
        currency: Currency,
        request: &BetRequest,
        request_id: Option<&RequestId>,
    ) -> Result<Placed, PlaceError> {
        let scope = format!("do_bet:{member_id}");
        if let Some(id) = request_id {
            if let Some(bet_id) = claimed(&self.pool, &scope, id.as_str()).await? {
                return self.placed_before(&bet_id).await;
            }
        }
        let now_ms = self.clock.now_ms();
        // On a follower, prices no older than the leader's last change.
        let fresh = self
            .live
            .ensure_fresh(&self.pool)
            .await
            .map_err(|e| PlaceError::Internal(e.to_string()))?;
        let quotes: BTreeMap<u64, Quote> = self.live.read(|catalogue| {
            request
                .selections
                .iter()
                .filter_map(|pick| {
                    Quote::from_catalogue(catalogue, pick.event_id, now_ms / 1000)
                        .map(|q| (pick.event_id, q))
                })
                .collect()
        });
        if !fresh {
            // Still behind after waiting: the member is shown the prices
            // this process has and may try again.
            let details = request
                .selections
                .iter()
                .filter_map(|pick| quotes.get(&pick.event_id))
                .map(|q| domain::bet::PriceChange {
                    event_id: q.event_id,
                    new_price: q.price,
                    new_base: None,
                })
                .collect();
            return Err(PlaceError::Refused(BetRefusal::OddsChanged { details }));
        }
        // A free bet stakes its whole amount from the bonus pot.
        let free_bet = match request.bonus_id.as_deref() {
            Some(id) => Some(
                self.free_bets
                    .find(member_id, currency, id)
                    .await
                    .map_err(PlaceError::Internal)?
                    .ok_or(PlaceError::Refused(BetRefusal::FreeBetNotAvailable))?,
            ),
            None => None,
        };
        let balance = match &free_bet {
            Some(f) => f.amount,
            None => self.balance(member_id, currency, false).await?,
        };
        let limits = self.limits(currency);
        let bet = match validate(request, &quotes, &limits, balance) {
            // The cached balance may be stale (another process paid a win):
            // a refusal for the balance is only given on what the store holds.
            Err(BetRefusal::InsufficientBalance) if free_bet.is_none() => {
                let current = self.balance(member_id, currency, true).await?;
                validate(request, &quotes, &limits, current)
            }
            other => other,
        }
        .map_err(PlaceError::Refused)?;
        if let Some(f) = &free_bet {
            if bet.super_bet || bet.stake != f.amount {
                return Err(PlaceError::Refused(BetRefusal::FreeBetNotAvailable));
            }
        }
        if bet.super_bet && self.holds_super_bet(member_id, currency).await? {
            return Err(PlaceError::Refused(BetRefusal::OneSuperBet));
        }
        let bet_id = self.ids.next().await?.to_string();
        let place = BetCommand::Place {
            bet_id: bet_id.clone(),
            member_id: member_id.to_string(),
            currency,
            request_id: request_id
                .map(|id| id.to_string())
                .unwrap_or_else(|| bet_id.clone()),
            bet: bet.clone(),
            express_bonus: self.settings.express_bonus,
            at_ms: now_ms,
        };
        // The bet, its stake held and (unless support must answer first)
        // taken: one transaction, so there is no moment between them that
        // a crash could leave behind.
        let moves = |_: &Bet, events: &[BetEvent]| -> Vec<(String, WalletAction)> {
            events
                .iter()
                .flat_map(|event| match event {
                    BetEvent::BetPlaced {
                        bet_id,
                        bet,
                        status,
                        ..
                    } => {
                        // A free bet's stake is held under its own
                        // reference, which the wallet takes once.
                        let (held, pot) = match &bet.bonus_id {
                            Some(id) => {
                                (crate::sportsbook::freebets::used_reference(id), Pot::Bonus)
                            }
                            None => (format!("bet:{bet_id}"), Pot::Main),
                        };
                        // Held for support's answer, or held and taken at
                        // once (one wallet event).
                        let action = if *status == domain::bet::BetStatus::OnHold {
                            WalletAction::ReserveStake {
                                amount: bet.stake,
                                pot,
                            }
                        } else {
                            WalletAction::ReserveAndTakeStake {
                                amount: bet.stake,
                                pot,
                                take: format!("bet:{bet_id}:take"),
                            }
                        };
                        vec![(held, action)]
                    }
                    _ => vec![],
                })
                .collect()
        };
        let wallet = WalletId::new(member_id, currency);
        let stake = StakeCheck {
            safeguards: &self.safeguards,
            member_id,
            reference: format!("bet:{bet_id}"),
            amount: bet.stake,
        };
        let claim = request_id.map(|id| Claim {
            scope: scope.clone(),
            request_id: id.to_string(),
            answer: bet_id.clone(),
        });
        match bet_with_wallet(
            &self.framework,
            &self.wallets,
            &bet_id,
            place,
            HashMap::new(),
            &wallet,
            &moves,
            true,
            claim.as_ref(),
            Some(&stake),
        )
        .await
        {
            Ok(_) => Ok(Placed {
                bet_id,
                currency,
                bet,
                repeated: false,
            }),
            // The same request, placed meanwhile (by a concurrent repeat).
            Err(TxError::Claimed) => {
                let id = request_id.map(|id| id.as_str()).unwrap_or_default();
                match claimed(&self.pool, &scope, id).await? {
                    Some(first) => self.placed_before(&first).await,
                    None => Err(PlaceError::Internal("a claim that is not there".into())),
                }
            }
            Err(TxError::Wallet(WalletError::InsufficientBalance)) => {
                Err(PlaceError::Refused(match bet.bonus_id {
                    Some(_) => BetRefusal::FreeBetNotAvailable,
                    None => BetRefusal::InsufficientBalance,
                }))
            }
            Err(TxError::Duplicate(_)) => Err(PlaceError::Refused(BetRefusal::FreeBetNotAvailable)),
            Err(TxError::Safer(e)) => Err(PlaceError::Refused(BetRefusal::Safer(e))),
            // Nothing committed: the member may try again.
            Err(e) => Err(PlaceError::Internal(e.to_string())),
        }
    }

    /// Recovery's undo of a placement whose bet was never recorded. It
    /// first claims the reserve's own reference (`bet:{id}`): if the
    /// reserve never happened, the refusal recorded under that reference
    /// also refuses a late reserve; if it happened, nothing changes and the
    /// stake is released.
    async fn abandon(
        &self,
        bet_id: &str,
        member_id: &str,
        currency: Currency,
    ) -> Result<(), PlaceError> {
        let claim = WalletAction::ReleaseStake {
            reservation: format!("bet:{bet_id}"),
        };
        match self
            .wallet(member_id, currency, format!("bet:{bet_id}"), claim)
            .await
        {
            Ok(()) | Err(CommandError::Rejected(_)) => {}
            Err(e) => return Err(PlaceError::Internal(e.to_string())),
        }
        self.release(bet_id, member_id, currency).await
    }

    async fn release(
        &self,
        bet_id: &str,
        member_id: &str,
        currency: Currency,
    ) -> Result<(), PlaceError> {
        let release = WalletAction::ReleaseStake {
            reservation: format!("bet:{bet_id}"),
        };
        match self
            .wallet(
                member_id,
                currency,
                format!("bet:{bet_id}:release"),
                release,
            )
            .await
        {
            Ok(()) | Err(CommandError::Rejected(WalletError::UnknownReservation)) => {}
            Err(e) => return Err(PlaceError::Internal(e.to_string())),
        }
        self.step(bet_id, "released").await?;
        Ok(())
    }

    async fn take_stake(
        &self,
        bet_id: &str,
        member_id: &str,
        currency: Currency,
    ) -> Result<(), PlaceError> {
        let take = WalletAction::TakeStake {
            reservation: format!("bet:{bet_id}"),
        };
        match self
            .wallet(member_id, currency, format!("bet:{bet_id}:take"), take)
            .await
        {
            Ok(()) => {}
            // The stake is no longer held: the bet must not stand unpaid.
            Err(CommandError::Rejected(WalletError::UnknownReservation)) => {
                let decline = BetCommand::Decline {
                    reason_code: domain::Code::INSUFFICIENT_BALANCE.0,
                    at_ms: self.clock.now_ms(),
                };
                if let Err(e) = self
                    .framework
                    .execute(bet_id, decline, HashMap::new())
                    .await
                {
                    tracing::error!(bet_id, error = %e, "a bet whose stake is not held could not be declined; left for support");
                    return Err(PlaceError::Internal(e.to_string()));
                }
                self.step(bet_id, "released").await?;
                return Err(PlaceError::Internal(
                    "the stake was no longer held; bet declined".into(),
                ));
            }
            Err(e) => return Err(PlaceError::Internal(e.to_string())),
        }
        self.step(bet_id, "taken").await?;
        Ok(())
    }

    /// Finishes or undoes placements interrupted more than `older_than_ms`
    /// ago. Returns how many it handled.
    pub async fn recover(&self, older_than_ms: i64) -> Result<usize, PlaceError> {
        let cutoff = self.clock.now_ms() - older_than_ms;
        let rows = sqlx::query(
            "SELECT bet_id, member_id, currency FROM bet_placements WHERE state IN ('reserving', 'reserved', 'placed') AND updated_ms < $1 ORDER BY updated_ms LIMIT 500",
        )
        .bind(cutoff)
        .fetch_all(&self.pool)
        .await?;
        let mut handled = 0;
        for row in rows {
            let bet_id: String = row.try_get("bet_id")?;
            let member_id: String = row.try_get("member_id")?;
            let currency: Currency = row
                .try_get::<String, _>("currency")?
                .parse()
                .map_err(|e| PlaceError::Internal(format!("{e}")))?;
            // One placement that cannot be finished must not hold up the rest.
            let outcome = async {
                let bet = self.load(&bet_id).await?;
                match bet.placement.as_ref() {
                    Some(placement) if !placement.bet.super_bet => {
                        self.take_stake(&bet_id, &member_id, currency).await
                    }
                    Some(_) => Ok(()),
                    None => self.abandon(&bet_id, &member_id, currency).await,
                }
            }
            .await;
            match outcome {
                Ok(()) => handled += 1,
                Err(e) => tracing::warn!(bet_id, error = %e, "placement not recovered yet"),
            }
        }
        Ok(handled)
    }

    pub async fn load(&self, bet_id: &str) -> Result<Bet, PlaceError> {
        self.framework
            .store()
            .load_current(bet_id)
            .await
            .map(|l| l.aggregate)
            .map_err(|e| PlaceError::Internal(e.to_string()))
    }

    pub async fn events(&self, bet_id: &str) -> Result<Vec<BetEvent>, PlaceError> {
        let events = self
            .framework
            .store()
            .load_events(bet_id)
            .await
            .map_err(|e| PlaceError::Internal(e.to_string()))?;
        Ok(events.into_iter().map(|e| e.payload).collect())
    }

    /// Settles `bet_id` on the outcomes (and starting prices) known at
    /// `version` and pays what is due, once per version.
    pub async fn settle(
        &self,
        bet_id: &str,
        version: u64,
        outcomes: BTreeMap<u64, SelectionOutcome>,
        sp_prices: BTreeMap<u64, Decimal>,
    ) -> Result<(), PlaceError> {
        let at_ms = self.clock.now_ms();
        // A win is announced once: not again when a task is repeated.
        let announced = self.events(bet_id).await?.iter().any(|e| {
            matches!(e, BetEvent::BetSettled { result_version, .. } if *result_version == version)
        });
        let command = BetCommand::Settle {
            result_version: version,
            outcomes,
            sp_prices,
            at_ms,
        };
        if let Err(e) = self
            .framework
            .execute(bet_id, command, HashMap::new())
            .await
        {
            // A bet still on hold or declined is not settled.
            return match e {
                CommandError::Rejected(_) => Ok(()),
                other => Err(PlaceError::Internal(other.to_string())),
            };
        }
        let due = self.events(bet_id).await?.into_iter().find(|e| match e {
            BetEvent::BetSettled { result_version, .. }
            | BetEvent::BetResettled { result_version, .. } => *result_version == version,
            _ => false,
        });
        let Some(event) = due else { return Ok(()) };
        let (member_id, currency, status, payout) = match &event {
            BetEvent::BetSettled {
                member_id,
                currency,
                status,
                payout,
                ..
            }
            | BetEvent::BetResettled {
                member_id,
                currency,
                status,
                payout,
                ..
            } => (member_id.clone(), *currency, *status, *payout),
            _ => return Ok(()),
        };
        let amount = currency.round(event.amount_due());
        if amount > Decimal::ZERO {
            let pay = WalletAction::PayOut {
                amount,
                pot: Pot::Main,
            };
            self.wallet(
                &member_id,
                currency,
                format!("bet:{bet_id}:payout:{version}"),
                pay,
            )
            .await
            .map_err(|e| PlaceError::Internal(e.to_string()))?;
        } else if amount < Decimal::ZERO {
            // A correction that lowers the payout takes the difference back.
            let take = WalletAction::Debit {
                amount: -amount,
                pot: Pot::Main,
                kind: MovementKind::Adjustment,
            };
            match self
                .wallet(
                    &member_id,
                    currency,
                    format!("bet:{bet_id}:adjust:{version}"),
                    take,
                )
                .await
            {
                Ok(()) => {}
                // The member spent it: take what is there, queue the rest
                // for support as a debt (no balance goes negative).
                Err(CommandError::Rejected(WalletError::InsufficientBalance)) => {
                    self.shortfalls
                        .take_back_short(bet_id, version, &member_id, currency, -amount)
                        .await
                        .map_err(|e| PlaceError::Internal(e.to_string()))?;
                }
                Err(e) => return Err(PlaceError::Internal(e.to_string())),
            }
        }
        if !announced
            && matches!(event, BetEvent::BetSettled { .. })
            && payout > Decimal::ZERO
            && status.code() == 3
        {
            let body = json!({"subject": "win", "id": bet_id, "money": currency.round(payout).to_string(), "bonus": "0.00"});
            if let Err(e) = self.notifications.send(&member_id, WIN, &body).await {
                tracing::warn!(bet_id, error = %e, "win notification not sent");
            }
        }
        Ok(())
    }
}
