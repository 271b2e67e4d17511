//! Results are never left in limbo: a finished game leaves the live
//! catalogue only once its result is committed, a result the store failed
//! to record is tried again (from a durable pending list, also by the next
//! feed leader), and the game's bets then settle; selections that never get
//! a result are void in the end; a correction the member cannot cover is a
//! debt in the support queue, collected once.

mod common;

use commands::sportsbook::feed::Feed;
use commands::sportsbook::live::LiveFeed;
use common::{Platform, Script};
use domain::bet::BetStatus;
use rust_decimal::Decimal;
use store::StoreKind;

store::on_both_stores!(
    a_finished_game_leaves_the_catalogue_only_after_its_result_is_recorded_and_a_failed_recording_is_retried,
    a_result_the_leader_failed_to_record_is_recorded_by_the_next_leader,
    a_bet_whose_selection_never_gets_a_result_is_voided_after_the_configured_time,
    a_process_first_pass_voids_what_came_due_long_ago_and_later_passes_look_back_a_week,
    concurrent_collections_of_a_shortfall_take_the_debt_once,
);

fn blocked(p: &Platform, game: u64) -> Option<bool> {
    p.live.read(|c| c.games().get(&game).map(|g| g.is_blocked))
}

async fn pending(p: &Platform) -> i64 {
    sqlx::query_scalar("SELECT count(*) FROM pending_results")
        .fetch_one(&p.db.any)
        .await
        .unwrap()
}

async fn a_finished_game_leaves_the_catalogue_only_after_its_result_is_recorded_and_a_failed_recording_is_retried(
    kind: StoreKind,
) {
    let mut p = Platform::new(kind).await;
    p.deposit("m1", 100).await;
    let (game, event, price) = p.game(0);
    let placed = p.bet("m1", event, price, 10).await;

    p.break_results(true).await;
    p.end(game);
    p.tick().await.unwrap();
    assert!(!p.resulted(game).await);
    assert_eq!(
        blocked(&p, game),
        Some(true),
        "an unrecorded game stays listed, blocked"
    );
    assert_eq!(pending(&p).await, 1, "kept in the pending list");
    p.tick().await.unwrap();
    assert_eq!(blocked(&p, game), Some(true), "still failing: still kept");

    p.break_results(false).await;
    p.tick().await.unwrap();
    assert!(p.resulted(game).await, "recorded on a later step");
    assert_eq!(
        blocked(&p, game),
        None,
        "then the game leaves the catalogue"
    );
    assert_eq!(pending(&p).await, 0);

    let bet = p.settled(&placed.bet_id).await;
    assert_eq!(bet.status, BetStatus::Won);
    let paid = (Decimal::from(10) * price).round_dp(2);
    assert_eq!(
        p.main_balance("m1").await,
        Decimal::from(90) + paid,
        "the bet paid once"
    );
}

