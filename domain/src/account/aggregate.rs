use std::collections::BTreeSet;

use cqrs_es::event_sink::EventSink;
use cqrs_es::Aggregate;
use serde::{Deserialize, Serialize};

use super::rules::{parse_required_text, parse_summary, FieldError};
use super::{AccountCommand, AccountError, AccountEvent, Address, Profile};

/// How many failed logins lock an account, and for how long (the
/// aggregate's services; docs/protocol.md: 5 in 15 minutes lock for 15).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LoginPolicy {
    pub max_failures: u32,
    pub window_ms: i64,
    pub lock_ms: i64,
}

impl Default for LoginPolicy {
    fn default() -> Self {
        Self {
            max_failures: 5,
            window_ms: 900_000,
            lock_ms: 900_000,
        }
    }
}

/// Failure times kept in the state. `apply` cannot see the policy window,
/// so the list is bounded by count instead: a policy's `max_failures`
/// should not exceed this plus one.
pub const REMEMBERED_FAILURES: usize = 16;

/// Why logins are refused at a given time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LockKind {
    Staff,
    Temporary { until_ms: i64 },
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SecurityQuestion {
    pub question: String,
    pub answer_hash: String,
}

/// The Account aggregate, one per user id. Registered iff `profile` is set.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Account {
    pub user_id: Option<String>,
    pub profile: Option<Profile>,
    pub registered_at_ms: i64,
    pub password_hash: String,
    pub fund_password_hash: Option<String>,
    pub security_question: Option<SecurityQuestion>,
    pub summary: String,
    pub address: Option<Address>,
    pub last_login_ms: Option<i64>,
    pub trusted_devices: BTreeSet<String>,
    /// Times of the failed logins since the last login or lock, newest
    /// last, at most `REMEMBERED_FAILURES`.
    pub recent_failures: Vec<i64>,
    pub locked_until_ms: Option<i64>,
    pub staff_lock_reason: Option<String>,
}

impl Account {
    pub fn is_registered(&self) -> bool {
        self.profile.is_some()
    }

    /// The lock in force at `now_ms`, the staff lock first.
    pub fn is_locked_at(&self, now_ms: i64) -> Option<LockKind> {
        if self.staff_lock_reason.is_some() {
            return Some(LockKind::Staff);
        }
        self.locked_until_ms
            .filter(|until| now_ms < *until)
            .map(|until_ms| LockKind::Temporary { until_ms })
    }

    pub fn is_trusted(&self, device_id: &str) -> bool {
        self.trusted_devices.contains(device_id)
    }

    pub fn password_hash(&self) -> Option<&str> {
        self.is_registered().then_some(self.password_hash.as_str())
    }

    /// Whether a safety code can reach the member (a phone or e-mail bound).
    pub fn has_verification_channel(&self) -> bool {
        !self.verification_channels().is_empty()
    }

