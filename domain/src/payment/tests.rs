use rust_decimal_macros::dec;

use super::deposit::{NewOrder, Quote, Report, ReportStatus};
use super::withdrawal::{Destination, NewWithdrawal};
use super::*;
use crate::account::rules::Market;
use crate::Currency;

fn order(channel: Channel) -> NewOrder {
    NewOrder {
        order_id: "D1".into(),
        member_id: "m1".into(),
        currency: Currency::Cny,
        amount: dec!(100.00),
        channel,
        provider: "sandbox".into(),
        created_ms: 1_000,
        expires_ms: 1_000 + 30 * 60_000,
        quote: None,
    }
}

fn run(deposit: &mut Deposit, cmd: DepositCommand) -> Vec<DepositEvent> {
    let events = deposit.decide(&cmd).expect("decided");
    for e in events.clone() {
        cqrs_es::Aggregate::apply(deposit, e);
    }
    events
}

fn paid(tx: &str, amount: rust_decimal::Decimal, created: i64) -> DepositCommand {
    DepositCommand::Report(Report {
        provider_tx_id: tx.into(),
        amount,
        currency: "CNY".into(),
        status: ReportStatus::Paid,
        created,
        at_ms: created * 1000,
    })
}

#[test]
fn a_paid_report_repeated_pays_the_order_once_and_credits_once() {
    let mut d = Deposit::default();
    run(&mut d, DepositCommand::Create(order(Channel::Provider)));
    assert_eq!(run(&mut d, paid("T1", dec!(100.00), 10)).len(), 1);
    assert!(d.owes_credit());
    assert!(run(&mut d, paid("T1", dec!(100.00), 10)).is_empty());
    assert_eq!(
        run(&mut d, DepositCommand::MarkCredited { at_ms: 5 }).len(),
        1
    );
    assert!(run(&mut d, DepositCommand::MarkCredited { at_ms: 6 }).is_empty());
    assert!(!d.owes_credit());
    assert_eq!(d.status, DepositStatus::Credited);
}

#[test]
fn a_stale_failed_report_after_the_payment_changes_nothing() {
    let mut d = Deposit::default();
    run(&mut d, DepositCommand::Create(order(Channel::Provider)));
    run(&mut d, paid("T1", dec!(100.00), 20));
    let failed = DepositCommand::Report(Report {
        provider_tx_id: "T0".into(),
        amount: dec!(100.00),
        currency: "CNY".into(),
        status: ReportStatus::Failed,
        created: 10,
        at_ms: 30_000,
    });
    let events = run(&mut d, failed);
    assert!(matches!(
        events[..],
        [DepositEvent::DepositReportIgnored { .. }]
    ));
    assert_eq!(d.status, DepositStatus::Paid);
}

#[test]
fn a_wrong_amount_or_currency_is_flagged_not_paid() {
    let mut d = Deposit::default();
    run(&mut d, DepositCommand::Create(order(Channel::Provider)));
    run(&mut d, paid("T1", dec!(1000.00), 10));
    assert_eq!(d.status, DepositStatus::Flagged);
    assert!(!d.owes_credit());
    let mut e = Deposit::default();
    run(&mut e, DepositCommand::Create(order(Channel::Provider)));
    let usd = DepositCommand::Report(Report {
        provider_tx_id: "T2".into(),
        amount: dec!(100.00),
        currency: "USD".into(),
        status: ReportStatus::Paid,
        created: 10,
        at_ms: 1,
    });
    run(&mut e, usd);
    assert_eq!(e.status, DepositStatus::Flagged);
    // Finance refuses to credit a payment in another currency.
    assert!(e
        .decide(&DepositCommand::Review {
            staff_id: "s".into(),
            credit: true,
            reason: "ok".into(),
            at_ms: 2
        })
        .is_err());
}

#[test]
fn a_reversal_before_the_payment_closes_the_order_uncredited() {
    let mut d = Deposit::default();
    run(&mut d, DepositCommand::Create(order(Channel::Provider)));
    let reversed = DepositCommand::Report(Report {
        provider_tx_id: "T1".into(),
        amount: dec!(100.00),
        currency: "CNY".into(),
        status: ReportStatus::Reversed,
        created: 30,
        at_ms: 1,
    });
    run(&mut d, reversed);
    assert!(d.owes_reversal());
    run(
        &mut d,
        DepositCommand::MarkReversed {
            at_ms: 2,
            taken: false,
        },
    );
    run(&mut d, paid("T1", dec!(100.00), 20));
    assert_eq!(d.status, DepositStatus::Reversed);
    assert!(!d.owes_credit());
}

#[test]
fn a_usdt_transfer_pays_only_after_its_confirmations_at_the_quoted_rate() {
    let mut o = order(Channel::Usdt);
    o.quote = Some(Quote {
        chain: Chain::Trc20,
        address: "T".into(),
        rate: dec!(7.20),
        usdt_amount: dec!(13.888889),
        expires_ms: 1_000 + 15 * 60_000,
    });
    let mut d = Deposit::default();
    run(&mut d, DepositCommand::Create(o));
    let seen = |confirmations, at_ms| DepositCommand::ChainTransfer {
        tx_hash: "0xabc".into(),
        usdt_amount: dec!(13.888889),
        confirmations,
        required: 19,
        current_rate: dec!(7.50),
        quote_minutes: 15,
        at_ms,
    };
    run(&mut d, seen(1, 2_000));
    run(&mut d, seen(18, 3_000));
    assert!(!d.owes_credit());
    run(&mut d, seen(19, 4_000));
    assert!(d.owes_credit());
    assert_eq!(d.credit_amount, Some(dec!(100.00)));
}

