//! The CasinoRound aggregate: one per provider, member and provider round
//! (id `provider:member:round`). Every bet, win and rollback a provider
//! sends through the seamless wallet is decided here, together with the
//! wallet movement it causes (commands/src/casino/wallet.rs commits both
//! in one transaction).
//!
//! Rules (Hub88's operator wallet API, docs/casino.md):
//! - a win must reference a bet of the round that stands: an unknown one is
//!   `TransactionDoesNotExist`, a rolled-back one `TransactionRolledBack`;
//! - a rollback must reference a bet of the round: unknown is
//!   `TransactionDoesNotExist`; a bet already rolled back moves nothing;
//! - several bets in a round stand on their own: rolling one back leaves
//!   the others (and wins on them) as they are;
//! - a closed round is final: its totals were reported in
//!   `CasinoRoundClosed`, so later bets, wins and rollbacks are refused;
//! - a round holds at most `MAX_TRANSACTIONS` transactions.

use std::collections::BTreeMap;

use cqrs_es::{Aggregate, DomainEvent};
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};

use crate::Currency;

/// Transactions one round may hold (bounded aggregate state).
pub const MAX_TRANSACTIONS: usize = 500;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TxKind {
    Bet,
    Win,
    Rollback,
}

/// Who and what the round is about (from the launch token and the game).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RoundOpening {
    pub member_id: String,
    pub currency: Currency,
    pub provider: String,
    pub game_code: String,
    pub game_id: i64,
    /// "pg" for slots, "ag" for live tables (spec 001 section 9.2).
    pub product: String,
    pub round: String,
}

