//! Content and inbox (issue 13 items 6 and 7, spec 001 sections 2.3, 3,
//! 7.2, 7.4; docs/content.md): the inbox written once per source event
//! across a restart and two processes; notices in the marquee; campaign
//! messages to segments with the unread count; banners, covers, popups,
//! news and help pages as members get them; every desk change audited.

mod common;

use std::sync::Arc;
use std::time::Duration;

use commands::engagement::inbox::Inbox;
use commands::platform::clock::{ManualClock, SharedClock};
use common::{backoffice, staff_token, Client};
use serde_json::{json, Value};
use store::db::testing;
use store::Backend;
use store::{Db, StoreKind};

store::on_both_stores!(
    each_source_event_writes_one_inbox_message_across_a_restart_and_two_processes,
    one_inbox_pass_reads_a_backlog_past_its_full_batches,
    a_notice_marketing_publishes_shows_in_the_marquee_and_is_audited,
    campaign_messages_reach_their_segment_with_the_unread_count,
    banners_covers_popups_news_and_help_pages_as_members_get_them,
    a_campaign_pushes_a_warm_tip_1005_to_the_members_bound_socket,
);

const SETTLE: Duration = Duration::from_secs(10);

fn backend(kind: StoreKind) -> Backend {
    match kind {
        StoreKind::Postgres => Backend::Postgres,
        StoreKind::Sqlite => Backend::Sqlite,
    }
}

fn inbox(db: &Db, kind: StoreKind) -> Arc<Inbox> {
    let clock: SharedClock = Arc::new(ManualClock::at(1_780_000_000_000));
    Arc::new(Inbox::new(db.any.clone(), backend(kind), clock))
}

/// Appends a source event as the other services write them.
async fn append(
    db: &Db,
    kind: StoreKind,
    aggregate: &str,
    id: &str,
    seq: i64,
    event: &str,
    payload: Value,
) {
    let cast = if kind == StoreKind::Postgres {
        "::json"
    } else {
        ""
    };
    sqlx::query(&format!(
        "INSERT INTO events (aggregate_type, aggregate_id, sequence, event_type, event_version, payload, metadata) VALUES ($1, $2, $3, $4, '1', $5{cast}, $6{cast})"
    ))
    .bind(aggregate)
    .bind(id)
    .bind(seq)
    .bind(event)
    .bind(json!({ event: payload }).to_string())
    .bind("{}")
    .execute(&db.any)
    .await
    .unwrap();
}

/// A withdrawal of `member` requested and rejected (one inbox message).
async fn rejected_withdrawal(db: &Db, kind: StoreKind, id: &str, member: &str) {
    append(
        db,
        kind,
        "Withdrawal",
        id,
        1,
        "WithdrawalRequested",
        json!({"member_id": member, "amount": "50.00"}),
    )
    .await;
    append(
        db,
        kind,
        "Withdrawal",
        id,
        2,
        "WithdrawalRejected",
        json!({"staff_id": "f1", "reason": "name mismatch", "at_ms": 1}),
    )
    .await;
}

async fn count(db: &Db, sql: &str, member: &str) -> i64 {
    sqlx::query_scalar(sql)
        .bind(member)
        .fetch_one(&db.any)
        .await
        .unwrap()
}

