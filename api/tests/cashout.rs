//! Cash-out, auto cash-out and super bets with counter offers, through the
//! real server: Swarm for the member, the back office for support.

mod common;

use commands::sportsbook::feed::Finished;
use common::{backoffice, member, staff_token, start_with, swarm, Client, Server};
use domain::catalogue::GameType;
use domain::result::{FinalScore, SelectionOutcome, SelectionResult};
use rust_decimal::Decimal;
use serde_json::{json, Value};
use store::StoreKind;

store::on_both_stores!(
    a_full_cash_out_pays_the_formula_amount_once_and_closes_the_bet,
    a_partial_cash_out_keeps_the_rest_running_and_settlement_pays_on_it,
    a_cash_out_racing_the_settlement_lets_exactly_one_win,
    concurrent_partial_cash_outs_never_pay_more_than_the_bet_is_worth,
    an_auto_cash_out_rule_fires_on_the_price_move_that_crosses_it,
    a_super_bet_waits_for_support_and_the_member_accepts_the_counter_offer,
    a_declined_super_bet_gives_the_stake_back,
    a_free_bet_is_staked_once_and_pays_its_winnings_only,
);

/// A server whose feed holds prices still (the tests move them).
async fn server(kind: StoreKind) -> Server {
    let mut config = common::config(true);
    config.feed.tick_ms = 3_600_000;
    start_with(kind, config).await
}

/// A prematch selection priced at 2 or more (room to move down): event,
/// game and price; its market is looked up when the game ends.
fn selection(server: &Server) -> (u64, u64, Decimal) {
    server.running.state.live.read(|c| {
        c.games()
            .values()
            .filter(|g| g.game_type == GameType::Prematch && !g.is_blocked)
            .flat_map(|g| c.markets_of(g.id).map(move |m| (g.id, m)))
            .filter(|(_, m)| !m.is_suspended)
            .flat_map(|(g, m)| c.events_of(m.id).map(move |e| (g, e)))
            .find(|(_, e)| e.price >= Decimal::from(2) && !e.is_suspended)
            .map(|(g, e)| (e.id, g, e.price))
            .unwrap()
    })
}

fn set_price(server: &Server, event_id: u64, price: Decimal) {
    server.running.state.live.update(|c| {
        let mut event = c.events().get(&event_id).cloned().unwrap();
        event.price = price;
        c.insert_event(event).unwrap();
    });
}

async fn bet(
    server: &Server,
    sid: &str,
    event_id: u64,
    price: Decimal,
    amount: &str,
    mode: i64,
) -> Value {
    swarm(
        server,
        sid,
        json!({"command": "do_bet", "rid": 10, "params": {
        "type": 1, "mode": mode, "amount": amount,
        "bets": [{"event_id": event_id, "price": price.to_string()}]}}),
    )
    .await
}

async fn quote(server: &Server, sid: &str, bet_id: i64) -> Value {
    let answer = swarm(
        server,
        sid,
        json!({"command": "calculate_cashout_amount", "rid": 11,
        "params": {"bet_ids": [bet_id]}}),
    )
    .await;
    answer["data"]["details"][0]["CashoutAmount"].clone()
}

fn dec(v: &Value) -> Decimal {
    match v {
        Value::String(s) => s.parse().unwrap(),
        Value::Number(n) => n.to_string().parse().unwrap(),
        other => panic!("not an amount: {other}"),
    }
}

async fn main_balance(server: &Server) -> Decimal {
    let user_id = server
        .running
        .state
        .accounts
        .find("demo")
        .await
        .unwrap()
        .unwrap();
    let wallet = domain::wallet::WalletId::new(user_id, domain::Currency::Cny);
    let w = server.running.state.wallets.load(&wallet).await.unwrap();
    assert_eq!(w.ledger.reserved, Decimal::ZERO, "no stake left held");
    w.balances().main
}

/// Waits until the bet history read model has every committed event (on
/// Postgres a transaction still running elsewhere holds the horizon back).
async fn settle_bets(server: &Server) {
    server
        .running
        .state
        .runner
        .settle(projections::bets::NAME, std::time::Duration::from_secs(10))
        .await
        .unwrap();
}

