//! Field rules of spec 001 section 5 as newtypes that parse: a value of
//! one of these types has passed its rule, so handlers never re-check it.
//!
//! Every refusal is a `FieldError` naming the form field, the code of spec
//! 001 section 8 for that field (21 verification code, 1010/1013 password,
//! 1012 phone, 2006 username, 1119 e-mail, 2002 currency) or -10101 for any
//! other field, and the spec's message.
//!
//! Deserializing these types does not re-run the rules: they are read back
//! from past events, which must load even after a rule is tightened.

use std::fmt;

use serde::{Deserialize, Serialize};

use super::date::Date;
use crate::{Code, Currency};

/// The spec's messages (section 5), each written once.
pub mod msg {
    pub const REQUIRED: &str = "Required";
    pub const PHONE_BLANK: &str = "Phone number can not be blank";
    pub const PHONE_INVALID: &str = "This is not a valid phone number";
    pub const PASSWORD_RULE: &str =
        "6 to 32 characters in length (a combination of numbers and letters)";
    pub const PASSWORD_CHARACTERS: &str = "Allowed characters are A-Z, a-z, 0-9";
    pub const PASSWORD_TOO_SHORT: &str = "Password is too short";
    pub const PASSWORD_BLANK: &str = "password cannot be empty";
    pub const PASSWORD_SAME_AS_LOGIN: &str = "Password can't be same as login.";
    pub const PASSWORDS_DIFFER: &str = "Two passwords are inconsistent";
    pub const USERNAME_INVALID: &str = "Invalid username";
    pub const EMAIL_BLANK: &str = "Email can not be blank";
    pub const EMAIL_INVALID: &str = "Invalid email address";
    pub const INVITE_CODE_INVALID: &str = "This is not a valid invite code";
    pub const AGREEMENT: &str = "You must accept all terms and conditions to be able to register.";
    pub const VERIFY_CODE_INVALID: &str = "Please enter the 4-digit verification code";
    pub const VERIFY_CODE_BLANK: &str = "please enter verification code";
    pub const NAME_INVALID: &str =
        "Please enter a valid name: only letters - no digits and/or symbols";
    pub const MIN_LENGTH: &str = "Should be at least {1} characters long.";
    /// Filled with the maximum plus one: "less than 25" allows 24.
    pub const MAX_LENGTH: &str = "Should be less than {1} characters long.";
    pub const NOT_VALID: &str = "Value {1} is not valid.";
    pub const RESTRICTED_COUNTRY: &str = "You cannot Sign Up from {1}";

    pub fn fill(template: &str, value: impl std::fmt::Display) -> String {
        template.replace("{1}", &value.to_string())
    }

    /// The over-length message for a field allowing `max` characters.
    pub fn too_long(max: usize) -> String {
        fill(MAX_LENGTH, max + 1)
    }
}

/// The market a form is read for, from the language code (section 1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum Market {
    Zhh,
    #[default]
    Eng,
    Tha,
}

impl Market {
    /// 'zhh' and 'tha' name their markets; any other code reads as eng.
    pub fn from_language(language: &str) -> Market {
        match language.trim().to_ascii_lowercase().as_str() {
            "zhh" => Market::Zhh,
            "tha" => Market::Tha,
            _ => Market::Eng,
        }
    }

    pub fn code(self) -> &'static str {
        match self {
            Market::Zhh => "zhh",
            Market::Eng => "eng",
            Market::Tha => "tha",
        }
    }
}

/// A refused field: its form name, catalogue code and the spec's message.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct FieldError {
    pub field: &'static str,
    pub code: i32,
    pub message: String,
}

impl FieldError {
    pub fn new(field: &'static str, code: Code, message: impl Into<String>) -> Self {
        Self {
            field,
            code: code.0,
            message: message.into(),
        }
    }

    /// A rule without a field-specific code (-10101).
    pub fn rule(field: &'static str, message: impl Into<String>) -> Self {
        Self::new(field, Code::FIELD_RULE, message)
    }

    pub fn code(&self) -> Code {
        Code(self.code)
    }
}

fn chars(s: &str) -> usize {
    s.chars().count()
}

/// Blank-or-length checks shared by the plain text fields.
fn text(
    field: &'static str,
    code: Code,
    input: &str,
    min: usize,
    max: usize,
) -> Result<String, FieldError> {
    let value = input.trim();
    let fail = |message: String| Err(FieldError::new(field, code, message));
    if value.is_empty() {
        return fail(msg::REQUIRED.into());
    }
    if chars(value) < min {
        return fail(msg::fill(msg::MIN_LENGTH, min));
    }
    if chars(value) > max {
        return fail(msg::too_long(max));
    }
    Ok(value.to_string())
}

fn is_chinese(c: char) -> bool {
    matches!(c, '\u{4E00}'..='\u{9FFF}' | '\u{3400}'..='\u{4DBF}' | '\u{F900}'..='\u{FAFF}')
}

macro_rules! string_newtype {
    ($name:ident) => {
        impl $name {
            pub fn as_str(&self) -> &str {
                &self.0
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(&self.0)
            }
        }

        impl AsRef<str> for $name {
            fn as_ref(&self) -> &str {
                &self.0
            }
        }
    };
}

