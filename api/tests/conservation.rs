//! A simulated day: 500 members, at least 10,000 bets of every type on the
//! simulator's games, the games resulted and one result corrected. After
//! settlement, on both stores: every member's balance equals deposits -
//! stakes + payouts (from the wallet events), no balance is negative, the
//! balance read model agrees, and no bet paid twice.

mod common;

use std::collections::BTreeMap;
use std::sync::Arc;

use commands::sportsbook::feed::Finished;
use domain::bet::{AcceptMode, BetRequest, BetType, Pick};
use domain::catalogue::{Catalogue, GameType};
use domain::result::{settle as outcome_of, FinalScore, SelectionResult};
use domain::wallet::{MovementKind, Pot, WalletAction, WalletCommand, WalletEvent, WalletId};
use domain::Currency;
use rand::{Rng, SeedableRng};
use rust_decimal::Decimal;
use store::StoreKind;

store::on_both_stores!(
    a_simulated_day_conserves_money,
    a_correction_the_member_cannot_cover_goes_to_the_support_queue_and_money_is_conserved,
);

const MEMBERS: usize = 500;
const BETS: usize = 10_000;

fn requests(catalogue: &Catalogue, rng: &mut rand::rngs::StdRng) -> BetRequest {
    // One selection from each of up to four different prematch games (not
    // races: their results are not computed from a score below).
    let games: Vec<u64> = catalogue
        .games()
        .values()
        .filter(|g| g.game_type == GameType::Prematch)
        .filter(|g| {
            catalogue
                .lineage(g.id)
                .is_some_and(|l| l.sport.id != commands::sportsbook::feed::RACING_SPORT_ID)
        })
        .map(|g| g.id)
        .collect();
    let bet_type = match rng.random_range(0..10) {
        0..=4 => BetType::Single,
        5..=7 => BetType::Express,
        _ => BetType::System,
    };
    let legs = match bet_type {
        BetType::Single => 1,
        BetType::Express => rng.random_range(2..=4),
        _ => 3,
    };
    let mut picks = Vec::new();
    while picks.len() < legs {
        let game = games[rng.random_range(0..games.len())];
        if picks.iter().any(|(g, _): &(u64, Pick)| *g == game) {
            continue;
        }
        let markets: Vec<u64> = catalogue.markets_of(game).map(|m| m.id).collect();
        let market = markets[rng.random_range(0..markets.len())];
        let events: Vec<_> = catalogue.events_of(market).collect();
        let event = events[rng.random_range(0..events.len())];
        picks.push((
            game,
            Pick {
                event_id: event.id,
                price: event.price,
                banker: false,
                base: event.base,
            },
        ));
    }
    BetRequest {
        bet_type,
        mode: AcceptMode::Any,
        amount: Decimal::new(rng.random_range(100..=5_000), 2),
        each_way: false,
        sys_bet: (bet_type == BetType::System).then_some(2),
        bonus_id: None,
        is_offer: false,
        selections: picks.into_iter().map(|(_, p)| p).collect(),
    }
}

