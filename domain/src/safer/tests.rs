//! Safer gambling rules, one test per rule, as given / when / then.

use cqrs_es::Aggregate;
use rust_decimal::Decimal;
use rust_decimal_macros::dec;

use super::*;
use crate::Code;

/// Monday 2026-12-07 10:00 UTC.
const MONDAY: i64 = 1_796_637_600_000;
const HOUR: i64 = 3_600_000;
const DAY: i64 = 24 * HOUR;

fn services() -> SaferServices {
    SaferServices {
        calendar: Calendar::default(),
    }
}

fn when(state: &SaferGambling, command: SaferCommand) -> Result<Vec<SaferEvent>, SaferError> {
    state.decide(command, &services())
}

fn set(kind: LimitKind, period: Period, amount: Option<Decimal>, at_ms: i64) -> SaferCommand {
    SaferCommand::SetLimit {
        kind,
        period,
        amount,
        seed: [Decimal::ZERO; 3],
        at_ms,
    }
}

fn after(mut state: SaferGambling, command: SaferCommand) -> SaferGambling {
    for e in when(&state, command).expect("accepted") {
        state.apply(e);
    }
    state
}

fn stake(amount: Decimal, at_ms: i64) -> SaferCommand {
    SaferCommand::Stake {
        reference: format!("bet:{at_ms}"),
        amount,
        returns: Some(Returns::default()),
        at_ms,
    }
}

fn deposit(amount: Decimal, at_ms: i64) -> SaferCommand {
    SaferCommand::Deposit {
        reference: format!("dep:{at_ms}"),
        amount,
        at_ms,
    }
}

#[test]
fn the_calendar_starts_days_weeks_on_monday_and_months_in_the_market_zone() {
    let utc = Calendar::default();
    let starts = utc.starts(MONDAY);
    assert_eq!(starts.day, MONDAY - 10 * HOUR);
    assert_eq!(starts.week, MONDAY - 10 * HOUR);
    assert_eq!(starts.month, MONDAY - 10 * HOUR - 6 * DAY);
    // At UTC+8 it is already 18:00 on Monday; at 20:00 UTC Tuesday has begun.
    let east = Calendar::new(8 * 60);
    assert_eq!(east.starts(MONDAY).day, MONDAY - 18 * HOUR);
    assert_eq!(east.starts(MONDAY + 10 * HOUR).day, MONDAY + 6 * HOUR);
    assert_eq!(east.starts(MONDAY + 10 * HOUR).week, MONDAY - 18 * HOUR);
    // Sunday 23:00 local is still the week before.
    let sunday_late = MONDAY - 10 * HOUR - HOUR;
    assert_eq!(utc.starts(sunday_late).week, MONDAY - 10 * HOUR - 7 * DAY);
}

#[test]
fn months_are_added_by_the_calendar_with_the_day_clamped() {
    let utc = Calendar::default();
    // 2026-08-31 10:00 + 6 months = 2027-02-28 10:00.
    let aug31 = MONDAY - 98 * DAY;
    let feb28 = utc.add_months(aug31, 6);
    assert_eq!(utc.starts(feb28).month, utc.starts(feb28).day - 27 * DAY);
    assert_eq!(feb28 - aug31, 181 * DAY);
    assert_eq!(utc.add_months(MONDAY, 12) - MONDAY, 365 * DAY);
}

#[test]
fn a_first_limit_applies_at_once() {
    let state = after(
        SaferGambling::default(),
        set(LimitKind::Deposit, Period::Day, Some(dec!(100)), MONDAY),
    );
    let view = state.view(MONDAY, &Calendar::default(), &Returns::default());
    assert_eq!(view.len(), 1);
    assert_eq!(view[0].amount, dec!(100));
    assert_eq!(view[0].pending, None);
}

#[test]
fn a_lower_limit_applies_at_once() {
    let state = after(
        SaferGambling::default(),
        set(LimitKind::Stake, Period::Week, Some(dec!(100)), MONDAY),
    );
    let state = after(
        state,
        set(
            LimitKind::Stake,
            Period::Week,
            Some(dec!(50)),
            MONDAY + HOUR,
        ),
    );
    let view = state.view(MONDAY + HOUR, &Calendar::default(), &Returns::default());
    assert_eq!((view[0].amount, view[0].pending), (dec!(50), None));
}

