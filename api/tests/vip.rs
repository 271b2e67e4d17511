//! VIP levels, valid turnover, rewards, decay and the projection (issue 11),
//! on both stores. Deposits and casino rounds are synthetic events of the
//! payments and casino issues' contracts (`DepositCredited`,
//! `CasinoRoundClosed`), appended to the store as those issues will; bets
//! are Bet events as the sportsbook records them.

mod common;

use std::time::Duration;

use api::app::AppState;
use commands::engagement::vip::VipService;
use common::{member, start_with, Server};
use domain::bet::{AcceptMode, BetEvent, BetStatus, BetType, ExpressBonus, ValidBet};
use domain::vip::{RewardKind, VipEvent};
use domain::wallet::{WalletEvent, WalletId};
use domain::Currency;
use rust_decimal::Decimal;
use rust_decimal_macros::dec;
use serde_json::{json, Value};
use store::{CommandMetrics, StoreKind, StoreOptions};

store::on_both_stores!(
    level_2_is_reached_exactly_at_both_thresholds_in_each_market_and_ranks_within_it,
    valid_turnover_of_won_lost_returned_cashed_out_and_resettled_bets,
    casino_turnover_counts_per_product_once_per_round,
    each_reward_is_paid_once_when_the_job_runs_twice_concurrently,
    honour_decays_one_level_after_a_season_except_the_first,
    a_rebuild_of_the_vip_projection_equals_the_live_one,
    vipsystem_calls_show_the_level_and_pay_the_upgrade_gift_once,
);

const DAY: i64 = 86_400_000;
/// 2026-12-01T12:00:00Z
const DEC_1_NOON: i64 = 1_796_126_400_000;

async fn server_now(kind: StoreKind, season_ends: &[&str]) -> Server {
    let mut config = common::config(true);
    config.feed.tick_ms = 3_600_000;
    config.vip.job_every_ms = 3_600_000;
    config.vip.season_ends = season_ends.iter().map(|s| s.to_string()).collect();
    start_with(kind, config).await
}

async fn server(kind: StoreKind, season_ends: &[&str]) -> Server {
    let server = server_now(kind, season_ends).await;
    // Move the clock to 2026-12-01 12:00 UTC: yesterday is 2026-11-30,
    // the previous month 2026-11.
    let now = server.running.state.clock.now_ms();
    server.clock.advance(DEC_1_NOON - now);
    server
}

async fn append(
    state: &AppState,
    aggregate_type: &str,
    id: &str,
    sequence: i64,
    event_type: &str,
    payload: Value,
) {
    let sql = match state.db.kind() {
        StoreKind::Postgres => "INSERT INTO events (aggregate_type, aggregate_id, sequence, event_type, event_version, payload, metadata) VALUES ($1, $2, $3, $4, '1.0', $5::json, '{}'::json)",
        StoreKind::Sqlite => "INSERT INTO events (aggregate_type, aggregate_id, sequence, event_type, event_version, payload, metadata) VALUES ($1, $2, $3, $4, '1.0', $5, '{}')",
    };
    sqlx::query(sql)
        .bind(aggregate_type)
        .bind(id)
        .bind(sequence)
        .bind(event_type)
        .bind(payload.to_string())
        .execute(&state.db.any)
        .await
        .unwrap();
}

async fn settle(state: &AppState) {
    state
        .runner
        .settle(projections::vip::NAME, Duration::from_secs(10))
        .await
        .unwrap();
}

async fn deposit(
    state: &AppState,
    member: &str,
    currency: &str,
    amount: &str,
    order: &str,
    credited_at: Value,
) {
    append(
        state,
        "Deposit",
        order,
        1,
        "DepositCredited",
        json!({"DepositCredited": {"member_id": member, "currency": currency, "amount": amount,
            "order_id": order, "credited_at": credited_at}}),
    )
    .await;
}

