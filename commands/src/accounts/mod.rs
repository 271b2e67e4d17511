//! Members and staff. This module is the account service: registration,
//! login, password recovery, the safety verification and profile changes,
//! over the Account aggregate and the identity table (unique usernames,
//! phones, e-mails).
//!
//! Layout
//! - `sessions`: member sessions (hashed random tokens).
//! - `codes`: verification codes (the sender port, the outbox stand-in)
//!   and image captchas.
//! - `staff`: back-office staff accounts, their sessions and lockouts.
//!
//! Passwords are hashed with argon2id here (never in `domain`) and only the
//! hashes reach events.

pub mod codes;
pub mod sessions;
pub mod staff;

use std::collections::HashMap;
use std::sync::Arc;

use argon2::password_hash::{PasswordHash, PasswordHasher, PasswordVerifier, SaltString};
use argon2::Argon2;
use domain::account::{
    check_repassword, parse_summary, validate_registration, Account, AccountCommand, AccountError,
    Address, BirthDate, Date, Email, FieldError, LockKind, LoginPolicy, Market, Nickname, Password,
    Phone, RealName, RealNameRule, RegistrationForm, RegistrationRules, RegistrationVariant,
};
use serde::Serialize;
use sqlx::{AnyPool, Row};

use crate::accounts::codes::{Channel, CodeError, CodeKind, Codes};
use crate::accounts::sessions::{Issued, SessionError, Sessions};
use crate::platform::clock::SharedClock;
use crate::platform::limits::RateLimit;
use store::db::Db;
use store::events::StoreOptions;
use store::framework::{CommandError, Framework, RetryPolicy};
use store::metrics::CommandMetrics;

/// Why an account call did not go through, in wire terms.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum AccountFailure {
    /// A catalogue code, with the field it concerns when there is one.
    #[error("{msg}")]
    Refused {
        code: i32,
        msg: String,
        field: Option<&'static str>,
    },
    /// Too frequent: try again in `wait` seconds.
    #[error("{msg}")]
    Wait { code: i32, msg: String, wait: i64 },
    /// -10010: a correct password from a device to verify first.
    #[error("Please verify this device to log in")]
    VerifyDevice(SafetyChallenge),
    #[error("internal: {0}")]
    Internal(String),
}

/// Who asks for or checks a code: the device, and the member whose session
/// the request carries, if any.
#[derive(Debug, Clone, Copy, Default)]
pub struct Requester<'a> {
    pub device_id: &'a str,
    pub signed_in: Option<&'a str>,
}

/// How long a login's safety verification stays open on its device.
pub const SAFETY_CHALLENGE_MS: i64 = 15 * 60 * 1000;

/// What the client needs to run the safety verification.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SafetyChallenge {
    pub username: String,
    pub channels: Vec<&'static str>,
    pub phone: Option<String>,
    pub email: Option<String>,
}

impl AccountFailure {
    fn code(code: i32, msg: impl Into<String>) -> Self {
        AccountFailure::Refused {
            code,
            msg: msg.into(),
            field: None,
        }
    }

    fn catalogue(code: domain::Code) -> Self {
        Self::code(code.0, code.message())
    }
}

impl From<FieldError> for AccountFailure {
    fn from(e: FieldError) -> Self {
        AccountFailure::Refused {
            code: e.code,
            msg: e.message.clone(),
            field: Some(e.field),
        }
    }
}

impl From<AccountError> for AccountFailure {
    fn from(e: AccountError) -> Self {
        match e {
            AccountError::Field(field) => field.into(),
            other => AccountFailure::code(other.code().0, other.code().message()),
        }
    }
}

impl From<CommandError<AccountError>> for AccountFailure {
    fn from(e: CommandError<AccountError>) -> Self {
        match e {
            CommandError::Rejected(e) => e.into(),
            other => AccountFailure::Internal(other.to_string()),
        }
    }
}

impl From<CodeError> for AccountFailure {
    fn from(e: CodeError) -> Self {
        match e {
            CodeError::ResendTooSoon { wait } => AccountFailure::Wait {
                code: e.code(),
                msg: e.to_string(),
                wait,
            },
            CodeError::Store(detail) => AccountFailure::Internal(detail),
            CodeError::Mismatch => AccountFailure::Refused {
                code: 21,
                msg: domain::Code(21).message(),
                field: Some("verify_code"),
            },
            other => AccountFailure::code(other.code(), other.to_string()),
        }
    }
}

impl From<SessionError> for AccountFailure {
    fn from(e: SessionError) -> Self {
        match e {
            SessionError::Expired => AccountFailure::code(-601, e.to_string()),
            SessionError::Store(detail) => AccountFailure::Internal(detail),
        }
    }
}

impl From<sqlx::Error> for AccountFailure {
    fn from(e: sqlx::Error) -> Self {
        AccountFailure::Internal(e.to_string())
    }
}

pub type AccountResult<T> = Result<T, AccountFailure>;

/// Security answers a member may try in `ANSWER_WINDOW_MS` before
/// `check_security_question` waits (-10108): the answer is a password in
/// all but name, and a short one.
pub const MAX_ANSWER_TRIES: usize = 5;
pub const ANSWER_WINDOW_MS: i64 = 900_000;

/// Wrong login passwords a member may give in `PASSWORD_WINDOW_MS` to
/// confirm an action (unbinding or changing a contact, the fund password,
/// the security question, a password change) before every try waits
/// (-10109).
pub const MAX_PASSWORD_TRIES: usize = 5;
pub const PASSWORD_WINDOW_MS: i64 = 900_000;

/// How a member proves who they are to set a new login password without
/// the old one (`change_login_password_verified`): a checked safety code
/// (type 8) sent to the bound phone or e-mail, or a passed security answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verification {
    Phone,
    Email,
    Question,
}

