//! Account rules, one test per rule: registration forms, then the
//! aggregate as given / when / then.

use cqrs_es::test::TestFramework;
use cqrs_es::Aggregate;

use super::*;
use crate::Currency;

type AccountTest = TestFramework<Account>;

fn today() -> Date {
    "2024-06-15".parse().unwrap()
}

fn phone_form() -> RegistrationForm {
    RegistrationForm {
        password: Some("abc123".into()),
        repassword: Some("abc123".into()),
        phone: Some("13800000000".into()),
        country_code: Some("CN".into()),
        currency_name: Some("CNY".into()),
        agree: Some("1".into()),
        language: Some("zhh".into()),
        ..Default::default()
    }
}

fn validate(
    form: &RegistrationForm,
    variant: RegistrationVariant,
    market: Market,
) -> Result<Registration, FieldError> {
    validate_registration(
        form,
        variant,
        market,
        &RegistrationRules::default(),
        today(),
    )
}

fn refusal(form: &RegistrationForm, variant: RegistrationVariant, market: Market) -> FieldError {
    validate(form, variant, market).expect_err("should be refused")
}

// --- registration forms ---

#[test]
fn the_phone_variant_needs_a_phone_and_logs_in_with_it() {
    let registration = validate(&phone_form(), RegistrationVariant::Phone, Market::Zhh).unwrap();
    let profile = &registration.profile;
    assert_eq!(profile.username.as_str(), "13800000000");
    assert_eq!(profile.phone_code.as_str(), "86");
    assert_eq!(profile.currency, Currency::Cny);
    assert_eq!(registration.password.expose(), "abc123");

    let form = RegistrationForm {
        phone: None,
        ..phone_form()
    };
    let e = refusal(&form, RegistrationVariant::Phone, Market::Zhh);
    assert_eq!((e.field, e.code), ("phone", 1012));
    assert_eq!(e.message, "Phone number can not be blank");
}

#[test]
fn the_phone_variant_keeps_a_given_username() {
    let form = RegistrationForm {
        username: Some("lucky_1".into()),
        ..phone_form()
    };
    let registration = validate(&form, RegistrationVariant::Phone, Market::Zhh).unwrap();
    assert_eq!(registration.profile.username.as_str(), "lucky_1");
}

#[test]
fn the_email_variant_needs_an_email_and_logs_in_with_it() {
    let form = RegistrationForm {
        phone: None,
        email: Some("Dan@X.com".into()),
        currency_name: Some("USD".into()),
        country_code: Some("GB".into()),
        ..phone_form()
    };
    let registration = validate(&form, RegistrationVariant::Email, Market::Eng).unwrap();
    assert_eq!(registration.profile.username.as_str(), "dan@x.com");
    assert_eq!(registration.profile.phone, None);

    let form = RegistrationForm {
        email: None,
        ..form
    };
    let e = refusal(&form, RegistrationVariant::Email, Market::Eng);
    assert_eq!((e.field, e.code), ("email", 1119));
    assert_eq!(e.message, "Email can not be blank");
}

#[test]
fn the_username_variant_needs_a_username() {
    let form = RegistrationForm {
        phone: None,
        ..phone_form()
    };
    let e = refusal(&form, RegistrationVariant::Username, Market::Eng);
    assert_eq!(
        (e.field, e.code, e.message.as_str()),
        ("username", 2006, "Required")
    );

    let form = RegistrationForm {
        username: Some("player7".into()),
        ..form
    };
    let registration = validate(&form, RegistrationVariant::Username, Market::Eng).unwrap();
    assert_eq!(registration.profile.username.as_str(), "player7");
    assert_eq!(registration.profile.phone_code.as_str(), "66");
}

#[test]
fn an_optional_contact_is_still_checked_when_given() {
    let form = RegistrationForm {
        username: Some("player7".into()),
        phone: Some("12345".into()),
        ..phone_form()
    };
    let e = refusal(&form, RegistrationVariant::Username, Market::Eng);
    assert_eq!(
        (e.field, e.message.as_str()),
        ("phone", "This is not a valid phone number")
    );
}

