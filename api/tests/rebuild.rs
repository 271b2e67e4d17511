//! Rebuild equals live for every projection after a simulated day, on both
//! stores, with rebuilds (shadow copy, swap) running while bets are placed
//! and the live runner keeps going; and the day's log verifies against its
//! hash chain.

mod common;

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use commands::sportsbook::feed::Finished;
use domain::bet::{AcceptMode, BetRequest, BetType, Pick};
use domain::catalogue::{Catalogue, GameType};
use domain::result::{settle as outcome_of, FinalScore, SelectionResult};
use domain::wallet::{MovementKind, Pot, WalletAction, WalletCommand, WalletId};
use domain::Currency;
use rand::{Rng, SeedableRng};
use rust_decimal::Decimal;
use sqlx::{Column, Row};
use store::StoreKind;

store::on_both_stores!(
    every_read_model_rebuilt_equals_the_live_one_even_when_rebuilt_while_bets_are_placed,
    the_back_office_streams_the_audit_replay_and_lists_parked_events,
);

async fn the_back_office_streams_the_audit_replay_and_lists_parked_events(kind: StoreKind) {
    let server = common::start(kind).await;
    let state = server.running.state.clone();
    state.runner.catch_up_all().await.unwrap();
    let token = common::staff_token(&server, "auditor", "auditor1234").await;
    let headers = vec![("Authorization".to_string(), format!("Bearer {token}"))];
    let answer = common::http(
        server.addr(),
        "GET",
        "/api/backoffice/audit/replay/stream",
        &headers,
        b"",
    )
    .await;
    assert_eq!(answer.status, 200);
    assert_eq!(answer.content_type, "application/x-ndjson");
    let lines: Vec<serde_json::Value> = String::from_utf8(answer.body)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let results: Vec<&str> = lines
        .iter()
        .filter(|l| l["type"] == "result")
        .map(|l| l["read_model"].as_str().unwrap())
        .collect();
    // Every read model (each projection of the runner), then the
    // independent money fold.
    let mut expected: Vec<&str> = state.runner.names();
    expected.push("money");
    assert_eq!(results, expected);
    for name in ["money_orders", "wallet_movements", "vip"] {
        assert!(results.contains(&name), "{name} is replayed: {results:?}");
    }
    assert_eq!(lines.last().unwrap()["type"], "done", "{lines:?}");
    assert_eq!(lines.last().unwrap()["differences"], 0);
    // No poison events: the list is empty; an unknown one is not found.
    let (status, answer) = common::backoffice(
        &server,
        "GET",
        "/api/backoffice/parked-events",
        Some(&token),
        None,
    )
    .await;
    assert_eq!(
        (status, answer["data"].clone()),
        (200, serde_json::json!([]))
    );
    let admin = common::staff_token(&server, "admin", "admin1234").await;
    let (status, _) = common::backoffice(
        &server,
        "POST",
        "/api/backoffice/parked-events/99/skip",
        Some(&admin),
        None,
    )
    .await;
    assert_eq!(status, 404);
    server.stop().await;
}

const MEMBERS: usize = 40;
const BETS: usize = 600;
const PAYERS: usize = 6;
const ORDERS_EACH: usize = 12;

