use std::collections::BTreeMap;

use cqrs_es::event_sink::EventSink;
use cqrs_es::Aggregate;
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};

use super::cashout::{
    at_one_place, auto_cashout_bounds, cash_out_offered, cashout_amount, reprice, running_bet,
    stake_part,
};
use super::{
    settle, AcceptedTerms, AutoCashout, BetCommand, BetError, BetEvent, BetSettlement, BetStatus,
    BetType, CounterOffer, ExpressBonus, LegResults, ValidBet,
};
use crate::money::round_odds;
use crate::result::SelectionOutcome;
use crate::Currency;

/// What the bet was placed with (after a counter offer: the terms it was
/// accepted on).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Placement {
    pub bet_id: String,
    pub member_id: String,
    pub currency: Currency,
    pub request_id: String,
    pub bet: ValidBet,
    pub express_bonus: ExpressBonus,
    pub at_ms: i64,
    /// The cash-out flag (spec 000 section 3): see `cash_out_offered`.
    #[serde(default)]
    pub cash_out: bool,
}

/// The Bet aggregate: one per bet id.
///
/// Rules: placed once (a repeat of the request id changes nothing); a
/// super bet waits on hold until support accepts or declines it or makes a
/// counter offer the member accepts or declines; a bet can be declined
/// only before any settlement or cash-out; settled once when its payout is
/// decided, and re-settled with a compensating `BetResettled` whenever a
/// later result version changes its legs' outcomes. `paid` is what the
/// member has been paid by settlements so far, so a re-settlement always
/// moves `new - paid`; cash-outs are paid apart (`cashed_out`).
///
/// Cash-out races settlement: a cash-out after any settlement is refused
/// (the settlement won), a settlement of a fully cashed-out bet produces
/// nothing (the cash-out won). A partial cash-out leaves the bet running on
/// the remaining stake; its settlement pays on that stake only.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Bet {
    pub placement: Option<Placement>,
    pub status: BetStatus,
    /// The last result version applied; none before the first settlement.
    pub result_version: Option<u64>,
    /// The legs' outcomes and SP prices last settled on.
    pub outcomes: BTreeMap<u64, SelectionOutcome>,
    pub sp_prices: BTreeMap<u64, Decimal>,
    /// What the settlement pays; after a full cash-out, the total cashed out.
    pub payout: Decimal,
    pub bonus: Decimal,
    /// Paid by settlements so far (payout and bonus; cash-outs apart).
    pub paid: Decimal,
    /// Paid by cash-outs so far.
    #[serde(default)]
    pub cashed_out: Decimal,
    /// Stake that stopped running because of cash-outs.
    #[serde(default)]
    pub stake_cashed: Decimal,
    /// Request ids of the cash-outs made, in order.
    #[serde(default)]
    pub cashouts: Vec<String>,
    #[serde(default)]
    pub auto_cashout: Option<AutoCashout>,
    /// How many auto cash-out rules were ever set (numbers the rules).
    #[serde(default)]
    pub auto_cashout_rules: u32,
    /// Super bets: 0 pending, 1 accepted, -1 declined; none otherwise.
    #[serde(default)]
    pub super_bet_status: Option<i8>,
    /// Support's counter offer (kept after it was answered).
    #[serde(default)]
    pub counter_offer: Option<CounterOffer>,
}

impl Bet {
    /// The stake still running (the stake less what cash-outs took).
    pub fn remaining_stake(&self) -> Decimal {
        self.placement
            .as_ref()
            .map(|p| p.bet.stake - self.stake_cashed)
            .unwrap_or_default()
    }

    /// The bet as it runs now: on the remaining stake (possible win
    /// scaled). A settlement pays on this.
    pub fn running(&self) -> Option<ValidBet> {
        let placed = self.placement.as_ref()?;
        Some(running_bet(
            &placed.bet,
            self.remaining_stake(),
            placed.currency,
        ))
    }

    /// What the running stake pays if every leg wins.
    pub fn possible_win(&self) -> Option<Decimal> {
        self.running().and_then(|b| b.possible_win)
    }