#[test]
fn a_raise_applies_24_hours_later_and_is_pending_until_then() {
    let state = after(
        SaferGambling::default(),
        set(LimitKind::Deposit, Period::Day, Some(dec!(100)), MONDAY),
    );
    let state = after(
        state,
        set(
            LimitKind::Deposit,
            Period::Day,
            Some(dec!(500)),
            MONDAY + HOUR,
        ),
    );
    let calendar = Calendar::default();
    let before = state.view(MONDAY + 2 * HOUR, &calendar, &Returns::default());
    assert_eq!(before[0].amount, dec!(100));
    assert_eq!(
        before[0].pending,
        Some(Pending {
            amount: Some(dec!(500)),
            effective_at_ms: MONDAY + HOUR + COOLING_OFF_MS
        })
    );
    // Still the old limit one minute before the raise.
    assert_eq!(
        when(
            &state,
            deposit(dec!(150), MONDAY + HOUR + COOLING_OFF_MS - 60_000)
        )
        .unwrap_err()
        .code(),
        Code::DEPOSIT_LIMIT
    );
    let later = state.view(
        MONDAY + HOUR + COOLING_OFF_MS,
        &calendar,
        &Returns::default(),
    );
    assert_eq!((later[0].amount, later[0].pending), (dec!(500), None));
    assert!(when(&state, deposit(dec!(150), MONDAY + HOUR + COOLING_OFF_MS)).is_ok());
}

#[test]
fn a_removal_applies_24_hours_later() {
    let state = after(
        SaferGambling::default(),
        set(LimitKind::Stake, Period::Day, Some(dec!(10)), MONDAY),
    );
    let state = after(state, set(LimitKind::Stake, Period::Day, None, MONDAY));
    assert_eq!(
        when(&state, stake(dec!(20), MONDAY + HOUR))
            .unwrap_err()
            .code(),
        Code::STAKE_LIMIT
    );
    // Gone a day later: nothing is counted any more.
    assert_eq!(when(&state, stake(dec!(20), MONDAY + DAY)), Ok(vec![]));
    assert!(state
        .view(MONDAY + DAY, &Calendar::default(), &Returns::default())
        .is_empty());
}

#[test]
fn removing_a_limit_that_is_not_there_is_refused() {
    assert!(matches!(
        when(
            &SaferGambling::default(),
            set(LimitKind::Loss, Period::Month, None, MONDAY)
        ),
        Err(SaferError::NoSuchLimit { .. })
    ));
}

#[test]
fn a_negative_or_oversized_limit_is_refused() {
    for amount in [dec!(-1), dec!(1000000001), dec!(1.001)] {
        let refused = when(
            &SaferGambling::default(),
            set(LimitKind::Deposit, Period::Day, Some(amount), MONDAY),
        )
        .unwrap_err();
        assert_eq!(refused.code(), Code::BAD_PARAMETERS, "{amount}");
    }
}

#[test]
fn a_stake_passes_within_the_limit_and_is_refused_past_it() {
    let state = after(
        SaferGambling::default(),
        set(LimitKind::Stake, Period::Day, Some(dec!(100)), MONDAY),
    );
    let state = after(state, stake(dec!(60), MONDAY + 1));
    let state = after(state, stake(dec!(40), MONDAY + 2));
    let refused = when(&state, stake(dec!(0.01), MONDAY + 3)).unwrap_err();
    assert_eq!(refused.code(), Code::STAKE_LIMIT);
    assert!(matches!(refused, SaferError::StakeLimit { left, .. } if left == Decimal::ZERO));
    // The next day starts from nothing.
    assert!(when(&state, stake(dec!(100), MONDAY + DAY)).is_ok());
}

#[test]
fn the_week_and_month_count_across_days() {
    let state = after(
        SaferGambling::default(),
        set(LimitKind::Stake, Period::Week, Some(dec!(100)), MONDAY),
    );
    let state = after(state, stake(dec!(70), MONDAY));
    let state = after(state, stake(dec!(20), MONDAY + 2 * DAY));
    assert_eq!(
        when(&state, stake(dec!(20), MONDAY + 4 * DAY))
            .unwrap_err()
            .code(),
        Code::STAKE_LIMIT
    );
    // The next Monday is a new week.
    assert!(when(&state, stake(dec!(100), MONDAY + 7 * DAY)).is_ok());
}