async fn a_result_the_leader_failed_to_record_is_recorded_by_the_next_leader(kind: StoreKind) {
    let mut p = Platform::new(kind).await;
    p.deposit("m1", 100).await;
    let (game, event, price) = p.game(0);
    let placed = p.bet("m1", event, price, 10).await;
    p.break_results(true).await;
    p.end(game);
    p.tick().await.unwrap();
    assert!(!p.resulted(game).await);

    // The leader dies; the store heals; another process leads the feed.
    let mut script = Script::new();
    script.adopt(&p.live.read(|c| c.clone()), 0);
    let dead = std::mem::replace(&mut p.feed, LiveFeed::new(&p.db, Box::new(script)));
    drop(dead);
    p.break_results(false).await;
    for _ in 0..100 {
        p.tick().await.unwrap();
        if p.resulted(game).await && blocked(&p, game).is_none() {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    assert!(p.resulted(game).await, "the next leader recorded it");
    assert_eq!(blocked(&p, game), None);
    let bet = p.settled(&placed.bet_id).await;
    assert_eq!(bet.status, BetStatus::Won);
}

/// A selection whose game never gets a result is void once the bet's last
/// leg started `[bets] void_unresulted_after_hours` ago (72 h): a single's
/// stake comes back; an express settles on its other legs (the void leg
/// counts at price 1). Not a minute earlier, and only once.
async fn a_bet_whose_selection_never_gets_a_result_is_voided_after_the_configured_time(
    kind: StoreKind,
) {
    let mut p = Platform::new(kind).await;
    p.deposit("m1", 100).await;
    // The game that never ends kicks off last: the single on it and the
    // express both reach the time at once.
    let (mut never, mut never_event, mut never_price) = p.game(0);
    let (mut ends, mut ends_event, mut ends_price) = p.game(1);
    let kick_off = |game: u64| p.live.read(|c| c.games()[&game].start_ts);
    if kick_off(never) < kick_off(ends) {
        std::mem::swap(&mut never, &mut ends);
        std::mem::swap(&mut never_event, &mut ends_event);
        std::mem::swap(&mut never_price, &mut ends_price);
    }
    let single = p.bet("m1", never_event, never_price, 10).await;
    let express = p
        .bet_on(
            "m1",
            &[(never_event, never_price), (ends_event, ends_price)],
            10,
        )
        .await;
    let start = |game: u64| p.live.read(|c| c.games()[&game].start_ts);
    let last_start_ms = start(never).max(start(ends)) * 1000;
    p.end(ends);
    p.tick().await.unwrap();
    p.settle_all().await;
    assert_eq!(p.main_balance("m1").await, Decimal::from(80));

    let job = p.void_unresulted(std::time::Duration::from_secs(72 * 3600));
    p.clock
        .advance(last_start_ms + 72 * 3_600_000 - 60_000 - p.now_ms());
    assert_eq!(job.pass().await.unwrap(), 0, "not before the time");
    p.settle_all().await;
    assert_eq!(
        p.bets.load(&single.bet_id).await.unwrap().status,
        BetStatus::Unsettled
    );

    p.clock.advance(120_000);
    assert_eq!(job.pass().await.unwrap(), 1, "one game's selections voided");
    p.caught_up().await;
    assert_eq!(job.pass().await.unwrap(), 0, "once");
    let single = p.settled(&single.bet_id).await;
    assert_eq!(single.status, BetStatus::Returned);
    assert_eq!(single.payout, Decimal::from(10));
    let express = p.settled(&express.bet_id).await;
    assert_eq!(
        express.status,
        BetStatus::Won,
        "settled on the leg that won"
    );
    let express_pays = (Decimal::from(10) * ends_price).round_dp(2);
    assert_eq!(express.payout, express_pays);
    assert_eq!(
        p.main_balance("m1").await,
        Decimal::from(90) + express_pays,
        "the single's stake back, the express paid on its other leg"
    );
}

/// The job's first pass in a process reads every bet (what came due while
/// no process ran it); its later passes read only bets whose last leg
/// started within `LOOKBACK` (a week) before the due time, a range of the
/// start index instead of every leg ever placed.
async fn a_process_first_pass_voids_what_came_due_long_ago_and_later_passes_look_back_a_week(
    kind: StoreKind,
) {
    let p = Platform::new(kind).await;
    p.deposit("m1", 100).await;
    let (game, event, price) = p.game(0);
    let single = p.bet("m1", event, price, 10).await;
    p.caught_up().await;
    let start_ms = p.live.read(|c| c.games()[&game].start_ts) * 1000;
    let after = std::time::Duration::from_secs(72 * 3600);
    let running = p.void_unresulted(after);
    assert_eq!(
        running.pass().await.unwrap(),
        0,
        "nothing due: the sweep is done"
    );

    // Due eight days ago: outside a later pass's week.
    let week = commands::sportsbook::unresulted::LOOKBACK.as_millis() as i64;
    p.clock
        .advance(start_ms + 72 * 3_600_000 + week + 86_400_000 - p.now_ms());
    assert_eq!(
        running.pass().await.unwrap(),
        0,
        "a later pass looks back a week"
    );
    // Another process (or this one restarted) sweeps everything first.
    let restarted = p.void_unresulted(after);
    assert_eq!(restarted.pass().await.unwrap(), 1);
    p.caught_up().await;
    assert_eq!(restarted.pass().await.unwrap(), 0, "once");
    let single = p.settled(&single.bet_id).await;
    assert_eq!(single.status, BetStatus::Returned);
    assert_eq!(p.main_balance("m1").await, Decimal::from(100));
}

/// A debt in the shortfall queue is collected once, however many collects
/// run at once; a written-off debt is collected no more.
async fn concurrent_collections_of_a_shortfall_take_the_debt_once(kind: StoreKind) {
    use domain::wallet::{MovementKind, Pot, WalletAction, WalletCommand, WalletId};
    let mut p = Platform::new(kind).await;
    p.deposit("m1", 100).await;
    let (game, event, price) = p.game(0);
    let placed = p.bet("m1", event, price, 10).await;
    let won = p.live.read(|c| common::finished(c, game));
    p.end(game);
    p.tick().await.unwrap();
    p.settled(&placed.bet_id).await;
    let wallet = WalletId::new("m1", domain::Currency::Cny);
    let spend = WalletAction::Debit {
        amount: p.main_balance("m1").await,
        pot: Pot::Main,
        kind: MovementKind::Withdrawal,
    };
    p.wallets
        .execute(WalletCommand::new(wallet.clone(), "spend", spend))
        .await
        .unwrap();
    let lost = commands::sportsbook::feed::Finished {
        selections: won
            .selections
            .iter()
            .map(|s| domain::result::SelectionResult {
                outcome: domain::result::SelectionOutcome::Lost,
                ..s.clone()
            })
            .collect(),
        ..won
    };
    p.results.correct(lost, p.now_ms()).await.unwrap();
    for _ in 0..500 {
        p.settle_all().await;
        if p.bets.load(&placed.bet_id).await.unwrap().status == BetStatus::Lost {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    let queue = p.bets.shortfalls.list(false, 10).await.unwrap();
    assert_eq!(queue.len(), 1);
    let owed = (Decimal::from(10) * price).round_dp(2);
    assert_eq!((queue[0].due, queue[0].shortfall), (owed, owed));

    p.deposit("m1", 1_000).await;
    let id = queue[0].id;
    let shortfalls = p.bets.shortfalls.clone();
    let attempts: Vec<_> = (0..4)
        .map(|_| {
            let s = shortfalls.clone();
            tokio::spawn(async move { s.collect(id, "staff-1").await })
        })
        .collect();
    let mut collected = Decimal::ZERO;
    for attempt in attempts {
        if let Ok(done) = attempt.await.unwrap() {
            collected += done.amount;
        }
    }
    let row = shortfalls.get(id).await.unwrap();
    assert_eq!(row.status, "resolved");
    assert_eq!(row.shortfall, Decimal::ZERO);
    assert_eq!(row.taken, owed);
    assert_eq!(collected, owed, "reported once");
    assert_eq!(
        p.main_balance("m1").await,
        Decimal::from(1_000) - owed,
        "the debt taken once"
    );
    assert!(matches!(
        shortfalls.write_off(id, "staff-1", "too late").await,
        Err(commands::sportsbook::shortfalls::ShortfallError::NotOpen)
    ));
}