    /// Whether a cash-out (or an auto cash-out rule) is possible in this
    /// state: placed with the cash-out flag, open (not on hold, declined,
    /// settled or fully cashed out), never settled, stake still running.
    pub fn is_cashable(&self) -> bool {
        self.placement.as_ref().is_some_and(|p| {
            p.cash_out && matches!(p.bet.bet_type, BetType::Single | BetType::Express)
        }) && self.status == BetStatus::Unsettled
            && self.result_version.is_none()
            && self.remaining_stake() > Decimal::ZERO
    }

    /// The cash-out amount now (`cashout_amount` on the remaining stake and
    /// the bet's k), or `None` when it cannot be cashed out now.
    pub fn cashout_amount(
        &self,
        prices: &BTreeMap<u64, Option<Decimal>>,
        outcomes: &BTreeMap<u64, SelectionOutcome>,
    ) -> Option<Decimal> {
        if !self.is_cashable() {
            return None;
        }
        let placed = self.placement.as_ref()?;
        let k = placed.bet.odds?;
        cashout_amount(placed, self.remaining_stake(), k, prices, outcomes)
    }

    /// A counter offer awaits the member's answer.
    pub fn counter_offer_pending(&self) -> bool {
        self.status == BetStatus::OnHold && self.counter_offer.is_some()
    }

    /// The pure decision: which events a command produces.
    pub fn decide(&self, command: BetCommand) -> Result<Vec<BetEvent>, BetError> {
        match command {
            BetCommand::Place {
                bet_id,
                member_id,
                currency,
                request_id,
                bet,
                express_bonus,
                at_ms,
            } => {
                if let Some(placed) = &self.placement {
                    return if placed.request_id == request_id && placed.bet_id == bet_id {
                        Ok(vec![])
                    } else {
                        Err(BetError::AlreadyPlaced)
                    };
                }
                let status = if bet.super_bet {
                    BetStatus::OnHold
                } else {
                    BetStatus::Unsettled
                };
                let cash_out = cash_out_offered(&bet);
                Ok(vec![BetEvent::BetPlaced {
                    bet_id,
                    member_id,
                    currency,
                    request_id,
                    bet,
                    express_bonus,
                    status,
                    date_time: at_ms.div_euclid(1000),
                    at_ms,
                    cash_out: Some(cash_out),
                }])
            }
            BetCommand::Accept { at_ms } => {
                self.placed()?;
                match self.status {
                    BetStatus::OnHold if self.counter_offer_pending() => {
                        Err(BetError::CounterOfferPending)
                    }
                    BetStatus::OnHold => self.accept_as_asked(None, None, at_ms),
                    BetStatus::Unsettled if self.result_version.is_none() => Ok(vec![]),
                    _ => Err(BetError::NotOnHold),
                }
            }
            BetCommand::Decline { reason_code, at_ms } => {
                self.decline(reason_code, None, None, false, at_ms)
            }
            BetCommand::Settle {
                result_version,
                outcomes,
                sp_prices,
                at_ms,
            } => self.decide_settle(result_version, outcomes, sp_prices, at_ms),
            BetCommand::CashOut {
                request_id,
                quoted_stake,
                current_amount,
                client_price,
                partial,
                by_rule,
                at_ms,
            } => self.decide_cash_out(
                request_id,
                quoted_stake,
                current_amount,
                client_price,
                partial,
                by_rule,
                at_ms,
            ),
            BetCommand::SetAutoCashout {
                min_amount,
                partial_amount,
                current_amount,
                possible_win,
                at_ms,
            } => self.decide_auto_cashout(
                min_amount,
                partial_amount,
                current_amount,
                possible_win,
                at_ms,
            ),
            BetCommand::CancelAutoCashout { at_ms } => {
                self.placed()?;
                Ok(match self.auto_cashout {
                    Some(_) => vec![BetEvent::AutoCashoutCancelled { at_ms }],
                    None => vec![],
                })
            }
            BetCommand::OfferCounter {
                staff_id,
                amount,
                price,
                reason,
                at_ms,
            } => self.decide_offer(staff_id, amount, price, reason, at_ms),
            BetCommand::SupportAccept {
                staff_id,
                reason,
                at_ms,
            } => {
                self.placed()?;
                match self.status {
                    BetStatus::OnHold if self.counter_offer_pending() => {
                        Err(BetError::CounterOfferPending)
                    }
                    BetStatus::OnHold => self.accept_as_asked(Some(staff_id), reason, at_ms),
                    // A repeat: support accepted it already.
                    _ if self.super_bet_status == Some(1) && self.counter_offer.is_none() => {
                        Ok(vec![])
                    }
                    _ => Err(BetError::NotOnHold),
                }
            }
            BetCommand::SupportDecline {
                staff_id,
                reason,
                at_ms,
            } => {
                if reason.trim().is_empty() {
                    return Err(BetError::ReasonRequired);
                }
                self.placed()?;
                match self.status {
                    BetStatus::Declined => Ok(vec![]),
                    // A pending counter offer lapses.
                    BetStatus::OnHold => {
                        self.decline(0, Some(staff_id), Some(reason), false, at_ms)
                    }
                    _ => Err(BetError::NotOnHold),
                }
            }
            BetCommand::AnswerCounter { accept, at_ms } => self.decide_answer(accept, at_ms),
        }
    }