    /// "phone" and/or "email", as the -10010 answer lists them.
    pub fn verification_channels(&self) -> Vec<&'static str> {
        let Some(p) = &self.profile else {
            return vec![];
        };
        let mut channels = vec![];
        if p.phone.is_some() {
            channels.push("phone");
        }
        if p.email.is_some() {
            channels.push("email");
        }
        channels
    }

    /// `138****0000`
    pub fn masked_phone(&self) -> Option<String> {
        self.profile.as_ref()?.phone.as_ref().map(|p| p.masked())
    }

    /// `d***@x.com`
    pub fn masked_email(&self) -> Option<String> {
        self.profile.as_ref()?.email.as_ref().map(|e| e.masked())
    }

    fn refuse_if_locked(&self, now_ms: i64) -> Result<(), AccountError> {
        match self.is_locked_at(now_ms) {
            Some(LockKind::Staff) => Err(AccountError::LockedByStaff),
            Some(LockKind::Temporary { until_ms }) => {
                Err(AccountError::TemporarilyLocked { until_ms })
            }
            None => Ok(()),
        }
    }

    fn login_failure(&self, at_ms: i64, policy: &LoginPolicy) -> Vec<AccountEvent> {
        let in_window = |t: &&i64| at_ms - **t < policy.window_ms;
        let failures = self.recent_failures.iter().filter(in_window).count() + 1;
        let mut events = vec![AccountEvent::LoginFailed { at_ms }];
        if failures >= policy.max_failures as usize {
            events.push(AccountEvent::TemporarilyLocked {
                until_ms: at_ms + policy.lock_ms,
            });
        }
        events
    }

    /// The pure decision: which events a command produces.
    pub fn decide(
        &self,
        command: AccountCommand,
        policy: &LoginPolicy,
    ) -> Result<Vec<AccountEvent>, AccountError> {
        use AccountCommand as C;
        use AccountEvent as E;
        if let C::Register {
            user_id,
            registration,
            password_hash,
            device_id,
            at_ms,
        } = command
        {
            if self.is_registered() {
                return Err(AccountError::AlreadyRegistered);
            }
            return Ok(vec![E::Registered {
                user_id,
                profile: registration.profile,
                password_hash,
                device_id,
                at_ms,
            }]);
        }
        if !self.is_registered() {
            return Err(AccountError::NotRegistered);
        }
        let event = match command {
            C::Register { .. } => unreachable!("handled above"),
            C::RecordLoginFailure { at_ms, .. } => {
                self.refuse_if_locked(at_ms)?;
                return Ok(self.login_failure(at_ms, policy));
            }
            C::RecordLogin { at_ms, device_id } => {
                self.refuse_if_locked(at_ms)?;
                if self.has_verification_channel() && !self.is_trusted(&device_id) {
                    return Err(AccountError::DeviceNotVerified);
                }
                E::LoggedIn { at_ms, device_id }
            }
            C::TrustDevice { device_id } if self.is_trusted(&device_id) => return Ok(vec![]),
            C::TrustDevice { device_id } => E::DeviceTrusted { device_id },
            C::ChangeLoginPassword { password_hash } => E::LoginPasswordChanged { password_hash },
            C::SetFundPassword { hash } => E::FundPasswordSet { hash },
            C::SetSecurityQuestion {
                question,
                answer_hash,
            } => E::SecurityQuestionSet {
                question: parse_required_text("question", &question, 100)?,
                answer_hash,
            },
            C::ChangeEmail {
                email,
                old_contact_verified,
            } => {
                let bound = self.profile.as_ref().and_then(|p| p.email.as_ref());
                if bound == Some(&email) {
                    return Ok(vec![]);
                }
                if bound.is_some() && !old_contact_verified {
                    return Err(old_contact_unverified());
                }
                E::EmailChanged { email }
            }
            C::ChangePhone {
                phone,
                old_contact_verified,
            } => {
                let bound = self.profile.as_ref().and_then(|p| p.phone.as_ref());
                if bound == Some(&phone) {
                    return Ok(vec![]);
                }
                if bound.is_some() && !old_contact_verified {
                    return Err(old_contact_unverified());
                }
                E::PhoneChanged { phone }
            }
            C::UnbindEmail { contact_verified } => {
                self.unbind(Unbind::Email, contact_verified)?;
                E::EmailUnbound
            }
            C::UnbindPhone { contact_verified } => {
                self.unbind(Unbind::Phone, contact_verified)?;
                E::PhoneUnbound
            }
            C::SetNickname(nickname) => E::NicknameSet { nickname },
            C::SetBirthDate(birth_date) => {
                if self
                    .profile
                    .as_ref()
                    .is_some_and(|p| p.birth_date.is_some())
                {
                    return Err(AccountError::Field(FieldError::new(
                        "birth_date",
                        crate::Code::BIRTH_DATE_SET,
                        crate::Code::BIRTH_DATE_SET.message(),
                    )));
                }
                E::BirthDateSet { birth_date }
            }
            C::SetRealName(real_name) => E::RealNameSet { real_name },
            C::SetSummary(summary) => E::SummarySet {
                summary: parse_summary(&summary)?,
            },
            C::SetAddress(address) => E::AddressSet {
                address: address.checked()?,
            },
            C::LockByStaff { .. } if self.staff_lock_reason.is_some() => return Ok(vec![]),
            C::LockByStaff { reason } => E::LockedByStaff { reason },
            C::UnlockByStaff => {
                let locked = self.staff_lock_reason.is_some() || self.locked_until_ms.is_some();
                if !locked {
                    return Ok(vec![]);
                }
                E::UnlockedByStaff
            }
        };
        Ok(vec![event])
    }
}

/// Which contact an unbinding removes.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Unbind {
    Phone,
    Email,
}