/// A national mobile number, digits only (the dial code is separate).
///
/// Reading of section 5: zhh is "11 digits starting with 1" (the looser
/// form; second digits 0-2 are not refused). eng/tha is "leading 0 then 8
/// to 10 digits" capped by "non-Chinese maximum 10 digits", so 9 or 10
/// digits in all with the first one 0 (Thai landlines 0 + 8, mobiles 0 + 9).
/// Surrounding blanks are trimmed; inner spaces or dashes are refused.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Phone(String);
string_newtype!(Phone);

impl Phone {
    pub fn parse(input: &str, market: Market) -> Result<Phone, FieldError> {
        let value = input.trim();
        let fail = |m: &str| Err(FieldError::new("phone", Code::PHONE_RULE, m));
        if value.is_empty() {
            return fail(msg::PHONE_BLANK);
        }
        let digits = value.bytes().all(|b| b.is_ascii_digit());
        let valid = digits
            && match market {
                Market::Zhh => value.len() == 11 && value.starts_with('1'),
                Market::Eng | Market::Tha => {
                    (9..=10).contains(&value.len()) && value.starts_with('0')
                }
            };
        if !valid {
            return fail(msg::PHONE_INVALID);
        }
        Ok(Phone(value.to_string()))
    }

    /// `138****0000`: the first three and last four digits.
    pub fn masked(&self) -> String {
        let n = self.0.len();
        if n <= 7 {
            return "*".repeat(n);
        }
        format!("{}****{}", &self.0[..3], &self.0[n - 4..])
    }
}

/// The international dial code sent with a phone (`phone_code`), digits
/// only; blank means the market's default (86 for zhh, 66 otherwise,
/// section 9).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct DialCode(String);
string_newtype!(DialCode);

impl DialCode {
    pub fn parse(input: &str, market: Market) -> Result<DialCode, FieldError> {
        let value = input.trim();
        if value.is_empty() {
            return Ok(DialCode::default_for(market));
        }
        let digits = value.strip_prefix('+').unwrap_or(value);
        let valid = (1..=4).contains(&digits.len())
            && digits.bytes().all(|b| b.is_ascii_digit())
            && !digits.starts_with('0');
        if !valid {
            return Err(FieldError::rule(
                "phone_code",
                msg::fill(msg::NOT_VALID, value),
            ));
        }
        Ok(DialCode(digits.to_string()))
    }

    pub fn default_for(market: Market) -> DialCode {
        DialCode(if market == Market::Zhh { "86" } else { "66" }.to_string())
    }
}

/// The login name: a parsed username, or the phone or e-mail it defaults to
/// in those registration variants (`from_phone`, `from_email`).
///
/// Rule: 2 to 24 characters; zhh allows ASCII letters, digits, underscore
/// and Chinese characters, other markets ASCII letters, digits, underscore.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Username(String);
string_newtype!(Username);

impl Username {
    pub const MIN: usize = 2;
    pub const MAX: usize = 24;

    pub fn parse(input: &str, market: Market) -> Result<Username, FieldError> {
        let value = text("username", Code::USERNAME_RULE, input, Self::MIN, Self::MAX)?;
        let allowed = |c: char| {
            c.is_ascii_alphanumeric() || c == '_' || (market == Market::Zhh && is_chinese(c))
        };
        if !value.chars().all(allowed) {
            return Err(FieldError::new(
                "username",
                Code::USERNAME_RULE,
                msg::USERNAME_INVALID,
            ));
        }
        Ok(Username(value))
    }

    pub fn from_phone(phone: &Phone) -> Username {
        Username(phone.0.clone())
    }

    pub fn from_email(email: &Email) -> Username {
        Username(email.0.clone())
    }
}

/// A password in clear, on its way to be hashed outside the domain. Not
/// serializable, and `Debug` hides it.
#[derive(Clone, PartialEq, Eq)]
pub struct Password(String);

impl fmt::Debug for Password {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Password(***)")
    }
}

impl Password {
    pub const MIN: usize = 6;
    pub const MAX: usize = 32;

    /// Registration (and password change): 6 to 32 ASCII letters and
    /// digits, at least one of each, not the login name (compared without
    /// case). Too short is 1013, every other refusal 1010. Checked in the
    /// web client's order: blank, characters, length, combination, login.
    pub fn parse_registration(input: &str, username: &str) -> Result<Password, FieldError> {
        let fail = |code: Code, m: &str| Err(FieldError::new("password", code, m));
        let n = chars(input);
        if n == 0 {
            return fail(Code::PASSWORD_RULE, msg::PASSWORD_BLANK);
        }
        if !input.bytes().all(|b| b.is_ascii_alphanumeric()) {
            return fail(Code::PASSWORD_RULE, msg::PASSWORD_CHARACTERS);
        }
        if n < Self::MIN {
            return fail(Code::PASSWORD_TOO_SHORT, msg::PASSWORD_TOO_SHORT);
        }
        if n > Self::MAX {
            return fail(Code::PASSWORD_RULE, msg::PASSWORD_RULE);
        }
        let has_digit = input.bytes().any(|b| b.is_ascii_digit());
        let has_letter = input.bytes().any(|b| b.is_ascii_alphabetic());
        if !(has_digit && has_letter) {
            return fail(Code::PASSWORD_RULE, msg::PASSWORD_RULE);
        }
        if input.eq_ignore_ascii_case(username.trim()) {
            return fail(Code::PASSWORD_RULE, msg::PASSWORD_SAME_AS_LOGIN);
        }
        Ok(Password(input.to_string()))
    }

