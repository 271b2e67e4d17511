//! The casino catalogue, search, favourites and launch (spec 001 sections
//! 2.11, 3, 4, 6 and 7.5), and money conserved across the sportsbook and
//! the casino. On both stores.

mod casino_support;
mod common;

use casino_support::*;
use common::{backoffice, pick, staff_token, swarm, swarm_session, Client};
use domain::wallet::{Ledger, WalletId};
use domain::Currency;
use serde_json::{json, Value};
use store::StoreKind;

store::on_both_stores!(
    the_catalogue_lists_games_with_the_contract_fields_by_section_category_and_type,
    the_demo_page_lists_only_games_with_fun_mode,
    search_answers_total_count_and_games,
    favourites_are_kept_per_member,
    a_guest_asking_for_real_mode_gets_the_login_form,
    no_mode_means_real_for_a_member_and_fun_for_a_guest,
    real_on_a_game_without_real_mode_falls_back_to_fun,
    a_direct_link_needs_login,
    casino_auth_binds_a_token_to_member_game_and_currency_with_an_expiry,
    casino_auth_refusals_say_why,
    admin_edits_reach_the_members_catalogue_and_icons_are_served,
    the_demo_game_page_is_labelled_as_a_stand_in,
    money_is_conserved_across_sportsbook_and_casino,
);

async fn member(server: &common::Server) -> Client {
    let mut c = Client::new(server).await;
    assert_eq!(c.login(server, "demo", "demo1234").await["status"], 0);
    c
}

/// `/demo`: `thirdgamelist {mode: "fun"}` across every section, no login.
async fn the_demo_page_lists_only_games_with_fun_mode(kind: StoreKind) {
    let server = common::start(kind).await;
    let guest = Client::new(&server).await;
    let all = guest
        .post("/api/thirdgamelist", json!({"pagesize": 200}))
        .await;
    let fun = guest
        .post(
            "/api/thirdgamelist",
            json!({"mode": "fun", "pagesize": 200}),
        )
        .await;
    assert_eq!(fun["status"], 0, "{fun}");
    let games = fun["data"]["list"].as_array().unwrap();
    assert!(!games.is_empty());
    assert!(games.iter().all(|g| g["types"]["funMode"] == 1), "{fun}");
    let with_fun = all["data"]["list"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|g| g["types"]["funMode"] == 1)
        .count();
    assert_eq!(fun["data"]["total_count"], with_fun);
    assert!(with_fun < all["data"]["total_count"].as_u64().unwrap() as usize);
    let bad = guest
        .post("/api/thirdgamelist", json!({"mode": "real"}))
        .await;
    assert_eq!(bad["status"], -70009, "{bad}");
    server.stop().await;
}

async fn the_catalogue_lists_games_with_the_contract_fields_by_section_category_and_type(
    kind: StoreKind,
) {
    let server = common::start(kind).await;
    let guest = Client::new(&server).await;
    let list = guest
        .post("/api/thirdgamelist", json!({"section": "casino"}))
        .await;
    assert_eq!(list["status"], 0, "{list}");
    assert_eq!(list["data"]["total_count"], 4, "{list}");
    let game = &list["data"]["list"][0];
    for field in [
        "id",
        "provider",
        "name",
        "front_game_id",
        "extearnal_game_id",
        "game_options",
        "link",
        "icon_1",
        "icon_2",
    ] {
        assert!(!game[field].is_null(), "{field} in {game}");
    }
    assert_eq!(
        game["types"],
        json!({"realMode": 1, "viewMode": 0, "funMode": 1})
    );
    assert!(list["data"]["categories"]
        .as_array()
        .unwrap()
        .iter()
        .all(|c| c["section"] == "casino"));
    assert_eq!(list["data"]["providers"][0]["code"], "demo");
    let live = guest
        .post(
            "/api/thirdgamelist",
            json!({"section": "live-casino", "category": "roulette"}),
        )
        .await;
    assert_eq!(live["data"]["total_count"], 2, "{live}");
    for t in ["4", "6", "8", "8pb", "9", "12"] {
        let typed = guest
            .get(&format!("/api/thirdgamelist?section=thirdparty&type={t}"))
            .await;
        assert_eq!(typed["data"]["total_count"], 1, "type {t}: {typed}");
        assert_eq!(typed["data"]["list"][0]["game_type"], t);
    }
    for section in ["ppslots", "catmin", "specialty"] {
        let s = guest
            .post("/api/thirdgamelist", json!({"section": section}))
            .await;
        assert!(s["data"]["total_count"].as_i64().unwrap() >= 1, "{section}");
    }
    let shown = guest.post("/api/thirdgameshowctl", json!({})).await;
    assert_eq!(shown["data"]["gameshow"]["bti"], 1, "{shown}");
    assert_eq!(shown["data"]["gameshow"]["live_casino"], 1, "{shown}");
    server.stop().await;
}

