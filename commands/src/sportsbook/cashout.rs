//! Cash-outs, auto cash-out rules and super bets' counter offers: Bet
//! commands whose money moves commit with them (`together`).
//!
//! Wallet references: a cash-out credits `bet:{id}:cashout:{number}`; a
//! support or member decision on a held super bet takes the held stake
//! (`bet:{id}:take`), or releases it (`bet:{id}:release`) and, for a
//! counter offer with a lower stake, holds and takes the offered stake
//! (`bet:{id}:offer`, `bet:{id}:offer:take`).
//!
//! A cash-out is quoted on the bet's remaining stake and the command names
//! that stake; the Bet refuses it when another cash-out changed the stake
//! first, and the request (or the auto cash-out rule) is quoted again on
//! what is left, a bounded number of times (`REQUOTES`). So cash-outs racing
//! on one bet never pay more than the bet is worth.

use std::collections::{BTreeMap, HashMap};

use domain::bet::{Bet, BetCommand, BetError, BetEvent, BetStatus};
use domain::result::SelectionOutcome;
use domain::wallet::{Pot, WalletAction, WalletId};
use rust_decimal::Decimal;
use serde_json::json;

use crate::engagement::notify::TEXT;
use crate::sportsbook::bets::{BetService, PlaceError};
use crate::sportsbook::together::{bet_with_wallet, Committed, TxError};

/// The answer to a cash-out request (contract: `cashout`).
#[derive(Debug, Clone, PartialEq)]
pub enum CashOutAnswer {
    Ok {
        amount: Decimal,
        remaining_stake: Decimal,
        status: BetStatus,
    },
    Fail {
        new_price: Decimal,
    },
    NotAvailable,
}

/// How many times a cash-out is quoted again when another cash-out of the
/// same bet committed between its quote and its decision.
const REQUOTES: usize = 5;

/// What one quoted cash-out attempt came to.
enum Tried {
    Answer(CashOutAnswer),
    /// Quoted on a remaining stake the bet no longer has: quote again.
    Stale,
}

/// Who decides on a held super bet, for the event metadata.
#[derive(Debug, Clone)]
pub struct Decider {
    pub staff_id: String,
    pub role: String,
}

/// A support decision on a held super bet.
#[derive(Debug, Clone)]
pub enum Decision {
    Offer {
        amount: Option<Decimal>,
        price: Option<Decimal>,
        reason: String,
    },
    Accept {
        reason: Option<String>,
    },
    Decline {
        reason: String,
    },
}

/// The wallet moves of the Bet events that move money (other than
/// placement and settlement).
fn money_moves(bet_id: &str, events: &[BetEvent]) -> Vec<(String, WalletAction)> {
    let held = format!("bet:{bet_id}");
    let mut moves = Vec::new();
    for event in events {
        match event {
            BetEvent::BetCashedOut { number, amount, .. } if *amount > Decimal::ZERO => {
                moves.push((
                    format!("bet:{bet_id}:cashout:{number}"),
                    WalletAction::PayOut {
                        amount: *amount,
                        pot: Pot::Main,
                    },
                ));
            }
            BetEvent::BetAccepted { terms, .. } => match terms {
                Some(terms) if terms.stake_released > Decimal::ZERO => {
                    moves.push((
                        format!("{held}:release"),
                        WalletAction::ReleaseStake {
                            reservation: held.clone(),
                        },
                    ));
                    moves.push((
                        format!("{held}:offer"),
                        WalletAction::ReserveStake {
                            amount: terms.stake_taken,
                            pot: Pot::Main,
                        },
                    ));
                    moves.push((
                        format!("{held}:offer:take"),
                        WalletAction::TakeStake {
                            reservation: format!("{held}:offer"),
                        },
                    ));
                }
                _ => moves.push((
                    format!("{held}:take"),
                    WalletAction::TakeStake {
                        reservation: held.clone(),
                    },
                )),
            },
            BetEvent::BetDeclined { .. } => moves.push((
                format!("{held}:release"),
                WalletAction::ReleaseStake {
                    reservation: held.clone(),
                },
            )),
            _ => {}
        }
    }
    moves
}

impl BetService {
    /// The live prices of the bet's selections: `None` where the selection
    /// is suspended, blocked, gone, or a prematch game that has started.
    pub fn live_prices(&self, bet: &Bet) -> BTreeMap<u64, Option<Decimal>> {
        let Some(placed) = bet.placement.as_ref() else {
            return BTreeMap::new();
        };
        let now_s = self.clock.now_ms() / 1000;
        self.live.read(|catalogue| {
            placed
                .bet
                .legs
                .iter()
                .map(|leg| {
                    let quote = domain::bet::Quote::from_catalogue(catalogue, leg.event_id, now_s);
                    let price = quote
                        .filter(|q| !q.suspended && !q.blocked && !q.game_started)
                        .map(|q| q.price);
                    (leg.event_id, price)
                })
                .collect()
        })
    }