impl Verification {
    /// `valtype` on the wire: 1 phone, 2 e-mail (as `sendcode`), 3 question.
    pub fn from_valtype(v: i64) -> Option<Self> {
        match v {
            1 => Some(Verification::Phone),
            2 => Some(Verification::Email),
            3 => Some(Verification::Question),
            _ => None,
        }
    }
}

/// The target a passed security answer is recorded under.
fn question_target(user_id: &str) -> String {
    format!("question:{user_id}")
}

/// What a member shows to bind a phone or e-mail (`change_contact`).
#[derive(Debug, Clone, Copy, Default)]
pub struct ContactProof<'a> {
    /// `checkcode` uid of a type-2 code sent to the new contact.
    pub uid: &'a str,
    /// `checkcode` uid of a type-8 code sent to the contact bound now
    /// (ignored when none is bound).
    pub old_uid: &'a str,
    /// The login password.
    pub password: &'a str,
}

/// The request field that names a contact of `channel`.
fn channel_field(channel: Channel) -> &'static str {
    match channel {
        Channel::Phone => "mobile",
        Channel::Email => "email",
    }
}

/// The phone or e-mail bound to `account`, as stored.
fn bound_contact(account: &Account, channel: Channel) -> Option<String> {
    let profile = account.profile.as_ref()?;
    match channel {
        Channel::Phone => profile.phone.as_ref().map(|p| p.as_str().to_string()),
        Channel::Email => profile.email.as_ref().map(|e| e.as_str().to_string()),
    }
}

/// A new phone or e-mail, parsed for the member's market.
enum Contact {
    Phone(Phone),
    Email(Email),
}

impl Contact {
    fn parse(channel: Channel, value: &str, market: Market) -> Result<Self, FieldError> {
        Ok(match channel {
            Channel::Phone => Contact::Phone(Phone::parse(value, market)?),
            Channel::Email => Contact::Email(Email::parse(value, market)?),
        })
    }

    /// Its kind in `account_identities`.
    fn kind(&self) -> &'static str {
        match self {
            Contact::Phone(_) => "phone",
            Contact::Email(_) => "email",
        }
    }

    fn value(&self) -> String {
        match self {
            Contact::Phone(p) => p.as_str().to_string(),
            Contact::Email(e) => e.as_str().to_string(),
        }
    }

    fn command(&self, old_contact_verified: bool) -> AccountCommand {
        match self {
            Contact::Phone(phone) => AccountCommand::ChangePhone {
                phone: phone.clone(),
                old_contact_verified,
            },
            Contact::Email(email) => AccountCommand::ChangeEmail {
                email: email.clone(),
                old_contact_verified,
            },
        }
    }
}

/// A safety code for a contact that is not the account's bound one (spec
/// 001 phone and e-mail codes; the texts of the forgot-password form).
fn not_bound(channel: Channel) -> AccountFailure {
    let (code, msg) = match channel {
        Channel::Phone => (1134, "Enter your phone number"),
        Channel::Email => (1119, "Enter your email address"),
    };
    AccountFailure::Refused {
        code,
        msg: msg.into(),
        field: Some(channel_field(channel)),
    }
}

/// A proof uid that is not a checked, unused code of what it should prove
/// (1009 'code expired', with the field that carried it).
fn spent(field: &'static str) -> impl Fn(CodeError) -> AccountFailure {
    move |e: CodeError| match e {
        CodeError::Expired | CodeError::NoPriorSend => AccountFailure::Refused {
            code: 1009,
            msg: domain::Code(1009).message(),
            field: Some(field),
        },
        other => other.into(),
    }
}

/// How the caller proves control of the contact it registers with.
pub enum Proof<'a> {
    /// `checkcode` uid for the phone or e-mail (type 2).
    Code { uid: &'a str },
    /// Image code (username variant).
    Captcha { uid: &'a str, code: &'a str },
}

/// The registration and login settings.
#[derive(Debug, Clone)]
pub struct AccountSettings {
    pub rules: RegistrationRules,
    pub policy: LoginPolicy,
    /// Refuse logins from devices this account never verified (-10010).
    pub verify_new_devices: bool,
}

impl Default for AccountSettings {
    fn default() -> Self {
        Self {
            rules: RegistrationRules::default(),
            policy: LoginPolicy::default(),
            verify_new_devices: true,
        }
    }
}

pub struct AccountService {
    framework: Framework<Account>,
    pool: AnyPool,
    pub codes: Arc<Codes>,
    pub sessions: Arc<Sessions>,
    clock: SharedClock,
    settings: AccountSettings,
    login_by_ip: RateLimit,
    login_by_account: RateLimit,
    /// Failed logins of names nobody has: they lock like a real account's
    /// (`LoginPolicy`), or the lock would tell which names exist.
    unknown_failures: RateLimit,
    register_by_ip: RateLimit,
    sendcode_by_ip: RateLimit,
    /// Security answer tries per member (`check_security_question`).
    answer_tries: RateLimit,
    password_tries: RateLimit,
}

pub(crate) fn hash_password(password: &str) -> Result<String, String> {
    let salt = SaltString::generate(&mut argon2::password_hash::rand_core::OsRng);
    Argon2::default()
        .hash_password(password.as_bytes(), &salt)
        .map(|h| h.to_string())
        .map_err(|e| e.to_string())
}

pub(crate) fn password_matches(password: &str, hash: &str) -> bool {
    PasswordHash::new(hash).is_ok_and(|parsed| {
        Argon2::default()
            .verify_password(password.as_bytes(), &parsed)
            .is_ok()
    })
}