#[allow(clippy::too_many_arguments)]
async fn round(
    state: &AppState,
    member: &str,
    currency: &str,
    product: &str,
    id: &str,
    seq: i64,
    stake: &str,
    payout: &str,
    closed_ms: i64,
) {
    append(
        state,
        "CasinoRound",
        id,
        seq,
        "CasinoRoundClosed",
        json!({"CasinoRoundClosed": {"member_id": member, "currency": currency, "product": product,
            "provider": "demo", "game_id": "g1", "round": id, "stake": stake, "payout": payout,
            "closed_at": closed_ms / 1000}}),
    )
    .await;
}

fn valid_bet(stake: Decimal, odds: Decimal) -> ValidBet {
    ValidBet {
        bet_type: BetType::Single,
        mode: AcceptMode::Any,
        each_way: false,
        super_bet: false,
        better_odds: false,
        bonus_id: None,
        sys_bet: None,
        unit_stake: stake,
        stake,
        legs: vec![],
        combinations: vec![vec![0]],
        odds: Some(odds),
        possible_win: Some(stake * odds),
    }
}

/// A bet's events, appended in order: placed, then `rest`.
async fn bet(
    state: &AppState,
    member: &str,
    bet_id: &str,
    stake: Decimal,
    odds: Decimal,
    rest: Vec<BetEvent>,
) {
    let placed = BetEvent::BetPlaced {
        bet_id: bet_id.into(),
        member_id: member.into(),
        currency: Currency::Cny,
        request_id: format!("r{bet_id}"),
        bet: valid_bet(stake, odds),
        express_bonus: ExpressBonus::default(),
        status: BetStatus::Unsettled,
        date_time: 0,
        at_ms: 0,
        cash_out: Some(true),
    };
    for (seq, event) in (1..).zip(std::iter::once(placed).chain(rest)) {
        let kind = cqrs_es::DomainEvent::event_type(&event);
        append(
            state,
            "Bet",
            bet_id,
            seq,
            &kind,
            serde_json::to_value(&event).unwrap(),
        )
        .await;
    }
}

fn settled(member: &str, status: BetStatus, payout: Decimal, at_ms: i64) -> BetEvent {
    BetEvent::BetSettled {
        member_id: member.into(),
        currency: Currency::Cny,
        status,
        payout,
        bonus: Decimal::ZERO,
        result_version: 1,
        outcomes: Default::default(),
        sp_prices: Default::default(),
        at_ms,
    }
}

fn resettled(
    member: &str,
    status: BetStatus,
    payout: Decimal,
    previous: Decimal,
    version: u64,
    at_ms: i64,
) -> BetEvent {
    BetEvent::BetResettled {
        member_id: member.into(),
        currency: Currency::Cny,
        previous_payout: previous,
        status,
        payout,
        bonus: Decimal::ZERO,
        result_version: version,
        outcomes: Default::default(),
        sp_prices: Default::default(),
        at_ms,
    }
}

fn cashed_out(
    member: &str,
    amount: Decimal,
    part: Decimal,
    remaining: Decimal,
    at_ms: i64,
) -> BetEvent {
    BetEvent::BetCashedOut {
        member_id: member.into(),
        currency: Currency::Cny,
        request_id: "c1".into(),
        number: 1,
        amount,
        stake_part: part,
        remaining_stake: remaining,
        possible_win: None,
        full: remaining.is_zero(),
        by_rule: false,
        at_ms,
    }
}

async fn row(state: &AppState, member: &str) -> projections::vip::VipMember {
    projections::vip::member(&state.db.any, member)
        .await
        .unwrap()
        .expect("a vip row")
}