    /// The member's bet, or `None` when it is not theirs (or unknown).
    pub async fn own_bet(&self, member_id: &str, bet_id: &str) -> Result<Option<Bet>, PlaceError> {
        let bet = self.load(bet_id).await?;
        Ok(bet
            .placement
            .as_ref()
            .is_some_and(|p| p.member_id == member_id)
            .then_some(bet))
    }

    /// The cash-out amount of the member's bet now (`None`: not cashable).
    pub async fn cashout_quote(
        &self,
        member_id: &str,
        bet_id: &str,
        outcomes: &BTreeMap<u64, SelectionOutcome>,
    ) -> Result<Option<Decimal>, PlaceError> {
        let Some(bet) = self.own_bet(member_id, bet_id).await? else {
            return Ok(None);
        };
        Ok(bet.cashout_amount(&self.live_prices(&bet), outcomes))
    }

    async fn bet_tx(
        &self,
        bet: &Bet,
        bet_id: &str,
        command: BetCommand,
        metadata: HashMap<String, String>,
    ) -> Result<Committed, TxError> {
        let placed = bet
            .placement
            .as_ref()
            .ok_or(TxError::Bet(BetError::NotPlaced))?;
        let wallet = WalletId::new(&placed.member_id, placed.currency);
        let owned = bet_id.to_string();
        let moves = move |_: &Bet, events: &[BetEvent]| money_moves(&owned, events);
        bet_with_wallet(
            &self.framework,
            &self.wallets,
            bet_id,
            command,
            metadata,
            &wallet,
            &moves,
            false,
            None,
            None,
        )
        .await
    }

    /// Cashes out the member's bet (all, or `partial` of it) at
    /// `client_price`, the full amount the client showed.
    ///
    /// The amount is quoted on the bet's remaining stake, and the Bet
    /// refuses a quote whose stake another cash-out changed meanwhile (two
    /// requests racing on one bet): the request is then quoted again on the
    /// stake left, at most `REQUOTES` times. A quote that moved from what the
    /// client showed answers `Fail` with the new amount, as any price move
    /// does; so does a request still outrun after the last requote.
    pub async fn cash_out(
        &self,
        member_id: &str,
        bet_id: &str,
        client_price: Decimal,
        partial: Option<Decimal>,
        request_id: Option<&str>,
        outcomes: &BTreeMap<u64, SelectionOutcome>,
    ) -> Result<CashOutAnswer, PlaceError> {
        let Some(mut bet) = self.own_bet(member_id, bet_id).await? else {
            return Ok(CashOutAnswer::NotAvailable);
        };
        // The client's request id makes a repeated request (a lost answer
        // sent again) answer the first outcome instead of cashing out again.
        let request_id = match request_id {
            Some(id) => format!("cashout:{member_id}:{id}"),
            None => format!("cashout:{}", crate::accounts::sessions::token()),
        };
        for _ in 0..=REQUOTES {
            if bet.cashouts.contains(&request_id) {
                return self.replayed(bet_id, &request_id).await;
            }
            let Some(current) = bet.cashout_amount(&self.live_prices(&bet), outcomes) else {
                return Ok(CashOutAnswer::NotAvailable);
            };
            let command = BetCommand::CashOut {
                request_id: request_id.clone(),
                quoted_stake: bet.remaining_stake(),
                current_amount: current,
                client_price,
                partial,
                by_rule: false,
                at_ms: self.clock.now_ms(),
            };
            match self.run_cash_out(&bet, bet_id, command).await? {
                // The same request, committed meanwhile by a twin.
                Tried::Answer(CashOutAnswer::NotAvailable) => {
                    return self.replayed(bet_id, &request_id).await
                }
                Tried::Answer(answer) => return Ok(answer),
                Tried::Stale => bet = self.load(bet_id).await?,
            }
        }
        // Other cash-outs of the bet kept committing first: the amount the
        // stake left is worth now, for the client to confirm.
        let now = bet.cashout_amount(&self.live_prices(&bet), outcomes);
        Ok(now.map_or(CashOutAnswer::NotAvailable, |new_price| {
            CashOutAnswer::Fail { new_price }
        }))
    }