async fn a_simulated_day_conserves_money(kind: StoreKind) {
    let mut config = common::config(false);
    config.feed.tick_ms = 3_600_000; // the test ends the games itself
    let server = common::start_with(kind, config).await;
    let state = server.running.state.clone();
    let members: Vec<String> = (0..MEMBERS).map(|i| format!("sim{i}")).collect();
    for member in &members {
        let deposit = WalletAction::Credit {
            amount: Decimal::from(5_000),
            pot: Pot::Main,
            kind: MovementKind::Deposit,
        };
        state
            .wallets
            .execute(WalletCommand::new(
                WalletId::new(member.clone(), Currency::Cny),
                "deposit-1",
                deposit,
            ))
            .await
            .unwrap();
    }
    let catalogue = state.live.read(|c| c.clone());
    let mut rng = rand::rngs::StdRng::seed_from_u64(2026);
    let bets: Vec<(String, BetRequest)> = (0..BETS)
        .map(|i| (members[i % MEMBERS].clone(), requests(&catalogue, &mut rng)))
        .collect();
    let bets = Arc::new(bets);
    let next = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let mut workers = Vec::new();
    for _ in 0..16 {
        let (state, bets, next) = (state.clone(), bets.clone(), next.clone());
        workers.push(tokio::spawn(async move {
            let mut placed = 0usize;
            loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some((member, request)) = bets.get(i) else {
                    return placed;
                };
                match state
                    .betting
                    .bets
                    .place(member, Currency::Cny, request, None)
                    .await
                {
                    Ok(_) => placed += 1,
                    Err(commands::sportsbook::bets::PlaceError::Refused(_)) => {}
                    Err(e) => panic!("placement failed: {e}"),
                }
            }
        }));
    }
    let mut placed = 0;
    for w in workers {
        placed += w.await.unwrap();
    }
    assert!(
        placed >= BETS * 9 / 10,
        "only {placed} of {BETS} bets placed"
    );

    // Every game ends; then the result of the first bet's first game is
    // corrected (its wins and losses swapped).
    let corrected_game = catalogue
        .events()
        .get(&bets[0].1.selections[0].event_id)
        .and_then(|e| catalogue.markets().get(&e.market_id))
        .map(|m| m.game_id)
        .unwrap();
    let mut first = None;
    for game in catalogue.games().values() {
        let score = FinalScore {
            team1: rng.random_range(0..4),
            team2: rng.random_range(0..4),
            first_half: Some((0, 0)),
            corners: Some(9),
        };
        let mut selections = Vec::new();
        for market in catalogue.markets_of(game.id) {
            for event in catalogue.events_of(market.id) {
                if let Some(outcome) = outcome_of(
                    &market.market_type,
                    &event.type_,
                    event.base.or(market.base),
                    &score,
                ) {
                    selections.push(SelectionResult {
                        event_id: event.id,
                        market_id: market.id,
                        outcome,
                        sp_price: None,
                    });
                }
            }
        }
        let finished = Finished {
            game_id: game.id,
            score,
            selections,
        };
        if game.id == corrected_game {
            first = Some(finished.clone());
        }
        state.results.record(finished, 1).await.unwrap();
    }
    settle_all(&state).await;
    let corrected = first.unwrap();
    let flipped = Finished {
        score: FinalScore {
            team1: corrected.score.team2,
            team2: corrected.score.team1,
            ..corrected.score
        },
        selections: corrected
            .selections
            .iter()
            .map(|s| SelectionResult {
                outcome: match s.outcome {
                    domain::result::SelectionOutcome::Won => domain::result::SelectionOutcome::Lost,
                    domain::result::SelectionOutcome::Lost => domain::result::SelectionOutcome::Won,
                    other => other,
                },
                ..s.clone()
            })
            .collect(),
        ..corrected
    };
    state.results.correct(flipped, 2).await.unwrap();
    settle_all(&state).await;
    // On Postgres the runner stops at the cluster-wide xmin horizon, which
    // other tests' transactions can hold back for a while under the full
    // suite: wait until nothing is left for the balances, however long.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(180);
    loop {
        state
            .runner
            .settle("balances", std::time::Duration::from_secs(30))
            .await
            .unwrap();
        let lag = state.runner.lag("balances").await.unwrap();
        if lag == 0 {
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the balances read model is still {lag} events behind"
        );
    }

    let balances: BTreeMap<String, Decimal> = projections::balances::all(&state.db.any)
        .await
        .unwrap()
        .into_iter()
        .map(|row| (row.member_id, row.ledger.balances.main))
        .collect();
    let (mut deposits, mut stakes, mut payouts, mut adjustments) =
        (Decimal::ZERO, Decimal::ZERO, Decimal::ZERO, Decimal::ZERO);
    for member in &members {
        let id = WalletId::new(member.clone(), Currency::Cny);
        let (mut d, mut s, mut p, mut a) =
            (Decimal::ZERO, Decimal::ZERO, Decimal::ZERO, Decimal::ZERO);
        let mut references = std::collections::HashSet::new();
        for event in state.wallets.events(&id).await.unwrap() {
            for r in event.reference().into_iter().chain(event.also_reference()) {
                assert!(
                    references.insert(r.to_string()),
                    "reference {r} applied twice"
                );
            }
            match event {
                WalletEvent::Credited { amount, .. } => d += amount,
                WalletEvent::StakeTaken { amount, .. }
                | WalletEvent::StakeReservedAndTaken { amount, .. } => s += amount,
                WalletEvent::PaidOut { amount, .. } => p += amount,
                WalletEvent::Debited { amount, .. } => a += amount,
                _ => {}
            }
        }
        let wallet = state.wallets.replay(&id).await.unwrap();
        assert!(wallet.balances().main >= Decimal::ZERO);
        assert_eq!(
            wallet.ledger.reserved,
            Decimal::ZERO,
            "no stake left held for {member}"
        );
        assert_eq!(
            wallet.balances().main,
            d - s + p - a,
            "conservation for {member}"
        );
        assert_eq!(
            balances.get(member).copied().unwrap_or_default(),
            wallet.balances().main,
            "read model of {member}"
        );
        deposits += d;
        stakes += s;
        payouts += p;
        adjustments += a;
    }
    let total: Decimal = balances.values().sum();
    assert_eq!(total, deposits - stakes + payouts - adjustments);
    assert!(payouts > Decimal::ZERO && stakes > Decimal::ZERO);
    // Every bet is settled, none twice: each bet's payouts add up to its
    // final payout in the history.
    let open: i64 = sqlx::query_scalar("SELECT count(*) FROM bets WHERE status = 0")
        .fetch_one(&state.db.any)
        .await
        .unwrap();
    assert_eq!(open, 0, "every bet settled");
    let paid_rows: Vec<(String,)> = sqlx::query_as("SELECT payout FROM bets")
        .fetch_all(&state.db.any)
        .await
        .unwrap();
    let history_paid: Decimal = paid_rows
        .iter()
        .map(|(p,)| p.parse::<Decimal>().unwrap())
        .sum();
    // A take-back a member could not cover is owed in the support queue.
    let owed: Decimal = state
        .betting
        .bets
        .shortfalls
        .outstanding()
        .await
        .unwrap()
        .into_iter()
        .map(|(_, amount)| amount)
        .sum();
    assert_eq!(
        history_paid,
        payouts - adjustments - owed,
        "the wallet paid exactly what the bets say, less what is owed"
    );
    // The correction re-settled the bets on that game.
    let on_game: Vec<(String,)> = sqlx::query_as(
        "SELECT DISTINCT l.bet_id FROM settlement_legs l WHERE l.event_id IN (SELECT event_id FROM settlement_outcomes)",
    )
    .fetch_all(&state.db.any)
    .await
    .unwrap();
    let game_events: std::collections::HashSet<u64> = catalogue
        .markets_of(corrected_game)
        .flat_map(|m| catalogue.events_of(m.id).map(|e| e.id))
        .collect();
    let mut resettled = 0;
    for (bet_id,) in &on_game {
        let events = state.betting.bets.events(bet_id).await.unwrap();
        let touches = events.iter().any(|e| matches!(e, domain::bet::BetEvent::BetPlaced { bet, .. } if bet.legs.iter().any(|l| game_events.contains(&l.event_id))));
        if touches
            && events
                .iter()
                .any(|e| matches!(e, domain::bet::BetEvent::BetResettled { .. }))
        {
            resettled += 1;
        }
    }
    assert!(resettled > 0, "the correction re-settled bets");
    println!("{placed} bets; {resettled} re-settled by the correction; deposits {deposits}, stakes {stakes}, payouts {payouts}, taken back {adjustments}");
    server.stop().await;
}

