//! Promotions, the rewards half (spec 001 sections 2.1, 2.12, 4, 7.4, 8,
//! 9; docs/promotions.md): daily sign-in, daily and novice tasks, the prize
//! draw, the shop. Concurrency is checked on two services (two AppStates
//! with their own pools) sharing one store, on both stores.

mod common;

use commands::platform::clock::Clock;
use common::{backoffice, http, staff_token, start_on, Client, Server};
use domain::wallet::WalletId;
use domain::Currency;
use rust_decimal::Decimal;
use rust_decimal_macros::dec;
use serde_json::{json, Value};
use store::db::testing;
use store::StoreKind;

store::on_both_stores!(
    sign_in_once_a_day_with_a_streak_that_a_missed_day_breaks,
    a_task_reward_claimed_twice_at_once_on_two_processes_pays_once,
    needcheck_task_claims_wait_for_marketing_review,
    the_prize_draw_never_oversells_its_stock_under_50_concurrent_draws_on_two_processes,
    one_prize_draw_per_member_and_period_paid_once,
    shop_purchases_spend_points_once_within_stock_limits_and_address_rules,
    concurrent_purchases_on_two_processes_never_oversell_the_stock,
    each_reward_rule_pays_once_per_member_and_period_when_applied_for_twice_at_once,
    campaigns_keep_to_their_period_audience_and_conditions,
    the_referral_gift_is_due_exactly_when_500_was_deposited_and_30_days_passed,
    task_prize_and_goods_names_are_answered_in_the_members_language,
    an_old_single_string_definition_still_loads_as_the_same_text_in_every_language,
);

const DAY: i64 = 86_400_000;

/// A reward and its credit commit together (one unit of work): on
/// Postgres every promotion credit shares its transaction with a
/// `Promotion` event. Answers how many credits there are.
async fn credits_commit_with_their_records(server: &Server, kind: StoreKind) -> i64 {
    let db = &server.running.state.db.any;
    let credits: i64 = sqlx::query_scalar(
        "SELECT COUNT(*) FROM events w WHERE w.aggregate_type = 'Wallet' AND CAST(w.metadata AS TEXT) LIKE '%\"promotion\"%'",
    )
    .fetch_one(db)
    .await
    .unwrap();
    if kind == StoreKind::Postgres {
        let alone: i64 = sqlx::query_scalar(
            "SELECT COUNT(*) FROM events w WHERE w.aggregate_type = 'Wallet' AND CAST(w.metadata AS TEXT) LIKE '%\"promotion\"%'
             AND NOT EXISTS (SELECT 1 FROM events p WHERE p.aggregate_type = 'Promotion' AND p.tx_id = w.tx_id)",
        )
        .fetch_one(db)
        .await
        .unwrap();
        assert_eq!(
            alone, 0,
            "a promotion credit committed apart from its record"
        );
    }
    credits
}

/// Two servers (processes) on one fresh store; the clocks start equal.
async fn two_servers(kind: StoreKind) -> (Server, Server) {
    let (a, b) = testing::fresh_pair(kind).await;
    let first = start_on(a, common::config(true)).await;
    let second = start_on(b, common::config(true)).await;
    second
        .clock
        .advance(first.clock.now_ms() - second.clock.now_ms());
    (first, second)
}

async fn demo(server: &Server) -> (Client, String) {
    let mut client = Client::new(server).await;
    let login = client.login(server, "demo", "demo1234").await;
    assert_eq!(login["status"], 0, "{login}");
    let id = login["data"]["user_id"].as_str().unwrap().to_string();
    (client, id)
}

/// Sessions end on the manual clock too: log in again after moving it.
async fn relogin(server: &Server) -> Client {
    demo(server).await.0
}

async fn bonus(server: &Server, member: &str) -> Decimal {
    server
        .running
        .state
        .wallets
        .load(&WalletId::new(member, Currency::Cny))
        .await
        .unwrap()
        .balances()
        .bonus
}

/// Deposits and valid turnover for `demo` (DEMO page; the VIP read model
/// has it when this returns).
async fn activity(server: &Server, deposit: Option<&str>, turnover: Option<&str>) {
    let mut body = json!({"username": "demo", "password": "demo1234"});
    if let Some(d) = deposit {
        body["deposit"] = json!(d);
    }
    if let Some(t) = turnover {
        body["turnover"] = json!(t);
    }
    let headers = vec![("Content-Type".to_string(), "application/json".to_string())];
    let answer = http(
        server.addr(),
        "POST",
        "/api/dev/vip/activity",
        &headers,
        body.to_string().as_bytes(),
    )
    .await
    .json();
    assert_eq!(answer["status"], 0, "{answer}");
}

fn task(list: &Value, id: u64) -> &Value {
    list["data"]["list"]
        .as_array()
        .unwrap_or_else(|| panic!("no list in {list}"))
        .iter()
        .find(|t| t["id"] == id)
        .unwrap_or_else(|| panic!("no task {id} in {list}"))
}

async fn sign_in_once_a_day_with_a_streak_that_a_missed_day_breaks(kind: StoreKind) {
    let server = common::start_with(kind, common::config(true)).await;
    let (client, member) = demo(&server).await;
    let before = bonus(&server, &member).await;

    let first = client.post("/api/activity/signin", json!({})).await;
    assert_eq!(first["status"], 0, "{first}");
    assert_eq!(first["data"]["streak"], 1);
    assert_eq!(first["data"]["reward"], "1");
    let again = client
        .post("/api/activity/signin", json!({"again": 1}))
        .await;
    assert_eq!(again["status"], -64030, "{again}");
    assert_eq!(again["msg"], "You have already signed in today");
    assert_eq!(bonus(&server, &member).await - before, dec!(1));

    server.clock.advance(DAY);
    let client = relogin(&server).await;
    let second = client.post("/api/activity/signin", json!({"d": 2})).await;
    assert_eq!(second["data"]["streak"], 2, "{second}");
    assert_eq!(second["data"]["reward"], "2");
    server.clock.advance(2 * DAY);
    let client = relogin(&server).await;
    let broken = client.post("/api/activity/signin", json!({"d": 4})).await;
    assert_eq!(
        broken["data"]["streak"], 1,
        "a missed day restarts: {broken}"
    );
    assert_eq!(bonus(&server, &member).await - before, dec!(4));
    let list = client
        .post("/api/activity/gettasklist", json!({"type": 1}))
        .await;
    assert_eq!(list["data"]["signin"]["signed_today"], true, "{list}");
    assert_eq!(list["data"]["signin"]["days"].as_array().unwrap().len(), 3);
    assert!(credits_commit_with_their_records(&server, kind).await > 0);
    server.stop().await;
}

