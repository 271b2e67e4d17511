//! Virtual horse racing end to end: a race's each-way and SP terms over
//! `/swarm get`, each-way and SP singles placed with `do_bet`, the race's
//! result (winner, placed runners, starting prices) recorded, and the bets
//! settled and paid from it.

mod common;

use commands::sportsbook::feed::{Finished, RACE_MARKET_TYPE, RACING_SPORT_ID};
use common::{member, start_with, swarm, Client, Server};
use domain::catalogue::GameType;
use domain::result::{FinalScore, SelectionOutcome, SelectionResult};
use rust_decimal::Decimal;
use rust_decimal_macros::dec;
use serde_json::{json, Value};
use store::StoreKind;

store::on_both_stores!(each_way_and_sp_singles_on_a_race_settle_from_its_result);

/// A server whose feed holds prices still and never starts a race.
async fn server(kind: StoreKind) -> Server {
    let mut config = common::config(true);
    config.feed.tick_ms = 3_600_000;
    start_with(kind, config).await
}

/// An open race: its game, market and runners (event id, price) in
/// saddle-cloth order.
fn open_race(server: &Server) -> (u64, u64, Vec<(u64, Decimal)>) {
    let now_s = server.running.state.clock.now_ms() / 1000;
    server.running.state.live.read(|c| {
        let race = c
            .games()
            .values()
            .find(|g| {
                g.game_type == GameType::Prematch
                    && g.start_ts > now_s
                    && c.lineage(g.id).unwrap().sport.id == RACING_SPORT_ID
            })
            .expect("an open race");
        let market = c.markets_of(race.id).next().unwrap();
        assert_eq!(market.market_type, RACE_MARKET_TYPE);
        let runners = c.events_of(market.id).map(|e| (e.id, e.price)).collect();
        (race.id, market.id, runners)
    })
}

async fn balance(client: &Client) -> Decimal {
    client.post("/api/user/getbalance", json!({})).await["data"]["balance"]
        .as_str()
        .unwrap()
        .parse()
        .unwrap()
}