    /// Login: only the minimum length (older passwords may predate the
    /// registration rule).
    pub fn parse_login(input: &str) -> Result<Password, FieldError> {
        match chars(input) {
            0 => Err(FieldError::new(
                "password",
                Code::PASSWORD_RULE,
                msg::PASSWORD_BLANK,
            )),
            n if n < Self::MIN => Err(FieldError::new(
                "password",
                Code::PASSWORD_TOO_SHORT,
                msg::PASSWORD_TOO_SHORT,
            )),
            _ => Ok(Password(input.to_string())),
        }
    }

    pub fn expose(&self) -> &str {
        &self.0
    }
}

/// The confirmation must be present and equal to the password (which has
/// passed its own rule, so an equal confirmation passes it too).
pub fn check_repassword(password: &str, repassword: &str) -> Result<(), FieldError> {
    if repassword.is_empty() {
        return Err(FieldError::rule("repassword", msg::PASSWORD_BLANK));
    }
    if password != repassword {
        return Err(FieldError::rule("repassword", msg::PASSWORDS_DIFFER));
    }
    Ok(())
}

/// 4 to 24 characters of any script; control characters refused.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Nickname(String);
string_newtype!(Nickname);

impl Nickname {
    pub fn parse(input: &str, _market: Market) -> Result<Nickname, FieldError> {
        let value = text("nickname", Code::FIELD_RULE, input, 4, 24)?;
        if value.chars().any(char::is_control) {
            return Err(FieldError::rule(
                "nickname",
                msg::fill(msg::NOT_VALID, &value),
            ));
        }
        Ok(Nickname(value))
    }
}

/// Section 5 gives two zhh lengths for the real name: 2 to 20 Chinese
/// characters (validation rules) and 2 to 4 (the real-name update error).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
pub enum RealNameRule {
    #[default]
    #[serde(rename = "zhh_2_to_20")]
    Zhh2To20,
    #[serde(rename = "zhh_2_to_4")]
    Zhh2To4,
}

/// zhh: Chinese characters (a middle dot `·` allowed between parts, as in
/// transliterated names), 2 to 20 or 2 to 4 by `RealNameRule`. Other
/// markets: 1 to 30 characters, no digits, no symbols besides space, `.`,
/// `-` and `'` (any script, so Thai marks pass).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct RealName(String);
string_newtype!(RealName);

impl RealName {
    pub fn parse(input: &str, market: Market, rule: RealNameRule) -> Result<RealName, FieldError> {
        let (min, max) = match (market, rule) {
            (Market::Zhh, RealNameRule::Zhh2To20) => (2, 20),
            (Market::Zhh, RealNameRule::Zhh2To4) => (2, 4),
            _ => (1, 30),
        };
        let value = text("first_name", Code::FIELD_RULE, input, min, max)?;
        let valid = if market == Market::Zhh {
            value.chars().all(|c| is_chinese(c) || c == '·')
                && !value.starts_with('·')
                && !value.ends_with('·')
        } else {
            value.chars().all(|c| {
                !(c.is_numeric() || c.is_control())
                    && (!c.is_ascii() || c.is_ascii_alphabetic() || " .-'".contains(c))
            })
        };
        if !valid {
            let message = if market == Market::Zhh {
                msg::fill(msg::NOT_VALID, &value)
            } else {
                msg::NAME_INVALID.to_string()
            };
            return Err(FieldError::rule("first_name", message));
        }
        Ok(RealName(value))
    }
}

/// 5 to 50 characters, `local@domain.tld`: local part of letters, digits
/// and `._%+-` (no leading, trailing or doubled dot); domain labels of
/// letters, digits and inner hyphens; an alphabetic top level of 2 or more.
/// Stored in lower case so that one address is one account.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Email(String);
string_newtype!(Email);

impl Email {
    pub fn parse(input: &str, _market: Market) -> Result<Email, FieldError> {
        let value = input.trim();
        let fail = |m: String| Err(FieldError::new("email", Code::EMAIL_RULE, m));
        if value.is_empty() {
            return fail(msg::EMAIL_BLANK.into());
        }
        if chars(value) > 50 {
            return fail(msg::too_long(50));
        }
        if chars(value) < 5 {
            return fail(msg::fill(msg::MIN_LENGTH, 5));
        }
        if !is_email(value) {
            return fail(msg::EMAIL_INVALID.into());
        }
        Ok(Email(value.to_ascii_lowercase()))
    }

    /// `d***@x.com`: the first character of the local part, then `***`.
    pub fn masked(&self) -> String {
        let (local, domain) = self.0.split_once('@').unwrap_or((&self.0, ""));
        let first: String = local.chars().take(1).collect();
        format!("{first}***@{domain}")
    }
}

fn is_email(s: &str) -> bool {
    let Some((local, domain)) = s.split_once('@') else {
        return false;
    };
    let local_ok = !local.is_empty()
        && local
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"._%+-".contains(&b))
        && !local.starts_with('.')
        && !local.ends_with('.')
        && !local.contains("..");
    let labels: Vec<&str> = domain.split('.').collect();
    let labels_ok = labels.len() >= 2
        && labels.iter().all(|l| {
            !l.is_empty()
                && l.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
                && !l.starts_with('-')
                && !l.ends_with('-')
        });
    let tld_ok = labels
        .last()
        .is_some_and(|t| t.len() >= 2 && t.bytes().all(|b| b.is_ascii_alphabetic()));
    local_ok && labels_ok && tld_ok
}