async fn a_task_reward_claimed_twice_at_once_on_two_processes_pays_once(kind: StoreKind) {
    let (a, b) = two_servers(kind).await;
    let (client, member) = demo(&a).await;

    // Undone: status 0, a claim is refused.
    let list = client.post("/api/activity/gettasklist", json!({})).await;
    assert_eq!(task(&list, 1)["status"], 0, "{list}");
    let early = client
        .post("/api/activity/gettaskbonus", json!({"id": 1}))
        .await;
    assert_eq!(early["status"], -64031, "{early}");
    let unknown = client
        .post("/api/activity/gettaskbonus", json!({"id": 777}))
        .await;
    assert_eq!(unknown["status"], -64032, "{unknown}");

    // Signed in: daily task 1 is claimable; claimed at once on both
    // processes (service calls, past the request layer's duplicate guard).
    client.post("/api/activity/signin", json!({})).await;
    let list = client
        .post("/api/activity/gettasklist", json!({"n": 1}))
        .await;
    assert_eq!(task(&list, 1)["status"], 1, "{list}");
    let before = bonus(&a, &member).await;
    let (pa, pb) = (
        a.running.state.promotions.clone(),
        b.running.state.promotions.clone(),
    );
    let (m1, m2) = (member.clone(), member.clone());
    let (r1, r2) = tokio::join!(
        tokio::spawn(async move { pa.claim_task(&m1, Currency::Cny, 1).await }),
        tokio::spawn(async move { pb.claim_task(&m2, Currency::Cny, 1).await }),
    );
    assert_eq!(r1.unwrap().unwrap().state, "paid");
    assert_eq!(r2.unwrap().unwrap().state, "paid");
    assert_eq!(bonus(&a, &member).await - before, dec!(1), "paid once");
    let list = client
        .post("/api/activity/gettasklist", json!({"n": 2}))
        .await;
    assert_eq!(task(&list, 1)["status"], 2, "received: {list}");

    // The next day the daily task is undone again; novice tasks follow totals.
    activity(&a, Some("100"), Some("1000")).await;
    let client = relogin(&a).await;
    let list = client
        .post("/api/activity/gettasklist", json!({"type": 2}))
        .await;
    assert_eq!(task(&list, 102)["status"], 1, "{list}");
    assert_eq!(task(&list, 103)["status"], 1, "{list}");
    assert_eq!(task(&list, 101)["nowvalue"], "1");
    let paid = client
        .post("/api/activity/gettaskbonus", json!({"id": 103}))
        .await;
    assert_eq!(paid["status"], 0, "{paid}");
    a.clock.advance(DAY);
    let client = relogin(&a).await;
    let list = client
        .post("/api/activity/gettasklist", json!({"n": 3}))
        .await;
    assert_eq!(task(&list, 1)["status"], 0, "a new day: {list}");
    assert_eq!(
        task(&list, 103)["status"],
        2,
        "novice stays received: {list}"
    );
    assert!(credits_commit_with_their_records(&a, kind).await > 0);
    a.stop().await;
    b.stop().await;
}

async fn needcheck_task_claims_wait_for_marketing_review(kind: StoreKind) {
    let server = common::start_with(kind, common::config(true)).await;
    let (client, member) = demo(&server).await;
    let marketing = staff_token(&server, "marketing", "marketing1234").await;
    let (_, got) = backoffice(
        &server,
        "GET",
        "/api/backoffice/promo/tasks",
        Some(&marketing),
        None,
    )
    .await;
    let mut settings = got["data"].clone();
    settings["tasks"][0]["needcheck"] = json!(true);
    settings["tasks"][0]["cash"] = json!("6");
    let (status, saved) = backoffice(
        &server,
        "POST",
        "/api/backoffice/promo/tasks",
        Some(&marketing),
        Some(settings.clone()),
    )
    .await;
    assert_eq!(status, 200, "{saved}");
    let mut bad = settings.clone();
    bad["signin"] = json!([]);
    let (status, refused) = backoffice(
        &server,
        "POST",
        "/api/backoffice/promo/tasks",
        Some(&marketing),
        Some(bad),
    )
    .await;
    assert_eq!(
        (status, refused["status"].as_i64()),
        (400, Some(-64035)),
        "{refused}"
    );
    // The change is an event carrying the staff id.
    let by: Vec<String> = sqlx::query_scalar(
        "SELECT CAST(payload AS TEXT) FROM events WHERE aggregate_type = 'PromotionConfig' AND aggregate_id = 'tasks'",
    )
    .fetch_all(&server.running.state.db.any)
    .await
    .unwrap();
    assert_eq!(by.len(), 1);
    assert!(by[0].contains("staff_id"), "{}", by[0]);

    client.post("/api/activity/signin", json!({})).await;
    let before = bonus(&server, &member).await;
    let queued = client
        .post("/api/activity/gettaskbonus", json!({"id": 1}))
        .await;
    assert_eq!(queued["data"]["needcheck"], 1, "{queued}");
    let list = client
        .post("/api/activity/gettasklist", json!({"n": 1}))
        .await;
    assert_eq!(task(&list, 1)["status"], 3, "under review: {list}");
    assert_eq!(
        bonus(&server, &member).await,
        before,
        "nothing paid before review"
    );

    let (_, queue) = backoffice(
        &server,
        "GET",
        "/api/backoffice/promo/task-claims",
        Some(&marketing),
        None,
    )
    .await;
    let reference = queue["data"][0]["reference"].as_str().unwrap().to_string();
    let (status, _) = backoffice(
        &server,
        "POST",
        "/api/backoffice/promo/task-claims/review",
        Some(&marketing),
        Some(json!({"reference": reference, "approve": false})),
    )
    .await;
    assert_eq!(status, 400, "a rejection needs a reason");
    for _ in 0..2 {
        let (status, reviewed) = backoffice(
            &server,
            "POST",
            "/api/backoffice/promo/task-claims/review",
            Some(&marketing),
            Some(json!({"reference": reference, "approve": true})),
        )
        .await;
        assert_eq!(status, 200, "{reviewed}");
        assert_eq!(reviewed["data"]["state"], "approved");
    }
    assert_eq!(
        bonus(&server, &member).await - before,
        dec!(6),
        "approval pays once"
    );
    server.stop().await;
}