/// The balance read model once it shows `expected`: on Postgres a
/// projection waits for every older transaction in the database (other
/// tests' too) before it reads a commit.
async fn balance_becomes(server: &common::Server, client: &Client, expected: Decimal) {
    let mut seen = Decimal::ZERO;
    for _ in 0..100 {
        server.running.state.runner.catch_up_all().await.unwrap();
        seen = balance(client).await;
        if seen == expected {
            return;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    assert_eq!(seen, expected);
}

/// Places a single of 10 (a way) and returns (bet id, accepted k). The
/// amount is the total (docs/protocol.md "Betslip arithmetic"): 20 for
/// each-way, halved into a win part and a place part of 10.
async fn single(
    server: &Server,
    sid: &str,
    event_id: u64,
    price: Value,
    each_way: bool,
) -> (i64, Value) {
    let amount = if each_way { "20" } else { "10" };
    let placed = swarm(
        server,
        sid,
        json!({"command": "do_bet", "rid": 7, "params": {
            "type": 1, "mode": 2, "amount": amount, "each_way": each_way, "source": 42,
            "bets": [{"event_id": event_id, "price": price, "banker": false}]}}),
    )
    .await;
    assert_eq!(placed["data"]["result"], "OK", "{placed}");
    let details = &placed["data"]["details"];
    let stake = if each_way { "20.00" } else { "10.00" };
    assert_eq!(details["amount"], stake, "{placed}");
    (details["bet_id"].as_i64().unwrap(), details["k"].clone())
}

/// Runs the settlement until the bet is settled; its history record.
async fn settled(server: &Server, client: &Client, bet_id: i64) -> Value {
    for _ in 0..200 {
        server.running.state.runner.catch_up_all().await.unwrap();
        server.running.state.settlement.pass().await.unwrap();
        server.running.state.runner.catch_up_all().await.unwrap();
        let history = client
            .post("/api/report/betrecods", json!({"BetId": bet_id}))
            .await;
        let record = history["data"]["list"][0].clone();
        if record["outcome"].as_i64().is_some_and(|o| o > 0) {
            return record;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    panic!("bet {bet_id} never settled");
}

/// 1 + (price - 1) / 4 at 3 places: the place odds of 1/4 each-way terms.
fn quarter_place(price: Decimal) -> Decimal {
    (Decimal::ONE + (price - Decimal::ONE) / dec!(4)).round_dp(3)
}

fn status_of(payout: Decimal, stake: Decimal) -> i64 {
    match payout.cmp(&stake) {
        std::cmp::Ordering::Greater => 3,
        std::cmp::Ordering::Equal => 2,
        std::cmp::Ordering::Less => 1,
    }
}

async fn each_way_and_sp_singles_on_a_race_settle_from_its_result(kind: StoreKind) {
    let server = server(kind).await;
    let (client, sid) = member(&server).await;
    let (race_id, market_id, runners) = open_race(&server);
    assert!((6..=10).contains(&runners.len()));

    // The market's terms are served with the market.
    let got = swarm(
        &server,
        &sid,
        json!({"command": "get", "rid": 5, "params": {"source": "betting",
            "what": {"game": ["id", "team1_name"], "market": ["id", "name", "ew_allowed", "ew_places", "ew_coeff", "sp_allowed"]},
            "where": {"game": {"id": race_id}}}}),
    )
    .await;
    let market = &got["data"]["data"]["game"][race_id.to_string()]["market"][market_id.to_string()];
    assert_eq!(market["name"], "Winner", "{got}");
    assert_eq!(market["ew_allowed"], true);
    assert_eq!(market["ew_coeff"], "0.25");
    assert_eq!(market["sp_allowed"], true);
    let places = market["ew_places"].as_u64().unwrap() as usize;
    assert_eq!(places, if runners.len() >= 8 { 3 } else { 2 });

    // Runner 1 wins, runner 2 is placed, the last runner is unplaced.
    let (winner, placed, unplaced) = (runners[0], runners[1], runners[runners.len() - 1]);
    let before = balance(&client).await;
    let (ew_placed, k_placed) =
        single(&server, &sid, placed.0, json!(placed.1.to_string()), true).await;
    let (ew_winner, k_winner) =
        single(&server, &sid, winner.0, json!(winner.1.to_string()), true).await;
    let (sp_unplaced, k_sp) = single(&server, &sid, unplaced.0, json!(-1), false).await;
    let (sp_placed, _) = single(&server, &sid, placed.0, json!("-1"), false).await;
    assert_eq!(k_sp, Value::Null, "an SP bet has no odds yet");
    assert_eq!(
        k_placed.as_str().unwrap().parse::<Decimal>().unwrap(),
        placed.1
    );
    assert_eq!(
        k_winner.as_str().unwrap().parse::<Decimal>().unwrap(),
        winner.1
    );
    balance_becomes(&server, &client, before - dec!(60)).await;

    // The race's result: every runner, with its starting price.
    let sp = |price: Decimal| price + dec!(0.5);
    let selections = runners
        .iter()
        .enumerate()
        .map(|(position, (event_id, price))| SelectionResult {
            event_id: *event_id,
            market_id,
            outcome: match position {
                0 => SelectionOutcome::Won,
                p if p < places => SelectionOutcome::Placed,
                _ => SelectionOutcome::Lost,
            },
            sp_price: Some(sp(*price)),
        })
        .collect();
    let finished = Finished {
        game_id: race_id,
        score: FinalScore {
            team1: 1,
            team2: 0,
            first_half: None,
            corners: None,
        },
        selections,
    };
    server
        .running
        .state
        .results
        .record(finished, server.running.state.clock.now_ms())
        .await
        .unwrap();

    // Each way on the placed runner: the win part lost, the place part won.
    let record = settled(&server, &client, ew_placed).await;
    let payout = dec!(10) * quarter_place(placed.1);
    assert_eq!(record["payout"], format!("{payout:.2}"), "{record}");
    assert_eq!(record["outcome"], status_of(payout, dec!(20)), "{record}");
    assert_eq!(record["events"][0]["outcome"], 6, "a placed leg");

    // Each way on the winner: both parts won.
    let record = settled(&server, &client, ew_winner).await;
    let won = dec!(10) * winner.1 + dec!(10) * quarter_place(winner.1);
    assert_eq!(record["payout"], format!("{won:.2}"), "{record}");
    assert_eq!(record["outcome"], 3);
    assert_eq!(record["events"][0]["outcome"], 1);

    // SP singles on runners that did not win lose, whatever their SP.
    for bet_id in [sp_unplaced, sp_placed] {
        let record = settled(&server, &client, bet_id).await;
        assert_eq!(record["payout"], "0.00", "{record}");
        assert_eq!(record["outcome"], 1);
    }

    // The starting prices reach the settlement's read model, for the
    // settle call to pass on (BetCommand::Settle::sp_prices).
    let pool = &server.running.state.betting.pool;
    let sps = projections::settlement::sp_prices_of(pool, &sp_placed.to_string())
        .await
        .unwrap();
    assert_eq!(sps, [(placed.0, sp(placed.1))].into());
    let result = server.running.state.results.load(race_id).await.unwrap();
    assert_eq!(result.sp_prices.len(), runners.len());

    let paid = dec!(10) * quarter_place(placed.1) + won;
    balance_becomes(&server, &client, before - dec!(60) + paid).await;
    server.stop().await;
}

/// An SP single on the winner pays the stake times the starting price.
/// The settlement worker passes the starting prices recorded with the
/// race's result on to the Bet: a won SP single pays stake x SP.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn an_sp_single_on_the_winner_pays_at_the_starting_price() {
    let server = server(StoreKind::Sqlite).await;
    let (client, sid) = member(&server).await;
    let (race_id, market_id, runners) = open_race(&server);
    let winner = runners[0];
    let (bet_id, _) = single(&server, &sid, winner.0, json!(-1), false).await;
    let starting_price = winner.1 + dec!(1.25);
    let finished = Finished {
        game_id: race_id,
        score: FinalScore {
            team1: 1,
            team2: 0,
            first_half: None,
            corners: None,
        },
        selections: runners
            .iter()
            .enumerate()
            .map(|(i, (event_id, price))| SelectionResult {
                event_id: *event_id,
                market_id,
                outcome: if i == 0 {
                    SelectionOutcome::Won
                } else {
                    SelectionOutcome::Lost
                },
                sp_price: Some(if i == 0 { starting_price } else { *price }),
            })
            .collect(),
    };
    server
        .running
        .state
        .results
        .record(finished, server.running.state.clock.now_ms())
        .await
        .unwrap();
    let record = settled(&server, &client, bet_id).await;
    let payout = dec!(10) * starting_price;
    assert_eq!(record["payout"], format!("{payout:.2}"), "{record}");
    assert_eq!(record["outcome"], 3);
    server.stop().await;
}