#[test]
fn the_first_failing_field_in_form_order_is_reported() {
    let form = RegistrationForm {
        username: Some("x".into()),
        password: Some("short".into()),
        phone: Some("bad".into()),
        country_code: None,
        ..phone_form()
    };
    let e = refusal(&form, RegistrationVariant::Phone, Market::Zhh);
    assert_eq!(e.field, "username");

    let form = RegistrationForm {
        username: None,
        ..form
    };
    let e = refusal(&form, RegistrationVariant::Phone, Market::Zhh);
    assert_eq!(
        (e.field, e.code, e.message.as_str()),
        ("password", 1013, "Password is too short")
    );

    let form = RegistrationForm {
        password: Some("abc123".into()),
        ..form
    };
    assert_eq!(
        refusal(&form, RegistrationVariant::Phone, Market::Zhh).field,
        "phone"
    );

    let form = RegistrationForm {
        phone: Some("13800000000".into()),
        ..form
    };
    assert_eq!(
        refusal(&form, RegistrationVariant::Phone, Market::Zhh).field,
        "country_code"
    );
}

#[test]
fn the_password_cannot_be_the_login_name() {
    let form = RegistrationForm {
        phone: Some("0812345678".into()),
        password: Some("0812345678".into()),
        repassword: Some("0812345678".into()),
        ..phone_form()
    };
    // All digits fails first; a letter-and-digit login name shows the rule.
    let e = refusal(&form, RegistrationVariant::Phone, Market::Tha);
    assert_eq!(e.code, 1010);
    let form = RegistrationForm {
        username: Some("abc123".into()),
        ..phone_form()
    };
    let e = refusal(&form, RegistrationVariant::Phone, Market::Zhh);
    assert_eq!(e.message, "Password can't be same as login.");
}

#[test]
fn the_repassword_must_match() {
    let form = RegistrationForm {
        repassword: Some("abc124".into()),
        ..phone_form()
    };
    let e = refusal(&form, RegistrationVariant::Phone, Market::Zhh);
    assert_eq!((e.field, e.code), ("repassword", -10101));
    assert_eq!(e.message, "Two passwords are inconsistent");
}

#[test]
fn the_terms_must_be_accepted() {
    for agree in [None, Some("0"), Some("false"), Some("")] {
        let form = RegistrationForm {
            agree: agree.map(Into::into),
            ..phone_form()
        };
        let e = refusal(&form, RegistrationVariant::Phone, Market::Zhh);
        assert_eq!((e.field, e.code), ("agree", -10101));
        assert_eq!(
            e.message,
            "You must accept all terms and conditions to be able to register."
        );
    }
    for agree in ["1", "true", "ON"] {
        let form = RegistrationForm {
            agree: Some(agree.into()),
            ..phone_form()
        };
        assert!(validate(&form, RegistrationVariant::Phone, Market::Zhh).is_ok());
    }
    let rules = RegistrationRules {
        require_agreement: false,
        ..Default::default()
    };
    let form = RegistrationForm {
        agree: None,
        ..phone_form()
    };
    assert!(validate_registration(
        &form,
        RegistrationVariant::Phone,
        Market::Zhh,
        &rules,
        today()
    )
    .is_ok());
}

#[test]
fn registration_from_a_restricted_country_is_refused_by_name() {
    let form = RegistrationForm {
        country_code: Some("GR".into()),
        ..phone_form()
    };
    let e = refusal(&form, RegistrationVariant::Phone, Market::Zhh);
    assert_eq!(
        (e.field, e.message.as_str()),
        ("country_code", "You cannot Sign Up from Greece")
    );
}

#[test]
fn an_unknown_currency_is_refused_with_2002() {
    let form = RegistrationForm {
        currency_name: Some("EUR".into()),
        ..phone_form()
    };
    let e = refusal(&form, RegistrationVariant::Phone, Market::Zhh);
    assert_eq!((e.field, e.code), ("currency_name", 2002));
}

#[test]
fn a_given_birth_date_must_be_of_age_on_the_day_of_registration() {
    let form = |birth: &str| RegistrationForm {
        birth_date: Some(birth.into()),
        gender: Some("F".into()),
        ..phone_form()
    };
    let ok = validate(&form("2006-06-15"), RegistrationVariant::Phone, Market::Zhh).unwrap();
    assert_eq!(ok.profile.birth_date.unwrap().to_string(), "2006-06-15");
    assert_eq!(ok.profile.gender, Some(Gender::F));
    let e = refusal(&form("2006-06-16"), RegistrationVariant::Phone, Market::Zhh);
    assert_eq!(e.field, "birth_date");
}