/// A board of 8 cash prizes whose stocks add up to `total` (slot i has
/// stock[i]), one draw per member and day.
async fn set_board(server: &Server, stock: [u32; 8]) -> Value {
    let marketing = staff_token(server, "marketing", "marketing1234").await;
    let (_, got) = backoffice(
        server,
        "GET",
        "/api/backoffice/promo/board",
        Some(&marketing),
        None,
    )
    .await;
    let mut board = got["data"]["board"].clone();
    for (i, s) in stock.iter().enumerate() {
        board["prizes"][i]["stock"] = json!(s);
        board["prizes"][i]["weight"] = json!(10);
        board["prizes"][i]["kind"] = json!("cash");
        board["prizes"][i]["cash"] = json!(format!("{}", i + 1));
    }
    let (status, saved) = backoffice(
        server,
        "POST",
        "/api/backoffice/promo/board",
        Some(&marketing),
        Some(board.clone()),
    )
    .await;
    assert_eq!(status, 200, "{saved}");
    board
}

async fn the_prize_draw_never_oversells_its_stock_under_50_concurrent_draws_on_two_processes(
    kind: StoreKind,
) {
    let (a, b) = two_servers(kind).await;
    let stock = [5, 4, 3, 3, 2, 1, 1, 1];
    set_board(&a, stock).await;
    let total: u32 = stock.iter().sum();
    let period = format!("d{}", a.clock.now_ms().div_euclid(DAY));
    let mut tasks = Vec::new();
    for i in 0..50 {
        let service = if i % 2 == 0 { &a } else { &b }
            .running
            .state
            .promotions
            .clone();
        let member = format!("drawer{i:02}");
        let token = domain::promo::draw::act_rand(&member, &period);
        tasks.push(tokio::spawn(async move {
            service.draw(&member, Currency::Cny, &token, "").await
        }));
    }
    let mut won = 0;
    let mut gone = 0;
    let mut cash = Decimal::ZERO;
    for t in tasks {
        match t.await.unwrap() {
            Ok(d) => {
                won += 1;
                cash += d.cash.parse::<Decimal>().unwrap();
            }
            Err(commands::engagement::promo::PromoFailure::Refused(-21404, msg)) => {
                assert_eq!(
                    msg,
                    "The prizes have been grabbed, please be early next week"
                );
                gone += 1;
            }
            Err(e) => panic!("draw failed: {e}"),
        }
    }
    assert_eq!((won, gone), (total, 50 - total));
    let week = domain::promo::week_of_day(a.clock.now_ms().div_euclid(DAY));
    for (slot, stock_now, taken) in a.running.state.promotions.prize_stock(week).await.unwrap() {
        assert_eq!(
            taken,
            stock[slot as usize - 1] as i64,
            "slot {slot} of {stock_now}"
        );
    }
    // Every prize paid once: the bonus credits add up to the prizes won.
    let mut credited = Decimal::ZERO;
    for i in 0..50 {
        credited += bonus(&a, &format!("drawer{i:02}")).await;
    }
    assert_eq!(credited, cash);
    assert!(credits_commit_with_their_records(&a, kind).await > 0);
    a.stop().await;
    b.stop().await;
}

async fn one_prize_draw_per_member_and_period_paid_once(kind: StoreKind) {
    let (a, b) = two_servers(kind).await;
    set_board(&a, [100; 8]).await;
    let (client, member) = demo(&a).await;
    let info = client
        .post("/api/activity/actinfo", json!({"aid": 5}))
        .await;
    assert_eq!(info["status"], 0, "{info}");
    assert_eq!(info["data"]["board"]["prizes"].as_array().unwrap().len(), 8);
    assert_eq!(info["data"]["board"]["prizes"][0]["left"], 100);
    let token = info["data"]["actRand"].as_str().unwrap().to_string();
    let stale = client
        .post("/api/activity/main", json!({"aid": 5, "actRand": "d1-old"}))
        .await;
    assert_eq!(stale["status"], -62002, "{stale}");

    // The same member draws at once on both processes: one prize.
    let before = bonus(&a, &member).await;
    let (pa, pb) = (
        a.running.state.promotions.clone(),
        b.running.state.promotions.clone(),
    );
    let (m1, m2, t1, t2) = (member.clone(), member.clone(), token.clone(), token.clone());
    let (r1, r2) = tokio::join!(
        tokio::spawn(async move { pa.draw(&m1, Currency::Cny, &t1, "").await }),
        tokio::spawn(async move { pb.draw(&m2, Currency::Cny, &t2, "").await }),
    );
    let results = [r1.unwrap(), r2.unwrap()];
    let won: Vec<_> = results.iter().filter_map(|r| r.as_ref().ok()).collect();
    assert_eq!(won.len(), 1, "{results:?}");
    let cash: Decimal = won[0].cash.parse().unwrap();
    assert!(
        matches!(
            results.iter().find(|r| r.is_err()),
            Some(Err(commands::engagement::promo::PromoFailure::Refused(
                -62001,
                _
            )))
        ),
        "{results:?}"
    );
    assert_eq!(bonus(&a, &member).await - before, cash, "paid once");

    // Again through the API: refused with the first prize named.
    let again = client
        .post("/api/activity/main", json!({"aid": 5, "actRand": token}))
        .await;
    assert_eq!(again["status"], -62001, "{again}");
    assert!(again["msg"]
        .as_str()
        .unwrap()
        .contains(won[0].jiangpin.as_str()));
    let info = client
        .post("/api/activity/actinfo", json!({"aid": 5, "n": 2}))
        .await;
    assert_eq!(
        info["data"]["board"]["drawn"]["jiangpin"],
        won[0].jiangpin.as_str()
    );

    // The next day: a new actRand, a new draw.
    a.clock.advance(DAY);
    let client = relogin(&a).await;
    let info = client
        .post("/api/activity/actinfo", json!({"aid": 5}))
        .await;
    let next = info["data"]["actRand"].as_str().unwrap().to_string();
    assert_ne!(next, token);
    let drawn = client
        .post("/api/activity/main", json!({"aid": 5, "actRand": next}))
        .await;
    assert_eq!(drawn["status"], 0, "{drawn}");
    assert!(drawn["data"]["jiangpin"].as_str().is_some());
    // aid 13 still reaches the season rank reward; unknown aids are refused.
    let season = client
        .post("/api/activity/actinfo", json!({"aid": 13, "sid": 3}))
        .await;
    assert_eq!(season["status"], 0, "{season}");
    let unknown = client
        .post("/api/activity/actinfo", json!({"aid": 99999}))
        .await;
    assert_ne!(unknown["status"], 0, "{unknown}");
    a.stop().await;
    b.stop().await;
}

