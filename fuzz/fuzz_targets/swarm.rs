//! The Swarm data protocol (domain::swarm): any text a client sends over
//! the socket or a long poll is a request or a refusal with code 2 or 3,
//! never a panic; the params of every command are read the way the
//! session layer reads them; a `get` query that parses runs against small
//! catalogues (`catalogue::testgen`), answers an object without nulls
//! (a diff could not carry one), and the diff between its answers before
//! and after feed-like changes merges the old answer into the new one.
//!
//! Run: `scripts/fuzz.sh 60 swarm`, or in `fuzz/`
//! `RUSTC_BOOTSTRAP=1 cargo fuzz run swarm -- -dict=dicts/swarm.dict`.

#![no_main]

use std::sync::LazyLock;

use domain::catalogue::testgen::{self, Rng};
use domain::catalogue::Catalogue;
use domain::swarm::{
    self, parse_request, Command, RequestSessionParams, RestoreLoginParams, UnsubscribeParams,
    INVALID_COMMAND, INVALID_PARAMS,
};
use libfuzzer_sys::fuzz_target;
use serde_json::Value;

/// A catalogue and the same catalogue after a few feed changes.
struct Pair {
    old: Catalogue,
    new: Catalogue,
}

static CATALOGUES: LazyLock<Vec<Pair>> = LazyLock::new(|| {
    let mut out = Vec::new();
    let mut rng = Rng::new(2024);
    let small = testgen::small();
    let mut changed = small.clone();
    for _ in 0..3 {
        testgen::mutate(&mut rng, &mut changed);
    }
    out.push(Pair {
        old: small,
        new: changed,
    });
    for seed in [1, 7] {
        let mut rng = Rng::new(seed);
        let old = testgen::catalogue(&mut rng);
        let mut new = old.clone();
        for _ in 0..5 {
            testgen::mutate(&mut rng, &mut new);
        }
        out.push(Pair { old, new });
    }
    out
});

fn has_null(value: &Value) -> bool {
    match value {
        Value::Null => true,
        Value::Array(items) => items.iter().any(has_null),
        Value::Object(fields) => fields.values().any(has_null),
        _ => false,
    }
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let request = match parse_request(text) {
        Ok(request) => request,
        Err(refusal) => {
            let answer = refusal.answer();
            assert!(matches!(answer.code, INVALID_COMMAND | INVALID_PARAMS));
            assert!(answer.msg.is_some());
            serde_json::to_string(&answer).expect("an answer serializes");
            return;
        }
    };
    assert!(request.params.is_object());
    // Whatever the command, read its params every way the session layer
    // may: a refusal is code 3.
    let typed = [
        request.params_as::<RequestSessionParams>().err(),
        request.params_as::<RestoreLoginParams>().err(),
        request.params_as::<UnsubscribeParams>().err(),
    ];
    for refusal in typed.into_iter().flatten() {
        assert_eq!(refusal.code(), INVALID_PARAMS);
    }
    let get = match request.get_params() {
        Ok(get) => get,
        Err(refusal) => {
            assert_eq!(refusal.code(), INVALID_PARAMS);
            assert!(refusal.answer().msg.is_some());
            return;
        }
    };
    assert!(get.query.terms() <= swarm::MAX_QUERY_TERMS);
    if request.command != Command::Get {
        return;
    }
    for pair in CATALOGUES.iter() {
        let old = swarm::run(&pair.old, &get.query, 0);
        let new = swarm::run(&pair.new, &get.query, 0);
        for answer in [&old, &new] {
            assert!(answer.is_object(), "{answer}");
            assert!(!has_null(answer), "an answer holds null: {answer}");
        }
        let mut held = old.clone();
        if let Some(d) = swarm::diff(&old, &new) {
            swarm::merge(&mut held, &d);
        }
        assert_eq!(held, new, "diff then merge of {old} into {new}");
    }
});
