//! Payments: the Deposit and Withdrawal aggregates and the pure rules of
//! payment accounts (bank cards, USDT addresses) and amount limits.
//!
//! A deposit is an order the member opens on a channel (provider payment,
//! bank transfer, USDT); the provider (or the chain watcher) reports what
//! happened and the order credits the wallet exactly once, under the
//! reference `deposit:{order_id}`. A withdrawal freezes its amount at once
//! and is reviewed by finance staff before it is paid out.
//!
//! Layout
//! - `deposit`: the Deposit aggregate (created, confirmed, paid, credited,
//!   flagged, failed, expired, cancelled, reversed; USDT quotes).
//! - `withdrawal`: the Withdrawal aggregate (requested, approved, rejected,
//!   cancelled, paid, failed).
//! - `rules`: channels, limits, card numbers, masks, USDT addresses.

pub mod deposit;
pub mod rules;
#[cfg(test)]
mod tests;
pub mod withdrawal;

pub use deposit::{Deposit, DepositCommand, DepositError, DepositEvent, DepositStatus};
pub use rules::*;
pub use withdrawal::{
    Withdrawal, WithdrawalCommand, WithdrawalError, WithdrawalEvent, WithdrawalStatus,
};

/// Wallet reference of a deposit's credit: one per order, so an order
/// credits once whatever repeats.
pub fn deposit_reference(order_id: &str) -> String {
    format!("deposit:{order_id}")
}

/// Wallet reference of a chargeback taking a credited deposit back.
pub fn reversal_reference(order_id: &str) -> String {
    format!("deposit:{order_id}:reversal")
}

/// Wallet references of a withdrawal's three possible movements.
pub fn freeze_reference(id: &str) -> String {
    format!("withdrawal:{id}:freeze")
}
pub fn unfreeze_reference(id: &str) -> String {
    format!("withdrawal:{id}:unfreeze")
}
pub fn payout_reference(id: &str) -> String {
    format!("withdrawal:{id}:paid")
}
