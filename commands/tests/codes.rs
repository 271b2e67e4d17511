//! Verification codes through the real store, on both stores.

use std::sync::Arc;

use commands::accounts::codes::{self, Channel, CodeError, CodeKind, Codes, Outbox, MAX_ATTEMPTS};
use commands::platform::clock::{ManualClock, SharedClock};
use store::db::testing;
use store::StoreKind;

store::on_both_stores!(
    five_wrong_tries_end_a_code_even_when_guessed_in_parallel,
    a_captcha_passes_once_even_when_checked_in_parallel,
);

async fn codes(kind: StoreKind) -> (Arc<Codes>, sqlx::AnyPool) {
    let db = testing::fresh(kind).await;
    let clock: SharedClock = Arc::new(ManualClock::at(1_700_000_000_000));
    let outbox = Arc::new(Outbox::new(db.any.clone(), clock.clone()));
    (
        Arc::new(Codes::new(db.any.clone(), outbox, clock)),
        db.any.clone(),
    )
}

/// Twenty wrong guesses at once: five are weighed (21), the others find
/// the code spent (1009), and so does the right code afterwards.
async fn five_wrong_tries_end_a_code_even_when_guessed_in_parallel(kind: StoreKind) {
    let (codes, pool) = codes(kind).await;
    let target = "13800138000";
    let uid = codes
        .send(CodeKind::Registration, Channel::Phone, target, "")
        .await
        .unwrap();
    let sent = codes::outbox(&pool, 10).await.unwrap();
    let code = sent.iter().find(|e| e.uid == uid).unwrap().code.clone();
    let wrong = if code == "0000" { "1111" } else { "0000" };
    let guesses: Vec<_> = (0..20)
        .map(|_| {
            let (codes, uid) = (codes.clone(), uid.clone());
            tokio::spawn(async move {
                codes
                    .check(&uid, CodeKind::Registration, target, wrong)
                    .await
            })
        })
        .collect();
    let mut weighed = 0;
    let mut spent = 0;
    for guess in guesses {
        match guess.await.unwrap() {
            Err(CodeError::Mismatch) => weighed += 1,
            Err(CodeError::Expired) => spent += 1,
            other => panic!("unexpected {other:?}"),
        }
    }
    assert_eq!((weighed, spent), (MAX_ATTEMPTS, 20 - MAX_ATTEMPTS));
    assert_eq!(
        codes
            .check(&uid, CodeKind::Registration, target, &code)
            .await,
        Err(CodeError::Expired)
    );
}

/// The image code is good for one check: ten at once, one passes.
async fn a_captcha_passes_once_even_when_checked_in_parallel(kind: StoreKind) {
    let (codes, _) = codes(kind).await;
    codes.new_captcha("AAAABBBBCCCCDDDD", "4821").await.unwrap();
    let checks: Vec<_> = (0..10)
        .map(|_| {
            let codes = codes.clone();
            tokio::spawn(async move { codes.check_captcha("AAAABBBBCCCCDDDD", "4821").await })
        })
        .collect();
    let mut passed = 0;
    for check in checks {
        if check.await.unwrap().is_ok() {
            passed += 1;
        }
    }
    assert_eq!(passed, 1);
}
