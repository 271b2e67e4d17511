//! The seamless wallet's rules (DESIGN.md, Hub88's operator wallet API),
//! each over HTTP with requests signed as the demo provider, on both
//! stores. Amounts are integers in units of 1/100,000 (1 CNY = 100000).

mod casino_support;
mod common;

use casino_support::*;
use domain::wallet::{WalletEvent, WalletId};
use domain::Currency;
use serde_json::json;
use store::StoreKind;

store::on_both_stores!(
    a_bet_debits_and_a_win_credits_the_one_wallet_under_the_provider_transaction_ids,
    an_identical_repeat_gets_the_original_answer_and_moves_nothing,
    the_same_uuid_with_another_amount_currency_round_user_or_game_is_a_duplicate,
    a_win_referencing_an_unknown_bet_does_not_exist,
    a_rollback_of_an_unknown_transaction_does_not_exist_and_the_late_bet_is_refused,
    a_win_after_its_bet_was_rolled_back_is_refused,
    several_bets_in_a_round_with_one_rolled_back_keep_the_others,
    a_closed_round_is_final_and_reports_its_totals,
    after_the_token_expired_wins_and_rollbacks_are_accepted_but_bets_are_not,
    a_disabled_member_cannot_bet_but_wins_and_rollbacks_are_paid,
    not_enough_money_answers_the_actual_balance,
    a_bad_or_missing_signature_is_refused_and_moves_nothing,
    malformed_requests_are_wrong_syntax_or_wrong_types,
    an_unknown_token_game_or_currency_is_refused,
    user_info_and_balance_answer_the_wallet_in_units,
    concurrent_repeats_of_one_bet_take_the_stake_once,
    a_round_played_through_two_processes_is_decided_on_the_stores_round,
);

const CNY: i64 = 100_000;

async fn start(kind: StoreKind) -> (common::Server, Launched) {
    let server = common::start(kind).await;
    let launched = launch(&server, SLOT).await;
    (server, launched)
}