    fn placed(&self) -> Result<&Placement, BetError> {
        self.placement.as_ref().ok_or(BetError::NotPlaced)
    }

    fn decline(
        &self,
        reason_code: i32,
        staff_id: Option<String>,
        reason: Option<String>,
        counter_offer: bool,
        at_ms: i64,
    ) -> Result<Vec<BetEvent>, BetError> {
        let placed = self.placed()?;
        if self.status == BetStatus::Declined {
            return Ok(vec![]);
        }
        if self.result_version.is_some() {
            return Err(BetError::AlreadySettled);
        }
        if !self.cashouts.is_empty() {
            return Err(BetError::NotOpen);
        }
        Ok(vec![BetEvent::BetDeclined {
            member_id: placed.member_id.clone(),
            currency: placed.currency,
            stake: placed.bet.stake,
            reason_code,
            at_ms,
            staff_id,
            reason,
            counter_offer,
        }])
    }

    /// Accepts the held bet on the terms asked for: the whole held stake
    /// is taken.
    fn accept_as_asked(
        &self,
        staff_id: Option<String>,
        reason: Option<String>,
        at_ms: i64,
    ) -> Result<Vec<BetEvent>, BetError> {
        let placed = self.placed()?;
        let bet = &placed.bet;
        Ok(vec![BetEvent::BetAccepted {
            at_ms,
            staff_id,
            reason,
            counter_offer: false,
            terms: Some(AcceptedTerms {
                member_id: placed.member_id.clone(),
                currency: placed.currency,
                stake: bet.stake,
                unit_stake: bet.unit_stake,
                price: None,
                odds: bet.odds,
                possible_win: bet.possible_win,
                stake_taken: bet.stake,
                stake_released: placed.currency.round(Decimal::ZERO),
            }),
        }])
    }

    fn decide_answer(&self, accept: bool, at_ms: i64) -> Result<Vec<BetEvent>, BetError> {
        let placed = self.placed()?;
        let Some(offer) = self.counter_offer.as_ref() else {
            return Err(BetError::NoCounterOffer);
        };
        if !self.counter_offer_pending() {
            // A repeat of the answer already given changes nothing.
            return match (accept, self.super_bet_status) {
                (true, Some(1)) => Ok(vec![]),
                (false, Some(-1)) => Ok(vec![]),
                _ => Err(BetError::NoCounterOffer),
            };
        }
        if !accept {
            return self.decline(0, None, None, true, at_ms);
        }
        let currency = placed.currency;
        let price = match placed.bet.bet_type {
            BetType::Single => offer.price,
            _ => None,
        };
        let terms = reprice(&placed.bet, offer.amount, price, currency);
        let new_price = price.filter(|p| placed.bet.legs.first().map(|l| l.price) != Some(*p));
        Ok(vec![BetEvent::BetAccepted {
            at_ms,
            staff_id: None,
            reason: None,
            counter_offer: true,
            terms: Some(AcceptedTerms {
                member_id: placed.member_id.clone(),
                currency,
                stake: terms.stake,
                unit_stake: terms.unit_stake,
                price: new_price,
                odds: terms.odds,
                possible_win: terms.possible_win,
                stake_taken: terms.stake,
                stake_released: currency.round(placed.bet.stake - terms.stake),
            }),
        }])
    }