async fn set_goods(server: &Server, goods: Value) {
    let marketing = staff_token(server, "marketing", "marketing1234").await;
    let (status, saved) = backoffice(
        server,
        "POST",
        "/api/backoffice/promo/goods",
        Some(&marketing),
        Some(goods),
    )
    .await;
    assert_eq!(status, 200, "{saved}");
}

async fn shop_purchases_spend_points_once_within_stock_limits_and_address_rules(kind: StoreKind) {
    let server = common::start_with(kind, common::config(true)).await;
    // 100,000 of valid turnover earns 1,000 M currency (0.01 a unit).
    activity(&server, None, Some("100000")).await;
    let (client, member) = demo(&server).await;
    let list = client.post("/api/shop/goodslist", json!({})).await;
    assert_eq!(list["status"], 0, "{list}");
    assert_eq!(list["data"]["points"], "1000");
    assert_eq!(list["data"]["list"].as_array().unwrap().len(), 4);

    let before = bonus(&server, &member).await;
    let bought = client
        .post("/api/shop/buy", json!({"id": 1, "num": 1}))
        .await;
    assert_eq!(bought["status"], 0, "{bought}");
    assert_eq!(bought["data"]["order"]["state"], "paid");
    assert_eq!(bought["data"]["points"], "900");
    assert_eq!(bonus(&server, &member).await - before, dec!(8));
    // The limit is 5 per member: 1 + 5 is too many.
    let limit = client
        .post("/api/shop/buy", json!({"id": 1, "num": 5}))
        .await;
    assert_eq!(limit["status"], -40303, "{limit}");
    let info = client.post("/api/shop/goodsinfo", json!({"id": 1})).await;
    assert_eq!(info["data"]["info"]["bought"], 1, "{info}");
    let unknown = client.post("/api/shop/buy", json!({"id": 999})).await;
    assert_eq!(unknown["status"], -40304, "{unknown}");
    let zero = client
        .post("/api/shop/buy", json!({"id": 1, "num": 0}))
        .await;
    assert_eq!(zero["status"], -40306, "{zero}");

    // Physical goods need the delivery address, then join the queue.
    let shirt = client.post("/api/shop/buy", json!({"id": 3})).await;
    assert_eq!(shirt["status"], -40305, "{shirt}");
    let address = client.post("/api/user/setuseraddress", json!({"consignee": "Li Lei", "phone": "13800138000", "province": "GD", "city": "Shenzhen", "district": "Nanshan", "address": "1 Road"})).await;
    assert_eq!(address["status"], 0, "{address}");
    let shirt = client.post("/api/shop/buy", json!({"id": 3, "n": 2})).await;
    assert_eq!(shirt["status"], 0, "{shirt}");
    assert_eq!(shirt["data"]["order"]["state"], "to_ship");
    assert_eq!(shirt["data"]["points"], "100");
    let marketing = staff_token(&server, "marketing", "marketing1234").await;
    let (_, queue) = backoffice(
        &server,
        "GET",
        "/api/backoffice/promo/fulfilment",
        Some(&marketing),
        None,
    )
    .await;
    let row = &queue["data"][0];
    assert_eq!(row["item"], "Team shirt", "{queue}");
    assert!(row["address"].as_str().unwrap().contains("Shenzhen"));
    let ship = json!({"source": "order", "id": row["id"]});
    let (status, _) = backoffice(
        &server,
        "POST",
        "/api/backoffice/promo/fulfilment/ship",
        Some(&marketing),
        Some(ship.clone()),
    )
    .await;
    assert_eq!(status, 200);
    let (status, again) = backoffice(
        &server,
        "POST",
        "/api/backoffice/promo/fulfilment/ship",
        Some(&marketing),
        Some(ship),
    )
    .await;
    assert_eq!(status, 400, "shipped once: {again}");

    // 100 points left: the 450-point item is refused.
    let poor = client.post("/api/shop/buy", json!({"id": 2})).await;
    assert_eq!(poor["status"], -40302, "{poor}");
    assert_eq!(poor["msg"], "Not enough M currency");
    // The points spent are VIP PointsSpent events, one per order.
    let spent: i64 =
        sqlx::query_scalar("SELECT COUNT(*) FROM events WHERE event_type = 'PointsSpent'")
            .fetch_one(&server.running.state.db.any)
            .await
            .unwrap();
    assert_eq!(spent, 2);
    server.stop().await;
}

async fn concurrent_purchases_on_two_processes_never_oversell_the_stock(kind: StoreKind) {
    let (a, b) = two_servers(kind).await;
    activity(&a, None, Some("100000")).await;
    let (_, member) = demo(&a).await;
    set_goods(&a, json!({"id": 9, "name": "Lucky bag", "kind": "cash", "points": "50", "cash": "1", "stock": 8, "limit": 0})).await;
    // 12 purchases of 50 at once (600 of the 1,000 points): 8 in stock.
    let mut tasks = Vec::new();
    for i in 0..12 {
        let service = if i % 2 == 0 { &a } else { &b }
            .running
            .state
            .promotions
            .clone();
        let member = member.clone();
        tasks.push(tokio::spawn(async move {
            service.buy(&member, Currency::Cny, 9, 1, "").await
        }));
    }
    let mut ok = 0;
    for t in tasks {
        match t.await.unwrap() {
            Ok(order) => {
                assert_eq!(order.state, "paid");
                ok += 1;
            }
            Err(commands::engagement::promo::PromoFailure::Refused(-40301, _)) => {}
            Err(e) => panic!("buy failed: {e}"),
        }
    }
    assert_eq!(ok, 8);
    let goods = a.running.state.promotions.goods_list(true).await.unwrap();
    let bag = goods.iter().find(|g| g.goods.id == 9).unwrap();
    assert_eq!((bag.sold, bag.left), (8, 0));
    assert_eq!(bonus(&a, &member).await, dec!(8), "each order's bonus once");
    assert_eq!(credits_commit_with_their_records(&a, kind).await, 8);
    a.stop().await;
    b.stop().await;
}