async fn record(server: &Server, client: &Client, bet_id: i64) -> Value {
    // Each request differs (the duplicate-submission guard refuses a repeat).
    static N: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    server.running.state.runner.catch_up_all().await.unwrap();
    settle_bets(server).await;
    let history = client
        .post("/api/report/betrecods", json!({"BetId": bet_id, "n": n}))
        .await;
    history["data"]["list"][0].clone()
}

async fn a_full_cash_out_pays_the_formula_amount_once_and_closes_the_bet(kind: StoreKind) {
    let server = server(kind).await;
    let (client, sid) = member(&server).await;
    let (event_id, _, price) = selection(&server);
    let start = main_balance(&server).await;
    let placed = bet(&server, &sid, event_id, price, "10", 2).await;
    let bet_id = placed["data"]["details"]["bet_id"].as_i64().unwrap();
    // At the price it was placed at: k / price * 10 * 0.9 = 9.0.
    assert_eq!(dec(&quote(&server, &sid, bet_id).await), Decimal::from(9));
    // The price halves: the bet is worth twice as much.
    let now = (price / Decimal::from(2))
        .round_dp(3)
        .max(Decimal::new(101, 2));
    set_price(&server, event_id, now);
    let expected = (price / now * Decimal::from(10) * Decimal::new(9, 1)).round_dp(1);
    assert_eq!(dec(&quote(&server, &sid, bet_id).await), expected);
    // The client's old amount: refused with the new one.
    let stale = swarm(
        &server,
        &sid,
        json!({"command": "cashout", "rid": 12,
        "params": {"bet_id": bet_id, "price": 9.0}}),
    )
    .await;
    assert_eq!(stale["data"]["result"], "Fail", "{stale}");
    assert_eq!(dec(&stale["data"]["details"]["new_price"]), expected);
    let done = swarm(
        &server,
        &sid,
        json!({"command": "cashout", "rid": 13,
        "params": {"bet_id": bet_id, "price": expected.to_string()}}),
    )
    .await;
    assert_eq!(done["data"]["result"], "Ok", "{done}");
    assert_eq!(done["data"]["details"]["status"], 5);
    assert_eq!(
        main_balance(&server).await,
        start - Decimal::from(10) + expected
    );
    // Once only.
    let again = swarm(
        &server,
        &sid,
        json!({"command": "cashout", "rid": 14,
        "params": {"bet_id": bet_id, "price": expected.to_string()}}),
    )
    .await;
    assert_eq!(again["data"]["result"], "NotAvailable", "{again}");
    assert!(quote(&server, &sid, bet_id).await.is_null());
    assert_eq!(
        main_balance(&server).await,
        start - Decimal::from(10) + expected
    );
    let r = record(&server, &client, bet_id).await;
    assert_eq!(r["outcome"], 5, "{r}");
    assert_eq!(dec(&r["payout"]), expected);
    // A suspended selection suspends the cash-out.
    let (other, _, other_price) = selection(&server);
    let second = bet(&server, &sid, other, other_price, "5", 2).await;
    let second_id = second["data"]["details"]["bet_id"].as_i64().unwrap();
    server.running.state.live.update(|c| {
        let mut e = c.events().get(&other).cloned().unwrap();
        e.is_suspended = true;
        c.insert_event(e).unwrap();
    });
    assert!(quote(&server, &sid, second_id).await.is_null());
    server.stop().await;
}