#[test]
fn optional_fields_are_parsed_into_the_profile() {
    let form = RegistrationForm {
        nickname: Some("Lucky Star".into()),
        first_name: Some("张三".into()),
        invite_code: Some("AB12CD".into()),
        promo_code: Some("WELCOME".into()),
        phone_code: Some("+86".into()),
        ..phone_form()
    };
    let profile = validate(&form, RegistrationVariant::Phone, Market::Zhh)
        .unwrap()
        .profile;
    assert_eq!(profile.nickname.unwrap().as_str(), "Lucky Star");
    assert_eq!(profile.real_name.unwrap().as_str(), "张三");
    assert_eq!(profile.invite_code.unwrap().as_str(), "AB12CD");
    assert_eq!(profile.promo_code.unwrap().as_str(), "WELCOME");
    assert_eq!(profile.market, Market::Zhh);
}

#[test]
fn the_real_name_rule_is_configurable() {
    let form = RegistrationForm {
        first_name: Some("欧阳娜娜娜".into()),
        ..phone_form()
    };
    assert!(validate(&form, RegistrationVariant::Phone, Market::Zhh).is_ok());
    let rules = RegistrationRules {
        real_name_rule: RealNameRule::Zhh2To4,
        ..Default::default()
    };
    let e = validate_registration(
        &form,
        RegistrationVariant::Phone,
        Market::Zhh,
        &rules,
        today(),
    )
    .unwrap_err();
    assert_eq!(e.field, "first_name");
}

#[test]
fn registration_forms_hide_passwords_in_debug_output() {
    let shown = format!("{:?}", phone_form());
    assert!(!shown.contains("abc123"));
    assert!(shown.contains("13800000000"));
}

// --- the aggregate ---

const DEVICE: &str = "device-1";
const T0: i64 = 1_718_400_000_000;

fn policy() -> LoginPolicy {
    LoginPolicy::default()
}

fn profile_with(email: Option<&str>) -> Profile {
    let form = RegistrationForm {
        email: email.map(Into::into),
        ..phone_form()
    };
    validate(&form, RegistrationVariant::Phone, Market::Zhh)
        .unwrap()
        .profile
}

fn registered() -> AccountEvent {
    AccountEvent::Registered {
        user_id: "u1".into(),
        profile: profile_with(None),
        password_hash: "hash-1".into(),
        device_id: DEVICE.into(),
        at_ms: T0,
    }
}

fn failed(at_ms: i64) -> AccountEvent {
    AccountEvent::LoginFailed { at_ms }
}

fn failure(at_ms: i64) -> AccountCommand {
    AccountCommand::RecordLoginFailure {
        at_ms,
        device_id: DEVICE.into(),
    }
}

fn login(at_ms: i64, device_id: &str) -> AccountCommand {
    AccountCommand::RecordLogin {
        at_ms,
        device_id: device_id.into(),
    }
}

fn account_after(events: Vec<AccountEvent>) -> Account {
    let mut account = Account::default();
    for event in events {
        account.apply(event);
    }
    account
}

#[test]
fn registering_records_the_profile_and_trusts_the_device() {
    let registration = validate(&phone_form(), RegistrationVariant::Phone, Market::Zhh).unwrap();
    AccountTest::with(policy())
        .given_no_previous_events()
        .when(AccountCommand::Register {
            user_id: "u1".into(),
            registration,
            password_hash: "hash-1".into(),
            device_id: DEVICE.into(),
            at_ms: T0,
        })
        .then_expect_events(vec![registered()]);
    let account = account_after(vec![registered()]);
    assert!(account.is_trusted(DEVICE));
    assert!(!account.is_trusted("device-2"));
    assert_eq!(account.password_hash(), Some("hash-1"));
}

#[test]
fn an_account_registers_only_once() {
    let registration = validate(&phone_form(), RegistrationVariant::Phone, Market::Zhh).unwrap();
    AccountTest::with(policy())
        .given(vec![registered()])
        .when(AccountCommand::Register {
            user_id: "u1".into(),
            registration,
            password_hash: "hash-2".into(),
            device_id: DEVICE.into(),
            at_ms: T0 + 1,
        })
        .then_expect_error(AccountError::AlreadyRegistered);
}