async fn level_2_is_reached_exactly_at_both_thresholds_in_each_market_and_ranks_within_it(
    kind: StoreKind,
) {
    let server = server(kind, &[]).await;
    let state = &server.running.state;
    let now = state.clock.now_ms();
    // zhh (a registered CNY member): level 2 needs 38 deposited and 3,000 valid turnover.
    let zhh = state
        .accounts
        .ensure_member("vipzhh", "secret123", Currency::Cny)
        .await
        .unwrap();
    deposit(
        state,
        &zhh,
        "CNY",
        "38.00",
        "o-z1",
        json!("2026-12-01T10:00:00Z"),
    )
    .await;
    round(state, &zhh, "CNY", "pg", "z-r1", 1, "2999.99", "0", now).await;
    settle(state).await;
    let r = row(state, &zhh).await;
    assert_eq!(
        (r.market.as_str(), r.level, r.money, r.bets),
        ("zhh", 1, dec!(38.00), dec!(2999.99))
    );
    round(state, &zhh, "CNY", "pg", "z-r2", 1, "0.01", "0", now).await;
    settle(state).await;
    assert_eq!(
        row(state, &zhh).await.level,
        2,
        "exactly 3,000.00 reaches level 2"
    );
    // eng (USD): 150 / 15,000; the turnover first, the deposit last.
    let eng = "eng-member-1";
    round(state, eng, "USD", "ag", "e-r1", 1, "15000", "30000", now).await;
    deposit(state, eng, "USD", "149.99", "o-e1", json!(now / 1000)).await;
    settle(state).await;
    let r = row(state, eng).await;
    assert_eq!(
        (r.market.as_str(), r.level),
        ("eng", 1),
        "149.99 is short of 150"
    );
    deposit(state, eng, "USD", "0.01", "o-e2", json!(now)).await;
    settle(state).await;
    assert_eq!(row(state, eng).await.level, 2);
    // Rank within the market: a second zhh member below comes second; the
    // eng member is first of its own market.
    let low = state
        .accounts
        .ensure_member("vipzhh2", "secret123", Currency::Cny)
        .await
        .unwrap();
    round(state, &low, "CNY", "pg", "z-r3", 1, "10", "0", now).await;
    settle(state).await;
    let pool = &state.db.any;
    assert_eq!(
        projections::vip::rank(pool, &row(state, &zhh).await)
            .await
            .unwrap(),
        1
    );
    assert_eq!(
        projections::vip::rank(pool, &row(state, &low).await)
            .await
            .unwrap(),
        2
    );
    assert_eq!(
        projections::vip::rank(pool, &row(state, eng).await)
            .await
            .unwrap(),
        1
    );
    // The Vip aggregate records each level reached once.
    for member in [zhh.as_str(), eng] {
        state.vip.promote_all().await.unwrap();
        state.vip.promote_all().await.unwrap();
        let events = state.vip.events(member).await.unwrap();
        let reached: Vec<u8> = events
            .iter()
            .filter_map(|e| match e {
                VipEvent::VipLevelReached { level, .. } => Some(*level),
                _ => None,
            })
            .collect();
        assert_eq!(reached, vec![2], "{member}");
    }
    server.stop().await;
}