fn campaign(id: u32, slug: &str, repeat: &str, rule: Value, start_ms: i64) -> Value {
    json!({
        "id": id, "slug": slug,
        "pages": {"eng": {"title": format!("Campaign {id}"), "body": "Rules"},
                  "zhh": {"title": format!("活动 {id}")}},
        "start_ms": start_ms, "end_ms": start_ms + 30 * DAY,
        "repeat": repeat, "rule": rule, "turnover_multiple": "10",
    })
}

async fn save_campaign(server: &Server, c: Value) -> (u16, Value) {
    let marketing = staff_token(server, "marketing", "marketing1234").await;
    backoffice(
        server,
        "POST",
        "/api/backoffice/promo/campaigns",
        Some(&marketing),
        Some(c),
    )
    .await
}

/// Applies at once on both processes: one reward, the other -63005; the
/// bonus arrives once. Returns the bonus.
async fn apply_twice_at_once(a: &Server, b: &Server, aid: u32, member: &str) -> Decimal {
    let before = bonus(a, member).await;
    let (pa, pb) = (
        a.running.state.promotions.clone(),
        b.running.state.promotions.clone(),
    );
    let (m1, m2) = (member.to_string(), member.to_string());
    let (r1, r2) = tokio::join!(
        tokio::spawn(async move { pa.apply(aid, &m1, Currency::Cny).await }),
        tokio::spawn(async move { pb.apply(aid, &m2, Currency::Cny).await }),
    );
    let results = [r1.unwrap(), r2.unwrap()];
    let won: Vec<_> = results.iter().filter_map(|r| r.as_ref().ok()).collect();
    assert_eq!(won.len(), 1, "campaign {aid}: {results:?}");
    assert!(
        results.iter().any(|r| matches!(
            r,
            Err(commands::engagement::promo::PromoFailure::Refused(
                -63005,
                _
            ))
        )),
        "{results:?}"
    );
    let amount: Decimal = won[0].amount.parse().unwrap();
    assert!(amount > Decimal::ZERO);
    assert_eq!(
        bonus(a, member).await - before,
        amount,
        "campaign {aid} paid once"
    );
    // The turnover it requires is recorded with the reward.
    assert_eq!(
        won[0].turnover_required.parse::<Decimal>().unwrap(),
        amount * dec!(10)
    );
    amount
}

