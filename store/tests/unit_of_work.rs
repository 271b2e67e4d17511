//! The unit of work's rules, on both stores: several aggregates commit as
//! one, a conflict is retried from the store, a claim is seen twice only
//! once, and a unit that fails writes nothing.

use std::sync::Arc;

use cqrs_es::{Aggregate, DomainEvent};
use serde::{Deserialize, Serialize};
use store::events::Extra;
use store::unit::{Failed, UnitError};
use store::{
    Claim, CommandMetrics, Db, Framework, RetryPolicy, StoreKind, StoreOptions, UnitOfWork,
};

/// A counter that refuses to go below zero: enough to show what the unit
/// does with decisions and refusals.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
struct Counter {
    value: i64,
}

#[derive(Debug, Clone)]
enum Add {
    By(i64),
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
enum Added {
    Added { by: i64 },
}

impl DomainEvent for Added {
    fn event_type(&self) -> String {
        "Added".into()
    }
    fn event_version(&self) -> String {
        "1".into()
    }
}

#[derive(Debug, PartialEq, thiserror::Error)]
#[error("the counter would go below zero")]
struct BelowZero;

impl Aggregate for Counter {
    const TYPE: &'static str = "Counter";
    type Command = Add;
    type Event = Added;
    type Error = BelowZero;
    type Services = ();

    async fn handle(
        &mut self,
        command: Add,
        _services: &(),
        sink: &cqrs_es::event_sink::EventSink<Self>,
    ) -> Result<(), BelowZero> {
        let Add::By(by) = command;
        if self.value + by < 0 {
            return Err(BelowZero);
        }
        sink.write(Added::Added { by }, self).await;
        Ok(())
    }

    fn apply(&mut self, event: Added) {
        let Added::Added { by } = event;
        self.value += by;
    }
}

/// The same counter under another aggregate type, so that one unit spans
/// two types.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
struct Ledger(Counter);

impl Aggregate for Ledger {
    const TYPE: &'static str = "Ledger";
    type Command = Add;
    type Event = Added;
    type Error = BelowZero;
    type Services = ();

    async fn handle(
        &mut self,
        command: Add,
        _services: &(),
        sink: &cqrs_es::event_sink::EventSink<Self>,
    ) -> Result<(), BelowZero> {
        let Add::By(by) = command;
        if self.0.value + by < 0 {
            return Err(BelowZero);
        }
        sink.write(Added::Added { by }, self).await;
        Ok(())
    }