/// Optional; when given, exactly 6 ASCII letters or digits.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct InviteCode(String);
string_newtype!(InviteCode);

impl InviteCode {
    /// `Ok(None)` when blank.
    pub fn parse(input: &str, _market: Market) -> Result<Option<InviteCode>, FieldError> {
        let value = input.trim();
        if value.is_empty() {
            return Ok(None);
        }
        if value.len() != 6 || !value.bytes().all(|b| b.is_ascii_alphanumeric()) {
            return Err(FieldError::rule("invite_code", msg::INVITE_CODE_INVALID));
        }
        Ok(Some(InviteCode(value.to_string())))
    }
}

/// Optional; when given, up to 32 printable ASCII characters.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct PromoCode(String);
string_newtype!(PromoCode);

impl PromoCode {
    pub const MAX: usize = 32;

    /// `Ok(None)` when blank.
    pub fn parse(input: &str, _market: Market) -> Result<Option<PromoCode>, FieldError> {
        let value = input.trim();
        if value.is_empty() {
            return Ok(None);
        }
        if chars(value) > Self::MAX {
            return Err(FieldError::rule("promo_code", msg::too_long(Self::MAX)));
        }
        if !value.bytes().all(|b| (b' '..=b'~').contains(&b)) {
            return Err(FieldError::rule(
                "promo_code",
                msg::fill(msg::NOT_VALID, value),
            ));
        }
        Ok(Some(PromoCode(value.to_string())))
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Gender {
    M,
    F,
}

impl Gender {
    /// 'M' or 'F' (either case).
    pub fn parse(input: &str, _market: Market) -> Result<Gender, FieldError> {
        match input.trim() {
            "" => Err(FieldError::rule("gender", msg::REQUIRED)),
            "M" | "m" => Ok(Gender::M),
            "F" | "f" => Ok(Gender::F),
            other => Err(FieldError::rule("gender", msg::fill(msg::NOT_VALID, other))),
        }
    }

    pub fn code(self) -> &'static str {
        match self {
            Gender::M => "M",
            Gender::F => "F",
        }
    }
}

/// A birth date putting the member's age within `min_age..=max_age` on
/// `today` (18 to 100, section 5). The spec gives no message for the age
/// rule, so a refused date reads 'Value {date} is not valid.'.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct BirthDate(Date);

impl BirthDate {
    pub fn parse(
        input: &str,
        today: Date,
        min_age: u32,
        max_age: u32,
    ) -> Result<BirthDate, FieldError> {
        let value = input.trim();
        if value.is_empty() {
            return Err(FieldError::rule("birth_date", msg::REQUIRED));
        }
        let invalid = || FieldError::rule("birth_date", msg::fill(msg::NOT_VALID, value));
        let date: Date = value.parse().map_err(|_| invalid())?;
        let age = i64::from(date.age_on(today));
        if age < i64::from(min_age) || age > i64::from(max_age) {
            return Err(invalid());
        }
        Ok(BirthDate(date))
    }

    pub fn date(self) -> Date {
        self.0
    }
}

impl fmt::Display for BirthDate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

/// English names of the countries this platform names in messages. Any
/// other well-formed ISO code is accepted and named by its code.
const COUNTRY_NAMES: &[(&str, &str)] = &[
    ("AU", "Australia"),
    ("BE", "Belgium"),
    ("CA", "Canada"),
    ("CN", "China"),
    ("CY", "Cyprus"),
    ("DE", "Germany"),
    ("DK", "Denmark"),
    ("ES", "Spain"),
    ("FR", "France"),
    ("GB", "United Kingdom"),
    ("GR", "Greece"),
    ("HK", "Hong Kong"),
    ("ID", "Indonesia"),
    ("IN", "India"),
    ("IT", "Italy"),
    ("JP", "Japan"),
    ("KH", "Cambodia"),
    ("KR", "South Korea"),
    ("LA", "Laos"),
    ("MM", "Myanmar"),
    ("MO", "Macao"),
    ("MY", "Malaysia"),
    ("NL", "Netherlands"),
    ("PH", "Philippines"),
    ("PL", "Poland"),
    ("PT", "Portugal"),
    ("SE", "Sweden"),
    ("SG", "Singapore"),
    ("TH", "Thailand"),
    ("TR", "Turkey"),
    ("TW", "Taiwan"),
    ("UA", "Ukraine"),
    ("US", "United States"),
    ("VN", "Vietnam"),
];

/// A two-letter ISO 3166-1 country code, upper case. Required; a country
/// in the restricted list is refused with 'You cannot Sign Up from {name}'.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct CountryCode(String);
string_newtype!(CountryCode);

impl CountryCode {
    pub fn parse(
        input: &str,
        _market: Market,
        restricted: &[String],
    ) -> Result<CountryCode, FieldError> {
        let value = input.trim();
        if value.is_empty() {
            return Err(FieldError::rule("country_code", msg::REQUIRED));
        }
        if value.len() != 2 || !value.bytes().all(|b| b.is_ascii_alphabetic()) {
            return Err(FieldError::rule(
                "country_code",
                msg::fill(msg::NOT_VALID, value),
            ));
        }
        let code = CountryCode(value.to_ascii_uppercase());
        if restricted
            .iter()
            .any(|r| r.trim().eq_ignore_ascii_case(&code.0))
        {
            return Err(FieldError::rule(
                "country_code",
                msg::fill(msg::RESTRICTED_COUNTRY, code.name()),
            ));
        }
        Ok(code)
    }

