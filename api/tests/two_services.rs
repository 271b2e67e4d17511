//! Two services on one Postgres schema, as two processes behind a load
//! balancer: the background passes (settlement here) run in the one holding
//! the job's lease, and when its lease expires (the process died and
//! stopped renewing) the other takes the job over; a `do_bet` request id
//! sent to both at once places one bet.

mod common;

use std::sync::Arc;

use api::app::AppState;
use commands::platform::clock::{ManualClock, SharedClock};
use commands::sportsbook::feed::Finished;
use commands::sportsbook::settlement::SETTLEMENT_LEASE;
use domain::bet::{AcceptMode, BetRequest, BetType, Pick};
use domain::result::{FinalScore, SelectionOutcome, SelectionResult};
use domain::wallet::{MovementKind, Pot, WalletAction, WalletCommand, WalletId};
use domain::Currency;
use rust_decimal::Decimal;
use store::db::testing;
use store::StoreKind;

async fn service(db: store::Db, clock: &ManualClock) -> AppState {
    let mut config = common::config(false);
    config.feed.tick_ms = 3_600_000;
    let shared: SharedClock = Arc::new(clock.clone());
    AppState::with_clock(config, db, shared).await.unwrap()
}

async fn deposit(state: &AppState, member: &str, amount: i64) {
    let deposit = WalletAction::Credit {
        amount: Decimal::from(amount),
        pot: Pot::Main,
        kind: MovementKind::Deposit,
    };
    state
        .wallets
        .execute(WalletCommand::new(
            WalletId::new(member, Currency::Cny),
            "deposit-1",
            deposit,
        ))
        .await
        .unwrap();
}

fn single(state: &AppState) -> (BetRequest, u64, u64, u64) {
    let (event_id, market_id, game_id, price) = state.live.read(|c| {
        let game = c
            .games()
            .values()
            .find(|g| g.game_type == domain::catalogue::GameType::Prematch)
            .unwrap();
        let market = c.markets_of(game.id).next().unwrap();
        let event = c.events_of(market.id).next().unwrap();
        (event.id, market.id, game.id, event.price)
    });
    let request = BetRequest {
        bet_type: BetType::Single,
        mode: AcceptMode::Any,
        amount: Decimal::from(10),
        each_way: false,
        sys_bet: None,
        bonus_id: None,
        is_offer: false,
        selections: vec![Pick {
            event_id,
            price,
            banker: false,
            base: None,
        }],
    };
    (request, event_id, market_id, game_id)
}

/// Every projection has applied every committed event (Postgres: other
/// tests' open transactions may hold the horizon back a moment).
async fn caught_up(state: &AppState) {
    for name in state.runner.names() {
        state
            .runner
            .settle(name, std::time::Duration::from_secs(10))
            .await
            .unwrap();
    }
}