    fn decide_offer(
        &self,
        staff_id: String,
        amount: Option<Decimal>,
        price: Option<Decimal>,
        reason: String,
        at_ms: i64,
    ) -> Result<Vec<BetEvent>, BetError> {
        let placed = self.placed()?;
        if self.status != BetStatus::OnHold {
            return Err(BetError::NotOnHold);
        }
        if self.counter_offer_pending() {
            return Err(BetError::CounterOfferPending);
        }
        if amount.is_none() && price.is_none() {
            return Err(BetError::WrongAmount);
        }
        let currency = placed.currency;
        let bet = &placed.bet;
        let stake = match amount {
            Some(a) => currency
                .exact_amount(a)
                .filter(|a| *a <= bet.stake)
                .ok_or(BetError::WrongAmount)?,
            None => bet.stake,
        };
        if let Some(p) = price {
            let fixed_single =
                bet.bet_type == BetType::Single && bet.legs.len() == 1 && !bet.legs[0].is_sp();
            if p <= Decimal::ONE || round_odds(p) != p || !fixed_single {
                return Err(BetError::WrongCoefficient);
            }
        }
        let terms = reprice(bet, stake, price, currency);
        if terms.unit_stake <= Decimal::ZERO {
            return Err(BetError::WrongAmount);
        }
        Ok(vec![BetEvent::CounterOffered {
            staff_id,
            amount: terms.stake,
            price: terms.odds,
            reason,
            at_ms,
        }])
    }

    #[allow(clippy::too_many_arguments)]
    fn decide_cash_out(
        &self,
        request_id: String,
        quoted_stake: Decimal,
        current_amount: Decimal,
        client_price: Decimal,
        partial: Option<Decimal>,
        by_rule: bool,
        at_ms: i64,
    ) -> Result<Vec<BetEvent>, BetError> {
        let placed = self.placed()?;
        if self.cashouts.contains(&request_id) {
            return Ok(vec![]);
        }
        if !self.is_cashable() || current_amount <= Decimal::ZERO {
            return Err(BetError::NotAvailable);
        }
        // The amount is worth the stake it was quoted on: paid against a
        // smaller one (a cash-out committed meanwhile), the member would be
        // paid twice for the same stake.
        if quoted_stake != self.remaining_stake() {
            return Err(BetError::StaleQuote);
        }
        let current = at_one_place(current_amount);
        if by_rule
            && self
                .auto_cashout
                .as_ref()
                .is_none_or(|rule| current < rule.min_amount)
        {
            return Err(BetError::NotAvailable);
        }
        if at_one_place(client_price) != current {
            return Err(BetError::PriceChanged { new_price: current });
        }
        let currency = placed.currency;
        let remaining = self.remaining_stake();
        let partial = match partial {
            Some(p) => {
                let p = currency.exact_amount(p).ok_or(BetError::WrongAmount)?;
                if p > current {
                    return Err(BetError::PriceChanged { new_price: current });
                }
                Some(p).filter(|p| *p < current)
            }
            None => None,
        };
        let part = partial.map(|p| (p, stake_part(remaining, p, current, currency)));
        let (amount, stake_part, full) = match part {
            // Less than a cent would keep running: a full cash-out.
            Some((p, part)) if part < remaining => (p, part, false),
            _ => (currency.round(current), remaining, true),
        };
        let remaining_stake = currency.round(remaining - stake_part);
        let possible_win = running_bet(&placed.bet, remaining_stake, currency).possible_win;
        Ok(vec![BetEvent::BetCashedOut {
            member_id: placed.member_id.clone(),
            currency,
            request_id,
            number: self.cashouts.len() as u32 + 1,
            amount,
            stake_part,
            remaining_stake,
            possible_win,
            full,
            by_rule,
            at_ms,
        }])
    }

