//! Results are never left in limbo: a finished game leaves the live
//! catalogue only once its result is committed, a result the store failed
//! to record is tried again (from a durable pending list, also by the next
//! feed leader), and the game's bets then settle.

mod common;

use commands::feed::Feed;
use commands::live::LiveFeed;
use commands::StoreKind;
use common::{Platform, Script};
use domain::bet::BetStatus;
use rust_decimal::Decimal;

commands::on_both_stores!(
    a_finished_game_leaves_the_catalogue_only_after_its_result_is_recorded_and_a_failed_recording_is_retried,
    a_result_the_leader_failed_to_record_is_recorded_by_the_next_leader,
    a_bet_whose_selection_never_gets_a_result_is_voided_after_the_configured_time,
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
    let (never, never_event, never_price) = p.game(0);
    let (ends, ends_event, ends_price) = p.game(1);
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
