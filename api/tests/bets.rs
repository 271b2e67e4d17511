//! Bets end to end: do_bet over /swarm, the stake taken once, settlement
//! from a game result, a correction re-settling with the difference, the
//! history and the win notification.

mod common;

use commands::sportsbook::feed::Finished;
use common::{http, start, Client};
use domain::result::{FinalScore, SelectionOutcome, SelectionResult};
use rust_decimal::Decimal;
use serde_json::{json, Value};
use store::StoreKind;

store::on_both_stores!(
    a_single_bet_takes_the_stake_once_settles_and_pays_once,
    refusals_answer_their_codes_and_move_no_money,
    a_bet_and_its_stake_commit_together_or_not_at_all,
    a_repeated_do_bet_request_id_answers_the_first_bet_and_takes_one_stake,
    metrics_show_bets_placed_and_refused_stakes_and_the_open_liability,
    betting_statistics_fold_the_members_bet_history,
);

use common::{member, pick, swarm};

async fn balance(client: &Client) -> String {
    client.post("/api/user/getbalance", json!({})).await["data"]["balance"]
        .as_str()
        .unwrap()
        .to_string()
}

/// The balance read model once it shows `expected`. On Postgres the
/// projections read up to the oldest transaction still open anywhere on the
/// server (other tests' too), so one `catch_up_all` may stop short of the
/// newest events.
async fn balance_is(client: &Client, expected: impl AsRef<str>, why: &str) {
    let expected = expected.as_ref();
    let mut seen = String::new();
    for _ in 0..100 {
        seen = balance(client).await;
        if seen == expected {
            return;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    assert_eq!(seen, expected, "{why}");
}

async fn settle_until(server: &common::Server, client: &Client, bet_id: i64, status: i64) -> Value {
    for _ in 0..200 {
        server.running.state.runner.catch_up_all().await.unwrap();
        server.running.state.settlement.pass().await.unwrap();
        server.running.state.runner.catch_up_all().await.unwrap();
        let history = client
            .post("/api/report/betrecods", json!({"BetId": bet_id}))
            .await;
        let record = history["data"]["list"][0].clone();
        if record["outcome"] == status {
            return record;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    panic!("bet {bet_id} never reached status {status}");
}

async fn a_single_bet_takes_the_stake_once_settles_and_pays_once(kind: StoreKind) {
    let server = start(kind).await;
    let (client, sid) = member(&server).await;
    let (event_id, market_id, game_id, price) = pick(&server);
    let before = balance(&client).await;
    assert_eq!(before, "10000.00");
    let placed = swarm(
        &server,
        &sid,
        json!({"command": "do_bet", "rid": 3, "params": {
        "type": 1, "mode": 2, "amount": "100", "each_way": false, "source": 42,
        "bets": [{"event_id": event_id, "price": price.to_string(), "banker": false}]}}),
    )
    .await;
    assert_eq!(placed["code"], 0, "{placed}");
    assert_eq!(placed["data"]["result"], "OK", "{placed}");
    let bet_id = placed["data"]["details"]["bet_id"].as_i64().unwrap();
    assert_eq!(placed["data"]["details"]["amount"], "100.00");
    caught_up(&server).await;
    balance_is(&client, "9900.00", "").await;

    let history = client.post("/api/report/betrecods", json!({})).await;
    let record = &history["data"]["list"][0];
    assert_eq!(record["BetId"], bet_id);
    assert_eq!(record["outcome"], 0);
    assert_eq!(record["events"][0]["outcome"], 3);
    // Team names in place of the feed's W1/W2 (a team's own name may start
    // with a W: Wolves, Werder Bremen).
    let name = record["events"][0]["event_name"].as_str().unwrap();
    assert!(
        !["W1", "W2", "X"].contains(&name) && !name.is_empty(),
        "team names in place of W1/W2: {name}"
    );

    // The game ends and the pick won.
    let won = Finished {
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
    server
        .running
        .state
        .results
        .record(won.clone(), 1)
        .await
        .unwrap();
    let record = settle_until(&server, &client, bet_id, 3).await;
    let payout = (Decimal::from(100) * price).round_dp(2);
    assert_eq!(record["payout"], format!("{payout:.2}"));
    server.running.state.runner.catch_up_all().await.unwrap();
    let after_win = Decimal::from(9900) + payout;
    balance_is(&client, format!("{after_win:.2}"), "").await;
    // Settling again pays nothing more.
    server.running.state.settlement.pass().await.unwrap();
    server.running.state.runner.catch_up_all().await.unwrap();
    balance_is(&client, format!("{after_win:.2}"), "").await;

    // A correction: the pick lost after all; the payout is taken back.
    let lost = Finished {
        selections: vec![SelectionResult {
            event_id,
            market_id,
            outcome: SelectionOutcome::Lost,
            sp_price: None,
        }],
        ..won
    };
    server.running.state.results.correct(lost, 2).await.unwrap();
    let record = settle_until(&server, &client, bet_id, 1).await;
    assert_eq!(record["payout"], "0.00");
    server.running.state.runner.catch_up_all().await.unwrap();
    balance_is(&client, "9900.00", "").await;
    let notes = server
        .running
        .state
        .notifications
        .after(&commands::engagement::notify::Cursor::BEGINNING, 10)
        .await
        .unwrap()
        .0;
    assert!(notes
        .iter()
        .any(|n| n.kind == 1004 && n.body["id"].as_str() == Some(&*bet_id.to_string())));
    server.stop().await;
}

async fn refusals_answer_their_codes_and_move_no_money(kind: StoreKind) {
    let server = start(kind).await;
    let (client, sid) = member(&server).await;
    let (event_id, _, _, price) = pick(&server);
    let bet = |amount: &str, price: Decimal, mode: i64| {
        json!({"command": "do_bet", "rid": 9, "params": {
        "type": 1, "mode": mode, "amount": amount, "bets": [{"event_id": event_id, "price": price.to_string()}]}})
    };
    let poor = swarm(&server, &sid, bet("20000", price, 2)).await;
    assert_eq!(poor["data"]["result"], 2400, "{poor}");
    assert_eq!(poor["data"]["result_text"], "Insufficient balance.");
    let changed = swarm(&server, &sid, bet("10", price + Decimal::ONE, 0)).await;
    assert_eq!(changed["data"]["result"], 1800, "{changed}");
    assert_eq!(changed["data"]["details"][0]["event_id"], event_id);
    let empty = swarm(&server, &sid, bet("0", price, 2)).await;
    assert_ne!(empty["data"]["result"], "OK");
    let gone = swarm(&server, &sid, json!({"command": "do_bet", "rid": 9, "params": {"type": 1, "mode": 2, "amount": "10", "bets": [{"event_id": 1, "price": "2"}]}})).await;
    assert_ne!(gone["data"]["result"], "OK");
    let express_of_one = swarm(&server, &sid, json!({"command": "do_bet", "rid": 9, "params": {"type": 2, "mode": 2, "amount": "10", "bets": [{"event_id": event_id, "price": price.to_string()}]}})).await;
    assert_eq!(
        express_of_one["data"]["result_text"],
        "Add more events to place a bet."
    );
    let max = swarm(&server, &sid, json!({"command": "get_max_bet", "rid": 10, "params": {"type": 1, "bets": [{"event_id": event_id}]}})).await;
    assert_eq!(max["data"]["amount"], "10000.00");
    server.running.state.runner.catch_up_all().await.unwrap();
    balance_is(&client, "10000.00", "").await;
    // Once the main API session has expired, the Swarm login has too (the
    // long-poll session itself is kept alive by polling).
    for _ in 0..20 {
        server.clock.advance(30_000);
        let polled = swarm(&server, &sid, json!({"command": "whats_up", "rid": 11})).await;
        assert_eq!(polled["code"], 0, "{polled}");
    }
    server.clock.advance(1);
    let expired = swarm(&server, &sid, bet("10", price, 2)).await;
    assert_eq!(expired["code"], 12, "{expired}");
    server.stop().await;
}

/// The background pieces alone (projection runner, settlement worker)
/// settle a bet once its games end.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_bet_settles_in_the_background_when_its_game_ends() {
    let server = start(StoreKind::Sqlite).await;
    let (client, sid) = member(&server).await;
    let (event_id, _, _, price) = pick(&server);
    let placed = swarm(&server, &sid, json!({"command": "do_bet", "rid": 3, "params": {
        "type": 1, "mode": 2, "amount": "10", "bets": [{"event_id": event_id, "price": price.to_string()}]}})).await;
    let bet_id = placed["data"]["details"]["bet_id"]
        .as_i64()
        .unwrap_or_else(|| panic!("{placed}"));
    let headers = vec![("Content-Type".to_string(), "application/json".to_string())];
    let ended = http(
        server.addr(),
        "POST",
        "/api/dev/end-bet-games",
        &headers,
        json!({"bet_id": bet_id.to_string()}).to_string().as_bytes(),
    )
    .await;
    assert_eq!(ended.json()["status"], 0, "{}", ended.text());
    for _ in 0..200 {
        let record = client
            .post("/api/report/betrecods", json!({"BetId": bet_id}))
            .await["data"]["list"][0]
            .clone();
        if !record.is_null() && record["outcome"] != 0 {
            assert!(
                [1, 2, 3].contains(&record["outcome"].as_i64().unwrap()),
                "{record}"
            );
            server.stop().await;
            return;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    panic!("bet {bet_id} was not settled in the background");
}

/// Placements of earlier versions went step by step. A crash after the
/// stake was held but before the bet was recorded: the recovery pass gives
/// the stake back. A crash after the bet was recorded: recovery takes the
/// stake, once, however often it runs (here it was already taken).
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn interrupted_placements_are_recovered_without_losing_or_doubling_a_stake() {
    use domain::wallet::{Pot, WalletAction, WalletCommand, WalletId};
    let server = start(StoreKind::Sqlite).await;
    let (client, sid) = member(&server).await;
    let state = server.running.state.clone();
    let user_id = state.accounts.find("demo").await.unwrap().unwrap();
    let wallet = WalletId::new(user_id.clone(), domain::Currency::Cny);
    // (a) held, never recorded.
    let hold = WalletAction::ReserveStake {
        amount: Decimal::from(25),
        pot: Pot::Main,
    };
    state
        .wallets
        .execute(WalletCommand::new(wallet.clone(), "bet:999", hold))
        .await
        .unwrap();
    sqlx::query("INSERT INTO bet_placements (bet_id, member_id, currency, stake, state, updated_ms) VALUES ('999', $1, 'CNY', '25', 'reserving', $2)")
        .bind(&user_id)
        .bind(server.clock_now())
        .execute(&state.db.any)
        .await
        .unwrap();
    // (b) a normal bet whose last steps are replayed as if interrupted.
    let (event_id, _, _, price) = pick(&server);
    let placed = swarm(&server, &sid, json!({"command": "do_bet", "rid": 3, "params": {
        "type": 1, "mode": 2, "amount": "10", "bets": [{"event_id": event_id, "price": price.to_string()}]}})).await;
    let bet_id = placed["data"]["details"]["bet_id"].as_i64().unwrap();
    sqlx::query("INSERT INTO bet_placements (bet_id, member_id, currency, stake, state, updated_ms) VALUES ($1, $2, 'CNY', '10', 'placed', $3)")
        .bind(bet_id.to_string())
        .bind(&user_id)
        .bind(server.clock_now())
        .execute(&state.db.any)
        .await
        .unwrap();
    assert_eq!(
        state.wallets.load(&wallet).await.unwrap().ledger.reserved,
        Decimal::from(25)
    );
    server
        .clock
        .advance(commands::sportsbook::bets::RECOVER_AFTER_MS + 1);
    assert_eq!(
        state
            .betting
            .bets
            .recover(commands::sportsbook::bets::RECOVER_AFTER_MS)
            .await
            .unwrap(),
        2
    );
    assert_eq!(
        state
            .betting
            .bets
            .recover(commands::sportsbook::bets::RECOVER_AFTER_MS)
            .await
            .unwrap(),
        0
    );
    let after = state.wallets.load(&wallet).await.unwrap();
    assert_eq!(after.ledger.reserved, Decimal::ZERO, "no stake left held");
    assert_eq!(
        after.balances().main,
        Decimal::from(10_000) - Decimal::from(10),
        "the bet's stake taken once, the orphan released"
    );
    let _ = client;
    server.stop().await;
}

/// The bet and its stake commit together: when the bet's row cannot be
/// written (here its id is already taken in the store), the stake stays in
/// the wallet, and the next bet goes through.
async fn a_bet_and_its_stake_commit_together_or_not_at_all(kind: StoreKind) {
    {
        use domain::wallet::WalletId;
        let server = start(kind).await;
        let (_client, sid) = member(&server).await;
        let state = server.running.state.clone();
        let user_id = state.accounts.find("demo").await.unwrap().unwrap();
        let wallet = WalletId::new(user_id.clone(), domain::Currency::Cny);
        let (event_id, _, _, price) = pick(&server);
        let bet = |rid: i64| {
            json!({"command": "do_bet", "rid": rid, "params": {
            "type": 1, "mode": 2, "amount": "10", "bets": [{"event_id": event_id, "price": price.to_string()}]}})
        };
        let first = swarm(&server, &sid, bet(1)).await;
        let first_id = first["data"]["details"]["bet_id"].as_i64().unwrap();
        // Squat the next ids so the next placement's Bet row collides.
        for id in first_id + 1..first_id + 200 {
            sqlx::query("INSERT INTO events (aggregate_type, aggregate_id, sequence, event_type, event_version, payload, metadata) VALUES ('Bet', $1, 1, 'Squat', '1', '{}', '{}')")
                .bind(id.to_string())
                .execute(&state.db.any)
                .await
                .unwrap();
        }
        let before = state.wallets.load(&wallet).await.unwrap();
        let refused = swarm(&server, &sid, bet(2)).await;
        assert_eq!(refused["data"]["result"], -1, "{refused}");
        state.wallets.clear_cache();
        let after = state.wallets.load(&wallet).await.unwrap();
        assert_eq!(
            after.balances(),
            before.balances(),
            "no stake moved without its bet"
        );
        assert_eq!(after.ledger.reserved, Decimal::ZERO);
        server.stop().await;
    }
}

/// `do_bet` with a `request_id`: the same request again (one after the
/// other, or two at once) answers the first bet and places nothing more;
/// another request id places another bet; a request id over 64 characters
/// is refused (protocol code 3) and places nothing.
async fn a_repeated_do_bet_request_id_answers_the_first_bet_and_takes_one_stake(kind: StoreKind) {
    let server = start(kind).await;
    let (client, sid) = member(&server).await;
    let (event_id, _, _, price) = pick(&server);
    let bet = |request_id: &str| {
        json!({"command": "do_bet", "rid": 5, "params": {
        "type": 1, "mode": 2, "amount": "10", "request_id": request_id,
        "bets": [{"event_id": event_id, "price": price.to_string()}]}})
    };
    let first = swarm(&server, &sid, bet("slip-1")).await;
    assert_eq!(first["data"]["result"], "OK", "{first}");
    let again = swarm(&server, &sid, bet("slip-1")).await;
    assert_eq!(again["data"]["result"], "OK", "{again}");
    assert_eq!(
        again["data"]["details"]["bet_id"],
        first["data"]["details"]["bet_id"]
    );
    assert_eq!(again["data"]["details"]["amount"], "10.00");
    caught_up(&server).await;
    balance_is(&client, "9990.00", "one stake taken").await;

    // Two at once with a new request id: one bet between them.
    let (one, two) = tokio::join!(
        swarm(&server, &sid, bet("slip-2")),
        swarm(&server, &sid, bet("slip-2"))
    );
    assert_eq!(one["data"]["result"], "OK", "{one}");
    assert_eq!(two["data"]["result"], "OK", "{two}");
    assert_eq!(
        one["data"]["details"]["bet_id"],
        two["data"]["details"]["bet_id"]
    );
    assert_ne!(
        one["data"]["details"]["bet_id"],
        first["data"]["details"]["bet_id"]
    );
    let long = swarm(&server, &sid, bet(&"x".repeat(65))).await;
    assert_eq!(long["code"], 3, "{long}");
    caught_up(&server).await;
    balance_is(&client, "9980.00", "two bets, two stakes").await;
    let history = client.post("/api/report/betrecods", json!({})).await;
    assert_eq!(history["data"]["total"], 2, "{history}");
    server.stop().await;
}

/// Every projection has applied every committed event (on Postgres the
/// projections may wait for other tests' open transactions).
async fn caught_up(server: &common::Server) {
    let runner = &server.running.state.runner;
    for name in runner.names() {
        runner
            .settle(name, std::time::Duration::from_secs(10))
            .await
            .unwrap();
    }
}

trait ClockNow {
    fn clock_now(&self) -> i64;
}

impl ClockNow for common::Server {
    fn clock_now(&self) -> i64 {
        use commands::platform::clock::Clock;
        self.clock.now_ms()
    }
}

/// Operators' figures on `/metrics`: bets placed (with their stakes) and
/// refused by code as this process answered them; bets by status and the
/// open liability as the read models have them.
async fn metrics_show_bets_placed_and_refused_stakes_and_the_open_liability(kind: StoreKind) {
    let server = start(kind).await;
    let (_client, sid) = member(&server).await;
    let (event_id, _, _, price) = pick(&server);
    let bet = |amount: &str| {
        json!({"command": "do_bet", "rid": 5, "params": {
        "type": 1, "mode": 2, "amount": amount, "bets": [{"event_id": event_id, "price": price.to_string()}]}})
    };
    let placed = swarm(&server, &sid, bet("40")).await;
    assert_eq!(placed["data"]["result"], "OK", "{placed}");
    let win = placed["data"]["details"]["possible_win"]
        .as_str()
        .unwrap()
        .to_string();
    let poor = swarm(&server, &sid, bet("20000")).await;
    assert_eq!(poor["data"]["result"], 2400, "{poor}");
    caught_up(&server).await;
    let state = &server.running.state;
    state
        .business_metrics
        .refresh(&state.db.any, state.db.kind())
        .await
        .unwrap();
    let text = common::http(server.addr(), "GET", "/metrics", &[], b"")
        .await
        .text();
    let line = |prefix: &str| -> f64 {
        text.lines()
            .find_map(|l| l.strip_prefix(prefix))
            .unwrap_or_else(|| panic!("no {prefix} in\n{text}"))
            .trim()
            .parse()
            .unwrap()
    };
    assert_eq!(line(r#"bets_placed_total{currency="CNY"} "#), 1.0);
    assert_eq!(line(r#"bet_stakes_total{currency="CNY"} "#), 40.0);
    assert_eq!(line(r#"bets_refused_total{code="2400"} "#), 1.0);
    assert_eq!(line(r#"bets{currency="CNY",status="open"} "#), 1.0);
    assert_eq!(line(r#"bets_staked{currency="CNY",status="open"} "#), 40.0);
    // Every status of a currency with bets reads, 0 where none are.
    assert_eq!(line(r#"bets{currency="CNY",status="won"} "#), 0.0);
    let liability = line(r#"open_liability{currency="CNY"} "#);
    assert!(
        (liability - win.parse::<f64>().unwrap()).abs() < 0.01,
        "{liability} vs {win}"
    );
    server.stop().await;
}

/// `report/betanalytics` (the `/betdata` page): turnover, payout, profit,
/// outcomes and splits of the member's bets in a period, from the bet
/// history read model; the period is bounded.
async fn betting_statistics_fold_the_members_bet_history(kind: StoreKind) {
    let server = start(kind).await;
    let (client, sid) = member(&server).await;
    let (event_id, market_id, game_id, price) = pick(&server);
    let mut bet_ids = vec![];
    for (rid, amount) in [(3, "100"), (4, "50")] {
        let placed = swarm(
            &server,
            &sid,
            json!({"command": "do_bet", "rid": rid, "params": {
            "type": 1, "mode": 2, "amount": amount, "each_way": false, "source": 42,
            "bets": [{"event_id": event_id, "price": price.to_string(), "banker": false}]}}),
        )
        .await;
        assert_eq!(placed["data"]["result"], "OK", "{placed}");
        bet_ids.push(placed["data"]["details"]["bet_id"].as_i64().unwrap());
    }
    caught_up(&server).await;
    let open = client.post("/api/report/betanalytics", json!({})).await;
    assert_eq!(open["status"], 0, "{open}");
    let data = &open["data"];
    assert_eq!(data["total"]["count"], 2, "{open}");
    assert_eq!(data["total"]["stake"], "150.00");
    assert_eq!(data["total"]["payout"], "0.00");
    assert_eq!(
        data["total"]["profit"], "0.00",
        "open bets have not paid yet"
    );
    assert_eq!(data["open"], 2);
    assert_eq!(data["win_rate"], Value::Null);
    assert_eq!(data["currency"], "CNY");

    let won = Finished {
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
    server.running.state.results.record(won, 1).await.unwrap();
    for bet_id in &bet_ids {
        settle_until(&server, &client, *bet_id, 3).await;
    }
    let settled = client.post("/api/report/betanalytics", json!({})).await;
    let data = &settled["data"];
    let payout = (Decimal::from(150) * price).round_dp(2);
    assert_eq!(data["total"]["payout"], format!("{payout:.2}"), "{settled}");
    assert_eq!(
        data["total"]["profit"],
        format!("{:.2}", payout - Decimal::from(150))
    );
    assert_eq!(
        (data["won"].as_i64(), data["open"].as_i64()),
        (Some(2), Some(0))
    );
    assert_eq!(data["win_rate"], "100");
    assert_eq!(
        data["biggest_win"],
        format!("{:.2}", (Decimal::from(100) * price).round_dp(2))
    );
    assert_eq!(data["by_type"][0]["type"], 1);
    assert_eq!(data["by_type"][0]["count"], 2);
    assert_eq!(data["by_sport"][0]["count"], 2);
    assert!(!data["by_sport"][0]["sport"].as_str().unwrap().is_empty());

    // A period before the bets: nothing; a reversed or too long one: -70009.
    let now = server.clock_now_s();
    let before = client
        .post(
            "/api/report/betanalytics",
            json!({"from_date": now - 10 * 86_400, "to_date": now - 9 * 86_400}),
        )
        .await;
    assert_eq!(before["data"]["total"]["count"], 0, "{before}");
    for bad in [
        json!({"from_date": now, "to_date": now - 1}),
        json!({"from_date": now - 367 * 86_400, "to_date": now}),
        json!({"from_date": "yesterday"}),
        // Extreme dates: refused, not an overflow.
        json!({"from_date": -1, "to_date": i64::MAX}),
        json!({"from_date": i64::MIN, "to_date": 0}),
    ] {
        let refused = client.post("/api/report/betanalytics", bad.clone()).await;
        assert_eq!(refused["status"], -70009, "{bad}: {refused}");
    }
    // Another member sees none of these bets.
    let mut other = Client::new(&server).await;
    assert_eq!(
        other
            .register_phone(&server, "13700137001", "abc12345")
            .await["status"],
        0
    );
    let theirs = other.post("/api/report/betanalytics", json!({})).await;
    assert_eq!(theirs["data"]["total"]["count"], 0, "{theirs}");
    server.stop().await;
}

trait ClockSeconds {
    fn clock_now_s(&self) -> i64;
}

impl ClockSeconds for common::Server {
    fn clock_now_s(&self) -> i64 {
        use commands::platform::clock::Clock;
        self.clock.now_ms() / 1000
    }
}