#[test]
fn commands_need_a_registered_account() {
    for command in [
        failure(T0),
        login(T0, DEVICE),
        AccountCommand::UnlockByStaff,
        AccountCommand::SetSummary("hi".into()),
    ] {
        AccountTest::with(policy())
            .given_no_previous_events()
            .when(command)
            .then_expect_error(AccountError::NotRegistered);
    }
    assert_eq!(AccountError::NotRegistered.code().0, -10102);
    assert_eq!(AccountError::AlreadyRegistered.code().0, -10103);
}

#[test]
fn a_login_failure_below_the_limit_is_only_recorded() {
    AccountTest::with(policy())
        .given(vec![
            registered(),
            failed(T0),
            failed(T0 + 1),
            failed(T0 + 2),
        ])
        .when(failure(T0 + 3))
        .then_expect_events(vec![failed(T0 + 3)]);
}

#[test]
fn the_fifth_failure_within_the_window_locks_the_account_temporarily() {
    AccountTest::with(policy())
        .given(vec![
            registered(),
            failed(T0),
            failed(T0 + 1_000),
            failed(T0 + 2_000),
            failed(T0 + 3_000),
        ])
        .when(failure(T0 + 899_999))
        .then_expect_events(vec![
            failed(T0 + 899_999),
            AccountEvent::TemporarilyLocked {
                until_ms: T0 + 899_999 + 900_000,
            },
        ]);
}

#[test]
fn failures_older_than_the_window_do_not_count() {
    AccountTest::with(policy())
        .given(vec![
            registered(),
            failed(T0),
            failed(T0 + 1_000),
            failed(T0 + 2_000),
            failed(T0 + 3_000),
        ])
        .when(failure(T0 + 900_000))
        .then_expect_events(vec![failed(T0 + 900_000)]);
}

#[test]
fn the_login_policy_is_configurable() {
    let strict = LoginPolicy {
        max_failures: 2,
        window_ms: 60_000,
        lock_ms: 5_000,
    };
    AccountTest::with(strict)
        .given(vec![registered(), failed(T0)])
        .when(failure(T0 + 59_999))
        .then_expect_events(vec![
            failed(T0 + 59_999),
            AccountEvent::TemporarilyLocked {
                until_ms: T0 + 64_999,
            },
        ]);
}

#[test]
fn a_temporarily_locked_account_refuses_logins_until_the_lock_ends() {
    let locked = AccountEvent::TemporarilyLocked {
        until_ms: T0 + 900_000,
    };
    let error = AccountError::TemporarilyLocked {
        until_ms: T0 + 900_000,
    };
    assert_eq!(error.code().0, 1022);
    assert_eq!(
        error.code().message(),
        "Your account has been locked. Please try again later."
    );
    AccountTest::with(policy())
        .given(vec![registered(), locked.clone()])
        .when(login(T0 + 899_999, DEVICE))
        .then_expect_error(error.clone());
    AccountTest::with(policy())
        .given(vec![registered(), locked.clone()])
        .when(failure(T0 + 899_999))
        .then_expect_error(error);
    AccountTest::with(policy())
        .given(vec![registered(), locked])
        .when(login(T0 + 900_000, DEVICE))
        .then_expect_events(vec![AccountEvent::LoggedIn {
            at_ms: T0 + 900_000,
            device_id: DEVICE.into(),
        }]);
}

#[test]
fn a_lock_starts_a_fresh_failure_count() {
    AccountTest::with(policy())
        .given(vec![
            registered(),
            failed(T0),
            failed(T0 + 1),
            failed(T0 + 2),
            failed(T0 + 3),
            failed(T0 + 4),
            AccountEvent::TemporarilyLocked { until_ms: T0 + 100 },
        ])
        .when(failure(T0 + 200))
        .then_expect_events(vec![failed(T0 + 200)]);
}

#[test]
fn a_login_clears_the_failure_count() {
    let logged_in = AccountEvent::LoggedIn {
        at_ms: T0 + 5,
        device_id: DEVICE.into(),
    };
    AccountTest::with(policy())
        .given(vec![
            registered(),
            failed(T0),
            failed(T0 + 1),
            failed(T0 + 2),
            failed(T0 + 3),
            logged_in,
        ])
        .when(failure(T0 + 6))
        .then_expect_events(vec![failed(T0 + 6)]);
}

