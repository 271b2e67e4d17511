//! The numeric error catalogue of both spec documents (000 section 8 and
//! 001 section 8). A non-zero `status` on the wire is one of these codes;
//! codes the platform adds where the spec is silent are marked as such and
//! listed in docs/protocol.md.

use serde::Serialize;

/// A catalogue code with its message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Code(pub i32);

impl Code {
    pub const NOT_LOGGED_IN: Code = Code(12);
    pub const WRONG_AMOUNT: Code = Code(1109);
    pub const INSUFFICIENT_BALANCE: Code = Code(2400);
    /// Platform-defined: a stake release/take names no open reservation.
    pub const UNKNOWN_RESERVATION: Code = Code(2401);
    /// Platform-defined: a command names a currency other than the wallet's.
    pub const CURRENCY_MISMATCH: Code = Code(2403);
    /// Platform-defined: a wallet command without a transaction reference.
    pub const MISSING_REFERENCE: Code = Code(2404);
    /// Platform-defined: the reference was voided before any movement with
    /// it committed (a transfer given up by the sweeper); it never moves.
    pub const REFERENCE_VOIDED: Code = Code(2405);
    /// Spec 000 section 8 (2406, 2428 "self-exclusion"): our reading is
    /// 2406 a self-exclusion, 2428 a time-out (DESIGN.md).
    pub const SELF_EXCLUDED: Code = Code(2406);
    pub const TIMED_OUT: Code = Code(2428);
    /// Platform-defined (DESIGN.md "Responsible gambling"): a member's own
    /// deposit, loss or stake limit is reached.
    pub const DEPOSIT_LIMIT: Code = Code(2431);
    pub const LOSS_LIMIT: Code = Code(2432);
    pub const STAKE_LIMIT: Code = Code(2433);
    /// Platform-defined: a withdrawal before the member's age and identity
    /// are verified.
    pub const IDENTITY_UNVERIFIED: Code = Code(2434);
    /// Platform-defined: the server could not complete the request.
    pub const INTERNAL: Code = Code(-1);

    // Account codes. Spec 001 section 8 maps registration codes to fields
    // (21 captcha, 1010/1013 password, 1012 phone, 2006 username, 1119
    // e-mail, 2002 currency) without their messages; the field rule's own
    // message (a `FieldError`) is what the member sees, the catalogue text
    // below is only the fallback.
    pub const VERIFY_CODE_MISMATCH: Code = Code(21);
    pub const USER_LOCKED: Code = Code(1004);
    pub const PASSWORD_RULE: Code = Code(1010);
    pub const PHONE_RULE: Code = Code(1012);
    pub const PASSWORD_TOO_SHORT: Code = Code(1013);
    pub const ACCOUNT_TEMPORARILY_LOCKED: Code = Code(1022);
    pub const EMAIL_RULE: Code = Code(1119);
    pub const CURRENCY_RULE: Code = Code(2002);
    pub const USERNAME_RULE: Code = Code(2006);
    /// Spec range for login (-10001..-10010): a correct password from a
    /// device the account never verified while it has a phone or e-mail.
    pub const DEVICE_NOT_VERIFIED: Code = Code(-10010);
    /// Platform-defined in the registration range: any other field rule.
    pub const FIELD_RULE: Code = Code(-10101);
    /// Platform-defined: an account command for a user id never registered.
    pub const ACCOUNT_NOT_REGISTERED: Code = Code(-10102);
    /// Platform-defined: a second registration under the same user id.
    pub const ACCOUNT_ALREADY_REGISTERED: Code = Code(-10103);
    /// Platform-defined: unbinding a phone or e-mail the account has none of.
    pub const NOTHING_BOUND: Code = Code(-10105);
    /// Platform-defined: unbinding the account's only phone or e-mail (it
    /// keeps one for the safety verification and password recovery).
    pub const LAST_CONTACT: Code = Code(-10106);
    /// Platform-defined: the birth date is set once (spec 001 section 3:
    /// read-only in the personal details).
    pub const BIRTH_DATE_SET: Code = Code(-10107);
    /// Platform-defined: too many wrong security answers; try again in
    /// `data.wait` seconds.
    pub const TOO_MANY_ANSWERS: Code = Code(-10108);
    /// Platform-defined: too many wrong login passwords confirming an
    /// action; try again in `data.wait` seconds.
    pub const TOO_MANY_PASSWORDS: Code = Code(-10109);