async fn search_answers_total_count_and_games(kind: StoreKind) {
    let server = common::start(kind).await;
    let guest = Client::new(&server).await;
    let found = guest
        .post("/api/casino/search", json!({"query": "SEVENS"}))
        .await;
    assert_eq!(found["status"], 0, "{found}");
    assert_eq!(found["data"]["total_count"], 4, "{found}");
    let names: Vec<&str> = found["data"]["games"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g["name"].as_str().unwrap())
        .collect();
    assert!(
        names.iter().all(|n| n.to_lowercase().contains("sevens")),
        "{names:?}"
    );
    let paged = guest
        .post(
            "/api/casino/search",
            json!({"query": "sevens", "pagesize": 1, "page": 2}),
        )
        .await;
    assert_eq!(paged["data"]["total_count"], 4);
    assert_eq!(paged["data"]["games"].as_array().unwrap().len(), 1);
    let in_live = guest
        .post(
            "/api/casino/search",
            json!({"query": "roulette", "section": "live-casino"}),
        )
        .await;
    assert_eq!(in_live["data"]["total_count"], 3, "{in_live}");
    let wild = guest
        .post("/api/casino/search", json!({"query": "%"}))
        .await;
    assert_eq!(
        wild["data"]["total_count"], 0,
        "a wildcard is a character: {wild}"
    );
    let long = guest
        .post("/api/casino/search", json!({"query": "x".repeat(51)}))
        .await;
    assert_eq!(long["status"], -70009, "{long}");
    let none = guest.post("/api/casino/search", json!({})).await;
    assert_eq!(none["status"], -70009, "{none}");
    server.stop().await;
}

async fn favourites_are_kept_per_member(kind: StoreKind) {
    let server = common::start(kind).await;
    let m = member(&server).await;
    let on = m
        .post(
            "/api/thirdgamefavorite",
            json!({"game_id": 2001, "favorite": 1}),
        )
        .await;
    assert_eq!(on["data"]["list"], json!([2001]), "{on}");
    m.post(
        "/api/thirdgamefavorite",
        json!({"game_id": 1001, "favorite": 1}),
    )
    .await;
    let list = m.post("/api/thirdgamelist", json!({"favorite": 1})).await;
    assert_eq!(list["data"]["total_count"], 2, "{list}");
    assert!(list["data"]["list"]
        .as_array()
        .unwrap()
        .iter()
        .all(|g| g["favorite"] == 1));
    let off = m
        .post(
            "/api/thirdgamefavorite",
            json!({"game_id": 2001, "favorite": 0}),
        )
        .await;
    assert_eq!(off["data"]["list"], json!([1001]), "{off}");
    let unknown = m
        .post("/api/thirdgamefavorite", json!({"game_id": 424242}))
        .await;
    assert_eq!(unknown["status"], -70100, "{unknown}");
    let guest = Client::new(&server).await;
    assert_eq!(
        guest
            .post("/api/thirdgamefavorite", json!({"game_id": 1001}))
            .await["status"],
        12
    );
    assert_eq!(
        guest
            .post("/api/thirdgamelist", json!({"favorite": 1}))
            .await["status"],
        12
    );
    server.stop().await;
}

async fn a_guest_asking_for_real_mode_gets_the_login_form(kind: StoreKind) {
    let server = common::start(kind).await;
    let guest = Client::new(&server).await;
    let answer = guest
        .post("/api/gamelogin", json!({"gameid": 1001, "mode": "real"}))
        .await;
    assert_eq!(answer["status"], 12, "{answer}");
    let answer = guest.get("/api/casino_auth?game_id=1001").await;
    assert_eq!(answer["status"], 12, "{answer}");
    // Visitors play fun or view.
    let fun = guest
        .post("/api/gamelogin", json!({"gameid": 1001, "mode": "fun"}))
        .await;
    assert_eq!(fun["data"]["mode"], "fun", "{fun}");
    let view = guest
        .post(
            "/api/casino_game_url",
            json!({"game_id": 2001, "mode": "view"}),
        )
        .await;
    assert_eq!(view["data"]["mode"], "view", "{view}");
    assert!(!view["data"]["url"].as_str().unwrap().contains("token="));
    server.stop().await;
}

async fn no_mode_means_real_for_a_member_and_fun_for_a_guest(kind: StoreKind) {
    let server = common::start(kind).await;
    let m = member(&server).await;
    let real = m
        .post("/api/casino_game_url", json!({"game_id": 1001}))
        .await;
    assert_eq!(real["data"]["mode"], "real", "{real}");
    let url = real["data"]["url"].as_str().unwrap();
    assert!(
        url.starts_with("/demo-provider/game?gameid=demo_slot&mode=real&type=demo"),
        "{url}"
    );
    assert!(
        url.contains("token=") && url.contains("currency=CNY") && url.contains("userid="),
        "{url}"
    );
    let guest = Client::new(&server).await;
    let fun = guest
        .post("/api/casino_game_url", json!({"game_id": 1001}))
        .await;
    assert_eq!(fun["data"]["mode"], "fun", "{fun}");
    server.stop().await;
}