    fn decide_auto_cashout(
        &self,
        min_amount: Decimal,
        partial_amount: Option<Decimal>,
        current_amount: Decimal,
        possible_win: Decimal,
        at_ms: i64,
    ) -> Result<Vec<BetEvent>, BetError> {
        let placed = self.placed()?;
        if !self.is_cashable() || current_amount <= Decimal::ZERO {
            return Err(BetError::NotAvailable);
        }
        let currency = placed.currency;
        let (min, max) = auto_cashout_bounds(current_amount, possible_win, currency);
        let wrong = BetError::WrongAutoCashout { min, max };
        let trigger = currency
            .exact_amount(min_amount)
            .filter(|m| *m >= min && *m <= max)
            .ok_or(wrong.clone())?;
        let partial = match partial_amount {
            Some(p) => Some(
                currency
                    .exact_amount(p)
                    .filter(|p| *p <= trigger)
                    .ok_or(wrong)?,
            ),
            None => None,
        };
        let same = self
            .auto_cashout
            .as_ref()
            .is_some_and(|r| r.min_amount == trigger && r.partial_amount == partial);
        if same {
            return Ok(vec![]);
        }
        Ok(vec![BetEvent::AutoCashoutSet {
            min_amount: trigger,
            partial_amount: partial,
            at_ms,
        }])
    }

    fn decide_settle(
        &self,
        result_version: u64,
        outcomes: BTreeMap<u64, SelectionOutcome>,
        sp_prices: BTreeMap<u64, Decimal>,
        at_ms: i64,
    ) -> Result<Vec<BetEvent>, BetError> {
        let placed = self.placed()?;
        // The cash-out won the race: nothing is left to settle.
        if self.status == BetStatus::CashedOut {
            return Ok(vec![]);
        }
        if matches!(self.status, BetStatus::OnHold | BetStatus::Declined) {
            return Err(BetError::NotOpen);
        }
        if self
            .result_version
            .is_some_and(|seen| result_version <= seen)
        {
            return Ok(vec![]);
        }
        let bet = running_bet(&placed.bet, self.remaining_stake(), placed.currency);
        let legs = &bet.legs;
        let mine = |id: &u64| legs.iter().any(|l| l.event_id == *id);
        let results = LegResults {
            outcomes: outcomes.into_iter().filter(|(id, _)| mine(id)).collect(),
            sp_prices: sp_prices.into_iter().filter(|(id, _)| mine(id)).collect(),
        };
        let settlement = settle(&bet, &results, placed.currency, placed.express_bonus);
        let decided = settlement.status != BetStatus::Unsettled;
        let Some(_) = self.result_version else {
            if !decided {
                return Ok(vec![]);
            }
            let BetSettlement {
                status,
                payout,
                bonus,
            } = settlement;
            return Ok(vec![BetEvent::BetSettled {
                member_id: placed.member_id.clone(),
                currency: placed.currency,
                status,
                payout,
                bonus,
                result_version,
                outcomes: results.outcomes,
                sp_prices: results.sp_prices,
                at_ms,
            }]);
        };
        let unchanged = results.outcomes == self.outcomes && results.sp_prices == self.sp_prices;
        if unchanged || (!decided && self.status == BetStatus::Unsettled) {
            return Ok(vec![]);
        }
        Ok(vec![BetEvent::BetResettled {
            member_id: placed.member_id.clone(),
            currency: placed.currency,
            previous_payout: self.paid,
            status: settlement.status,
            payout: settlement.payout,
            bonus: settlement.bonus,
            result_version,
            outcomes: results.outcomes,
            sp_prices: results.sp_prices,
            at_ms,
        }])
    }
}

