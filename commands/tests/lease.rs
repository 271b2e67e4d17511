//! Leases: one holder at a time, renewed by its holder, taken over by
//! another once it expires, on both stores and across two pools (two
//! processes) on one store.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use commands::platform::clock::{ManualClock, SharedClock};
use commands::platform::lease::{Lease, LeaseError};
use store::db::testing;
use store::StoreKind;

store::on_both_stores!(
    a_lease_has_one_holder_until_it_expires_then_another_takes_it_over,
    a_released_lease_is_free_at_once,
);

const TTL: Duration = Duration::from_secs(10);

fn lease(db: &store::Db, holder: &str, clock: &ManualClock) -> Lease {
    let clock: SharedClock = Arc::new(clock.clone());
    Lease::new(db.any.clone(), "job", holder, TTL, clock)
}

async fn counted(passes: &AtomicUsize) -> Result<(), LeaseError> {
    passes.fetch_add(1, Ordering::SeqCst);
    Ok(())
}

async fn a_lease_has_one_holder_until_it_expires_then_another_takes_it_over(kind: StoreKind) {
    let (one, two) = testing::fresh_pair(kind).await;
    let clock = ManualClock::at(1_800_000_000_000);
    let a = lease(&one, "a", &clock);
    let b = lease(&two, "b", &clock);
    let (done_a, done_b) = (AtomicUsize::new(0), AtomicUsize::new(0));
    // A takes it and keeps it by renewing, well past one ttl.
    for _ in 0..10 {
        assert_eq!(a.run(counted(&done_a)).await.unwrap(), Some(()));
        assert_eq!(b.run(counted(&done_b)).await.unwrap(), None);
        clock.advance(4_000);
    }
    assert_eq!(
        (done_a.load(Ordering::SeqCst), done_b.load(Ordering::SeqCst)),
        (10, 0),
        "only the holder performs the pass"
    );
    // A stops renewing (its process died): not before the ttl...
    clock.advance(5_000);
    assert!(!b.hold().await.unwrap(), "the lease still holds");
    // ... but after it, B takes over, and A, back, finds it taken.
    clock.advance(6_000);
    assert_eq!(b.run(counted(&done_b)).await.unwrap(), Some(()));
    assert_eq!(a.run(counted(&done_a)).await.unwrap(), None);
    assert_eq!(done_b.load(Ordering::SeqCst), 1);
    one.close().await;
    two.close().await;
}

async fn a_released_lease_is_free_at_once(kind: StoreKind) {
    let (one, two) = testing::fresh_pair(kind).await;
    let clock = ManualClock::at(1_800_000_000_000);
    let a = lease(&one, "a", &clock);
    let b = lease(&two, "b", &clock);
    assert!(a.hold().await.unwrap());
    assert!(!b.hold().await.unwrap());
    a.release().await.unwrap();
    assert!(b.hold().await.unwrap(), "a clean stop hands the lease on");
    assert!(!a.hold().await.unwrap());
    one.close().await;
    two.close().await;
}