async fn real_on_a_game_without_real_mode_falls_back_to_fun(kind: StoreKind) {
    let server = common::start(kind).await;
    let m = member(&server).await;
    let answer = m
        .post("/api/gamelogin", json!({"gameid": 2003, "mode": "real"}))
        .await;
    assert_eq!(answer["data"]["mode"], "fun", "{answer}");
    let guest = Client::new(&server).await;
    let answer = guest
        .post("/api/gamelogin", json!({"gameid": 2003, "mode": "real"}))
        .await;
    assert_eq!(answer["data"]["mode"], "fun", "{answer}");
    server.stop().await;
}

async fn a_direct_link_needs_login(kind: StoreKind) {
    let server = common::start(kind).await;
    let guest = Client::new(&server).await;
    let answer = guest.post("/api/gamelogin", json!({"gameid": 3302})).await;
    assert_eq!(answer["status"], 12, "{answer}");
    let m = member(&server).await;
    let answer = m.post("/api/gamelogin", json!({"gameid": 3302})).await;
    assert_eq!(
        answer["data"]["loginurl"], "/demo-provider/game?gameid=demo_slot&mode=fun&type=demo",
        "{answer}"
    );
    server.stop().await;
}

async fn casino_auth_binds_a_token_to_member_game_and_currency_with_an_expiry(kind: StoreKind) {
    let server = common::start(kind).await;
    let l = launch(&server, SLOT).await;
    let token = server
        .running
        .state
        .casino
        .tokens
        .find(&l.token)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(token.member_id, l.user);
    assert_eq!(token.game_id, SLOT);
    assert_eq!(token.currency, Currency::Cny);
    let lifetime = server.running.state.config.casino.token_lifetime_ms;
    let now = commands::platform::clock::Clock::now_ms(&server.clock);
    assert_eq!(token.expires_ms, now + lifetime);
    assert_eq!(l.balance, "10000.00");
    let auth = l.client.get("/api/casino_auth?game_id=1001").await;
    assert_eq!(auth["data"]["username"], "demo");
    assert_eq!(auth["data"]["currency"], "CNY");
    assert_ne!(
        auth["data"]["token"],
        l.token.as_str(),
        "a token per launch"
    );
    server.stop().await;
}

async fn casino_auth_refusals_say_why(kind: StoreKind) {
    let server = common::start(kind).await;
    let m = member(&server).await;
    assert_eq!(
        m.get("/api/casino_auth?game_id=424242").await["status"],
        -70100
    );
    assert_eq!(
        m.get("/api/casino_auth?game_id=abc").await["status"],
        -70009
    );
    assert_eq!(
        m.get("/api/casino_auth?game_id=2003").await["status"],
        -70102
    );
    server.stop().await;
}

async fn admin_edits_reach_the_members_catalogue_and_icons_are_served(kind: StoreKind) {
    let server = common::start(kind).await;
    let admin = staff_token(&server, "admin", "admin1234").await;
    let (status, _) = backoffice(
        &server,
        "POST",
        "/api/backoffice/casino/games/1002/enabled",
        Some(&admin),
        Some(json!({"enabled": false})),
    )
    .await;
    assert_eq!(status, 200);
    let new_game = json!({"id": 1099, "provider": "demo", "front_game_id": "demo_slot_new",
        "extearnal_game_id": "demo_slot_new", "types": {"realMode": 1, "viewMode": 0, "funMode": 1},
        "name": "Brand New Sevens", "category": "new", "section": "casino",
        "icon_1": "/api/casino/icons/1099/1.svg"});
    let (status, saved) = backoffice(
        &server,
        "POST",
        "/api/backoffice/casino/games",
        Some(&admin),
        Some(new_game),
    )
    .await;
    assert_eq!(status, 200, "{saved}");
    let (status, refused) = backoffice(
        &server,
        "POST",
        "/api/backoffice/casino/games",
        Some(&admin),
        Some(
            json!({"id": 1100, "provider": "demo", "front_game_id": "x", "extearnal_game_id": "x",
            "types": {"realMode": 1}, "name": "Bad", "category": "c", "section": "lobby"}),
        ),
    )
    .await;
    assert_eq!(status, 400, "{refused}");
    let guest = Client::new(&server).await;
    let list = guest
        .post("/api/thirdgamelist", json!({"section": "casino"}))
        .await;
    let ids: Vec<i64> = list["data"]["list"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g["id"].as_i64().unwrap())
        .collect();
    assert!(!ids.contains(&1002), "{ids:?}");
    assert!(ids.contains(&1099), "{ids:?}");
    let icon = common::http(
        server.addr(),
        "GET",
        "/api/casino/icons/1099/1.svg",
        &[],
        b"",
    )
    .await;
    assert_eq!(icon.status, 200);
    assert_eq!(icon.content_type, "image/svg+xml");
    assert!(icon.text().contains("DEMO ART") && icon.text().contains("Brand New Sevens"));
    let missing = common::http(
        server.addr(),
        "GET",
        "/api/casino/icons/424242/1.svg",
        &[],
        b"",
    )
    .await;
    assert_eq!(missing.status, 404);
    server.stop().await;
}

