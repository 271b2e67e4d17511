use std::collections::BTreeMap;
use std::sync::Arc;

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
            StakeReservedAndTaken { pot, amount, .. } => *b.pot_mut(*pot) -= amount,
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

/// Events (by sequence) in a generation of the wallet's memory of
/// references: generation `g` holds the events `g * N + 1 ..= (g + 1) * N`.
/// The wallet remembers the references of its current generation and the
/// one before; when an event starts a new generation, the one before the
/// previous is dropped, and the append of that event copies its references
/// into the store's reference book (table `wallet_references`, see
/// [`archived_by`]). So the wallet's state and snapshots stay bounded
/// (at most `2 x N` events' references) however long its history, and the
/// generations depend on sequences only: a wallet replayed from its events
/// remembers exactly what the live one did.
pub const REFERENCE_GENERATION: u64 = 2_000;

/// The sequences whose references the append of the wallet event
/// `sequence` archives into the reference book: the generation that event
/// makes the wallet forget, when it starts a generation.
pub fn archived_by(sequence: u64) -> Option<(u64, u64)> {
    let n = REFERENCE_GENERATION;
    (sequence > 2 * n && (sequence - 1).is_multiple_of(n))
        .then(|| (sequence - 2 * n, sequence - n - 1))
}

/// Where the wallet looks up a reference it no longer remembers: the
/// outcome it had, or `None` if the wallet never used it. An `Err` is a
/// failure to look (the store away), never an answer.
pub trait ReferenceBook: Send + Sync {
    fn outcome<'a>(&'a self, wallet_id: &'a str, reference: &'a str) -> BookAnswer<'a>;
}

/// What a [`ReferenceBook`] answers, later.
pub type BookAnswer<'a> = std::pin::Pin<
    Box<dyn std::future::Future<Output = Result<Option<Outcome>, String>> + Send + 'a>,
>;

/// The wallet's services: its reference book. Without one, a wallet that
/// has forgotten references refuses one it does not remember
/// (`WalletError::Unavailable`) rather than risk moving money twice.
#[derive(Clone, Default)]
pub struct WalletServices {
    book: Option<std::sync::Arc<dyn ReferenceBook>>,
}

impl WalletServices {
    pub fn with_book(book: std::sync::Arc<dyn ReferenceBook>) -> Self {
        Self { book: Some(book) }
    }

    async fn outcome(&self, wallet_id: &str, reference: &str) -> Result<Option<Outcome>, String> {
        match &self.book {
            Some(book) => book.outcome(wallet_id, reference).await,
            None => Err("the wallet has no reference book".into()),
        }
    }
}

/// The Wallet aggregate. `recent_refs` and `older_refs` (the two
/// generations of its memory of references) are persistent maps so that
/// cloning a cached wallet costs O(1); their keys are shared strings, so
/// the nodes an insert copies share their keys instead of copying them.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Wallet {
    pub member_id: Option<String>,
    pub currency: Option<Currency>,
    pub ledger: Ledger,
    pub reservations: BTreeMap<String, Reservation>,
    /// Events applied: the sequence of the last one. (Snapshots of the
    /// shape before it, which held every reference, are unreadable on
    /// purpose: such a wallet is replayed from its events.)
    pub applied: u64,
    /// The references of the current generation and their outcomes.
    pub recent_refs: imbl::HashMap<Arc<str>, Outcome>,
    /// The references of the generation before.
    pub older_refs: imbl::HashMap<Arc<str>, Outcome>,
    /// The generation dropped last, kept in memory only (never in a
    /// snapshot): within the transaction whose event dropped it, it is not
    /// in the reference book yet (that append archives it), so a later
    /// command of the same transaction must still find it here.
    #[serde(skip)]
    pub dropped_refs: Transient<imbl::HashMap<Arc<str>, Outcome>>,
}

/// A value kept in memory beside an aggregate's state and ignored when
/// states are compared (a replayed wallet equals the live one whichever
/// generation each happened to drop last in memory).
#[derive(Debug, Clone, Default)]
pub struct Transient<T>(pub T);

impl<T> PartialEq for Transient<T> {
    fn eq(&self, _: &Self) -> bool {
        true
    }
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

    /// The outcome of `reference` if the wallet remembers it (the two
    /// generations, and the one dropped last while this process holds it).
    pub fn remembered(&self, reference: &str) -> Option<Outcome> {
        self.recent_refs
            .get(reference)
            .or_else(|| self.older_refs.get(reference))
            .or_else(|| self.dropped_refs.0.get(reference))
            .copied()
    }

    /// How many references the wallet's state holds (its two generations;
    /// what its snapshots hold).
    pub fn references_held(&self) -> usize {
        self.recent_refs.len() + self.older_refs.len()
    }

