use cqrs_es::DomainEvent;
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};

use crate::Currency;

/// Which balance a movement touches.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum Pot {
    #[default]
    Main,
    Bonus,
    BonusWin,
}

/// What a credit or debit is, for the platform-wide conservation sum
/// (deposits - withdrawals - stakes + payouts + bonuses = sum of balances).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MovementKind {
    Deposit,
    Withdrawal,
    Bonus,
    Rebate,
    Adjustment,
    GameDebit,
    GameCredit,
}

/// Events of the Wallet aggregate. Each carries the reference of the command
/// that caused it; `Rejected` records a refusal that depended on the wallet's
/// state, so that a repeated reference answers the same refusal.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum WalletEvent {
    Opened {
        member_id: String,
        currency: Currency,
    },
    Credited {
        reference: String,
        pot: Pot,
        amount: Decimal,
        kind: MovementKind,
    },
    Debited {
        reference: String,
        pot: Pot,
        amount: Decimal,
        kind: MovementKind,
    },
    /// The stake leaves `pot` and is held until it is taken or released.
    StakeReserved {
        reference: String,
        pot: Pot,
        amount: Decimal,
    },
    /// The held stake goes back to the pot it came from.
    StakeReleased {
        reference: String,
        reservation: String,
        pot: Pot,
        amount: Decimal,
    },
    /// The held stake leaves the wallet.
    StakeTaken {
        reference: String,
        reservation: String,
        amount: Decimal,
    },
    /// A stake held and taken in one move (a bet accepted as it is
    /// placed): what `StakeReserved` under `reference` then `StakeTaken`
    /// under `taken_as` did, in one event. Both references are used.
    StakeReservedAndTaken {
        reference: String,
        taken_as: String,
        pot: Pot,
        amount: Decimal,
    },
    PaidOut {
        reference: String,
        pot: Pot,
        amount: Decimal,
    },
    Frozen {
        reference: String,
        amount: Decimal,
    },
    Unfrozen {
        reference: String,
        amount: Decimal,
    },
    Rejected {
        reference: String,
        code: i32,
    },
}

impl WalletEvent {
    pub fn reference(&self) -> Option<&str> {
        use WalletEvent::*;
        match self {
            Opened { .. } => None,
            Credited { reference, .. }
            | Debited { reference, .. }
            | StakeReserved { reference, .. }
            | StakeReleased { reference, .. }
            | StakeTaken { reference, .. }
            | StakeReservedAndTaken { reference, .. }
            | PaidOut { reference, .. }
            | Frozen { reference, .. }
            | Unfrozen { reference, .. }
            | Rejected { reference, .. } => Some(reference),
        }
    }

    /// The second reference an event uses, if it has one (the take of a
    /// `StakeReservedAndTaken`).
    pub fn also_reference(&self) -> Option<&str> {
        match self {
            WalletEvent::StakeReservedAndTaken { taken_as, .. } => Some(taken_as),
            _ => None,
        }
    }
}

impl DomainEvent for WalletEvent {
    fn event_type(&self) -> String {
        use WalletEvent::*;
        match self {
            Opened { .. } => "WalletOpened",
            Credited { .. } => "WalletCredited",
            Debited { .. } => "WalletDebited",
            StakeReserved { .. } => "StakeReserved",
            StakeReleased { .. } => "StakeReleased",
            StakeTaken { .. } => "StakeTaken",
            StakeReservedAndTaken { .. } => "StakeReservedAndTaken",
            PaidOut { .. } => "PaidOut",
            Frozen { .. } => "FundsFrozen",
            Unfrozen { .. } => "FundsUnfrozen",
            Rejected { .. } => "WalletCommandRejected",
        }
        .to_string()
    }

    fn event_version(&self) -> String {
        "1.0".to_string()
    }
}