async fn the_demo_game_page_is_labelled_as_a_stand_in(kind: StoreKind) {
    let server = common::start(kind).await;
    let page = common::http(
        server.addr(),
        "GET",
        "/demo-provider/game?gameid=demo_roulette&mode=view&lan=eng",
        &[],
        b"",
    )
    .await;
    assert_eq!(page.status, 200);
    let html = page.text();
    assert!(
        html.contains("DEMO PROVIDER") && html.contains("Demo Roulette"),
        "labelled"
    );
    let hostile = common::http(
        server.addr(),
        "GET",
        "/demo-provider/game?gameid=%3C/script%3E%3Cscript%3Ealert(1)",
        &[],
        b"",
    )
    .await;
    assert!(
        !hostile.text().contains("</script><script>alert(1)"),
        "query text cannot close the script"
    );
    server.stop().await;
}

/// Wallet balance = the fold of its movements, the read model agrees, and
/// deposits - stakes + payouts = balance across sportsbook and casino.
async fn money_is_conserved_across_sportsbook_and_casino(kind: StoreKind) {
    let server = common::start(kind).await;
    let l = launch(&server, SLOT).await;
    let mut m = Client::new(&server).await;
    let login = m.login(&server, "demo", "demo1234").await;
    let sid = swarm_session(&server, &login).await;
    let (event_id, _, _, price) = pick(&server);
    for i in 0..3 {
        let placed = swarm(&server, &sid, json!({"command": "do_bet", "rid": 10 + i, "params": {
            "type": 1, "mode": 2, "amount": "25", "bets": [{"event_id": event_id, "price": price.to_string()}]}})).await;
        assert_eq!(placed["data"]["result"], "OK", "{placed}");
        let spin = common::http(server.addr(), "POST", "/demo-provider/api/slot/spin",
            &[("Content-Type".to_string(), "application/json".to_string())],
            json!({"player": {"token": l.token, "user": l.user, "currency": "CNY", "game": SLOT_CODE}, "stake": "7.00"}).to_string().as_bytes()).await.json();
        assert_eq!(spin["status"], "ok", "{spin}");
        let (b, r) = (uuid("bet"), uuid("round"));
        call(&server, "transaction/bet", &bet(&l, &b, &r, 300_000, false)).await;
        call(
            &server,
            "transaction/rollback",
            &rollback(&l, &uuid("rb"), &r, &b, true),
        )
        .await;
    }
    let wallet = WalletId::new(l.user.clone(), Currency::Cny);
    let events = server.running.state.wallets.events(&wallet).await.unwrap();
    let mut ledger = Ledger::default();
    let (mut inflow, mut outflow) = (rust_decimal::Decimal::ZERO, rust_decimal::Decimal::ZERO);
    for e in &events {
        ledger.apply(e);
        match e {
            domain::wallet::WalletEvent::Credited { amount, .. }
            | domain::wallet::WalletEvent::PaidOut { amount, .. } => inflow += amount,
            domain::wallet::WalletEvent::Debited { amount, .. }
            | domain::wallet::WalletEvent::StakeTaken { amount, .. }
            | domain::wallet::WalletEvent::StakeReservedAndTaken { amount, .. } => {
                outflow += amount
            }
            _ => {}
        }
    }
    let aggregate = server.running.state.wallets.replay(&wallet).await.unwrap();
    assert_eq!(ledger.total(), aggregate.ledger.total());
    assert_eq!(
        inflow - outflow,
        ledger.total(),
        "deposits - stakes + payouts = balance"
    );
    assert!(ledger.balances.main >= rust_decimal::Decimal::ZERO);
    assert_eq!(
        domain::casino::wire::to_units(aggregate.balances().main),
        balance(&server, &l).await
    );
    server.running.state.runner.catch_up_all().await.unwrap();
    let read: Value = m.post("/api/user/getbalance", json!({})).await;
    assert_eq!(
        read["data"]["balance"],
        aggregate.balances().main.to_string(),
        "{read}"
    );
    server.stop().await;
}