#[test]
fn the_failure_list_stays_short() {
    let mut events = vec![registered()];
    events.extend((0..100).map(|i| failed(T0 + i * 10_000_000)));
    let account = account_after(events);
    assert_eq!(account.recent_failures.len(), REMEMBERED_FAILURES);
    assert_eq!(account.recent_failures.last(), Some(&(T0 + 990_000_000)));
}

#[test]
fn a_staff_lock_refuses_logins_with_1004_until_lifted() {
    let locked = AccountEvent::LockedByStaff {
        reason: "fraud review".into(),
    };
    assert_eq!(
        AccountError::LockedByStaff.code().message(),
        "User is locked"
    );
    AccountTest::with(policy())
        .given(vec![registered(), locked.clone()])
        .when(login(T0, DEVICE))
        .then_expect_error(AccountError::LockedByStaff);
    AccountTest::with(policy())
        .given(vec![registered(), locked.clone()])
        .when(failure(T0))
        .then_expect_error(AccountError::LockedByStaff);
    AccountTest::with(policy())
        .given(vec![
            registered(),
            locked.clone(),
            AccountEvent::UnlockedByStaff,
        ])
        .when(login(T0, DEVICE))
        .then_expect_events(vec![AccountEvent::LoggedIn {
            at_ms: T0,
            device_id: DEVICE.into(),
        }]);
    let account = account_after(vec![registered(), locked]);
    assert_eq!(account.is_locked_at(T0), Some(LockKind::Staff));
}

#[test]
fn staff_lock_and_unlock_are_idempotent() {
    let locked = AccountEvent::LockedByStaff { reason: "r".into() };
    AccountTest::with(policy())
        .given(vec![registered()])
        .when(AccountCommand::LockByStaff { reason: "r".into() })
        .then_expect_events(vec![locked.clone()]);
    AccountTest::with(policy())
        .given(vec![registered(), locked])
        .when(AccountCommand::LockByStaff {
            reason: "again".into(),
        })
        .then_expect_events(vec![]);
    AccountTest::with(policy())
        .given(vec![registered()])
        .when(AccountCommand::UnlockByStaff)
        .then_expect_events(vec![]);
}

#[test]
fn a_staff_unlock_also_lifts_a_temporary_lock() {
    AccountTest::with(policy())
        .given(vec![
            registered(),
            AccountEvent::TemporarilyLocked {
                until_ms: T0 + 900_000,
            },
        ])
        .when(AccountCommand::UnlockByStaff)
        .then_expect_events(vec![AccountEvent::UnlockedByStaff]);
    let account = account_after(vec![
        registered(),
        AccountEvent::TemporarilyLocked {
            until_ms: T0 + 900_000,
        },
        AccountEvent::UnlockedByStaff,
    ]);
    assert_eq!(account.is_locked_at(T0), None);
}

#[test]
fn locks_are_reported_by_kind_at_a_given_time() {
    let account = account_after(vec![
        registered(),
        AccountEvent::TemporarilyLocked { until_ms: T0 + 10 },
    ]);
    assert_eq!(
        account.is_locked_at(T0 + 9),
        Some(LockKind::Temporary { until_ms: T0 + 10 })
    );
    assert_eq!(account.is_locked_at(T0 + 10), None);
}

#[test]
fn an_unverified_device_cannot_log_in_when_a_channel_exists() {
    AccountTest::with(policy())
        .given(vec![registered()])
        .when(login(T0, "device-2"))
        .then_expect_error(AccountError::DeviceNotVerified);
    assert_eq!(AccountError::DeviceNotVerified.code().0, -10010);
    AccountTest::with(policy())
        .given(vec![
            registered(),
            AccountEvent::DeviceTrusted {
                device_id: "device-2".into(),
            },
        ])
        .when(login(T0, "device-2"))
        .then_expect_events(vec![AccountEvent::LoggedIn {
            at_ms: T0,
            device_id: "device-2".into(),
        }]);
}

