//! The request layer's envelope (api::transport): any bytes a client sends
//! as a POST body give an envelope or one of the transport refusals
//! (-70001 malformed, -70002 unknown key index, -70003 cannot be
//! decrypted), never a panic; whatever opens seals again and opens back to
//! the same text. The same bytes are also sealed as an answer and opened
//! again: a sealed JSON answer always opens to itself.
//!
//! Needs no store: `open_envelope` / `seal_envelope` take the key pairs
//! only. Run: `scripts/fuzz.sh 60 envelope`, or in `fuzz/`
//! `RUSTC_BOOTSTRAP=1 cargo fuzz run envelope --features api`.

#![no_main]

use std::sync::LazyLock;

use api::error::ApiError;
use api::transport::crypto::Pairs;
use api::transport::{open_envelope, seal_envelope};
use libfuzzer_sys::fuzz_target;

static PAIRS: LazyLock<Pairs> = LazyLock::new(|| {
    let pairs: Vec<(String, String)> = (0..10)
        .map(|i| (format!("fuzzkey{i:09}"), format!("fuzziv0{i:09}")))
        .collect();
    Pairs::new(&pairs).expect("16-byte pairs")
});

fn status(error: &ApiError) -> Option<i32> {
    match error {
        ApiError::Transport { status, .. } => Some(*status),
        _ => None,
    }
}

fuzz_target!(|body: &[u8]| {
    let pairs = &*PAIRS;
    match open_envelope(pairs, body) {
        Ok((index, plain)) => {
            assert!((0..10).contains(&index), "opened with pair {index}");
            let sealed = seal_envelope(pairs, index, plain.as_bytes()).expect("seals");
            let (again, reopened) = open_envelope(pairs, &sealed).expect("reopens");
            assert_eq!((again, reopened.as_str()), (index, plain.as_str()));
        }
        Err(e) => {
            let status = status(&e);
            assert!(
                matches!(status, Some(-70001 | -70002 | -70003)),
                "unexpected refusal {e:?}"
            );
        }
    }
    // The body as an answer: sealed with a pair chosen by its length, it
    // opens to itself whenever it is JSON (the layer seals JSON only).
    let index = (body.len() % 10) as i64;
    let sealed = seal_envelope(pairs, index, body).expect("any bytes seal");
    let opened = open_envelope(pairs, &sealed);
    match std::str::from_utf8(body)
        .ok()
        .filter(|t| serde_json::from_str::<serde_json::Value>(t).is_ok())
    {
        Some(text) => assert_eq!(opened.expect("sealed JSON opens").1, text),
        None => assert_eq!(opened.map_err(|e| status(&e)), Err(Some(-70003))),
    }
});
