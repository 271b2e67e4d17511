//! Swarm long-poll sessions in the store (DESIGN.md "Scale-out"): every
//! poll reads its session; on Postgres concurrent polls share that read
//! (one statement for all the sessions asked at the moment), and each
//! still gets its own session, or none when it is unknown or lost.

use commands::platform::swarm_polls::{PollSessions, POLL_SESSION_TTL_MS};
use store::db::testing;
use store::StoreKind;

store::on_both_stores!(
    concurrent_polls_each_read_their_own_session_and_share_statements_on_postgres,
    a_session_not_polled_within_its_ttl_is_lost_and_a_busy_one_is_kept_alive,
);

const NOW: i64 = 1_800_000_000_000;

async fn concurrent_polls_each_read_their_own_session_and_share_statements_on_postgres(
    kind: StoreKind,
) {
    let db = testing::fresh(kind).await;
    let polls = PollSessions::new(db.any.clone());
    // 60 live sessions, every third logged in with a main API session that
    // expires at its own time; 10 lost ones (not polled within the TTL).
    for i in 0..70 {
        let seen = if i < 60 {
            NOW
        } else {
            NOW - POLL_SESSION_TTL_MS - 1
        };
        polls
            .open(&format!("s{i}"), &format!("l{i}"), seen)
            .await
            .unwrap();
        if i % 3 == 0 {
            let token = format!("t{i}");
            sqlx::query(
                "INSERT INTO sessions (token_hash, session_hash, user_id, device_id, created_ms, expires_ms)
                 VALUES ($1, $1, $2, 'd', 0, $3)",
            )
            .bind(&token)
            .bind(format!("u{i}"))
            .bind(NOW + i)
            .execute(&db.any)
            .await
            .unwrap();
            polls
                .set_login(&format!("s{i}"), Some(&format!("u{i}")), Some(&token))
                .await
                .unwrap();
        }
    }
    let before = polls.shared_reads();
    // Each poll three times over, and 20 unknown sids, all at once.
    let mut asks: Vec<String> = (0..70)
        .flat_map(|i| std::iter::repeat_n(format!("s{i}"), 3))
        .collect();
    asks.extend((0..20).map(|i| format!("unknown{i}")));
    let answers = futures::future::join_all(asks.iter().map(|sid| {
        let polls = polls.clone();
        let sid = sid.clone();
        tokio::spawn(async move { (sid.clone(), polls.touch(&sid, NOW + 1).await.unwrap()) })
    }))
    .await;
    for answer in answers {
        let (sid, session) = answer.unwrap();
        let n: Option<i64> = sid.strip_prefix('s').map(|n| n.parse().unwrap());
        match n {
            Some(i) if i < 60 => {
                let session = session.unwrap_or_else(|| panic!("{sid} is live"));
                assert_eq!(session.sid, sid);
                assert_eq!(session.language, format!("l{i}"));
                if i % 3 == 0 {
                    assert_eq!(session.user_id, Some(format!("u{i}")));
                    assert_eq!(session.token_hash, Some(format!("t{i}")));
                    assert_eq!(session.login_expires_ms, Some(NOW + i));
                } else {
                    assert_eq!(session.user_id, None);
                    assert_eq!(session.login_expires_ms, None);
                }
            }
            _ => assert!(session.is_none(), "{sid} is lost or unknown: {session:?}"),
        }
    }
    let statements = polls.shared_reads() - before;
    match kind {
        StoreKind::Postgres => assert!(
            (1..asks.len() as u64 / 2).contains(&statements),
            "{} polls took {statements} statements",
            asks.len()
        ),
        StoreKind::Sqlite => assert_eq!(statements, 0),
    }
}

async fn a_session_not_polled_within_its_ttl_is_lost_and_a_busy_one_is_kept_alive(kind: StoreKind) {
    let db = testing::fresh(kind).await;
    let polls = PollSessions::new(db.any.clone());
    polls.open("busy", "en", NOW).await.unwrap();
    polls.open("idle", "en", NOW).await.unwrap();
    // Polled every 20 s, the busy one outlives the TTL several times over.
    let mut now = NOW;
    for _ in 0..10 {
        now += 20_000;
        assert!(
            polls.touch("busy", now).await.unwrap().is_some(),
            "at {now}"
        );
    }
    assert!(now - NOW > 3 * POLL_SESSION_TTL_MS);
    assert!(polls.touch("idle", now).await.unwrap().is_none());
    // Just inside the TTL the busy one is still there; just past it, lost.
    assert!(polls
        .touch("busy", now + POLL_SESSION_TTL_MS - 1)
        .await
        .unwrap()
        .is_some());
    let last = now + POLL_SESSION_TTL_MS - 1;
    assert!(polls
        .touch("busy", last + POLL_SESSION_TTL_MS + 1)
        .await
        .unwrap()
        .is_none());
}
