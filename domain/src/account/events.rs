use cqrs_es::DomainEvent;
use serde::{Deserialize, Serialize};

use super::rules::{BirthDate, Email, Nickname, Phone, RealName};
use super::{Address, Profile};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum AccountEvent {
    /// The registering device is trusted from the start.
    Registered {
        user_id: String,
        profile: Profile,
        password_hash: String,
        device_id: String,
        at_ms: i64,
    },
    LoginFailed {
        at_ms: i64,
    },
    /// Too many failures inside the policy window; logins are refused
    /// until `until_ms` and the failure count starts again.
    TemporarilyLocked {
        until_ms: i64,
    },
    /// Clears the failure count.
    LoggedIn {
        at_ms: i64,
        device_id: String,
    },
    DeviceTrusted {
        device_id: String,
    },
    LoginPasswordChanged {
        password_hash: String,
    },
    FundPasswordSet {
        hash: String,
    },
    SecurityQuestionSet {
        question: String,
        answer_hash: String,
    },
    EmailChanged {
        email: Email,
    },
    PhoneChanged {
        phone: Phone,
    },
    EmailUnbound,
    PhoneUnbound,
    NicknameSet {
        nickname: Nickname,
    },
    BirthDateSet {
        birth_date: BirthDate,
    },
    RealNameSet {
        real_name: RealName,
    },
    SummarySet {
        summary: String,
    },
    AddressSet {
        address: Address,
    },
    LockedByStaff {
        reason: String,
    },
    /// Lifts the staff lock and any temporary lock.
    UnlockedByStaff,
}

impl DomainEvent for AccountEvent {
    fn event_type(&self) -> String {
        use AccountEvent::*;
        match self {
            Registered { .. } => "AccountRegistered",
            LoginFailed { .. } => "AccountLoginFailed",
            TemporarilyLocked { .. } => "AccountTemporarilyLocked",
            LoggedIn { .. } => "AccountLoggedIn",
            DeviceTrusted { .. } => "AccountDeviceTrusted",
            LoginPasswordChanged { .. } => "AccountLoginPasswordChanged",
            FundPasswordSet { .. } => "AccountFundPasswordSet",
            SecurityQuestionSet { .. } => "AccountSecurityQuestionSet",
            EmailChanged { .. } => "AccountEmailChanged",
            PhoneChanged { .. } => "AccountPhoneChanged",
            EmailUnbound => "AccountEmailUnbound",
            PhoneUnbound => "AccountPhoneUnbound",
            NicknameSet { .. } => "AccountNicknameSet",
            BirthDateSet { .. } => "AccountBirthDateSet",
            RealNameSet { .. } => "AccountRealNameSet",
            SummarySet { .. } => "AccountSummarySet",
            AddressSet { .. } => "AccountAddressSet",
            LockedByStaff { .. } => "AccountLockedByStaff",
            UnlockedByStaff => "AccountUnlockedByStaff",
        }
        .to_string()
    }

    fn event_version(&self) -> String {
        "1.0".to_string()
    }
}