impl Aggregate for Bet {
    const TYPE: &'static str = "Bet";
    type Command = BetCommand;
    type Event = BetEvent;
    type Error = BetError;
    type Services = ();

    async fn handle(
        &mut self,
        command: Self::Command,
        _services: &Self::Services,
        sink: &EventSink<Self>,
    ) -> Result<(), Self::Error> {
        for event in self.decide(command)? {
            sink.write(event, self).await;
        }
        Ok(())
    }

    fn apply(&mut self, event: Self::Event) {
        match event {
            BetEvent::BetPlaced {
                bet_id,
                member_id,
                currency,
                request_id,
                bet,
                express_bonus,
                status,
                at_ms,
                cash_out,
                ..
            } => {
                self.status = status;
                self.super_bet_status = bet.super_bet.then_some(0);
                self.placement = Some(Placement {
                    cash_out: cash_out.unwrap_or_else(|| cash_out_offered(&bet)),
                    bet_id,
                    member_id,
                    currency,
                    request_id,
                    bet,
                    express_bonus,
                    at_ms,
                });
            }
            BetEvent::BetAccepted { terms, .. } => {
                self.status = BetStatus::Unsettled;
                if let Some(placed) = self.placement.as_mut() {
                    if placed.bet.super_bet {
                        self.super_bet_status = Some(1);
                    }
                    if let Some(terms) = terms {
                        apply_terms(&mut placed.bet, &terms);
                    }
                }
            }
            BetEvent::BetDeclined { .. } => {
                self.status = BetStatus::Declined;
                self.auto_cashout = None;
                if self.placement.as_ref().is_some_and(|p| p.bet.super_bet) {
                    self.super_bet_status = Some(-1);
                }
            }
            BetEvent::BetSettled {
                status,
                payout,
                bonus,
                result_version,
                outcomes,
                sp_prices,
                ..
            }
            | BetEvent::BetResettled {
                status,
                payout,
                bonus,
                result_version,
                outcomes,
                sp_prices,
                ..
            } => {
                self.status = status;
                self.payout = payout;
                self.bonus = bonus;
                self.paid = payout + bonus;
                self.result_version = Some(result_version);
                self.outcomes = outcomes;
                self.sp_prices = sp_prices;
                self.auto_cashout = None;
            }
            BetEvent::BetCashedOut {
                request_id,
                amount,
                stake_part,
                full,
                by_rule,
                ..
            } => {
                self.cashed_out += amount;
                self.stake_cashed += stake_part;
                self.cashouts.push(request_id);
                if by_rule || full {
                    self.auto_cashout = None;
                }
                if full {
                    self.status = BetStatus::CashedOut;
                    self.payout = self.cashed_out;
                }
            }
            BetEvent::AutoCashoutSet {
                min_amount,
                partial_amount,
                at_ms,
            } => {
                self.auto_cashout_rules += 1;
                self.auto_cashout = Some(AutoCashout {
                    min_amount,
                    partial_amount,
                    number: self.auto_cashout_rules,
                    at_ms,
                });
            }
            BetEvent::AutoCashoutCancelled { .. } => self.auto_cashout = None,
            BetEvent::CounterOffered {
                amount,
                price,
                reason,
                at_ms,
                ..
            } => {
                self.counter_offer = Some(CounterOffer {
                    amount,
                    price,
                    reason,
                    at_ms,
                });
            }
        }
    }
}

/// The placed bet on the terms it was accepted on.
fn apply_terms(bet: &mut ValidBet, terms: &AcceptedTerms) {
    bet.stake = terms.stake;
    bet.unit_stake = terms.unit_stake;
    bet.odds = terms.odds;
    bet.possible_win = terms.possible_win;
    if let Some(price) = terms.price {
        for leg in &mut bet.legs {
            leg.price = price;
            leg.place_price = leg.ew_coeff.map(|c| super::place_odds(price, c));
        }
    }
}
