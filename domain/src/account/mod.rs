//! The Account aggregate: one per user id. It records registration, the
//! login history that drives temporary locks (5 failures in 15 minutes lock
//! for 15, configurable through `LoginPolicy`), trusted devices, staff
//! locks, and the profile and security settings a member changes.
//!
//! Field rules (spec 001 section 5) live in `rules` as newtypes that parse,
//! and `registration` checks a whole registration form with them. Password,
//! fund-password and answer hashes are computed outside the domain; the
//! account only stores them. Time always comes in as milliseconds or a
//! `Date`.

mod aggregate;
mod commands;
mod date;
mod events;
mod registration;
pub mod rules;
#[cfg(test)]
mod tests;

pub use aggregate::{Account, LockKind, LoginPolicy, SecurityQuestion, REMEMBERED_FAILURES};
pub use commands::{AccountCommand, Address};
pub use date::{days_in_month, is_leap_year, Date, InvalidDate};
pub use events::AccountEvent;
pub use registration::{
    validate_registration, Profile, Registration, RegistrationForm, RegistrationRules,
    RegistrationVariant,
};
pub use rules::{
    check_repassword, parse_currency, parse_summary, BirthDate, CountryCode, DialCode, Email,
    FieldError, Gender, InviteCode, Market, Nickname, Password, Phone, PromoCode, RealName,
    RealNameRule, Username, VerifyCode,
};

use crate::Code;

/// Why an account command was refused. Codes (catalogue in `errors.rs`):
/// a field rule carries its own (21, 1010, 1012, 1013, 1119, 2002, 2006 or
/// -10101); 1004 staff lock; 1022 temporary lock; -10010 unverified device
/// (spec login range); platform-defined -10102 not registered and -10103
/// already registered.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AccountError {
    #[error("{0}")]
    Field(#[from] FieldError),
    #[error("User is locked")]
    LockedByStaff,
    #[error("Your account has been locked. Please try again later.")]
    TemporarilyLocked { until_ms: i64 },
    #[error("Please verify this device to log in")]
    DeviceNotVerified,
    #[error("Account is not registered")]
    NotRegistered,
    #[error("Account is already registered")]
    AlreadyRegistered,
}

impl AccountError {
    pub fn code(&self) -> Code {
        match self {
            AccountError::Field(e) => e.code(),
            AccountError::LockedByStaff => Code::USER_LOCKED,
            AccountError::TemporarilyLocked { .. } => Code::ACCOUNT_TEMPORARILY_LOCKED,
            AccountError::DeviceNotVerified => Code::DEVICE_NOT_VERIFIED,
            AccountError::NotRegistered => Code::ACCOUNT_NOT_REGISTERED,
            AccountError::AlreadyRegistered => Code::ACCOUNT_ALREADY_REGISTERED,
        }
    }

    /// The refused field, for `{status, msg, data: {field}}` answers.
    pub fn field(&self) -> Option<&'static str> {
        match self {
            AccountError::Field(e) => Some(e.field),
            _ => None,
        }
    }
}
