//! The demo game provider plays through the seamless wallet over HTTP, as
//! an outside provider would; under injected timeouts its retries and
//! rollbacks leave the wallet exactly right. On both stores.

mod casino_support;
mod common;

use std::sync::atomic::Ordering;
use std::time::Duration;

use casino_support::*;
use commands::platform::clock::Clock;
use domain::wallet::{WalletEvent, WalletId};
use domain::Currency;
use rust_decimal::Decimal;
use serde_json::{json, Value};
use store::StoreKind;

store::on_both_stores!(
    a_real_spin_takes_the_stake_and_pays_the_win_through_the_wallet,
    a_bet_whose_answer_was_lost_is_sent_again_and_taken_once,
    a_bet_that_never_gets_an_answer_is_rolled_back,
    a_bet_that_never_arrives_is_rolled_back_and_cannot_land_later,
    a_roulette_round_settles_several_players_and_a_lost_win_is_resent,
    fun_mode_plays_with_play_money_and_never_touches_the_wallet,
);

const CNY: i64 = 100_000;

fn player(l: &Launched, game: &str) -> Value {
    json!({"token": l.token, "user": l.user, "currency": "CNY", "game": game})
}

async fn post(server: &common::Server, path: &str, body: &Value) -> Value {
    common::http(
        server.addr(),
        "POST",
        path,
        &[("Content-Type".to_string(), "application/json".to_string())],
        body.to_string().as_bytes(),
    )
    .await
    .json()
}

fn units(text: &Value) -> i64 {
    let d: Decimal = text.as_str().unwrap().parse().unwrap();
    domain::casino::wire::to_units(d)
}

async fn debits(server: &common::Server, l: &Launched) -> usize {
    let wallet = WalletId::new(l.user.clone(), Currency::Cny);
    server
        .running
        .state
        .wallets
        .events(&wallet)
        .await
        .unwrap()
        .iter()
        .filter(|e| matches!(e, WalletEvent::Debited { .. }))
        .count()
}

async fn a_real_spin_takes_the_stake_and_pays_the_win_through_the_wallet(kind: StoreKind) {
    let server = common::start(kind).await;
    let l = launch(&server, SLOT).await;
    let mut expected = 10_000 * CNY;
    for _ in 0..5 {
        let spin = post(
            &server,
            "/demo-provider/api/slot/spin",
            &json!({"player": player(&l, SLOT_CODE), "stake": "2.00"}),
        )
        .await;
        assert_eq!(spin["status"], "ok", "{spin}");
        expected += units(&spin["win"]) - 2 * CNY;
        assert_eq!(units(&spin["balance"]), expected, "{spin}");
    }
    assert_eq!(balance(&server, &l).await, expected);
    let closed: i64 =
        sqlx::query_scalar("SELECT COUNT(*) FROM events WHERE event_type = 'CasinoRoundClosed'")
            .fetch_one(&server.running.state.db.any)
            .await
            .unwrap();
    assert_eq!(closed, 5, "every spin is a round that closes");
    server.stop().await;
}

async fn a_bet_whose_answer_was_lost_is_sent_again_and_taken_once(kind: StoreKind) {
    let server = common::start(kind).await;
    let l = launch(&server, SLOT).await;
    let demo = &server.running.state.casino.demo;
    demo.client.faults.lose_answers.store(1, Ordering::SeqCst);
    let spin = post(
        &server,
        "/demo-provider/api/slot/spin",
        &json!({"player": player(&l, SLOT_CODE), "stake": "3.00"}),
    )
    .await;
    assert_eq!(spin["status"], "ok", "{spin}");
    let expected = 10_000 * CNY - 3 * CNY + units(&spin["win"]);
    assert_eq!(balance(&server, &l).await, expected);
    assert_eq!(debits(&server, &l).await, 1, "the stake was taken once");
    server.stop().await;
}