    /// Whether the wallet has dropped a generation of references (they are
    /// in the reference book).
    pub fn forgot_refs(&self) -> bool {
        self.applied > 2 * REFERENCE_GENERATION
    }

    /// Whether deciding a command with `reference` needs the reference
    /// book: the wallet does not remember it and has forgotten some.
    pub fn must_look_up(&self, reference: &str) -> bool {
        let reference = reference.trim();
        self.forgot_refs() && !reference.is_empty() && self.remembered(reference).is_none()
    }

    /// The pure decision: which events a command produces. `Err` is an input
    /// error (nothing recorded); a refusal that depends on the wallet's state
    /// is a `Rejected` event so that a repeat of the reference answers it.
    /// On what the wallet remembers only: on a wallet that has forgotten
    /// references (`must_look_up`) commands go through `handle`, which asks
    /// the reference book first.
    pub fn decide(&self, cmd: &WalletCommand) -> Result<Vec<WalletEvent>, WalletError> {
        self.decide_knowing(cmd, None)
    }

    /// As `decide`, with what the reference book says of a reference the
    /// wallet no longer remembers (`looked_up`: its first outcome).
    pub fn decide_knowing(
        &self,
        cmd: &WalletCommand,
        looked_up: Option<Outcome>,
    ) -> Result<Vec<WalletEvent>, WalletError> {
        let reference = cmd.reference.trim();
        if reference.is_empty() {
            return Err(WalletError::MissingReference);
        }
        if self.remembered(reference).or(looked_up).is_some() {
            return Ok(vec![]);
        }
        // A take made before under its own reference: nothing moves again.
        // (Only what the wallet remembers: the reference book is asked for
        // the command's reference, the held one, and a take's reference
        // names its bet, whose id is never handed out twice.)
        if let WalletAction::ReserveAndTakeStake { take, .. } = &cmd.action {
            if self.remembered(take.trim()).is_some() {
                return Ok(vec![]);
            }
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
            ReserveAndTakeStake { amount, pot, take } => {
                let amount = exact(*amount)?;
                let take = take.trim();
                if take.is_empty() || take == reference {
                    return Err(WalletError::MissingReference);
                }
                if available(*pot) < amount {
                    reject(WalletError::InsufficientBalance)
                } else {
                    WalletEvent::StakeReservedAndTaken {
                        reference: reference.clone(),
                        taken_as: take.to_string(),
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
    fn outcome(
        &self,
        cmd: &WalletCommand,
        duplicate: bool,
        looked_up: Option<Outcome>,
    ) -> Result<Receipt, WalletError> {
        let reference = cmd.reference.trim();
        match self.remembered(reference).or(looked_up) {
            Some(Outcome::Rejected(code)) => {
                Err(WalletError::from_code(code).unwrap_or(WalletError::WrongAmount))
            }
            _ => Ok(self.receipt(reference, duplicate)),
        }
    }

    /// Counts the event being applied; one that starts a generation makes
    /// the current generation the older one and drops the older one (its
    /// append archived it in the book: [`archived_by`]).
    fn count_event(&mut self) {
        self.applied += 1;
        if self.applied > 1 && (self.applied - 1).is_multiple_of(REFERENCE_GENERATION) {
            let older =
                std::mem::replace(&mut self.older_refs, std::mem::take(&mut self.recent_refs));
            self.dropped_refs = Transient(older);
        }
    }
}

impl Aggregate for Wallet {
    const TYPE: &'static str = "Wallet";
    type Command = WalletCommand;
    type Event = WalletEvent;
    type Error = WalletError;
    type Services = WalletServices;

    async fn handle(
        &mut self,
        command: Self::Command,
        services: &Self::Services,
        sink: &EventSink<Self>,
    ) -> Result<(), Self::Error> {
        let looked_up = if self.must_look_up(&command.reference) {
            let wallet_id = command.wallet.to_string();
            match services.outcome(&wallet_id, command.reference.trim()).await {
                Ok(outcome) => outcome,
                Err(error) => {
                    let refusal = WalletError::Unavailable(error);
                    command.reply.set(Err(refusal.clone()));
                    return Err(refusal);
                }
            }
        } else {
            None
        };
        let events = match self.decide_knowing(&command, looked_up) {
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
        command
            .reply
            .set(self.outcome(&command, duplicate, looked_up));
        Ok(())
    }

    fn apply(&mut self, event: Self::Event) {
        self.count_event();
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
            self.recent_refs.insert(Arc::from(reference), outcome);
        }
        if let Some(taken_as) = event.also_reference() {
            self.recent_refs
                .insert(Arc::from(taken_as), Outcome::Accepted);
        }
    }
}