impl Account {
    /// The rules of unbinding a phone or e-mail: one must be bound, a code
    /// sent to it must have been checked, and the other one must stay
    /// bound (the account keeps a contact for the safety verification and
    /// for password recovery).
    fn unbind(&self, which: Unbind, contact_verified: bool) -> Result<(), AccountError> {
        let profile = self.profile.as_ref().ok_or(AccountError::NotRegistered)?;
        let (bound, other_bound, field, nothing) = match which {
            Unbind::Phone => (
                profile.phone.is_some(),
                profile.email.is_some(),
                "mobile",
                "There is no phone number bound to this account",
            ),
            Unbind::Email => (
                profile.email.is_some(),
                profile.phone.is_some(),
                "email",
                "There is no e-mail address bound to this account",
            ),
        };
        if !bound {
            return Err(AccountError::Field(FieldError::new(
                field,
                crate::Code::NOTHING_BOUND,
                nothing,
            )));
        }
        if !contact_verified {
            return Err(AccountError::Field(FieldError::new(
                "uid",
                crate::Code::VERIFY_CODE_MISMATCH,
                "Please enter the 4-digit verification code",
            )));
        }
        if !other_bound {
            return Err(AccountError::Field(FieldError::new(
                field,
                crate::Code::LAST_CONTACT,
                crate::Code::LAST_CONTACT.message(),
            )));
        }
        Ok(())
    }
}

/// Replacing a bound phone or e-mail without a code from it: whoever holds
/// a session (or the password) must not be able to move the account's
/// recovery contact to one of their own.
fn old_contact_unverified() -> AccountError {
    AccountError::Field(FieldError::new(
        "old_uid",
        crate::Code::VERIFY_CODE_MISMATCH,
        "Please enter the 4-digit verification code",
    ))
}

impl Aggregate for Account {
    const TYPE: &'static str = "Account";
    type Command = AccountCommand;
    type Event = AccountEvent;
    type Error = AccountError;
    type Services = LoginPolicy;

    async fn handle(
        &mut self,
        command: Self::Command,
        policy: &Self::Services,
        sink: &EventSink<Self>,
    ) -> Result<(), Self::Error> {
        for event in self.decide(command, policy)? {
            sink.write(event, self).await;
        }
        Ok(())
    }

    fn apply(&mut self, event: Self::Event) {
        use AccountEvent::*;
        let profile = &mut self.profile;
        match event {
            Registered {
                user_id,
                profile: registered,
                password_hash,
                device_id,
                at_ms,
            } => {
                self.user_id = Some(user_id);
                *profile = Some(registered);
                self.password_hash = password_hash;
                self.trusted_devices.insert(device_id);
                self.registered_at_ms = at_ms;
            }
            LoginFailed { at_ms } => {
                self.recent_failures.push(at_ms);
                let excess = self
                    .recent_failures
                    .len()
                    .saturating_sub(REMEMBERED_FAILURES);
                self.recent_failures.drain(..excess);
            }
            TemporarilyLocked { until_ms } => {
                self.locked_until_ms = Some(until_ms);
                self.recent_failures.clear();
            }
            LoggedIn { at_ms, .. } => {
                self.last_login_ms = Some(at_ms);
                self.recent_failures.clear();
            }
            DeviceTrusted { device_id } => {
                self.trusted_devices.insert(device_id);
            }
            LoginPasswordChanged { password_hash } => self.password_hash = password_hash,
            FundPasswordSet { hash } => self.fund_password_hash = Some(hash),
            SecurityQuestionSet {
                question,
                answer_hash,
            } => {
                self.security_question = Some(SecurityQuestion {
                    question,
                    answer_hash,
                })
            }
            EmailChanged { email } => {
                if let Some(p) = profile {
                    p.email = Some(email);
                }
            }
            PhoneChanged { phone } => {
                if let Some(p) = profile {
                    p.phone = Some(phone);
                }
            }
            EmailUnbound => {
                if let Some(p) = profile {
                    p.email = None;
                }
            }
            PhoneUnbound => {
                if let Some(p) = profile {
                    p.phone = None;
                }
            }
            BirthDateSet { birth_date } => {
                if let Some(p) = profile {
                    p.birth_date = Some(birth_date);
                }
            }
            NicknameSet { nickname } => {
                if let Some(p) = profile {
                    p.nickname = Some(nickname);
                }
            }
            RealNameSet { real_name } => {
                if let Some(p) = profile {
                    p.real_name = Some(real_name);
                }
            }
            SummarySet { summary } => self.summary = summary,
            AddressSet { address } => self.address = Some(address),
            LockedByStaff { reason } => self.staff_lock_reason = Some(reason),
            UnlockedByStaff => {
                self.staff_lock_reason = None;
                self.locked_until_ms = None;
                self.recent_failures.clear();
            }
        }
    }
}
