//! The back office's results desk: traders (and admins) enter a game's
//! result when the feed has none, correct it, and void a game or a market;
//! void bets get their stakes back. Staff id and reason go into the
//! result events' metadata.

mod common;

use commands::sportsbook::feed::Finished;
use common::{backoffice, member, pick, staff_token, swarm, Client, Server};
use domain::result::{FinalScore, SelectionOutcome, SelectionResult};
use serde_json::{json, Value};
use store::StoreKind;

store::on_both_stores!(
    a_trader_enters_corrects_and_voids_a_game_result_and_void_bets_get_their_stakes_back,
    a_voided_market_returns_its_stakes_and_stays_void_when_the_result_comes,
);

async fn balance(client: &Client) -> String {
    client.post("/api/user/getbalance", json!({})).await["data"]["balance"]
        .as_str()
        .unwrap()
        .to_string()
}

/// Runs projections and settlement until the bet's record satisfies `done`.
async fn until(
    server: &Server,
    client: &Client,
    bet_id: i64,
    done: impl Fn(&Value) -> bool,
) -> Value {
    for _ in 0..300 {
        let state = &server.running.state;
        state.runner.catch_up_all().await.unwrap();
        state.settlement.pass().await.unwrap();
        state.runner.catch_up_all().await.unwrap();
        let record = client
            .post("/api/report/betrecods", json!({"BetId": bet_id}))
            .await["data"]["list"][0]
            .clone();
        if done(&record) {
            return record;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    panic!("bet {bet_id} never got there");
}

/// Every projection has applied every committed event (on Postgres the
/// projections may wait for other tests' open transactions).
async fn caught_up(server: &Server) {
    let runner = &server.running.state.runner;
    for name in runner.names() {
        runner
            .settle(name, std::time::Duration::from_secs(10))
            .await
            .unwrap();
    }
}

async fn place(server: &Server, sid: &str, event_id: u64, price: rust_decimal::Decimal) -> i64 {
    let placed = swarm(
        server,
        sid,
        json!({"command": "do_bet", "rid": 3, "params": {
        "type": 1, "mode": 2, "amount": "100",
        "bets": [{"event_id": event_id, "price": price.to_string()}]}}),
    )
    .await;
    placed["data"]["details"]["bet_id"]
        .as_i64()
        .unwrap_or_else(|| panic!("{placed}"))
}

async fn result_metadata(server: &Server, game_id: u64) -> Vec<Value> {
    let rows: Vec<String> = sqlx::query_scalar(
        "SELECT CAST(metadata AS TEXT) FROM events WHERE aggregate_type = 'GameResult' AND aggregate_id = $1 ORDER BY sequence",
    )
    .bind(game_id.to_string())
    .fetch_all(&server.running.state.db.any)
    .await
    .unwrap();
    rows.iter()
        .map(|m| serde_json::from_str(m).unwrap())
        .collect()
}

async fn a_trader_enters_corrects_and_voids_a_game_result_and_void_bets_get_their_stakes_back(
    kind: StoreKind,
) {
    let server = common::start(kind).await;
    let (client, sid) = member(&server).await;
    let trader = staff_token(&server, "trader", "trader1234").await;
    let (event_id, _, game_id, price) = pick(&server);
    let bet_id = place(&server, &sid, event_id, price).await;
    caught_up(&server).await;
    assert_eq!(balance(&client).await, "9900.00");
    let path = format!("/api/backoffice/games/{game_id}/result");

    // Bad input: a clear refusal, nothing recorded.
    let (status, no_reason) = backoffice(
        &server,
        "POST",
        &path,
        Some(&trader),
        Some(json!({"score": {"team1": 1, "team2": 0}})),
    )
    .await;
    assert_eq!(
        (status, no_reason["status"].as_i64()),
        (400, Some(-70009)),
        "{no_reason}"
    );
    let (status, bad_outcome) = backoffice(
        &server,
        "POST",
        &path,
        Some(&trader),
        Some(json!({"score": {"team1": 1, "team2": 0}, "reason": "r",
                    "selections": [{"event_id": event_id, "outcome": "maybe"}]})),
    )
    .await;
    assert_eq!(status, 400, "{bad_outcome}");
    let (status, unknown) = backoffice(
        &server,
        "POST",
        "/api/backoffice/games/1/result",
        Some(&trader),
        Some(json!({"score": {"team1": 1, "team2": 0}, "reason": "r"})),
    )
    .await;
    assert_eq!(
        (status, unknown["status"].as_i64()),
        (404, Some(-404)),
        "{unknown}"
    );
    assert!(result_metadata(&server, game_id).await.is_empty());

    // The feed is silent: the trader enters the result; the pick won.
    let (status, entered) = backoffice(
        &server,
        "POST",
        &path,
        Some(&trader),
        Some(
            json!({"score": {"team1": 1, "team2": 0}, "reason": "feed down",
                    "selections": [{"event_id": event_id, "outcome": "won"}]}),
        ),
    )
    .await;
    assert_eq!(status, 200, "{entered}");
    assert_eq!(entered["data"]["action"], "recorded");
    let won = until(&server, &client, bet_id, |r| r["outcome"] == 3).await;
    let payout = (rust_decimal::Decimal::from(100) * price).round_dp(2);
    assert_eq!(won["payout"], format!("{payout:.2}"));

    // A correction: it lost after all.
    let (status, corrected) = backoffice(
        &server,
        "POST",
        &path,
        Some(&trader),
        Some(
            json!({"score": {"team1": 0, "team2": 1}, "reason": "wrong team",
                    "selections": [{"event_id": event_id, "outcome": "lost"}]}),
        ),
    )
    .await;
    assert_eq!(status, 200, "{corrected}");
    assert_eq!(corrected["data"]["action"], "corrected");
    until(&server, &client, bet_id, |r| r["outcome"] == 1).await;
    caught_up(&server).await;
    assert_eq!(balance(&client).await, "9900.00");

    // The game is void after all: the stake comes back.
    let void = format!("/api/backoffice/games/{game_id}/void");
    let (status, voided) = backoffice(
        &server,
        "POST",
        &void,
        Some(&trader),
        Some(json!({"reason": "match abandoned"})),
    )
    .await;
    assert_eq!(status, 200, "{voided}");
    assert_eq!(voided["data"]["action"], "voided");
    let returned = until(&server, &client, bet_id, |r| r["outcome"] == 2).await;
    assert_eq!(returned["payout"], "100.00");
    caught_up(&server).await;
    assert_eq!(balance(&client).await, "10000.00");
    let (status, again) = backoffice(
        &server,
        "POST",
        &void,
        Some(&trader),
        Some(json!({"reason": "match abandoned"})),
    )
    .await;
    assert_eq!(
        (status, again["data"]["action"].clone()),
        (200, json!("unchanged")),
        "{again}"
    );

    // Who decided, and why, is in every result event.
    let (_, me) = backoffice(&server, "GET", "/api/backoffice/me", Some(&trader), None).await;
    let metadata = result_metadata(&server, game_id).await;
    assert_eq!(metadata.len(), 3);
    for (m, reason) in metadata
        .iter()
        .zip(["feed down", "wrong team", "match abandoned"])
    {
        assert_eq!(m["staff_id"], me["data"]["id"], "{m}");
        assert_eq!(m["staff_role"], "trader");
        assert_eq!(m["reason"], reason);
    }
    server.stop().await;
}

async fn a_voided_market_returns_its_stakes_and_stays_void_when_the_result_comes(kind: StoreKind) {
    let server = common::start(kind).await;
    let (client, sid) = member(&server).await;
    let admin = staff_token(&server, "admin", "admin1234").await;
    let (event_id, market_id, game_id, price) = pick(&server);
    let bet_id = place(&server, &sid, event_id, price).await;
    let (status, unknown) = backoffice(
        &server,
        "POST",
        "/api/backoffice/markets/1/void",
        Some(&admin),
        Some(json!({"reason": "r"})),
    )
    .await;
    assert_eq!(status, 404, "{unknown}");
    let (status, voided) = backoffice(
        &server,
        "POST",
        &format!("/api/backoffice/markets/{market_id}/void"),
        Some(&admin),
        Some(json!({"reason": "wrong line published"})),
    )
    .await;
    assert_eq!(status, 200, "{voided}");
    let record = until(&server, &client, bet_id, |r| r["outcome"] == 2).await;
    assert_eq!(record["payout"], "100.00");

    // The feed's result arrives later and says the pick won: still void.
    let state = &server.running.state;
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
    state.results.record(finished, 1).await.unwrap();
    for _ in 0..3 {
        caught_up(&server).await;
        state.settlement.pass().await.unwrap();
    }
    caught_up(&server).await;
    let record = client
        .post("/api/report/betrecods", json!({"BetId": bet_id}))
        .await["data"]["list"][0]
        .clone();
    assert_eq!(record["outcome"], 2, "{record}");
    assert_eq!(balance(&client).await, "10000.00");
    server.stop().await;
}