    fn apply(&mut self, event: Added) {
        self.0.apply(event);
    }
}

fn framework<A>(db: &Db, trust_cache: bool) -> Framework<A>
where
    A: Aggregate<Services = ()> + Clone,
    A::Command: Clone,
{
    Framework::new(
        db,
        StoreOptions {
            trust_cache,
            ..StoreOptions::default()
        },
        (),
        RetryPolicy::default(),
        CommandMetrics::default(),
        None,
    )
}

async fn value(db: &Db, id: &str) -> i64 {
    let counters: Framework<Counter> = framework(db, false);
    counters
        .store()
        .load_current(id)
        .await
        .unwrap()
        .aggregate
        .value
}

async fn rows(db: &Db) -> i64 {
    sqlx::query_scalar("SELECT COUNT(*) FROM events")
        .fetch_one(&db.any)
        .await
        .unwrap()
}

/// Moves `by` from counter `from` to counter `to` in one unit.
async fn transfer(
    counters: &Framework<Counter>,
    from: &str,
    to: &str,
    by: i64,
) -> Result<(), UnitError<BelowZero>> {
    store::unit_of_work!(UnitOfWork::new(RetryPolicy::default()), |unit| {
        unit.decide(counters, from, Add::By(-by), &())
            .await?
            .map_err(Failed::Refused)?;
        unit.decide(counters, to, Add::By(by), &())
            .await?
            .map_err(Failed::Refused)?;
        Ok(())
    })
}

store::on_both_stores!(
    several_aggregates_of_several_types_commit_as_one,
    a_refusal_writes_nothing_of_the_unit,
    a_conflict_is_decided_again_from_the_store,
    a_request_claimed_twice_commits_once,
    an_unmet_guard_writes_nothing,
    units_taking_turns_in_opposite_orders_both_commit,
    a_refusal_on_a_trusted_cache_is_given_on_the_store_s_state,
);

async fn several_aggregates_of_several_types_commit_as_one(kind: StoreKind) {
    let db = store::db::testing::fresh(kind).await;
    let counters: Framework<Counter> = framework(&db, false);
    let ledgers: Framework<Ledger> = framework(&db, false);
    let seen = store::unit_of_work!(UnitOfWork::new(RetryPolicy::default()), |unit| {
        unit.decide(&counters, "a", Add::By(5), &())
            .await?
            .map_err(Failed::Refused)?;
        unit.decide(&counters, "b", Add::By(7), &())
            .await?
            .map_err(Failed::Refused)?;
        // A second decision on "a" builds on the first.
        let a = unit
            .decide(&counters, "a", Add::By(-2), &())
            .await?
            .map_err(Failed::Refused)?;
        let a_value = a.state.value;
        assert_eq!(a.events, vec![&Added::Added { by: -2 }]);
        unit.decide(&ledgers, "a", Add::By(1), &())
            .await?
            .map_err(Failed::Refused)?;
        Ok::<_, Failed<BelowZero>>(a_value)
    })
    .unwrap();
    assert_eq!(seen, 3);
    assert_eq!(value(&db, "a").await, 3);
    assert_eq!(value(&db, "b").await, 7);
    let sequences: Vec<(String, String, i64)> = sqlx::query_as(
        "SELECT aggregate_type, aggregate_id, sequence FROM events ORDER BY aggregate_type, aggregate_id, sequence",
    )
    .fetch_all(&db.any)
    .await
    .unwrap();
    assert_eq!(
        sequences,
        vec![
            ("Counter".into(), "a".into(), 1),
            ("Counter".into(), "a".into(), 2),
            ("Counter".into(), "b".into(), 1),
            ("Ledger".into(), "a".into(), 1),
        ]
    );
    // One transaction: every row has the same transaction id on Postgres.
    if kind == StoreKind::Postgres {
        let txs: i64 = sqlx::query_scalar("SELECT COUNT(DISTINCT tx_id) FROM events")
            .fetch_one(&db.any)
            .await
            .unwrap();
        assert_eq!(txs, 1);
    }
}

async fn a_refusal_writes_nothing_of_the_unit(kind: StoreKind) {
    let db = store::db::testing::fresh(kind).await;
    let counters: Framework<Counter> = framework(&db, false);
    transfer(&counters, "bank", "a", 0).await.unwrap();
    let before = rows(&db).await;
    // "a" is credited first, then "empty" refuses: neither moves.
    let refused = store::unit_of_work!(UnitOfWork::new(RetryPolicy::default()), |unit| {
        unit.decide(&counters, "a", Add::By(10), &())
            .await?
            .map_err(Failed::Refused)?;
        unit.decide(&counters, "empty", Add::By(-1), &())
            .await?
            .map_err(Failed::Refused)?;
        Ok(())
    });
    assert!(
        matches!(refused, Err(UnitError::Refused(BelowZero))),
        "{refused:?}"
    );
    assert_eq!(rows(&db).await, before);
    assert_eq!(value(&db, "a").await, 0);
    // The cache forgot the refused unit's state: the next unit sees 0.
    transfer(&counters, "a", "b", 1).await.unwrap_err();
    assert_eq!(value(&db, "b").await, 0);
}

async fn a_conflict_is_decided_again_from_the_store(kind: StoreKind) {
    let db = store::db::testing::fresh(kind).await;
    let counters: Framework<Counter> = framework(&db, false);
    // A second process: its own framework (its own cache and turns).
    let other: Framework<Counter> = framework(&db, false);
    store::unit_of_work!(UnitOfWork::new(RetryPolicy::default()), |unit| {
        unit.decide(&counters, "a", Add::By(10), &())
            .await?
            .map_err(Failed::Refused)?;
        Ok::<_, Failed<BelowZero>>(())
    })
    .unwrap();
    let mut attempts = 0;
    let seen = store::unit_of_work!(UnitOfWork::new(RetryPolicy::default()), |unit| {
        attempts += 1;
        let a = unit
            .decide(&counters, "a", Add::By(-4), &())
            .await?
            .map_err(Failed::Refused)?;
        let seen = a.state.value;
        if unit.attempt() == 1 {
            // The other process takes "a"'s next sequence meanwhile.
            other
                .execute("a", Add::By(-3), Default::default())
                .await
                .unwrap();
        }
        Ok::<_, Failed<BelowZero>>(seen)
    })
    .unwrap();
    assert_eq!(attempts, 2, "decided again after the conflict");
    assert_eq!(seen, 3, "on the store's state: 10 - 3 - 4");
    assert_eq!(value(&db, "a").await, 3);
}

async fn a_request_claimed_twice_commits_once(kind: StoreKind) {
    let db = store::db::testing::fresh(kind).await;
    let counters: Framework<Counter> = framework(&db, false);
    let claim = Claim {
        scope: "test".into(),
        request_id: "r1".into(),
        answer: "first".into(),
    };
    let credit = |id: &'static str| {
        let (counters, claim) = (&counters, claim.clone());
        async move {
            store::unit_of_work!(UnitOfWork::new(RetryPolicy::default()), |unit| {
                unit.decide(counters, id, Add::By(1), &())
                    .await?
                    .map_err(Failed::Refused)?;
                unit.claim(claim.clone());
                Ok::<_, Failed<BelowZero>>(())
            })
        }
    };
    // At once, on two aggregates (no turn to queue on): one wins the claim.
    let (x, y) = tokio::join!(credit("a"), credit("b"));
    let won = [&x, &y].iter().filter(|r| r.is_ok()).count();
    assert_eq!(won, 1, "{x:?} {y:?}");
    assert!([&x, &y]
        .iter()
        .any(|r| matches!(r, Err(UnitError::Claimed))));
    assert_eq!(value(&db, "a").await + value(&db, "b").await, 1);
    // A later repeat finds the claim and writes nothing.
    let before = rows(&db).await;
    assert!(matches!(credit("a").await, Err(UnitError::Claimed)));
    assert_eq!(rows(&db).await, before);
    let answer = store::events::claimed(&db.any, "test", "r1").await.unwrap();
    assert_eq!(answer.as_deref(), Some("first"));
}

