//! The registration form (spec 001 sections 2.6 and 5): three variants,
//! checked field by field in form order so the member sees the first
//! problem, as the client shows it.

use std::fmt;

use serde::{Deserialize, Serialize};

use super::date::Date;
use super::rules::*;
use crate::Currency;

/// Registration steps 0, 1, 2 (section 4): which contact is the login.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RegistrationVariant {
    Phone,
    Email,
    Username,
}

/// Site settings for registration (`getconfig`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RegistrationRules {
    pub real_name_rule: RealNameRule,
    /// ISO codes refused at sign-up (any case).
    pub restricted_countries: Vec<String>,
    pub min_age: u32,
    pub max_age: u32,
    pub require_agreement: bool,
}

impl Default for RegistrationRules {
    fn default() -> Self {
        Self {
            real_name_rule: RealNameRule::default(),
            restricted_countries: vec!["GR".to_string()],
            min_age: 18,
            max_age: 100,
            require_agreement: true,
        }
    }
}

/// The form as posted; every field may be missing. `first_name` is the
/// real name. `Debug` hides the passwords.
#[derive(Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(default)]
pub struct RegistrationForm {
    pub username: Option<String>,
    pub password: Option<String>,
    pub repassword: Option<String>,
    pub phone: Option<String>,
    pub phone_code: Option<String>,
    pub email: Option<String>,
    pub nickname: Option<String>,
    pub first_name: Option<String>,
    pub invite_code: Option<String>,
    pub promo_code: Option<String>,
    pub country_code: Option<String>,
    pub currency_name: Option<String>,
    pub gender: Option<String>,
    pub birth_date: Option<String>,
    /// "1", "true" or "on" (any case) accept the terms.
    pub agree: Option<String>,
    pub language: Option<String>,
}

impl fmt::Debug for RegistrationForm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let hidden = |p: &Option<String>| p.as_ref().map(|_| "***");
        f.debug_struct("RegistrationForm")
            .field("username", &self.username)
            .field("password", &hidden(&self.password))
            .field("repassword", &hidden(&self.repassword))
            .field("phone", &self.phone)
            .field("phone_code", &self.phone_code)
            .field("email", &self.email)
            .field("nickname", &self.nickname)
            .field("first_name", &self.first_name)
            .field("invite_code", &self.invite_code)
            .field("promo_code", &self.promo_code)
            .field("country_code", &self.country_code)
            .field("currency_name", &self.currency_name)
            .field("gender", &self.gender)
            .field("birth_date", &self.birth_date)
            .field("agree", &self.agree)
            .field("language", &self.language)
            .finish()
    }
}

/// Everything a registration records about the member (the password is
/// not here: only its hash is ever recorded).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Profile {
    pub variant: RegistrationVariant,
    pub market: Market,
    /// The login name: the username, or the phone / e-mail it defaults to.
    pub username: Username,
    pub phone: Option<Phone>,
    pub phone_code: DialCode,
    pub email: Option<Email>,
    pub nickname: Option<Nickname>,
    pub real_name: Option<RealName>,
    pub invite_code: Option<InviteCode>,
    pub promo_code: Option<PromoCode>,
    pub country_code: CountryCode,
    pub currency: Currency,
    pub gender: Option<Gender>,
    pub birth_date: Option<BirthDate>,
}

/// A form that passed every rule: the profile plus the password to hash.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Registration {
    pub profile: Profile,
    pub password: Password,
}

fn present(value: &Option<String>) -> Option<&str> {
    value.as_deref().map(str::trim).filter(|s| !s.is_empty())
}

/// Parses a field that may be missing; a required one that is missing
/// goes through `parse("")` so it gets its rule's own blank message.
fn field<T>(
    value: &Option<String>,
    required: bool,
    parse: impl FnOnce(&str) -> Result<T, FieldError>,
) -> Result<Option<T>, FieldError> {
    match present(value) {
        Some(s) => parse(s).map(Some),
        None if required => parse("").map(Some),
        None => Ok(None),
    }
}

fn accepted(agree: &Option<String>) -> bool {
    present(agree)
        .is_some_and(|a| a == "1" || a.eq_ignore_ascii_case("true") || a.eq_ignore_ascii_case("on"))
}

/// Checks `form` for `variant` and returns the first failing field in form
/// order, or the parsed registration.
///
/// - phone variant: phone required, username optional (defaults to the
///   phone); e-mail variant likewise with the e-mail; username variant:
///   username required. The other contact is optional but checked when
///   given.
/// - country and currency are required; gender and birth date are
///   optional (docs/protocol.md marks them so) but checked when given,
///   the birth date against the age range on `today`.
/// - the password may not equal the login name, i.e. the username or, when
///   none is given, the phone / e-mail it defaults to.
pub fn validate_registration(
    form: &RegistrationForm,
    variant: RegistrationVariant,
    market: Market,
    rules: &RegistrationRules,
    today: Date,
) -> Result<Registration, FieldError> {
    use RegistrationVariant as V;
    let username = field(&form.username, variant == V::Username, |s| {
        Username::parse(s, market)
    })?;
    let login = match (&username, variant) {
        (Some(u), _) => u.as_str(),
        (None, V::Phone) => present(&form.phone).unwrap_or_default(),
        (None, _) => present(&form.email).unwrap_or_default(),
    };
    let password =
        Password::parse_registration(form.password.as_deref().unwrap_or_default(), login)?;
    check_repassword(
        password.expose(),
        form.repassword.as_deref().unwrap_or_default(),
    )?;
    let phone = field(&form.phone, variant == V::Phone, |s| {
        Phone::parse(s, market)
    })?;
    let phone_code = DialCode::parse(form.phone_code.as_deref().unwrap_or_default(), market)?;
    let email = field(&form.email, variant == V::Email, |s| {
        Email::parse(s, market)
    })?;
    let nickname = field(&form.nickname, false, |s| Nickname::parse(s, market))?;
    let real_name = field(&form.first_name, false, |s| {
        RealName::parse(s, market, rules.real_name_rule)
    })?;
    let invite_code = InviteCode::parse(form.invite_code.as_deref().unwrap_or_default(), market)?;
    let promo_code = PromoCode::parse(form.promo_code.as_deref().unwrap_or_default(), market)?;
    let country_code = CountryCode::parse(
        form.country_code.as_deref().unwrap_or_default(),
        market,
        &rules.restricted_countries,
    )?;
    let currency = parse_currency(form.currency_name.as_deref().unwrap_or_default(), market)?;
    let gender = field(&form.gender, false, |s| Gender::parse(s, market))?;
    let birth_date = field(&form.birth_date, false, |s| {
        BirthDate::parse(s, today, rules.min_age, rules.max_age)
    })?;
    if rules.require_agreement && !accepted(&form.agree) {
        return Err(FieldError::rule("agree", msg::AGREEMENT));
    }
    let username = match (username, &phone, &email) {
        (Some(u), _, _) => u,
        (None, Some(p), _) if variant == V::Phone => Username::from_phone(p),
        (None, _, Some(e)) => Username::from_email(e),
        // Unreachable: the variant's contact was required above.
        (None, _, _) => Username::parse("", market)?,
    };
    Ok(Registration {
        profile: Profile {
            variant,
            market,
            username,
            phone,
            phone_code,
            email,
            nickname,
            real_name,
            invite_code,
            promo_code,
            country_code,
            currency,
            gender,
            birth_date,
        },
        password,
    })
}