    // Bet placement (spec 000 sections 5 and 8). The spec's codes first,
    // then platform-defined codes (19xx) for the betslip messages the spec
    // lists without a number.
    pub const GAME_STARTED: Code = Code(1100);
    pub const WRONG_COEFFICIENT: Code = Code(1108);
    pub const MEMBER_LIMIT: Code = Code(1510);
    pub const STAKE_ABOVE_MAX: Code = Code(1550);
    pub const STAKE_BELOW_MIN: Code = Code(1560);
    pub const ODDS_CHANGED: Code = Code(1800);
    /// Platform-defined: fewer selections than the bet type needs.
    pub const NOT_ENOUGH_EVENTS: Code = Code(1901);
    /// Platform-defined: a selection is deleted or suspended.
    pub const EVENT_NOT_AVAILABLE: Code = Code(1902);
    /// Platform-defined: a selection is blocked.
    pub const EVENT_BLOCKED: Code = Code(1903);
    /// Platform-defined: two selections of one game in one bet.
    pub const BET_CONFLICT: Code = Code(1904);
    /// Platform-defined: a single-only selection combined with others.
    pub const SINGLE_ONLY: Code = Code(1905);
    /// Platform-defined: total express odds above the limit.
    pub const ODDS_LIMIT: Code = Code(1906);
    /// Platform-defined: price -1 (SP) where no starting price is offered.
    pub const SP_NOT_AVAILABLE: Code = Code(1907);
    /// Platform-defined: each-way where the selection does not offer it.
    pub const EACH_WAY_NOT_AVAILABLE: Code = Code(1908);
    /// Platform-defined: a malformed bet (system size, single with several
    /// selections, a selection twice).
    pub const INVALID_BET: Code = Code(1909);
    /// Platform-defined: a bet command the bet's state does not allow.
    pub const BET_STATE: Code = Code(1910);
    /// Platform-defined: a command for a bet id never placed.
    pub const UNKNOWN_BET: Code = Code(1911);
    pub const ONE_SUPER_BET: Code = Code(1026);
    /// Platform-defined: a `bonus_id` that cannot be staked (unknown, used,
    /// expired) or a stake other than the free bet's amount.
    pub const FREE_BET_NOT_AVAILABLE: Code = Code(1912);
    /// Platform-defined: more selections than a bet holds (default 30).
    pub const TOO_MANY_SELECTIONS: Code = Code(1913);
    /// Platform-defined: a system bet with more combinations than a bet
    /// holds (default 5,000).
    pub const TOO_MANY_COMBINATIONS: Code = Code(1914);
    /// Platform-defined: the member answers a counter offer that is not
    /// pending; the back office reads it as "the bet is not on hold".
    pub const NO_COUNTER_OFFER: Code = Code(1027);
    /// Platform-defined: a request with missing or malformed parameters.
    pub const BAD_PARAMETERS: Code = Code(-70009);
    /// Platform-defined: `get_booking` with an id nobody booked.
    pub const BOOKING_NOT_FOUND: Code = Code(1930);
    /// Platform-defined: `book_bet` with more selections than a booking
    /// holds (30).
    pub const BOOKING_TOO_MANY_EVENTS: Code = Code(1931);

    pub fn message(self) -> String {
        match CATALOGUE.iter().find(|(c, _)| *c == self.0) {
            Some((_, m)) => (*m).to_string(),
            None => unknown_error(self.0),
        }
    }
}

/// The client-side text for a code the catalogue does not know.
pub fn unknown_error(code: i32) -> String {
    "Unknown error ({1})".replace("{1}", &code.to_string())
}

const CATALOGUE: &[(i32, &str)] = &[
    (
        -1,
        "The server could not complete the request, please try again later.",
    ),
    (
        -601,
        "Sorry, your login status has expired, please log in again",
    ),
    (-10010, "Please verify this device to log in"),
    (-10101, "This field is not valid"),
    (-10102, "Account is not registered"),
    (-10103, "Account is already registered"),
    (-10105, "There is nothing bound to unbind"),
    (
        -10106,
        "Bind another phone number or e-mail address before unbinding this one",
    ),
    (
        -10107,
        "The birth date is already set and cannot be changed",
    ),
    (-10108, "Too many wrong answers, please try again later"),
    (-10109, "Too many wrong passwords, please try again later"),
    (-70009, "Invalid request parameters"),
    (12, "Not logged in"),
    (20, "balance less than withdrawal"),
    (21, "verification code does not match"),
    (1002, "Invalid username and/or password"),
    (1003, "Wrong password"),
    (1004, "User is locked"),
    (1009, "code expired"),
    (
        1010,
        "6 to 32 characters in length (a combination of numbers and letters)",
    ),
    (1012, "This is not a valid phone number"),
    (1013, "Password is too short"),
    (
        1022,
        "Your account has been locked. Please try again later.",
    ),
    (1026, "only one active super bet"),
    (1027, "No counter offer to answer"),
    (1100, "game started"),
    (1102, "game started"),
    (1108, "Wrong coefficient"),
    (1109, "Wrong amount"),
    (1119, "Invalid email address"),
    (1510, "The bet amount exceeds your current limit"),
    (1550, "sum above max"),
    (1560, "sum below min"),
    (1800, "The odds have changed"),
    (2002, "Invalid currency"),
    (2006, "Invalid username"),
    (2400, "Insufficient balance."),
    (2401, "Unknown stake reservation"),
    (2403, "Wallet currency mismatch"),
    (2404, "Missing transaction reference"),
    (2405, "Transaction voided"),
    (2406, "self-exclusion"),
    (2428, "self-exclusion"),
    (2431, "Your deposit limit is reached."),
    (2432, "Your loss limit is reached."),
    (2433, "Your stake limit is reached."),
    (
        2434,
        "Please verify your identity before your first withdrawal.",
    ),
    (20003, "amount below minimum"),
    (20004, "amount above maximum"),
    (20007, "already have a valid withdrawal request"),
    (1901, "Add more events to place a bet."),
    (1902, "Event is not available."),
    (1903, "Event is blocked."),
    (1904, "This bet cannot be combined with:"),
    (1905, "Some events in betslip conflict with others."),
    (1906, "Odds limit exceeded."),
    (1907, "Starting price is not available for this event."),
    (1908, "Each way is not available for this event."),
    (1909, "The bet is not valid."),
    (1910, "This bet cannot be changed now."),
    (1911, "Unknown bet"),
    (1913, "Too many events in betslip."),
    (1914, "Too many combinations in this system bet."),
    (1930, "Booking not found"),
    (1931, "Too many events in betslip."),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn insufficient_balance_has_the_spec_message() {
        assert_eq!(
            Code::INSUFFICIENT_BALANCE.message(),
            "Insufficient balance."
        );
    }

    #[test]
    fn unknown_codes_read_unknown_error_with_the_code() {
        assert_eq!(Code(777).message(), "Unknown error (777)");
    }
}
