use std::collections::BTreeMap;

use cqrs_es::event_sink::EventSink;
use cqrs_es::Aggregate;
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};

use super::{Pot, Receipt, WalletAction, WalletCommand, WalletError, WalletEvent};
use crate::Currency;

/// The four balances a member sees (spec 000 section 3, user profile).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Balances {
    pub main: Decimal,
    pub bonus: Decimal,
    pub bonus_win: Decimal,
    pub frozen: Decimal,
}

impl Balances {
    pub fn pot(&self, pot: Pot) -> Decimal {
        match pot {
            Pot::Main => self.main,
            Pot::Bonus => self.bonus,
            Pot::BonusWin => self.bonus_win,
        }
    }

    fn pot_mut(&mut self, pot: Pot) -> &mut Decimal {
        match pot {
            Pot::Main => &mut self.main,
            Pot::Bonus => &mut self.bonus,
            Pot::BonusWin => &mut self.bonus_win,
        }
    }
}

/// Balances plus the total of held stakes: everything a read model needs,
/// folded from events alone. The aggregate and the balance projection share
/// this fold so they cannot disagree.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Ledger {
    pub balances: Balances,
    pub reserved: Decimal,
}

impl Ledger {
    pub fn apply(&mut self, event: &WalletEvent) {
        use WalletEvent::*;
        let b = &mut self.balances;
        match event {
            Opened { .. } | Rejected { .. } => {}
            Credited { pot, amount, .. } | PaidOut { pot, amount, .. } => {
                *b.pot_mut(*pot) += amount
            }
            Debited { pot, amount, .. } => *b.pot_mut(*pot) -= amount,
            StakeReserved { pot, amount, .. } => {
                *b.pot_mut(*pot) -= amount;
                self.reserved += amount;
            }
            StakeReleased { pot, amount, .. } => {
                *b.pot_mut(*pot) += amount;
                self.reserved -= amount;
            }
            StakeTaken { amount, .. } => self.reserved -= amount,
            Frozen { amount, .. } => {
                b.main -= amount;
                b.frozen += amount;
            }
            Unfrozen { amount, .. } => {
                b.frozen -= amount;
                b.main += amount;
            }
        }
    }

    /// Total money the member holds in this wallet, held stakes included.
    pub fn total(&self) -> Decimal {
        let b = &self.balances;
        b.main + b.bonus + b.bonus_win + b.frozen + self.reserved
    }
}

/// The remembered outcome of a transaction reference.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Outcome {
    Accepted,
    Rejected(i32),
}

/// A stake held for a bet until it is taken or released.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Reservation {
    pub pot: Pot,
    pub amount: Decimal,
}

/// The Wallet aggregate. `refs` is a persistent map so that cloning a cached
/// wallet with thousands of references costs O(1).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Wallet {
    pub member_id: Option<String>,
    pub currency: Option<Currency>,
    pub ledger: Ledger,
    pub reservations: BTreeMap<String, Reservation>,
    pub refs: imbl::HashMap<String, Outcome>,
}

impl Wallet {
    pub fn balances(&self) -> &Balances {
        &self.ledger.balances
    }

    fn receipt(&self, reference: &str, duplicate: bool) -> Receipt {
        Receipt {
            reference: reference.to_string(),
            duplicate,
            balances: self.ledger.balances.clone(),
            reserved: self.ledger.reserved,
        }
    }