#[test]
fn any_device_logs_in_when_no_channel_exists() {
    let form = RegistrationForm {
        username: Some("player7".into()),
        phone: None,
        ..phone_form()
    };
    let profile = validate(&form, RegistrationVariant::Username, Market::Eng)
        .unwrap()
        .profile;
    let registered = AccountEvent::Registered {
        user_id: "u2".into(),
        profile,
        password_hash: "h".into(),
        device_id: DEVICE.into(),
        at_ms: T0,
    };
    assert!(!account_after(vec![registered.clone()]).has_verification_channel());
    AccountTest::with(policy())
        .given(vec![registered])
        .when(login(T0, "device-9"))
        .then_expect_events(vec![AccountEvent::LoggedIn {
            at_ms: T0,
            device_id: "device-9".into(),
        }]);
}

#[test]
fn trusting_a_device_is_recorded_once() {
    AccountTest::with(policy())
        .given(vec![registered()])
        .when(AccountCommand::TrustDevice {
            device_id: "device-2".into(),
        })
        .then_expect_events(vec![AccountEvent::DeviceTrusted {
            device_id: "device-2".into(),
        }]);
    AccountTest::with(policy())
        .given(vec![registered()])
        .when(AccountCommand::TrustDevice {
            device_id: DEVICE.into(),
        })
        .then_expect_events(vec![]);
}

#[test]
fn verification_channels_and_masks_come_from_the_bound_contacts() {
    let account = account_after(vec![AccountEvent::Registered {
        user_id: "u1".into(),
        profile: profile_with(Some("dan@x.com")),
        password_hash: "h".into(),
        device_id: DEVICE.into(),
        at_ms: T0,
    }]);
    assert!(account.has_verification_channel());
    assert_eq!(account.verification_channels(), vec!["phone", "email"]);
    assert_eq!(account.masked_phone().as_deref(), Some("138****0000"));
    assert_eq!(account.masked_email().as_deref(), Some("d***@x.com"));
    assert_eq!(Account::default().masked_phone(), None);
    assert_eq!(Account::default().password_hash(), None);
}

#[test]
fn security_settings_store_only_hashes() {
    AccountTest::with(policy())
        .given(vec![registered()])
        .when(AccountCommand::ChangeLoginPassword {
            password_hash: "hash-2".into(),
        })
        .then_expect_events(vec![AccountEvent::LoginPasswordChanged {
            password_hash: "hash-2".into(),
        }]);
    AccountTest::with(policy())
        .given(vec![registered()])
        .when(AccountCommand::SetFundPassword {
            hash: "fund".into(),
        })
        .then_expect_events(vec![AccountEvent::FundPasswordSet {
            hash: "fund".into(),
        }]);
    AccountTest::with(policy())
        .given(vec![registered()])
        .when(AccountCommand::SetSecurityQuestion {
            question: " First pet? ".into(),
            answer_hash: "ans".into(),
        })
        .then_expect_events(vec![AccountEvent::SecurityQuestionSet {
            question: "First pet?".into(),
            answer_hash: "ans".into(),
        }]);
    let account = account_after(vec![
        registered(),
        AccountEvent::LoginPasswordChanged {
            password_hash: "hash-2".into(),
        },
    ]);
    assert_eq!(account.password_hash(), Some("hash-2"));
}

#[test]
fn a_security_question_is_required() {
    AccountTest::with(policy())
        .given(vec![registered()])
        .when(AccountCommand::SetSecurityQuestion {
            question: " ".into(),
            answer_hash: "ans".into(),
        })
        .then_expect_error(AccountError::Field(FieldError::rule(
            "question", "Required",
        )));
}

#[test]
fn contact_and_profile_changes_update_the_profile() {
    let email = Email::parse("new@x.com", Market::Eng).unwrap();
    let phone = Phone::parse("13900000000", Market::Zhh).unwrap();
    let nickname = Nickname::parse("Lucky", Market::Zhh).unwrap();
    let real_name = RealName::parse("李四", Market::Zhh, RealNameRule::Zhh2To4).unwrap();
    let changes = [
        (
            AccountCommand::ChangeEmail {
                email: email.clone(),
                old_contact_verified: false,
            },
            AccountEvent::EmailChanged {
                email: email.clone(),
            },
        ),
        (
            AccountCommand::ChangePhone {
                phone: phone.clone(),
                old_contact_verified: true,
            },
            AccountEvent::PhoneChanged {
                phone: phone.clone(),
            },
        ),
        (
            AccountCommand::SetNickname(nickname.clone()),
            AccountEvent::NicknameSet {
                nickname: nickname.clone(),
            },
        ),
        (
            AccountCommand::SetRealName(real_name.clone()),
            AccountEvent::RealNameSet {
                real_name: real_name.clone(),
            },
        ),
    ];
    let mut events = vec![registered()];
    for (command, event) in changes {
        AccountTest::with(policy())
            .given(vec![registered()])
            .when(command)
            .then_expect_events(vec![event.clone()]);
        events.push(event);
    }
    let profile = account_after(events).profile.unwrap();
    assert_eq!(profile.email, Some(email));
    assert_eq!(profile.phone, Some(phone));
    assert_eq!(profile.nickname, Some(nickname));
    assert_eq!(profile.real_name, Some(real_name));
}