/// The member's wallet folded from its events: (deposits and other
/// credits, stakes taken, payouts, debits); asserts each reference moved
/// once, the balance equals the fold and is not negative, and the balance
/// read model agrees.
async fn conserved(
    state: &api::app::AppState,
    id: &WalletId,
) -> (Decimal, Decimal, Decimal, Decimal) {
    let (mut d, mut s, mut p, mut a) = (Decimal::ZERO, Decimal::ZERO, Decimal::ZERO, Decimal::ZERO);
    let mut references = std::collections::HashSet::new();
    for event in state.wallets.events(id).await.unwrap() {
        for r in event.reference().into_iter().chain(event.also_reference()) {
            assert!(
                references.insert(r.to_string()),
                "reference {r} applied twice"
            );
        }
        match event {
            WalletEvent::Credited { amount, .. } => d += amount,
            WalletEvent::StakeTaken { amount, .. }
            | WalletEvent::StakeReservedAndTaken { amount, .. } => s += amount,
            WalletEvent::PaidOut { amount, .. } => p += amount,
            WalletEvent::Debited { amount, .. } => a += amount,
            _ => {}
        }
    }
    let wallet = state.wallets.replay(id).await.unwrap();
    assert!(
        wallet.balances().main >= Decimal::ZERO,
        "no negative balance"
    );
    assert_eq!(wallet.balances().main, d - s + p - a, "conservation");
    state
        .runner
        .settle("balances", std::time::Duration::from_secs(30))
        .await
        .unwrap();
    let read: Decimal = projections::balances::all(&state.db.any)
        .await
        .unwrap()
        .into_iter()
        .filter(|row| row.member_id == id.member_id)
        .map(|row| row.ledger.balances.main)
        .sum();
    assert_eq!(
        read,
        wallet.balances().main,
        "the balance read model agrees"
    );
    (d, s, p, a)
}