async fn valid_turnover_of_won_lost_returned_cashed_out_and_resettled_bets(kind: StoreKind) {
    let server = server(kind, &[]).await;
    let state = &server.running.state;
    let m = "turnover-member";
    let at = state.clock.now_ms() - DAY;
    // Won at 2.00: |200 - 100| = 100.
    bet(
        state,
        m,
        "b1",
        dec!(100),
        dec!(2.00),
        vec![settled(m, BetStatus::Won, dec!(200), at)],
    )
    .await;
    // Lost at 3.00: |0 - 100| = 100.
    bet(
        state,
        m,
        "b2",
        dec!(100),
        dec!(3.00),
        vec![settled(m, BetStatus::Lost, dec!(0), at)],
    )
    .await;
    // Returned: nothing.
    bet(
        state,
        m,
        "b3",
        dec!(100),
        dec!(3.00),
        vec![settled(m, BetStatus::Returned, dec!(100), at)],
    )
    .await;
    // Won at 1.40 (below 1.50): nothing.
    bet(
        state,
        m,
        "b4",
        dec!(100),
        dec!(1.40),
        vec![settled(m, BetStatus::Won, dec!(140), at)],
    )
    .await;
    // 40 of 100 cashed out for 70 (|70 - 40| = 30), the other 60 won at
    // 3.00 (|180 - 60| capped at 60): 90.
    bet(
        state,
        m,
        "b5",
        dec!(100),
        dec!(3.00),
        vec![
            cashed_out(m, dec!(70), dec!(40), dec!(60), at),
            settled(m, BetStatus::Won, dec!(180), at),
        ],
    )
    .await;
    // Won at 1.60 (60).
    bet(
        state,
        m,
        "b6",
        dec!(100),
        dec!(1.60),
        vec![settled(m, BetStatus::Won, dec!(160), at)],
    )
    .await;
    settle(state).await;
    assert_eq!(
        row(state, m).await.bets,
        dec!(350),
        "100 + 100 + 0 + 0 + 90 + 60"
    );
    // b6 corrected to lost: counts 100 (not 60 + 100).
    append(
        state,
        "Bet",
        "b6",
        3,
        "BetResettled",
        serde_json::to_value(resettled(m, BetStatus::Lost, dec!(0), dec!(160), 2, at)).unwrap(),
    )
    .await;
    settle(state).await;
    assert_eq!(row(state, m).await.bets, dec!(390), "b6 now 100");
    // Corrected again to void: counts nothing.
    append(
        state,
        "Bet",
        "b6",
        4,
        "BetResettled",
        serde_json::to_value(resettled(m, BetStatus::Returned, dec!(100), dec!(0), 3, at)).unwrap(),
    )
    .await;
    settle(state).await;
    let r = row(state, m).await;
    assert_eq!(r.bets, dec!(290));
    assert_eq!(r.turnover_total, dec!(290));
    let daily = projections::vip::daily(&state.db.any, m, "2026-11-30")
        .await
        .unwrap();
    assert_eq!(daily.get(&domain::vip::Product::Sport), Some(&dec!(290)));
    server.stop().await;
}

async fn casino_turnover_counts_per_product_once_per_round(kind: StoreKind) {
    let server = server(kind, &[]).await;
    let state = &server.running.state;
    let m = "casino-member";
    let at = state.clock.now_ms() - DAY;
    round(state, m, "CNY", "ag", "c1", 1, "50", "0", at).await; // 50
    round(state, m, "CNY", "pg", "c2", 1, "20", "25", at).await; // 5
    round(state, m, "CNY", "pg", "c3", 1, "10", "100", at).await; // 10 (capped)
                                                                  // The same round closed again with a corrected payout: the difference only.
    round(state, m, "CNY", "ag", "c1", 2, "50", "40", at).await; // 10 instead of 50
    settle(state).await;
    let daily = projections::vip::daily(&state.db.any, m, "2026-11-30")
        .await
        .unwrap();
    assert_eq!(daily.get(&domain::vip::Product::Ag), Some(&dec!(10)));
    assert_eq!(daily.get(&domain::vip::Product::Pg), Some(&dec!(15)));
    assert_eq!(row(state, m).await.bets, dec!(25));
    // M currency: 0.01 a unit of valid turnover.
    assert_eq!(row(state, m).await.points_earned, dec!(0.25));
    server.stop().await;
}

fn credits(events: &[WalletEvent], reference: &str) -> Vec<Decimal> {
    events
        .iter()
        .filter_map(|e| match e {
            WalletEvent::Credited {
                reference: r,
                amount,
                ..
            } if r == reference => Some(*amount),
            _ => None,
        })
        .collect()
}