#[test]
fn rebinding_a_bound_contact_needs_a_code_from_the_old_one() {
    let new_phone = Phone::parse("13900000000", Market::Zhh).unwrap();
    AccountTest::with(policy())
        .given(vec![registered()])
        .when(AccountCommand::ChangePhone {
            phone: new_phone.clone(),
            old_contact_verified: false,
        })
        .then_expect_error(AccountError::Field(FieldError::new(
            "old_uid",
            crate::Code(21),
            "Please enter the 4-digit verification code",
        )));
    AccountTest::with(policy())
        .given(vec![registered()])
        .when(AccountCommand::ChangePhone {
            phone: new_phone.clone(),
            old_contact_verified: true,
        })
        .then_expect_events(vec![AccountEvent::PhoneChanged { phone: new_phone }]);
    // The phone bound already: nothing to change, nothing to prove.
    AccountTest::with(policy())
        .given(vec![registered()])
        .when(AccountCommand::ChangePhone {
            phone: Phone::parse("13800000000", Market::Zhh).unwrap(),
            old_contact_verified: false,
        })
        .then_expect_events(vec![]);
    // A first e-mail has no old one.
    let email = Email::parse("new@x.com", Market::Eng).unwrap();
    AccountTest::with(policy())
        .given(vec![registered()])
        .when(AccountCommand::ChangeEmail {
            email: email.clone(),
            old_contact_verified: false,
        })
        .then_expect_events(vec![AccountEvent::EmailChanged { email }]);
}

#[test]
fn a_summary_is_at_most_200_characters() {
    AccountTest::with(policy())
        .given(vec![registered()])
        .when(AccountCommand::SetSummary("Here for the football.".into()))
        .then_expect_events(vec![AccountEvent::SummarySet {
            summary: "Here for the football.".into(),
        }]);
    AccountTest::with(policy())
        .given(vec![registered()])
        .when(AccountCommand::SetSummary("x".repeat(201)))
        .then_expect_error(AccountError::Field(FieldError::rule(
            "summary",
            "Should be less than 201 characters long.",
        )));
}

fn address() -> Address {
    Address {
        consignee: "Zhang San".into(),
        phone: "13800000000".into(),
        province: "Guangdong".into(),
        city: "Shenzhen".into(),
        district: "Nanshan".into(),
        address: "1 Keji Road".into(),
    }
}

#[test]
fn an_address_needs_every_part_within_100_characters() {
    AccountTest::with(policy())
        .given(vec![registered()])
        .when(AccountCommand::SetAddress(address()))
        .then_expect_events(vec![AccountEvent::AddressSet { address: address() }]);
    AccountTest::with(policy())
        .given(vec![registered()])
        .when(AccountCommand::SetAddress(Address {
            district: " ".into(),
            ..address()
        }))
        .then_expect_error(AccountError::Field(FieldError::rule(
            "district", "Required",
        )));
    AccountTest::with(policy())
        .given(vec![registered()])
        .when(AccountCommand::SetAddress(Address {
            address: "a".repeat(101),
            ..address()
        }))
        .then_expect_error(AccountError::Field(FieldError::rule(
            "address",
            "Should be less than 101 characters long.",
        )));
}

#[test]
fn field_errors_keep_their_code_and_field() {
    let error = AccountError::from(FieldError::rule("summary", "x"));
    assert_eq!(error.code().0, -10101);
    assert_eq!(error.field(), Some("summary"));
    assert_eq!(AccountError::LockedByStaff.field(), None);
}

