use serde::{Deserialize, Serialize};

use super::rules::{parse_required_text, BirthDate, Email, FieldError, Nickname, Phone, RealName};
use super::Registration;

/// What the account is asked to record. Times are milliseconds since the
/// epoch, supplied by the caller; hashes are computed outside the domain.
#[derive(Debug, Clone, PartialEq)]
pub enum AccountCommand {
    Register {
        user_id: String,
        registration: Registration,
        password_hash: String,
        device_id: String,
        at_ms: i64,
    },
    /// A wrong password was given for this account.
    RecordLoginFailure {
        at_ms: i64,
        device_id: String,
    },
    /// A correct password was given; refused while locked or from a device
    /// that must first be verified.
    RecordLogin {
        at_ms: i64,
        device_id: String,
    },
    /// The device passed the safety verification (code type 8).
    TrustDevice {
        device_id: String,
    },
    ChangeLoginPassword {
        password_hash: String,
    },
    SetFundPassword {
        hash: String,
    },
    SetSecurityQuestion {
        question: String,
        answer_hash: String,
    },
    /// Binds an e-mail. Replacing a bound one needs `old_contact_verified`:
    /// the caller checked a code sent to the e-mail bound now.
    ChangeEmail {
        email: Email,
        old_contact_verified: bool,
    },
    /// Binds a phone; as `ChangeEmail` for the phone bound now.
    ChangePhone {
        phone: Phone,
        old_contact_verified: bool,
    },
    /// Unbinds the e-mail. `contact_verified`: the caller checked a code
    /// sent to it (type 8). The phone must stay bound.
    UnbindEmail {
        contact_verified: bool,
    },
    /// Unbinds the phone; as `UnbindEmail`, the e-mail must stay bound.
    UnbindPhone {
        contact_verified: bool,
    },
    SetNickname(Nickname),
    SetRealName(RealName),
    /// Sets the birth date (parsed against the age rule by the caller,
    /// which knows today). Set once: refused when one is set.
    SetBirthDate(BirthDate),
    /// At most 200 characters, checked by the aggregate.
    SetSummary(String),
    SetAddress(Address),
    LockByStaff {
        reason: String,
    },
    UnlockByStaff,
}

/// A delivery address (`user/setuseraddress`): every part required and at
/// most `Address::MAX` characters.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Address {
    pub consignee: String,
    pub phone: String,
    pub province: String,
    pub city: String,
    pub district: String,
    pub address: String,
}

impl Address {
    pub const MAX: usize = 100;

    /// The address with each part trimmed, or the first part that fails.
    pub fn checked(&self) -> Result<Address, FieldError> {
        let part = |field, value: &str| parse_required_text(field, value, Self::MAX);
        Ok(Address {
            consignee: part("consignee", &self.consignee)?,
            phone: part("phone", &self.phone)?,
            province: part("province", &self.province)?,
            city: part("city", &self.city)?,
            district: part("district", &self.district)?,
            address: part("address", &self.address)?,
        })
    }
}