async fn a_bet_that_never_gets_an_answer_is_rolled_back(kind: StoreKind) {
    let server = common::start(kind).await;
    let l = launch(&server, SLOT).await;
    let demo = &server.running.state.casino.demo;
    // Every attempt of the bet is processed, every answer lost.
    demo.client
        .faults
        .lose_answers
        .store(demo.retries + 1, Ordering::SeqCst);
    let spin = post(
        &server,
        "/demo-provider/api/slot/spin",
        &json!({"player": player(&l, SLOT_CODE), "stake": "4.00"}),
    )
    .await;
    assert_eq!(spin["status"], "error", "{spin}");
    assert_eq!(
        balance(&server, &l).await,
        10_000 * CNY,
        "the stake came back"
    );
    assert_eq!(debits(&server, &l).await, 1, "taken once, then rolled back");
    server.stop().await;
}

async fn a_bet_that_never_arrives_is_rolled_back_and_cannot_land_later(kind: StoreKind) {
    let server = common::start(kind).await;
    let l = launch(&server, SLOT).await;
    let demo = &server.running.state.casino.demo;
    demo.client
        .faults
        .lose_requests
        .store(demo.retries + 1, Ordering::SeqCst);
    let spin = post(
        &server,
        "/demo-provider/api/slot/spin",
        &json!({"player": player(&l, SLOT_CODE), "stake": "4.00"}),
    )
    .await;
    assert_eq!(spin["status"], "error", "{spin}");
    assert_eq!(balance(&server, &l).await, 10_000 * CNY);
    assert_eq!(debits(&server, &l).await, 0);
    // The lost bet, delivered late (a network replay), is refused.
    let tx: String = sqlx::query_scalar("SELECT request_id FROM request_claims WHERE scope = 'casino:demo' AND answer LIKE '%\"tomb\":true%'")
        .fetch_one(&server.running.state.db.any)
        .await
        .unwrap();
    let late = call(
        &server,
        "transaction/bet",
        &bet(&l, &tx, "late-round", 4 * CNY, false),
    )
    .await;
    assert_eq!(late["status"], "RS_ERROR_TRANSACTION_ROLLED_BACK", "{late}");
    assert_eq!(balance(&server, &l).await, 10_000 * CNY);
    server.stop().await;
}

/// A second member with money, launched on the roulette table.
async fn second_player(server: &common::Server) -> Launched {
    let mut client = common::Client::new(server).await;
    let phone = format!("138{:08}", rand::random::<u32>() % 100_000_000);
    let registered = client.register_phone(server, &phone, "secret123").await;
    assert_eq!(registered["status"], 0, "{registered}");
    let user = registered["data"]["user_id"].as_str().unwrap().to_string();
    let credit = domain::wallet::WalletCommand::new(
        WalletId::new(user.clone(), Currency::Cny),
        "test:seed",
        domain::wallet::WalletAction::Credit {
            amount: Decimal::new(500, 0),
            pot: domain::wallet::Pot::Main,
            kind: domain::wallet::MovementKind::Deposit,
        },
    );
    server.running.state.wallets.execute(credit).await.unwrap();
    let auth = client
        .get(&format!("/api/casino_auth?game_id={ROULETTE}"))
        .await;
    assert_eq!(auth["status"], 0, "{auth}");
    Launched {
        client,
        user,
        token: auth["data"]["token"].as_str().unwrap().to_string(),
        balance: auth["data"]["balance"].as_str().unwrap().to_string(),
    }
}