async fn each_reward_is_paid_once_when_the_job_runs_twice_concurrently(kind: StoreKind) {
    let server = server(kind, &[]).await;
    let state = &server.running.state;
    let m = state
        .accounts
        .ensure_member("viprich", "secret123", Currency::Cny)
        .await
        .unwrap();
    let yesterday = state.clock.now_ms() - DAY; // 2026-11-30: yesterday and last month
    deposit(state, &m, "CNY", "58", "o-r1", json!(yesterday / 1000)).await;
    // Sport 5,000 (50 bets of 100 lost at 2.00), ag 1,000.
    for i in 0..50 {
        bet(
            state,
            &m,
            &format!("rb{i}"),
            dec!(100),
            dec!(2.00),
            vec![settled(&m, BetStatus::Lost, dec!(0), yesterday)],
        )
        .await;
    }
    round(state, &m, "CNY", "ag", "rr1", 1, "1000", "0", yesterday).await;
    settle(state).await;
    assert_eq!(
        row(state, &m).await.level,
        3,
        "58 / 6,000 is level 3 in zhh"
    );

    // A second service on the same store: another process (own cache, own locks).
    let other = VipService::new(
        &state.db,
        StoreOptions {
            snapshot_every: None,
            cache_capacity: 1000,
            trust_cache: false,
        },
        Default::default(),
        CommandMetrics::default(),
        None,
        state.wallets.clone(),
        state.clock.clone(),
        state.vip.tables().clone(),
    );
    let (a, b) = tokio::join!(state.vip.pass(), other.pass());
    let (a, b) = (a.unwrap(), b.unwrap());
    assert!(a.rebates + b.rebates >= 2, "{a:?} {b:?}");
    let (x, y) = tokio::join!(state.vip.claim_gifts(&m, None), other.claim_gifts(&m, None));
    let gifts: Vec<_> = x.unwrap().into_iter().chain(y.unwrap()).collect();
    assert!(gifts.iter().any(|p| !p.duplicate));
    // Run everything again: nothing more.
    state.vip.pass().await.unwrap();
    other.pass().await.unwrap();
    let all_again = state.vip.claim_gifts(&m, None).await.unwrap();
    assert_eq!(all_again.len(), 2);
    assert!(
        all_again.iter().all(|p| p.duplicate),
        "a repeat answers the first grants"
    );
    let again = state.vip.claim_gifts(&m, Some(2)).await.unwrap();
    assert!(again[0].duplicate);
    assert_eq!(again[0].grant.amount, dec!(18));

    let wallet = WalletId::new(m.clone(), Currency::Cny);
    let events = state.wallets.events(&wallet).await.unwrap();
    let r = |kind, key: &str| domain::vip::reward_reference(&m, kind, key);
    // By hand: gifts 18 (L2) + 38 (L3); salary L3 88 (month turnover
    // 6,000 >= cashflow 1,760); rebates at L3: sport 0.38% x 5,000 = 19.00,
    // ag 0.60% x 1,000 = 6.00.
    assert_eq!(credits(&events, &r(RewardKind::Gift, "2")), vec![dec!(18)]);
    assert_eq!(credits(&events, &r(RewardKind::Gift, "3")), vec![dec!(38)]);
    assert_eq!(
        credits(&events, &r(RewardKind::Salary, "2026-11")),
        vec![dec!(88)]
    );
    assert_eq!(
        credits(&events, &r(RewardKind::Rebate, "2026-11-30:sport")),
        vec![dec!(19.00)]
    );
    assert_eq!(
        credits(&events, &r(RewardKind::Rebate, "2026-11-30:ag")),
        vec![dec!(6.00)]
    );
    assert!(credits(&events, &r(RewardKind::Rebate, "2026-11-30:pg")).is_empty());
    state
        .runner
        .settle("balances", Duration::from_secs(10))
        .await
        .unwrap();
    let balance = projections::balances::get(&state.db.any, &m, "CNY")
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        balance.ledger.balances.bonus,
        dec!(169.00),
        "18 + 38 + 88 + 19 + 6"
    );
    // Each grant carries its turnover requirement (1 x the amount).
    settle(state).await;
    let rewards = projections::vip::rewards(&state.db.any, &m).await.unwrap();
    assert_eq!(rewards.len(), 5);
    assert!(rewards.iter().all(|g| g.turnover_required == g.amount));
    server.stop().await;
}