#[test]
fn a_transfer_seen_after_the_quote_expired_is_requoted_at_the_rate_then() {
    let mut o = order(Channel::Usdt);
    o.quote = Some(Quote {
        chain: Chain::Erc20,
        address: "0x".into(),
        rate: dec!(7.20),
        usdt_amount: dec!(13.888889),
        expires_ms: 1_000,
    });
    let mut d = Deposit::default();
    run(&mut d, DepositCommand::Create(o));
    let events = run(
        &mut d,
        DepositCommand::ChainTransfer {
            tx_hash: "0xabc".into(),
            usdt_amount: dec!(10),
            confirmations: 64,
            required: 64,
            current_rate: dec!(7.50),
            quote_minutes: 15,
            at_ms: 5_000,
        },
    );
    assert!(events
        .iter()
        .any(|e| matches!(e, DepositEvent::DepositRequoted { rate, .. } if *rate == dec!(7.50))));
    assert_eq!(d.credit_amount, Some(dec!(75.00)));
}

#[test]
fn amount_limits_answer_20003_and_20004_with_the_spec_messages() {
    let limits = AmountLimits {
        min: dec!(50),
        max: dec!(1000),
    };
    let low = limits
        .check(dec!(10), Currency::Cny, LimitOf::Deposit)
        .unwrap_err();
    assert_eq!(
        (low.code, low.msg.as_str()),
        (20003, "Min deposit is 50.00")
    );
    let high = limits
        .check(dec!(5000), Currency::Cny, LimitOf::Withdraw)
        .unwrap_err();
    assert_eq!(
        (high.code, high.msg.as_str()),
        (20004, "Max withdraw is 1000.00")
    );
    assert!(limits
        .check(dec!(50), Currency::Cny, LimitOf::Deposit)
        .is_ok());
}

#[test]
fn card_numbers_follow_the_market_rules_and_show_masked() {
    assert!(parse_card_number("6222021234567890", Market::Zhh).is_ok());
    assert!(parse_card_number("0222021234567890", Market::Zhh).is_err());
    assert!(parse_card_number("622202123456789", Market::Zhh).is_err());
    assert!(parse_card_number("62220212345678901234", Market::Zhh).is_err());
    assert!(parse_card_number("0123456789", Market::Eng).is_ok());
    assert!(parse_card_number("1234567890123456789", Market::Eng).is_err());
    assert!(parse_card_number("12345abc90", Market::Tha).is_err());
    assert_eq!(mask_account("6222021234567890"), "***********7890");
}

#[test]
fn usdt_addresses_have_their_chain_shape() {
    assert!(Chain::Trc20.valid_address("TXYZabcdefghijkmnopqrstuvwxyz12345"));
    assert!(!Chain::Trc20.valid_address("0x52908400098527886E0F7030069857D2E4169EE7"));
    assert!(Chain::Erc20.valid_address("0x52908400098527886E0F7030069857D2E4169EE7"));
}

fn withdrawal() -> NewWithdrawal {
    NewWithdrawal {
        withdrawal_id: "W1".into(),
        member_id: "m1".into(),
        currency: Currency::Cny,
        amount: dec!(100.00),
        destination: Destination {
            kind: "card".into(),
            bank_name: "Bank".into(),
            masked: "***********7890".into(),
            holder: "Li".into(),
            account_id: "1".into(),
        },
        requested_ms: 1,
    }
}

#[test]
fn a_withdrawal_is_paid_only_after_approval_and_cancelled_only_while_requested() {
    let mut w = Withdrawal::default();
    let apply = |w: &mut Withdrawal, cmd| {
        let events = w.decide(&cmd)?;
        for e in events {
            cqrs_es::Aggregate::apply(w, e);
        }
        Ok::<_, WithdrawalError>(())
    };
    apply(&mut w, WithdrawalCommand::Request(withdrawal())).unwrap();
    let pay = WithdrawalCommand::MarkPaid {
        staff_id: "s".into(),
        payout_reference: "p".into(),
        at_ms: 2,
    };
    assert!(apply(&mut w, pay.clone()).is_err());
    assert_eq!(
        apply(
            &mut w,
            WithdrawalCommand::Cancel {
                allowed: false,
                at_ms: 2
            }
        ),
        Err(WithdrawalError::CancelNotAllowed)
    );
    apply(
        &mut w,
        WithdrawalCommand::Approve {
            staff_id: "s".into(),
            reason: "ok".into(),
            at_ms: 3,
        },
    )
    .unwrap();
    assert!(apply(
        &mut w,
        WithdrawalCommand::Cancel {
            allowed: true,
            at_ms: 4
        }
    )
    .is_err());
    apply(&mut w, pay.clone()).unwrap();
    assert_eq!(w.status, WithdrawalStatus::Paid);
    assert!(w.decide(&pay).unwrap().is_empty());
}