    /// The English name when known, else the code itself.
    pub fn name(&self) -> &str {
        COUNTRY_NAMES
            .iter()
            .find(|(c, _)| *c == self.0)
            .map_or(self.0.as_str(), |(_, name)| name)
    }
}

/// A 4-digit verification code (SMS, e-mail or image); code 21.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct VerifyCode(String);
string_newtype!(VerifyCode);

impl VerifyCode {
    pub fn parse(input: &str, _market: Market) -> Result<VerifyCode, FieldError> {
        let value = input.trim();
        let fail = |m: &str| {
            Err(FieldError::new(
                "verify_code",
                Code::VERIFY_CODE_MISMATCH,
                m,
            ))
        };
        if value.is_empty() {
            return fail(msg::VERIFY_CODE_BLANK);
        }
        if value.len() != 4 || !value.bytes().all(|b| b.is_ascii_digit()) {
            return fail(msg::VERIFY_CODE_INVALID);
        }
        Ok(VerifyCode(value.to_string()))
    }
}

/// `currency_name`: required, one of the platform's currencies; every
/// refusal is 2002.
pub fn parse_currency(input: &str, _market: Market) -> Result<Currency, FieldError> {
    let value = input.trim();
    let fail = |m: String| Err(FieldError::new("currency_name", Code::CURRENCY_RULE, m));
    if value.is_empty() {
        return fail(msg::REQUIRED.into());
    }
    match value.parse() {
        Ok(currency) => Ok(currency),
        Err(_) => fail(msg::fill(msg::NOT_VALID, value)),
    }
}

/// A member's summary (`user/setusersummary`): at most 200 characters,
/// may be empty.
pub fn parse_summary(input: &str) -> Result<String, FieldError> {
    let value = input.trim();
    if chars(value) > 200 {
        return Err(FieldError::rule("summary", msg::too_long(200)));
    }
    Ok(value.to_string())
}

/// A required short text of at most `max` characters (address parts,
/// security question).
pub fn parse_required_text(
    field: &'static str,
    input: &str,
    max: usize,
) -> Result<String, FieldError> {
    text(field, Code::FIELD_RULE, input, 1, max)
}

#[cfg(test)]
mod tests {
    use super::*;

    const ALL: [Market; 3] = [Market::Zhh, Market::Eng, Market::Tha];

    fn refused<T: fmt::Debug>(result: Result<T, FieldError>) -> (i32, String) {
        let e = result.expect_err("should be refused");
        (e.code, e.message)
    }

    #[test]
    fn markets_come_from_the_language_code() {
        assert_eq!(Market::from_language("zhh"), Market::Zhh);
        assert_eq!(Market::from_language("THA"), Market::Tha);
        for other in ["eng", "rus", "arm", "tur", ""] {
            assert_eq!(Market::from_language(other), Market::Eng);
        }
    }

    #[test]
    fn field_errors_read_as_their_message() {
        let e = FieldError::rule("gender", msg::REQUIRED);
        assert_eq!(e.to_string(), "Required");
        assert_eq!(e.code(), Code::FIELD_RULE);
    }

    #[test]
    fn zhh_phone_is_11_digits_starting_with_1() {
        assert_eq!(
            Phone::parse(" 13800000000 ", Market::Zhh).unwrap().as_str(),
            "13800000000"
        );
        for bad in [
            "1380000000",
            "138000000000",
            "23800000000",
            "1380000000a",
            "138 0000 000",
        ] {
            let (code, message) = refused(Phone::parse(bad, Market::Zhh));
            assert_eq!(
                (code, message.as_str()),
                (1012, msg::PHONE_INVALID),
                "{bad}"
            );
        }
    }

    #[test]
    fn eng_and_tha_phone_is_a_leading_0_then_8_or_9_digits() {
        for market in [Market::Eng, Market::Tha] {
            assert!(Phone::parse("021234567", market).is_ok());
            assert!(Phone::parse("0812345678", market).is_ok());
            for bad in [
                "02123456",
                "08123456789",
                "812345678",
                "13800000000",
                "+66812345678",
            ] {
                let (code, message) = refused(Phone::parse(bad, market));
                assert_eq!(
                    (code, message.as_str()),
                    (1012, msg::PHONE_INVALID),
                    "{bad}"
                );
            }
        }
    }

    #[test]
    fn a_blank_phone_says_it_can_not_be_blank() {
        for market in ALL {
            let (code, message) = refused(Phone::parse("  ", market));
            assert_eq!(
                (code, message.as_str()),
                (1012, "Phone number can not be blank")
            );
        }
    }

    #[test]
    fn phones_mask_all_but_three_leading_and_four_trailing_digits() {
        let phone = Phone::parse("13800000000", Market::Zhh).unwrap();
        assert_eq!(phone.masked(), "138****0000");
        let phone = Phone::parse("0812345678", Market::Tha).unwrap();
        assert_eq!(phone.masked(), "081****5678");
    }

