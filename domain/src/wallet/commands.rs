use std::fmt;
use std::str::FromStr;
use std::sync::{Arc, Mutex};

use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};

use super::{Balances, MovementKind, Pot, WalletError};
use crate::Currency;

/// A wallet's identity: one per member and currency. Its aggregate id is
/// `member:CURRENCY`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct WalletId {
    pub member_id: String,
    pub currency: Currency,
}

impl WalletId {
    pub fn new(member_id: impl Into<String>, currency: Currency) -> Self {
        Self {
            member_id: member_id.into(),
            currency,
        }
    }
}

impl fmt::Display for WalletId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.member_id, self.currency)
    }
}

impl FromStr for WalletId {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let (member, currency) = s
            .rsplit_once(':')
            .ok_or_else(|| format!("wallet id '{s}' is not member:CURRENCY"))?;
        let currency = currency.parse().map_err(|e| format!("{e}"))?;
        Ok(WalletId::new(member, currency))
    }
}

/// What a command asks the wallet to do. Amounts are in the wallet's
/// currency and must already be at its precision.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum WalletAction {
    Credit {
        amount: Decimal,
        pot: Pot,
        kind: MovementKind,
    },
    Debit {
        amount: Decimal,
        pot: Pot,
        kind: MovementKind,
    },
    /// Hold a stake; the command's reference names the reservation.
    ReserveStake {
        amount: Decimal,
        pot: Pot,
    },
    /// Give a held stake back to the pot it came from.
    ReleaseStake {
        reservation: String,
    },
    /// The held stake leaves the wallet (the bet is accepted).
    TakeStake {
        reservation: String,
    },
    /// `ReserveStake` under the command's reference and `TakeStake` under
    /// `take` at once (a bet accepted as it is placed): one event.
    ReserveAndTakeStake {
        amount: Decimal,
        pot: Pot,
        take: String,
    },
    PayOut {
        amount: Decimal,
        pot: Pot,
    },
    Freeze {
        amount: Decimal,
    },
    Unfreeze {
        amount: Decimal,
    },
    /// A withdrawal is paid out of the frozen balance: `Unfrozen` and a
    /// `Debited` (kind Withdrawal) under one reference, so no other
    /// movement can take the money in between.
    PayFrozen {
        amount: Decimal,
    },
    /// Closes a reference no movement has used: recorded as refused
    /// (`Voided`), so a command with it that commits later (a process
    /// frozen mid-transfer) moves nothing. On a used reference it answers
    /// that reference's first outcome, like any repeat.
    Void,
}

/// What the caller learns: the balances after the command and whether the
/// reference had been seen before.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Receipt {
    pub reference: String,
    pub duplicate: bool,
    pub balances: Balances,
    pub reserved: Decimal,
}

/// Where `handle` leaves the command's outcome for its caller.
/// `CqrsFramework::execute` returns only `()`, so the outcome travels back in
/// the command itself; a retried command overwrites it.
#[derive(Debug, Clone, Default)]
pub struct Reply(Arc<Mutex<Option<Result<Receipt, WalletError>>>>);

impl Reply {
    pub fn set(&self, outcome: Result<Receipt, WalletError>) {
        *self.0.lock().unwrap_or_else(|p| p.into_inner()) = Some(outcome);
    }

    pub fn take(&self) -> Option<Result<Receipt, WalletError>> {
        self.0.lock().unwrap_or_else(|p| p.into_inner()).take()
    }
}

#[derive(Debug, Clone)]
pub struct WalletCommand {
    pub wallet: WalletId,
    pub reference: String,
    pub action: WalletAction,
    pub reply: Reply,
}

impl WalletCommand {
    pub fn new(wallet: WalletId, reference: impl Into<String>, action: WalletAction) -> Self {
        Self {
            wallet,
            reference: reference.into(),
            action,
            reply: Reply::default(),
        }
    }
}