/// One provider transaction, its amount already checked and converted.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TxRequest {
    pub kind: TxKind,
    pub transaction_uuid: String,
    pub supplier_transaction_id: String,
    pub reference_transaction_uuid: Option<String>,
    /// Zero for rollbacks (the rolled-back bet's amount is used).
    pub amount: Decimal,
    pub round_closed: bool,
    pub at_ms: i64,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RoundCommand {
    pub opening: RoundOpening,
    pub tx: TxRequest,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RoundError {
    #[error("the round is closed")]
    Closed,
    #[error("the referenced transaction does not exist")]
    TransactionDoesNotExist,
    #[error("the referenced transaction was rolled back")]
    TransactionRolledBack,
    #[error("the round holds too many transactions")]
    LimitReached,
    #[error("the round belongs to another member, currency or game")]
    Mismatch,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type")]
pub enum RoundEvent {
    #[serde(rename = "CasinoRoundOpened")]
    Opened {
        member_id: String,
        currency: Currency,
        provider: String,
        game_code: String,
        game_id: i64,
        product: String,
        round: String,
        opened_at: i64,
    },
    #[serde(rename = "CasinoBetPlaced")]
    BetPlaced {
        transaction_uuid: String,
        supplier_transaction_id: String,
        amount: Decimal,
    },
    #[serde(rename = "CasinoWinPaid")]
    WinPaid {
        transaction_uuid: String,
        supplier_transaction_id: String,
        reference_transaction_uuid: String,
        amount: Decimal,
    },
    #[serde(rename = "CasinoBetRolledBack")]
    BetRolledBack {
        transaction_uuid: String,
        supplier_transaction_id: String,
        reference_transaction_uuid: String,
        amount: Decimal,
    },
    /// The round's totals, for turnover (VIP, rebates). `stake` counts the
    /// bets that stand (not rolled back); `closed_at` is unix ms.
    #[serde(rename = "CasinoRoundClosed")]
    Closed {
        member_id: String,
        currency: Currency,
        product: String,
        provider: String,
        game_id: i64,
        game_code: String,
        round: String,
        stake: Decimal,
        payout: Decimal,
        closed_at: i64,
    },
}

impl DomainEvent for RoundEvent {
    fn event_type(&self) -> String {
        match self {
            RoundEvent::Opened { .. } => "CasinoRoundOpened",
            RoundEvent::BetPlaced { .. } => "CasinoBetPlaced",
            RoundEvent::WinPaid { .. } => "CasinoWinPaid",
            RoundEvent::BetRolledBack { .. } => "CasinoBetRolledBack",
            RoundEvent::Closed { .. } => "CasinoRoundClosed",
        }
        .to_string()
    }

    fn event_version(&self) -> String {
        "1.0".to_string()
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tx {
    pub kind: TxKind,
    pub amount: Decimal,
    pub rolled_back: bool,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct CasinoRound {
    pub opening: Option<RoundOpening>,
    pub closed: bool,
    pub txs: BTreeMap<String, Tx>,
}

impl CasinoRound {
    /// Total of the bets that stand.
    pub fn stake(&self) -> Decimal {
        self.txs
            .values()
            .filter(|t| t.kind == TxKind::Bet && !t.rolled_back)
            .map(|t| t.amount)
            .sum()
    }

    pub fn payout(&self) -> Decimal {
        self.txs
            .values()
            .filter(|t| t.kind == TxKind::Win)
            .map(|t| t.amount)
            .sum()
    }

    pub fn decide(&self, cmd: &RoundCommand) -> Result<Vec<RoundEvent>, RoundError> {
        let tx = &cmd.tx;
        if self.txs.contains_key(&tx.transaction_uuid) {
            return Ok(vec![]);
        }
        if let Some(opening) = &self.opening {
            let same = opening.member_id == cmd.opening.member_id
                && opening.currency == cmd.opening.currency
                && opening.provider == cmd.opening.provider;
            if !same {
                return Err(RoundError::Mismatch);
            }
        }
        if self.closed {
            return Err(RoundError::Closed);
        }
        if self.txs.len() >= MAX_TRANSACTIONS {
            return Err(RoundError::LimitReached);
        }
        let referenced = || {
            let reference = tx.reference_transaction_uuid.as_deref().unwrap_or("");
            match self.txs.get(reference) {
                Some(t) if t.kind == TxKind::Bet => Ok((reference.to_string(), t)),
                _ => Err(RoundError::TransactionDoesNotExist),
            }
        };
        let mut events = Vec::with_capacity(3);
        let event = match tx.kind {
            TxKind::Bet => RoundEvent::BetPlaced {
                transaction_uuid: tx.transaction_uuid.clone(),
                supplier_transaction_id: tx.supplier_transaction_id.clone(),
                amount: tx.amount,
            },
            TxKind::Win => {
                let (reference, bet) = referenced()?;
                if bet.rolled_back {
                    return Err(RoundError::TransactionRolledBack);
                }
                RoundEvent::WinPaid {
                    transaction_uuid: tx.transaction_uuid.clone(),
                    supplier_transaction_id: tx.supplier_transaction_id.clone(),
                    reference_transaction_uuid: reference,
                    amount: tx.amount,
                }
            }
            TxKind::Rollback => {
                let (reference, bet) = referenced()?;
                RoundEvent::BetRolledBack {
                    transaction_uuid: tx.transaction_uuid.clone(),
                    supplier_transaction_id: tx.supplier_transaction_id.clone(),
                    reference_transaction_uuid: reference,
                    // A bet already rolled back gives nothing back twice.
                    amount: if bet.rolled_back {
                        Decimal::ZERO
                    } else {
                        bet.amount
                    },
                }
            }
        };
        if self.opening.is_none() {
            let o = &cmd.opening;
            events.push(RoundEvent::Opened {
                member_id: o.member_id.clone(),
                currency: o.currency,
                provider: o.provider.clone(),
                game_code: o.game_code.clone(),
                game_id: o.game_id,
                product: o.product.clone(),
                round: o.round.clone(),
                opened_at: tx.at_ms,
            });
        }
        events.push(event);
        if tx.round_closed {
            let mut after = self.clone();
            for e in &events {
                after.apply_event(e);
            }
            let o = after.opening.clone().unwrap_or_else(|| cmd.opening.clone());
            events.push(RoundEvent::Closed {
                stake: after.stake(),
                payout: after.payout(),
                member_id: o.member_id,
                currency: o.currency,
                product: o.product,
                provider: o.provider,
                game_id: o.game_id,
                game_code: o.game_code,
                round: o.round,
                closed_at: tx.at_ms,
            });
        }
        Ok(events)
    }

    fn apply_event(&mut self, event: &RoundEvent) {
        match event {
            RoundEvent::Opened {
                member_id,
                currency,
                provider,
                game_code,
                game_id,
                product,
                round,
                ..
            } => {
                self.opening = Some(RoundOpening {
                    member_id: member_id.clone(),
                    currency: *currency,
                    provider: provider.clone(),
                    game_code: game_code.clone(),
                    game_id: *game_id,
                    product: product.clone(),
                    round: round.clone(),
                })
            }
            RoundEvent::BetPlaced {
                transaction_uuid,
                amount,
                ..
            } => {
                self.txs.insert(
                    transaction_uuid.clone(),
                    Tx {
                        kind: TxKind::Bet,
                        amount: *amount,
                        rolled_back: false,
                    },
                );
            }
            RoundEvent::WinPaid {
                transaction_uuid,
                amount,
                ..
            } => {
                self.txs.insert(
                    transaction_uuid.clone(),
                    Tx {
                        kind: TxKind::Win,
                        amount: *amount,
                        rolled_back: false,
                    },
                );
            }
            RoundEvent::BetRolledBack {
                transaction_uuid,
                reference_transaction_uuid,
                amount,
                ..
            } => {
                if let Some(bet) = self.txs.get_mut(reference_transaction_uuid) {
                    bet.rolled_back = true;
                }
                self.txs.insert(
                    transaction_uuid.clone(),
                    Tx {
                        kind: TxKind::Rollback,
                        amount: *amount,
                        rolled_back: false,
                    },
                );
            }
            RoundEvent::Closed { .. } => self.closed = true,
        }
    }
}

impl Aggregate for CasinoRound {
    const TYPE: &'static str = "CasinoRound";
    type Command = RoundCommand;
    type Event = RoundEvent;
    type Error = RoundError;
    type Services = ();

    async fn handle(
        &mut self,
        command: Self::Command,
        _services: &Self::Services,
        sink: &cqrs_es::event_sink::EventSink<Self>,
    ) -> Result<(), Self::Error> {
        for event in self.decide(&command)? {
            sink.write(event, self).await;
        }
        Ok(())
    }

    fn apply(&mut self, event: Self::Event) {
        self.apply_event(&event);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rust_decimal_macros::dec;

    fn opening() -> RoundOpening {
        RoundOpening {
            member_id: "m1".into(),
            currency: Currency::Cny,
            provider: "demo".into(),
            game_code: "demo_slot".into(),
            game_id: 1,
            product: "pg".into(),
            round: "r1".into(),
        }
    }

    fn tx(
        kind: TxKind,
        uuid: &str,
        reference: Option<&str>,
        amount: Decimal,
        close: bool,
    ) -> RoundCommand {
        RoundCommand {
            opening: opening(),
            tx: TxRequest {
                kind,
                transaction_uuid: uuid.into(),
                supplier_transaction_id: format!("s-{uuid}"),
                reference_transaction_uuid: reference.map(Into::into),
                amount,
                round_closed: close,
                at_ms: 1000,
            },
        }
    }

    fn run(round: &mut CasinoRound, cmd: RoundCommand) -> Result<Vec<RoundEvent>, RoundError> {
        let events = round.decide(&cmd)?;
        for e in &events {
            round.apply_event(e);
        }
        Ok(events)
    }

    #[test]
    fn a_first_bet_opens_the_round() {
        let mut round = CasinoRound::default();
        let events = run(&mut round, tx(TxKind::Bet, "b1", None, dec!(5), false)).unwrap();
        assert!(matches!(events[0], RoundEvent::Opened { .. }));
        assert!(matches!(events[1], RoundEvent::BetPlaced { .. }));
    }

    #[test]
    fn a_win_on_an_unknown_bet_does_not_exist() {
        let mut round = CasinoRound::default();
        run(&mut round, tx(TxKind::Bet, "b1", None, dec!(5), false)).unwrap();
        assert_eq!(
            run(
                &mut round,
                tx(TxKind::Win, "w1", Some("nope"), dec!(5), false)
            ),
            Err(RoundError::TransactionDoesNotExist)
        );
    }

    #[test]
    fn a_win_after_its_bet_was_rolled_back_is_refused() {
        let mut round = CasinoRound::default();
        run(&mut round, tx(TxKind::Bet, "b1", None, dec!(5), false)).unwrap();
        run(
            &mut round,
            tx(TxKind::Rollback, "rb1", Some("b1"), dec!(0), false),
        )
        .unwrap();
        assert_eq!(
            run(
                &mut round,
                tx(TxKind::Win, "w1", Some("b1"), dec!(5), false)
            ),
            Err(RoundError::TransactionRolledBack)
        );
    }

    #[test]
    fn rolling_back_one_of_several_bets_leaves_the_others() {
        let mut round = CasinoRound::default();
        run(&mut round, tx(TxKind::Bet, "b1", None, dec!(5), false)).unwrap();
        run(&mut round, tx(TxKind::Bet, "b2", None, dec!(7), false)).unwrap();
        let events = run(
            &mut round,
            tx(TxKind::Rollback, "rb1", Some("b1"), dec!(0), false),
        )
        .unwrap();
        assert!(
            matches!(&events[0], RoundEvent::BetRolledBack { amount, .. } if *amount == dec!(5))
        );
        let closed = run(
            &mut round,
            tx(TxKind::Win, "w2", Some("b2"), dec!(20), true),
        )
        .unwrap();
        match closed.last().unwrap() {
            RoundEvent::Closed { stake, payout, .. } => {
                assert_eq!(*stake, dec!(7));
                assert_eq!(*payout, dec!(20));
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_second_rollback_of_a_bet_gives_nothing_back() {
        let mut round = CasinoRound::default();
        run(&mut round, tx(TxKind::Bet, "b1", None, dec!(5), false)).unwrap();
        run(
            &mut round,
            tx(TxKind::Rollback, "rb1", Some("b1"), dec!(0), false),
        )
        .unwrap();
        let again = run(
            &mut round,
            tx(TxKind::Rollback, "rb2", Some("b1"), dec!(0), false),
        )
        .unwrap();
        assert!(matches!(&again[0], RoundEvent::BetRolledBack { amount, .. } if amount.is_zero()));
    }

    #[test]
    fn a_closed_round_is_final() {
        let mut round = CasinoRound::default();
        run(&mut round, tx(TxKind::Bet, "b1", None, dec!(5), true)).unwrap();
        assert!(round.closed);
        assert_eq!(
            run(&mut round, tx(TxKind::Bet, "b2", None, dec!(5), false)),
            Err(RoundError::Closed)
        );
        assert_eq!(
            run(
                &mut round,
                tx(TxKind::Win, "w1", Some("b1"), dec!(5), false)
            ),
            Err(RoundError::Closed)
        );
    }

    #[test]
    fn the_closed_event_names_its_fields_for_turnover_readers() {
        let mut round = CasinoRound::default();
        let events = run(&mut round, tx(TxKind::Bet, "b1", None, dec!(5), true)).unwrap();
        let closed = serde_json::to_value(events.last().unwrap()).unwrap();
        assert_eq!(closed["type"], "CasinoRoundClosed");
        assert_eq!(closed["stake"], "5");
        assert_eq!(closed["payout"], "0");
        assert_eq!(closed["product"], "pg");
        assert_eq!(closed["member_id"], "m1");
    }
}