#[test]
fn an_account_round_trips_through_its_snapshot_form() {
    let account = account_after(vec![
        registered(),
        failed(T0 + 1),
        AccountEvent::AddressSet { address: address() },
        AccountEvent::LockedByStaff { reason: "r".into() },
    ]);
    let json = serde_json::to_value(&account).unwrap();
    let back: Account = serde_json::from_value(json).unwrap();
    assert_eq!(back, account);
}

#[test]
fn events_round_trip_and_carry_versioned_names() {
    use cqrs_es::DomainEvent;
    let event = registered();
    assert_eq!(event.event_type(), "AccountRegistered");
    assert_eq!(event.event_version(), "1.0");
    let json = serde_json::to_value(&event).unwrap();
    assert!(!json.to_string().contains("abc123"));
    assert_eq!(json["Registered"]["profile"]["currency"], "CNY");
    assert_eq!(serde_json::from_value::<AccountEvent>(json).unwrap(), event);
}

fn with_email() -> AccountEvent {
    AccountEvent::EmailChanged {
        email: Email::parse("me@x.com", Market::Eng).unwrap(),
    }
}

#[test]
fn unbinding_a_contact_needs_a_code_from_it() {
    AccountTest::with(policy())
        .given(vec![registered(), with_email()])
        .when(AccountCommand::UnbindPhone {
            contact_verified: false,
        })
        .then_expect_error(AccountError::Field(FieldError::new(
            "uid",
            crate::Code(21),
            "Please enter the 4-digit verification code",
        )));
    AccountTest::with(policy())
        .given(vec![registered(), with_email()])
        .when(AccountCommand::UnbindPhone {
            contact_verified: true,
        })
        .then_expect_events(vec![AccountEvent::PhoneUnbound]);
    AccountTest::with(policy())
        .given(vec![registered(), with_email()])
        .when(AccountCommand::UnbindEmail {
            contact_verified: true,
        })
        .then_expect_events(vec![AccountEvent::EmailUnbound]);
    let account = account_after(vec![registered(), with_email(), AccountEvent::PhoneUnbound]);
    let profile = account.profile.as_ref().unwrap();
    assert_eq!(profile.phone, None);
    assert!(profile.email.is_some());
    assert_eq!(account.verification_channels(), vec!["email"]);
}

#[test]
fn the_only_bound_contact_stays_bound() {
    // Registered by phone, no e-mail: the phone is the last contact.
    AccountTest::with(policy())
        .given(vec![registered()])
        .when(AccountCommand::UnbindPhone {
            contact_verified: true,
        })
        .then_expect_error(AccountError::Field(FieldError::new(
            "mobile",
            crate::Code(-10106),
            "Bind another phone number or e-mail address before unbinding this one",
        )));
    AccountTest::with(policy())
        .given(vec![registered(), with_email(), AccountEvent::PhoneUnbound])
        .when(AccountCommand::UnbindEmail {
            contact_verified: true,
        })
        .then_expect_error(AccountError::Field(FieldError::new(
            "email",
            crate::Code(-10106),
            "Bind another phone number or e-mail address before unbinding this one",
        )));
}

#[test]
fn unbinding_needs_something_bound() {
    AccountTest::with(policy())
        .given(vec![registered()])
        .when(AccountCommand::UnbindEmail {
            contact_verified: true,
        })
        .then_expect_error(AccountError::Field(FieldError::new(
            "email",
            crate::Code(-10105),
            "There is no e-mail address bound to this account",
        )));
}

#[test]
fn a_birth_date_is_set_once() {
    let birth = BirthDate::parse("1990-05-20", today(), 18, 100).unwrap();
    AccountTest::with(policy())
        .given(vec![registered()])
        .when(AccountCommand::SetBirthDate(birth))
        .then_expect_events(vec![AccountEvent::BirthDateSet { birth_date: birth }]);
    let set = AccountEvent::BirthDateSet { birth_date: birth };
    let other = BirthDate::parse("1991-01-01", today(), 18, 100).unwrap();
    AccountTest::with(policy())
        .given(vec![registered(), set.clone()])
        .when(AccountCommand::SetBirthDate(other))
        .then_expect_error(AccountError::Field(FieldError::new(
            "birth_date",
            crate::Code(-10107),
            "The birth date is already set and cannot be changed",
        )));
    let profile = account_after(vec![registered(), set]).profile.unwrap();
    assert_eq!(profile.birth_date, Some(birth));
}