    /// The pure decision: which events a command produces. `Err` is an input
    /// error (nothing recorded); a refusal that depends on the wallet's state
    /// is a `Rejected` event so that a repeat of the reference answers it.
    pub fn decide(&self, cmd: &WalletCommand) -> Result<Vec<WalletEvent>, WalletError> {
        let reference = cmd.reference.trim();
        if reference.is_empty() {
            return Err(WalletError::MissingReference);
        }
        if self.refs.contains_key(reference) {
            return Ok(vec![]);
        }
        let currency = cmd.wallet.currency;
        if self.currency.is_some_and(|c| c != currency) {
            return Err(WalletError::CurrencyMismatch);
        }
        let exact = |amount: Decimal| {
            currency
                .exact_amount(amount)
                .ok_or(WalletError::WrongAmount)
        };
        let reference = reference.to_string();
        let available = |pot: Pot| self.ledger.balances.pot(pot);
        let reject = |error: WalletError| WalletEvent::Rejected {
            reference: reference.clone(),
            code: error.code().0,
        };
        use WalletAction::*;
        if let PayFrozen { amount } = &cmd.action {
            let amount = exact(*amount)?;
            if self.ledger.balances.frozen < amount {
                return Ok(vec![reject(WalletError::InsufficientBalance)]);
            }
            return Ok(vec![
                WalletEvent::Unfrozen {
                    reference: reference.clone(),
                    amount,
                },
                WalletEvent::Debited {
                    reference,
                    pot: Pot::Main,
                    amount,
                    kind: super::MovementKind::Withdrawal,
                },
            ]);
        }
        let event = match &cmd.action {
            Credit { amount, pot, kind } => WalletEvent::Credited {
                reference: reference.clone(),
                pot: *pot,
                amount: exact(*amount)?,
                kind: *kind,
            },
            Debit { amount, pot, kind } => {
                let amount = exact(*amount)?;
                if available(*pot) < amount {
                    reject(WalletError::InsufficientBalance)
                } else {
                    WalletEvent::Debited {
                        reference: reference.clone(),
                        pot: *pot,
                        amount,
                        kind: *kind,
                    }
                }
            }
            ReserveStake { amount, pot } => {
                let amount = exact(*amount)?;
                if available(*pot) < amount {
                    reject(WalletError::InsufficientBalance)
                } else {
                    WalletEvent::StakeReserved {
                        reference: reference.clone(),
                        pot: *pot,
                        amount,
                    }
                }
            }
            ReleaseStake { reservation } => match self.reservations.get(reservation) {
                None => reject(WalletError::UnknownReservation),
                Some(held) => WalletEvent::StakeReleased {
                    reference: reference.clone(),
                    reservation: reservation.clone(),
                    pot: held.pot,
                    amount: held.amount,
                },
            },
            TakeStake { reservation } => match self.reservations.get(reservation) {
                None => reject(WalletError::UnknownReservation),
                Some(held) => WalletEvent::StakeTaken {
                    reference: reference.clone(),
                    reservation: reservation.clone(),
                    amount: held.amount,
                },
            },
            PayOut { amount, pot } => WalletEvent::PaidOut {
                reference: reference.clone(),
                pot: *pot,
                amount: exact(*amount)?,
            },
            Freeze { amount } => {
                let amount = exact(*amount)?;
                if available(Pot::Main) < amount {
                    reject(WalletError::InsufficientBalance)
                } else {
                    WalletEvent::Frozen {
                        reference: reference.clone(),
                        amount,
                    }
                }
            }
            PayFrozen { .. } => unreachable!("decided above"),
            Void => reject(WalletError::Voided),
            Unfreeze { amount } => {
                let amount = exact(*amount)?;
                if self.ledger.balances.frozen < amount {
                    reject(WalletError::InsufficientBalance)
                } else {
                    WalletEvent::Unfrozen {
                        reference: reference.clone(),
                        amount,
                    }
                }
            }
        };
        let mut events = Vec::with_capacity(2);
        if self.currency.is_none() {
            events.push(WalletEvent::Opened {
                member_id: cmd.wallet.member_id.clone(),
                currency,
            });
        }
        events.push(event);
        Ok(events)
    }

    /// What the caller of `cmd` learns once its events (if any) are applied.
    fn outcome(&self, cmd: &WalletCommand, duplicate: bool) -> Result<Receipt, WalletError> {
        let reference = cmd.reference.trim();
        match self.refs.get(reference) {
            Some(Outcome::Rejected(code)) => {
                Err(WalletError::from_code(*code).unwrap_or(WalletError::WrongAmount))
            }
            _ => Ok(self.receipt(reference, duplicate)),
        }
    }
}

impl Aggregate for Wallet {
    const TYPE: &'static str = "Wallet";
    type Command = WalletCommand;
    type Event = WalletEvent;
    type Error = WalletError;
    type Services = ();

    async fn handle(
        &mut self,
        command: Self::Command,
        _services: &Self::Services,
        sink: &EventSink<Self>,
    ) -> Result<(), Self::Error> {
        let events = match self.decide(&command) {
            Ok(events) => events,
            Err(error) => {
                command.reply.set(Err(error.clone()));
                return Err(error);
            }
        };
        let duplicate = events.is_empty();
        for event in events {
            sink.write(event, self).await;
        }
        command.reply.set(self.outcome(&command, duplicate));
        Ok(())
    }

    fn apply(&mut self, event: Self::Event) {
        self.ledger.apply(&event);
        match &event {
            WalletEvent::Opened {
                member_id,
                currency,
            } => {
                self.member_id = Some(member_id.clone());
                self.currency = Some(*currency);
            }
            WalletEvent::StakeReserved { pot, amount, .. } => {
                let reference = event.reference().unwrap_or_default().to_string();
                self.reservations.insert(
                    reference,
                    Reservation {
                        pot: *pot,
                        amount: *amount,
                    },
                );
            }
            WalletEvent::StakeReleased { reservation, .. }
            | WalletEvent::StakeTaken { reservation, .. } => {
                self.reservations.remove(reservation);
            }
            _ => {}
        }
        if let Some(reference) = event.reference() {
            let outcome = match &event {
                WalletEvent::Rejected { code, .. } => Outcome::Rejected(*code),
                _ => Outcome::Accepted,
            };
            self.refs.insert(reference.to_string(), outcome);
        }
    }
}