async fn a_bet_debits_and_a_win_credits_the_one_wallet_under_the_provider_transaction_ids(
    kind: StoreKind,
) {
    let (server, l) = start(kind).await;
    let start = balance(&server, &l).await;
    assert_eq!(start, 10_000 * CNY);
    let (b, w, round) = (uuid("bet"), uuid("win"), uuid("round"));
    let request = bet(&l, &b, &round, 12 * CNY + 50_000, false);
    let answer = call(&server, "transaction/bet", &request).await;
    assert_eq!(answer["status"], "RS_OK", "{answer}");
    assert_eq!(answer["request_uuid"], request["request_uuid"]);
    assert_eq!(answer["user"], l.user.as_str());
    assert_eq!(answer["currency"], "CNY");
    assert_eq!(answer["balance"], start - 12 * CNY - 50_000);
    let answer = call(
        &server,
        "transaction/win",
        &win(&l, &w, &round, &b, 30 * CNY, true),
    )
    .await;
    assert_eq!(answer["status"], "RS_OK", "{answer}");
    assert_eq!(answer["balance"], start - 12 * CNY - 50_000 + 30 * CNY);
    // The wallet moved under the provider's transaction ids.
    let wallet = WalletId::new(l.user.clone(), Currency::Cny);
    let events = server.running.state.wallets.events(&wallet).await.unwrap();
    let refs: Vec<&str> = events.iter().filter_map(|e| e.reference()).collect();
    assert!(
        refs.contains(&format!("casino:demo:{b}").as_str()),
        "{refs:?}"
    );
    assert!(
        refs.contains(&format!("casino:demo:{w}").as_str()),
        "{refs:?}"
    );
    // The sportsbook's balance call (a read model) sees the same wallet.
    let mut seen = serde_json::Value::Null;
    for _ in 0..100 {
        seen = l.client.get("/api/user/getbalance").await;
        if seen["data"]["balance"] == "10017.50" {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    assert_eq!(seen["data"]["balance"], "10017.50", "{seen}");
    server.stop().await;
}

async fn an_identical_repeat_gets_the_original_answer_and_moves_nothing(kind: StoreKind) {
    let (server, l) = start(kind).await;
    let (b, round) = (uuid("bet"), uuid("round"));
    let request = bet(&l, &b, &round, 5 * CNY, false);
    let first = call(&server, "transaction/bet", &request).await;
    assert_eq!(first["status"], "RS_OK");
    // The balance moves meanwhile; the repeat still answers the first answer.
    let other = call(
        &server,
        "transaction/bet",
        &bet(&l, &uuid("bet"), &round, CNY, false),
    )
    .await;
    assert_eq!(other["status"], "RS_OK");
    let mut again = request.clone();
    again["request_uuid"] = json!(uuid("req"));
    let repeat = call(&server, "transaction/bet", &again).await;
    assert_eq!(repeat["status"], "RS_OK");
    assert_eq!(repeat["balance"], first["balance"]);
    assert_eq!(repeat["request_uuid"], again["request_uuid"]);
    assert_eq!(balance(&server, &l).await, 10_000 * CNY - 6 * CNY);
    server.stop().await;
}

async fn the_same_uuid_with_another_amount_currency_round_user_or_game_is_a_duplicate(
    kind: StoreKind,
) {
    let (server, l) = start(kind).await;
    let (b, round) = (uuid("bet"), uuid("round"));
    let request = bet(&l, &b, &round, 5 * CNY, false);
    assert_eq!(
        call(&server, "transaction/bet", &request).await["status"],
        "RS_OK"
    );
    let w = uuid("win");
    let paid = win(&l, &w, &round, &b, 2 * CNY, false);
    assert_eq!(
        call(&server, "transaction/win", &paid).await["status"],
        "RS_OK"
    );
    for (field, value) in [
        ("amount", json!(6 * CNY)),
        ("currency", json!("USD")),
        ("round", json!(uuid("round"))),
        ("user", json!("someone-else")),
        ("game_code", json!("demo_slot_fruit")),
    ] {
        let mut changed = request.clone();
        changed[field] = value;
        let answer = call(&server, "transaction/bet", &changed).await;
        assert_eq!(
            answer["status"], "RS_ERROR_DUPLICATE_TRANSACTION",
            "{field}: {answer}"
        );
    }
    let mut changed = paid.clone();
    changed["reference_transaction_uuid"] = json!(uuid("other"));
    let answer = call(&server, "transaction/win", &changed).await;
    assert_eq!(
        answer["status"], "RS_ERROR_DUPLICATE_TRANSACTION",
        "{answer}"
    );
    // A bet's uuid sent again as a win is a duplicate too.
    let answer = call(
        &server,
        "transaction/win",
        &win(&l, &b, &round, &b, 5 * CNY, false),
    )
    .await;
    assert_eq!(
        answer["status"], "RS_ERROR_DUPLICATE_TRANSACTION",
        "{answer}"
    );
    assert_eq!(balance(&server, &l).await, 10_000 * CNY - 3 * CNY);
    server.stop().await;
}

async fn a_win_referencing_an_unknown_bet_does_not_exist(kind: StoreKind) {
    let (server, l) = start(kind).await;
    let round = uuid("round");
    let answer = call(
        &server,
        "transaction/win",
        &win(&l, &uuid("win"), &round, "no-such-bet", CNY, true),
    )
    .await;
    assert_eq!(
        answer["status"], "RS_ERROR_TRANSACTION_DOES_NOT_EXIST",
        "{answer}"
    );
    assert_eq!(answer["balance"], 10_000 * CNY);
    // A bet of another round is unknown in this one.
    let b = uuid("bet");
    call(
        &server,
        "transaction/bet",
        &bet(&l, &b, &uuid("round"), CNY, false),
    )
    .await;
    let answer = call(
        &server,
        "transaction/win",
        &win(&l, &uuid("win"), &round, &b, CNY, true),
    )
    .await;
    assert_eq!(
        answer["status"], "RS_ERROR_TRANSACTION_DOES_NOT_EXIST",
        "{answer}"
    );
    assert_eq!(balance(&server, &l).await, 10_000 * CNY - CNY);
    server.stop().await;
}

async fn a_rollback_of_an_unknown_transaction_does_not_exist_and_the_late_bet_is_refused(
    kind: StoreKind,
) {
    let (server, l) = start(kind).await;
    let (b, round) = (uuid("bet"), uuid("round"));
    let answer = call(
        &server,
        "transaction/rollback",
        &rollback(&l, &uuid("rb"), &round, &b, false),
    )
    .await;
    assert_eq!(
        answer["status"], "RS_ERROR_TRANSACTION_DOES_NOT_EXIST",
        "{answer}"
    );
    // The bet the provider gave up on arrives late: it must not be taken.
    let late = call(
        &server,
        "transaction/bet",
        &bet(&l, &b, &round, 5 * CNY, false),
    )
    .await;
    assert_eq!(late["status"], "RS_ERROR_TRANSACTION_ROLLED_BACK", "{late}");
    assert_eq!(balance(&server, &l).await, 10_000 * CNY);
    server.stop().await;
}

async fn a_win_after_its_bet_was_rolled_back_is_refused(kind: StoreKind) {
    let (server, l) = start(kind).await;
    let (b, round) = (uuid("bet"), uuid("round"));
    call(
        &server,
        "transaction/bet",
        &bet(&l, &b, &round, 5 * CNY, false),
    )
    .await;
    let rb = call(
        &server,
        "transaction/rollback",
        &rollback(&l, &uuid("rb"), &round, &b, false),
    )
    .await;
    assert_eq!(rb["status"], "RS_OK", "{rb}");
    assert_eq!(rb["balance"], 10_000 * CNY);
    let answer = call(
        &server,
        "transaction/win",
        &win(&l, &uuid("win"), &round, &b, 20 * CNY, true),
    )
    .await;
    assert_eq!(
        answer["status"], "RS_ERROR_TRANSACTION_ROLLED_BACK",
        "{answer}"
    );
    // A second rollback of the same bet gives nothing back twice.
    let again = call(
        &server,
        "transaction/rollback",
        &rollback(&l, &uuid("rb"), &round, &b, false),
    )
    .await;
    assert_eq!(again["status"], "RS_OK", "{again}");
    assert_eq!(balance(&server, &l).await, 10_000 * CNY);
    server.stop().await;
}

async fn several_bets_in_a_round_with_one_rolled_back_keep_the_others(kind: StoreKind) {
    let (server, l) = start(kind).await;
    let (b1, b2, b3, round) = (uuid("bet"), uuid("bet"), uuid("bet"), uuid("round"));
    for (b, amount) in [(&b1, 2), (&b2, 3), (&b3, 4)] {
        let a = call(
            &server,
            "transaction/bet",
            &bet(&l, b, &round, amount * CNY, false),
        )
        .await;
        assert_eq!(a["status"], "RS_OK", "{a}");
    }
    let rb = call(
        &server,
        "transaction/rollback",
        &rollback(&l, &uuid("rb"), &round, &b2, false),
    )
    .await;
    assert_eq!(rb["status"], "RS_OK");
    assert_eq!(rb["balance"], 10_000 * CNY - 6 * CNY);
    let w = call(
        &server,
        "transaction/win",
        &win(&l, &uuid("win"), &round, &b1, 10 * CNY, false),
    )
    .await;
    assert_eq!(w["status"], "RS_OK", "{w}");
    let w = call(
        &server,
        "transaction/win",
        &win(&l, &uuid("win"), &round, &b3, 0, true),
    )
    .await;
    assert_eq!(w["status"], "RS_OK", "{w}");
    assert_eq!(
        balance(&server, &l).await,
        10_000 * CNY - 6 * CNY + 10 * CNY
    );
    let events = server
        .running
        .state
        .casino
        .seamless
        .round_events(&format!("demo:{}:{round}", l.user))
        .await
        .unwrap();
    let closed = serde_json::to_value(events.last().unwrap()).unwrap();
    assert_eq!(closed["type"], "CasinoRoundClosed");
    assert_eq!(closed["stake"], "6.00");
    assert_eq!(closed["payout"], "10.00");
    server.stop().await;
}

async fn a_closed_round_is_final_and_reports_its_totals(kind: StoreKind) {
    let (server, l) = start(kind).await;
    let (b, round) = (uuid("bet"), uuid("round"));
    call(
        &server,
        "transaction/bet",
        &bet(&l, &b, &round, 5 * CNY, false),
    )
    .await;
    let w = call(
        &server,
        "transaction/win",
        &win(&l, &uuid("win"), &round, &b, 7 * CNY, true),
    )
    .await;
    assert_eq!(w["status"], "RS_OK");
    let late_bet = call(
        &server,
        "transaction/bet",
        &bet(&l, &uuid("bet"), &round, CNY, false),
    )
    .await;
    assert_eq!(late_bet["status"], "RS_ERROR_UNKNOWN", "{late_bet}");
    let late_win = call(
        &server,
        "transaction/win",
        &win(&l, &uuid("win"), &round, &b, CNY, false),
    )
    .await;
    assert_eq!(late_win["status"], "RS_ERROR_UNKNOWN", "{late_win}");
    assert_eq!(balance(&server, &l).await, 10_000 * CNY + 2 * CNY);
    // The closing event in the store, as the VIP read models read it.
    let row: (String, String) = sqlx::query_as(
        "SELECT event_type, CAST(payload AS TEXT) FROM events WHERE aggregate_type = 'CasinoRound' AND event_type = 'CasinoRoundClosed'",
    )
    .fetch_one(&server.running.state.db.any)
    .await
    .unwrap();
    let payload: serde_json::Value = serde_json::from_str(&row.1).unwrap();
    assert_eq!(payload["member_id"], l.user.as_str());
    assert_eq!(payload["currency"], "CNY");
    assert_eq!(payload["product"], "pg");
    assert_eq!(payload["provider"], "demo");
    assert_eq!(payload["game_id"], SLOT);
    assert_eq!(payload["round"], round.as_str());
    assert_eq!(payload["stake"], "5.00");
    assert_eq!(payload["payout"], "7.00");
    assert!(payload["closed_at"].as_i64().unwrap() > 0);
    server.stop().await;
}

async fn after_the_token_expired_wins_and_rollbacks_are_accepted_but_bets_are_not(kind: StoreKind) {
    let (server, l) = start(kind).await;
    let (b1, b2, round) = (uuid("bet"), uuid("bet"), uuid("round"));
    call(
        &server,
        "transaction/bet",
        &bet(&l, &b1, &round, 5 * CNY, false),
    )
    .await;
    call(
        &server,
        "transaction/bet",
        &bet(&l, &b2, &round, 3 * CNY, false),
    )
    .await;
    server
        .clock
        .advance(server.running.state.config.casino.token_lifetime_ms + 1);
    let refused = call(
        &server,
        "transaction/bet",
        &bet(&l, &uuid("bet"), &round, CNY, false),
    )
    .await;
    assert_eq!(refused["status"], "RS_ERROR_TOKEN_EXPIRED", "{refused}");
    let rb = call(
        &server,
        "transaction/rollback",
        &rollback(&l, &uuid("rb"), &round, &b2, false),
    )
    .await;
    assert_eq!(rb["status"], "RS_OK", "{rb}");
    let w = call(
        &server,
        "transaction/win",
        &win(&l, &uuid("win"), &round, &b1, 9 * CNY, true),
    )
    .await;
    assert_eq!(w["status"], "RS_OK", "{w}");
    assert_eq!(w["balance"], 10_000 * CNY - 5 * CNY + 9 * CNY);
    server.stop().await;
}

async fn a_disabled_member_cannot_bet_but_wins_and_rollbacks_are_paid(kind: StoreKind) {
    let (server, l) = start(kind).await;
    let (b1, b2, round) = (uuid("bet"), uuid("bet"), uuid("round"));
    call(
        &server,
        "transaction/bet",
        &bet(&l, &b1, &round, 5 * CNY, false),
    )
    .await;
    call(
        &server,
        "transaction/bet",
        &bet(&l, &b2, &round, 3 * CNY, false),
    )
    .await;
    server
        .running
        .state
        .accounts
        .lock_by_staff(&l.user, "test: disabled")
        .await
        .unwrap();
    let refused = call(
        &server,
        "transaction/bet",
        &bet(&l, &uuid("bet"), &round, CNY, false),
    )
    .await;
    assert_eq!(refused["status"], "RS_ERROR_USER_DISABLED", "{refused}");
    assert_eq!(refused["balance"], 10_000 * CNY - 8 * CNY);
    let rb = call(
        &server,
        "transaction/rollback",
        &rollback(&l, &uuid("rb"), &round, &b2, false),
    )
    .await;
    assert_eq!(rb["status"], "RS_OK", "{rb}");
    let w = call(
        &server,
        "transaction/win",
        &win(&l, &uuid("win"), &round, &b1, 9 * CNY, true),
    )
    .await;
    assert_eq!(w["status"], "RS_OK", "{w}");
    assert_eq!(w["balance"], 10_000 * CNY + 4 * CNY);
    server.stop().await;
}

async fn not_enough_money_answers_the_actual_balance(kind: StoreKind) {
    let (server, l) = start(kind).await;
    let (b, round) = (uuid("bet"), uuid("round"));
    let request = bet(&l, &b, &round, 10_000 * CNY + 1_000, false);
    let answer = call(&server, "transaction/bet", &request).await;
    assert_eq!(answer["status"], "RS_ERROR_NOT_ENOUGH_MONEY", "{answer}");
    assert_eq!(answer["balance"], 10_000 * CNY);
    // The refusal stands for that transaction: a repeat answers it again.
    let again = call(&server, "transaction/bet", &request).await;
    assert_eq!(again["status"], "RS_ERROR_NOT_ENOUGH_MONEY", "{again}");
    // Exactly the balance is enough.
    let all = call(
        &server,
        "transaction/bet",
        &bet(&l, &uuid("bet"), &round, 10_000 * CNY, false),
    )
    .await;
    assert_eq!(all["status"], "RS_OK", "{all}");
    assert_eq!(all["balance"], 0);
    server.stop().await;
}

async fn a_bad_or_missing_signature_is_refused_and_moves_nothing(kind: StoreKind) {
    let (server, l) = start(kind).await;
    let request = bet(&l, &uuid("bet"), &uuid("round"), 5 * CNY, false);
    let raw = request.to_string();
    // Signed over another body.
    let other = provider_signer(&server).sign(b"{}");
    let answer = call_raw(&server, "transaction/bet", raw.as_bytes(), Some(&other)).await;
    assert_eq!(answer["status"], "RS_ERROR_INVALID_SIGNATURE", "{answer}");
    // Signed with another key (the platform's own).
    let wrong_key = api::casino::signing::Signer256::from_pem(
        &server.running.state.config.casino.platform_private_key,
    )
    .unwrap()
    .sign(raw.as_bytes());
    let answer = call_raw(&server, "transaction/bet", raw.as_bytes(), Some(&wrong_key)).await;
    assert_eq!(answer["status"], "RS_ERROR_INVALID_SIGNATURE", "{answer}");
    let answer = call_raw(&server, "transaction/bet", raw.as_bytes(), None).await;
    assert_eq!(answer["status"], "RS_ERROR_INVALID_SIGNATURE", "{answer}");
    let answer = call_raw(&server, "transaction/bet", raw.as_bytes(), Some("garbage")).await;
    assert_eq!(answer["status"], "RS_ERROR_INVALID_SIGNATURE", "{answer}");
    assert_eq!(balance(&server, &l).await, 10_000 * CNY);
    // The same body, properly signed, goes through.
    assert_eq!(
        call(&server, "transaction/bet", &request).await["status"],
        "RS_OK"
    );
    server.stop().await;
}

async fn malformed_requests_are_wrong_syntax_or_wrong_types(kind: StoreKind) {
    let (server, l) = start(kind).await;
    let round = uuid("round");
    let signer = provider_signer(&server);
    let raw = b"{not json";
    let answer = call_raw(&server, "transaction/bet", raw, Some(&signer.sign(raw))).await;
    assert_eq!(answer["status"], "RS_ERROR_WRONG_SYNTAX", "{answer}");
    let mut missing = bet(&l, &uuid("bet"), &round, CNY, false);
    missing.as_object_mut().unwrap().remove("transaction_uuid");
    assert_eq!(
        call(&server, "transaction/bet", &missing).await["status"],
        "RS_ERROR_WRONG_SYNTAX"
    );
    let mut typed = bet(&l, &uuid("bet"), &round, CNY, false);
    typed["amount"] = json!("100000");
    assert_eq!(
        call(&server, "transaction/bet", &typed).await["status"],
        "RS_ERROR_WRONG_TYPES"
    );
    let mut typed = bet(&l, &uuid("bet"), &round, CNY, false);
    typed["round_closed"] = json!("yes");
    assert_eq!(
        call(&server, "transaction/bet", &typed).await["status"],
        "RS_ERROR_WRONG_TYPES"
    );
    let negative = bet(&l, &uuid("bet"), &round, -CNY, false);
    assert_eq!(
        call(&server, "transaction/bet", &negative).await["status"],
        "RS_ERROR_WRONG_SYNTAX"
    );
    // Finer than a fen (0.01 CNY = 1000 units).
    let fine = bet(&l, &uuid("bet"), &round, 1_001, false);
    assert_eq!(
        call(&server, "transaction/bet", &fine).await["status"],
        "RS_ERROR_WRONG_SYNTAX"
    );
    let long = bet(&l, &"x".repeat(101), &round, CNY, false);
    assert_eq!(
        call(&server, "transaction/bet", &long).await["status"],
        "RS_ERROR_WRONG_SYNTAX"
    );
    assert_eq!(balance(&server, &l).await, 10_000 * CNY);
    server.stop().await;
}

async fn an_unknown_token_game_or_currency_is_refused(kind: StoreKind) {
    let (server, l) = start(kind).await;
    let round = uuid("round");
    let mut r = bet(&l, &uuid("bet"), &round, CNY, false);
    r["token"] = json!("not-a-token");
    assert_eq!(
        call(&server, "transaction/bet", &r).await["status"],
        "RS_ERROR_INVALID_TOKEN"
    );
    let mut r = bet(&l, &uuid("bet"), &round, CNY, false);
    r["user"] = json!("another-user");
    assert_eq!(
        call(&server, "transaction/bet", &r).await["status"],
        "RS_ERROR_INVALID_TOKEN"
    );
    let mut r = bet(&l, &uuid("bet"), &round, CNY, false);
    r["game_code"] = json!("no_such_game");
    assert_eq!(
        call(&server, "transaction/bet", &r).await["status"],
        "RS_ERROR_INVALID_GAME"
    );
    let mut r = bet(&l, &uuid("bet"), &round, CNY, false);
    r["currency"] = json!("USD");
    assert_eq!(
        call(&server, "transaction/bet", &r).await["status"],
        "RS_ERROR_WRONG_CURRENCY"
    );
    // None of them was claimed: fixed, the same transaction goes through.
    r["currency"] = json!("CNY");
    assert_eq!(
        call(&server, "transaction/bet", &r).await["status"],
        "RS_OK"
    );
    server.stop().await;
}

async fn user_info_and_balance_answer_the_wallet_in_units(kind: StoreKind) {
    let (server, l) = start(kind).await;
    let info = call(
        &server,
        "user/info",
        &json!({"user": l.user, "request_uuid": uuid("req")}),
    )
    .await;
    assert_eq!(info["status"], "RS_OK", "{info}");
    assert_eq!(info["user"], l.user.as_str());
    assert_eq!(info["currency"], "CNY");
    assert_eq!(info["balance"], 10_000 * CNY);
    let bal = call(
        &server,
        "user/balance",
        &json!({"user": l.user, "token": "nope", "request_uuid": uuid("req"), "game_code": SLOT_CODE}),
    )
    .await;
    assert_eq!(bal["status"], "RS_ERROR_INVALID_TOKEN");
    assert_eq!(balance(&server, &l).await, 10_000 * CNY);
    server.stop().await;
}

async fn concurrent_repeats_of_one_bet_take_the_stake_once(kind: StoreKind) {
    let (server, l) = start(kind).await;
    let request = bet(&l, &uuid("bet"), &uuid("round"), 7 * CNY, false);
    let server = std::sync::Arc::new(server);
    let mut tasks = vec![];
    for _ in 0..8 {
        let (server, request) = (server.clone(), request.clone());
        tasks.push(tokio::spawn(async move {
            call(&server, "transaction/bet", &request).await
        }));
    }
    for t in tasks {
        let answer = t.await.unwrap();
        assert_eq!(answer["status"], "RS_OK", "{answer}");
        assert_eq!(answer["balance"], 10_000 * CNY - 7 * CNY);
    }
    assert_eq!(balance(&server, &l).await, 10_000 * CNY - 7 * CNY);
    let wallet = WalletId::new(l.user.clone(), Currency::Cny);
    let debits = server
        .running
        .state
        .wallets
        .events(&wallet)
        .await
        .unwrap()
        .into_iter()
        .filter(|e| matches!(e, WalletEvent::Debited { .. }))
        .count();
    assert_eq!(debits, 1);
    match std::sync::Arc::try_unwrap(server) {
        Ok(server) => server.stop().await,
        Err(_) => panic!("server still shared"),
    }
}

/// A provider's calls for one round reach two api processes (a load
/// balancer): each decides on its cached round (or, for a bet on a round it
/// has not seen, on a new one without reading), so the other process's
/// moves must be found before anything is refused or written: a bet on a
/// round the other process opened, a rollback of a bet this process never
/// saw, a win on a round its cache holds stale.
async fn a_round_played_through_two_processes_is_decided_on_the_stores_round(kind: StoreKind) {
    let (first_db, second_db) = store::db::testing::fresh_pair(kind).await;
    let a = common::start_on(first_db, common::config(true)).await;
    let b = common::start_on(second_db, common::config(true)).await;
    let l = launch(&a, SLOT).await;
    let start = balance(&a, &l).await;
    let (b1, b2, round) = (uuid("bet"), uuid("bet"), uuid("round"));
    let first = call(&a, "transaction/bet", &bet(&l, &b1, &round, 5 * CNY, false)).await;
    assert_eq!(first["status"], "RS_OK", "{first}");
    // B has never seen the round: its bet joins A's round.
    let second = call(&b, "transaction/bet", &bet(&l, &b2, &round, 7 * CNY, false)).await;
    assert_eq!(second["status"], "RS_OK", "{second}");
    assert_eq!(second["balance"], start - 12 * CNY);
    // A's cached round does not know B's bet: the rollback still finds it.
    let rb = call(
        &a,
        "transaction/rollback",
        &rollback(&l, &uuid("rb"), &round, &b2, false),
    )
    .await;
    assert_eq!(rb["status"], "RS_OK", "{rb}");
    assert_eq!(rb["balance"], start - 5 * CNY);
    // B's cached round does not know the rollback: a win on the rolled
    // back bet is refused, the win on A's bet closes the round.
    let refused = call(
        &b,
        "transaction/win",
        &win(&l, &uuid("win"), &round, &b2, 9 * CNY, false),
    )
    .await;
    assert_eq!(
        refused["status"], "RS_ERROR_TRANSACTION_ROLLED_BACK",
        "{refused}"
    );
    let won = call(
        &b,
        "transaction/win",
        &win(&l, &uuid("win"), &round, &b1, 20 * CNY, true),
    )
    .await;
    assert_eq!(won["status"], "RS_OK", "{won}");
    assert_eq!(won["balance"], start - 5 * CNY + 20 * CNY);
    // The round is closed for both processes.
    let late = call(
        &a,
        "transaction/bet",
        &bet(&l, &uuid("bet"), &round, CNY, false),
    )
    .await;
    assert_ne!(late["status"], "RS_OK", "{late}");
    assert_eq!(balance(&b, &l).await, start + 15 * CNY);
    a.stop().await;
    b.stop().await;
}
