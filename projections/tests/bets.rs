//! The bet history read model, fed by the runner from the real event store:
//! cash-outs, auto cash-out rules and counter offers show as the contract
//! says, the read model equals each bet's events folded again, and the
//! settlement projection keeps working around cashed-out bets.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;
use std::time::Duration;

use domain::bet::{AcceptMode, Bet, BetCommand, ExpressBonus, ValidBet};
use domain::result::SelectionOutcome::Won;
use domain::Currency;
use projections::bets::{self, BetHistoryProjection};
use projections::settlement::{self, SettlementProjection};
use projections::{Backend, Projection, Runner};
use rust_decimal::Decimal;
use rust_decimal_macros::dec;
use serde_json::{json, Value};
use sqlx::Row;
use store::db::testing;
use store::{CommandMetrics, Db, Framework, RetryPolicy, StoreKind, StoreOptions};

const PATIENCE: Duration = Duration::from_secs(20);
const AT: i64 = 1_700_000_123_456;

fn runner(db: &Db) -> Runner {
    let backend = match db.kind() {
        StoreKind::Postgres => Backend::Postgres,
        StoreKind::Sqlite => Backend::Sqlite,
    };
    let projections: Vec<Arc<dyn Projection>> = vec![
        Arc::new(BetHistoryProjection),
        Arc::new(SettlementProjection),
    ];
    Runner::new(db.any.clone(), backend, projections)
}

fn framework(db: &Db) -> Framework<Bet> {
    Framework::new(
        db,
        StoreOptions::default(),
        (),
        RetryPolicy::default(),
        CommandMetrics::default(),
        None,
    )
}

/// A bet of `amount` on events `first`, `first + 1`, ... at `prices`.
fn valid(mode: AcceptMode, amount: Decimal, first: u64, prices: &[Decimal]) -> ValidBet {
    domain::bet::fixtures::straight_bet(mode, amount, first, prices)
}

async fn run(bets: &Framework<Bet>, bet_id: &str, command: BetCommand) {
    bets.execute(bet_id, command, HashMap::new())
        .await
        .unwrap_or_else(|e| panic!("{bet_id}: {e}"));
}

fn place(bet_id: &str, bet: ValidBet) -> BetCommand {
    BetCommand::Place {
        bet_id: bet_id.into(),
        member_id: "m1".into(),
        currency: Currency::Cny,
        request_id: format!("r{bet_id}"),
        bet,
        express_bonus: ExpressBonus::None,
        at_ms: AT,
    }
}

/// A cash-out quoted on the whole stake of a 10.00 bet.
fn cash_out(request_id: &str, current: Decimal, partial: Option<Decimal>) -> BetCommand {
    BetCommand::CashOut {
        request_id: request_id.into(),
        quoted_stake: dec!(10),
        current_amount: current,
        client_price: current,
        partial,
        by_rule: false,
        at_ms: AT + 5_000,
    }
}

fn settle(version: u64, outcomes: &[(u64, domain::result::SelectionOutcome)]) -> BetCommand {
    BetCommand::Settle {
        result_version: version,
        outcomes: outcomes.iter().copied().collect(),
        sp_prices: BTreeMap::new(),
        at_ms: AT + 9_000,
    }
}

async fn records(db: &Db) -> BTreeMap<String, Value> {
    bets::all(&db.any)
        .await
        .unwrap()
        .into_iter()
        .map(|(id, text)| (id, serde_json::from_str(&text).unwrap()))
        .collect()
}

async fn totals(db: &Db) -> bets::Totals {
    let mut conn = db.any.acquire().await.unwrap();
    bets::totals(&mut conn).await.unwrap()
}

/// What `bet_totals` should hold: the records summed by currency and status.
fn totals_of(records: &BTreeMap<String, Value>) -> bets::Totals {
    let amount =
        |v: &Value| -> Decimal { v.as_str().map_or(Decimal::ZERO, |s| s.parse().unwrap()) };
    let mut all = bets::Totals::new();
    for record in records.values() {
        let line = all
            .entry((
                record["currency"].as_str().unwrap().to_string(),
                record["outcome"].as_i64().unwrap(),
            ))
            .or_default();
        line.bets += 1;
        line.staked += amount(&record["amount"]);
        line.paid += amount(&record["payout"]);
        line.possible_win += amount(&record["possible_win"]);
    }
    all
}

/// The bet's record folded again from its stored events.
async fn replayed(db: &Db, bet_id: &str) -> Value {
    let rows = sqlx::query(
        "SELECT CAST(payload AS TEXT) AS payload FROM events WHERE aggregate_type = 'Bet' AND aggregate_id = $1 ORDER BY sequence",
    )
    .bind(bet_id)
    .fetch_all(&db.any)
    .await
    .unwrap();
    let events: Vec<domain::bet::BetEvent> = rows
        .iter()
        .map(|r| serde_json::from_str(&r.get::<String, _>("payload")).unwrap())
        .collect();
    let (_, mut record) = bets::placed_record(bet_id, &events[0]).unwrap();
    for event in &events[1..] {
        bets::fold(&mut record, event);
    }
    record.to_value()
}

store::on_both_stores!(the_bet_history_shows_cash_outs_rules_and_counter_offers);