#[test]
fn a_limit_set_later_starts_from_what_the_ledger_shows() {
    let state = after(
        SaferGambling::default(),
        SaferCommand::SetLimit {
            kind: LimitKind::Deposit,
            period: Period::Day,
            amount: Some(dec!(100)),
            seed: [dec!(80), dec!(80), dec!(300)],
            at_ms: MONDAY,
        },
    );
    assert_eq!(
        when(&state, deposit(dec!(30), MONDAY + 1))
            .unwrap_err()
            .code(),
        Code::DEPOSIT_LIMIT
    );
    assert!(when(&state, deposit(dec!(20), MONDAY + 1)).is_ok());
}

#[test]
fn a_loss_limit_counts_stakes_less_returns() {
    let state = after(
        SaferGambling::default(),
        set(LimitKind::Loss, Period::Day, Some(dec!(100)), MONDAY),
    );
    let state = after(state, stake(dec!(90), MONDAY + 1));
    // Without returns the check asks for them.
    assert_eq!(
        when(
            &state,
            SaferCommand::Stake {
                reference: "b".into(),
                amount: dec!(1),
                returns: None,
                at_ms: MONDAY + 2
            }
        ),
        Err(SaferError::NeedReturns)
    );
    let with_returns = |returned: Decimal, amount: Decimal| SaferCommand::Stake {
        reference: "b".into(),
        amount,
        returns: Some(Returns {
            day: returned,
            week: returned,
            month: returned,
        }),
        at_ms: MONDAY + 2,
    };
    assert_eq!(
        when(&state, with_returns(dec!(0), dec!(20)))
            .unwrap_err()
            .code(),
        Code::LOSS_LIMIT
    );
    // 90 staked, 50 back: 40 lost, 60 left.
    assert!(when(&state, with_returns(dec!(50), dec!(60))).is_ok());
    assert_eq!(
        when(&state, with_returns(dec!(50), dec!(61)))
            .unwrap_err()
            .code(),
        Code::LOSS_LIMIT
    );
    let view = state.view(
        MONDAY + 2,
        &Calendar::default(),
        &Returns {
            day: dec!(50),
            week: dec!(50),
            month: dec!(50),
        },
    );
    assert_eq!(view[0].used, dec!(40));
}

#[test]
fn members_without_limits_are_not_counted() {
    assert_eq!(
        when(&SaferGambling::default(), stake(dec!(1000), MONDAY)),
        Ok(vec![])
    );
    assert_eq!(
        when(&SaferGambling::default(), deposit(dec!(1000), MONDAY)),
        Ok(vec![])
    );
}

#[test]
fn a_failed_deposit_no_longer_counts() {
    let state = after(
        SaferGambling::default(),
        set(LimitKind::Deposit, Period::Day, Some(dec!(100)), MONDAY),
    );
    let state = after(state, deposit(dec!(100), MONDAY + 1));
    assert!(when(&state, deposit(dec!(1), MONDAY + 2)).is_err());
    let state = after(
        state,
        SaferCommand::DepositFailed {
            reference: "dep".into(),
            amount: dec!(100),
            placed_at_ms: MONDAY + 1,
            at_ms: MONDAY + 3,
        },
    );
    assert!(when(&state, deposit(dec!(100), MONDAY + 4)).is_ok());
}

#[test]
fn a_time_out_refuses_stakes_deposits_and_play_until_it_ends() {
    let state = after(
        SaferGambling::default(),
        SaferCommand::StartTimeOut {
            hours: 24,
            by: Actor::Member,
            at_ms: MONDAY,
        },
    );
    for command in [
        stake(dec!(1), MONDAY + HOUR),
        deposit(dec!(1), MONDAY + HOUR),
        SaferCommand::Play {
            at_ms: MONDAY + HOUR,
        },
    ] {
        assert_eq!(when(&state, command).unwrap_err().code(), Code::TIMED_OUT);
    }
    assert!(when(
        &state,
        SaferCommand::Play {
            at_ms: MONDAY + DAY
        }
    )
    .is_ok());
}