    /// The outcome of the cash-out made under `request_id`, if any.
    async fn replayed(&self, bet_id: &str, request_id: &str) -> Result<CashOutAnswer, PlaceError> {
        let events = self.events(bet_id).await?;
        let status = self.load(bet_id).await?.status;
        Ok(events
            .into_iter()
            .find_map(|e| match e {
                BetEvent::BetCashedOut {
                    request_id: made,
                    amount,
                    remaining_stake,
                    ..
                } if made == request_id => Some(CashOutAnswer::Ok {
                    amount,
                    remaining_stake,
                    status,
                }),
                _ => None,
            })
            .unwrap_or(CashOutAnswer::NotAvailable))
    }

    async fn run_cash_out(
        &self,
        bet: &Bet,
        bet_id: &str,
        command: BetCommand,
    ) -> Result<Tried, PlaceError> {
        match self.bet_tx(bet, bet_id, command, HashMap::new()).await {
            Ok(done) => {
                let cashed = done.events.iter().find_map(|e| match e {
                    BetEvent::BetCashedOut {
                        amount,
                        remaining_stake,
                        ..
                    } => Some((*amount, *remaining_stake)),
                    _ => None,
                });
                Ok(Tried::Answer(match cashed {
                    Some((amount, remaining_stake)) => CashOutAnswer::Ok {
                        amount,
                        remaining_stake,
                        status: done.bet.status,
                    },
                    None => CashOutAnswer::NotAvailable,
                }))
            }
            Err(TxError::Bet(BetError::StaleQuote)) => Ok(Tried::Stale),
            Err(TxError::Bet(BetError::PriceChanged { new_price })) => {
                Ok(Tried::Answer(CashOutAnswer::Fail { new_price }))
            }
            Err(TxError::Bet(_)) => Ok(Tried::Answer(CashOutAnswer::NotAvailable)),
            Err(e) => Err(PlaceError::Internal(e.to_string())),
        }
    }

    /// Fires the bet's auto cash-out rule if the current amount reaches
    /// it. Returns the cash-out made, if any. The rule is judged on the
    /// amount of the stake the bet has when it fires: when another cash-out
    /// of the bet commits first, the amount is quoted again on the stake
    /// left (at most `REQUOTES` times; past that, the next pass looks).
    pub async fn fire_auto_cashout(
        &self,
        bet_id: &str,
        outcomes: &BTreeMap<u64, SelectionOutcome>,
    ) -> Result<Option<CashOutAnswer>, PlaceError> {
        let mut bet = self.load(bet_id).await?;
        for _ in 0..=REQUOTES {
            let Some(current) = bet.cashout_amount(&self.live_prices(&bet), outcomes) else {
                return Ok(None);
            };
            let Some(command) = domain::bet::auto_cashout_due(&bet, current, self.clock.now_ms())
            else {
                return Ok(None);
            };
            match self.run_cash_out(&bet, bet_id, command).await? {
                Tried::Answer(answer) => {
                    self.tell_auto_cashout(&bet, bet_id, &answer).await;
                    return Ok(Some(answer));
                }
                Tried::Stale => bet = self.load(bet_id).await?,
            }
        }
        Ok(None)
    }

    /// Tells the member their rule cashed out (a failed notice is logged).
    async fn tell_auto_cashout(&self, bet: &Bet, bet_id: &str, answer: &CashOutAnswer) {
        if let (CashOutAnswer::Ok { amount, .. }, Some(placed)) = (answer, &bet.placement) {
            let body = json!({"subject": "cashout", "id": bet_id, "money": placed.currency.round(*amount).to_string(), "time": self.clock.now_ms()});
            if let Err(e) = self
                .notifications
                .send(&placed.member_id, TEXT, &body)
                .await
            {
                tracing::warn!(bet_id, error = %e, "auto cash-out notice not sent");
            }
        }
    }

    /// Sets the member's auto cash-out rule on a bet.
    pub async fn set_auto_cashout(
        &self,
        member_id: &str,
        bet_id: &str,
        min_amount: Decimal,
        partial_amount: Option<Decimal>,
        outcomes: &BTreeMap<u64, SelectionOutcome>,
    ) -> Result<Result<(), BetError>, PlaceError> {
        let Some(bet) = self.own_bet(member_id, bet_id).await? else {
            return Ok(Err(BetError::NotAvailable));
        };
        let (Some(current), Some(possible_win)) = (
            bet.cashout_amount(&self.live_prices(&bet), outcomes),
            bet.possible_win(),
        ) else {
            return Ok(Err(BetError::NotAvailable));
        };
        let command = BetCommand::SetAutoCashout {
            min_amount,
            partial_amount,
            current_amount: current,
            possible_win,
            at_ms: self.clock.now_ms(),
        };
        self.plain(bet_id, command, HashMap::new()).await
    }

