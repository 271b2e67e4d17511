//! The settlement projection queues a bet's settlement once every one of
//! its selections has an outcome, whichever came first: the bet (queued by
//! the result that completes it) or the results (queued at placement).

use std::collections::BTreeSet;

use domain::bet::fixtures::straight_bet;
use domain::bet::{AcceptMode, BetEvent, BetStatus, ExpressBonus};
use domain::result::{FinalScore, ResultEvent, SelectionOutcome, SelectionResult};
use domain::Currency;
use projections::runner::Projection;
use projections::settlement::SettlementProjection;
use projections::{Checkpoint, StoredEvent};
use rust_decimal_macros::dec;
use sqlx::{Connection, Row};
use store::db::testing;
use store::{Db, StoreKind};

store::on_both_stores!(
    a_bet_is_queued_at_placement_when_its_selections_have_outcomes_and_else_by_the_result_that_completes_it,
    unresulted_selections_are_read_a_page_of_due_bets_at_a_time_up_to_the_limit,
);

/// An express on events `first`, `first + 1`, ... (one per price).
fn placed(bet_id: &str, first: u64, legs: usize) -> StoredEvent {
    let prices = vec![dec!(2); legs];
    let event = BetEvent::BetPlaced {
        bet_id: bet_id.into(),
        member_id: "m1".into(),
        currency: Currency::Cny,
        request_id: format!("r-{bet_id}"),
        bet: straight_bet(AcceptMode::NoChanges, dec!(10), first, &prices),
        express_bonus: ExpressBonus::None,
        status: BetStatus::Unsettled,
        date_time: 1_700_000_000,
        at_ms: 1_700_000_000_000,
        cash_out: Some(true),
    };
    stored(
        "Bet",
        bet_id,
        "BetPlaced",
        serde_json::to_string(&event).unwrap(),
    )
}

/// A result of game `game_id` stating `events` won.
fn resulted(game_id: u64, events: &[u64]) -> StoredEvent {
    let event = ResultEvent::GameResulted {
        game_id,
        score: FinalScore {
            team1: 1,
            team2: 0,
            first_half: None,
            corners: None,
        },
        selections: events
            .iter()
            .map(|e| SelectionResult {
                event_id: *e,
                market_id: e * 10,
                outcome: SelectionOutcome::Won,
                sp_price: None,
            })
            .collect(),
        at_ms: 1_700_000_100_000,
    };
    stored(
        "GameResult",
        &game_id.to_string(),
        "GameResulted",
        serde_json::to_string(&event).unwrap(),
    )
}

fn stored(aggregate_type: &str, id: &str, event_type: &str, payload: String) -> StoredEvent {
    StoredEvent {
        checkpoint: Checkpoint::default(),
        aggregate_type: aggregate_type.into(),
        aggregate_id: id.into(),
        sequence: 1,
        event_type: event_type.into(),
        payload: Some(payload),
        ..Default::default()
    }
}

async fn apply(db: &Db, events: Vec<StoredEvent>) {
    let mut conn = db.any.acquire().await.unwrap();
    let mut tx = conn.begin().await.unwrap();
    SettlementProjection.apply(&mut tx, &events).await.unwrap();
    tx.commit().await.unwrap();
}

async fn tasks(db: &Db) -> BTreeSet<(String, i64)> {
    let mut conn = db.any.acquire().await.unwrap();
    sqlx::query("SELECT bet_id, version FROM settlement_tasks")
        .fetch_all(&mut *conn)
        .await
        .unwrap()
        .iter()
        .map(|r| (r.get("bet_id"), r.get("version")))
        .collect()
}