async fn the_bet_history_shows_cash_outs_rules_and_counter_offers(kind: StoreKind) {
    let db = testing::fresh(kind).await;
    let bets = framework(&db);
    let runner = runner(&db);
    let express = |first| valid(AcceptMode::NoChanges, dec!(10), first, &[dec!(2), dec!(3)]);

    // 1000001: half cashed out, a rule set, later settled on the rest.
    run(&bets, "1000001", place("1000001", express(1))).await;
    run(
        &bets,
        "1000001",
        cash_out("c1", dec!(8.1), Some(dec!(4.05))),
    )
    .await;
    run(
        &bets,
        "1000001",
        BetCommand::SetAutoCashout {
            min_amount: dec!(10),
            partial_amount: Some(dec!(2)),
            current_amount: dec!(4.1),
            possible_win: dec!(30),
            at_ms: AT + 6_000,
        },
    )
    .await;
    // 1000002: a super bet, countered, accepted on the offer.
    let held = valid(AcceptMode::SuperBet, dec!(100), 11, &[dec!(2)]);
    run(&bets, "1000002", place("1000002", held)).await;
    run(
        &bets,
        "1000002",
        BetCommand::OfferCounter {
            staff_id: "s1".into(),
            amount: Some(dec!(50)),
            price: Some(dec!(2.1)),
            reason: "over the limit".into(),
            at_ms: AT + 100,
        },
    )
    .await;
    // 1000003: fully cashed out.
    run(&bets, "1000003", place("1000003", express(21))).await;
    run(&bets, "1000003", cash_out("c1", dec!(8.1), None)).await;

    runner.settle(bets::NAME, PATIENCE).await.unwrap();
    let now = records(&db).await;
    let first = &now["1000001"];
    assert_eq!(first["outcome"], 0);
    assert_eq!(first["cash_out"], true);
    assert_eq!(first["cashout_amount"], "4.05");
    assert_eq!(first["remaining_stake"], "5.00");
    assert_eq!(first["possible_win"], "30.00");
    assert_eq!(
        first["auto_cashout"],
        json!({"MinAmount": "10.00", "PartialAmount": "2.00"})
    );
    let second = &now["1000002"];
    assert_eq!(second["outcome"], -5);
    assert_eq!(second["super_bet_status"], 0);
    assert_eq!(
        second["counter_offer"],
        json!({"amount": "50.00", "price": 2.1, "reason": "over the limit", "at": AT + 100})
    );
    let third = &now["1000003"];
    assert_eq!(third["outcome"], 5);
    assert_eq!(third["payout"], "8.10");
    assert_eq!(third["cashout_amount"], "8.10");
    assert_eq!(third["remaining_stake"], "0.00");

    // The member accepts; bets 1 and 3 get their results.
    run(
        &bets,
        "1000002",
        BetCommand::AnswerCounter {
            accept: true,
            at_ms: AT + 200,
        },
    )
    .await;
    run(&bets, "1000001", settle(1, &[(1, Won), (2, Won)])).await;
    run(&bets, "1000003", settle(1, &[(21, Won), (22, Won)])).await;
    runner.settle(bets::NAME, PATIENCE).await.unwrap();
    let now = records(&db).await;
    let first = &now["1000001"];
    assert_eq!(first["outcome"], 3);
    assert_eq!(first["payout"], "30.00");
    assert_eq!(first["cashout_amount"], "4.05");
    assert_eq!(first["auto_cashout"], Value::Null);
    let second = &now["1000002"];
    assert_eq!(second["outcome"], 0);
    assert_eq!(second["super_bet_status"], 1);
    assert_eq!(second["amount"], "50.00");
    assert_eq!(second["k"], "2.1");
    assert_eq!(second["possible_win"], "105.00");
    let amount: String = sqlx::query_scalar("SELECT amount FROM bets WHERE bet_id = '1000002'")
        .fetch_one(&db.any)
        .await
        .unwrap();
    assert_eq!(amount, "50.00");
    let third = &now["1000003"];
    assert_eq!(
        (third["outcome"].clone(), third["payout"].clone()),
        (json!(5), json!("8.10"))
    );

    // The read model is the events folded again, bet by bet.
    for (bet_id, record) in &now {
        assert_eq!(&replayed(&db, bet_id).await, record, "{bet_id}");
    }
    // The totals by currency and status are the bet table's, kept batch
    // by batch; a rebuild gives the same.
    let expected = totals_of(&now);
    assert_eq!(expected.len(), 3, "{expected:?}");
    assert_eq!(totals(&db).await, expected);
    runner.rebuild(bets::NAME, &|_, _| {}).await.unwrap();
    assert_eq!(records(&db).await, now);
    assert_eq!(totals(&db).await, expected);
    // Bets from before the table existed are counted once, at a start.
    sqlx::query("DELETE FROM bet_totals")
        .execute(&db.any)
        .await
        .unwrap();
    assert!(bets::seed_totals(&db.any).await.unwrap());
    assert_eq!(totals(&db).await, expected);
    assert!(!bets::seed_totals(&db.any).await.unwrap());
    assert_eq!(totals(&db).await, expected);

    // The settlement projection reads every new event and still queues
    // the bets' tasks (a fully cashed-out bet's task settles nothing).
    runner.settle(settlement::NAME, PATIENCE).await.unwrap();
    assert_eq!(settlement::legs_of(&db.any, "1000003").await.unwrap(), 2);
    assert_eq!(settlement::legs_of(&db.any, "1000002").await.unwrap(), 1);
}