async fn wait_for(server: &common::Server, l: &Launched, expected: i64) {
    let mut seen = 0;
    for _ in 0..150 {
        seen = balance(server, l).await;
        if seen == expected {
            return;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("balance {seen}, expected {expected}");
}

async fn a_roulette_round_settles_several_players_and_a_lost_win_is_resent(kind: StoreKind) {
    let server = common::start(kind).await;
    let demo = server.running.state.casino.demo.clone();
    // Early in a round: bets are open.
    let now = server.clock.now_ms();
    let into = now.rem_euclid(demo.round_ms);
    server.clock.advance(demo.round_ms - into + 100);
    let a = launch(&server, ROULETTE).await;
    let b = second_player(&server).await;
    let round = demo.round_at(server.clock.now_ms());
    let number = demo.number(round);
    let red = [
        1u8, 3, 5, 7, 9, 12, 14, 16, 18, 19, 21, 23, 25, 27, 30, 32, 34, 36,
    ]
    .contains(&number);
    let bets: [(&Launched, Value); 3] = [
        (
            &a,
            json!([{"kind": "straight", "value": number, "amount": "1.00"}, {"kind": "red", "amount": "2.00"}]),
        ),
        (&a, json!([{"kind": "black", "amount": "5.00"}])),
        (
            &b,
            json!([{"kind": "dozen", "value": 1, "amount": "10.00"}]),
        ),
    ];
    for (who, picks) in &bets {
        let placed = post(
            &server,
            "/demo-provider/api/roulette/bet",
            &json!({"player": player(who, "demo_roulette"), "picks": picks}),
        )
        .await;
        assert_eq!(placed["status"], "ok", "{placed}");
    }
    let after_a = 10_000 * CNY - 8 * CNY;
    assert_eq!(balance(&server, &a).await, after_a);
    assert_eq!(balance(&server, &b).await, 490 * CNY);
    // The wins of the spin are lost on the way; the outbox resends them.
    demo.client
        .faults
        .lose_requests
        .store(demo.retries + 1, Ordering::SeqCst);
    server.clock.advance(demo.round_ms);
    let straight = 36 * CNY;
    let colour = if number == 0 {
        0
    } else if red {
        4 * CNY
    } else {
        10 * CNY
    };
    let dozen = if (1..=12).contains(&number) {
        30 * CNY
    } else {
        0
    };
    wait_for(&server, &a, after_a + straight + colour).await;
    wait_for(&server, &b, 490 * CNY + dozen).await;
    // Each player's round closed once with their totals.
    // (A losing player's balance is already right before the closing win.)
    let mut rows: Vec<String> = vec![];
    for _ in 0..150 {
        rows = sqlx::query_scalar(
            "SELECT CAST(payload AS TEXT) FROM events WHERE event_type = 'CasinoRoundClosed'",
        )
        .fetch_all(&server.running.state.db.any)
        .await
        .unwrap();
        if rows.len() >= 2 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(rows.len(), 2, "{rows:?}");
    for row in rows {
        let p: Value = serde_json::from_str(&row).unwrap();
        assert_eq!(p["product"], "ag");
        assert_eq!(p["round"], format!("roulette-{round}"));
        if p["member_id"] == a.user.as_str() {
            assert_eq!(p["stake"], "8.00");
        } else {
            assert_eq!(p["stake"], "10.00");
        }
    }
    server.stop().await;
}

async fn fun_mode_plays_with_play_money_and_never_touches_the_wallet(kind: StoreKind) {
    let server = common::start(kind).await;
    let l = launch(&server, SLOT).await;
    let session = post(&server, "/demo-provider/api/fun/session", &json!({})).await;
    assert_eq!(session["status"], "ok");
    let mut play: Decimal = session["balance"].as_str().unwrap().parse().unwrap();
    for _ in 0..3 {
        let spin = post(
            &server,
            "/demo-provider/api/slot/spin",
            &json!({"fun_session": session["session"], "stake": "10.00"}),
        )
        .await;
        assert_eq!(spin["status"], "ok", "{spin}");
        play =
            play - Decimal::new(10, 0) + spin["win"].as_str().unwrap().parse::<Decimal>().unwrap();
        assert_eq!(
            spin["balance"]
                .as_str()
                .unwrap()
                .parse::<Decimal>()
                .unwrap(),
            play
        );
        assert_eq!(spin["currency"], "FUN");
    }
    assert_eq!(balance(&server, &l).await, 10_000 * CNY);
    assert_eq!(debits(&server, &l).await, 0);
    server.stop().await;
}