/// A member wins, spends the winnings, and the result is corrected: the
/// take-back the balance cannot cover is taken in part (what is there) and
/// the rest waits in the support queue as a debt, never a negative
/// balance; money is conserved throughout; support collects the debt once
/// the member has money again.
async fn a_correction_the_member_cannot_cover_goes_to_the_support_queue_and_money_is_conserved(
    kind: StoreKind,
) {
    let server = common::start(kind).await;
    let (client, sid) = common::member(&server).await;
    let state = server.running.state.clone();
    let support = common::staff_token(&server, "support", "support1234").await;
    let user_id = state.accounts.find("demo").await.unwrap().unwrap();
    let wallet = WalletId::new(user_id.clone(), Currency::Cny);
    let (event_id, market_id, game_id, price) = common::pick(&server);
    let placed = common::swarm(
        &server,
        &sid,
        serde_json::json!({"command": "do_bet", "rid": 3, "params": {
        "type": 1, "mode": 2, "amount": "100",
        "bets": [{"event_id": event_id, "price": price.to_string()}]}}),
    )
    .await;
    let bet_id = placed["data"]["details"]["bet_id"]
        .as_i64()
        .unwrap()
        .to_string();
    let result = |outcome| Finished {
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
            outcome,
            sp_price: None,
        }],
    };
    state
        .results
        .record(result(domain::result::SelectionOutcome::Won), 1)
        .await
        .unwrap();
    let paid = |status: i8| {
        let state = state.clone();
        let bet_id = bet_id.clone();
        async move {
            for _ in 0..300 {
                settle_all(&state).await;
                let bet = state.betting.bets.load(&bet_id).await.unwrap();
                if bet.status.code() == status {
                    return;
                }
                tokio::time::sleep(std::time::Duration::from_millis(20)).await;
            }
            panic!("bet {bet_id} never reached {status}");
        }
    };
    paid(3).await;
    let won = (Decimal::from(100) * price).round_dp(2);
    state.wallets.clear_cache();
    let balance = state.wallets.load(&wallet).await.unwrap().balances().main;
    assert_eq!(balance, Decimal::from(9900) + won);

    // The member spends all but 50.00.
    let spend = WalletAction::Debit {
        amount: balance - Decimal::from(50),
        pot: Pot::Main,
        kind: MovementKind::Withdrawal,
    };
    state
        .wallets
        .execute(WalletCommand::new(wallet.clone(), "withdrawal-1", spend))
        .await
        .unwrap();

    // The result is corrected: the pick lost; the winnings are due back.
    state
        .results
        .correct(result(domain::result::SelectionOutcome::Lost), 2)
        .await
        .unwrap();
    paid(1).await;
    settle_all(&state).await;
    state.wallets.clear_cache();
    assert_eq!(
        state.wallets.load(&wallet).await.unwrap().balances().main,
        Decimal::ZERO,
        "50.00 taken at once"
    );
    let (status, queue) = common::backoffice(
        &server,
        "GET",
        "/api/backoffice/shortfalls",
        Some(&support),
        None,
    )
    .await;
    assert_eq!(status, 200, "{queue}");
    let entries = queue["data"].as_array().unwrap();
    assert_eq!(entries.len(), 1, "{queue}");
    let entry = &entries[0];
    assert_eq!(entry["bet_id"], bet_id.as_str());
    assert_eq!(entry["user_id"], user_id.as_str());
    assert_eq!(entry["username"], "demo");
    assert_eq!(entry["currency"], "CNY");
    assert_eq!(entry["due"], format!("{won:.2}"));
    assert_eq!(entry["taken"], "50.00");
    assert_eq!(
        entry["shortfall"],
        format!("{:.2}", won - Decimal::from(50))
    );
    assert_eq!(entry["status"], "open");
    // Settling again takes nothing more and queues nothing more.
    settle_all(&state).await;
    let (_, again) = common::backoffice(
        &server,
        "GET",
        "/api/backoffice/shortfalls",
        Some(&support),
        None,
    )
    .await;
    assert_eq!(again["data"].as_array().unwrap().len(), 1);
    let (_, _, p, a) = conserved(&state, &wallet).await;
    assert_eq!(p, won, "paid once");
    assert_eq!(
        a, balance,
        "debited: the withdrawal and the 50.00 the correction could take"
    );

    // The member deposits; support collects the debt.
    let deposit = WalletAction::Credit {
        amount: Decimal::from(1000),
        pot: Pot::Main,
        kind: MovementKind::Deposit,
    };
    state
        .wallets
        .execute(WalletCommand::new(wallet.clone(), "deposit-2", deposit))
        .await
        .unwrap();
    let id = entry["id"].as_i64().unwrap();
    let (status, collected) = common::backoffice(
        &server,
        "POST",
        &format!("/api/backoffice/shortfalls/{id}/collect"),
        Some(&support),
        Some(serde_json::json!({})),
    )
    .await;
    assert_eq!(status, 200, "{collected}");
    assert_eq!(
        collected["data"]["collected"],
        format!("{:.2}", won - Decimal::from(50))
    );
    assert_eq!(collected["data"]["shortfall"], "0.00");
    assert_eq!(collected["data"]["status"], "resolved");
    state.wallets.clear_cache();
    assert_eq!(
        state.wallets.load(&wallet).await.unwrap().balances().main,
        Decimal::from(1000) - (won - Decimal::from(50))
    );
    let (_, open) = common::backoffice(
        &server,
        "GET",
        "/api/backoffice/shortfalls",
        Some(&support),
        None,
    )
    .await;
    assert!(open["data"].as_array().unwrap().is_empty(), "{open}");
    let (_, _, p, a) = conserved(&state, &wallet).await;
    assert_eq!(
        a - (balance - Decimal::from(50)),
        p,
        "the whole correction is taken back in the end"
    );
    let _ = client;
    server.stop().await;
}

/// Runs the projections and the settlement worker until nothing is left.
/// Projections caught up (waiting out other tests' transactions that hold
/// back the Postgres horizon: a settlement queued behind it would otherwise
/// be paid after the checks) and settlement passes until none is left.
async fn settle_all(state: &api::app::AppState) {
    let caught_up = || async {
        state.runner.catch_up_all().await.unwrap();
        for name in state.runner.names() {
            state
                .runner
                .settle(name, std::time::Duration::from_secs(60))
                .await
                .unwrap();
        }
    };
    for _ in 0..50 {
        caught_up().await;
        if state.settlement.pass().await.unwrap() == 0 {
            caught_up().await;
            if state.settlement.pass().await.unwrap() == 0 {
                return;
            }
        }
    }
}