async fn a_bet_is_queued_at_placement_when_its_selections_have_outcomes_and_else_by_the_result_that_completes_it(
    kind: StoreKind,
) {
    let db = testing::fresh(kind).await;
    // Events 1 and 2 have outcomes (version 1); 3 has none yet.
    apply(&db, vec![resulted(100, &[1, 2])]).await;
    assert!(tasks(&db).await.is_empty());
    // One batch: a bet on 1 and 2 (complete at once), one on 2 and 3
    // (waits for 3), a single on 3 (waits), a bet on 1 again (complete).
    apply(
        &db,
        vec![
            placed("b-12", 1, 2),
            placed("b-23", 2, 2),
            placed("b-3", 3, 1),
            placed("b-1", 1, 1),
        ],
    )
    .await;
    let at_placement: BTreeSet<(String, i64)> =
        [("b-1".to_string(), 1), ("b-12".to_string(), 1)].into();
    assert_eq!(tasks(&db).await, at_placement);
    // The result of 3 (version 2) completes the other two, within a batch
    // that places one more bet on 3 after it (complete at placement, at
    // version 2 too).
    apply(&db, vec![resulted(300, &[3]), placed("b-3-late", 3, 1)]).await;
    let mut all = at_placement;
    all.extend([
        ("b-23".to_string(), 2),
        ("b-3".to_string(), 2),
        ("b-3-late".to_string(), 2),
    ]);
    assert_eq!(tasks(&db).await, all);
}

/// A shared batch's `Bet` payload is parsed once: the copies
/// `stream::slice_after` hands each projection share the parse; a copy for
/// a projection that does not read bets has neither payload nor parse; an
/// unreadable payload is the same bad event for every reader.
#[test]
fn the_projections_of_a_pass_share_one_parse_of_each_bet_event() {
    use std::sync::Arc;
    let mut first = placed("b1", 100, 2);
    first.checkpoint = Checkpoint {
        tx_id: 1,
        position: 1,
    };
    let mut broken = stored("Bet", "b2", "BetPlaced", "{\"BetPlaced\": 1}".into());
    broken.checkpoint = Checkpoint {
        tx_id: 1,
        position: 2,
    };
    let shared = vec![first, broken];
    let bets = store::stream::slice_after(&shared, Checkpoint::default(), &["Bet"]);
    let vip = store::stream::slice_after(&shared, Checkpoint::default(), &["Bet", "Vip"]);
    let wallets = store::stream::slice_after(&shared, Checkpoint::default(), &["Wallet"]);
    let a = bets[0].bet_event().unwrap();
    let b = vip[0].bet_event().unwrap();
    assert!(Arc::ptr_eq(&a, &b), "one parse for both readers");
    assert!(matches!(&*a, BetEvent::BetPlaced { bet_id, .. } if bet_id == "b1"));
    assert!(wallets[0].payload.is_none());
    assert!(wallets[0].bet_event().is_err());
    for copy in [&bets[1], &vip[1]] {
        let error = copy.bet_event().unwrap_err();
        assert!(error.aggregate_id == "b2", "{error}");
    }
}

/// The void job's read of unresulted selections: the bets due a page at a
/// time, then their legs without an outcome, up to the limit; a pass that
/// looks back only to `since` skips bets whose last leg started before.
async fn unresulted_selections_are_read_a_page_of_due_bets_at_a_time_up_to_the_limit(
    kind: StoreKind,
) {
    use projections::settlement::unresulted_in_pages;
    let db = testing::fresh(kind).await;
    // Five singles on events 1, 11, ... 41 (each leg starts 1_700_100_000);
    // event 1 has its result.
    let mut events: Vec<StoredEvent> = (0..5u64)
        .map(|i| placed(&format!("b{i}"), 1 + 10 * i, 1))
        .collect();
    events.push(resulted(100, &[1]));
    apply(&db, events).await;
    let due = 1_700_100_001;
    let selections = |games: std::collections::BTreeMap<u64, Vec<(u64, u64)>>| {
        games
            .values()
            .flatten()
            .map(|(event, _)| *event)
            .collect::<BTreeSet<u64>>()
    };
    for page in [1, 2, 5, 100] {
        let found = unresulted_in_pages(&db.any, due, None, 100, page)
            .await
            .unwrap();
        assert_eq!(
            selections(found),
            BTreeSet::from([11, 21, 31, 41]),
            "page of {page}"
        );
    }
    let two = unresulted_in_pages(&db.any, due, None, 2, 1).await.unwrap();
    assert_eq!(selections(two).len(), 2, "the limit");
    let none = unresulted_in_pages(&db.any, due, Some(due), 100, 2)
        .await
        .unwrap();
    assert!(none.is_empty(), "last legs before the range");
    let not_yet = unresulted_in_pages(&db.any, 1_700_100_000, None, 100, 2)
        .await
        .unwrap();
    assert!(not_yet.is_empty(), "not due before the last leg started");
}