async fn honour_decays_one_level_after_a_season_except_the_first(kind: StoreKind) {
    // The first calendar date is the platform's first season: no decay;
    // 2026-11-30 ended a later season: one level down.
    let server = server(kind, &["2026-11-29", "2026-11-30"]).await;
    let state = &server.running.state;
    let m = state
        .accounts
        .ensure_member("vipdecay", "secret123", Currency::Cny)
        .await
        .unwrap();
    let at = state.clock.now_ms() - 2 * DAY;
    deposit(state, &m, "CNY", "100", "o-d1", json!(at / 1000)).await;
    round(state, &m, "CNY", "pg", "dr1", 1, "12000", "0", at).await;
    settle(state).await;
    assert_eq!(
        row(state, &m).await.level,
        4,
        "100 / 12,000 is level 4 in zhh"
    );
    // The platform's first season alone decays nobody.
    assert_eq!(
        state
            .vip
            .season_ended("season:first", true, None)
            .await
            .unwrap(),
        0
    );
    let report = state.vip.pass().await.unwrap();
    assert_eq!(report.decayed, 1, "{report:?}");
    settle(state).await;
    let r = row(state, &m).await;
    assert_eq!(
        (r.level, r.money, r.bets),
        (3, dec!(58), dec!(5000)),
        "level 3 with its start values"
    );
    // Once per season.
    state.vip.pass().await.unwrap();
    assert_eq!(
        state
            .vip
            .season_ended("season:2026-11-30", false, None)
            .await
            .unwrap(),
        0
    );
    settle(state).await;
    assert_eq!(row(state, &m).await.level, 3);
    // Gifts of levels reached before the decay stay paid once.
    let paid = state.vip.claim_gifts(&m, None).await.unwrap();
    assert_eq!(paid.len(), 3, "levels 2, 3 and 4");
    assert!(paid.iter().all(|p| !p.duplicate));
    // Activity after the decay counts from the level's start: level 4
    // needs 88 / 10,000.
    round(
        state,
        &m,
        "CNY",
        "pg",
        "dr2",
        1,
        "5000",
        "0",
        state.clock.now_ms(),
    )
    .await;
    settle(state).await;
    assert_eq!(row(state, &m).await.level, 3, "58 deposited is short of 88");
    deposit(
        state,
        &m,
        "CNY",
        "30",
        "o-d2",
        json!(state.clock.now_ms() / 1000),
    )
    .await;
    settle(state).await;
    let r = row(state, &m).await;
    assert_eq!((r.level, r.bets), (4, dec!(10000)));
    server.stop().await;
}

async fn a_rebuild_of_the_vip_projection_equals_the_live_one(kind: StoreKind) {
    let server = server(kind, &["2026-11-29", "2026-11-30"]).await;
    let state = &server.running.state;
    let m = state
        .accounts
        .ensure_member("viprebuild", "secret123", Currency::Cny)
        .await
        .unwrap();
    let at = state.clock.now_ms() - DAY;
    deposit(state, &m, "CNY", "90", "o-x1", json!(at / 1000)).await;
    bet(
        state,
        &m,
        "xb1",
        dec!(3000),
        dec!(2.5),
        vec![settled(&m, BetStatus::Won, dec!(7500), at)],
    )
    .await;
    bet(
        state,
        &m,
        "xb2",
        dec!(8000),
        dec!(2.0),
        vec![
            settled(&m, BetStatus::Lost, dec!(0), at),
            resettled(&m, BetStatus::Won, dec!(16000), dec!(0), 2, at),
        ],
    )
    .await;
    round(state, &m, "CNY", "ag", "xr1", 1, "400", "100", at).await;
    round(state, "other", "USD", "pg", "xr2", 1, "300", "0", at).await;
    settle(state).await;
    state.vip.pass().await.unwrap();
    state.vip.claim_gifts(&m, None).await.unwrap();
    state.vip.spend_points(&m, "shop-1", dec!(1)).await.unwrap();
    settle(state).await;
    let live = (
        projections::vip::all_members(&state.db.any).await.unwrap(),
        projections::vip::all_ledger(&state.db.any).await.unwrap(),
        projections::vip::all_daily(&state.db.any).await.unwrap(),
        projections::vip::rewards(&state.db.any, &m).await.unwrap(),
    );
    assert!(live.0.len() >= 2 && !live.1.is_empty() && !live.3.is_empty());
    state
        .runner
        .rebuild(projections::vip::NAME, &|_, _| {})
        .await
        .unwrap();
    let rebuilt = (
        projections::vip::all_members(&state.db.any).await.unwrap(),
        projections::vip::all_ledger(&state.db.any).await.unwrap(),
        projections::vip::all_daily(&state.db.any).await.unwrap(),
        projections::vip::rewards(&state.db.any, &m).await.unwrap(),
    );
    assert_eq!(live, rebuilt);
    server.stop().await;
}

