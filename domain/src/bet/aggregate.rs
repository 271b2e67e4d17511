use std::collections::BTreeMap;

use cqrs_es::event_sink::EventSink;
use cqrs_es::Aggregate;
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};

use super::{
    settle, BetCommand, BetError, BetEvent, BetSettlement, BetStatus, ExpressBonus, LegResults,
    ValidBet,
};
use crate::result::SelectionOutcome;
use crate::Currency;

/// What the bet was placed with.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Placement {
    pub bet_id: String,
    pub member_id: String,
    pub currency: Currency,
    pub request_id: String,
    pub bet: ValidBet,
    pub express_bonus: ExpressBonus,
    pub at_ms: i64,
}

/// The Bet aggregate: one per bet id.
///
/// Rules: placed once (a repeat of the request id changes nothing); a
/// super bet waits on hold until accepted or declined; a bet can be
/// declined only before any settlement; settled once when its payout is
/// decided, and re-settled with a compensating `BetResettled` whenever a
/// later result version changes its legs' outcomes. `paid` is what the
/// member has been paid so far, so a re-settlement always moves `new -
/// paid`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Bet {
    pub placement: Option<Placement>,
    pub status: BetStatus,
    /// The last result version applied; none before the first settlement.
    pub result_version: Option<u64>,
    /// The legs' outcomes and SP prices last settled on.
    pub outcomes: BTreeMap<u64, SelectionOutcome>,
    pub sp_prices: BTreeMap<u64, Decimal>,
    pub payout: Decimal,
    pub bonus: Decimal,
    pub paid: Decimal,
}

impl Bet {
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
                }])
            }
            BetCommand::Accept { at_ms } => {
                self.placed()?;
                match self.status {
                    BetStatus::OnHold => Ok(vec![BetEvent::BetAccepted { at_ms }]),
                    BetStatus::Unsettled if self.result_version.is_none() => Ok(vec![]),
                    _ => Err(BetError::NotOnHold),
                }
            }
            BetCommand::Decline { reason_code, at_ms } => {
                let placed = self.placed()?;
                if self.status == BetStatus::Declined {
                    return Ok(vec![]);
                }
                if self.result_version.is_some() {
                    return Err(BetError::AlreadySettled);
                }
                Ok(vec![BetEvent::BetDeclined {
                    member_id: placed.member_id.clone(),
                    currency: placed.currency,
                    stake: placed.bet.stake,
                    reason_code,
                    at_ms,
                }])
            }
            BetCommand::Settle {
                result_version,
                outcomes,
                sp_prices,
                at_ms,
            } => self.decide_settle(result_version, outcomes, sp_prices, at_ms),
        }
    }

    fn placed(&self) -> Result<&Placement, BetError> {
        self.placement.as_ref().ok_or(BetError::NotPlaced)
    }

    fn decide_settle(
        &self,
        result_version: u64,
        outcomes: BTreeMap<u64, SelectionOutcome>,
        sp_prices: BTreeMap<u64, Decimal>,
        at_ms: i64,
    ) -> Result<Vec<BetEvent>, BetError> {
        let placed = self.placed()?;
        if matches!(self.status, BetStatus::OnHold | BetStatus::Declined) {
            return Err(BetError::NotOpen);
        }
        if self
            .result_version
            .is_some_and(|seen| result_version <= seen)
        {
            return Ok(vec![]);
        }
        let legs = &placed.bet.legs;
        let mine = |id: &u64| legs.iter().any(|l| l.event_id == *id);
        let results = LegResults {
            outcomes: outcomes.into_iter().filter(|(id, _)| mine(id)).collect(),
            sp_prices: sp_prices.into_iter().filter(|(id, _)| mine(id)).collect(),
        };
        let settlement = settle(&placed.bet, &results, placed.currency, placed.express_bonus);
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
                ..
            } => {
                self.status = status;
                self.placement = Some(Placement {
                    bet_id,
                    member_id,
                    currency,
                    request_id,
                    bet,
                    express_bonus,
                    at_ms,
                });
            }
            BetEvent::BetAccepted { .. } => self.status = BetStatus::Unsettled,
            BetEvent::BetDeclined { .. } => self.status = BetStatus::Declined,
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
            }
        }
    }
}