/// A hash of a random password with the same parameters as every real
/// one, computed once: a login for a name nobody has (or with a password
/// that could not be decrypted) is checked against it, so it costs the
/// same argon2 time as a wrong password and cannot be told apart by it.
fn dummy_hash() -> &'static str {
    static DUMMY: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    DUMMY.get_or_init(|| {
        // Hashing with the default parameters and a fresh salt cannot fail.
        hash_password(&crate::accounts::sessions::token()).unwrap_or_default()
    })
}

/// Whether `password` matches `hash`, spending the argon2 time even when
/// either is missing (then the answer is no).
pub(crate) fn login_password_matches(password: Option<&str>, hash: Option<&str>) -> bool {
    let matches = password_matches(password.unwrap_or_default(), hash.unwrap_or(dummy_hash()));
    matches && password.is_some() && hash.is_some()
}

/// Argon2 is deliberately slow: keep it off the async workers.
async fn hash_off_thread(password: String) -> AccountResult<String> {
    tokio::task::spawn_blocking(move || hash_password(&password))
        .await
        .map_err(|e| AccountFailure::Internal(e.to_string()))?
        .map_err(AccountFailure::Internal)
}

async fn verify_login_off_thread(
    password: Option<String>,
    hash: Option<String>,
) -> AccountResult<bool> {
    tokio::task::spawn_blocking(move || {
        login_password_matches(password.as_deref(), hash.as_deref())
    })
    .await
    .map_err(|e| AccountFailure::Internal(e.to_string()))
}

async fn verify_off_thread(password: String, hash: String) -> AccountResult<bool> {
    tokio::task::spawn_blocking(move || password_matches(&password, &hash))
        .await
        .map_err(|e| AccountFailure::Internal(e.to_string()))
}

fn limited(code: i32, wait: i64) -> AccountFailure {
    AccountFailure::Wait {
        code,
        msg: format!("Too frequent, please try again in {wait} seconds"),
        wait,
    }
}