async fn vipsystem_calls_show_the_level_and_pay_the_upgrade_gift_once(kind: StoreKind) {
    // The real clock: the request layer checks UniqueId times against it.
    let server = server_now(kind, &[]).await;
    let state = &server.running.state;
    let (client, _sid) = member(&server).await;
    let info = client.post("/api/user/userinfo", json!({})).await;
    assert_eq!(info["data"]["vipname"], "Unranked", "{info}");
    let user_id = info["data"]["user_id"].as_str().unwrap().to_string();
    let levels = client.post("/api/vipsystem/allvipdetail", json!({})).await;
    assert_eq!(
        levels["data"]["list"].as_array().unwrap().len(),
        10,
        "{levels}"
    );
    assert_eq!(levels["data"]["list"][1]["growgift"], "18");
    assert_eq!(levels["data"]["list"][9]["pg"], "1.20");
    // (Bodies differ: an identical submission within 3 s is refused -66666.)
    let gift = client
        .post("/api/vipsystem/getgrowgift", json!({"level": 2, "n": 1}))
        .await;
    assert_eq!(gift["status"], -61001, "{gift}");
    let bad = client
        .post("/api/vipsystem/getgrowgift", json!({"level": 11}))
        .await;
    assert_eq!(bad["status"], -70009, "{bad}");
    let now = state.clock.now_ms();
    deposit(state, &user_id, "CNY", "38", "o-api", json!(now / 1000)).await;
    round(state, &user_id, "CNY", "pg", "api-r1", 1, "3000", "0", now).await;
    settle(state).await;
    let detail = client.post("/api/vipsystem/vipdetail", json!({})).await;
    let d = &detail["data"];
    assert_eq!(
        (d["level"].clone(), d["vipname"].clone()),
        (json!(2), json!("Reserve player")),
        "{detail}"
    );
    assert_eq!(d["vipexpbalance"], "3000.00");
    assert_eq!(d["progress"]["bets"], "60.00", "3,000 of 5,000");
    assert_eq!(d["gifts"][0]["status"], 1);
    assert_eq!(d["userrank"], 1);
    let first = client
        .post("/api/vipsystem/getgrowgift", json!({"level": 2}))
        .await;
    assert_eq!(
        (first["status"].clone(), first["data"]["amount"].clone()),
        (json!(0), json!("18.00")),
        "{first}"
    );
    let again = client
        .post("/api/vipsystem/getgrowgift", json!({"level": "2", "n": 3}))
        .await;
    assert_eq!(again["data"]["duplicate"], true, "{again}");
    assert_eq!(again["data"]["amount"], "18.00");
    let detail = client.post("/api/vipsystem/vipdetail", json!({})).await;
    assert_eq!(detail["data"]["gifts"][0]["status"], 2);
    let info = client.post("/api/user/userinfo", json!({})).await;
    assert_eq!(info["data"]["vipname"], "Reserve player");
    assert_eq!(info["data"]["vipexpbalance"], "3000.00");
    let xp = client
        .post("/api/vipsystem/vipxporders", json!({"page": 1, "size": 10}))
        .await;
    assert_eq!(xp["data"]["total"], 2, "{xp}");
    let score = client.post("/api/vipsystem/mcoindetail", json!({})).await;
    assert_eq!(score["data"]["balance"], "30.00", "{score}");
    let nothing = client.post("/api/vipsystem/getvipbonus", json!({})).await;
    assert_eq!(nothing["status"], -61002, "{nothing}");
    let big = client
        .post("/api/vipsystem/scoreorders", json!({"size": 1000}))
        .await;
    assert_eq!(big["status"], -70009, "{big}");
    server.stop().await;
}