/// A bet of `member` on a prematch selection, and its game ended as won:
/// one settlement task waiting.
async fn a_won_bet(state: &AppState, member: &str) -> String {
    let (request, event_id, market_id, game_id) = single(state);
    let placed = state
        .betting
        .bets
        .place(member, Currency::Cny, &request, None)
        .await
        .unwrap();
    let finished = Finished {
        game_id,
        score: FinalScore {
            team1: 1,
            team2: 0,
            first_half: None,
            corners: None,
        },
        selections: vec![SelectionResult {
            event_id,
            market_id,
            outcome: SelectionOutcome::Won,
            sp_price: None,
        }],
    };
    // Correct when the game already has a result (the second bet).
    if state.results.record(finished.clone(), 1).await.is_err() {
        panic!("result not recorded");
    }
    caught_up(state).await;
    placed.bet_id
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn only_the_lease_holder_runs_the_settlement_pass_until_its_lease_expires() {
    let (db_a, db_b) = testing::fresh_pair(StoreKind::Postgres).await;
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as i64;
    let (clock_a, clock_b) = (ManualClock::at(now), ManualClock::at(now));
    let a = service(db_a, &clock_a).await;
    let b = service(db_b, &clock_b).await;
    let (lease_a, lease_b) = (a.lease(SETTLEMENT_LEASE), b.lease(SETTLEMENT_LEASE));
    let ttl = a.config.jobs.lease_ttl_ms as i64;
    let member = "lease-member";
    deposit(&a, member, 100).await;

    assert_eq!(lease_a.run(a.settlement.pass()).await.unwrap(), Some(0));
    a_won_bet(&a, member).await;
    caught_up(&b).await;
    assert_eq!(
        lease_b.run(b.settlement.pass()).await.unwrap(),
        None,
        "B does nothing while A holds the lease"
    );
    assert_eq!(lease_a.run(a.settlement.pass()).await.unwrap(), Some(1));

    // A stops renewing; once its lease expires, B takes the job over.
    clock_a.advance(ttl + 1);
    clock_b.advance(ttl + 1);
    let wallet = WalletId::new(member, Currency::Cny);
    let before = b.wallets.load(&wallet).await.unwrap().balances().main;
    let second = a_won_bet_on_another_game(&b, member).await;
    assert_eq!(lease_b.run(b.settlement.pass()).await.unwrap(), Some(1));
    assert_eq!(lease_a.run(a.settlement.pass()).await.unwrap(), None);
    let bet = b.betting.bets.load(&second).await.unwrap();
    assert_eq!(bet.status.code(), 3, "B settled the second bet");
    b.wallets.clear_cache();
    let after = b.wallets.load(&wallet).await.unwrap().balances().main;
    assert!(after > before, "and paid it");
    a.db.close().await;
    b.db.close().await;
}

/// As `a_won_bet`, on a game no earlier bet used.
async fn a_won_bet_on_another_game(state: &AppState, member: &str) -> String {
    let resulted: Vec<u64> = sqlx::query_scalar::<_, String>(
        "SELECT aggregate_id FROM events WHERE aggregate_type = 'GameResult'",
    )
    .fetch_all(&state.db.any)
    .await
    .unwrap()
    .into_iter()
    .filter_map(|id| id.parse().ok())
    .collect();
    state.live.update(|c| {
        for id in resulted {
            c.remove_game(id);
        }
    });
    a_won_bet(state, member).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_do_bet_request_id_sent_to_two_services_at_once_places_one_bet() {
    let (db_a, db_b) = testing::fresh_pair(StoreKind::Postgres).await;
    let clock = ManualClock::at(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_millis() as i64,
    );
    let a = service(db_a, &clock).await;
    let b = service(db_b, &clock).await;
    let member = "twice";
    deposit(&a, member, 100).await;
    let (request, ..) = single(&a);
    let id = domain::bet::RequestId::parse("slip-1").unwrap();
    for round in 0..5 {
        let id = domain::bet::RequestId::parse(&format!("slip-{round}")).unwrap();
        let (one, two) = tokio::join!(
            a.betting
                .bets
                .place(member, Currency::Cny, &request, Some(&id)),
            b.betting
                .bets
                .place(member, Currency::Cny, &request, Some(&id)),
        );
        let (one, two) = (one.unwrap(), two.unwrap());
        assert_eq!(one.bet_id, two.bet_id, "round {round}");
        assert!(one.repeated != two.repeated, "one placed, one repeated");
    }
    let again = b
        .betting
        .bets
        .place(member, Currency::Cny, &request, Some(&id))
        .await
        .unwrap();
    assert!(again.repeated);
    b.wallets.clear_cache();
    let wallet = b
        .wallets
        .load(&WalletId::new(member, Currency::Cny))
        .await
        .unwrap();
    assert_eq!(
        wallet.balances().main,
        Decimal::from(100 - 5 * 10),
        "five stakes"
    );
    a.db.close().await;
    b.db.close().await;
}