async fn each_reward_rule_pays_once_per_member_and_period_when_applied_for_twice_at_once(
    kind: StoreKind,
) {
    let (a, b) = two_servers(kind).await;
    let (client, member) = demo(&a).await;
    let start = a.clock.now_ms() - DAY;
    for c in [
        campaign(
            101,
            "newDeposit2025",
            "once",
            json!({"type": "first_deposit", "percent": "10", "min_deposit": "100", "max_bonus": "888"}),
            start,
        ),
        campaign(
            102,
            "actione",
            "daily",
            json!({"type": "reload", "percent": "5", "min_deposit": "100", "max_bonus": "50"}),
            start,
        ),
        campaign(
            103,
            "actitwo",
            "weekly",
            json!({"type": "turnover", "tiers": [["1000", "8"], ["5000", "38"]]}),
            start,
        ),
        campaign(
            104,
            "backWater",
            "daily",
            json!({"type": "loss_rebate", "percent": "10", "min_loss": "10", "max_bonus": "100"}),
            start,
        ),
    ] {
        let (status, saved) = save_campaign(&a, c).await;
        assert_eq!(status, 200, "{saved}");
    }
    activity(&a, Some("300"), Some("6000")).await;
    // A loss: 500 staked on a game and lost (a wallet debit), today.
    a.running
        .state
        .wallets
        .execute(domain::wallet::WalletCommand::new(
            WalletId::new(member.clone(), Currency::Cny),
            "game-loss-1",
            domain::wallet::WalletAction::Debit {
                amount: dec!(500),
                pot: domain::wallet::Pot::Main,
                kind: domain::wallet::MovementKind::GameDebit,
            },
        ))
        .await
        .unwrap();

    let info = client
        .post("/api/activity/actinfo", json!({"aid": 103, "lang": "zhh"}))
        .await;
    assert_eq!(info["status"], 0, "{info}");
    assert_eq!(info["data"]["activity"]["title"], "活动 103");
    assert_eq!(info["data"]["standing"]["status"], 1, "{info}");
    assert_eq!(info["data"]["standing"]["bonus"], "38");

    apply_twice_at_once(&a, &b, 101, &member).await;
    apply_twice_at_once(&a, &b, 102, &member).await;
    assert_eq!(apply_twice_at_once(&a, &b, 103, &member).await, dec!(38));
    // Through the API too: applied this period, refused.
    let again = client
        .post("/api/activity/apply", json!({"aid": 103}))
        .await;
    assert_eq!(again["status"], -63005, "{again}");
    assert_eq!(again["msg"], "You have already applied for this activity");

    // The loss rebate reads the previous day: tomorrow, 10% of 500.
    let wait = std::time::Instant::now();
    while a
        .running
        .state
        .promotions
        .net_loss_between(&member, 0, i64::MAX)
        .await
        .unwrap()
        < dec!(500)
    {
        assert!(
            wait.elapsed().as_secs() < 10,
            "the loss never reached the read model"
        );
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    a.clock.advance(DAY);
    b.clock.advance(DAY);
    assert_eq!(apply_twice_at_once(&a, &b, 104, &member).await, dec!(50));
    // A new day is a new reload period; its deposits are the new basis.
    let refused = a
        .running
        .state
        .promotions
        .apply(102, &member, Currency::Cny)
        .await;
    assert!(
        matches!(
            refused,
            Err(commands::engagement::promo::PromoFailure::Refused(
                -63004,
                _
            ))
        ),
        "{refused:?}"
    );
    let client = relogin(&a).await;
    let list = client.post("/api/activity/reissuelist", json!({})).await;
    assert_eq!(list["data"]["list"].as_array().unwrap().len(), 4, "{list}");
    let reference = list["data"]["list"][0]["reference"]
        .as_str()
        .unwrap()
        .to_string();
    let before = bonus(&a, &member).await;
    let re = client
        .post("/api/activity/reissueget", json!({"reference": reference}))
        .await;
    assert_eq!(re["status"], 0, "{re}");
    assert_eq!(
        bonus(&a, &member).await,
        before,
        "a re-issue moves nothing twice"
    );
    assert!(credits_commit_with_their_records(&a, kind).await > 0);
    a.stop().await;
    b.stop().await;
}

async fn campaigns_keep_to_their_period_audience_and_conditions(kind: StoreKind) {
    let server = common::start_with(kind, common::config(true)).await;
    let (client, _) = demo(&server).await;
    let now = server.clock.now_ms();
    let turnover = json!({"type": "turnover", "tiers": [["1000", "8"]]});
    // Reserved ids and bad slugs are refused.
    let (status, bad) =
        save_campaign(&server, campaign(5, "x", "once", turnover.clone(), now)).await;
    assert_eq!(
        (status, bad["status"].as_i64()),
        (400, Some(-63006)),
        "{bad}"
    );
    save_campaign(
        &server,
        campaign(201, "acti3", "once", turnover.clone(), now + DAY),
    )
    .await;
    let mut usd = campaign(202, "acti4", "once", turnover.clone(), now - DAY);
    usd["audience"] = json!({"currencies": ["USD"]});
    save_campaign(&server, usd).await;
    save_campaign(
        &server,
        campaign(203, "europeanCup2021", "once", turnover, now - DAY),
    )
    .await;
    let (status, dup) = save_campaign(
        &server,
        campaign(
            204,
            "acti3",
            "once",
            json!({"type": "turnover", "tiers": [["1", "1"]]}),
            now,
        ),
    )
    .await;
    assert_eq!(status, 400, "one slug, one campaign: {dup}");

    let index = client
        .post("/api/activity/index", json!({"lang": "eng"}))
        .await;
    assert_eq!(
        index["data"]["list"].as_array().unwrap().len(),
        3,
        "{index}"
    );
    let early = client
        .post("/api/activity/apply", json!({"aid": 201}))
        .await;
    assert_eq!(early["status"], -63002, "{early}");
    let audience = client
        .post("/api/activity/apply", json!({"aid": 202}))
        .await;
    assert_eq!(audience["status"], -63003, "{audience}");
    let unmet = client.post("/api/activity/main", json!({"aid": 203})).await;
    assert_eq!(unmet["status"], -63004, "{unmet}");
    let unknown = client
        .post("/api/activity/apply", json!({"aid": 999}))
        .await;
    assert_eq!(unknown["status"], -63001, "{unknown}");
    activity(&server, None, Some("1000")).await;
    let medals = client.post("/api/activity/MedalsNum", json!({})).await;
    assert_eq!(medals["data"]["num"], 1, "{medals}");
    let client = relogin(&server).await;
    let applied = client
        .post("/api/activity/main", json!({"aid": 203, "n": 1}))
        .await;
    assert_eq!(applied["status"], 0, "{applied}");
    assert_eq!(applied["data"]["reward"]["amount"], "8.00");
    server.stop().await;
}

/// A browser on `device` (its own app token).
async fn client_on(server: &Server, device: &str) -> Client {
    let mut c = Client::new(server).await;
    c.device_id = device.to_string();
    let token = c.get("/api/getapitoken").await;
    c.app_token = token["data"]["apitoken"].as_str().unwrap().to_string();
    c
}

/// Registers by phone with an invite code; returns the member id.
async fn register_invited(server: &Server, client: &mut Client, phone: &str, code: &str) -> String {
    let sent = client
        .post(
            "/api/sendcode",
            json!({"type": 2, "valtype": 1, "mobile": phone}),
        )
        .await;
    assert_eq!(sent["status"], 0, "{sent}");
    let uid = sent["data"]["uid"].as_str().unwrap().to_string();
    let code_sent = server.outbox(|e| e["uid"] == uid.as_str()).await["code"]
        .as_str()
        .unwrap()
        .to_string();
    let checked = client
        .post(
            "/api/checkcode",
            json!({"uid": uid, "type": 2, "valtype": 1, "mobile": phone, "checkCode": code_sent}),
        )
        .await;
    assert_eq!(checked["status"], 0, "{checked}");
    let answer = client
        .post(
            "/api/default/registermobile",
            json!({"phone": phone, "phoneUid": uid, "password": "abc12345", "repassword": "abc12345",
                   "country_code": "CN", "currency_name": "CNY", "agree": true, "language": "zhh",
                   "invite_code": code.to_lowercase()}),
        )
        .await;
    assert_eq!(answer["status"], 0, "{answer}");
    answer["data"]["user_id"].as_str().unwrap().to_string()
}

async fn deposit_for(server: &Server, username: &str, amount: &str) {
    let headers = vec![("Content-Type".to_string(), "application/json".to_string())];
    let body = json!({"username": username, "password": "abc12345", "deposit": amount});
    let answer = http(
        server.addr(),
        "POST",
        "/api/dev/vip/activity",
        &headers,
        body.to_string().as_bytes(),
    )
    .await
    .json();
    assert_eq!(answer["status"], 0, "{answer}");
}

async fn referral_state(server: &Server, referee: &str) -> String {
    let all = server.running.state.promotions.referrals("").await.unwrap();
    all.iter()
        .find(|r| r.referee_id == referee)
        .map(|r| r.state.clone())
        .unwrap_or_else(|| "unlinked".into())
}

async fn the_referral_gift_is_due_exactly_when_500_was_deposited_and_30_days_passed(
    kind: StoreKind,
) {
    let server = common::start_with(kind, common::config(true)).await;
    let promotions = server.running.state.promotions.clone();
    let (demo_client, referrer) = demo(&server).await;
    let invite = demo_client.post("/api/user/invite", json!({})).await;
    assert_eq!(invite["status"], 0, "{invite}");
    let code = invite["data"]["code"].as_str().unwrap().to_string();
    assert_eq!(code.len(), 6);
    assert_eq!(invite["data"]["rules"]["gift"], "58");
    let template = demo_client
        .post("/api/user/invitetemplate", json!({}))
        .await;
    assert!(
        template["data"]["link"].as_str().unwrap().contains(&code),
        "{template}"
    );

    // A referee on a device of their own; one registered on the
    // referrer's own device (self-referral); two on one shared device.
    let mut own = client_on(&server, "device-referee-1").await;
    let referee = register_invited(&server, &mut own, "13900000001", &code).await;
    let mut same = client_on(&server, &demo_client.device_id).await;
    let selfish = register_invited(&server, &mut same, "13900000002", &code).await;
    let mut shared = client_on(&server, "device-shared").await;
    let twin_a = register_invited(&server, &mut shared, "13900000003", &code).await;
    let mut shared_b = client_on(&server, "device-shared").await;
    let twin_b = register_invited(&server, &mut shared_b, "13900000004", &code).await;
    let wait = std::time::Instant::now();
    while referral_state(&server, &twin_b).await == "unlinked" {
        promotions.referral_pass().await.unwrap();
        assert!(
            wait.elapsed().as_secs() < 10,
            "the registrations were never linked"
        );
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    for id in [&referee, &selfish, &twin_a, &twin_b] {
        assert_eq!(referral_state(&server, id).await, "pending");
    }
    let before = bonus(&server, &referrer).await;

    // 499.99 deposited, 30 days less a millisecond: not due.
    deposit_for(&server, "13900000001", "499.99").await;
    for phone in ["13900000002", "13900000003", "13900000004"] {
        deposit_for(&server, phone, "1000").await;
    }
    server.clock.advance(30 * DAY - 1);
    promotions.referral_pass().await.unwrap();
    assert_eq!(referral_state(&server, &referee).await, "pending");
    // 500 deposited, still a millisecond short of 30 days: not due.
    deposit_for(&server, "13900000001", "0.01").await;
    promotions.referral_pass().await.unwrap();
    assert_eq!(referral_state(&server, &referee).await, "pending");
    assert_eq!(bonus(&server, &referrer).await, before);
    // Both hold: due, paid once however often the job runs.
    server.clock.advance(1);
    promotions.referral_pass().await.unwrap();
    promotions.referral_pass().await.unwrap();
    assert_eq!(referral_state(&server, &referee).await, "paid");
    assert_eq!(
        bonus(&server, &referrer).await - before,
        dec!(58),
        "one gift"
    );
    assert_eq!(referral_state(&server, &selfish).await, "refused");
    assert_eq!(referral_state(&server, &twin_a).await, "refused");
    assert_eq!(referral_state(&server, &twin_b).await, "refused");
    // The gift's turnover requirement is twice the gift.
    let meta: String = sqlx::query_scalar(
        "SELECT CAST(metadata AS TEXT) FROM events WHERE aggregate_type = 'Wallet' AND CAST(payload AS TEXT) LIKE $1",
    )
    .bind(format!("%referral:{referee}%"))
    .fetch_one(&server.running.state.db.any)
    .await
    .unwrap();
    assert!(meta.contains("116"), "{meta}");

    let client = relogin(&server).await;
    let invite = client.post("/api/user/invite", json!({})).await;
    let list = invite["data"]["list"].as_array().unwrap();
    assert_eq!(list.len(), 4, "{invite}");
    let paid = list.iter().find(|r| r["state"] == "paid").unwrap();
    assert_eq!(paid["action"], 1);
    assert_eq!(paid["bonus"], "58");
    assert_eq!(paid["username"], "1***1");
    assert_eq!(invite["data"]["total_bonus"], "58");
    server.stop().await;
}

fn texts(zhh: &str, eng: &str, tha: &str) -> Value {
    json!({"zhh": zhh, "eng": eng, "tha": tha})
}

async fn task_prize_and_goods_names_are_answered_in_the_members_language(kind: StoreKind) {
    let server = common::start_with(kind, common::config(true)).await;
    let marketing = staff_token(&server, "marketing", "marketing1234").await;
    // a task, a prize and goods named per language by marketing
    let (_, got) = backoffice(
        &server,
        "GET",
        "/api/backoffice/promo/tasks",
        Some(&marketing),
        None,
    )
    .await;
    let mut settings = got["data"].clone();
    settings["tasks"][0]["title"] = texts("今日签到", "Sign in today", "เช็คอินวันนี้ครับ");
    let (status, saved) = backoffice(
        &server,
        "POST",
        "/api/backoffice/promo/tasks",
        Some(&marketing),
        Some(settings),
    )
    .await;
    assert_eq!(status, 200, "{saved}");
    let board = set_board(&server, [5; 8]).await;
    let mut board = board;
    board["prizes"][0]["name"] = texts("一元", "One yuan", "หนึ่งหยวน");
    let (status, saved) = backoffice(
        &server,
        "POST",
        "/api/backoffice/promo/board",
        Some(&marketing),
        Some(board),
    )
    .await;
    assert_eq!(status, 200, "{saved}");
    set_goods(
        &server,
        json!({"id": 7, "name": texts("保温杯", "Thermos", "กระติกน้ำ"), "desc": texts("", "Keeps warm", ""),
               "kind": "physical", "points": "10", "stock": 5, "limit": 1}),
    )
    .await;
    // a name missing in one language is refused with the rule
    let (status, refused) = backoffice(
        &server,
        "POST",
        "/api/backoffice/promo/goods",
        Some(&marketing),
        Some(json!({"id": 8, "name": texts("", "Cap", "หมวก"), "kind": "physical", "points": "10", "stock": 5})),
    )
    .await;
    assert_eq!(
        (status, refused["status"].as_i64()),
        (400, Some(-64035)),
        "{refused}"
    );
    assert!(
        refused["msg"]
            .as_str()
            .unwrap()
            .contains("zhh, eng and tha"),
        "{refused}"
    );

    let (client, _) = demo(&server).await;
    for (lang, task_name, prize, goods, desc) in [
        ("tha", "เช็คอินวันนี้ครับ", "หนึ่งหยวน", "กระติกน้ำ", "Keeps warm"),
        ("zhh", "今日签到", "一元", "保温杯", "Keeps warm"),
        ("eng", "Sign in today", "One yuan", "Thermos", "Keeps warm"),
    ] {
        let list = client
            .post("/api/activity/gettasklist", json!({"lang": lang}))
            .await;
        assert_eq!(task(&list, 1)["taskdesc"], task_name, "{lang}: {list}");
        let info = client
            .post("/api/activity/actinfo", json!({"aid": 5, "lang": lang}))
            .await;
        assert_eq!(
            info["data"]["board"]["prizes"][0]["name"], prize,
            "{lang}: {info}"
        );
        let shop = client
            .post("/api/shop/goodslist", json!({"lang": lang}))
            .await;
        let item = shop["data"]["list"]
            .as_array()
            .unwrap()
            .iter()
            .find(|g| g["id"] == 7)
            .cloned()
            .unwrap_or_else(|| panic!("no goods 7 in {shop}"));
        assert_eq!(
            (item["name"].as_str(), item["desc"].as_str()),
            (Some(goods), Some(desc)),
            "{lang}: {item}"
        );
        let one = client
            .post("/api/shop/goodsinfo", json!({"id": 7, "lang": lang}))
            .await;
        assert_eq!(one["data"]["info"]["name"], goods, "{one}");
    }
    // no language: eng
    let list = client.post("/api/activity/gettasklist", json!({})).await;
    assert_eq!(task(&list, 1)["taskdesc"], "Sign in today");
    // the drawn prize is named in the member's language too (every slot in
    // stock; the board's slot 1 is the one we named)
    let info = client
        .post("/api/activity/actinfo", json!({"aid": 5, "lang": "tha"}))
        .await;
    let token = info["data"]["actRand"].as_str().unwrap().to_string();
    let drawn = client
        .post(
            "/api/activity/main",
            json!({"aid": 5, "actRand": token, "lang": "tha"}),
        )
        .await;
    assert_eq!(drawn["status"], 0, "{drawn}");
    let slot = drawn["data"]["prize"]["slot"].as_u64().unwrap() as usize;
    let names = &info["data"]["board"]["prizes"][slot - 1]["name"];
    assert_eq!(&drawn["data"]["jiangpin"], names, "{drawn}");
    server.stop().await;
}

async fn an_old_single_string_definition_still_loads_as_the_same_text_in_every_language(
    kind: StoreKind,
) {
    let server = common::start_with(kind, common::config(true)).await;
    let db = &server.running.state.db.any;
    // definitions stored before names were per language: one string each
    let mut old_tasks =
        serde_json::to_value(domain::promo::tasks::TaskSettings::default()).unwrap();
    for t in old_tasks["tasks"].as_array_mut().unwrap() {
        let eng = t["title"]["eng"].clone();
        t["title"] = eng;
    }
    old_tasks["tasks"][0]["title"] = json!("Old sign-in task");
    assert!(old_tasks["tasks"][0]["title"].is_string());
    sqlx::query("INSERT INTO promo_settings (name, value, updated_by, updated_ms) VALUES ('tasks', $1, 'old', 0)")
        .bind(old_tasks.to_string())
        .execute(db)
        .await
        .unwrap();
    let old_goods = json!({"id": 9, "name": "Old mug", "desc": "Ceramic", "img": "", "kind": "physical",
        "points": "10", "cash": "0", "stock": 3, "limit": 0, "on_sale": true});
    sqlx::query("INSERT INTO promo_goods (goods_id, def, stock, sold, updated_by, updated_ms) VALUES (9, $1, 3, 0, 'old', 0)")
        .bind(old_goods.to_string())
        .execute(db)
        .await
        .unwrap();

    let (client, _) = demo(&server).await;
    for lang in ["zhh", "eng", "tha"] {
        let list = client
            .post("/api/activity/gettasklist", json!({"lang": lang}))
            .await;
        assert_eq!(
            task(&list, 1)["taskdesc"],
            "Old sign-in task",
            "{lang}: {list}"
        );
        let shop = client
            .post("/api/shop/goodslist", json!({"lang": lang}))
            .await;
        let item = shop["data"]["list"]
            .as_array()
            .unwrap()
            .iter()
            .find(|g| g["id"] == 9)
            .cloned()
            .unwrap_or_else(|| panic!("no goods 9 in {shop}"));
        assert_eq!(
            (item["name"].as_str(), item["desc"].as_str()),
            (Some("Old mug"), Some("Ceramic")),
            "{item}"
        );
    }
    // marketing reads the same text in all three languages, and saving it
    // back stores the per-language form
    let marketing = staff_token(&server, "marketing", "marketing1234").await;
    let (_, got) = backoffice(
        &server,
        "GET",
        "/api/backoffice/promo/tasks",
        Some(&marketing),
        None,
    )
    .await;
    assert_eq!(
        got["data"]["tasks"][0]["title"],
        texts("Old sign-in task", "Old sign-in task", "Old sign-in task")
    );
    let (_, goods) = backoffice(
        &server,
        "GET",
        "/api/backoffice/promo/goods",
        Some(&marketing),
        None,
    )
    .await;
    let mug = goods["data"]
        .as_array()
        .unwrap()
        .iter()
        .find(|g| g["id"] == 9)
        .cloned()
        .unwrap();
    assert_eq!(mug["name"], texts("Old mug", "Old mug", "Old mug"), "{mug}");
    let (status, saved) = backoffice(
        &server,
        "POST",
        "/api/backoffice/promo/tasks",
        Some(&marketing),
        Some(got["data"].clone()),
    )
    .await;
    assert_eq!(status, 200, "{saved}");
    let stored: String =
        sqlx::query_scalar("SELECT value FROM promo_settings WHERE name = 'tasks'")
            .fetch_one(db)
            .await
            .unwrap();
    let stored: Value = serde_json::from_str(&stored).unwrap();
    assert_eq!(
        stored["tasks"][0]["title"],
        texts("Old sign-in task", "Old sign-in task", "Old sign-in task")
    );
    server.stop().await;
}
