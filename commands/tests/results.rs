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

    p.settle_all().await;
    let bet = p.bets.load(&placed.bet_id).await.unwrap();
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
    p.settle_all().await;
    let bet = p.bets.load(&placed.bet_id).await.unwrap();
    assert_eq!(bet.status, BetStatus::Won);
}
