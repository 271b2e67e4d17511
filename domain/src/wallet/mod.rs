//! The Wallet aggregate: one per member and currency.
//!
//! Balances: `main`, `bonus`, `bonus_win` and `frozen`, plus the stakes held
//! by open reservations. Every command carries a transaction reference; the
//! wallet remembers the outcome of each reference so that a repeat moves no
//! money and answers the first outcome (invariant 2).

mod aggregate;
mod commands;
mod events;
#[cfg(test)]
mod tests;

pub use aggregate::{
    archived_by, Balances, BookAnswer, Ledger, Outcome, ReferenceBook, Reservation, Wallet,
    WalletServices, REFERENCE_GENERATION,
};
pub use commands::{Receipt, Reply, WalletAction, WalletCommand, WalletId};
pub use events::{MovementKind, Pot, WalletEvent};

use crate::Code;

/// Why a wallet command was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum WalletError {
    #[error("Insufficient balance.")]
    InsufficientBalance,
    #[error("Wrong amount")]
    WrongAmount,
    #[error("Unknown stake reservation")]
    UnknownReservation,
    #[error("Wallet currency mismatch")]
    CurrencyMismatch,
    #[error("Missing transaction reference")]
    MissingReference,
    #[error("Transaction voided")]
    Voided,
    /// The wallet could not tell whether the reference was used before
    /// (its reference book could not be read): nothing moved; try again.
    #[error("The wallet is unavailable, please try again later")]
    Unavailable(String),
}

impl WalletError {
    pub fn code(&self) -> Code {
        match self {
            WalletError::InsufficientBalance => Code::INSUFFICIENT_BALANCE,
            WalletError::WrongAmount => Code::WRONG_AMOUNT,
            WalletError::UnknownReservation => Code::UNKNOWN_RESERVATION,
            WalletError::CurrencyMismatch => Code::CURRENCY_MISMATCH,
            WalletError::MissingReference => Code::MISSING_REFERENCE,
            WalletError::Voided => Code::REFERENCE_VOIDED,
            WalletError::Unavailable(_) => Code::INTERNAL,
        }
    }

    pub fn from_code(code: i32) -> Option<Self> {
        [
            WalletError::InsufficientBalance,
            WalletError::WrongAmount,
            WalletError::UnknownReservation,
            WalletError::CurrencyMismatch,
            WalletError::MissingReference,
            WalletError::Voided,
        ]
        .into_iter()
        .find(|e| e.code().0 == code)
    }
}