    pub async fn cancel_auto_cashout(
        &self,
        member_id: &str,
        bet_id: &str,
    ) -> Result<Result<(), BetError>, PlaceError> {
        if self.own_bet(member_id, bet_id).await?.is_none() {
            return Ok(Err(BetError::NotAvailable));
        }
        let command = BetCommand::CancelAutoCashout {
            at_ms: self.clock.now_ms(),
        };
        self.plain(bet_id, command, HashMap::new()).await
    }

    /// A Bet command that moves no money.
    async fn plain(
        &self,
        bet_id: &str,
        command: BetCommand,
        metadata: HashMap<String, String>,
    ) -> Result<Result<(), BetError>, PlaceError> {
        match self.framework.execute(bet_id, command, metadata).await {
            Ok(()) => Ok(Ok(())),
            Err(store::framework::CommandError::Rejected(e)) => Ok(Err(e)),
            Err(e) => Err(PlaceError::Internal(e.to_string())),
        }
    }

    /// The member answers support's counter offer.
    pub async fn answer_counter_offer(
        &self,
        member_id: &str,
        bet_id: &str,
        accept: bool,
    ) -> Result<Result<Bet, BetError>, PlaceError> {
        let Some(bet) = self.own_bet(member_id, bet_id).await? else {
            return Ok(Err(BetError::NoCounterOffer));
        };
        let command = BetCommand::AnswerCounter {
            accept,
            at_ms: self.clock.now_ms(),
        };
        let metadata = HashMap::from([("member_id".to_string(), member_id.to_string())]);
        match self.bet_tx(&bet, bet_id, command, metadata).await {
            Ok(done) => Ok(Ok(done.bet)),
            Err(TxError::Bet(e)) => Ok(Err(e)),
            Err(e) => Err(PlaceError::Internal(e.to_string())),
        }
    }

    /// A support decision on a held super bet; the staff id, role and
    /// reason go into the event metadata, and the member is told.
    pub async fn decide_super_bet(
        &self,
        bet_id: &str,
        decider: &Decider,
        decision: Decision,
    ) -> Result<Result<Bet, BetError>, PlaceError> {
        let bet = self.load(bet_id).await?;
        let Some(placed) = bet.placement.clone() else {
            return Ok(Err(BetError::NotPlaced));
        };
        let at_ms = self.clock.now_ms();
        let staff_id = decider.staff_id.clone();
        let (command, reason, subject) = match decision {
            Decision::Offer {
                amount,
                price,
                reason,
            } => (
                BetCommand::OfferCounter {
                    staff_id,
                    amount,
                    price,
                    reason: reason.clone(),
                    at_ms,
                },
                Some(reason),
                "counter_offer",
            ),
            Decision::Accept { reason } => (
                BetCommand::SupportAccept {
                    staff_id,
                    reason: reason.clone(),
                    at_ms,
                },
                reason,
                "super_bet_accepted",
            ),
            Decision::Decline { reason } => (
                BetCommand::SupportDecline {
                    staff_id,
                    reason: reason.clone(),
                    at_ms,
                },
                Some(reason),
                "super_bet_declined",
            ),
        };
        let mut metadata = HashMap::from([
            ("staff_id".to_string(), decider.staff_id.clone()),
            ("staff_role".to_string(), decider.role.clone()),
        ]);
        if let Some(reason) = &reason {
            metadata.insert("reason".to_string(), reason.clone());
        }
        let done = match self.bet_tx(&bet, bet_id, command, metadata).await {
            Ok(done) => done,
            Err(TxError::Bet(e)) => return Ok(Err(e)),
            Err(e) => return Err(PlaceError::Internal(e.to_string())),
        };
        if !done.events.is_empty() {
            let content = match subject {
                "counter_offer" => "Support has made a counter offer on your bet.",
                "super_bet_accepted" => "Bet accepted.",
                _ => "Your bet was not accepted.",
            };
            let body = json!({"subject": subject, "id": bet_id, "content": content, "reason": reason, "time": at_ms});
            if let Err(e) = self
                .notifications
                .send(&placed.member_id, TEXT, &body)
                .await
            {
                tracing::warn!(bet_id, error = %e, "super bet notice not sent");
            }
        }
        Ok(Ok(done.bet))
    }
}