#[test]
fn a_time_out_is_24_hours_to_6_weeks_and_cannot_be_shortened() {
    let state = SaferGambling::default();
    for hours in [23, 1009] {
        let refused = when(
            &state,
            SaferCommand::StartTimeOut {
                hours,
                by: Actor::Member,
                at_ms: MONDAY,
            },
        );
        assert!(matches!(refused, Err(SaferError::Invalid(_))), "{hours}");
    }
    let state = after(
        state,
        SaferCommand::StartTimeOut {
            hours: 168,
            by: Actor::Member,
            at_ms: MONDAY,
        },
    );
    assert!(matches!(
        when(
            &state,
            SaferCommand::StartTimeOut {
                hours: 24,
                by: Actor::Member,
                at_ms: MONDAY + HOUR
            }
        ),
        Err(SaferError::CannotShorten { .. })
    ));
    // Lengthening is fine, by the member or by staff.
    let state = after(
        state,
        SaferCommand::StartTimeOut {
            hours: 336,
            by: Actor::Staff {
                name: "support".into(),
                reason: "asked by phone".into(),
            },
            at_ms: MONDAY + HOUR,
        },
    );
    assert_eq!(state.timeout_until_ms, MONDAY + HOUR + 336 * HOUR);
}

#[test]
fn a_self_exclusion_cannot_be_shortened_or_lifted_before_its_end() {
    let state = after(
        SaferGambling::default(),
        SaferCommand::SelfExclude {
            months: 12,
            at_ms: MONDAY,
        },
    );
    let until = state.excluded_until_ms;
    assert_eq!(until, MONDAY + 365 * DAY);
    assert!(matches!(
        when(
            &state,
            SaferCommand::SelfExclude {
                months: 6,
                at_ms: MONDAY + DAY
            }
        ),
        Err(SaferError::CannotShorten { .. })
    ));
    assert_eq!(
        when(&state, stake(dec!(1), until - 1)).unwrap_err().code(),
        Code::SELF_EXCLUDED
    );
    assert!(when(&state, stake(dec!(1), until)).is_ok());
    // A time-out on top changes nothing about the exclusion's code.
    let state = after(
        state,
        SaferCommand::StartTimeOut {
            hours: 24,
            by: Actor::Member,
            at_ms: MONDAY,
        },
    );
    assert_eq!(
        when(
            &state,
            SaferCommand::Play {
                at_ms: MONDAY + HOUR
            }
        )
        .unwrap_err()
        .code(),
        Code::SELF_EXCLUDED
    );
}

#[test]
fn a_self_exclusion_is_6_months_to_5_years() {
    for months in [5, 61] {
        assert!(matches!(
            when(
                &SaferGambling::default(),
                SaferCommand::SelfExclude {
                    months,
                    at_ms: MONDAY
                }
            ),
            Err(SaferError::Invalid(_))
        ));
    }
}

#[test]
fn the_reality_check_takes_the_spec_intervals_only() {
    let state = after(
        SaferGambling::default(),
        SaferCommand::SetRealityCheck {
            minutes: 30,
            at_ms: MONDAY,
        },
    );
    assert_eq!(state.reality_check_minutes, 30);
    assert!(matches!(
        when(
            &state,
            SaferCommand::SetRealityCheck {
                minutes: 45,
                at_ms: MONDAY
            }
        ),
        Err(SaferError::Invalid(_))
    ));
    let off = after(
        state,
        SaferCommand::SetRealityCheck {
            minutes: 0,
            at_ms: MONDAY,
        },
    );
    assert_eq!(off.reality_check_minutes, 0);
}

#[test]
fn asking_again_for_the_limit_in_force_drops_a_pending_raise() {
    let state = after(
        SaferGambling::default(),
        set(LimitKind::Deposit, Period::Month, Some(dec!(100)), MONDAY),
    );
    assert!(matches!(
        when(
            &state,
            set(LimitKind::Deposit, Period::Month, Some(dec!(100)), MONDAY)
        ),
        Err(SaferError::Unchanged { .. })
    ));
    let state = after(
        state,
        set(LimitKind::Deposit, Period::Month, Some(dec!(900)), MONDAY),
    );
    let state = after(
        state,
        set(
            LimitKind::Deposit,
            Period::Month,
            Some(dec!(100)),
            MONDAY + 1,
        ),
    );
    let view = state.view(MONDAY + DAY + 1, &Calendar::default(), &Returns::default());
    assert_eq!((view[0].amount, view[0].pending), (dec!(100), None));
}