async fn each_source_event_writes_one_inbox_message_across_a_restart_and_two_processes(
    kind: StoreKind,
) {
    let (db1, db2) = testing::fresh_pair(kind).await;
    let (first, second) = (inbox(&db1, kind), inbox(&db2, kind));
    let m = "100777";
    for round in 0..3 {
        let d = format!("D{round}");
        let w = format!("W{round}");
        append(
            &db1,
            kind,
            "Deposit",
            &d,
            1,
            "DepositCreated",
            json!({"order_id": d, "member_id": m, "amount": "100.00", "currency": "CNY"}),
        )
        .await;
        append(
            &db1,
            kind,
            "Deposit",
            &d,
            2,
            "DepositCredited",
            json!({"member_id": m, "currency": "CNY", "amount": "100.00", "order_id": d}),
        )
        .await;
        append(
            &db2,
            kind,
            "Withdrawal",
            &w,
            1,
            "WithdrawalRequested",
            json!({"member_id": m, "amount": "50.00"}),
        )
        .await;
        append(
            &db2,
            kind,
            "Withdrawal",
            &w,
            2,
            "WithdrawalRejected",
            json!({"staff_id": "f1", "reason": "name mismatch", "at_ms": 1}),
        )
        .await;
        // both processes pass while events arrive
        let (a, b) = tokio::join!(first.pass(), second.pass());
        a.unwrap();
        b.unwrap();
    }
    append(
        &db1,
        kind,
        "SeasonTask",
        &format!("7:{m}"),
        1,
        "TaskClaimApproved",
        json!({"task_id": 3, "staff_id": "s1", "at_ms": 1}),
    )
    .await;
    append(&db1, kind, "Vip", m, 1, "RewardGranted", json!({"kind": "gift", "key": "3", "reference": "vip:gift", "level": 3, "currency": "CNY", "amount": "38", "turnover_required": "0", "at_ms": 1})).await;
    append(
        &db1,
        kind,
        "Vip",
        m,
        2,
        "PointsSpent",
        json!({"reference": "p", "amount": "1", "at_ms": 1}),
    )
    .await;
    let (a, b) = tokio::join!(first.settle(SETTLE), second.settle(SETTLE));
    a.unwrap();
    b.unwrap();
    let messages = "SELECT count(*) FROM member_messages WHERE user_id = $1";
    let tips = "SELECT count(*) FROM notifications WHERE user_id = $1 AND kind = 1003";
    assert_eq!(
        count(&db1, messages, m).await,
        3 + 3 + 2,
        "one message per result, claim and reward"
    );
    assert_eq!(
        count(&db1, tips, m).await,
        2,
        "claims and rewards are pushed as 1003 tips"
    );
    let (list, unread) = first.list(m).await.unwrap();
    assert_eq!(unread, 8);
    assert!(
        list.iter()
            .any(|x| x.kind == 1001 && x.content.contains("name mismatch")),
        "{list:?}"
    );
    // A restart that lost its checkpoint writes nothing twice.
    drop(first);
    sqlx::query("DELETE FROM projection_checkpoints WHERE name = 'inbox'")
        .execute(&db2.any)
        .await
        .unwrap();
    let restarted = inbox(&db1, kind);
    assert_eq!(restarted.settle(SETTLE).await.unwrap(), 0);
    assert_eq!(count(&db1, messages, m).await, 8);
    assert_eq!(count(&db1, tips, m).await, 2);
    // Deleting and reading move the unread count.
    let (list, _) = restarted.list(m).await.unwrap();
    restarted.delete(m, list[0].id).await.unwrap();
    restarted.delete("someone-else", list[1].id).await.unwrap();
    restarted.mark_read(m, Some(list[1].id)).await.unwrap();
    let (after, unread) = restarted.list(m).await.unwrap();
    assert_eq!((after.len(), unread), (7, 6));
    restarted.mark_read(m, None).await.unwrap();
    assert_eq!(restarted.unread(m).await.unwrap(), 0);
}