    #[test]
    fn dial_codes_default_by_market_and_are_digits() {
        assert_eq!(DialCode::parse("", Market::Zhh).unwrap().as_str(), "86");
        assert_eq!(DialCode::parse("", Market::Tha).unwrap().as_str(), "66");
        assert_eq!(DialCode::parse("+44", Market::Eng).unwrap().as_str(), "44");
        assert!(DialCode::parse("0044", Market::Eng).is_err());
        assert!(DialCode::parse("12345", Market::Eng).is_err());
    }

    #[test]
    fn usernames_are_2_to_24_characters() {
        for market in ALL {
            assert!(Username::parse("ab", market).is_ok());
            assert!(Username::parse(&"a".repeat(24), market).is_ok());
            let (code, message) = refused(Username::parse("a", market));
            assert_eq!(
                (code, message.as_str()),
                (2006, "Should be at least 2 characters long.")
            );
            let (_, message) = refused(Username::parse(&"a".repeat(25), market));
            assert_eq!(message, "Should be less than 25 characters long.");
            let (_, message) = refused(Username::parse(" ", market));
            assert_eq!(message, "Required");
        }
    }

    #[test]
    fn zhh_usernames_allow_chinese_characters_and_others_only_ascii() {
        assert_eq!(
            Username::parse("张三_01", Market::Zhh).unwrap().as_str(),
            "张三_01"
        );
        for market in [Market::Eng, Market::Tha] {
            assert!(Username::parse("Player_01", market).is_ok());
            let (code, message) = refused(Username::parse("张三_01", market));
            assert_eq!((code, message.as_str()), (2006, "Invalid username"));
        }
        for market in ALL {
            assert!(Username::parse("bad-name", market).is_err());
            assert!(Username::parse("bad name", market).is_err());
        }
    }

    #[test]
    fn registration_passwords_are_6_to_32_letters_and_digits() {
        assert!(Password::parse_registration("abc123", "user").is_ok());
        assert!(Password::parse_registration(&format!("{}1", "a".repeat(31)), "user").is_ok());
        let (code, message) = refused(Password::parse_registration("abc12", "user"));
        assert_eq!((code, message.as_str()), (1013, "Password is too short"));
        let (code, message) = refused(Password::parse_registration(
            &format!("{}1", "a".repeat(32)),
            "user",
        ));
        assert_eq!((code, message.as_str()), (1010, msg::PASSWORD_RULE));
    }

    #[test]
    fn registration_passwords_allow_only_ascii_letters_and_digits() {
        for bad in ["abc 123", "abc_123", "abc123!", "密码abc123", "ab!"] {
            let (code, message) = refused(Password::parse_registration(bad, "user"));
            assert_eq!(
                (code, message.as_str()),
                (1010, "Allowed characters are A-Z, a-z, 0-9"),
                "{bad}"
            );
        }
    }

    #[test]
    fn registration_passwords_combine_letters_and_digits() {
        for bad in ["123456", "abcdef", "ABCDEFGH"] {
            let (code, message) = refused(Password::parse_registration(bad, "user"));
            assert_eq!(
                (code, message.as_str()),
                (1010, msg::PASSWORD_RULE),
                "{bad}"
            );
        }
        assert!(Password::parse_registration("ABC123", "user").is_ok());
        assert!(Password::parse_registration("1a2b3c", "user").is_ok());
    }

    #[test]
    fn a_registration_password_cannot_be_the_login_name() {
        let (code, message) = refused(Password::parse_registration("Player1", "player1"));
        assert_eq!(
            (code, message.as_str()),
            (1010, "Password can't be same as login.")
        );
    }

    #[test]
    fn an_empty_password_cannot_be_empty() {
        let (code, message) = refused(Password::parse_registration("", "user"));
        assert_eq!((code, message.as_str()), (1010, "password cannot be empty"));
        assert!(Password::parse_login("").is_err());
    }

    #[test]
    fn login_passwords_need_only_6_characters() {
        assert!(Password::parse_login("123456").is_ok());
        assert!(Password::parse_login("a b c!").is_ok());
        let (code, message) = refused(Password::parse_login("12345"));
        assert_eq!((code, message.as_str()), (1013, "Password is too short"));
    }

    #[test]
    fn passwords_never_show_in_debug_output() {
        let password = Password::parse_login("secret99").unwrap();
        assert!(!format!("{password:?}").contains("secret99"));
    }

    #[test]
    fn the_repassword_must_be_given_and_match() {
        assert!(check_repassword("abc123", "abc123").is_ok());
        let e = check_repassword("abc123", "").unwrap_err();
        assert_eq!((e.field, e.code), ("repassword", -10101));
        assert_eq!(e.message, "password cannot be empty");
        let e = check_repassword("abc123", "abc124").unwrap_err();
        assert_eq!(e.message, "Two passwords are inconsistent");
    }