async fn settled(server: &Server, client: &Client, bet_id: i64) -> Value {
    for _ in 0..200 {
        server.running.state.runner.catch_up_all().await.unwrap();
        server.running.state.settlement.pass().await.unwrap();
        let r = record(server, client, bet_id).await;
        if ![0, -5].contains(&r["outcome"].as_i64().unwrap_or(0)) {
            return r;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    panic!("bet {bet_id} not settled");
}

async fn a_partial_cash_out_keeps_the_rest_running_and_settlement_pays_on_it(kind: StoreKind) {
    let server = server(kind).await;
    let (client, sid) = member(&server).await;
    let (event_id, game_id, price) = selection(&server);
    let start = main_balance(&server).await;
    let placed = bet(&server, &sid, event_id, price, "10", 2).await;
    let bet_id = placed["data"]["details"]["bet_id"].as_i64().unwrap();
    // Current 9.0; cash out 3.0 of it: a third of the stake stops running.
    let over = swarm(
        &server,
        &sid,
        json!({"command": "cashout", "rid": 12,
        "params": {"bet_id": bet_id, "price": 9.0, "partial_price": 9.5}}),
    )
    .await;
    assert_eq!(
        over["data"]["result"], "Fail",
        "partial above the amount: {over}"
    );
    let part = swarm(
        &server,
        &sid,
        json!({"command": "cashout", "rid": 13,
        "params": {"bet_id": bet_id, "price": 9.0, "partial_price": 3, "request_id": "r-1"}}),
    )
    .await;
    assert_eq!(part["data"]["result"], "Ok", "{part}");
    // The same request sent again (its answer lost): the first outcome, no
    // second cash-out.
    let repeat = swarm(
        &server,
        &sid,
        json!({"command": "cashout", "rid": 14,
        "params": {"bet_id": bet_id, "price": 9.0, "partial_price": 3, "request_id": "r-1"}}),
    )
    .await;
    assert_eq!(repeat["data"], part["data"], "{repeat}");
    assert_eq!(part["data"]["details"]["status"], 0);
    let remaining = dec(&part["data"]["details"]["remaining_stake"]);
    // The stake given up is rounded up to the cent: 10 * 3 / 9 = 3.34.
    assert_eq!(remaining, Decimal::new(666, 2));
    assert_eq!(
        main_balance(&server).await,
        start - Decimal::from(10) + Decimal::from(3)
    );
    win_on(&server.running.state, game_id, event_id).await;
    let r = settled(&server, &client, bet_id).await;
    assert_eq!(r["outcome"], 3, "{r}");
    let payout = (remaining * price).round_dp(2);
    assert_eq!(
        main_balance(&server).await,
        start - Decimal::from(10) + Decimal::from(3) + payout,
        "the win is paid on the remaining stake only"
    );
    server.stop().await;
}

async fn a_cash_out_racing_the_settlement_lets_exactly_one_win(kind: StoreKind) {
    let server = server(kind).await;
    let (client, sid) = member(&server).await;
    let mut checked = 0;
    for round in 0..4 {
        let (event_id, game_id, price) = selection(&server);
        let start = main_balance(&server).await;
        let placed = bet(&server, &sid, event_id, price, "10", 2).await;
        let bet_id = placed["data"]["details"]["bet_id"].as_i64().unwrap();
        server.running.state.runner.catch_up_all().await.unwrap();
        let state = server.running.state.clone();
        let settle = tokio::spawn(async move {
            win_on(&state, game_id, event_id).await;
            state.runner.catch_up_all().await.unwrap();
            state.settlement.pass().await.unwrap();
        });
        let cash = swarm(
            &server,
            &sid,
            json!({"command": "cashout", "rid": 20 + round,
            "params": {"bet_id": bet_id, "price": 9.0}}),
        )
        .await;
        settle.await.unwrap();
        let r = settled(&server, &client, bet_id).await;
        let end = main_balance(&server).await;
        if cash["data"]["result"] == "Ok" {
            assert_eq!(r["outcome"], 5, "{r}");
            assert_eq!(
                end,
                start - Decimal::from(10) + Decimal::from(9),
                "cash-out only"
            );
        } else {
            assert_eq!(r["outcome"], 3, "{r}");
            assert_eq!(
                end,
                start - Decimal::from(10) + (Decimal::from(10) * price).round_dp(2),
                "win only"
            );
        }
        checked += 1;
        // Let the game be replaced for the next round.
        server.running.state.live.update(|c| {
            c.remove_game(game_id);
        });
    }
    assert_eq!(checked, 4);
    server.stop().await;
}

async fn concurrent_partial_cash_outs_never_pay_more_than_the_bet_is_worth(kind: StoreKind) {
    let server = server(kind).await;
    let (_client, sid) = member(&server).await;
    let (event_id, _, price) = selection(&server);
    let start = main_balance(&server).await;
    let placed = bet(&server, &sid, event_id, price, "10", 2).await;
    let bet_id = placed["data"]["details"]["bet_id"].as_i64().unwrap();
    // A full cash-out pays k / price x 10 x 0.9 = 9.0 now.
    let full = dec(&quote(&server, &sid, bet_id).await);
    assert_eq!(full, Decimal::from(9));
    // Partial cash-outs, each quoted on the whole stake, sent at once: each
    // alone would leave a stake worth exactly 9.0 less what it pays.
    let partials = ["2", "3", "4", "1.5", "2.5", "3.5"];
    let requests = partials.iter().enumerate().map(|(i, partial)| {
        swarm(
            &server,
            &sid,
            json!({"command": "cashout", "rid": 60 + i,
            "params": {"bet_id": bet_id, "price": full.to_string(), "partial_price": partial,
                       "request_id": format!("race-{i}")}}),
        )
    });
    let answers = futures::future::join_all(requests).await;
    let mut paid = Decimal::ZERO;
    for answer in &answers {
        match answer["data"]["result"].as_str() {
            Some("Ok") => paid += dec(&answer["data"]["details"]["cash_out_amount"]),
            Some("Fail") => {}
            _ => panic!("neither paid nor refused with a new price: {answer}"),
        }
    }
    assert!(paid > Decimal::ZERO, "one of them is paid: {answers:?}");
    // What remains is worth what a full cash-out of it pays now.
    let left = quote(&server, &sid, bet_id).await;
    let left = if left.is_null() {
        Decimal::ZERO
    } else {
        dec(&left)
    };
    assert!(
        paid + left <= full,
        "paid {paid} and {left} left: more than the {full} the bet was worth ({answers:?})"
    );
    // The money moved is the money the cash-outs recorded, once each.
    let events = server
        .running
        .state
        .betting
        .bets
        .events(&bet_id.to_string())
        .await
        .unwrap();
    let (recorded, stake_given_up, remaining) = events.iter().fold(
        (Decimal::ZERO, Decimal::ZERO, Decimal::from(10)),
        |(sum, given, left), e| match e {
            domain::bet::BetEvent::BetCashedOut {
                amount,
                stake_part,
                remaining_stake,
                ..
            } => (sum + amount, given + stake_part, *remaining_stake),
            _ => (sum, given, left),
        },
    );
    assert_eq!(recorded, paid);
    assert_eq!(stake_given_up + remaining, Decimal::from(10));
    assert_eq!(
        main_balance(&server).await,
        start - Decimal::from(10) + paid,
        "the wallet holds the stake taken and the cash-outs paid, nothing else"
    );
    server.stop().await;
}

/// Ends the game with a result where the selection `event_id` wins.
async fn win_on(state: &api::app::AppState, game_id: u64, event_id: u64) {
    let market_id = state
        .live
        .read(|c| c.events().get(&event_id).map(|e| e.market_id))
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
    state.results.record(finished, 1).await.unwrap();
}

async fn an_auto_cash_out_rule_fires_on_the_price_move_that_crosses_it(kind: StoreKind) {
    let server = server(kind).await;
    let (client, sid) = member(&server).await;
    let (event_id, _, price) = selection(&server);
    let start = main_balance(&server).await;
    let placed = bet(&server, &sid, event_id, price, "10", 2).await;
    let bet_id = placed["data"]["details"]["bet_id"].as_i64().unwrap();
    // Bounds: at least 1% above 9.0, at most 1% below the possible win.
    let low = swarm(
        &server,
        &sid,
        json!({"command": "set_bet_auto_cashout", "rid": 12,
        "params": {"bet_id": bet_id, "min_amount": "9.05"}}),
    )
    .await;
    assert_eq!(low["data"]["result"], 1109, "{low}");
    assert_eq!(low["data"]["details"]["min"], "9.09");
    let partial_over = swarm(
        &server,
        &sid,
        json!({"command": "set_bet_auto_cashout", "rid": 13,
        "params": {"bet_id": bet_id, "min_amount": "12", "partial_amount": "12.5"}}),
    )
    .await;
    assert_eq!(partial_over["data"]["result"], 1109, "{partial_over}");
    let set = swarm(
        &server,
        &sid,
        json!({"command": "set_bet_auto_cashout", "rid": 14,
        "params": {"bet_id": bet_id, "min_amount": "12"}}),
    )
    .await;
    assert_eq!(set["data"]["result"], 0, "{set}");
    let rule = swarm(
        &server,
        &sid,
        json!({"command": "get_bet_auto_cashout", "rid": 15,
        "params": {"bet_id": bet_id}}),
    )
    .await;
    assert_eq!(rule["data"]["details"]["MinAmount"], "12.00", "{rule}");
    server.running.state.runner.catch_up_all().await.unwrap();
    // A move that does not reach the trigger: nothing happens.
    let small = (price * Decimal::new(95, 2)).round_dp(3);
    set_price(&server, event_id, small);
    tokio::time::sleep(std::time::Duration::from_millis(600)).await;
    assert_eq!(record(&server, &client, bet_id).await["outcome"], 0);
    // The move that crosses it: fired within a second.
    let now = (price * Decimal::new(7, 1))
        .round_dp(3)
        .max(Decimal::new(101, 2));
    set_price(&server, event_id, now);
    let moved_at = std::time::Instant::now();
    let expected = (price / now * Decimal::from(9)).round_dp(1);
    loop {
        let r = record(&server, &client, bet_id).await;
        if r["outcome"] == 5 {
            break;
        }
        assert!(
            moved_at.elapsed() < std::time::Duration::from_secs(1),
            "rule did not fire in time: {r}"
        );
        tokio::time::sleep(std::time::Duration::from_millis(25)).await;
    }
    assert_eq!(
        main_balance(&server).await,
        start - Decimal::from(10) + expected
    );
    let gone = swarm(
        &server,
        &sid,
        json!({"command": "get_bet_auto_cashout", "rid": 16,
        "params": {"bet_id": bet_id}}),
    )
    .await;
    assert!(gone["data"]["details"].is_null(), "{gone}");
    // Every rule change and the firing are events of the bet.
    let events = server
        .running
        .state
        .betting
        .bets
        .events(&bet_id.to_string())
        .await
        .unwrap();
    let kinds: Vec<&str> = events
        .iter()
        .map(|e| match e {
            domain::bet::BetEvent::AutoCashoutSet { .. } => "set",
            domain::bet::BetEvent::BetCashedOut { by_rule: true, .. } => "fired",
            _ => "other",
        })
        .collect();
    assert_eq!(kinds, ["other", "set", "fired"]);
    server.stop().await;
}

async fn a_super_bet_waits_for_support_and_the_member_accepts_the_counter_offer(kind: StoreKind) {
    let server = server(kind).await;
    let (client, sid) = member(&server).await;
    let (event_id, _, price) = selection(&server);
    let start = main_balance_held(&server).await;
    let placed = bet(&server, &sid, event_id, price, "100", -1).await;
    assert_eq!(placed["data"]["result"], "OK", "{placed}");
    assert_eq!(placed["data"]["details"]["status"], -5);
    let bet_id = placed["data"]["details"]["bet_id"].as_i64().unwrap();
    // One active super bet per member.
    let second = bet(&server, &sid, event_id, price, "50", -1).await;
    assert_eq!(second["data"]["result"], 1026, "{second}");
    // The stake is held, not taken.
    let (main, held) = balances(&server).await;
    assert_eq!(
        (main, held),
        (start - Decimal::from(100), Decimal::from(100))
    );
    settle_bets(&server).await;
    let support = staff_token(&server, "support", "support1234").await;
    let (status, queue) = backoffice(
        &server,
        "GET",
        "/api/backoffice/counter-offers",
        Some(&support),
        None,
    )
    .await;
    assert_eq!(status, 200);
    let entry = queue["data"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["bet_id"] == bet_id)
        .cloned()
        .unwrap();
    assert_eq!(entry["username"], "demo");
    let (_, item) = backoffice(
        &server,
        "GET",
        &format!("/api/backoffice/counter-offers/{bet_id}"),
        Some(&support),
        None,
    )
    .await;
    assert_eq!(item["data"]["member"]["username"], "demo", "{item}");
    // Bad offers are refused with their codes.
    let (status, none) = backoffice(
        &server,
        "POST",
        &format!("/api/backoffice/counter-offers/{bet_id}/offer"),
        Some(&support),
        Some(json!({"reason": "no terms"})),
    )
    .await;
    assert_eq!(
        (status, none["status"].as_i64()),
        (400, Some(1109)),
        "{none}"
    );
    let (status, above) = backoffice(
        &server,
        "POST",
        &format!("/api/backoffice/counter-offers/{bet_id}/offer"),
        Some(&support),
        Some(json!({"amount": "150", "reason": "too much"})),
    )
    .await;
    assert_eq!(
        (status, above["status"].as_i64()),
        (400, Some(1109)),
        "{above}"
    );
    // The member cannot answer before there is an offer.
    let early = swarm(
        &server,
        &sid,
        json!({"command": "super_bet_answer", "rid": 30,
        "params": {"bet_id": bet_id, "accept": true}}),
    )
    .await;
    assert_eq!(early["data"]["result"], 1027, "{early}");
    let (status, offered) = backoffice(
        &server,
        "POST",
        &format!("/api/backoffice/counter-offers/{bet_id}/offer"),
        Some(&support),
        Some(json!({"amount": "60", "reason": "liability"})),
    )
    .await;
    assert_eq!(status, 200, "{offered}");
    server.running.state.runner.catch_up_all().await.unwrap();
    let r = record(&server, &client, bet_id).await;
    assert_eq!(r["super_bet_status"], 0, "{r}");
    assert_eq!(dec(&r["counter_offer"]["amount"]), Decimal::from(60), "{r}");
    let accepted = swarm(
        &server,
        &sid,
        json!({"command": "super_bet_answer", "rid": 31,
        "params": {"bet_id": bet_id, "accept": true}}),
    )
    .await;
    assert_eq!(accepted["data"]["result"], 0, "{accepted}");
    assert_eq!(accepted["data"]["details"]["super_bet_status"], 1);
    assert_eq!(accepted["data"]["details"]["status"], 0);
    assert_eq!(
        balances(&server).await,
        (start - Decimal::from(60), Decimal::ZERO),
        "60 taken once, 40 back"
    );
    let r = record(&server, &client, bet_id).await;
    assert_eq!(
        (r["outcome"].clone(), r["super_bet_status"].clone()),
        (json!(0), json!(1)),
        "{r}"
    );
    assert_eq!(dec(&r["amount"]), Decimal::from(60));
    // Answering twice changes nothing.
    let again = swarm(
        &server,
        &sid,
        json!({"command": "super_bet_answer", "rid": 32,
        "params": {"bet_id": bet_id, "accept": false}}),
    )
    .await;
    assert_eq!(again["data"]["result"], 1027, "{again}");
    assert_eq!(
        balances(&server).await,
        (start - Decimal::from(60), Decimal::ZERO)
    );
    // The decision carries the staff id and reason as metadata.
    let auditor = staff_token(&server, "auditor", "auditor1234").await;
    let trail = audit_trail(&server, &auditor, bet_id).await;
    let events = trail["data"]["events"].as_array().unwrap();
    let offer = events
        .iter()
        .find(|e| e["event_type"] == "CounterOffered")
        .unwrap();
    assert_eq!(offer["metadata"]["reason"], "liability");
    assert_eq!(offer["metadata"]["staff_role"], "support");
    assert!(offer["metadata"]["staff_id"]
        .as_str()
        .unwrap()
        .starts_with("staff-"));
    assert!(offer["recorded_at"].as_i64().unwrap() > 0);
    assert_eq!(events.last().unwrap()["state"]["super_bet_status"], 1);
    let wallet = trail["data"]["wallet"].as_array().unwrap();
    assert!(
        wallet
            .iter()
            .any(|m| m["reference"] == format!("bet:{bet_id}:offer:take")),
        "{wallet:?}"
    );
    // And the replay finds the read model in line with the store.
    let (_, report) = backoffice(
        &server,
        "POST",
        "/api/backoffice/audit/replay",
        Some(&auditor),
        None,
    )
    .await;
    assert_eq!(report["data"]["differences"], json!([]), "{report}");
    assert!(report["data"]["checked"].as_u64().unwrap() >= 1);
    server.stop().await;
}

async fn a_declined_super_bet_gives_the_stake_back(kind: StoreKind) {
    let server = server(kind).await;
    let (client, sid) = member(&server).await;
    let (event_id, _, price) = selection(&server);
    let start = main_balance_held(&server).await;
    let placed = bet(&server, &sid, event_id, price, "100", -1).await;
    let bet_id = placed["data"]["details"]["bet_id"].as_i64().unwrap();
    let support = staff_token(&server, "support", "support1234").await;
    let path = format!("/api/backoffice/counter-offers/{bet_id}/decline");
    let (status, no_reason) = backoffice(
        &server,
        "POST",
        &path,
        Some(&support),
        Some(json!({"reason": " "})),
    )
    .await;
    assert_eq!(
        (status, no_reason["status"].as_i64()),
        (400, Some(-70009)),
        "{no_reason}"
    );
    let (status, declined) = backoffice(
        &server,
        "POST",
        &path,
        Some(&support),
        Some(json!({"reason": "over exposure"})),
    )
    .await;
    assert_eq!(status, 200, "{declined}");
    assert_eq!(declined["data"]["super_bet_status"], -1);
    assert_eq!(balances(&server).await, (start, Decimal::ZERO));
    let r = record(&server, &client, bet_id).await;
    assert_eq!(
        (r["outcome"].clone(), r["super_bet_status"].clone()),
        (json!(-4), json!(-1)),
        "{r}"
    );
    // A new super bet is possible again; the member declines its offer.
    let next = bet(&server, &sid, event_id, price, "100", -1).await;
    let next_id = next["data"]["details"]["bet_id"].as_i64().unwrap();
    let (status, _) = backoffice(
        &server,
        "POST",
        &format!("/api/backoffice/counter-offers/{next_id}/offer"),
        Some(&support),
        Some(json!({"price": "1.5", "reason": "price"})),
    )
    .await;
    assert_eq!(status, 200);
    let no = swarm(
        &server,
        &sid,
        json!({"command": "super_bet_answer", "rid": 40,
        "params": {"bet_id": next_id, "accept": false}}),
    )
    .await;
    assert_eq!(no["data"]["details"]["super_bet_status"], -1, "{no}");
    assert_eq!(balances(&server).await, (start, Decimal::ZERO));
    server.stop().await;
}

/// The auditor's trail of a bet (the back office's bet events page).
async fn audit_trail(server: &Server, auditor: &str, bet_id: i64) -> Value {
    let (status, trail) = backoffice(
        server,
        "GET",
        &format!("/api/backoffice/bets/{bet_id}/events"),
        Some(auditor),
        None,
    )
    .await;
    assert_eq!(status, 200, "{trail}");
    trail
}

async fn balances(server: &Server) -> (Decimal, Decimal) {
    let user_id = server
        .running
        .state
        .accounts
        .find("demo")
        .await
        .unwrap()
        .unwrap();
    let wallet = domain::wallet::WalletId::new(user_id, domain::Currency::Cny);
    let w = server.running.state.wallets.load(&wallet).await.unwrap();
    (w.balances().main, w.ledger.reserved)
}

async fn main_balance_held(server: &Server) -> Decimal {
    balances(server).await.0
}

async fn a_free_bet_is_staked_once_and_pays_its_winnings_only(kind: StoreKind) {
    let server = server(kind).await;
    let (client, sid) = member(&server).await;
    let info = client.post("/api/user/userinfo", json!({})).await;
    assert_eq!(info["data"]["has_free_bets"], false, "{info}");
    let support = staff_token(&server, "support", "support1234").await;
    let (status, bad) = backoffice(
        &server,
        "POST",
        "/api/backoffice/free-bets",
        Some(&support),
        Some(json!({"user": "demo", "amount": "-5", "reason": "test"})),
    )
    .await;
    assert_eq!((status, bad["status"].as_i64()), (400, Some(1109)), "{bad}");
    let (status, granted) = backoffice(
        &server,
        "POST",
        "/api/backoffice/free-bets",
        Some(&support),
        Some(json!({"user": "demo", "amount": "20", "days": 3, "reason": "test"})),
    )
    .await;
    assert_eq!(status, 200, "{granted}");
    let free_id = granted["data"]["id"].as_str().unwrap().to_string();
    let info = client.post("/api/user/userinfo", json!({"n": 1})).await;
    assert_eq!(info["data"]["has_free_bets"], true, "{info}");
    let listed = swarm(
        &server,
        &sid,
        json!({"command": "get_free_bets", "rid": 50, "params": {}}),
    )
    .await;
    assert_eq!(listed["data"]["details"][0]["amount"], "20.00", "{listed}");
    let (event_id, game_id, price) = selection(&server);
    let start = main_balance(&server).await;
    let free = |amount: &str, rid: i64| {
        json!({"command": "do_bet", "rid": rid, "params": {
        "type": 1, "mode": 2, "amount": amount, "bonus_id": free_id,
        "bets": [{"event_id": event_id, "price": price.to_string()}]}})
    };
    // The whole amount or nothing.
    let part = swarm(&server, &sid, free("10", 51)).await;
    assert_eq!(part["data"]["result"], 1912, "{part}");
    let placed = swarm(&server, &sid, free("20", 52)).await;
    assert_eq!(placed["data"]["result"], "OK", "{placed}");
    let bet_id = placed["data"]["details"]["bet_id"].as_i64().unwrap();
    // Staked from the bonus pot, once.
    assert_eq!(main_balance(&server).await, start);
    let again = swarm(&server, &sid, free("20", 53)).await;
    assert_eq!(again["data"]["result"], 1912, "{again}");
    let listed = swarm(
        &server,
        &sid,
        json!({"command": "get_free_bets", "rid": 54, "params": {}}),
    )
    .await;
    assert_eq!(listed["data"]["details"], json!([]), "{listed}");
    // No cash-out on a free bet.
    assert!(quote(&server, &sid, bet_id).await.is_null());
    win_on(&server.running.state, game_id, event_id).await;
    let r = settled(&server, &client, bet_id).await;
    assert_eq!(r["outcome"], 3, "{r}");
    let winnings = (Decimal::from(20) * price).round_dp(2) - Decimal::from(20);
    assert_eq!(
        main_balance(&server).await,
        start + winnings,
        "the winnings, not the stake"
    );
    // The auditor's trail: the stake is one wallet event, held under the
    // free bet's reference and taken as the bet's, and it is this bet's.
    let auditor = staff_token(&server, "auditor", "auditor1234").await;
    let trail = audit_trail(&server, &auditor, bet_id).await;
    let wallet = trail["data"]["wallet"].as_array().unwrap();
    let stake: Vec<_> = wallet
        .iter()
        .filter(|m| m["event_type"] == "StakeReservedAndTaken")
        .collect();
    assert_eq!(stake.len(), 1, "{wallet:?}");
    assert_eq!(stake[0]["of_this_bet"], true, "{wallet:?}");
    let taken = &stake[0]["payload"]["StakeReservedAndTaken"];
    assert_eq!(taken["taken_as"], format!("bet:{bet_id}:take"), "{taken}");
    assert_eq!(taken["pot"], "bonus", "{taken}");
    assert_eq!(taken["amount"], "20.00", "{taken}");
    assert!(
        !wallet.iter().any(|m| m["event_type"] == "StakeTaken"),
        "{wallet:?}"
    );
    server.stop().await;
}