/// A pass goes on while its batches come back full (500 events); it ends
/// at the first short one, which read everything visible then (rather
/// than chasing the commits that arrive while it runs, batch by batch,
/// each a writer turn on SQLite: BENCHMARKS.md measures that part).
async fn one_inbox_pass_reads_a_backlog_past_its_full_batches(kind: StoreKind) {
    let db = testing::fresh(kind).await;
    let inbox = inbox(&db, kind);
    let m = "100778";
    // 1,300 events of a type the inbox does not read, in rows of 100 a
    // statement, then one result it does: three batches of 500 and more.
    for chunk in 0..13 {
        let rows: Vec<String> = (0..100)
            .map(|i| {
                format!(
                    "('Filler', 'f{chunk}', {}, 'Noted', '1', '{{}}', '{{}}')",
                    i + 1
                )
            })
            .collect();
        sqlx::query(&format!(
            "INSERT INTO events (aggregate_type, aggregate_id, sequence, event_type, event_version, payload, metadata) VALUES {}",
            rows.join(", ")
        ))
        .execute(&db.any)
        .await
        .unwrap();
    }
    rejected_withdrawal(&db, kind, "W9", m).await;
    assert_eq!(
        inbox.pass().await.unwrap(),
        1,
        "one pass reads past the full batches"
    );
    let messages = "SELECT count(*) FROM member_messages WHERE user_id = $1";
    assert_eq!(count(&db, messages, m).await, 1);
    // The next pass finds nothing new.
    assert_eq!(inbox.pass().await.unwrap(), 0);
    // Events it does not act on, and nothing else: the pass moves its
    // checkpoint over them (a window of none of its kinds still ends at
    // the end of the stream), so the next pass starts past them.
    sqlx::query(
        "INSERT INTO events (aggregate_type, aggregate_id, sequence, event_type, event_version, payload, metadata)
         VALUES ('Filler', 'after', 1, 'Noted', '1', '{}', '{}'), ('Filler', 'after', 2, 'Noted', '1', '{}', '{}')",
    )
    .execute(&db.any)
    .await
    .unwrap();
    assert_eq!(inbox.pass().await.unwrap(), 0);
    let mut conn = db.any.acquire().await.unwrap();
    let deadline = tokio::time::Instant::now() + SETTLE;
    loop {
        let at =
            store::db::pass_checkpoint(&mut conn, commands::engagement::inbox::INBOX_CHECKPOINT)
                .await
                .unwrap();
        let left = store::stream::count_after(&mut conn, backend(kind), at)
            .await
            .unwrap();
        if left == 0 {
            break;
        }
        // Postgres: another test's transaction may hold the horizon back.
        assert!(
            tokio::time::Instant::now() < deadline,
            "{left} events left behind the checkpoint"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
        assert_eq!(inbox.pass().await.unwrap(), 0);
    }
}

/// On SQLite a pass reads its events before it takes the writer turn
/// (store::db::pass_batch): with nothing new it takes no turn at all,
/// so it never queues behind the bets' writes for nothing; with a new
/// source event it waits for the turn to write its message.
#[tokio::test]
async fn an_inbox_pass_with_nothing_new_takes_no_writer_turn_on_sqlite() {
    let kind = StoreKind::Sqlite;
    let db = testing::fresh(kind).await;
    let inbox = inbox(&db, kind);
    let writer = store::db::sqlite_writer(&db.any).expect("SQLite has writer turns");
    let held = writer.first_turn().await;
    let idle = tokio::time::timeout(Duration::from_secs(5), inbox.pass())
        .await
        .expect("a pass with nothing to read does not wait for the turn");
    assert_eq!(idle.unwrap(), 0);
    let m = "100779";
    rejected_withdrawal(&db, kind, "W10", m).await;
    let pending = tokio::spawn({
        let inbox = inbox.clone();
        async move { inbox.pass().await }
    });
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(
        !pending.is_finished(),
        "a pass with a message to write waits for the turn"
    );
    drop(held);
    assert_eq!(pending.await.unwrap().unwrap(), 1);
    let messages = "SELECT count(*) FROM member_messages WHERE user_id = $1";
    assert_eq!(count(&db, messages, m).await, 1);
}

async fn unread(c: &Client) -> i64 {
    let info = c.get("/api/user/userinfo").await;
    info["data"]["unread_count"].as_i64().unwrap()
}

async fn marketing(server: &common::Server) -> String {
    staff_token(server, "marketing", "marketing1234").await
}

async fn a_notice_marketing_publishes_shows_in_the_marquee_and_is_audited(kind: StoreKind) {
    let server = common::start(kind).await;
    let token = marketing(&server).await;
    let (status, saved) = backoffice(
        &server,
        "POST",
        "/api/backoffice/content/notice",
        Some(&token),
        Some(json!({"content": "Welcome to the World Cup!", "lang": ""})),
    )
    .await;
    assert_eq!(status, 200, "{saved}");
    let id = saved["data"]["id"].as_i64().unwrap();
    backoffice(
        &server,
        "POST",
        "/api/backoffice/content/notice",
        Some(&token),
        Some(json!({"content": "Thai only", "lang": "tha"})),
    )
    .await;
    // a guest's marquee (request layer, not logged in)
    let guest = Client::new(&server).await;
    let answer = guest.get("/api/about/notices?lang=eng").await;
    assert_eq!(answer["status"], 0, "{answer}");
    let list = answer["data"]["msgList"].as_array().unwrap().clone();
    assert_eq!(list.len(), 1, "{answer}");
    assert_eq!(list[0]["content"], "Welcome to the World Cup!");
    let one = guest.get("/api/about/notice?lang=tha").await;
    assert_eq!(one["data"]["msgList"].as_array().unwrap().len(), 2, "{one}");
    // edit, then delete: the marquee follows, the audit keeps each change
    let (status, _) = backoffice(
        &server,
        "POST",
        &format!("/api/backoffice/content/notice/{id}"),
        Some(&token),
        Some(json!({"content": "Edited"})),
    )
    .await;
    assert_eq!(status, 200);
    let answer = guest.get("/api/about/notices?lang=zhh").await;
    assert_eq!(answer["data"]["msgList"][0]["content"], "Edited");
    let (status, _) = backoffice(
        &server,
        "POST",
        &format!("/api/backoffice/content/notice/{id}/delete"),
        Some(&token),
        None,
    )
    .await;
    assert_eq!(status, 200);
    let answer = guest.get("/api/about/notices?lang=zhh").await;
    assert_eq!(answer["data"]["msgList"].as_array().unwrap().len(), 0);
    let (_, audit) = backoffice(
        &server,
        "GET",
        "/api/backoffice/content-audit?kind=notice",
        Some(&token),
        None,
    )
    .await;
    let rows = audit["data"]["list"].as_array().unwrap();
    let actions: Vec<&str> = rows
        .iter()
        .filter(|r| r["item_id"] == id)
        .map(|r| r["action"].as_str().unwrap())
        .collect();
    assert_eq!(actions, ["delete", "update", "create"]);
    let (_, me) = backoffice(&server, "GET", "/api/backoffice/me", Some(&token), None).await;
    assert!(
        rows.iter().all(|r| r["staff_id"] == me["data"]["id"]),
        "{rows:?} {me}"
    );
    // bad input: the desk's -70009 with what is wrong, never a 500
    for bad in [
        json!({"content": ""}),
        json!({"content": "x".repeat(501)}),
        json!({"content": "x", "lang": "fr"}),
        json!([1]),
    ] {
        let (status, answer) = backoffice(
            &server,
            "POST",
            "/api/backoffice/content/notice",
            Some(&token),
            Some(bad.clone()),
        )
        .await;
        assert_eq!(
            (status, answer["status"].as_i64()),
            (400, Some(-70009)),
            "{bad}: {answer}"
        );
    }
    let (status, _) = backoffice(
        &server,
        "POST",
        "/api/backoffice/content/poster",
        Some(&token),
        Some(json!({})),
    )
    .await;
    assert_eq!(status, 404);
    server.stop().await;
}

async fn campaign_messages_reach_their_segment_with_the_unread_count(kind: StoreKind) {
    let server = common::start(kind).await;
    let token = marketing(&server).await;
    let mut demo = Client::new(&server).await;
    assert_eq!(demo.login(&server, "demo", "demo1234").await["status"], 0);
    let mut other = Client::new(&server).await;
    let registered = other
        .register_phone(&server, "13800138123", "abc12345")
        .await;
    assert_eq!(registered["status"], 0, "{registered}");
    let (demo0, other0) = (unread(&demo).await, unread(&other).await);
    let send = |segment: Value, title: &str| {
        let body = json!({"title": title, "content": format!("{title} body"), "segment": segment});
        let token = token.clone();
        let server = &server;
        async move {
            backoffice(
                server,
                "POST",
                "/api/backoffice/campaigns",
                Some(&token),
                Some(body),
            )
            .await
        }
    };
    let (status, one) = send(
        json!({"type": "users", "usernames": ["DEMO", "nobody-here"]}),
        "Only demo",
    )
    .await;
    assert_eq!(status, 200, "{one}");
    assert_eq!(one["data"]["recipients"], 1);
    let (_, all) = send(json!({"type": "all"}), "Everyone").await;
    assert_eq!(all["data"]["recipients"], 2, "{all}");
    let (_, high) = send(json!({"type": "vip", "from": 5, "to": 10}), "High rollers").await;
    assert_eq!(
        high["data"]["recipients"], 0,
        "new members are level 1: {high}"
    );
    let (_, low) = send(json!({"type": "vip", "from": 1, "to": 1}), "Level one").await;
    assert_eq!(low["data"]["recipients"], 2, "{low}");
    let (status, bad) = send(json!({"type": "vip", "from": 7, "to": 2}), "Bad").await;
    assert_eq!((status, bad["status"].as_i64()), (400, Some(-70009)));
    assert_eq!(unread(&demo).await, demo0 + 3);
    assert_eq!(unread(&other).await, other0 + 2);
    // the member's inbox: newest first; read, delete, read all
    let inbox = demo.get("/api/user/messages").await;
    let list = inbox["data"]["list"].as_array().unwrap().clone();
    assert_eq!(list[0]["title"], "Level one");
    assert_eq!(list[0]["type"], 1005);
    let first = list[0]["id"].as_i64().unwrap();
    let read = demo.post("/api/user/messages", json!({"id": first})).await;
    assert_eq!(read["data"]["unread_count"].as_i64().unwrap(), demo0 + 2);
    let deleted = demo
        .post(
            "/api/user/messages",
            json!({"id": list[1]["id"], "action": "delete"}),
        )
        .await;
    assert_eq!(deleted["data"]["unread_count"].as_i64().unwrap(), demo0 + 1);
    assert!(deleted["data"]["list"]
        .as_array()
        .unwrap()
        .iter()
        .all(|m| m["id"] != list[1]["id"]));
    // another member cannot delete demo's message
    other
        .post(
            "/api/user/messages",
            json!({"id": first, "action": "delete"}),
        )
        .await;
    assert!(demo.get("/api/user/messages").await["data"]["list"]
        .as_array()
        .unwrap()
        .iter()
        .any(|m| m["id"] == first));
    let bad = demo
        .post("/api/user/messages", json!({"id": first, "action": "burn"}))
        .await;
    assert_eq!(bad["status"], -70009);
    let all = demo
        .post("/api/user/messages", json!({"action": "readall"}))
        .await;
    assert_eq!(all["data"]["unread_count"], 0);
    // the 1005 warm tips waiting for /ws delivery
    let tips: i64 = sqlx::query_scalar("SELECT count(*) FROM notifications WHERE kind = 1005")
        .fetch_one(&server.running.state.db.any)
        .await
        .unwrap();
    assert_eq!(tips, 1 + 2 + 2);
    let (_, sent) = backoffice(
        &server,
        "GET",
        "/api/backoffice/campaigns",
        Some(&token),
        None,
    )
    .await;
    assert_eq!(sent["data"]["list"].as_array().unwrap().len(), 4);
    server.stop().await;
}

async fn banners_covers_popups_news_and_help_pages_as_members_get_them(kind: StoreKind) {
    let server = common::start(kind).await;
    let token = marketing(&server).await;
    let save = |kind: &str, body: Value| {
        let token = token.clone();
        let path = format!("/api/backoffice/content/{kind}");
        let server = &server;
        async move {
            let (status, answer) =
                backoffice(server, "POST", &path, Some(&token), Some(body)).await;
            assert_eq!(status, 200, "{answer}");
            answer["data"]["id"].as_i64().unwrap()
        }
    };
    save(
        "banner",
        json!({"img": "/skins/banners/a.png", "link": "/casino", "place": "index", "sort": 2}),
    )
    .await;
    save(
        "banner",
        json!({"img": "/skins/banners/b.png", "place": "index", "sort": 1}),
    )
    .await;
    save(
        "banner",
        json!({"img": "/skins/banners/c.png", "place": "list"}),
    )
    .await;
    save(
        "banner",
        json!({"img": "/skins/banners/off.png", "active": false}),
    )
    .await;
    save("cover", json!({"gameinfo": [{"HomeTeamId": 1, "AwayTeamId": 2, "HomeTeamName": "Lions", "AwayTeamName": "Tigers", "MatchStartDateGMT": "2026-12-01 18:00"}]})).await;
    save("popup", json!({"title": "Hello guests", "content": "Register now", "audience": "guests", "repeat": "daily"})).await;
    let now = server.running.state.clock.now_ms();
    save(
        "popup",
        json!({"title": "Expired", "content": "x", "starts_ms": now - 10_000, "ends_ms": now - 1}),
    )
    .await;
    let news = save(
        "news",
        json!({"title": "Cup final", "summary": "Who wins?", "content": "Long article", "type": 2}),
    )
    .await;
    save("help", json!({"title": "User agreement", "slug": "user-agreement", "lang": "eng", "content": "Terms..."})).await;
    let guest = Client::new(&server).await;
    let banners = guest.get("/api/indexbannerslist?lang=eng").await;
    let imgs: Vec<&str> = banners["data"]["list"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["img"].as_str().unwrap())
        .collect();
    assert_eq!(
        imgs,
        ["/skins/banners/b.png", "/skins/banners/a.png"],
        "by sort, active only"
    );
    let list = guest.get("/api/bannerslist?lang=eng").await;
    assert_eq!(list["data"]["list"][0]["img"], "/skins/banners/c.png");
    for path in ["/api/coverlist", "/api/getCoverList"] {
        let cover = guest.get(path).await;
        assert_eq!(
            cover["data"]["gameinfo"][0]["HomeTeamName"], "Lions",
            "{cover}"
        );
    }
    let popups = guest.get("/api/about/popups?lang=eng").await;
    let popups = popups["data"]["list"].as_array().unwrap();
    assert_eq!(popups.len(), 1, "the expired one is gone: {popups:?}");
    assert_eq!(
        (
            popups[0]["audience"].as_str(),
            popups[0]["interval"].as_i64()
        ),
        (Some("guests"), Some(86_400))
    );
    let listed = guest.get("/api/news/list?type=2").await;
    assert_eq!(listed["data"]["list"][0]["title"], "Cup final");
    assert!(
        listed["data"]["list"][0].get("content").is_none(),
        "summaries only"
    );
    assert_eq!(guest.get("/api/news/list?type=3").await["data"]["total"], 0);
    let article = guest.get(&format!("/api/news/detail?id={news}")).await;
    assert_eq!(article["data"]["content"], "Long article");
    assert_eq!(
        guest.get("/api/news/detail?id=999999").await["data"],
        Value::Null
    );
    assert_eq!(guest.get("/api/news/detail?id=abc").await["status"], -70009);
    let page = guest
        .get("/api/about/help?lang=eng&title=user-agreement")
        .await;
    assert_eq!(page["data"]["content"], "Terms...");
    assert_eq!(
        guest
            .get("/api/about/help?lang=zhh&title=user-agreement")
            .await["data"],
        Value::Null
    );
    assert_eq!(
        guest.get("/api/about/help?lang=eng&title=..%2Fetc").await["status"],
        -70009
    );
    let help = guest.get("/api/about/helplist?lang=eng").await;
    assert_eq!(help["data"]["list"][0]["slug"], "user-agreement");
    // the desk's preview: what members would get, nothing saved
    let (status, preview) = backoffice(&server, "POST", "/api/backoffice/content/popup/preview", Some(&token),
        Some(json!({"title": "P", "style": "iframe", "url": "https://example.com", "repeat": "custom", "minutes": 5}))).await;
    assert_eq!(status, 200, "{preview}");
    assert_eq!(preview["data"]["interval"], 300);
    assert_eq!(
        guest.get("/api/about/popups?lang=eng").await["data"]["list"]
            .as_array()
            .unwrap()
            .len(),
        1
    );
    server.stop().await;
}

async fn a_campaign_pushes_a_warm_tip_1005_to_the_members_bound_socket(kind: StoreKind) {
    use futures::{SinkExt, StreamExt};
    use tokio_tungstenite::tungstenite::Message;
    let server = common::start(kind).await;
    let (mut ws, _) = tokio_tungstenite::connect_async(format!("ws://{}/ws", server.addr()))
        .await
        .unwrap();
    async fn next(ws: &mut common::Ws) -> Value {
        loop {
            let message = tokio::time::timeout(Duration::from_secs(15), ws.next())
                .await
                .expect("a message within 15 s")
                .unwrap()
                .unwrap();
            if let Message::Text(text) = message {
                return serde_json::from_str(&text).unwrap();
            }
        }
    }
    ws.send(Message::Text(r#"{"type":"init"}"#.into()))
        .await
        .unwrap();
    let client_id = next(&mut ws).await["client_id"]
        .as_str()
        .unwrap()
        .to_string();
    let mut member = Client::new(&server).await;
    assert_eq!(member.login(&server, "demo", "demo1234").await["status"], 0);
    let bound = member
        .post("/api/user/bindws", json!({"client_id": client_id}))
        .await;
    assert_eq!(bound["status"], 0, "{bound}");
    let token = marketing(&server).await;
    let (status, _) = backoffice(&server, "POST", "/api/backoffice/campaigns", Some(&token),
        Some(json!({"title": "Weekend boost", "content": "Odds boosted all weekend", "segment": {"type": "users", "usernames": "demo"}}))).await;
    assert_eq!(status, 200);
    let tip = loop {
        let message = next(&mut ws).await;
        if message["type"] == 1005 {
            break message;
        }
    };
    assert_eq!(tip["data"]["content"], "Odds boosted all weekend", "{tip}");
    assert_eq!(tip["client_id"], client_id.as_str());
    server.stop().await;
}