    #[test]
    fn nicknames_are_4_to_24_characters_of_any_script() {
        for market in ALL {
            assert!(Nickname::parse("Lucky", market).is_ok());
            assert!(Nickname::parse("幸运之星", market).is_ok());
            assert!(Nickname::parse(&"n".repeat(24), market).is_ok());
            let (code, message) = refused(Nickname::parse("abc", market));
            assert_eq!(
                (code, message.as_str()),
                (-10101, "Should be at least 4 characters long.")
            );
            let (_, message) = refused(Nickname::parse(&"n".repeat(25), market));
            assert_eq!(message, "Should be less than 25 characters long.");
            assert!(Nickname::parse("bad\u{0}name", market).is_err());
        }
    }

    #[test]
    fn zhh_real_names_are_2_to_20_chinese_characters_by_default() {
        let rule = RealNameRule::default();
        assert!(RealName::parse("张三", Market::Zhh, rule).is_ok());
        assert!(RealName::parse("阿卜杜·热合曼", Market::Zhh, rule).is_ok());
        assert!(RealName::parse(&"张".repeat(20), Market::Zhh, rule).is_ok());
        let (code, message) = refused(RealName::parse("张", Market::Zhh, rule));
        assert_eq!(
            (code, message.as_str()),
            (-10101, "Should be at least 2 characters long.")
        );
        assert!(RealName::parse(&"张".repeat(21), Market::Zhh, rule).is_err());
        let (_, message) = refused(RealName::parse("Zhang San", Market::Zhh, rule));
        assert_eq!(message, "Value Zhang San is not valid.");
    }

    #[test]
    fn zhh_real_names_are_2_to_4_characters_under_the_update_rule() {
        let rule = RealNameRule::Zhh2To4;
        assert!(RealName::parse("欧阳娜娜", Market::Zhh, rule).is_ok());
        let (_, message) = refused(RealName::parse("欧阳娜娜娜", Market::Zhh, rule));
        assert_eq!(message, "Should be less than 5 characters long.");
    }

    #[test]
    fn other_real_names_are_1_to_30_letters() {
        for market in [Market::Eng, Market::Tha] {
            for rule in [RealNameRule::Zhh2To20, RealNameRule::Zhh2To4] {
                assert!(RealName::parse("J", market, rule).is_ok());
                assert!(RealName::parse("Mary-Jane O'Neil", market, rule).is_ok());
                assert!(RealName::parse("สมชาย ใจดี", market, rule).is_ok());
                assert!(RealName::parse(&"a".repeat(30), market, rule).is_ok());
                assert!(RealName::parse(&"a".repeat(31), market, rule).is_err());
                for bad in ["R2D2", "John!", "a_b"] {
                    let (_, message) = refused(RealName::parse(bad, market, rule));
                    assert_eq!(message, msg::NAME_INVALID, "{bad}");
                }
            }
        }
    }

    #[test]
    fn emails_follow_the_standard_pattern() {
        for market in ALL {
            let email = Email::parse(" Dan.Smith+bet@Example.co.uk ", market).unwrap();
            assert_eq!(email.as_str(), "dan.smith+bet@example.co.uk");
            assert!(Email::parse("a@b.cn", market).is_ok());
            for bad in [
                "plainaddress",
                "ab@cd",
                "a@b.c",
                ".a@b.com",
                "a..b@c.com",
                "a@-b.com",
                "a@b..com",
                "a b@c.com",
                "a@b.c0m",
                "a@@b.com",
            ] {
                let (code, message) = refused(Email::parse(bad, market));
                assert_eq!(
                    (code, message.as_str()),
                    (1119, "Invalid email address"),
                    "{bad}"
                );
            }
        }
    }

    #[test]
    fn emails_are_5_to_50_characters_and_not_blank() {
        let (code, message) = refused(Email::parse("", Market::Eng));
        assert_eq!((code, message.as_str()), (1119, "Email can not be blank"));
        let long = format!("{}@x.com", "a".repeat(45));
        assert_eq!(long.len(), 51);
        let (_, message) = refused(Email::parse(&long, Market::Eng));
        assert_eq!(message, "Should be less than 51 characters long.");
        assert!(Email::parse(&long[1..], Market::Eng).is_ok());
        let (_, message) = refused(Email::parse("a@bc", Market::Eng));
        assert_eq!(message, "Should be at least 5 characters long.");
    }

    #[test]
    fn emails_mask_all_but_the_first_character_of_the_local_part() {
        let email = Email::parse("dan@x.com", Market::Eng).unwrap();
        assert_eq!(email.masked(), "d***@x.com");
    }

    #[test]
    fn invite_codes_are_optional_and_exactly_6_letters_or_digits() {
        for market in ALL {
            assert_eq!(InviteCode::parse(" ", market), Ok(None));
            assert!(InviteCode::parse("AB12cd", market).unwrap().is_some());
            for bad in ["AB12c", "AB12cde", "AB 12c", "AB-12c"] {
                let (code, message) = refused(InviteCode::parse(bad, market));
                assert_eq!(
                    (code, message.as_str()),
                    (-10101, "This is not a valid invite code")
                );
            }
        }
    }

    #[test]
    fn promo_codes_are_optional_and_up_to_32_printable_characters() {
        assert_eq!(PromoCode::parse("", Market::Eng), Ok(None));
        assert!(PromoCode::parse("WELCOME-2024 #1", Market::Eng)
            .unwrap()
            .is_some());
        assert!(PromoCode::parse(&"P".repeat(32), Market::Eng).is_ok());
        let (_, message) = refused(PromoCode::parse(&"P".repeat(33), Market::Eng));
        assert_eq!(message, "Should be less than 33 characters long.");
        assert!(PromoCode::parse("优惠", Market::Zhh).is_err());
        assert!(PromoCode::parse("a\tb", Market::Eng).is_err());
    }