fn request(catalogue: &Catalogue, rng: &mut rand::rngs::StdRng) -> BetRequest {
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
    let (bet_type, legs) = match rng.random_range(0..3) {
        0 => (BetType::Single, 1),
        1 => (BetType::Express, 2),
        _ => (BetType::System, 3),
    };
    let mut picks: Vec<(u64, Pick)> = Vec::new();
    while picks.len() < legs {
        let game = games[rng.random_range(0..games.len())];
        if picks.iter().any(|(g, _)| *g == game) {
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
        amount: Decimal::new(rng.random_range(100..=2_000), 2),
        each_way: false,
        sys_bet: (bet_type == BetType::System).then_some(2),
        bonus_id: None,
        is_offer: false,
        selections: picks.into_iter().map(|(_, p)| p).collect(),
    }
}

/// Every row of `table`, each as its columns' text, sorted: a comparable
/// picture of a read model, whatever its columns.
async fn dump(pool: &sqlx::AnyPool, table: &str) -> Vec<String> {
    let rows = sqlx::query(&format!("SELECT * FROM {table}"))
        .fetch_all(pool)
        .await
        .unwrap();
    let mut out: Vec<String> = rows
        .iter()
        .map(|row| {
            (0..row.columns().len())
                .map(|i| {
                    let name = row.columns()[i].name().to_string();
                    let value = row
                        .try_get::<Option<i64>, _>(i)
                        .map(|v| format!("{v:?}"))
                        .or_else(|_| {
                            row.try_get::<Option<String>, _>(i)
                                .map(|v| format!("{v:?}"))
                        })
                        .or_else(|_| row.try_get::<Option<f64>, _>(i).map(|v| format!("{v:?}")))
                        .unwrap_or_else(|e| format!("<{e}>"));
                    format!("{name}={value}")
                })
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect();
    out.sort();
    out
}

async fn picture(state: &api::app::AppState) -> BTreeMap<String, Vec<String>> {
    let mut all = BTreeMap::new();
    for name in state.runner.names() {
        let projection = state.runner.projection(name).unwrap();
        assert!(!projection.tables().is_empty(), "{name} names its tables");
        for table in projection.tables() {
            all.insert(table.to_string(), dump(&state.db.any, table).await);
        }
    }
    all
}

/// Counts the `sqlx::query` events (one per statement sqlx runs) of the
/// future it wraps.
struct StatementCounter(Arc<AtomicUsize>);

impl<S: tracing::Subscriber> tracing_subscriber::Layer<S> for StatementCounter {
    fn on_event(&self, event: &tracing::Event<'_>, _: tracing_subscriber::layer::Context<'_, S>) {
        if event.metadata().target() == "sqlx::query" {
            self.0.fetch_add(1, Ordering::Relaxed);
        }
    }
}

/// Applies every event of `projection`'s types in the log as one batch,
/// in a transaction rolled back after; returns the events and the
/// statements the apply ran.
async fn statements_to_apply_everything(
    state: &api::app::AppState,
    projection: &dyn projections::Projection,
) -> (usize, usize) {
    use sqlx::Connection;
    use tracing::instrument::WithSubscriber;
    use tracing_subscriber::layer::SubscriberExt;
    let mut conn = state.db.any.acquire().await.unwrap();
    let events = store::stream::read_after(
        &mut conn,
        state.runner.backend(),
        store::stream::Checkpoint::default(),
        projection.aggregate_types(),
        1_000_000,
    )
    .await
    .unwrap();
    let mut tx = conn.begin().await.unwrap();
    let count = Arc::new(AtomicUsize::new(0));
    let subscriber = tracing_subscriber::registry().with(StatementCounter(count.clone()));
    projection
        .apply(&mut tx, &events)
        .with_subscriber(subscriber)
        .await
        .unwrap();
    tx.rollback().await.unwrap();
    (events.len(), count.load(Ordering::Relaxed))
}

async fn settle_all(state: &api::app::AppState) {
    for _ in 0..50 {
        state.runner.catch_up_all().await.unwrap();
        if state.settlement.pass().await.unwrap() == 0 {
            state.runner.catch_up_all().await.unwrap();
            if state.settlement.pass().await.unwrap() == 0 {
                return;
            }
        }
    }
}

async fn every_read_model_rebuilt_equals_the_live_one_even_when_rebuilt_while_bets_are_placed(
    kind: StoreKind,
) {
    let mut config = common::config(false);
    config.feed.tick_ms = 3_600_000;
    config.projections.rebuild_batch_size = 150;
    let server = common::start_with(kind, config).await;
    let state = server.running.state.clone();
    let members: Vec<String> = (0..MEMBERS).map(|i| format!("rb{i}")).collect();
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
    // Bank transfer orders, confirmed ("I have paid") and cancelled, so that the money orders'
    // read model has rows of its own.
    for i in 0..PAYERS {
        let payer = state
            .accounts
            .ensure_member(&format!("rbpay{i}"), "secret123", Currency::Cny)
            .await
            .unwrap();
        for n in 0..ORDERS_EACH {
            let order = state
                .payments
                .create_deposit(
                    &payer,
                    domain::payment::Channel::Bank,
                    &format!("{}", 200 + n),
                    None,
                )
                .await
                .unwrap();
            if n % 4 == 0 {
                state
                    .payments
                    .confirm_deposit(&payer, &order.orderid)
                    .await
                    .unwrap();
            } else {
                state
                    .payments
                    .cancel_deposit(&payer, &order.orderid)
                    .await
                    .unwrap();
            }
        }
    }
    let catalogue = state.live.read(|c| c.clone());
    let mut rng = rand::rngs::StdRng::seed_from_u64(14);
    let bets: Arc<Vec<(String, BetRequest)>> = Arc::new(
        (0..BETS)
            .map(|i| (members[i % MEMBERS].clone(), request(&catalogue, &mut rng)))
            .collect(),
    );
    let next = Arc::new(AtomicUsize::new(0));
    let placing = Arc::new(AtomicBool::new(true));
    let mut workers = Vec::new();
    for _ in 0..6 {
        let (state, bets, next) = (state.clone(), bets.clone(), next.clone());
        workers.push(tokio::spawn(async move {
            let mut placed = 0usize;
            loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
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
    // Rebuilds while the bets come in (the live runner keeps running).
    let rebuilder = {
        let (state, placing) = (state.clone(), placing.clone());
        tokio::spawn(async move {
            let mut rounds = 0;
            while placing.load(Ordering::Relaxed) || rounds == 0 {
                for name in state.runner.names() {
                    state.runner.rebuild(name, &|_, _| {}).await.unwrap();
                }
                rounds += 1;
            }
            rounds
        })
    };
    let mut placed = 0;
    for w in workers {
        placed += w.await.unwrap();
    }
    placing.store(false, Ordering::Relaxed);
    let rounds = rebuilder.await.unwrap();
    assert!(placed >= BETS * 9 / 10, "only {placed} of {BETS} placed");
    assert!(rounds >= 1);

    // The day ends: every game resulted and settled.
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
        state
            .results
            .record(
                Finished {
                    game_id: game.id,
                    score,
                    selections,
                },
                1,
            )
            .await
            .unwrap();
    }
    settle_all(&state).await;
    for name in state.runner.names() {
        state
            .runner
            .settle(name, Duration::from_secs(30))
            .await
            .unwrap();
    }
    let settled: i64 = sqlx::query_scalar("SELECT count(*) FROM bets WHERE status <> 0")
        .fetch_one(&state.db.any)
        .await
        .unwrap();
    assert!(settled > 0, "bets settled");

    // What the live runner built (through rebuilds swapped in mid-way)
    // equals a rebuild from zero now, table by table.
    let live = picture(&state).await;
    assert!(live["bets"].len() >= placed);
    for name in state.runner.names() {
        // Progress counts the events applied out of those to apply (on
        // Postgres only the projection's own types are read): it ends full.
        let seen = std::sync::Mutex::new(None);
        state
            .runner
            .rebuild(name, &|done, total| {
                *seen.lock().unwrap() = Some((done, total))
            })
            .await
            .unwrap();
        let (done, total) = seen.lock().unwrap().expect("progress reported");
        assert_eq!(done, total, "{name}: progress ends full");
    }
    let rebuilt = picture(&state).await;
    for (table, rows) in &live {
        assert_eq!(rows.len(), rebuilt[table].len(), "{table}: row count");
        assert_eq!(rows, &rebuilt[table], "{table}: rebuilt equals live");
    }
    // Every projection applies a batch in a bounded number of statements
    // whatever the batch holds: the whole day's log in one batch takes a
    // few statements per table (multi-row, chunked by 500), not one per
    // event. Counted on Postgres, where sqlx logs each statement on the
    // task that runs it (SQLite's run on its connection's own thread).
    if kind == StoreKind::Postgres {
        // A first count of a fresh subscriber misses statements (tracing
        // caches each call site's interest): one apply to warm it.
        let first = state.runner.projection("balances").unwrap();
        statements_to_apply_everything(&state, &*first).await;
        let mut counts = Vec::new();
        for name in state.runner.names() {
            let projection = state.runner.projection(name).unwrap();
            let (events, statements) = statements_to_apply_everything(&state, &*projection).await;
            counts.push((name, events, statements));
        }
        // The counter sees statements (none counted would pass the bound).
        for (name, _, statements) in &counts {
            if ["balances", "bets", "settlement", "vip", "money_orders"].contains(name) {
                assert!(
                    *statements >= 2,
                    "{name}: counted {statements} ({counts:?})"
                );
            }
        }
        for (name, events, statements) in &counts {
            assert!(*events > 500, "{name}: {events} events");
            assert!(
                *statements <= 40 + events / 100,
                "{name}: {statements} statements for a batch of {events} events ({counts:?})"
            );
        }
    }
    // Nothing was parked, nothing is left behind, no shadow is left over.
    assert!(state
        .runner
        .parked(Some("open"), 10)
        .await
        .unwrap()
        .is_empty());
    for status in state.runner.status().await.unwrap() {
        assert!(status.rebuild.is_none(), "{status:?}");
    }
    // The day's log verifies against its chain.
    state.runner.catch_up_all().await.unwrap();
    let report = projections::verify::verify(
        &state.db.any,
        state.runner.backend(),
        Some(state.config.audit.checkpoint_key.as_bytes()),
        &[],
        &|_, _| {},
    )
    .await
    .unwrap();
    assert!(report.first_difference.is_none(), "{report:?}");
    assert!(report.checked > placed as u64);

    // The audit's replay: every read model equals its scratch replay and
    // the independent money fold agrees...
    let backend = state.runner.backend();
    for name in state.runner.names() {
        let report = state.runner.replay_scratch(name, &|_, _| {}).await.unwrap();
        assert!(report.differences.is_empty(), "{report:?}");
        assert!(report.events > 0);
    }
    let money = projections::replay::money(&state.db.any, backend, &|_, _| {})
        .await
        .unwrap();
    assert!(money.differences.is_empty(), "{money:?}");
    assert_eq!(money.wallets as usize, MEMBERS);
    assert!(money.bets as usize >= placed);
    // ...until a read model is changed behind the events' back: both see
    // it, and the money report names the wallet's events.
    sqlx::query("UPDATE balances SET balance = '1.00' WHERE member_id = 'rb3'")
        .execute(&state.db.any)
        .await
        .unwrap();
    let report = state
        .runner
        .replay_scratch("balances", &|_, _| {})
        .await
        .unwrap();
    assert_eq!(report.differences.len(), 1, "{report:?}");
    assert_eq!(report.differences[0].only_in_live, 1);
    assert!(report.differences[0].live_rows[0].contains("rb3"));
    let money = projections::replay::money(&state.db.any, backend, &|_, _| {})
        .await
        .unwrap();
    let wallet = money
        .differences
        .iter()
        .find(|d| d.subject == "rb3:CNY")
        .expect("the wallet's difference");
    assert!(wallet.found.contains("main 1 "), "{wallet:?}");
    assert!(!wallet.events.is_empty());
    assert!(money.differences.iter().any(|d| d.subject == "platform"));
    server.stop().await;
}