async fn an_unmet_guard_writes_nothing(kind: StoreKind) {
    let db = store::db::testing::fresh(kind).await;
    let counters: Framework<Counter> = framework(&db, false);
    // A row the unit's guard looks at (request_claims is in every store).
    let guard = || {
        Extra::new("UPDATE request_claims SET answer = 'used' WHERE scope = $1 AND request_id = $2 AND answer = 'fresh'")
            .text("guard")
            .text("g1")
            .expect(1)
    };
    sqlx::query(
        "INSERT INTO request_claims (scope, request_id, answer) VALUES ('guard', 'g1', 'fresh')",
    )
    .execute(&db.any)
    .await
    .unwrap();
    let run = || async {
        store::unit_of_work!(UnitOfWork::new(RetryPolicy::default()), |unit| {
            unit.decide(&counters, "a", Add::By(1), &())
                .await?
                .map_err(Failed::Refused)?;
            unit.extra(guard());
            Ok::<_, Failed<BelowZero>>(())
        })
    };
    run().await.unwrap();
    assert_eq!(value(&db, "a").await, 1);
    let before = rows(&db).await;
    assert!(matches!(run().await, Err(UnitError::Unmet(0))));
    assert_eq!(rows(&db).await, before);
    assert_eq!(value(&db, "a").await, 1);
}

async fn units_taking_turns_in_opposite_orders_both_commit(kind: StoreKind) {
    let db = store::db::testing::fresh(kind).await;
    let counters = Arc::new(framework::<Counter>(&db, false));
    transfer(&counters, "x", "a", 0).await.unwrap();
    store::unit_of_work!(UnitOfWork::new(RetryPolicy::default()), |unit| {
        unit.decide(&*counters, "a", Add::By(1_000), &())
            .await?
            .map_err(Failed::Refused)?;
        unit.decide(&*counters, "b", Add::By(1_000), &())
            .await?
            .map_err(Failed::Refused)?;
        Ok::<_, Failed<BelowZero>>(())
    })
    .unwrap();
    let mut tasks = Vec::new();
    for i in 0..40 {
        let counters = counters.clone();
        tasks.push(tokio::spawn(async move {
            let (from, to) = if i % 2 == 0 { ("a", "b") } else { ("b", "a") };
            transfer(&counters, from, to, 1).await
        }));
    }
    let done = tokio::time::timeout(std::time::Duration::from_secs(60), async {
        for task in tasks {
            task.await.unwrap().unwrap();
        }
    })
    .await;
    assert!(done.is_ok(), "units waiting on each other's turns");
    assert_eq!(value(&db, "a").await, 1_000);
    assert_eq!(value(&db, "b").await, 1_000);
}

async fn a_refusal_on_a_trusted_cache_is_given_on_the_store_s_state(kind: StoreKind) {
    let db = store::db::testing::fresh(kind).await;
    // This process decides on its cache as it is; another one credits.
    let counters: Framework<Counter> = framework(&db, true);
    let other: Framework<Counter> = framework(&db, false);
    transfer(&counters, "bank", "a", 0).await.unwrap();
    assert!(counters.store().is_cached("a"));
    other
        .execute("a", Add::By(5), Default::default())
        .await
        .unwrap();
    // On the cache "a" holds 0 and would refuse; on the store it holds 5.
    let mut currents = Vec::new();
    store::unit_of_work!(UnitOfWork::new(RetryPolicy::default()), |unit| {
        currents.push(unit.on_current_state());
        unit.decide(&counters, "a", Add::By(-5), &())
            .await?
            .map_err(Failed::Refused)?;
        Ok::<_, Failed<BelowZero>>(())
    })
    .unwrap();
    assert_eq!(currents, vec![false, true]);
    assert_eq!(value(&db, "a").await, 0);
}