    #[test]
    fn gender_is_m_or_f() {
        assert_eq!(Gender::parse("M", Market::Eng), Ok(Gender::M));
        assert_eq!(Gender::parse("f", Market::Zhh), Ok(Gender::F));
        assert_eq!(refused(Gender::parse("", Market::Eng)).1, "Required");
        assert_eq!(
            refused(Gender::parse("X", Market::Eng)).1,
            "Value X is not valid."
        );
    }

    fn date(s: &str) -> Date {
        s.parse().unwrap()
    }

    fn birth(s: &str, today: &str) -> Result<BirthDate, FieldError> {
        BirthDate::parse(s, date(today), 18, 100)
    }

    #[test]
    fn members_are_at_least_18_years_old() {
        assert!(birth("2006-06-15", "2024-06-15").is_ok());
        let (code, message) = refused(birth("2006-06-16", "2024-06-15"));
        assert_eq!(
            (code, message.as_str()),
            (-10101, "Value 2006-06-16 is not valid.")
        );
        assert!(birth("2030-01-01", "2024-06-15").is_err());
    }

    #[test]
    fn members_are_at_most_100_years_old() {
        assert!(birth("1924-06-16", "2024-06-15").is_ok());
        assert!(birth("1923-06-16", "2024-06-15").is_ok());
        assert!(birth("1923-06-15", "2024-06-15").is_err());
    }

    #[test]
    fn a_leap_day_birth_comes_of_age_on_1_march_in_common_years() {
        assert!(birth("2006-02-29", "2024-06-15").is_err());
        assert!(birth("2008-02-29", "2026-02-28").is_err());
        assert!(birth("2008-02-29", "2026-03-01").is_ok());
        assert!(birth("2004-02-29", "2022-02-28").is_err());
        assert!(birth("2000-02-29", "2018-03-01").is_ok());
        assert!(birth("2004-02-29", "2022-03-01").is_ok());
    }

    #[test]
    fn birth_dates_are_yyyy_mm_dd_calendar_dates() {
        assert_eq!(refused(birth("", "2024-06-15")).1, "Required");
        for bad in ["15/06/1990", "1990-6-15", "1990-02-30", "1990-13-01"] {
            assert_eq!(
                refused(birth(bad, "2024-06-15")).1,
                format!("Value {bad} is not valid.")
            );
        }
    }

    #[test]
    fn country_codes_are_two_letters_and_required() {
        let none: Vec<String> = vec![];
        assert_eq!(
            CountryCode::parse("th", Market::Tha, &none)
                .unwrap()
                .as_str(),
            "TH"
        );
        assert_eq!(
            refused(CountryCode::parse("", Market::Eng, &none)).1,
            "Required"
        );
        assert!(CountryCode::parse("THA", Market::Eng, &none).is_err());
        assert!(CountryCode::parse("T1", Market::Eng, &none).is_err());
    }

    #[test]
    fn restricted_countries_cannot_sign_up() {
        let restricted = vec!["GR".to_string(), "fr".to_string(), "ZZ".to_string()];
        let (code, message) = refused(CountryCode::parse("gr", Market::Eng, &restricted));
        assert_eq!(
            (code, message.as_str()),
            (-10101, "You cannot Sign Up from Greece")
        );
        let (_, message) = refused(CountryCode::parse("FR", Market::Eng, &restricted));
        assert_eq!(message, "You cannot Sign Up from France");
        let (_, message) = refused(CountryCode::parse("zz", Market::Eng, &restricted));
        assert_eq!(message, "You cannot Sign Up from ZZ");
        assert!(CountryCode::parse("GB", Market::Eng, &restricted).is_ok());
    }

    #[test]
    fn verify_codes_are_exactly_4_digits() {
        for market in ALL {
            assert!(VerifyCode::parse("0421", market).is_ok());
            let (code, message) = refused(VerifyCode::parse("", market));
            assert_eq!(
                (code, message.as_str()),
                (21, "please enter verification code")
            );
            for bad in ["421", "04211", "04a1"] {
                let (code, message) = refused(VerifyCode::parse(bad, market));
                assert_eq!(
                    (code, message.as_str()),
                    (21, "Please enter the 4-digit verification code")
                );
            }
        }
    }

    #[test]
    fn the_currency_is_required_and_must_be_offered() {
        assert_eq!(parse_currency("cny", Market::Zhh), Ok(Currency::Cny));
        assert_eq!(parse_currency("THB", Market::Tha), Ok(Currency::Thb));
        let (code, message) = refused(parse_currency("", Market::Eng));
        assert_eq!((code, message.as_str()), (2002, "Required"));
        let (code, message) = refused(parse_currency("EUR", Market::Eng));
        assert_eq!((code, message.as_str()), (2002, "Value EUR is not valid."));
    }

    #[test]
    fn summaries_are_at_most_200_characters() {
        assert_eq!(parse_summary("").unwrap(), "");
        assert!(parse_summary(&"字".repeat(200)).is_ok());
        let e = parse_summary(&"字".repeat(201)).unwrap_err();
        assert_eq!(e.message, "Should be less than 201 characters long.");
    }
}