impl AccountService {
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        db: &Db,
        options: StoreOptions,
        retry: RetryPolicy,
        metrics: CommandMetrics,
        codes: Arc<Codes>,
        sessions: Arc<Sessions>,
        clock: SharedClock,
        settings: AccountSettings,
    ) -> Self {
        let policy = settings.policy;
        Self {
            unknown_failures: RateLimit::new(
                db.any.clone(),
                "login_unknown",
                policy.max_failures as usize,
                policy.window_ms,
            ),
            framework: Framework::new(db, options, policy, retry, metrics, None),
            pool: db.any.clone(),
            codes,
            sessions,
            clock,
            settings,
            login_by_ip: RateLimit::new(db.any.clone(), "login_ip", 30, 60_000),
            login_by_account: RateLimit::new(db.any.clone(), "login_account", 10, 60_000),
            register_by_ip: RateLimit::new(db.any.clone(), "register_ip", 20, 3_600_000),
            sendcode_by_ip: RateLimit::new(db.any.clone(), "sendcode_ip", 10, 600_000),
            answer_tries: RateLimit::new(
                db.any.clone(),
                "question_tries",
                MAX_ANSWER_TRIES,
                ANSWER_WINDOW_MS,
            ),
            password_tries: RateLimit::new(
                db.any.clone(),
                "password_tries",
                MAX_PASSWORD_TRIES,
                PASSWORD_WINDOW_MS,
            ),
        }
    }

    pub fn settings(&self) -> &AccountSettings {
        &self.settings
    }

    async fn execute(&self, user_id: &str, command: AccountCommand) -> AccountResult<()> {
        self.framework
            .execute(user_id, command, HashMap::new())
            .await
            .map_err(AccountFailure::from)
    }

    /// The account as stored now.
    pub async fn load(&self, user_id: &str) -> AccountResult<Account> {
        let loaded = self
            .framework
            .store()
            .load_current(user_id)
            .await
            .map_err(|e| AccountFailure::Internal(e.to_string()))?;
        if !loaded.aggregate.is_registered() {
            return Err(AccountFailure::catalogue(domain::Code::NOT_LOGGED_IN));
        }
        Ok(loaded.aggregate)
    }

    /// The user id behind a username, phone or e-mail.
    pub async fn find(&self, login: &str) -> AccountResult<Option<String>> {
        let login = login.trim();
        let lowered = login.to_lowercase();
        let found = sqlx::query(
            "SELECT user_id FROM account_identities
             WHERE (kind = 'username' AND value = $1) OR (kind = 'email' AND value = $1)
                OR (kind = 'phone' AND value = $2)
             LIMIT 1",
        )
        .bind(&lowered)
        .bind(login)
        .fetch_optional(&self.pool)
        .await?;
        Ok(found.map(|r| r.try_get("user_id")).transpose()?)
    }

    async fn new_user_id(&self) -> AccountResult<String> {
        let id: i64 =
            sqlx::query_scalar("INSERT INTO member_ids (created_ms) VALUES ($1) RETURNING id")
                .bind(self.clock.now_ms())
                .fetch_one(&self.pool)
                .await?;
        Ok(id.to_string())
    }

    /// Claims `value` of `kind` for `user_id`; false when someone has it.
    /// Usernames and phone numbers share one login namespace (`find`: a
    /// username may be all digits): a phone that is another account's
    /// username, or a username that is another account's phone, is taken
    /// too. The other kind is checked after the insert, so two claims of
    /// the same value under different kinds racing on several processes
    /// see each other and at most one stays.
    async fn claim(&self, kind: &str, value: &str, user_id: &str) -> AccountResult<bool> {
        let claimed = sqlx::query(
            "INSERT INTO account_identities (kind, value, user_id) VALUES ($1, $2, $3)
             ON CONFLICT (kind, value) DO NOTHING",
        )
        .bind(kind)
        .bind(value)
        .bind(user_id)
        .execute(&self.pool)
        .await?;
        if claimed.rows_affected() != 1 {
            return Ok(false);
        }
        let other = match kind {
            "username" => "phone",
            "phone" => "username",
            _ => return Ok(true),
        };
        let clash: Option<String> = sqlx::query_scalar(
            "SELECT user_id FROM account_identities
             WHERE kind = $1 AND value = $2 AND user_id <> $3 LIMIT 1",
        )
        .bind(other)
        .bind(value)
        .bind(user_id)
        .fetch_optional(&self.pool)
        .await?;
        if clash.is_some() {
            self.release(kind, value, user_id).await?;
            return Ok(false);
        }
        Ok(true)
    }

    async fn release(&self, kind: &str, value: &str, user_id: &str) -> AccountResult<()> {
        sqlx::query(
            "DELETE FROM account_identities WHERE kind = $1 AND value = $2 AND user_id = $3",
        )
        .bind(kind)
        .bind(value)
        .bind(user_id)
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    fn today(&self) -> Date {
        Date::from_epoch_ms(self.clock.now_ms())
    }

    /// Registers a member and opens a session (logged in after registering).
    pub async fn register(
        &self,
        variant: RegistrationVariant,
        form: &RegistrationForm,
        proof: Proof<'_>,
        device_id: &str,
        ip: &str,
    ) -> AccountResult<(Issued, String)> {
        let now = self.clock.now_ms();
        self.register_by_ip
            .hit(ip, now)
            .await?
            .map_err(|wait| limited(-10104, wait))?;
        let market = Market::from_language(form.language.as_deref().unwrap_or("zhh"));
        let registration =
            validate_registration(form, variant, market, &self.settings.rules, self.today())?;
        let profile = &registration.profile;
        if let Proof::Captcha { uid, code } = proof {
            self.codes
                .check_captcha(uid, code)
                .await
                .map_err(|e| match e {
                    CodeError::Mismatch => AccountFailure::Refused {
                        code: 21,
                        msg: domain::Code(21).message(),
                        field: Some("captcha"),
                    },
                    other => other.into(),
                })?;
        }
        let user_id = self.new_user_id().await?;
        let mut identities = vec![(
            "username",
            profile.username.as_str().to_lowercase(),
            1118,
            "username",
        )];
        if let Some(phone) = &profile.phone {
            identities.push(("phone", phone.as_str().to_string(), 1127, "phone"));
        }
        if let Some(email) = &profile.email {
            identities.push(("email", email.as_str().to_string(), 1119, "email"));
        }
        let mut claimed = Vec::new();
        let outcome = async {
            for (kind, value, code, field) in &identities {
                if !self.claim(kind, value, &user_id).await? {
                    let msg = match *kind {
                        "email" => {
                            "This email already exists in our database, please enter another"
                        }
                        "phone" => {
                            "This phone number already exists in our database, please enter another"
                        }
                        _ => "This username already exists in our database, please enter another",
                    };
                    return Err(AccountFailure::Refused {
                        code: *code,
                        msg: msg.into(),
                        field: Some(field),
                    });
                }
                claimed.push((*kind, value.clone()));
            }
            if let Proof::Code { uid } = proof {
                let target = match variant {
                    RegistrationVariant::Email => {
                        profile.email.as_ref().map(|e| e.as_str().to_string())
                    }
                    _ => profile.phone.as_ref().map(|p| p.as_str().to_string()),
                }
                .unwrap_or_default();
                self.codes
                    .consume(uid, CodeKind::Registration, &target)
                    .await?;
            }
            let hash = hash_off_thread(registration.password.expose().to_string()).await?;
            self.execute(
                &user_id,
                AccountCommand::Register {
                    user_id: user_id.clone(),
                    registration: registration.clone(),
                    password_hash: hash,
                    device_id: device_id.to_string(),
                    at_ms: now,
                },
            )
            .await
        }
        .await;
        if let Err(failure) = outcome {
            for (kind, value) in &claimed {
                let _ = self.release(kind, value, &user_id).await;
            }
            return Err(failure);
        }
        self.message(
            &user_id,
            1002,
            "Welcome",
            "Your account is ready. Good luck!",
        )
        .await?;
        let issued = self.sessions.open(&user_id, device_id, None).await?;
        Ok((issued, profile.username.as_str().to_string()))
    }

    /// The user id of `username`, registering it (username variant, no
    /// code or captcha) when it does not exist yet. For seeding only.
    pub async fn ensure_member(
        &self,
        username: &str,
        password: &str,
        currency: domain::Currency,
    ) -> AccountResult<String> {
        if let Some(user_id) = self.find(username).await? {
            return Ok(user_id);
        }
        let form = RegistrationForm {
            username: Some(username.to_string()),
            password: Some(password.to_string()),
            repassword: Some(password.to_string()),
            country_code: Some("CN".into()),
            currency_name: Some(currency.code().into()),
            agree: Some("1".into()),
            language: Some("zhh".into()),
            ..RegistrationForm::default()
        };
        let registration = validate_registration(
            &form,
            RegistrationVariant::Username,
            Market::Zhh,
            &self.settings.rules,
            self.today(),
        )?;
        let user_id = self.new_user_id().await?;
        let name = registration.profile.username.as_str().to_lowercase();
        if !self.claim("username", &name, &user_id).await? {
            return self.find(username).await?.ok_or_else(|| {
                AccountFailure::Internal(format!("{username} claimed but not found"))
            });
        }
        let hash = hash_off_thread(password.to_string()).await?;
        self.execute(
            &user_id,
            AccountCommand::Register {
                user_id: user_id.clone(),
                registration,
                password_hash: hash,
                device_id: "seed".into(),
                at_ms: self.clock.now_ms(),
            },
        )
        .await?;
        Ok(user_id)
    }

    /// Checks a login; opens a session on success. `password` is `None`
    /// when the client's RSA blob could not be decrypted.
    ///
    /// A wrong password, a name nobody has and an undecryptable password
    /// answer alike (1002 'Invalid username and/or password'), after the
    /// same argon2 work, and count alike towards the lock (1022): nothing
    /// tells an existing account from a missing one. The rate limits come
    /// first, whatever the request holds.
    pub async fn login(
        &self,
        login: &str,
        password: Option<&str>,
        device_id: &str,
        ip: &str,
    ) -> AccountResult<(Issued, String)> {
        let now = self.clock.now_ms();
        let key = login.trim().to_lowercase();
        self.login_by_ip
            .hit(ip, now)
            .await?
            .map_err(|wait| limited(-10005, wait))?;
        self.login_by_account
            .hit(&key, now)
            .await?
            .map_err(|wait| limited(-10005, wait))?;
        let found = match self.find(login).await? {
            Some(user_id) => match self.load(&user_id).await {
                Ok(account) => Some((user_id, account)),
                // Claimed by a registration still under way.
                Err(AccountFailure::Refused { .. }) => None,
                Err(e) => return Err(e),
            },
            None => None,
        };
        let hash = found.as_ref().map(|(_, a)| a.password_hash.clone());
        let matches = verify_login_off_thread(password.map(str::to_string), hash).await?;
        let invalid = || AccountFailure::catalogue(domain::Code(1002));
        let locked = || AccountFailure::catalogue(domain::Code(1022));
        let Some((user_id, account)) = found else {
            if self.unknown_failures.full(&key, now).await?.is_some()
                || self.unknown_failures.hit(&key, now).await?.is_err()
                || self.unknown_failures.full(&key, now).await?.is_some()
            {
                return Err(locked());
            }
            return Err(invalid());
        };
        match account.is_locked_at(now) {
            Some(LockKind::Temporary { .. }) => return Err(locked()),
            // Only someone with the password learns of a staff lock.
            Some(LockKind::Staff) if matches => {
                return Err(AccountFailure::catalogue(domain::Code(1004)))
            }
            Some(LockKind::Staff) => return Err(invalid()),
            None => {}
        }
        let username = account
            .profile
            .as_ref()
            .map(|p| p.username.as_str().to_string())
            .unwrap_or_default();
        if !matches {
            self.execute(
                &user_id,
                AccountCommand::RecordLoginFailure {
                    at_ms: now,
                    device_id: device_id.to_string(),
                },
            )
            .await?;
            let after = self.load(&user_id).await?;
            return Err(match after.is_locked_at(now) {
                Some(_) => locked(),
                None => invalid(),
            });
        }
        if self.settings.verify_new_devices
            && account.has_verification_channel()
            && !account.is_trusted(device_id)
        {
            self.open_challenge(device_id, &user_id, now).await?;
            return Err(AccountFailure::VerifyDevice(SafetyChallenge {
                username,
                channels: account.verification_channels(),
                phone: account.masked_phone(),
                email: account.masked_email(),
            }));
        }
        // A correct password from a known device (or verification is off).
        if !account.is_trusted(device_id) {
            self.execute(
                &user_id,
                AccountCommand::TrustDevice {
                    device_id: device_id.to_string(),
                },
            )
            .await?;
        }
        self.execute(
            &user_id,
            AccountCommand::RecordLogin {
                at_ms: now,
                device_id: device_id.to_string(),
            },
        )
        .await?;
        let issued = self.sessions.open(&user_id, device_id, None).await?;
        Ok((issued, username))
    }

    /// Sends a code (rate-limited per IP on top of the 60 s resend rule).
    /// For the safety verification (type 8) the target is always the
    /// account's own bound phone or e-mail, found from `username`.
    pub async fn send_code(
        &self,
        kind: CodeKind,
        channel: Channel,
        target: &str,
        username: &str,
        requester: Requester<'_>,
        ip: &str,
    ) -> AccountResult<String> {
        self.sendcode_by_ip
            .hit(ip, self.clock.now_ms())
            .await?
            .map_err(|wait| limited(-10201, wait))?;
        let target = self
            .code_target(kind, channel, target, username, requester)
            .await?;
        Ok(self.codes.send(kind, channel, &target, username).await?)
    }

    /// Where a code of `kind` goes. A safety code (type 8) goes only to the
    /// phone or e-mail bound to the account of `username`: a target named
    /// in the request must be that one (1134 'Enter your phone number' /
    /// 1119 'Enter your email address' otherwise), or whoever knows a
    /// password could have the code that trusts their device sent to a
    /// phone of their own.
    pub async fn code_target(
        &self,
        kind: CodeKind,
        channel: Channel,
        target: &str,
        username: &str,
        requester: Requester<'_>,
    ) -> AccountResult<String> {
        let market = Market::Zhh;
        let parsed = |value: &str| -> AccountResult<String> {
            Ok(match channel {
                Channel::Phone => Phone::parse(value, market)
                    .or_else(|_| Phone::parse(value, Market::Eng))?
                    .as_str()
                    .to_string(),
                Channel::Email => Email::parse(value, market)?.as_str().to_string(),
            })
        };
        let named = !target.trim().is_empty();
        if kind != CodeKind::Safety {
            if named {
                return parsed(target);
            }
            return Err(FieldError::rule(channel_field(channel), "Required").into());
        }
        // Only for the member's own session (proof of a bound contact) or
        // on the device whose login asked for it: an unknown username and a
        // known one without either answer alike.
        let Some(user_id) = self.find(username).await? else {
            return Err(AccountFailure::catalogue(domain::Code(1002)));
        };
        if requester.signed_in != Some(user_id.as_str())
            && !self.challenged(requester.device_id, &user_id).await?
        {
            return Err(AccountFailure::catalogue(domain::Code(1002)));
        }
        let account = self.load(&user_id).await?;
        let Some(bound) = bound_contact(&account, channel) else {
            return Err(not_bound(channel));
        };
        if named && parsed(target)? != bound {
            return Err(not_bound(channel));
        }
        Ok(bound)
    }

    /// Opens the safety verification of `user_id` on `device_id` (its login
    /// with the right password asked for it) for `SAFETY_CHALLENGE_MS`.
    async fn open_challenge(&self, device_id: &str, user_id: &str, now: i64) -> AccountResult<()> {
        sqlx::query("DELETE FROM safety_challenges WHERE expires_ms <= $1")
            .bind(now)
            .execute(&self.pool)
            .await?;
        sqlx::query(
            "INSERT INTO safety_challenges (device_id, user_id, expires_ms) VALUES ($1, $2, $3)
             ON CONFLICT (device_id, user_id) DO UPDATE SET expires_ms = excluded.expires_ms",
        )
        .bind(device_id)
        .bind(user_id)
        .bind(now + SAFETY_CHALLENGE_MS)
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    async fn challenged(&self, device_id: &str, user_id: &str) -> AccountResult<bool> {
        let open: i64 = sqlx::query_scalar(
            "SELECT count(*) FROM safety_challenges
             WHERE device_id = $1 AND user_id = $2 AND expires_ms > $3",
        )
        .bind(device_id)
        .bind(user_id)
        .bind(self.clock.now_ms())
        .fetch_one(&self.pool)
        .await?;
        Ok(open > 0)
    }

    /// Checks a code; a passed safety check trusts the device. The code
    /// stays checked (not used up) for `VERIFIED_LIFETIME_MS`: a member
    /// changing a bound contact hands its uid on as `old_uid`.
    #[allow(clippy::too_many_arguments)]
    pub async fn check_code(
        &self,
        uid: &str,
        kind: CodeKind,
        channel: Channel,
        target: &str,
        username: &str,
        code: &str,
        requester: Requester<'_>,
    ) -> AccountResult<()> {
        let device_id = requester.device_id;
        let target = self
            .code_target(kind, channel, target, username, requester)
            .await?;
        self.codes.check(uid, kind, &target, code).await?;
        if kind == CodeKind::Safety {
            if let Some(user_id) = self.find(username).await? {
                self.execute(
                    &user_id,
                    AccountCommand::TrustDevice {
                        device_id: device_id.to_string(),
                    },
                )
                .await?;
            }
        }
        Ok(())
    }

    /// Sets a new password after a reset code (type 5) was checked.
    pub async fn reset_password(
        &self,
        channel: Channel,
        target: &str,
        uid: &str,
        new_password: &str,
        confirm: &str,
    ) -> AccountResult<()> {
        let target = self
            .code_target(CodeKind::Reset, channel, target, "", Requester::default())
            .await?;
        let Some(user_id) = self.find(&target).await? else {
            return Err(AccountFailure::catalogue(domain::Code(1002)));
        };
        let account = self.load(&user_id).await?;
        let username = account
            .profile
            .as_ref()
            .map(|p| p.username.as_str())
            .unwrap_or_default();
        let password = Password::parse_registration(new_password, username)?;
        check_repassword(new_password, confirm)?;
        self.codes.consume(uid, CodeKind::Reset, &target).await?;
        let hash = hash_off_thread(password.expose().to_string()).await?;
        self.execute(
            &user_id,
            AccountCommand::ChangeLoginPassword {
                password_hash: hash,
            },
        )
        .await?;
        self.sessions.close_all(&user_id).await?;
        Ok(())
    }

    /// Checks the login password a member confirms an action with. Each
    /// try is counted before the password is compared (so tries sent in
    /// parallel are weighed at most `MAX_PASSWORD_TRIES` times); a right
    /// one clears the count, and beyond `MAX_PASSWORD_TRIES` in
    /// `PASSWORD_WINDOW_MS` every try waits (-10109, `wait` seconds): a
    /// stolen session cannot guess the password to unbind a contact or
    /// set a fund password.
    async fn check_password(
        &self,
        user_id: &str,
        account: &Account,
        password: &str,
        field: &'static str,
    ) -> AccountResult<()> {
        let now = self.clock.now_ms();
        self.password_tries
            .hit(user_id, now)
            .await?
            .map_err(|wait| AccountFailure::Wait {
                code: domain::Code::TOO_MANY_PASSWORDS.0,
                msg: format!("Too many wrong passwords, please try again in {wait} seconds"),
                wait,
            })?;
        if verify_off_thread(password.to_string(), account.password_hash.clone()).await? {
            self.password_tries.clear(user_id).await?;
            Ok(())
        } else {
            Err(AccountFailure::Refused {
                code: 1003,
                msg: domain::Code(1003).message(),
                field: Some(field),
            })
        }
    }

    fn market(account: &Account) -> Market {
        account
            .profile
            .as_ref()
            .map(|p| p.market)
            .unwrap_or(Market::Eng)
    }

    /// Changes the login password from the session of `auth_token`: the
    /// member's other sessions end (whoever held the old password is logged
    /// out everywhere), that one keeps working.
    pub async fn change_login_password(
        &self,
        user_id: &str,
        auth_token: &str,
        old: &str,
        new: &str,
        confirm: &str,
    ) -> AccountResult<()> {
        let account = self.load(user_id).await?;
        self.check_password(user_id, &account, old, "oldpass")
            .await?;
        let username = account
            .profile
            .as_ref()
            .map(|p| p.username.as_str())
            .unwrap_or_default();
        let password = Password::parse_registration(new, username)?;
        check_repassword(new, confirm)?;
        self.replace_login_password(user_id, auth_token, password)
            .await
    }

    /// Stores the new login password (checked by the caller) and ends the
    /// member's sessions other than `auth_token`'s, on every process.
    async fn replace_login_password(
        &self,
        user_id: &str,
        auth_token: &str,
        password: Password,
    ) -> AccountResult<()> {
        let hash = hash_off_thread(password.expose().to_string()).await?;
        self.execute(
            user_id,
            AccountCommand::ChangeLoginPassword {
                password_hash: hash,
            },
        )
        .await?;
        self.sessions.close_others(user_id, auth_token).await?;
        Ok(())
    }

    pub async fn set_fund_password(
        &self,
        user_id: &str,
        fund: &str,
        confirm: &str,
        login_password: &str,
    ) -> AccountResult<()> {
        let account = self.load(user_id).await?;
        self.check_password(user_id, &account, login_password, "loginpass")
            .await?;
        let username = account
            .profile
            .as_ref()
            .map(|p| p.username.as_str())
            .unwrap_or_default();
        let fund_password = Password::parse_registration(fund, username)?;
        check_repassword(fund, confirm)?;
        let hash = hash_off_thread(fund_password.expose().to_string()).await?;
        self.execute(user_id, AccountCommand::SetFundPassword { hash })
            .await
    }

    pub async fn set_security_question(
        &self,
        user_id: &str,
        question: &str,
        answer: &str,
        login_password: &str,
    ) -> AccountResult<()> {
        let account = self.load(user_id).await?;
        self.check_password(user_id, &account, login_password, "loginpass")
            .await?;
        let (question, answer) = (question.trim(), answer.trim());
        if question.is_empty() {
            return Err(FieldError::rule("question", "Required").into());
        }
        if answer.is_empty() {
            return Err(FieldError::rule("answer", "Required").into());
        }
        let answer_hash = hash_off_thread(answer.to_lowercase()).await?;
        self.execute(
            user_id,
            AccountCommand::SetSecurityQuestion {
                question: question.to_string(),
                answer_hash,
            },
        )
        .await
    }

    /// Checks the member's security answer; on success answers a uid that
    /// stands for the check (`Verification::Question`) for
    /// `VERIFIED_LIFETIME_MS`. A member has `MAX_ANSWER_TRIES` tries in
    /// `ANSWER_WINDOW_MS`; beyond them every try waits (-10108, `wait`
    /// seconds) until the window ends.
    pub async fn check_security_question(
        &self,
        user_id: &str,
        question: &str,
        answer: &str,
    ) -> AccountResult<String> {
        let account = self.load(user_id).await?;
        let Some(stored) = &account.security_question else {
            return Err(FieldError::rule("question", "Required").into());
        };
        let now = self.clock.now_ms();
        // The try is counted before the answer is compared, so answers
        // sent in parallel are weighed at most `MAX_ANSWER_TRIES` times.
        self.answer_tries
            .hit(user_id, now)
            .await?
            .map_err(|wait| AccountFailure::Wait {
                code: domain::Code::TOO_MANY_ANSWERS.0,
                msg: format!("Too many wrong answers, please try again in {wait} seconds"),
                wait,
            })?;
        // Bounded before the hash: an answer is at most 100 characters.
        let answer = answer.trim();
        let matches = stored.question == question.trim()
            && answer.chars().count() <= 100
            && verify_off_thread(answer.to_lowercase(), stored.answer_hash.clone()).await?;
        if !matches {
            return Err(AccountFailure::Refused {
                code: 21,
                msg: domain::Code(21).message(),
                field: Some("answer"),
            });
        }
        Ok(self
            .codes
            .issue_checked(CodeKind::Question, &question_target(user_id))
            .await?)
    }

    /// Sets a new login password without the old one, after the member
    /// proved who they are (`way`, `uid`): a checked safety code sent to
    /// the bound phone or e-mail, or a passed security answer. The new
    /// password's rules come first: no proof is spent on a refused one.
    /// As with the old password, the member's sessions other than
    /// `auth_token`'s end.
    pub async fn change_login_password_verified(
        &self,
        user_id: &str,
        auth_token: &str,
        way: Verification,
        uid: &str,
        new: &str,
        confirm: &str,
    ) -> AccountResult<()> {
        let account = self.load(user_id).await?;
        let username = account
            .profile
            .as_ref()
            .map(|p| p.username.as_str())
            .unwrap_or_default();
        let password = Password::parse_registration(new, username)?;
        check_repassword(new, confirm)?;
        let (kind, target) = match way {
            Verification::Phone => (CodeKind::Safety, bound_contact(&account, Channel::Phone)),
            Verification::Email => (CodeKind::Safety, bound_contact(&account, Channel::Email)),
            Verification::Question => (
                CodeKind::Question,
                account
                    .security_question
                    .as_ref()
                    .map(|_| question_target(user_id)),
            ),
        };
        let Some(target) = target else {
            return Err(FieldError::rule("valtype", "Value valtype is not valid.").into());
        };
        self.codes
            .consume(uid.trim(), kind, &target)
            .await
            .map_err(spent("uid"))?;
        self.replace_login_password(user_id, auth_token, password)
            .await
    }

    /// Unbinds the member's phone or e-mail. Proof: the login password and
    /// `uid`, a checked type-8 code sent to that contact. The other one
    /// must stay bound (the account's rule, checked before any code is
    /// spent).
    pub async fn unbind_contact(
        &self,
        user_id: &str,
        channel: Channel,
        uid: &str,
        password: &str,
    ) -> AccountResult<()> {
        let account = self.load(user_id).await?;
        self.check_password(user_id, &account, password, "loginpass")
            .await?;
        let command = |contact_verified| match channel {
            Channel::Phone => AccountCommand::UnbindPhone { contact_verified },
            Channel::Email => AccountCommand::UnbindEmail { contact_verified },
        };
        let named = !uid.trim().is_empty();
        account
            .decide(command(named), &self.settings.policy)
            .map_err(AccountFailure::from)?;
        let Some(bound) = bound_contact(&account, channel) else {
            return Err(AccountFailure::Internal("bound contact vanished".into()));
        };
        self.codes
            .consume(uid.trim(), CodeKind::Safety, &bound)
            .await
            .map_err(spent("uid"))?;
        self.execute(user_id, command(true)).await?;
        let kind = match channel {
            Channel::Phone => "phone",
            Channel::Email => "email",
        };
        self.release(kind, &bound, user_id).await
    }

    /// Sets the member's birth date once, within `rules`' age range on
    /// today's date.
    pub async fn set_birth_date(&self, user_id: &str, value: &str) -> AccountResult<()> {
        let rules = &self.settings.rules;
        let birth_date = BirthDate::parse(value, self.today(), rules.min_age, rules.max_age)?;
        self.execute(user_id, AccountCommand::SetBirthDate(birth_date))
            .await
    }

    /// Binds a phone or e-mail to the member. Proof: the login password,
    /// `proof.uid` (a checked type-2 code sent to the new contact, which
    /// nobody uses yet) and, when one is bound already, `proof.old_uid` (a
    /// checked type-8 code sent to the bound one). Codes are used up only
    /// once the password and the account's rule agree.
    pub async fn change_contact(
        &self,
        user_id: &str,
        channel: Channel,
        value: &str,
        proof: ContactProof<'_>,
    ) -> AccountResult<()> {
        let account = self.load(user_id).await?;
        let market = Self::market(&account);
        let contact = Contact::parse(channel, value, market)?;
        let (kind, value) = (contact.kind(), contact.value());
        self.check_password(user_id, &account, proof.password, "loginpass")
            .await?;
        let bound = bound_contact(&account, channel);
        if bound.as_deref() == Some(value.as_str()) {
            return Ok(());
        }
        let old_named = bound.is_some() && !proof.old_uid.trim().is_empty();
        // The account's rule first (a dry run): no code is spent on a
        // request it refuses.
        account
            .decide(contact.command(old_named), &self.settings.policy)
            .map_err(AccountFailure::from)?;
        if let (Some(bound), true) = (&bound, old_named) {
            self.codes
                .consume(proof.old_uid.trim(), CodeKind::Safety, bound)
                .await
                .map_err(spent("old_uid"))?;
        }
        self.codes
            .consume(proof.uid.trim(), CodeKind::Registration, &value)
            .await
            .map_err(spent("uid"))?;
        if !self.claim(kind, &value, user_id).await? {
            return Err(match channel {
                Channel::Email => AccountFailure::Refused {
                    code: 1119,
                    msg: "This email already exists in our database, please enter another".into(),
                    field: Some("email"),
                },
                Channel::Phone => AccountFailure::Refused {
                    code: 1127,
                    msg: "This phone number already exists in our database, please enter another"
                        .into(),
                    field: Some("mobile"),
                },
            });
        }
        if let Err(failure) = self.execute(user_id, contact.command(old_named)).await {
            let _ = self.release(kind, &value, user_id).await;
            return Err(failure);
        }
        if let Some(old) = bound {
            self.release(kind, &old, user_id).await?;
        }
        Ok(())
    }

    pub async fn set_nickname(&self, user_id: &str, nickname: &str) -> AccountResult<()> {
        let account = self.load(user_id).await?;
        let nickname = Nickname::parse(nickname, Self::market(&account))?;
        self.execute(user_id, AccountCommand::SetNickname(nickname))
            .await
    }

    pub async fn set_real_name(
        &self,
        user_id: &str,
        name: &str,
        rule: RealNameRule,
    ) -> AccountResult<()> {
        let account = self.load(user_id).await?;
        let name = RealName::parse(name, Self::market(&account), rule)?;
        self.execute(user_id, AccountCommand::SetRealName(name))
            .await
    }

    pub async fn set_summary(&self, user_id: &str, summary: &str) -> AccountResult<()> {
        let summary = parse_summary(summary)?;
        self.execute(user_id, AccountCommand::SetSummary(summary))
            .await
    }

    pub async fn set_address(&self, user_id: &str, address: Address) -> AccountResult<()> {
        self.execute(user_id, AccountCommand::SetAddress(address))
            .await
    }

    /// Adds the welcome message to a new member's inbox (the inbox's other
    /// messages come from its process manager, `crate::engagement::inbox`).
    async fn message(
        &self,
        user_id: &str,
        kind: i64,
        title: &str,
        content: &str,
    ) -> AccountResult<()> {
        sqlx::query(
            "INSERT INTO member_messages (user_id, kind, title, content, created_ms, read) VALUES ($1, $2, $3, $4, $5, 0)",
        )
        .bind(user_id)
        .bind(kind)
        .bind(title)
        .bind(content)
        .bind(self.clock.now_ms())
        .execute(&self.pool)
        .await?;
        Ok(())
    }
}

impl AccountService {
    /// Staff lock (the member is disabled: no logins, no casino bets).
    pub async fn lock_by_staff(&self, user_id: &str, reason: &str) -> AccountResult<()> {
        self.execute(
            user_id,
            AccountCommand::LockByStaff {
                reason: reason.to_string(),
            },
        )
        .await
    }
}
